r"""The sorted engine: level-wise growth of a binary tree from each feature's rows in sorted
order (scikit-learn's exact splitter, Breiman et al. 1984 §4; Mehta et al. 1996, SLIQ's
presorted lists), for small data on a CPU.

The histogram engine (:mod:`jaxclassic.tree._engine`) searches every node over all ``B`` bins
of every feature: ``O(F·B·S)`` a node whatever its rows, so a tree grown until its leaves are
pure on a few hundred rows (hundreds of nodes, ``B = 256``) pays for bins its nodes cannot
hold (DecisionTreeRegressor on diabetes: ~600 node searches of 55 us). This engine keeps,
for every feature, the row indices ordered by (node, code): every node's rows form one
segment ``[start, start + n)``, at the same positions for every feature (a split partitions
its segment stably, left rows first: scikit-learn's ``samples`` array). A level then costs
``O(F·n·S)`` whatever its number of nodes:

1. the statistics of the rows in each feature's order, ``(n, F, S + 1)`` (positions-major:
   rows gathered whole), and their running sums down the positions within each node
   (:func:`_segment_cumsum`: blocked matrix products by same-segment masks, as ``jnp.cumsum``
   is an associative scan on XLA:CPU): the statistics left of a split after position ``p``,
   sums of the node's own rows;
2. the gain of every (feature, position) where the code changes inside an open node (the
   histogram engine's candidate thresholds that some row of the node sits on: the same
   partitions), and per node the first maximum in (feature, code) order with gains within
   :data:`~jaxclassic.tree._engine.TIE_ULPS` epsilons counted as ties (the histogram engine's
   rule, so the same splits);
3. the rows routed, and each feature's order partitioned stably within the split segments
   (a running count of the rows going left, one scatter).

Trees equal the histogram engine's node for node (same numbering, thresholds ``threshold_bin``,
statistics up to the rounding of sums in another order), so it stands in for
:func:`~jaxclassic.tree._engine.grow` where it is faster: no missing codes, every feature
searched (no ``max_features`` draws), few rows (:func:`use_sorted`).

References
----------
L. Breiman, J. Friedman, R. Olshen, C. Stone, *Classification and Regression Trees*, 1984.
M. Mehta, R. Agrawal, J. Rissanen, "SLIQ: A Fast Scalable Classifier for Data Mining", EDBT 1996.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from jaxclassic.tree import _engine, _hist_pallas
from jaxclassic.validation import is_traced

__all__ = ["grow_sorted", "host_order", "plan", "use_sorted"]

#: most rows (padded) for which estimators pick this engine on a CPU: each level costs
#: ``O(F·n·S)`` whatever its nodes, the histogram engine's levels follow the rows of the
#: smaller children and the open nodes
SORTED_MAX_ROWS = 1024

_BLOCK = 32


def use_sorted(n_rows: int, n_bins: int, max_depth, *, regression: bool, has_missing: bool, all_features: bool,
               backend: str) -> bool:
    """Whether a tree of these sizes grows faster by :func:`grow_sorted` than by the
    histogram engine (a static choice; measured on a 2-core CPU, 2026-11-29).

    A level of this engine costs ``O(F·n·S)``; the histogram engine's costs ``O(F·B·S)`` for
    each node it searches, plus its histograms of the smaller children's rows. So this
    engine is chosen for regression trees on at most :data:`SORTED_MAX_ROWS` rows with no
    missing value and every feature searched, on a CPU, when the levels split many nodes:
    grown until pure (``max_depth`` None: about as many nodes as rows; diabetes, 635 nodes:
    3.4x faster), or a complete tree of depth ``d`` whose ``(2^d - 1) / d`` splits a level
    times ``n_bins`` reach ``3n/4`` (gradient boosting's depth-3 trees: 1.4-1.9x faster on
    wine, breast_cancer, diabetes with 255 bins, 1.7x slower on iris with 64 bins, 1.1x
    slower on 1,000 rows). Classification trees on such data split few nodes a level (13-250
    nodes on iris, wine, breast_cancer, digits), where the two engines were within 10%: the
    histogram engine keeps them.
    """
    if backend != "cpu" or not regression or has_missing or not all_features or n_rows > SORTED_MAX_ROWS:
        return False
    if max_depth is None:
        return True
    d = int(max_depth)
    return (2 ** d - 1) / d * n_bins >= 0.75 * n_rows


def plan(codes, n_bins: int, max_depth, *, regression: bool, has_missing: bool, max_features):
    """``(sort, order)`` for a fit of ``codes`` ``(n, F)``: whether :func:`use_sorted` picks
    this engine on the current backend (every feature searched when ``max_features`` is None
    or at least ``F``), and then :func:`host_order` (None otherwise). The one choice of
    ``tree.cart``, the forests and gradient boosting."""
    n_rows, n_features = codes.shape
    sort = use_sorted(n_rows, n_bins, max_depth, regression=regression, has_missing=has_missing,
                      all_features=max_features is None or max_features >= n_features,
                      backend=_hist_pallas._backend())
    return sort, host_order(codes) if sort else None


def host_order(codes):
    """``order`` of :func:`grow_sorted` for codes ``(n, F)``: each feature's rows by code, ties
    in row order, ``(F, n)`` int32, sorted by numpy on the host (a radix sort of the small
    integer codes); None for traced codes (then :func:`grow_sorted` sorts inside the program)."""
    if is_traced(codes):
        return None
    return np.ascontiguousarray(np.argsort(np.asarray(codes), axis=0, kind="stable").T.astype(np.int32))


def _segment_cumsum(x, seg):
    """Inclusive cumulative sums of ``x`` (n, R) down its rows within runs of equal ``seg``
    (n,) (contiguous segments): sums of the segment's own rows, no subtraction of running sums
    (exact relative to the segment). Blocks of :data:`_BLOCK` rows: one batched matrix product
    by each block's lower-triangular same-segment mask, then each block's carry from the
    blocks before it in its first segment (one matrix product over the blocks)."""
    n, r = x.shape
    b = min(_BLOCK, n)
    nb = -(-n // b)
    pad = nb * b - n
    xb = jnp.pad(x, ((0, pad), (0, 0))).reshape(nb, b, r)
    sb = jnp.pad(seg, (0, pad), constant_values=-1).reshape(nb, b)
    lower = jnp.tril(jnp.ones((b, b), bool))
    mask = (lower[None] & (sb[:, :, None] == sb[:, None, :])).astype(x.dtype)  # (nb, b, b)
    within = jnp.einsum("kij,kjr->kir", mask, xb, precision="highest")
    tail = within[:, -1, :]  # (nb, R): each block's sum of its last segment
    ks = jnp.arange(nb)
    reach = (ks[:, None] < ks[None, :]) & (sb[:, -1][:, None] == sb[:, 0][None, :])  # block m feeds block k
    carry = jnp.matmul(reach.T.astype(x.dtype), tail, precision="highest")  # (nb, R)
    first = (sb == sb[:, :1])[:, :, None]
    out = within + jnp.where(first, carry[:, None, :], 0)
    return out.reshape(nb * b, r)[:n]


def grow_sorted(
    codes_T,
    stats,
    count,
    *,
    criterion,
    n_bins: int,
    max_nodes: int,
    max_width: int,
    max_depth=None,
    criterion_params=(),
    min_samples_split=2,
    min_samples_leaf=1,
    min_weight_leaf=0.0,
    min_impurity_decrease=0.0,
    feature_mask=None,
    order=None,
) -> _engine.Grown:
    r""":func:`~jaxclassic.tree._engine.grow` by sorted rows (module docstring): the same tree
    for data with no missing code and every feature searched (pure; jit/vmap it).

    Parameters
    ----------
    codes_T : (F, n) unsigned int
        Bin codes feature-major, all below ``n_bins`` (no missing value).
    stats, count, criterion, n_bins, max_nodes, max_width, max_depth, criterion_params,
    min_samples_split, min_samples_leaf, min_weight_leaf, min_impurity_decrease, feature_mask
        As :func:`~jaxclassic.tree._engine.grow`.
    order : (F, n) int32, optional
        Each feature's rows sorted by code, ties in row order (``np.argsort(codes_T,
        kind="stable")``): made here by ``jnp.argsort`` when omitted (a sort, slower than the
        host's on a CPU).

    Returns
    -------
    Grown

    Examples
    --------
    >>> import jax.numpy as jnp
    >>> from jaxclassic.tree._engine import CRITERIA
    >>> codes_T = jnp.array([[0, 0, 1, 1]], jnp.uint8)
    >>> stats = jnp.eye(2)[jnp.array([0, 0, 1, 1])]
    >>> g = grow_sorted(codes_T, stats, jnp.ones(4), criterion=CRITERIA["gini"], n_bins=2, max_nodes=3,
    ...                 max_width=1)
    >>> int(g.n_nodes), g.feature.tolist(), g.row_node.tolist()
    (3, [0, -1, -1], [1, 1, 2, 2])

    References
    ----------
    Breiman et al. 1984 (CART); Mehta et al. 1996 (presorted attribute lists).
    """
    n_features, n_rows = codes_T.shape
    n_stats = stats.shape[1]
    dtype = stats.dtype
    M, W = int(max_nodes), int(max_width)
    C = 2 * W
    i32 = jnp.int32
    depth_cap = jnp.asarray(M if max_depth is None else max_depth, i32)
    eps = jnp.finfo(dtype).eps
    params = criterion_params
    if feature_mask is None:
        feature_mask = jnp.ones((n_features,), bool)
    msl = jnp.asarray(min_samples_leaf, dtype)
    mss = jnp.maximum(jnp.asarray(min_samples_split, dtype), 2 * msl)
    mwl = jnp.asarray(min_weight_leaf, dtype)
    mid = jnp.asarray(min_impurity_decrease, dtype)
    codes = codes_T.T.astype(i32)  # (n, F): positions-major layout throughout (rows gathered whole)
    if order is None:
        order = jnp.argsort(codes_T, axis=1, stable=True)
    order = jnp.asarray(order, i32).T  # (n, F): order[p, f] the row at position p of feature f

    sc = jnp.concatenate([stats, count[:, None].astype(dtype)], axis=1)  # (n, S1)
    total = jnp.sum(sc, axis=0)
    root_weight = criterion.weight(total[:n_stats], params)
    scale = 1 / _engine._safe(root_weight) if criterion.normalise else jnp.asarray(1, dtype)
    positive = sc[:, n_stats] > 0
    purity_ref = criterion.purity_reference(stats, positive, params) if criterion.stop_when_pure else None
    pos = jnp.arange(n_rows, dtype=i32)
    f_row = jnp.arange(n_features, dtype=i32)[None, :]
    big = n_features * n_rows  # ties go to the first in (feature, position) order: feature * n + position

    may_split = _engine._stopping_rules(criterion, params, n_stats, depth_cap, mss, mwl, purity_ref, eps)

    def level(st):
        ids = st["cand_ids"]
        first_id = ids[0]
        pstats = st["node_stats"][ids]
        pdepth = st["depth"][ids]
        open_ = st["cand_valid"] & may_split(pstats, st["impurity"][ids], pdepth)
        order, pos_node, start = st["order"], st["pos_node"], st["start"]
        slot = pos_node - first_id  # the candidate slot of each position's node
        in_level = (slot >= 0) & (slot < C)
        slot = jnp.where(in_level, slot, C)
        open_pos = in_level & open_[jnp.minimum(slot, C - 1)]
        # (1) statistics in each feature's order, summed within the node up to each position
        s_sorted = sc[order]  # (n, F, S1)
        lp = _segment_cumsum(s_sorted.reshape(n_rows, -1), pos_node).reshape(s_sorted.shape)
        p_at = st["node_stats"][pos_node]  # (n, S1)
        lpl = [lp[:, :, k] for k in range(n_stats + 1)]  # (n, F) each
        rpl = [p_at[:, k:k + 1] - lpl[k] for k in range(n_stats + 1)]
        loss_p = (criterion.plane_loss([p_at[:, k] for k in range(n_stats)], params)
                  - criterion.penalty(params))[:, None]  # (n, 1)
        # (2) gains where the code changes inside an open node
        c_sorted = jnp.take_along_axis(codes, order, axis=0)  # (n, F)
        nxt = jnp.concatenate([c_sorted[1:], jnp.full((1, n_features), -1, i32)], axis=0)
        same_node = jnp.concatenate([pos_node[1:] == pos_node[:-1], jnp.zeros((1,), bool)])
        valid = (nxt > c_sorted) & (same_node & open_pos)[:, None] & feature_mask[None, :]
        valid &= (lpl[n_stats] >= msl) & (rpl[n_stats] >= msl)
        valid &= criterion.plane_weight(lpl[:n_stats], params) >= mwl
        valid &= criterion.plane_weight(rpl[:n_stats], params) >= mwl
        gain = loss_p - criterion.plane_loss(lpl[:n_stats], params) - criterion.plane_loss(rpl[:n_stats], params)
        gain = jnp.where(valid, gain, -jnp.inf)  # (n, F)
        best = jnp.full((C,), -jnp.inf, dtype).at[slot].max(jnp.max(gain, axis=1), mode="drop")
        tied = _engine._tied(gain, best[jnp.minimum(slot, C - 1)][:, None], loss_p)
        # first in (feature, code) order: within a node the positions follow the codes
        key = jnp.where(tied, f_row * n_rows + pos[:, None], big)
        first = jnp.full((C,), big, i32).at[slot].min(jnp.min(key, axis=1), mode="drop")
        first = jnp.minimum(first, big - 1)
        feat, at = first // n_rows, first % n_rows
        gain = jnp.where(open_, best, -jnp.inf)
        tbin = c_sorted[at, feat]
        lstats = lp[at, feat]  # (C, S1)
        if criterion.unseen_missing_right:
            mleft = jnp.zeros((C,), bool)
        else:  # no missing value: the side of the child with more rows (_engine._best_splits)
            mleft = lstats[:, n_stats] > pstats[:, n_stats] - lstats[:, n_stats]
        # the splits: _engine.grow's rules and numbering
        new, (split, _, n_split, left_id, _, at_p) = _engine._commit_splits(
            st, ids, pstats, pdepth, open_, gain, feat, tbin, mleft, lstats, criterion, params, n_stats,
            W=W, M=M, scale=scale, eps=eps, mid=mid)
        at_l = jnp.where(split, left_id, M)
        at_r = jnp.where(split, left_id + 1, M)
        put = lambda a, where, v: a.at[where].set(v, mode="drop")
        # (3) route the rows; partition each split segment stably, left rows first
        table = jnp.stack([jnp.full((M + 1,), -1, i32).at[at_p].set(v, mode="drop")
                           for v in (feat, tbin, left_id)], 1)
        node = st["row_node"]
        t = table[node]  # (n, 3)
        moved = t[:, 2] >= 0
        go_left = jnp.take_along_axis(codes, jnp.maximum(t[:, :1], 0), axis=1)[:, 0] <= t[:, 1]
        new["row_node"] = jnp.where(moved, t[:, 2] + (~go_left).astype(i32), node)
        n_left = jnp.zeros((M + 1,), i32).at[jnp.where(moved & go_left, node, M)].add(1, mode="drop")
        g = go_left[order]  # (n, F)
        # left rows before each position within its node (counts: exact in float below 2^24)
        rank_l = (_segment_cumsum(g.astype(jnp.float32), pos_node) - g).astype(i32)
        seg0 = start[pos_node][:, None]  # (n, 1) the node's first position
        newpos = jnp.where(g, seg0 + rank_l, seg0 + n_left[pos_node][:, None] + (pos[:, None] - seg0) - rank_l)
        newpos = jnp.where(moved[order[:, :1]], newpos, pos[:, None])
        flat = (newpos * n_features + f_row).reshape(-1)
        new["order"] = jnp.zeros((n_rows * n_features,), i32).at[flat].set(
            order.reshape(-1), mode="promise_in_bounds", unique_indices=True).reshape(n_rows, n_features)
        new["start"] = put(put(start, at_l, start[ids]), at_r, start[ids] + n_left[jnp.minimum(ids, M)])
        new["pos_node"] = new["row_node"][new["order"][:, 0]]
        new["cand_ids"] = (st["n_nodes"] + jnp.arange(C)).astype(i32)
        new["cand_valid"] = jnp.arange(C) < 2 * n_split
        new["level"] = st["level"] + 1
        return new

    st = _engine._root_state(total, criterion, params, n_stats, n_rows, M, W)
    st.update(order=order, pos_node=jnp.zeros((n_rows,), i32), start=jnp.zeros((M,), i32))
    st = jax.lax.while_loop(lambda s: jnp.any(s["cand_valid"]) & (s["level"] < depth_cap), level, st)
    return _engine._as_grown(st, *_engine._split_bins(codes_T.reshape(-1), n_rows, positive, st, n_bins))
