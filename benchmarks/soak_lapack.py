"""Soak: every path that batches LAPACK under ``vmap``, run in fresh processes under a watchdog.

Issue 23 item 1. jaxlib 0.10.x splits a batched LAPACK call over XLA's CPU thread pool and
blocks a pool thread until its pieces are done; two such calls at once can deadlock the pool
(``jaxclassic/_linalg.py`` explains it and how the package avoids it). This script checks both
ways that nothing of ours can get there:

* ``--hlo``: runs every path at a small size with ``XLA_FLAGS=--xla_dump_to`` in a fresh
  process, reads every optimised HLO module XLA compiled, and lists each LAPACK custom call
  with its batch and jaxlib's flop estimate per matrix. A call with ``batch > 1`` and
  ``batch × cost ≥ 200,000`` is one jaxlib would split over the pool: any such call fails.
  Cheap and deterministic; its short form is ``tests/test_lapack_deadlock.py``.
* soak (default): runs each path at full size ``--runs`` times (20), each in a fresh
  process. A run is hung when its process uses no CPU for ``--idle`` seconds (a deadlocked
  pool sleeps; compilation and LAPACK never do) or runs past ``--timeout``: its Python stack
  is printed (``faulthandler`` on SIGUSR1) and it is killed. Prints hangs per path.

Run: ``python -m benchmarks.soak_lapack [--runs 20] [--paths ridge_grid,...]``,
``python -m benchmarks.soak_lapack --hlo``. ``--quick`` (the benchmark tier) is ``--hlo``.
With ``--source DIR`` the children import jaxclassic from ``DIR`` (e.g. a ``git worktree`` of an
older commit), to measure before and after on the same machine.
"""

from __future__ import annotations

import argparse
import glob
import math
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

# --------------------------------------------------------------------------- the workloads
# Each path: a function of (size) running one vmapped program of the package that holds
# LAPACK calls. "small" sizes keep every old (unguarded) call above jaxlib's split threshold,
# so the HLO check fails on code without the guard; "full" sizes are the soak's.
SIZES = {"small": dict(n=120, d=40, folds=4, grid=4, gp_n=60),
         "full": dict(n=5_000, d=50, folds=10, grid=50, gp_n=400)}


def _regression(n, d, dtype):
    import numpy as np

    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, d)) * np.logspace(-2, 2, d)
    y = X @ (rng.normal(size=d) / np.logspace(-2, 2, d)) + rng.normal(size=n)
    return X.astype(dtype), y.astype(dtype)


def _classes(n, d, n_classes, dtype):
    import numpy as np

    rng = np.random.default_rng(1)
    y = np.arange(n) % n_classes
    X = rng.normal(size=(n_classes, d))[y] + rng.normal(size=(n, d))
    return X.astype(dtype), y.astype(np.int32)


def _folds(n, k):
    import jax

    from jaxclassic.model_selection import kfold_weights

    return kfold_weights(n, k, key=jax.random.key(0))


def run_path(name, size):
    """Run path ``name`` once at ``size`` ("small" / "full"); returns a short summary string."""
    import jax
    import jax.numpy as jnp
    import numpy as np

    from jaxclassic import cluster, discriminant, gaussian_process, linear
    from jaxclassic.model_selection import (
        accuracy_scorer,
        cross_validate,
        grid_search,
        log_loss_scorer,
        neg_mse_scorer,
        tune_hyperparameters,
    )

    s = SIZES[size]
    n, d, k, g = s["n"], s["d"], s["folds"], s["grid"]
    dtype = np.float32
    folds = _folds(n, k)
    grid = np.logspace(-2, 3, g).astype(dtype)

    def best(result):
        return f"best {float(result.best_score):.6g}"

    def mean(result):
        return f"mean {float(result.mean):.6g}"

    if name == "ridge_grid":  # the original reproducer: Cholesky and its eigh fallback
        X, y = _regression(n, d, dtype)
        return best(grid_search(linear.fit_ridge, neg_mse_scorer(linear.predict), X, y,
                                {"alpha": grid}, folds, refit=False))
    if name == "ols_cv":
        X, y = _regression(n, d, dtype)
        return mean(cross_validate(linear.fit_ols, neg_mse_scorer(linear.predict), X, y, folds))
    if name == "bayesian_ridge_cv":
        X, y = _regression(n, d, dtype)
        return mean(cross_validate(linear.fit_bayesian_ridge, neg_mse_scorer(linear.predict), X, y, folds))
    if name == "lasso_grid":
        X, y = _regression(n, d, dtype)
        return best(grid_search(linear.fit_lasso, neg_mse_scorer(linear.predict), X, y,
                                {"alpha": grid[: max(2, g // 5)] * 1e-2}, folds, refit=False))
    if name == "logistic_grid":
        X, y = _classes(n, d, 2, dtype)
        return best(grid_search(linear.fit_logistic, log_loss_scorer(linear.predict_proba), X, y,
                                {"l2": grid[: max(2, g // 5)]}, folds, refit=False))
    if name == "softmax_grid":
        X, y = _classes(n, d, 3, dtype)
        return best(grid_search(linear.fit_softmax, log_loss_scorer(linear.predict_proba), X, y,
                                {"l2": grid[: max(2, g // 10)]}, folds, fit_kwargs={"n_classes": 3},
                                refit=False))
    if name == "lda_qda_cv":
        X, y = _classes(n, d, 3, dtype)
        a = cross_validate(discriminant.fit_lda, accuracy_scorer(discriminant.predict), X, y, folds,
                           fit_kwargs={"n_classes": 3})
        b = grid_search(discriminant.fit_qda, accuracy_scorer(discriminant.predict), X, y,
                        {"reg_param": np.linspace(0.01, 0.5, g).astype(dtype)}, folds,
                        fit_kwargs={"n_classes": 3}, refit=False)
        return mean(a) + " / " + best(b)
    if name == "gp_grid":
        X, y = _regression(s["gp_n"], 5, dtype)
        gfolds = _folds(s["gp_n"], k)
        return best(grid_search(gaussian_process.fit_gp, neg_mse_scorer(gaussian_process.predict), X, y,
                                {"length_scale": np.logspace(-1, 1, max(2, g // 5)).astype(dtype)},
                                gfolds, fit_kwargs={"normalize_y": True}, refit=False))
    if name == "gmm_restarts":
        X, _ = _classes(n, min(d, 20), 5, dtype)
        keys = jax.random.split(jax.random.key(0), max(4, g // 5))
        fits = jax.vmap(lambda key: cluster.fit_gmm(jnp.asarray(X), 5, key=key, init="random",
                                                    max_iter=20))(keys)
        return f"lower bounds {np.asarray(fits.lower_bound).round(3).tolist()[:3]}"
    if name == "ridge_tune":
        X, y = _regression(n, d, dtype)
        out = tune_hyperparameters(linear.fit_ridge, neg_mse_scorer(linear.predict), X, y, folds,
                                   {"alpha": 1.0}, n_steps=5)
        return f"alpha {float(np.asarray(out.path['alpha'])[-1]):.4g}"
    raise ValueError(f"unknown path {name!r}")


PATHS = ("ridge_grid", "ols_cv", "bayesian_ridge_cv", "lasso_grid", "logistic_grid", "softmax_grid",
         "lda_qda_cv", "gp_grid", "gmm_restarts", "ridge_tune")

# --------------------------------------------------------------------------- HLO inspection
LAPACK_MIN_WORK = 200_000  # jaxlib's kMinWorkPerTask (cpu/lapack_kernels.cc, 0.10.2)
_OPERAND = re.compile(r'(f32|f64|c64|c128|s32|s64)\[([\d,]*)\]')


def _cost(target, shapes):
    """jaxlib 0.10.2's flop estimate per matrix (``cost_per_matrix``) for ``target``."""
    routine = target[len("lapack_") + 1:].removesuffix("_ffi")
    rows, cols = shapes[0][-2], shapes[0][-1]
    if routine == "potrf":
        return rows ** 3 // 3
    if routine in ("syevd", "heevd"):
        return 5 * cols ** 3
    if routine == "getrf":
        return rows * cols * min(rows, cols)
    if routine == "trsm":
        y_rows, y_cols = shapes[1][-2], shapes[1][-1]
        return y_rows * y_cols * max(y_rows, y_cols)  # the side is not parsed: the larger
    return 10 * rows * cols * min(rows, cols)  # gesdd, geev...: jaxlib's largest factor


def lapack_calls(hlo_text):
    """``[(target, batch, cost)]`` for every LAPACK custom call in an HLO module's text."""
    out = []
    for line in hlo_text.splitlines():
        if 'custom_call_target="lapack_' not in line:
            continue
        target = re.search(r'custom_call_target="(lapack_\w+)"', line).group(1)
        # operand shapes: the layout constraints (the operands themselves print without shapes)
        if "operand_layout_constraints={" not in line:
            continue
        constraints = line.split("operand_layout_constraints={", 1)[1]
        constraints = re.split(r"\}, [a-z_]+=", constraints, maxsplit=1)[0]
        shapes = [tuple(int(v) for v in m.group(2).split(",") if v) for m in _OPERAND.finditer(constraints)]
        if not shapes or len(shapes[0]) < 2:
            continue
        batch = math.prod(shapes[0][:-2])
        out.append((target, batch, _cost(target, shapes)))
    return out


def splits_over_pool(batch, cost):
    """Whether jaxlib 0.10.2 hands this call's chunks to the thread pool (and waits on it)."""
    return batch > 1 and batch * cost >= LAPACK_MIN_WORK


def hlo_check(paths, source=None, size="small"):
    """Run ``paths`` in one fresh process with HLO dumps; returns ``{path: [(target, batch, cost)]}``."""
    found = {}
    for name in paths:
        with tempfile.TemporaryDirectory() as dump:
            env = _child_env(source)
            env["JAXCLASSIC_NO_COMPILATION_CACHE"] = "1"  # a program loaded from disk is not dumped
            env["XLA_FLAGS"] = (env.get("XLA_FLAGS", "") + f" --xla_dump_to={dump} --xla_dump_hlo_as_text"
                                " --xla_dump_hlo_pass_re=^$").strip()
            proc = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", name, "--size", size], env=env, capture_output=True, text=True, timeout=900)
            if proc.returncode != 0:
                raise RuntimeError(f"{name} failed:\n{proc.stderr[-3000:]}")
            calls = []
            for path in glob.glob(os.path.join(dump, "*cpu_after_optimizations.txt")):
                with open(path) as fh:
                    calls += lapack_calls(fh.read())
            found[name] = calls
    return found


# --------------------------------------------------------------------------- the soak
def _child_env(source):
    env = dict(os.environ)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    # the child runs this file as a script: only ``source`` (or this checkout) provides jaxclassic
    env["PYTHONPATH"] = os.pathsep.join(p for p in (source or root, env.get("PYTHONPATH")) if p)
    env.pop("SOAK_SOURCE", None)
    if source:
        env["SOAK_SOURCE"] = os.path.abspath(source)
    return env


def _cpu_seconds(pid):
    try:
        with open(f"/proc/{pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return None


def soak_one(name, source, idle, timeout):
    """One fresh process for path ``name``: ``("ok" | "hung" | "failed", seconds, tail)``."""
    proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--child", name, "--size", "full"], env=_child_env(source), stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    start = last_change = time.monotonic()
    last_cpu = -1.0
    status = None
    while proc.poll() is None:
        time.sleep(1.0)
        now = time.monotonic()
        cpu = _cpu_seconds(proc.pid)
        if cpu is not None and cpu > last_cpu + 0.05:
            last_cpu, last_change = cpu, now
        if now - last_change > idle or now - start > timeout:
            status = "hung"
            proc.send_signal(signal.SIGUSR1)  # the child's faulthandler prints its Python stack
            time.sleep(2.0)
            proc.kill()
            break
    out = proc.communicate()[0] or ""
    if status is None:
        status = "ok" if proc.returncode == 0 else "failed"
    return status, time.monotonic() - start, out.strip().splitlines()[-12:]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--paths", default=",".join(PATHS))
    parser.add_argument("--idle", type=float, default=30.0, help="seconds without CPU = hung")
    parser.add_argument("--timeout", type=float, default=900.0)
    parser.add_argument("--source", default=None, help="import jaxclassic from this folder")
    parser.add_argument("--hlo", action="store_true", help="the static check of the LAPACK calls")
    parser.add_argument("--quick", action="store_true", help="the benchmark tier: --hlo on two paths")
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--size", default="full", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.child:
        import faulthandler

        source = os.environ.get("SOAK_SOURCE")
        if source:
            # an editable install's finder (pip install -e) would still import this checkout
            sys.meta_path[:] = [f for f in sys.meta_path
                                if "__editable__" not in getattr(f, "__module__", "")]
            sys.path.insert(0, source)
        import jaxclassic

        print(f"jaxclassic from {os.path.dirname(jaxclassic.__file__)}", flush=True)

        faulthandler.register(signal.SIGUSR1, all_threads=True)
        t = time.perf_counter()
        print(f"{args.child}: {run_path(args.child, args.size)} in {time.perf_counter() - t:.1f} s",
              flush=True)
        return 0

    paths = args.paths.split(",")
    if args.hlo or args.quick:
        paths = ["ridge_grid", "lda_qda_cv"] if args.quick else paths
        bad = 0
        print(f"{'path':<18} {'LAPACK calls':>12} {'split over pool':>16}  largest batch x cost")
        for name, calls in hlo_check(paths, args.source).items():
            unsafe = [c for c in calls if splits_over_pool(c[1], c[2])]
            bad += len(unsafe)
            worst = max(calls, key=lambda c: c[1] * c[2], default=None)
            print(f"{name:<18} {len(calls):>12} {len(unsafe):>16}  "
                  + (f"{worst[0]} {worst[1]} x {worst[2]}" if worst else "-"))
        print(f"{bad} LAPACK call(s) jaxlib would split over the thread pool")
        return 1 if bad else 0

    print(f"soak: {args.runs} fresh processes per path; hung = no CPU for {args.idle:.0f} s "
          f"or over {args.timeout:.0f} s; source = {args.source or 'this checkout'}", flush=True)
    total_hung = 0
    for name in paths:
        counts = {"ok": 0, "hung": 0, "failed": 0}
        times = []
        for i in range(args.runs):
            status, seconds, tail = soak_one(name, args.source, args.idle, args.timeout)
            counts[status] += 1
            times.append(seconds)
            if status != "ok":
                print(f"  {name} run {i}: {status} after {seconds:.0f} s\n    " + "\n    ".join(tail),
                      flush=True)
        total_hung += counts["hung"]
        print(f"{name:<18} ok {counts['ok']:>2}  hung {counts['hung']:>2}  failed {counts['failed']:>2}"
              f"  median {sorted(times)[len(times) // 2]:.1f} s", flush=True)
    print(f"total hung: {total_hung}")
    return 1 if total_hung else 0


if __name__ == "__main__":
    sys.exit(main())
