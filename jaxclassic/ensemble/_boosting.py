r"""Pieces shared by the boosting fits (:mod:`~jaxclassic.ensemble.gradient_boosting`,
:mod:`~jaxclassic.ensemble.xgboost`): stacked trees, their routing, row subsampling, the
Hessian floor and the common argument checks.

A boosted model holds its trees **stacked**: every field of a
:class:`~jaxclassic.tree._params.TreeParams` gets two leading axes ``(n_estimators, K)``
(``K`` trees per round: one per class of a softmax model, else one), so the whole ensemble is
one pytree of fixed shape, produced by one ``lax.scan`` over the rounds and sliced by
``jax.tree.map(lambda a: a[t, k], trees)`` into an ordinary tree (``tree.predict`` works on
the slice). Each stacked tree's ``bin_edges`` is an empty ``(F, 0)`` placeholder (it keeps
``n_features``); the edges of the one binning live once in the model's params.

Prediction routes the rows of raw ``X`` through every tree with the package's routing rule
(:mod:`jaxclassic.tree._params`: left iff :math:`x \le` threshold, NaN by ``missing_left``)
in ``max_depth`` gather steps per tree, accumulating ``(n, K)`` scores in a ``lax.scan``
over the rounds (memory :math:`O(nK)`, not :math:`O(nTK)`).

Rounds and programs. ``n_estimators`` is the scan's length, a shape, so it is bucketed
(DESIGN.md, "Static vs traced"): the fit's program runs :math:`T_{cap}` =
:func:`~jaxclassic.ensemble.bagging.estimator_capacity` ``(T)`` steps (the next power of
two, at least 16: 1..16, 17..32, 33..64, ... share one program) and skips the steps
:math:`t \ge T` (a ``lax.cond`` on the traced ``T``: no tree grown, the carry unchanged,
outputs of zeros), which :func:`first_rounds` cuts off on the host. The rounds are sequential,
so the steps run are exactly those of a program of ``T`` steps: the fitted arrays are the
same to the bit. Prediction pads the stacked rounds on the host to :math:`T_{cap}`
(:func:`pad_rounds`) and skips the padding the same way (:func:`tree_scores`), adding exact
zeros nowhere. So a refit with another ``n_estimators`` of the bucket builds no new program,
a new bucket three (fit, prediction, importances); before, every new value built three
(gradient boosting, XGBoost) or five (AdaBoost: its importances and its sum ran eagerly).
A skipped step costs a scan iteration (microseconds); the padded outputs cost
:math:`T_{cap}/T` times the trees' memory during the fit.
"""

from __future__ import annotations

import warnings

import jax
import jax.numpy as jnp
import numpy as np

from jaxclassic.ensemble.bagging import _host_pad, _host_slice, _padded_members, estimator_capacity
from jaxclassic.tree._params import RegressionTree
from jaxclassic.tree._params import has_categories
from jaxclassic.tree._params import in_left_set as _in_left_set
from jaxclassic.tree.binning import split_points
from jaxclassic.validation import check_int, check_scalar, default_float_dtype

__all__ = [
    "HESSIAN_FLOOR",
    "HessianClampedWarning",
    "make_tree",
    "route_codes",
    "route_raw",
    "tree_scores",
    "subsample_weights",
    "clamp_hessian",
    "check_boosting_args",
    "tree_depth",
    "pad_rounds",
    "padded_trees",
    "first_rounds",
]

#: Hessians at or below 0 are raised to this floor (a non-convex user loss).
HESSIAN_FLOOR = 1e-6


class HessianClampedWarning(UserWarning):
    """A loss had a Hessian <= 0 at some training row; it was raised to ``HESSIAN_FLOOR``."""


def tree_depth(max_nodes: int) -> int:
    """``D`` of a complete budget ``M = 2^(D+1) - 1``."""
    return (int(max_nodes) + 1).bit_length() - 2


def make_tree(grown, value, edges, n_features, weight, bin_ranges=None, categorical=None):
    """A :class:`RegressionTree` (``value (M, 1)``) from the engine's ``Grown`` and node values.

    ``weight`` fills ``weighted_n_node_samples`` (the summed weights, or for gradient-pair
    trees the cover :math:`\\sum w h`). The raw thresholds: with ``bin_ranges`` (``(bin_min,
    bin_max)``, :func:`~jaxclassic.tree.binning.bin_ranges`) scikit-learn's midpoints of the
    node's adjacent values (:func:`~jaxclassic.tree.binning.split_points`; gradient
    boosting); without, ``edges[feature, threshold_bin]``, the cut point itself (the XGBoost
    family's convention, and the codes-only streaming fit). ``categorical`` ``(F,)`` bool (a
    growth with categorical features): the tree's ``categorical`` and ``left_categories``,
    and ``nan`` thresholds at its categorical splits.
    """
    dtype = value.dtype
    used = jnp.arange(value.shape[0]) < grown.n_nodes
    internal = grown.children_left >= 0
    if bin_ranges is None:
        f, b = jnp.maximum(grown.feature, 0), jnp.maximum(grown.threshold_bin, 0)
        threshold = jnp.where(internal, edges[f, b], jnp.nan).astype(dtype)
    else:
        feature = jnp.where(internal, grown.feature, -1)
        threshold = split_points(feature, grown.left_bin, grown.right_bin, *bin_ranges).astype(dtype)
    count = grown.node_stats[:, -1]
    cats = {}
    if categorical is not None:
        at_cat = internal & categorical[jnp.maximum(grown.feature, 0)]
        threshold = jnp.where(at_cat, jnp.nan, threshold)
        cats = dict(categorical=categorical, left_categories=grown.left_categories & at_cat[:, None])
    return RegressionTree(
        children_left=grown.children_left,
        children_right=grown.children_right,
        feature=grown.feature,
        threshold_bin=grown.threshold_bin,
        threshold=threshold,
        missing_left=grown.missing_left,
        value=jnp.where(used, value, 0)[:, None],
        impurity=jnp.zeros_like(value),
        n_node_samples=jnp.round(count).astype(jnp.int32),
        weighted_n_node_samples=jnp.where(used, weight, 0).astype(dtype),
        is_leaf=grown.is_leaf,
        n_nodes=grown.n_nodes,
        bin_edges=jnp.zeros((n_features, 0), edges.dtype),
        **cats,
    )


def empty_tree_like(tree):
    """A tree of the same shapes with one leaf of value 0 (a round skipped by early stopping)."""
    M = tree.feature.shape[-1]
    root = jnp.arange(M) == 0
    neg = jnp.full(tree.feature.shape, -1, jnp.int32)
    return tree._replace(
        children_left=neg, children_right=neg, feature=neg, threshold_bin=neg,
        threshold=jnp.full(tree.threshold.shape, jnp.nan, tree.threshold.dtype),
        missing_left=jnp.zeros_like(tree.missing_left), value=jnp.zeros_like(tree.value),
        impurity=jnp.zeros_like(tree.impurity), n_node_samples=jnp.zeros_like(tree.n_node_samples),
        weighted_n_node_samples=jnp.zeros_like(tree.weighted_n_node_samples),
        is_leaf=jnp.broadcast_to(root, tree.is_leaf.shape), n_nodes=jnp.ones_like(tree.n_nodes),
    )


def route_codes(tree, codes_T, depth: int, n_bins: int):
    """Leaf of every row of binned ``codes_T (F, m)`` in one tree (``depth`` gather steps):
    left iff ``code <= threshold_bin``, the missing bin by ``missing_left``."""
    n_rows = codes_T.shape[1]
    flat = codes_T.reshape(-1)
    rows = jnp.arange(n_rows)

    def step(_, node):
        f = jnp.maximum(tree.feature[node], 0)
        code = flat[f * n_rows + rows].astype(jnp.int32)
        left = jnp.where(code == n_bins, tree.missing_left[node], code <= tree.threshold_bin[node])
        if has_categories(tree):  # categorical splits: the code in the node's left set
            in_set = tree.left_categories[node, jnp.minimum(code, tree.left_categories.shape[-1] - 1)]
            left = jnp.where((code < n_bins) & tree.categorical[f], in_set, left)
        nxt = jnp.where(left, tree.children_left[node], tree.children_right[node])
        return jnp.where(tree.children_left[node] >= 0, nxt, node)

    return jax.lax.fori_loop(0, depth, step, jnp.zeros((n_rows,), jnp.int32))


def route_raw(tree, X, depth: int):
    """Leaf of every row of raw ``X (n, F)`` in one tree: left iff :math:`x \\le` threshold,
    NaN by ``missing_left`` (the routing rule of :mod:`jaxclassic.tree._params`)."""
    rows = jnp.arange(X.shape[0])

    def step(_, node):
        x = X[rows, jnp.maximum(tree.feature[node], 0)]
        left = jnp.where(jnp.isnan(x), tree.missing_left[node], x <= tree.threshold[node])
        if has_categories(tree):  # categorical splits: the code in the node's left set
            left = jnp.where(tree.categorical[jnp.maximum(tree.feature[node], 0)],
                             _in_left_set(tree.left_categories, node, x, tree.missing_left[node]), left)
        nxt = jnp.where(left, tree.children_left[node], tree.children_right[node])
        return jnp.where(tree.children_left[node] >= 0, nxt, node)

    return jax.lax.fori_loop(0, depth, step, jnp.zeros((X.shape[0],), jnp.int32))


def tree_scores(trees, X, n_use):
    """``(n, K)`` sum over the rounds ``t < n_use`` (traced) of the ``K`` trees' values at each
    row's leaf; the later rounds cost no routing (``lax.cond``)."""
    depth = tree_depth(trees.feature.shape[-1])
    K = trees.feature.shape[1]
    X = X.astype(trees.threshold.dtype)

    def one(tree):
        return tree.value[route_raw(tree, X, depth), 0]

    def step(acc, tk):
        t, trees_t = tk
        # the rounds from n_use on (an early stop, a bucket's padding) are skipped, not routed
        return jax.lax.cond(t < n_use, lambda acc: acc + jax.vmap(one, out_axes=1)(trees_t), lambda acc: acc,
                            acc), None

    T = trees.feature.shape[0]
    acc, _ = jax.lax.scan(step, jnp.zeros((X.shape[0], K), trees.value.dtype), (jnp.arange(T), trees))
    return acc


def pad_rounds(params, fields=("trees", "train_loss"), zeros=()):
    """``params`` with its per-round ``fields`` (stacked on a leading axis of ``T`` rounds)
    padded on the host to :func:`~jaxclassic.ensemble.bagging.estimator_capacity` ``(T)``
    rounds: repeats of the last round (which the callers leave out by a traced round count),
    or zeros for the fields named in ``zeros`` (weights of the rounds); so that one program
    predicts for every ``T`` of a bucket. Traced params as they are."""
    if any(isinstance(a, jax.core.Tracer) for a in jax.tree.leaves(params)):
        return params
    capacity = estimator_capacity(jax.tree.leaves(getattr(params, fields[0]))[0].shape[0])

    def zero_pad(a):
        a = np.asarray(a)
        return np.concatenate([a, np.zeros((capacity - a.shape[0],) + a.shape[1:], a.dtype)])

    return params._replace(**{f: _host_pad(getattr(params, f), capacity) for f in fields},
                           **{f: jax.tree.map(zero_pad, getattr(params, f)) for f in zeros})


#: the fields of a stacked tree that routing and the leaf values read
ROUTE_FIELDS = ("children_left", "children_right", "feature", "threshold", "missing_left", "value")


def padded_trees(trees, fields=ROUTE_FIELDS):
    """The stacked trees ``(T, ...)`` padded on the host to their bucket
    (``bagging.estimator_capacity``; repeats of the last round, skipped by the callers), only
    ``fields`` copied (the others empty), kept for the next prediction
    (``bagging._padded_members``); traced trees as they are."""
    if any(isinstance(a, jax.core.Tracer) for a in jax.tree.leaves(trees)):
        return trees
    if has_categories(trees):
        fields = tuple(fields) + ("categorical", "left_categories")
    return _padded_members(trees, estimator_capacity(trees.feature.shape[0]), fields)


def first_rounds(tree, n_rounds: int):
    """The first ``n_rounds`` entries of every leaf of ``tree`` (stacked rounds): sliced on the
    host for concrete arrays (an eager ``a[:n]`` lowers a program per ``n``), by ``jax`` in a
    trace."""
    if any(isinstance(a, jax.core.Tracer) for a in jax.tree.leaves(tree)):
        return jax.tree.map(lambda a: a[:n_rounds], tree)
    return _host_slice(tree, n_rounds)


def subsample_weights(key, sample_weight, subsample, enabled: bool, axis_name=None):
    """Bernoulli(``subsample``) row selection of one round as weights (``w ⊙ 1[u < subsample]``).

    ``axis_name``: inside ``shard_map`` with the rows split evenly over that mesh axis, each
    device's block of the draws of all the rows (the same selection as on one device)."""
    if not enabled:
        return sample_weight
    if axis_name is None:
        u = jax.random.uniform(key, sample_weight.shape, sample_weight.dtype)
    else:
        n_local = sample_weight.shape[0]
        u = jax.random.uniform(key, (n_local * jax.lax.axis_size(axis_name),), sample_weight.dtype)
        u = jax.lax.dynamic_slice_in_dim(u, jax.lax.axis_index(axis_name) * n_local, n_local)
    keep = u < subsample
    return jnp.where(keep, sample_weight, 0)


def clamp_hessian(h, weight):
    """``h`` with every value ``<= 0`` raised to :data:`HESSIAN_FLOOR`, and whether a row of
    positive weight needed it (a loss that is not strictly convex there)."""
    bad = (h <= 0) & (weight > 0).reshape(weight.shape + (1,) * (h.ndim - weight.ndim))
    return jnp.where(h > 0, h, jnp.asarray(HESSIAN_FLOOR, h.dtype)), jnp.any(bad)


def warn_if_clamped(clamped, stacklevel=3):
    if not isinstance(clamped, jax.core.Tracer) and bool(clamped):
        warnings.warn(
            f"the loss's Hessian was <= 0 at some training rows; it was raised to "
            f"{HESSIAN_FLOOR:g} there (the Newton leaf values -G/(H+lambda) need H > 0)",
            HessianClampedWarning, stacklevel=stacklevel,
        )


def check_boosting_args(n_estimators, learning_rate, max_depth, subsample):
    """The checks every boosting fit shares (before tracing); returns the static ints."""
    n_estimators = check_int(n_estimators, "n_estimators", low=1)
    check_scalar(learning_rate, "learning_rate", low=0.0, include_low=False)
    max_depth = check_int(max_depth, "max_depth", low=1)
    check_scalar(subsample, "subsample", low=0.0, high=1.0, include_low=False)
    return n_estimators, max_depth


def float_dtype_of(X):
    """The fit's float dtype: ``X``'s when floating, else the package default."""
    dt = getattr(X, "dtype", None)
    if dt is not None and jnp.issubdtype(dt, jnp.floating):
        return jnp.dtype(dt)
    return jnp.dtype(default_float_dtype())
