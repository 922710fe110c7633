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
"""

from __future__ import annotations

import warnings

import jax
import jax.numpy as jnp

from jaxclassic.tree._params import RegressionTree
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
]

#: Hessians at or below 0 are raised to this floor (a non-convex user loss).
HESSIAN_FLOOR = 1e-6


class HessianClampedWarning(UserWarning):
    """A loss had a Hessian <= 0 at some training row; it was raised to ``HESSIAN_FLOOR``."""


def tree_depth(max_nodes: int) -> int:
    """``D`` of a complete budget ``M = 2^(D+1) - 1``."""
    return (int(max_nodes) + 1).bit_length() - 2


def make_tree(grown, value, edges, n_features, weight, bin_ranges=None):
    """A :class:`RegressionTree` (``value (M, 1)``) from the engine's ``Grown`` and node values.

    ``weight`` fills ``weighted_n_node_samples`` (the summed weights, or for gradient-pair
    trees the cover :math:`\\sum w h`). The raw thresholds: with ``bin_ranges`` (``(bin_min,
    bin_max)``, :func:`~jaxclassic.tree.binning.bin_ranges`) scikit-learn's midpoints of the
    node's adjacent values (:func:`~jaxclassic.tree.binning.split_points`; gradient
    boosting); without, ``edges[feature, threshold_bin]``, the cut point itself (the XGBoost
    family's convention, and the codes-only streaming fit).
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
        nxt = jnp.where(left, tree.children_left[node], tree.children_right[node])
        return jnp.where(tree.children_left[node] >= 0, nxt, node)

    return jax.lax.fori_loop(0, depth, step, jnp.zeros((X.shape[0],), jnp.int32))


def tree_scores(trees, X, n_use):
    """``(n, K)`` sum over the rounds ``t < n_use`` of the ``K`` trees' values at each row's leaf."""
    depth = tree_depth(trees.feature.shape[-1])
    K = trees.feature.shape[1]
    X = X.astype(trees.threshold.dtype)

    def one(tree):
        return tree.value[route_raw(tree, X, depth), 0]

    def step(acc, tk):
        t, trees_t = tk
        s = jax.vmap(one, out_axes=1)(trees_t)  # (n, K)
        return acc + jnp.where(t < n_use, s, 0), None

    T = trees.feature.shape[0]
    acc, _ = jax.lax.scan(step, jnp.zeros((X.shape[0], K), trees.value.dtype), (jnp.arange(T), trees))
    return acc


def subsample_weights(key, sample_weight, subsample, enabled: bool):
    """Bernoulli(``subsample``) row selection of one round as weights (``w ⊙ 1[u < subsample]``)."""
    if not enabled:
        return sample_weight
    keep = jax.random.uniform(key, sample_weight.shape, sample_weight.dtype) < subsample
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
