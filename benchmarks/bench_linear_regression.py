"""Least squares at scale: OLS against numpy / scikit-learn and against the machine's matmul
rate, and a ridge cross-validation grid in one vmapped call against ``GridSearchCV(Ridge)``.

Cases (full size; quick mode in brackets, seconds in all):

* **OLS** on 1,000,000 × 100 float32 [20,000 × 20] Gaussian data with an intercept:
  ``fit_ols`` (Cholesky of the centred Gram matrix) vs ``numpy.linalg.lstsq`` on ``[1, X]`` and
  ``sklearn.linear_model.LinearRegression`` (both float32 on the same array). The issue's
  target is the time of one ``XᵀX`` product at this machine's measured matrix-multiply rate
  (``benchmarks._harness.matmul_rate``, measured in the same run): ``2 n d² / rate``; we report
  our time over it (target ≤ 2) and also the measured time of a jitted ``X.T @ X``.
  Agreement: the largest coefficient difference relative to the largest coefficient, vs
  scikit-learn.
* **Ridge grid**: 10,000 × 100 [600 × 10] regression (``make_regression``, 10 informative
  features, noise 10, effective rank 20: the best λ, ~0.3, is inside the grid), 100 values of
  λ log-spaced 1e-2 .. 1e4 [8] × 10
  [5] folds. Ours: ONE jitted call that ``vmap``s :func:`jaxclassic.linear.ridge_path` over
  the K fold weight vectors (one eigendecomposition of the training Gram per fold, shared by
  every λ) and scores the validation MSE of all K × G fits; scikit-learn: ``GridSearchCV`` of
  ``Ridge`` (default solver, one process) on exactly the same folds, scored by MSE. Target:
  ≥ 20× faster, the same chosen λ.

Compile time is reported apart (first call minus the median run).
"""

from __future__ import annotations

import numpy as np

from benchmarks._harness import Result, matmul_rate, time_host, time_jax

__all__ = ["run"]


def _fold_weights(n_samples: int, n_folds: int, seed: int = 0) -> np.ndarray:
    """K × n 0/1 training masks of a shuffled K-fold partition (fold k's rows have weight 0)."""
    fold_of = np.empty(n_samples, dtype=np.int64)
    fold_of[np.random.RandomState(seed).permutation(n_samples)] = np.arange(n_samples) % n_folds
    return (fold_of[None, :] != np.arange(n_folds)[:, None]).astype(np.float64)


def _ols_case(quick: bool) -> list[Result]:
    import jax
    import jax.numpy as jnp
    from sklearn.linear_model import LinearRegression

    from jaxclassic.linear import fit_ols
    from jaxclassic.linear.ols import _fit_ols

    n, d = (20_000, 20) if quick else (1_000_000, 100)
    rng = np.random.default_rng(0)
    X = rng.standard_normal((n, d), dtype=np.float32)
    y = (X @ rng.standard_normal(d, dtype=np.float32) + 3.0
         + rng.standard_normal(n, dtype=np.float32)).astype(np.float32)
    Xj, yj = jnp.asarray(X), jnp.asarray(y)
    repeats = 3 if quick else 5

    params, compile_s, ours_s = time_jax(lambda: fit_ols(Xj, yj), repeats=repeats)
    # the jitted core alone: the public fit adds input validation (a host round trip of X)
    weights = jnp.ones(n, Xj.dtype)
    rcond = jnp.asarray(10 * d * np.finfo(np.float32).eps, Xj.dtype)
    _, _, core_s = time_jax(lambda: _fit_ols(Xj, yj, weights, rcond, fit_intercept=True),
                            repeats=repeats)
    gram = jax.jit(lambda A: A.T @ A)
    _, _, gram_s = time_jax(lambda: gram(Xj), repeats=repeats)
    rate = matmul_rate(1000 if quick else 2000)
    gram_at_rate_s = 2.0 * n * d * d / rate

    ref, sk_s = time_host(lambda: LinearRegression().fit(X, y), repeats=1 if not quick else 3)
    A = np.concatenate([np.ones((n, 1), np.float32), X], axis=1)
    theta, np_s = time_host(lambda: np.linalg.lstsq(A, y, rcond=None)[0], repeats=1 if not quick else 3)
    del A
    coef = np.asarray(params.coef)
    scale = np.abs(ref.coef_).max()
    vs_sk = float(np.abs(coef - ref.coef_).max() / scale)
    vs_np = float(np.abs(coef - theta[1:]).max() / scale)
    case = f"OLS {n:,}x{d} float32"
    extra = {"matmul_rate_gflops": rate / 1e9, "gram_at_rate_s": gram_at_rate_s,
             "gram_measured_s": gram_s, "core_s": core_s, "public_s": ours_s,
             "core_over_gram_at_rate": core_s / gram_at_rate_s,
             "public_over_gram_at_rate": ours_s / gram_at_rate_s,
             "target": "ours / gram_at_rate <= 2"}
    return [
        Result("linear_regression", case, ours_s, sk_s, compile_s, metric="max |dcoef|/max|coef|",
               ours_quality=vs_sk, ref_quality=0.0, reference="sklearn LinearRegression",
               agreement=f"{vs_sk:.1e}", extra=extra),
        Result("linear_regression", case, ours_s, np_s, compile_s, metric="max |dcoef|/max|coef|",
               ours_quality=vs_np, ref_quality=0.0, reference="numpy lstsq",
               agreement=f"{vs_np:.1e}", extra=extra),
        Result("linear_regression", f"{case}: one X^T X at {rate / 1e9:.0f} GFLOP/s", ours_s,
               gram_at_rate_s, None, metric="ours / XtX time (target <= 2)",
               ours_quality=ours_s / gram_at_rate_s, reference="2nd^2/matmul_rate",
               agreement=f"measured jit X.T@X {gram_s:.3g}s (ours/that {ours_s / gram_s:.2f})",
               extra=extra),
        Result("linear_regression", f"{case}: jitted core (no validation) vs one X^T X", core_s,
               gram_at_rate_s, None, metric="core / XtX time (target <= 2)",
               ours_quality=core_s / gram_at_rate_s, reference="2nd^2/matmul_rate",
               agreement=f"core/measured X.T@X {core_s / gram_s:.2f}", extra=extra),
    ]


def _ridge_grid_case(quick: bool) -> Result:
    import jax
    import jax.numpy as jnp
    from sklearn.datasets import make_regression
    from sklearn.linear_model import Ridge
    from sklearn.model_selection import GridSearchCV

    from jaxclassic.linear import ridge_path

    n, d, k, g = (600, 10, 5, 8) if quick else (10_000, 100, 10, 100)
    X, y = make_regression(n_samples=n, n_features=d, n_informative=10, noise=10.0,
                           effective_rank=20, random_state=0)
    alphas = np.logspace(-2, 4, g)
    train = _fold_weights(n, k)
    folds = [(np.flatnonzero(t), np.flatnonzero(1 - t)) for t in train]
    dtype = jnp.float64 if jax.config.read("jax_enable_x64") else jnp.float32
    Xj, yj = jnp.asarray(X, dtype), jnp.asarray(y, dtype)
    Wj, Aj = jnp.asarray(train, dtype), jnp.asarray(alphas, dtype)

    @jax.jit
    def cv_mse(X, y, train_weights, alphas):
        def one_fold(w):
            path = ridge_path(X, y, alphas, sample_weight=w)
            pred = X @ path.coef.T + path.intercept  # (n, G)
            held_out = 1 - w
            return (held_out @ jnp.square(y[:, None] - pred)) / jnp.sum(held_out)
        return jnp.mean(jax.vmap(one_fold)(train_weights), axis=0)  # (G,)

    scores, compile_s, ours_s = time_jax(lambda: cv_mse(Xj, yj, Wj, Aj), repeats=3 if quick else 5)
    search = GridSearchCV(Ridge(), {"alpha": alphas}, cv=folds, scoring="neg_mean_squared_error")
    ref, ref_s = time_host(lambda: search.fit(X, y), repeats=1 if not quick else 2)
    ours_alpha = float(alphas[int(jnp.argmin(scores))])
    ref_alpha = float(ref.best_params_["alpha"])
    same = bool(np.isclose(ours_alpha, ref_alpha, rtol=1e-9))
    return Result(
        "linear_regression", f"ridge CV {g} lambda x {k} folds, {n:,}x{d}, one vmapped call",
        ours_s, ref_s, compile_s, metric="chosen lambda", ours_quality=ours_alpha,
        ref_quality=ref_alpha, reference="sklearn GridSearchCV(Ridge)",
        agreement="same choice" if same else "DIFFERENT",
        extra={"best_mse_ours": float(jnp.min(scores)), "best_mse_ref": float(-ref.best_score_),
               "target": "ratio >= 20"},
    )


def run(quick: bool) -> list[Result]:
    return _ols_case(quick) + [_ridge_grid_case(quick)]
