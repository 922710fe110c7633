r"""CART decision trees (classification and regression) grown by the histogram engine.

A tree partitions the feature space by axis-aligned splits :math:`x_j \le \tau`; each split
is the one of largest weighted impurity decrease (Breiman et al. 1984; ESL §9.2)

.. math:: \Delta = W_t\, i(t) - W_L\, i(t_L) - W_R\, i(t_R),

over every feature and every bin edge :math:`\tau` (:mod:`jaxclassic.tree.binning`), with
missing values (NaN) sent to the better side (``missing_left``). The impurity :math:`i` is
``gini`` :math:`1 - \sum_k p_k^2`, ``entropy`` :math:`-\sum_k p_k \log_2 p_k`,
``misclassification`` :math:`1 - \max_k p_k` (class fractions :math:`p` weighted by
``sample_weight``), or ``squared_error`` :math:`\sum_i w_i (y_i - \bar y_t)^2 / W_t`.
Growth stops as scikit-learn's does (``max_depth``, ``min_samples_split``,
``min_samples_leaf``, ``min_weight_fraction_leaf``, pure nodes, and
``min_impurity_decrease`` against :math:`\Delta / W_{root}`); see
:mod:`jaxclassic.tree._engine` for the level-wise algorithm and its cost: per level, one
pass over the rows of the smaller children per feature (histograms) and a cumulative sum over
the bins per (node, feature).

When every feature has at most ``n_bins`` distinct values the binning is exact and the tree
equals scikit-learn's ``DecisionTreeClassifier`` / ``DecisionTreeRegressor`` up to ties in
the gain: same splits, partitions, values, impurities, feature importances and thresholds,
so the same predictions on new rows too (tested).

Split points. scikit-learn puts a threshold midway between the two adjacent values present
*in the node* (``Xf[p-1] / 2 + Xf[p] / 2``, in float64 of float32 values). The engine finds
the bins that hold them (``Grown.left_bin``, ``right_bin``: the node's last bin at or left
of the split bin and its first bin right of it that hold a counted row, by one routing pass
of the training rows after the growth), and the values come from
:func:`~jaxclassic.tree.binning.bin_ranges` (the largest value of the left bin, the least of
the right one; :func:`~jaxclassic.tree.binning.split_points`). The midpoint is computed in
the fit's dtype: in float64 it is the exact midpoint, scikit-learn's number when the data
are float32 values (scikit-learn casts ``X`` to float32; other float64 data give the
midpoint of the float64 values); in float32 it is the largest float32 not above
scikit-learn's float64 midpoint, which routes every float32 row as that midpoint does (and
prediction casts ``X`` to float32, as scikit-learn). With quantile bins (a feature of
more than ``n_bins`` values) the same rule gives a point between the largest training value
of the node's left bin and the least of its right bin: node-independent within a bin, it
routes every training row as the codes do and equals the quantile edge when the two bins are
adjacent. Before issue 23 the threshold was the split bin's upper edge, the midpoint to the
next value *of the whole training set*: on 300 rows rounded to two decimals, 2.35 % of 2,000
new rows were classified differently from scikit-learn and 9.7 % went to another regression
leaf; now none (``tests/tree/test_split_points.py``). Trees fitted by :func:`fit_cart_binned`
without ``bin_ranges`` keep that bin edge (the codes carry no values). A split that
separates only the missing values may be stored mirrored: missing values left and
threshold ``-inf`` where scikit-learn has them right with ``+inf`` (the same partition).

Categorical splits (``categorical_features=``, issue 28). A categorical feature's values are
category codes ``0..n_bins - 1`` (its bins; NaN missing) and its splits send a set of
categories left: the best prefix of the node's categories ordered by the fraction of the
second class (binary), the mean target (regression) or the fraction of the node's majority
class (more classes), exact in the first two cases (Breiman et al. 1984, §9.4; the engine's
"Categorical splits"). The tree stores the sets in ``left_categories`` (``threshold`` is
``nan`` there); a category the node never saw (unseen at fit time, or absent from the node)
goes where the node sends missing values. scikit-learn's ``DecisionTree*`` have no such
splits: the reference is a brute-force search over the partitions (``tests/tree/test_categorical.py``).
C4.5 and ID3 keep their multiway categorical splits.

One departure: ``max_features`` draws its features per node from ``key`` without
scikit-learn's redraw of constant features. Purity is scale-aware
(:mod:`jaxclassic.tree._engine`, "Purity"): with non-integer weights scikit-learn splits some
pure nodes with zero gain (sibling-subtraction noise), and with targets of scale 1e-9 it
grows a one-leaf regression tree; this engine does neither (tested).

Params layout: :mod:`jaxclassic.tree._params` (``value`` holds class fractions or the mean
at every node; ``impurity`` the criterion's impurity, entropy in bits as scikit-learn).
Node budget ``max_nodes`` (static) defaults to :math:`\min(2n - 1, 2^{D+1} - 1)`, with
:math:`D` the depth's bucket (:func:`budget_depth`: odd depths above 2 rounded up; the depth
itself is traced, so nearby depths share one program; a tree
of ``n`` rows has at most ``2n - 1`` nodes); at most ``max_width`` nodes split per level
(default :math:`\min(2^{D-1}, (M-1)/2, \lfloor n/2 \rfloor, 256)`: the nodes of one level
are disjoint and each that splits holds at least ``min_samples_split`` :math:`\ge 2` rows, so
at most :math:`n/2` of them split, and the width costs compile and run time in proportion);
a node past either limit stays a leaf and :func:`fit_cart` warns (:class:`TreeTruncatedWarning`).

Width. The buffers of a level are sized to the width (histograms of
:math:`2W \times (B+1) \times (S+1) \times F` numbers, 189 MB at :math:`W = 256` on 426 rows
x 30 features), while most trees split few nodes per level (breast_cancer's: at most 4). So a
fit with the default width and concrete inputs grows at :math:`W = \min(64, W_{default})`
first (16 for a classification tree on at most 512 rows: the bundled tables' trees split at
most 4 nodes a level, scikit-learn's at most 8 in their forests; breast_cancer's tree 30 ->
20 ms a fit; regression trees grow to pure leaves and need 41 on diabetes) and grows again at
the default only when that tree is truncated: the same tree (the width changes which nodes
fit, never a split; the feature draws of a node depend on its slot, not on the width:
``_engine._level_uniform``), its growth in 14.5 ms instead of 69 ms (``DecisionTreeClassifier``
on 75 % of breast_cancer: 55 ms a fit instead of 141 ms, ``python -m benchmarks.bench_small``),
at the cost of a second program for trees that need the width (or that the node budget
truncates: the regrowth is then wasted). Traced fits (``jit``, ``vmap`` over folds) and an
explicit ``max_width`` keep the default.

Engines. A regression tree on at most 1,024 rows with no missing value and every feature
searched is grown on a CPU by the sorted engine (:mod:`jaxclassic.tree._sorted`: each
feature's rows kept in order per node, scikit-learn's exact splitter level by level), the
same tree as the histogram engine's at the default width in one program: such trees grow
until their leaves are pure, about as many nodes as rows, and the histogram engine searches
every node over all its bins (``DecisionTreeRegressor`` on 75 % of diabetes, 635 nodes: 20
-> 6 ms a fit, 2026-11-29). Each feature's order is sorted on the host when the codes are
concrete. Traced codes (``jit``, ``vmap``) may hold missing values, so they keep the histogram
engine unless the caller of :func:`fit_cart_binned` promises ``has_missing=False``; the order
is then sorted inside the program. Its sums are each node's own (no sibling
subtraction), so it also keeps the pure leaves that the histogram engine's rounding noise
can split (``tests/tree/test_cart.py``, narrow-first growth).

References
----------
L. Breiman, J. Friedman, R. Olshen, C. Stone, *Classification and Regression Trees*,
Wadsworth 1984.
T. Hastie, R. Tibshirani, J. Friedman, *The Elements of Statistical Learning*, 2nd ed., §9.2.
G. Ke et al., "LightGBM: A Highly Efficient Gradient Boosting Decision Tree", NeurIPS 2017.
"""

from __future__ import annotations

import math
import numbers
import warnings
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

from jaxclassic import _jit
from jaxclassic.tree._api import apply, feature_importances, predict, predict_proba
from jaxclassic.tree import _sorted
from jaxclassic.tree._engine import CRITERIA, grow
from jaxclassic.tree._params import ClassificationTree, RegressionTree, TreeParams
from jaxclassic.tree._params import has_categories
from jaxclassic.tree._params import in_left_set as _in_left_set
from jaxclassic.tree.binning import bin_features, categorical_codes, check_categorical_features, split_points
from jaxclassic.tree.binning import bin_ranges as _bin_ranges
from jaxclassic._implicit import nondifferentiable
from jaxclassic.validation import (
    as_operand,
    check_array,
    check_bool,
    check_choice,
    check_classification_targets,
    check_consistent_length,
    check_int,
    check_key,
    check_sample_weight,
    check_scalar,
    is_traced,
    key_from_seed,
)

#: why jax.grad through this fit raises (issue 14, :func:`jaxclassic._implicit.nondifferentiable`)
_NO_DERIVATIVE = (
    "its splits are discrete choices (the best impurity decrease) at thresholds between sample"
    " values, so the fitted tree is piecewise constant in the data and the hyperparameters"
)

__all__ = ["TreeTruncatedWarning", "fit_cart", "fit_cart_binned", "default_budget", "budget_depth"]

TASK_CRITERIA = {
    "classification": ("gini", "entropy", "misclassification"),
    "regression": ("squared_error",),
}
_MAX_WIDTH_CAP = 256
#: the width a concrete fit with the default width grows at first (module docstring, "Width")
_FIRST_WIDTH = 64
#: the first width of a classification tree on at most :data:`_SMALL_ROWS` rows
_FIRST_WIDTH_SMALL = 16
_SMALL_ROWS = 512


class TreeTruncatedWarning(UserWarning):
    """Some node could have split but the node budget or the level width was full."""


def budget_depth(max_depth: int | None) -> int | None:
    r"""The depth whose node budget and level width a tree of ``max_depth`` levels is sized by.

    ``max_depth`` itself is traced in the fit (the level loop compares with it), so the program
    depends on it only through ``(max_nodes, max_width)``: depths 1 and 2 are their own bucket,
    deeper ones are rounded up to an even depth (3 and 4 share a program, 5 and 6, ...), so a
    grid over ``max_depth`` compiles at most one program per pair of depths, at the cost of at
    most twice the width of the deepest level for the odd depth of each pair (issue 25).
    ``None`` stays ``None`` (the budget of a tree grown until pure).

    Parameters
    ----------
    max_depth : int >= 1 or None

    Returns
    -------
    int or None
        :math:`D` if :math:`D \le 2`, else :math:`D + (D \bmod 2)`.

    Examples
    --------
    >>> [budget_depth(d) for d in (1, 2, 3, 4, 5, None)]
    [1, 2, 4, 4, 6, None]

    References
    ----------
    The bucketed capacities of ``DESIGN.md`` (structural sizes); ``default_budget`` for the budget.
    """
    if max_depth is None or max_depth <= 2:
        return max_depth
    return max_depth + max_depth % 2


def default_budget(n_samples: int, max_depth: int | None, max_nodes=None, max_width=None):
    """``(max_nodes, max_width)``: ``M = min(2n-1, 2^(D+1)-1)``, ``W = min(2^(D-1), (M-1)//2, n//2, 256)``
    (at most ``n/2`` disjoint nodes of two or more rows split on one level). A lone tree
    (:func:`fit_cart_binned`) passes ``D = budget_depth(max_depth)``, its depth's bucket; a
    forest its depth itself (``ensemble.forest.forest_budget``)."""
    if max_nodes is None:
        max_nodes = 2 * n_samples - 1
        if max_depth is not None:
            max_nodes = min(max_nodes, 2 ** (max_depth + 1) - 1)
    max_nodes = max(check_int(max_nodes, "max_nodes", low=1), 1)
    if max_width is None:
        max_width = max(1, min((max_nodes - 1) // 2, n_samples // 2, _MAX_WIDTH_CAP))
        if max_depth is not None:
            max_width = min(max_width, 2 ** (max_depth - 1))
    return max_nodes, check_int(max_width, "max_width", low=1)


def _resolve_max_features(max_features, n_features):
    if max_features is None:
        return None
    if max_features in ("sqrt", "log2"):
        f = math.sqrt if max_features == "sqrt" else math.log2
        return max(1, int(f(n_features)))
    if isinstance(max_features, str):
        raise ValueError(f"max_features must be None, an int, a float in (0, 1], 'sqrt' or 'log2', got {max_features!r}")
    if isinstance(max_features, (numbers.Integral, np.integer)) and not isinstance(max_features, bool):
        return check_int(max_features, "max_features", low=1, high=n_features)
    check_scalar(max_features, "max_features", low=0.0, high=1.0, include_low=False)
    return max(1, int(max_features * n_features))


_DEFAULT_KEYS: dict = {}


def _default_key():
    """``key_from_seed(0)`` (the key of fits that draw nothing), made once per PRNG
    implementation and default device: a typed key is immutable and no fit donates it, and
    each fresh one cost a device transfer (0.3 ms of a 5 ms tree fit)."""
    tag = (jax.config.jax_default_prng_impl, str(jax.config.jax_default_device))
    key = _DEFAULT_KEYS.get(tag)
    if key is None:
        key = key_from_seed(0)
        if not is_traced(key):  # made inside a trace (jit, vmap): that trace's value, not kept
            _DEFAULT_KEYS[tag] = key
    return key


def _codes_have_missing(codes, n_bins: int) -> bool:
    """Whether any bin code is ``n_bins`` (a missing value); True when ``codes`` are traced
    (unknown while compiling). The ``has_missing`` flag of the fits (static)."""
    return is_traced(codes) or bool(np.any(np.asarray(codes) == n_bins))  # numpy: no program to compile


def _check_stopping_rules(min_samples_split, min_samples_leaf, min_weight_fraction_leaf, min_impurity_decrease,
                          n_samples):
    """The stopping rules' checks of a fit on ``n_samples`` rows (:func:`fit_cart_binned`, and
    forests before they grow their trees); returns ``(min_samples_split, min_samples_leaf)`` as ints."""
    min_samples_split = check_int(min_samples_split, "min_samples_split", low=2)
    min_samples_leaf = check_int(min_samples_leaf, "min_samples_leaf", low=1, high=n_samples)
    check_scalar(min_weight_fraction_leaf, "min_weight_fraction_leaf", low=0.0, high=0.5)
    check_scalar(min_impurity_decrease, "min_impurity_decrease", low=0.0)
    return min_samples_split, min_samples_leaf


def _check_targets(y, task, n_samples, sw, n_classes):
    if task == "classification":
        if n_classes is not None:
            n_classes = check_int(n_classes, "n_classes", low=1)
        y, n_classes = check_classification_targets(y, "y", min_classes=1, n_classes=n_classes, sample_weight=sw)
    else:
        y = check_array(y, "y", ndim=1, dtype=sw.dtype)
        n_classes = None
    check_consistent_length(X=np.empty((n_samples, 0)), y=y)
    return y, n_classes


def fit_cart_binned(
    codes,
    edges,
    y,
    *,
    task: str = "classification",
    criterion: str | None = None,
    max_depth: int | None = None,
    min_samples_split: int = 2,
    min_samples_leaf: int = 1,
    min_weight_fraction_leaf: float = 0.0,
    min_impurity_decrease: float = 0.0,
    max_features=None,
    sample_weight=None,
    key=None,
    n_classes: int | None = None,
    max_nodes: int | None = None,
    max_width: int | None = None,
    feature_mask=None,
    bin_ranges=None,
    has_missing: bool | None = None,
    categorical_features=None,
) -> TreeParams:
    """:func:`fit_cart` on data binned once by :func:`~jaxclassic.tree.binning.bin_features`.

    Parameters
    ----------
    codes : (n_samples, n_features) uint8 / uint16
        Bin codes (``n_bins`` = missing).
    edges : (n_features, n_bins - 1) float
        The binning's edges (fix ``n_bins`` and the dtype of the fit).
    y, and the rest
        As :func:`fit_cart`.
    bin_ranges : (bin_min, bin_max), each (n_features, n_bins), optional (traced)
        The least and largest training value of every bin
        (:func:`~jaxclassic.tree.binning.bin_ranges` of the raw ``X``): the raw thresholds are
        then scikit-learn's midpoints between the node's adjacent values (module docstring).
        Without them (codes alone carry no values) a threshold is the upper edge of the
        split's bin, ``edges[feature, threshold_bin]``: the same routing of the training rows,
        not scikit-learn's point for new rows.
    has_missing : bool, optional (static)
        Whether some code is ``n_bins`` (a missing value). Default: read from ``codes`` when
        they are concrete, True when traced. False compiles a split search of one missing side
        instead of two (the same tree, a smaller and faster program; ``grow``).
    categorical_features : None, (n_features,) bool or integer indices, optional
        The features whose codes are category codes (:func:`fit_cart`; their columns of
        ``codes`` from :func:`~jaxclassic.tree.binning.categorical_codes`).

    Returns
    -------
    ClassificationTree or RegressionTree

    Examples
    --------
    >>> import numpy as np
    >>> from jaxclassic.tree.binning import bin_features
    >>> from jaxclassic.tree.binning import bin_ranges
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]]); codes, edges = bin_features(X, n_bins=4)
    >>> tree = fit_cart_binned(codes, edges, np.array([0, 0, 1, 1]), bin_ranges=bin_ranges(X, codes, 4))
    >>> float(tree.threshold[0]), tree.value[1].tolist(), tree.value[2].tolist()
    (1.5, [1.0, 0.0], [0.0, 1.0])
    """
    # jax.grad / jax.jvp through this fit raise a TypeError naming it (issue 14)
    edges, y, sample_weight, min_weight_fraction_leaf, min_impurity_decrease = (
        nondifferentiable("fit_cart_binned", a, reason=_NO_DERIVATIVE) if is_traced(a) else a
        for a in (edges, y, sample_weight, min_weight_fraction_leaf, min_impurity_decrease))
    task = check_choice(task, "task", tuple(TASK_CRITERIA))
    criterion = check_choice(criterion or TASK_CRITERIA[task][0], "criterion", TASK_CRITERIA[task])
    if max_depth is not None:
        max_depth = check_int(max_depth, "max_depth", low=1)
    if not hasattr(codes, "dtype") or not jnp.issubdtype(codes.dtype, jnp.unsignedinteger) or codes.ndim != 2:
        raise TypeError(f"codes must be a 2-d unsigned integer array (bin_features), got {getattr(codes, 'dtype', type(codes))}")
    edges = jnp.asarray(edges)
    n_samples, n_features = codes.shape
    if edges.ndim != 2 or edges.shape[0] != n_features or not jnp.issubdtype(edges.dtype, jnp.floating):
        raise ValueError(f"edges must be a float array of shape ({n_features}, n_bins - 1), got {edges.shape}")
    n_bins = check_int(edges.shape[1] + 1, "n_bins", low=2, high=256)
    dtype = edges.dtype
    sw = check_sample_weight(sample_weight, n_samples, dtype=dtype)
    y, n_classes = _check_targets(y, task, n_samples, sw, n_classes)
    min_samples_split, min_samples_leaf = _check_stopping_rules(
        min_samples_split, min_samples_leaf, min_weight_fraction_leaf, min_impurity_decrease, n_samples)
    max_features = _resolve_max_features(max_features, n_features)
    key = _default_key() if key is None else check_key(key)
    if feature_mask is None:
        feature_mask = np.ones((n_features,), bool)  # to the device with the fit's other operands
    elif jnp.shape(feature_mask) != (n_features,):
        raise ValueError(f"feature_mask must have shape ({n_features},), got {jnp.shape(feature_mask)}")
    if bin_ranges is not None:
        # numpy ranges (bin_ranges of concrete arrays) go to the program as they are: no transfer apart
        bin_ranges = tuple(r if isinstance(r, np.ndarray) and r.dtype == dtype else jnp.asarray(r, dtype)
                           for r in bin_ranges)
        if len(bin_ranges) != 2 or any(r.shape != (n_features, n_bins) for r in bin_ranges):
            raise ValueError(f"bin_ranges must be (bin_min, bin_max) of shape ({n_features}, {n_bins}) each "
                             f"(tree.binning.bin_ranges), got shapes {[r.shape for r in bin_ranges]}")
    categorical = check_categorical_features(categorical_features, n_features)
    auto_width = max_width is None
    max_nodes, max_width = default_budget(n_samples, budget_depth(max_depth), max_nodes, max_width)
    if has_missing is None:
        has_missing = _codes_have_missing(codes, n_bins)
    elif not check_bool(has_missing, "has_missing") and _codes_have_missing(codes, n_bins) and not is_traced(codes):
        raise ValueError(f"has_missing=False but some code is {n_bins} (a missing value): pass has_missing=True "
                         "or leave it None")
    # max_depth traced (None: the node budget, never reached): one program per budget_depth bucket
    sort, order = _sorted.plan(codes, n_bins, max_depth, regression=task == "regression", has_missing=has_missing,
                               max_features=max_features)
    if categorical is not None:  # the sorted engine has no categorical split
        sort, order = False, None
    args = (codes, edges, bin_ranges, y, sw, as_operand(feature_mask, bool), key,
            min_samples_split, min_samples_leaf, min_weight_fraction_leaf, min_impurity_decrease,
            max_nodes if max_depth is None else max_depth, order, categorical)
    static = dict(task=task, criterion=criterion, n_bins=n_bins, max_features=max_features,
                  max_nodes=max_nodes, n_classes=n_classes, has_missing=has_missing, sort=sort)
    # the default width, grown narrow first (module docstring, "Width"): a concrete fit and a
    # wide default
    first = _FIRST_WIDTH_SMALL if task == "classification" and n_samples <= _SMALL_ROWS else _FIRST_WIDTH
    narrow = (auto_width and max_width > first and not sort
              and not any(is_traced(a) for a in jax.tree_util.tree_leaves(args)))
    tree, truncated = _fit_binned(*args, max_width=first if narrow else max_width, **static)
    if narrow and bool(truncated):
        tree, truncated = _fit_binned(*args, max_width=max_width, **static)
    if not is_traced(truncated) and bool(truncated):
        warnings.warn(
            f"the tree reached its node budget (max_nodes={max_nodes}) or level width "
            f"(max_width={max_width}); nodes that could split were left as leaves",
            TreeTruncatedWarning, stacklevel=2,
        )
    return tree


def fit_cart(
    X,
    y,
    *,
    task: str = "classification",
    criterion: str | None = None,
    max_depth: int | None = None,
    min_samples_split: int = 2,
    min_samples_leaf: int = 1,
    min_weight_fraction_leaf: float = 0.0,
    min_impurity_decrease: float = 0.0,
    max_features=None,
    n_bins: int = 255,
    sample_weight=None,
    key=None,
    n_classes: int | None = None,
    max_nodes: int | None = None,
    max_width: int | None = None,
    feature_mask=None,
    categorical_features=None,
) -> TreeParams:
    r"""Fit a CART classification or regression tree (histogram engine, jittable growth).

    Split of largest weighted impurity decrease
    :math:`\Delta = W_t i(t) - W_L i(t_L) - W_R i(t_R)` over features and bin edges (module
    docstring); stops as scikit-learn.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Raw features; NaN = missing (sent to the learned side of each split).
    y : array-like of shape (n_samples,)
        Class codes ``0..K-1`` (classification) or real targets (regression). A target that
        is constant over the positive-weight rows gives a one-leaf tree.
    task : {"classification", "regression"} (static)
    criterion : str, optional (static)
        ``"gini"`` (default), ``"entropy"``, ``"misclassification"``; ``"squared_error"``.
    max_depth : int >= 1 or None
        None: grow until pure, too small, or out of budget. An argument of the compiled
        program, not a static one: the program depends on it only
        through the node budget and width of its bucket (:func:`budget_depth`: 3 and 4 share
        one, 5 and 6, ...), so a grid over depths recompiles at most once per pair.
    min_samples_split : int >= 2 (traced)
    min_samples_leaf : int in 1..n_samples (traced)
    min_weight_fraction_leaf : float in [0, 0.5] (traced)
        Least share of the total weight in each child.
    min_impurity_decrease : float >= 0 (traced)
        Split only when :math:`\Delta / W_{root} \ge` this (scikit-learn's rule).
    max_features : None, int, float in (0, 1], "sqrt", "log2" (static)
        Features drawn per node from ``key`` when fewer than all.
    n_bins : int in 2..256 (static)
        Bins of non-missing values (:func:`~jaxclassic.tree.binning.bin_features`).
    sample_weight : array-like of shape (n_samples,), optional (traced)
        Rows of weight 0 have no influence, on the bin edges too. With ``X`` or the
        weights traced (``jit``, ``vmap`` over folds or bootstrap weights) the edges are
        computed inside the program by the same rule (:mod:`~jaxclassic.tree.binning`,
        "Traced input"), so ``jit(fit_cart)`` and ``cross_validate(fit_cart, ...)`` work and a
        fold fitted by its weights equals the fit on its sliced rows when the binning is
        exact. For ensembles that share one binning, bin once with ``bin_features`` and call
        :func:`fit_cart_binned`.
    key : jax.random key, optional (keyword-only)
        The draws of ``max_features``; unused when every feature is searched. None: the
        fixed key ``jax.random.key(0)``, so a call is deterministic (same key, same tree).
    n_classes : int, optional (static)
    max_nodes, max_width : int, optional (static)
        Node budget ``M`` and level width ``W`` (module docstring for the defaults).
    feature_mask : (n_features,) bool, optional (traced)
    categorical_features : None, (n_features,) bool or integer indices, optional
        Features whose values are category codes, integers in ``0..n_bins - 1`` (NaN:
        missing). Their splits send a set of categories left: the best prefix of the node's
        categories ordered by the fraction of the second class (binary), the mean target
        (regression) or the fraction of the node's majority class (more classes), exact in
        the first two cases (module docstring, "Categorical splits"). A category the node
        never saw, at fit time or since, goes where the node sends missing values. None:
        every feature numeric (the tree and program of a fit without this argument).

    Returns
    -------
    ClassificationTree or RegressionTree
        The layout of :mod:`jaxclassic.tree._params` (``n_classes``: a property of the
        classification tree). One function for both tasks (``task=``): the growth and the
        split search are shared, only the criterion and the leaf values differ.

    Notes
    -----
    ``criterion``'s default differs from the estimator's: one function serves both tasks, so
    None picks the task's criterion, ``"gini"`` for classification (``DecisionTreeClassifier``'s
    default) and ``"squared_error"`` for regression (``DecisionTreeRegressor``'s): the same
    trees as the estimators' defaults.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0, 5.0], [1.0, 4.0], [2.0, 4.0], [3.0, 5.0]])
    >>> tree = fit_cart(X, np.array([0, 0, 1, 1]))
    >>> int(tree.n_nodes), int(tree.feature[0]), float(tree.threshold[0])
    (3, 0, 1.5)
    >>> predict(tree, X).tolist()
    [0, 0, 1, 1]

    References
    ----------
    Breiman et al. 1984 (CART); ESL §9.2; Ke et al. 2017 (histograms).
    """
    # jax.grad / jax.jvp through this fit raise a TypeError naming it (issue 14)
    X, y, sample_weight, min_weight_fraction_leaf, min_impurity_decrease = (
        nondifferentiable("fit_cart", a, reason=_NO_DERIVATIVE) if is_traced(a) else a
        for a in (X, y, sample_weight, min_weight_fraction_leaf, min_impurity_decrease))
    check_int(n_bins, "n_bins", low=2, high=256)
    # the checks that need no data, before binning compiles anything (fit_cart_binned repeats them)
    check_choice(task, "task", tuple(TASK_CRITERIA))
    if max_depth is not None:
        check_int(max_depth, "max_depth", low=1)
    check_int(min_samples_split, "min_samples_split", low=2)
    check_int(min_samples_leaf, "min_samples_leaf", low=1)
    check_scalar(min_weight_fraction_leaf, "min_weight_fraction_leaf", low=0.0, high=0.5)
    check_scalar(min_impurity_decrease, "min_impurity_decrease", low=0.0)
    Xc = check_array(X, "X", allow_nan=True)
    check_consistent_length(X=Xc, y=y)
    categorical = check_categorical_features(categorical_features, Xc.shape[1])
    codes, edges = bin_features(Xc, n_bins, sample_weight=sample_weight)
    ranges = _bin_ranges(Xc, codes, n_bins, sample_weight=sample_weight)
    if categorical is not None:
        codes = categorical_codes(Xc, codes, categorical, n_bins)
    return fit_cart_binned(
        codes, edges, y, bin_ranges=ranges, task=task, criterion=criterion, max_depth=max_depth,
        min_samples_split=min_samples_split, min_samples_leaf=min_samples_leaf,
        min_weight_fraction_leaf=min_weight_fraction_leaf, min_impurity_decrease=min_impurity_decrease,
        max_features=max_features, sample_weight=sample_weight, key=key, n_classes=n_classes,
        max_nodes=max_nodes, max_width=max_width, feature_mask=feature_mask, categorical_features=categorical,
    )


@partial(_jit.jit, static_argnames=(
    "task", "criterion", "n_bins", "max_features", "max_nodes", "max_width", "n_classes", "has_missing", "sort"))
def _fit_binned(codes, edges, ranges, y, sw, feature_mask, key, min_samples_split, min_samples_leaf,
                min_weight_fraction_leaf, min_impurity_decrease, max_depth, order=None, categorical=None, *, task,
                criterion,
                n_bins, max_features, max_nodes, max_width, n_classes, has_missing=True, buffers=None, sort=False):
    """The tree and its ``truncated`` flag; with ``buffers`` (``_engine.grow``'s working buffers,
    carried from the previous tree of a forest) also the buffers after this tree. ``sort``
    (static): grown by the sorted engine (:mod:`jaxclassic.tree._sorted`, no ``buffers``), from
    ``order`` (each feature's rows by code; sorted inside when None)."""
    dtype = edges.dtype
    sw = sw.astype(dtype)
    count = (sw > 0).astype(dtype)
    if task == "classification":
        stats = jax.nn.one_hot(y, n_classes, dtype=dtype) * sw[:, None]
        y_mean = jnp.zeros((), dtype)
    else:
        y_mean = jnp.sum(sw * y) / jnp.sum(sw)
        yc = jnp.where(sw > 0, y - y_mean, 0)  # centred: no cancellation in sum wy^2 - (sum wy)^2 / W
        stats = jnp.stack([sw, sw * yc, sw * yc * yc], axis=1)
    crit = CRITERIA[criterion]
    rules = dict(criterion=crit, n_bins=n_bins, max_nodes=max_nodes, max_width=max_width, max_depth=max_depth,
                 min_samples_split=min_samples_split, min_samples_leaf=min_samples_leaf,
                 min_weight_leaf=min_weight_fraction_leaf * jnp.sum(sw),
                 min_impurity_decrease=min_impurity_decrease, feature_mask=feature_mask)
    if sort:  # no working buffers: the caller's are passed back as they came
        g = _sorted.grow_sorted(codes.T, stats, count, order=order, **rules)
    else:
        g = grow(codes.T, stats, count, max_features=max_features, key=key, has_missing=has_missing,
                 buffers=buffers, categorical=categorical, **rules)
        if buffers is not None:
            g, buffers = g
    n_stats = stats.shape[1]
    used = jnp.arange(max_nodes) < g.n_nodes
    s = g.node_stats[:, :n_stats]
    weight = crit.weight(s)
    safe = jnp.where(weight > 0, weight, 1)
    if task == "classification":
        value, cls = s / safe[:, None], ClassificationTree
    else:
        value, cls = (s[:, 1] / safe + y_mean)[:, None], RegressionTree
    internal = g.children_left >= 0
    if ranges is None:  # no values: the split bin's upper edge (routes the training rows alike)
        threshold = jnp.where(internal, edges[jnp.maximum(g.feature, 0), jnp.maximum(g.threshold_bin, 0)], jnp.nan)
    else:  # scikit-learn's midpoint of the node's adjacent values
        threshold = split_points(jnp.where(internal, g.feature, -1), g.left_bin, g.right_bin, *ranges)
    cats = {}
    if categorical is not None:  # a categorical split has a set of codes, no threshold
        categorical = jnp.asarray(categorical, bool)
        at_cat = internal & categorical[jnp.maximum(g.feature, 0)]
        threshold = jnp.where(at_cat, jnp.nan, threshold)
        cats = dict(categorical=categorical, left_categories=g.left_categories & at_cat[:, None])
    tree = cls(
        children_left=g.children_left,
        children_right=g.children_right,
        feature=g.feature,
        threshold_bin=g.threshold_bin,
        threshold=threshold.astype(dtype),
        missing_left=g.missing_left,
        value=jnp.where(used[:, None], value, 0),
        impurity=jnp.where(used, g.impurity, 0),
        n_node_samples=jnp.round(g.node_stats[:, n_stats]).astype(jnp.int32),
        weighted_n_node_samples=jnp.where(used, weight, 0),
        is_leaf=g.is_leaf,
        n_nodes=g.n_nodes,
        bin_edges=edges,
        **cats,
    )
    return (tree, g.truncated) if buffers is None else (tree, g.truncated, buffers)


# --------------------------------------------------------------------------- prediction
@_jit.jit
def _route(params, X):
    """Leaf of every row: step down while the node has children (at most ``M`` steps)."""
    rows = jnp.arange(X.shape[0])

    def cond(state):
        node, i = state
        return (i < params.feature.shape[0]) & jnp.any(~params.is_leaf[node] & (params.children_left[node] >= 0))

    def body(state):
        node, i = state
        f = params.feature[node]
        x = X[rows, jnp.maximum(f, 0)]
        go_left = jnp.where(jnp.isnan(x), params.missing_left[node], x <= params.threshold[node])
        if has_categories(params):  # routing rule of _params: the code in the left set
            go_left = jnp.where(params.categorical[jnp.maximum(f, 0)],
                                _in_left_set(params.left_categories, node, x, params.missing_left[node]), go_left)
        nxt = jnp.where(go_left, params.children_left[node], params.children_right[node])
        inner = ~params.is_leaf[node] & (params.children_left[node] >= 0)
        return jnp.where(inner, nxt, node), i + 1

    node, _ = jax.lax.while_loop(cond, body, (jnp.zeros(X.shape[0], jnp.int32), 0))
    return node


def _check_X(params, X):
    X = check_array(X, "X", allow_nan=True)
    n_features = params.bin_edges.shape[0]
    if X.shape[1] != n_features:
        raise ValueError(f"X has {X.shape[1]} features, but the tree was fitted with {n_features}")
    return X.astype(params.threshold.dtype)


def _apply(params, X):
    r"""Leaf index ``(n,)`` of every row of raw ``X`` (routing rule of ``_params``: left iff
    :math:`x \le` threshold, NaN by ``missing_left``)."""
    return _route(params, _check_X(params, X))


def _predict_proba(params, X):
    """Class fractions of each row's leaf ``(n, K)``."""
    return params.value[_apply(params, X)]


def _predict_class(params, X):
    """Class code of largest fraction in each row's leaf (first on ties, as scikit-learn)."""
    return jnp.argmax(_predict_proba(params, X), axis=1).astype(jnp.int32)


def _predict_value(params, X):
    """Mean target of each row's leaf ``(n,)``."""
    return params.value[_apply(params, X), 0]


@_jit.jit
def _feature_importances(params):
    r"""Total weighted impurity decrease per feature, normalised to sum 1 (scikit-learn's
    ``feature_importances_``): :math:`\sum_{t: f_t = j} W_t i_t - W_L i_L - W_R i_R`."""
    n_features = params.bin_edges.shape[0]
    internal = (params.children_left >= 0) & ~params.is_leaf
    left, right = jnp.maximum(params.children_left, 0), jnp.maximum(params.children_right, 0)
    wi = params.weighted_n_node_samples * params.impurity
    dec = jnp.where(internal, wi - wi[left] - wi[right], 0)
    imp = jnp.zeros((n_features,), dec.dtype).at[jnp.where(internal, params.feature, n_features)].add(dec, mode="drop")
    total = jnp.sum(imp)
    return jnp.where(total > 0, imp / jnp.where(total > 0, total, 1), 0)


def feature_importances_host(params) -> np.ndarray:
    """:func:`_feature_importances` of a tree already on the host (numpy leaves, as an
    estimator's ``params_``), in numpy: no program to dispatch (0.18 ms of a 3 ms tree fit on
    wine). The sums per feature are taken in float64 (``np.bincount``), then cast to the
    tree's dtype."""
    n_features = params.bin_edges.shape[0]
    left, right = np.asarray(params.children_left), np.asarray(params.children_right)
    internal = (left >= 0) & ~np.asarray(params.is_leaf)
    wi = np.asarray(params.weighted_n_node_samples) * np.asarray(params.impurity)
    dec = wi - wi[np.maximum(left, 0)] - wi[np.maximum(right, 0)]
    imp = np.bincount(np.asarray(params.feature)[internal], weights=dec[internal], minlength=n_features)
    total = imp.sum()
    return (imp / total if total > 0 else np.zeros_like(imp)).astype(wi.dtype)


for _cls in (ClassificationTree, RegressionTree):
    apply.register(_cls, _apply)
    feature_importances.register(_cls, _feature_importances)
predict.register(ClassificationTree, _predict_class)
predict.register(RegressionTree, _predict_value)
predict_proba.register(ClassificationTree, _predict_proba)
