r"""Binning of features into small integer codes: the input of the histogram tree engine.

Each feature :math:`j` gets sorted edges :math:`e_{j,0} < e_{j,1} < \dots` (padded with
:math:`+\infty`) and a value :math:`x` gets the code

.. math:: \mathrm{code}(x) = \#\{b : e_{j,b} < x\}
          \quad(\texttt{searchsorted(edges, x, side="left")}),

so bin :math:`b` covers :math:`(e_{j,b-1}, e_{j,b}]` and
:math:`\mathrm{code}(x) \le b \iff x \le e_{j,b}`: a split "code <= b" of the binned data
is the split "x <= edges[b]" of the raw data. NaN gets its own code ``n_bins`` (the
*missing bin*), which the tree engine sends to the learned side of each split.

Edges. When a feature has at most ``n_bins`` distinct (non-missing) values
:math:`v_1 < \dots < v_k`, the binning is **exact**: the edges are the midpoints
:math:`v_i/2 + v_{i+1}/2`, the thresholds scikit-learn's trees use, so a tree grown on the
codes makes the same partitions as an exact CART search. Otherwise the edges are (weighted)
quantiles of the feature: with distinct values :math:`v_i` of total weight :math:`w_i` and
cumulative share :math:`c_i = \sum_{l \le i} w_l / \sum_l w_l`, edge :math:`k`
(:math:`k = 1..n\_bins-1`) is the midpoint after the first :math:`v_i` with
:math:`c_i \ge k / n\_bins` (duplicates dropped), as LightGBM does (Ke et al. 2017).
Rows of zero weight do not take part in the edges (so padding with zero-weight rows does not
change the binning). The edges are computed on the host in numpy: one sort per feature, a
one-off cost before any fit; above ``max_sample`` rows (200,000) the quantiles come from a
fixed-seed sample of rows, as LightGBM's ``bin_construct_sample_cnt``, while features of at
most ``n_bins`` distinct values stay exact (their values are checked on every row). The
codes are computed in JAX (:func:`apply_bins`, jittable).

Traced input. When ``X`` or ``sample_weight`` is traced (inside ``jit`` / ``vmap``, e.g.
``cross_validate`` over fold weights) the edges come from :func:`_traced_edges`, the same
rule in JAX: one stable ``argsort`` per feature of the column with the rows of zero weight
(and NaN) moved to the end as ``+inf``, the distinct values where the sorted column changes
(at most ``n_bins`` of them: the exact midpoints, equal to the host's), else the first
distinct value whose cumulative weight share reaches ``k / n_bins`` found by a
``searchsorted`` of the running weight of the sorted rows. Rows of zero weight take no part,
so a fit on fold weights bins as a fit on the sliced rows: exactly when the binning is
exact or the weights are 0/1-counts, and up to the rounding of a different summation order
of the cumulative weights otherwise (a quantile that falls exactly on a share boundary may
pick the neighbouring value). No row sampling (``max_sample``) on this path: cost
``O(n log n)`` per feature inside the compiled program.

Edge cases: a constant feature has no edge (one bin, never split); an all-NaN feature has
no edge and every row in the missing bin (never split).

Split points. A split "code <= b" is placed on the raw scale where scikit-learn places it:
midway between the largest value the node sends left and the smallest it sends right. The
tree engine knows, per split, the node's last non-empty bin at or left of ``b`` and its first
non-empty bin right of it (its rows of positive weight; ``Grown.left_bin``, ``right_bin``
of :mod:`jaxclassic.tree._engine`); :func:`bin_ranges`
gives the least and largest training value (rows of positive weight) of every bin, and
:func:`split_points` puts the threshold at the midpoint of the largest value of the left bin
and the least value of the right bin. With exact binning a bin holds one distinct value, so
this is exactly the node's pair of adjacent values, scikit-learn's midpoint. With quantile
bins (more distinct values than bins) it is a node-independent analogue: the node's own
largest value left and least right lie within those two bins' ranges (the node's values
themselves would need a pass over the raw values per node), so the point lies in the node's
gap between them and routes every training row of the node as the codes do; it is the
quantile edge itself when the two bins are adjacent.

References
----------
G. Ke et al., "LightGBM: A Highly Efficient Gradient Boosting Decision Tree", NeurIPS 2017
(histogram-based split finding).
L. Breiman, J. Friedman, R. Olshen, C. Stone, *Classification and Regression Trees*, 1984
(thresholds between consecutive values).
"""

from __future__ import annotations

from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

from jaxclassic import _jit
from jaxclassic._threads import map_columns
from jaxclassic.validation import check_array, check_int, check_sample_weight, is_traced

__all__ = ["bin_features", "apply_bins", "bin_ranges", "split_points", "code_dtype", "fewest_bins",
           "BIN_BUCKETS", "check_categorical_features", "categorical_codes"]

#: the bin counts :func:`fewest_bins` chooses from below the requested ``n_bins``
BIN_BUCKETS = (32, 64, 128)


def check_categorical_features(categorical_features, n_features: int):
    """The ``(F,)`` bool mask of the categorical features, or None when there are none.

    ``categorical_features``: None, a bool mask of shape ``(n_features,)`` or integer indices
    (as scikit-learn's ``HistGradientBoosting*``, without its names and ``"from_dtype"``: the
    estimators resolve those). An all-False mask gives None: numeric fits stay as they were.

    Examples
    --------
    >>> check_categorical_features([1], 3).tolist()
    [False, True, False]
    >>> check_categorical_features(None, 3) is None
    True
    """
    if categorical_features is None:
        return None
    if is_traced(categorical_features):
        raise TypeError("categorical_features must be concrete (a numpy mask or indices), not traced")
    arr = np.asarray(categorical_features)
    if arr.ndim != 1:
        raise ValueError(f"categorical_features must be a 1-d bool mask or integer indices, got shape {arr.shape}")
    if arr.dtype == bool:
        if arr.shape[0] != n_features:
            raise ValueError(f"categorical_features as a bool mask must have shape ({n_features},), got {arr.shape}")
        mask = arr.copy()
    elif arr.size == 0 or np.issubdtype(arr.dtype, np.integer):
        idx = arr.astype(np.int64)
        if np.any((idx < -n_features) | (idx >= n_features)):
            raise ValueError(f"categorical_features indices must be in [0, {n_features}), got {arr.tolist()}")
        mask = np.zeros(n_features, bool)
        mask[idx] = True
    else:
        raise TypeError(f"categorical_features must be None, a bool mask or integer indices, got dtype {arr.dtype}")
    return mask if mask.any() else None


def categorical_codes(X, codes, categorical, n_bins: int, missing_code: int | None = None):
    """``codes`` with the columns of the categorical features (``categorical`` ``(F,)`` bool)
    replaced by their category codes: the value of ``X`` itself, NaN in the missing bin
    ``n_bins``. A category code must be an integer in ``0..n_bins - 1`` (``n_bins`` categories
    at most, 255 by default: scikit-learn's ``HistGradientBoosting`` cap): a ValueError
    otherwise when ``X`` is concrete; traced, a code outside is sent to the missing bin.
    ``missing_code``: the missing bin's code when it is not ``n_bins`` (the XGBoost family's
    two extra bins).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.5, 2.0], [1.5, np.nan], [2.5, 0.0]])
    >>> codes, _ = bin_features(X, 4)
    >>> categorical_codes(X, codes, np.array([False, True]), 4)[:, 1].tolist()
    [2, 4, 0]
    """
    cols = np.flatnonzero(categorical)
    missing_code = n_bins if missing_code is None else missing_code
    if not is_traced(X):
        Xc = np.asarray(X)[:, cols]
        ok = np.isnan(Xc) | ((Xc >= 0) & (Xc < n_bins) & (Xc == np.round(Xc)))
        if not ok.all():
            r, c = np.argwhere(~ok)[0]
            raise ValueError(f"categorical feature {int(cols[c])} holds {Xc[r, c]!r} (row {int(r)}): category codes "
                             f"must be integers in 0..{n_bins - 1} (at most n_bins={n_bins} categories) or NaN")
        cat = np.where(np.isnan(Xc), missing_code, Xc).astype(np.asarray(codes).dtype)
        out = np.array(codes)
        out[:, cols] = cat
        return jnp.asarray(out) if isinstance(codes, jax.Array) else out
    Xc = jnp.asarray(X)[:, cols]
    ok = (Xc >= 0) & (Xc < n_bins) & (Xc == jnp.round(Xc))
    cat = jnp.where(ok, Xc, missing_code).astype(codes.dtype)
    return jnp.asarray(codes).at[:, cols].set(cat)


def code_dtype(n_bins: int):
    """``uint8`` when the codes ``0..n_bins`` (missing bin included) fit, else ``uint16``."""
    return jnp.uint8 if n_bins <= 255 else jnp.uint16


def _midpoints(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """``lo/2 + hi/2`` (no overflow), falling back to ``lo`` where rounding reaches ``hi``
    (so every value stays strictly right of the edge below it)."""
    mid = lo / 2 + hi / 2
    return np.where(mid < hi, mid, lo)


def _quantile_edges(values, weight, n_bins):
    """LightGBM-style edges from the sorted distinct ``values`` (more than ``n_bins``) and
    their total weights: the midpoint after the first value of cumulative share ``>= k/n_bins``."""
    share = np.cumsum(weight) / weight.sum()
    targets = np.arange(1, n_bins) / n_bins
    idx = np.searchsorted(share, targets - 1e-12, side="left")  # first i with share_i >= target
    idx = np.unique(np.clip(idx, 0, values.size - 2))
    return _midpoints(values[idx], values[idx + 1])


def _distinct(sorted_x, sorted_w):
    """Distinct values of a sorted column and their total weights (``None``: unit weights)."""
    start = np.flatnonzero(np.r_[True, sorted_x[1:] != sorted_x[:-1]]) if sorted_x.size else np.zeros(0, int)
    values = sorted_x[start]
    if sorted_w is None:
        weight = np.diff(np.r_[start, sorted_x.size]).astype(np.float64)
    else:
        weight = np.add.reduceat(sorted_w, start) if start.size else np.zeros(0)
    return values, weight


def _all_in(x, values):
    """True when every entry of ``x`` (non-missing) is one of the sorted ``values``."""
    x = x[~np.isnan(x)]
    if values.size == 0:
        return x.size == 0
    idx = np.minimum(np.searchsorted(values, x), values.size - 1)
    return bool(np.all(values[idx] == x))


def fewest_bins(X, n_bins: int = 255, *, buckets=BIN_BUCKETS, min_repeats: int = 2,
                max_elements: int = 1 << 25) -> int:
    r"""The smallest bin count in ``buckets`` that bins ``X`` exactly, else ``n_bins``.

    With :math:`n` rows, :math:`D_j` distinct non-missing values in feature :math:`j` and
    :math:`D = \max_j D_j`, this is the least :math:`b` in ``buckets`` with
    :math:`D + 1 \le b < n\_bins`, when the data repeat their values
    (:math:`D \cdot \texttt{min\_repeats} \le n`), else ``n_bins``. Binning at :math:`b`
    is then exact for every feature (the edges are the same midpoints as at ``n_bins``, with
    at least one ``+inf`` edge left, so the split "every non-missing value left" is still a
    candidate), and a tree grown at :math:`b` bins makes the same splits at the same
    thresholds as at ``n_bins`` (gains that tie exactly, whose rounding may differ with the
    bin count, are settled by the split order: ``tree._engine.TIE_ULPS``).
    The histogram engine's histograms and split search are ``O(b)`` per feature and node,
    so data of few distinct values (integer pixels, counts, categories, one-hot columns)
    fits several times faster: DecisionTreeClassifier on the first 512 rows of digits
    (:math:`D = 17`) in 53 ms at 32 bins against 548 ms at 255.

    The buckets keep the number of compiled programs small (one per bucket), and continuous
    data (:math:`D` close to :math:`n`: small data of distinct values, where the engine's work
    is small anyway) keeps ``n_bins``, so fits of it at every size up to a row bucket share
    one program (the tree family's estimators pad rows to 512 for that). The count is a
    host pass: a strided probe of at most 4,096 rows rejects continuous data at once, else
    one sort per feature. Above ``max_elements`` values (or with ``n_bins`` at or below the
    smallest bucket) ``n_bins`` is returned unread.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Raw features (NaN: missing, not counted); the rows the fit sees (no padding rows).
    n_bins : int in 2..256
        The requested bins (an upper bound).
    buckets : tuple of int, default :data:`BIN_BUCKETS`
        Increasing candidate counts.
    min_repeats : int, default 2
        Fewer bins only when ``D * min_repeats <= n``.
    max_elements : int, default ``2**25``
        Larger ``X`` is not read.

    Returns
    -------
    int

    Examples
    --------
    >>> import numpy as np
    >>> fewest_bins(np.arange(40.0).reshape(20, 2) % 7), fewest_bins(np.linspace(0, 1, 300)[:, None])
    (32, 255)
    >>> fewest_bins(np.arange(40.0)[:, None])  # 40 distinct values in 40 rows: continuous
    255

    References
    ----------
    Ke et al., "LightGBM", NeurIPS 2017 (a feature of few values gets few bins).
    """
    n_bins = check_int(n_bins, "n_bins", low=2, high=256)
    room = [int(b) for b in buckets if int(b) < n_bins]
    shape = np.shape(X)
    if not room or len(shape) != 2 or 0 in shape or shape[0] * shape[1] > max_elements:
        return n_bins
    Xn = np.asarray(X)
    limit = room[-1] - 1  # the most distinct values the largest bucket below n_bins bins exactly
    probe = Xn[:: max(1, Xn.shape[0] // 4096)]
    most = _most_distinct(probe, limit)
    if most > limit:
        return n_bins
    if probe.shape[0] < Xn.shape[0]:  # the probe saw a sample: count every row
        most = _most_distinct(Xn, limit)
    if most * check_int(min_repeats, "min_repeats", low=1) > Xn.shape[0]:
        return n_bins
    return next((b for b in room if most + 1 <= b), n_bins)


def _most_distinct(Xn, limit):
    """The largest count of distinct non-missing values over the columns of ``Xn`` (a value
    above ``limit`` means "more than ``limit``": the caller compares the two). Every column at
    once: one sort of the transposed rows (NaN last), a distinct value wherever a sorted entry
    differs from the one before (a per-column loop of numpy calls cost 0.7 ms of a 5 ms tree
    fit on wine's 13 columns)."""
    if Xn.shape[0] == 0:
        return 0
    S = np.sort(np.ascontiguousarray(Xn.T), axis=1)  # (F, n)
    valid = ~np.isnan(S) if np.issubdtype(S.dtype, np.floating) else np.ones(S.shape, bool)
    return int(np.count_nonzero(_run_starts(S, valid), axis=1).max())


def _run_starts(St, valid):
    """Where a distinct value starts in each row of ``St`` (F, m), sorted rows whose ``valid``
    entries (F, m) come first: a valid entry that differs from the one before it."""
    start = valid.copy()
    start[:, 1:] &= St[:, 1:] != St[:, :-1]
    return start


def _edges(Xn, w, n_bins, max_sample):
    """Edges ``(F, n_bins - 1)`` (``+inf`` padded) of the positive-weight rows of ``Xn``.

    One sort per feature of (a sample of) the rows: distinct values where the sorted column
    changes, their weights by counts (or sums of the weights in sorted order, a stable sort:
    the same sums as a per-value ``bincount``). With more than ``max_sample`` rows, the
    quantiles come from ``max_sample`` rows drawn without replacement (fixed seed), as
    LightGBM's ``bin_construct_sample_cnt``; a feature with at most ``n_bins`` distinct
    values in the sample is checked against every row and binned exactly when the sample
    saw all of its values (else from all its rows), so exactness never depends on the sample.
    """
    n_features = Xn.shape[1]
    edges = np.full((n_features, n_bins - 1), np.inf, dtype=Xn.dtype)
    unit = w is None or bool(np.all(w[w > 0] == 1))
    keep = np.ones(Xn.shape[0], bool) if w is None else w > 0
    rows = np.flatnonzero(keep)
    Xk = Xn if rows.size == Xn.shape[0] else Xn[rows]
    wk = None if unit else w[rows]
    sampled = rows.size > max_sample
    if sampled:
        pick = np.sort(np.random.default_rng(0).choice(rows.size, max_sample, replace=False))
        Xs, ws = Xk[pick], None if wk is None else wk[pick]
    else:
        Xs, ws = Xk, wk
    if ws is None:
        St = np.empty((n_features, Xs.shape[0]), Xs.dtype)

        def column(j):  # NaN last; numpy's sort releases the GIL: the columns run on every core
            St[j] = np.sort(Xs[:, j])

        map_columns(column, n_features, Xs.size)
        S = St.T
        Ws = None
    else:
        order = np.argsort(Xs, axis=0, kind="stable")
        S = np.take_along_axis(Xs, order, axis=0)
        Ws = ws[order]
    n_valid = Xs.shape[0] - np.count_nonzero(np.isnan(Xs), axis=0)
    if Ws is None and not sampled:
        return _edges_unit(S, n_valid, n_bins)
    for j in range(n_features):
        col = S[: n_valid[j], j]
        values, weight = _distinct(col, None if Ws is None else Ws[: n_valid[j], j])
        if sampled and values.size <= n_bins and not _all_in(Xk[:, j], values):
            col = np.sort(Xk[:, j])  # rare values the sample missed: this feature from all rows
            col = col[~np.isnan(col)]
            if wk is not None:
                order = np.argsort(Xk[:, j], kind="stable")
                order = order[~np.isnan(Xk[order, j])]
                values, weight = _distinct(Xk[order, j], wk[order])
            else:
                values, weight = _distinct(col, None)
        if values.size <= 1:
            continue
        e = _midpoints(values[:-1], values[1:]) if values.size <= n_bins else _quantile_edges(values, weight, n_bins)
        edges[j, : e.size] = e
    return edges


def _edges_unit(S, n_valid, n_bins):
    r""":func:`_edges` of unit-weight rows, every feature at once: ``S`` (m, F) the sorted
    columns (NaN last), ``n_valid`` (F,) their non-missing counts.

    The same edges as the loop of :func:`_edges` (tested), without its per-feature numpy calls
    (about 80 us a feature: 2.6 ms of a 4 ms tree fit on breast_cancer's 30 features). The
    quantile rule's first distinct value of cumulative share :math:`\ge t_k` is the run of
    the first sorted position :math:`p` with :math:`(p + 1) / m_j \ge t_k` (the share of a
    run is that of its last position, and shares grow with :math:`p`), found from the guess
    :math:`\lceil t_k m_j \rceil - 1` corrected by one step either way with the same float
    comparison as the loop."""
    m, n_features = S.shape
    edges = np.full((n_features, n_bins - 1), np.inf, dtype=S.dtype)
    if m == 0:
        return edges
    St = np.ascontiguousarray(S.T)  # (F, m)
    n_valid = np.asarray(n_valid, np.int64)
    start = _run_starts(St, np.arange(m)[None, :] < n_valid[:, None])  # (F, m)
    n_distinct = start.sum(axis=1)
    width = int(n_distinct.max())
    if width <= 1:
        return edges
    filled = np.arange(width)[None, :] < n_distinct[:, None]
    values = np.zeros((n_features, width), S.dtype)
    values[filled] = St[start]  # each feature's distinct values, in order, padded
    exact = (n_distinct >= 2) & (n_distinct <= n_bins)
    if exact.any():
        mids = _midpoints(values[exact, :-1], values[exact, 1:])
        used = np.arange(width - 1)[None, :] < (n_distinct[exact] - 1)[:, None]
        block = np.full(mids.shape, np.inf, S.dtype)
        block[used] = mids[used]
        cols = min(width - 1, n_bins - 1)
        edges[np.flatnonzero(exact), :cols] = block[:, :cols]
    many = np.flatnonzero(n_distinct > n_bins)
    if many.size:
        nv = n_valid[many].astype(np.float64)[:, None]  # (Q, 1)
        targets = (np.arange(1, n_bins) / n_bins - 1e-12)[None, :]  # as _quantile_edges
        p = np.clip(np.ceil(targets * nv).astype(np.int64) - 1, 0, None)
        p = np.minimum(p, n_valid[many][:, None] - 1)
        for _ in range(2):  # the guess's rounding, either way: the first p with (p+1)/m >= t
            p = np.where((p + 1) / nv >= targets, p, p + 1)
            p = np.where((p > 0) & (p / nv >= targets), p - 1, p)
        run = np.cumsum(start[many], axis=1) - 1  # (Q, m): distinct index of each position
        idx = np.take_along_axis(run, p, axis=1)
        idx = np.clip(idx, 0, (n_distinct[many] - 2)[:, None])
        keep = np.ones(idx.shape, bool)
        keep[:, 1:] = idx[:, 1:] != idx[:, :-1]  # idx grows with the target: np.unique
        vals = values[many]
        mids = _midpoints(np.take_along_axis(vals, idx, axis=1), np.take_along_axis(vals, idx + 1, axis=1))
        slot = np.cumsum(keep, axis=1) - 1
        rows = np.broadcast_to(np.arange(many.size)[:, None], idx.shape)
        block = np.full(idx.shape, np.inf, S.dtype)
        block[rows[keep], slot[keep]] = mids[keep]
        edges[many] = block
    return edges


def bin_features(X, n_bins: int = 255, *, sample_weight=None, max_sample: int = 200_000):
    r"""Quantile (or exact) bin edges of every feature and the codes of ``X``.

    See the module docstring for the edges and the rule
    :math:`\mathrm{code} \le b \iff x \le \mathrm{edges}[b]`.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Raw features; NaN marks a missing value (inf is an error).
    n_bins : int, default 255
        Number of bins of non-missing values, in ``2..256``; the missing bin is code
        ``n_bins``. Departure from the issue's "256" default: 255 keeps the codes ``uint8``
        with the missing bin included (256 needs ``uint16``).
    sample_weight : array-like of shape (n_samples,), optional
        Weights of the quantiles; rows of weight 0 are ignored. ``X`` or ``sample_weight``
        traced (inside ``jit`` / ``vmap``): the edges are computed in JAX by the same rule
        (module docstring, "Traced input").
    max_sample : int, default 200,000
        Above this many positive-weight rows the quantile edges come from a sample of this
        many rows (fixed seed; LightGBM's ``bin_construct_sample_cnt``). Features with at
        most ``n_bins`` distinct values stay exact: their values are checked on all rows.

    Returns
    -------
    codes : (n_samples, n_features) uint8 (uint16 when ``n_bins == 256``)
        Bin codes; ``n_bins`` for NaN.
    edges : (n_features, n_bins - 1) array of X's float dtype
        Sorted edges per feature, padded with ``+inf``.

    Examples
    --------
    >>> import numpy as np
    >>> codes, edges = bin_features(np.array([[0.0], [1.0], [1.0], [3.0], [np.nan]]), n_bins=4)
    >>> codes[:, 0].tolist(), edges[0].tolist()
    ([0, 1, 1, 2, 4], [0.5, 2.0, inf])

    References
    ----------
    Ke et al., "LightGBM", NeurIPS 2017 (histogram binning).
    """
    n_bins = check_int(n_bins, "n_bins", low=2, high=256)
    max_sample = check_int(max_sample, "max_sample", low=2)
    if is_traced(X) or is_traced(sample_weight):
        Xj = check_array(X, "X", allow_nan=True)
        w = None if sample_weight is None else check_sample_weight(sample_weight, Xj.shape[0], dtype=Xj.dtype)
        edges = _traced_edges(Xj, w, n_bins)
        return apply_bins(Xj, edges), edges
    Xn = check_array(X, "X", allow_nan=True, _numpy=True)
    n_samples, n_features = Xn.shape
    w = None
    if sample_weight is not None:
        w = np.asarray(check_sample_weight(sample_weight, n_samples), dtype=np.float64)
    # the codes on the host too (X is here already: no transfer of X and no program; a
    # binary search per feature, :func:`apply_bins`'s rule), then one batched device_put (no
    # `stage` program per shape, as jnp.asarray compiles)
    edges = _edges(Xn, w, n_bins, max_sample)
    codes, edges = jax.device_put((_host_codes(Xn, edges), edges))
    return codes, edges


def _host_codes(Xn, edges):
    """:func:`apply_bins` in numpy: ``#{b : edges[j, b] < x}`` per feature (``searchsorted``
    on the left of the sorted, ``+inf`` padded edges), ``n_bins`` for NaN; ``Xn`` is compared
    in the edges' dtype, as :func:`apply_bins` casts it."""
    n_bins = edges.shape[1] + 1
    x = np.asarray(Xn, edges.dtype)
    codes = np.empty(x.shape, code_dtype(n_bins))

    def column(j):  # numpy's binary search releases the GIL: the columns run on every core
        codes[:, j] = np.searchsorted(edges[j], x[:, j], side="left")

    map_columns(column, x.shape[1], x.size)
    codes[np.isnan(x)] = n_bins
    return codes


@partial(_jit.jit, static_argnames="n_bins")
def _traced_edges(X, w, n_bins):
    """The edges of :func:`bin_features` in JAX (jit / vmap over ``X`` and ``w``): ``(F, n_bins - 1)``.

    Per feature (a ``vmap``): a stable argsort of the column with NaN and the rows of zero
    weight set to ``+inf`` (after every valid row); a sorted row starts a distinct value where
    it differs from the row before. At most ``n_bins`` distinct values: their midpoints
    (exact binning, as the host). Else LightGBM's quantile rule of :func:`_quantile_edges`:
    for ``k = 1..n_bins-1`` the first row whose running weight share is
    ``>= k/n_bins - 1e-12`` names the value (its distinct index clipped to the second to
    last), the edge is the midpoint to the next distinct value, duplicates dropped.
    """
    n_rows = X.shape[0]
    dtype = X.dtype
    w = jnp.ones((n_rows,), dtype) if w is None else w.astype(dtype)

    def one(x):
        valid = (w > 0) & ~jnp.isnan(x)
        key = jnp.where(valid, x, jnp.inf)
        order = jnp.argsort(key, stable=True)
        s = key[order]
        ws = jnp.where(valid, w, 0)[order]
        n_valid = jnp.sum(valid)
        pos = jnp.arange(n_rows)
        new = (pos < n_valid) & jnp.concatenate([jnp.ones((1,), bool), s[1:] != s[:-1]])
        n_distinct = jnp.sum(new)
        starts = jnp.nonzero(new, size=n_rows, fill_value=0)[0]
        values = s[starts]  # distinct values in order (first n_distinct entries)
        values = jnp.pad(values, (0, max(0, n_bins - n_rows)), constant_values=jnp.inf)
        # exact: midpoints of consecutive distinct values
        lo, hi = values[: n_bins - 1], values[1:n_bins]
        exact = jnp.where(jnp.arange(n_bins - 1) < n_distinct - 1, _midpoints_jnp(lo, hi), jnp.inf)
        # quantiles: the first row of running share >= k / n_bins names the distinct value
        cw = jnp.cumsum(ws)
        share = cw / jnp.where(cw[-1] > 0, cw[-1], 1)
        targets = jnp.arange(1, n_bins, dtype=dtype) / n_bins - 1e-12
        row = jnp.minimum(jnp.searchsorted(share, targets, side="left"), n_rows - 1)
        idx = jnp.clip(jnp.cumsum(new)[row] - 1, 0, n_distinct - 2)
        quant = _midpoints_jnp(values[idx], values[idx + 1])
        quant = jnp.where(jnp.concatenate([jnp.ones((1,), bool), quant[1:] != quant[:-1]]), quant, jnp.inf)
        quant = jnp.sort(quant)  # duplicates (now +inf) to the end
        return jnp.where(n_distinct <= 1, jnp.inf, jnp.where(n_distinct <= n_bins, exact, quant))

    return jax.vmap(one, in_axes=1)(X)


def _midpoints_jnp(lo, hi):
    """:func:`_midpoints` in JAX."""
    mid = lo / 2 + hi / 2
    return jnp.where(mid < hi, mid, lo)


@_jit.jit
def apply_bins(X, edges):
    """Codes of ``X`` under ``edges`` (from :func:`bin_features`): ``searchsorted`` per feature.

    Parameters
    ----------
    X : (n_samples, n_features) float array (NaN allowed)
    edges : (n_features, n_bins - 1) float array, sorted, ``+inf`` padded

    Returns
    -------
    codes : (n_samples, n_features) uint8 / uint16
        ``#{b : edges[j, b] < x}``, and ``n_bins`` for NaN.

    Examples
    --------
    >>> import jax.numpy as jnp
    >>> apply_bins(jnp.array([[0.2], [0.7], [jnp.nan]]), jnp.array([[0.5, jnp.inf]])).tolist()
    [[0], [1], [3]]
    """
    n_features, n_edges = edges.shape
    n_bins = n_edges + 1
    # a branch-free binary search, unrolled over log2(size) steps, the edges padded with +inf
    # to a power of two: one small-table gather per step (4x faster than vmap(searchsorted))
    size = 1 << n_edges.bit_length()  # a power of two > n_edges
    table = jnp.pad(edges, ((0, 0), (0, size - n_edges)), constant_values=jnp.inf).reshape(-1)
    x = X.astype(edges.dtype)
    base = jnp.arange(n_features, dtype=jnp.int32) * size
    codes = jnp.zeros(X.shape, jnp.int32)  # invariant: edges[b] < x for every b < codes
    step = size // 2
    while step >= 1:
        codes = jnp.where(table[base + codes + step - 1] < x, codes + step, codes)
        step //= 2
    codes = jnp.where(jnp.isnan(x), n_bins, codes)
    return codes.astype(code_dtype(n_bins))


def bin_ranges(X, codes, n_bins: int, *, sample_weight=None):
    """The least and the largest value of the rows of positive weight in every bin.

    Parameters
    ----------
    X : (n_samples, n_features) float array (NaN allowed: those rows are in the missing bin)
    codes : (n_samples, n_features) uint8 / uint16
        ``X``'s codes (:func:`bin_features` / :func:`apply_bins`).
    n_bins : int (static)
        Bins of non-missing values (the edges' ``n_bins - 1`` plus one).
    sample_weight : (n_samples,) array, optional
        Rows of weight 0 take no part (padding rows, out-of-bag rows).

    Returns
    -------
    bin_min, bin_max : (n_features, n_bins) arrays of X's float dtype
        ``+inf`` / ``-inf`` in a bin without such rows. With exact binning (at most
        ``n_bins`` distinct values) both are the bin's one distinct value.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [1.0], [3.0]])
    >>> codes, edges = bin_features(X, n_bins=4)
    >>> lo, hi = bin_ranges(X, codes, 4)
    >>> lo[0].tolist(), hi[0].tolist()
    ([0.0, 1.0, 3.0, inf], [0.0, 1.0, 3.0, -inf])
    """
    n_bins = check_int(n_bins, "n_bins", low=2, high=256)
    host = not any(is_traced(a) for a in (X, codes, sample_weight))
    Xj = check_array(X, "X", allow_nan=True, _numpy=host)
    codes = np.asarray(codes) if host else jnp.asarray(codes)
    if codes.shape != Xj.shape or not jnp.issubdtype(codes.dtype, jnp.unsignedinteger):
        raise ValueError(f"codes must be the unsigned integer codes of X, shape {Xj.shape}, "
                         f"got {codes.dtype} {codes.shape}")
    w = None if sample_weight is None else check_sample_weight(sample_weight, Xj.shape[0], dtype=Xj.dtype)
    if host:  # numpy: no program to dispatch (0.1 ms against 0.35 ms on 512 x 30, 2026-11-29)
        return _host_ranges(Xj, codes, None if w is None else np.asarray(w), n_bins)
    return _bin_ranges(Xj, codes, w, n_bins)


def _host_ranges(X, codes, w, n_bins):
    """:func:`_bin_ranges` in numpy for concrete arrays: the same least and largest values
    (an unbuffered ``np.minimum.at`` / ``np.maximum.at`` over the ``(feature, code)`` cells)."""
    n_rows, n_features = X.shape
    n_codes = n_bins + 1
    keep = ~np.isnan(X)  # the missing bin's cells are dropped anyway
    if w is not None:
        keep &= (w > 0)[:, None]
    cell = (np.arange(n_features) * n_codes + codes.astype(np.intp))[keep]
    x = X[keep]
    low = np.full(n_features * n_codes, np.inf, X.dtype)
    high = np.full(n_features * n_codes, -np.inf, X.dtype)
    np.minimum.at(low, cell, x)
    np.maximum.at(high, cell, x)
    shape = (n_features, n_codes)
    return low.reshape(shape)[:, :n_bins], high.reshape(shape)[:, :n_bins]


@partial(_jit.jit, static_argnames="n_bins")
def _bin_ranges(X, codes, w, n_bins):
    """:func:`bin_ranges`: one segment min and max over the ``F·(n_bins + 1)`` (feature, code)
    cells; rows of zero weight and the missing bin drop out."""
    n_rows, n_features = X.shape
    n_codes = n_bins + 1
    keep = jnp.ones((n_rows, 1), bool) if w is None else (w > 0)[:, None]
    cell = (jnp.arange(n_features, dtype=jnp.int32) * n_codes + codes.astype(jnp.int32)).reshape(-1)
    x = X.reshape(-1)
    keep = jnp.broadcast_to(keep, X.shape).reshape(-1)
    low = jax.ops.segment_min(jnp.where(keep, x, jnp.inf), cell, n_features * n_codes)
    high = jax.ops.segment_max(jnp.where(keep, x, -jnp.inf), cell, n_features * n_codes)
    shape = (n_features, n_codes)
    return low.reshape(shape)[:, :n_bins], high.reshape(shape)[:, :n_bins]


def midpoint_below(low, high):
    r"""The largest number of the dtype not above the exact midpoint :math:`(a + b) / 2`.

    scikit-learn's threshold is ``a / 2.0 + b / 2.0`` in float64 of two float32 values, which
    is the exact midpoint (two float32 halves sum exactly in float64 unless their exponents
    are ~29 apart). In float64 this returns that number; in float32, where it is rarely
    representable, the float32 just below it, which routes every float32 value as the exact
    midpoint does (``x <= t  <=>  x <= (a + b) / 2``). Computed as ``s = a/2 + b/2`` rounded,
    its exact rounding error by Knuth's TwoSum, and one step down when ``s`` rounded up; so
    ``a <= t < b`` for finite ``a < b``. Operands below :math:`2^{-60}` in magnitude are
    scaled by :math:`2^{64}` first (exact), so that the rounding error is not a subnormal
    number, which XLA's CPU backend flushes to zero. An infinite operand gives that infinity.
    """
    small = jnp.maximum(jnp.abs(low), jnp.abs(high)) < 2.0 ** -60
    scale = jnp.where(small, 2.0 ** 64, 1.0).astype(jnp.result_type(low, high))
    x, y = low * scale / 2, high * scale / 2
    s = x + y
    y_part = s - x  # TwoSum (Knuth, TAOCP 4.2.2): s + err == x + y exactly
    x_part = s - y_part
    err = (x - x_part) + (y - y_part)
    return jnp.where(err < 0, jnp.nextafter(s, jnp.asarray(-jnp.inf, s.dtype)), s) / scale


def split_points(feature, left_bin, right_bin, bin_min, bin_max):
    r"""Raw split points of a tree's nodes: the midpoint (:func:`midpoint_below`) of the largest
    value of the node's last non-empty bin ``left_bin`` at or left of the split and the least
    value of its first non-empty bin ``right_bin`` right of it (module docstring, "Split
    points"); ``-inf`` when nothing non-missing goes left, ``+inf`` when nothing goes right
    (scikit-learn's threshold of a split that sends only the missing values right), NaN where
    ``feature < 0`` (leaves).

    Parameters
    ----------
    feature, left_bin, right_bin : (M,) int32
        As the engine's ``Grown`` (``left_bin < 0``, ``right_bin >= n_bins``: no such bin).
    bin_min, bin_max : (F, n_bins) float
        :func:`bin_ranges`.
    """
    n_bins = bin_min.shape[1]
    f = jnp.maximum(feature, 0)
    a = jnp.where(left_bin >= 0, bin_max[f, jnp.clip(left_bin, 0, n_bins - 1)], -jnp.inf)
    b = jnp.where(right_bin < n_bins, bin_min[f, jnp.clip(right_bin, 0, n_bins - 1)], jnp.inf)
    return jnp.where(feature >= 0, midpoint_below(a, b), jnp.nan)
