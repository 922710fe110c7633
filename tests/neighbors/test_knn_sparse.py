"""Sparse X in jaxclassic/neighbors/knn.py: k-NN has no sparse search, so the euclidean and
cosine metrics densify a sparse X within jaxclassic._sparse's limit (``knn.densify_sparse``);
the other metrics refuse it.

Reference: scikit-learn's brute-force ``KNeighborsClassifier`` / ``KNeighborsRegressor`` on
the same scipy.sparse matrices (its sparse euclidean and cosine paths): the same neighbours,
and predictions to 1e-12 in float64 (the same sums of the same neighbours' targets).
"""

import numpy as np
import pytest

sp = pytest.importorskip("scipy.sparse")
from sklearn.neighbors import KNeighborsClassifier, KNeighborsRegressor  # noqa: E402

from jaxclassic import neighbors as N  # noqa: E402
from jaxclassic.neighbors import knn  # noqa: E402


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = sp.random(48, 16, density=0.3, random_state=2, format="csr")
    return X, rng.integers(0, 3, 48), rng.normal(size=48), sp.random(10, 16, density=0.3, random_state=4,
                                                                      format="csc")


@pytest.mark.full  # the estimators' tests (tests/estimators/test_sparse_input.py) run in the fast tier
@pytest.mark.parametrize("metric", ["euclidean", "cosine"])
def test_sparse_equals_scikit_learn(data, metric):
    X, yc, yr, new = data
    ours = N.fit_knn(X, yc, n_neighbors=5, metric=metric, weights="distance")
    ref = KNeighborsClassifier(5, metric=metric, weights="distance", algorithm="brute").fit(X, yc)
    np.testing.assert_array_equal(np.asarray(N.predict(ours, new)), ref.predict(new))
    np.testing.assert_allclose(np.asarray(N.predict_proba(ours, new)), ref.predict_proba(new), rtol=0, atol=1e-12)
    ours = N.fit_knn(X, yr, n_neighbors=5, metric=metric, task="regression")
    ref = KNeighborsRegressor(5, metric=metric, algorithm="brute").fit(X, yr)
    np.testing.assert_allclose(np.asarray(N.predict(ours, new)), ref.predict(new), rtol=0, atol=1e-12)


def test_other_metrics_refuse_sparse(data):
    X, yc, _, _ = data
    with pytest.raises(ValueError, match="fit_knn: sparse X is supported with the euclidean and cosine metrics "
                                         "only .* got metric='manhattan'"):
        N.fit_knn(X, yc, metric="manhattan")
    with pytest.raises(ValueError, match="got metric='minkowski' with p=3.0"):
        N.fit_knn(X, yc, metric="minkowski", p=3)
    # minkowski with p = 2 is the euclidean path
    assert isinstance(knn.densify_sparse(X, "minkowski", 2.0, model="m"), np.ndarray)


def test_densifying_limit(data, monkeypatch):
    X, yc, _, _ = data
    monkeypatch.setenv("JAXCLASSIC_MAX_DENSIFY", str(48 * 16 - 1))
    with pytest.raises(ValueError, match="fit_knn has no sparse path and would densify X of shape "
                                         r"\(48, 16\) .* above the limit of 767"):
        N.fit_knn(X, yc)
