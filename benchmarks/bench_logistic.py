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

On a shared machine run with ``OPENBLAS_NUM_THREADS=1``: multi-threaded OpenBLAS (scikit-learn's
numpy / scipy, and jax's LAPACK Cholesky) spin-waits when the cores are oversubscribed and
turns millisecond calls into seconds, on both sides.
"""

from __future__ import annotations

import numpy as np

from benchmarks._harness import Result, matmul_rate, memory_bandwidth, time_host, time_jax

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
            ref_loss = _objective(X, y, ref.coef_, ref.intercept_)
            results.append(Result(
                benchmark="logistic", case=f"newton {n}x{d} {kind} f32 ({n_iter} it)", ours_s=ours_s,
                ref_s=ref_s, compile_s=compile_s, metric="J/n", ours_quality=ours_loss,
                ref_quality=ref_loss, reference=f"sklearn {solver} ({int(ref.n_iter_[0])} it)",
                agreement=f"dJ/n={ours_loss - ref_loss:+.1e} floor/step={floor_s / step_s:.2f}",
                extra=dict(extra, ref_iters=int(ref.n_iter_[0]))))
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


def run(quick: bool) -> list[Result]:
    return _logistic(quick) + _softmax(quick)
