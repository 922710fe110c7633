r"""Drawings of trees: the dendrogram of a hierarchical clustering and a fitted decision tree
(CART, ID3, C4.5).

Both are laid out the same way: leaves at equally spaced positions in the order of a
depth-first walk (first child first), every internal node centred over its children.

References
----------
D. Müllner, "Modern hierarchical, agglomerative clustering algorithms", arXiv:1109.2378
(the linkage matrix); SciPy's ``scipy.cluster.hierarchy.dendrogram`` (the layout: leaves at
``5, 15, 25, ...``).
Breiman, Friedman, Olshen, Stone, *Classification and Regression Trees*, 1984;
scikit-learn's ``sklearn.tree.plot_tree``.
"""

from __future__ import annotations

import numpy as np

from jaxclassic.plot._common import as_numpy, axes, colours, fitted_params, names
from jaxclassic.tree._params import RegressionTree, TreeParams
from jaxclassic.validation import check_choice, check_int, check_scalar

__all__ = ["dendrogram", "tree"]


# --------------------------------------------------------------------------- dendrogram
def _check_linkage(Z) -> np.ndarray:
    if hasattr(Z, "children_") or hasattr(Z, "fit"):  # an estimator, not its linkage matrix
        raise TypeError(f"Z must be a linkage matrix ((n - 1, 4) array: "
                        f"jaxclassic.cluster.fit_agglomerative(...).linkage_matrix "
                        f"or scipy.cluster.hierarchy.linkage), got the estimator {type(Z).__name__}")
    Z = as_numpy(Z, "Z", ndim=2)
    if Z.shape[1] != 4:
        raise ValueError(f"Z must have 4 columns (a linkage matrix), got shape {Z.shape}")
    n = Z.shape[0] + 1
    ids = Z[:, :2]
    if np.any(ids != np.round(ids)) or np.any(ids < 0):
        raise ValueError("Z[:, :2] must hold non-negative integer cluster ids")
    ids = ids.astype(np.int64)
    if np.any(ids >= n + np.arange(n - 1)[:, None]):
        raise ValueError("Z[i, :2] must name rows of X (< n) or earlier merges (< n + i)")
    if np.unique(ids).size != ids.size:
        raise ValueError("Z merges a cluster twice: every id must occur once in Z[:, :2]")
    return Z


def _dendrogram_layout(Z: np.ndarray):
    """Leaf order, and the ``(4, 2)`` polyline ``[x, height]`` of every merge (SciPy's icoord /
    dcoord: leaves at ``5 + 10 k``, a merge centred over its two children)."""
    n = Z.shape[0] + 1
    left, right = Z[:, 0].astype(np.int64), Z[:, 1].astype(np.int64)
    order, stack = [], [2 * n - 2]
    while stack:  # iterative depth-first walk: a chained single linkage is n deep
        node = stack.pop()
        if node < n:
            order.append(node)
        else:
            stack.extend((right[node - n], left[node - n]))
    x = np.zeros(2 * n - 1)
    height = np.zeros(2 * n - 1)
    x[np.asarray(order)] = 5.0 + 10.0 * np.arange(n)
    links = np.empty((n - 1, 4, 2))
    for i in range(n - 1):  # children always precede their merge
        a, b = left[i], right[i]
        x[n + i], height[n + i] = (x[a] + x[b]) / 2, Z[i, 2]
        links[i] = [[x[a], height[a]], [x[a], Z[i, 2]], [x[b], Z[i, 2]], [x[b], height[b]]]
    return np.asarray(order), links


def _link_colours(Z: np.ndarray, x_of_merge: np.ndarray, threshold: float, above) -> list:
    """SciPy's ``color_threshold`` rule: each maximal subtree whose merges all lie below
    ``threshold`` gets the next colour of ``C1..C9`` (left to right, cycling); merges at or
    above it get ``above``."""
    n = Z.shape[0] + 1
    height = Z[:, 2]
    parent = np.full(2 * n - 1, -1)
    parent[Z[:, 0].astype(np.int64)] = n + np.arange(n - 1)
    parent[Z[:, 1].astype(np.int64)] = n + np.arange(n - 1)
    root = np.full(n - 1, -1)
    for i in range(n - 2, -1, -1):  # parents before children
        if height[i] < threshold:
            up = parent[n + i]
            root[i] = i if up < 0 or height[up - n] >= threshold else root[up - n]
    roots = sorted(set(root[root >= 0].tolist()), key=lambda i: x_of_merge[i])
    palette = {r: f"C{1 + k % 9}" for k, r in enumerate(roots)}
    return [palette[r] if r >= 0 else above for r in root]


def dendrogram(Z, *, labels=None, ax=None, orientation: str = "top", cut_height=None,
               color="C0", color_threshold=None, leaf_rotation=90.0):
    r"""The dendrogram of a linkage matrix: every merge drawn as a ⊓ at its height.

    Row ``i`` of :math:`Z` (:func:`jaxclassic.cluster.fit_agglomerative`'s ``linkage_matrix``, SciPy's layout) joins
    clusters ``Z[i, 0]`` and ``Z[i, 1]`` at height :math:`d_i = Z[i, 2]` into cluster
    :math:`n + i`. Leaves sit at :math:`x = 5, 15, 25, \dots` in the order of a depth-first
    walk from the root taking ``Z[i, 0]`` first; a merge is drawn at the midpoint of its
    children. These are SciPy's coordinates (``scipy.cluster.hierarchy.dendrogram``'s
    ``icoord``, ``dcoord`` and ``ivl``), drawn here without SciPy. Cutting the tree at a
    height :math:`h` gives the flat clusters of
    :func:`~jaxclassic.cluster.cut_tree` with ``distance=h``.

    Parameters
    ----------
    Z : (n - 1, 4) array
        The linkage matrix.
    labels : sequence of n str, optional
        Leaf labels (default the row numbers), shown in leaf order.
    ax : matplotlib Axes, optional
    orientation : {"top", "left"}
        Root at the top (heights on the y axis, leaves along x) or at the left (heights on a
        reversed x axis, leaves along y).
    cut_height : float, optional
        Draw the cut at this height as a dashed line.
    color : colour
        Colour of the links (with ``color_threshold``: of the links at or above it).
    color_threshold : float, optional
        SciPy's rule: every maximal subtree whose merges all lie below this height gets its
        own colour (``C1``, ``C2``, ... left to right), so the flat clusters of a cut at this
        height stand out.
    leaf_rotation : float
        Rotation of the leaf labels in degrees.

    Returns
    -------
    matplotlib Axes
        ``ax.collections[0]`` holds one 4-point segment per merge, ``(x, height)`` for
        ``"top"`` (``(height, x)`` for ``"left"``); the leaf tick labels are in leaf order.

    Example
    -------
    >>> import numpy as np
    >>> Z = np.array([[0.0, 1.0, 1.0, 2.0], [2.0, 3.0, 2.0, 2.0], [4.0, 5.0, 4.0, 4.0]])
    >>> from matplotlib.figure import Figure
    >>> ax = dendrogram(Z, ax=Figure().add_subplot())
    >>> ax.collections[0].get_segments()[2].tolist()
    [[10.0, 1.0], [10.0, 4.0], [30.0, 4.0], [30.0, 2.0]]

    References
    ----------
    Müllner (2011); ESL §14.3.12, Figure 14.12.
    """
    Z = _check_linkage(Z)
    check_choice(orientation, "orientation", ("top", "left"))
    if cut_height is not None:
        check_scalar(cut_height, "cut_height", low=0.0)
    if color_threshold is not None:
        check_scalar(color_threshold, "color_threshold", low=0.0)
    n = Z.shape[0] + 1
    leaf_names = names(labels, n, "labels", "{}")
    order, links = _dendrogram_layout(Z)
    ax = axes(ax)
    from matplotlib.collections import LineCollection

    top = orientation == "top"
    if color_threshold is not None:
        color = _link_colours(Z, links[:, 1, 0] / 2 + links[:, 2, 0] / 2, float(color_threshold), color)
    ax.add_collection(LineCollection(links if top else links[:, :, ::-1], colors=color))
    ticks = 5.0 + 10.0 * np.arange(n)
    tick_labels = [leaf_names[k] for k in order]
    span = (0.0, 10.0 * n)
    reach = (0.0, 1.05 * float(max(Z[:, 2].max(), 0.0) or 1.0))
    if top:
        ax.set_xticks(ticks, labels=tick_labels, rotation=leaf_rotation)
        ax.set_xlim(*span)
        ax.set_ylim(*reach)
        ax.set_ylabel("height")
        if cut_height is not None:
            ax.axhline(cut_height, color="grey", linestyle="--")
    else:
        ax.set_yticks(ticks, labels=tick_labels)
        ax.set_ylim(*span)
        ax.set_xlim(reach[1], reach[0])  # root at the left, leaves at the right
        ax.set_xlabel("height")
        if cut_height is not None:
            ax.axvline(cut_height, color="grey", linestyle="--")
    return ax


# --------------------------------------------------------------------------- decision trees
def _tree_layout(branches, max_depth):
    """Nodes to draw (depth-first, first branch first) with ``(x, depth)``; leaves at 0, 1, 2...

    ``branches(node)`` lists ``(branch, child)`` of an internal node and ``[]`` at a leaf;
    an internal node at ``max_depth`` is cut (drawn as ``(...)``)."""
    position, depth, shown, cut = {}, {}, [], set()
    next_leaf = 0
    stack = [(0, 0, False)]
    while stack:  # iterative post-order: a node is placed after its children
        node, d, expanded = stack.pop()
        below = branches(node)
        if expanded:
            xs = [position[c] for _, c in below]
            position[node] = (min(xs) + max(xs)) / 2
            continue
        shown.append(node)
        depth[node] = d
        if not below or (max_depth is not None and d >= max_depth):
            if below:
                cut.add(node)
            position[node] = float(next_leaf)
            next_leaf += 1
            continue
        stack.append((node, d, True))
        stack.extend((c, d + 1, False) for _, c in reversed(below))
    return shown, position, depth, cut, next_leaf


def _cart_view(params, feature_names, decimals):
    """``branches``, node texts and edge labels of a CART tree (``export_text``'s wording)."""
    left = np.asarray(params.children_left)
    if left.ndim != 1:
        raise ValueError(f"params must be one tree (1-d node arrays), got children_left of shape "
                         f"{left.shape} (a forest or boosted ensemble: draw one tree of it)")
    right = np.asarray(params.children_right)
    feature, threshold = np.asarray(params.feature), np.asarray(params.threshold)
    is_leaf = np.asarray(params.is_leaf)
    features = names(feature_names, np.asarray(params.bin_edges).shape[0], "feature_names", "feature_{}")

    def branches(t):
        return [] if is_leaf[t] or left[t] < 0 else [(0, int(left[t])), (1, int(right[t]))]

    def split_text(t):
        return f"{features[feature[t]]} <= {threshold[t]:.{decimals}f}"

    return branches, split_text, lambda t, b: None


def _multiway_view(params, feature_names, category_names, decimals):
    """``branches``, node texts and edge labels of an ID3 / C4.5 tree (Quinlan's wording)."""
    from jaxclassic.tree.export import _level_names, _number

    feature, children = np.asarray(params.feature), np.asarray(params.children)
    is_leaf = np.asarray(params.is_leaf)
    n_categories = np.asarray(params.n_categories)
    threshold = np.asarray(getattr(params, "threshold", np.full(feature.shape, np.nan)))
    features = names(feature_names, n_categories.shape[0], "feature_names", "x{}")
    levels = _level_names(category_names, features, n_categories)

    def branches(t):
        return [] if is_leaf[t] else [(b, int(c)) for b, c in enumerate(children[t]) if c >= 0]

    def edge_label(t, b):
        if np.isnan(threshold[t]):
            return f"= {levels[feature[t]][b]}"
        return f"{'<=' if b == 0 else '>'} {_number(threshold[t], decimals)}"

    return branches, lambda t: features[feature[t]], edge_label


def _counts_text(counts: np.ndarray, decimals: int) -> str:
    """``[50, 0, 0]`` (integral counts, as scikit-learn prints unit weights) or ``[1.25, ...]``."""
    if np.all(np.abs(counts - np.round(counts)) < 1e-6 * np.maximum(1.0, np.abs(counts))):
        return "[" + ", ".join(str(int(round(float(c)))) for c in counts) + "]"
    return "[" + ", ".join(f"{c:.{decimals}f}" for c in counts) + "]"


def _cart_text(params, t, split_text, criterion, classes, decimals) -> str:
    """One CART node in ``plot_tree``'s wording: test, impurity, samples, value, class."""
    value = np.asarray(params.value)[t]
    lines = [] if split_text is None else [split_text(t)]
    lines.append(f"{criterion} = {float(np.asarray(params.impurity)[t]):.{decimals}f}")
    lines.append(f"samples = {int(np.asarray(params.n_node_samples)[t])}")
    if classes is None:
        lines.append(f"value = {float(value[0]):.{decimals}f}")
    else:
        weight = float(np.asarray(params.weighted_n_node_samples)[t])
        lines.append(f"value = {_counts_text(value * weight, decimals)}")
        lines.append(f"class = {classes[int(np.argmax(value))]}")
    return "\n".join(lines)


def tree(params, *, feature_names=None, class_names=None, category_names=None, ax=None,
         decimals: int = 2, max_depth=None, fontsize=8, cmap: str = "tab10"):
    r"""Draw a fitted decision tree: tests at the internal nodes, predictions at the leaves.

    CART (:func:`~jaxclassic.tree.fit_cart`): a node :math:`t` with split feature
    :math:`j_t` and threshold :math:`s_t` sends a row left when :math:`x_{j_t} \le s_t`
    (the left child is drawn on the left); internal nodes read ``name <= s``, in the
    wording of :func:`jaxclassic.tree.export_text`. ID3 / C4.5 (:func:`~jaxclassic.tree.fit_id3`,
    :func:`~jaxclassic.tree.fit_c45`): internal nodes read the tested feature's name and
    every branch is labelled by its test (``= category`` of a multiway split, ``<= s`` /
    ``> s`` of a C4.5 threshold), as Quinlan prints them. Every node also reads
    ``samples = n`` (training rows of positive weight reaching it); leaves read ``class: c``
    (the largest weighted class fraction, the box in the class's colour) or ``value: v``
    (regression).

    A CART node reads as in scikit-learn's ``sklearn.tree.plot_tree``: its test (internal
    nodes), its impurity named by the fit's criterion (``gini = 0.667``: an estimator's
    ``criterion``; ``impurity = ...`` for bare params, which do not record it), ``samples = n``,
    ``value = [...]`` (the weighted class counts :math:`w_t p_{tk}`, integers under unit
    weights, as scikit-learn prints them) or ``value = v`` (regression), and ``class = c``
    (the largest count; classification); leaves are filled in their class's colour.

    Parameters
    ----------
    params : ClassificationTree, RegressionTree, ID3Params or C45Params, or a fitted estimator
        The params of a fit, or a fitted ``DecisionTreeClassifier``, ``DecisionTreeRegressor``,
        ``ID3Classifier`` or ``C45Classifier`` (its ``params_`` are drawn).
    feature_names : sequence of str, optional
        Default an estimator's ``feature_names_in_`` (fitted on a DataFrame), else
        ``feature_0, ...`` (CART) or ``x0, ...`` (ID3 / C4.5), as ``export_text``.
    class_names : sequence of str, optional
        Default an estimator's ``classes_``, else the class codes.
    category_names : dict or sequence, optional
        ID3 / C4.5: level names of the categorical features, as ``export_text``'s
        (``load_play_tennis().categories`` gives them).
    ax : matplotlib Axes, optional
    decimals : int >= 0
        Digits of thresholds and values.
    max_depth : int >= 0, optional
        Draw nodes down to this depth; a deeper subtree is a ``(...)`` box.
    fontsize : float
    cmap : str
        Colormap of the classes.

    Returns
    -------
    matplotlib Axes
        ``ax.texts``: one box per drawn node, depth-first (root first, first branch first),
        then (ID3 / C4.5) one label per drawn edge; ``ax.collections[0]``: one segment per
        edge, parent to child.

    Example
    -------
    >>> import numpy as np
    >>> from matplotlib.figure import Figure
    >>> from jaxclassic.tree import fit_cart
    >>> X = np.array([[0.0, 5.0], [1.0, 4.0], [2.0, 4.0], [3.0, 5.0]])
    >>> ax = tree(fit_cart(X, np.array([0, 0, 1, 1])), ax=Figure().add_subplot())
    >>> ax.texts[0].get_text().splitlines()
    ['feature_0 <= 1.50', 'impurity = 0.50', 'samples = 4', 'value = [2, 2]', 'class = 0']

    References
    ----------
    Breiman et al. (1984); Quinlan, *C4.5: Programs for Machine Learning* (1993);
    scikit-learn's ``plot_tree``.
    """
    from jaxclassic.tree.c45 import C45Params
    from jaxclassic.tree.id3 import ID3Params

    decimals = check_int(decimals, "decimals", low=0)
    if max_depth is not None:
        max_depth = check_int(max_depth, "max_depth", low=0)
    params, estimator = fitted_params(params)
    if estimator is not None:  # its own names of the columns and classes, unless given
        if feature_names is None:
            feature_names = getattr(estimator, "feature_names_in_", None)
        if class_names is None:
            class_names = getattr(estimator, "classes_", None)
    if isinstance(params, TreeParams):
        branches, split_text, edge_label = _cart_view(params, feature_names, decimals)
    elif isinstance(params, (ID3Params, C45Params)):
        branches, split_text, edge_label = _multiway_view(params, feature_names, category_names, decimals)
    else:
        raise TypeError("params must be a fitted decision tree (ClassificationTree or RegressionTree "
                        "of fit_cart, ID3Params, C45Params, or a fitted tree estimator), got "
                        f"{type(params).__name__}")
    value = np.asarray(params.value)
    samples = np.asarray(params.n_node_samples)
    regression = isinstance(params, RegressionTree)
    cart = isinstance(params, TreeParams)
    criterion = getattr(estimator, "criterion", None) if cart else None
    criterion = criterion if isinstance(criterion, str) else "impurity"
    classes = None if regression else names(class_names, value.shape[1], "class_names", "{}")
    palette = colours(1 if regression else value.shape[1], cmap)

    shown, position, depth, cut, n_leaves = _tree_layout(branches, max_depth)
    ax = axes(ax)
    from matplotlib.collections import LineCollection

    drawn_edges = [(t, b, c) for t in shown if t not in cut for b, c in branches(t)]
    ax.add_collection(LineCollection(
        [[(position[t], -depth[t]), (position[c], -depth[c])] for t, _, c in drawn_edges],
        colors="grey", linewidths=1, zorder=1))
    for t in shown:
        if t in cut:
            text, colour = "(...)", "white"
        elif cart:
            text, colour = _cart_text(params, t, split_text if branches(t) else None, criterion, classes,
                                      decimals), "white"
            if not branches(t):
                colour = palette[0] if regression else palette[int(np.argmax(value[t]))]
        elif branches(t):
            text, colour = f"{split_text(t)}\nsamples = {samples[t]}", "white"
        elif regression:
            text = f"value: {value[t, 0]:.{decimals}f}\nsamples = {samples[t]}"
            colour = palette[0]
        else:
            k = int(np.argmax(value[t]))
            text = f"class: {classes[k]}\nsamples = {samples[t]}"
            colour = palette[k]
        ax.text(position[t], -depth[t], text, ha="center", va="center", fontsize=fontsize,
                zorder=2, bbox=dict(boxstyle="round", facecolor=colour, edgecolor="k", alpha=0.9))
    for t, b, c in drawn_edges:
        label = edge_label(t, b)
        if label is not None:
            ax.text((position[t] + position[c]) / 2, -(depth[t] + depth[c]) / 2, label, ha="center",
                    va="center", fontsize=0.9 * fontsize, zorder=3,
                    bbox=dict(boxstyle="square,pad=0.1", facecolor="white", edgecolor="none"))
    deepest = max(depth.values())
    ax.set_xlim(-0.6, n_leaves - 0.4)
    ax.set_ylim(-deepest - 0.6, 0.6)
    ax.set_axis_off()
    return ax
