"""Run by tests/test_distributed.py in a subprocess with 4 simulated CPU devices and x64 on.

Each case fits one family twice with the SAME jitted function: once on inputs placed on one
device, once on ``shard_rows`` inputs sharded over the 4 devices, and prints one line

    CASE <name> <max relative difference> <tolerance> <ok> <all-reduces> <all-gathers> <spec>

where the counts are the collectives in the compiled sharded program (so the test can check
the rows were reduced across devices, not only gathered to one). A last line ``DONE`` marks
a complete run. Data: 64 rows (a multiple of 4: no padding, except in ``ridge_padded``), 3
features, float64.
"""

from __future__ import annotations

import os
import re
import sys
import time
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

from jaxclassic.distributed import make_mesh, shard_rows

N, D = 64, 3


def _data():
    rng = np.random.default_rng(0)
    y3 = np.arange(N) % 3
    X = rng.normal(size=(3, D))[y3] * 1.5 + rng.normal(size=(N, D))
    y = X @ rng.normal(size=D) + 0.5 + rng.normal(scale=0.7, size=N)
    yb = (X[:, 0] + 0.8 * rng.normal(size=N) > 0).astype(np.int32)
    w = rng.uniform(0.5, 2.0, size=N)
    return X, y, yb, y3.astype(np.int32), w


def _max_rel_diff(a, b):
    """max over the params' leaves of |a - b| / max(1, |b|) (floats; ints and bools: 0 or inf)."""
    worst = 0.0
    for u, v in zip(jax.tree.leaves(a), jax.tree.leaves(b)):
        u, v = np.asarray(u), np.asarray(v)
        if u.shape != v.shape:
            return float("inf")
        if u.dtype.kind in "biu":
            worst = max(worst, 0.0 if np.array_equal(u, v) else float("inf"))
            continue
        u, v = u.astype(np.float64), v.astype(np.float64)
        both_nan = np.isnan(u) & np.isnan(v)
        same_inf = np.isinf(u) & (u == v)
        with np.errstate(invalid="ignore"):  # inf - inf where both are the same inf
            diff = np.where(both_nan | same_inf, 0.0, np.abs(u - v) / np.maximum(1.0, np.abs(v)))
        worst = max(worst, float(np.max(diff, initial=0.0)))
    return worst


def _collectives(compiled):
    text = compiled.as_text()
    return (len(re.findall(r"\ball-reduce(?:-start)?\(", text)),
            len(re.findall(r"\ball-gather(?:-start)?\(", text)))


def _one_device(*arrays):
    device = jax.devices()[0]
    return tuple(None if a is None else jax.device_put(a, device) for a in arrays)


def cases(X, y, yb, y3, w):
    """(name, function of (X, y, w), y, tolerance): each a public fit (HMM: its padded core)."""
    from jaxclassic import cluster, discriminant, ensemble, linear, neighbors, svm, tree

    key = jax.random.key(0)
    Xq = X[:16] + 0.25  # query rows (replicated) for the neighbour search

    def knn(X, y, w):
        params = neighbors.fit_knn(X, y, n_neighbors=5, n_classes=3, sample_weight=w)
        return neighbors.predict_proba(params, Xq)

    # 1e-9: float64 sums re-associated across 4 devices differ by ~1e-15 relative; iterative
    # fits (Newton, EM, Lloyd, SMO) carry that through their iterations, still far below 1e-9
    tight = 1e-9
    return [
        ("ols", lambda X, y, w: linear.fit_ols(X, y, sample_weight=w), y, tight),
        ("ridge", lambda X, y, w: linear.fit_ridge(X, y, alpha=1.0, sample_weight=w), y, tight),
        ("logistic_newton", lambda X, y, w: linear.fit_logistic(X, y, l2=0.5, sample_weight=w), yb, tight),
        ("softmax_newton", lambda X, y, w: linear.fit_softmax(X, y, n_classes=3, l2=0.5, method="newton",
                                                             sample_weight=w), y3, tight),
        ("bayesian_ridge", lambda X, y, w: linear.fit_bayesian_ridge(X, y, sample_weight=w), y, tight),
        ("gaussian_nb", lambda X, y, w: discriminant.fit_gaussian_nb(X, y, n_classes=3, sample_weight=w),
         y3, tight),
        ("lda", lambda X, y, w: discriminant.fit_lda(X, y, n_classes=3, sample_weight=w), y3, tight),
        ("qda", lambda X, y, w: discriminant.fit_qda(X, y, n_classes=3, reg_param=0.1, sample_weight=w),
         y3, tight),
        ("kmeans", lambda X, y, w: cluster.fit_kmeans(X, 3, key=key, sample_weight=w), None, tight),
        ("gmm", lambda X, y, w: cluster.fit_gmm(X, 3, key=key, sample_weight=w), None, tight),
        ("knn_predict_proba", knn, y3, tight),
        ("cart", lambda X, y, w: tree.fit_cart(X, y, task="classification", max_depth=3, n_classes=3,
                                               n_bins=16, sample_weight=w), y3, tight),
        ("gradient_boosting", lambda X, y, w: ensemble.fit_gradient_boosting(
            X, y, n_estimators=4, max_depth=2, n_bins=16, sample_weight=w), y, tight),
        ("kernel_svm", lambda X, y, w: svm.fit_kernel_svm(X, y, C=1.0, kernel="rbf", gamma=0.5, tol=1e-8,
                                                          sample_weight=w), yb, tight),
    ]


def hmm_case(key):
    """Baum--Welch over 16 sequences of length 8 (3 symbols, 2 states), sharded by sequence.

    ``fit_hmm`` takes hmmlearn's concatenated layout and pads it on the host; the sharded
    axis is the padded layout's sequence axis, so this calls its jitted core ``_fit``."""
    from jaxclassic.graphical import hmm_fit

    rng = np.random.default_rng(1)
    S, T = 16, 8
    states = np.cumsum(rng.uniform(size=(S, T)) < 0.2, axis=1) % 2
    Xp = np.where(rng.uniform(size=(S, T)) < 0.8, states * 2, 1).astype(np.int32)
    lengths = rng.integers(4, T + 1, size=S)
    mask = np.arange(T)[None, :] < lengths[:, None]
    weight = rng.uniform(0.5, 2.0, size=S)

    def fit(Xp, mask, weight):
        return hmm_fit._fit(Xp, mask, weight, key, None, 1e-10, 1e-6, n_components=2, emission="categorical",
                            covariance_type="diag", max_iter=50, n_init=1, update="ste", n_symbols=3)
    return fit, Xp, mask, weight


def compare(name, fn, X, y, w, tol, mesh):
    start = time.process_time()
    f = jax.jit(fn)
    ref = f(*_one_device(X, y, w))
    sharded = shard_rows(X, y, w, mesh=mesh)
    if sharded[1] is None:
        sharded = (sharded[0], None, sharded[2])
    compiled = f.lower(*sharded).compile()
    out = compiled(*sharded)
    spec = sharded[0].sharding.spec
    diff = _max_rel_diff(out, ref)
    n_reduce, n_gather = _collectives(compiled)
    print(f"CASE {name} {diff:.3e} {tol:.0e} {int(diff <= tol)} {n_reduce} {n_gather} {spec}", flush=True)
    print(f"TIME {name} {time.process_time() - start:.1f}s cpu", file=sys.stderr, flush=True)


def main():
    assert jax.config.read("jax_enable_x64"), "run with JAX_ENABLE_X64=1"
    assert len(jax.devices()) == 4, f"expected 4 devices, got {jax.devices()}"
    mesh = make_mesh()
    X, y, yb, y3, w = _data()
    only = set(sys.argv[1:])
    for name, fn, target, tol in cases(X, y, yb, y3, w):
        if not only or name in only:
            compare(name, fn, X, target, w, tol, mesh)
    if not only or "knn_kneighbors_merged" in only:
        # the index sharded, a search per device and a top-k merge (distributed.kneighbors);
        # the reference is the one-device search of neighbors.kneighbors
        from jaxclassic import neighbors
        from jaxclassic.distributed import kneighbors

        Xq = X[:16] + 0.25
        ref = neighbors.kneighbors(X, Xq, 5, sample_weight=w)
        Xs, _, ws = shard_rows(X, None, w, mesh=mesh)
        lowered = jax.jit(partial(kneighbors, n_neighbors=5, mesh=mesh)).lower(Xs, Xq, sample_weight=ws).compile()
        out = lowered(Xs, Xq, sample_weight=ws)
        diff = _max_rel_diff(out, ref)
        n_reduce, n_gather = _collectives(lowered)
        print(f"CASE knn_kneighbors_merged {diff:.3e} 1e-09 {int(diff <= 1e-9)} {n_reduce} {n_gather} "
              f"{Xs.sharding.spec}", flush=True)
    if not only or "hmm" in only:
        fit, Xp, mask, weight = hmm_case(jax.random.key(0))
        compare("hmm_baum_welch", fit, Xp, mask, weight, 1e-9, mesh)
    if not only or "ridge_padded" in only:
        # 62 rows: shard_rows pads 2 rows of weight 0; the reference is the unpadded fit
        from jaxclassic.linear import fit_ridge

        compare("ridge_padded", lambda X, y, w: fit_ridge(X, y, alpha=1.0, sample_weight=w),
                X[:62], y[:62], w[:62], 1e-9, mesh)
    if not only or "ridge_grad_vmap" in only:
        # autodiff and vmap through a sharded fit: d coef / d alpha (implicit derivative) over a
        # vmapped grid of alpha; a second call on new data of the same shapes does not retrace
        from jaxclassic.linear import fit_ridge

        traces = []

        def grad_grid(X, y, w):
            traces.append(1)
            coef_sum = lambda a: fit_ridge(X, y, alpha=a, sample_weight=w).coef.sum()
            return jax.vmap(jax.grad(coef_sum))(jnp.array([0.5, 1.0, 4.0]))

        compare("ridge_grad_vmap", grad_grid, X, y, w, 1e-9, mesh)
        f = jax.jit(grad_grid)
        f(*shard_rows(X, y, w, mesh=mesh))
        n_traces = len(traces)
        f(*shard_rows(X + 1.0, y - 1.0, w, mesh=mesh))
        print("RETRACE", "ok" if len(traces) == n_traces else f"FAILED {len(traces) - n_traces}",
              flush=True)
    if not only or "ridge_eager" in only:
        # the public fit called as is (not under jit) on sharded inputs
        from jaxclassic.linear import fit_ridge

        ref = fit_ridge(X, y, alpha=1.0, sample_weight=w)
        Xs, ys, ws = shard_rows(X, y, w, mesh=mesh)
        out = fit_ridge(Xs, ys, alpha=1.0, sample_weight=ws)
        diff = _max_rel_diff(out, ref)
        print(f"CASE ridge_eager {diff:.3e} 1e-09 {int(diff <= 1e-9)} -1 -1 eager", flush=True)
    # the layout of shard_rows: 62 rows -> 64, 16 a device, the 2 extra rows X 0, y y[0], weight 0
    Xs, ys, ws = shard_rows(X[:62], y3[:62], w[:62], mesh=mesh)
    Xn, yn, wn = np.asarray(Xs), np.asarray(ys), np.asarray(ws)
    pad_ok = (Xs.shape == (64, D) and [s.data.shape[0] for s in Xs.addressable_shards] == [16] * 4
              and np.array_equal(Xn[:62], X[:62]) and not Xn[62:].any() and np.array_equal(yn[:62], y3[:62])
              and (yn[62:] == y3[0]).all() and np.array_equal(wn[:62], w[:62]) and not wn[62:].any())
    print("PAD", "ok" if pad_ok else "FAILED", flush=True)
    print("DONE", os.getpid(), flush=True)


if __name__ == "__main__":
    main()
