"""Tests of jaxclassic/cluster/hierarchical.py.

References: SciPy's ``scipy.cluster.hierarchy.linkage`` (the same method and metric) on random
data without tied distances: merge indices and sizes exactly, heights to 1e-10 relative in
float64 (both evaluate the same distance updates; they differ by rounding only, ~1e-15), and
``fcluster`` (``maxclust`` / ``distance``) for the cuts, up to relabelling (adjusted Rand
index 1). The cuts are also run on SciPy's own linkage matrices, so they are checked apart
from our merges.
"""


import jax
import jax.numpy as jnp
import numpy as np
import pytest
from scipy.cluster import hierarchy as sch
from sklearn.metrics import adjusted_rand_score

from jaxclassic import cluster
from jaxclassic.cluster import hierarchical as H

RNG = np.random.default_rng(1)
X = RNG.normal(size=(30, 3))
SCIPY_METRIC = {"euclidean": "euclidean", "manhattan": "cityblock", "cosine": "cosine",
                "chebyshev": "chebyshev"}


def _assert_equal_scipy(Z, R):
    Z = np.asarray(Z)
    np.testing.assert_array_equal(Z[:, [0, 1, 3]], R[:, [0, 1, 3]])
    np.testing.assert_allclose(Z[:, 2], R[:, 2], rtol=1e-10)


@pytest.mark.full
@pytest.mark.parametrize("linkage", H.LINKAGES)
def test_linkage_matrix_equals_scipy(linkage):
    _assert_equal_scipy(cluster.fit_agglomerative(X, linkage=linkage).linkage_matrix, sch.linkage(X, linkage))


@pytest.mark.parametrize("linkage, metric", [("average", "manhattan"), ("complete", "cosine"),
                                             ("single", "chebyshev"), ("weighted", "manhattan")])
def test_other_metrics_equal_scipy(linkage, metric):
    _assert_equal_scipy(cluster.fit_agglomerative(X, linkage=linkage, metric=metric).linkage_matrix,
                        sch.linkage(X, linkage, metric=SCIPY_METRIC[metric]))


def test_centroid_and_median_inversions_follow_scipy():
    # these data have inversions (a merge lower than an earlier one): SciPy's rows keep the
    # merge order, and so do ours
    for linkage in ("centroid", "median"):
        R = sch.linkage(X, linkage)
        assert not sch.is_monotonic(R)
        _assert_equal_scipy(cluster.fit_agglomerative(X, linkage=linkage).linkage_matrix, R)
        np.testing.assert_allclose(H.maxdists(R), sch.maxdists(R), rtol=0)


def _thresholds(R):
    """Distances midway between consecutive distinct maxdists (no threshold on a height)."""
    md = np.unique(sch.maxdists(R))
    return (md[:-1] + md[1:]) / 2


@pytest.mark.full
@pytest.mark.parametrize("linkage", H.LINKAGES)
def test_cuts_equal_fcluster_up_to_relabelling(linkage):
    R = sch.linkage(X, linkage)
    for Z in (R, cluster.fit_agglomerative(X, linkage=linkage).linkage_matrix):
        for k in (1, 2, 3, 5, 8, 30):
            labels = np.asarray(cluster.cut_tree(Z, n_clusters=k))
            ref = sch.fcluster(R, k, "maxclust")
            assert adjusted_rand_score(labels, ref) == 1.0
            assert labels.min() == 0 and labels.max() == len(set(labels)) - 1
        for t in _thresholds(R)[::4]:
            labels = np.asarray(cluster.cut_tree(Z, distance=t))
            ref = sch.fcluster(R, t, "distance")
            assert adjusted_rand_score(labels, ref) == 1.0
            assert len(set(labels)) == len(set(ref))


def test_cut_labels_are_numbered_by_first_row():
    Z = cluster.fit_agglomerative(np.array([[0.0], [10.0], [0.5], [10.5], [20.0]]),
                                  linkage="single").linkage_matrix
    assert cluster.cut_tree(Z, n_clusters=3).tolist() == [0, 1, 0, 1, 2]
    assert cluster.cut_tree(Z, n_clusters=5).tolist() == [0, 1, 2, 3, 4]
    assert cluster.cut_tree(Z, n_clusters=1).tolist() == [0, 0, 0, 0, 0]


def test_tied_heights_at_the_cut_merge_more_as_scipy():
    # two merges at the same height 1: maxclust 3 cannot cut between them (SciPy: 2 clusters)
    Xt = np.array([[0.0], [1.0], [5.0], [6.0]])
    R = sch.linkage(Xt, "single")
    labels = np.asarray(cluster.cut_tree(cluster.fit_agglomerative(Xt, linkage="single"),
                                         n_clusters=3))
    assert len(set(labels)) == len(set(sch.fcluster(R, 3, "maxclust"))) == 2


def test_duplicate_points_merge_at_height_zero():
    Xd = np.concatenate([X[:10], X[:5]])
    Z = np.asarray(cluster.fit_agglomerative(Xd, linkage="average").linkage_matrix)
    R = sch.linkage(Xd, "average")
    np.testing.assert_allclose(np.sort(Z[:, 2]), np.sort(R[:, 2]), rtol=1e-10, atol=1e-14)
    assert np.sum(Z[:, 2] == 0) == 5


def test_float32_keeps_float32_and_matches_scipy_to_float32_rounding():
    Z = cluster.fit_agglomerative(X.astype(np.float32), linkage="ward").linkage_matrix
    R = sch.linkage(X, "ward")
    assert Z.dtype == jnp.float32
    np.testing.assert_array_equal(np.asarray(Z)[:, [0, 1, 3]], R[:, [0, 1, 3]])
    np.testing.assert_allclose(np.asarray(Z)[:, 2], R[:, 2], rtol=1e-5)


# --------------------------------------------------------------------------- transformations
@pytest.mark.full
def test_jit_equals_eager_and_vmap_equals_loop():
    def fit(X):
        return cluster.fit_agglomerative(X, linkage="ward").linkage_matrix

    np.testing.assert_array_equal(jax.jit(fit)(jnp.asarray(X)), fit(X))
    batch = np.stack([X, X[::-1] * 2.0, X + RNG.normal(scale=0.1, size=X.shape)])
    batched = jax.vmap(fit)(jnp.asarray(batch))
    for i in range(3):
        np.testing.assert_allclose(batched[i], fit(batch[i]), rtol=1e-12)
    cuts = jax.vmap(lambda Z: cluster.cut_tree(Z, n_clusters=4))(batched)
    for i in range(3):
        np.testing.assert_array_equal(cuts[i], cluster.cut_tree(batched[i], n_clusters=4))


def test_second_call_does_not_retrace():
    cluster.fit_agglomerative(X, linkage="complete")
    cluster.cut_tree(sch.linkage(X), n_clusters=3)
    before = (H._linkage._cache_size(), H._cut._cache_size())
    cluster.fit_agglomerative(X * 3.0 + 1.0, linkage="complete")
    cluster.cut_tree(sch.linkage(X * 2.0), n_clusters=5)  # n_clusters is traced
    assert (H._linkage._cache_size(), H._cut._cache_size()) == before


# --------------------------------------------------------------------------- bad input
def test_fewer_than_two_rows():
    with pytest.raises(ValueError, match=r"X must have at least 2 sample\(s\), got shape \(1, 3\)"):
        cluster.fit_agglomerative(X[:1], linkage="single")


def test_unknown_linkage():
    with pytest.raises(ValueError, match=r"linkage must be one of \[.*'ward'\], got 'wards'"):
        cluster.fit_agglomerative(X, linkage="wards")


def test_unknown_metric():
    with pytest.raises(ValueError, match=r"metric must be one of .*, got 'cityblock'"):
        cluster.fit_agglomerative(X, linkage="average", metric="cityblock")


def test_ward_needs_euclidean():
    with pytest.raises(ValueError, match="linkage='ward' is defined for metric='euclidean' only, got metric='manhattan'"):
        cluster.fit_agglomerative(X, linkage="ward", metric="manhattan")


def test_nan():
    Xn = X.copy()
    Xn[0, 0] = np.nan
    with pytest.raises(ValueError, match="X contains 1 NaN"):
        cluster.fit_agglomerative(Xn, linkage="single")


def test_matrix_linkage_above_the_size_guard(monkeypatch):
    monkeypatch.setattr(H, "MAX_MATRIX_SAMPLES", 20)
    with pytest.raises(ValueError, match="linkage='average' keeps the n x n distance matrix .* more than MAX_MATRIX_SAMPLES=20"):
        cluster.fit_agglomerative(X, linkage="average")
    cluster.fit_agglomerative(X, linkage="centroid")  # O(n d): no guard


def test_cut_with_both_arguments():
    with pytest.raises(ValueError, match="exactly one of n_clusters and distance must be given, got both"):
        cluster.cut_tree(sch.linkage(X), n_clusters=2, distance=1.0)


def test_cut_with_neither_argument():
    with pytest.raises(ValueError, match="exactly one of n_clusters and distance must be given, got neither"):
        cluster.cut_tree(sch.linkage(X))


def test_cut_n_clusters_out_of_range():
    with pytest.raises(ValueError, match="n_clusters must be <= 30, got 31"):
        cluster.cut_tree(sch.linkage(X), n_clusters=31)
    with pytest.raises(ValueError, match="n_clusters must be >= 1, got 0"):
        cluster.cut_tree(sch.linkage(X), n_clusters=0)


def test_cut_negative_distance():
    with pytest.raises(ValueError, match="distance must be >= 0.0, got -1.0"):
        cluster.cut_tree(sch.linkage(X), distance=-1.0)


def test_cut_of_a_matrix_that_is_not_a_linkage():
    with pytest.raises(ValueError, match=r"Z must have 4 columns \(a linkage matrix\), got shape \(29, 3\)"):
        cluster.cut_tree(np.zeros((29, 3)), n_clusters=2)


# --------------------------------------------------------------------------- fit_agglomerative
def test_fit_agglomerative_defaults_are_the_estimators():
    from sklearn.cluster import AgglomerativeClustering

    fit = cluster.fit_agglomerative(X)  # ward, 2 clusters: scikit-learn's defaults
    ref = AgglomerativeClustering().fit(X)
    _assert_equal_scipy(fit.linkage_matrix, sch.linkage(X, "ward"))
    assert int(fit.n_clusters) == ref.n_clusters_ == 2
    assert adjusted_rand_score(np.asarray(fit.labels), ref.labels_) == 1.0
    np.testing.assert_array_equal(np.asarray(fit.children), np.asarray(fit.linkage_matrix)[:, :2])
    np.testing.assert_array_equal(np.asarray(fit.distances), np.asarray(fit.linkage_matrix)[:, 2])


def test_fit_agglomerative_distance_threshold_equals_sklearn():
    from sklearn.cluster import AgglomerativeClustering

    fit = cluster.fit_agglomerative(X, n_clusters=None, distance_threshold=2.0, linkage="average")
    ref = AgglomerativeClustering(n_clusters=None, distance_threshold=2.0, linkage="average").fit(X)
    assert int(fit.n_clusters) == ref.n_clusters_
    assert adjusted_rand_score(np.asarray(fit.labels), ref.labels_) == 1.0
    np.testing.assert_array_equal(cluster.cut_tree(fit, n_clusters=3),
                                  cluster.cut_tree(fit.linkage_matrix, n_clusters=3))


def test_fit_agglomerative_needs_exactly_one_of_n_clusters_and_threshold():
    with pytest.raises(ValueError, match="exactly one of n_clusters and distance_threshold"):
        cluster.fit_agglomerative(X, distance_threshold=1.0)
    with pytest.raises(ValueError, match="exactly one of n_clusters and distance_threshold"):
        cluster.fit_agglomerative(X, n_clusters=None)
    with pytest.raises(ValueError, match=r"n_clusters must be <= n_samples=30, got n_clusters=31"):
        cluster.fit_agglomerative(X, n_clusters=31)
    with pytest.raises(ValueError, match="distance_threshold"):
        cluster.fit_agglomerative(X, n_clusters=None, distance_threshold=-1.0)


def test_agglomerative_is_a_deprecated_alias_with_its_old_default():
    with pytest.warns(DeprecationWarning, match="fit_agglomerative"):
        Z = cluster.agglomerative(X)  # the old default: single linkage
    np.testing.assert_array_equal(Z, cluster.fit_agglomerative(X, linkage="single").linkage_matrix)
    assert "agglomerative" not in cluster.__all__
