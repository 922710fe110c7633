"""Sparse input of k-means (jaxclassic/cluster/_kmeans_sparse.py through fit_kmeans and the KMeans
estimator): never densified, equal to the dense fit and to scikit-learn's KMeans on the same sparse
matrix from the same initial centres (float64; 1e-10 relative: the same Lloyd iterates, distances
rounded otherwise because the sparse rows are not centred).
"""

import jax
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.cluster import KMeans as SkKMeans
from sklearn.datasets import make_blobs

from jaxclassic.cluster import fit_kmeans
from jaxclassic.estimators import KMeans


@pytest.fixture(scope="module")
def data():
    X, _ = make_blobs(300, n_features=6, centers=4, random_state=0)
    X[np.abs(X) < 2] = 0.0  # about a third of the values are 0
    return X, X[[0, 50, 100, 150]].copy()


def test_sparse_equals_dense_and_scikit_learn(data):
    X, init = data
    dense = fit_kmeans(X, 4, init=init)
    sparse = fit_kmeans(sp.csr_matrix(X), 4, init=init)
    sk = SkKMeans(4, init=init, n_init=1, algorithm="lloyd").fit(sp.csr_matrix(X))
    np.testing.assert_allclose(sparse.cluster_centers, dense.cluster_centers, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(sparse.cluster_centers, sk.cluster_centers_, rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(sparse.labels, sk.labels_)
    np.testing.assert_allclose(float(sparse.inertia), sk.inertia_, rtol=1e-10)
    assert int(sparse.n_iter) == int(dense.n_iter) == sk.n_iter_ and bool(sparse.converged)


def test_empty_cluster_relocated_as_dense(data):
    # two identical initial centres: one gets no row and is moved to the farthest row (dense's rule)
    X, init = data
    init = init.copy()
    init[3] = init[2]
    dense = fit_kmeans(X, 4, init=init, sample_weight=np.linspace(0.5, 2.0, len(X)))
    sparse = fit_kmeans(sp.csc_matrix(X), 4, init=init, sample_weight=np.linspace(0.5, 2.0, len(X)))
    np.testing.assert_allclose(sparse.cluster_centers, dense.cluster_centers, rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(sparse.labels, dense.labels)


@pytest.mark.full
def test_seeding_reaches_the_same_optimum(data):
    # k-means++ / random seeds on sparse rows are their own draws; on these blobs every run of 3
    # finds the optimum of the dense fit
    X, _ = data
    best = float(fit_kmeans(X, 4, n_init=3, n_local_trials="auto", key=jax.random.key(1)).inertia)
    for init in ("k-means++", "random"):
        p = fit_kmeans(sp.csr_matrix(X), 4, init=init, n_init=3, n_local_trials="auto", key=jax.random.key(1))
        np.testing.assert_allclose(float(p.inertia), best, rtol=1e-10)


def test_estimator_sparse_fit_predict_transform_score(data):
    X, init = data
    dense = KMeans(4, init=init).fit(X)
    sparse = KMeans(4, init=init).fit(sp.csr_matrix(X))
    np.testing.assert_allclose(sparse.cluster_centers_, dense.cluster_centers_, rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(sparse.predict(sp.csr_matrix(X)), dense.labels_)
    np.testing.assert_allclose(sparse.transform(sp.csc_matrix(X[:7])), dense.transform(X[:7]), rtol=1e-10)
    np.testing.assert_allclose(sparse.score(sp.csr_matrix(X)), dense.score(X), rtol=1e-10)


def test_sparse_bad_input(data):
    X, _ = data
    bad = sp.csr_matrix(X)
    bad.data[0] = np.nan
    with pytest.raises(ValueError, match="X contains 1 NaN"):
        fit_kmeans(bad, 2)
    with pytest.raises(ValueError, match="n_clusters"):
        fit_kmeans(sp.csr_matrix(X[:3]), 5)
    with pytest.raises(ValueError, match="init"):
        fit_kmeans(sp.csr_matrix(X), 4, init=np.zeros((4, 2)))
