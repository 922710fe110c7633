r"""The one implicit-differentiation helper: derivatives of a fitted solution from its
optimality condition, not from the solver's loop.

A fit whose solution :math:`\theta^\star(h)` is defined by an optimality condition

.. math:: F(\theta^\star(h), h) = 0

(the gradient of a smooth objective, the fixed point of a proximal step, an EM or evidence
fixed point, a KKT system...) has, where :math:`\partial_\theta F` is invertible, the
derivative given by the implicit function theorem

.. math:: \partial_h \theta^\star = -(\partial_\theta F)^{-1}\,\partial_h F,

whatever loop found :math:`\theta^\star`. Forward mode solves
:math:`\partial_\theta F\,\dot\theta = -\partial_h F\,\dot h`; reverse mode solves the
transposed system :math:`(\partial_\theta F)^\top u = \bar\theta` and returns
:math:`-u^\top\partial_h F`. Both come from :func:`jax.lax.custom_root`, whose tangent rule
is exactly this linear solve (and which transposes it for reverse mode). Here ``h`` is
*everything* the condition reads: data ``X``, targets, sample weights and continuous
hyperparameters alike (integer arguments get no derivative).

API (stable; used by every family)
----------------------------------
``implicit_fit(solve, optimality, *, linear_solve="dense", has_aux=False)``
    Wraps ``solve(*args) -> theta`` (or ``-> (theta, aux)`` with ``has_aux=True``), any
    non-differentiable loop (``_solver.iterate``, a ``while_loop``...), into a function of
    the same ``*args`` whose ``theta`` has implicit derivatives with respect to every
    floating-point array in ``args``; ``aux`` (``n_iter``, ``converged``, histories...) is
    passed through with no derivative. ``optimality(theta, *args) -> residual`` has the
    pytree structure of ``theta``. The solver runs on ``lax.stop_gradient(args)`` so JAX
    never tries to differentiate its loop, and its output is returned unchanged: forward
    values are bit-identical to calling ``solve`` directly, and an un-differentiated call
    costs nothing extra (the condition is only evaluated inside a JVP/VJP).
``with_implicit_derivatives(optimality, theta, *args, linear_solve="dense")``
    The same, for a solution already computed (by any code): returns ``theta`` (same
    values) with implicit derivatives with respect to ``args``. The caller must compute
    ``theta`` from ``lax.stop_gradient(args)`` (or from arguments that carry no tangent),
    otherwise JAX differentiates the loop too.
``nondifferentiable(name, x, *, reason)``
    The identity on a pytree ``x`` whose derivative raises ``TypeError`` naming the fit and
    the reason, e.g. ``X = nondifferentiable("fit_kmeans", X, reason="cluster assignments
    are piecewise constant in the data")`` at the top of a fit: ``jax.grad``/``jax.jvp``
    through it then fails loudly instead of with JAX's ``while_loop`` message or a silent
    zero. Un-differentiated calls (including under ``jit``/``vmap``) are unaffected.

``linear_solve`` chooses how :math:`\partial_\theta F` is inverted:

* ``"dense"`` (default, for small :math:`p = \dim\theta`, up to a few hundred): the
  Jacobian is formed by :math:`p` forward-mode products (``jax.jacfwd`` of the linearised
  condition) and solved by LU (``jnp.linalg.solve``); any invertible Jacobian works.
* ``"cg"``: matrix-free conjugate gradients on Jacobian-vector products (to a relative
  residual of ``eps ** 0.75``), for large :math:`p` when :math:`\partial_\theta F` is symmetric positive
  definite (the Hessian of a strictly convex objective).

Where the condition is not differentiable (a soft-threshold at its kink), JAX's convention
at the kink is used; where :math:`\partial_\theta F` is singular (an unidentified
direction), the derivative is not defined and comes out non-finite or arbitrary: the family
states when that happens.

Example
-------
Ridge regression solved by gradient descent, differentiated with respect to its penalty by
the optimality condition :math:`X^\top(X\theta - y) + \lambda\theta = 0`:

>>> import jax, jax.numpy as jnp
>>> from jaxclassic._implicit import implicit_fit
>>> X = jnp.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]]); y = jnp.array([1.0, 2.0, 0.0])
>>> def solve(lam, X, y):  # any loop; here 500 gradient steps
...     step = lambda th, _: (th - 0.1 * (X.T @ (X @ th - y) + lam * th), None)
...     return jax.lax.scan(step, jnp.zeros(2), None, length=500)[0]
>>> def optimality(theta, lam, X, y):
...     return X.T @ (X @ theta - y) + lam * theta
>>> fit = implicit_fit(solve, optimality)
>>> g = jax.grad(lambda lam: fit(lam, X, y).sum())(1.0)
>>> closed = lambda lam: jnp.linalg.solve(X.T @ X + lam * jnp.eye(2), X.T @ y).sum()
>>> bool(jnp.allclose(g, jax.grad(closed)(1.0), atol=1e-5))
True

References
----------
Blondel et al., "Efficient and Modular Implicit Differentiation", NeurIPS 2022 (jaxopt's
``custom_root``: the same construction).
Krantz & Parks, *The Implicit Function Theorem*, Birkhäuser 2002.
Bengio, "Gradient-Based Optimization of Hyperparameters", Neural Computation 12 (2000).
"""

from __future__ import annotations

import functools
from typing import Any, Callable

import jax
import jax.numpy as jnp
from jax.flatten_util import ravel_pytree

from jaxclassic import _linalg

__all__ = ["LINEAR_SOLVES", "implicit_fit", "with_implicit_derivatives", "nondifferentiable"]

LINEAR_SOLVES = ("dense", "cg")


def _dense_tangent_solve(g: Callable[[Any], Any], y: Any) -> Any:
    """Solve the linear ``g(x) = y`` (``g`` the linearised condition) by a dense LU solve of
    its Jacobian, formed by ``jax.jacfwd`` (``p`` Jacobian-vector products)."""
    y_flat, unravel = ravel_pytree(y)

    def g_flat(x_flat):
        return ravel_pytree(g(unravel(x_flat)))[0]

    jac = jax.jacfwd(g_flat)(jnp.zeros_like(y_flat))
    return unravel(_linalg.solve(jac, y_flat))


def _conjugate_gradients(matvec: Callable[[jax.Array], jax.Array], b: jax.Array) -> jax.Array:
    """Plain conjugate gradients for a symmetric positive definite ``matvec`` from 0, to a
    relative residual of ``eps ** 0.75`` or ``10 p`` steps (a ``while_loop``: it is only
    called through ``custom_linear_solve``, which never differentiates it)."""
    tol2 = jnp.square(jnp.finfo(b.dtype).eps ** 0.75 * jnp.linalg.norm(b))

    def cond(state):
        _, _, _, rr, k = state
        return (rr > tol2) & (k < 10 * b.size)

    def body(state):
        x, r, p, rr, k = state
        Ap = matvec(p)
        alpha = rr / jnp.vdot(p, Ap)
        x, r = x + alpha * p, r - alpha * Ap
        rr_new = jnp.vdot(r, r)
        return x, r, r + (rr_new / rr) * p, rr_new, k + 1

    return jax.lax.while_loop(cond, body, (jnp.zeros_like(b), b, b, jnp.vdot(b, b), 0))[0]


def _cg_tangent_solve(g: Callable[[Any], Any], y: Any) -> Any:
    """Solve the linear ``g(x) = y`` (``g`` symmetric positive definite) by conjugate
    gradients on Jacobian-vector products, matrix-free; ``custom_linear_solve(symmetric=True)``
    makes it transposable for reverse mode. (``jax.scipy.sparse.linalg.cg`` nests a second
    ``custom_linear_solve`` that JAX 0.10 cannot transpose inside ``custom_root``.)"""
    y_flat, unravel = ravel_pytree(y)

    def g_flat(x_flat):
        return ravel_pytree(g(unravel(x_flat)))[0]

    return unravel(jax.lax.custom_linear_solve(g_flat, y_flat, _conjugate_gradients,
                                               symmetric=True))


def _tangent_solve(linear_solve: str):
    if linear_solve == "dense":
        return _dense_tangent_solve
    if linear_solve == "cg":
        return _cg_tangent_solve
    raise ValueError(f"linear_solve must be one of {LINEAR_SOLVES}, got {linear_solve!r}")


def with_implicit_derivatives(optimality: Callable[..., Any], theta: Any, *args: Any,
                              linear_solve: str = "dense") -> Any:
    r"""Return ``theta`` unchanged, with the implicit derivatives of
    :math:`F(\theta, \text{args}) = 0` with respect to ``args``.

    .. math:: \partial_{\text{args}}\theta = -(\partial_\theta F)^{-1}\partial_{\text{args}}F

    Parameters
    ----------
    optimality : callable
        ``(theta, *args) -> residual``, pure and differentiable, residual of the pytree
        structure of ``theta`` (zero at the solution).
    theta : pytree of float arrays
        The solution, computed from arguments that carry no tangent (e.g. from
        ``lax.stop_gradient(args)``); its own derivative is discarded.
    *args : pytrees
        Everything ``optimality`` reads (data, weights, hyperparameters).
    linear_solve : {"dense", "cg"}
        How :math:`\partial_\theta F` is inverted (module docstring).

    Returns
    -------
    pytree
        ``theta`` (identical values).

    Examples
    --------
    >>> import jax, jax.numpy as jnp
    >>> from jaxclassic._implicit import with_implicit_derivatives
    >>> sqrt = lambda a: with_implicit_derivatives(lambda x, a: x * x - a,
    ...                                            jnp.sqrt(jax.lax.stop_gradient(a)), a)
    >>> float(jax.grad(sqrt)(4.0))  # 1 / (2 sqrt(4))
    0.25

    References
    ----------
    Blondel et al., "Efficient and Modular Implicit Differentiation", NeurIPS 2022.
    """
    tangent_solve = _tangent_solve(linear_solve)
    theta = jax.lax.stop_gradient(theta)
    return jax.lax.custom_root(lambda t: optimality(t, *args), theta,
                               lambda _f, guess: guess, tangent_solve)


def implicit_fit(solve: Callable[..., Any], optimality: Callable[..., Any], *,
                 linear_solve: str = "dense", has_aux: bool = False) -> Callable[..., Any]:
    r"""Turn a non-differentiable solver into one with implicit derivatives.

    ``fit(*args)`` runs ``solve(*lax.stop_gradient(args))`` and attaches to its ``theta`` the
    derivatives :math:`-(\partial_\theta F)^{-1}\partial_{\text{args}}F` of the condition
    ``optimality(theta, *args) = 0`` (:func:`with_implicit_derivatives`): forward values are
    the solver's, bit for bit; ``jax.grad``, ``jax.jvp``, ``jax.jacrev`` and their ``jit`` /
    ``vmap`` all work.

    Parameters
    ----------
    solve : callable
        ``(*args) -> theta``, or ``(*args) -> (theta, aux)`` with ``has_aux``.
    optimality : callable
        ``(theta, *args) -> residual`` with the structure of ``theta``.
    linear_solve : {"dense", "cg"}
        How :math:`\partial_\theta F` is inverted (module docstring).
    has_aux : bool
        ``solve`` also returns ``aux`` (passed through, no derivative).

    Returns
    -------
    callable
        ``fit(*args)`` with the output of ``solve``.

    Examples
    --------
    >>> import jax, jax.numpy as jnp
    >>> from jaxclassic._implicit import implicit_fit
    >>> def solve(a):  # Newton's iteration for sqrt(a), 30 steps
    ...     return jax.lax.fori_loop(0, 30, lambda _, x: 0.5 * (x + a / x), a)
    >>> root = implicit_fit(solve, lambda x, a: x * x - a)
    >>> float(jax.grad(root)(9.0))  # 1 / (2 * 3)
    0.16666666666666666

    References
    ----------
    Blondel et al., "Efficient and Modular Implicit Differentiation", NeurIPS 2022.
    """
    _tangent_solve(linear_solve)  # validates the choice now

    @functools.wraps(solve)
    def fit(*args):
        out = solve(*jax.lax.stop_gradient(args))
        theta, aux = out if has_aux else (out, None)
        theta = with_implicit_derivatives(optimality, theta, *args, linear_solve=linear_solve)
        return (theta, aux) if has_aux else theta

    return fit


@functools.lru_cache(maxsize=None)
def _raising_identity(name: str, reason: str):
    @jax.custom_jvp
    def identity(x):
        return x

    @identity.defjvp
    def _jvp(primals, tangents):
        raise TypeError(f"{name} has no derivative with respect to its inputs: {reason}. "
                        "jax.grad / jax.jvp through it is not defined (it would be zero almost "
                        "everywhere, or undefined, rather than a useful gradient).")

    return identity


def nondifferentiable(name: str, x: Any, *, reason: str) -> Any:
    """The identity on ``x``, whose derivative raises a ``TypeError`` naming ``name``.

    Put it on the inputs of a fit with no derivative (trees, k-means assignments, the
    perceptron's mistakes...): ``jax.grad`` / ``jax.jvp`` with respect to anything that
    reaches it then fails with a clear message instead of JAX's ``while_loop`` error or a
    silent zero. Calls that are not differentiated (plain, ``jit``, ``vmap``) are unaffected.

    Parameters
    ----------
    name : str
        The fit, e.g. ``"fit_kmeans"``.
    x : pytree of arrays
        Passed through unchanged.
    reason : str
        Why there is no derivative, e.g. ``"cluster assignments are piecewise constant in
        the data"``.

    Returns
    -------
    pytree
        ``x``.

    Raises
    ------
    TypeError
        When differentiated: ``"<name> has no derivative with respect to its inputs:
        <reason>. ..."``.

    Examples
    --------
    >>> import jax
    >>> from jaxclassic._implicit import nondifferentiable
    >>> f = lambda x: nondifferentiable("fit_step", x, reason="a step function") > 0
    >>> bool(f(1.0))
    True
    >>> jax.grad(lambda x: nondifferentiable("fit_step", x, reason="a step function") * 2.0)(1.0)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    TypeError: fit_step has no derivative with respect to its inputs: a step function. ...
    """
    if not isinstance(name, str) or not isinstance(reason, str):
        raise TypeError("nondifferentiable: name and reason must be str, got "
                        f"{type(name).__name__} and {type(reason).__name__}")
    return _raising_identity(name, reason)(x)
