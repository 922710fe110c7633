r"""The elastic net: L1 + L2 penalised least squares by the lasso's coordinate descent.

Objective (scikit-learn's ``ElasticNet``, with sample weights :math:`w_i`)

.. math::

    \min_{\beta, b}\ \frac{1}{2\sum_i w_i}\sum_i w_i\,(y_i - x_i^\top\beta - b)^2
    \;+\; \alpha\rho\,\lVert\beta\rVert_1 \;+\; \frac{\alpha(1-\rho)}{2}\lVert\beta\rVert_2^2 ,

:math:`\rho` = ``l1_ratio`` (1: the lasso, 0: ridge with scikit-learn's ``1/(2n)`` scaling).
The intercept is not penalised (centred data, as :mod:`jaxclassic.linear.lasso`). In the
normalised Gram form the ridge term only adds :math:`\alpha(1-\rho)` to the diagonal,

.. math::

    \tfrac12\beta^\top G\beta - c^\top\beta + \tfrac{\alpha(1-\rho)}{2}\lVert\beta\rVert^2
    = \tfrac12\beta^\top\bigl(G + \alpha(1-\rho) I\bigr)\beta - c^\top\beta ,

so the fit IS the lasso (:func:`jaxclassic.linear.lasso._cd_gram`: the same cyclic sweeps with
soft-thresholding, :math:`\beta_j \leftarrow S(c_j - \sum_{k\ne j}G'_{jk}\beta_k,\ \alpha\rho)
/ (G_{jj} + \alpha(1-\rho))`, Friedman, Hastie & Tibshirani 2010 eq. 5) on
:math:`G' = G + \alpha(1-\rho) I`. That Gram matrix is the one of the augmented data
:math:`X' = [X;\ \sqrt{n\alpha(1-\rho)}\,I]`, :math:`y' = [y;\ 0]` (Zou & Hastie 2005, Lemma
1), so the lasso's duality gap (scikit-learn's formulation: the dual point is the rescaled
residual :math:`r' = (r, -\sqrt{n\alpha(1-\rho)}\beta)`) is a duality gap of the elastic net,
and the stopping rule is the lasso's: the gap relative to :math:`\lVert y_c\rVert_W^2/\sum w`
at most ``tol``, as scikit-learn's ``ElasticNet``. Derivatives (``alpha``, ``l1_ratio``, the
data) come from the lasso's proximal fixed point on :math:`G'`.

References
----------
Zou & Hastie, "Regularization and variable selection via the elastic net", JRSS B 67 (2005).
Friedman, Hastie & Tibshirani, "Regularization paths for generalized linear models via
coordinate descent", J. Stat. Software 33 (2010), §2.
"""

from __future__ import annotations

from functools import partial
from typing import NamedTuple

import jax
import jax.numpy as jnp

from jaxclassic import _jit, _precision, losses
from jaxclassic._implicit import with_implicit_derivatives
from jaxclassic.linear._api import predict
from jaxclassic.linear._params import predict_linear
from jaxclassic.linear.lasso import (
    _cd_gram,
    _check_coef_init,
    _check_common,
    _normalised_gram,
    _optimality,
)
from jaxclassic.validation import as_operand, check_bool, check_scalar

__all__ = ["ElasticNetParams", "fit_elastic_net", "elastic_net_objective"]


class ElasticNetParams(NamedTuple):
    """A fitted elastic net (the fields of :class:`~jaxclassic.linear.LassoParams`).

    Attributes
    ----------
    coef : (n_features,) array
    intercept : scalar array
    n_iter : int32 scalar — coordinate-descent sweeps taken.
    converged : bool scalar — whether the duality gap met ``tol`` within ``max_iter``.
    dual_gap : scalar — the duality gap at exit, in the units of the objective (clamped at 0).
    """

    coef: jax.Array
    intercept: jax.Array
    n_iter: jax.Array
    converged: jax.Array
    dual_gap: jax.Array


@partial(_jit.jit, static_argnames=("fit_intercept", "max_iter", "stopping", "positive"))
def _fit_elastic_net(X, y, sample_weight, alpha, l1_ratio, tol, coef_init, *, fit_intercept,
                     max_iter, stopping, positive=False):
    G, c, yy, x_mean, y_mean = _normalised_gram(X, y, sample_weight, fit_intercept)
    l1 = alpha * l1_ratio
    # the ridge part on the diagonal: the lasso on the augmented data's Gram matrix
    G = G + (alpha * (1 - l1_ratio)) * jnp.eye(G.shape[0], dtype=G.dtype)
    beta, n_iter, converged, gap = _cd_gram(
        *jax.lax.stop_gradient((G, c, yy, l1)), jax.lax.stop_gradient(coef_init),
        max_iter=max_iter, tol=tol, stopping=stopping, positive=positive
    )
    beta = with_implicit_derivatives(partial(_optimality, positive=positive), beta, G, c, l1)
    intercept = y_mean - _precision.dot(x_mean, beta)
    return ElasticNetParams(beta, intercept, n_iter, converged, gap)


def elastic_net_objective(params, X, y, alpha, l1_ratio, sample_weight=None):
    r"""The elastic-net objective at ``params`` (``coef``, ``intercept``):
    :math:`\frac{1}{\sum w}\sum_i w_i\,\ell(y_i, x_i^\top\beta + b) + \alpha\rho\lVert\beta\rVert_1
    + \tfrac{\alpha(1-\rho)}{2}\lVert\beta\rVert^2` with :math:`\ell` =
    :func:`jaxclassic.losses.squared` (:math:`\tfrac12(y-f)^2`), :math:`\rho` = ``l1_ratio``.
    """
    w = jnp.ones(X.shape[0], X.dtype) if sample_weight is None else sample_weight
    f = _precision.matmul(X, params.coef) + params.intercept
    coef = params.coef
    return (jnp.sum(w * losses.squared(y, f)) / jnp.sum(w) + alpha * l1_ratio * jnp.sum(jnp.abs(coef))
            + 0.5 * alpha * (1 - l1_ratio) * jnp.sum(coef**2))


def fit_elastic_net(
    X,
    y,
    *,
    alpha=1.0,
    l1_ratio=0.5,
    fit_intercept: bool = True,
    max_iter: int = 1000,
    tol=1e-4,
    sample_weight=None,
    coef_init=None,
    stopping: str = "gap",
    positive: bool = False,
) -> ElasticNetParams:
    r"""Fit the elastic net by cyclic coordinate descent (the lasso's, on :math:`G + \alpha(1-\rho)I`).

    Minimises :math:`\frac{1}{2\sum w}\sum_i w_i (y_i - x_i^\top\beta - b)^2
    + \alpha\rho\lVert\beta\rVert_1 + \frac{\alpha(1-\rho)}{2}\lVert\beta\rVert^2`, scikit-learn
    ``ElasticNet``'s objective (:math:`\rho` = ``l1_ratio``), the intercept unpenalised. See the
    module docstring.

    Parameters
    ----------
    X : (n_samples, n_features) array or scipy.sparse matrix
        Sparse ``X`` as :func:`jaxclassic.linear.fit_lasso` takes it (the Gram matrix from sparse
        products).
    y : (n_samples,) array
    alpha : float >= 0, default 1.0
        Overall penalty strength (traced).
    l1_ratio : float in [0, 1], default 0.5
        The L1 share :math:`\rho` of the penalty (traced): 1 is the lasso, 0 ridge.
    fit_intercept, max_iter, tol, sample_weight, coef_init, stopping, positive
        As in :func:`jaxclassic.linear.fit_lasso` (``tol`` on the relative duality gap).

    Returns
    -------
    ElasticNetParams
        ``coef``, ``intercept``, ``n_iter``, ``converged``, ``dual_gap``.

    Example
    -------
    >>> import jax.numpy as jnp
    >>> X = jnp.array([[0., 1.], [1., 0.], [2., 1.], [3., 0.]])
    >>> y = jnp.array([0., 1., 2., 3.])
    >>> p = fit_elastic_net(X, y, alpha=0.1, l1_ratio=0.5)
    >>> round(float(p.coef[0]), 3), bool(p.coef[1] == 0)
    (0.923, True)

    References
    ----------
    Zou & Hastie (2005), JRSS B 67; Friedman, Hastie & Tibshirani (2010), J. Stat. Software 33(1).
    """
    X, y, w, max_iter = _check_common(X, y, sample_weight, max_iter, tol, stopping, model="fit_elastic_net")
    check_scalar(alpha, "alpha", low=0)
    check_scalar(l1_ratio, "l1_ratio", low=0, high=1)
    coef_init = _check_coef_init(coef_init, X.shape[1], X.dtype)
    return _fit_elastic_net(
        X, y, w, as_operand(alpha, X.dtype), as_operand(l1_ratio, X.dtype), as_operand(tol, X.dtype),
        coef_init, fit_intercept=check_bool(fit_intercept, "fit_intercept"), max_iter=max_iter,
        stopping=stopping, positive=check_bool(positive, "positive"),
    )


predict.register(ElasticNetParams, predict_linear)
