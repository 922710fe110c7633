"""Independent review of the clustering family, used as a demanding user would, beside
scikit-learn and SciPy.

Each test states its reference and tolerance. The first group are regressions of results that
were silently wrong before this review:

* ``AgglomerativeClustering`` returned fewer clusters than ``n_clusters`` (and than its own
  ``n_clusters_``) when merge heights tie at the cut (iris, integer data): it cut by a height
  threshold (``fcluster``'s maxclust) where scikit-learn undoes the last ``k - 1`` merges;
* the distance-matrix linkages (single / complete / average...) lost the distances of data far
  from the origin to the Gram form (float32 rows around 1e3 merged at random; float64 rows
  around 1e6 had heights off by 1e-3);
* ``KMeans.predict`` / ``transform`` / ``score`` (and the core's ``predict``, ``transform``,
  ``inertia``) did the same on float32 rows around 1e6: ``predict(X)`` disagreed with
  ``labels_`` of the same fit (adjusted Rand index 0.02), ``transform`` was off by hundreds;
* ``KMeans(init=callable)`` (scikit-learn's API) crashed with an unrelated TypeError.

The rest pins down behaviour that was checked and found right (inertia of k-means++ over seeds
beside scikit-learn, integer weights equal repeated rows, Gaussian mixtures on rank-deficient
and constant-column data and float32 on badly scaled columns, each against its reference).
Data are small: the whole file compiles a handful of programs.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from scipy.cluster import hierarchy as sch
from sklearn import cluster as sk_cluster
from sklearn import mixture as sk_mixture
from sklearn.datasets import load_iris, load_wine
from sklearn.metrics import adjusted_rand_score

from jaxclassic import cluster
from jaxclassic import estimators as est
from jaxclassic.cluster import gmm as G
from jaxclassic.cluster import kmeans as K

IRIS = load_iris().data
WINE = load_wine().data
RNG = np.random.default_rng(7)
BLOBS = np.concatenate([RNG.normal(size=(20, 2)) + c for c in ([0, 0], [5, 5], [0, 6])])  # (60, 2)


# --------------------------------------------------------------------------- agglomerative: ties
@pytest.mark.full
@pytest.mark.parametrize("linkage", ["single", "complete", "average", "ward"])
def test_agglomerative_gives_n_clusters_when_heights_tie(linkage):
    # iris rounded to integers: many tied merge heights. scikit-learn undoes the last k - 1
    # merges, so it always returns k clusters; so must we (before: 2 clusters for k = 3..8
    # with single linkage, while n_clusters_ said k)
    X = np.round(IRIS)
    for k in (3, 7, 12, 22):
        ours = est.AgglomerativeClustering(k, linkage=linkage).fit(X)
        ref = sk_cluster.AgglomerativeClustering(k, linkage=linkage).fit(X)
        assert len(np.unique(ours.labels_)) == ours.n_clusters_ == len(np.unique(ref.labels_)) == k


@pytest.mark.full
def test_agglomerative_labels_are_the_merge_order_cut_of_its_tree():
    # reference: SciPy's cut_tree (merge order) on the estimator's own linkage matrix, so the
    # cut is checked apart from the tie-breaking of the merges
    ours = est.AgglomerativeClustering(9, linkage="single").fit(IRIS)
    ref = sch.cut_tree(ours.linkage_matrix_, n_clusters=9)[:, 0]
    assert adjusted_rand_score(ours.labels_, ref) == 1.0


def test_agglomerative_distance_threshold_with_ties_equals_sklearn():
    # single linkage: the heights (a minimum spanning tree's) and the clusters below a threshold
    # do not depend on how ties are broken, so they must equal scikit-learn's exactly
    X = np.round(IRIS)
    for threshold in (1.2, 1.5, 2.5):
        ours = est.AgglomerativeClustering(None, linkage="single", distance_threshold=threshold).fit(X)
        ref = sk_cluster.AgglomerativeClustering(None, linkage="single", distance_threshold=threshold).fit(X)
        assert ours.n_clusters_ == ref.n_clusters_ == len(np.unique(ours.labels_))
        assert adjusted_rand_score(ours.labels_, ref.labels_) == 1.0


def test_cut_tree_merge_rule_equals_scipy_cut_tree_on_tied_heights():
    X = np.arange(8.0)[:, None]  # every single-linkage height is 1
    Z = cluster.fit_agglomerative(X, linkage="single").linkage_matrix
    for k in (1, 2, 3, 5, 8):
        ours = np.asarray(cluster.cut_tree(Z, n_clusters=k, rule="merge"))
        ref = sch.cut_tree(np.asarray(Z), n_clusters=k)[:, 0]
        assert len(np.unique(ours)) == k
        assert adjusted_rand_score(ours, ref) == 1.0
    # the default stays fcluster's maxclust rule: one cluster for tied heights
    assert len(np.unique(np.asarray(cluster.cut_tree(Z, n_clusters=3)))) == 1


def test_cut_tree_unknown_rule():
    Z = cluster.fit_agglomerative(np.arange(4.0)[:, None], linkage="single").linkage_matrix
    with pytest.raises(ValueError, match="rule"):
        cluster.cut_tree(Z, n_clusters=2, rule="heights")


# --------------------------------------------------------------------------- agglomerative: offsets
@pytest.mark.full
@pytest.mark.parametrize("linkage", ["single", "complete", "average", "weighted", "ward"])
def test_agglomerative_float32_far_from_origin_equals_scipy(linkage):
    # float32 rows around 1e3 (years, prices...): SciPy on the same float32 values in float64.
    # Heights to 1e-4 absolute (~1e-5 relative to the spread; the float32 rounding of centred
    # values of magnitude ~10); before, 0.5 off and merges scrambled
    X32 = (BLOBS + 1e3).astype(np.float32)
    Z = np.asarray(cluster.fit_agglomerative(X32, linkage=linkage).linkage_matrix)
    R = sch.linkage(X32.astype(np.float64), linkage)
    assert Z.dtype == np.float32
    np.testing.assert_array_equal(Z[:, [0, 1, 3]], R[:, [0, 1, 3]])
    np.testing.assert_allclose(Z[:, 2], R[:, 2], atol=1e-4)


@pytest.mark.parametrize("linkage", ["single", "average"])
def test_agglomerative_float64_far_from_origin_equals_scipy(linkage):
    # float64 rows around 1e6: heights to 1e-9 relative (before: 1e-3 absolute)
    X = BLOBS + 1e6
    Z = np.asarray(cluster.fit_agglomerative(X, linkage=linkage).linkage_matrix)
    R = sch.linkage(X, linkage)
    np.testing.assert_array_equal(Z[:, [0, 1, 3]], R[:, [0, 1, 3]])
    np.testing.assert_allclose(Z[:, 2], R[:, 2], rtol=1e-9)


@pytest.mark.full
@pytest.mark.parametrize("linkage", ["single", "complete", "average", "ward"])
def test_agglomerative_estimator_float32_offset_equals_sklearn(linkage):
    X32 = (BLOBS + 1e6).astype(np.float32)
    ours = est.AgglomerativeClustering(3, linkage=linkage).fit(X32)
    ref = sk_cluster.AgglomerativeClustering(3, linkage=linkage).fit(X32.astype(np.float64))
    assert adjusted_rand_score(ours.labels_, ref.labels_) == 1.0


# --------------------------------------------------------------------------- k-means: offsets
@pytest.mark.full
def test_kmeans_float32_far_from_origin_predict_transform_score():
    # reference: scikit-learn in float64 on the same float32 values, from the same centres.
    # Our fit centres its rows; predict / transform / score must too: predict(X) == labels_,
    # distances to ~2 ulp of 1e6 (0.0625 each: the stored centres are float32 values near 1e6)
    X32 = (BLOBS + 1e6).astype(np.float32)
    X64 = X32.astype(np.float64)
    init = X32[[0, 20, 40]]
    ours = est.KMeans(3, init=init).fit(X32)
    ref = sk_cluster.KMeans(3, init=init.astype(np.float64), n_init=1).fit(X64)
    np.testing.assert_array_equal(ours.labels_, ref.labels_)
    np.testing.assert_array_equal(ours.predict(X32), ours.labels_)
    np.testing.assert_allclose(ours.transform(X32), ref.transform(X64), atol=0.2)
    assert -ours.score(X32) == pytest.approx(ref.inertia_, rel=2e-3)  # ~120 vs 1,500 before


@pytest.mark.full
def test_core_predict_transform_inertia_float32_far_from_origin():
    X32 = jnp.asarray((BLOBS + 1e6).astype(np.float32))
    params = K.fit_kmeans(X32, 3, key=jax.random.key(0), init=X32[jnp.array([0, 20, 40])])
    np.testing.assert_array_equal(np.asarray(cluster.predict(params, X32)), np.asarray(params.labels))
    centres = np.asarray(params.cluster_centers, np.float64)
    exact = np.sqrt(((np.asarray(X32, np.float64)[:, None] - centres[None]) ** 2).sum(-1))
    np.testing.assert_allclose(np.asarray(K.transform(params, X32)), exact, atol=0.2)
    assert float(K.inertia(params, X32)) == pytest.approx((exact.min(1) ** 2).sum(), rel=1e-3)


def test_kmeans_callable_init_equals_the_array_and_sklearn():
    def first_rows(X, n_clusters, random_state):
        return X[:n_clusters].copy()  # a view would alias scikit-learn's X: it updates centres in place

    ours = est.KMeans(3, init=first_rows).fit(WINE)
    ref = sk_cluster.KMeans(3, init=first_rows, n_init=1).fit(WINE)
    assert ours.inertia_ == pytest.approx(ref.inertia_, rel=1e-10)
    np.testing.assert_array_equal(ours.labels_, ref.labels_)
    np.testing.assert_array_equal(ours.labels_, est.KMeans(3, init=WINE[:3]).fit(WINE).labels_)


# --------------------------------------------------------------------------- k-means: checked right
def test_kmeans_plusplus_inertia_over_seeds_is_sklearns():
    # real data, standardised: the mean inertia of ten seeded k-means++ fits within 2% of
    # scikit-learn's ten (measured: 0.1% above on 40 seeds; different draws, same algorithm)
    X = (WINE - WINE.mean(0)) / WINE.std(0)
    ours = np.mean([est.KMeans(5, random_state=s).fit(X).inertia_ for s in range(10)])
    ref = np.mean([sk_cluster.KMeans(5, random_state=s).fit(X).inertia_ for s in range(10)])
    assert ours <= 1.02 * ref


def test_kmeans_integer_weights_equal_repeated_rows_and_sklearn():
    w = np.random.default_rng(0).integers(0, 4, len(IRIS))
    init = IRIS[[0, 60, 120]]
    a = est.KMeans(3, random_state=3).fit(IRIS, sample_weight=w)
    b = est.KMeans(3, random_state=3).fit(np.repeat(IRIS, w, axis=0))
    np.testing.assert_allclose(a.cluster_centers_, b.cluster_centers_, rtol=1e-10)
    assert a.inertia_ == pytest.approx(b.inertia_, rel=1e-10)
    ref = sk_cluster.KMeans(3, init=init, n_init=1, tol=0.0).fit(IRIS, sample_weight=w)
    ours = est.KMeans(3, init=init, tol=0.0).fit(IRIS, sample_weight=w)
    assert ours.inertia_ == pytest.approx(ref.inertia_, rel=1e-10)
    assert ours.score(IRIS, sample_weight=w) == pytest.approx(ref.score(IRIS, sample_weight=w), rel=1e-10)


@pytest.mark.full
def test_kmeans_edge_sizes_equal_sklearn():
    # n == n_clusters: every row its own centre; n_clusters = 1: the mean; max_iter=1, tol=0
    assert est.KMeans(5, random_state=0).fit(IRIS[:5]).inertia_ == 0.0
    assert est.KMeans(1).fit(IRIS).inertia_ == pytest.approx(sk_cluster.KMeans(1).fit(IRIS).inertia_, rel=1e-10)
    init = IRIS[[0, 60, 120]]
    ours = est.KMeans(3, init=init, max_iter=1, tol=0.0).fit(IRIS)
    ref = sk_cluster.KMeans(3, init=init, n_init=1, max_iter=1, tol=0.0).fit(IRIS)
    assert (ours.inertia_, ours.n_iter_) == (pytest.approx(ref.inertia_, rel=1e-10), ref.n_iter_)


def _first_rows(X, n_clusters, random_state):
    return np.array(X[:n_clusters], copy=True)


@pytest.mark.full
def test_kmeans_grid_search_over_a_pipeline_equals_sklearn():
    # StandardScaler -> KMeans in GridSearchCV (score = -inertia of the held-out fold), both
    # started from the first rows of each training fold: every fold's score to 1e-8 relative
    from sklearn.model_selection import GridSearchCV
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    grid = {"kmeans__n_clusters": [2, 3, 4]}
    ours = GridSearchCV(make_pipeline(StandardScaler(), est.KMeans(init=_first_rows)), grid, cv=3).fit(WINE)
    ref = GridSearchCV(make_pipeline(StandardScaler(), sk_cluster.KMeans(init=_first_rows, n_init=1)),
                       grid, cv=3).fit(WINE)
    for i in range(3):
        np.testing.assert_allclose(ours.cv_results_[f"split{i}_test_score"],
                                   ref.cv_results_[f"split{i}_test_score"], rtol=1e-8)


@pytest.mark.full
def test_dataframe_and_integer_input():
    import pandas as pd

    frame = pd.DataFrame(IRIS, columns=["a", "b", "c", "d"])
    init = IRIS[[0, 60, 120]]
    km = est.KMeans(3, init=init).fit(frame)
    assert list(km.feature_names_in_) == ["a", "b", "c", "d"]
    np.testing.assert_array_equal(km.predict(frame), est.KMeans(3, init=init).fit(IRIS).labels_)
    gm = est.GaussianMixture(3, random_state=0).fit(frame)
    assert gm.score(frame) == pytest.approx(est.GaussianMixture(3, random_state=0).fit(IRIS).score(IRIS), rel=1e-12)
    # integers are fitted as float64, as scikit-learn does
    Xi = np.round(IRIS * 10).astype(np.int64)
    ours = est.KMeans(3, init=Xi[[0, 60, 120]]).fit(Xi)
    ref = sk_cluster.KMeans(3, init=Xi[[0, 60, 120]].astype(float), n_init=1).fit(Xi)
    assert ours.cluster_centers_.dtype == np.float64
    assert ours.inertia_ == pytest.approx(ref.inertia_, rel=1e-10)


# --------------------------------------------------------------------------- Gaussian mixtures
def _sk_same_start(X, k, covariance_type):
    """scikit-learn's fit and the responsibilities its k-means start used (its own KMeans with
    the same random_state), so ours starts from the same place."""
    ref = sk_mixture.GaussianMixture(k, covariance_type=covariance_type, random_state=0).fit(X)
    labels = sk_cluster.KMeans(k, n_init=1, random_state=0).fit(X).labels_
    return ref, np.eye(k)[labels]


@pytest.mark.full
@pytest.mark.parametrize("covariance_type", ["full", "tied", "diag", "spherical"])
def test_gmm_rank_deficient_and_constant_columns_equal_sklearn(covariance_type):
    # wine with two duplicated columns and a constant one: singular scatter, kept positive
    # definite by reg_covar only. float64, same start: lower bound and BIC to 1e-7 relative
    # (measured ~1e-11), labels identical
    X = np.c_[WINE, WINE[:, :2], np.full(len(WINE), 7.0)]
    ref, resp = _sk_same_start(X, 3, covariance_type)
    params = cluster.fit_gmm(X, 3, init=resp, covariance_type=covariance_type)
    assert float(params.lower_bound) == pytest.approx(ref.lower_bound_, rel=1e-7)
    assert float(cluster.bic(params, X)) == pytest.approx(ref.bic(X), rel=1e-7)
    assert adjusted_rand_score(np.asarray(cluster.predict(params, X)), ref.predict(X)) == 1.0


@pytest.mark.full
@pytest.mark.parametrize("covariance_type", ["full", "spherical"])
def test_gmm_float32_badly_scaled_score_is_the_float64_likelihood_of_its_params(covariance_type):
    # wine's first column x 1e4 + 1e6, in float32: the log-likelihood our float32 fit reports
    # equals scikit-learn's float64 evaluation of the same parameters to 1e-6 relative
    X = WINE.copy()
    X[:, 0] = X[:, 0] * 1e4 + 1e6
    X32 = X.astype(np.float32)
    ours = est.GaussianMixture(3, covariance_type=covariance_type, random_state=0).fit(X32)
    ref = sk_mixture.GaussianMixture(3, covariance_type=covariance_type)
    ref.weights_ = ours.weights_.astype(np.float64)
    ref.means_ = ours.means_.astype(np.float64)
    ref.covariances_ = ours.covariances_.astype(np.float64)
    ref.precisions_cholesky_ = ours.precisions_cholesky_.astype(np.float64)
    assert ours.score(X32) == pytest.approx(ref.score(X32.astype(np.float64)), rel=1e-6)
    assert ours.bic(X32) == pytest.approx(ref.bic(X32.astype(np.float64)), rel=1e-6)


@pytest.mark.full
def test_gmm_more_components_than_distinct_rows_equals_sklearn():
    # 10 rows, 3 distinct points, 5 components: two empty components of weight ~0 and
    # covariance reg_covar, as scikit-learn; the lower bound to 1e-8 relative
    X = np.repeat(IRIS[[0, 50, 100]], [4, 3, 3], axis=0)
    ours = est.GaussianMixture(5, random_state=0).fit(X)
    ref = sk_mixture.GaussianMixture(5, random_state=0).fit(X)
    assert ours.lower_bound_ == pytest.approx(ref.lower_bound_, rel=1e-8)
    np.testing.assert_allclose(np.sort(ours.weights_), np.sort(ref.weights_), atol=1e-8)


# --------------------------------------------------------------------------- bad input, named
@pytest.mark.full
@pytest.mark.parametrize("threshold", ["1", np.nan, -1.0, True])
def test_agglomerative_bad_distance_threshold(threshold):
    # before: a string raised "TypeError: '>=' not supported between 'str' and 'int'"
    with pytest.raises(ValueError, match="distance_threshold must be a float >= 0"):
        est.AgglomerativeClustering(None, distance_threshold=threshold).fit(IRIS)
