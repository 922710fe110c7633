"""One process of the multi-process test (tests/test_distributed.py), started with 2 CPU devices.

    python tests/_distributed_worker.py PORT PROCESS_ID NUM_PROCESSES

Every process joins the run through ``jaxclassic.distributed.initialize`` on localhost, holds
only its own block of the 64 rows (uneven: 33 and 31 rows for 2 processes, so ``shard_rows``
pads each to 34 with weight 0), and fits ridge, logistic regression (Newton) and k-means
(from given centres) under ``jax.jit`` on the global mesh. Each process prints a digest of
its fitted params (replicated: the same on every process); process 0 also fits the 64 rows
on its one local device and prints the largest relative difference. Lines:

    FIT <name> <digest> <max relative difference or -1>
"""

from __future__ import annotations

import hashlib
import sys
import time

import numpy as np


def main(port: int, process_id: int, num_processes: int) -> None:
    start = time.perf_counter()
    from jaxclassic import distributed

    distributed.initialize(f"localhost:{port}", num_processes, process_id, initialization_timeout=60)

    import jax
    from jax.experimental import multihost_utils

    from jaxclassic.cluster import fit_kmeans
    from jaxclassic.linear import fit_logistic, fit_ridge

    assert jax.config.read("jax_enable_x64")
    print(f"TIME initialized {time.perf_counter() - start:.1f}s", file=sys.stderr, flush=True)
    rng = np.random.default_rng(0)
    n, d = 64, 3
    labels = np.arange(n) % 3
    X = rng.normal(size=(3, d))[labels] * 2.0 + rng.normal(size=(n, d))
    y = X @ rng.normal(size=d) + rng.normal(scale=0.5, size=n)
    yb = (X[:, 0] + rng.normal(size=n) > 0).astype(np.int32)
    w = rng.uniform(0.5, 2.0, size=n)
    centres = X[:3].copy()
    bounds = np.linspace(0, n, num_processes + 1).astype(int) + np.arange(num_processes + 1) % 2
    bounds[0], bounds[-1] = 0, n
    mine = slice(bounds[process_id], bounds[process_id + 1])

    fits = {
        "ridge": (lambda X, y, w: fit_ridge(X, y, alpha=1.0, sample_weight=w), y),
        "logistic": (lambda X, y, w: fit_logistic(X, y, l2=0.5, sample_weight=w), yb),
        "kmeans": (lambda X, y, w: fit_kmeans(X, 3, key=jax.random.key(0), init=centres,
                                              sample_weight=w), None),
    }
    mesh = distributed.make_mesh()
    assert mesh.size == 2 * num_processes, mesh
    runs = [(name, fit, target, jax.jit(fit)) for name, (fit, target) in fits.items()]
    # the public fits called eagerly on the global arrays too: validation must not read values
    # held by the other process (shape checks only), and the result is the same fit
    runs += [(name + "_eager", fit, target, fit) for name, (fit, target) in fits.items()]
    for name, fit, target, f in runs:
        Xs, ys, ws = distributed.shard_rows(X[mine], None if target is None else target[mine], w[mine],
                                            mesh=mesh)
        # replicated fields are readable as they are; per-row fields (k-means labels) stay
        # sharded: gather them, then drop the padding rows (weight 0) to get the 64 rows' order
        out, kept = multihost_utils.process_allgather((f(Xs, ys, ws), ws), tiled=True)
        kept = kept > 0
        leaves = [np.asarray(v[kept] if np.ndim(v) and len(v) == len(kept) else v, np.float64).ravel()
                  for v in jax.tree.leaves(out)]
        digest = hashlib.sha256(np.concatenate(leaves).tobytes()).hexdigest()[:16]
        diff = -1.0
        if process_id == 0:
            local = jax.local_devices()[0]
            put = lambda a: None if a is None else jax.device_put(a, local)
            ref = jax.jit(fit)(put(X), put(target), put(w))  # cached: one compile a family
            diff = max(float(np.max(np.abs(u - np.asarray(v)) / np.maximum(1.0, np.abs(np.asarray(v))),
                                    initial=0.0))
                       for u, v in zip(leaves, (np.asarray(r, np.float64).ravel()
                                                for r in jax.tree.leaves(ref))))
        print(f"FIT {name} {digest} {diff:.3e} rows={Xs.shape[0]}", flush=True)
        print(f"TIME {name} {time.perf_counter() - start:.1f}s", file=sys.stderr, flush=True)
    # validation of a global array (not fully addressable): shapes checked, values not read
    from jaxclassic.validation import check_array, check_classification_targets, check_sample_weight

    Xs, ys, ws = distributed.shard_rows(X[mine], yb[mine], w[mine], mesh=mesh)
    assert not Xs.is_fully_addressable
    try:
        check_array(Xs, "X", min_features=4)
    except ValueError as exc:
        assert "X must have at least 4 feature(s), got shape (68, 3)" in str(exc), exc
        print("CHECK global_shape ok", flush=True)
    try:
        check_classification_targets(ys)
    except ValueError as exc:
        assert "n_classes must be given when y is traced" in str(exc), exc
        print("CHECK global_n_classes ok", flush=True)
    # negative weights raise for a numpy array; a global array's values are not read
    if check_sample_weight(-ws, 68).shape == (68,):
        print("CHECK global_values_skipped ok", flush=True)
    jax.distributed.shutdown()
    print(f"TIME shutdown {time.perf_counter() - start:.1f}s", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]))
