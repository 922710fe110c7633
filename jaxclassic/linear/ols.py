r"""Ordinary (weighted) least squares by the normal equations, and its classical inference.

Objective, with sample weights :math:`w_i \ge 0`:

.. math::

    \min_{\beta, b}\ \sum_i w_i\,(y_i - x_i^\top\beta - b)^2 .

With ``fit_intercept`` the data are centred by their weighted means
(:mod:`jaxclassic.linear._gram`) and :math:`b = \bar y - \bar x^\top\beta`; :math:`\beta`
solves the normal equations :math:`G\beta = g` with :math:`G = X_c^\top W X_c`,
:math:`g = X_c^\top W y_c`, by a Cholesky factorisation :math:`G = LL^\top` (two triangular
solves). When :math:`G` is numerically singular — collinear or constant columns, or fewer
(weighted) rows than features — the Cholesky pivots collapse, and the fit falls back to the
**minimum-norm** least-squares solution :math:`\beta = G^{+} g`. This is the same solution as
``numpy.linalg.lstsq`` / scikit-learn's ``LinearRegression`` (which apply the pseudo-inverse
to the centred data), and a
:class:`RankDeficientWarning` names the rank found (only when the fit runs eagerly: under
``jit`` / ``vmap`` the rank is a tracer and no warning is issued). A constant column (with
an intercept) gets coefficient exactly 0 (:mod:`jaxclassic.linear._gram`); a single row gives
``coef = 0`` and ``intercept = y``; ``n_samples <= n_features`` gives the minimum-norm
interpolant.

**Scale invariance.** Both paths work on the equilibrated
:math:`G_s = S^{-1}GS^{-1}`, :math:`S = \operatorname{diag}(\sqrt{G_{jj}})` (unit diagonal;
:func:`jaxclassic.linear._gram.equilibrate`), so rescaling a column (a change of units)
changes neither the rank found nor the fit. Numerical rank: eigenvalues of :math:`G_s` at most
``rcond`` times the largest count as zero, ``rcond`` defaulting to
:math:`10\max(n, d)\,\varepsilon` (:math:`\varepsilon` the dtype's machine epsilon, :math:`n`
the rows): an entry of the computed :math:`G` is an inner product of length :math:`n`, whose
rounding error is bounded by about :math:`n\varepsilon` of its scale (Higham, *Accuracy and
Stability of Numerical Algorithms*, 2nd ed., §3.1), so a smaller pivot is rounding noise, not
a direction of the data (with :math:`10d\varepsilon` alone, a pivot of 1.5e-14 made of noise
passed the cut on 24 rows at :math:`\operatorname{cond}(X) = 10^{10}` and gave coefficients
off by 10^4). The Cholesky
path is taken when every pivot :math:`L_{jj}^2` of :math:`G_s` exceeds ``rcond`` (that is,
:math:`1-R_j^2 > \text{rcond}`, with :math:`R_j^2` from regressing column :math:`j` on the
earlier ones). In the fallback, :math:`\beta_0 = S^{-1}G_s^{+}S^{-1}g` solves the normal
equations, and its component in the null space :math:`S^{-1}\ker G_s` of :math:`G` is removed,
which gives the least Euclidean-norm solution (lstsq's), not the least
:math:`\lVert S\beta\rVert` one; the fitted values are the same. Forming :math:`G` squares the condition number, so
this fit is for well- to moderately-conditioned problems (condition number of :math:`X_c`
well below :math:`\varepsilon^{-1/2}`, about 3000 in float32 and :math:`10^8` in float64).

References
----------
Hastie, Tibshirani & Friedman, *The Elements of Statistical Learning*, 2nd ed., §3.2
(least squares, eq. 3.6; inference, eqs. 3.8-3.12).
Golub & Van Loan, *Matrix Computations*, 4th ed., §5.3 (normal equations by Cholesky) and
§5.5 (rank-deficient least squares, minimum-norm solution).
"""

from __future__ import annotations

import warnings
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
from jax.scipy.special import betainc, ndtri

from jaxclassic import _deprecation
from jaxclassic import _jit
from jaxclassic import _linalg
from jaxclassic._linalg import cho_solve
from jaxclassic import _precision
from jaxclassic._solver import iterate
from jaxclassic.exceptions import RankDeficientWarning
from jaxclassic.linear._gram import check_gram_data, solve_normal_equations, weighted_gram
from jaxclassic.linear._params import LinearParams
from jaxclassic.linear.inference import InferenceResult, coefficient_names
from jaxclassic.validation import (
    as_operand,
    check_bool,
    check_sample_weight,
    check_scalar,
    check_X_y,
    is_traced,
)

__all__ = ["LinearParams", "RankDeficientWarning", "InferenceResult", "fit_ols", "ols_inference"]


# the result type before 0.2.0 (issue 27: one inference type for every fit)
__getattr__ = _deprecation.renamed_module_attributes(
    __name__, OLSInference=(InferenceResult, "jaxclassic.linear.InferenceResult"))


def _default_rcond(n_samples: int, n_features: int, dtype) -> float:
    return 10.0 * max(n_samples, n_features, 1) * float(jnp.finfo(dtype).eps)


@partial(_jit.jit, static_argnames=("fit_intercept",))
def _fit_ols(X, y, sample_weight, rcond, *, fit_intercept):
    stats = weighted_gram(X, y, sample_weight, fit_intercept)
    coef, rank = solve_normal_equations(stats.gram, stats.xty, rcond)
    intercept = stats.y_mean - _precision.dot(stats.x_mean, coef)
    if not fit_intercept:
        intercept = jnp.zeros((), X.dtype)
    return LinearParams(coef, intercept), rank


def fit_ols(X, y, *, fit_intercept: bool = True, sample_weight=None, rcond=None) -> LinearParams:
    r"""Ordinary (weighted) least squares by the normal equations.

    Minimises :math:`\sum_i w_i (y_i - x_i^\top\beta - b)^2` (module docstring): Cholesky on
    the weighted, centred Gram matrix, falling back to the minimum-norm solution
    :math:`G^{+}g` with a :class:`RankDeficientWarning` when it is singular (collinear or
    constant columns, ``n_samples <= n_features``, a single row). In that case the intercept
    is still :math:`\bar y - \bar x^\top\beta`, and a constant column gets coefficient 0.

    Parameters
    ----------
    X : (n_samples, n_features) array-like, or a ``scipy.sparse`` matrix
        Sparse ``X`` (at most :data:`jaxclassic.linear._gram.MAX_GRAM_FEATURES` columns) gives
        the Gram matrix by sparse products, never the dense ``X``
        (:func:`jaxclassic.linear._gram.sparse_weighted_gram`); the fit equals the dense one
        to round-off.
    y : (n_samples,) array-like
    fit_intercept : bool, default True
        Fit an unpenalised intercept by weighted centring (static).
    sample_weight : (n_samples,) array-like, optional
        Non-negative weights; a row of weight 0 has no influence. May be traced (``vmap`` over
        cross-validation folds).
    rcond : float, optional
        Relative eigenvalue cutoff of the numerical rank (default :math:`10\max(n, d)\varepsilon`:
        the rounding error of the Gram matrix's length-:math:`n` inner products).

    Returns
    -------
    LinearParams
        ``coef`` (n_features,), ``intercept`` ().

    Example
    -------
    >>> import jax.numpy as jnp
    >>> X = jnp.array([[0.0], [1.0], [2.0]]); y = 1.0 + 2.0 * X[:, 0]
    >>> params = fit_ols(X, y)
    >>> params.coef, params.intercept  # doctest: +SKIP
    (Array([2.], dtype=float32), Array(1., dtype=float32))

    References
    ----------
    Hastie, Tibshirani & Friedman, *The Elements of Statistical Learning*, 2nd ed., §3.2.
    Golub & Van Loan, *Matrix Computations*, 4th ed., §5.3, §5.5.
    """
    X, y = check_gram_data(X, y, model="fit_ols")
    sw = check_sample_weight(sample_weight, X.shape[0], dtype=X.dtype)
    n_features = X.shape[1]
    if rcond is None:
        rcond = _default_rcond(X.shape[0], n_features, X.dtype)
    else:
        check_scalar(rcond, "rcond", low=0.0, high=1.0)
    params, rank = _fit_ols(X, y, sw, as_operand(rcond, X.dtype),
                            fit_intercept=check_bool(fit_intercept, "fit_intercept"))
    if not is_traced(rank):
        rank = int(rank)
        if rank < n_features:
            warnings.warn(
                f"X has numerical rank {rank} < n_features={n_features} after "
                f"{'centring and ' if fit_intercept else ''}weighting (collinear or constant "
                "columns, or too few rows): the Gram matrix X^T W X is singular, so fit_ols "
                "returns the minimum-norm least-squares solution",
                RankDeficientWarning,
                stacklevel=2,
            )
    return params


# --------------------------------------------------------------------------- inference
def _t_two_sided_pvalue(t, df):
    r""":math:`P(|T| \ge |t|) = I_{df/(df+t^2)}(df/2, 1/2)` (regularised incomplete beta)."""
    return betainc(df / 2, jnp.asarray(0.5, t.dtype), df / (df + jnp.square(t)))


def _t_quantile(q, df):
    r"""Quantile of Student's t for :math:`q \in (1/2, 1)` by Newton's method on the CDF.

    Starts at the normal quantile, which lies below the t quantile; on :math:`t > 0` the CDF is
    concave, so the Newton iterates increase monotonically to the root without overshooting.
    """
    dtype = jnp.result_type(q, df)

    def cdf(x):
        return 1 - 0.5 * betainc(df / 2, jnp.asarray(0.5, dtype), df / (df + jnp.square(x)))

    def pdf(x):
        return jnp.exp(jax.scipy.stats.t.logpdf(x, df))

    def step(x):
        x_new = x + (q - cdf(x)) / pdf(x)
        return x_new, jnp.abs(x_new - x) / jnp.maximum(jnp.abs(x_new), 1)

    tol = 4 * jnp.finfo(dtype).eps
    return iterate(step, ndtri(q).astype(dtype), max_iter=200, tol=tol).carry


@partial(_jit.jit, static_argnames=("fit_intercept",))
def _ols_inference(coef, intercept, X, y, sample_weight, alpha, *, fit_intercept):
    stats = weighted_gram(X, y, sample_weight, fit_intercept)
    n_features = X.shape[1]
    sw = sample_weight.astype(X.dtype)
    resid = y - (_precision.matmul(X, coef) + intercept)
    rss = jnp.sum(sw * jnp.square(resid))
    n_eff = jnp.sum(sw > 0).astype(X.dtype)
    df_resid = n_eff - n_features - (1 if fit_intercept else 0)
    sigma2 = rss / df_resid
    chol = _linalg.cholesky(stats.gram)
    gram_inv = cho_solve((chol, True), jnp.eye(n_features, dtype=X.dtype))
    cov_coef = sigma2 * gram_inv
    if fit_intercept:
        # inverse of the (1 + p) Gram of [1, X] by blocks, from the centred Gram
        # (ESL eq. 3.8 with the intercept column; no cancellation from uncentred sums)
        gx = _precision.matmul(gram_inv, stats.x_mean)
        var_b = sigma2 * (1 / stats.sw_sum + _precision.dot(stats.x_mean, gx))
        cov_b_coef = -sigma2 * gx
        covariance = jnp.block([[var_b[None, None], cov_b_coef[None, :]],
                                [cov_b_coef[:, None], cov_coef]])
        estimates = jnp.concatenate([intercept[None], coef])
    else:
        covariance = cov_coef
        estimates = coef
    std_errors = jnp.sqrt(jnp.diagonal(covariance))
    t_values = estimates / std_errors
    p_values = _t_two_sided_pvalue(t_values, df_resid)
    quantile = _t_quantile(1 - alpha / 2, df_resid)
    conf_int = jnp.stack([estimates - quantile * std_errors, estimates + quantile * std_errors], axis=1)
    return estimates, std_errors, t_values, p_values, conf_int, covariance, df_resid, sigma2, rss


def ols_inference(params, X, y, *, fit_intercept: bool = True, sample_weight=None,
                  alpha: float = 0.05, feature_names=None) -> InferenceResult:
    r"""Standard errors, t statistics, p-values and confidence intervals of an OLS fit.

    Under the linear model :math:`y = \tilde X\theta + \varepsilon`,
    :math:`\varepsilon_i \sim N(0, \sigma^2/w_i)` independent (``sample_weight`` are precision
    weights, as in statsmodels' ``WLS``; all ones gives ``OLS``), with
    :math:`\tilde X = [\mathbf 1, X]` and :math:`\theta = (b, \beta)`:

    .. math::

        \hat\sigma^2 = \frac{\sum_i w_i r_i^2}{n - p - 1}, \qquad
        \widehat{\mathrm{Cov}}(\hat\theta) = \hat\sigma^2 (\tilde X^\top W \tilde X)^{-1},
        \qquad t_j = \hat\theta_j / \widehat{\mathrm{se}}_j,

    p-value :math:`P(|T_{n-p-1}| \ge |t_j|)` and interval
    :math:`\hat\theta_j \pm t_{1-\alpha/2,\,n-p-1}\,\widehat{\mathrm{se}}_j`. Here :math:`n`
    counts the rows of positive weight (a zero-weight row has no influence) and :math:`p` the
    columns of ``X``; without an intercept the degrees of freedom are :math:`n - p`. The
    inverse Gram matrix is taken by Cholesky of the centred Gram :math:`G` and the block
    formula for the intercept, so ``X`` must have full column rank (else the results are
    NaN, with a ``RankDeficientWarning`` outside ``jit``) and :math:`n > p + 1`.

    Parameters
    ----------
    params : LinearParams
        A fit of ``(X, y)`` from :func:`fit_ols` with the same ``fit_intercept`` and
        ``sample_weight``.
    X : (n_samples, n_features) array-like
    y : (n_samples,) array-like
    fit_intercept : bool, default True
        Whether ``params`` has a fitted intercept (it is then the first row of every output).
    sample_weight : (n_samples,) array-like, optional
    alpha : float in (0, 1), default 0.05
        ``1 - alpha`` is the confidence level of ``conf_int``.
    feature_names : sequence of n_features str, optional
        Names of the columns in ``names`` (default statsmodels' ``x1, x2, ...``).

    Returns
    -------
    InferenceResult
        ``estimates, std_errors, statistics`` (t values), ``p_values, conf_int, covariance,
        names`` (``const, x1, ...``), with ``statistic="t"`` and OLS's ``df_resid, sigma2,
        rss``; order ``[intercept, coef...]``. ``summary()`` prints statsmodels' table.
        (Before 0.2.0 this was ``OLSInference`` with ``t_values`` for ``statistics``; the old
        name still works with a ``DeprecationWarning`` until 0.3.0.)

    Example
    -------
    >>> import jax.numpy as jnp
    >>> X = jnp.array([[0.0], [1.0], [2.0], [3.0]]); y = jnp.array([1.0, 2.9, 5.2, 7.0])
    >>> inf = ols_inference(fit_ols(X, y), X, y)
    >>> inf.std_errors.shape, inf.names, inf.statistic
    ((2,), ('const', 'x1'), 't')

    References
    ----------
    Hastie, Tibshirani & Friedman, *The Elements of Statistical Learning*, 2nd ed., §3.2,
    eqs. 3.8-3.12.
    """
    if not isinstance(params, LinearParams):
        raise TypeError(f"params must be LinearParams from fit_ols, got {type(params).__name__}")
    X, y = check_X_y(X, y)
    sw = check_sample_weight(sample_weight, X.shape[0], dtype=X.dtype)
    check_scalar(alpha, "alpha", low=0.0, high=1.0, include_low=False, include_high=False)
    fit_intercept = check_bool(fit_intercept, "fit_intercept")
    coef = jnp.asarray(params.coef, X.dtype)
    if coef.shape != (X.shape[1],):
        raise ValueError(f"params.coef has shape {coef.shape}, but X has {X.shape[1]} features")
    names = coefficient_names(X.shape[1], fit_intercept, feature_names)
    n_params = X.shape[1] + (1 if fit_intercept else 0)
    if not is_traced(sw):
        n_eff = int(np.sum(np.asarray(sw) > 0))
        if n_eff <= n_params:
            raise ValueError(
                f"ols_inference needs more rows of positive weight than parameters "
                f"({n_params}), got {n_eff}: the residual degrees of freedom would be <= 0"
            )
    alpha = jnp.asarray(alpha, X.dtype)
    (estimates, std_errors, t_values, p_values, conf_int, covariance, df_resid, sigma2,
     rss) = _ols_inference(coef, jnp.asarray(params.intercept, X.dtype), X, y, sw, alpha,
                           fit_intercept=bool(fit_intercept))
    result = InferenceResult(estimates, std_errors, t_values, p_values, conf_int, covariance,
                             names, "t", bool(fit_intercept), alpha, df_resid, sigma2, rss)
    if not is_traced(result.covariance) and not np.all(np.isfinite(np.asarray(result.covariance))):
        warnings.warn(
            "ols_inference: the Gram matrix of X is singular (collinear or constant columns, "
            "or too few rows), so the coefficients are not identified and every standard "
            "error, t value, p-value and interval is NaN; drop the collinear columns "
            "(statsmodels reports pseudo-inverse standard errors instead)",
            RankDeficientWarning, stacklevel=2)
    return result
