r"""The one Newton loop of the linear classifiers (logistic, softmax) and the pieces it uses.

Both fits minimise a weighted sum of a per-sample loss of a score that is *linear* in the
parameters, :math:`f = X W^\top + b`, plus :math:`\tfrac{\lambda}{2}\lVert W\rVert^2`. A
model states its problem as a :class:`NewtonProblem` (scores, objective, gradient, Hessian,
margins) and :func:`newton_solve` runs the loop: the Cholesky Newton direction, the
step-halving (Armijo) line search, the stopping rule and the separation checks.

Along a Newton direction :math:`D` the scores move on a line, :math:`f + tU` with
:math:`U = X D_W^\top + D_b`, so one pass over ``X`` (for :math:`U`) makes every trial of
the line search an :math:`O(n)` evaluation instead of a pass over ``X``.

**Standardised basis.** The fits run on :math:`Z = (X - \bar x)/\sigma` (weighted column
means :math:`\bar x`, 0 without an intercept; weighted standard deviations :math:`\sigma`,
root mean squares without an intercept; 1 for a constant column), see
:func:`column_scaling`. :math:`Z` is never written out: the scores, the gradient and the
Hessian form it block by block of rows inside their products
(:func:`jaxclassic.linear._gram.standardized_matmul`, ``standardized_rmatmul``,
``gram_with_ones(X, s, mean, scale)``), so the fit needs no n x d copy of ``X``, with the
rounding of the standardised products. The objective is unchanged: with :math:`w = w_Z/\sigma` and
:math:`b = b_Z - \bar x^\top w` the scores are identical and the penalty becomes
:math:`\tfrac12\sum_j (\lambda/\sigma_j^2) w_{Z,j}^2`. Centring removes the
cancellation of raw columns with a large mean (float32 keeps about 7 digits: a column of
mean :math:`10^3` and sd 1 otherwise loses three of them in every score and Hessian entry),
and the stopping rule :math:`\lVert\nabla_{\theta_Z} J\rVert / \sum_i s_i \le` ``tol`` is
on the gradient in that basis, which does not depend on the units of the columns.

**Separation** (``l2 = 0``). *Complete*: some iterate gives every positive-weight row a
strictly positive margin (logistic :math:`(2y_i - 1) f_i`, softmax own score minus the
largest other); the fit stops there. *Quasi-complete* (Albert & Anderson 1984): the
likelihood has no maximiser either, but some rows keep margin 0 and the gradient still
vanishes along the diverging direction, so the gradient test is eventually met. It is
detected at exit: some positive-weight row has a margin above
:math:`\tfrac12\log(1/\mathrm{eps})` (its fitted probability is within
:math:`\sqrt{\mathrm{eps}}` of its label) and the Newton step from the final iterate is
still larger than ``GROWTH_TOL`` :math:`\lVert\theta_Z\rVert`: at a finite optimum that
step is of the order of ``tol`` over the curvature, while along a diverging direction the
gradient and the curvature vanish together and the step stays of order one.

This module also holds the default tolerances and the warnings the public fits raise after a
jitted fit returns (the warning classes live in :mod:`jaxclassic.exceptions`).

References
----------
Nocedal & Wright, *Numerical Optimization*, 2nd ed., §3.1 (backtracking), §3.3 (Newton).
Albert & Anderson, "On the existence of maximum likelihood estimates in logistic
regression models", Biometrika 71 (1984) (complete and quasi-complete separation).
"""

from __future__ import annotations

import warnings
from typing import Any, Callable, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxclassic import _linalg
from jaxclassic._linalg import cho_solve
from jaxclassic import _precision
from jaxclassic._solver import iterate
from jaxclassic.linear._gram import blocked_sum, constant_columns
from jaxclassic.exceptions import ConvergenceWarning, PerfectSeparationWarning

__all__ = [
    "PerfectSeparationWarning",
    "ConvergenceWarning",
    "HISTORY_SIZE",
    "NewtonProblem",
    "NewtonResult",
    "default_tol",
    "column_scaling",
    "standardize_columns",
    "newton_direction",
    "newton_solve",
    "at_rounding_floor",
    "backtracking",
    "weighted_sum",
    "warn_after_fit",
]

#: Armijo constant of the line search (Nocedal & Wright, Numerical Optimization, §3.1)
ARMIJO_C = 1e-4
#: at most this many halvings; the step is then refused and the fit stops
MAX_HALVINGS = 30
#: static length of ``grad_norm_history`` (``max_iter`` is traced: changing it does not
#: recompile); iterations past it overwrite the last entry, which holds the final norm
HISTORY_SIZE = 100
#: relative size |d| / |theta| of the next Newton step above which a saturated unpenalised
#: fit is read as quasi-separated: at a finite optimum the step is ~ tol / curvature (1e-5 and
#: below), along a diverging direction it stays ~ 1 / margin scale (5e-2 at the tolerances)
GROWTH_TOL = 1e-2


def default_tol(dtype) -> float:
    """Default gradient-norm tolerance (on the weight-averaged objective, in the standardised
    basis of the columns) for a float dtype.

    ``1e-8`` in float64. In float32 the rounding floor of the averaged gradient is about
    ``1e-9``-``1e-8`` on standardised columns, so ``1e-6`` is used; Newton's quadratic
    convergence usually lands well below it.
    """
    return 1e-8 if jnp.dtype(dtype) == jnp.float64 else 1e-6


def column_scaling(X, sample_weight, fit_intercept: bool):
    r"""``(mean, scale)`` of the standardised basis :math:`Z = (X - \bar x)/\sigma`, from
    positive-weight rows only; :math:`Z` itself is never formed (the fits fold it into their
    products block by block: :func:`jaxclassic.linear._gram.standardized_matmul`,
    :func:`~jaxclassic.linear._gram.standardized_rmatmul`,
    :func:`~jaxclassic.linear._gram.gram_with_ones`).

    :math:`\bar x = \sum_i s_i x_i/\sum_i s_i` (0 without an intercept: there is nothing to
    absorb the shift), :math:`\sigma_j^2 = \sum_i s_i (x_{ij} - \bar x_j)^2/\sum_i s_i`; a
    constant column (variance within the rounding of its values, or 0) keeps
    :math:`\sigma_j = 1`. Rows of weight 0 enter neither statistic. Both are blocked row
    sums (two reads of ``X``, no n x d temporary).
    """
    positive = sample_weight > 0
    w = jnp.where(positive, sample_weight, 0).astype(X.dtype)
    total = jnp.sum(w)
    d = X.shape[1]
    if fit_intercept:
        mean = blocked_sum(lambda wb, pb, Xb: _precision.matmul(wb, jnp.where(pb[:, None], Xb, 0)),
                           (w, positive, X), d) / total
    else:
        mean = jnp.zeros(d, X.dtype)

    def squares(wb, pb, Xb):
        centred = jnp.where(pb[:, None], Xb - mean, 0)
        return _precision.matmul(wb, centred * centred)

    variance = blocked_sum(squares, (w, positive, X), d) / total
    constant = constant_columns(variance, mean) | (variance <= 0)
    scale = jnp.where(constant, 1, jnp.sqrt(jnp.where(constant, 1, variance))).astype(X.dtype)
    return mean, scale


def standardize_columns(X, sample_weight, fit_intercept: bool):
    r"""``(Z, mean, scale)`` with :math:`Z = (X - \bar x)/\sigma` materialised (an n x d copy;
    the fits use :func:`column_scaling` and never form it)."""
    mean, scale = column_scaling(X, sample_weight, fit_intercept)
    return (X - mean) / scale, mean, scale


def weighted_sum(sample_weight: jax.Array, values: jax.Array) -> jax.Array:
    """:math:`\\sum_i s_i v_i` in which a row of weight 0 contributes exactly 0 (even if
    ``v_i`` is inf or NaN, e.g. the loss of a padded garbage row)."""
    return jnp.sum(jnp.where(sample_weight > 0, sample_weight * values, jnp.zeros_like(values)))


def newton_direction(hessian: jax.Array, grad: jax.Array) -> jax.Array:
    r"""Solve :math:`H d = -g` by Cholesky (``jaxclassic._linalg``: ``cholesky`` / ``cho_solve``).

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
    factor = (_linalg.cholesky(scaled + (10 * eps) * jnp.eye(n, dtype=hessian.dtype)), True)
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


class NewtonProblem(NamedTuple):
    """A smooth convex objective of linear scores, as :func:`newton_solve` sees it.

    ``B`` is the parameter array (logistic ``(d+1,)``, softmax ``(C, d+1)``; the last
    column the intercepts), ``F`` the scores of all rows.

    Attributes
    ----------
    scores : callable
        ``B -> F``, linear in ``B`` (also gives the scores' direction of a Newton step).
    objective : callable
        ``(B, F) -> J``, from the scores in :math:`O(n)` (the line search's trials).
    derivatives : callable
        ``(B, F) -> (grad, aux)``: the gradient (shape of ``B``) and what ``hessian`` needs.
    hessian : callable
        ``aux -> H``, the ``(B.size, B.size)`` Hessian (positive definite after the model's
        own regularisation of its null directions).
    margins : callable
        ``F -> (n,)`` per-row margin: positive when the row's own class scores highest.
    """

    scores: Callable[[jax.Array], jax.Array]
    objective: Callable[[jax.Array, jax.Array], jax.Array]
    derivatives: Callable[[jax.Array, jax.Array], tuple[jax.Array, Any]]
    hessian: Callable[[Any], jax.Array]
    margins: Callable[[jax.Array], jax.Array]


class NewtonResult(NamedTuple):
    """Outcome of :func:`newton_solve` (``separated`` is complete or quasi-complete)."""

    B: jax.Array
    scores: jax.Array
    n_iter: jax.Array
    converged: jax.Array
    history: jax.Array
    separated: jax.Array


class _NewtonState(NamedTuple):
    B: jax.Array
    F: jax.Array
    value: jax.Array
    grad: jax.Array
    grad_norm: jax.Array
    aux: Any
    separated: jax.Array


def newton_solve(problem: NewtonProblem, B0, sample_weight, unpenalised, *, max_iter, tol,
                 history_size: int = HISTORY_SIZE, F0=None) -> NewtonResult:
    r"""Damped Newton on ``problem`` from ``B0``: :math:`H d = -g` by Cholesky
    (:func:`newton_direction`), step halving (:func:`backtracking`), stop when
    :math:`\lVert g\rVert/\sum_i s_i \le` ``tol``.

    The fit also stops (unconverged) on a refused line-search step, at the rounding floor
    (:func:`at_rounding_floor`), or, when ``unpenalised``, at a completely separating iterate.
    Quasi-complete separation is flagged at exit (module docstring). ``max_iter`` may be
    traced; ``history`` has the static ``history_size``.
    """
    total = jnp.sum(jnp.where(sample_weight > 0, sample_weight, 0))
    positive = sample_weight > 0

    def completely_separated(F):
        return unpenalised & jnp.all((problem.margins(F) > 0) | jnp.logical_not(positive))

    def step(state: _NewtonState):
        direction = newton_direction(problem.hessian(state.aux), state.grad.reshape(-1))
        direction = direction.reshape(state.B.shape)
        U = problem.scores(direction)  # linear in B: the scores' direction, one pass

        def phi(t):  # J on the line: the scores move linearly, O(n) per trial
            return problem.objective(state.B + t * direction, state.F + t * U)

        slope = _precision.dot(state.grad.reshape(-1), direction.reshape(-1))
        t, value, accepted = backtracking(phi, state.value, slope)
        B = jnp.where(accepted, state.B + t * direction, state.B)
        F = jnp.where(accepted, state.F + t * U, state.F)
        value = jnp.where(accepted, value, state.value)
        grad, aux = problem.derivatives(B, F)
        grad_norm = jnp.linalg.norm(grad) / total
        separated = completely_separated(F)
        # a refused step, the rounding floor or a separating iterate ends the fit (NaN error
        # -> not converged), unless the gradient meets tol
        floor = at_rounding_floor(state.value, -slope, grad_norm, state.grad_norm)
        stop = (separated | floor | jnp.logical_not(accepted)) & (grad_norm > tol)
        new = _NewtonState(B, F, value, grad, grad_norm, aux, separated)
        return new, jnp.where(stop, jnp.nan, grad_norm)

    F0 = problem.scores(B0) if F0 is None else F0
    value0 = problem.objective(B0, F0)
    grad0, aux0 = problem.derivatives(B0, F0)
    norm0 = jnp.linalg.norm(grad0) / total
    dtype = norm0.dtype
    init = _NewtonState(B0, F0, value0, grad0, norm0, aux0, jnp.asarray(False))
    res = iterate(step, init, max_iter=max_iter, tol=tol, init_error=norm0,
                  history_size=history_size)
    final = res.carry
    # the stopping step recorded NaN: put back its gradient norm
    history = jnp.where(jnp.isnan(res.history), final.grad_norm, res.history)
    # fitted probability within sqrt(eps) of the label: 1 - p = e^{-margin} <= sqrt(eps)
    saturated = jnp.any(positive & (problem.margins(final.F) > -0.5 * jnp.log(jnp.finfo(dtype).eps)))

    def next_step_ratio(_):  # |d| / |B| of the Newton step Newton would take next
        direction = newton_direction(problem.hessian(final.aux), final.grad.reshape(-1))
        return jnp.linalg.norm(direction) / jnp.maximum(jnp.linalg.norm(final.B), jnp.finfo(dtype).tiny)

    check = unpenalised & saturated
    ratio = jax.lax.cond(check, next_step_ratio, lambda _: jnp.zeros((), dtype), None)
    quasi = check & (ratio > GROWTH_TOL)
    separated = final.separated | completely_separated(final.F) | quasi
    return NewtonResult(final.B, final.F, res.n_iter, res.converged & ~separated, history,
                        separated)


def warn_after_fit(params, model: str, l2, max_iter: int | None = None) -> None:
    """Raise the fit's warnings in Python once concrete params are back from ``jit``.

    Skipped when the params are tracers (the fit runs inside ``jit``/``vmap``). Looks at the
    ``separated`` and ``converged`` fields (any element, for batched params).
    """
    if isinstance(params.converged, jax.core.Tracer):
        return
    separated = np.asarray(params.separated)
    converged = np.asarray(params.converged)
    n_iter = np.asarray(params.n_iter)
    if max_iter is None:
        max_iter = np.asarray(params.grad_norm_history).shape[-1]
    if separated.any():
        warnings.warn(
            f"{model}: the classes are perfectly or quasi-perfectly separated (all training "
            "margins are positive, or some fitted probabilities equal 0 or 1 to working "
            "precision while the coefficient norm keeps growing) and l2 = 0, so the "
            "maximum-likelihood estimate does not exist (its norm grows without bound); the "
            "fit stopped at a finite iterate that depends on tol and max_iter. Use l2 > 0 for "
            "a finite optimum.",
            PerfectSeparationWarning,
            stacklevel=3,
        )
    elif not converged.all():
        grad_norm = float(np.max(_last(params)))
        if np.all(n_iter[~converged] < max_iter):
            message = (f"{model}: stopped after {int(np.max(n_iter))} iterations at gradient norm "
                       f"{grad_norm:.3g} > tol: the objective cannot be decreased further in "
                       f"{np.asarray(params.coef).dtype} (rounding floor, or a refused line-search "
                       "step). Use float64 or loosen tol.")
        else:
            message = (f"{model}: did not converge in {max_iter} iterations (gradient norm "
                       f"{grad_norm:.3g}); increase max_iter, loosen tol or add l2.")
        if not isinstance(l2, jax.core.Tracer) and np.any(np.asarray(l2) == 0):
            message += " With l2 = 0 the data may be quasi-separated (no finite optimum)."
        warnings.warn(message, ConvergenceWarning, stacklevel=3)


def _last(params) -> np.ndarray:
    """The last recorded gradient norm (the history's last entry holds it past its end)."""
    hist = np.asarray(params.grad_norm_history)
    n_iter = np.asarray(params.n_iter)
    idx = np.clip(n_iter - 1, 0, hist.shape[-1] - 1)
    return np.take_along_axis(hist, idx[..., None], axis=-1)[..., 0]
