"""Minimal jax-only reproducer of the batched-LAPACK deadlock (text for an upstream report).

Title: CPU: two batched LAPACK calls in one jitted program deadlock XLA's intra-op pool
(jaxlib 0.10.2, Linux x86-64, 2 cores)

What happens. A jitted program holds independent batched factorisations: here a vmapped
ridge grid (500 fits of 50 features) solving by Cholesky with an eigendecomposition fallback
in a ``lax.cond``, which ``vmap`` turns into a select, so both branches' batched LAPACK calls
(``potrf``/``trsm`` and ``syevd`` on a (500, 50, 50) stack) run. jaxlib 0.10.2's
``ParallelBatchMap`` (``jaxlib/cpu/lapack_kernels.cc``) splits each call over the thread pool
passed through the FFI (XLA's intra-op pool, one thread per core) once
``batch * cost_per_matrix >= 200000`` and then blocks the calling thread — itself a thread of
that pool — in ``absl::BlockingCounter::Wait``. XLA's thunk executor runs the two independent
custom calls at once, on both pool threads; each waits for chunks queued behind the other,
and no thread is left to run them. The process sleeps at 0 % CPU forever (``gdb -p PID -batch
-ex "thread apply all bt"``: both ``tf_XLAEigen`` threads in ``ParallelBatchMap`` /
``BlockingCounter::Wait``, e.g. one under ``lapack_spotrf_ffi``, one under ``lapack_ssyevd_ffi``).
Commit 859992407d ("Don't try to parallelize LAPACK kernels in opensource builds", July 2026)
removes the split from open-source builds; 0.10.2 (June 2026) predates it.

Expected: every call finishes (the loop below prints 20 lines in a few seconds).
Observed on 2 cores (jax/jaxlib 0.10.2, Python 3.11): nothing is printed; the
watchdog fires (2 of 2 runs on 2026-11-26).

Run: ``python -m benchmarks.repro_lapack_hang_minimal [seconds]`` — exit 0 when all
iterations finish, 1 with the Python stack when the watchdog fires. Needs only jax.
"""

from __future__ import annotations

import faulthandler
import sys


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    limit = int(argv[0]) if argv else 120
    faulthandler.dump_traceback_later(limit, exit=True)

    import jax
    import jax.numpy as jnp

    def solve(gram, rhs):
        # Cholesky, falling back to an eigendecomposition when it fails: under vmap the
        # lax.cond becomes a select, so both branches' batched LAPACK calls run
        chol = jnp.linalg.cholesky(gram)

        def by_cholesky(_):
            return jax.scipy.linalg.cho_solve((chol, True), rhs)

        def by_eigh(_):
            evals, evecs = jnp.linalg.eigh(gram)
            return evecs @ ((evecs.T @ rhs) / evals)

        return jax.lax.cond(jnp.all(jnp.isfinite(chol)), by_cholesky, by_eigh, None)

    X = jax.random.normal(jax.random.key(0), (2000, 50))
    y = X[:, 0]
    folds = (jax.random.uniform(jax.random.key(1), (10, 2000)) > 0.1).astype(X.dtype)

    @jax.jit
    def ridge_grid(alphas):
        # 50 penalties x 10 folds = 500 ridge fits: batched (500, 50, 50) potrf, trsm, syevd
        def fit(alpha, w):
            gram = X.T @ (w[:, None] * X) + alpha * jnp.eye(50, dtype=X.dtype)
            return solve(gram, X.T @ (w * y))

        return jax.vmap(lambda a: jax.vmap(lambda w: fit(a, w))(folds))(alphas)

    for i in range(20):
        print(i, float(ridge_grid(jnp.logspace(-2, 4, 50) * (1 + 1e-3 * i)).sum()), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
