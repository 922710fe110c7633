r"""Subset selection for least squares: best subset, forward / backward stepwise, and the criteria (Mallows' :math:`C_p`, AIC, BIC, adjusted :math:`R^2`) that pick
the model size. Forward stagewise regression is in :mod:`jaxclassic.linear.stagewise`.

Every fit here works on the weighted Gram form of the (centred, with ``fit_intercept``)
data, :math:`G = X_c^\top W X_c`, :math:`c = X_c^\top W y_c`, rescaled to unit diagonal so
that each subset's normal equations are well conditioned. The least-squares fit on a subset
:math:`S` (a boolean mask :math:`m`) solves the masked system

.. math::

    \bigl(G \odot m m^\top + \operatorname{diag}(1 - m)\bigr)\,\beta = c \odot m ,
    \qquad \mathrm{RSS}(S) = y_c^\top W y_c - c^\top(m\odot\beta),

by Cholesky: the identity on the excluded coordinates keeps every system :math:`p\times p`,
so all subsets (or all candidates of a stepwise step) are one ``vmap``. Constant columns get
coefficient 0. A subset is rank-deficient when a squared Cholesky pivot of its unit-diagonal
Gram (:math:`1 - R_j^2` of a predictor on the others) is below :math:`\sqrt{\varepsilon}`
(about 1.5e-8 in float64, 3.5e-4 in float32): it gets RSS :math:`+\infty` and NaN
coefficients and is never chosen. In :func:`best_subset` a size with no full-rank subset at
all (every size :math:`k \ge n` with an intercept, or exactly collinear columns) has an
all-False mask, RSS :math:`+\infty` and NaN coefficients and criteria.

Conventions for the criteria (``d`` = number of predictors in the model, not counting the
intercept; ``n`` = the number of rows with positive weight, RSS the *weighted* residual sum
of squares — statsmodels' WLS conventions, and those of :func:`jaxclassic.metrics.adjusted_r2`,
so zero-weight rows (other CV folds, padding) do not count and rescaling all weights does
not change the model a criterion picks; :math:`\hat\sigma^2` = RSS of the model with all
:math:`p` predictors over :math:`n - p - 1` (:math:`n - p` without intercept), as ISLR
§6.1.3 and R's ``leaps`` use):

* Mallows' :math:`C_p = (\mathrm{RSS} + 2 d\hat\sigma^2)/n` (ISLR §6.1.3, eq. 6.2; R's ``leaps``
  reports :math:`\mathrm{RSS}/\hat\sigma^2 + 2(d+1) - n`, an increasing affine map of it).
* AIC, BIC: the Gaussian log-likelihood with :math:`\sigma^2` profiled out, as statsmodels'
  ``OLS.aic`` / ``OLS.bic``: :math:`n\log(2\pi\,\mathrm{RSS}/n) + n + \kappa\,k` with
  :math:`k = d + 1` (intercept) or :math:`d`, :math:`\kappa = 2` (AIC) or :math:`\log n`
  (BIC). These differ from R ``leaps``' :math:`n\log(\mathrm{RSS}/n) + d\log n` by a constant,
  so they choose the same model. With ``sigma2`` given, :func:`aic` and :func:`bic` return the
  known-variance forms instead: :math:`(\mathrm{RSS} + 2d\hat\sigma^2)/(n\hat\sigma^2)`
  (ISLR 1st ed. §6.1.3) and :math:`(\mathrm{RSS} + \log(n)\, d\hat\sigma^2)/n` (ISLR §6.1.3).
* adjusted :math:`R^2 = 1 - \frac{\mathrm{RSS}/(n-d-1)}{\mathrm{TSS}/(n-1)}` with the centred
  :math:`\mathrm{TSS} = \sum w_i (y_i - \bar y)^2` (ISLR §6.1.3): computed by
  :func:`jaxclassic.metrics.adjusted_r2` on each model's predictions.

On ISLR's ``Hitters`` data (263 players, 19 predictors) best subset chooses 6 predictors
by BIC, 10 by :math:`C_p` and 11 by adjusted :math:`R^2`, as in ISLR's lab §6.5.1.

References
----------
James, Witten, Hastie & Tibshirani, *An Introduction to Statistical Learning*, §6.1 and lab §6.5.1.
Hastie, Tibshirani & Friedman, *The Elements of Statistical Learning*, 2nd ed., §3.3 (best
subset, stepwise, Algorithm 3.4 forward stagewise), §3.8.1 and Fig. 3.19 (stagewise and the lasso).
Efron, Hastie, Johnstone & Tibshirani, "Least angle regression", Ann. Statist. 32 (2004).
"""

from __future__ import annotations

from functools import partial
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxclassic import _jit
from jaxclassic import _linalg
from jaxclassic import _precision
from jaxclassic.linear._gram import constant_columns, weighted_gram
from jaxclassic.metrics import adjusted_r2
from jaxclassic.validation import (
    check_bool,
    check_int,
    check_sample_weight,
    check_X_y,
    is_traced,
)

__all__ = [
    "SubsetSelection",
    "StepwisePath",
    "aic",
    "bic",
    "mallows_cp",
    "best_subset",
    "forward_stepwise",
    "backward_stepwise",
]

#: the exhaustive search is limited to 2**20 subsets
MAX_BEST_SUBSET_FEATURES = 20


class SubsetSelection(NamedTuple):
    """The best model of every size ``k = 0..max_features`` (row ``k``).

    Attributes
    ----------
    masks : (K+1, n_features) bool — the lowest-RSS subset of size ``k``.
    coef : (K+1, n_features) — its least-squares coefficients (0 off the subset).
    intercept : (K+1,)
    rss : (K+1,) — weighted residual sum of squares.
    n_features : (K+1,) int32 — ``k``.
    cp, aic, bic, adjusted_r2 : (K+1,) — the criteria (conventions in the module docstring).
    sigma2 : scalar — :math:`\\hat\\sigma^2` of the full model used by :math:`C_p`.
    """

    masks: jax.Array
    coef: jax.Array
    intercept: jax.Array
    rss: jax.Array
    n_features: jax.Array
    cp: jax.Array
    aic: jax.Array
    bic: jax.Array
    adjusted_r2: jax.Array
    sigma2: jax.Array


class StepwisePath(NamedTuple):
    """A greedy path: step ``t`` adds (forward) or removes (backward) ``features[t]``.

    Row ``t`` of ``masks``, ``coef``... is the model *before* step ``t`` (row 0: the empty
    model for forward, the full model for backward; the last row: after the last step).
    """

    features: jax.Array
    masks: jax.Array
    coef: jax.Array
    intercept: jax.Array
    rss: jax.Array
    n_features: jax.Array
    cp: jax.Array
    aic: jax.Array
    bic: jax.Array
    adjusted_r2: jax.Array
    sigma2: jax.Array


# --------------------------------------------------------------------------- criteria
def _n_params(n_features, fit_intercept):
    return n_features + (1 if fit_intercept else 0)


def mallows_cp(rss, n_samples, n_features, sigma2):
    r"""Mallows' :math:`C_p = (\mathrm{RSS} + 2 d\hat\sigma^2)/n` (ISLR §6.1.3, eq. 6.2).

    Parameters
    ----------
    rss : array — residual sum of squares of each model.
    n_samples : int or array — :math:`n` (rows with positive weight).
    n_features : int or array — :math:`d`, predictors in the model (intercept not counted).
    sigma2 : float — estimate of the noise variance, usually RSS/(n-p-1) of the full model.

    Example
    -------
    >>> round(float(mallows_cp(10.0, 20, 2, 0.5)), 4)
    0.6
    """
    rss = jnp.asarray(rss)
    return (rss + 2.0 * jnp.asarray(n_features) * sigma2) / n_samples


def aic(rss, n_samples, n_features, *, fit_intercept: bool = True, sigma2=None):
    r"""Akaike's information criterion of a least-squares fit.

    Without ``sigma2``: :math:`n\log(2\pi\,\mathrm{RSS}/n) + n + 2k`, :math:`k = d + 1` with an
    intercept (the profiled Gaussian likelihood; equals statsmodels' ``OLS(...).fit().aic``).
    With ``sigma2`` (known variance): :math:`(\mathrm{RSS} + 2d\hat\sigma^2)/(n\hat\sigma^2)`
    (ISLR 1st ed. §6.1.3), proportional to :math:`C_p`.

    Example
    -------
    >>> round(float(aic(10.0, 20, 2, sigma2=0.5)), 4)
    1.2
    """
    rss = jnp.asarray(rss)
    d = jnp.asarray(n_features)
    if sigma2 is not None:
        return (rss + 2.0 * d * sigma2) / (n_samples * sigma2)
    n = jnp.asarray(n_samples, rss.dtype)
    k = _n_params(d, fit_intercept)
    return n * jnp.log(2.0 * jnp.pi * rss / n) + n + 2.0 * k


def bic(rss, n_samples, n_features, *, fit_intercept: bool = True, sigma2=None):
    r"""Schwarz's Bayesian information criterion of a least-squares fit.

    Without ``sigma2``: :math:`n\log(2\pi\,\mathrm{RSS}/n) + n + k\log n`, :math:`k = d + 1`
    with an intercept (equals statsmodels' ``OLS(...).fit().bic``; R ``leaps``' BIC differs by
    a constant). With ``sigma2``: :math:`(\mathrm{RSS} + \log(n)\,d\hat\sigma^2)/n` (ISLR §6.1.3).

    Example
    -------
    >>> round(float(bic(10.0, 20, 2, sigma2=0.5)), 4)
    0.6498
    """
    rss = jnp.asarray(rss)
    d = jnp.asarray(n_features)
    n = jnp.asarray(n_samples, rss.dtype)
    if sigma2 is not None:
        return (rss + jnp.log(n) * d * sigma2) / n
    k = _n_params(d, fit_intercept)
    return n * jnp.log(2.0 * jnp.pi * rss / n) + n + k * jnp.log(n)


# --------------------------------------------------------------------------- shared core
class _Gram(NamedTuple):
    G: jax.Array  # unit-diagonal weighted Gram of the centred X (1 on constant columns)
    c: jax.Array  # rescaled X_c^T W y_c
    yy: jax.Array  # y_c^T W y_c (= RSS of the empty model)
    n: jax.Array  # number of rows with positive weight
    scale: jax.Array  # column norms used to rescale (1 for constant columns)
    x_mean: jax.Array
    y_mean: jax.Array


def _gram(X, y, sample_weight, fit_intercept):
    wg = weighted_gram(X, y, sample_weight, fit_intercept)  # zero-weight rows vanish here
    G, c = wg.gram, wg.xty
    diag = jnp.diagonal(G)
    # a column is constant when its centred spread is only the rounding left by centring
    # (the rule of features.weighted_mean_scale), or exactly 0 (an all-zero column)
    constant = constant_columns(diag / wg.sw_sum, wg.x_mean) | (diag <= 0)
    scale = jnp.where(constant, 1.0, jnp.sqrt(jnp.where(constant, 1.0, diag)))
    G = G / jnp.outer(scale, scale)
    G = jnp.where(constant[:, None] | constant[None, :], 0.0, G)
    G = G + jnp.diag(constant.astype(X.dtype))
    c = jnp.where(constant, 0.0, c / scale)
    n = jnp.sum(sample_weight > 0).astype(X.dtype)
    yy = _precision.dot(wg.yw, wg.yw)
    return _Gram(G, c, yy, n, scale, wg.x_mean, wg.y_mean)


def _masked_system(g: _Gram, mask):
    m = mask.astype(g.G.dtype)
    A = g.G * jnp.outer(m, m) + jnp.diag(1.0 - m)
    return A, g.c * m


def _cholesky(A):
    r"""Cholesky factor of a unit-diagonal system and whether the subset has full rank.

    On a unit-diagonal Gram the squared pivot :math:`L_{jj}^2` is :math:`1 - R_j^2` of
    predictor ``j`` regressed on the ones before it; below :math:`\sqrt{\varepsilon}` the
    subset is treated as rank-deficient (a NaN pivot too).
    """
    L = _linalg.cholesky(A)
    pivots = jnp.square(jnp.diagonal(L))
    full_rank = jnp.all(pivots >= jnp.sqrt(jnp.finfo(A.dtype).eps))  # False on NaN
    return L, full_rank


def _subset_rss(g: _Gram, mask):
    """RSS of the least-squares fit on ``mask``: yy - ||L^{-1} c_m||^2 (one triangular solve)."""
    A, b = _masked_system(g, mask)
    L, full_rank = _cholesky(A)
    z = _linalg.solve_triangular(L, b, lower=True)
    rss = g.yy - _precision.dot(z, z)
    return jnp.where(full_rank, jnp.maximum(rss, 0.0), jnp.inf)


def _subset_fit(g: _Gram, mask):
    """Coefficients (original scale), intercept and RSS of the fit on ``mask``.

    A rank-deficient subset gets RSS ``inf`` and NaN coefficients.
    """
    A, b = _masked_system(g, mask)
    L, full_rank = _cholesky(A)
    beta = _linalg.cho_solve((L, True), b)
    rss = jnp.where(full_rank, jnp.maximum(g.yy - _precision.dot(b, beta), 0.0), jnp.inf)
    coef = jnp.where(full_rank, jnp.where(mask, beta / g.scale, 0.0), jnp.nan)
    return coef, g.y_mean - _precision.dot(g.x_mean, coef), rss


def _summarise(g: _Gram, masks, fit_intercept, X, y, w):
    """Refit the chosen masks and attach the criteria."""
    n_features_total = g.G.shape[0]
    coef, intercept, rss = jax.vmap(lambda m: _subset_fit(g, m))(masks)
    full_rss = _subset_fit(g, jnp.ones((n_features_total,), bool))[2]
    dof = g.n - n_features_total - (1.0 if fit_intercept else 0.0)
    sigma2 = jnp.where(dof > 0, full_rss / jnp.where(dof > 0, dof, 1.0), jnp.nan)
    d = jnp.sum(masks, axis=1).astype(jnp.int32)
    df = d.astype(rss.dtype)
    return dict(
        masks=masks, coef=coef, intercept=intercept, rss=rss, n_features=d,
        cp=mallows_cp(rss, g.n, df, sigma2),
        aic=aic(rss, g.n, df, fit_intercept=fit_intercept),
        bic=bic(rss, g.n, df, fit_intercept=fit_intercept),
        adjusted_r2=jax.vmap(lambda f, k: adjusted_r2(y, f, k, sample_weight=w), in_axes=(1, 0))(
            _precision.matmul(X, coef.T) + intercept, d),
        sigma2=sigma2,
    )


def _check_data(X, y, sample_weight):
    X, y = check_X_y(X, y)
    w = check_sample_weight(sample_weight, X.shape[0], dtype=X.dtype)
    return X, y, w


def _n_rows(X, w):
    """Rows with positive weight (all rows when the weights are traced)."""
    if is_traced(w):
        return X.shape[0]
    return int(np.count_nonzero(np.asarray(w) > 0))


# --------------------------------------------------------------------------- best subset
@partial(_jit.jit, static_argnames=("fit_intercept", "max_features", "chunk_size"))
def _best_subset(X, y, w, *, fit_intercept, max_features, chunk_size):
    g = _gram(X, y, w, fit_intercept)
    p = X.shape[1]
    n_subsets = 1 << p
    chunk = min(chunk_size, n_subsets)
    n_chunks = -(-n_subsets // chunk)
    bits = jnp.arange(p, dtype=jnp.int32)
    sizes = jnp.arange(max_features + 1, dtype=jnp.int32)
    rss_of = jax.vmap(lambda m: _subset_rss(g, m))

    def body(carry, chunk_index):
        best_rss, best_idx = carry
        idx = chunk_index * chunk + jnp.arange(chunk, dtype=jnp.int32)
        masks = ((idx[:, None] >> bits[None, :]) & 1).astype(bool)
        k = jnp.sum(masks, axis=1, dtype=jnp.int32)
        rss = rss_of(masks)
        rss = jnp.where((idx < n_subsets) & (k <= max_features), rss, jnp.inf)
        by_size = jnp.where(k[:, None] == sizes[None, :], rss[:, None], jnp.inf)
        arg = jnp.argmin(by_size, axis=0)
        chunk_best = by_size[arg, sizes]
        better = chunk_best < best_rss
        return (jnp.where(better, chunk_best, best_rss), jnp.where(better, idx[arg], best_idx)), None

    init = (jnp.full((max_features + 1,), jnp.inf, X.dtype), jnp.zeros((max_features + 1,), jnp.int32))
    (best_rss, best_idx), _ = jax.lax.scan(body, init, jnp.arange(n_chunks, dtype=jnp.int32))
    masks = ((best_idx[:, None] >> bits[None, :]) & 1).astype(bool)
    out = _summarise(g, masks, fit_intercept, X, y, w)
    # a size with no full-rank subset (e.g. k >= n, or all subsets collinear): no model
    missing = jnp.isinf(best_rss)
    out["masks"] = masks & ~missing[:, None]
    out["n_features"] = sizes
    out["rss"] = jnp.where(missing, jnp.inf, out["rss"])
    out["coef"] = jnp.where(missing[:, None], jnp.nan, out["coef"])
    for name in ("intercept", "cp", "aic", "bic", "adjusted_r2"):
        out[name] = jnp.where(missing, jnp.nan, out[name])
    return SubsetSelection(**out)


def best_subset(
    X,
    y,
    *,
    max_features: int | None = None,
    fit_intercept: bool = True,
    sample_weight=None,
    chunk_size: int = 4096,
) -> SubsetSelection:
    r"""Best-subset selection: for every size ``k`` the subset of ``k`` predictors with the
    lowest residual sum of squares, found by trying all :math:`2^p` subsets.

    .. math::

        S_k = \operatorname*{arg\,min}_{|S| = k}\ \min_{\beta_S, b}
        \sum_i w_i\,(y_i - b - x_{i,S}^\top\beta_S)^2 ,\qquad k = 0,\dots,K .

    All subsets are solved as batched Cholesky solves of the masked Gram system (module
    docstring), ``chunk_size`` subsets at a time under ``lax.scan`` so memory stays bounded
    (about ``chunk_size * p**2`` floats). The user then picks ``k`` by
    ``cp``/``bic``/``aic``/``adjusted_r2`` (or cross-validation).

    Parameters
    ----------
    X : (n_samples, n_features) array, ``n_features <= 20``
    y : (n_samples,) array
    max_features : int, optional
        Largest subset size ``K`` reported (default: all ``p``). Static.
    fit_intercept : bool
        Every model includes an (unpenalised) intercept.
    sample_weight : (n_samples,) array, optional
        Frequency weights; a row of weight 0 has no influence.
    chunk_size : int
        Subsets solved per batch (static).

    Returns
    -------
    SubsetSelection
        Row ``k`` holds the best model with ``k`` predictors.

    Example
    -------
    >>> import jax.numpy as jnp
    >>> X = jnp.array([[1., 0., 3.], [2., 1., 1.], [3., 0., 2.], [4., 1., 0.], [5., 0., 1.]])
    >>> res = best_subset(X, 2.0 * X[:, 0] + jnp.array([0.1, -0.1, 0., 0.1, -0.1]))
    >>> res.masks[1].tolist()
    [True, False, False]

    References
    ----------
    ISLR §6.1.1 (Algorithm 6.1); ESL §3.3.1.
    """
    X, y, w = _check_data(X, y, sample_weight)
    p = X.shape[1]
    if p > MAX_BEST_SUBSET_FEATURES:
        raise ValueError(
            f"best_subset enumerates all 2**p subsets and supports at most "
            f"{MAX_BEST_SUBSET_FEATURES} features, got X with {p} features; "
            "use forward_stepwise or the lasso for more"
        )
    max_features = p if max_features is None else check_int(max_features, "max_features", low=0, high=p)
    chunk_size = check_int(chunk_size, "chunk_size", low=1)
    return _best_subset(X, y, w, fit_intercept=check_bool(fit_intercept, "fit_intercept"),
                        max_features=max_features, chunk_size=chunk_size)


# --------------------------------------------------------------------------- stepwise
@partial(_jit.jit, static_argnames=("fit_intercept", "n_steps", "forward"))
def _stepwise(X, y, w, *, fit_intercept, n_steps, forward):
    g = _gram(X, y, w, fit_intercept)
    p = X.shape[1]
    eye = jnp.eye(p, dtype=bool)
    rss_of = jax.vmap(lambda m: _subset_rss(g, m))

    def step(active, _):
        if forward:
            candidates = active[None, :] | eye  # row j: active plus feature j
            rss = jnp.where(active, jnp.inf, rss_of(candidates))
        else:
            candidates = active[None, :] & ~eye  # row j: active minus feature j
            rss = jnp.where(active, rss_of(candidates), jnp.inf)
        # if every candidate is rank-deficient, still move: the first eligible feature
        eligible = ~active if forward else active
        rss = jnp.where(eligible & jnp.all(jnp.isinf(rss)), 0.0, rss)
        j = jnp.argmin(rss).astype(jnp.int32)
        active = active.at[j].set(forward)
        return active, (j, active)

    start = jnp.zeros((p,), bool) if forward else jnp.ones((p,), bool)
    _, (features, masks) = jax.lax.scan(step, start, None, length=n_steps)
    masks = jnp.concatenate([start[None, :], masks], axis=0)
    return StepwisePath(features=features, **_summarise(g, masks, fit_intercept, X, y, w))


def forward_stepwise(
    X,
    y,
    *,
    max_features: int | None = None,
    fit_intercept: bool = True,
    sample_weight=None,
) -> StepwisePath:
    r"""Forward stepwise selection: start from the empty model and at each step add the
    predictor that lowers the residual sum of squares most.

    .. math::

        j_t = \operatorname*{arg\,min}_{j\notin S_t}\ \mathrm{RSS}(S_t\cup\{j\}),\qquad
        S_{t+1} = S_t \cup \{j_t\} .

    Each step solves all candidate models at once (a ``vmap`` of masked Cholesky solves) and
    the steps are a ``lax.scan``. Works for ``n < p``, up to ``n - 1`` predictors with an
    intercept (``n`` without); :math:`C_p` needs the full model's :math:`\hat\sigma^2` and is
    NaN when :math:`n \le p + 1`.

    Parameters
    ----------
    X : (n_samples, n_features) array
    y : (n_samples,) array
    max_features : int, optional
        Number of steps (default ``min(n_features, n_rows - fit_intercept)``). Static.
    fit_intercept : bool
    sample_weight : (n_samples,) array, optional

    Returns
    -------
    StepwisePath
        ``features[t]`` added at step ``t``; ``masks``/``coef``/``rss``/criteria per model size.

    Example
    -------
    >>> import jax.numpy as jnp
    >>> X = jnp.array([[1., 0., 3.], [2., 1., 1.], [3., 0., 2.], [4., 1., 0.], [5., 0., 1.]])
    >>> path = forward_stepwise(X, 2.0 * X[:, 0] + jnp.array([0.1, -0.1, 0., 0.1, -0.1]))
    >>> int(path.features[0])
    0

    References
    ----------
    ISLR §6.1.2 (Algorithm 6.2); ESL §3.3.2.
    """
    X, y, w = _check_data(X, y, sample_weight)
    p = X.shape[1]
    limit = max(0, min(p, _n_rows(X, w) - (1 if fit_intercept else 0)))
    if max_features is None:
        max_features = limit
    else:
        max_features = check_int(max_features, "max_features", low=0, high=p)
        if max_features > limit:
            raise ValueError(
                f"max_features must be <= {limit} (rows with positive weight minus the "
                f"intercept), got {max_features}: larger models are not identifiable"
            )
    return _stepwise(X, y, w, fit_intercept=check_bool(fit_intercept, "fit_intercept"),
                     n_steps=max_features, forward=True)


def backward_stepwise(
    X,
    y,
    *,
    fit_intercept: bool = True,
    sample_weight=None,
) -> StepwisePath:
    r"""Backward stepwise selection: start from the full model and at each step remove the
    predictor whose removal raises the residual sum of squares least.

    .. math::

        j_t = \operatorname*{arg\,min}_{j\in S_t}\ \mathrm{RSS}(S_t\setminus\{j\}),\qquad
        S_{t+1} = S_t \setminus \{j_t\},\qquad S_0 = \{1..p\} .

    Runs ``p`` steps down to the empty model. The full model must be identifiable, so it
    requires ``n > p`` (rows with positive weight).

    Parameters
    ----------
    X : (n_samples, n_features) array
    y : (n_samples,) array
    fit_intercept : bool
    sample_weight : (n_samples,) array, optional

    Returns
    -------
    StepwisePath
        ``features[t]`` removed at step ``t``; row ``t`` of ``masks`` has ``p - t`` predictors.

    Example
    -------
    >>> import jax.numpy as jnp
    >>> X = jnp.array([[1., 0., 3.], [2., 1., 1.], [3., 0., 2.], [4., 1., 0.], [5., 0., 1.]])
    >>> path = backward_stepwise(X, 2.0 * X[:, 0] + jnp.array([0.1, -0.1, 0., 0.1, -0.1]))
    >>> path.masks.sum(axis=1).tolist()
    [3, 2, 1, 0]

    References
    ----------
    ISLR §6.1.2 (Algorithm 6.3); ESL §3.3.2.
    """
    X, y, w = _check_data(X, y, sample_weight)
    n_rows, p = _n_rows(X, w), X.shape[1]
    if n_rows <= p:
        raise ValueError(
            f"backward_stepwise requires n_samples > n_features (the full model must be "
            f"fitted), got n_samples={n_rows} (rows with positive weight), n_features={p}; "
            "use forward_stepwise"
        )
    return _stepwise(X, y, w, fit_intercept=check_bool(fit_intercept, "fit_intercept"),
                     n_steps=p, forward=False)
