r"""k-nearest-neighbour classification and regression, and the choice of k by cross-validation.

A fit stores the training rows, their targets and weights; prediction finds the :math:`k`
nearest training rows of positive weight (:func:`jaxclassic.neighbors.kneighbors`, exact and
tiled) and combines their targets with vote weights

.. math::

    v_j = s_j \cdot \begin{cases} 1 & \text{uniform} \\ 1 / d(x, x_j) & \text{distance}\end{cases}
    \qquad j \in \mathcal N_k(x),

where :math:`s_j` is the training row's sample weight. With ``weights="distance"`` a query at
distance 0 from some neighbours gives all the weight to those exact matches
(:math:`v_j = s_j [d_j = 0]`), as scikit-learn. Classification: the votes per class
:math:`V_c(x) = \sum_{j} v_j [y_j = c]`, the probabilities :math:`V_c / \sum_{c'} V_{c'}`, the
prediction :math:`\arg\max_c V_c` with **exact ties going to the lowest class code** (the first
maximum, as scikit-learn's ``argmax`` over ``classes_``). Regression: the weighted mean
:math:`\sum_j v_j y_j / \sum_j v_j`.

Sample weights multiply the votes (a weight-2 row is one neighbour with a double vote, not
two neighbours), and a row of weight 0 is never a neighbour at all, so a fit with zero-weight
rows equals the fit without them and cross-validation folds are weight vectors of one shape.

Choosing :math:`k` by cross-validation (:func:`knn_cv_scores`). For every fold the neighbours
of all rows are searched **once**, to the largest :math:`K = \max k`, among the fold's training
rows; the votes of the first :math:`k` neighbours, for every :math:`k \le K` at once, are the
cumulative sums of the sorted neighbours' votes along the neighbour axis. All folds are one
``jax.vmap`` of that search over the fold weights; the distance blocks do not depend on the
weights, so the vmap computes them once per tile and only the selection runs per fold. The
fold scores equal ``model_selection.cross_validate`` of :func:`fit_knn` with ``predict`` at
each :math:`k` (tested), at the cost of one search instead of one per :math:`k`.

A row-sharded index (:func:`fit_knn` on :func:`jaxclassic.distributed.shard_rows` output):
``predict`` / ``predict_proba`` are correct, but XLA all-gathers the whole (queries x index
rows) distance matrix before the top-k. For a large sharded index call
:func:`jaxclassic.distributed.kneighbors` (a search per device, then a merge of the devices'
:math:`D k` candidates) and vote from the returned indices (``docs/distributed.md``).

References
----------
Cover & Hart, "Nearest neighbor pattern classification", IEEE Trans. Inf. Theory 13 (1967).
Hastie, Tibshirani, Friedman, *The Elements of Statistical Learning*, 2nd ed., §2.3.2, §13.3
(k-NN), §7.10 (cross-validation).
Dudani, "The distance-weighted k-nearest-neighbor rule", IEEE Trans. SMC 6 (1976).
"""

from __future__ import annotations

import dataclasses
from functools import partial
from typing import Any, NamedTuple, Sequence

import jax
import jax.numpy as jnp
import numpy as np

from jaxclassic import _jit
from jaxclassic import metrics
from jaxclassic._deprecation import renamed_arguments, renamed_fields
from jaxclassic.neighbors._api import predict, predict_proba
from jaxclassic.neighbors.search import (
    check_k,
    check_metric,
    distance_path,
    n_candidates,
    fit_center,
    positive_mean,
    search,
    search_tiles,
)
from jaxclassic.validation import (
    check_array,
    check_choice,
    check_classifier_data,
    check_predict_X,
    check_sample_weight,
    check_X_y,
    is_traced,
)

__all__ = [
    "KNNConfig",
    "KNNParams",
    "KNNClassifierParams",
    "KNNRegressorParams",
    "KNNCVResult",
    "fit_knn",
    "knn_cv_scores",
    "densify_sparse",
]

TASKS = ("classification", "regression")
WEIGHTS = ("uniform", "distance")


@renamed_fields(k="n_neighbors")  # 0.1's name; files written by 0.1 load (jaxclassic.io)
@jax.tree_util.register_static
@dataclasses.dataclass(frozen=True)
class KNNConfig:
    """The static settings of a k-NN model (part of the params' tree structure, not leaves:
    they fix shapes and code paths, so a change compiles a new program).

    Attributes
    ----------
    n_neighbors : int
        Neighbours per prediction (``k``, deprecated until jaxclassic 0.3.0).
    weights : {"uniform", "distance"}
    metric : str
        One of :data:`jaxclassic.neighbors.search.METRICS`.
    p : float
        Minkowski order.
    """

    n_neighbors: int
    weights: str
    metric: str
    p: float


class KNNParams(NamedTuple):
    """A fitted k-NN model: the training data itself (fields after scikit-learn's private
    ``_fit_X``, ``_y``).

    Attributes
    ----------
    fit_X : (n, d) float
        Training rows.
    y : (n,)
        Class codes (int32, classifier) or targets (float, regressor).
    sample_weight : (n,) float
        Training weights; rows of weight 0 are never neighbours.
    center : (d,) float
        Mean of the positive-weight training rows: the centring point of the euclidean
        search (distances do not depend on it; float32 rounding does).
    classes : (C,) int32
        ``0..C-1`` (classifier); empty for a regressor.
    config : KNNConfig
        ``n_neighbors``, ``weights``, ``metric``, ``p`` (static).
    """

    fit_X: jax.Array
    y: jax.Array
    sample_weight: jax.Array
    center: jax.Array
    classes: jax.Array
    config: KNNConfig


class KNNClassifierParams(KNNParams):
    """k-NN classifier: ``y`` holds class codes ``0..C-1``; ``n_classes`` is :math:`C`."""

    @property
    def n_classes(self) -> int:
        """The number of classes :math:`C` (a Python int, from the static shape of ``classes``)."""
        return self.classes.shape[-1]


class KNNRegressorParams(KNNParams):
    """k-NN regressor: ``y`` holds real targets."""


# --------------------------------------------------------------------------- the fit
@renamed_arguments(k="n_neighbors")
def fit_knn(X: Any, y: Any, *, n_neighbors: int = 5, weights: str = "uniform", metric: str = "euclidean",
            p: float = 2, task: str = "classification", n_classes: int | None = None,
            sample_weight: Any = None) -> KNNParams:
    r"""Fit k nearest neighbours: store the training rows, targets and weights.

    Prediction (:func:`predict`, :func:`predict_proba`) combines the targets of the
    ``n_neighbors`` (:math:`k`) nearest positive-weight training rows with the votes
    :math:`v_j = s_j\,(1 \text{ or } 1/d_j)` of the module docstring: the argmax of the
    per-class votes (ties to the lowest class code) or the weighted mean.

    Parameters
    ----------
    X : (n, d) float array, or a ``scipy.sparse`` matrix
        Sparse ``X``: euclidean and cosine only, densified within the limit
        (:func:`densify_sparse`); so are sparse queries at prediction.
    y : (n,) class codes ``0..C-1`` (classification) or real targets (regression)
    n_neighbors : int (static)
        Neighbours :math:`k`, ``1 <= n_neighbors <=`` the number of training rows of positive
        weight (was ``k``, deprecated until jaxclassic 0.3.0).
    weights : {"uniform", "distance"} (static)
        Vote weight 1 or :math:`1/d` (times the sample weight); exact matches (d = 0) take
        all the weight.
    metric : {"euclidean", "manhattan", "cosine", "minkowski", "chebyshev"} (static)
        ``metric``'s default differs from the estimator's: ``KNeighborsClassifier`` /
        ``KNeighborsRegressor`` say ``"minkowski"`` with ``p=2`` (scikit-learn's spelling),
        which is this default ``"euclidean"`` (the same distances, the same code path); the
        params record the metric as given.
    p : float >= 1 (static)
        Minkowski order.
    task : {"classification", "regression"} (static)
    n_classes : int, optional (static)
        Number of classes C; inferred from ``y`` when concrete (required under tracing).
    sample_weight : (n,) array, optional
        Non-negative row weights multiplying the votes; weight 0 removes a row.

    Returns
    -------
    KNNClassifierParams or KNNRegressorParams

    Examples
    --------
    >>> import jax.numpy as jnp
    >>> from jaxclassic.neighbors import fit_knn, predict
    >>> X = jnp.array([[0.0], [0.1], [0.2], [1.0], [1.1]]); y = jnp.array([0, 0, 0, 1, 1])
    >>> predict(fit_knn(X, y, n_neighbors=3), jnp.array([[0.05], [1.05]])).tolist()
    [0, 1]

    References
    ----------
    Cover & Hart (1967); Hastie, Tibshirani, Friedman, *ESL* 2nd ed., §13.3.
    """
    task = check_choice(task, "task", TASKS)
    weights = check_choice(weights, "weights", WEIGHTS)
    metric, p = check_metric(metric, p)
    X = densify_sparse(X, metric, p, model="fit_knn")
    if task == "classification":
        X, y, sw, n_classes = check_classifier_data(X, y, sample_weight, n_classes=n_classes,
                                                    min_classes=1)
    else:
        X, y = check_X_y(X, y)
        sw = check_sample_weight(sample_weight, X.shape[0], dtype=X.dtype)
    n_neighbors = check_k(n_neighbors, X.shape[0], sw, name="n_neighbors")
    config = KNNConfig(n_neighbors, weights, metric, p)
    center = fit_center(X, sw)
    if task == "classification":
        return KNNClassifierParams(X, y, sw.astype(X.dtype), center,
                                   jax.device_put(np.arange(n_classes, dtype=np.int32)), config)
    return KNNRegressorParams(X, y.astype(X.dtype), sw.astype(X.dtype), center,
                              jnp.zeros((0,), jnp.int32), config)


def densify_sparse(X, metric: str, p: float, *, model: str):
    r"""A sparse ``X`` (``scipy.sparse`` or ``BCOO``) as a dense numpy array, for the euclidean
    and cosine metrics only; anything else unchanged.

    k-NN has no sparse search: the matrix-product metrics (euclidean, including minkowski with
    ``p = 2``, and cosine) take sparse input densified within
    :data:`jaxclassic._sparse.MAX_DENSIFY_ELEMENTS` values (:func:`jaxclassic._sparse.densify`:
    a ``ValueError`` above it), and the distances then equal scikit-learn's on the same sparse
    data. The difference metrics (manhattan, chebyshev, minkowski) raise a ``ValueError`` on
    sparse input.
    """
    from jaxclassic import _sparse

    if not _sparse.is_sparse(X):
        return X
    path = distance_path(metric, float(p))
    if path not in ("euclidean", "cosine"):
        raise ValueError(f"{model}: sparse X is supported with the euclidean and cosine metrics only "
                         f"(densified within the limit), got metric={metric!r}"
                         + (f" with p={p}" if metric == "minkowski" else "")
                         + "; pass a dense X (X.toarray()) for the other metrics")
    return _sparse.densify(X, model=model)


# --------------------------------------------------------------------------- votes
def vote_weights(dist: jax.Array, sample_weight: jax.Array, weights: str) -> jax.Array:
    """Vote of each sorted neighbour ``(n, k)``: the sample weight times 1 or ``1/d``; rows
    with an exact match (d = 0) give all the weight to their exact matches; positions of
    distance ``inf`` (no allowed neighbour left) vote 0."""
    valid = jnp.isfinite(dist)
    sw = jnp.where(valid, sample_weight, 0)
    if weights == "uniform":
        return sw
    exact = valid & (dist == 0)
    inverse = sw / jnp.where(exact | ~valid, 1, dist)
    return jnp.where(exact.any(axis=1, keepdims=True), jnp.where(exact, sw, 0), inverse)


def _neighbours(params: KNNParams, X, query_tile: int, reference_tile: int):
    cfg = params.config
    R = params.fit_X.astype(X.dtype)
    dist, idx = search(R, X, params.sample_weight > 0, params.center.astype(X.dtype),
                       k=cfg.n_neighbors,
                       path=distance_path(cfg.metric, cfg.p), p=cfg.p, query_tile=query_tile,
                       reference_tile=reference_tile)
    return dist, idx, vote_weights(dist, params.sample_weight.astype(X.dtype)[idx], cfg.weights)


@partial(_jit.jit, static_argnames=("query_tile", "reference_tile"))
def _class_votes(params: KNNClassifierParams, X, query_tile, reference_tile):
    _, idx, w = _neighbours(params, X, query_tile, reference_tile)
    onehot = jax.nn.one_hot(params.y[idx], params.classes.shape[0], dtype=w.dtype)
    return jnp.sum(w[..., None] * onehot, axis=1)


@partial(_jit.jit, static_argnames=("query_tile", "reference_tile"))
def _regression_mean(params: KNNRegressorParams, X, query_tile, reference_tile):
    _, idx, w = _neighbours(params, X, query_tile, reference_tile)
    total = jnp.sum(w, axis=1)
    return jnp.sum(w * params.y.astype(w.dtype)[idx], axis=1) / jnp.where(total > 0, total, 1)


def _prepare(params: KNNParams, X):
    """Validated ``X`` and the static tile sizes of its search (Python, before tracing)."""
    n_features = params.fit_X.shape[-1]
    cfg = params.config
    X = densify_sparse(X, cfg.metric, cfg.p, model="k-NN prediction")
    X = check_predict_X(X, params.fit_X.dtype, n_features)
    path = distance_path(cfg.metric, cfg.p)
    m = params.fit_X.shape[-2]
    tiles = search_tiles(X.shape[0], m, n_features, n_candidates(cfg.n_neighbors, m, path), path,
                         jnp.dtype(X.dtype).itemsize)
    return X, tiles


def _predict_proba(params: KNNClassifierParams, X):
    X, (qt, rt) = _prepare(params, X)
    votes = _class_votes(params, X, qt, rt)
    total = jnp.sum(votes, axis=1, keepdims=True)
    return votes / jnp.where(total > 0, total, 1)


def _predict_class(params: KNNClassifierParams, X):
    X, (qt, rt) = _prepare(params, X)
    return _argmax_rows(_class_votes(params, X, qt, rt))


@_jit.jit
def _argmax_rows(votes):
    return jnp.argmax(votes, axis=1).astype(jnp.int32)


def _predict_value(params: KNNRegressorParams, X):
    X, (qt, rt) = _prepare(params, X)
    return _regression_mean(params, X, qt, rt)


predict.register(KNNClassifierParams, _predict_class)
predict.register(KNNRegressorParams, _predict_value)
predict_proba.register(KNNClassifierParams, _predict_proba)


# --------------------------------------------------------------------------- choosing k
@renamed_fields(ks="n_neighbors", best_k="best_n_neighbors")  # 0.1's names
class KNNCVResult(NamedTuple):
    """Outcome of :func:`knn_cv_scores`.

    Attributes
    ----------
    n_neighbors : (G,) int32
        The candidate numbers of neighbours, ascending (was ``ks``, deprecated until
        jaxclassic 0.3.0).
    scores : (G, F) float
        Validation score of every ``n_neighbors`` (rows) on every fold (columns): weighted
        accuracy (classification) or minus the weighted mean squared error (regression).
    mean_scores : (G,) float
        Mean over the folds.
    std_scores : (G,) float
        Standard deviation over the folds (``ddof=0``).
    best_n_neighbors : int
        The ``n_neighbors`` of highest mean score (the smallest on ties; was ``best_k``).
    best_score : float
        Its mean score.
    """

    n_neighbors: jax.Array
    scores: jax.Array
    mean_scores: jax.Array
    std_scores: jax.Array
    best_n_neighbors: int
    best_score: float


def _check_ks(ks: Any) -> tuple[int, ...]:
    if isinstance(ks, (int, np.integer)) and not isinstance(ks, bool):
        ks = (ks,)
    try:
        values = [v for v in np.asarray(ks).reshape(-1).tolist()]
    except Exception:  # pragma: no cover - unusual containers
        raise TypeError(f"n_neighbors must be a sequence of ints, got {type(ks).__name__}") from None
    if not values or any(isinstance(v, bool) or not isinstance(v, int) for v in values):
        raise TypeError(f"n_neighbors must be a non-empty sequence of ints, got {ks!r}")
    if min(values) < 1:
        raise ValueError(f"n_neighbors must be >= 1, got {min(values)}")
    return tuple(sorted(set(values)))


def _check_folds(fold_weights: Any, base: jax.Array, dtype) -> jax.Array:
    """``(F, n)`` training weights, non-negative; every fold with training and validation rows."""
    n = base.shape[0]
    if is_traced(fold_weights):
        if fold_weights.ndim != 2 or fold_weights.shape[1] != n:
            raise ValueError(f"fold_weights must have shape (F, {n}), got {fold_weights.shape}")
        return fold_weights.astype(dtype)
    w = check_array(fold_weights, "fold_weights", ndim=2, dtype=dtype)
    if w.shape[1] != n:
        raise ValueError(f"fold_weights must have shape (F, n_samples) = (F, {n}), got {w.shape}")
    wn, bn = np.asarray(w), np.asarray(base)
    if (wn < 0).any():
        raise ValueError(f"fold_weights must be non-negative, got {int((wn < 0).sum())} negative value(s)")
    for f in range(wn.shape[0]):
        if not ((wn[f] > 0) & (bn > 0)).any():
            raise ValueError(f"fold {f} has no training rows (positive weight)")
        if not ((wn[f] == 0) & (bn > 0)).any():
            raise ValueError(f"fold {f} has no validation rows (weight 0)")
    return w


@partial(_jit.jit, static_argnames=("ks", "task", "weights", "path", "p", "n_classes",
                                   "query_tile", "reference_tile"))
def _cv_program(X, y, train_w, val_w, center, *, ks, task, weights, path, p, n_classes,
                query_tile, reference_tile):
    k_max = ks[-1]
    at = np.asarray(ks) - 1  # prefix length k sits at position k-1 of the cumulative sums

    def one_fold(tw, vw):
        dist, idx = search(X, X, tw > 0, center, k=k_max, path=path, p=p,
                           query_tile=query_tile, reference_tile=reference_tile)
        w = vote_weights(dist, tw[idx], weights)
        if task == "classification":
            onehot = jax.nn.one_hot(y[idx], n_classes, dtype=w.dtype)
            votes = jnp.cumsum(w[..., None] * onehot, axis=1)[:, at, :]  # (n, G, C)
            pred = jnp.argmax(votes, axis=-1)  # (n, G)
            score = jax.vmap(lambda pr: metrics.accuracy(y, pr, sample_weight=vw), in_axes=1)
            return score(pred)
        num = jnp.cumsum(w * y[idx], axis=1)[:, at]
        den = jnp.cumsum(w, axis=1)[:, at]
        pred = num / jnp.where(den > 0, den, 1)
        mse = jax.vmap(lambda pr: metrics.mean_squared_error(y, pr, sample_weight=vw), in_axes=1)
        return -mse(pred)

    return jax.vmap(one_fold)(train_w, val_w).T  # (G, F)


@renamed_arguments(ks="n_neighbors")
def knn_cv_scores(X: Any, y: Any, n_neighbors: Sequence[int], fold_weights: Any, *,
                  task: str = "classification", weights: str = "uniform",
                  metric: str = "euclidean", p: float = 2, n_classes: int | None = None,
                  sample_weight: Any = None) -> KNNCVResult:
    r"""Cross-validated score of k-NN for every :math:`k` in ``n_neighbors``: one neighbour
    search per fold.

    Fold :math:`f` trains on the weights :math:`w_f \odot s` and validates on the rows of
    zero training weight, :math:`\mathbb 1[w_f = 0] \odot s` (the protocol of
    ``jaxclassic.model_selection.cross_validate``, whose folds — ``kfold_weights``,
    ``stratified_kfold_weights``, ``bootstrap_weights`` — can be passed as they are):

    .. math::

        \mathrm{CV}_{k,f} = \mathrm{score}\big(\hat y^{(k)}_f,\ y;\ \mathbb 1[w_f = 0]\odot s\big),
        \qquad \hat y^{(k)}_f(x) \text{ from the } k \text{ nearest rows of } \{w_f s > 0\},

    with the score the weighted accuracy (classification) or minus the weighted mean squared
    error (regression). The :math:`K = \max k` nearest training rows of every row are found
    once per fold; the votes of the first :math:`k` of them, for all :math:`k`, are prefix
    sums (module docstring). Folds are a ``vmap``, sharing the distance blocks.

    Parameters
    ----------
    X : (n, d) float array
    y : (n,) class codes or targets
    n_neighbors : sequence of int (static)
        Candidate :math:`k`; each at most the number of training rows of every fold (was
        ``ks``, deprecated until jaxclassic 0.3.0).
    fold_weights : (F, n) array
        Training weights of the folds.
    task, weights, metric, p, n_classes
        As in :func:`fit_knn`.
    sample_weight : (n,) array, optional
        Base weights, multiplying both the training votes and the validation scores.

    Returns
    -------
    KNNCVResult

    Examples
    --------
    >>> import numpy as np
    >>> from jaxclassic.neighbors import knn_cv_scores
    >>> X = np.r_[np.zeros((6, 1)), np.ones((6, 1))] + 0.01 * np.arange(12)[:, None]
    >>> y = np.r_[np.zeros(6, int), np.ones(6, int)]
    >>> folds = 1.0 - np.eye(12)  # leave-one-out
    >>> knn_cv_scores(X, y, [1, 3], folds).mean_scores.tolist()
    [1.0, 1.0]

    References
    ----------
    Hastie, Tibshirani, Friedman, *ESL* 2nd ed., §7.10 (cross-validation), §13.3 (k-NN).
    """
    task = check_choice(task, "task", TASKS)
    weights = check_choice(weights, "weights", WEIGHTS)
    metric, p = check_metric(metric, p)
    ks = _check_ks(n_neighbors)
    if task == "classification":
        X, y, sw, n_classes = check_classifier_data(X, y, sample_weight, n_classes=n_classes,
                                                    min_classes=1)
    else:
        X, y = check_X_y(X, y)
        sw = check_sample_weight(sample_weight, X.shape[0], dtype=X.dtype)
    sw = sw.astype(X.dtype)
    folds = _check_folds(fold_weights, sw, X.dtype)
    train_w = folds * sw[None, :]
    val_w = (folds == 0).astype(X.dtype) * sw[None, :]
    n, d = X.shape
    if not is_traced(train_w):
        fewest = int(np.min(np.sum(np.asarray(train_w) > 0, axis=1)))
        if ks[-1] > fewest:
            raise ValueError(f"n_neighbors must be <= the number of training rows of every fold "
                             f"(the smallest fold trains on {fewest}), got n_neighbors={ks[-1]}")
    path = distance_path(metric, p)
    qt, rt = search_tiles(n, n, d, n_candidates(ks[-1], n, path), path, X.dtype.itemsize,
                          batch=folds.shape[0])
    center = positive_mean(X, sw > 0)
    scores = _cv_program(X, y, train_w, val_w, center, ks=ks, task=task, weights=weights,
                         path=path, p=p, n_classes=n_classes, query_tile=qt, reference_tile=rt)
    mean = jnp.mean(scores, axis=1)
    best = int(jnp.argmax(mean)) if not is_traced(mean) else 0
    return KNNCVResult(jnp.asarray(ks, jnp.int32), scores, mean, jnp.std(scores, axis=1),
                       ks[best], float(mean[best]) if not is_traced(mean) else mean[best])
