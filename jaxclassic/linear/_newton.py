r"""Pieces shared by the Newton fits of the linear classifiers (logistic, softmax).

Both fits minimise a weighted sum of a per-sample loss of a score that is *linear* in the
parameters, :math:`f = X W^\top + b`, plus :math:`\tfrac{\lambda}{2}\lVert W\rVert^2`. Along
a Newton direction :math:`D` the scores move on a line, :math:`f + tU` with
:math:`U = X D_W^\top + D_b`, so one pass over ``X`` (for :math:`U`) makes every trial of
the step-halving line search an :math:`O(n)` evaluation instead of a pass over ``X``.

This module holds the step-halving (Armijo) line search, the Cholesky Newton solve, the
default tolerances and the warnings the public fits raise after a jitted fit returns.
"""

from __future__ import annotations

import warnings
from typing import Callable

import jax
import jax.numpy as jnp
import numpy as np
from jax.scipy.linalg import cho_factor, cho_solve

__all__ = [
    "PerfectSeparationWarning",
    "ConvergenceWarning",
    "default_tol",
    "newton_direction",
    "at_rounding_floor",
    "backtracking",
    "weighted_sum",
    "warn_after_fit",
]

#: Armijo constant of the line search (Nocedal & Wright, Numerical Optimization, §3.1)
ARMIJO_C = 1e-4
#: at most this many halvings; the step is then refused and the fit stops
MAX_HALVINGS = 30


class PerfectSeparationWarning(UserWarning):
    """The classes are perfectly separated and the unpenalised fit has no finite optimum."""


class ConvergenceWarning(UserWarning):
    """An iterative fit stopped at ``max_iter`` or on a refused line-search step."""


def default_tol(dtype) -> float:
    """Default gradient-norm tolerance (on the weight-averaged objective) for a float dtype.

    ``1e-8`` in float64. In float32 the rounding floor of the averaged gradient is about
    ``1e-9``-``1e-8`` on standardised features (more on raw scales), so ``1e-6`` is used;
    Newton's quadratic convergence usually lands well below it.
    """
    return 1e-8 if jnp.dtype(dtype) == jnp.float64 else 1e-6


def weighted_sum(sample_weight: jax.Array, values: jax.Array) -> jax.Array:
    """:math:`\\sum_i s_i v_i` in which a row of weight 0 contributes exactly 0 (even if
    ``v_i`` is inf or NaN, e.g. the loss of a padded garbage row)."""
    return jnp.sum(jnp.where(sample_weight > 0, sample_weight * values, jnp.zeros_like(values)))


def newton_direction(hessian: jax.Array, grad: jax.Array) -> jax.Array:
    r"""Solve :math:`H d = -g` by Cholesky (``jax.scipy.linalg.cho_factor`` / ``cho_solve``).

    The system is first equilibrated, :math:`D H D\,(D^{-1}d) = -Dg` with
    :math:`D = \operatorname{diag}(H)^{-1/2}`, so the factorisation sees a unit-diagonal
    matrix whose conditioning does not depend on the units of the features (raw-scale
    features, e.g. incomes in dollars, stay solvable in float32). A jitter of ``10 eps`` on
    that unit diagonal leaves a well-conditioned Newton step unchanged to working precision
    and keeps the factorisation finite when :math:`H` is (nearly) singular, as at a
    quasi-separated logistic fit. A non-finite result is caught by the line search, which
    then refuses the step.
    """
    n = hessian.shape[0]
    eps = jnp.finfo(hessian.dtype).eps
    diag = jnp.diagonal(hessian)
    scale = jax.lax.rsqrt(jnp.where(diag > 0, diag, jnp.ones_like(diag)))
    scaled = hessian * scale[:, None] * scale[None, :]
    factor = cho_factor(scaled + (10 * eps) * jnp.eye(n, dtype=hessian.dtype), lower=True)
    return -scale * cho_solve(factor, scale * grad)


def at_rounding_floor(objective, decrement, grad_norm_new, grad_norm_old):
    r"""Whether Newton has reached the rounding floor of the working precision.

    True when the predicted decrease :math:`\lambda^2/2 = -g^\top d/2` (the Newton
    decrement) is below the rounding of the objective (``16 eps |J|``) *and* a full step did
    not halve the gradient norm: near a minimum Newton's gradient falls quadratically, so a
    gradient that stalls at that scale is rounding noise (float32 with badly scaled features).
    """
    eps = jnp.finfo(objective.dtype).eps
    return (0.5 * decrement <= 16 * eps * jnp.abs(objective)) & (grad_norm_new > 0.5 * grad_norm_old)


def backtracking(
    phi: Callable[[jax.Array], jax.Array], phi0: jax.Array, slope: jax.Array
) -> tuple[jax.Array, jax.Array, jax.Array]:
    r"""Step halving: the largest :math:`t \in \{1, \tfrac12, \tfrac14, \dots\}` with

    .. math:: \phi(t) \le \phi(0) + c\,t\,\phi'(0) + \epsilon_{\mathrm{round}},

    :math:`c = 10^{-4}` (Armijo), where :math:`\epsilon_{\mathrm{round}} = 16\,\mathrm{eps}
    \,|\phi(0)|` lets a full Newton step through when the decrease is below the rounding of
    the objective itself (near the optimum in float32). Returns ``(t, phi(t), accepted)``;
    ``accepted`` is False after ``MAX_HALVINGS`` halvings or when ``slope`` is not a finite
    descent slope (then no trial is evaluated).
    """
    dtype = phi0.dtype
    slack = 16 * jnp.finfo(dtype).eps * jnp.abs(phi0)

    def ok(t, val):
        return jnp.isfinite(val) & (val <= phi0 + ARMIJO_C * t * slope + slack)

    descent = jnp.isfinite(slope) & (slope < 0)
    t0 = jnp.asarray(1.0, dtype)
    val0 = jax.lax.cond(descent, phi, lambda t: jnp.asarray(jnp.inf, dtype), t0)

    def cond(state):
        t, val, k = state
        return descent & jnp.logical_not(ok(t, val)) & (k < MAX_HALVINGS)

    def body(state):
        t, _, k = state
        t = t * 0.5
        return t, phi(t), k + 1

    t, val, _ = jax.lax.while_loop(cond, body, (t0, val0, jnp.int32(0)))
    return t, val, descent & ok(t, val)


def warn_after_fit(params, model: str, l2) -> None:
    """Raise the fit's warnings in Python once concrete params are back from ``jit``.

    Skipped when the params are tracers (the fit runs inside ``jit``/``vmap``). Looks at the
    ``separated`` and ``converged`` fields (any element, for batched params).
    """
    if isinstance(params.converged, jax.core.Tracer):
        return
    separated = np.asarray(params.separated)
    converged = np.asarray(params.converged)
    if separated.any():
        warnings.warn(
            f"{model}: the classes are perfectly separated by the fitted scores (all training "
            "margins are positive) and l2 = 0, so the maximum-likelihood estimate does not "
            "exist (its norm grows without bound); the fit stopped at the first separating "
            "iterate. Use l2 > 0 for a finite optimum.",
            PerfectSeparationWarning,
            stacklevel=3,
        )
    elif not converged.all():
        n_iter = np.asarray(params.n_iter)
        max_iter = np.asarray(params.grad_norm_history).shape[-1]
        grad_norm = float(np.max(_last(params)))
        if np.all(n_iter[~converged] < max_iter):
            message = (f"{model}: stopped after {int(np.max(n_iter))} iterations at gradient norm "
                       f"{grad_norm:.3g} > tol: the objective cannot be decreased further in "
                       f"{np.asarray(params.coef).dtype} (rounding floor, or a refused line-search "
                       "step). Standardise the features, use float64 or loosen tol.")
        else:
            message = (f"{model}: did not converge in {max_iter} iterations (gradient norm "
                       f"{grad_norm:.3g}); increase max_iter, loosen tol or add l2.")
        if not isinstance(l2, jax.core.Tracer) and np.any(np.asarray(l2) == 0):
            message += " With l2 = 0 the data may be quasi-separated (no finite optimum)."
        warnings.warn(message, ConvergenceWarning, stacklevel=3)


def _last(params) -> np.ndarray:
    hist = np.asarray(params.grad_norm_history)
    n_iter = np.asarray(params.n_iter)
    idx = np.clip(n_iter - 1, 0, hist.shape[-1] - 1)
    return np.take_along_axis(hist, idx[..., None], axis=-1)[..., 0]
