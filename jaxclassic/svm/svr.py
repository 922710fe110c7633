r"""Kernel ε-support vector regression (ε-SVR) by SMO: :func:`fit_kernel_svr`.

With targets :math:`z_i`, weights :math:`s_i` and a kernel :math:`K`, ε-SVR

.. math::

    \min_{w, b}\ \tfrac12\lVert w\rVert^2 + C\sum_i s_i \max(0, |w^\top\phi(x_i) + b - z_i| - \varepsilon)

has the dual over :math:`2n` variables :math:`(\alpha, \alpha^*)` (Vapnik 1995; Smola &
Schölkopf 2004), in LIBSVM's form (``solve_epsilon_svr``)

.. math::

    \min\ \tfrac12 (\alpha - \alpha^*)^\top K (\alpha - \alpha^*)
    + \varepsilon\sum_i(\alpha_i + \alpha_i^*) - \sum_i z_i(\alpha_i - \alpha_i^*)
    \quad\text{s.t.}\quad \sum_i(\alpha_i - \alpha_i^*) = 0,\ 0 \le \alpha_i, \alpha_i^* \le C s_i,

i.e. the QP of :mod:`jaxclassic.svm._smo` with signs :math:`y = (+1, \dots, -1, \dots)`, linear
term :math:`p = (\varepsilon - z, \varepsilon + z)` and variable :math:`t` reading the kernel row
of sample :math:`t \bmod n` (``doubled``): the same SMO, the same working-set selection, the
same kernel-row storage as :func:`jaxclassic.svm.fit_kernel_svm`. The prediction is
:math:`f(x) = \sum_i (\alpha_i - \alpha_i^*) K(x_i, x) + b`, :math:`b = -\rho`.

Derivatives (issue 14): ``dual_coef`` and ``intercept`` are differentiable in ``X``, ``y``,
``sample_weight``, ``C``, ``epsilon``, ``gamma`` and ``coef0``: the KKT system on the free
variables of the same dual (:func:`jaxclassic.svm._optimality.dual_qp`), as for C-SVC.

References
----------
Smola & Schölkopf, "A tutorial on support vector regression", Statistics and Computing 14
(2004).
Chang & Lin, "LIBSVM: a library for support vector machines", ACM TIST 2 (2011), §2.4, §4.
"""

from __future__ import annotations

from functools import partial
from typing import NamedTuple

import jax
import jax.numpy as jnp

from jaxclassic import _jit, _progress
from jaxclassic._implicit import with_implicit_derivatives
from jaxclassic.svm import _optimality, _smo
from jaxclassic.svm._api import decision_function, predict, support_vectors
from jaxclassic.svm.kernel import (
    DEFAULT_BATCH_SIZE,
    DEFAULT_MAX_ITER,
    STORAGES,
    KernelSpec,
    build_oracle,
    check_callable_kernel,
    check_C,
    check_kernel_args,
    choose_storage,
    choose_working_set,
    _support_vectors,
    decision_values,
    resolve_gamma,
    row_block,
    warn_not_converged,
)
from jaxclassic.validation import (
    check_array,
    check_bool,
    check_choice,
    check_consistent_length,
    check_int,
    check_predict_X,
    check_sample_weight,
    check_scalar,
)

__all__ = ["KernelSVRParams", "fit_kernel_svr"]


class KernelSVRParams(NamedTuple):
    r"""A fitted ε-SVR, :math:`f(x) = \sum_i` ``dual_coef[i]`` :math:`K(x_i, x)` + ``intercept``.

    Attributes
    ----------
    X_fit : (n, d) array
        The training rows.
    dual_coef : (n,) array
        :math:`\alpha_i - \alpha_i^*` (0 off the support; :math:`|\cdot| \le C s_i`).
    intercept : scalar array
        :math:`b = -\rho`.
    gamma, coef0 : scalar arrays
    dual_objective : scalar array
        The dual objective (module docstring) at the solution.
    n_iter, converged, error
        As :class:`jaxclassic.svm.kernel.KernelSVMParams`.
    kernel : KernelSpec
    """

    X_fit: jax.Array
    dual_coef: jax.Array
    intercept: jax.Array
    gamma: jax.Array
    coef0: jax.Array
    dual_objective: jax.Array
    n_iter: jax.Array
    converged: jax.Array
    error: jax.Array
    kernel: KernelSpec


@partial(_jit.jit, static_argnames=("spec", "storage", "cache_rows", "memory_budget", "working_set",
                                   "batch_size", "progress"))
def _fit(X, z, sw, C, epsilon, gamma, coef0, tol, max_iter, *, spec, storage, cache_rows, memory_budget,
         working_set, batch_size, progress=None):
    n = X.shape[0]
    # the solver sees no tangent; (alpha, alpha*, b) get the implicit derivatives of the dual's
    # KKT system on the free support vectors in X, z, the weights, C, epsilon, gamma, coef0
    hyper = (X, z, sw, C, epsilon, gamma, coef0)
    X, z, sw, C, epsilon, gamma, coef0 = jax.lax.stop_gradient(hyper)
    oracle, QD = build_oracle(spec, X, gamma, coef0, storage, cache_rows, memory_budget)
    signs = jnp.concatenate([jnp.ones(n, X.dtype), -jnp.ones(n, X.dtype)])
    problem = _svr_problem(z, sw, C, epsilon, signs)
    res = _smo.solve(problem, oracle, jnp.concatenate([QD, QD]), tol=tol, max_iter=max_iter,
                     doubled=True, working_set=working_set, batch_size=batch_size, progress=progress)
    alpha, intercept = with_implicit_derivatives(partial(_svr_optimality, spec=spec, signs=signs),
                                                 (res.alpha, -res.rho), *hyper)
    coef = alpha[:n] - alpha[n:]
    X, _, _, _, _, gamma, coef0 = hyper
    return KernelSVRParams(X, coef, intercept, gamma, coef0, res.objective, res.n_iter, res.converged,
                           res.gap, spec)


def _svr_problem(z, sw, C, epsilon, signs):
    upper = jnp.where(sw > 0, C * sw, 0.0).astype(z.dtype)
    return _smo.DualProblem(signs, jnp.concatenate([epsilon - z, epsilon + z]), jnp.concatenate([upper, upper]))


def _svr_optimality(theta, X, z, sw, C, epsilon, gamma, coef0, *, spec, signs):
    """KKT residual of ε-SVR at ``(alpha, b)`` (:func:`jaxclassic.svm._optimality.dual_qp`)."""
    problem = _svr_problem(z, sw, C, epsilon, signs)
    K = row_block(spec, gamma, coef0, X)(X)
    return _optimality.dual_qp(theta, K, problem.y, problem.p, problem.upper, doubled=True)


def fit_kernel_svr(X, y, *, C=1.0, epsilon=0.1, kernel="rbf", gamma="scale", coef0=0.0, degree: int = 3,
                   tol=1e-3, max_iter: int | None = None, memory_budget: int | None = None,
                   storage: str = "auto", working_set: str = "auto", batch_size: int = DEFAULT_BATCH_SIZE,
                   check_kernel: bool = True, sample_weight=None, key=None, verbose: int = 0) -> KernelSVRParams:
    r"""Fit a kernel ε-SVR by SMO on its :math:`2n`-variable dual (module docstring).

    Regression is its own function, not ``task="regression"`` of
    :func:`jaxclassic.svm.fit_kernel_svm`, because the algorithm differs: this ε-insensitive
    dual in :math:`2n` variables, against C-SVC's :math:`n`-variable dual with labels.

    Parameters
    ----------
    X : (n_samples, n_features) array
    y : (n_samples,) float array, the targets
    C : float > 0 (traced)
    epsilon : float >= 0 (traced), the half-width of the insensitive tube
    kernel, gamma, coef0, degree, tol, max_iter, memory_budget, storage, working_set, batch_size, check_kernel
        As :func:`jaxclassic.svm.fit_kernel_svm`.
        ``max_iter``'s default differs from the estimator's: ``SVR(max_iter=-1)`` is
        scikit-learn's "no limit", which the estimator maps to this ``None`` (LIBSVM's
        10,000,000 steps).
    verbose : int >= 0, default=0 (static)
        0: silent (the program has no callback). ``k > 0``: a tqdm bar of the SMO steps and a
        line ``[t]\tgap:<value>`` (the maximal violating pair's gap) every ``k`` reports and after
        the last, reported every 1,000 steps of pair SMO (over the 2n variables) and every step of batched SMO
        (:mod:`jaxclassic._progress`; one fit: under ``vmap`` each step is reported once).
    sample_weight : (n_samples,) array, optional
        Upper bounds :math:`C s_i` of both :math:`\alpha_i` and :math:`\alpha_i^*`.
    key : jax.random key, optional
        Unused (the fit is deterministic); accepted for the common signature.

    Returns
    -------
    KernelSVRParams

    Examples
    --------
    >>> import jax.numpy as jnp
    >>> from jaxclassic.svm import fit_kernel_svr, predict
    >>> X = jnp.linspace(0.0, 1.0, 8)[:, None]
    >>> params = fit_kernel_svr(X, 2.0 * X[:, 0], kernel="linear", C=10.0, epsilon=0.01)
    >>> round(float(predict(params, jnp.array([[0.5]]))[0]), 2)
    1.0

    References
    ----------
    Smola & Schölkopf (2004); Chang & Lin, ACM TIST 2 (2011).
    """
    del key
    spec = check_kernel_args(kernel, degree, gamma, coef0)
    C = check_C(C)
    epsilon = check_scalar(epsilon, "epsilon", low=0.0)
    tol = check_scalar(tol, "tol", low=0.0)
    max_iter = DEFAULT_MAX_ITER if max_iter is None else check_int(max_iter, "max_iter", low=1)
    batch_size = check_int(batch_size, "batch_size", low=2)
    check_kernel = check_bool(check_kernel, "check_kernel")
    verbose = _progress.check_verbose(verbose)
    X = check_array(X, "X")
    z = check_array(y, "y", ndim=1, dtype=X.dtype)
    check_consistent_length(X=X, y=z)
    sw = check_sample_weight(sample_weight, X.shape[0], dtype=X.dtype)
    if check_kernel:
        check_callable_kernel(spec, X, sample_weight)
    storage, cache_rows = choose_storage(check_choice(storage, "storage", STORAGES), X.shape[0],
                                         X.shape[1], jnp.dtype(X.dtype).itemsize, memory_budget)
    working_set = choose_working_set(working_set, 2 * X.shape[0], spec)
    progress = _progress.smo_spec(verbose, "fit_kernel_svr", working_set)
    extra = {} if progress is None else {"progress": progress}  # verbose=0: the program without reporting
    as_array = lambda v: jnp.asarray(v, X.dtype)  # noqa: E731
    with _progress.reporting(progress):
        params = _fit(X, z, sw, as_array(C), as_array(epsilon), resolve_gamma(gamma, X, sw), as_array(coef0),
                      as_array(tol), jnp.asarray(max_iter, jnp.int32), spec=spec, storage=storage,
                      cache_rows=cache_rows, memory_budget=memory_budget, working_set=working_set,
                      batch_size=batch_size, **extra)
    warn_not_converged(params, "fit_kernel_svr", max_iter)
    return params


def _decision_function(params: KernelSVRParams, X):
    X = check_predict_X(X, params.X_fit.dtype, params.X_fit.shape[-1])
    return decision_values(params.X_fit, params.dual_coef, params.intercept, params.gamma, params.coef0, X,
                           spec=params.kernel)


decision_function.register(KernelSVRParams, _decision_function)
predict.register(KernelSVRParams, _decision_function)
support_vectors.register(KernelSVRParams, _support_vectors)
