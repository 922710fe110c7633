r"""Gradient boosting over pre-binned codes from row blocks: the histograms of each tree level
are row sums, one pass over the data per level.

The model is :func:`jaxclassic.ensemble.fit_gradient_boosting`'s (Friedman's TreeBoost, module
docstring there) for the ``"squared"`` and binary ``"log_loss"`` losses, on codes binned
beforehand (:func:`jaxclassic.tree.bin_features` on the data or a sample; the codes are
``uint8``, ``n_bins`` the missing bin) with their ``bin_edges``. Round :math:`m`:

1. a pass takes the mean :math:`\bar r = \sum_i w_ir_i/\sum_i w_i` of the pseudo-residuals
   :math:`r_i = -g_i` (by ``losses.grad_hess`` of the shared loss at the scores
   :math:`F_{m-1}`, kept on the host: one float a row), and the training loss of :math:`F_{m-1}`;
2. one pass per level: each piece's rows are routed through the splits of the previous level
   (their node ids are kept on the host, 4 bytes a row), and the histograms of the level's
   candidate nodes, :math:`(w, w(r - \bar r), w(r - \bar r)^2, [w > 0])` summed per
   (bin, feature, node), are added over the pieces — the engine's kernel
   (:func:`jaxclassic.tree._engine.histograms`) in ONE jitted per-piece function for every
   level (a fixed width of :math:`2^{D-1}` candidate slots);
   the splits are then chosen by the engine's own search (``_best_splits``: the same gains,
   validity rules and first-maximum tie-breaking) with its rules for open nodes
   (``min_samples_split``, ``min_samples_leaf``, depth, purity at :math:`4\varepsilon` times the
   root's sum of squares) and node numbering (children ``n_nodes + 2·rank``), and the
   children's statistics are the parent's minus the left child's, as in the engine;
3. a last pass routes the rows to their leaves and sums :math:`w g`, :math:`w h` per leaf: the
   Newton leaf values :math:`\gamma_j = -\sum wg/\sum wh` (0 when :math:`|\sum wh| < 10^{-150}`),
   and :math:`F_m = F_{m-1} + \eta\gamma_{\text{leaf}}` on the host.

So a round costs :math:`D + 2` passes. The engine sums only the smaller child of each split and
gets the sibling by subtraction; here every candidate's histogram is summed directly (the
streaming pass reads every row anyway), so the histograms agree to rounding, not bit for bit.
Not supported here: ``"absolute"`` (its leaf medians need sorted rows), the multinomial
deviance, callable losses, ``subsample``.

References
----------
Friedman, Ann. Stat. 29 (2001); Ke et al., "LightGBM", NeurIPS 2017 (histograms);
Chen & Guestrin, "XGBoost", KDD 2016 (out-of-core blocks).
"""

from __future__ import annotations

from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

from jaxclassic import _jit
from jaxclassic import losses
from jaxclassic.ensemble import _boosting as B
from jaxclassic.ensemble.gradient_boosting import GradientBoostingClassifierParams, GradientBoostingParams
from jaxclassic.streaming._blocks import DEFAULT_CHUNK_ROWS, Source, bounded
from jaxclassic.tree._engine import CRITERIA, Grown, _best_splits, _hist
from jaxclassic.validation import _float_dtype_for, check_choice, check_int

__all__ = ["fit_gradient_boosting"]

_LOSSES = {"squared": losses.squared, "log_loss": losses.log_loss}
_CRITERION = CRITERIA["squared_error"]


def _derivatives(loss, y, f):
    return losses.grad_hess(loss, y, f)


@partial(_jit.jit, static_argnames=("loss",))
def _residual_piece(y, w, f, *, loss):
    """Sums over one piece: ``w``, ``w r`` (r = -g) and ``w loss(y, f)``."""
    g, _ = _derivatives(loss, y, f)
    keep = w > 0
    return (jnp.sum(w), jnp.sum(jnp.where(keep, -w * g, 0)),
            jnp.sum(jnp.where(keep, w * jax.vmap(loss)(y, f), 0)))


@partial(_jit.jit, static_argnames=("loss", "n_slots", "n_codes", "max_nodes"))
def _level_piece(codes, y, w, f, node, table, slot_of_node, mean, *, loss, n_slots, n_codes, max_nodes):
    """One piece of a level's pass: route the rows through the previous level's splits
    (``table`` (M+1, 4): feature, bin, missing-left, left child; -1 where a node did not
    split), then the histograms ``(n_codes, 4, F, n_slots)`` of the candidates
    (``slot_of_node`` (M+1,), ``n_slots`` for a non-candidate) and ``sum w g``, ``sum w h``
    per node."""
    n_rows = codes.shape[0]
    n_bins = n_codes - 1
    t = table[node]
    code = codes[jnp.arange(n_rows), jnp.maximum(t[:, 0], 0)].astype(jnp.int32)
    go_left = jnp.where(code == n_bins, t[:, 2] == 1, code <= t[:, 1])
    node = jnp.where(t[:, 3] >= 0, t[:, 3] + (~go_left).astype(jnp.int32), node)
    g, h = _derivatives(loss, y, f)
    keep = w > 0
    rc = jnp.where(keep, -g - mean, 0)  # centred residuals, as the in-memory fit
    sc = jnp.stack([w, w * rc, w * rc * rc, keep.astype(w.dtype)], axis=1)
    hist = _hist(codes.T, sc, slot_of_node[node], n_slots, n_codes)
    gs = jax.ops.segment_sum(jnp.where(keep, w * g, 0), node, max_nodes)
    hs = jax.ops.segment_sum(jnp.where(keep, w * h, 0), node, max_nodes)
    return node, hist, gs, hs


@partial(_jit.jit, static_argnames=("n_bins", "max_depth"))
def _decide(hist, pstats, pimpurity, pdepth, valid, ref, root_weight, mss, msl, *, n_bins, max_depth):
    """The engine's level (:func:`jaxclassic.tree._engine.grow`) for the candidates' histograms
    ``(n_codes, 4, F, C)``: which open candidates split, where, and the children's statistics
    (left from the search, right = parent - left) and impurities."""
    dtype = hist.dtype
    eps = jnp.finfo(dtype).eps
    open_ = valid & (pdepth < max_depth) & (pstats[:, 3] >= mss) & (pstats[:, 0] >= 0)
    open_ &= ~_CRITERION.is_pure(pstats[:, :3], pimpurity, ref, eps)
    feat_ok = jnp.ones((hist.shape[3], hist.shape[2]), bool)
    gain, feat, bin_, miss_left, lstats = _best_splits(
        hist, pstats, _CRITERION, (), n_bins, msl, jnp.zeros((), dtype), feat_ok, True)
    scale = 1 / jnp.where(root_weight > 0, root_weight, 1)
    want = open_ & (gain > -jnp.inf) & (gain * scale + eps >= 0)
    rstats = pstats - lstats
    return (want, feat, bin_, miss_left, lstats, rstats, _CRITERION.impurity(lstats[:, :3]),
            _CRITERION.impurity(rstats[:, :3]))


@_jit.jit
def _round_tree(left, right, feature, tbin, mleft, node_stats, impurity, is_leaf, depth, n_nodes,
                gs, hs, mean, edges):
    """The round's tree (the in-memory fit's ``make_tree``) and node values: Newton steps
    ``-sum wg / sum wh`` at the leaves (0 where ``|sum wh| < 1e-150``), the mean residual at
    internal nodes."""
    s = node_stats
    node_mean = s[:, 1] / jnp.where(s[:, 0] > 0, s[:, 0], 1) + mean
    step = jnp.where(jnp.abs(hs) < 1e-150, 0, -gs / jnp.where(hs != 0, hs, 1))
    value = jnp.where(is_leaf, step, node_mean)
    grown = Grown(left, right, feature, tbin, mleft, node_stats, impurity, is_leaf, depth, n_nodes,
                  None, jnp.asarray(False))
    tree = B.make_tree(grown, value, edges, edges.shape[0], node_stats[:, 0])
    return tree._replace(impurity=impurity), value


def _init_pass(source, loss_name):
    total, wy = 0.0, 0.0
    for piece in source.pieces():
        total += float(np.sum(piece.w))
        wy += float(np.dot(piece.w, piece.y))
    if not total > 0:
        raise ValueError("sample_weight must have at least one positive value, got all zeros")
    mean = wy / total
    if loss_name == "squared":
        return mean
    eps = float(np.finfo(source.dtype).eps)
    p = min(max(mean, eps), 1 - eps)
    return float(np.log(p) - np.log1p(-p))


def fit_gradient_boosting(data, y=None, *, bin_edges, loss: str = "squared", n_estimators: int = 100,
                          learning_rate=0.1, max_depth: int = 3, min_samples_split=2,
                          min_samples_leaf=1, sample_weight=None, chunk_rows: int = DEFAULT_CHUNK_ROWS,
                          progress: bool = False) -> GradientBoostingParams:
    r"""Gradient boosting of regression trees over pre-binned codes, from row blocks; equal to
    :func:`jaxclassic.ensemble.fit_gradient_boosting` on the raw data the codes came from.

    Per round: :math:`r = -\partial_F\ell(y, F)`, a least-squares tree of depth ``max_depth`` on
    :math:`r` grown level by level from histograms summed over the pieces, Newton leaf values
    :math:`\gamma_j = -\sum_{R_j} wg/\sum_{R_j} wh`, :math:`F \leftarrow F + \eta\gamma`
    (module docstring).

    Parameters
    ----------
    data : (n, F) integer codes (array or np.memmap), or a callable returning an iterable of
        ``(codes, y, w)`` blocks (or a list of blocks); codes ``0..n_bins`` (``n_bins``:
        missing), e.g. from :func:`jaxclassic.tree.bin_features`
    y : (n,) array, only with array ``data``; real for ``"squared"``, 0/1 for ``"log_loss"``
    bin_edges : (F, n_bins - 1) float array
        The edges the codes were made with (``bin_features``' second output); they give the
        trees' raw thresholds and ``n_bins``; their dtype is the fit's float dtype.
    loss : {"squared", "log_loss"}
    n_estimators, max_depth : int >= 1
    learning_rate : float > 0
    min_samples_split, min_samples_leaf : int
        As the in-memory fit (counts of positive-weight rows).
    sample_weight : (n,) array, only with array ``data``; rows of weight 0 have no influence
    chunk_rows : int >= 1
    progress : bool
        A tqdm bar per pass when tqdm is installed.

    Returns
    -------
    GradientBoostingParams or GradientBoostingClassifierParams
        As the in-memory fit: ``ensemble.predict`` takes raw ``X``.

    Example
    -------
    >>> import numpy as np
    >>> from jaxclassic.tree import bin_features
    >>> X = np.arange(6.0)[:, None]; y = np.array([0., 0, 0, 2, 2, 2])
    >>> codes, edges = bin_features(X, 4)  # doctest: +SKIP
    >>> p = fit_gradient_boosting(np.asarray(codes), y, bin_edges=edges, n_estimators=1,  # doctest: +SKIP
    ...                           learning_rate=1.0, max_depth=1, chunk_rows=4)
    >>> p.trees.value.shape[:2]  # doctest: +SKIP
    (1, 1)

    References
    ----------
    Friedman, Ann. Stat. 29 (2001), Algorithm 1 (TreeBoost); Ke et al. (2017).
    """
    loss_name = check_choice(loss, "loss", tuple(_LOSSES))
    loss_fn = _LOSSES[loss_name]
    n_estimators, max_depth = B.check_boosting_args(n_estimators, learning_rate, max_depth, 1.0)
    check_int(min_samples_split, "min_samples_split", low=2)
    check_int(min_samples_leaf, "min_samples_leaf", low=1)
    edges_np = np.asarray(bin_edges)
    if edges_np.ndim != 2 or not np.issubdtype(edges_np.dtype, np.floating) or np.isnan(edges_np).any():
        raise ValueError("bin_edges must be a 2-D float array (n_features, n_bins - 1) without NaN, "
                         f"got shape {edges_np.shape} and dtype {edges_np.dtype}")
    dtype = _float_dtype_for(edges_np.dtype)
    edges = jnp.asarray(edges_np, dtype)
    n_features, n_bins = edges.shape[0], edges.shape[1] + 1
    n_codes = n_bins + 1
    source = Source(data, y, sample_weight, chunk_rows=chunk_rows,
                    target="class" if loss_name == "log_loss" else "real", n_classes=2,
                    passes=2, progress=progress, desc="boosting pass", max_code=n_bins, dtype=dtype)
    init = _init_pass(source, loss_name)
    if source.n_features != n_features:
        raise ValueError(f"the codes have {source.n_features} columns but bin_edges has {n_features} rows")
    M = 2 ** (max_depth + 1) - 1
    C = 2 ** (max_depth - 1)
    lr = jnp.asarray(learning_rate, dtype)
    msl = jnp.asarray(min_samples_leaf, dtype)
    mss = jnp.maximum(jnp.asarray(min_samples_split, dtype), 2 * msl)
    scores = None  # per piece: F_{m-1} of its rows (host)
    trees, train_loss = [], []
    no_split = np.full((M + 1, 4), -1, np.int32)

    def typed(piece):
        return piece.y.astype(dtype), piece.w.astype(dtype)

    def _level_pass(source, scores, nodes, table, slot_of_node, mean):
        hist, gs, hs = 0.0, 0.0, 0.0
        for k, (piece, f) in enumerate(zip(source.pieces(), scores)):
            yv, wv = typed(piece)
            nodes[k], h_, g_, hh_ = _level_piece(
                piece.X, yv, wv, f, nodes[k], table, slot_of_node, mean, loss=loss_fn,
                n_slots=C, n_codes=n_codes, max_nodes=M)
            previous, (hist, gs, hs) = hist, (hist + h_, gs + g_, hs + hh_)
            bounded(previous if k else None)  # at most two pieces in flight (_blocks.bounded)
        return hist, gs, hs

    for _ in range(n_estimators):
        # 1. residual mean (and the loss of the scores so far)
        if scores is None:
            scores = [np.full(p.X.shape[0], init, dtype) for p in source.pieces()]
        total, wr, wl = 0.0, 0.0, 0.0
        for piece, f in zip(source.pieces(), scores):
            yv, wv = typed(piece)
            a, b, c = _residual_piece(yv, wv, f, loss=loss_fn)
            total, wr, wl = total + float(a), wr + float(b), wl + float(c)
        if trees:
            train_loss.append(wl / total)
        mean = jnp.asarray(wr / total, dtype)
        # 2. the levels
        nodes = [np.zeros(f.shape[0], np.int32) for f in scores]
        left = np.full(M, -1, np.int32); right = np.full(M, -1, np.int32)
        feature = np.full(M, -1, np.int32); tbin = np.full(M, -1, np.int32)
        mleft = np.zeros(M, bool); depth = np.zeros(M, np.int32)
        node_stats = np.zeros((M, 4), dtype); impurity = np.zeros(M, dtype)
        table, cand_ids, n_nodes = no_split, [0], 1
        for level in range(max_depth):
            # one pass: route through the previous level's splits, histograms of the candidates
            slot_of_node = np.full(M + 1, C, np.int32)
            slot_of_node[cand_ids] = np.arange(len(cand_ids))
            hist, gs, hs = _level_pass(source, scores, nodes, table, slot_of_node, mean)
            if level == 0:  # the root: its statistics and the purity scale
                root = np.asarray(jnp.sum(hist[:, :, 0, 0], axis=0))
                node_stats[0], impurity[0] = root, float(_CRITERION.impurity(jnp.asarray(root[:3])))
            ids = np.r_[cand_ids, np.zeros(C - len(cand_ids), int)].astype(np.int32)
            out = _decide(hist, jnp.asarray(node_stats[ids]), jnp.asarray(impurity[ids]),
                          jnp.asarray(depth[ids]), jnp.arange(C) < len(cand_ids),
                          node_stats[0, 2], node_stats[0, 0], mss, msl, n_bins=n_bins, max_depth=max_depth)
            want, feat, bin_, miss_left, lstats, rstats, l_imp, r_imp = (np.asarray(a) for a in out)
            table, new_ids = no_split.copy(), []
            for rank, c in enumerate(np.flatnonzero(want)):  # children numbered as the engine's
                parent, l_id = cand_ids[c], n_nodes + 2 * rank
                left[parent], right[parent] = l_id, l_id + 1
                feature[parent], tbin[parent], mleft[parent] = feat[c], bin_[c], miss_left[c]
                depth[l_id] = depth[l_id + 1] = depth[parent] + 1
                node_stats[l_id], node_stats[l_id + 1] = lstats[c], rstats[c]
                impurity[l_id], impurity[l_id + 1] = l_imp[c], r_imp[c]
                table[parent] = (feat[c], bin_[c], int(miss_left[c]), l_id)
                new_ids += [l_id, l_id + 1]
            n_nodes += len(new_ids)
            cand_ids = new_ids
            if not new_ids:  # the rows are at their leaves: this pass's leaf sums stand
                break
        else:  # the last level's children are leaves: one more pass routes the rows to them
            hist, gs, hs = _level_pass(source, scores, nodes, table, np.full(M + 1, C, np.int32), mean)
        # 3. leaf values and the new scores
        is_leaf = (np.arange(M) < n_nodes) & (left < 0)
        tree, value = _round_tree(left, right, feature, tbin, mleft, node_stats, impurity, is_leaf,
                                  depth, np.int32(n_nodes), gs, hs, mean, edges)
        trees.append(tree)
        value_np = np.asarray(value)
        scores = [f + np.asarray(lr * value_np[nd], dtype) for f, nd in zip(scores, nodes)]
    # the training loss of the last round
    total, wl = 0.0, 0.0
    for piece, f in zip(source.pieces(), scores):
        yv, wv = typed(piece)
        a, _, c = _residual_piece(yv, wv, f, loss=loss_fn)
        total, wl = total + float(a), wl + float(c)
    train_loss.append(wl / total)
    stacked = jax.tree.map(lambda *a: jnp.stack(a)[:, None], *trees)
    cls = GradientBoostingClassifierParams if loss_name == "log_loss" else GradientBoostingParams
    return cls(stacked, jnp.asarray([init], dtype), lr, jnp.asarray(train_loss, dtype), edges)
