r"""Drawings of trees: the dendrogram of a hierarchical clustering and a fitted CART tree.

Both are laid out the same way: leaves at equally spaced positions in the order of a
depth-first walk (left child first), every internal node centred over its two children.

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

from jaxclassic.plot._common import as_numpy, axes, colours, names
from jaxclassic.tree._params import RegressionTree, TreeParams
from jaxclassic.validation import check_choice, check_int, check_scalar

__all__ = ["dendrogram", "tree"]


# --------------------------------------------------------------------------- dendrogram
def _check_linkage(Z) -> np.ndarray:
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

    Row ``i`` of :math:`Z` (:func:`jaxclassic.cluster.agglomerative`, SciPy's layout) joins
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
        Root at the top (heights upwards) or at the left (heights to the left... drawn along x).
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


# --------------------------------------------------------------------------- CART tree
def _tree_layout(left, right, is_leaf, max_depth):
    """Nodes to draw (depth-first, left first) with ``(x, depth)``; leaves at 0, 1, 2..."""
    position, depth, shown, cut = {}, {}, [], set()
    next_leaf = [0]

    def place(node, d):
        shown.append(node)
        depth[node] = d
        if is_leaf[node] or left[node] < 0 or (max_depth is not None and d >= max_depth):
            if not (is_leaf[node] or left[node] < 0):
                cut.add(node)
            position[node] = float(next_leaf[0])
            next_leaf[0] += 1
            return
        place(int(left[node]), d + 1)
        place(int(right[node]), d + 1)
        position[node] = (position[int(left[node])] + position[int(right[node])]) / 2

    place(0, 0)
    return shown, position, depth, cut, next_leaf[0]


def tree(params, *, feature_names=None, class_names=None, ax=None, decimals: int = 2,
         max_depth=None, fontsize=8, cmap: str = "tab10"):
    r"""Draw a fitted CART tree: split rules at the internal nodes, predictions at the leaves.

    A node :math:`t` with split feature :math:`j_t` and threshold :math:`s_t` sends a row
    left when :math:`x_{j_t} \le s_t` (``params.threshold``; the left child is drawn on the
    left). Internal nodes read ``name <= s`` and ``samples = n``; leaves read
    ``class: c`` (the largest weighted class fraction, the box in the class's colour) or
    ``value: v`` (regression), and ``samples = n``. The text is the one of
    :func:`jaxclassic.tree.export_text`.

    Parameters
    ----------
    params : ClassificationTree or RegressionTree
        A :func:`~jaxclassic.tree.fit_cart` result (ID3 / C4.5 trees: use ``export_text``).
    feature_names : sequence of str, optional
        Default ``feature_0, feature_1, ...`` (as ``export_text``).
    class_names : sequence of str, optional
        Default the class codes.
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
        ``ax.texts``: one box per drawn node, depth-first (root first, left before right);
        ``ax.collections[0]``: one segment per edge, parent to child.

    Example
    -------
    >>> import numpy as np
    >>> from matplotlib.figure import Figure
    >>> from jaxclassic.tree import fit_cart
    >>> X = np.array([[0.0, 5.0], [1.0, 4.0], [2.0, 4.0], [3.0, 5.0]])
    >>> ax = tree(fit_cart(X, np.array([0, 0, 1, 1])), ax=Figure().add_subplot())
    >>> ax.texts[0].get_text().splitlines()[0]
    'feature_0 <= 1.50'

    References
    ----------
    Breiman et al. (1984); scikit-learn's ``plot_tree``.
    """
    if not isinstance(params, TreeParams):
        raise TypeError("params must be a CART tree (ClassificationTree or RegressionTree from "
                        f"fit_cart), got {type(params).__name__}; ID3 / C4.5 trees: export_text")
    decimals = check_int(decimals, "decimals", low=0)
    if max_depth is not None:
        max_depth = check_int(max_depth, "max_depth", low=0)
    left = np.asarray(params.children_left)
    if left.ndim != 1:
        raise ValueError(f"params must be one tree (1-d node arrays), got children_left of shape "
                         f"{left.shape} (a forest or boosted ensemble: draw one tree of it)")
    right = np.asarray(params.children_right)
    feature = np.asarray(params.feature)
    threshold = np.asarray(params.threshold)
    value = np.asarray(params.value)
    is_leaf = np.asarray(params.is_leaf)
    samples = np.asarray(params.n_node_samples)
    regression = isinstance(params, RegressionTree)
    features = names(feature_names, np.asarray(params.bin_edges).shape[0], "feature_names", "feature_{}")
    classes = None if regression else names(class_names, value.shape[1], "class_names", "{}")
    palette = colours(1 if regression else value.shape[1], cmap)

    shown, position, depth, cut, n_leaves = _tree_layout(left, right, is_leaf, max_depth)
    ax = axes(ax)
    from matplotlib.collections import LineCollection

    edges = [[(position[t], -depth[t]), (position[int(c)], -depth[int(c)])]
             for t in shown if t not in cut and not is_leaf[t] and left[t] >= 0
             for c in (left[t], right[t])]
    ax.add_collection(LineCollection(edges, colors="grey", linewidths=1, zorder=1))
    for t in shown:
        if t in cut:
            text, colour = "(...)", "white"
        elif not is_leaf[t] and left[t] >= 0:
            text = f"{features[feature[t]]} <= {threshold[t]:.{decimals}f}\nsamples = {samples[t]}"
            colour = "white"
        elif regression:
            text = f"value: {value[t, 0]:.{decimals}f}\nsamples = {samples[t]}"
            colour = palette[0]
        else:
            k = int(np.argmax(value[t]))
            text = f"class: {classes[k]}\nsamples = {samples[t]}"
            colour = palette[k]
        ax.text(position[t], -depth[t], text, ha="center", va="center", fontsize=fontsize,
                zorder=2, bbox=dict(boxstyle="round", facecolor=colour, edgecolor="k", alpha=0.9))
    deepest = max(depth.values())
    ax.set_xlim(-0.6, n_leaves - 0.4)
    ax.set_ylim(-deepest - 0.6, 0.6)
    ax.set_axis_off()
    return ax
