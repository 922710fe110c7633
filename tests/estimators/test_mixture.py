"""Tests of jaxclassic/estimators/mixture.py beyond scikit-learn's generic checks.

References: scikit-learn's ``GaussianMixture`` on overlapping blobs where both k-means starts
lead EM to the same optimum (its random draws differ from ours): weights, means,
covariances, precisions to 1e-6 after matching the components (tol=1e-10, float64), and
score / bic / aic to 1e-8 relative; the estimator equals the core fit (the rows padded to a
shape bucket with zero weights change nothing).
"""

import numpy as np
import pytest
from sklearn import datasets, mixture
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from jaxclassic import cluster
from jaxclassic.estimators.mixture import GaussianMixture, _key
from jaxclassic.exceptions import ConvergenceWarning

X, _ = datasets.make_blobs(300, 3, centers=3, cluster_std=1.5, random_state=1)
TYPES = ("full", "tied", "diag", "spherical")


def _sorted(est):
    return np.argsort(est.means_[:, 0])


@pytest.mark.full
@pytest.mark.parametrize("covariance_type", TYPES)
def test_equals_sklearn_where_both_starts_reach_one_optimum(covariance_type):
    ours = GaussianMixture(3, covariance_type=covariance_type, tol=1e-10, max_iter=500,
                           random_state=0).fit(X)
    ref = mixture.GaussianMixture(3, covariance_type=covariance_type, tol=1e-10, max_iter=500,
                                  random_state=0).fit(X)
    a, b = _sorted(ours), _sorted(ref)
    assert ours.converged_ and ref.converged_
    np.testing.assert_allclose(ours.weights_[a], ref.weights_[b], atol=1e-6)
    np.testing.assert_allclose(ours.means_[a], ref.means_[b], atol=1e-6)
    per_component = covariance_type != "tied"
    np.testing.assert_allclose(ours.covariances_[a] if per_component else ours.covariances_,
                               ref.covariances_[b] if per_component else ref.covariances_, atol=1e-6)
    np.testing.assert_allclose(ours.precisions_[a] if per_component else ours.precisions_,
                               ref.precisions_[b] if per_component else ref.precisions_, rtol=1e-5)
    np.testing.assert_allclose(ours.score(X), ref.score(X), rtol=1e-8)
    np.testing.assert_allclose(ours.bic(X), ref.bic(X), rtol=1e-8)
    np.testing.assert_allclose(ours.aic(X), ref.aic(X), rtol=1e-8)
    np.testing.assert_allclose(ours.score_samples(X), ref.score_samples(X), atol=1e-6)
    np.testing.assert_allclose(ours.predict_proba(X)[:, a], ref.predict_proba(X)[:, b], atol=1e-6)
    assert ours.lower_bounds_[-1] == ours.lower_bound_ and len(ours.lower_bounds_) == ours.n_iter_


@pytest.mark.full
def test_equals_the_core_fit():
    # 300 rows are padded to 512 with zero weights; the core fit sees the 300 rows only
    est = GaussianMixture(3, covariance_type="diag", init_params="random", random_state=0,
                          n_init=2).fit(X)
    core = cluster.fit_gmm(X, 3, key=_key(0), covariance_type="diag", init="random", n_init=2)
    for name in ("weights", "means", "covariances", "precisions_cholesky"):
        np.testing.assert_allclose(getattr(est, name + "_"), getattr(core, name), atol=1e-12)
    assert est.n_iter_ == int(core.n_iter)
    np.testing.assert_array_equal(est.predict(X), cluster.predict(core, X))
    np.testing.assert_array_equal(est.fit_predict(X), est.predict(X))


@pytest.mark.full
def test_sample_is_grouped_by_component_and_seeded():
    est = GaussianMixture(3, tol=1e-10, max_iter=500, random_state=0).fit(X)  # compiled above
    Xs, ys = est.sample(50)
    assert Xs.shape == (50, 3) and ys.shape == (50,)
    assert np.all(np.diff(ys) >= 0)  # grouped by component, as scikit-learn
    again, _ = est.sample(50)
    np.testing.assert_array_equal(again, Xs)
    with pytest.raises(ValueError, match="Invalid value for 'n_samples'"):
        est.sample(0)


@pytest.mark.full
def test_float32_in_float32_out(x64_off):
    est = GaussianMixture(2, random_state=0).fit(X.astype(np.float32))
    assert est.means_.dtype == np.float32 and est.covariances_.dtype == np.float32
    assert est.score_samples(X.astype(np.float32)).dtype == np.float32


@pytest.mark.full
def test_sample_weight_equals_repeated_rows():
    # the k-means starts differ (weighted draws vs repeated rows), EM's optimum does not
    counts = np.random.default_rng(0).integers(1, 4, len(X))
    kw = dict(covariance_type="spherical", tol=1e-10, max_iter=500, random_state=0)
    a = GaussianMixture(3, **kw).fit(X, sample_weight=counts)
    b = GaussianMixture(3, **kw).fit(np.repeat(X, counts, axis=0))
    np.testing.assert_allclose(a.means_[_sorted(a)], b.means_[_sorted(b)], atol=1e-6)
    np.testing.assert_allclose(a.covariances_[_sorted(a)], b.covariances_[_sorted(b)], atol=1e-6)
    np.testing.assert_allclose(a.lower_bound_, b.lower_bound_, rtol=1e-8)


@pytest.mark.full
def test_convergence_warning_in_the_estimator_vocabulary():
    with pytest.warns(ConvergenceWarning, match="GaussianMixture did not converge in max_iter=1"):
        GaussianMixture(3, max_iter=1, tol=0.0, init_params="random", random_state=0).fit(X)


def test_bad_parameters():
    with pytest.raises(ValueError, match="init_params must be one of"):
        GaussianMixture(2, init_params="kmeans++").fit(X)
    with pytest.raises(ValueError, match="covariance_type must be one of"):
        GaussianMixture(2, covariance_type="block").fit(X)
    with pytest.raises(ValueError, match=r"n_components must be <= the number of rows of positive weight \(4\)"):
        GaussianMixture(5).fit(X[:4])


@pytest.mark.full
def test_pipeline_and_grid_search_over_n_components():
    # GridSearchCV scores a density estimator by its mean held-out log-likelihood
    gm = GaussianMixture(covariance_type="diag", init_params="random_from_data", random_state=0)
    search = GridSearchCV(make_pipeline(StandardScaler(), gm),
                          {"gaussianmixture__n_components": [1, 3]}, cv=3).fit(X)
    assert search.best_params_ == {"gaussianmixture__n_components": 3}
    assert np.isfinite(search.best_score_)

