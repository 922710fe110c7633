"""The array layout of a fitted binary CART tree, shared by growth, prediction, pruning and export.

A tree is a fixed budget of ``M`` node slots (static, so shapes never depend on the data);
node 0 is the root, nodes are numbered in order of creation (level by level), and slots past
``n_nodes`` are unused. Field names follow scikit-learn's ``tree_`` attributes where one
exists (``children_left``, ``children_right``, ``feature``, ``threshold``, ``value``,
``impurity``, ``n_node_samples``, ``weighted_n_node_samples``).

Departure from DESIGN.md's heap layout (``feature[2^D - 1]``): explicit children and a node
budget hold deep, unbalanced trees (``max_depth=None``) in ``O(n_nodes)`` instead of
``O(2^depth)``; a heap is the special case of a complete tree.

Routing rule (one for every consumer): at an internal node ``t`` a row goes **left** when

* its bin code ``<= threshold_bin[t]`` (binned data), or its raw value ``x <= threshold[t]``
  (raw data; ``threshold[t]`` lies between the node's largest training value left and its
  least right: scikit-learn's midpoint for CART and its ensembles,
  :func:`jaxclassic.tree.binning.split_points`; the upper edge of bin ``threshold_bin[t]``
  where the fit had codes only), and
* a missing value (NaN, or the missing bin code) goes left iff ``missing_left[t]``.
"""

from __future__ import annotations

from typing import NamedTuple

import jax

__all__ = ["TreeParams", "ClassificationTree", "RegressionTree"]


class TreeParams(NamedTuple):
    """A fitted binary tree (``M`` node slots, ``F`` features, ``K`` outputs).

    Attributes
    ----------
    children_left, children_right : (M,) int32
        Child slot of each node; ``-1`` at leaves and unused slots.
    feature : (M,) int32
        Split feature; ``-1`` at leaves and unused slots.
    threshold_bin : (M,) int32
        Bin code split point (left: ``code <= threshold_bin``); ``-1`` at leaves.
    threshold : (M,) float
        Raw-value split point (left: ``x <= threshold``); ``nan`` at leaves. Rows of a new
        ``X`` whose value falls between the node's training values on either side are routed
        by it alone (codes cannot tell them apart), so raw ``X`` is routed by ``threshold``.
    missing_left : (M,) bool
        Where missing values go at the node (the learned default side).
    value : (M, K) float
        Every node's prediction: weighted class fractions (classification, ``K = n_classes``)
        or the weighted mean (regression, ``K = 1``); internal nodes included (pruning).
    impurity : (M,) float
        The node's impurity under the fit's criterion (for gradient statistics, 0).
    n_node_samples : (M,) int32
        Training rows of positive weight reaching the node.
    weighted_n_node_samples : (M,) float
        Sum of the training weights reaching the node.
    is_leaf : (M,) bool
        True at leaves (False at internal and unused slots).
    n_nodes : () int32
        Number of slots in use.
    bin_edges : (F, E) float
        The binning's edges (``apply_bins``) so raw ``X`` can be routed by bin code too.
    """

    children_left: jax.Array
    children_right: jax.Array
    feature: jax.Array
    threshold_bin: jax.Array
    threshold: jax.Array
    missing_left: jax.Array
    value: jax.Array
    impurity: jax.Array
    n_node_samples: jax.Array
    weighted_n_node_samples: jax.Array
    is_leaf: jax.Array
    n_nodes: jax.Array
    bin_edges: jax.Array


class ClassificationTree(TreeParams):
    """A CART classification tree: ``value`` holds class fractions.

    ``n_classes`` (a read-only property, not a pytree leaf) is ``K``, the class axis of
    ``value`` (a static shape: a Python int, under ``jit`` and ``vmap`` too).
    """

    @property
    def n_classes(self) -> int:
        return int(self.value.shape[-1])


class RegressionTree(TreeParams):
    """A CART regression tree: ``value`` holds the mean (``K = 1``)."""
