"""The one iterate-to-convergence template shared by every iterative fit.

Newton / IRLS, EM, Lloyd, SMO, coordinate descent and the optax-driven first-order fits
each write only a ``step`` function; this module owns the ``lax.while_loop`` with
``max_iter`` and ``tol`` and reports how many iterations ran and whether the stopping
criterion was met (the pattern of jaxopt's ``IterativeSolver``).

Stopping rule: iterate ``carry, error = step(carry)`` while ``error > tol`` and
``n_iter < max_iter``. ``converged`` is ``error <= tol`` at exit. A non-finite error stops
the loop immediately with ``converged=False`` so a diverging fit cannot spin.
"""

from __future__ import annotations

from typing import Any, Callable, NamedTuple

import jax
import jax.numpy as jnp
import optax

from jaxclassic import _progress

__all__ = ["SolverResult", "iterate", "minimize_optax"]


class SolverResult(NamedTuple):
    """Outcome of :func:`iterate`.

    Attributes
    ----------
    carry : pytree
        The final state returned by the last ``step``.
    n_iter : int32 scalar
        Number of steps taken.
    converged : bool scalar
        Whether ``error <= tol`` at exit.
    error : float scalar
        The last error reported by ``step``.
    history : (max_iter,) or (history_size,) float array
        ``error`` after each step (entries past ``n_iter`` are 0), e.g. the gradient norm per
        Newton iteration, to show quadratic convergence. With an explicit ``history_size``
        smaller than the steps taken, steps past ``history_size - 1`` overwrite the last
        entry, so ``history[min(n_iter, history_size) - 1]`` is always the last error.
    """

    carry: Any
    n_iter: jax.Array
    converged: jax.Array
    error: jax.Array
    history: jax.Array


def iterate(
    step: Callable[[Any], tuple[Any, jax.Array]],
    init: Any,
    *,
    max_iter: int | jax.Array,
    tol: float | jax.Array,
    init_error: float | jax.Array | None = None,
    history_size: int | None = None,
    progress: _progress.Progress | None = None,
    report: Callable[[Any, jax.Array], tuple] | None = None,
) -> SolverResult:
    """Run ``carry, error = step(carry)`` until ``error <= tol`` or ``max_iter`` steps.

    Parameters
    ----------
    step : callable
        ``carry -> (carry, error)``, pure and jittable; ``error`` is a float scalar (gradient
        norm, change in coefficients, duality gap, change in log-likelihood...).
    init : pytree
        The initial carry.
    max_iter : int or int array
        Bound on the number of steps. A Python int is static (and sizes the history); an
        array may be traced (a new value does not recompile) and then needs ``history_size``.
    tol : float
        Tolerance on ``error`` (may be traced).
    init_error : float, optional
        Error of ``init`` itself; when it is already ``<= tol`` no step is taken. Defaults to
        ``inf`` (always take at least one step).
    history_size : int, optional
        Static length of ``history``; defaults to ``max_iter`` (which must then be a Python
        int). Steps beyond it write the last entry (see :class:`SolverResult`).
    progress : jaxclassic._progress.Progress, optional (static)
        Report each step to the host (a fit's ``verbose > 0``: :mod:`jaxclassic._progress`);
        None (default): nothing is added to the program.
    report : callable, optional
        ``(carry, error) -> tuple of scalars``, the values reported after each step (one per
        ``progress.names``); default ``(error,)``.

    Returns
    -------
    SolverResult
    """
    leaves = [jnp.asarray(l) for l in jax.tree_util.tree_leaves(init)]
    floats = [l.dtype for l in leaves if jnp.issubdtype(l.dtype, jnp.floating)]
    dtype = jnp.result_type(*floats) if floats else jnp.float32
    tol = jnp.asarray(tol, dtype=dtype)
    err0 = jnp.asarray(jnp.inf if init_error is None else init_error, dtype=dtype)
    stop0 = (err0 <= tol) if init_error is not None else jnp.asarray(False)
    if history_size is None:
        if not isinstance(max_iter, int):
            raise TypeError("iterate: history_size is required when max_iter is not a Python int, "
                            f"got max_iter of type {type(max_iter).__name__}")
        history_size = max_iter
    history0 = jnp.zeros((history_size,), dtype=dtype)
    max_iter = jnp.asarray(max_iter, jnp.int32)

    def cond(state):
        _, i, _, stop, _ = state
        return (i < max_iter) & jnp.logical_not(stop)

    def body(state):
        carry, i, _, _, hist = state
        carry, err = step(carry)
        err = jnp.asarray(err, dtype=dtype)
        if progress is not None:
            _progress.emit(progress, i, *(report(carry, err) if report is not None else (err,)))
        hist = hist.at[i].set(err, mode="clip")  # past the end: the last entry
        stop = (err <= tol) | jnp.logical_not(jnp.isfinite(err))
        return carry, i + 1, err, stop, hist

    carry, n_iter, err, _, hist = jax.lax.while_loop(
        cond, body, (init, jnp.int32(0), err0, stop0, history0)
    )
    if progress is not None and progress.stride > 1:  # the last step, between two strides
        _progress.emit(progress, n_iter - 1, *(report(carry, err) if report is not None else (err,)),
                       live=n_iter > 0, last=True)
    converged = (err <= tol) & jnp.isfinite(err)
    return SolverResult(carry, n_iter, converged, err, hist)


def minimize_optax(
    fun: Callable[[Any], jax.Array],
    params: Any,
    optimizer: optax.GradientTransformation,
    *,
    max_iter: int | jax.Array,
    tol: float | jax.Array,
    history_size: int | None = None,
    progress: _progress.Progress | None = None,
) -> SolverResult:
    """Minimise a smooth ``fun(params)`` with an optax optimiser, stopping on the gradient norm.

    ``max_iter`` and ``history_size`` are as in :func:`iterate` (a traced ``max_iter``
    needs a static ``history_size``). ``progress`` (a fit's ``verbose > 0``) reports each
    iteration's objective (the line search's cached value at the new iterate) and gradient
    norm with a line-search optimiser (``optax.lbfgs``), the gradient norm alone otherwise.

    Works with any optax transformation; for ``optax.lbfgs`` the line search receives the
    value and gradient through ``optax.value_and_grad_from_state``. The error reported is the
    global L2 norm of the gradient at the current iterate.
    """
    uses_line_search = _has_value_state(optimizer.init(params))
    value_and_grad = (
        optax.value_and_grad_from_state(fun) if uses_line_search else jax.value_and_grad(fun)
    )

    def step(carry):
        params, opt_state = carry
        if uses_line_search:
            value, grad = value_and_grad(params, state=opt_state)
            updates, opt_state = optimizer.update(
                grad, opt_state, params, value=value, grad=grad, value_fn=fun
            )
        else:
            value, grad = value_and_grad(params)
            updates, opt_state = optimizer.update(grad, opt_state, params)
        # the error is the gradient norm at the iterate the step started from
        return (optax.apply_updates(params, updates), opt_state), optax.tree.norm(grad)

    def report(carry, err):
        return (optax.tree_utils.tree_get(carry[1], "value"), err) if uses_line_search else (err,)

    init_grad_norm = optax.tree.norm(jax.grad(fun)(params))
    return iterate(
        step, (params, optimizer.init(params)), max_iter=max_iter, tol=tol, init_error=init_grad_norm,
        history_size=history_size, progress=progress, report=report,
    )


def _has_value_state(opt_state: Any) -> bool:
    """Whether an optax state carries a line search's cached value (as ``optax.lbfgs`` does)."""
    try:
        return optax.tree_utils.tree_get(opt_state, "value") is not None
    except Exception:  # optax raises when the name is ambiguous: then a value is there
        return True
