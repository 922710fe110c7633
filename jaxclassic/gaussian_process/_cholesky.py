r"""The Cholesky factorisation of a GP covariance, with jitter, and its derivatives.

:func:`cholesky_with_jitter` factorises :math:`C` and, when that fails (a matrix singular to
working precision: duplicate inputs without noise), retries with :math:`C + \delta I` on the
rows of positive weight, :math:`\delta = 10\,n\,\epsilon\,\overline{C_{ii}}\cdot 10^{k}`,
``k = 0 .. N_JITTER_LEVELS - 1`` (the size of Cholesky's own backward error, Higham 2002,
Thm 10.3), inside one ``lax.while_loop``. A while loop has no reverse-mode derivative, so both
functions here carry a custom one (δ held fixed):

* the factor: :math:`\dot L = L\,\Phi(L^{-1}\dot C L^{-\top})`, Φ the lower triangle with a
  halved diagonal (Murray 2016, eq. 10);
* the Gaussian log density :math:`-\tfrac12 t^\top C^{-1}t - \tfrac12\log|C|` of
  :func:`gaussian_log_density`: :math:`\tfrac12\alpha^\top\dot C\alpha -
  \tfrac12\langle C^{-1}, \dot C\rangle - \alpha^\top\dot t` (R&W eq. 5.9), so a gradient
  of the marginal likelihood costs one :math:`C^{-1}` instead of the transposed derivative of
  the factorisation.

References
----------
Murray, "Differentiation of the Cholesky decomposition", arXiv:1602.07527, 2016.
Rasmussen & Williams, *Gaussian Processes for Machine Learning*, MIT Press 2006, eq. 5.9.
Higham, *Accuracy and Stability of Numerical Algorithms*, 2nd ed., SIAM 2002, ch. 10.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxclassic import _linalg
from jaxclassic._linalg import solve_triangular
from jaxclassic import _precision

__all__ = [
    "N_JITTER_LEVELS",
    "NumericalJitterWarning",
    "cholesky_with_jitter",
    "cho_solve",
    "gaussian_log_density",
    "log_density",
]

#: jitter levels tried after a failed factorisation (module docstring)
N_JITTER_LEVELS = 6


class NumericalJitterWarning(UserWarning):
    """The GP covariance was not numerically positive definite and jitter was added to its diagonal."""


def _cholesky_search(C, rows):
    """``(L, δ)``: Cholesky of ``C + δ diag(rows)`` for the first δ of 0, base·10^k that works."""
    n_rows = jnp.maximum(jnp.sum(rows), 1)
    mean_diagonal = jnp.sum(jnp.diagonal(C) * rows) / n_rows
    base = 10 * n_rows * jnp.finfo(C.dtype).eps * mean_diagonal

    def attempt(delta):
        L = _linalg.cholesky(C + jnp.diag(delta * rows))
        return L, jnp.all(jnp.isfinite(L))

    L0, ok0 = attempt(jnp.zeros((), C.dtype))

    def cond(state):
        k, _, ok, _ = state
        return jnp.logical_not(ok) & (k < N_JITTER_LEVELS)

    def body(state):
        k, _, _, _ = state
        delta = base * jnp.asarray(10.0, C.dtype) ** k
        L, ok = attempt(delta)
        return k + 1, L, ok, delta

    _, L, ok, delta = jax.lax.while_loop(cond, body, (jnp.int32(0), L0, ok0, jnp.zeros((), C.dtype)))
    eye = jnp.eye(C.shape[0], dtype=C.dtype)
    return jnp.where(ok, L, eye), jnp.where(ok, delta, jnp.nan)


@jax.custom_jvp
def cholesky_with_jitter(C, rows):
    r"""Lower Cholesky factor of the symmetric ``C`` (+ jitter on ``rows``) and the jitter used.

    Returns ``(L, δ)`` with :math:`LL^\top = C + \delta\,\mathrm{diag}(rows)`, δ the first of 0,
    :math:`10 n\epsilon\overline{C_{ii}}\cdot 10^k` (``k < N_JITTER_LEVELS``) that factorises;
    ``L = I`` and ``δ = NaN`` when none does. Differentiable in ``C`` (δ held fixed):
    :math:`\dot L = L\,\Phi(L^{-1}\dot C L^{-\top})`, Φ the lower triangle with a halved
    diagonal (Murray 2016, eq. 10).
    """
    return _cholesky_search(C, rows)


@cholesky_with_jitter.defjvp
def _cholesky_with_jitter_jvp(primals, tangents):
    C, rows = primals
    dC, _ = tangents
    L, delta = _cholesky_search(C, rows)
    dC = 0.5 * (dC + dC.T)
    A = solve_triangular(L, dC, lower=True)  # L^{-1} dC
    M = solve_triangular(L, A.T, lower=True)  # L^{-1} dC L^{-T} (dC symmetric)
    phi = jnp.tril(M) - 0.5 * jnp.diag(jnp.diagonal(M))
    dL = jnp.where(jnp.isfinite(delta), _precision.matmul(L, phi), 0.0)
    return (L, delta), (dL, jnp.zeros_like(delta))


def cho_solve(L, b):
    """:math:`(LL^\\top)^{-1} b` by two triangular solves."""
    return solve_triangular(L.T, solve_triangular(L, b, lower=True), lower=False)


@jax.custom_jvp
def gaussian_log_density(C, t, rows):
    r""":math:`-\tfrac12 t^\top C^{-1}t - \tfrac12\log|C|` by Cholesky (with jitter), with its
    closed-form derivative.

    The tangent is :math:`\tfrac12\alpha^\top\dot C\alpha - \tfrac12\langle C^{-1},
    \dot C\rangle - \alpha^\top\dot t` (:math:`\alpha = C^{-1}t`; R&W eq. 5.9), so a
    reverse-mode gradient costs one :math:`C^{-1}` (two triangular solves) instead of the
    transposed derivative of the factorisation. :math:`-\infty` when the factorisation fails.
    """
    L, jitter = _cholesky_search(C, rows)
    return log_density(L, cho_solve(L, t), t, rows, jitter)


def log_density(L, alpha, t, rows, jitter):
    """:math:`-\\tfrac12 t^\\top\\alpha - \\sum_i \\log L_{ii}` over the kept rows; :math:`-\\infty` when δ is NaN."""
    value = -0.5 * _precision.dot(t, alpha) - jnp.sum(rows * jnp.log(jnp.diagonal(L)))
    return jnp.where(jnp.isfinite(jitter), value, -jnp.inf)


@gaussian_log_density.defjvp
def _gaussian_log_density_jvp(primals, tangents):
    C, t, rows = primals
    dC, dt, _ = tangents
    L, jitter = _cholesky_search(C, rows)
    alpha = cho_solve(L, t)
    C_inv = cho_solve(L, jnp.eye(C.shape[0], dtype=C.dtype))
    tangent = (0.5 * _precision.dot(alpha, _precision.matmul(dC, alpha)) - 0.5 * jnp.sum(C_inv * dC)
               - _precision.dot(alpha, dt))
    return log_density(L, alpha, t, rows, jitter), jnp.where(jnp.isfinite(jitter), tangent, 0.0)
