r"""Gradient boosting (Friedman's TreeBoost) of regression trees on binned features.

Friedman (2001), Algorithm 1 with trees (ESL Algorithm 10.3): start from the constant
:math:`F_0 = \arg\min_c \sum_i w_i \ell(y_i, c)` (weighted mean for ``"squared"``, weighted
median for ``"absolute"`` (the two middle values averaged at an exact half, ``np.median``
for unit weights as scikit-learn's init; scikit-learn takes the lower one when given
weights), log-odds of the weighted mean for ``"log_loss"``); at round
:math:`m`

1. the pseudo-residuals :math:`r_i = -\partial_F \ell(y_i, F_{m-1}(x_i))` by autodiff of the
   shared loss (:func:`jaxclassic.losses.grad_hess`; any differentiable ``loss(y, f)``);
   for ``"absolute"`` the subgradient is taken as 0 at the kink ``f = y`` (scikit-learn's
   ``sign``; autodiff would give -1 there);
2. a least-squares regression tree of depth ``max_depth`` fitted to :math:`r` (the engine's
   ``squared_error`` criterion: the same splits as scikit-learn's ``friedman_mse``, whose
   improvement :math:`\frac{W_L W_R}{W}(\bar r_L - \bar r_R)^2` is the same decrease of the
   sum of squares);
3. the line search in each leaf :math:`R_j`: one Newton step
   :math:`\gamma_j = -\sum_{i \in R_j} w_i g_i / \sum_{i \in R_j} w_i h_i` (Friedman's TreeBoost:
   the mean residual for squared error, :math:`\sum w(y - p)/\sum w p(1-p)` for log-loss, as
   scikit-learn; 0 when :math:`|\sum wh| < 10^{-150}`); for ``"absolute"`` the exact
   minimiser, the weighted median of :math:`y - F_{m-1}` in the leaf (lower weighted median:
   the first sorted value where the cumulative weight reaches half the total, scikit-learn's
   ``_weighted_percentile``);
4. :math:`F_m = F_{m-1} + \eta \sum_j \gamma_j 1[x \in R_j]`.

``subsample < 1`` (stochastic gradient boosting, Friedman 2002) draws the rows of each round
from ``key`` (Bernoulli, as weights); the tree and its line search use only them. Features
are binned once (``n_bins``, exact when a feature has at most ``n_bins`` values, so the
trees equal scikit-learn's exact ones; NaN supported through the missing bin); the rounds
are one ``lax.scan``.

Ties. Two splits of exactly equal gain go to the lower feature index (then the lower bin).
scikit-learn's trees visit the features in a random order drawn from ``random_state`` and
keep the first strictly better split, so on exact ties the two can pick different splits;
such ties are common with ``"absolute"`` (every residual is :math:`\pm 1`, so two splits
that cut off the same numbers of +1 and -1 rows have the same gain), and the staged
predictions then agree with scikit-learn's for some ``random_state`` values and not for
others (not a difference of the fitted objective: either split is an exact maximiser).

Scale. The trees have no absolute floor on a node's impurity (a node is pure when its sum
of squared residuals is at most :math:`4\varepsilon` times the round's root's:
:mod:`jaxclassic.tree._engine`), so the fit is equivariant in the scale of ``y``: ``y * c`` gives ``c`` times the predictions, for ``c = 1e-9`` as for ``1e9``.
scikit-learn's trees make every node of impurity :math:`\le 2.2 \cdot 10^{-16}` a leaf:
on targets of scale :math:`\lesssim 10^{-8}` its GradientBoostingRegressor fits only the
constant, and with ``log_loss`` on separable data it stops growing trees once the
residuals' variance falls below that floor (the margin stalls near 18); ours keeps
lowering the training loss (finite: a leaf whose :math:`\sum wh < 10^{-150}` gets 0).
The two agree round by round while scikit-learn's trees still split.

A Hessian :math:`\le 0` of a callable loss is raised to
``HESSIAN_FLOOR`` with a warning.

References
----------
J. Friedman, "Greedy Function Approximation: A Gradient Boosting Machine", Ann. Stat. 2001.
J. Friedman, "Stochastic Gradient Boosting", Comput. Stat. Data Anal. 2002.
T. Hastie, R. Tibshirani, J. Friedman, *The Elements of Statistical Learning*, 2nd ed., §10.9-10.10.
"""

from __future__ import annotations

from functools import partial
from typing import NamedTuple

import jax
import jax.numpy as jnp

from jaxclassic import losses
from jaxclassic.ensemble import _boosting as B
from jaxclassic.ensemble._api import decision_function, predict, predict_proba
from jaxclassic.tree._engine import CRITERIA, grow
from jaxclassic.tree._params import TreeParams
from jaxclassic.tree.binning import bin_features
from jaxclassic.validation import (
    check_array,
    check_choice,
    check_classification_targets,
    check_consistent_length,
    check_int,
    check_key,
    check_predict_X,
    check_sample_weight,
    check_scalar,
    is_traced,
)

__all__ = ["GradientBoostingParams", "GradientBoostingClassifierParams", "fit_gradient_boosting"]

_LOSSES = {"squared": losses.squared, "absolute": losses.absolute, "log_loss": losses.log_loss}


class GradientBoostingParams(NamedTuple):
    """A fitted gradient-boosting regressor (``predict`` = :math:`F_0 + \\eta \\sum_m \\text{tree}_m`).

    Attributes
    ----------
    trees : TreeParams, every field with leading axes ``(n_estimators, 1)``
        ``value (T, 1, M, 1)``: the line-searched leaf values :math:`\\gamma_j` (unshrunk, as
        scikit-learn's ``estimators_``; the mean pseudo-residual at internal nodes);
        ``bin_edges`` an empty ``(F, 0)`` placeholder.
    init : (1,) float
        :math:`F_0`.
    learning_rate : () float
        :math:`\\eta`.
    train_loss : (T,) float
        Mean (weighted) training loss after each round (on all rows, as ``train_score_``
        without subsampling).
    bin_edges : (F, E) float
        The binning's edges.
    """

    trees: TreeParams
    init: jax.Array
    learning_rate: jax.Array
    train_loss: jax.Array
    bin_edges: jax.Array


class GradientBoostingClassifierParams(GradientBoostingParams):
    """A fitted binary gradient-boosting classifier (log-loss; the score is the log-odds)."""


def _weighted_median_per_node(values, weight, node, n_nodes):
    """Lower weighted median of ``values`` within each node: the first value (sorted) whose
    cumulative weight reaches half the node's total; rows of weight 0 are ignored."""
    n = values.shape[0]
    order = jnp.lexsort((values, node))
    v, w, nd = values[order], weight[order], node[order]
    total = jax.ops.segment_sum(weight, node, n_nodes)
    cum = jnp.cumsum(w)
    before = jnp.cumsum(total) - total  # weight of the nodes sorted before each node
    within = cum - before[nd]
    ok = (w > 0) & (within >= 0.5 * total[nd])
    first = jax.ops.segment_min(jnp.where(ok, jnp.arange(n), n), nd, n_nodes)
    return jnp.where(first < n, v[jnp.minimum(first, n - 1)], 0)


def _averaged_weighted_median(values, weight):
    """Weighted median, averaging the two middle values when the cumulative weight hits
    exactly half the total (``np.median`` for unit weights; numpy's ``averaged_inverted_cdf``)."""
    n = values.shape[0]
    order = jnp.argsort(values)
    v, w = values[order], weight[order]
    cum = jnp.cumsum(w)
    half = 0.5 * cum[-1]
    pos = jnp.arange(n)
    i = jnp.min(jnp.where((w > 0) & (cum >= half), pos, n - 1))
    j = jnp.min(jnp.where((w > 0) & (pos > i), pos, n))  # the next value of positive weight
    j = jnp.where(j < n, j, i)
    return jnp.where(cum[i] == half, (v[i] + v[j]) / 2, v[i])


def _init_score(loss_name, y, sw, dtype):
    w = sw / jnp.sum(sw)
    if loss_name == "squared":
        return jnp.sum(w * y)
    if loss_name == "absolute":
        return _averaged_weighted_median(y, sw)
    if loss_name == "log_loss":
        eps = jnp.finfo(dtype).eps
        p = jnp.clip(jnp.sum(w * y), eps, 1 - eps)
        return jnp.log(p) - jnp.log1p(-p)
    return jnp.zeros((), dtype)


@partial(jax.jit, static_argnames=("loss", "loss_name", "n_estimators", "max_depth", "n_bins",
                                   "max_nodes", "max_width", "use_subsample"))
def _program(codes_T, y, sw, edges, init, hyper, key, *, loss, loss_name, n_estimators, max_depth,
             n_bins, max_nodes, max_width, use_subsample):
    dtype = edges.dtype
    n_features, n = codes_T.shape
    rows_loss = jax.vmap(loss)

    def body(carry, t):
        f, clamped = carry
        w = B.subsample_weights(jax.random.fold_in(key, t), sw, hyper["subsample"], use_subsample)
        g, h = losses.grad_hess(loss, y, f)
        if loss_name == "absolute":
            g = jnp.where(f == y, 0, g)  # the subgradient sign(f - y), 0 at the kink
        r = -g
        mean = jnp.sum(w * r) / jnp.sum(w)
        rc = jnp.where(w > 0, r - mean, 0)  # centred: no cancellation in sum wr^2 - (sum wr)^2 / W
        stats = jnp.stack([w, w * rc, w * rc * rc], axis=1)
        grown = grow(codes_T, stats, (w > 0).astype(dtype), criterion=CRITERIA["squared_error"],
                     n_bins=n_bins, max_nodes=max_nodes, max_width=max_width, max_depth=max_depth,
                     min_samples_split=hyper["min_samples_split"], min_samples_leaf=hyper["min_samples_leaf"],
                     min_weight_leaf=hyper["min_weight_fraction_leaf"] * jnp.sum(w),
                     min_impurity_decrease=hyper["min_impurity_decrease"])
        leaf = grown.row_node
        s = grown.node_stats
        node_mean = s[:, 1] / jnp.where(s[:, 0] > 0, s[:, 0], 1) + mean
        if loss_name == "absolute":
            step = _weighted_median_per_node(y - f, w, leaf, max_nodes)
            c = jnp.asarray(False)
        else:
            h, c = B.clamp_hessian(h, w)
            gs = jax.ops.segment_sum(w * g, leaf, max_nodes)
            hs = jax.ops.segment_sum(w * h, leaf, max_nodes)
            step = jnp.where(jnp.abs(hs) < 1e-150, 0, -gs / jnp.where(hs != 0, hs, 1))
        value = jnp.where(grown.is_leaf, step, node_mean)
        tree = B.make_tree(grown, value, edges, n_features, s[:, 0])
        f = f + hyper["learning_rate"] * value[leaf]
        train = jnp.sum(sw * rows_loss(y, f)) / jnp.sum(sw)
        return (f, clamped | c), (tree, train)

    f0 = jnp.full((n,), init, dtype)
    (_, clamped), (trees, train_loss) = jax.lax.scan(body, (f0, jnp.asarray(False)), jnp.arange(n_estimators))
    trees = jax.tree.map(lambda a: a[:, None], trees)
    return trees, train_loss, clamped


def fit_gradient_boosting(
    X,
    y,
    *,
    loss="squared",
    n_estimators: int = 100,
    learning_rate=0.1,
    max_depth: int = 3,
    subsample=1.0,
    min_samples_split=2,
    min_samples_leaf=1,
    min_weight_fraction_leaf=0.0,
    min_impurity_decrease=0.0,
    n_bins: int = 255,
    init=None,
    sample_weight=None,
    key=None,
) -> GradientBoostingParams:
    r"""Fit Friedman's gradient boosting (TreeBoost) with regression trees.

    Algorithm, line search and departures: module docstring.

    Parameters
    ----------
    X : array-like (n_samples, n_features)
        Raw features; NaN = missing.
    y : array-like (n_samples,)
        Real targets (``squared``, ``absolute``, a callable) or 0/1 (``log_loss``).
    loss : {"squared", "absolute", "log_loss"} or callable (static)
        A callable ``loss(y_i, f_i) -> scalar`` (residuals and Newton line search by autodiff).
    n_estimators : int >= 1 (static)
    learning_rate : float > 0 (traced)
    max_depth : int >= 1 (static)
    subsample : float in (0, 1] (traced; 1 is static: no sampling)
    min_samples_split, min_samples_leaf : int (traced)
    min_weight_fraction_leaf, min_impurity_decrease : float (traced)
        As scikit-learn's trees.
    n_bins : int in 2..256 (static)
    init : float, optional
        :math:`F_0` (a log-odds for ``log_loss``); None: the constant minimiser for the
        built-in losses, 0 for a callable.
    sample_weight : array-like (n_samples,), optional
        Rows of weight 0 have no influence.
    key : jax.random key, optional
        Needed for ``subsample < 1``.

    Returns
    -------
    GradientBoostingParams or GradientBoostingClassifierParams (``log_loss``)

    Examples
    --------
    >>> import numpy as np
    >>> X = np.arange(6.0)[:, None]; y = np.array([0., 0, 0, 2, 2, 2])
    >>> params = fit_gradient_boosting(X, y, n_estimators=1, learning_rate=1.0, max_depth=1)
    >>> predict(params, X).tolist()
    [0.0, 0.0, 0.0, 2.0, 2.0, 2.0]

    References
    ----------
    Friedman 2001 (Algorithm 1, TreeBoost), 2002 (subsampling); ESL §10.10.
    """
    if callable(loss):
        loss_fn, loss_name = loss, None
    else:
        loss_name = check_choice(loss, "loss", tuple(_LOSSES))
        loss_fn = _LOSSES[loss_name]
    n_estimators, max_depth = B.check_boosting_args(n_estimators, learning_rate, max_depth, subsample)
    n_bins = check_int(n_bins, "n_bins", low=2, high=256)
    Xc = check_array(X, "X", allow_nan=True)
    n_samples = Xc.shape[0]
    dtype = Xc.dtype
    sw = check_sample_weight(sample_weight, n_samples, dtype=dtype)
    if loss_name == "log_loss":
        y, _ = check_classification_targets(y, "y", min_classes=1, n_classes=2, sample_weight=sw)
        y = y.astype(dtype)
        cls = GradientBoostingClassifierParams
    else:
        y = check_array(y, "y", ndim=1, dtype=dtype)
        cls = GradientBoostingParams
    check_consistent_length(X=Xc, y=y)
    if not is_traced(min_samples_split):
        check_int(min_samples_split, "min_samples_split", low=2)
    if not is_traced(min_samples_leaf):
        check_int(min_samples_leaf, "min_samples_leaf", low=1)
    check_scalar(min_weight_fraction_leaf, "min_weight_fraction_leaf", low=0.0, high=0.5)
    check_scalar(min_impurity_decrease, "min_impurity_decrease", low=0.0)
    use_subsample = is_traced(subsample) or float(subsample) < 1.0
    key = check_key(key) if use_subsample else (jax.random.key(0) if key is None else key)
    codes, edges = bin_features(Xc, n_bins, sample_weight=None if is_traced(sample_weight) else sample_weight)
    init_score = _init_score(loss_name, y, sw, dtype) if init is None else jnp.asarray(
        check_scalar(init, "init"), dtype)
    max_nodes, max_width = 2 ** (max_depth + 1) - 1, min(2 ** (max_depth - 1), 256)
    hyper = {k: jnp.asarray(v, dtype) for k, v in dict(
        learning_rate=learning_rate, subsample=subsample, min_samples_split=min_samples_split,
        min_samples_leaf=min_samples_leaf, min_weight_fraction_leaf=min_weight_fraction_leaf,
        min_impurity_decrease=min_impurity_decrease).items()}
    trees, train_loss, clamped = _program(
        codes.T, y, sw, edges, init_score, hyper, key, loss=loss_fn, loss_name=loss_name,
        n_estimators=n_estimators, max_depth=max_depth, n_bins=n_bins, max_nodes=max_nodes,
        max_width=max_width, use_subsample=use_subsample)
    B.warn_if_clamped(clamped)
    return cls(trees, init_score.reshape(1), hyper["learning_rate"], train_loss, edges)


# --------------------------------------------------------------------------- prediction
@jax.jit
def _raw(params, X):
    n_estimators = params.trees.feature.shape[0]
    return params.init[0] + params.learning_rate * B.tree_scores(params.trees, X, n_estimators)[:, 0]


def _decision_function(params, X):
    """The raw score :math:`F(x)` ``(n,)`` (the log-odds for a classifier)."""
    X = check_predict_X(X, params.bin_edges.dtype, params.bin_edges.shape[0], allow_nan=True)
    return _raw(params, X)


def _predict_proba(params, X):
    """``(n, 2)``: ``[1 - σ(F), σ(F)]``."""
    p = jax.nn.sigmoid(_decision_function(params, X))
    return jnp.stack([1 - p, p], axis=1)


def _predict_class(params, X):
    """Class code 1 where :math:`F(x) > 0` (int32)."""
    return (_decision_function(params, X) > 0).astype(jnp.int32)


predict.register(GradientBoostingParams, _decision_function)
predict.register(GradientBoostingClassifierParams, _predict_class)
predict_proba.register(GradientBoostingClassifierParams, _predict_proba)
decision_function.register(GradientBoostingParams, _decision_function)
