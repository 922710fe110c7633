r"""Random forests: bagged CART trees with features drawn at every node, grown in one ``vmap``.

Breiman (2001): tree :math:`e` is a CART tree (:mod:`jaxclassic.tree.cart`) fitted with the
bootstrap count weights :math:`c_e \odot w` (:mod:`jaxclassic.ensemble.bagging`: a
multinomial draw over the positive-weight rows) where every node searches only
``max_features`` features drawn afresh from the tree's key; the forest averages its trees

.. math:: \hat p(k \mid x) = \frac1E \sum_e \hat p_e(k \mid x)
          \quad(\text{the trees' leaf class fractions, as scikit-learn}),\qquad
          \hat f(x) = \frac1E \sum_e \hat f_e(x).

Why it works (ESL §15.2): with trees of variance :math:`\sigma^2` and pairwise correlation
:math:`\rho` (through the shared training set) the mean of :math:`E` has variance
:math:`\rho\sigma^2 + (1-\rho)\sigma^2/E`; the feature draws lower :math:`\rho`.

Algorithm. ``X`` is binned ONCE (:func:`~jaxclassic.tree.binning.bin_features`, quantile
edges of the positive-weight rows), then every tree is :func:`~jaxclassic.tree.fit_cart_binned`
on the shared codes in one ``jax.vmap`` over (count weights, tree keys): the histogram engine
grows all trees level by level together. Tree :math:`e`'s key is ``fold_in(fold_in(key, 1),
e)`` and its bootstrap draw uses ``fold_in(key, 0)`` (prefix-stable: the first 10 trees of a
forest of 100 are the forest of 10).

Defaults. ``max_features``: ``"sqrt"`` (:math:`\lfloor\sqrt p\rfloor`) for classification,
``"p/3"`` (:math:`\max(1, \lfloor p/3 \rfloor)`, Breiman's and ESL's choice; scikit-learn's
regressor now uses all ``p``) for regression. ``max_depth=None``: each tree has the node
budget :math:`M = \min(2n - 1, 8191)` (room for any tree of ``n`` rows up to 4,096) and
splits at most :math:`W = \min(\lfloor n/2 \rfloor, 64)` nodes per level
(:func:`forest_budget`): exact for small data. On large data a fully grown tree has wider
levels: on a CPU with concrete inputs the trees truncated at ``W`` are grown again at up to
:data:`FOREST_WIDE_WIDTH` splits a level (:func:`_wide_width`: at most ``n/2``, and histograms
of at most 512 MB a level), and a tree still truncated (past the node budget or that width)
warns (:class:`~jaxclassic.tree.cart.TreeTruncatedWarning`; pass ``max_depth``, or
``max_nodes`` / ``max_width``). Until 2026-11 they stayed truncated silently:
RandomForestClassifier(50) on 35,000 x 20 (``make_classification``) held out 0.959 against
scikit-learn's 0.971, with 740 leaves a tree against 1,975. A given ``max_depth`` caps the
width at 256 (``cart.default_budget``); trees truncated there are grown again the same way, at
up to their deepest level's ``2^(D-1)`` splits: until 2026-11 they were not, and
RandomForestRegressor(20, max_depth=12) on 50,000 x 15 held out R^2 0.88 against
scikit-learn's 0.916 (now 0.9158).

Growing the trees. On a CPU (and ``chunk_size`` not given) the trees are grown one after
another in one compiled program (a ``lax.scan`` that carries the engine's working buffers
from tree to tree, ``_engine.grow``): each tree's level loop runs its own number of levels.
A classification forest on at most 512 rows (concrete inputs, the default width) grows every
tree at width 16 first and the truncated ones again at the default width (the others' weights
zeroed: a tree of no rows stops at its root), the same trees as at the default width (the
width changes which nodes fit, never a split or a draw: ``tree.cart``, "Width"):
RandomForestClassifier(100) on breast_cancer 0.30 -> 0.25 s warm (its trees split at most 6
nodes a level). A regression forest on at most 1,024 rows with every feature searched (the
default ``max_features=1.0``) and no missing value grows its trees by the sorted engine
(``tree._sorted``, each feature's order sorted once on the host for all trees, no working
buffers): its trees grow until pure, about a node per distinct row, which the histogram engine
searches node by node over all bins (RandomForestRegressor(100) on 75 % of diabetes: 1.06 ->
0.30 s warm, 2026-11-29).
A ``vmap`` of trees runs the deepest tree's levels for every tree and selects each tree's
carry (its histograms) at every step, and its batched program is larger: 100 trees on
569 x 30 standard normal features (``y = x_0 > 0``) took 10.8 s with chunks of ``vmap`` and
3.9 s mapped, 30 x 5 compiled in 7.7 s and 5.6 s (2-core CPU, one run each). Elsewhere
(accelerators), or with ``chunk_size``, ``chunk_size`` trees are grown per ``vmap`` batch; by
default as many as fit
:data:`~jaxclassic.ensemble.bagging.MEMORY_BUDGET_BYTES` (1 GiB), chunks in a Python loop.
Memory per tree of a batch: about ``itemsize·(6·(B+1)(S+1)·F·2W + n·(S+8) + M·(S+12))`` bytes
(the histograms of a level's ``2W`` children over ``B+1`` codes, ``S`` statistics — ``C``
classes or 3 for regression — and ``F`` features, kept in about six copies by the split
search; the rows' statistics; the node arrays). With ``max_features`` at most ``F/2`` (the
defaults ``"sqrt"`` and ``"p/3"``) a node's histograms hold only its ``max_features`` drawn
features, summed from its own rows (``tree._engine``, "Layout and cost"): ``F`` is then
``max_features`` in that count.
Prediction sums the trees in chunks of at most 256 MB of ``(trees, rows, C)`` outputs.

Programs and ``n_estimators``. ``n_estimators`` sets array shapes, so it is bucketed
(DESIGN.md, "Static vs traced"): every program of the fit is built for
:math:`E_{cap}` = :func:`~jaxclassic.ensemble.bagging.estimator_capacity` ``(E)`` trees (the
next power of two, at least 16: 1..16, 17..32, 33..64, ... share their programs; ``vmap``
batches of a power of two divide it), and prediction, out-of-bag sums and importances for
:func:`~jaxclassic.ensemble.bagging.prediction_capacity` ``(E)`` (an eighth of a power of two
apart, at least 16: 100 trees predict as 112, not 128), so a refit
with another ``n_estimators`` of the same bucket builds no new program, and a new bucket
four (the draws, the growth, the importances, the prediction). Before, every new value
built ten (RandomForestClassifier 10 -> 11 -> 17 -> 40 trees on 117 x 4 rows:
``10, 10, 10`` new programs; now ``0, 4, 4``). The draws of tree :math:`e` depend on
:math:`e` alone (``forest_keys``, ``bagging.bootstrap_counts``), so the first ``E`` of the
:math:`E_{cap}` trees are the forest of ``E``: the trees past ``E`` are skipped by the
growth (a ``lax.cond`` in the scan: no work) and cut off on the host (``numpy``, as an eager
``a[:E]`` would lower a program for each ``E``); the fitted trees are those of a program of
``E`` trees to the bit. Prediction and the importances pad the ``E`` trees on the host to
:math:`E_{cap}` (repeats of the last tree, weight 0): a mean over the trees is then a
reduction of another length, whose order XLA picks by the length, so it can differ from the
mean over ``E`` trees in the last bit (measured against the programs of ``E`` trees:
identical predictions on breast_cancer (100 trees), digits (30) and diabetes (50); 1 ulp on
diabetes with 7 trees; the importances 1 ulp). The padded trees are routed with the others
(a ``vmap``, whose sum keeps the bits above): prediction routes :math:`E_{cap}` trees, up to
twice ``E`` just past a power of two (RandomForestClassifier(100), ``predict_proba`` of 143
breast_cancer rows: 8.4 -> 12.9 ms warm, medians of 4 processes on a shared 2-core host).

Departures from scikit-learn: binned split points (255 quantile bins by default; exact when
a feature has at most ``n_bins`` distinct values); features are drawn per node without
scikit-learn's redraw of constant features; the out-of-bag score skips rows no tree left out
(scikit-learn scores them as class 0 with a warning).

Split points and out-of-bag rows. A tree's raw split point is scikit-learn's: midway between
the largest in-bag value of the node sent left and the least sent right (only in-bag rows
count in a node; :mod:`jaxclassic.tree.cart`, "Split points"), so a row out of the bag, or a
new one, in the gap between the in-bag values goes to the nearer side as in scikit-learn.
Before issue 23 the split point was the upper edge of its bin (the next value of the whole
training set) and such rows always went right: on a 200-row regression with quarter-step
features (30 trees of depth 4), OOB :math:`R^2` 0.651 against 0.676 for scikit-learn trees
fitted to the same bootstrap counts; now 0.675, the rest from 4 trees where two features cut
a small node's in-bag rows alike and the two libraries pick different ones
(``tests/ensemble/test_review.py``).

References
----------
L. Breiman, "Random forests", *Machine Learning* 45 (2001) 5-32.
T. Hastie, R. Tibshirani, J. Friedman, *The Elements of Statistical Learning*, 2nd ed., ch. 15.
G. Louppe, *Understanding Random Forests*, PhD thesis, Liège 2014 (importances).
"""

from __future__ import annotations

import math
import numbers
import warnings
from functools import partial
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxclassic import _cores, _jit
from jaxclassic import tree as _tree
from jaxclassic.ensemble._api import decision_function, feature_importances, predict, predict_proba
from jaxclassic.ensemble.bagging import (
    MEMORY_BUDGET_BYTES,
    _counts,
    check_max_samples,
    check_n_estimators,
    check_targets,
    _host_slice,
    _padded_members,
    default_chunk_size,
    estimator_capacity,
    map_capacity,
    prediction_capacity,
    oob_sums,
)
from jaxclassic.tree.binning import bin_ranges, categorical_codes, check_categorical_features
from jaxclassic.tree.cart import _FIRST_WIDTH_SMALL as _FIRST_WIDTH
from jaxclassic.tree.cart import _SMALL_ROWS, TASK_CRITERIA, default_budget
from jaxclassic.tree.cart import TreeTruncatedWarning, _check_stopping_rules, _codes_have_missing
from jaxclassic.tree._engine import drawn_mode, histogram_buffers
from jaxclassic.tree import _sorted
from jaxclassic.tree.cart import _fit_binned as _tree_fit_binned
from jaxclassic._implicit import nondifferentiable
from jaxclassic.validation import (check_array, check_bool, check_choice, check_int, check_key,
                                   check_sample_weight, is_traced, key_from_seed)

#: why jax.grad through this fit raises (issue 14, :func:`jaxclassic._implicit.nondifferentiable`)
_NO_DERIVATIVE = (
    "it is built from trees, whose splits are discrete choices at thresholds between sample"
    " values: the fitted model is piecewise constant in the data and the hyperparameters"
)

__all__ = ["ForestParams", "ClassificationForest", "RegressionForest", "fit_random_forest", "forest_keys",
           "forest_budget", "FOREST_MAX_NODES", "FOREST_MAX_WIDTH"]

_PREDICT_CHUNK_BYTES = 256 << 20
#: Node budget of each tree of a forest with ``max_depth=None`` (unless ``max_nodes`` is given).
FOREST_MAX_NODES = 8191
#: Splits per level of each tree of a forest with ``max_depth=None`` (unless ``max_width`` is given).
FOREST_MAX_WIDTH = 64
#: The most splits per level at which such a forest regrows its truncated trees (:func:`_wide_width`).
FOREST_WIDE_WIDTH = 1024
#: The most bytes of a regrown tree's level histograms (:func:`_wide_width`).
FOREST_WIDE_BYTES = 512 << 20


class ForestParams(NamedTuple):
    """A fitted forest of ``E`` trees (``n`` training rows).

    Attributes
    ----------
    trees : ClassificationTree or RegressionTree
        The trees' params (:mod:`jaxclassic.tree._params`) stacked on a leading axis ``E``.
    counts : (E, n) int32
        Bootstrap counts of each tree (0: out of bag); with ``bootstrap=False``, 1 on every
        positive-weight row (no row is out of bag).
    sample_weight : (n,) float
        The training weights (weights of the out-of-bag score).
    """

    trees: _tree.TreeParams
    counts: jax.Array
    sample_weight: jax.Array


class ClassificationForest(ForestParams):
    """A random-forest classifier: probabilities are the trees' mean class fractions.

    ``n_classes`` (a read-only property, not a pytree leaf) is the class axis of the trees'
    ``value`` (a static shape: a Python int).
    """

    @property
    def n_classes(self) -> int:
        return int(self.trees.value.shape[-1])


class RegressionForest(ForestParams):
    """A random-forest regressor: the prediction is the trees' mean."""


def resolve_max_features(max_features, n_features: int, task: str) -> int | None:
    """Features per node: ``None`` (all), an int, a float share in (0, 1], ``"sqrt"``,
    ``"log2"``, ``"p/3"``, or ``"default"`` (``"sqrt"`` classification, ``"p/3"`` regression)."""
    if max_features == "default":
        max_features = "sqrt" if task == "classification" else "p/3"
    if max_features is None:
        return None
    if isinstance(max_features, str):
        rules = {"sqrt": math.sqrt, "log2": math.log2, "p/3": lambda p: p / 3}
        if max_features not in rules:
            raise ValueError(f"max_features must be None, an int in 1..{n_features}, a float in (0, 1], "
                             f"'sqrt', 'log2' or 'p/3', got {max_features!r}")
        k = max(1, int(rules[max_features](n_features)))
    elif isinstance(max_features, bool) or not isinstance(max_features, numbers.Real):
        raise ValueError(f"max_features must be None, an int, a float in (0, 1] or a string, got "
                         f"{type(max_features).__name__} {max_features!r}")
    elif isinstance(max_features, (numbers.Integral, np.integer)):
        if not 1 <= max_features <= n_features:
            raise ValueError(f"max_features must be an int in 1..{n_features}, got {max_features}")
        k = int(max_features)
    else:
        if not 0.0 < float(max_features) <= 1.0:
            raise ValueError(f"max_features must be a float in (0, 1], got {max_features!r}")
        k = max(1, int(float(max_features) * n_features))
    return None if k >= n_features else k


def forest_keys(key, n_estimators: int):
    """``(bootstrap_key, tree_keys (E,))`` of a forest: ``fold_in(key, 0)`` and
    ``fold_in(fold_in(key, 1), e)`` for ``e < E``."""
    tree_key = jax.random.fold_in(key, 1)
    return jax.random.fold_in(key, 0), jax.vmap(lambda e: jax.random.fold_in(tree_key, e))(jnp.arange(n_estimators))


def forest_budget(n_samples: int, max_depth: int | None, max_nodes=None, max_width=None):
    """Each tree's ``(max_nodes, max_width)``: ``cart.default_budget``, and with
    ``max_depth=None`` at most :data:`FOREST_MAX_NODES` slots and :data:`FOREST_MAX_WIDTH`
    splits per level (a bootstrap tree of the bundled data sets is at most 40 nodes wide).
    A given ``max_depth`` sizes the budget itself, not its ``cart.budget_depth`` bucket: a forest
    pays the width of every tree (RandomForestClassifier(20, max_depth=3) on breast_cancer took
    190 ms warm at depth 4's width against 100 ms at its own), more than the refit's compile
    (3.5 s) saves outside a search. The depth is still traced, so depths whose budgets agree
    (any depth past ``log2(n)``) share a program."""
    if max_depth is None:
        if max_nodes is None:
            max_nodes = min(2 * n_samples - 1, FOREST_MAX_NODES)
        if max_width is None:
            max_width = max(1, min((max_nodes - 1) // 2, n_samples // 2, FOREST_MAX_WIDTH))
    return default_budget(n_samples, max_depth, max_nodes, max_width)


def _n_stats(task, n_classes):
    """Statistics per row of a CART tree: the class counts, or ``[w, wy, wy^2]``."""
    return n_classes if task == "classification" else 3


def _wide_width(n_samples, n_features, n_bins, n_stats, max_nodes, max_features, itemsize, max_depth=None):
    """The width at which a forest regrows its truncated trees: at most
    ``min(n/2, (M - 1)/2, C)`` splits a level, ``C`` = :data:`FOREST_WIDE_WIDTH` for fully
    grown trees and the deepest level's ``2^(D-1)`` for a given ``max_depth``, halved until the
    level's histograms ``2 · 2W · F · (B + 1) · (S + 1)`` (``F`` the drawn features in the
    drawn-feature mode) fit :data:`FOREST_WIDE_BYTES`."""
    if drawn_mode(n_features, max_features):
        n_features = max_features
    cap = FOREST_WIDE_WIDTH if max_depth is None else 2 ** (max_depth - 1)
    width = max(1, min(n_samples // 2, (max_nodes - 1) // 2, cap))
    while width > FOREST_MAX_WIDTH and 4 * width * n_features * (n_bins + 1) * (n_stats + 1) * itemsize > FOREST_WIDE_BYTES:
        width //= 2
    return width


def _tree_bytes(n, n_features, n_bins, n_stats, max_nodes, max_width, itemsize, max_features=None):
    if drawn_mode(n_features, max_features):
        n_features = max_features
    return itemsize * (6 * (n_bins + 1) * (n_stats + 1) * n_features * 2 * max_width
                       + n * (n_stats + 8) + max_nodes * (n_stats + 12))


def fit_random_forest(
    X,
    y,
    *,
    task: str = "classification",
    n_estimators: int = 100,
    criterion: str | None = None,
    max_features="default",
    max_depth: int | None = None,
    min_samples_split: int = 2,
    min_samples_leaf: int = 1,
    min_weight_fraction_leaf: float = 0.0,
    min_impurity_decrease: float = 0.0,
    bootstrap: bool = True,
    max_samples: float | None = None,
    n_bins: int = 255,
    sample_weight=None,
    key=None,
    n_classes: int | None = None,
    chunk_size: int | None = None,
    max_nodes: int | None = None,
    max_width: int | None = None,
    categorical_features=None,
) -> ForestParams:
    r"""Fit a random forest: bin once, grow every tree over (bootstrap, key) in one program.

    Tree :math:`e` is CART on weights :math:`c_e \odot w`, ``max_features`` features drawn
    per node from its key (module docstring).

    Parameters
    ----------
    X : (n_samples, n_features) array-like
        Raw features; NaN = missing (the trees learn a side for it).
    y : (n_samples,) array-like
        Class codes ``0..C-1`` (at least two classes) or real targets; finite.
    task : {"classification", "regression"}
    n_estimators : int >= 1
        Trees; the programs are built for its bucket, ``bagging.estimator_capacity``
        (module docstring, "Programs and n_estimators").
    criterion : str, optional (static)
        ``"gini"`` (default), ``"entropy"``, ``"misclassification"``; ``"squared_error"``.
    max_features : "default", None, int, float in (0, 1], "sqrt", "log2", "p/3" (static)
        Features searched per node; ``"default"``: ``"sqrt"`` / ``"p/3"``.
    max_depth : int >= 1 or None
        An argument of the compiled program, not a static one; sizes the trees' budget (:func:`forest_budget`); depths with the same budget (past
        ``log2(n)``) share one program.
    min_samples_split, min_samples_leaf, min_weight_fraction_leaf, min_impurity_decrease
        As :func:`~jaxclassic.tree.fit_cart` (scikit-learn's rules; rows drawn several times
        count once, as scikit-learn's).
    bootstrap : bool
        False: every tree sees every row (randomness from the feature draws only).
    max_samples : float in (0, 1], optional
        Share of the positive-weight rows drawn per tree (default all).
    n_bins : int in 2..256 (static)
    sample_weight : (n_samples,) array-like, optional
        Rows of weight 0 have no influence (binning, draws, trees).
    key : jax.random key, optional (keyword-only)
        The bootstrap draws and every tree's feature draws (:func:`forest_keys`). None: the
        fixed key ``jax.random.key(0)``, so a call is deterministic (same key, same forest).
    n_classes : int, optional (static)
    chunk_size : int, optional
        Trees per ``vmap`` batch. Default: on a CPU one tree after another (``lax.scan``),
        elsewhere as many as the memory budget allows (module docstring, "Growing the trees").
        A batch holds a power of two of trees (at most ``chunk_size``), batches past ``E``
        are not run (``bagging.map_capacity``).
    max_nodes, max_width : int, optional (static)
        Node budget and level width of each tree (``cart.default_budget``).
    categorical_features : None, (n_features,) bool or integer indices, optional
        Features whose values are category codes ``0..n_bins - 1`` (NaN: missing), split by
        sets of categories in every tree (:func:`jaxclassic.tree.fit_cart`). None: every
        feature numeric (the program without it).

    Returns
    -------
    ClassificationForest or RegressionForest
        One function for both tasks (``task=``), as the algorithm is shared: only the trees'
        criterion and leaf values differ. ``n_classes``: a property of the classifier.

    Notes
    -----
    ``criterion``'s default differs from the estimator's: one function serves both tasks, so
    None picks the task's criterion, ``"gini"`` (``RandomForestClassifier``'s default) or
    ``"squared_error"`` (``RandomForestRegressor``'s).

    ``max_features``'s default differs from the estimator's: ``"default"`` is ``"sqrt"`` for
    classification (``RandomForestClassifier``'s default) and ``"p/3"`` for regression
    (Breiman's recommendation, ESL §15.3), where ``RandomForestRegressor`` keeps
    scikit-learn's ``1.0`` (every feature: bagged trees). Pass ``max_features=1.0`` for
    scikit-learn's regression forest; the functional default is kept so existing calls do not
    change.

    Examples
    --------
    >>> import jax, numpy as np
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0], [4.0], [5.0]]); y = np.array([0, 0, 0, 1, 1, 1])
    >>> forest = fit_random_forest(X, y, n_estimators=5, key=jax.random.key(0), n_bins=8)
    >>> forest.counts.shape, predict(forest, np.array([[0.5], [4.5]])).tolist()
    ((5, 6), [0, 1])

    References
    ----------
    Breiman 2001; ESL ch. 15.
    """
    # jax.grad / jax.jvp through this fit raise a TypeError naming it (issue 14)
    X, y, sample_weight, min_weight_fraction_leaf, min_impurity_decrease = (
        nondifferentiable("fit_random_forest", a, reason=_NO_DERIVATIVE) if is_traced(a) else a
        for a in (X, y, sample_weight, min_weight_fraction_leaf, min_impurity_decrease))
    task = check_choice(task, "task", tuple(TASK_CRITERIA))
    criterion = check_choice(criterion or TASK_CRITERIA[task][0], "criterion", TASK_CRITERIA[task])
    n_estimators = check_n_estimators(n_estimators)
    bootstrap = check_bool(bootstrap, "bootstrap")
    max_samples = 1.0 if max_samples is None else check_max_samples(max_samples)
    key = key_from_seed(0) if key is None else check_key(key)
    n_bins = check_int(n_bins, "n_bins", low=2, high=256)
    if max_depth is not None:
        max_depth = check_int(max_depth, "max_depth", low=1)
    if chunk_size is not None:
        chunk_size = check_int(chunk_size, "chunk_size", low=1)
    Xc = check_array(X, "X", allow_nan=True)
    n_samples, n_features = Xc.shape
    max_features = resolve_max_features(max_features, n_features, task)
    sw = check_sample_weight(sample_weight, n_samples, dtype=Xc.dtype)
    if np.shape(y) != (n_samples,):
        raise ValueError(f"y must have shape ({n_samples},), got {np.shape(y)}")
    if n_classes is not None:
        n_classes = check_int(n_classes, "n_classes", low=2)
    y, n_classes = check_targets(y, sw, classification=task == "classification", n_classes=n_classes)
    y = jnp.asarray(y) if task == "classification" else check_array(y, "y", ndim=1, dtype=Xc.dtype)
    auto_width = max_width is None
    max_nodes, max_width = forest_budget(n_samples, max_depth, max_nodes, max_width)

    categorical = check_categorical_features(categorical_features, n_features)
    codes, edges = _tree.bin_features(Xc, n_bins, sample_weight=sw)
    ranges = bin_ranges(Xc, codes, n_bins, sample_weight=sw)
    if categorical is not None:
        codes = categorical_codes(Xc, codes, categorical, n_bins)
    # every array of trees has E_cap = estimator_capacity(E) members, those past E dead (module
    # docstring, "Programs and n_estimators"): draws and keys depend on the tree's index only
    capacity = estimator_capacity(n_estimators)
    tree_keys, counts, weights = _draws(key, sw, max_samples, bootstrap=bootstrap, capacity=capacity)
    live = jax.device_put(np.arange(capacity) < n_estimators)

    if chunk_size is None and jax.default_backend() == "cpu":
        # one tree after another in one compiled program (module docstring, "Growing the trees")
        min_samples_split, min_samples_leaf = _check_stopping_rules(
            min_samples_split, min_samples_leaf, min_weight_fraction_leaf, min_impurity_decrease, n_samples)
        grow_args = (codes, edges, tuple(jnp.asarray(r, edges.dtype) for r in ranges), y, weights, tree_keys,
                     min_samples_split, min_samples_leaf, min_weight_fraction_leaf, min_impurity_decrease,
                     max_nodes if max_depth is None else max_depth)
        has_missing = _codes_have_missing(codes, edges.shape[1] + 1)
        # small regression data: the sorted engine (tree/_sorted.py, use_sorted), each
        # feature's order sorted once for all the trees
        sort, order = _sorted.plan(codes, edges.shape[1] + 1, max_depth, regression=task == "regression",
                                   has_missing=has_missing, max_features=max_features)
        if categorical is not None:  # the sorted engine has no categorical split
            sort, order = False, None
        static = dict(task=task, criterion=criterion, n_bins=edges.shape[1] + 1, max_features=max_features,
                      max_nodes=max_nodes, n_classes=n_classes, has_missing=has_missing, sort=sort)
        # small classification data: every tree grown narrow first, the truncated ones again at
        # the default width (module docstring, "Growing the trees")
        narrow = (auto_width and task == "classification" and n_samples <= _SMALL_ROWS and max_width > _FIRST_WIDTH
                  and not any(is_traced(a) for a in jax.tree_util.tree_leaves(grow_args)))
        concrete = not any(is_traced(a) for a in jax.tree_util.tree_leaves(grow_args))
        widths = [_FIRST_WIDTH] if narrow else []
        widths.append(max_width)
        if auto_width and concrete:
            # deep trees of large data: the truncated ones again, wider (module docstring)
            wide = _wide_width(n_samples, n_features, edges.shape[1] + 1, _n_stats(task, n_classes), max_nodes,
                               max_features, sw.dtype.itemsize, max_depth)
            if wide > max_width:
                widths.append(wide)
        # the CPU's cores as devices (opt-in, jaxclassic._cores): each grows its block of the trees
        mesh = None if sort else _cores.member_mesh(capacity, n_samples, X, y, sw)

        def grow_trees(grow, width):
            if mesh is None:
                return _grow_trees(*grow_args, grow, order, categorical, max_width=width, **static)
            return _cores.run_split(_grow_trees, mesh, grow_args + (grow, order, categorical), {4: 0, 5: 0, 11: 0},
                                    dict(static, max_width=width), split_outputs=True)

        trees, truncated = grow_trees(live, widths[0])
        for width in widths[1:]:
            if not np.any(np.asarray(truncated)):
                break
            # only the truncated trees are grown again (the others are skipped, as dead trees)
            regrown, still = grow_trees(truncated, width)
            trees = _where_trees(truncated, regrown, trees)
            truncated = truncated & still
        if concrete and np.any(np.asarray(truncated)):
            warnings.warn(
                f"{int(np.sum(np.asarray(truncated)))} of {n_estimators} trees reached their node budget "
                f"(max_nodes={max_nodes}) or level width (max_width={widths[-1]}); nodes that could split were "
                "left as leaves (a smaller max_depth gives trees that fit; fit_random_forest also takes max_nodes / "
                "max_width, whose level histograms take 4 x max_width x features x (bins + 1) x (statistics + 1) "
                "values)", TreeTruncatedWarning, stacklevel=2)
        trees = _first(trees, n_estimators)
    else:
        if chunk_size is None:
            n_stats = _n_stats(task, n_classes)
            per_tree = _tree_bytes(n_samples, n_features, n_bins, n_stats, max_nodes, max_width, sw.dtype.itemsize,
                                   max_features)
            chunk_size = default_chunk_size(capacity, per_tree, MEMORY_BUDGET_BYTES)

        def one(w, k):
            return _tree.fit_cart_binned(
                codes, edges, y, task=task, criterion=criterion, max_depth=max_depth,
                min_samples_split=min_samples_split, min_samples_leaf=min_samples_leaf,
                min_weight_fraction_leaf=min_weight_fraction_leaf, min_impurity_decrease=min_impurity_decrease,
                max_features=max_features, sample_weight=w, key=k, n_classes=n_classes,
                max_nodes=max_nodes, max_width=max_width, bin_ranges=ranges, categorical_features=categorical)

        # a chunk's dead trees (past E) have no rows: they stop at their root
        weights = weights * live[:, None].astype(weights.dtype)
        trees = map_capacity(one, (weights, tree_keys), n_estimators, chunk_size)
    counts = _first(counts, n_estimators)
    cls = ClassificationForest if task == "classification" else RegressionForest
    return cls(trees, counts, sw)


@partial(_jit.jit, static_argnames=("bootstrap", "capacity"))
def _draws(key, sample_weight, max_samples, *, bootstrap, capacity):
    """``(tree_keys (E_cap,), counts (E_cap, n) int32, weights (E_cap, n))`` of a forest's first
    ``E_cap`` trees (:func:`forest_keys`, ``bagging._counts``; ``weights = counts * w``) in one
    program."""
    boot_key, tree_keys = forest_keys(key, capacity)
    positive = sample_weight > 0
    if bootstrap:
        counts = _counts(boot_key, positive, max_samples, capacity)
    else:
        counts = jnp.broadcast_to(positive.astype(jnp.int32), (capacity, sample_weight.shape[0]))
    return tree_keys, counts, counts.astype(sample_weight.dtype) * sample_weight


def _first(tree, n: int):
    """The first ``n`` members of a stacked pytree: sliced on the host for concrete arrays (no
    program for a new ``n``), by ``jax`` inside a trace."""
    if any(is_traced(a) for a in jax.tree.leaves(tree)):
        return jax.tree.map(lambda a: a[:n], tree)
    return _host_slice(tree, n)


@partial(_jit.jit, static_argnames=("task", "criterion", "n_bins", "max_features", "max_nodes",
                                   "max_width", "n_classes", "has_missing", "sort"))
def _grow_trees(codes, edges, ranges, y, weights, keys, min_samples_split, min_samples_leaf,
                min_weight_fraction_leaf, min_impurity_decrease, max_depth, grow, order=None, categorical=None, *, task,
                criterion,
                n_bins, max_features, max_nodes, max_width, n_classes, has_missing, sort=False):
    """The trees of weights ``(E_cap, n)`` and keys ``(E_cap,)`` where ``grow`` ``(E_cap,)``
    bool, one after another (``lax.scan``): each tree's ``while_loop`` runs its own levels,
    where a ``vmap`` of trees runs the deepest tree's levels for all and selects every carry
    (histograms) at every step; one program of one tree's size (module docstring, "Growing
    the trees"). A tree with ``grow`` false is skipped (``lax.cond``: no work; all-zero arrays
    and ``truncated`` false): the dead trees past ``E`` and, on a regrowth, the trees that
    were not truncated. The engine's working buffers are made once and carried from tree to
    tree (``_engine.grow``: zeroing them per tree wrote 47 MB a tree on breast_cancer).
    ``sort`` (static): the trees grow by the sorted engine from ``order`` (each feature's rows
    by code, ``tree/_sorted.py``), with no buffers.
    Returns the trees and each one's ``truncated`` flag (E_cap,)."""
    feature_mask = jnp.ones((codes.shape[1],), bool)
    if sort:
        buffers = ()
    else:
        buffers = histogram_buffers(codes.shape[1], n_bins, _n_stats(task, n_classes), max_width, edges.dtype,
                                    max_features)

    def one(buffers, weight_key_grow):
        weight, key, grow_one = weight_key_grow

        def fit(buffers):
            return _tree_fit_binned(
                codes, edges, ranges, y, weight, feature_mask, key, min_samples_split,
                min_samples_leaf, min_weight_fraction_leaf, min_impurity_decrease, max_depth, order, categorical,
                task=task,
                criterion=criterion, n_bins=n_bins, max_features=max_features, max_nodes=max_nodes,
                max_width=max_width, n_classes=n_classes, has_missing=has_missing, buffers=buffers, sort=sort)

        def skip(buffers):
            tree, truncated, _ = jax.eval_shape(fit, buffers)
            return jax.tree.map(lambda a: jnp.zeros(a.shape, a.dtype), tree), jnp.zeros((), bool), buffers

        tree, truncated, buffers = jax.lax.cond(grow_one, fit, skip, buffers)
        return buffers, (tree, truncated)

    return jax.lax.scan(one, buffers, (weights, keys, grow))[1]


@_jit.jit
def _where_trees(pick, a, b):
    """The trees of ``a`` where ``pick`` (E,), else those of ``b``."""
    return jax.tree.map(lambda x, y: jnp.where(pick.reshape((-1,) + (1,) * (x.ndim - 1)), x, y), a, b)


# --------------------------------------------------------------------------- prediction
@partial(_jit.jit, static_argnames=("chunk",))
def _sum_trees(trees, X, mask, chunk):
    """``(sum_e mask[e, i] * out_e(x_i), sum_e mask[e, i])``: the trees' class fractions
    ``(n, C)`` or values ``(n,)``, summed ``chunk`` trees at a time (a scan over chunks of a
    vmap); ``mask`` is ``(E, n)`` or ``(E, 1)``."""
    classification = isinstance(trees, _tree.ClassificationTree)
    n_trees = mask.shape[0]
    n_chunks = -(-n_trees // chunk)
    pad = n_chunks * chunk - n_trees

    def blocks(a):
        a = jnp.concatenate([a, jnp.repeat(a[-1:], pad, axis=0)]) if pad else a
        return a.reshape((n_chunks, chunk) + a.shape[1:])

    mask_b = blocks(mask).at[n_chunks - 1, chunk - pad:].set(0) if pad else blocks(mask)
    trees_b = jax.tree.map(blocks, trees)

    def member(t):
        return _tree.predict_proba(t, X) if classification else _tree.predict(t, X)

    def body(acc, tm):
        t, m = tm
        out = jax.vmap(member)(t)
        m = m.astype(out.dtype)
        return acc + jnp.sum((m[..., None] if classification else m) * out, axis=0), None

    proto = jax.eval_shape(member, jax.tree.map(lambda a: a[0], trees))
    total, _ = jax.lax.scan(body, jnp.zeros(proto.shape, proto.dtype), (trees_b, mask_b))
    return total, jnp.sum(jnp.broadcast_to(mask, (n_trees, X.shape[0])), axis=0)


#: the fields of a tree that routing and prediction read (the others: empty on the padded copy)
_PREDICT_FIELDS = ("children_left", "children_right", "feature", "threshold", "missing_left", "value", "is_leaf")
#: the fields that ``tree.feature_importances`` reads
_IMPORTANCE_FIELDS = ("children_left", "children_right", "feature", "is_leaf", "impurity",
                      "weighted_n_node_samples", "n_nodes")


def _padded(params, mask, fields):
    """The trees and ``mask`` ((E, n) or (E, 1), numpy or jax) of concrete params padded on
    the host to :func:`~jaxclassic.ensemble.bagging.prediction_capacity` ``(E)`` trees, the
    padding masked out (repeats of the last tree, mask 0), so that a forest of any ``E`` in a
    bucket is summed by one program; traced params as they are. Only ``fields`` are copied;
    the others become empty ``(E_cap, 0)`` arrays (``bin_edges``: ``(E_cap, F, 0)``, which
    keeps ``n_features``), a third of the bytes for prediction; the copy is kept for the next
    call (``bagging._padded_members``)."""
    trees = params.trees
    if any(is_traced(a) for a in jax.tree.leaves((trees, mask))):
        return trees, jnp.asarray(mask)
    n_trees = np.shape(mask)[0]
    capacity = prediction_capacity(n_trees)
    mask = np.asarray(mask)
    mask = np.concatenate([mask, np.zeros((capacity - n_trees,) + mask.shape[1:], mask.dtype)])
    if _tree._params.has_categories(trees):  # categorical splits route by their sets too
        fields = tuple(fields) + ("categorical", "left_categories")
    return _padded_members(trees, capacity, fields), mask


def _forest_sums(params, X, mask):
    X = check_array(X, "X", allow_nan=True)
    trees, mask = _padded(params, mask, _PREDICT_FIELDS)
    n_trees = mask.shape[0]
    n_out = params.trees.value.shape[-1] if isinstance(params, ClassificationForest) else 1
    per_tree = max(1, X.shape[0] * n_out * X.dtype.itemsize)
    chunk = int(max(1, min(n_trees, _PREDICT_CHUNK_BYTES // per_tree)))
    return _sum_trees(trees, X, mask, chunk)


def _every_tree(params):
    """The mask (E, 1) int32 of every tree (numpy for concrete params: no program per ``E``)."""
    if is_traced(params.counts):
        return jnp.ones((params.counts.shape[0], 1), jnp.int32)
    return np.ones((params.counts.shape[0], 1), np.int32)


def _proba(params, X):
    total, n = _forest_sums(params, X, _every_tree(params))
    return _fractions(total, n)


@_jit.jit
def _fractions(total, n):
    return total / n[:, None]


def _predict_class(params, X):
    return jnp.argmax(_proba(params, X), axis=1).astype(jnp.int32)


def _predict_value(params, X):
    total, n = _forest_sums(params, X, _every_tree(params))
    return _ratio(total, n)


@_jit.jit
def _ratio(total, n):
    return total / n


def _oob_sums(params, X):
    out_of_bag = params.counts == 0 if is_traced(params.counts) else np.asarray(params.counts) == 0
    return _forest_sums(params, X, out_of_bag)


def _importances(params):
    """:func:`_importances_of` the trees padded to their prediction capacity (one program per
    bucket)."""
    trees, live = _padded(params, _every_tree(params)[:, 0], _IMPORTANCE_FIELDS)
    return _importances_of(trees, live)


@_jit.jit
def _importances_of(trees, live):
    r"""scikit-learn's ``feature_importances_``: the mean of the trees' normalised impurity
    decreases over the trees with a split (and ``live``), renormalised to sum 1."""
    imp = jax.vmap(_tree.feature_importances)(trees)  # (E, F)
    has_split = ((trees.n_nodes > 1) & (live > 0)).astype(imp.dtype)
    mean = jnp.sum(has_split[:, None] * imp, axis=0) / jnp.maximum(jnp.sum(has_split), 1)
    total = jnp.sum(mean)
    return jnp.where(total > 0, mean / jnp.where(total > 0, total, 1), 0)


predict.register(ClassificationForest, _predict_class)
predict.register(RegressionForest, _predict_value)
predict_proba.register(ClassificationForest, _proba)
decision_function.register(ClassificationForest, _proba)
feature_importances.register(ForestParams, _importances)
oob_sums.register(ForestParams, _oob_sums)
