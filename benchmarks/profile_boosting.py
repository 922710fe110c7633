"""Where the time of ``fit_xgboost`` goes: the pieces of one boosting round timed apart.

Usage::

    python -m benchmarks.profile_boosting [--n 200000] [--rounds 10] [--depth 6]

Data as ``bench_boosting`` (``make_classification(n, 28, ...)`` float32, the first 80% for
training), one round of log-loss gradients at the base score. Prints, after compile (min of
repeats, ms): the whole fit per round and per level, one tree's growth, the histogram
kernel (the root's pass over all rows; a level's pass over a quarter of the rows, compaction
included), the split search at the chunk and phase widths, and xgboost's fit of the same data
in this process (its default threads and one thread; ms per level), so the ratio holds on a
shared machine.
"""

from __future__ import annotations

import argparse
import time

import jax
import jax.numpy as jnp
import numpy as np


def _time(fn, *args, repeats=5):
    jax.block_until_ready(fn(*args))
    ts = []
    for _ in range(repeats):
        t = time.perf_counter()
        jax.block_until_ready(fn(*args))
        ts.append(time.perf_counter() - t)
    return min(ts) * 1e3


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--n", type=int, default=200_000)
    p.add_argument("--rounds", type=int, default=10)
    p.add_argument("--depth", type=int, default=6)
    p.add_argument("--bins", type=int, default=256)
    p.add_argument("--skip-fit", action="store_true")
    p.add_argument("--skip-xgb", action="store_true")
    args = p.parse_args(argv)
    from sklearn.datasets import make_classification

    from jaxclassic import ensemble
    from jaxclassic.tree import _engine as E
    from jaxclassic.tree.binning import bin_features

    X, y = make_classification(args.n, 28, n_informative=14, n_redundant=4, random_state=0)
    X = X.astype(np.float32)
    n = int(0.8 * args.n)
    X, y = X[:n], y[:n]
    levels = args.rounds * args.depth
    print(f"{n} x 28 float32, {args.rounds} rounds, depth {args.depth}, {args.bins} bins; "
          f"{jax.devices()[0].platform}")

    if not args.skip_xgb:
        import xgboost as xgb

        kw = dict(n_estimators=args.rounds, max_depth=args.depth, learning_rate=0.1)
        for threads in (None, 1):
            ts = []
            for _ in range(2):
                t = time.perf_counter()
                xgb.XGBClassifier(tree_method="hist", max_bin=args.bins, n_jobs=threads, **kw).fit(X, y)
                ts.append(time.perf_counter() - t)
            name = "xgboost fit" if threads is None else "xgboost 1 thread"
            print(f"{name}: {min(ts) * 1e3:8.1f} ms = {min(ts) * 1e3 / levels:6.2f} ms/level")

    Xj, yj = jnp.asarray(X), jnp.asarray(y)
    fit = lambda: ensemble.fit_xgboost(Xj, yj, loss="log_loss", n_estimators=args.rounds, max_depth=args.depth,
                                       learning_rate=0.1, max_bin=args.bins)
    if not args.skip_fit:
        t = time.perf_counter()
        jax.block_until_ready(fit())
        first = time.perf_counter() - t
        run = _time(lambda: fit(), repeats=2)
        print(f"ours fit:    {run:8.1f} ms = {run / levels:6.2f} ms/level  (first call {first:.1f} s:"
              f" compile ~{first - run / 1e3:.1f} s)")

    codes, edges = bin_features(X, args.bins)
    codes_T = jnp.asarray(np.ascontiguousarray(np.asarray(codes).T))
    has_missing = bool(jnp.any(codes_T == args.bins))
    if not has_missing:  # as fit_xgboost
        codes_T = codes_T.astype(jnp.uint8)
    t_bin = _time(lambda: bin_features(X, args.bins), repeats=2)
    print(f"binning (host edges + codes): {t_bin:8.1f} ms")
    p0 = jnp.mean(yj)
    g = (p0 - yj).astype(jnp.float32)
    h = jnp.full_like(g, p0 * (1 - p0))
    stats = jnp.stack([g, h], 1)
    count = jnp.ones((n,), jnp.float32)
    M = 2 ** (args.depth + 1) - 1
    W = min(2 ** (args.depth - 1), 256)
    crit = E.GradientPair()

    @jax.jit
    def grow(codes_T, stats, count):
        return E.grow(codes_T, stats, count, criterion=crit, n_bins=args.bins, max_nodes=M, max_width=W,
                      max_depth=args.depth, criterion_params=(1.0, 0.0), min_weight_leaf=1.0,
                      has_missing=has_missing)

    t = time.perf_counter()
    jax.block_until_ready(grow(codes_T, stats, count))
    c = time.perf_counter() - t
    tg = _time(grow, codes_T, stats, count, repeats=3)
    print(f"one tree grow: {tg:8.1f} ms = {tg / args.depth:6.2f} ms/level (first call {c:.1f} s)")

    sc = jnp.concatenate([stats, count[:, None]], 1)
    rng = np.random.default_rng(0)
    root = jax.jit(lambda c, s: E._hist(c, s, jnp.zeros((n,), jnp.int32), 1, args.bins + 1))
    print(f"root histogram (all rows): {_time(root, codes_T, sc):6.2f} ms")
    m = E._N_CHUNKS * -(-(n // 2 + 1) // E._N_CHUNKS)
    for slots, frac in ((8, 0.25), (32, 0.25)):
        slot = jnp.asarray(np.where(rng.random(n) < frac, rng.integers(0, slots, n), slots).astype(np.int32))

        def level_hist(c, s, sl, slots=slots):
            sel, n_used = E._compact(sl < slots, m)
            filled = jnp.arange(m) < n_used
            return E._hist_rows(c, jnp.where(filled[:, None], s[sel], 0),
                                jnp.where(filled, sl[sel], jnp.arange(m) % slots), sel, n_used, slots,
                                args.bins + 1, E._N_CHUNKS)

        print(f"level histogram, {slots} slots, {frac:.0%} of the rows (compaction included):"
              f" {_time(jax.jit(level_hist), codes_T, sc, slot):6.2f} ms")
    for cand in (8, 16, 64):
        hist = jax.random.uniform(jax.random.key(1), (args.bins + 1, 3, 28, cand))
        pstats = jnp.sum(hist, 0).transpose(2, 0, 1)[:, :, 0]
        fo = jnp.ones((cand, 28), bool)
        bs = jax.jit(lambda hist, pstats, fo: E._best_splits(hist, pstats, crit, (1.0, 0.0), args.bins,
                                                             jnp.float32(1), jnp.float32(1), fo, has_missing))
        print(f"split search width {cand:3d}: {_time(bs, hist, pstats, fo):6.2f} ms")


if __name__ == "__main__":
    main()
