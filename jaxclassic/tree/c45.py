r"""C4.5: gain-ratio trees with continuous thresholds, missing values and pessimistic pruning.

Split criterion (Quinlan 1993, ch. 2). At a node with case weights :math:`w_i` and total
:math:`N = \sum_i w_i`, for an attribute :math:`A` with known values on the cases
:math:`S_K` (weight :math:`N_K`) and unknown on the rest (:math:`N_U = N - N_K`),

.. math::

    \mathrm{gain}(A) = \frac{N_K}{N}\Big(H(S_K) - \sum_{b} \frac{N_b}{N_K} H(S_b)\Big), \qquad
    \mathrm{split\ info}(A) = -\sum_{b} \frac{N_b}{N}\log_2\frac{N_b}{N}
                              - \frac{N_U}{N}\log_2\frac{N_U}{N}, \qquad
    \mathrm{gain\ ratio}(A) = \frac{\mathrm{gain}(A)}{\mathrm{split\ info}(A)},

(the unknown cases count as one more branch in the split information, Quinlan 1993 §3.1).
Among the attributes with a valid split, only those whose gain is at least the average gain
(less ``1e-3``, C4.5's epsilon) are eligible; the eligible attribute of greatest gain ratio
wins (ties within ``1e-6``: the lowest column). A categorical split has one branch per category and is
valid when at least two branches hold ``min_samples_leaf`` (Quinlan's MINOBJS) of weight; a
categorical attribute is not tested again below itself. A continuous attribute is split in
two, ``x <= t`` (branch 0) and ``x > t`` (branch 1): candidate cuts lie between consecutive
distinct known values with at least ``MinSplit = clip(0.1 N_K / C, MINOBJS, 25)`` weight on
each side; the cut of greatest gain is kept and its gain is charged
:math:`\log_2(\#\mathrm{candidates}) / N` (C4.5 release 8 and Weka J48, Quinlan 1996); the
threshold is the largest training value not exceeding the midpoint of the cut (C4.5 r8, J48:
thresholds are data values, e.g. ``humidity <= 75``). No valid, positive-gain-ratio split, a pure
node, fewer than ``2 MINOBJS`` of weight, or ``max_depth``: a leaf.

Missing values (NaN). Training: a case whose tested value is unknown goes down every branch
:math:`b` with weight :math:`w_i N_b / N_K` (the known branch fractions, stored per node as
``branch_fraction``). Prediction: a row with an unknown tested value (NaN, or a category
unseen in training) goes down all branches with those fractions and the class distributions
of the leaves it reaches are summed with the products of the fractions on their paths.

Pessimistic pruning (Quinlan 1993, ch. 4). A node with training weight :math:`N` and
:math:`E` misclassified (as a leaf) has estimated errors :math:`N\,U_{CF}(E, N)`, where
:math:`U_{CF}(E, N)` is the upper limit of the binomial confidence interval of level
``confidence_factor`` (CF, 0.25): the :math:`p` solving
:math:`P(\mathrm{Bin}(N, p) \le E) = CF`, i.e. :math:`I_p(E + 1, N - E) = 1 - CF`
(regularized incomplete beta). Here it is solved **exactly** by bisection on
``jax.scipy.special.betainc`` (fractional :math:`E, N` included); C4.5's code and Weka use a
normal approximation, so the book's :math:`U_{0.25}(1, 16) = 0.157` is 0.160 here (the
:math:`E = 0` values 0.206, 0.143, 0.750 agree). Bottom-up, a subtree is replaced by a leaf
when the leaf's estimate is at most the sum of its leaves' estimates plus 0.1 (C4.5's and J48's
slack). Before pruning, a subtree that does not reduce the training errors of its root (by
more than 1e-3) is collapsed (``collapse=True``, J48's default). Subtree raising is not done.

Departures from C4.5 release 8 / Weka J48, all small: the pessimistic bound is the exact
binomial limit (above), not the normal approximation; no subtree raising; no subset
(grouped-value) tests; the average-gain guard does not exclude attributes with many values
(C4.5's ``0.3 * cases`` rule); distinct values are cut at strict ``<`` (J48: a gap over
``1e-5``); the ``2 MinSplit`` requirement of a continuous attribute is on known weight (J48:
known row count); an empty branch holds its parent's class distribution (C4.5: the parent's
majority class). Reproduced exactly: J48's trees on weather.nominal, weather.numeric and iris,
and Quinlan's unknown-value example of ch. 3 (see ``tests/tree/test_c45.py``).

Feature importances (``jaxclassic.tree.feature_importances``): the total
:math:`W_t\,\mathrm{gain}_t` of the splits kept after pruning on each feature (``gain`` as the
split was chosen: known-weight factor and threshold charge included), normalised to sum 1.

Growth runs on the host (a Python loop over nodes, pre-order); each node's statistics (for
every feature: gain, split information, validity, and the best cut of a continuous feature)
are one jitted JAX call on full-length weight vectors (sort orders computed once). Prediction
is jitted: the fraction of a row reaching each node is propagated level by level
(``max(depth)`` steps).

References
----------
J. R. Quinlan, *C4.5: Programs for Machine Learning*, Morgan Kaufmann 1993 (ch. 2 gain ratio,
ch. 3 unknown values, ch. 4 pruning).
J. R. Quinlan, "Improved use of continuous attributes in C4.5", JAIR 4 (1996) 77-90.
J. R. Quinlan, "Induction of decision trees", Machine Learning 1 (1986) 81-106.
T. M. Mitchell, *Machine Learning*, McGraw-Hill 1997, ch. 3 (§3.7 continuous attributes,
missing values, gain ratio; rule post-pruning).
"""

from __future__ import annotations

from functools import partial
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxclassic import _jit
from jaxclassic.information import entropy
from jaxclassic.tree import _api
from jaxclassic.tree._multiway import (
    feature_importances as _feature_importances,
    NodeStore,
    check_codes,
    check_confidence_factor,
    collapse_tree,
    contingency,
    pessimistic_prune,
    resolve_n_categories,
    soft_reach,
    upper_error_bound,
)
from jaxclassic._implicit import nondifferentiable
from jaxclassic.validation import (
    check_array,
    check_bool,
    check_choice,
    check_classification_targets,
    check_consistent_length,
    check_int,
    check_sample_weight,
    check_scalar,
    is_traced,
)

#: why jax.grad through this fit raises (issue 14, :func:`jaxclassic._implicit.nondifferentiable`)
_NO_DERIVATIVE = (
    "its splits are discrete choices (the best impurity decrease) at thresholds between sample"
    " values, so the fitted tree is piecewise constant in the data and the hyperparameters"
)

__all__ = ["C45Params", "SplitScores", "fit_c45", "gain_ratio", "pessimistic_prune", "upper_error_bound"]

_EPSILON = 1e-3        # C4.5's Epsilon: the average-gain guard
_TIE = 1e-6            # Weka's Utils.gr tolerance: ratio ties, minimum positive gain


class C45Params(NamedTuple):
    """A fitted C4.5 tree (``M`` nodes in pre-order, ``K`` branch slots, ``C`` classes, ``F`` features).

    Attributes
    ----------
    feature : (M,) int32
        Tested feature; ``-1`` at leaves.
    threshold : (M,) float
        Continuous split point (branch 0: ``x <= threshold``, branch 1: ``x > threshold``);
        NaN for categorical splits and leaves.
    children : (M, K) int32
        Child per branch (category code, or 0/1 for a threshold); ``-1`` where none.
    branch_fraction : (M, K) float
        Fraction of the known training weight going down each branch (used for missing values).
    value : (M, C) float
        Weighted class fractions at every node (an empty branch: its parent's).
    weighted_n_node_samples : (M,) float
        Training weight reaching the node, fractional cases included.
    n_node_samples : (M,) int32
        Training rows with positive (possibly fractional) weight at the node.
    is_leaf : (M,) bool
    depth : (M,) int32
    gain, gain_ratio : (M,) float
        The split's (penalised, for thresholds) gain and gain ratio; NaN at leaves.
    n_nodes : () int32
    n_categories : (F,) int32
        Categories known per categorical feature (0 for continuous features).
    categorical : (F,) bool

    ``n_classes`` (a read-only property, not a pytree leaf) is ``C``, the class axis of
    ``value`` (a static shape: a Python int).
    """

    feature: jax.Array
    threshold: jax.Array
    children: jax.Array
    branch_fraction: jax.Array
    value: jax.Array
    weighted_n_node_samples: jax.Array
    n_node_samples: jax.Array
    is_leaf: jax.Array
    depth: jax.Array
    gain: jax.Array
    gain_ratio: jax.Array
    n_nodes: jax.Array
    n_categories: jax.Array
    categorical: jax.Array

    @property
    def n_classes(self) -> int:
        return int(self.value.shape[-1])


class SplitScores(NamedTuple):
    """Per-feature split scores at one node (arrays of shape (F,)).

    ``gain`` (bits, thresholds penalised), ``split_info`` (bits), ``gain_ratio``
    (``gain / split_info``; 0 where invalid), ``threshold`` (continuous features; NaN for
    categorical or invalid), ``valid`` (a split satisfying MINOBJS exists), ``eligible``
    (valid and gain at least the average of the valid gains).
    """

    gain: jax.Array
    split_info: jax.Array
    gain_ratio: jax.Array
    threshold: jax.Array
    valid: jax.Array
    eligible: jax.Array


# --------------------------------------------------------------------------- node statistics (JAX)
def _continuous_column(x, order, y, w, total, min_objs, n_classes):
    xs, ws, ys = x[order], w[order], y[order]
    known = ~jnp.isnan(xs) & (ws > 0)
    wk = jnp.where(known, ws, 0.0)
    left = jnp.cumsum(jax.nn.one_hot(ys, n_classes, dtype=w.dtype) * wk[:, None], axis=0)
    class_known = left[-1]
    n_known = jnp.sum(class_known)
    n_left = jnp.sum(left, axis=1)
    n_right = n_known - n_left
    values = jnp.where(known, xs, jnp.inf)
    suffix_min = jax.lax.cummin(values, reverse=True)
    following = jnp.concatenate([suffix_min[1:], jnp.full((1,), jnp.inf, xs.dtype)])
    min_split = jnp.clip(0.1 * n_known / n_classes, min_objs, 25.0)
    candidate = (known & jnp.isfinite(following) & (following > xs)
                 & (n_left >= min_split - _TIE) & (n_right >= min_split - _TIE))
    right = jnp.maximum(class_known[None, :] - left, 0.0)
    safe = jnp.where(n_known > 0, n_known, 1.0)
    info = entropy(class_known) - (n_left * entropy(left, axis=-1) + n_right * entropy(right, axis=-1)) / safe
    gains = jnp.where(candidate, (n_known / total) * info, -jnp.inf)
    best = jnp.argmax(gains)
    tries = jnp.sum(candidate)
    gain = gains[best] - jnp.log2(jnp.maximum(tries, 1)) / total
    valid = (tries > 0) & (gains[best] > _TIE) & (gain > _TIE) & (n_known >= 2 * min_split - _TIE)
    split_info = entropy(jnp.stack([total - n_known, n_left[best], n_right[best]]))
    return jnp.where(valid, gain, 0.0), split_info, valid, xs[best], following[best]


@partial(_jit.jit, static_argnames=("n_bins", "n_classes"))
def _node_statistics(x_cont, order, x_cat, y, w, min_objs, n_bins, n_classes):
    """Gain, split information, validity (and the best cut) of every feature at one node."""
    total = jnp.sum(w)
    column = partial(_continuous_column, y=y, w=w, total=total, min_objs=min_objs, n_classes=n_classes)
    cont = jax.vmap(column, in_axes=(1, 0))(x_cont, order)
    table = contingency(x_cat, y, w, n_bins + 1, n_classes)   # bin n_bins: unknown
    known = table[:, :n_bins, :]
    n_branch = jnp.sum(known, axis=2)                          # (Fd, V)
    n_known = jnp.sum(n_branch, axis=1)
    class_known = jnp.sum(known, axis=1)
    safe = jnp.where(n_known > 0, n_known, 1.0)
    info = entropy(class_known, axis=-1) - jnp.sum(n_branch * entropy(known, axis=-1), axis=1) / safe
    gain = (n_known / total) * info
    split_info = entropy(jnp.concatenate([n_branch, (total - n_known)[:, None]], axis=1), axis=-1)
    valid = (jnp.sum(n_branch >= min_objs - _TIE, axis=1) >= 2) & (n_known > 0)
    class_counts = jax.ops.segment_sum(w, y, n_classes)
    return cont, (jnp.where(valid, gain, 0.0), split_info, valid), class_counts


# --------------------------------------------------------------------------- validation
def _categorical_mask(categorical, n_features):
    if categorical is None:
        return np.zeros(n_features, bool)
    if isinstance(categorical, (bool, np.bool_)):
        return np.full(n_features, bool(categorical))
    mask = np.asarray(categorical)
    if mask.dtype != bool:
        raise TypeError(f"categorical must be a bool or a bool mask of the columns, got dtype {mask.dtype}")
    if mask.shape != (n_features,):
        raise ValueError(f"categorical must have shape ({n_features},), got {mask.shape}")
    return mask


class _Data(NamedTuple):
    X: np.ndarray
    y: np.ndarray
    weight: np.ndarray
    n_classes: int
    mask: np.ndarray
    n_categories: np.ndarray


def _validate(X, y, categorical, sample_weight, n_categories, n_classes, min_classes=1):
    X = np.asarray(check_array(X, "X", allow_nan=True, _numpy=True))
    mask = _categorical_mask(categorical, X.shape[1])
    cat_cols = np.flatnonzero(mask)
    check_codes(X, "X", cat_cols)
    if n_classes is not None:
        n_classes = check_int(n_classes, "n_classes", low=1)
    weight = np.asarray(check_sample_weight(sample_weight, X.shape[0], dtype=X.dtype))
    check_consistent_length(X=X, y=np.asarray(y))
    y_codes, n_classes = check_classification_targets(y, "y", min_classes=min_classes,
                                                      n_classes=n_classes, sample_weight=weight)
    n_cat = resolve_n_categories(n_categories, X, weight, cat_cols)
    return _Data(X, np.asarray(y_codes), weight, n_classes, mask, n_cat)


def _device_inputs(data: _Data):
    cont_cols = np.flatnonzero(~data.mask)
    cat_cols = np.flatnonzero(data.mask)
    x_cont = data.X[:, cont_cols]
    order = np.argsort(x_cont, axis=0, kind="stable").T.astype(np.int32)   # NaN sort last
    n_bins = int(data.n_categories.max()) if cat_cols.size else 1
    x_cat = data.X[:, cat_cols]
    x_cat = np.where(np.isnan(x_cat), n_bins, x_cat).astype(np.int32)
    x_cat = np.where(x_cat > n_bins, n_bins, x_cat)   # zero-weight rows with unseen codes
    return (jnp.asarray(x_cont), jnp.asarray(order), jnp.asarray(x_cat), jnp.asarray(data.y)), \
        cont_cols, cat_cols, n_bins


def _scores(stats, cont_cols, cat_cols, n_features, dtype):
    (c_gain, c_info, c_valid, c_lo, c_hi), (d_gain, d_info, d_valid), _ = stats
    gain = np.zeros(n_features, dtype)
    info = np.zeros(n_features, dtype)
    valid = np.zeros(n_features, bool)
    lo = np.full(n_features, np.nan, dtype)
    hi = np.full(n_features, np.nan, dtype)
    gain[cont_cols], info[cont_cols], valid[cont_cols] = c_gain, c_info, c_valid
    lo[cont_cols], hi[cont_cols] = c_lo, c_hi
    gain[cat_cols], info[cat_cols], valid[cat_cols] = d_gain, d_info, d_valid
    return gain, info, valid, lo, hi


def _select(gain, info, valid):
    """Quinlan's guard: eligible = valid and gain >= average valid gain - epsilon; best ratio."""
    if not valid.any():
        return None, np.zeros_like(valid), np.zeros_like(gain)
    average = gain[valid].mean()
    eligible = valid & (gain >= average - _EPSILON) & (info > _TIE)
    ratio = np.where(valid & (info > _TIE), gain / np.where(info > _TIE, info, 1.0), 0.0)
    scored = np.where(eligible, ratio, -np.inf)
    if not eligible.any() or scored.max() <= _TIE:
        return None, eligible, ratio
    return int(np.flatnonzero(scored >= scored.max() - _TIE)[0]), eligible, ratio


def _threshold(sorted_values, lo, hi):
    """The largest training value not exceeding the midpoint of the cut (C4.5 r8, J48)."""
    mid = 0.5 * (lo + hi)
    if mid >= hi:   # rounding: keep the lower value
        mid = lo
    return float(sorted_values[np.searchsorted(sorted_values, mid, side="right") - 1])


def gain_ratio(X, y, *, categorical=None, min_samples_leaf=2, sample_weight=None,
               n_categories=None, n_classes=None) -> SplitScores:
    r"""C4.5's split scores of every feature at the root: gain, split information, gain ratio.

    .. math:: \mathrm{gain\ ratio}(A) = \frac{\frac{N_K}{N}\big(H(S_K) - \sum_b \frac{N_b}{N_K} H(S_b)\big)}
              {-\sum_b \frac{N_b}{N}\log_2\frac{N_b}{N} - \frac{N_U}{N}\log_2\frac{N_U}{N}}

    with the continuous features' best cut and its :math:`\log_2(\#\mathrm{cuts})/N` charge
    (see the module docstring).

    Parameters
    ----------
    X : array-like (n_samples, n_features) float, NaN for missing
    y : array-like (n_samples,) int class codes
    categorical, min_samples_leaf, sample_weight, n_categories, n_classes : as in :func:`fit_c45`

    Returns
    -------
    SplitScores of (n_features,) arrays.

    Example
    -------
    >>> from jaxclassic.datasets import load_play_tennis
    >>> X, y = load_play_tennis(return_X_y=True)
    >>> s = gain_ratio(X, y, categorical=True)
    >>> [round(float(r), 3) for r in s.gain_ratio]  # outlook, temperature, humidity, wind
    [0.156, 0.019, 0.152, 0.049]

    References
    ----------
    J. R. Quinlan (1993), C4.5: Programs for Machine Learning, §2.2 and §3.1.
    """
    min_samples_leaf = check_scalar(min_samples_leaf, "min_samples_leaf", low=0.0)
    data = _validate(X, y, categorical, sample_weight, n_categories, n_classes)
    device, cont_cols, cat_cols, n_bins = _device_inputs(data)
    x_cont, order, x_cat, y_j = device
    stats = _node_statistics(x_cont, order, x_cat, y_j, jnp.asarray(data.weight),
                             float(min_samples_leaf), n_bins, data.n_classes)
    gain, info, valid, lo, hi = _scores(stats, cont_cols, cat_cols, data.X.shape[1], data.X.dtype)
    _, eligible, ratio = _select(gain, info, valid)
    threshold = np.full(data.X.shape[1], np.nan)
    for f in cont_cols:
        if valid[f]:
            known = data.X[(data.weight > 0) & ~np.isnan(data.X[:, f]), f]
            threshold[f] = _threshold(np.sort(known), lo[f], hi[f])
    return SplitScores(*(jnp.asarray(a) for a in (gain, info, ratio, threshold, valid, eligible)))


# --------------------------------------------------------------------------- fit
def fit_c45(X, y, *, categorical=None, confidence_factor=0.25, min_samples_leaf=2, prune=True,
            collapse=True, sample_weight=None, n_categories=None, n_classes=None,
            max_depth=None) -> C45Params:
    r"""Grow (and prune) a C4.5 tree: gain ratio, thresholds, unknown values, pessimistic pruning.

    Split on the eligible attribute of greatest
    :math:`\mathrm{gain\ ratio}(A) = \mathrm{gain}(A) / \mathrm{split\ info}(A)`, eligible
    meaning a valid split with gain at least the average gain of the valid ones; grow until
    pure, no valid split, or under :math:`2\,\mathrm{MINOBJS}`; collapse subtrees that do not
    reduce training errors; prune a subtree to a leaf when
    :math:`N U_{CF}(E, N) \le \sum_{\text{leaves } l} N_l U_{CF}(E_l, N_l) + 0.1`.
    See the module docstring for every formula and the departures from C4.5 / J48.

    Parameters
    ----------
    X : array-like (n_samples, n_features) float
        Continuous values, or integer category codes ``0..255`` in the ``categorical`` columns;
        NaN marks a missing value.
    y : array-like (n_samples,) int
        Class codes ``0..C-1``.
    categorical : bool or bool array (n_features,), optional
        Which columns are categorical (multiway splits); default none (all continuous).
    confidence_factor : float in (0, 1)
        CF of the pessimistic bound (0.25); smaller prunes more.
    min_samples_leaf : float >= 0
        Quinlan's MINOBJS (2): weight needed in two branches of a split.
    prune : bool
        Pessimistic subtree replacement after growth.
    collapse : bool
        Collapse subtrees that do not lower the training error (J48's default).
    sample_weight : array-like (n_samples,), optional
        Case weights; zero-weight rows have no influence.
    n_categories : int or sequence (n_features,), optional
        Categories per categorical column (entries of continuous columns are ignored);
        default ``max + 1`` over rows of positive weight; at most 256.
    n_classes : int, optional
    max_depth : int or None

    Returns
    -------
    C45Params
        ``n_classes`` is a property. Classification only, so no ``task=``: the gain ratio and
        the pessimistic error bound are defined on class counts (C4.5 has no regression mode).

    Example
    -------
    >>> from jaxclassic.datasets import load_play_tennis
    >>> tennis = load_play_tennis()
    >>> X, y, names = tennis.data, tennis.target, tennis.feature_names
    >>> params = fit_c45(X, y, categorical=True)
    >>> names[int(params.feature[0])], int(params.n_nodes)
    ('outlook', 8)

    References
    ----------
    J. R. Quinlan (1993), C4.5: Programs for Machine Learning, ch. 2-4.
    J. R. Quinlan (1996), Improved use of continuous attributes in C4.5, JAIR 4, 77-90.
    """
    # jax.grad / jax.jvp through this fit raise a TypeError naming it (issue 14)
    X, y, sample_weight = (
        nondifferentiable("fit_c45", a, reason=_NO_DERIVATIVE) if is_traced(a) else a
        for a in (X, y, sample_weight))
    check_confidence_factor(confidence_factor)
    prune, collapse = check_bool(prune, "prune"), check_bool(collapse, "collapse")
    min_samples_leaf = float(check_scalar(min_samples_leaf, "min_samples_leaf", low=0.0))
    if max_depth is not None:
        max_depth = check_int(max_depth, "max_depth", low=0)
    data = _validate(X, y, categorical, sample_weight, n_categories, n_classes)
    params = _grow(data, min_samples_leaf, max_depth)
    if collapse:
        params = collapse_tree(params)
    if prune:
        params = pessimistic_prune(params, confidence_factor)
    return params


def _grow(data: _Data, min_objs: float, max_depth) -> C45Params:
    device, cont_cols, cat_cols, n_bins = _device_inputs(data)
    x_cont, order, x_cat, y_j = device
    X, n_features, dtype = data.X, data.X.shape[1], data.X.dtype
    sorted_known = {f: np.sort(X[(data.weight > 0) & ~np.isnan(X[:, f]), f]) for f in cont_cols}
    store = NodeStore(data.n_classes)
    stack = [(data.weight, 0, np.zeros(n_features, bool), None, -1, 0)]
    while stack:
        w, depth, tested, parent_value, parent, slot = stack.pop()
        total = float(w.sum())
        if total <= 0:
            store.add(parent, slot, value=parent_value, weight=0.0, n_samples=0, depth=depth)
            continue
        stats = _node_statistics(x_cont, order, x_cat, y_j, jnp.asarray(w), min_objs, n_bins, data.n_classes)
        counts = np.asarray(stats[2])
        value = counts / total
        n_rows = int((w > 0).sum())
        node_fields = dict(value=value, weight=total, n_samples=n_rows, depth=depth)
        if (total < 2 * min_objs or counts.max() >= total * (1 - 1e-12)
                or (max_depth is not None and depth >= max_depth)):
            store.add(parent, slot, **node_fields)
            continue
        gain, info, valid, lo, hi = _scores(stats, cont_cols, cat_cols, n_features, dtype)
        best, _, ratio = _select(gain, info, valid & ~tested)
        if best is None:
            store.add(parent, slot, **node_fields)
            continue
        column = X[:, best]
        missing = np.isnan(column)
        if data.mask[best]:
            n_branches, threshold = int(data.n_categories[best]), np.nan
            branch = np.where(missing, -1, np.nan_to_num(column)).astype(np.int64)
        else:
            n_branches = 2
            threshold = _threshold(sorted_known[best], lo[best], hi[best])
            branch = np.where(missing, -1, np.where(np.nan_to_num(column) <= threshold, 0, 1))
        known = ~missing & (w > 0)
        n_branch = np.bincount(branch[known], weights=w[known], minlength=n_branches)[:n_branches]
        fractions = n_branch / n_branch.sum()
        node = store.add(parent, slot, **node_fields, feature=best, threshold=threshold, is_leaf=False,
                         gain=float(gain[best]), gain_ratio=float(ratio[best]),
                         children=[-1] * n_branches, fractions=fractions)
        child_tested = tested | (data.mask & (np.arange(n_features) == best))
        for b in reversed(range(n_branches)):
            w_b = np.where(branch == b, w, 0.0) + np.where(missing, w * fractions[b], 0.0)
            stack.append((w_b, depth + 1, child_tested, value, node, b))
    arrays = store.pack(dtype)
    fields = {k: jnp.asarray(v) for k, v in arrays.items()}
    return C45Params(**fields, n_categories=jnp.asarray(data.n_categories),
                     categorical=jnp.asarray(data.mask))


# --------------------------------------------------------------------------- prediction
@_jit.jit
def _reach_all(params: C45Params, X):
    def row(x):
        return soft_reach(params, x)
    return jax.lax.map(row, X, batch_size=256)


def _check_predict_X(params: C45Params, X, unseen):
    check_choice(unseen, "unseen", ("missing", "error"))
    if is_traced(X):
        return X
    X = np.asarray(check_array(X, "X", allow_nan=True, _numpy=True))
    mask = np.asarray(params.categorical)
    if X.shape[1] != mask.shape[0]:
        raise ValueError(f"X has {X.shape[1]} features, but the tree was fitted with {mask.shape[0]}")
    cat_cols = np.flatnonzero(mask)
    for f in cat_cols:
        col = X[:, f]
        known = col[~np.isnan(col)]
        if known.size and (known != np.round(known)).any():
            raise ValueError(f"X[:, {f}] is categorical and must hold integer codes, got {known[known != np.round(known)][0].item()!r}")
        if known.size and known.min() < 0:
            raise ValueError(f"X[:, {f}] must hold category codes >= 0, got {known.min().item()!r}")
        n_cat = int(params.n_categories[f])
        if unseen == "error" and known.size and known.max() >= n_cat:
            raise ValueError(
                f"X[:, {f}] holds category {int(known.max())}, unseen in training (codes 0..{n_cat - 1}); "
                "use unseen='missing' to treat it as a missing value"
            )
    return jnp.asarray(X)


def predict_proba_c45(params: C45Params, X, *, unseen="missing") -> jax.Array:
    r"""Class probabilities (n, C): Quinlan's classification with unknown values.

    .. math:: P(k \mid x) = \sum_{l \in \text{leaves}} r_l(x)\, p_{lk},

    where :math:`p_{lk}` are the leaf's training class fractions and :math:`r_l(x)` the
    product of the branch weights on the path to :math:`l`: 1 along the branch of a known
    value, the training fraction :math:`N_b / N_K` of each branch at a split whose value is
    missing (NaN) or, with ``unseen="missing"``, an unseen category (``"error"``: ValueError).

    Example
    -------
    >>> import numpy as np
    >>> from jaxclassic.datasets import load_play_tennis
    >>> X, y = load_play_tennis(return_X_y=True)
    >>> params = fit_c45(X, y, categorical=True)
    >>> predict_proba_c45(params, np.array([[2.0, 0.0, np.nan, 1.0]])).round(2).tolist()  # sunny, humidity ?
    [[0.6, 0.4]]
    """
    X = _check_predict_X(params, X, unseen)
    reach = _reach_all(params, X)
    return jnp.where(params.is_leaf[None, :], reach, 0.0) @ params.value


def predict_c45(params: C45Params, X, *, unseen="missing") -> jax.Array:
    """Class codes (n,): the arg-max of :func:`predict_proba_c45` (ties: lowest code).

    Example
    -------
    >>> from jaxclassic.datasets import load_play_tennis
    >>> X, y = load_play_tennis(return_X_y=True)
    >>> bool((predict_c45(fit_c45(X, y, categorical=True), X) == y).all())
    True

    References
    ----------
    J. R. Quinlan (1993), C4.5: Programs for Machine Learning, §3.3.
    """
    return jnp.argmax(predict_proba_c45(params, X, unseen=unseen), axis=-1).astype(jnp.int32)


def apply_c45(params: C45Params, X, *, unseen="missing") -> jax.Array:
    """Leaf (n,) reached by each row; with missing values, the leaf of largest reach
    (the first such leaf in pre-order on ties).

    Parameters
    ----------
    params : C45Params
    X : array-like (n_samples, n_features) float, NaN for missing
    unseen : {"missing", "error"}

    Returns
    -------
    jax.Array (n_samples,) int32 leaf indices.

    Example
    -------
    >>> from jaxclassic.datasets import load_play_tennis
    >>> X, y = load_play_tennis(return_X_y=True)
    >>> apply_c45(fit_c45(X, y, categorical=True), X[:1]).tolist()  # sunny, high humidity
    [6]

    References
    ----------
    J. R. Quinlan (1993), C4.5: Programs for Machine Learning, §3.3.
    """
    X = _check_predict_X(params, X, unseen)
    reach = _reach_all(params, X)
    return jnp.argmax(jnp.where(params.is_leaf[None, :], reach, -1.0), axis=-1).astype(jnp.int32)


_api.predict.register(C45Params, predict_c45)
_api.predict_proba.register(C45Params, predict_proba_c45)
_api.apply.register(C45Params, apply_c45)
_api.feature_importances.register(C45Params, _feature_importances)
