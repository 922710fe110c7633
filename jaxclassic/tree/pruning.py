r"""Minimal cost-complexity (weakest-link) pruning of a CART tree (choosing α by K-fold CV:
:mod:`jaxclassic.tree.ccp_selection`).

For a tree :math:`T` with leaves :math:`\tilde T` and a complexity parameter
:math:`\alpha \ge 0`, the cost-complexity measure is (Breiman et al. 1984, §3.3)

.. math::

    R_\alpha(T) = R(T) + \alpha\,|\tilde T|, \qquad
    R(T) = \sum_{t \in \tilde T} R(t), \qquad R(t) = \frac{W_t}{W}\, i(t),

with :math:`W_t` the weight of the training rows reaching node :math:`t`
(``weighted_n_node_samples``), :math:`W = W_{\text{root}}` and :math:`i(t)` the node's
impurity under the fit's criterion (gini, entropy, or the weighted variance for
squared error), exactly as scikit-learn defines :math:`R(t)`. For every α there is a unique
smallest subtree :math:`T(\alpha)` minimising :math:`R_\alpha`, and these subtrees are nested.
Weakest-link pruning finds them: for each internal node :math:`t` of the current tree, with
:math:`T_t` the branch rooted at :math:`t`,

.. math::

    g(t) = \frac{R(t) - R(T_t)}{|\tilde T_t| - 1},

is the α at which collapsing :math:`t` to a leaf stops costing anything. The node of least
:math:`g` (the weakest link; ties to the lowest node index, as scikit-learn) is collapsed,
:math:`R(T_s)` and :math:`|\tilde T_s|` of its ancestors :math:`s` are updated, and this
repeats until the root is a leaf. The sequence of collapsed nodes' :math:`g` is the path
``ccp_alphas`` (with a leading 0), and ``impurities`` holds :math:`R(T)` after each collapse.

:func:`prune` returns :math:`T(\alpha)`: scikit-learn's ``ccp_alpha`` rule collapses links
while the next weakest :math:`g \le \alpha`, so node :math:`t` becomes a leaf iff its
*effective* α — the running maximum of the path up to the step that collapses :math:`t`,
stored per node in :attr:`CostComplexityPath.node_alphas` — is :math:`\le \alpha` (plain
:math:`g(t) \le \alpha` per node is **not** the same rule: :math:`g` of an ancestor changes
as its branch is pruned). Given ``node_alphas``, pruning is a jittable mask in JAX.

Where the computation runs. The path is sequential and its length depends on the data, like
scikit-learn's ``_cost_complexity_prune``; it runs on the host in numpy (float64), each
step vectorised over the nodes, so the cost is :math:`O(M \cdot n_{\text{prunes}})` for
:math:`M` node slots. Routing rows through the tree (re-estimating node statistics on other
data) and pruning at α are jitted JAX; pruning at a grid of α is a ``vmap``.

References
----------
L. Breiman, J. Friedman, R. Olshen and C. Stone, *Classification and Regression Trees*,
Wadsworth 1984, ch. 3 (§3.3 minimal cost-complexity pruning, §3.4 the 1-SE rule).
T. Hastie, R. Tibshirani and J. Friedman, *The Elements of Statistical Learning*, 2nd ed.,
§9.2.2 (cost-complexity pruning), §7.10 (K-fold CV and the one-standard-error rule).
scikit-learn user guide, "Minimal Cost-Complexity Pruning" (``sklearn/tree/_tree.pyx``,
``_cost_complexity_prune``).
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxclassic import _jit
from jaxclassic.tree._params import ClassificationTree, RegressionTree, TreeParams
from jaxclassic.validation import (
    check_array,
    check_choice,
    check_classification_targets,
    check_consistent_length,
    check_predict_X,
    check_sample_weight,
    check_scalar,
    is_traced,
)

__all__ = [
    "CostComplexityPath",
    "cost_complexity_path",
    "prune",
]

_CLASSIFICATION_CRITERIA = ("gini", "entropy", "log_loss", "misclassification")
_REGRESSION_CRITERIA = ("squared_error", "friedman_mse")


class CostComplexityPath(NamedTuple):
    """The weakest-link pruning sequence of a tree (scikit-learn's names).

    Attributes
    ----------
    ccp_alphas : (P + 1,) float
        0, then :math:`g` of the link collapsed at each of the ``P`` steps (scikit-learn's
        ``cost_complexity_pruning_path(...).ccp_alphas``; repeated values are tied links).
    impurities : (P + 1,) float
        :math:`R(T)` (sum of the leaves' :math:`R(t)`) of the tree after each step.
    node_alphas : (M,) float
        Per node slot, the effective α at which it becomes a leaf (the running maximum of
        ``ccp_alphas`` up to its step); ``inf`` for leaves, for nodes inside a branch that is
        collapsed whole, and for unused or unreachable slots. ``prune(params, a)`` collapses
        exactly the nodes with ``node_alphas <= a``.
    """

    ccp_alphas: jax.Array
    impurities: jax.Array
    node_alphas: jax.Array


def _check_params(params: Any, name: str = "params") -> None:
    if not isinstance(params, TreeParams):
        raise TypeError(
            f"{name} must be a fitted tree (ClassificationTree or RegressionTree), "
            f"got {type(params).__name__}"
        )


# ---------------------------------------------------------------------------------------
# routing rows through a tree (JAX)
# ---------------------------------------------------------------------------------------


def _step(params: TreeParams, X: jax.Array, node: jax.Array):
    """One level of routing: (is the row at a leaf, the child it goes to otherwise).

    The rule of ``_params.py``, as the engine's ``cart._route``, which only returns the
    leaf; :func:`_node_sums` needs every node of a row's path.
    """
    at_leaf = params.children_left[node] < 0
    x = jnp.take_along_axis(X, jnp.maximum(params.feature[node], 0)[:, None], axis=1)[:, 0]
    # the layout's rule (_params.py): left iff x <= threshold; NaN goes left iff missing_left
    left = jnp.where(jnp.isnan(x), params.missing_left[node], x <= params.threshold[node])
    child = jnp.where(left, params.children_left[node], params.children_right[node])
    return at_leaf, child


@_jit.jit
def _node_sums(params: TreeParams, X: jax.Array, stats: jax.Array) -> jax.Array:
    """Per node slot, the sum of ``stats`` (n, S) over the rows whose path passes through it."""
    n_slots = params.children_left.shape[0]

    def body(carry):
        node, done, acc = carry
        acc = acc + jax.ops.segment_sum(jnp.where(done[:, None], 0, stats), node, n_slots)
        at_leaf, child = _step(params, X, node)
        return jnp.where(at_leaf | done, node, child), done | at_leaf, acc

    init = (jnp.zeros(X.shape[0], jnp.int32), jnp.zeros(X.shape[0], bool),
            jnp.zeros((n_slots, stats.shape[1]), stats.dtype))
    _, _, acc = jax.lax.while_loop(lambda c: ~jnp.all(c[1]), body, init)
    return acc


def _reestimate(params: TreeParams, X, y, sample_weight, criterion: str) -> TreeParams:
    """Node statistics (value, impurity, weights, counts) recomputed from ``X, y`` routed
    through the tree; nodes no row reaches keep their value and get weight and impurity 0."""
    w = sample_weight
    if isinstance(params, ClassificationTree):
        n_classes = params.value.shape[1]
        onehot = jax.nn.one_hot(y, n_classes, dtype=X.dtype)
        stats = jnp.concatenate([onehot * w[:, None], w[:, None], (w > 0)[:, None].astype(X.dtype)], 1)
        sums = _node_sums(params, X, stats)
        counts, weight, n_pos = sums[:, :n_classes], sums[:, n_classes], sums[:, n_classes + 1]
        safe = jnp.where(weight > 0, weight, 1)
        frac = counts / safe[:, None]
        if criterion == "gini":
            impurity = 1.0 - jnp.sum(frac * frac, axis=1)
        elif criterion == "misclassification":
            impurity = 1.0 - jnp.max(frac, axis=1)
        else:  # entropy in bits, as scikit-learn's "entropy" / "log_loss"
            impurity = -jnp.sum(jnp.where(frac > 0, frac * jnp.log2(jnp.where(frac > 0, frac, 1)), 0), axis=1)
    else:
        stats = jnp.stack([w * y, w * y * y, w, (w > 0).astype(X.dtype)], 1)
        sums = _node_sums(params, X, stats)
        weight, n_pos = sums[:, 2], sums[:, 3]
        safe = jnp.where(weight > 0, weight, 1)
        mean = sums[:, 0] / safe
        # scikit-learn's MSE node impurity: sum(w y^2)/W - (sum(w y)/W)^2
        impurity = sums[:, 1] / safe - mean * mean
        frac = mean[:, None]
    reached = weight > 0
    dtype = params.impurity.dtype
    return params._replace(
        value=jnp.where(reached[:, None], frac, params.value).astype(params.value.dtype),
        impurity=jnp.where(reached, impurity, 0).astype(dtype),
        weighted_n_node_samples=weight.astype(params.weighted_n_node_samples.dtype),
        n_node_samples=n_pos.astype(params.n_node_samples.dtype),
    )


# ---------------------------------------------------------------------------------------
# the weakest-link sequence (host, numpy)
# ---------------------------------------------------------------------------------------


def _structure(children_left: np.ndarray, children_right: np.ndarray):
    """Parents, preorder positions and branch sizes of the nodes reachable from the root.

    Unreachable slots get parent -1, position -1 and size 0, so the interval tests
    "s is inside t's branch" (``pos[t] <= pos[s] < pos[t] + size[t]``) never select them.
    """
    n_slots = children_left.shape[0]
    parent = np.full(n_slots, -1, np.int64)
    pos = np.full(n_slots, -1, np.int64)
    size = np.zeros(n_slots, np.int64)
    order = []
    stack = [0]
    while stack:
        t = stack.pop()
        pos[t] = len(order)
        order.append(t)
        left, right = children_left[t], children_right[t]
        if left >= 0:
            parent[left] = parent[right] = t
            stack.append(right)
            stack.append(left)
    order = np.asarray(order, np.int64)
    size[order] = 1
    for t in order[::-1]:
        if parent[t] >= 0:
            size[parent[t]] += size[t]
    return parent, pos, size, order


def _weakest_link(children_left, children_right, weighted_n_node_samples, impurity):
    """scikit-learn's ``_cost_complexity_prune`` (same operations in the same order, so the
    same floats), vectorised over the nodes at each step: (ccp_alphas, impurities, node_alphas)."""
    children_left = np.asarray(children_left, np.int64)
    children_right = np.asarray(children_right, np.int64)
    weighted = np.asarray(weighted_n_node_samples, np.float64)
    impurity = np.asarray(impurity, np.float64)
    n_slots = children_left.shape[0]
    parent, pos, size, order = _structure(children_left, children_right)
    reachable = pos >= 0
    leaf = reachable & (children_left < 0)

    r_node = weighted * impurity / weighted[0]
    r_node[~reachable] = 0.0
    r_branch = np.zeros(n_slots)
    n_leaves = np.zeros(n_slots, np.int64)
    leaves = np.flatnonzero(leaf)
    r_branch[leaves] = r_node[leaves]
    # every leaf adds its R(t) to each ancestor, leaves in index order (scikit-learn's order)
    chain = [parent[leaves]]
    while (chain[-1] >= 0).any():
        chain.append(np.where(chain[-1] >= 0, parent[np.maximum(chain[-1], 0)], -1))
    ancestors = np.stack(chain, axis=1).ravel()
    valid = ancestors >= 0
    np.add.at(r_branch, ancestors[valid], np.repeat(r_node[leaves], len(chain))[valid])
    np.add.at(n_leaves, ancestors[valid], 1)

    candidate = reachable & ~leaf
    node_alphas = np.full(n_slots, np.inf)
    ccp_alphas, impurities = [0.0], [r_branch[0]]
    running = -np.inf
    denominator = np.maximum(n_leaves - 1, 1).astype(np.float64)
    while candidate[0]:
        g = np.where(candidate, (r_node - r_branch) / denominator, np.inf)
        weakest = int(np.argmin(g))  # first of the least: ties to the lowest index
        alpha = g[weakest]
        p, s = pos[weakest], size[weakest]
        candidate[(pos > p) & (pos < p + s)] = False  # the branch below goes
        candidate[weakest] = False
        n_pruned = n_leaves[weakest] - 1
        n_leaves[weakest] = 0
        r_diff = r_node[weakest] - r_branch[weakest]
        r_branch[weakest] = r_node[weakest]
        above = (pos >= 0) & (pos < p) & (pos + size > p)  # strict ancestors
        n_leaves[above] -= n_pruned
        r_branch[above] += r_diff
        denominator[above] = np.maximum(n_leaves[above] - 1, 1)
        running = max(running, alpha)
        node_alphas[weakest] = running
        ccp_alphas.append(alpha)
        impurities.append(r_branch[0])
    return np.asarray(ccp_alphas), np.asarray(impurities), node_alphas


def cost_complexity_path(
    params: TreeParams,
    X: Any = None,
    y: Any = None,
    sample_weight: Any = None,
    *,
    criterion: str | None = None,
) -> CostComplexityPath:
    r"""The minimal cost-complexity (weakest-link) pruning path of a fitted tree.

    Starting from the full tree, repeatedly collapse the internal node of least

    .. math::

        g(t) = \frac{R(t) - R(T_t)}{|\tilde T_t| - 1}, \qquad R(t) = \frac{W_t}{W}\,i(t),

    which traces the nested subtrees minimising :math:`R_\alpha(T) = R(T) + \alpha|\tilde T|`.
    Equals scikit-learn's ``cost_complexity_pruning_path`` on the same tree (same operations
    in the same order; ties go to the lowest node index). Runs on the host in numpy, each
    step vectorised over the ``M`` slots: :math:`O(M \cdot n_{\text{prunes}})`.

    Parameters
    ----------
    params : ClassificationTree or RegressionTree
        A fitted tree (``_params.py`` layout). Only nodes reachable from the root count.
    X : (n, F) array, optional
        Data to re-estimate the node statistics on. When given (with ``y``), every row is
        routed through the tree and each node's weight :math:`W_t`, count, value and
        impurity are recomputed from the rows that pass through it (nodes no row reaches get
        weight 0), so the path is that of the same tree structure *on other data*, e.g. a
        held-out set. Each node's value and impurity come from the new rows' own class
        fractions or mean, so :math:`g(t) \ge 0` on any data for every criterion (the
        impurities are concave: a node's :math:`R(t)` is at least its branch's), up to
        rounding (values like -1e-18). This departs from Breiman et al.'s test-sample
        estimate (§3.4), which scores the *training* predictions on the new rows, where a
        branch can be worse than its root. Without ``X`` the tree's stored statistics (those of its training data) are used.
    y : (n,) array, optional
        Class codes ``0..K-1`` (classification) or targets (regression); required with ``X``.
    sample_weight : (n,) array, optional
        Row weights for the re-estimation (ones by default); only used with ``X``.
    criterion : {"gini", "entropy", "log_loss", "misclassification", "squared_error", "friedman_mse"}, optional
        Impurity for the re-estimation; it must be the criterion the tree was grown with.
        Default: ``"gini"`` for a classification tree, ``"squared_error"`` for regression.
        Entropy is in bits, as scikit-learn.

    Returns
    -------
    CostComplexityPath
        ``ccp_alphas`` (P + 1,), ``impurities`` (P + 1,) and ``node_alphas`` (M,), in the
        float dtype of ``params.impurity``.

    Raises
    ------
    TypeError
        ``params`` is not a fitted tree.
    ValueError
        ``params`` is traced (the path needs concrete arrays), ``X`` without ``y``, a bad
        ``criterion``, or invalid ``X`` / ``y`` / ``sample_weight``.

    Examples
    --------
    A stump whose split lowers the gini impurity from 0.5 to 0 (two rows):

    >>> import numpy as np
    >>> from jaxclassic.tree._params import ClassificationTree
    >>> stump = ClassificationTree(
    ...     children_left=np.array([1, -1, -1]), children_right=np.array([2, -1, -1]),
    ...     feature=np.array([0, -1, -1]), threshold_bin=np.array([0, -1, -1]),
    ...     threshold=np.array([0.5, np.nan, np.nan]), missing_left=np.zeros(3, bool),
    ...     value=np.array([[0.5, 0.5], [1.0, 0.0], [0.0, 1.0]]),
    ...     impurity=np.array([0.5, 0.0, 0.0]), n_node_samples=np.array([2, 1, 1]),
    ...     weighted_n_node_samples=np.array([2.0, 1.0, 1.0]),
    ...     is_leaf=np.array([False, True, True]), n_nodes=np.array(3),
    ...     bin_edges=np.zeros((1, 1)))
    >>> path = cost_complexity_path(stump)
    >>> path.ccp_alphas.tolist(), path.impurities.tolist()
    ([0.0, 0.5], [0.0, 0.5])
    >>> int(prune(stump, 0.5).n_nodes)
    1

    References
    ----------
    Breiman et al. (1984), *Classification and Regression Trees*, §3.3 and §3.4.2 (test
    sample estimates); Hastie, Tibshirani & Friedman, *ESL* 2nd ed., §9.2.2; scikit-learn,
    ``DecisionTreeClassifier.cost_complexity_pruning_path``.
    """
    _check_params(params)
    if any(is_traced(leaf) for leaf in jax.tree_util.tree_leaves(params)):
        raise ValueError(
            "params must be concrete arrays: the pruning path is computed on the host "
            "(call cost_complexity_path outside jit/vmap)"
        )
    if X is not None or y is not None:
        if X is None or y is None:
            raise ValueError("X and y must be given together to re-estimate the node statistics")
        params = _reestimated(params, X, y, sample_weight, criterion)
    elif sample_weight is not None:
        raise ValueError("sample_weight is only used with X and y (re-estimation); got X=None")
    elif criterion is not None:
        _check_criterion(params, criterion)
    weighted = np.asarray(params.weighted_n_node_samples, np.float64)
    if not weighted[0] > 0:
        raise ValueError(f"params has root weight {weighted[0]}; the path needs a positive root weight")
    alphas, impurities, node_alphas = _weakest_link(
        np.asarray(params.children_left), np.asarray(params.children_right),
        weighted, np.asarray(params.impurity),
    )
    dtype = params.impurity.dtype
    return CostComplexityPath(
        jnp.asarray(alphas, dtype), jnp.asarray(impurities, dtype), jnp.asarray(node_alphas, dtype)
    )


def _check_criterion(params: TreeParams, criterion: str | None) -> str:
    if isinstance(params, ClassificationTree):
        return check_choice("gini" if criterion is None else criterion, "criterion", _CLASSIFICATION_CRITERIA)
    if isinstance(params, RegressionTree):
        return check_choice("squared_error" if criterion is None else criterion, "criterion", _REGRESSION_CRITERIA)
    raise TypeError(
        "params must be a ClassificationTree or a RegressionTree to re-estimate its node "
        f"statistics, got {type(params).__name__}"
    )


def _reestimated(params, X, y, sample_weight, criterion):
    """Validate ``X, y, sample_weight`` against the tree, then :func:`_reestimate`."""
    criterion = _check_criterion(params, criterion)
    X = check_predict_X(X, params.threshold.dtype, params.bin_edges.shape[0], allow_nan=True)
    sw = check_sample_weight(sample_weight, X.shape[0], dtype=X.dtype)
    if isinstance(params, ClassificationTree):
        y, _ = check_classification_targets(y, "y", min_classes=1, n_classes=params.value.shape[1])
    else:
        y = check_array(y, "y", ndim=1, dtype=X.dtype)
    check_consistent_length(X=X, y=y)
    return _reestimate(params, X, y, sw, criterion)


# ---------------------------------------------------------------------------------------
# pruning at α (JAX)
# ---------------------------------------------------------------------------------------


@_jit.jit
def _prune(params: TreeParams, node_alphas: jax.Array, ccp_alpha: jax.Array) -> TreeParams:
    """Collapse the nodes with ``node_alphas <= ccp_alpha``, drop what they cut off, renumber.

    Reachability is one pointer-jumping pass: after ``ceil(log2 M)`` doublings each node
    knows its chain's top and whether any strict ancestor was collapsed.
    """
    n_slots = params.children_left.shape[0]
    slots = jnp.arange(n_slots)
    internal = params.children_left >= 0
    collapse = internal & (node_alphas <= ccp_alpha)
    target = lambda c: jnp.where(internal, c, n_slots)  # noqa: E731
    parent = jnp.full(n_slots, -1).at[target(params.children_left)].set(slots, mode="drop")
    parent = parent.at[target(params.children_right)].set(slots, mode="drop")
    has_parent = parent >= 0
    pointer = jnp.where(has_parent, parent, slots)
    cut_above = has_parent & collapse[jnp.maximum(parent, 0)]
    for _ in range(max(1, math.ceil(math.log2(n_slots)))):
        cut_above = cut_above | cut_above[pointer]
        pointer = pointer[pointer]
    reachable = (pointer == 0) & ~cut_above
    leaf = reachable & (~internal | collapse)

    # renumber the reachable slots in order (parents stay before children), unused slots after
    new_index = jnp.cumsum(reachable) - 1
    dest = jnp.where(reachable, new_index, n_slots)

    def move(field, fill):
        return jnp.full_like(field, fill).at[dest].set(field, mode="drop")

    def child(c):
        return jnp.where(leaf | ~internal, -1, new_index[jnp.maximum(c, 0)]).astype(c.dtype)

    split = ~leaf
    return params._replace(
        children_left=move(child(params.children_left), -1),
        children_right=move(child(params.children_right), -1),
        feature=move(jnp.where(split, params.feature, -1), -1),
        threshold_bin=move(jnp.where(split, params.threshold_bin, -1), -1),
        threshold=move(jnp.where(split, params.threshold, jnp.nan), jnp.nan),
        missing_left=move(split & params.missing_left, False),
        value=move(params.value, 0),
        impurity=move(params.impurity, 0),
        n_node_samples=move(params.n_node_samples, 0),
        weighted_n_node_samples=move(params.weighted_n_node_samples, 0),
        is_leaf=move(leaf, False),
        n_nodes=jnp.sum(reachable).astype(params.n_nodes.dtype),
    )


def prune(params: TreeParams, ccp_alpha: Any, *, node_alphas: Any = None) -> TreeParams:
    r"""The smallest subtree :math:`T(\alpha)` minimising :math:`R(T) + \alpha|\tilde T|`.

    Node :math:`t` becomes a leaf iff its effective α (``node_alphas[t]``, see
    :class:`CostComplexityPath`) is :math:`\le` ``ccp_alpha``: the tree scikit-learn grows
    with ``ccp_alpha``, i.e. weakest links collapsed while the next least
    :math:`g(t) = (R(t) - R(T_t)) / (|\tilde T_t| - 1)` is :math:`\le \alpha`.

    A collapsed node keeps its own ``value`` and statistics and gets ``is_leaf`` True,
    children, ``feature`` and ``threshold_bin`` -1, ``threshold`` nan. The nodes still
    reachable from the root are renumbered in their original order (parents before
    children) into the first slots, and ``n_nodes`` becomes their number (scikit-learn's
    ``node_count`` of the pruned tree); the slots after it are unused (children and feature
    -1, ``is_leaf`` False, statistics 0). Shapes are unchanged.

    Parameters
    ----------
    params : ClassificationTree or RegressionTree
        A fitted tree.
    ccp_alpha : float >= 0
        The complexity parameter; may be traced (a grid of α is a ``vmap``).
    node_alphas : (M,) array, optional
        ``cost_complexity_path(params).node_alphas``. Computed here (on the host) when
        omitted; pass it to prune inside ``jit`` / ``vmap`` over ``params`` too.

    Returns
    -------
    ClassificationTree or RegressionTree
        The pruned tree, of the type and shapes of ``params``.

    Raises
    ------
    TypeError
        ``params`` is not a fitted tree, or ``ccp_alpha`` is not a real number.
    ValueError
        ``ccp_alpha < 0``; ``node_alphas`` of the wrong shape; ``node_alphas`` omitted with
        traced ``params``.

    Examples
    --------
    Pruning a stump (the tree of :func:`cost_complexity_path`'s example) over its path:

    >>> import jax, numpy as np
    >>> from jaxclassic.tree._params import ClassificationTree
    >>> stump = ClassificationTree(
    ...     children_left=np.array([1, -1, -1]), children_right=np.array([2, -1, -1]),
    ...     feature=np.array([0, -1, -1]), threshold_bin=np.array([0, -1, -1]),
    ...     threshold=np.array([0.5, np.nan, np.nan]), missing_left=np.zeros(3, bool),
    ...     value=np.array([[0.5, 0.5], [1.0, 0.0], [0.0, 1.0]]),
    ...     impurity=np.array([0.5, 0.0, 0.0]), n_node_samples=np.array([2, 1, 1]),
    ...     weighted_n_node_samples=np.array([2.0, 1.0, 1.0]),
    ...     is_leaf=np.array([False, True, True]), n_nodes=np.array(3),
    ...     bin_edges=np.zeros((1, 1)))
    >>> path = cost_complexity_path(stump)
    >>> pruned = jax.vmap(lambda a: prune(stump, a, node_alphas=path.node_alphas))(
    ...     np.array([0.0, 0.25, 0.5]))
    >>> pruned.n_nodes.tolist(), pruned.is_leaf[:, 0].tolist()
    ([3, 3, 1], [False, False, True])

    References
    ----------
    Breiman et al. (1984), *Classification and Regression Trees*, §3.3; Hastie, Tibshirani
    & Friedman, *ESL* 2nd ed., §9.2.2; scikit-learn's ``ccp_alpha`` (``_build_pruned_tree_ccp``).
    """
    _check_params(params)
    check_scalar(ccp_alpha, "ccp_alpha", low=0.0)
    n_slots = params.children_left.shape[0]
    if node_alphas is None:
        if any(is_traced(leaf) for leaf in jax.tree_util.tree_leaves(params)):
            raise ValueError(
                "node_alphas must be given when params are traced (inside jit/vmap): pass "
                "node_alphas=cost_complexity_path(params).node_alphas computed outside"
            )
        node_alphas = cost_complexity_path(params).node_alphas
    if jnp.shape(node_alphas) != (n_slots,):
        raise ValueError(f"node_alphas must have shape ({n_slots},), got {jnp.shape(node_alphas)}")
    dtype = params.impurity.dtype
    return _prune(params, jnp.asarray(node_alphas, dtype), jnp.asarray(ccp_alpha, dtype))
