r"""The histogram engine: level-wise growth of a binary tree from binned features and
generic per-row statistics (class counts, moments of y, gradient pairs).

Every criterion is a *node loss* :math:`L(s)` of the summed statistics :math:`s` of a node,
and the gain of splitting a parent :math:`P` into :math:`(L, R)` is

.. math:: \Delta(P \to L, R) = L(s_P) - L(s_L) - L(s_R) - \gamma .

With :math:`L(s) = W(s)\,i(s)` (weight times impurity) this is CART's weighted impurity
decrease (Breiman et al. 1984, §4.2; ESL §9.2.3):

* ``gini``: :math:`i = 1 - \sum_k p_k^2`;
* ``entropy``: :math:`i = -\sum_k p_k \log_2 p_k` (bits, as scikit-learn's ``tree_.impurity``);
* ``misclassification``: :math:`i = 1 - \max_k p_k`;
* ``squared_error`` (stats :math:`[w, wy, wy^2]`): :math:`W i = \sum wy^2 - (\sum wy)^2/W`;
* gradient pairs (stats :math:`[g, h]`, XGBoost, Chen & Guestrin 2016, eq. 7):
  :math:`L = -\tfrac12 G^2/(H+\lambda)` and :math:`\gamma` the split penalty, so
  :math:`\Delta = \tfrac12[G_L^2/(H_L+\lambda) + G_R^2/(H_R+\lambda) - G^2/(H+\lambda)] - \gamma`.

One level (Ke et al. 2017): (1) the histograms of ``[stats, count]`` per (node, feature, bin)
of the nodes to split are known (the root's from one pass); (2) the split search is a
cumulative sum over the bins, tried twice — the missing bin on the right and on the left (the
learned default side, ``missing_left``) — the gains vectorised over
(feature, node, bin, side) and an argmax per node; (3) the chosen splits are compacted into
``W`` slots by a cumsum ranking and the rows' node index updated by one gather; (4) the
histograms of the new children come from ONE pass over the rows of the *smaller* child of
each split (a ``lax.scan`` over features of a ``segment_sum`` into ``W·B`` slots, codes
feature-major ``(F, n)``: the measured fastest kernel, ``shared/notes/histogram-kernel.md``)
and their siblings by subtraction from the parent's histogram.

scikit-learn's stopping rules: a node is a leaf when its depth is ``max_depth``, it has fewer
than ``min_samples_split`` (or ``2·min_samples_leaf``) rows, weight below
``2·min_weight_leaf``, it is pure (impurity :math:`\le \varepsilon`, impurity criteria), no
split leaves ``min_samples_leaf`` rows and ``min_weight_leaf`` weight on each side, or the
best gain divided by the root's weight (``normalise``) is below ``min_impurity_decrease``
(:math:`\frac{N_t}{N}(i_t - \frac{N_L}{N_t} i_L - \frac{N_R}{N_t} i_R)`). Rows are counted
when their ``count`` is positive (rows of weight 0 have none: no influence at all).

Width: at most ``W`` nodes split per level (static). When more would, the first ``W`` in node
order split and the others stay leaves (``truncated``); likewise when the node budget ``M``
is full. Nodes are numbered in creation order, level by level; a split's children are
consecutive (left, right).

References
----------
L. Breiman, J. Friedman, R. Olshen, C. Stone, *Classification and Regression Trees*, 1984.
T. Hastie, R. Tibshirani, J. Friedman, *The Elements of Statistical Learning*, 2nd ed., §9.2.
G. Ke et al., "LightGBM: A Highly Efficient Gradient Boosting Decision Tree", NeurIPS 2017.
T. Chen, C. Guestrin, "XGBoost: A Scalable Tree Boosting System", KDD 2016.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import jax
import jax.numpy as jnp
from jax.scipy.special import xlogy

__all__ = [
    "Gini",
    "Entropy",
    "Misclassification",
    "SquaredError",
    "GradientPair",
    "CRITERIA",
    "Grown",
    "grow",
    "histograms",
]


def _safe(w):
    return jnp.where(w > 0, w, 1)


# --------------------------------------------------------------------------- criteria
@dataclass(frozen=True)
class Gini:
    """Gini impurity of weighted class counts: :math:`L = W - \\sum_k c_k^2 / W`."""

    stop_when_pure: bool = True
    normalise: bool = True

    def node_loss(self, s, params=()):
        w = jnp.sum(s, -1)
        return w - jnp.sum(s * s, -1) / _safe(w)

    def impurity(self, s, params=()):
        w = jnp.sum(s, -1)
        return jnp.where(w > 0, self.node_loss(s) / _safe(w), 0)

    def weight(self, s, params=()):
        return jnp.sum(s, -1)

    def penalty(self, params=()):
        return 0.0


@dataclass(frozen=True)
class Entropy(Gini):
    """Shannon entropy in bits of weighted class counts: :math:`L = -\\sum_k c_k \\log_2(c_k/W)`."""

    def node_loss(self, s, params=()):
        s = jnp.maximum(s, 0)  # sibling subtraction can leave -1e-17 where a class is absent
        w = jnp.sum(s, -1, keepdims=True)
        return -jnp.sum(xlogy(s, s / _safe(w)), -1) / jnp.log(2.0).astype(s.dtype)


@dataclass(frozen=True)
class Misclassification(Gini):
    """Misclassification rate of weighted class counts: :math:`L = W - \\max_k c_k`."""

    def node_loss(self, s, params=()):
        return jnp.sum(s, -1) - jnp.max(s, -1)


@dataclass(frozen=True)
class SquaredError(Gini):
    """Within-node sum of squares of stats ``[w, w y, w y^2]``: :math:`L = \\sum wy^2 - (\\sum wy)^2/W`."""

    def node_loss(self, s, params=()):
        return s[..., 2] - s[..., 1] ** 2 / _safe(s[..., 0])

    def weight(self, s, params=()):
        return s[..., 0]

    def impurity(self, s, params=()):
        w = s[..., 0]
        return jnp.where(w > 0, jnp.maximum(self.node_loss(s), 0) / _safe(w), 0)


@dataclass(frozen=True)
class GradientPair:
    """Gradient-pair statistics ``[g, h]`` with ``params = (reg_lambda, gamma)``:
    :math:`L = -\\tfrac12 G^2/(H + \\lambda)`, split penalty :math:`\\gamma`, weight :math:`H`
    (so ``min_weight_leaf`` is XGBoost's ``min_child_weight``); impurity 0; gains not normalised."""

    stop_when_pure: bool = False
    normalise: bool = False

    def node_loss(self, s, params=(1.0, 0.0)):
        return -0.5 * s[..., 0] ** 2 / (s[..., 1] + params[0])

    def impurity(self, s, params=()):
        return jnp.zeros(s.shape[:-1], s.dtype)

    def weight(self, s, params=()):
        return s[..., 1]

    def penalty(self, params=(1.0, 0.0)):
        return params[1]


CRITERIA = {
    "gini": Gini(),
    "entropy": Entropy(),
    "misclassification": Misclassification(),
    "squared_error": SquaredError(),
}


# --------------------------------------------------------------------------- result
class Grown(NamedTuple):
    """A grown tree (``M`` slots) with its per-node summed statistics.

    ``node_stats`` is ``(M, S + 1)``: the summed ``stats`` of the rows of each node, then
    their count (the last column); callers turn it into leaf values (class fractions, means,
    :math:`-G/(H+\\lambda)`). ``row_node`` is the leaf of every training row. ``truncated``
    says that some node wanted to split but the width ``W`` or the budget ``M`` was full.
    """

    children_left: jax.Array
    children_right: jax.Array
    feature: jax.Array
    threshold_bin: jax.Array
    missing_left: jax.Array
    node_stats: jax.Array
    impurity: jax.Array
    is_leaf: jax.Array
    depth: jax.Array
    n_nodes: jax.Array
    row_node: jax.Array
    truncated: jax.Array


# --------------------------------------------------------------------------- kernel
def histograms(codes_T, stats_count, slot, n_slots, n_codes):
    """Per-(feature, slot, bin) sums of ``stats_count`` (n, S1): ``(F, n_slots, n_codes, S1)``.

    A ``lax.scan`` over the features of one ``segment_sum`` into ``n_slots·n_codes`` rows;
    rows with ``slot == n_slots`` are dropped (out of range).
    """
    base = slot.astype(jnp.int32) * n_codes

    def step(_, codes):
        return None, jax.ops.segment_sum(stats_count, base + codes.astype(jnp.int32), n_slots * n_codes)

    _, out = jax.lax.scan(step, None, codes_T)
    return out.reshape(codes_T.shape[0], n_slots, n_codes, stats_count.shape[1])


def _feature_choice(key, level, feature_mask, n_cand, max_features):
    """(C, F) features open to each candidate node: ``max_features`` drawn among the allowed."""
    n_features = feature_mask.shape[0]
    allowed = jnp.broadcast_to(feature_mask, (n_cand, n_features))
    if max_features is None or max_features >= n_features:
        return allowed
    u = jax.random.uniform(jax.random.fold_in(key, level), (n_cand, n_features))
    u = jnp.where(allowed, u, -1.0)
    kth = jnp.sort(u, axis=1)[:, n_features - max_features][:, None]
    return allowed & (u >= kth)


def _best_splits(hist, pstats, criterion, params, n_bins, msl, mwl, feat_ok):
    """Best split of each candidate from its histogram ``(F, C, B, S1)``.

    Returns gain (C,) (-inf when none is valid), feature, bin, missing_left, left stats (C, S1).
    """
    n_stats = hist.shape[-1] - 1
    cum = jnp.cumsum(hist[:, :, : n_bins - 1, :], axis=2)  # left of "code <= b", b < n_bins - 1
    miss = hist[:, :, n_bins, :]  # (F, C, S1)
    left = jnp.stack([cum, cum + miss[:, :, None, :]], axis=3)  # (F, C, T, side, S1); side 1: NaN left
    right = pstats[None, :, None, None, :] - left
    loss_p = criterion.node_loss(pstats[:, :n_stats], params)[None, :, None, None]
    gain = (loss_p - criterion.node_loss(left[..., :n_stats], params)
            - criterion.node_loss(right[..., :n_stats], params) - criterion.penalty(params))
    n_left, n_right = left[..., n_stats], right[..., n_stats]
    valid = (n_left >= msl) & (n_right >= msl)
    valid &= (criterion.weight(left[..., :n_stats], params) >= mwl)
    valid &= (criterion.weight(right[..., :n_stats], params) >= mwl)
    # no missing value in the node: NaN goes to the child with more rows (scikit-learn)
    no_miss = (miss[:, :, n_stats] == 0)[:, :, None]
    nan_left = n_left[..., 0] > n_right[..., 0]
    side_ok = jnp.stack([~no_miss | ~nan_left, ~no_miss | nan_left], axis=-1)
    valid &= side_ok & feat_ok.T[:, :, None, None]
    gain = jnp.where(valid, gain, -jnp.inf)
    n_features, n_cand, n_thr = gain.shape[:3]
    flat = gain.reshape(n_features, n_cand, n_thr * 2)
    within = jnp.argmax(flat, axis=2)  # first max: lowest bin, then NaN right
    best_in_f = jnp.take_along_axis(flat, within[:, :, None], axis=2)[:, :, 0]
    feat = jnp.argmax(best_in_f, axis=0)  # (C,) first max: lowest feature
    cand = jnp.arange(n_cand)
    pos = within[feat, cand]
    best_gain = best_in_f[feat, cand]
    bin_, side = pos // 2, pos % 2
    left_stats = left[feat, cand, bin_, side]
    return best_gain, feat.astype(jnp.int32), bin_.astype(jnp.int32), side == 1, left_stats


# --------------------------------------------------------------------------- growth
def grow(
    codes_T,
    stats,
    count,
    *,
    criterion,
    n_bins: int,
    max_nodes: int,
    max_width: int,
    max_depth: int | None = None,
    criterion_params=(),
    min_samples_split=2,
    min_samples_leaf=1,
    min_weight_leaf=0.0,
    min_impurity_decrease=0.0,
    max_features: int | None = None,
    feature_mask=None,
    key=None,
) -> Grown:
    r"""Grow one binary tree level by level from binned features (pure; jit/vmap it).

    Parameters
    ----------
    codes_T : (F, n) uint8 / uint16
        Bin codes **feature-major**; code ``n_bins`` is the missing bin.
    stats : (n, S) float
        Per-row statistics already multiplied by the sample weight (one-hot class counts,
        ``[w, wy, wy^2]``, ``[w g, w h]``).
    count : (n,) float
        1 for rows of positive weight, 0 otherwise (``min_samples_*`` count these).
    criterion : a criterion object (static), e.g. ``CRITERIA["gini"]`` or ``GradientPair()``
        With ``node_loss``, ``impurity``, ``weight``, ``penalty``, ``stop_when_pure``, ``normalise``.
    n_bins : int (static)
        Number of non-missing bins (codes ``0..n_bins-1``).
    max_nodes : int (static)
        Node budget ``M``.
    max_width : int (static)
        ``W``: most nodes split per level.
    max_depth : int or None (static)
    criterion_params : pytree of traced scalars
        The criterion's parameters (``(reg_lambda, gamma)`` for ``GradientPair``).
    min_samples_split, min_samples_leaf : int or traced int
    min_weight_leaf, min_impurity_decrease : float or traced float
    max_features : int or None (static)
        Features drawn per node (uniformly among ``feature_mask``) from ``key``.
    feature_mask : (F,) bool, optional (traced)
        Features allowed at all (random-subspace forests).
    key : jax.random key, optional
        Needed when ``max_features < F``.

    Returns
    -------
    Grown

    Examples
    --------
    >>> import jax.numpy as jnp
    >>> codes_T = jnp.array([[0, 0, 1, 1]], jnp.uint8)
    >>> stats = jnp.eye(2)[jnp.array([0, 0, 1, 1])]
    >>> g = grow(codes_T, stats, jnp.ones(4), criterion=CRITERIA["gini"], n_bins=2, max_nodes=3, max_width=1)
    >>> int(g.n_nodes), g.feature.tolist(), g.row_node.tolist()
    (3, [0, -1, -1], [1, 1, 2, 2])

    References
    ----------
    Breiman et al. 1984 (CART); ESL §9.2; Ke et al. 2017 (histograms, sibling subtraction).
    """
    n_features, n_rows = codes_T.shape
    n_stats = stats.shape[1]
    dtype = stats.dtype
    n_codes = n_bins + 1
    M, W = int(max_nodes), int(max_width)
    C = 2 * W
    depth_cap = M if max_depth is None else int(max_depth)
    eps = jnp.finfo(dtype).eps
    if feature_mask is None:
        feature_mask = jnp.ones((n_features,), bool)
    if key is None:
        key = jax.random.key(0)
    msl = jnp.asarray(min_samples_leaf, dtype)
    mss = jnp.maximum(jnp.asarray(min_samples_split, dtype), 2 * msl)
    mwl = jnp.asarray(min_weight_leaf, dtype)
    mid = jnp.asarray(min_impurity_decrease, dtype)

    sc = jnp.concatenate([stats, count[:, None].astype(dtype)], axis=1)
    total = jnp.sum(sc, axis=0)
    root_weight = criterion.weight(total[:n_stats], criterion_params)
    scale = 1 / _safe(root_weight) if criterion.normalise else jnp.asarray(1, dtype)

    root_hist = histograms(codes_T, sc, jnp.zeros((n_rows,), jnp.int32), 1, n_codes)
    cand_hist = jnp.zeros((n_features, C, n_codes, n_stats + 1), dtype).at[:, 0].set(root_hist[:, 0])
    i32 = jnp.int32
    state = dict(
        level=jnp.asarray(0, i32),
        row_node=jnp.zeros((n_rows,), i32),
        left=jnp.full((M,), -1, i32),
        right=jnp.full((M,), -1, i32),
        feature=jnp.full((M,), -1, i32),
        tbin=jnp.full((M,), -1, i32),
        mleft=jnp.zeros((M,), bool),
        node_stats=jnp.zeros((M, n_stats + 1), dtype).at[0].set(total),
        impurity=jnp.zeros((M,), dtype).at[0].set(criterion.impurity(total[:n_stats], criterion_params)),
        depth=jnp.zeros((M,), i32),
        n_nodes=jnp.asarray(1, i32),
        cand_ids=jnp.zeros((C,), i32),
        cand_valid=jnp.arange(C) == 0,
        cand_hist=cand_hist,
        truncated=jnp.asarray(False),
    )
    flat_codes = codes_T.reshape(-1)
    rows = jnp.arange(n_rows)

    def body(st):
        ids = st["cand_ids"]
        pstats = st["node_stats"][ids]
        pcount = pstats[:, n_stats]
        pweight = criterion.weight(pstats[:, :n_stats], criterion_params)
        pdepth = st["depth"][ids]
        open_ = st["cand_valid"] & (pdepth < depth_cap) & (pcount >= mss) & (pweight >= 2 * mwl)
        if criterion.stop_when_pure:
            open_ &= st["impurity"][ids] > eps
        feat_ok = _feature_choice(key, st["level"], feature_mask, C, max_features)
        gain, feat, tbin, mleft, lstats = _best_splits(
            st["cand_hist"], pstats, criterion, criterion_params, n_bins, msl, mwl, feat_ok)
        want = open_ & (gain > -jnp.inf) & (gain * scale + eps >= mid)
        rank = jnp.cumsum(want) - 1
        fits = (rank < W) & (st["n_nodes"] + 2 * (rank + 1) <= M)
        split = want & fits
        n_split = jnp.sum(split).astype(i32)
        left_id = (st["n_nodes"] + 2 * rank).astype(i32)
        right_id = left_id + 1
        rstats = pstats - lstats
        at_p = jnp.where(split, ids, M)
        at_l = jnp.where(split, left_id, M)
        at_r = jnp.where(split, right_id, M)
        put = lambda a, at, v: a.at[at].set(v, mode="drop")
        new = dict(st)
        new["left"] = put(st["left"], at_p, left_id)
        new["right"] = put(st["right"], at_p, right_id)
        new["feature"] = put(st["feature"], at_p, feat)
        new["tbin"] = put(st["tbin"], at_p, tbin)
        new["mleft"] = put(st["mleft"], at_p, mleft)
        new["node_stats"] = put(put(st["node_stats"], at_l, lstats), at_r, rstats)
        imp = lambda s: criterion.impurity(s[:, :n_stats], criterion_params)
        new["impurity"] = put(put(st["impurity"], at_l, imp(lstats)), at_r, imp(rstats))
        new["depth"] = put(put(st["depth"], at_l, pdepth + 1), at_r, pdepth + 1)
        new["n_nodes"] = st["n_nodes"] + 2 * n_split
        new["truncated"] = st["truncated"] | jnp.any(want & ~fits)
        # route the rows of the split nodes: one gather of their code at the node's feature
        node = st["row_node"]
        f = new["feature"][node]
        code = flat_codes[jnp.maximum(f, 0) * n_rows + rows].astype(i32)
        go_left = jnp.where(code == n_bins, new["mleft"][node], code <= new["tbin"][node])
        moved = new["left"][node] >= 0
        node = jnp.where(moved, jnp.where(go_left, new["left"][node], new["right"][node]), node)
        new["row_node"] = node
        # children's histograms: the smaller child of each split by one pass, its sibling by subtraction
        small_left = lstats[:, n_stats] <= rstats[:, n_stats]
        small_id = jnp.where(small_left, left_id, right_id)
        slot_of_node = jnp.full((M + 1,), W, i32).at[jnp.where(split, small_id, M)].set(rank.astype(i32))
        slot = jnp.where(sc[:, n_stats] > 0, slot_of_node[node], W)
        small = histograms(codes_T, sc, slot, W, n_codes)
        src = jnp.zeros((W,), i32).at[jnp.where(split, rank, W)].set(jnp.arange(C, dtype=i32), mode="drop")
        small_left_r = jnp.zeros((W,), bool).at[jnp.where(split, rank, W)].set(small_left, mode="drop")
        large = st["cand_hist"][:, src] - small
        sl = small_left_r[None, :, None, None]
        new["cand_hist"] = jnp.stack([jnp.where(sl, small, large), jnp.where(sl, large, small)], axis=2
                                     ).reshape(n_features, C, n_codes, n_stats + 1)
        new["cand_ids"] = (st["n_nodes"] + jnp.arange(C)).astype(i32)
        new["cand_valid"] = jnp.arange(C) < 2 * n_split
        new["level"] = st["level"] + 1
        return new

    st = jax.lax.while_loop(lambda s: jnp.any(s["cand_valid"]) & (s["level"] < depth_cap), body, state)
    used = jnp.arange(M) < st["n_nodes"]
    return Grown(
        children_left=st["left"],
        children_right=st["right"],
        feature=st["feature"],
        threshold_bin=st["tbin"],
        missing_left=st["mleft"],
        node_stats=st["node_stats"],
        impurity=st["impurity"],
        is_leaf=used & (st["left"] < 0),
        depth=st["depth"],
        n_nodes=st["n_nodes"],
        row_node=st["row_node"],
        truncated=st["truncated"],
    )
