"""Reproducer: a 10-fold ``grid_search`` of ``fit_ridge`` on 5,000 × 50 hangs on a 2-core CPU.

Found in issue 14 (2026-11-26, jax/jaxlib 0.10.2, CPU, 2 cores). ``gdb -p PID -batch -ex
"thread apply all bt"`` on the hung process shows both ``tf_XLAEigen`` threads (XLA's intra-op
pool, one thread per core) inside ``jax::ParallelBatchMap`` of ``_lapack.so``, one from
``lapack_spotrf_ffi`` (the batched Cholesky of ``linear._gram.solve_normal_equations``), one from
``lapack_ssyevd_ffi`` (the batched eigh of its pseudo-inverse fallback, or of ``ridge_path``),
each blocked in ``absl::BlockingCounter::Wait`` for batch tasks it scheduled on that same pool:
under ``vmap`` a ``lax.cond`` runs both branches, so the two LAPACK thunks run at once and take
both threads. CPU time stops; the process sleeps forever. It happens in float32 and float64,
within minutes, not on every run; small problems (the test suite's) have not hung.

Ordering the two kernels with ``lax.optimization_barrier`` in ``solve_normal_equations`` and
``_ridge_path`` did NOT stop it (tried; reverted): another pair of kernels still met.

Run: ``python -m benchmarks.repro_lapack_hang [seconds]`` — exits 0 if the grid finished 5
times within the time limit, 1 (with Python's stack) if it hung.
"""

from __future__ import annotations

import faulthandler
import sys
import time


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    limit = int(argv[0]) if argv else 300
    faulthandler.dump_traceback_later(limit, exit=True)  # exit code 1 with the stack

    import numpy as np

    from benchmarks import bench_tuning
    from jaxclassic.model_selection import grid_search

    X, y, folds, fit, score, name, _, _ = bench_tuning._problem("ridge", False)
    for i in range(5):
        t = time.perf_counter()
        grid = grid_search(fit, score, X, y, {name: np.logspace(-2, 4, 50) * (1 + 1e-3 * i)},
                           folds, refit=False)
        print(f"run {i}: best {grid.best_score:.6g} in {time.perf_counter() - t:.2f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
