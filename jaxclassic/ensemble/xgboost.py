r"""XGBoost: second-order gradient boosting of histogram trees (Chen & Guestrin 2016).

Round :math:`t` adds :math:`K` regression trees (one per output of the score, ``K = 1``
except for the softmax) to the raw scores :math:`F`. With the per-row gradient and Hessian
of the loss at the current scores,

.. math:: g_i = \partial_F \ell(y_i, F_i), \qquad h_i = \partial_F^2 \ell(y_i, F_i)

(autodiff of the shared loss, :func:`jaxclassic.losses.grad_hess`; any differentiable
``loss(y, f)`` works) and the summed, sample-weighted :math:`G = \sum w_i g_i`,
:math:`H = \sum w_i h_i` of a node, the second-order objective gives the leaf weight and the
split gain (Chen & Guestrin, eqs. 5-7, with XGBoost's :math:`L_1` term :math:`\alpha`)

.. math::
    w^\star = -\frac{T_\alpha(G)}{H + \lambda}, \quad T_\alpha(G) = \operatorname{sign}(G)\max(|G| - \alpha, 0),
    \qquad
    \mathrm{gain} = \frac{T_\alpha(G_L)^2}{H_L + \lambda} + \frac{T_\alpha(G_R)^2}{H_R + \lambda}
                  - \frac{T_\alpha(G)^2}{H + \lambda}.

``gain`` is what the xgboost package reports (``Gain`` of ``trees_to_dataframe``): twice the
paper's :math:`\tfrac12[\dots]`. A node splits at its best (feature, bin, missing side) when
``gain > 0`` (xgboost: above ``1e-6``), ``gain >= gamma`` (``gamma`` is xgboost's
``min_split_loss``, compared with this un-halved gain, as the package does) and both
children have :math:`H \ge` ``min_child_weight``; the leaf values are :math:`\eta w^\star`
(stored shrunk, as xgboost's dump). The floor ``1e-6`` is absolute, as in xgboost, and
the gain carries the units of :math:`g^2/h` (:math:`y^2` for ``"squared"``): a target of
scale :math:`10^{-9}` grows no split at all (the model is its base score, the mean; the
xgboost package does the same), so rescale such a target; ``min_child_weight`` bounds
:math:`H`, which for ``"squared"`` is the summed weight whatever the scale of ``y``. The trees grow level-wise to ``max_depth`` on features
binned once at **xgboost's own cut points** (:mod:`jaxclassic.ensemble._xgb_cuts`: its
weighted quantile sketch for in-memory ``hist`` data, reproduced bit for bit; a feature with at
most ``max_bin`` distinct values has every value but the smallest as a cut). A split at cut
:math:`c` sends left the rows with :math:`x < c`, as xgboost: the stored ``threshold`` is the
largest value of the fit's dtype that xgboost sends left, so the package's rule "left iff
:math:`x \le` threshold" routes every row, seen or new, as xgboost does. NaN is in the missing
bin, sent to the learned side of each split (right, as xgboost, at a node that no training
row of the round reached with the feature missing). Splits that tie because they make the
same partition of a node (they differ only for new rows) are resolved as xgboost resolves
them (:func:`_xgboost_tie_rule`). Growth is by the histogram
engine (:mod:`jaxclassic.tree._engine`: per level one pass over the rows of the smaller
children, siblings by subtraction). The whole boosting loop is one compiled program: a
``lax.scan`` over the rounds (of a bucket of lengths: :mod:`jaxclassic.ensemble._boosting`,
"Rounds and programs"); the ``K`` trees of a round are one ``vmap`` of the growth.

Losses. ``"squared"`` (:math:`\tfrac12(y-f)^2`: ``reg:squarederror``), ``"log_loss"``
(``binary:logistic``, ``y`` in {0, 1}), ``"softmax"`` (``multi:softprob``,
:math:`K` = ``n_classes``; the diagonal of the softmax Hessian **doubled**,
:math:`h_k = 2p_k(1-p_k)`, as xgboost does so that the :math:`K` simultaneous per-class
Newton steps do not overshoot), or a callable ``loss(y_i, f_i)`` (scalar score, or with
``n_classes`` a ``(K,)`` score vector). A Hessian :math:`\le 0` at a row (a non-convex loss)
is raised to ``HESSIAN_FLOOR = 1e-6`` with a :class:`HessianClampedWarning`.

Intercept. ``base_score=None`` estimates it from the data as xgboost >= 2.0 does for these
objectives: the weighted mean of ``y`` (squared), the log-odds of the weighted mean
(log-loss; xgboost stores ``base_score`` as that probability). Departure: for the softmax
we take the exact constant minimiser, the centred log class frequencies; xgboost 3.2
estimates a vector of margins close to it (within ~1e-3). A given ``base_score`` is a
probability for ``log_loss`` (as xgboost), a margin otherwise. A callable loss starts at 0.

Randomness (from ``key``): ``subsample`` keeps each row of a round with that probability;
``colsample_bytree`` draws ``max(1, floor(colsample_bytree · F))`` features per tree.

Early stopping: with ``eval_set`` and ``early_stopping_rounds`` the rule of
:mod:`jaxclassic._early_stopping` runs on the eval loss (the mean loss, monotone in
xgboost's default metrics rmse / logloss / mlogloss, so the same best iteration); the
rounds after the stop are skipped (empty trees), ``best_iteration`` is kept and predictions
use the trees up to it (as xgboost's sklearn API).

Parity with xgboost (``tree_method="hist"``, same hyperparameters). The cut points, the
training rows' bins, the choice among splits that make the same partition and the routing of
any row are xgboost's; what remains is arithmetic. Measured on new rows (2,000 training rows x
5 continuous features, float32, ``fit_xgboost`` against ``xgboost.train``): depth 3 at 50
rounds, max difference 5e-6 (2e-6 with 10 % NaN); depth 6 with ``min_child_weight=10``, 5e-6
(3e-6); before xgboost's cut points, 0.13 on average, 1.2 at most. The remainder is in
near-ties: we sum the histograms and compute the gains in our dtype, xgboost sums float32
``g``, ``h`` in double and rounds each gain to float32 before comparing (first maximum in
feature order, then by bin). Where a node's two best splits have gains within that rounding
(nodes of a few rows that two features cut the same way: an exact tie xgboost gives to the
lower feature; small gains of large nodes, relative noise ~1e-4 in float32 after cancellation)
the split chosen can differ, and so do new rows between the two. With xgboost's defaults
(``min_child_weight=1``, depth 6) this touches 6 % of the new rows at 50 rounds (mean
difference 4e-3, max 0.5 on the data above; 3-4 % on heavy-tailed features; float64 fits
too); ``min_child_weight`` of ~10 keeps the small nodes out (a flip remained on 1 of 3
heavy-tailed datasets at depth 6). Closing it needs the engine to sum and compare as
xgboost does.

Cost per round: ``max_depth`` levels, each one pass over the rows of the smaller children
(``F`` scatters of ``(g, h, count)``) and a cumulative sum over ``max_bin`` bins per
(node, feature); :math:`O(n)` for ``g``, ``h`` and the score update (a gather of the leaf).

References
----------
T. Chen, C. Guestrin, "XGBoost: A Scalable Tree Boosting System", KDD 2016.
J. Friedman, "Greedy Function Approximation: A Gradient Boosting Machine", Ann. Stat. 2001.
G. Ke et al., "LightGBM: A Highly Efficient Gradient Boosting Decision Tree", NeurIPS 2017.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import partial
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxclassic import _cores, _jit, _progress
from jaxclassic import losses
from jaxclassic._early_stopping import early_stopping_init, early_stopping_update
from jaxclassic.ensemble import _boosting as B
from jaxclassic.ensemble._api import decision_function, feature_importances, predict, predict_proba
from jaxclassic.ensemble._xgb_cuts import cut_edges, traced_cut_edges
from jaxclassic.tree._engine import GradientPair, _across, grow, histogram_buffers
from jaxclassic.tree._params import TreeParams
from jaxclassic.tree.binning import apply_bins, categorical_codes, check_categorical_features
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
    on_host,
    to_device,
    transposed,
)

#: why jax.grad through this fit raises (issue 14, :func:`jaxclassic._implicit.nondifferentiable`)
_NO_DERIVATIVE = (
    "it is built from trees, whose splits are discrete choices at thresholds between sample"
    " values: the fitted model is piecewise constant in the data and the hyperparameters"
)

__all__ = ["XGBoostParams", "XGBoostClassifierParams", "fit_xgboost"]

_LOSSES = {"squared": losses.squared, "log_loss": losses.log_loss, "softmax": losses.softmax_cross_entropy}
#: xgboost's kRtEps: a split needs a gain above it
_MIN_GAIN = 1e-6


class XGBoostParams(NamedTuple):
    """A fitted XGBoost model (regression or a callable loss: ``predict`` is the raw score).

    Attributes
    ----------
    trees : TreeParams, every field with leading axes ``(n_estimators, K)``
        The trees; ``value (T, K, M, 1)`` holds the shrunk leaf weights :math:`\\eta w^\\star`
        (every node), ``weighted_n_node_samples`` the cover :math:`H = \\sum w h` of each node,
        ``bin_edges`` an empty ``(F, 0)`` placeholder. Rounds skipped after an early stop
        hold one-leaf trees of value 0.
    base_score : (K,) float
        The initial raw score (margin).
    split_gain : (T, K, M) float
        xgboost's gain of each split (0 at leaves).
    train_loss, eval_loss : (T,) float
        Mean (weighted) loss after each round on the training rows and on ``eval_set``
        (NaN without one, or after the stop).
    best_iteration : () int32
        Last round used by predictions (``n_iter - 1`` without early stopping).
    n_iter : () int32
        Rounds run.
    converged : () bool
        Whether the fit ended by its own stopping rule: True when early stopping triggered,
        and always True without early stopping (a fixed number of rounds is the whole
        algorithm); False when ``early_stopping_rounds`` was given but all ``n_estimators``
        rounds ran without it triggering.
    bin_edges : (F, max_bin + 1) float
        Per feature, for each of xgboost's cut points :math:`c`, the largest value of the
        fit's dtype that xgboost sends left (:math:`\\mathrm{float32}(x) < c`); ``+inf``
        padded. When a training row of positive weight had a missing value, the lower bound
        and the sentinel too (the layouts of :func:`jaxclassic.ensemble._xgb_cuts.cut_edges`).
    """

    trees: TreeParams
    base_score: jax.Array
    split_gain: jax.Array
    train_loss: jax.Array
    eval_loss: jax.Array
    best_iteration: jax.Array
    n_iter: jax.Array
    converged: jax.Array
    bin_edges: jax.Array

    @classmethod
    def _upgrade_fields(cls, fields: dict) -> dict:
        """A file written by jaxclassic 0.1 (no ``converged``): whether early stopping was asked
        for was not recorded, so ``converged`` is True when it stopped early or had no
        evaluation set, and False when it evaluated every round (read by
        :func:`jaxclassic.io.load`)."""
        if "converged" not in fields:
            rounds = np.shape(fields["train_loss"])[0]
            stopped = np.asarray(fields["n_iter"]) < rounds
            no_eval = np.all(np.isnan(np.asarray(fields["eval_loss"])))
            fields["converged"] = jnp.asarray(bool(stopped or no_eval))
        return fields


class XGBoostClassifierParams(XGBoostParams):
    """A fitted XGBoost classifier (``log_loss``: ``K = 1``, sigmoid; ``softmax``: ``K`` classes).

    ``n_classes`` (a read-only property, not a pytree leaf) is the number of classes: 2 for
    ``log_loss``, ``K`` for ``softmax`` (from the static shape of ``base_score``: a Python int).
    """

    @property
    def n_classes(self) -> int:
        k = int(self.base_score.shape[-1])
        return 2 if k == 1 else k


@dataclass(frozen=True)
class _L1GradientPair(GradientPair):
    """The engine's gradient-pair criterion with xgboost's :math:`L_1` term: params
    ``(reg_lambda, penalty, reg_alpha)``, node loss :math:`-\\tfrac12 T_\\alpha(G)^2/(H+\\lambda)`."""

    def plane_loss(self, p, params=(1.0, 0.0, 0.0)):
        g = _soft_threshold(p[0], params[2])
        return -0.5 * g * g / (p[1] + params[0])

    def node_loss(self, s, params=(1.0, 0.0, 0.0)):
        return self.plane_loss([s[..., 0], s[..., 1]], params)


def _soft_threshold(g, alpha):
    return jnp.sign(g) * jnp.maximum(jnp.abs(g) - alpha, 0)


# NaN goes right at a node no counted row of the round reached with the feature missing (xgboost)
_CRITERION = _L1GradientPair(unseen_missing_right=True)


# --------------------------------------------------------------------------- loss plumbing
def _row_losses(loss, y, f, vector):
    """Per-row loss of scores ``f (n, K)``."""
    return jax.vmap(loss)(y, f) if vector else jax.vmap(loss)(y, f[:, 0])


def _grad_hess(loss, y, f, vector, doubled):
    if vector:
        g, h = losses.grad_hess(loss, y, f)
        return g, (2 * h if doubled else h)
    g, h = losses.grad_hess(loss, y, f[:, 0])
    return g[:, None], h[:, None]


def _mean(v, w, axis_name=None):
    sums = _across(jnp.stack([jnp.sum(w * v), jnp.sum(w)]), axis_name)
    return sums[0] / sums[1]


@partial(_jit.jit, static_argnames=("loss_name", "n_outputs", "dtype"))
def _default_base_score(loss_name, y, sw, n_outputs, dtype):
    w = sw / jnp.sum(sw)
    if loss_name == "squared":
        return jnp.sum(w * y)[None]
    eps = jnp.finfo(dtype).eps
    if loss_name == "log_loss":
        p = jnp.clip(jnp.sum(w * y), eps, 1 - eps)
        return (jnp.log(p) - jnp.log1p(-p))[None]
    if loss_name == "softmax":
        freq = jnp.clip(jnp.zeros((n_outputs,), dtype).at[y].add(w), eps, 1)
        return jnp.log(freq) - jnp.mean(jnp.log(freq))
    return jnp.zeros((n_outputs,), dtype)


def _xgboost_tie_rule(grown, codes_T, count, n_bins, max_depth, axis_name=None):
    """xgboost's choice among the splits of a node that tie exactly because they make the same
    partition of its rows (they differ only for new rows).

    The engine takes the first maximum in (feature, bin, missing right before left) order.
    xgboost scans each feature forwards with missing values right, keeping the first
    maximum, then backwards with them left, replacing only a strictly larger gain. So:

    * missing left: every bin from the node's last non-empty bin left of the split to the
      one before its first non-empty bin right of it makes the same partition; xgboost's
      backward scan keeps the last (the cut just below the least value going right);
    * "missing values alone left" is the mirror of "all non-missing values left, missing
      right" at the node's last non-empty bin, which xgboost's forward scan meets first:
      that split, its children swapped.

    Missing right, the engine's first bin is xgboost's. "Non-empty" counts the rows of
    positive weight of the round; the bins come from one routing pass of the training rows
    (``max_depth`` steps, three scatters each).
    """
    internal = grown.children_left >= 0
    n_rows = codes_T.shape[1]
    rows = jnp.arange(n_rows)
    M = grown.feature.shape[0]

    def step(_, carry):
        node, top, left_high, right_low = carry
        f = jnp.maximum(grown.feature[node], 0)
        code = codes_T[f, rows].astype(jnp.int32)
        seen = internal[node] & (count > 0) & (code < n_bins)  # counted, not missing
        left = jnp.where(code == n_bins, grown.missing_left[node], code <= grown.threshold_bin[node])
        top = top.at[jnp.where(seen, node, M)].max(code, mode="drop")
        left_high = left_high.at[jnp.where(seen & left, node, M)].max(code, mode="drop")
        right_low = right_low.at[jnp.where(seen & ~left, node, M)].min(code, mode="drop")
        nxt = jnp.where(left, grown.children_left[node], grown.children_right[node])
        return jnp.where(internal[node], nxt, node), top, left_high, right_low

    none = jnp.full((M,), -1, jnp.int32)
    _, top, left_high, right_low = jax.lax.fori_loop(
        0, max_depth, step, (jnp.zeros((n_rows,), jnp.int32), none, none, jnp.full((M,), n_bins, jnp.int32)))
    # the extremes over every device's rows
    top, left_high = (_across(a, axis_name, op="max") for a in (top, left_high))
    right_low = _across(right_low, axis_name, op="min")
    mirror = internal & grown.missing_left & (left_high < 0)
    last = internal & grown.missing_left & ~mirror & (right_low < n_bins)
    return grown._replace(
        threshold_bin=jnp.where(mirror, top, jnp.where(last, right_low - 1, grown.threshold_bin)),
        missing_left=grown.missing_left & ~mirror,
        children_left=jnp.where(mirror, grown.children_right, grown.children_left),
        children_right=jnp.where(mirror, grown.children_left, grown.children_right),
    )


# --------------------------------------------------------------------------- the program
@partial(_jit.jit, static_argnames=(
    "loss", "vector", "doubled", "n_outputs", "capacity", "max_depth", "n_bins", "n_colsample",
    "use_subsample", "has_eval", "patience", "has_missing", "axis_name", "progress"))
def _program(codes_T, y, sw, ecodes_T, ey, ew, edges, base, hyper, key, n_rounds, categorical=None, *, loss,
             vector, doubled,
             n_outputs, capacity, max_depth, n_bins, n_colsample, use_subsample, has_eval, patience,
             has_missing=True, axis_name=None, progress=None):
    """The boosting rounds ``t < capacity`` (one ``lax.scan``), those at ``t >= n_rounds``
    (traced) skipped as after an early stop (``lax.cond``: no work, one-leaf trees of value
    0, NaN losses), so every ``n_estimators`` of a bucket (``bagging.estimator_capacity``)
    runs this one program.

    ``axis_name``: inside ``shard_map`` with the training rows split over that mesh axis
    (:mod:`jaxclassic._cores`); the trees' sums over rows, the training loss and the Hessian
    flag are taken across the devices, and every device returns the same trees."""
    dtype = edges.dtype
    n_features, n = codes_T.shape
    K = n_outputs
    M = 2 ** (max_depth + 1) - 1
    W = min(2 ** (max_depth - 1), 256)
    lam, alpha, gamma = hyper["reg_lambda"], hyper["reg_alpha"], hyper["gamma"]
    eta = hyper["learning_rate"]
    # split iff gain >= max(gamma, 1e-6): the engine's gain is (gain - gamma) / 2 and it
    # splits when that + eps >= min_impurity_decrease
    crit_params = (lam, gamma / 2, alpha)
    mid = jnp.maximum(0.0, (_MIN_GAIN - gamma) / 2) + jnp.finfo(dtype).eps

    def grow_one(stats, count, fmask, buffers):
        # the engine's working buffers are carried from round to round (_engine.grow)
        return grow(codes_T, stats, count, criterion=_CRITERION, n_bins=n_bins, max_nodes=M, max_width=W,
                    max_depth=max_depth, criterion_params=crit_params, min_samples_split=2,
                    min_samples_leaf=1, min_weight_leaf=hyper["min_child_weight"],
                    min_impurity_decrease=mid, feature_mask=fmask, has_missing=has_missing, buffers=buffers,
                    axis_name=axis_name, categorical=categorical)

    def new_trees(t, f, fe, buffers):
        k_sub, k_col = jax.random.split(jax.random.fold_in(key, t))
        w = B.subsample_weights(k_sub, sw, hyper["subsample"], use_subsample, axis_name)
        g, h = _grad_hess(loss, y, f, vector, doubled)
        h, clamped = B.clamp_hessian(h, w)
        clamped = _across(clamped.astype(jnp.int32), axis_name, op="max") > 0
        stats = jnp.stack([g * w[:, None], h * w[:, None]], -1).transpose(1, 0, 2)  # (K, n, 2)
        count = (w > 0).astype(dtype)
        if n_colsample < n_features:
            u = jax.random.uniform(k_col, (K, n_features))
            kth = jnp.sort(u, axis=1)[:, n_features - n_colsample][:, None]
            fmask = u >= kth
        else:
            fmask = jnp.ones((K, n_features), bool)
        if K == 1:  # no vmap: a batched loop runs its whole-carry selects every step
            grown, buffers = grow_one(stats[0], count, fmask[0], buffers)  # buffers of one tree
            grown = jax.tree.map(lambda a: a[None], grown)
        else:
            grown, buffers = jax.vmap(grow_one, in_axes=(0, None, 0, 0))(stats, count, fmask, buffers)
        if has_missing and categorical is None:  # without missing values the engine's choice is xgboost's
            tie_rule = partial(_xgboost_tie_rule, codes_T=codes_T, count=count, n_bins=n_bins, max_depth=max_depth,
                               axis_name=axis_name)
            if K == 1:
                grown = jax.tree.map(lambda a: a[None], tie_rule(jax.tree.map(lambda a: a[0], grown)))
            else:
                grown = jax.vmap(tie_rule)(grown)
        G, H = grown.node_stats[..., 0], grown.node_stats[..., 1]  # (K, M)
        value = -_soft_threshold(G, alpha) / (H + lam) * eta
        score = _soft_threshold(G, alpha) ** 2 / (H + lam)
        left, right = jnp.maximum(grown.children_left, 0), jnp.maximum(grown.children_right, 0)
        take = lambda a, i: jnp.take_along_axis(a, i, axis=1)
        gain = jnp.where(grown.children_left >= 0, take(score, left) + take(score, right) - score, 0)
        trees = jax.vmap(B.make_tree, in_axes=(0, 0, None, None, 0, None, None))(grown, value, edges, n_features, H,
                                                                                None, categorical)
        # the engine routed every training row to its leaf (row_node): no second pass
        f = f + take(trees.value[..., 0], grown.row_node).T
        if has_eval:
            leaf = jax.vmap(lambda tr: B.route_codes(tr, ecodes_T, max_depth, n_bins))(trees)
            fe = fe + take(trees.value[..., 0], leaf).T
        return trees, gain, f, fe, clamped, buffers

    def body(carry, t):
        f, fe, es, clamped, buffers = carry

        def skip(t, f, fe, buffers):
            trees, gain, _, _, _, _ = jax.eval_shape(new_trees, t, f, fe, buffers)
            trees = B.empty_tree_like(jax.tree.map(lambda s: jnp.zeros(s.shape, s.dtype), trees))
            return trees, jnp.zeros(gain.shape, gain.dtype), f, fe, jnp.asarray(False), buffers

        live = t < n_rounds
        run = live if patience is None else live & ~es.stop
        trees, gain, f, fe, c, buffers = jax.lax.cond(run, new_trees, skip, t, f, fe, buffers)
        train = _mean(_row_losses(loss, y, f, vector), sw, axis_name)
        ev = _mean(_row_losses(loss, ey, fe, vector), ew) if has_eval else jnp.asarray(jnp.nan, dtype)
        nan = jnp.asarray(jnp.nan, dtype)
        out = (trees, gain, jnp.where(run, train, nan), jnp.where(run, ev, nan))
        _progress.emit(progress, t, *((train, ev) if has_eval else (train,)), live=run)  # verbose > 0
        if patience is not None:  # the rounds past n_rounds leave the state as it is
            es = jax.tree.map(partial(jnp.where, live), early_stopping_update(es, ev, patience=patience), es)
        return (f, fe, es, clamped | c, buffers), out

    f0 = jnp.broadcast_to(base, (n, K)).astype(dtype)
    fe0 = jnp.broadcast_to(base, (ecodes_T.shape[1], K)).astype(dtype)
    buffers = histogram_buffers(n_features, n_bins, 2, W, dtype, axis_name=axis_name)
    if K > 1:  # one set per tree of a round (vmapped)
        buffers = jax.tree.map(lambda b: jnp.broadcast_to(b, (K,) + b.shape), buffers)
    carry0 = (f0, fe0, early_stopping_init(dtype), jnp.asarray(False), buffers)
    (_, _, es, clamped, _), (trees, gain, train_loss, eval_loss) = jax.lax.scan(
        body, carry0, jnp.arange(capacity))
    if patience is None:
        n_iter = jnp.asarray(n_rounds, jnp.int32)
        best = n_iter - 1
        converged = jnp.asarray(True)
    else:
        n_iter = es.n_iter
        best = jnp.maximum(es.best_iter, 0).astype(jnp.int32)
        converged = jnp.asarray(es.stop, bool)
    return (trees, base.astype(dtype), gain, train_loss, eval_loss, best, n_iter, converged), clamped


# --------------------------------------------------------------------------- checks
def _check_loss(loss):
    if callable(loss):
        return loss, None
    return _LOSSES[check_choice(loss, "loss", tuple(_LOSSES))], loss


def _check_targets(y, loss_name, n_samples, sw, n_classes, dtype, name="y"):
    if loss_name in ("log_loss", "softmax"):
        if n_classes is not None:
            n_classes = check_int(n_classes, "n_classes", low=2)
        y, n_classes = check_classification_targets(y, name, min_classes=1, n_classes=n_classes, sample_weight=sw)
        if loss_name == "log_loss" and n_classes > 2:
            # scikit-learn's log_loss is the multinomial deviance for K > 2 classes: xgboost's
            # multi:softprob, this module's "softmax" (issue 27: one name for one loss)
            loss_name = "softmax"
        if loss_name == "log_loss" and n_classes != 2:
            raise ValueError(f"loss='log_loss' needs {name} in {{0, 1}} (n_classes=2), got {n_classes} classes;"
                             " use loss='softmax'")
        y = as_operand(y, dtype) if loss_name == "log_loss" else y
        n_outputs = 1 if loss_name == "log_loss" else n_classes
    elif n_classes is not None:  # a callable vector loss: y as given (class codes)
        n_outputs = check_int(n_classes, "n_classes", low=2)
        y = jnp.asarray(check_array(y, name, ndim=(1, 2), numeric="any"))
    else:
        y = check_array(y, name, ndim=1, dtype=dtype)
        n_outputs = 1
    check_consistent_length(**{"X": np.empty((n_samples, 0)), name: y})
    return y, n_outputs, loss_name


def _check_eval_set(eval_set):
    if isinstance(eval_set, list):
        if not eval_set:
            raise ValueError("eval_set must be a tuple (X, y[, sample_weight]) or a non-empty list of them")
        eval_set = eval_set[-1]  # as xgboost: early stopping on the last one
    if not isinstance(eval_set, tuple) or len(eval_set) not in (2, 3):
        raise ValueError(f"eval_set must be a tuple (X, y[, sample_weight]), got {type(eval_set).__name__}")
    return eval_set if len(eval_set) == 3 else eval_set + (None,)


def fit_xgboost(
    X,
    y,
    *,
    loss="squared",
    n_estimators: int = 100,
    learning_rate=0.3,
    max_depth: int = 6,
    reg_lambda=1.0,
    reg_alpha=0.0,
    gamma=0.0,
    min_child_weight=1.0,
    subsample=1.0,
    colsample_bytree: float = 1.0,
    max_bin: int = 256,
    base_score=None,
    n_classes: int | None = None,
    eval_set=None,
    early_stopping_rounds: int | None = None,
    verbose: int = 0,
    sample_weight=None,
    key=None,
    categorical_features=None,
) -> XGBoostParams:
    r"""Fit an XGBoost model: second-order boosting of depth-limited histogram trees.

    Objective, leaf weights, gains, losses, intercept and early stopping: module docstring.

    Parameters
    ----------
    X : array-like (n_samples, n_features)
        Raw features; NaN = missing.
    y : array-like (n_samples,)
        Real targets (``squared``), class codes 0/1 (``log_loss``) or 0..K-1 (``softmax``;
        ``log_loss`` on K > 2 classes is the softmax, as scikit-learn's ``log_loss`` is the
        multinomial deviance there); NaN is an error.
    loss : {"squared", "log_loss", "softmax"} or callable (static)
        A callable ``loss(y_i, f_i) -> scalar`` of one sample (g, h by autodiff).
    n_estimators : int >= 1
        Rounds; the program is built for its bucket (``bagging.estimator_capacity``;
        :mod:`jaxclassic.ensemble._boosting`, "Rounds and programs").
    learning_rate : float > 0 (traced)
        :math:`\eta`.
    max_depth : int >= 1 (static)
    reg_lambda, reg_alpha, gamma, min_child_weight : float >= 0 (traced)
        :math:`\lambda`, :math:`\alpha`, ``min_split_loss``, least :math:`H` per child.
    subsample : float in (0, 1] (traced; 1 is static: no sampling)
        Share of rows per round (drawn from ``key``).
    colsample_bytree : float in (0, 1] (static)
        Share of features per tree (drawn from ``key``).
    max_bin : int in 2..256 (static)
        Bins per feature (xgboost's ``max_bin``: its sketch's cut points). With a missing
        value in ``X`` the engine gets ``max_bin + 2`` bins (codes uint16), so that the
        splits of the missing values from all the others are thresholds too.
    base_score : float or (K,) array, optional
        The intercept (module docstring); None: estimated from the data.
    n_classes : int, optional (static)
        ``softmax`` (inferred from ``y`` if not given), or the score length of a callable
        vector loss.
    eval_set : tuple ``(X, y)`` or ``(X, y, sample_weight)``, or a list of them (the last is used)
        Monitored each round (``eval_loss``).
    early_stopping_rounds : int >= 1, optional (static)
        Patience on the eval loss (needs ``eval_set``).
    verbose : int >= 0, default=0 (static)
        0: silent (the program has no callback). ``k > 0``: a tqdm bar of the rounds and, every
        ``k`` rounds and after the last, an xgboost-style line ``[t]\ttrain-<metric>:<value>``
        (and ``valid-<metric>`` with ``eval_set``; the metric is xgboost's default of the loss:
        rmse, logloss, mlogloss; ``loss`` for a callable loss), sent from inside the compiled
        rounds (:mod:`jaxclassic._progress`; one fit: under ``vmap`` each round is reported once).
    sample_weight : array-like (n_samples,), optional
        Rows of weight 0 have no influence (they take no part in the cut points either: the
        fit equals xgboost's on the rows of positive weight). Traced (``jit`` / ``vmap``, e.g.
        over cross-validation fold weights): the same sketch runs on the host through
        :func:`jax.pure_callback`, once per weight vector, so a vmapped fit equals the loop.
    key : jax.random key, optional (keyword-only)
        The draws of ``subsample < 1`` and ``colsample_bytree < 1`` (unused otherwise). None:
        the fixed key ``jax.random.key(0)``, so a call is deterministic (same key, same model).
    categorical_features : None, (n_features,) bool or integer indices, optional
        Features whose values are category codes ``0..max_bin - 1`` (NaN: missing), split by
        sets of categories: the best prefix of the node's categories ordered by
        :math:`G / (H + \lambda)` (LightGBM's and scikit-learn's HistGradientBoosting's
        partition; xgboost's own ``enable_categorical`` searches alike). A category unseen in a
        node goes where the node sends missing values. None: every feature numeric (the
        program without it). Models with categorical splits are not exported to xgboost.

    Returns
    -------
    XGBoostParams or XGBoostClassifierParams
        One function for both tasks, as the algorithm is shared: the task follows from
        ``loss`` (``"log_loss"`` / ``"softmax"`` classify, the others regress), so there is
        no separate ``task=``. ``n_iter`` is the number of rounds run and ``converged``
        whether the fit ended by its own stopping rule: True when early stopping triggered
        (the eval loss did not improve for ``early_stopping_rounds`` rounds), or with no
        early stopping (a fixed number of rounds is the whole algorithm); False when
        ``early_stopping_rounds`` was given and all ``n_estimators`` rounds ran without it
        triggering (more rounds might still help).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.arange(8.0)[:, None]; y = np.array([0., 0, 0, 0, 1, 1, 1, 1])
    >>> params = fit_xgboost(X, y, n_estimators=1, learning_rate=1.0, max_depth=1, reg_lambda=0.0,
    ...                      min_child_weight=0.0, base_score=0.5)
    >>> predict(params, X).tolist()  # split at xgboost's cut 4.0: left iff x < 4
    [0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0]
    >>> predict(params, np.array([[3.9999], [4.0]])).tolist()
    [0.0, 1.0]

    References
    ----------
    Chen & Guestrin, KDD 2016 (eqs. 5-7); Friedman 2001.
    """
    # jax.grad / jax.jvp through this fit raise a TypeError naming it (issue 14)
    X, y, sample_weight, learning_rate, reg_lambda, reg_alpha, gamma, min_child_weight, subsample = (
        nondifferentiable("fit_xgboost", a, reason=_NO_DERIVATIVE) if is_traced(a) else a
        for a in (X, y, sample_weight, learning_rate, reg_lambda, reg_alpha, gamma, min_child_weight, subsample))
    loss_fn, loss_name = _check_loss(loss)
    n_estimators, max_depth = B.check_boosting_args(n_estimators, learning_rate, max_depth, subsample)
    for name, value in (("reg_lambda", reg_lambda), ("reg_alpha", reg_alpha), ("gamma", gamma),
                        ("min_child_weight", min_child_weight)):
        check_scalar(value, name, low=0.0)
    check_scalar(colsample_bytree, "colsample_bytree", low=0.0, high=1.0, include_low=False)
    max_bin = check_int(max_bin, "max_bin", low=2, high=256)
    verbose = _progress.check_verbose(verbose)
    if early_stopping_rounds is not None:
        early_stopping_rounds = check_int(early_stopping_rounds, "early_stopping_rounds", low=1)
        if eval_set is None:
            raise ValueError("early_stopping_rounds needs an eval_set")
    Xc = check_array(X, "X", allow_nan=True)
    n_samples, n_features = Xc.shape
    dtype = Xc.dtype
    sw = check_sample_weight(sample_weight, n_samples, dtype=dtype)
    y, n_outputs, target_loss = _check_targets(y, loss_name, n_samples, sw, n_classes, dtype)
    if target_loss != loss_name:  # log_loss on K > 2 classes: the softmax (multinomial deviance)
        loss_fn, loss_name = _LOSSES[target_loss], target_loss
    n_colsample = max(1, math.floor(float(colsample_bytree) * n_features)) if not is_traced(colsample_bytree) else n_features
    use_subsample = is_traced(subsample) or float(subsample) < 1.0
    key = key_from_seed(0) if key is None else check_key(key)
    # xgboost's own cut points (its weighted quantile sketch), as "x <= edge" bounds in our
    # dtype (_xgb_cuts.cut_edges: with missing values, two more bins hold xgboost's splits of
    # the missing values from all the others); a missing value anywhere needs the engine's
    # missing bin, and then its max_bin + 2 bins
    X_host = on_host(Xc)  # numpy: no eager program
    has_missing = is_traced(Xc) or bool(np.isnan(X_host).any() if X_host is not None else jnp.any(jnp.isnan(Xc)))
    if is_traced(Xc) or is_traced(sw):
        edges = traced_cut_edges(Xc, sw, max_bin)
    else:
        edges = to_device(cut_edges(np.asarray(Xc), max_bin, None if sample_weight is None else np.asarray(sw),
                                    dtype))
    n_bins = max_bin + 2 if has_missing else max_bin
    engine_edges = edges if has_missing else _first_columns(edges, max_bin - 1)  # no missing value: the cuts alone
    codes = apply_bins(Xc, engine_edges)
    categorical = check_categorical_features(categorical_features, n_features)
    if categorical is not None:
        codes = categorical_codes(Xc, codes, categorical, max_bin, n_bins)
    if not has_missing:  # the split search scores one missing side (engine); codes fit a byte
        codes = as_operand(codes, jnp.uint8)
    if eval_set is not None:
        Xe, ye, we = _check_eval_set(eval_set)
        Xe = check_predict_X(Xe, dtype, n_features, name="eval_set X", allow_nan=True).astype(dtype)
        we = check_sample_weight(we, Xe.shape[0], dtype=dtype)
        ye, *_ = _check_targets(ye, loss_name, Xe.shape[0], we, n_outputs if n_outputs > 1 else
                               (2 if loss_name == "log_loss" else None), dtype, name="eval_set y")
        ecodes = apply_bins(Xe, engine_edges)
        if categorical is not None:
            ecodes = categorical_codes(Xe, ecodes, categorical, max_bin, n_bins)
    else:
        ecodes, ye, we = (_first_rows(a) for a in (codes, y, sw))
    if base_score is None:
        base = _default_base_score(loss_name, y, sw, n_outputs, dtype)
    else:
        base = jnp.asarray(check_scalar(base_score, "base_score", allow_array=True), dtype)
        if loss_name == "log_loss":
            check_scalar(base_score, "base_score", low=0.0, high=1.0, include_low=False, include_high=False)
            base = jnp.log(base) - jnp.log1p(-base)
        base = jnp.broadcast_to(base.reshape(-1), (n_outputs,))
    hyper = {k: as_operand(v, dtype) for k, v in dict(
        learning_rate=learning_rate, reg_lambda=reg_lambda, reg_alpha=reg_alpha, gamma=gamma,
        min_child_weight=min_child_weight, subsample=subsample).items()}
    args = (transposed(codes), y, sw, transposed(ecodes), ye, we, edges, base, hyper, key, n_estimators, categorical)
    statics = dict(
        loss=loss_fn, vector=n_outputs > 1, doubled=loss_name == "softmax", n_outputs=n_outputs,
        capacity=B.estimator_capacity(n_estimators), max_depth=max_depth, n_bins=n_bins, n_colsample=n_colsample,
        use_subsample=use_subsample, has_eval=eval_set is not None, patience=early_stopping_rounds,
        has_missing=has_missing)
    progress = _progress.boosting_spec(verbose, "fit_xgboost", loss_name, eval_set is not None)
    if progress is not None:  # verbose=0 calls the program compiled without reporting
        statics["progress"] = progress
    mesh = None if categorical is not None else _cores.row_mesh(n_samples, X, y, sw, *jax.tree.leaves(hyper))
    with _progress.reporting(progress, n_estimators):
        if mesh is None:
            out, clamped = _program(*args, **statics)
        else:  # the CPU's cores as devices (opt-in): each builds the histograms of its rows
            out, clamped = _cores.run_split(_program, mesh, args, {0: 1, 1: 0, 2: 0}, statics)
    trees, base, gain, train_loss, eval_loss, best, n_iter, converged = out
    trees, gain, train_loss, eval_loss = B.first_rounds((trees, gain, train_loss, eval_loss), n_estimators)
    B.warn_if_clamped(clamped)
    cls = XGBoostClassifierParams if loss_name in ("log_loss", "softmax") else XGBoostParams
    return cls(trees, base, gain, train_loss, eval_loss, best, n_iter, converged, bin_edges=edges)


# --------------------------------------------------------------------------- prediction
#: the fields of XGBoostParams stacked by round (padded to a bucket for prediction)
_ROUND_FIELDS = ("trees", "split_gain", "train_loss", "eval_loss")


@_jit.jit
def _margin(trees, base_score, best_iteration, X):
    """``base_score`` plus the trees' scores of the rounds up to ``best_iteration`` (of the
    stacked, padded rounds): ``(n, K)``."""
    return base_score + B.tree_scores(trees, X, best_iteration + 1)


def _decision_function(params, X):
    """Raw scores (margins): ``(n,)`` for one output, ``(n, K)`` for a softmax / vector loss."""
    X = check_predict_X(X, params.bin_edges.dtype, params.bin_edges.shape[0], allow_nan=True)
    m = _margin(B.padded_trees(params.trees), params.base_score, params.best_iteration, X)
    return _first_column(m) if m.shape[1] == 1 else m


@_jit.jit
def _first_column(m):
    return m[:, 0]


def _first_columns(a, k):
    """``a[:, :k]``, on the host for a concrete CPU array (an eager slice is a program)."""
    host = on_host(a)
    return a[:, :k] if host is None else to_device(host[:, :k])


def _first_rows(a):
    """``a[:1]``, on the host for a concrete CPU array."""
    host = on_host(a)
    return a[:1] if host is None else to_device(host[:1])


def _predict_regression(params, X):
    """The raw score (the prediction of a squared-error model)."""
    return _decision_function(params, X)


def _predict_proba(params, X):
    """Class probabilities ``(n, C)``: ``[1 - σ(F), σ(F)]`` (log-loss) or ``softmax(F)``."""
    return _proba_of_margin(_decision_function(params, X))


@_jit.jit
def _proba_of_margin(m):
    if m.ndim == 1:
        p = jax.nn.sigmoid(m)
        return jnp.stack([1 - p, p], axis=1)
    return jax.nn.softmax(m, axis=1)


def _predict_class(params, X):
    """The class of largest probability (class codes, int32)."""
    return jnp.argmax(_predict_proba(params, X), axis=1).astype(jnp.int32)


def _feature_importances(params, importance_type="gain", normalize=True):
    r"""xgboost's importances over the rounds run (``Booster.get_score``):

    * ``"weight"``: number of splits on the feature;
    * ``"gain"`` / ``"total_gain"``: average / total split gain;
    * ``"cover"`` / ``"total_cover"``: average / total cover :math:`H` of the split nodes.

    ``normalize`` (default) divides by the sum, as ``XGBRegressor.feature_importances_``;
    unused features get 0.
    """
    check_choice(importance_type, "importance_type", ("weight", "gain", "total_gain", "cover", "total_cover"))
    return _importances_program(B.pad_rounds(params, _ROUND_FIELDS), params.trees.feature.shape[0],
                                importance_type, bool(normalize))


@partial(_jit.jit, static_argnames=("importance_type", "normalize"))
def _importances_program(params, n_rounds, importance_type, normalize):
    # one program (eagerly, each of the dozen steps below compiled on its own per shape); the
    # rounds past n_rounds are the padding of pad_rounds
    trees = params.trees
    n_features = params.bin_edges.shape[0]
    live = (jnp.arange(trees.feature.shape[0]) < n_rounds).reshape((-1,) + (1,) * (trees.feature.ndim - 1))
    internal = (trees.children_left >= 0) & live
    feat = jnp.where(internal, trees.feature, n_features).reshape(-1)
    add = lambda v: jnp.zeros((n_features,), params.split_gain.dtype).at[feat].add(v.reshape(-1), mode="drop")
    weight = add(internal.astype(params.split_gain.dtype))
    if importance_type == "weight":
        imp = weight
    else:
        src = params.split_gain if "gain" in importance_type else trees.weighted_n_node_samples
        imp = add(jnp.where(internal, src, 0))
        if not importance_type.startswith("total"):
            imp = jnp.where(weight > 0, imp / jnp.where(weight > 0, weight, 1), 0)
    if normalize:
        total = jnp.sum(imp)
        imp = jnp.where(total > 0, imp / jnp.where(total > 0, total, 1), 0)
    return imp


predict.register(XGBoostParams, _predict_regression)
predict.register(XGBoostClassifierParams, _predict_class)
predict_proba.register(XGBoostClassifierParams, _predict_proba)
decision_function.register(XGBoostParams, _decision_function)
feature_importances.register(XGBoostParams, _feature_importances)
