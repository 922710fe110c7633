"""Tests of jaxclassic/estimators/cluster.py beyond scikit-learn's generic checks: ``KMeans``
equals scikit-learn's from the same initial centres (float64, 1e-8: the same Lloyd arithmetic),
``AgglomerativeClustering`` gives scikit-learn's tree (children, distances) and labels up to
relabelling, float32 stays float32, zero weights have no influence, bad parameters raise."""

import numpy as np
import pytest
from sklearn import cluster as sk_cluster
from sklearn.metrics import adjusted_rand_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from jaxclassic import estimators as est

RNG = np.random.default_rng(4)
X = np.concatenate([RNG.normal(size=(25, 4)) + c for c in (0.0, 4.0, 8.0)])
X = X[RNG.permutation(len(X))]


# --------------------------------------------------------------------------- KMeans
@pytest.mark.full
def test_kmeans_equals_sklearn_from_the_same_centres():
    init = X[:4]
    ours = est.KMeans(4, init=init, n_init=1).fit(X)
    ref = sk_cluster.KMeans(4, init=init, n_init=1, algorithm="lloyd").fit(X)
    np.testing.assert_allclose(ours.cluster_centers_, ref.cluster_centers_, rtol=1e-8)
    np.testing.assert_array_equal(ours.labels_, ref.labels_)
    assert ours.inertia_ == pytest.approx(ref.inertia_, rel=1e-8)
    assert ours.n_iter_ == ref.n_iter_
    Xq = RNG.normal(scale=4.0, size=(9, 4))
    np.testing.assert_array_equal(ours.predict(Xq), ref.predict(Xq))
    np.testing.assert_allclose(ours.transform(Xq), ref.transform(Xq), rtol=1e-8)
    w = RNG.uniform(0.5, 2.0, size=9)
    assert ours.score(Xq, sample_weight=w) == pytest.approx(ref.score(Xq, sample_weight=w), rel=1e-8)
    assert ours.labels_.dtype.kind == "i"


@pytest.mark.full
def test_kmeans_plusplus_finds_sklearns_clustering():
    ours = est.KMeans(3, random_state=0).fit(X)
    ref = sk_cluster.KMeans(3, random_state=0).fit(X)
    assert adjusted_rand_score(ours.labels_, ref.labels_) == 1.0
    assert ours.inertia_ == pytest.approx(ref.inertia_, rel=1e-10)
    np.testing.assert_array_equal(ours.fit_predict(X), ours.labels_)


@pytest.mark.full
def test_kmeans_float32_stays_float32():
    km = est.KMeans(3, random_state=0).fit(X.astype(np.float32))
    assert km.cluster_centers_.dtype == np.float32
    assert km.transform(X.astype(np.float32)).dtype == np.float32


@pytest.mark.full
def test_kmeans_zero_weights_equal_dropping_the_rows():
    w = np.ones(len(X))
    w[::5] = 0.0
    a = est.KMeans(3, random_state=1).fit(X, sample_weight=w)
    b = est.KMeans(3, random_state=1).fit(X[w > 0])
    np.testing.assert_allclose(a.cluster_centers_, b.cluster_centers_, rtol=1e-10)
    assert a.inertia_ == pytest.approx(b.inertia_, rel=1e-10)
    np.testing.assert_array_equal(a.labels_[w > 0], b.labels_)


@pytest.mark.full
def test_kmeans_in_a_pipeline():
    pipe = make_pipeline(StandardScaler(), est.KMeans(3, random_state=0)).fit(X)
    assert pipe.predict(X).shape == (len(X),) and pipe.transform(X).shape == (len(X), 3)


def test_kmeans_more_clusters_than_samples():
    with pytest.raises(ValueError, match=r"n_samples=5 should be >= n_clusters=8\."):
        est.KMeans().fit(X[:5])


def test_kmeans_bad_n_init():
    with pytest.raises(ValueError, match="n_init must be 'auto' or an int >= 1, got 'warn'"):
        est.KMeans(n_init="warn").fit(X)


def test_kmeans_negative_tol():
    with pytest.raises(ValueError, match="tol must be a float >= 0, got -0.1"):
        est.KMeans(tol=-0.1).fit(X)


def test_kmeans_init_array_of_wrong_shape():
    with pytest.raises(ValueError, match=r"The shape of the initial centers \(2, 4\) does not match"):
        est.KMeans(3, init=X[:2]).fit(X)


# --------------------------------------------------------------------------- Agglomerative
@pytest.mark.full
@pytest.mark.parametrize("linkage", ["ward", "complete", "average", "single"])
def test_agglomerative_equals_sklearn(linkage):
    ours = est.AgglomerativeClustering(4, linkage=linkage, compute_distances=True).fit(X)
    ref = sk_cluster.AgglomerativeClustering(4, linkage=linkage, compute_distances=True).fit(X)
    assert adjusted_rand_score(ours.labels_, ref.labels_) == 1.0
    np.testing.assert_allclose(ours.distances_, ref.distances_, rtol=1e-10)
    np.testing.assert_array_equal(np.sort(ours.children_, axis=1), np.sort(ref.children_, axis=1))
    assert ours.n_leaves_ == ref.n_leaves_ and ours.n_clusters_ == ref.n_clusters_ == 4
    assert ours.labels_.min() == 0 and ours.labels_.max() == 3


def test_agglomerative_distance_threshold_equals_sklearn():
    for threshold in (1.0, 3.0, 10.0):
        ours = est.AgglomerativeClustering(None, distance_threshold=threshold).fit(X)
        ref = sk_cluster.AgglomerativeClustering(None, distance_threshold=threshold).fit(X)
        assert ours.n_clusters_ == ref.n_clusters_
        assert adjusted_rand_score(ours.labels_, ref.labels_) == 1.0
        np.testing.assert_allclose(ours.distances_, ref.distances_, rtol=1e-10)


def test_agglomerative_manhattan_average_equals_sklearn():
    ours = est.AgglomerativeClustering(3, linkage="average", metric="manhattan").fit(X)
    ref = sk_cluster.AgglomerativeClustering(3, linkage="average", metric="manhattan").fit(X)
    assert adjusted_rand_score(ours.labels_, ref.labels_) == 1.0


@pytest.mark.full
def test_agglomerative_float32_and_no_distances_by_default():
    m = est.AgglomerativeClustering(3).fit(X.astype(np.float32))
    assert m.linkage_matrix_.dtype == np.float32 and not hasattr(m, "distances_")


def test_agglomerative_needs_exactly_one_of_n_clusters_and_threshold():
    with pytest.raises(ValueError, match="Exactly one of n_clusters and distance_threshold has to be set"):
        est.AgglomerativeClustering(2, distance_threshold=1.0).fit(X)
    with pytest.raises(ValueError, match="Exactly one of n_clusters and distance_threshold has to be set"):
        est.AgglomerativeClustering(None).fit(X)


def test_agglomerative_more_clusters_than_samples():
    with pytest.raises(ValueError, match="Cannot extract more clusters than samples: 10 clusters were given for a tree with 5 leaves"):
        est.AgglomerativeClustering(10).fit(X[:5])


def test_agglomerative_ward_with_manhattan():
    with pytest.raises(ValueError, match="linkage='ward' is defined for metric='euclidean' only"):
        est.AgglomerativeClustering(2, metric="manhattan").fit(X)


def test_agglomerative_unknown_metric():
    with pytest.raises(ValueError, match=r"metric must be one of \[.*\], got 'precomputed'"):
        est.AgglomerativeClustering(2, metric="precomputed", linkage="average").fit(X)
