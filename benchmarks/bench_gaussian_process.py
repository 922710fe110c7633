"""Gaussian process regression vs scikit-learn's ``GaussianProcessRegressor``: fit, predict, optimise.

Friedman #1 (``make_friedman1``, 10 features, noise 1; full: 5,000 training rows, 1,000
queries, 2 optimiser iterations; quick: 300, 100 and 3), float64 on both sides (a ``jax.enable_x64`` scope), covariance
``c * RBF(l) + white noise s`` with ``normalize_y``:

* fit with fixed hyperparameters (``fit_gp`` vs ``optimizer=None``): the Gram matrix, its
  Cholesky factor and ``alpha``; quality: the log marginal likelihood of each side;
* predict mean and standard deviation at the queries; agreement: the largest difference of the
  means;
* a few optimiser iterations from the same start (``optimize_hyperparameters(max_iter=k)``,
  optax L-BFGS with its zoom line search, vs scikit-learn with scipy's L-BFGS-B limited to
  ``maxiter=k``): the two take different line searches, so each side's quality is the log
  marginal likelihood it reached (scikit-learn's time also holds its final factorisation at the
  optimum, one Cholesky more than ours).

Ours is timed through the public functions on jax arrays (validation included), compile apart.
"""

from __future__ import annotations

import numpy as np

from benchmarks._harness import Result, time_host, time_jax

__all__ = ["run"]

HYPER = dict(amplitude=1.0, length_scale=2.0, noise=0.1)


def run(quick: bool) -> list[Result]:
    import jax
    import jax.numpy as jnp
    import scipy.optimize
    from sklearn.datasets import make_friedman1
    from sklearn.gaussian_process import GaussianProcessRegressor
    from sklearn.gaussian_process import kernels as sk_kernels

    from jaxclassic import gaussian_process as G

    n, m, iters = (300, 100, 3) if quick else (5_000, 1_000, 2)
    repeats = 2 if quick else 1  # full: one timed run after the compiling one (minutes each)
    X, y = make_friedman1(n_samples=n + m, n_features=10, noise=1.0, random_state=0)
    Xtr, ytr, Xte = X[:n], y[:n], X[n:]
    kernel = (sk_kernels.ConstantKernel(HYPER["amplitude"]) * sk_kernels.RBF(HYPER["length_scale"])
              + sk_kernels.WhiteKernel(HYPER["noise"]))

    def sk_optimizer(obj_func, theta, bounds):
        res = scipy.optimize.minimize(obj_func, theta, method="L-BFGS-B", jac=True, bounds=bounds,
                                      options={"maxiter": iters})
        return res.x, res.fun

    results = []
    with jax.enable_x64(True):
        Xj, yj, Qj = jnp.asarray(Xtr), jnp.asarray(ytr), jnp.asarray(Xte)
        params, compile_s, ours_s = time_jax(lambda: G.fit_gp(Xj, yj, normalize_y=True, **HYPER), repeats)
        ref, ref_s = time_host(lambda: GaussianProcessRegressor(kernel, optimizer=None, normalize_y=True)
                               .fit(Xtr, ytr), repeats)
        lml = float(params.log_marginal_likelihood_value)
        results.append(Result(
            benchmark="gaussian_process", case=f"fit (fixed hyperparameters) {n}x10 float64", ours_s=ours_s,
            ref_s=ref_s, compile_s=compile_s, metric="log marginal likelihood", ours_quality=lml,
            ref_quality=float(ref.log_marginal_likelihood_value_), reference="scikit-learn",
            agreement=f"|dLML|={abs(lml - ref.log_marginal_likelihood_value_):.1e}"))

        (mean, std), compile_s, ours_s = time_jax(lambda: G.predict(params, Qj, return_std=True,
                                                                    include_noise=True), repeats)
        (ref_mean, ref_std), ref_s = time_host(lambda: ref.predict(Xte, return_std=True), repeats)
        results.append(Result(
            benchmark="gaussian_process", case=f"predict mean+std {m} queries", ours_s=ours_s, ref_s=ref_s,
            compile_s=compile_s, metric="max std", ours_quality=float(jnp.max(std)),
            ref_quality=float(np.max(ref_std)), reference="scikit-learn",
            agreement=f"max|dmean|={float(np.max(np.abs(np.asarray(mean) - ref_mean))):.1e}"))

        init = G.GPKernel(**HYPER)
        res, compile_s, ours_s = time_jax(lambda: G.optimize_hyperparameters(
            Xj, yj, init=init, normalize_y=True, max_iter=iters, tol=0.0), repeats)
        opt, ref_s = time_host(lambda: GaussianProcessRegressor(kernel, optimizer=sk_optimizer, normalize_y=True)
                               .fit(Xtr, ytr), repeats)
        results.append(Result(
            benchmark="gaussian_process", case=f"optimise ({iters} L-BFGS iterations) {n}x10",
            ours_s=ours_s, ref_s=ref_s, compile_s=compile_s, metric="log marginal likelihood reached",
            ours_quality=float(res.log_marginal_likelihood),
            ref_quality=float(opt.log_marginal_likelihood_value_), reference="scikit-learn",
            agreement=f"iterations {int(res.n_iter[0])} vs {iters} max"))
    return results
