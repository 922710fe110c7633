r"""xgboost's cut points: its weighted quantile sketch for in-memory data (``tree_method="hist"``).

The XGBoost family bins each feature at the **cut points** the xgboost package computes, so
that its trees split where xgboost's do and route every row as xgboost does. Each feature's
cuts :math:`c_1 < \dots < c_m` (:math:`m \le` ``max_bin``) put a value :math:`x` in bin
:math:`\#\{b : c_b \le x\}`, and a split at cut :math:`c` sends a row left iff
:math:`x < c` (xgboost compares the value cast to float32; NaN goes to the learned default
side).

The sketch (Chen & Guestrin 2016, section 3.3 and appendix: the weighted quantile sketch; in
xgboost 3.2 ``src/common/quantile.h`` (``WQSummary``, ``QuantileSketchTemplate``),
``src/common/quantile.cc`` (``HostSketchContainer``, ``MakeCuts``, ``AddCutPoint``) and
``src/common/hist_util.cc`` (``SketchOnDMatrix``)). A *summary* is a sorted list of distinct
values :math:`v_i` with rank bounds: :math:`r^-_i` (weight strictly below :math:`v_i`),
:math:`r^+_i` (weight up to and including it) and :math:`w_i` (its own weight). All ranks and
weights are float32, as in xgboost, and every step below is reproduced in float32
arithmetic, operation by operation. For one feature, with its :math:`n` non-missing values
and their weights streamed in row order:

1. **Size.** :math:`\epsilon = 1/(8\min(\text{max\_bin}, n))`; the smallest ``nlevel`` with
   :math:`2^{\text{nlevel}} L \ge n`, :math:`L = \min(n, \lceil \text{nlevel}/\epsilon\rceil + 1)`
   (``LimitSizeLevel``). The input queue holds :math:`2L` entries.
2. **Queue.** A value equal to the previous one adds its weight to that entry; a full queue
   meeting a new value becomes a summary (sort, merge equal values: :math:`r^-` the running
   weight before the value, :math:`r^+ = r^- + w`) that is pushed up a binary tower of
   levels: pruned to :math:`L`, merged with the level's summary if there is one, the merge
   carried one level up while it is longer than :math:`L`.
3. **Merge** of two summaries (``SetCombine``): the sorted union; a value present in both adds
   its three numbers; a value only in one adds, to its :math:`r^-`, the other's
   :math:`r^- + w` of its last smaller value and, to its :math:`r^+`, the other's
   :math:`r^+ - w` of its first larger value (its total :math:`r^+` past the end); then
   :math:`r^-` and :math:`\max(r^+, r^- + w)` are made non-decreasing (``FixError``).
4. **Prune** to :math:`s` entries (``WQSummary::SetPrune``): keep the first and last; for
   :math:`k = 1..s-2` with :math:`d_k = 2(k\,R/(s-1) + r^+_1)`,
   :math:`R = r^-_{\text{last}} - r^+_1`, find the first :math:`i \ge 1` with
   :math:`d_k < r^+_{i+1} + r^-_{i+1}` and keep entry :math:`i` if
   :math:`d_k < (r^-_i + w_i) + (r^+_{i+1} - w_{i+1})`, else :math:`i + 1` (each entry once).
   The entry kept is the one whose mid-rank is nearest :math:`k` equal steps of the range.
5. **Summary.** The queue's rest as a summary, pruned to :math:`L`, merged level by level
   (pruning to :math:`L` after each merge); then pruned to
   :math:`\min(n, 8\,\text{max\_bin})` (``AllReduce``, one worker) and to
   :math:`\min(n, 8\,\text{max\_bin}, \text{max\_bin}) + 1` entries (``MakeCuts``).
6. **Cuts** (``AddCutPoint``): the summary's values but the first (the minimum), at most
   ``max_bin - 1`` of them, then the *sentinel*
   :math:`v_{\text{last}} + (|v_{\text{last}}| + 10^{-5})`, above every training value
   (computed in double, C's ``fabs``, then rounded to float32). With at most ``max_bin``
   distinct values nothing is pruned: the cuts are the distinct values but the smallest, and
   the sentinel. ``get_quantile_cut`` puts the feature's lower bound
   :math:`v_{\min} - |v_{\min}| - 10^{-5}` first (xgboost's ``MinValues``; the split point of
   "missing values alone left"); :func:`sketch_cuts` returns the same layout.

Rows of weight 0 take no part (xgboost skips them in the stream too, but counts them in
:math:`n`: here they are not counted, so a fit with zero-weight padding rows equals a fit
without them, as every fit of the package; it equals xgboost fitted on the rows of
positive weight).

Routing in our dtype. The engine's rule is "left iff :math:`x \le t`" (binning and
:class:`~jaxclassic.tree._params.TreeParams`), so a cut :math:`c` is stored as the largest
value :math:`t` of the fit's dtype that xgboost sends left: in float32 :math:`t` is the
float32 just below :math:`c`; in float64, where xgboost rounds :math:`x` to float32 before
comparing, :math:`t` is the float64 rounding boundary between :math:`c` and the float32
below it (ties to even). So training codes, thresholds and predictions on any row equal
xgboost's, and :func:`jaxclassic.io.export_xgboost` recovers :math:`c` from :math:`t`. One
exception: XLA's CPU kernels flush float32 subnormals to zero, so where the float32 below
:math:`c` is subnormal (a cut at :math:`\pm 0`) :math:`t` is 0 or the least normal float32
(:func:`left_bounds`), right for zero and every normal :math:`x`; subnormal inputs are read as
0 by XLA (xgboost compares them as they are). :func:`cut_edges` lays the cuts out for the
tree engine (two more bins when a value is missing).

Measured remainder: none. Equal bit for bit to ``QuantileDMatrix(X).get_quantile_cut()``
(and to the cuts of ``xgboost.train`` on a ``DMatrix``) on normal, heavy-tailed (Cauchy,
log-normal), duplicated, sorted, NaN-holding and weighted data, ``n`` from 50 to 1,000,000
(several queue flushes and levels, the pruning of step 5), ``max_bin`` 16, 64, 256
(``tests/ensemble/test_xgb_cuts.py`` runs ``n`` up to 20,000). Two places where bits can
differ, neither seen: with non-integer weights, a value met in three or more separate runs
inside one queue has its weights summed in ``std::sort``'s (unspecified) order, ours in row
order; and when a queue holds both -0.0 and +0.0 the sign kept follows that order too (no
split can tell them apart).

Cost: :math:`O(n \log L)` per feature on the host (numpy: one sort per queue, vectorised
merges and prunes); traced inputs run it through :func:`jax.pure_callback`.

References
----------
T. Chen, C. Guestrin, "XGBoost: A Scalable Tree Boosting System", KDD 2016, section 3.3 and
the appendix (weighted quantile sketch: merge and prune with rank bounds).
The xgboost package, v3.2.0: ``src/common/quantile.h``, ``src/common/quantile.cc``,
``src/common/hist_util.cc``.
"""

from __future__ import annotations

import math
from functools import partial
from typing import NamedTuple

import jax
import numpy as np

from jaxclassic._threads import map_columns

__all__ = ["sketch_cuts", "left_bounds", "cut_edges", "traced_cut_edges"]

_F32 = np.float32
#: xgboost's kFactor: the sketch keeps 8 entries per bin
_FACTOR = 8
_EPS5 = _F32(1e-5)


class _Summary(NamedTuple):
    """Sorted distinct ``value`` with float32 rank bounds ``rmin``, ``rmax`` and own weight ``wmin``."""

    rmin: np.ndarray
    rmax: np.ndarray
    wmin: np.ndarray
    value: np.ndarray

    @property
    def size(self) -> int:
        return self.value.size

    def take(self, idx) -> "_Summary":
        return _Summary(*(a[idx] for a in self))


_EMPTY = _Summary(*(np.zeros(0, _F32) for _ in range(4)))


def _limit_size_level(n: int, eps: float) -> int:
    """``L``: the summary size of each level (xgboost's ``LimitSizeLevel``, in double)."""
    n_level = 1
    while True:
        limit = min(n, math.ceil(n_level / eps) + 1)
        if (1 << n_level) * limit >= n:
            return limit
        n_level += 1


def _sequential_sums(weight: np.ndarray, start: np.ndarray) -> np.ndarray:
    """Float32 sums of the segments ``weight[start[g]:start[g+1]]``, each added left to right
    (as xgboost's loops; numpy's reductions add pairwise)."""
    length = np.diff(np.r_[start, weight.size])
    if np.all(weight == 1):
        return length.astype(_F32)
    if np.all(weight == np.round(weight)) and float(weight.sum(dtype=np.float64)) < 2**24:
        return np.add.reduceat(weight.astype(np.float64), start).astype(_F32)  # exact in any order
    out = weight[start].copy()
    short = 64  # segments up to this long: one vectorised step per position
    for j in range(1, min(int(length.max()), short)):
        live = length > j
        out[live] += weight[start[live] + j]
    for g in np.flatnonzero(length > short):  # long ones: a float32 running sum each
        out[g] = np.cumsum(weight[start[g]:start[g] + length[g]], dtype=_F32)[-1]
    return out


def _make_summary(value: np.ndarray, weight: np.ndarray) -> _Summary:
    """A summary of queue entries (``Queue::MakeSummary``): sort, merge equal values,
    ``rmin`` the float32 running weight before each value, ``rmax = rmin + w``."""
    if value.size == 0:
        return _EMPTY
    if np.all(weight == 1):  # the order of equal values does not matter
        v, w = np.sort(value), weight
    else:
        order = np.argsort(value, kind="stable")
        v, w = value[order], weight[order]
    start = np.flatnonzero(np.r_[True, v[1:] != v[:-1]])
    wmin = _sequential_sums(w, start)
    rmax = np.cumsum(wmin, dtype=_F32)  # sequential float32: wsum += w
    rmin = np.r_[_F32(0), rmax[:-1]].astype(_F32)
    return _Summary(rmin, rmax, wmin, v[start])


def _prune(s: _Summary, max_size: int) -> _Summary:
    """``WQSummary::SetPrune``: at most ``max_size`` entries, the first and last kept; for
    each of ``max_size - 2`` equal steps of the rank range, the entry of nearest mid-rank.

    xgboost walks ``i`` forward per step; ``d_k`` and ``rmax[i+1] + rmin[i+1]`` are both
    non-decreasing (float32 rounding is monotone, the ranks are sorted), so each step's ``i``
    is a ``searchsorted`` and the kept entries, non-decreasing, are their distinct values.
    """
    size = s.size
    if size <= max_size:
        return s
    n = max_size - 1
    begin = s.rmax[0]
    span = _F32(s.rmin[-1] - s.rmax[0])
    k = np.arange(1, n, dtype=_F32)
    dx2 = _F32(2) * ((k * span) / _F32(n) + begin)
    mid2 = s.rmax[1:] + s.rmin[1:]  # entry i + 1, for i = 0..size-2
    i = np.maximum(np.searchsorted(mid2, dx2, side="right"), 1)
    live = i < size - 1  # xgboost stops at the first step that reaches the last entry
    i, dx2 = i[live], dx2[live]
    boundary = (s.rmin[i] + s.wmin[i]) + (s.rmax[i + 1] - s.wmin[i + 1])
    pick = np.where(dx2 < boundary, i, i + 1)
    idx = np.concatenate([[0], pick, [size - 1]])  # non-decreasing: keep each index once
    return s.take(idx[np.r_[True, idx[1:] != idx[:-1]]])


def _combine(a: _Summary, b: _Summary) -> _Summary:
    """``WQSummary::SetCombine``: merge two summaries by value, then ``FixError``."""
    if a.size == 0:
        return b
    if b.size == 0:
        return a

    def side(x, y):
        """Entries of ``x`` with ``y``'s ranks added (``same``: also present in ``y``)."""
        pos = np.searchsorted(y.value, x.value, side="left")
        at = np.minimum(pos, y.size - 1)
        same = (pos < y.size) & (y.value[at] == x.value)
        before = np.where(pos > 0, (y.rmin + y.wmin)[np.maximum(pos - 1, 0)], _F32(0))
        after = np.where(pos < y.size, (y.rmax - y.wmin)[at], y.rmax[-1])
        rmin = np.where(same, x.rmin + y.rmin[at], x.rmin + before)
        rmax = np.where(same, x.rmax + y.rmax[at], x.rmax + after)
        wmin = np.where(same, x.wmin + y.wmin[at], x.wmin)
        return _Summary(rmin, rmax, wmin, x.value), same, pos

    from_a, _, _ = side(a, b)
    from_b, in_a, pos_b = side(b, a)
    # places in the sorted union: an entry of a after the b-only values below it, and so on
    only_b = ~in_a
    below_a = np.searchsorted(b.value[only_b], a.value, side="left")
    slot = np.concatenate([np.arange(a.size) + below_a, (np.cumsum(only_b) - 1 + pos_b)[only_b]])
    merged = _Summary(*(np.empty(slot.size, _F32) for _ in range(4)))
    for dst, p, q in zip(merged, from_a, from_b):
        dst[slot] = np.concatenate([p, q[only_b]])
    rmin = np.maximum.accumulate(merged.rmin)
    rmax = np.maximum.accumulate(np.maximum(merged.rmax, rmin + merged.wmin))
    return _Summary(rmin, rmax, merged.wmin, merged.value)


def _feature_summary(value: np.ndarray, weight: np.ndarray, max_bin: int) -> _Summary:
    """The summary of one feature's stream (float32 values and positive weights, row order):
    steps 1, 2 and the first half of 5 of the module docstring."""
    n = value.size
    n_bins = max(min(max_bin, n), 1)
    eps = 1.0 / float(_F32(n_bins) * _F32(_FACTOR))
    limit = _limit_size_level(n, eps)
    # queue entries: runs of equal consecutive values, weights added in row order
    start = np.flatnonzero(np.r_[True, value[1:] != value[:-1]])
    run_value, run_weight = value[start], _sequential_sums(weight, start)
    chunk = 2 * limit
    n_flush = (run_value.size - 1) // chunk  # a full queue flushes when a new value arrives
    levels: list[_Summary] = []  # levels[l - 1] is xgboost's level l
    for c in range(n_flush):
        temp = _make_summary(run_value[c * chunk:(c + 1) * chunk], run_weight[c * chunk:(c + 1) * chunk])
        level = 0
        while True:  # PushTemp
            if level == len(levels):
                levels.append(_EMPTY)
            if levels[level].size == 0:
                levels[level] = _prune(temp, limit)
                break
            temp = _combine(_prune(temp, limit), levels[level])
            if temp.size > limit:
                levels[level] = _EMPTY
                level += 1
            else:
                levels[level] = temp
                break
    out = _make_summary(run_value[n_flush * chunk:], run_weight[n_flush * chunk:])
    if not levels:
        return _prune(out, limit)
    acc = _prune(out, limit)
    for summary in levels:  # GetSummary
        if summary.size == 0:
            continue
        acc = summary if acc.size == 0 else _prune(_combine(acc, summary), limit)
    return acc


def _feature_cuts(value: np.ndarray, weight: np.ndarray, max_bin: int) -> np.ndarray:
    """``[lower bound, cuts..., sentinel]`` (float32) of one feature's valid stream, in the
    layout of ``get_quantile_cut``."""
    n = value.size
    if n == 0:  # an empty column: xgboost's lower bound 1e-5 and its sentinel
        return np.array([_EPS5, _beyond(_EPS5)], _F32)
    summary = _feature_summary(value, weight, max_bin)
    n_cuts = min(n, max_bin * _FACTOR)
    summary = _prune(summary, n_cuts)
    n_bins = min(n_cuts, max_bin)
    summary = _prune(summary, n_bins + 1)
    first = np.float64(summary.value[0])
    lower = _F32(first - abs(first) - np.float64(_EPS5))
    inner = summary.value[1:min(summary.size, n_bins)]
    return np.concatenate([[lower], inner, [_beyond(summary.value[-1])]]).astype(_F32)


def _beyond(last):
    """xgboost's sentinel above the largest value, :math:`v + (|v| + 10^{-5})`: its C
    ``fabs`` promotes to double, so the sum is rounded to float32 once, at the end."""
    last = np.float64(last)
    return _F32(last + (abs(last) + np.float64(_EPS5)))


def sketch_cuts(X, max_bin: int, sample_weight=None) -> list[np.ndarray]:
    r"""xgboost's cut points of every feature (``QuantileDMatrix(X, max_bin=...)``
    ``.get_quantile_cut()``, ``tree_method="hist"``, one worker).

    Parameters
    ----------
    X : array-like (n_samples, n_features)
        Cast to float32 as xgboost does; NaN is missing.
    max_bin : int >= 2
    sample_weight : array-like (n_samples,), optional
        Cast to float32; rows of weight 0 take no part (module docstring).

    Returns
    -------
    list of (m_j + 1,) float32 arrays
        Feature ``j``'s row of ``get_quantile_cut``: its lower bound
        :math:`v_{\min} - |v_{\min}| - 10^{-5}` (xgboost's ``MinValues``, no split point),
        then its ``m_j <= max_bin`` cuts, increasing, the last one the sentinel
        :math:`v_{\max} + |v_{\max}| + 10^{-5}`.

    Examples
    --------
    >>> import numpy as np
    >>> sketch_cuts(np.array([[3.0], [1.0], [2.0], [2.0]]), max_bin=16)[0].tolist()
    [-9.999999747378752e-06, 2.0, 3.0, 6.000010013580322]
    """
    X32 = np.asarray(X, dtype=_F32)
    if X32.ndim != 2:
        raise ValueError(f"X must be 2-D, got shape {X32.shape}")
    w32 = None if sample_weight is None else np.asarray(sample_weight, dtype=_F32).reshape(-1)

    def column(j):  # each feature's sketch alone: the features run on every core (_threads)
        x = X32[:, j]
        keep = ~np.isnan(x) if w32 is None else ~np.isnan(x) & (w32 > 0)
        w = np.ones(int(keep.sum()), _F32) if w32 is None else w32[keep]
        return _feature_cuts(x[keep], w, max_bin)

    return map_columns(column, X32.shape[1], X32.size)


def left_bounds(cuts, dtype) -> np.ndarray:
    r"""For each float32 cut :math:`c`, the largest value :math:`t` of ``dtype`` that xgboost
    sends left (:math:`\mathrm{float32}(x) < c`), so that :math:`x \le t \iff` xgboost's
    :math:`x < c` for every ``x`` of ``dtype`` (zero or normal, in float32).

    float32: the float32 below :math:`c`, except where that is subnormal: XLA's CPU and GPU
    kernels flush subnormals to zero, so a comparison with it would act as one with
    :math:`\pm 0` (a cut at 0 would send 0 left); there :math:`t = 0` for :math:`c > 0` and
    :math:`t = -\text{tiny}` (the least normal float32) for :math:`c \le 0`, right for every
    zero or normal :math:`x` (a subnormal :math:`x` is read as 0 by XLA itself). float64: the
    midpoint :math:`m` of :math:`c` and the float32 :math:`p` below it (where rounding to
    float32 changes from :math:`p` to :math:`c`; a normal float64), itself when a tie rounds to
    :math:`p` (its significand even), else the float64 below it.

    Examples
    --------
    >>> import numpy as np
    >>> t = left_bounds(np.float32([1.0]), np.float64)[0]
    >>> bool(np.float32(t) < 1.0), bool(np.float32(np.nextafter(t, 2.0)) < 1.0)
    (True, False)
    """
    c = np.asarray(cuts, _F32)
    below = np.nextafter(c, _F32(-np.inf))
    if np.dtype(dtype) != np.float64:
        tiny = np.finfo(_F32).tiny
        flushed = np.abs(below) < tiny  # zero or subnormal: read as 0 by XLA
        return np.where(flushed, np.where(c > 0, _F32(0), -tiny), below).astype(dtype)
    mid = (below.astype(np.float64) + c.astype(np.float64)) / 2  # exact
    tie_goes_below = (below.view(np.uint32) & 1) == 0
    return np.where(tie_goes_below, mid, np.nextafter(mid, -np.inf))


def cut_edges(X, max_bin: int, sample_weight=None, dtype=None, *, with_missing: bool | None = None) -> np.ndarray:
    """Bin edges ``(n_features, max_bin + 1)`` in ``dtype`` (default: ``X``'s) for
    :func:`jaxclassic.tree.apply_bins` from xgboost's cuts, each edge the :func:`left_bounds`
    of a cut, padded with ``+inf``.

    Two layouts, so that every split xgboost can choose is a threshold "code <= t" of the
    engine (``t < n_bins - 1``, :mod:`jaxclassic.tree._engine`):

    * without missing values: the cuts but the sentinel (at most ``max_bin - 1``); the code is
      xgboost's bin, ``n_bins = max_bin`` (``edges[:, :max_bin - 1]``) or more;
    * with missing values: the lower bound, then every cut, sentinel included; the code is
      xgboost's bin plus one (code 0 is empty for training rows), ``n_bins = max_bin + 2``.
      xgboost's two splits of a feature's missing values from all its others (missing left:
      split at its lower bound; missing right: at its sentinel) are then the thresholds
      ``t = 0`` and ``t`` = the last bin.

    ``with_missing=None`` picks the second layout when a row of positive weight has a missing
    value (so that a fit on weights equals the fit on the rows of positive weight).
    """
    X = np.asarray(X)
    dtype = np.dtype(dtype or X.dtype)
    if with_missing is None:
        valid = np.ones(X.shape[0], bool) if sample_weight is None else np.asarray(sample_weight) > 0
        with_missing = bool(np.isnan(X[valid]).any())
    edges = np.full((X.shape[1], max_bin + 1), np.inf, dtype)
    for j, c in enumerate(sketch_cuts(X, max_bin, sample_weight)):
        c = c if with_missing else c[1:-1]  # (lower, cuts..., sentinel) or the inner cuts
        edges[j, : c.size] = left_bounds(c, dtype)
    return edges


def traced_cut_edges(X, sample_weight, max_bin: int):
    """:func:`cut_edges` of traced ``X`` / ``sample_weight`` (inside ``jit`` / ``vmap``) through
    :func:`jax.pure_callback`: the same host sketch (and choice of layout) on the values at
    run time, once per element of a batch (``vmap_method="sequential"``), in ``X``'s dtype."""
    shape = jax.ShapeDtypeStruct((X.shape[1], max_bin + 1), X.dtype)
    return jax.pure_callback(partial(_callback, max_bin=max_bin), shape, X, sample_weight,
                             vmap_method="sequential")


def _callback(X, sample_weight, *, max_bin):
    X = np.asarray(X)
    return cut_edges(X, max_bin, np.asarray(sample_weight), X.dtype)
