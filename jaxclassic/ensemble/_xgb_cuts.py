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
(``tests/ensemble/test_xgb_cuts.py`` runs ``n`` up to 20,000, and checks the prunes against
a transcription of xgboost's loop). Two places where bits can
differ, neither seen: with non-integer weights, a value met in three or more separate runs
inside one queue has its weights summed in ``std::sort``'s (unspecified) order, ours in row
order; and when a queue holds both -0.0 and +0.0 the sign kept follows that order too (no
split can tell them apart).

Cost: :math:`O(n \log L)` per feature on the host, in numpy: one sort per queue; a queue of
entries of weight 1 (no weights and no value repeated in consecutive rows: most continuous
data) is summarised and pruned straight from its sorted positions (:func:`_unit_summary`);
every other merge or prune is one stable merge (a timsort of two sorted runs) of the value or
rank lists. The features run one after the other (each is ~1,000 numpy operations on ~10^4
values: threads of :mod:`jaxclassic._threads` would hand the GIL over at each). Measured on
the 2-core host, 160,000 x 28 float32 (``make_classification(200000, 28, n_informative=14,
n_redundant=4, random_state=0)``, first 160,000 rows), ``max_bin=256``: ``cut_edges`` 149 ms
(the previous version, three ``searchsorted`` per merge, in the 2-thread pool: 324 ms; this
one in that pool: 157 ms); one feature 4.9 ms (was 14.7), of which 7 merges 2.0 ms, 9 prunes
1.2 ms, 8 queues 1.4 ms (sorting 0.45). Traced inputs run it through :func:`jax.pure_callback`.

References
----------
T. Chen, C. Guestrin, "XGBoost: A Scalable Tree Boosting System", KDD 2016, section 3.3 and
the appendix (weighted quantile sketch: merge and prune with rank bounds).
The xgboost package, v3.2.0: ``src/common/quantile.h``, ``src/common/quantile.cc``,
``src/common/hist_util.cc``.
"""

from __future__ import annotations

import math
from functools import lru_cache, partial
from typing import NamedTuple

import jax
import numpy as np

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


def _iota(n: int) -> np.ndarray:
    """``np.arange(n)``, a read-only view of a shared one (the merges use it many times)."""
    return _iota_pow2(1 << max(n - 1, 0).bit_length())[:n]


@lru_cache(maxsize=64)
def _iota_pow2(n: int) -> np.ndarray:
    """``np.arange(n)``, read-only."""
    out = np.arange(n)
    out.flags.writeable = False
    return out


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


def _order_key(value: np.ndarray) -> np.ndarray:
    """int32 keys in the order of the float32 ``value`` (no NaN), ``-0.0`` and ``+0.0`` equal:
    the sign-magnitude bits as a two's complement integer (no float arithmetic, so no
    dependence on the FPU's flush-to-zero mode)."""
    bits = value.view(np.int32)
    sign = bits >> 31  # 0 or -1
    return ((bits & np.int32(0x7FFFFFFF)) ^ sign) - sign


def _stable_argsort(value: np.ndarray) -> np.ndarray:
    """``np.argsort(value, kind="stable")`` of float32 values (no NaN, ``-0.0 == +0.0``): one
    SIMD sort of the int64 keys ``order key << 32 | row``, ties in row order as a stable sort
    (numpy's stable sort of floats is a timsort, ~8x slower on unsorted data)."""
    composite = (_order_key(value).astype(np.int64) << 32) | np.arange(value.size, dtype=np.int64)
    return (np.sort(composite) & 0xFFFFFFFF).astype(np.intp)


def _make_summary(value: np.ndarray, weight: np.ndarray | None) -> _Summary:
    """A summary of queue entries (``Queue::MakeSummary``): sort, merge equal values,
    ``rmin`` the float32 running weight before each value, ``rmax = rmin + w``.
    ``weight=None``: every entry weighs 1."""
    if value.size == 0:
        return _EMPTY
    if weight is None or np.all(weight == 1):  # the order of equal values does not matter
        v, w = np.sort(value), np.ones(value.size, _F32)
    else:
        order = _stable_argsort(value)
        v, w = value[order], weight[order]
    start = np.flatnonzero(np.concatenate([[True], v[1:] != v[:-1]]))
    wmin = _sequential_sums(w, start)
    rmax = np.cumsum(wmin, dtype=_F32)  # sequential float32: wsum += w
    rmin = np.concatenate([[_F32(0)], rmax[:-1]])
    return _Summary(rmin, rmax, wmin, v[start])


def _steps(n: int, span, begin) -> np.ndarray:
    """``d_k = 2 (k span / n + begin)`` for ``k = 1..n-1`` in float32, operation by operation
    (``WQSummary::SetPrune``); read-only, shared by the prunes of equal ``n``, ``span`` and
    ``begin`` (most of a feature's, and of the features of equal ``n``)."""
    return _steps_of_bits(n, int(_F32(span).view(np.uint32)), int(_F32(begin).view(np.uint32)))


@lru_cache(maxsize=32)
def _steps_of_bits(n: int, span_bits: int, begin_bits: int) -> np.ndarray:
    """:func:`_steps` of the float32 ``span`` and ``begin`` given by their bits."""
    span, begin = np.uint32(span_bits).view(_F32), np.uint32(begin_bits).view(_F32)
    dx2 = np.arange(1, n, dtype=_F32)
    dx2 *= span
    dx2 /= _F32(n)
    dx2 += begin
    dx2 *= _F32(2)
    dx2.flags.writeable = False
    return dx2


@lru_cache(maxsize=32)
def _unit_steps(n: int, span: int, begin: int, size: int) -> tuple[np.ndarray, np.ndarray]:
    """For :func:`_unit_summary` (integer ``span`` and ``begin``): ``floor(d_k)`` and
    ``p_k = floor((d_k - 1) / 2)`` clipped to ``[0, size - 1]``, read-only."""
    floor_d = _steps(n, _F32(span), _F32(begin)).astype(np.intp)  # d_k >= 0
    p = floor_d - 1
    p >>= 1
    np.clip(p, 0, size - 1, out=p)
    floor_d.flags.writeable = p.flags.writeable = False
    return floor_d, p


def _unit_summary(value: np.ndarray, max_size: int) -> _Summary:
    """``_prune(_make_summary(value, None), max_size)`` for a queue of at most 2^24 entries of
    weight 1, from the sorted positions: the distinct value ``g`` spans ``[s_g, e_g)``, so
    ``rmin = s_g``, ``rmax = e_g``, the mid-rank is ``s_g + e_g`` (integers). The values
    ``g >= 1`` of mid-rank ``<= d`` are those before the one at position
    ``p = floor((d - 1) / 2)`` (theirs are ``<= 2p - 1``, those after it ``>= 2p + 3 > d``),
    and that one if its own is; ``RMinNext(i) + RMaxPrev(i + 1) = e_i + s_{i+1} = 2 e_i``."""
    v = np.sort(value)
    size = v.size
    new = v[1:] != v[:-1]
    distinct = bool(new.all())
    if distinct:
        n_values = size
    else:
        first = np.flatnonzero(np.concatenate([[True], new]))  # s_g
        end = np.append(first[1:], size)  # e_g
        n_values = first.size
    if n_values <= max_size:  # not pruned: the whole summary
        if distinct:
            return _Summary(np.arange(size, dtype=_F32), np.arange(1, size + 1, dtype=_F32), np.ones(size, _F32), v)
        rmin, rmax = first.astype(_F32), end.astype(_F32)
        return _Summary(rmin, rmax, rmax - rmin, v[first])
    begin = 1 if distinct else int(end[0])
    floor_d, p = _unit_steps(max_size - 1, (size - 1 if distinct else int(first[-1])) - begin, begin, size)
    if distinct:  # s_g = g, e_g = g + 1: the mid-ranks 2g + 1 <= d are those of g = 1..p
        i = np.maximum(p, 1)
    else:  # the value at position p, then whether its mid-rank is <= d
        repeat = np.flatnonzero(~new)  # the positions repeating the value before them, less 1
        i = p - np.searchsorted(repeat, p)
        i += (first + end)[i] <= floor_d
        i -= 1
        np.maximum(i, 1, out=i)
    live = i < n_values - 1  # xgboost stops at the first step that reaches the last entry
    if not live.all():
        i, floor_d = i[live], floor_d[live]
    idx = np.concatenate([[0], i + (floor_d >= 2 * (i + 1 if distinct else end[i])), [n_values - 1]])
    keep = idx[1:] != idx[:-1]  # non-decreasing: keep each index once
    if not keep.all():
        idx = idx[np.concatenate([[True], keep])]
    if distinct:
        rmin = idx.astype(_F32)
        return _Summary(rmin, rmin + _F32(1), np.ones(idx.size, _F32), v[idx])
    rmin, rmax = first[idx].astype(_F32), end[idx].astype(_F32)
    return _Summary(rmin, rmax, rmax - rmin, v[first[idx]])


def _queue_summary(value: np.ndarray, weight: np.ndarray | None, limit: int) -> _Summary:
    """A queue's summary pruned to ``limit`` entries: ``_prune(_make_summary(...), limit)``."""
    if value.size <= 1 << 24 and (weight is None or np.all(weight == 1)):
        return _unit_summary(value, limit)
    return _prune(_make_summary(value, weight), limit)


def _prune(s: _Summary, max_size: int) -> _Summary:
    """``WQSummary::SetPrune``: at most ``max_size`` entries, the first and last kept; for
    each of ``max_size - 2`` equal steps of the rank range, the entry of nearest mid-rank.

    xgboost walks ``i`` forward per step; ``d_k`` and ``rmax[i+1] + rmin[i+1]`` are both
    non-decreasing (float32 rounding is monotone, the ranks are sorted), so each step's ``i``
    is a ``searchsorted`` (computed as a merge of the two sorted lists) and the kept entries,
    non-decreasing, are their distinct values.
    """
    size = s.size
    if size <= max_size:
        return s
    rmin, rmax, wmin = s.rmin, s.rmax, s.wmin
    n = max_size - 1
    begin = rmax[0]
    span = _F32(rmin[-1] - begin)
    dx2 = _steps(n, span, begin)
    mid2 = rmax[1:] + rmin[1:]  # entry i + 1, for i = 0..size-2
    if begin > 0 and span >= 0 and mid2[0] > 0:
        # both lists positive and non-decreasing: their float32 bits sort as int32, and a
        # stable merge (timsort of two runs) puts each d_k after the mid-ranks <= d_k
        merged = np.argsort(np.concatenate([mid2.view(np.int32), dx2.view(np.int32)]), kind="stable")
        place = np.empty(merged.size, np.intp)
        place[merged] = _iota(merged.size)
        i = place[mid2.size:]
        i -= _iota(dx2.size)
    else:
        i = np.searchsorted(mid2, dx2, side="right")
    np.maximum(i, 1, out=i)
    live = i < size - 1  # xgboost stops at the first step that reaches the last entry
    if not live.all():
        i, dx2 = i[live], dx2[live]
    # keep i if d_k < RMinNext(i) + RMaxPrev(i + 1), else i + 1
    boundary = (rmin[:-1] + wmin[:-1]) + (rmax[1:] - wmin[1:])
    idx = np.concatenate([[0], i + (dx2 >= boundary[i]), [size - 1]])
    distinct = idx[1:] != idx[:-1]  # non-decreasing: keep each index once
    if not distinct.all():
        idx = idx[np.concatenate([[True], distinct])]
    return s.take(idx)


def _combine(a: _Summary, b: _Summary) -> _Summary:
    """``WQSummary::SetCombine``: merge two summaries by value, then ``FixError``.

    One stable merge of the two sorted value lists (an entry of ``a`` before an equal one of
    ``b``) places every entry in the union and tells how many of the other summary's values
    lie below it; a value of ``b`` equal to one of ``a`` (right after it) is dropped, its
    numbers added to its twin's."""
    if a.size == 0:
        return b
    if b.size == 0:
        return a
    na, nb = a.size, b.size
    values = np.concatenate([a.value, b.value])
    order = np.argsort(_order_key(values), kind="stable")
    place = np.empty(na + nb, np.intp)  # place[order] = 0..: where each entry lands
    place[order] = _iota(na + nb)
    below_a = place[:na] - _iota(na)  # b's values below each value of a
    upto_b = place[na:] - _iota(nb)  # a's values up to each value of b

    def before(y):  # y.rmin + y.wmin of the last smaller value (0: none), by values below
        out = np.empty(y.size + 1, _F32)
        out[0] = 0
        np.add(y.rmin, y.wmin, out=out[1:])
        return out

    def after(y):  # y.rmax - y.wmin of the first larger value (its total: none), by values below
        out = np.empty(y.size + 1, _F32)
        out[-1] = y.rmax[-1]
        np.subtract(y.rmax, y.wmin, out=out[:-1])
        return out

    rmin = np.concatenate([a.rmin + before(b)[below_a], b.rmin + before(a)[upto_b]])
    rmax = np.concatenate([a.rmax + after(b)[below_a], b.rmax + after(a)[upto_b]])
    wmin = np.concatenate([a.wmin, b.wmin])
    value = values[order]
    twin = value[1:] == value[:-1]  # a value of a, then the same of b
    if twin.any():
        q = np.flatnonzero(twin)
        i, j = order[q], order[q + 1] - na
        rmin[i] = a.rmin[i] + b.rmin[j]
        rmax[i] = a.rmax[i] + b.rmax[j]
        wmin[i] = a.wmin[i] + b.wmin[j]
        order, value = np.delete(order, q + 1), np.delete(value, q + 1)
    rmin, rmax, wmin = rmin[order], rmax[order], wmin[order]
    # FixError: rmin and max(rmax, rmin + wmin) made non-decreasing (most often they are)
    if (rmin[1:] < rmin[:-1]).any():
        rmin = np.maximum.accumulate(rmin)
    rmax = np.maximum(rmax, rmin + wmin)
    if (rmax[1:] < rmax[:-1]).any():
        rmax = np.maximum.accumulate(rmax)
    return _Summary(rmin, rmax, wmin, value)


def _feature_summary(value: np.ndarray, weight: np.ndarray | None, max_bin: int) -> _Summary:
    """The summary of one feature's stream (float32 values and positive weights, row order;
    ``weight=None``: all 1): steps 1, 2 and the first half of 5 of the module docstring."""
    n = value.size
    n_bins = max(min(max_bin, n), 1)
    eps = 1.0 / float(_F32(n_bins) * _F32(_FACTOR))
    limit = _limit_size_level(n, eps)
    if weight is not None and np.all(weight == 1):
        weight = None
    # queue entries: runs of equal consecutive values, weights added in row order
    new = value[1:] != value[:-1]
    if new.all():  # every entry a row
        run_value, run_weight = value, weight
    else:
        start = np.flatnonzero(np.concatenate([[True], new]))
        run_value = value[start]
        if weight is None:  # the runs' lengths
            run_weight = np.diff(np.append(start, n)).astype(_F32)
        else:
            run_weight = _sequential_sums(weight, start)
    chunk = 2 * limit
    n_flush = (run_value.size - 1) // chunk  # a full queue flushes when a new value arrives

    def entries(lo, hi):
        return run_value[lo:hi], None if run_weight is None else run_weight[lo:hi]

    levels: list[_Summary] = []  # levels[l - 1] is xgboost's level l
    for c in range(n_flush):
        temp = _queue_summary(*entries(c * chunk, (c + 1) * chunk), limit)
        level = 0
        while True:  # PushTemp (temp pruned to the limit)
            if level == len(levels):
                levels.append(_EMPTY)
            if levels[level].size == 0:
                levels[level] = temp
                break
            temp = _combine(temp, levels[level])
            if temp.size > limit:
                levels[level] = _EMPTY
                level += 1
                temp = _prune(temp, limit)
            else:
                levels[level] = temp
                break
    acc = _queue_summary(*entries(n_flush * chunk, None), limit)
    for summary in levels:  # GetSummary
        if summary.size == 0:
            continue
        acc = summary if acc.size == 0 else _prune(_combine(acc, summary), limit)
    return acc


def _feature_cuts(value: np.ndarray, weight: np.ndarray | None, max_bin: int) -> np.ndarray:
    """``[lower bound, cuts..., sentinel]`` (float32) of one feature's valid stream (``weight``
    ``None``: all 1), in the layout of ``get_quantile_cut``."""
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

    # one feature after the other, not in the _threads pool: a feature's sketch is ~1,000 numpy
    # operations on ~10^4 values, so two threads hand the GIL to each other at every one and
    # take longer than one thread (module docstring, "Cost")
    cuts = []
    block = max(1, (1 << 23) // max(X32.shape[0], 1))  # features at a time: 32 MB of values
    for lo in range(0, X32.shape[1], block):
        for x in _feature_major(X32[:, lo:lo + block]):
            if w32 is None:
                missing = np.isnan(x)
                cuts.append(_feature_cuts(x[~missing] if missing.any() else x, None, max_bin))
            else:
                keep = ~np.isnan(x) & (w32 > 0)
                cuts.append(_feature_cuts(x[keep], w32[keep], max_bin))
    return cuts


def _feature_major(X: np.ndarray) -> np.ndarray:
    """``X.T`` as a C-contiguous array (each feature's values contiguous), copied by blocks
    of rows that stay in cache (a column at a time reads a cache line per value)."""
    if X.flags.f_contiguous:
        return X.T
    out = np.empty(X.shape[::-1], X.dtype)
    for lo in range(0, X.shape[0], 8192):
        out[:, lo:lo + 8192] = X[lo:lo + 8192].T
    return out


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
        valid = X if sample_weight is None else X[np.asarray(sample_weight) > 0]
        with_missing = bool(np.isnan(valid).any())
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
