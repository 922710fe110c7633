"""scipy.sparse input to the estimators with a sparse path: LinearRegression, Ridge, Lasso
(the Gram matrix from sparse products), LinearSVC (the dual over sparse rows) and
KNeighborsClassifier / KNeighborsRegressor (euclidean and cosine, densified within the limit).

References, each on the same data:

* the estimator fitted on ``X.toarray()`` (the dense path): coefficients and predictions on
  new rows to 1e-10 (closed forms and CD at tol 1e-12; measured ~1e-14);
* scikit-learn on the same sparse matrices: ``LinearRegression`` / ``Ridge`` (its sparse
  ``lsqr`` / ``sparse_cg`` solvers run to ``tol=1e-14``: 1e-9), ``LinearSVC`` (liblinear's dual to
  ``tol=1e-10``: both stop within that projected-gradient range of the unique optimum, 1e-7 on
  coefficients of order 1; measured ~3e-11), ``KNeighbors*`` (the same neighbours; predictions
  to 1e-12, the same sums in another order).
"""

import warnings

import numpy as np
import pytest

sp = pytest.importorskip("scipy.sparse")
from sklearn import linear_model as sk_linear  # noqa: E402
from sklearn import neighbors as sk_neighbors  # noqa: E402
from sklearn import svm as sk_svm  # noqa: E402

from jaxclassic.estimators import (  # noqa: E402
    KNeighborsClassifier,
    KNeighborsRegressor,
    Lasso,
    LinearRegression,
    LinearSVC,
    Ridge,
)
from jaxclassic.linear import _gram  # noqa: E402


def sparse_rows(n_samples, n_features, seed, largest=8):
    """CSR rows storing 1..``largest`` values (as tests/svm/test_linear_sparse.py, whose
    compiled sweep LinearSVC's fit then shares: same shapes and row capacity)."""
    rng = np.random.default_rng(seed)
    counts = rng.integers(1, largest + 1, n_samples)
    counts[0] = largest
    rows = np.repeat(np.arange(n_samples), counts)
    cols = np.concatenate([rng.choice(n_features, c, replace=False) for c in counts])
    return sp.csr_matrix((rng.uniform(0.1, 1.0, rows.size), (rows, cols)), shape=(n_samples, n_features))


@pytest.fixture(scope="module")
def regression():
    rng = np.random.default_rng(0)
    X = sparse_rows(60, 12, 3)
    y = X @ rng.normal(size=12) + 0.1 * rng.normal(size=60) + 1.0
    return X, y, sparse_rows(9, 12, 4)


@pytest.fixture(scope="module")
def classification():
    rng = np.random.default_rng(0)
    X = sparse_rows(64, 12, 1)
    score = X @ rng.normal(size=12)
    return X, (score > np.median(score)).astype(int), sparse_rows(9, 12, 5)


def _same(a, b, new, atol):
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=0, atol=atol)
    np.testing.assert_allclose(a.intercept_, b.intercept_, rtol=0, atol=atol)
    np.testing.assert_allclose(a.predict(new), b.predict(new.toarray()), rtol=0, atol=atol)


# --------------------------------------------------------------------------- least squares
@pytest.mark.parametrize("make", [lambda: LinearRegression(), lambda: Ridge(alpha=0.5),
                                  lambda: Lasso(alpha=0.002, tol=1e-12, max_iter=10000)],
                         ids=["LinearRegression", "Ridge", "Lasso"])
@pytest.mark.parametrize("fmt", ["csr", pytest.param("csc", marks=pytest.mark.full)])
def test_least_squares_sparse_equals_dense(regression, make, fmt):
    X, y, new = regression
    sparse = make().fit(X.asformat(fmt), y)
    _same(sparse, make().fit(X.toarray(), y), new.asformat(fmt), atol=1e-10)
    assert sparse.n_features_in_ == 12


@pytest.mark.parametrize("ours, ref", [
    (LinearRegression(), sk_linear.LinearRegression(tol=1e-14)),
    (Ridge(alpha=0.5), sk_linear.Ridge(alpha=0.5, tol=1e-14)),
], ids=["LinearRegression", "Ridge"])
def test_least_squares_equal_scikit_learn_on_sparse(regression, ours, ref):
    X, y, new = regression
    ours.fit(X, y)
    ref.fit(X, y)
    np.testing.assert_allclose(ours.coef_, ref.coef_, rtol=0, atol=1e-9)
    np.testing.assert_allclose(ours.predict(new), ref.predict(new), rtol=0, atol=1e-9)


@pytest.mark.full
def test_sparse_zero_weights_are_removed_rows(regression):
    X, y, new = regression
    w = np.ones(60)
    w[::7] = 0
    keep = w > 0
    a = Ridge(alpha=0.5).fit(X, y, sample_weight=w)
    b = Ridge(alpha=0.5).fit(X[keep], y[keep])
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=0, atol=1e-10)
    np.testing.assert_allclose(a.predict(new), b.predict(new), rtol=0, atol=1e-10)


@pytest.mark.full
def test_positive_least_squares_sparse(regression):
    X, y, new = regression
    a = LinearRegression(positive=True).fit(X, y)
    _same(a, LinearRegression(positive=True).fit(X.toarray(), y), new, atol=1e-9)
    assert np.all(a.coef_ >= 0)


def test_gram_column_limit(monkeypatch):
    monkeypatch.setattr(_gram, "MAX_GRAM_FEATURES", 10)
    X = sparse_rows(30, 11, 0)
    for est in (LinearRegression(), Ridge(), Lasso()):
        with pytest.raises(ValueError, match="a sparse X with 11 columns is above its limit of 10 columns"):
            est.fit(X, np.zeros(30))


# --------------------------------------------------------------------------- LinearSVC
@pytest.mark.full
def test_linear_svc_sparse(classification):
    X, y, new = classification
    ours = LinearSVC(tol=1e-10, max_iter=100000).fit(X, y)  # dual="auto": the dual for sparse X
    ref = sk_svm.LinearSVC(tol=1e-10, max_iter=100000, dual=True).fit(X, y)
    np.testing.assert_allclose(ours.coef_, ref.coef_, rtol=0, atol=1e-7)
    np.testing.assert_allclose(ours.intercept_, ref.intercept_, rtol=0, atol=1e-7)
    np.testing.assert_allclose(ours.decision_function(new), ref.decision_function(new), rtol=0, atol=1e-7)
    np.testing.assert_array_equal(ours.predict(new.tocsc()), ref.predict(new))
    # the same fitted model on dense rows
    np.testing.assert_allclose(ours.decision_function(new.toarray()), ours.decision_function(new),
                               rtol=0, atol=1e-12)


@pytest.mark.full
def test_linear_svc_sparse_equals_dense_multiclass(classification):
    X, y, new = classification
    y3 = y + (np.arange(64) % 3 == 0)
    kwargs = dict(tol=1e-10, max_iter=100000, dual=True, loss="hinge")
    _same(LinearSVC(**kwargs).fit(X.tocsc(), y3), LinearSVC(**kwargs).fit(X.toarray(), y3), new, atol=1e-10)


def test_linear_svc_primal_densifying_limit(classification, monkeypatch):
    X, y, _ = classification
    monkeypatch.setenv("JAXCLASSIC_MAX_DENSIFY", "100")
    with pytest.raises(ValueError, match="LinearSVC has no sparse path and would densify X of shape "
                                         r"\(64, 12\) .* above the limit of 100"):
        LinearSVC(dual=False).fit(X, y)


# --------------------------------------------------------------------------- k-NN
@pytest.mark.parametrize("cls, ref, metric, target", [
    (KNeighborsClassifier, sk_neighbors.KNeighborsClassifier, "cosine", "class"),
    (KNeighborsRegressor, sk_neighbors.KNeighborsRegressor, "minkowski", "value"),
])
@pytest.mark.full
def test_kneighbors_sparse_equal_scikit_learn(regression, cls, ref, metric, target):
    X, y, new = regression
    y = (y > np.median(y)).astype(int) if target == "class" else y
    ours = cls(5, metric=metric, weights="distance").fit(X.tocsc(), y)
    theirs = ref(5, metric=metric, weights="distance", algorithm="brute").fit(X, y)
    dist, idx = ours.kneighbors(new)
    ref_dist, ref_idx = theirs.kneighbors(new)
    np.testing.assert_array_equal(idx, ref_idx)
    np.testing.assert_allclose(dist, ref_dist, rtol=0, atol=1e-12)
    np.testing.assert_allclose(ours.predict(new), theirs.predict(new), rtol=0, atol=1e-12)
    if target == "class":
        np.testing.assert_allclose(ours.predict_proba(new), theirs.predict_proba(new), rtol=0, atol=1e-12)


def test_kneighbors_sparse_other_metric_and_limit(regression, monkeypatch):
    X, y, new = regression
    with pytest.raises(ValueError, match="KNeighborsRegressor: sparse X is supported with the euclidean and "
                                         "cosine metrics only .* got metric='manhattan'"):
        KNeighborsRegressor(metric="manhattan").fit(X, y)
    dense_fit = KNeighborsRegressor(metric="manhattan").fit(X.toarray(), y)
    with pytest.raises(ValueError, match="got metric='manhattan'"):
        dense_fit.predict(new)
    monkeypatch.setenv("JAXCLASSIC_MAX_DENSIFY", "100")
    with pytest.raises(ValueError, match="KNeighborsRegressor has no sparse path .* above the limit of 100"):
        KNeighborsRegressor().fit(X, y)


def test_estimators_declare_sparse_tag():
    for est in (LinearRegression(), Ridge(), Lasso(), LinearSVC(), KNeighborsClassifier(),
                KNeighborsRegressor()):
        assert est.__sklearn_tags__().input_tags.sparse, type(est).__name__
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from jaxclassic.estimators import BayesianRidge
    assert not BayesianRidge().__sklearn_tags__().input_tags.sparse
