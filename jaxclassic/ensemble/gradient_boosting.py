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
   sum of squares), grown by the histogram engine, or on a CPU by the sorted engine
   (``tree._sorted.use_sorted``: small data whose levels split more nodes times bins than
   rows; each feature's order sorted once for every round; GradientBoostingClassifier(100) on
   75 % of breast_cancer 249 -> 129 ms warm, 2026-11-29);
3. the line search in each leaf :math:`R_j`: one Newton step
   :math:`\gamma_j = -\sum_{i \in R_j} w_i g_i / \sum_{i \in R_j} w_i h_i` (Friedman's TreeBoost:
   the mean residual for squared error, :math:`\sum w(y - p)/\sum w p(1-p)` for log-loss, as
   scikit-learn; 0 when :math:`|\sum wh| < 10^{-150}`); for ``"absolute"`` the exact
   minimiser, the weighted median of :math:`y - F_{m-1}` in the leaf (lower weighted median:
   the first sorted value where the cumulative weight reaches half the total, scikit-learn's
   ``_weighted_percentile``);
4. :math:`F_m = F_{m-1} + \eta \sum_j \gamma_j 1[x \in R_j]`.

Multinomial deviance (``log_loss`` with :math:`K > 2` classes; Friedman 2001, Algorithm 6,
as scikit-learn): the scores are a vector :math:`F \in \mathbb{R}^K`,
:math:`p = \mathrm{softmax}(F)`, :math:`\ell = -\log p_y`
(:func:`jaxclassic.losses.softmax_cross_entropy`); :math:`F_0` is the symmetric logit of the
weighted class priors, :math:`\log \pi_k - \frac1K \sum_c \log \pi_c`. Each round fits
:math:`K` regression trees (one ``vmap`` of the growth over the classes, the same rows) to
the residuals :math:`r_{ik} = y_{ik} - p_{ik} = -g_{ik}` of the scores at the round's start,
and a leaf of tree :math:`k` gets
:math:`\gamma = \frac{K-1}{K} \sum w r_k / \sum w |r_k|(1 - |r_k|)`, the Newton step with the
diagonal Hessian :math:`h_{ik} = p_{ik}(1 - p_{ik}) = |r_{ik}|(1 - |r_{ik}|)` (both by autodiff)
scaled by Friedman's :math:`(K-1)/K`.

``subsample < 1`` (stochastic gradient boosting, Friedman 2002) draws the rows of each round
from ``key`` (Bernoulli, as weights); the tree and its line search use only them. Features
are binned once (``n_bins``, exact when a feature has at most ``n_bins`` values, so the
trees equal scikit-learn's exact ones; NaN supported through the missing bin); the rounds
are one ``lax.scan`` (of a bucket of lengths: :mod:`jaxclassic.ensemble._boosting`, "Rounds
and programs"). A tree's raw thresholds are scikit-learn's midpoints between the node's
adjacent values (of the round's rows; :mod:`jaxclassic.tree.cart`, "Split points"), so new
rows, and the held-out rows of the estimators' early stopping, are routed as scikit-learn
routes them (before issue 23 they sat at the bin edges: on 300 rows rounded to two decimals
the regressor's early stopping stopped at round 62 where scikit-learn's stops at 64, and at
82 for its 88 with another ``random_state``;
``tests/ensemble/test_split_points.py``).

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
``HESSIAN_FLOOR`` with a warning. The log-losses' :math:`p(1-p)` is exactly 0 only where
:math:`p` saturates; such a leaf gets the step 0 (the rule above, scikit-learn's
``_safe_divide``).

Feature importances (``ensemble.feature_importances``): scikit-learn's, each tree's total
weighted decrease of the residuals' variance per feature divided by its root weight, summed
over all trees and normalised to sum 1.

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

from jaxclassic import _cores, _jit, _progress
from jaxclassic import losses
from jaxclassic.ensemble import _boosting as B
from jaxclassic.ensemble._api import decision_function, feature_importances, predict, predict_proba
from jaxclassic.tree._engine import CRITERIA, _across, grow, histogram_buffers
from jaxclassic.tree._params import TreeParams
from jaxclassic.tree import _sorted
from jaxclassic.tree.binning import bin_features, bin_ranges, categorical_codes, check_categorical_features
from jaxclassic.tree.cart import _codes_have_missing
from jaxclassic._implicit import nondifferentiable
from jaxclassic.validation import (
    as_operand,
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
    key_from_seed,
    transposed,
)

#: why jax.grad through this fit raises (issue 14, :func:`jaxclassic._implicit.nondifferentiable`)
_NO_DERIVATIVE = (
    "it is built from trees, whose splits are discrete choices at thresholds between sample"
    " values: the fitted model is piecewise constant in the data and the hyperparameters"
)

__all__ = ["GradientBoostingParams", "GradientBoostingClassifierParams", "fit_gradient_boosting",
           "staged_decision_function"]

_LOSSES = {"squared": losses.squared, "absolute": losses.absolute, "log_loss": losses.log_loss}


class GradientBoostingParams(NamedTuple):
    """A fitted gradient-boosting regressor (``predict`` = :math:`F_0 + \\eta \\sum_m \\text{tree}_m`).

    Attributes
    ----------
    trees : TreeParams, every field with leading axes ``(n_estimators, K)``
        ``K = 1`` except for the multinomial classifier (one tree per class and round).
        ``value (T, K, M, 1)``: the line-searched leaf values :math:`\\gamma_j` (unshrunk, as
        scikit-learn's ``estimators_``; the mean pseudo-residual at internal nodes);
        ``impurity`` the weighted variance of the pseudo-residuals in each node and
        ``weighted_n_node_samples`` the summed weights (scikit-learn's ``tree_`` fields, for
        ``feature_importances``); ``bin_edges`` an empty ``(F, 0)`` placeholder.
    init : (K,) float
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
    """A fitted gradient-boosting classifier on the log-loss: binomial (``K = 1``, the score is
    the log-odds) or multinomial (``K`` classes, probabilities ``softmax(F)``).

    ``n_classes`` (a read-only property, not a pytree leaf) is the number of classes: 2 for
    the binomial model, ``K`` for the multinomial one (from the static shape of ``init``: a
    Python int).
    """

    @property
    def n_classes(self) -> int:
        k = int(self.init.shape[-1])
        return 2 if k == 1 else k


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


@partial(_jit.jit, static_argnames=("loss_name", "n_outputs", "dtype"))
def _init_score(loss_name, y, sw, n_outputs, dtype):
    """``(K,)`` constant minimiser of the loss (scikit-learn's ``init=None``)."""
    w = sw / jnp.sum(sw)
    if loss_name == "squared":
        return jnp.sum(w * y)[None]
    if loss_name == "absolute":
        return _averaged_weighted_median(y, sw)[None]
    eps = jnp.finfo(dtype).eps
    if loss_name == "log_loss" and n_outputs == 1:
        p = jnp.clip(jnp.sum(w * y), eps, 1 - eps)
        return (jnp.log(p) - jnp.log1p(-p))[None]
    if loss_name == "log_loss":  # the symmetric multinomial logit of the class priors
        logp = jnp.log(jnp.clip(jnp.zeros((n_outputs,), dtype).at[y].add(w), eps, 1 - eps))
        return logp - jnp.mean(logp)
    return jnp.zeros((n_outputs,), dtype)


def _grad_hess(loss, y, f, n_outputs):
    """Per-row ``g, h`` ``(n, K)`` of the loss at scores ``f (n, K)``, by autodiff
    (:func:`jaxclassic.losses.grad_hess`; the diagonal of the Hessian for the multinomial)."""
    if n_outputs > 1:
        return losses.grad_hess(loss, y, f)
    g, h = losses.grad_hess(loss, y, f[:, 0])
    return g[:, None], h[:, None]


def _row_losses(loss, y, f, n_outputs):
    return jax.vmap(loss)(y, f) if n_outputs > 1 else jax.vmap(loss)(y, f[:, 0])


@partial(_jit.jit, static_argnames=("loss", "loss_name", "n_outputs", "capacity", "max_depth",
                                   "n_bins", "max_nodes", "max_width", "use_subsample", "has_missing", "sort",
                                   "axis_name", "progress"))
def _program(codes_T, y, sw, edges, ranges, init, hyper, key, n_rounds, order=None, categorical=None, *, loss,
             loss_name, n_outputs, capacity, max_depth, n_bins, max_nodes, max_width, use_subsample,
             has_missing=True, sort=False, axis_name=None, progress=None):
    """The ``capacity`` rounds' trees ``(capacity, K, ...)``, training losses ``(capacity,)``
    and the clamped flag; rounds ``t >= n_rounds`` (traced) are skipped (``lax.cond``: no
    work, all-zero trees and loss), so every ``n_estimators`` of a bucket
    (``bagging.estimator_capacity``) runs this one program.

    ``axis_name``: inside ``shard_map`` with the rows split over that mesh axis
    (:mod:`jaxclassic._cores`; not with the absolute loss, whose leaves are medians, nor the
    sorted engine): every sum over rows is taken across the devices."""
    across = partial(_across, axis_name=axis_name)
    dtype = edges.dtype
    n_features, n = codes_T.shape
    K = n_outputs
    # Friedman's (K - 1) / K of the multinomial line search (Alg. 6; scikit-learn keeps it)
    factor = (K - 1) / K if K > 1 else 1.0

    def grow_one(w, r, buffers):
        """One regression tree on the pseudo-residuals ``r (n,)`` and its line-searched leaves
        (the engine's working buffers carried from the round before: ``_engine.grow``)."""
        w_total, wr_total = across(jnp.stack([jnp.sum(w), jnp.sum(w * r)]))
        mean = wr_total / w_total
        rc = jnp.where(w > 0, r - mean, 0)  # centred: no cancellation in sum wr^2 - (sum wr)^2 / W
        stats = jnp.stack([w, w * rc, w * rc * rc], axis=1)
        rules = dict(criterion=CRITERIA["squared_error"], n_bins=n_bins, max_nodes=max_nodes, max_width=max_width,
                     max_depth=max_depth, min_samples_split=hyper["min_samples_split"],
                     min_samples_leaf=hyper["min_samples_leaf"],
                     min_weight_leaf=hyper["min_weight_fraction_leaf"] * w_total,
                     min_impurity_decrease=hyper["min_impurity_decrease"])
        if sort:  # the sorted engine (tree/_sorted.py): no working buffers
            grown = _sorted.grow_sorted(codes_T, stats, (w > 0).astype(dtype), order=order, **rules)
        else:
            grown, buffers = grow(codes_T, stats, (w > 0).astype(dtype), has_missing=has_missing, buffers=buffers,
                                  axis_name=axis_name, categorical=categorical, **rules)
        s = grown.node_stats
        node_mean = s[:, 1] / jnp.where(s[:, 0] > 0, s[:, 0], 1) + mean
        return grown, node_mean, buffers

    def body(carry, t):
        def skip(carry, t):
            out = jax.eval_shape(one_round, carry, t)[1]
            return carry, jax.tree.map(lambda a: jnp.zeros(a.shape, a.dtype), out)

        return jax.lax.cond(t < n_rounds, one_round, skip, carry, t)

    def one_round(carry, t):
        f, clamped, buffers = carry
        w = B.subsample_weights(jax.random.fold_in(key, t), sw, hyper["subsample"], use_subsample, axis_name)
        g, h = _grad_hess(loss, y, f, K)  # (n, K)
        if loss_name == "absolute":
            g = jnp.where(f == y[:, None], 0, g)  # the subgradient sign(f - y), 0 at the kink
        grown, node_mean, buffers = jax.vmap(grow_one, in_axes=(None, 1, 0))(w, -g, buffers)
        leaf = grown.row_node  # (K, n)
        if loss_name == "absolute":
            step = _weighted_median_per_node(y - f[:, 0], w, leaf[0], max_nodes)[None]
            c = jnp.asarray(False)
        else:
            if loss_name is None:  # a user loss: a Hessian <= 0 is raised to the floor
                h, c = B.clamp_hessian(h, w)
                c = across(c.astype(jnp.int32), op="max") > 0
            else:  # p(1 - p) >= 0; an exact 0 (saturated p) gives the 0 step below, as scikit-learn
                c = jnp.asarray(False)
            seg = jax.vmap(lambda v, nd: jax.ops.segment_sum(v, nd, max_nodes), in_axes=(1, 0))
            gs, hs = across(seg(w[:, None] * g, leaf)), across(seg(w[:, None] * h, leaf))  # (K, M)
            step = jnp.where(jnp.abs(hs) < 1e-150, 0, -factor * gs / jnp.where(hs != 0, hs, 1))
        value = jnp.where(grown.is_leaf, step, node_mean)  # (K, M)
        trees = jax.vmap(B.make_tree, in_axes=(0, 0, None, None, 0, None, None))(
            grown, value, edges, n_features, grown.node_stats[..., 0], ranges, categorical)
        trees = trees._replace(impurity=grown.impurity.astype(dtype))  # for feature_importances
        f = f + hyper["learning_rate"] * jnp.take_along_axis(value, leaf, axis=1).T
        train_sums = across(jnp.stack([jnp.sum(sw * _row_losses(loss, y, f, K)), jnp.sum(sw)]))
        train = train_sums[0] / train_sums[1]
        _progress.emit(progress, t, train)  # verbose > 0
        return (f, clamped | c, buffers), (trees, train)

    f0 = jnp.broadcast_to(init, (n, K)).astype(dtype)
    buffers = jax.tree.map(lambda b: jnp.broadcast_to(b, (K,) + b.shape),
                           histogram_buffers(n_features, n_bins, 3, max_width, dtype, axis_name=axis_name))
    (_, clamped, _), (trees, train_loss) = jax.lax.scan(body, (f0, jnp.asarray(False), buffers),
                                                        jnp.arange(capacity))
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
    n_classes: int | None = None,
    verbose: int = 0,
    sample_weight=None,
    key=None,
    categorical_features=None,
) -> GradientBoostingParams:
    r"""Fit Friedman's gradient boosting (TreeBoost) with regression trees.

    Algorithm, line search and departures: module docstring.

    Parameters
    ----------
    X : array-like (n_samples, n_features)
        Raw features; NaN = missing.
    y : array-like (n_samples,)
        Real targets (``squared``, ``absolute``, a callable) or class codes 0..K-1
        (``log_loss``: 0/1 gives the binomial model, more classes the multinomial one).
    loss : {"squared", "absolute", "log_loss"} or callable (static)
        A callable ``loss(y_i, f_i) -> scalar`` (residuals and Newton line search by autodiff).
    n_estimators : int >= 1
        Rounds; the program is built for its bucket (``bagging.estimator_capacity``;
        :mod:`jaxclassic.ensemble._boosting`, "Rounds and programs").
    learning_rate : float > 0 (traced)
    max_depth : int >= 1 (static)
    subsample : float in (0, 1] (traced; 1 is static: no sampling)
    min_samples_split, min_samples_leaf : int (traced)
    min_weight_fraction_leaf, min_impurity_decrease : float (traced)
        As scikit-learn's trees.
    n_bins : int in 2..256 (static)
    init : float or (K,) array, optional
        :math:`F_0` (a log-odds for binary ``log_loss``, ``K`` scores for the multinomial);
        None: the constant minimiser for the built-in losses, 0 for a callable.
    n_classes : int >= 2, optional (static)
        ``log_loss`` only: the number of classes ``K`` (inferred as ``max(y) + 1`` if not
        given; needed when ``y`` is traced). ``K = 2`` is the binomial model (one tree per
        round), ``K > 2`` the multinomial one (``K`` trees per round).
    verbose : int >= 0, default=0 (static)
        0: silent (the program has no callback). ``k > 0``: a tqdm bar of the rounds and, every
        ``k`` rounds and after the last, a line ``[t]\ttrain-<metric>:<value>`` of the mean
        training loss (rmse, logloss, mlogloss, mae; ``loss`` for a callable), sent from inside
        the compiled rounds (:mod:`jaxclassic._progress`; one fit: under ``vmap`` each round is
        reported once).
    sample_weight : array-like (n_samples,), optional
        Rows of weight 0 have no influence.
    key : jax.random key, optional (keyword-only)
        The row draws of ``subsample < 1`` (unused otherwise). None: the fixed key
        ``jax.random.key(0)``, so a call is deterministic (same key, same model).
    categorical_features : None, (n_features,) bool or integer indices, optional
        Features whose values are category codes ``0..n_bins - 1`` (NaN: missing), split by
        sets of categories: the best prefix of the node's categories ordered by their mean
        pseudo-residual (exact for the squared error of the regression trees;
        :func:`jaxclassic.tree.fit_cart`). A category unseen in a node goes where the node
        sends missing values. None: every feature numeric (the program without it).

    Returns
    -------
    GradientBoostingParams or GradientBoostingClassifierParams (``log_loss``)
        Trees stacked ``(n_estimators, K)``; ``K = 1`` except for the multinomial. One
        function for both tasks, as the algorithm is shared: the task follows from ``loss``
        (``"log_loss"`` classifies, the others regress), so there is no separate ``task=``.
        A fixed number of rounds (no early stopping in the functional fit; the estimators'
        ``n_iter_no_change`` refits), hence no ``n_iter`` / ``converged``.

    Notes
    -----
    ``loss``'s default differs from the estimator's: the functional fit names the losses of
    :mod:`jaxclassic.losses` (``"squared"`` is ``GradientBoostingRegressor``'s
    ``"squared_error"``, ``"absolute"`` its ``"absolute_error"``), and one function serves both
    tasks, so its default is the regression loss (``GradientBoostingClassifier``'s default
    ``"log_loss"`` is ``loss="log_loss"`` here).

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
    # jax.grad / jax.jvp through this fit raise a TypeError naming it (issue 14)
    X, y, sample_weight, learning_rate, subsample, min_weight_fraction_leaf, min_impurity_decrease = (
        nondifferentiable("fit_gradient_boosting", a, reason=_NO_DERIVATIVE) if is_traced(a) else a
        for a in (X, y, sample_weight, learning_rate, subsample, min_weight_fraction_leaf, min_impurity_decrease))
    if callable(loss):
        loss_fn, loss_name = loss, None
    else:
        loss_name = check_choice(loss, "loss", tuple(_LOSSES))
        loss_fn = _LOSSES[loss_name]
    n_estimators, max_depth = B.check_boosting_args(n_estimators, learning_rate, max_depth, subsample)
    n_bins = check_int(n_bins, "n_bins", low=2, high=256)
    verbose = _progress.check_verbose(verbose)
    Xc = check_array(X, "X", allow_nan=True)
    n_samples = Xc.shape[0]
    dtype = Xc.dtype
    sw = check_sample_weight(sample_weight, n_samples, dtype=dtype)
    n_outputs = 1
    if loss_name == "log_loss":
        if n_classes is not None:
            n_classes = check_int(n_classes, "n_classes", low=2)
        y, k = check_classification_targets(y, "y", min_classes=1, n_classes=n_classes, sample_weight=sw)
        if k > 2:  # the multinomial deviance: K trees per round on y_k - p_k
            n_outputs, loss_fn = k, losses.softmax_cross_entropy
        else:
            y = as_operand(y, dtype)
        cls = GradientBoostingClassifierParams
    else:
        if n_classes is not None:
            raise ValueError(f"n_classes is for loss='log_loss' only, got n_classes={n_classes!r} "
                             f"with loss={loss!r}")
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
    key = key_from_seed(0) if key is None else check_key(key)
    categorical = check_categorical_features(categorical_features, Xc.shape[1])
    codes, edges = bin_features(Xc, n_bins, sample_weight=None if is_traced(sample_weight) else sample_weight)
    ranges = bin_ranges(Xc, codes, n_bins, sample_weight=sw)
    if categorical is not None:
        codes = categorical_codes(Xc, codes, categorical, n_bins)
    if init is None:
        init_score = _init_score(loss_name, y, sw, n_outputs, dtype)
    else:
        init_score = jnp.asarray(check_scalar(init, "init", allow_array=True), dtype).reshape(-1)
        if init_score.shape[0] not in (1, n_outputs):
            raise ValueError(f"init must be a scalar or hold {n_outputs} scores, got shape {init_score.shape}")
        init_score = jnp.broadcast_to(init_score, (n_outputs,))
    max_nodes, max_width = 2 ** (max_depth + 1) - 1, min(2 ** (max_depth - 1), 256)
    hyper = {k: as_operand(v, dtype) for k, v in dict(
        learning_rate=learning_rate, subsample=subsample, min_samples_split=min_samples_split,
        min_samples_leaf=min_samples_leaf, min_weight_fraction_leaf=min_weight_fraction_leaf,
        min_impurity_decrease=min_impurity_decrease).items()}
    has_missing = _codes_have_missing(codes, n_bins)
    # the sorted engine where its levels are cheaper (tree/_sorted.py, use_sorted)
    sort, order = _sorted.plan(codes, n_bins, max_depth, regression=True, has_missing=has_missing, max_features=None)
    if categorical is not None:  # the sorted engine has no categorical split
        sort, order = False, None
    args = (transposed(codes), y, sw, edges, ranges, init_score, hyper, key, n_estimators, order, categorical)
    statics = dict(loss=loss_fn, loss_name=loss_name, n_outputs=n_outputs,
                   capacity=B.estimator_capacity(n_estimators), max_depth=max_depth, n_bins=n_bins,
                   max_nodes=max_nodes, max_width=max_width, use_subsample=use_subsample, has_missing=has_missing,
                   sort=sort)
    progress = _progress.boosting_spec(verbose, "fit_gradient_boosting",
                                       "softmax" if n_outputs > 1 else loss_name)
    if progress is not None:  # verbose=0 calls the program compiled without reporting
        statics["progress"] = progress
    mesh = None
    if not (sort or loss_name == "absolute" or categorical is not None):
        mesh = _cores.row_mesh(Xc.shape[0], X, y, sw, *jax.tree.leaves(hyper))
    with _progress.reporting(progress, n_estimators):
        if mesh is None:
            trees, train_loss, clamped = _program(*args, **statics)
        else:  # the CPU's cores as devices (opt-in): each builds the histograms of its rows
            trees, train_loss, clamped = _cores.run_split(_program, mesh, args, {0: 1, 1: 0, 2: 0}, statics)
    trees, train_loss = B.first_rounds((trees, train_loss), n_estimators)
    B.warn_if_clamped(clamped)
    return cls(trees, init_score, hyper["learning_rate"], train_loss, edges)


# --------------------------------------------------------------------------- prediction
@_jit.jit
def _raw(trees, init, learning_rate, X, n_rounds):
    r""":math:`F_0 + \eta \sum_{t < T} \text{tree}_t(x)` of the ``n_rounds`` first of the stacked
    (padded) rounds: ``(n,)``, or ``(n, K)`` for the multinomial."""
    f = init + learning_rate * B.tree_scores(trees, X, n_rounds)
    return f[:, 0] if f.shape[1] == 1 else f


@_jit.jit
def _staged_raw(params, X, n_rounds):
    """The raw scores after each round ``t < T_cap``; the rounds from ``n_rounds`` on (a
    bucket's padding, cut by the caller) are not routed (``lax.cond``)."""
    depth = B.tree_depth(params.trees.feature.shape[-1])
    X = X.astype(params.trees.threshold.dtype)

    def one(tree):
        return tree.value[B.route_raw(tree, X, depth), 0]

    def step(acc, t_trees):
        t, trees_t = t_trees
        acc = jax.lax.cond(t < n_rounds, lambda acc: acc + jax.vmap(one, out_axes=1)(trees_t),  # (n, K)
                           lambda acc: acc, acc)
        return acc, params.init + params.learning_rate * acc

    K = params.trees.feature.shape[1]
    T = params.trees.feature.shape[0]
    _, stages = jax.lax.scan(step, jnp.zeros((X.shape[0], K), params.trees.value.dtype),
                             (jnp.arange(T), params.trees))
    return stages[..., 0] if K == 1 else stages


def staged_decision_function(params, X):
    r"""The raw score after each round: :math:`F_m(x) = F_0 + \eta\sum_{t \le m}\text{tree}_t(x)`.

    One ``lax.scan`` over the rounds carrying the running sum (scikit-learn's
    ``staged_decision_function`` / ``_staged_raw_predict``, as one array).

    Parameters
    ----------
    params : GradientBoostingParams or GradientBoostingClassifierParams
    X : (n, F) array (NaN: missing)

    Returns
    -------
    (T, n) array, or (T, n, K) for the multinomial classifier; the last stage is
    ``decision_function(params, X)``.

    Example
    -------
    >>> import jax.numpy as jnp
    >>> X = jnp.arange(6.0)[:, None]; y = jnp.array([0.0, 0, 0, 2, 2, 2])
    >>> p = fit_gradient_boosting(X, y, n_estimators=2, learning_rate=0.5, max_depth=1)
    >>> staged_decision_function(p, X)[:, 0].tolist()
    [0.5, 0.25]

    References
    ----------
    Friedman, "Greedy function approximation: a gradient boosting machine", Ann. Stat. 29 (2001).
    """
    X = check_predict_X(X, params.bin_edges.dtype, params.bin_edges.shape[0], allow_nan=True)
    n_rounds = params.trees.feature.shape[0]
    stages = _staged_raw(B.pad_rounds(params), X, n_rounds)
    return B.first_rounds(stages, n_rounds)


def _decision_function(params, X):
    """The raw score :math:`F(x)`: ``(n,)`` (the log-odds for a binary classifier), or
    ``(n, K)`` for the multinomial."""
    X = check_predict_X(X, params.bin_edges.dtype, params.bin_edges.shape[0], allow_nan=True)
    return _raw(B.padded_trees(params.trees), params.init, params.learning_rate, X, params.trees.feature.shape[0])


def _predict_proba(params, X):
    """``(n, 2)``: ``[1 - σ(F), σ(F)]``; ``(n, K)``: ``softmax(F)`` for the multinomial."""
    f = _decision_function(params, X)
    if f.ndim == 2:
        return jax.nn.softmax(f, axis=1)
    p = jax.nn.sigmoid(f)
    return jnp.stack([1 - p, p], axis=1)


def _predict_class(params, X):
    """Class code of largest score (binary: 1 where :math:`F(x) > 0`), int32."""
    f = _decision_function(params, X)
    return (jnp.argmax(f, axis=1) if f.ndim == 2 else f > 0).astype(jnp.int32)


def _feature_importances(params):
    """:func:`_importances_of` the rounds padded to their bucket (one program per bucket)."""
    return _importances_of(B.pad_rounds(params), params.trees.feature.shape[0])


@_jit.jit
def _importances_of(params, n_rounds):
    r"""scikit-learn's ``feature_importances_`` of gradient boosting: each tree's weighted
    impurity (variance of the pseudo-residuals) decrease per feature,
    :math:`\sum_{t: f_t = j} W_t i_t - W_L i_L - W_R i_R`, divided by its root's weight
    :math:`W_0` (``compute_feature_importances(normalize=False)``), summed over all
    ``n_estimators x K`` trees and normalised to sum 1 (zeros when no tree splits)."""
    trees = params.trees
    n_features = params.bin_edges.shape[0]
    live = (jnp.arange(trees.feature.shape[0]) < n_rounds)[:, None, None]  # the rounds past n_rounds: padding
    internal = (trees.children_left >= 0) & ~trees.is_leaf & live
    wi = trees.weighted_n_node_samples * trees.impurity  # (T, K, M)
    take = lambda i: jnp.take_along_axis(wi, jnp.maximum(i, 0), axis=-1)
    dec = jnp.where(internal, wi - take(trees.children_left) - take(trees.children_right), 0)
    root = trees.weighted_n_node_samples[..., :1]
    dec = dec / jnp.where(root > 0, root, 1)
    feat = jnp.where(internal, trees.feature, n_features).reshape(-1)
    imp = jnp.zeros((n_features,), dec.dtype).at[feat].add(dec.reshape(-1), mode="drop")
    total = jnp.sum(imp)
    return jnp.where(total > 0, imp / jnp.where(total > 0, total, 1), 0)


predict.register(GradientBoostingParams, _decision_function)
predict.register(GradientBoostingClassifierParams, _predict_class)
predict_proba.register(GradientBoostingClassifierParams, _predict_proba)
decision_function.register(GradientBoostingParams, _decision_function)
feature_importances.register(GradientBoostingParams, _feature_importances)
