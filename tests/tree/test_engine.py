"""The histogram engine's fast paths against numpy and against its own plain forms.

The pieces that make a level cheap (the running count and the compaction of the smaller
children's rows, the chunked histogram of those rows, the split search over live candidates
only, the one-sided search when nothing is missing, the loops' batched form under ``vmap``)
must give the same numbers as the plain computation: numpy references (``np.cumsum``,
``np.flatnonzero``, ``np.add.at``) and, for the float sums, the engine's one-pass
``_hist`` bit for bit (the rows are added in the same order). Small shapes, each compiled once.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxclassic.tree import _engine as E
from jaxclassic.tree.binning import bin_features

RNG = np.random.default_rng(3)
N, F, NB, SLOTS = 203, 3, 16, 4  # N not a multiple of the block (128) nor of the chunks


def _tree_equal(a, b):
    for name in a._fields:
        np.testing.assert_array_equal(np.asarray(getattr(a, name)), np.asarray(getattr(b, name)), err_msg=name)


def test_count_before_and_compact_equal_numpy():
    keep = RNG.random(N) < 0.3
    np.testing.assert_array_equal(np.asarray(jax.jit(E._count_before)(jnp.asarray(keep))), np.cumsum(keep))
    idx, n_used = jax.jit(E._compact, static_argnums=1)(jnp.asarray(keep), N // 2 + 1)
    rows = np.flatnonzero(keep)
    assert int(n_used) == rows.size
    np.testing.assert_array_equal(np.asarray(idx)[: rows.size], rows)
    assert np.all((np.asarray(idx) >= 0) & (np.asarray(idx) < N))  # the padding indexes real rows


def _subset(seed, frac):
    rng = np.random.default_rng(seed)
    codes_T = jnp.asarray(rng.integers(0, NB + 1, size=(F, N)).astype(np.uint8))
    sc = jnp.asarray(rng.normal(size=(N, 3)).astype(np.float32))
    slot = np.where(rng.random(N) < frac, rng.integers(0, SLOTS, N), SLOTS).astype(np.int32)
    return codes_T, sc, jnp.asarray(slot)


def _rows_hist(codes_T, sc, slot):
    m = E._N_CHUNKS * -(-(N // 2 + 1) // E._N_CHUNKS)
    sel, n_used = E._compact(slot < SLOTS, m)
    filled = jnp.arange(m) < n_used
    sc_sel = jnp.where(filled[:, None], sc[sel], 0)
    slot_sel = jnp.where(filled, slot[sel], jnp.arange(m) % SLOTS)
    raw = E._hist_rows(codes_T, sc_sel, slot_sel, sel, n_used, SLOTS, NB + 1, E._N_CHUNKS)
    return raw.transpose(2, 3, 0, 1)  # (F, slots, B+1, S1) -> _hist's (B+1, S1, F, slots) layout


ROWS_HIST = jax.jit(_rows_hist)


def test_hist_rows_equals_numpy_and_the_one_pass_kernel_bit_for_bit():
    codes_T, sc, slot = _subset(0, 0.4)
    got = np.asarray(ROWS_HIST(codes_T, sc, slot))
    # numpy reference (float64): per (bin, stat, feature, slot) sums of the kept rows
    ref = np.zeros((NB + 1, 3, F, SLOTS))
    keep = np.asarray(slot) < SLOTS
    for f in range(F):
        np.add.at(ref, (np.asarray(codes_T)[f, keep], slice(None), f, np.asarray(slot)[keep]),
                  np.asarray(sc, np.float64)[keep])
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5)  # float32 sums of <= 100 terms
    # the one-pass kernel over all rows (dropped ones out of range): same order, same bits
    plain = np.asarray(jax.jit(E._hist, static_argnums=(3, 4))(codes_T, sc, slot, SLOTS, NB + 1))
    np.testing.assert_array_equal(got, plain)


def test_hist_rows_vmap_equals_loop():
    # different subset sizes in one batch: the batched loop runs the longest and adds zeros
    parts = [_subset(s, frac) for s, frac in ((1, 0.05), (2, 0.45), (3, 0.2))]
    stacked = [jnp.stack(a) for a in zip(*parts)]
    got = jax.vmap(ROWS_HIST)(*stacked)
    for i, p in enumerate(parts):
        np.testing.assert_array_equal(np.asarray(got[i]), np.asarray(ROWS_HIST(*p)))


@pytest.mark.full
def test_hist_rows_into_a_stale_scratch_equals_a_zeroed_one():
    # the engine carries the smaller children's sums from level to level and zeroes only the
    # slots in use: those equal the sums into zeros bit for bit, under vmap too
    codes_T, sc, slot = _subset(4, 0.4)
    m = E._N_CHUNKS * -(-(N // 2 + 1) // E._N_CHUNKS)
    live = int(np.max(np.asarray(slot)[np.asarray(slot) < SLOTS])) + 1

    def both(codes_T, sc, slot, stale, n_live):
        sel, n_used = E._compact(slot < SLOTS, m)
        filled = jnp.arange(m) < n_used
        sc_sel = jnp.where(filled[:, None], sc[sel], 0)
        slot_sel = jnp.where(filled, slot[sel], jnp.arange(m) % SLOTS)
        args = (codes_T, sc_sel, slot_sel, sel, n_used, SLOTS, NB + 1, E._N_CHUNKS)
        return E._hist_rows(*args), E._hist_rows(*args, scratch=stale, n_live=n_live)

    stale = jax.random.normal(jax.random.key(5), (F, SLOTS, NB + 1, 3))
    fresh, reused = jax.jit(both)(codes_T, sc, slot, stale, live)
    np.testing.assert_array_equal(np.asarray(reused)[:, :live], np.asarray(fresh)[:, :live])
    batched = jax.vmap(both, in_axes=(None, None, None, 0, 0))(
        codes_T, sc, slot, jnp.stack([stale, -stale]), jnp.array([live, SLOTS]))
    for i in range(2):
        np.testing.assert_array_equal(np.asarray(batched[1][i])[:, :live], np.asarray(fresh)[:, :live])


@pytest.mark.full
def test_best_splits_live_equals_the_full_search():
    C, n_live = 16, 11
    hist = jax.random.uniform(jax.random.key(0), (NB + 1, 3, F, C))
    pstats = jnp.sum(hist, 0)[:, 0, :].T
    feat_ok = jax.random.uniform(jax.random.key(1), (C, F)) < 0.8
    args = (E.GradientPair(), (1.0, 0.0), NB, jnp.float32(1.0), jnp.float32(0.5))
    full = jax.jit(lambda h, p, f: E._best_splits(h, p, *args, f))(hist, pstats, feat_ok)
    # the candidates' histograms are one half of the engine's two-half buffer (the other: noise)
    # (the buffer is candidate-major, (C, F, B+1, S1): _children)
    cand_major = hist.transpose(3, 2, 0, 1)
    other = jax.random.uniform(jax.random.key(2), cand_major.shape)
    first = jnp.arange(C) < n_live
    for half, buf in ((0, jnp.stack([cand_major, other])), (1, jnp.stack([other, cand_major]))):
        live = jax.jit(lambda b, h, p, f: E._best_splits_live(b, h, p, *args, f, first, 4))(
            buf, half, pstats, feat_ok)
        for a, b in zip(full, live):
            np.testing.assert_array_equal(np.asarray(a)[:n_live], np.asarray(b)[:n_live])
        assert np.all(np.asarray(live[0])[12:] == -np.inf)  # past the 3 chunks of 4 run
    # scattered active candidates (the level's nodes that may split): each searched as in the
    # full search, at chunks of 4 and of 1 (the CPU's), and the others not searched at all
    # (gain -inf) unless a chunk of 4 picks them up (then with the full search's values)
    active = np.zeros(C, bool)
    active[[0, 3, 4, 9, 10, 15]] = True
    for chunk in (1, 4):
        some = jax.jit(lambda b, p, f, a: E._best_splits_live(b, 0, p, *args, f, a, chunk))(
            jnp.stack([cand_major, other]), pstats, feat_ok, jnp.asarray(active))
        for a, b in zip(full, some):
            np.testing.assert_array_equal(np.asarray(a)[active], np.asarray(b)[active])
        gain = np.asarray(some[0])
        if chunk == 1:
            assert np.all(gain[~active] == -np.inf)
        searched = gain > -np.inf
        np.testing.assert_array_equal(gain[searched], np.asarray(full[0])[searched])
    # with draws (forests): the search of only the k drawn features' histograms equals the
    # search of all features with the others masked (the k largest draws of each node)
    k = 2  # of F = 3
    u = jnp.where(feat_ok, jax.random.uniform(jax.random.key(3), (C, F)), -1.0)
    kth = np.sort(np.asarray(u), axis=1)[:, F - k][:, None]
    mask = np.asarray(feat_ok) & (np.asarray(u) >= kth)
    masked = jax.jit(lambda h, p, f: E._best_splits(h, p, *args, f))(hist, pstats, jnp.asarray(mask))
    drawn = jax.jit(lambda b, p, u: E._best_splits_live(b, 0, p, *args, u, first, 4, max_features=k))(
        jnp.stack([cand_major, other]), pstats, u)
    for a, b in zip(masked, drawn):
        np.testing.assert_array_equal(np.asarray(a)[:n_live], np.asarray(b)[:n_live])
    assert np.any(np.asarray(drawn[0])[:n_live] > -np.inf)


def _data(nan):
    X = RNG.normal(size=(300, 4)).astype(np.float32)
    X[:, 1] = np.round(X[:, 1])  # a few distinct values
    if nan:
        X[RNG.random(X.shape) < 0.1] = np.nan
    codes, _ = bin_features(X, 32)
    w = (RNG.random(300) < 0.85) * RNG.integers(1, 3, 300).astype(np.float32)
    return jnp.asarray(np.asarray(codes).T), X, jnp.asarray(w)


def _grow(codes_T, stats, count, criterion, params, has_missing=True):
    return E.grow(codes_T, stats, count, criterion=criterion, n_bins=32, max_nodes=63, max_width=16,
                  max_depth=5, criterion_params=params, has_missing=has_missing)


GROW = jax.jit(_grow, static_argnums=(3, 5))


@pytest.mark.full
@pytest.mark.parametrize("name", ["gini", "gradient", "gradient_right"])
def test_has_missing_false_grows_the_same_tree(name):
    codes_T, X, w = _data(nan=False)
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    if name == "gini":
        crit, params, stats = E.CRITERIA["gini"], (), jnp.asarray(np.eye(2)[y]) * w[:, None]
    else:
        crit = E.GradientPair(unseen_missing_right=name == "gradient_right")
        g, h = RNG.normal(size=300) + y, RNG.random(300) + 0.5
        params, stats = (1.0, 0.0), jnp.asarray(np.stack([g, h], 1), jnp.float32) * w[:, None]
    count = (w > 0).astype(jnp.float32)
    _tree_equal(GROW(codes_T, stats, count, crit, params, True), GROW(codes_T, stats, count, crit, params, False))


@pytest.mark.full
def test_unseen_missing_goes_right():
    # with unseen_missing_right, a split node no counted row reached with its feature
    # missing sends NaN right; with the default rule, to the child with more rows
    codes_T, X, w = _data(nan=True)
    g, h = RNG.normal(size=300) + np.nan_to_num(X[:, 0]), np.ones(300)
    stats = jnp.asarray(np.stack([g, h], 1), jnp.float32) * w[:, None]
    count = (w > 0).astype(jnp.float32)
    for right in (False, True):
        tree = GROW(codes_T, stats, count, E.GradientPair(unseen_missing_right=right), (1.0, 0.0))
        node, feat = np.asarray(tree.row_node), np.asarray(tree.feature)
        # rows of positive weight that reached each node with the node's feature missing
        seen = np.zeros(63, bool)
        for i in np.flatnonzero(np.asarray(w) > 0):
            t = 0
            while feat[t] >= 0:
                code = int(codes_T[feat[t], i])
                seen[t] |= code == 32
                left = bool(tree.missing_left[t]) if code == 32 else code <= int(tree.threshold_bin[t])
                t = int(tree.children_left[t] if left else tree.children_right[t])
            assert t == node[i]  # the engine's row_node is the leaf of the routing rule
        split = feat >= 0
        unseen = split & ~seen
        assert unseen.any()
        cnt = np.asarray(tree.node_stats)[:, -1]
        more_left = cnt[np.asarray(tree.children_left)] > cnt[np.asarray(tree.children_right)]
        expect = np.zeros(63, bool) if right else more_left
        np.testing.assert_array_equal(np.asarray(tree.missing_left)[unseen], expect[unseen])


@pytest.mark.full
def test_grow_vmap_equals_loop():
    # trees of different shapes in one batch (the batched dynamic loops run the longest)
    codes_T, X, w = _data(nan=True)
    ys = [np.nan_to_num(X[:, 0]) > 0, np.nan_to_num(X[:, 1]) > 1, RNG.random(300) < 0.5]
    stats = jnp.stack([jnp.asarray(np.eye(2)[y.astype(int)], jnp.float32) * w[:, None] for y in ys])
    count = (w > 0).astype(jnp.float32)
    crit = E.CRITERIA["gini"]
    got = jax.jit(jax.vmap(lambda s: _grow(codes_T, s, count, crit, ())))(stats)
    for i in range(len(ys)):
        _tree_equal(jax.tree.map(lambda a: a[i], got), GROW(codes_T, stats[i], count, crit, ()))


# full: 10 s (two programs); the fast tier fits forests and boosting (which carry buffers) against scikit-learn
@pytest.mark.full
@pytest.mark.parametrize("fill", [np.nan, 1e30])
def test_grow_from_stale_buffers_equals_zeroed_ones(fill):
    # forests and boosting carry the engine's buffers from one tree to the next (_engine.grow,
    # buffers=): no entry may be read before the tree writes it, so buffers full of NaN or of
    # huge values grow the same tree, bit for bit, as the zeros grow makes itself
    codes_T, X, w = _data(nan=True)
    y = (np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 1]) > 0).astype(int)
    stats = jnp.asarray(np.eye(2)[y], jnp.float32) * w[:, None]
    count = (w > 0).astype(jnp.float32)
    crit = E.CRITERIA["gini"]
    stale = jax.tree.map(lambda b: jnp.full(b.shape, fill, b.dtype), E.histogram_buffers(4, 32, 2, 16, jnp.float32))
    got, buffers = jax.jit(lambda s, b: E.grow(codes_T, s, count, criterion=crit, n_bins=32, max_nodes=63,
                                               max_width=16, max_depth=5, buffers=b))(stats, stale)
    _tree_equal(got, GROW(codes_T, stats, count, crit, ()))
    assert int(got.n_nodes) > 7  # a tree of several levels, so that later levels ran on stale slots
    assert jax.tree.map(jnp.shape, buffers) == jax.tree.map(jnp.shape, stale)


def test_drawn_features_are_the_largest_draws_in_feature_order():
    # _drawn replaces a sort (top_k) by k - 1 removals of the maximum and a running count:
    # the same features as the rule "u >= the k-th largest" on the allowed ones, in order,
    # the rest closed (fewer allowed features than k)
    rng = np.random.default_rng(11)
    drawn = jax.jit(E._drawn, static_argnums=1)
    for allowed_share, k in ((1.0, 3), (0.5, 3), (0.2, 4), (0.0, 2)):
        allowed = rng.random(10) < allowed_share
        u = np.where(allowed[None], rng.random((6, 10)), -1.0)
        idx, open_ = (np.asarray(a) for a in drawn(jnp.asarray(u), k))
        kth = np.sort(u, axis=1)[:, 10 - k][:, None]
        for c in range(6):
            got = idx[c][open_[c]]
            assert np.all(np.diff(got) > 0)
            np.testing.assert_array_equal(got, np.flatnonzero(allowed & (u[c] >= kth[c])))


def test_feature_draws_are_uniform_over_levels_and_nodes():
    # the draws are a counter hash keyed by the tree's key and the level (_level_uniform):
    # every feature is drawn by k/F of the nodes (binomial, 4 sigma), the level and the key
    # change the draws, and two trees' draws are uncorrelated
    C, F, k, levels = 64, 10, 3, 50
    choice = jax.jit(lambda key, lv: E._drawn(E._feature_choice(key, lv, jnp.ones(F, bool), C, k), k)[0])
    counts = np.zeros(F)
    for lv in range(levels):
        idx = np.asarray(choice(jax.random.key(3), lv))
        np.add.at(counts, idx.reshape(-1), 1)
    n = C * levels
    p = k / F
    assert np.all(np.abs(counts / n - p) < 4 * np.sqrt(p * (1 - p) / n)), counts / n
    a = np.asarray(choice(jax.random.key(3), 7))
    assert not np.array_equal(a, np.asarray(choice(jax.random.key(3), 8)))
    assert not np.array_equal(a, np.asarray(choice(jax.random.key(4), 7)))
    u1 = np.asarray(E._level_uniform(jax.random.key(1), 0, (4096,)))
    u2 = np.asarray(E._level_uniform(jax.random.key(2), 0, (4096,)))
    assert abs(np.corrcoef(u1, u2)[0, 1]) < 4 / np.sqrt(4096)
    assert abs(u1.mean() - 0.5) < 4 * np.sqrt(1 / 12 / 4096) and 0 <= u1.min() and u1.max() < 1
