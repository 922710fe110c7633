"""Logistic regression by Newton's method vs scikit-learn; softmax on digits.

Binary logistic (full: 200,000 x 100; quick: 4,000 x 20), float32, ``C = 1`` (``l2 = 1``) on
two designs with the same true coefficients: ``iid`` (independent standard normal features,
well conditioned) and ``ar1`` (AR(1) correlation 0.9 between neighbouring features, condition
number of the covariance ~ 19, the kind of design where first-order methods need many more
iterations while Newton's cost per step does not change). Our side: ``fit_logistic`` (Newton,
default tol) through the public fit; the references: scikit-learn ``LogisticRegression`` with
``lbfgs`` and ``newton-cholesky`` at their default tolerances, on the same float32 array.
Quality: the penalised objective per sample J/n (mean training log-loss + |w|^2 / 2n, what
both sides minimise), computed in float64 from the returned coefficients; ``dJ/n`` <= 0 means
ours reached at least scikit-learn's objective (its lbfgs stops at tol 1e-4 on the
projected gradient, often short of the optimum).

The floor of one Newton step is one X^T W X product (2 n (d+1)^2 flops) at this machine's measured
matrix-multiply rate plus two passes over X at its measured memory bandwidth; both are
measured in the same run (``benchmarks._harness.matmul_rate`` / ``memory_bandwidth``) and each
row's ``extra`` reports the time per Newton step and the fraction of it the floor explains.

Softmax: multinomial ``fit_softmax`` on digits (1797 x 64, standardised, float32; C (d + 1) =
650), by Newton (the full 650 x 650 Hessian) and by L-BFGS, vs scikit-learn's multinomial
``LogisticRegression`` (lbfgs, default tol).

Peak memory (full: 1,000,000 x 100; quick: 50,000 x 50; float32): each side fits in a fresh
subprocess (``python -m benchmarks.bench_logistic --memory SIDE N D``) that builds ``X`` in
chunks, then reports its peak resident set (``VmHWM``, reset through ``/proc/self/clear_refs``
when the kernel allows, else the peak before the fit) minus its resident set just before the
fit, in units of ``X.nbytes``: the memory a fit needs beyond the caller's ``X``. Sides: the
functional ``fit_logistic`` on ``jax.device_put(X)``, the estimator
``jaxclassic.estimators.LogisticRegression`` on the numpy ``X``, and scikit-learn's
``LogisticRegression`` (lbfgs, and newton-cholesky at full size).

Measured on this 2-core machine (1,000,000 x 100, X = 381 MB; figures beyond X):
``LogisticRegression`` estimator 850 MB (2.23 X), ``fit_logistic`` 821 MB (2.15 X): the
estimator layer's own share is 29 MB (0.08 X). Newton then stopped materialising its
standardised copy of X (blocked standardised products): ``fit_logistic`` 460 MB (1.2 X, of
which 1 X is ``device_put``'s copy). Before the layer stopped padding a large X
(a concatenated copy) and converting it with ``jnp.asarray`` (a second, transient copy), it was
1210 MB against fit_logistic's 450 MB at that time: 760 MB (2.0 X) of its own. scikit-learn:
lbfgs ~0 MB, newton-cholesky 384 MB (1.0 X).

On a shared machine run with ``OPENBLAS_NUM_THREADS=1``: multi-threaded OpenBLAS (scikit-learn's
numpy / scipy, and jax's LAPACK Cholesky) spin-waits when the cores are oversubscribed and
turns millisecond calls into seconds, on both sides.
"""

from __future__ import annotations

import numpy as np

from benchmarks._harness import Result, last_cpu_use, matmul_rate, memory_bandwidth, time_host, time_jax

__all__ = ["run"]


def _design(kind: str, n: int, d: int, rng) -> np.ndarray:
    Z = rng.standard_normal((n, d))
    if kind == "ar1":
        rho = 0.9
        X = np.empty_like(Z)
        X[:, 0] = Z[:, 0]
        for j in range(1, d):  # X_j = rho X_{j-1} + sqrt(1 - rho^2) Z_j: unit variance
            X[:, j] = rho * X[:, j - 1] + np.sqrt(1 - rho**2) * Z[:, j]
        return X
    return Z


def _objective(X, y, coef, intercept, l2=1.0) -> float:
    """J / n = mean log-loss + (l2 / 2n) |w|^2, in float64: what both sides minimise."""
    coef = np.asarray(coef, np.float64).reshape(-1)
    f = X.astype(np.float64) @ coef + float(np.asarray(intercept).reshape(-1)[0])
    return float(np.mean(np.logaddexp(0.0, f) - y * f) + 0.5 * l2 * coef @ coef / len(y))


def _logistic(quick: bool) -> list[Result]:
    import jax.numpy as jnp
    from sklearn.linear_model import LogisticRegression

    from jaxclassic.linear import fit_logistic

    n, d = (4_000, 20) if quick else (200_000, 100)
    rate = matmul_rate(n=500 if quick else 2000)
    bandwidth = memory_bandwidth(n_bytes=40_000_000 if quick else 400_000_000)
    rng = np.random.default_rng(0)
    w_true = rng.standard_normal(d) * (2.0 / np.sqrt(d))
    results = []
    for kind in ("iid", "ar1"):
        X = _design(kind, n, d, rng)
        f = X @ w_true / np.std(X @ w_true) * 1.5 + 0.3  # a logit of sd 1.5: not separable
        y = (rng.random(n) < 1 / (1 + np.exp(-f))).astype(np.int32)
        X = X.astype(np.float32)
        Xj, yj = jnp.asarray(X), jnp.asarray(y)
        params, compile_s, ours_s = time_jax(lambda: fit_logistic(Xj, yj, l2=1.0), repeats=3 if quick else 5)
        ours_cpu = last_cpu_use()
        n_iter = int(params.n_iter)
        ours_loss = _objective(X, y, params.coef, params.intercept)
        step_s = ours_s / max(n_iter, 1)
        floor_s = 2.0 * n * (d + 1) ** 2 / rate + 2 * X.nbytes / bandwidth
        extra = {
            "newton_iters": n_iter, "converged": bool(params.converged),
            "grad_norm_history": [float(g) for g in np.asarray(params.grad_norm_history)[:n_iter]],
            "s_per_newton_step": step_s, "floor_s_per_step": floor_s,
            "floor_fraction_of_step": floor_s / step_s,
            "matmul_gflops": rate / 1e9, "bandwidth_gb_s": bandwidth / 1e9,
        }
        for solver in ("lbfgs", "newton-cholesky"):
            ref, ref_s = time_host(lambda: LogisticRegression(C=1.0, solver=solver, max_iter=1000).fit(X, y),
                                   repeats=1 if quick else 3)
            ref_cpu = last_cpu_use()
            ref_loss = _objective(X, y, ref.coef_, ref.intercept_)
            results.append(Result(
                benchmark="logistic", case=f"newton {n}x{d} {kind} f32 ({n_iter} it)", ours_s=ours_s,
                ref_s=ref_s, compile_s=compile_s, metric="J/n", ours_quality=ours_loss,
                ref_quality=ref_loss, reference=f"sklearn {solver} ({int(ref.n_iter_[0])} it)",
                agreement=f"dJ/n={ours_loss - ref_loss:+.1e} floor/step={floor_s / step_s:.2f}",
                extra=dict(extra, ref_iters=int(ref.n_iter_[0])), ours_cpu=ours_cpu, ref_cpu=ref_cpu))
    return results


def _softmax(quick: bool) -> list[Result]:
    import jax.numpy as jnp
    from sklearn.datasets import load_digits
    from sklearn.linear_model import LogisticRegression

    from jaxclassic.linear import fit_softmax, predict_proba

    X, y = load_digits(return_X_y=True)
    if quick:
        X, y = X[:600], y[:600]
    X = ((X - X.mean(0)) / np.where(X.std(0) > 0, X.std(0), 1.0)).astype(np.float32)
    Xj, yj = jnp.asarray(X), jnp.asarray(y.astype(np.int32))
    rows = np.arange(len(y))

    def objective(W, b):  # J / n in float64
        W = np.asarray(W, np.float64)
        F = X.astype(np.float64) @ W.T + np.asarray(b, np.float64)
        F -= F.max(axis=1, keepdims=True)
        loss = np.log(np.exp(F).sum(axis=1)) - F[rows, y]
        return float(np.mean(loss) + 0.5 * np.sum(W * W) / len(y))

    ref, ref_s = time_host(lambda: LogisticRegression(C=1.0, max_iter=1000).fit(X, y),
                           repeats=1 if quick else 3)
    ref_loss = objective(ref.coef_, ref.intercept_)
    ref_proba = ref.predict_proba(X)
    results = []
    for method in ("newton", "lbfgs"):
        params, compile_s, ours_s = time_jax(
            lambda: fit_softmax(Xj, yj, n_classes=10, l2=1.0, method=method, max_iter=500),
            repeats=2 if quick else 5)
        proba = np.asarray(predict_proba(params, Xj), np.float64)
        ours_loss = objective(params.coef, params.intercept)
        results.append(Result(
            benchmark="logistic",
            case=f"softmax {method} digits {X.shape[0]}x{X.shape[1]} C=10 f32 ({int(params.n_iter)} it)",
            ours_s=ours_s, ref_s=ref_s, compile_s=compile_s, metric="J/n", ours_quality=ours_loss,
            ref_quality=ref_loss, reference=f"sklearn lbfgs ({int(ref.n_iter_[0])} it)",
            agreement=f"dJ/n={ours_loss - ref_loss:+.1e} max|dp|={np.max(np.abs(proba - ref_proba)):.1e}"))
    return results


def _rss_mb() -> dict:
    with open("/proc/self/status") as f:
        fields = dict(line.split(":", 1) for line in f if line.startswith(("VmRSS", "VmHWM")))
    return {k: int(v.split()[0]) / 1024 for k, v in fields.items()}


def _reset_peak() -> bool:
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")  # Linux >= 4.0: reset VmHWM to the current resident set
        return True
    except OSError:
        return False


def _problem(n: int, d: int, seed: int):
    rng = np.random.default_rng(seed)
    X = np.empty((n, d), np.float32)
    for start in range(0, n, 65536):  # in chunks: no float64 temporary of the whole X
        X[start:start + 65536] = rng.standard_normal((min(65536, n - start), d), dtype=np.float32)
    w = np.linspace(-1.0, 1.0, d, dtype=np.float32)
    y = (rng.random(n, dtype=np.float32) < 1 / (1 + np.exp(-(X @ w)))).astype(np.int32)
    return X, y


def _memory_child(side: str, n: int, d: int) -> None:
    """Fit one side on a fresh n x d float32 problem; print a JSON line of its memory figures.

    XLA's CPU client keeps the memory it freed, so a second fit of the same shapes shows no
    growth at all; and the first call's peak includes the compiler's. So the process first
    fits a problem of n / 16 rows (compiling a program of the same structure, whose heap the
    compiler reuses), then the peak is reset and the n-row fit measured: its figure is the
    memory of the fit itself plus the little extra its own compilation needs (an
    underestimate by at most the n / 16 fit's data, which may be reused: <= 1/16).
    """
    import json
    import time

    import jax

    if side == "functional":
        from jaxclassic.linear import fit_logistic

        def fit(X, y):
            return jax.block_until_ready(fit_logistic(jax.device_put(X), jax.device_put(y), l2=1.0))
    elif side == "estimator":
        from jaxclassic.estimators import LogisticRegression

        def fit(X, y):
            return LogisticRegression(C=1.0).fit(X, y)
    else:
        from sklearn.linear_model import LogisticRegression as SkLogistic

        def fit(X, y):
            return SkLogistic(C=1.0, solver=side, max_iter=1000).fit(X, y)
    fit(*_problem(max(n // 16, 2 * d), d, 1))  # warm-up: compile
    X, y = _problem(n, d, 0)
    before = _rss_mb()
    reset = _reset_peak()
    baseline = before["VmRSS"] if reset else before["VmHWM"]
    t0 = time.perf_counter()
    fit(X, y)
    seconds = time.perf_counter() - t0
    print(json.dumps({"side": side, "x_mb": X.nbytes / 2**20, "over_mb": _rss_mb()["VmHWM"] - baseline,
                      "seconds": seconds, "peak_reset": reset}))


def _measure_memory(side: str, n: int, d: int) -> dict:
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")]))
    out = subprocess.run([sys.executable, "-m", "benchmarks.bench_logistic", "--memory", side,
                          str(n), str(d)], capture_output=True, text=True, cwd=root, env=env,
                         check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _memory(quick: bool) -> list[Result]:
    n, d = (50_000, 50) if quick else (1_000_000, 100)
    est = _measure_memory("estimator", n, d)
    fun = _measure_memory("functional", n, d)
    x_mb = est["x_mb"]
    results = []
    for solver in ("lbfgs",) if quick else ("lbfgs", "newton-cholesky"):
        ref = _measure_memory(solver, n, d)
        results.append(Result(
            benchmark="logistic", case=f"peak memory beyond X, {n}x{d} f32 (X = {x_mb:.0f} MB)",
            # the measured fit compiles its own shape: its time is no speed figure, so no ratio
            ours_s=est["seconds"], ref_s=None, metric="peak/X (estimator)",
            ours_quality=est["over_mb"] / x_mb, ref_quality=ref["over_mb"] / x_mb,
            reference=f"sklearn {solver}",
            agreement=(f"estimator {est['over_mb']:.0f} MB, fit_logistic {fun['over_mb']:.0f} MB "
                       f"({fun['over_mb'] / x_mb:.2f} X), sklearn {ref['over_mb']:.0f} MB"),
            extra={"estimator": est, "functional": fun, "sklearn": ref}))
    return results


def run(quick: bool) -> list[Result]:
    return _logistic(quick) + _softmax(quick) + _memory(quick)


if __name__ == "__main__":
    import sys

    if len(sys.argv) == 5 and sys.argv[1] == "--memory":
        _memory_child(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
