"""scikit-learn-compatible clustering: ``KMeans``, ``MiniBatchKMeans`` and ``AgglomerativeClustering``.

Thin wrappers over :mod:`jaxclassic.cluster`: they validate the input, pad the rows of k-means
to a shape bucket with zero weights (refits of nearby sizes reuse one compiled program; a row
of weight 0 has no influence on the core's k-means; the core buckets ``n_clusters`` the same
way), call the functional fit and store its
result with scikit-learn's fitted attributes. The maths lives in the core.

Differences from scikit-learn, documented on the classes:

* ``KMeans``: sparse CSR / CSC input has its own Lloyd path, never densified
  (:mod:`jaxclassic.cluster._kmeans_sparse`; equal to the dense fit from the same ``init``).
  ``MiniBatchKMeans`` densifies sparse input within :data:`jaxclassic._sparse.MAX_DENSIFY_ELEMENTS`
  (a ``ValueError`` above it) for ``fit`` and ``partial_fit``; its ``predict`` / ``transform`` /
  ``score`` are KMeans's (sparse, not densified).
* ``KMeans``: Lloyd's algorithm only (no ``algorithm="elkan"``); the seeds
  come from ``jax.random`` (a key drawn from ``random_state``), so a fit equals scikit-learn's
  only from the same explicit ``init`` centres; the tolerance is scaled by the *weighted*
  feature variance (scikit-learn: unweighted), so zero-weight rows have no influence.
* ``AgglomerativeClustering``: no ``connectivity``, ``memory``, ``compute_full_tree``
  (the full tree is always built); ``linkage`` also accepts ``"weighted"``, ``"centroid"``
  and ``"median"``; ``children_`` rows follow SciPy's merge order and numbering (the merges
  are scikit-learn's on data without tied distances).
"""

from __future__ import annotations

import numbers

import jax
import numpy as np
from sklearn.base import ClusterMixin, TransformerMixin

from jaxclassic.cluster import hierarchical as _hc
from jaxclassic.cluster import kmeans as _km
from jaxclassic.estimators._base import (
    BaseEstimator,
    _n_padded,
    compute_dtype,
    dtype_scope,
    fit_sample_weight,
    fitted_dtype,
    pad_rows,
    prepare_predict,
    start_fit,
    to_core,
    to_host,
    validate_data,
)
from jaxclassic.validation import check_bool, key_from_seed

__all__ = ["KMeans", "MiniBatchKMeans", "AgglomerativeClustering"]


def _key(random_state):
    """A ``jax.random`` key drawn from scikit-learn's ``random_state``."""
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        return key_from_seed(int(random_state))
    from sklearn.utils import check_random_state

    return key_from_seed(int(check_random_state(random_state).randint(0, 2**31 - 1)))


def _is_sparse(X) -> bool:
    from jaxclassic import _sparse

    return _sparse.is_sparse(X)


def _densified(estimator, X):
    """A ``scipy.sparse`` ``X`` as a dense array within :data:`jaxclassic._sparse.MAX_DENSIFY_ELEMENTS`
    (a clear ``ValueError`` above it); anything else unchanged. k-means has no sparse path yet."""
    from jaxclassic import _sparse

    return _sparse.densify(X, model=type(estimator).__name__) if _sparse.is_sparse(X) else X


def _check_int(value, name, low):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
        raise ValueError(f"{name} must be an int >= {low}, got {value!r}")
    return int(value)


class KMeans(ClusterMixin, TransformerMixin, BaseEstimator):
    """k-means by Lloyd's algorithm (:func:`jaxclassic.cluster.fit_kmeans`).

    ``X`` may be ``scipy.sparse`` CSR / CSC: fitted by a sparse Lloyd path and predicted /
    transformed / scored by sparse products, never densified (the same fit as the dense one from
    the same ``init`` centres; k-means++ seeds are other draws of the same distribution).

    Parameters
    ----------
    n_clusters : int, default=8
        The fit's program is compiled for a bucket of cluster counts
        (:func:`jaxclassic.cluster.kmeans.cluster_capacity`: 1..8, 9..16, 17..24, 25..32, ...),
        the slots past ``n_clusters`` inactive: refitting with another ``n_clusters`` of the
        bucket on rows of the same bucket compiles nothing, and gives the exact-``k`` fit's
        result to the bit (an elbow scan over ``k = 1..10`` builds two programs).
    init : {"k-means++", "random"}, callable or array of shape (n_clusters, n_features), default="k-means++"
        k-means++ is scikit-learn's greedy variant (``2 + log(k)`` candidates a centre). A
        callable ``init(X, n_clusters, random_state=RandomState)`` returns the centres; it is
        called once on the uncentred ``X`` (scikit-learn: once a restart, on ``X`` centred),
        and then ``n_init`` is 1, as for an array.
    n_init : "auto" or int, default="auto"
        Restarts (vmapped in one program); ``"auto"``: 1 for k-means++ or an array, 10 for
        ``"random"`` (scikit-learn's rule).
    max_iter : int, default=300
    tol : float, default=1e-4
        On the total squared centre shift, relative to the mean (weighted) feature variance.
    random_state : int, RandomState or None, default=None
        Draws the ``jax.random`` key of the seeding.
    verbose : int >= 0, default=0
        Above 0: a tqdm bar of the Lloyd iterations and a line ``[t]\tcenter_shift:<value>``
        every ``verbose`` iterations and after the last, sent from inside the compiled loop
        (:func:`jaxclassic.cluster.fit_kmeans`, :mod:`jaxclassic._progress`).

    Attributes
    ----------
    cluster_centers_ : (n_clusters, n_features) array
    labels_ : (n_samples,) array
    inertia_ : float
    n_iter_ : int
    n_features_in_ : int
    params_ : KMeansParams
        The core's fitted params (labels over the padded rows).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0, 0.0], [0.0, 1.0], [10.0, 0.0], [10.0, 1.0]])
    >>> km = KMeans(n_clusters=2, random_state=0).fit(X)
    >>> sorted(km.cluster_centers_[:, 0].tolist()), km.inertia_
    ([0.0, 10.0], 1.0)
    """

    def __init__(self, n_clusters=8, *, init="k-means++", n_init="auto", max_iter=300, tol=1e-4,
                 random_state=None, verbose=0):
        self.verbose = verbose
        self.n_clusters = n_clusters
        self.init = init
        self.n_init = n_init
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        tags.input_tags.sparse = True  # KMeans: a sparse Lloyd path; MiniBatchKMeans: densified within the limit
        return tags

    def _n_init(self):
        if isinstance(self.n_init, str):
            if self.n_init != "auto":
                raise ValueError(f"n_init must be 'auto' or an int >= 1, got {self.n_init!r}")
            return 10 if isinstance(self.init, str) and self.init == "random" else 1
        return _check_int(self.n_init, "n_init", 1)

    @dtype_scope
    def fit(self, X, y=None, sample_weight=None):
        """Cluster ``X`` (``y`` ignored); returns ``self``."""
        n_clusters = _check_int(self.n_clusters, "n_clusters", 1)
        max_iter = _check_int(self.max_iter, "max_iter", 1)
        n_init = self._n_init()
        if isinstance(self.tol, bool) or not isinstance(self.tol, numbers.Real) or not self.tol >= 0:
            raise ValueError(f"tol must be a float >= 0, got {self.tol!r}")
        X = validate_data(self, X, accept_sparse=("csr", "csc"), dtype=[np.float64, np.float32], reset=True)
        dtype = start_fit(self, compute_dtype(X.dtype))
        X = X.astype(dtype, copy=False)
        n = X.shape[0]
        if n < n_clusters:
            raise ValueError(f"n_samples={n} should be >= n_clusters={n_clusters}.")
        sw = fit_sample_weight(sample_weight, X, dtype)
        init = self.init
        if callable(init):
            from sklearn.utils import check_random_state

            init = init(X, n_clusters, random_state=check_random_state(self.random_state))
        if not isinstance(init, str):
            init = np.asarray(init, dtype=dtype)
            if init.shape != (n_clusters, X.shape[1]):
                raise ValueError(f"The shape of the initial centers {init.shape} does not match "
                                 f"the number of clusters {n_clusters} and features {X.shape[1]}.")
            n_init = 1
        if _is_sparse(X):  # its own Lloyd path, never densified; no row padding
            Xj, swj = X, to_core(sw)[0]
        else:
            Xp, _, swp = pad_rows(X, None, sw, _n_padded(X))
            Xj, swj = to_core(Xp, swp)
        params = _km.fit_kmeans(Xj, n_clusters, key=_key(self.random_state), init=init, n_init=n_init,
                                max_iter=max_iter, tol=float(self.tol), sample_weight=swj,
                                n_local_trials="auto", verbose=self.verbose)
        self.params_ = to_host(params)
        self.cluster_centers_ = self.params_.cluster_centers
        self.labels_ = self.params_.labels[:n].astype(np.int64)
        self.inertia_ = float(params.inertia)
        self.n_iter_ = int(params.n_iter)
        return self

    def _sparse_distances(self, X):
        """Squared distances of a sparse ``X`` to the centres (never densified), or None for dense X."""
        if not _is_sparse(X):
            return None
        from jaxclassic.cluster._kmeans_sparse import sparse_distances
        from jaxclassic.estimators._base import check_is_fitted, enter_dtype

        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse=("csr", "csc"), dtype=[np.float64, np.float32], reset=False)
        enter_dtype(fitted_dtype(self))
        return np.asarray(sparse_distances(self.cluster_centers_, X))

    @dtype_scope
    def predict(self, X):
        """Index of the nearest centre of every row (``X`` dense or sparse)."""
        d2 = self._sparse_distances(X)
        if d2 is not None:
            return np.argmin(d2, axis=1).astype(np.int64)
        Xp, n = prepare_predict(self, X)
        return np.asarray(_km.predict(self.params_, Xp))[:n].astype(np.int64)

    @dtype_scope
    def transform(self, X):
        """Euclidean distances to every centre, (n_samples, n_clusters)."""
        d2 = self._sparse_distances(X)
        if d2 is not None:
            return np.sqrt(d2)
        Xp, n = prepare_predict(self, X)
        return np.asarray(_km.transform(self.params_, Xp))[:n]

    @dtype_scope
    def score(self, X, y=None, sample_weight=None):
        """Minus the inertia of ``X`` under the fitted centres (scikit-learn's ``score``)."""
        d2 = self._sparse_distances(X)
        if d2 is not None:
            sw = fit_sample_weight(sample_weight, np.empty((d2.shape[0], 0)), fitted_dtype(self))
            return -float(np.sum(sw * d2.min(axis=1)))
        Xp, n = prepare_predict(self, X)
        sw = fit_sample_weight(sample_weight, np.empty((n, 0)), fitted_dtype(self))
        swp = np.zeros(Xp.shape[0], sw.dtype)
        swp[:n] = sw
        return -float(_km.inertia(self.params_, Xp, sample_weight=swp))


class MiniBatchKMeans(KMeans):
    """Mini-batch k-means (:func:`jaxclassic.cluster.fit_minibatch_kmeans`), scikit-learn's algorithm:
    batches drawn with probability proportional to ``sample_weight``, per-centre counts and the
    ``1/count`` step, random reassignment of light centres, early stopping on the smoothed batch
    inertia; ``partial_fit`` is one step on the given batch
    (:func:`jaxclassic.cluster.minibatch_kmeans_step`).

    Parameters
    ----------
    n_clusters : int, default=8
    init : {"k-means++", "random"} or array of shape (n_clusters, n_features), default="k-means++"
        Seeded on all rows, once (scikit-learn: on ``init_size`` random rows, best of ``n_init``).
    max_iter : int, default=100
        Passes over the data (``max_iter * n_samples // batch_size`` steps at most).
    batch_size : int, default=1024
    random_state : int, RandomState or None, default=None
    tol : float, default=0.0
    max_no_improvement : int or None, default=10
    reassignment_ratio : float, default=0.01

    Attributes
    ----------
    cluster_centers_, labels_, inertia_ (of the whole data, or of the last ``partial_fit`` batch),
    n_iter_ (passes), n_steps_, counts_ (weight absorbed by each centre), n_features_in_, params_
    """

    def __init__(self, n_clusters=8, *, init="k-means++", max_iter=100, batch_size=1024, random_state=None,
                 tol=0.0, max_no_improvement=10, reassignment_ratio=0.01):
        self.n_clusters = n_clusters
        self.init = init
        self.max_iter = max_iter
        self.batch_size = batch_size
        self.random_state = random_state
        self.tol = tol
        self.max_no_improvement = max_no_improvement
        self.reassignment_ratio = reassignment_ratio

    def _check(self):
        n_clusters = _check_int(self.n_clusters, "n_clusters", 1)
        max_iter = _check_int(self.max_iter, "max_iter", 1)
        batch_size = _check_int(self.batch_size, "batch_size", 1)
        for name in ("tol", "reassignment_ratio"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, numbers.Real) or not value >= 0:
                raise ValueError(f"{name} must be a float >= 0, got {value!r}")
        if self.max_no_improvement is not None:
            _check_int(self.max_no_improvement, "max_no_improvement", 0)
        return n_clusters, max_iter, batch_size

    def _init_array(self, n_clusters, n_features, dtype):
        if isinstance(self.init, str):
            return self.init
        init = np.asarray(self.init, dtype=dtype)
        if init.shape != (n_clusters, n_features):
            raise ValueError(f"The shape of the initial centers {init.shape} does not match "
                             f"the number of clusters {n_clusters} and features {n_features}.")
        return init

    def _store(self, params, X, n):
        self.params_ = to_host(params)
        self.cluster_centers_ = self.params_.cluster_centers
        self.counts_ = self.params_.counts
        self.n_steps_ = int(params.n_iter)
        self.inertia_ = float(params.inertia)
        self.labels_ = np.asarray(_km._predict(self.params_, X))[:n].astype(np.int64)

    @dtype_scope
    def fit(self, X, y=None, sample_weight=None):
        """Cluster ``X`` by mini-batch steps (``y`` ignored); returns ``self``."""
        from jaxclassic.cluster import minibatch_kmeans as _mbk

        n_clusters, max_iter, batch_size = self._check()
        X = validate_data(self, _densified(self, X), dtype=[np.float64, np.float32], reset=True)
        dtype = start_fit(self, compute_dtype(X.dtype))
        X = X.astype(dtype, copy=False)
        n = X.shape[0]
        if n < n_clusters:
            raise ValueError(f"n_samples={n} should be >= n_clusters={n_clusters}.")
        sw = fit_sample_weight(sample_weight, X, dtype)
        init = self._init_array(n_clusters, X.shape[1], dtype)
        Xp, _, swp = pad_rows(X, None, sw, _n_padded(X))
        Xj, swj = to_core(Xp, swp)
        params = _mbk.fit_minibatch_kmeans(
            Xj, n_clusters, key=_key(self.random_state), init=init, batch_size=batch_size, max_iter=max_iter,
            tol=float(self.tol), max_no_improvement=self.max_no_improvement,
            reassignment_ratio=float(self.reassignment_ratio), sample_weight=swj)
        self._store(params, Xj, n)
        self.n_iter_ = int(np.ceil(self.n_steps_ * batch_size / n))
        return self

    @dtype_scope
    def partial_fit(self, X, y=None, sample_weight=None):
        """One mini-batch step on ``X`` (the first call seeds the centres on it); returns ``self``."""
        from jaxclassic.cluster import minibatch_kmeans as _mbk

        n_clusters, _, _ = self._check()
        first = not hasattr(self, "params_")
        X = validate_data(self, _densified(self, X), dtype=[np.float64, np.float32], reset=first)
        if first:
            dtype = start_fit(self, compute_dtype(X.dtype))
        else:
            from jaxclassic.estimators._base import enter_dtype

            dtype = fitted_dtype(self)
            enter_dtype(dtype)
        X = X.astype(dtype, copy=False)
        n = X.shape[0]
        sw = fit_sample_weight(sample_weight, X, dtype)
        Xj, swj = to_core(X, sw)
        if first or not hasattr(self, "_partial_key"):  # partial_fit after fit continues its centres
            self._partial_key = _key(self.random_state)
        if first:
            if n < n_clusters:
                raise ValueError(f"n_samples={n} should be >= n_clusters={n_clusters}.")
            init = self._init_array(n_clusters, X.shape[1], dtype)
            if isinstance(init, str):
                seeds = _km.kmeans_plusplus(Xj, n_clusters, key=self._partial_key, sample_weight=swj,
                                            n_local_trials="auto")[0] if init == "k-means++" else \
                    Xj[_km._random_seeds(Xj, swj, self._partial_key, n_clusters, n_clusters=n_clusters)[1]]
            else:
                seeds = init
            state = _mbk.MiniBatchKMeansParams(jax.numpy.asarray(seeds, dtype), jax.numpy.zeros(n_clusters, dtype),
                                               np.int32(0), np.int32(0), np.zeros((), dtype), np.bool_(False))
        else:
            state = self.params_
        params = _mbk.minibatch_kmeans_step(state, Xj, sample_weight=swj, key=self._partial_key,
                                            reassignment_ratio=float(self.reassignment_ratio))
        self._store(params, Xj, n)
        self.n_iter_ = self.n_steps_
        return self


class AgglomerativeClustering(ClusterMixin, BaseEstimator):
    """Agglomerative clustering (:func:`jaxclassic.cluster.fit_agglomerative`).

    Parameters
    ----------
    n_clusters : int or None, default=2
        Clusters of the cut; None with ``distance_threshold``.
    metric : str, default="euclidean"
        ``"euclidean"`` (``"l2"``), ``"manhattan"`` (``"l1"``, ``"cityblock"``), ``"cosine"``;
        euclidean only for ward, centroid and median.
    linkage : {"ward", "complete", "average", "single", "weighted", "centroid", "median"}, default="ward"
    distance_threshold : float or None, default=None
        Merges at heights below it are kept (scikit-learn's rule); exactly one of this and
        ``n_clusters`` is None.
    compute_distances : bool, default=False
        Store ``distances_`` (always stored with ``distance_threshold``).

    Attributes
    ----------
    n_clusters_ : int
    labels_ : (n_samples,) array
        Numbered by the first row of each cluster. The cut undoes the last ``n_clusters_ - 1``
        merges (scikit-learn's rule): exactly ``n_clusters_`` clusters, even where merge heights
        tie at the cut.
    n_leaves_ : int
    n_connected_components_ : int
        Always 1 (no connectivity).
    children_ : (n_samples - 1, 2) array
        SciPy's merge order and ids: node ``n_samples + i`` merges ``children_[i]``.
    distances_ : (n_samples - 1,) array
        The merge heights (SciPy's; scikit-learn's ward distances too).
    linkage_matrix_ : (n_samples - 1, 4) array
        The SciPy linkage matrix.
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [5.0], [7.0]])
    >>> AgglomerativeClustering(n_clusters=2, linkage="single").fit(X).labels_.tolist()
    [0, 0, 1, 1]
    """

    _METRICS = {"euclidean": "euclidean", "l2": "euclidean", "manhattan": "manhattan", "l1": "manhattan",
                "cityblock": "manhattan", "cosine": "cosine"}

    def __init__(self, n_clusters=2, *, metric="euclidean", linkage="ward", distance_threshold=None,
                 compute_distances=False):
        self.n_clusters = n_clusters
        self.metric = metric
        self.linkage = linkage
        self.distance_threshold = distance_threshold
        self.compute_distances = compute_distances

    @dtype_scope
    def fit(self, X, y=None):
        """Build the tree of ``X`` and cut it (``y`` ignored); returns ``self``."""
        check_bool(self.compute_distances, "compute_distances")
        if (self.n_clusters is None) == (self.distance_threshold is None):
            raise ValueError("Exactly one of n_clusters and distance_threshold has to be set, and "
                             "the other needs to be None.")
        if self.n_clusters is not None:
            _check_int(self.n_clusters, "n_clusters", 1)
        threshold = self.distance_threshold
        if threshold is not None and (isinstance(threshold, bool) or not isinstance(threshold, numbers.Real)
                                      or not threshold >= 0):
            raise ValueError(f"distance_threshold must be a float >= 0, got {threshold!r}")
        if self.metric not in self._METRICS:
            raise ValueError(f"metric must be one of {sorted(self._METRICS)}, got {self.metric!r}")
        X = validate_data(self, X, dtype=[np.float64, np.float32], ensure_min_samples=2, reset=True)
        dtype = start_fit(self, compute_dtype(X.dtype))
        n = X.shape[0]
        if self.n_clusters is not None and self.n_clusters > n:
            raise ValueError(f"Cannot extract more clusters than samples: {self.n_clusters} clusters "
                             f"were given for a tree with {n} leaves.")
        (Xj,) = to_core(X.astype(dtype, copy=False))
        # the cut by merge order, as scikit-learn: exactly n_clusters_ clusters even with tied
        # heights; a distance_threshold leaves #{merges of height >= threshold} + 1 clusters
        fit = _hc.fit_agglomerative(Xj, n_clusters=self.n_clusters, linkage=self.linkage,
                                    metric=self._METRICS[self.metric],
                                    distance_threshold=self.distance_threshold)
        self.n_clusters_ = int(fit.n_clusters)
        self.linkage_matrix_ = np.asarray(fit.linkage_matrix)
        heights = self.linkage_matrix_[:, 2]
        self.children_ = self.linkage_matrix_[:, :2].astype(np.intp)
        self.n_leaves_ = n
        self.n_connected_components_ = 1
        if self.compute_distances or self.distance_threshold is not None:
            self.distances_ = heights
        self.labels_ = np.asarray(fit.labels).astype(np.intp)
        return self

    def fit_predict(self, X, y=None):
        """Fit and return ``labels_``."""
        return self.fit(X).labels_
