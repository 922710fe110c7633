"""Clustering: k-means (Lloyd) vs scikit-learn's ``KMeans``, agglomerative vs SciPy's ``linkage``.

k-means. Data: ``make_blobs(1,000,000, 16 features, 16 centres, cluster_std=6,
random_state=0)`` as float32 (quick: 20,000 rows). Both sides start from the same centres
(scikit-learn's ``kmeans_plusplus`` with ``random_state=0``) with ``k = 16``, ``n_init = 1``,
``tol = 0`` and ``max_iter = 20``, so both run the same 20 Lloyd iterations (unless the labels
stop changing first: ``n_iter`` is in the case). Ours is the public
:func:`jaxclassic.cluster.fit_kmeans` (validation, centring and the final assignment
included), scikit-learn's ``KMeans(algorithm="lloyd")``. Two rows: the whole fit
(``total / n_iter`` is the per-iteration figure with the fixed costs spread), and the
marginal cost of one iteration, ``(t(20 iterations) - t(2 iterations)) / 18`` on each side.
Quality: the final inertia of each side (the same partition: relative difference).

Agglomerative. Ward on 10,000 x 16 standard normal rows (quick: 500), float64 on both sides
(SciPy computes in float64), and average linkage on 5,000 x 16 (quick: 300), the
distance-matrix path. Ours is :func:`jaxclassic.cluster.fit_agglomerative` (the generic
nearest-neighbour-list algorithm, one ``fori_loop`` on the device), SciPy's ``linkage``
(nearest-neighbour chain). Agreement: the largest relative difference of the merge heights and
whether every merge row is SciPy's.

The benchmark machine may be shared with other jobs: compare the ratio of the two columns
measured in this one process, not the seconds across runs.
"""

from __future__ import annotations

import numpy as np

from benchmarks._harness import Result, last_cpu_use, time_host, time_jax

__all__ = ["run"]


def _kmeans_rows(quick: bool) -> list[Result]:
    import jax
    import jax.numpy as jnp
    from sklearn.cluster import KMeans, kmeans_plusplus
    from sklearn.datasets import make_blobs

    from jaxclassic import cluster

    n, d, k, iters = (20_000, 16, 16, 20) if quick else (1_000_000, 16, 16, 20)
    X, _ = make_blobs(n, d, centers=16, cluster_std=6, random_state=0)
    X = X.astype(np.float32)
    init, _ = kmeans_plusplus(X, k, random_state=0)
    Xj = jnp.asarray(X)
    key = jax.random.key(0)

    def ours(max_iter):
        return lambda: cluster.fit_kmeans(Xj, k, key=key, init=init, tol=0.0, max_iter=max_iter)

    def reference(max_iter):
        return lambda: KMeans(k, init=init, n_init=1, max_iter=max_iter, tol=0.0, algorithm="lloyd").fit(X)

    repeats = 3 if quick else 2
    params, compile_s, ours_s = time_jax(ours(iters), repeats=repeats)
    ours_cpu = last_cpu_use()
    sk, sk_s = time_host(reference(iters), repeats=repeats)
    sk_cpu = last_cpu_use()
    _, _, ours_2 = time_jax(ours(2), repeats=repeats)
    _, sk_2 = time_host(reference(2), repeats=repeats)
    n_iter, sk_iter = int(params.n_iter), int(sk.n_iter_)
    inertia = float(params.inertia)
    agreement = f"d inertia={inertia / sk.inertia_ - 1:+.1e}"
    case = f"k-means {n}x{d} k={k} float32, {n_iter} iter (sklearn {sk_iter})"
    rows = [Result("cluster", case + ": whole fit", ours_s, sk_s, compile_s, "inertia", inertia,
                   float(sk.inertia_), "sklearn KMeans lloyd", agreement,
                   extra={"per_iter_ours_s": ours_s / n_iter, "per_iter_ref_s": sk_s / sk_iter},
                   ours_cpu=ours_cpu, ref_cpu=sk_cpu)]
    if n_iter == iters and sk_iter == iters:
        per_ours = max(ours_s - ours_2, 1e-9) / (iters - 2)
        per_sk = (sk_s - sk_2) / (iters - 2)
        rows.append(Result("cluster", case + ": marginal s / iteration", per_ours, per_sk, None, "inertia",
                           inertia, float(sk.inertia_), "sklearn KMeans lloyd", agreement))
    return rows


def _agglomerative_rows(quick: bool) -> list[Result]:
    import jax
    from scipy.cluster.hierarchy import linkage

    from jaxclassic import cluster

    cases = [("ward", 500 if quick else 10_000), ("average", 300 if quick else 5_000)]
    rows = []
    for method, n in cases:
        X = np.random.default_rng(0).normal(size=(n, 16))
        with jax.enable_x64(True):
            Z, compile_s, ours_s = time_jax(lambda: cluster.fit_agglomerative(X, linkage=method).linkage_matrix,
                                            repeats=3 if quick else 1)
            Z = np.asarray(Z)
        R, ref_s = time_host(lambda: linkage(X, method), repeats=3 if quick else 1)
        height_diff = float(np.max(np.abs(Z[:, 2] - R[:, 2]) / np.maximum(R[:, 2], 1e-300)))
        same = bool(np.array_equal(Z[:, [0, 1, 3]], R[:, [0, 1, 3]]))
        rows.append(Result("cluster", f"agglomerative {method} {n}x16 float64", ours_s, ref_s, compile_s,
                           "max rel. height diff", height_diff, 0.0, "scipy linkage",
                           f"merges {'equal' if same else 'differ'}"))
    return rows


def run(quick: bool) -> list[Result]:
    return _kmeans_rows(quick) + _agglomerative_rows(quick)
