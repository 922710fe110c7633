"""scikit-learn-compatible nearest neighbours and kernel density estimation.

Thin wrappers over :mod:`jaxclassic.neighbors`: they validate and encode the input, pad the rows
to a shape bucket with zero weights (a zero-weight row is never a neighbour and adds nothing
to a density, so refits of nearby sizes reuse one compiled program), call the functional fit
and store its params (``params_``). The maths lives in the core.

Differences from scikit-learn, documented on the classes:

* Brute force only (exact, tiled under the memory budget; :func:`jaxclassic.neighbors.kneighbors`):
  no ``algorithm``, ``leaf_size``, ``metric_params``, ``n_jobs``, precomputed
  distances, or callable ``weights``. Metrics: ``"minkowski"`` (with ``p >= 1``),
  ``"euclidean"``, ``"manhattan"``, ``"chebyshev"``, ``"cosine"``.
* Sparse ``X`` (``scipy.sparse`` CSR / CSC) in ``KNeighborsClassifier`` /
  ``KNeighborsRegressor`` with the euclidean (``"minkowski"`` with ``p=2``) and cosine
  metrics only: it is **densified**, within :data:`jaxclassic._sparse.MAX_DENSIFY_ELEMENTS`
  (2**27) values (a ``ValueError`` above it; environment variable ``JAXCLASSIC_MAX_DENSIFY``),
  the training rows at ``fit`` and the queries at prediction; the other metrics raise a
  ``ValueError`` on sparse input (scikit-learn takes sparse input for them too).
  ``KernelDensity`` takes dense ``X`` only.
* ``n_neighbors`` larger than the training set is an error in ``fit`` (scikit-learn raises
  at prediction).
* ``KNeighborsRegressor`` takes 1-d ``y`` (no multi-output). ``y`` with one class is an error
  for the classifier (the layer's shared rule).
* ``KernelDensity``: euclidean distances, exact (scikit-learn's trees with ``atol=rtol=0``);
  no ``algorithm``, ``metric``, ``atol``, ``rtol``, ``breadth_first``, ``leaf_size``. The
  cosine kernel is normalised correctly in even dimensions, where scikit-learn's constant is
  off (its 2-d cosine density integrates to 0.363; see :mod:`jaxclassic.neighbors.kde`).
"""

from __future__ import annotations

import numpy as np

from jaxclassic import _cores
from jaxclassic import neighbors as _nb
from jaxclassic._sparse import is_sparse
from jaxclassic.neighbors import knn as _knn
from jaxclassic.estimators._base import (
    BaseEstimator,
    ClassifierMixin,
    RegressorMixin,
    _n_padded,
    check_is_fitted,
    compute_dtype,
    dtype_scope,
    enter_dtype,
    fit_sample_weight,
    fitted_dtype,
    pad_rows,
    prepare_fit_sparse,
    prepare_predict,
    prepare_predict_sparse,
    SparseInputMixin,
    start_fit,
    to_core,
    to_host,
    validate_data,
)

__all__ = ["KNeighborsClassifier", "KNeighborsRegressor", "KernelDensity"]


def _check_n_neighbors(n_neighbors, n_samples: int) -> int:
    if isinstance(n_neighbors, bool) or not isinstance(n_neighbors, (int, np.integer)):
        raise TypeError(f"n_neighbors must be an int, got {type(n_neighbors).__name__} {n_neighbors!r}")
    if n_neighbors < 1:
        raise ValueError(f"n_neighbors must be >= 1, got {n_neighbors}")
    if n_neighbors > n_samples:
        raise ValueError(f"n_neighbors must be <= the number of training samples "
                         f"(n_samples={n_samples}), got n_neighbors={n_neighbors}")
    return int(n_neighbors)


class _KNeighborsBase(BaseEstimator):
    """Shared fit of the k-NN estimators."""

    def __init__(self, n_neighbors=5, *, weights="uniform", metric="minkowski", p=2, n_jobs=None):
        self.n_jobs = n_jobs
        self.n_neighbors = n_neighbors
        self.weights = weights
        self.metric = metric
        self.p = p

    def _check_sparse(self, X):
        """A sparse ``X`` is taken (densified within the limit) for euclidean and cosine only."""
        if is_sparse(X):
            _knn.densify_sparse(X, self.metric, self.p, model=type(self).__name__)  # raises
        return X

    def _query(self, X):
        """``prepare_predict`` for a dense or sparse (euclidean / cosine: densified) ``X``."""
        if is_sparse(X):
            check_is_fitted(self)
            self._check_sparse(X)
        return prepare_predict_sparse(self, X, layout="dense")

    def _fit(self, X, y, classifier: bool):
        _cores.check_n_jobs(self.n_jobs)
        if is_sparse(X):
            self._check_sparse(X)
        X, y, sw, n = prepare_fit_sparse(self, X, y, layout="dense", classifier=classifier)
        k = _check_n_neighbors(self.n_neighbors, n)
        params = _nb.fit_knn(
            X, y, n_neighbors=k, weights=self.weights, metric=self.metric, p=self.p,
            task="classification" if classifier else "regression",
            n_classes=len(self.classes_) if classifier else None, sample_weight=sw)
        self.params_ = to_host(params)
        self.n_samples_fit_ = n
        self.effective_metric_ = _nb.search.distance_path(self.metric, float(self.p))
        return self

    @dtype_scope
    def kneighbors(self, X, n_neighbors=None, return_distance=True):
        """The ``n_neighbors`` nearest training rows of each row of ``X`` (ascending).

        Returns ``(distances, indices)`` (or the indices alone), ``(n, n_neighbors)``, the
        indices into the training rows. ``X`` is required (scikit-learn's ``X=None``, the
        training rows without themselves, is not supported).
        """
        check_is_fitted(self)
        if X is None:
            raise ValueError("X is required (X=None, the training set without each row itself, "
                             "is not supported)")
        k = _check_n_neighbors(self.n_neighbors if n_neighbors is None else n_neighbors,
                               self.n_samples_fit_)
        Xp, n = self._query(X)
        params = self.params_
        dist, idx = _nb.kneighbors(params.fit_X, Xp, k, metric=params.config.metric,
                                   p=params.config.p, sample_weight=params.sample_weight)
        dist, idx = np.asarray(dist)[:n], np.asarray(idx)[:n].astype(np.intp)
        return (dist, idx) if return_distance else idx


class KNeighborsClassifier(SparseInputMixin, ClassifierMixin, _KNeighborsBase):
    """k-nearest-neighbour vote (:func:`jaxclassic.neighbors.fit_knn`, classification).

    Parameters
    ----------
    n_neighbors : int, default=5
    weights : {"uniform", "distance"}, default="uniform"
        Vote 1 or ``1/d``; exact matches (``d = 0``) take all the weight. Ties between
        classes go to the first class of ``classes_`` (scikit-learn's rule).
    metric : {"minkowski", "euclidean", "manhattan", "chebyshev", "cosine"}, default="minkowski"
    p : float, default=2
        Minkowski order (``>= 1``).
    n_jobs : int or None, default=None
        Accepted for scikit-learn's signature and checked (``>= 1``, ``-1`` or None), with no
        effect: the search is one compiled, tiled program, run by XLA's own threads. (In this package
        ``n_jobs`` is the number of CPU cores as devices a fit may use, :mod:`jaxclassic._cores`;
        only boosting, forests and bagging of trees have a multi-device path.)

    Attributes
    ----------
    classes_, n_features_in_, n_samples_fit_, effective_metric_, params_

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [0.1], [1.0], [1.1]]); y = np.array(["a", "a", "b", "b"])
    >>> KNeighborsClassifier(n_neighbors=3).fit(X, y).predict([[0.05], [1.05]]).tolist()
    ['a', 'b']
    """

    @dtype_scope
    def fit(self, X, y):
        """Store the training rows and encoded labels; returns ``self``."""
        return self._fit(X, y, classifier=True)

    @dtype_scope
    def predict_proba(self, X):
        """Normalised neighbour votes, ``(n, n_classes)`` in ``classes_`` order."""
        Xp, n = self._query(X)
        return np.asarray(_nb.predict_proba(self.params_, Xp))[:n]

    @dtype_scope
    def predict(self, X):
        """The class of largest vote (ties: the first in ``classes_``)."""
        Xp, n = self._query(X)
        return self.classes_[np.asarray(_nb.predict(self.params_, Xp))[:n]]


class KNeighborsRegressor(SparseInputMixin, RegressorMixin, _KNeighborsBase):
    """k-nearest-neighbour (weighted) mean (:func:`jaxclassic.neighbors.fit_knn`, regression).

    Parameters
    ----------
    n_neighbors, weights, metric, p, n_jobs
        As :class:`KNeighborsClassifier`.

    Attributes
    ----------
    n_features_in_, n_samples_fit_, effective_metric_, params_

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [2.0], [10.0]]); y = np.array([0.0, 1.0, 2.0, 10.0])
    >>> KNeighborsRegressor(n_neighbors=2).fit(X, y).predict([[0.4]]).tolist()
    [0.5]
    """

    @dtype_scope
    def fit(self, X, y):
        """Store the training rows and targets; returns ``self``."""
        return self._fit(X, y, classifier=False)

    @dtype_scope
    def predict(self, X):
        """The (weighted) mean target of the neighbours, ``(n,)``."""
        Xp, n = self._query(X)
        return np.asarray(_nb.predict(self.params_, Xp))[:n]


class KernelDensity(BaseEstimator):
    """Kernel density estimate (:func:`jaxclassic.neighbors.fit_kde`), exact and tiled.

    Parameters
    ----------
    bandwidth : float or {"scott", "silverman"}, default=1.0
        :math:`h > 0`, or scikit-learn's rule of thumb on the number of (positive-weight) rows.
    kernel : {"gaussian", "tophat", "epanechnikov", "exponential", "linear", "cosine"}, default="gaussian"

    Attributes
    ----------
    bandwidth_, n_features_in_, params_

    Examples
    --------
    >>> import numpy as np
    >>> kde = KernelDensity(bandwidth=1.0).fit(np.zeros((3, 1)))
    >>> np.round(kde.score_samples([[0.0]]), 6).tolist()  # log N(0; 0, 1)
    [-0.918939]
    """

    def __init__(self, *, bandwidth=1.0, kernel="gaussian"):
        self.bandwidth = bandwidth
        self.kernel = kernel

    @dtype_scope
    def fit(self, X, y=None, sample_weight=None):
        """Store the rows (weighted by ``sample_weight``) and the bandwidth; returns ``self``."""
        X = validate_data(self, X, dtype=[np.float64, np.float32], reset=True)
        dtype = start_fit(self, compute_dtype(X.dtype))
        X = X.astype(dtype, copy=False)
        sw = fit_sample_weight(sample_weight, X, dtype)
        bandwidth = self.bandwidth
        if not isinstance(bandwidth, str):
            if isinstance(bandwidth, bool) or not np.isscalar(bandwidth):
                raise TypeError(f"bandwidth must be a float or 'scott' / 'silverman', got {bandwidth!r}")
            bandwidth = float(bandwidth)
        Xp, _, swp = pad_rows(X, None, sw, _n_padded(X))
        Xj, swj = to_core(Xp, swp)
        params = _nb.fit_kde(Xj, kernel=self.kernel, bandwidth=bandwidth, sample_weight=swj)
        self.params_ = to_host(params)
        self.bandwidth_ = float(params.bandwidth)
        return self

    @dtype_scope
    def score_samples(self, X):
        """Log density of each row of ``X``, ``(n,)`` (``-inf`` outside a compact kernel's support)."""
        Xp, n = prepare_predict(self, X)
        return np.asarray(_nb.score_samples(self.params_, Xp))[:n]

    def score(self, X, y=None):
        """Total log-likelihood of ``X`` (the sum of :meth:`score_samples`)."""
        return float(np.sum(self.score_samples(X)))

    @dtype_scope
    def sample(self, n_samples=1, random_state=None):
        """Draw ``n_samples`` rows (gaussian and tophat kernels, as scikit-learn)."""
        import jax
        from sklearn.utils import check_random_state

        check_is_fitted(self)
        enter_dtype(fitted_dtype(self))
        seed = check_random_state(random_state).randint(np.iinfo(np.int32).max)
        return np.asarray(_nb.sample(self.params_, n_samples, key=jax.random.key(seed)))
