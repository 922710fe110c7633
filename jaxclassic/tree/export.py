r"""Text rendering of fitted trees: CART in scikit-learn's format, ID3 / C4.5 in Quinlan's.

CART (:class:`~jaxclassic.tree._params.TreeParams`: ``ClassificationTree``,
``RegressionTree``) is printed exactly as ``sklearn.tree.export_text`` prints the same tree
(left child first, ``x <= threshold``)::

    |--- petal width (cm) <= 0.80
    |   |--- class: 0
    |--- petal width (cm) >  0.80
    |   |--- class: 1

ID3 and C4.5 trees are printed as Quinlan's C4.5 program and Weka's J48 print them: one line
per branch, a leaf's class after a colon with its training weight :math:`N` and, when
positive, its training errors :math:`E = N - \max_k n_k` as ``(N/E)``::

    outlook = overcast: yes (4.0)
    outlook = rain
    |   wind = strong: no (2.0)
    |   wind = weak: yes (3.0)

Numbers: CART thresholds and values with ``decimals`` digits (scikit-learn); in the Quinlan
format thresholds are rounded to ``decimals`` digits with trailing zeros dropped
(``humidity <= 75``) and weights keep at least one decimal (``(3.38/0.38)``, J48's style).

References
----------
J. R. Quinlan, *C4.5: Programs for Machine Learning*, Morgan Kaufmann 1993, ch. 1 and 9.
scikit-learn, ``sklearn.tree.export_text`` (the CART format).
I. H. Witten, E. Frank, *Data Mining*, 2nd ed., Morgan Kaufmann 2005, §10.4 (J48's output).
"""

from __future__ import annotations

from io import StringIO

import numpy as np

from jaxclassic.tree._params import RegressionTree, TreeParams, has_categories
from jaxclassic.tree.c45 import C45Params
from jaxclassic.tree.id3 import ID3Params
from jaxclassic.validation import check_int

__all__ = ["export_text"]


def export_text(params, feature_names=None, class_names=None, decimals=2, *, category_names=None,
                max_depth=10, spacing=3, show_weights=False) -> str:
    r"""A text drawing of a fitted tree (CART, ID3 or C4.5).

    CART trees follow ``sklearn.tree.export_text`` line for line (a split
    :math:`x_f \le t` prints ``|--- name <= t`` before its left subtree and
    ``|--- name >  t`` before its right one; leaves print ``class: c`` or ``value: [v]``).
    ID3 / C4.5 trees print Quinlan's format: ``name = category`` per branch of a multiway
    split, ``name <= t`` / ``name > t`` for a threshold, leaves as ``: class (N/E)`` with the
    training weight :math:`N` and training errors :math:`E = N - \max_k n_k` (``/E`` omitted
    when 0).

    Parameters
    ----------
    params : ClassificationTree, RegressionTree, ID3Params or C45Params
    feature_names : sequence of str (n_features,), optional
        Default ``feature_0, feature_1, ...`` (CART) or ``x0, x1, ...`` (Quinlan format).
    class_names : sequence of str (n_classes,), optional
        Default: the class codes.
    decimals : int >= 0
        Digits of thresholds and values.
    category_names : dict or sequence, optional
        ID3 / C4.5 only: level names of the categorical features, ``category_names[f][code]``,
        keyed by feature index or by feature name (``load_play_tennis().categories``
        is such a dict). Default: the codes.
    max_depth : int >= 0
        Deeper subtrees are shown as ``truncated branch of depth d`` (scikit-learn's rule).
    spacing : int >= 1
        CART only: width of an indentation step (scikit-learn's ``spacing``).
    show_weights : bool
        CART classification only: print the weighted class counts at the leaves.

    Returns
    -------
    str, one line per node and branch, ending in a newline.

    Example
    -------
    >>> from jaxclassic.datasets import load_play_tennis
    >>> from jaxclassic.tree.id3 import fit_id3
    >>> t = load_play_tennis()
    >>> text = export_text(fit_id3(t.data, t.target), t.feature_names, t.target_names,
    ...                    category_names=t.categories)
    >>> print(text, end="")
    outlook = overcast: yes (4.0)
    outlook = rain
    |   wind = strong: no (2.0)
    |   wind = weak: yes (3.0)
    outlook = sunny
    |   humidity = high: no (3.0)
    |   humidity = normal: yes (2.0)

    References
    ----------
    J. R. Quinlan (1993), C4.5: Programs for Machine Learning, ch. 1.
    scikit-learn's ``sklearn.tree.export_text``.
    """
    decimals = check_int(decimals, "decimals", low=0)
    max_depth = check_int(max_depth, "max_depth", low=0)
    spacing = check_int(spacing, "spacing", low=1)
    if isinstance(params, TreeParams):
        return _export_cart(params, feature_names, class_names, decimals, max_depth, spacing, show_weights)
    if isinstance(params, (ID3Params, C45Params)):
        return _export_multiway(params, feature_names, class_names, decimals, max_depth, category_names)
    raise TypeError(
        "params must be a ClassificationTree, RegressionTree, ID3Params or C45Params, "
        f"got {type(params).__name__}"
    )


def _names(names, n, what, default):
    if names is None:
        return [default.format(i) for i in range(n)]
    names = [str(s) for s in names]
    if len(names) != n:
        raise ValueError(f"{what} must contain {n} elements, got {len(names)}")
    return names


# --------------------------------------------------------------------------- CART (scikit-learn)
def _export_cart(params, feature_names, class_names, decimals, max_depth, spacing, show_weights):
    left = np.asarray(params.children_left)
    right = np.asarray(params.children_right)
    feature = np.asarray(params.feature)
    threshold = np.asarray(params.threshold)
    value = np.asarray(params.value)
    weight = np.asarray(params.weighted_n_node_samples)
    is_leaf = np.asarray(params.is_leaf)
    categorical = left_categories = None
    if has_categories(params):  # categorical splits print their left sets (codes unseen there included)
        categorical, left_categories = np.asarray(params.categorical), np.asarray(params.left_categories)
    regression = isinstance(params, RegressionTree)
    features = _names(feature_names, np.asarray(params.bin_edges).shape[0], "feature_names", "feature_{}")
    classes = None if regression else _names(class_names, value.shape[1], "class_names", "{}")
    report = StringIO()

    def depth_below(node):
        if is_leaf[node] or left[node] < 0:
            return 1
        return 1 + max(depth_below(left[node]), depth_below(right[node]))

    def add_leaf(node, indent):
        if regression:
            text = " value: [" + ", ".join(f"{v:.{decimals}f}" for v in value[node]) + "]"
        else:
            text = ""
            if show_weights:
                text = " weights: [" + ", ".join(f"{v * weight[node]:.{decimals}f}" for v in value[node]) + "]"
            text += " class: " + classes[int(np.argmax(value[node]))]
        report.write(indent + text + "\n")

    def recurse(node, depth):
        indent = ("|" + " " * spacing) * depth
        indent = indent[:-spacing] + "-" * spacing
        if depth <= max_depth + 1:
            if not is_leaf[node] and left[node] >= 0:
                name = features[feature[node]]
                if categorical is not None and categorical[feature[node]]:  # a set of category codes
                    codes = np.flatnonzero(left_categories[node])
                    cut = "{" + ", ".join(str(int(c)) for c in codes) + "}"
                    report.write(f"{indent} {name} in {cut}\n")
                    recurse(left[node], depth + 1)
                    report.write(f"{indent} {name} not in {cut}\n")
                    recurse(right[node], depth + 1)
                    return
                cut = f"{threshold[node]:.{decimals}f}"
                report.write(f"{indent} {name} <= {cut}\n")
                recurse(left[node], depth + 1)
                report.write(f"{indent} {name} >  {cut}\n")
                recurse(right[node], depth + 1)
            else:
                add_leaf(node, indent)
        else:
            below = depth_below(node)
            if below == 1:
                add_leaf(node, indent)
            else:
                report.write(f"{indent} truncated branch of depth {below}\n")

    recurse(0, 1)
    return report.getvalue()


# --------------------------------------------------------------------------- ID3 / C4.5 (Quinlan)
def _number(x, decimals):
    """Round to ``decimals`` digits and drop trailing zeros (``75``, ``75.5``)."""
    text = f"{x:.{decimals}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def _weight(x, decimals):
    """A weight as J48 prints it: at least one decimal (``3.0``, ``3.38``)."""
    text = _number(x, max(decimals, 1))
    return text if "." in text else text + ".0"


def _level_names(category_names, features, n_categories):
    levels = []
    for f, name in enumerate(features):
        names = None
        if category_names is not None:
            if isinstance(category_names, dict):
                names = category_names.get(name, category_names.get(f))
            elif f < len(category_names):
                names = category_names[f]
        k = int(n_categories[f])
        if names is not None and len(names) < k:
            raise ValueError(f"category_names for feature {name!r} has {len(names)} names, but it has {k} categories")
        levels.append([str(s) for s in names] if names is not None else [str(v) for v in range(k)])
    return levels


def _export_multiway(params, feature_names, class_names, decimals, max_depth, category_names):
    feature = np.asarray(params.feature)
    children = np.asarray(params.children)
    value = np.asarray(params.value)
    weight = np.asarray(params.weighted_n_node_samples)
    is_leaf = np.asarray(params.is_leaf)
    n_categories = np.asarray(params.n_categories)
    threshold = np.asarray(getattr(params, "threshold", np.full(feature.shape, np.nan)))
    features = _names(feature_names, n_categories.shape[0], "feature_names", "x{}")
    classes = _names(class_names, value.shape[1], "class_names", "{}")
    levels = _level_names(category_names, features, n_categories)
    lines = []

    def leaf_text(node):
        n = weight[node]
        errors = n - value[node].max() * n
        text = f"{classes[int(np.argmax(value[node]))]} ({_weight(n, decimals)}"
        if round(errors, max(decimals, 1)) > 0:
            text += f"/{_weight(errors, decimals)}"
        return text + ")"

    def depth_below(node):
        if is_leaf[node]:
            return 1
        return 1 + max(depth_below(c) for c in children[node] if c >= 0)

    def recurse(node, depth):
        f = feature[node]
        prefix = "|   " * depth
        for b, child in enumerate(children[node]):
            if child < 0:
                continue
            if np.isnan(threshold[node]):
                test = f"{features[f]} = {levels[f][b]}"
            else:
                test = f"{features[f]} {'<=' if b == 0 else '>'} {_number(threshold[node], decimals)}"
            if is_leaf[child]:
                lines.append(f"{prefix}{test}: {leaf_text(child)}")
            elif depth + 1 > max_depth:
                lines.append(f"{prefix}{test}: truncated branch of depth {depth_below(child)}")
            else:
                lines.append(f"{prefix}{test}")
                recurse(child, depth + 1)

    if is_leaf[0]:
        lines.append(leaf_text(0))
    else:
        recurse(0, 0)
    return "\n".join(lines) + "\n"
