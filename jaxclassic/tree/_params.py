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
* a missing value (NaN, or the missing bin code) goes left iff ``missing_left[t]``;
* at a split of a categorical feature (``categorical[feature[t]]``), the row's value is a
  category code and it goes left iff ``left_categories[t, code]``; a code the fit never saw
  in the node (nor in the training data: a category unseen at fit time, a code outside
  ``0..B-1``, a non-integer) goes where the node sends missing values.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

__all__ = ["TreeParams", "ClassificationTree", "RegressionTree", "in_left_set", "has_categories"]


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
    categorical : (F,) bool, or (0,) when every feature is numeric
        The features whose values are category codes (fits with ``categorical_features``);
        an empty array otherwise (the default: older files and numeric fits; a pytree leaf
        all the same, so the tree's structure is one whatever the fit).
    left_categories : (M, B) bool, or (0, 0) when every feature is numeric
        At a categorical split, the category codes ``0..B-1`` that go left (row ``t``); its
        ``threshold`` is then ``nan``. :func:`has_categories` tells the two apart.
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
    categorical: jax.Array = np.zeros((0,), bool)
    left_categories: jax.Array = np.zeros((0, 0), bool)


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


def has_categories(tree) -> bool:
    """Whether ``tree`` (one tree or stacked trees) has categorical splits to route by
    (``left_categories`` of a positive last dimension; static: a shape)."""
    cats = getattr(tree, "left_categories", None)
    return cats is not None and np.shape(cats)[-1] > 0


def in_left_set(left_categories, node, x, missing_left):
    """Whether category ``x`` (a float code) goes left at ``node``: ``left_categories[node, x]``
    for a code ``0..B-1``, else (NaN, negative, too large, not an integer) ``missing_left``."""
    n_codes = left_categories.shape[-1]
    valid = (x >= 0) & (x < n_codes) & (x == jnp.round(x))
    code = jnp.clip(jnp.where(valid, x, 0), 0, n_codes - 1).astype(jnp.int32)
    return jnp.where(valid, left_categories[node, code], missing_left)
