r"""Optimality conditions of the SVM fits, for their implicit derivatives (issue 14).

Each function is a residual :math:`F(\theta, h)` that is 0 at the solution; the fits attach
:math:`\partial_h\theta^\star = -(\partial_\theta F)^{-1}\partial_h F` to the solver's
:math:`\theta^\star` with :func:`jaxclassic._implicit.with_implicit_derivatives` (the solvers'
loops are never differentiated, and the forward values are the solvers', bit for bit).

**The box-constrained duals** are written as the fixed point of a projected gradient step
(Blondel et al. 2022, §2.1),

.. math::

    F_\alpha(\alpha, b) = \alpha - \Pi_{[0, u]}\bigl(\alpha - \nabla_\alpha L(\alpha, b)\bigr) = 0,

:math:`\Pi` the clip to the box. At a solution the clip is differentiable except on a
degenerate set (a multiplier at its bound with a zero gradient): on the *free* variables
(:math:`0 < \alpha_i < u_i`) the row of :math:`F` is :math:`\nabla_{\alpha_i}L = 0` (the KKT
equation of a free support vector), on the bound ones it is :math:`\alpha_i - u_i` or
:math:`\alpha_i` (the bound, held: a bound variable moves only with its bound
:math:`u_i = Cs_i`). So the implicit system is the KKT system on the free support vectors,
as issue 14 asks, without ever forming the active set by hand.

* :func:`linear_svm` (LIBLINEAR's dual, no equality constraint; the bias is the penalised
  weight :math:`w_b` of the constant feature :math:`c`): :math:`\theta = (w, w_b, \alpha)`,
  :math:`\nabla_{\alpha_i}L = t_i(x_i^\top w + c\,w_b) - 1 + D_{ii}\alpha_i`
  (:math:`D_{ii} = 1/(2Cs_i)` for the squared hinge, 0 and :math:`u_i = Cs_i` for the hinge;
  :math:`u_i = \infty` for the squared hinge), with :math:`w = \sum_i\alpha_it_ix_i`,
  :math:`w_b = c\sum_i\alpha_it_i` as residuals of their own. For the squared hinge this is
  equivalent to the primal's :math:`\nabla P(\tilde w) = 0` (a :math:`C^1` objective whose
  generalised Hessian is positive definite); for the hinge it needs the free support vectors'
  augmented rows to be linearly independent (generic data).
* :func:`dual_qp` (LIBSVM's C-SVC and ε-SVR, :mod:`jaxclassic.svm._smo`'s problem
  :math:`\min\tfrac12\alpha^\top Q\alpha + p^\top\alpha`, :math:`y^\top\alpha = 0`,
  :math:`0 \le \alpha \le u`): :math:`\theta = (\alpha, b)`, :math:`\nabla_\alpha L = Q\alpha
  + p + b\,y` (:math:`b = -\rho` the multiplier of the equality, the intercept), and the
  equality itself :math:`F_b = y^\top\alpha`. Invertible when at least one variable is free
  and :math:`Q` is positive definite on the free ones; with no free support vector the
  intercept is not determined by the KKT conditions (LIBSVM takes the midpoint of an
  interval) and its derivative is not defined.

References
----------
Blondel, Berthet, Cuturi, Frostig, Hoyer, Llinares-López, Pedregosa & Vert, "Efficient and
modular implicit differentiation", NeurIPS 2022 (the projected-gradient fixed point).
Chapelle, Vapnik, Bousquet & Mukherjee, "Choosing multiple parameters for support vector
machines", Machine Learning 46 (2002) (derivatives of the SVM solution through the KKT system
on the free support vectors).
"""

from __future__ import annotations

import jax.numpy as jnp

from jaxclassic import _precision

__all__ = ["linear_svm", "dual_qp"]


def linear_svm(theta, X, t, sw, C, c, *, loss: str):
    r"""Residual of LIBLINEAR's dual at :math:`\theta = (w, w_b, \alpha)` (module docstring).

    ``X`` (n, d), signs ``t`` (n,), weights ``sw`` (n,), ``C`` and the bias feature ``c``
    (scalars); ``loss`` is ``"hinge"`` or ``"squared_hinge"`` (static). Rows of weight 0 have
    the box :math:`[0, 0]`: their residual is :math:`\alpha_i`.
    """
    w, wb, alpha = theta
    dtype = X.dtype
    positive = sw > 0
    Cs = C * jnp.where(positive, sw, 0)
    if loss == "hinge":
        upper = Cs
        diag = jnp.zeros_like(alpha)
    else:
        upper = jnp.where(positive, jnp.asarray(jnp.inf, dtype), 0)
        diag = jnp.where(positive, 0.5 / jnp.where(positive, Cs, 1), 0)
    f = _precision.matmul(X, w) + c * wb
    grad = t * f - 1 + diag * alpha
    beta = alpha * t
    return (w - _precision.matmul(beta, X),
            wb - c * jnp.sum(beta),
            alpha - jnp.clip(alpha - grad, 0, upper))


def dual_qp(theta, K, y, p, upper, *, doubled: bool):
    r"""Residual of the SMO dual :math:`\min\tfrac12\alpha^\top Q\alpha + p^\top\alpha`,
    :math:`y^\top\alpha = 0`, :math:`0 \le \alpha \le u` at :math:`\theta = (\alpha, b)`.

    ``K`` (n, n) the kernel matrix of the training rows; ``y``, ``p``, ``upper`` (m,) with
    :math:`m = n` (C-SVC) or :math:`2n` (ε-SVR, ``doubled``: variable :math:`t` reads row
    :math:`t \bmod n`). :math:`Q\alpha = y \odot (K\beta)_{r(t)}` with
    :math:`\beta = \sum_t \alpha_t y_t e_{r(t)}`, so :math:`Q` is never formed.
    """
    alpha, b = theta
    ya = alpha * y
    n = K.shape[0]
    beta = ya[:n] + ya[n:] if doubled else ya
    Kb = _precision.matmul(K, beta)
    if doubled:
        Kb = jnp.concatenate([Kb, Kb])
    grad = y * Kb + p + b * y
    return alpha - jnp.clip(alpha - grad, 0, upper), jnp.sum(ya)
