"""Nearest neighbours and kernel density: exact k-NN search, k-NN CV over k, KDE, vs scikit-learn.

* k-NN search (issue 12): 50,000 training rows x 10,000 queries x 32 dims, standard normal
  float32, k = 5 (quick: 2,000 x 500 x 8). Ours: the public ``neighbors.kneighbors`` on jax
  arrays (validation included), timed after a compile call; scikit-learn:
  ``NearestNeighbors(algorithm="brute").kneighbors`` on the same float32 numpy arrays
  (its own chunked GEMM + heap, all cores). Agreement: the fraction of identical neighbour
  indices and the largest relative difference of the distances.
* k-NN search with ties everywhere (issue 23.2): an integer grid, {0, 1, 2}^8 float32,
  50,000 training rows x 10,000 queries, k = 10 (quick: 2,000 x 500). Every query has more
  tied rows than candidates, so the candidate stage cannot settle it and the exact-difference
  pass runs (the manhattan path's cost): the price of the tie rule where it bites. Quality:
  the fraction of 200 checked queries whose indices equal ``np.argsort(d, kind="stable")`` of
  the float64 distances (the rule: equal distances in increasing row index), for each side;
  scikit-learn's brute force returns a valid k-nearest set but does not order ties by index.
  Agreement: the largest relative difference of the distances.
* k by 5-fold CV, k = 1..30: ``neighbors.knn_cv_scores`` (one search per fold) vs
  ``GridSearchCV(KNeighborsClassifier(algorithm="brute"))`` on the same folds; 5,000 x 16
  (quick: 600 x 8 and k in 1, 3, 5), two Gaussian classes. Quality: the best mean CV accuracy of each.
* KDE (issue 11): 100,000 training rows x 10,000 queries, 4 dims, gaussian kernel, h = 0.5
  (quick: 2,000 x 500). Ours: ``neighbors.score_samples`` in float32; scikit-learn:
  ``KernelDensity(atol=0, rtol=0)`` (its exact setting: the kd-tree still prunes nodes whose
  kernel bound is exactly 0) in float64. Agreement: the largest absolute difference of the log
  densities (float32 vs float64).

* memory (issue 15): a 2,000,000 x 32 float32 index (256 MB of data), 1,000 queries, k = 5, each
  side in a fresh process: the peak resident memory (``ru_maxrss``) of the whole process beside
  the time of the search after a warm-up call. Ours tiles the query x index distances under
  ``jaxclassic._tiling.MEMORY_BUDGET`` (a running top-k), so no 1,000 x 2,000,000 block exists;
  scikit-learn's brute search chunks by ``working_memory``. The data's own 256 MB is in both
  figures. Full size only (not in ``--quick``).

The machine is shared: figures are ratios measured in one process (ours and the reference
alternately on the same data), not absolute speeds.
"""

from __future__ import annotations

import numpy as np

from benchmarks._harness import Result, fresh_process, time_host, time_jax

__all__ = ["run"]


def _knn_search(quick: bool) -> Result:
    import jax.numpy as jnp
    from sklearn.neighbors import NearestNeighbors

    from jaxclassic import neighbors

    n_train, n_query, d, k = (2_000, 500, 8, 5) if quick else (50_000, 10_000, 32, 5)
    rng = np.random.default_rng(0)
    Xtr = rng.normal(size=(n_train, d)).astype(np.float32)
    Xq = rng.normal(size=(n_query, d)).astype(np.float32)
    Xtr_j, Xq_j = jnp.asarray(Xtr), jnp.asarray(Xq)
    (dist, idx), compile_s, ours_s = time_jax(lambda: neighbors.kneighbors(Xtr_j, Xq_j, k),
                                              repeats=3)
    nn = NearestNeighbors(n_neighbors=k, algorithm="brute").fit(Xtr)
    (ref_dist, ref_idx), ref_s = time_host(lambda: nn.kneighbors(Xq), repeats=1 if quick else 3)
    same = float(np.mean(np.asarray(idx) == ref_idx))
    rel = float(np.max(np.abs(np.asarray(dist) - ref_dist) / np.maximum(ref_dist, 1e-30)))
    return Result("neighbors", f"kneighbors {n_train}x{d}, {n_query} queries, k={k} float32",
                  ours_s, ref_s, compile_s, "same indices", same, 1.0,
                  "sklearn NearestNeighbors brute", f"max rel dd={rel:.1e}")


def _knn_search_ties(quick: bool) -> Result:
    import jax.numpy as jnp
    from scipy.spatial.distance import cdist
    from sklearn.neighbors import NearestNeighbors

    from jaxclassic import neighbors

    n_train, n_query, d, k = (2_000, 500, 8, 10) if quick else (50_000, 10_000, 8, 10)
    rng = np.random.default_rng(3)
    Xtr = rng.integers(0, 3, (n_train, d)).astype(np.float32)
    Xq = rng.integers(0, 3, (n_query, d)).astype(np.float32)
    Xtr_j, Xq_j = jnp.asarray(Xtr), jnp.asarray(Xq)
    (dist, idx), compile_s, ours_s = time_jax(lambda: neighbors.kneighbors(Xtr_j, Xq_j, k),
                                              repeats=3)
    nn = NearestNeighbors(n_neighbors=k, algorithm="brute").fit(Xtr)
    (ref_dist, ref_idx), ref_s = time_host(lambda: nn.kneighbors(Xq), repeats=1 if quick else 3)
    check = slice(0, 200)
    rule = np.argsort(cdist(Xq[check].astype(np.float64), Xtr.astype(np.float64)), axis=1,
                      kind="stable")[:, :k]
    ours_rule = float(np.mean(np.all(np.asarray(idx)[check] == rule, axis=1)))
    ref_rule = float(np.mean(np.all(ref_idx[check] == rule, axis=1)))
    rel = float(np.max(np.abs(np.asarray(dist) - ref_dist) / np.maximum(ref_dist, 1e-30)))
    return Result("neighbors", f"kneighbors ties: grid {{0,1,2}}^{d}, {n_train}x{d}, {n_query} "
                  f"queries, k={k} float32", ours_s, ref_s, compile_s, "ties in index order",
                  ours_rule, ref_rule, "sklearn NearestNeighbors brute", f"max rel dd={rel:.1e}")


def _knn_cv(quick: bool) -> Result:
    from sklearn.model_selection import GridSearchCV, StratifiedKFold
    from sklearn.neighbors import KNeighborsClassifier

    from jaxclassic import neighbors

    n, d = (600, 8) if quick else (5_000, 16)
    rng = np.random.default_rng(1)
    y = np.arange(n) % 2
    X = (rng.normal(size=(n, d)) + 0.6 * y[:, None]).astype(np.float32)
    cv = StratifiedKFold(5, shuffle=True, random_state=0)
    folds = np.ones((5, n), np.float32)
    for f, (_, test) in enumerate(cv.split(X, y)):
        folds[f, test] = 0.0
    ks = [1, 3, 5] if quick else list(range(1, 31))
    res, compile_s, ours_s = time_jax(lambda: neighbors.knn_cv_scores(X, y, ks, folds).mean_scores,
                                      repeats=3)
    grid = GridSearchCV(KNeighborsClassifier(algorithm="brute"), {"n_neighbors": ks}, cv=cv)
    ref, ref_s = time_host(lambda: grid.fit(X, y), repeats=1)
    best, ref_best = float(np.max(np.asarray(res))), float(ref.best_score_)
    diff = float(np.max(np.abs(np.asarray(res) - ref.cv_results_["mean_test_score"])))
    return Result("neighbors", f"k-NN 5-fold CV, {len(ks)} values of k, {n}x{d} float32", ours_s, ref_s,
                  compile_s, "best CV accuracy", best, ref_best, "sklearn GridSearchCV brute",
                  f"max|d mean score|={diff:.1e}")


def _kde(quick: bool) -> Result:
    import jax.numpy as jnp
    from sklearn.neighbors import KernelDensity

    from jaxclassic import neighbors

    n_train, n_query, d, h = (2_000, 500, 4, 0.5) if quick else (100_000, 10_000, 4, 0.5)
    rng = np.random.default_rng(2)
    Xtr = rng.normal(size=(n_train, d))
    Xq = rng.normal(size=(n_query, d))
    Xtr_j, Xq_j = jnp.asarray(Xtr, jnp.float32), jnp.asarray(Xq, jnp.float32)
    params = neighbors.fit_kde(Xtr_j, bandwidth=h)
    ld, compile_s, ours_s = time_jax(lambda: neighbors.score_samples(params, Xq_j), repeats=3)
    kde = KernelDensity(bandwidth=h, atol=0, rtol=0).fit(Xtr)
    ref, ref_s = time_host(lambda: kde.score_samples(Xq), repeats=1)
    diff = float(np.max(np.abs(np.asarray(ld, np.float64) - ref)))
    return Result("neighbors", f"KDE gaussian {n_train}x{d}, {n_query} queries float32", ours_s,
                  ref_s, compile_s, "mean log-lik", float(np.mean(np.asarray(ld))), float(np.mean(ref)),
                  "sklearn KernelDensity exact (f64)", f"max|d log p|={diff:.1e}")


_LARGE = """
import sys, time, resource, numpy as np
n, q, d, k, side = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
rng = np.random.default_rng(0)
Xtr = rng.normal(size=(n, d)).astype(np.float32)
Xq = rng.normal(size=(q, d)).astype(np.float32)
if side == "ours":
    import jax, jax.numpy as jnp
    from jaxclassic import neighbors
    Xtr, Xq = jnp.asarray(Xtr), jnp.asarray(Xq)
    run = lambda: jax.block_until_ready(neighbors.kneighbors(Xtr, Xq, k))
else:
    from sklearn.neighbors import NearestNeighbors
    nn = NearestNeighbors(n_neighbors=k, algorithm="brute").fit(Xtr)
    run = lambda: nn.kneighbors(Xq)
run()
t = time.perf_counter(); dist, idx = run(); t = time.perf_counter() - t
np.save(sys.argv[6], np.asarray(idx))
print(t, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
"""


def _large_index(quick: bool) -> Result:
    """k-NN against a large index, each side in a fresh process: time and peak memory."""
    import os
    import tempfile

    n, q, d, k = (20_000, 200, 32, 5) if quick else (2_000_000, 1_000, 32, 5)
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        for side in ("ours", "sklearn"):
            path = os.path.join(tmp, f"{side}.npy")
            seconds, peak = map(float, fresh_process(_LARGE, n, q, d, k, side, path).split())
            out[side] = (seconds, peak, np.load(path))
    same = float(np.mean(out["ours"][2] == out["sklearn"][2]))
    return Result("neighbors", f"kneighbors {n:,}x{d} index, {q} queries, k={k}, fresh processes",
                  out["ours"][0], out["sklearn"][0], None, "same indices", same, 1.0,
                  "sklearn NearestNeighbors brute", f"peak MB: ours {out['ours'][1]:.0f}, "
                  f"sklearn {out['sklearn'][1]:.0f}", peak_rss_mb=out["ours"][1],
                  extra={"sklearn_peak_rss_mb": out["sklearn"][1]})


def run(quick: bool) -> list[Result]:
    out = [_knn_search(quick), _knn_search_ties(quick), _knn_cv(quick), _kde(quick)]
    if not quick:  # two fresh processes (imports + a 256 MB index): full size only
        out.append(_large_index(quick))
    return out


if __name__ == "__main__":
    import sys

    from benchmarks.run import format_table

    print(format_table(run(quick="--quick" in sys.argv)))
