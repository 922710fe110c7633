r"""Gaussian process regression: the posterior by Cholesky, and the log marginal likelihood.

Model (Rasmussen & Williams, ch. 2): :math:`f \sim \mathcal{GP}(0, k_\theta)` with the
covariance :math:`c\,\kappa(x/\ell, z/\ell)` of :mod:`jaxclassic.gaussian_process.covariance`,
and observations :math:`t_i = f(x_i) + \varepsilon_i`, :math:`\varepsilon_i \sim
\mathcal N(0, (\sigma^2 + a_i)/s_i)`, where :math:`\sigma^2` is the ``noise`` hyperparameter
(scikit-learn's ``WhiteKernel``), :math:`a_i` the fixed ``alpha`` added to the diagonal
(scikit-learn's ``alpha``, default ``1e-10``) and :math:`s_i` the sample weight. With
:math:`C = K + \operatorname{diag}((\sigma^2 + a)/s)` and its Cholesky factor
:math:`C = LL^\top`:

.. math::

    \alpha = C^{-1} t = L^{-\top}(L^{-1} t), \qquad
    \mu(x_*) = k_*^\top \alpha, \qquad
    \operatorname{var}(x_*) = k(x_*, x_*) - \lVert L^{-1} k_*\rVert^2,

    \log p(t \mid X, \theta) = -\tfrac12 t^\top\alpha - \sum_i \log L_{ii} - \tfrac{n}{2}\log 2\pi

(R&W Algorithm 2.1, scikit-learn's ``GaussianProcessRegressor`` line for line). The variance
is that of the latent :math:`f(x_*)`, clamped at 0; ``include_noise=True`` adds
:math:`\sigma^2` (the variance of a new noisy observation; scikit-learn's ``WhiteKernel``
behaviour, which it applies always). With ``normalize_y`` the targets are standardised first
(weighted mean and population standard deviation) and predictions mapped back, as scikit-learn
does; the log marginal likelihood is then that of the standardised targets, as scikit-learn's.

Sample weights. A weight :math:`s_i` divides the row's noise variance: for an integer weight
this is exactly the posterior of :math:`s_i` copies of the row (copies :math:`t` of one point
with noise :math:`\sigma^2` carry the information of their mean with noise :math:`\sigma^2/s`).
The log marginal likelihood adds, per row, :math:`-\tfrac12\log s_i -
\tfrac12 (s_i - 1)\log(2\pi(\sigma^2 + a_i))`: the copies' density beyond that of their mean
(the Jacobian of the mean, and the :math:`s_i - 1` within-group residuals, all 0 since the
copies' targets are equal), so that it too equals the likelihood of the repeated rows, for any
:math:`s_i > 0` by continuation (0 for unit weights). A row of weight 0 has no influence at all: its row and
column of :math:`C` are replaced by the identity's and its target by 0, so it contributes
nothing to :math:`\alpha`, :math:`\log|C|`, the quadratic form or :math:`n` (which counts the
rows of positive weight). The shapes stay fixed, so cross-validation folds are a ``vmap``.

Jitter. Without noise (``noise = 0``, ``alpha = 0``) duplicate inputs, or a smooth kernel on
close points, make :math:`C` singular to working precision and its Cholesky factorisation
fails. The fit then retries with :math:`C + \delta I` (on the rows of positive weight),
:math:`\delta = 10\,n\,\epsilon\,\overline{C_{ii}}\cdot 10^{k}` for :math:`k = 0, \dots, 5`
(ε the dtype's machine epsilon: the size of Cholesky's own backward error, Higham 2002,
Thm 10.3), and records :math:`\delta` in ``params.jitter`` (0 when none was needed); run
eagerly, :func:`fit_gp` warns with :class:`NumericalJitterWarning`.
If even the largest :math:`\delta` fails, the kernel is not positive semi-definite on these
points: the eager fit raises a ``ValueError`` (under ``jit`` / ``vmap``: ``jitter`` is NaN
and the log marginal likelihood :math:`-\infty`). The factorisation has a custom derivative
(the Cholesky JVP of Murray 2016 at the jittered matrix, :math:`\delta` held fixed), so the
log marginal likelihood stays differentiable through the retries.

Cost: :math:`O(n^2 d)` for :math:`K`, :math:`O(n^3/3)` for the factorisation, :math:`O(n^2)`
memory (:math:`K`, :math:`L`). Prediction is tiled over the query rows
(:func:`jaxclassic._tiling.map_row_tiles`): :math:`O(m n (d + n))` time, one tile of
:math:`k_*` and :math:`L^{-1}k_*` at a time. ``return_cov`` builds the ``(m, m)`` covariance
(and the ``(n, m)`` solve) whole.

References
----------
Rasmussen & Williams, *Gaussian Processes for Machine Learning*, MIT Press 2006, Alg. 2.1,
eq. 2.30 (marginal likelihood), eq. 5.9 (its gradient).
Murray, "Differentiation of the Cholesky decomposition", arXiv:1602.07527, 2016.
Higham, *Accuracy and Stability of Numerical Algorithms*, 2nd ed., SIAM 2002, ch. 10.
"""

from __future__ import annotations

import math
import warnings
from functools import partial
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxclassic import _jit
from jaxclassic._linalg import solve_triangular
from jaxclassic import _precision
from jaxclassic import _tiling
from jaxclassic.gaussian_process._api import predict
from jaxclassic.gaussian_process._cholesky import (
    N_JITTER_LEVELS,
    NumericalJitterWarning,
    cho_solve,
    cholesky_with_jitter,
    gaussian_log_density,
    log_density,
)
from jaxclassic.gaussian_process.covariance import (
    GPKernel,
    covariance,
    get_gp_kernel,
    matern12,
    matern32,
    matern52,
    prior_variance,
    rbf,
    train_covariance,
)
from jaxclassic.validation import (
    check_array,
    check_bool,
    check_predict_X,
    check_sample_weight,
    check_scalar,
    check_X_y,
    is_traced,
    to_device,
)

__all__ = [
    "NumericalJitterWarning",
    "GPParams",
    "RBFParams",
    "Matern12Params",
    "Matern32Params",
    "Matern52Params",
    "fit_gp",
    "predict_gp",
    "log_marginal_likelihood",
    "check_hyperparameters",
    "params_type",
]


class GPParams(NamedTuple):
    r"""A fitted GP regressor. Its type carries the kernel function (:func:`params_type`).

    Attributes
    ----------
    X_train : (n, d) array
        Training inputs (all rows, weight-0 ones included).
    y_train : (n,) array
        Training targets as given (not normalised).
    sample_weight : (n,) array
    added_noise : (n,) array
        The fixed ``alpha`` added to the diagonal (before division by the weights).
    kernel : GPKernel
        The hyperparameters (scikit-learn's ``kernel_``).
    L : (n, n) array
        Lower Cholesky factor of :math:`C` (+ jitter); identity rows for weight-0 rows.
    alpha : (n,) array
        :math:`C^{-1} t` (scikit-learn's ``alpha_``; 0 on weight-0 rows).
    y_train_mean, y_train_std : () array
        The normalisation of ``y`` (0 and 1 without ``normalize_y``).
    log_marginal_likelihood_value : () array
        :math:`\log p(t \mid X, \theta)` at ``kernel`` (of the normalised targets).
    jitter : () array
        :math:`\delta` added to the diagonal to factorise :math:`C` (0 when none; NaN when
        even the largest failed).
    """

    X_train: jax.Array
    y_train: jax.Array
    sample_weight: jax.Array
    added_noise: jax.Array
    kernel: GPKernel
    L: jax.Array
    alpha: jax.Array
    y_train_mean: jax.Array
    y_train_std: jax.Array
    log_marginal_likelihood_value: jax.Array
    jitter: jax.Array


class RBFParams(GPParams):
    """GP params with the squared-exponential kernel."""

    __slots__ = ()
    block_kernel = staticmethod(rbf)


class Matern12Params(GPParams):
    """GP params with the Matérn ν = ½ kernel."""

    __slots__ = ()
    block_kernel = staticmethod(matern12)


class Matern32Params(GPParams):
    """GP params with the Matérn ν = 3/2 kernel."""

    __slots__ = ()
    block_kernel = staticmethod(matern32)


class Matern52Params(GPParams):
    """GP params with the Matérn ν = 5/2 kernel."""

    __slots__ = ()
    block_kernel = staticmethod(matern52)


_PARAMS_TYPES: dict = {rbf: RBFParams, matern12: Matern12Params, matern32: Matern32Params,
                       matern52: Matern52Params}


def params_type(kernel_fn) -> type:
    """The :class:`GPParams` subclass that carries ``kernel_fn`` (made once per user kernel).

    The kernel is part of the params' *type*, so ``jit`` treats it as static and
    :func:`predict_gp` needs no kernel argument. The built-in kernels' types are module-level
    (picklable); a user kernel's type is created on first use and is not picklable.
    """
    if kernel_fn not in _PARAMS_TYPES:
        name = getattr(kernel_fn, "__name__", "kernel")
        _PARAMS_TYPES[kernel_fn] = type(f"GPParams[{name}]", (GPParams,),
                                        {"__slots__": (), "block_kernel": staticmethod(kernel_fn)})
    return _PARAMS_TYPES[kernel_fn]


def _kernel_of(params: GPParams):
    fn = getattr(type(params), "block_kernel", None)
    if fn is None:
        raise TypeError("GPParams carries no kernel: build params with fit_gp (their type names the kernel)")
    return fn


# --------------------------------------------------------------------------- the system
class _Covariance(NamedTuple):
    C: jax.Array
    t: jax.Array
    rows: jax.Array
    constant: jax.Array
    y_mean: jax.Array
    y_std: jax.Array


def _normalisation(y, sample_weight, keep, normalize_y):
    if not normalize_y:
        return jnp.zeros((), y.dtype), jnp.ones((), y.dtype)
    w = jnp.where(keep, sample_weight, 0)
    mean = jnp.sum(w * y) / jnp.sum(w)
    std = jnp.sqrt(jnp.sum(w * jnp.square(y - mean)) / jnp.sum(w))
    # scikit-learn's _handle_zeros_in_scale: a constant target is not scaled
    std = jnp.where(std < 10 * jnp.finfo(y.dtype).eps, 1.0, std)
    return mean, std


def _covariance_system(hyper: GPKernel, X, y, sample_weight, added_noise, kernel_fn, normalize_y) -> _Covariance:
    """:math:`C`, the targets :math:`t`, the kept rows and the likelihood's constant terms."""
    keep = sample_weight > 0
    rows = keep.astype(X.dtype)
    y_mean, y_std = _normalisation(y, sample_weight, keep, normalize_y)
    t = jnp.where(keep, (y - y_mean) / y_std, 0)
    K = train_covariance(hyper, X, kernel_fn)
    total_noise = hyper.noise + added_noise  # (n,): the noise variance of one copy of a row
    row_noise = jnp.where(keep, total_noise / jnp.where(keep, sample_weight, 1), 1)
    C = K * rows[:, None] * rows[None, :] + jnp.diag(row_noise)
    # the terms of s_i copies of a row beyond their mean's (0 for unit weights; module docstring)
    positive_noise = keep & (total_noise > 0)
    within = jnp.where(positive_noise,
                       (sample_weight - 1) * jnp.log(2 * jnp.pi * jnp.where(positive_noise, total_noise, 1)), 0)
    copies = jnp.where(keep, jnp.log(jnp.where(keep, sample_weight, 1)), 0) + within
    constant = -0.5 * jnp.sum(rows) * math.log(2 * math.pi) - 0.5 * jnp.sum(copies)
    return _Covariance(C, t, rows, constant, y_mean, y_std)


def _lml(hyper: GPKernel, X, y, sample_weight, added_noise, kernel_fn, normalize_y) -> jax.Array:
    """The log marginal likelihood alone (its gradient through :func:`gaussian_log_density`)."""
    c = _covariance_system(hyper, X, y, sample_weight, added_noise, kernel_fn, normalize_y)
    return gaussian_log_density(c.C, c.t, c.rows) + c.constant


def _as_hyper(amplitude, length_scale, noise, dtype) -> GPKernel:
    return GPKernel(jnp.asarray(amplitude, dtype), jnp.asarray(length_scale, dtype), jnp.asarray(noise, dtype))


@partial(_jit.jit, static_argnames=("kernel_fn", "normalize_y"))
def _fit_gp(X, y, sample_weight, added_noise, hyper, *, kernel_fn, normalize_y):
    c = _covariance_system(hyper, X, y, sample_weight, added_noise, kernel_fn, normalize_y)
    L, jitter = cholesky_with_jitter(c.C, c.rows)
    alpha = cho_solve(L, c.t)
    lml = log_density(L, alpha, c.t, c.rows, jitter) + c.constant
    return params_type(kernel_fn)(X, y, sample_weight, added_noise, hyper, L, alpha, c.y_mean, c.y_std,
                                  lml, jitter)


# --------------------------------------------------------------------------- validation
def check_hyperparameters(amplitude, length_scale, noise, n_features: int) -> None:
    """Check ``amplitude > 0``, ``length_scale > 0`` (scalar or ``(n_features,)``), ``noise >= 0``.

    Value checks are skipped for traced values (shapes are still checked).
    """
    check_scalar(amplitude, "amplitude", low=0.0, include_low=False)
    check_scalar(noise, "noise", low=0.0)
    shape = np.shape(length_scale)
    if shape not in ((), (n_features,)):
        raise ValueError(f"length_scale must be a scalar or have shape ({n_features},) (one per feature), "
                         f"got shape {shape}")
    if not is_traced(length_scale):
        ls = np.asarray(length_scale, dtype=np.float64) if shape else length_scale
        if shape:
            if not np.all(np.isfinite(ls)) or np.any(ls <= 0):
                raise ValueError(f"length_scale must be finite and > 0, got {np.asarray(length_scale).tolist()}")
        else:
            check_scalar(ls, "length_scale", low=0.0, include_low=False)


def _check_alpha(alpha, n_samples: int, dtype) -> jax.Array:
    """The fixed diagonal ``alpha`` (scalar or ``(n,)``, >= 0) as an ``(n,)`` array."""
    if is_traced(alpha):
        if jnp.ndim(alpha) not in (0, 1) or (jnp.ndim(alpha) == 1 and alpha.shape[0] != n_samples):
            raise ValueError(f"alpha must be a scalar or have shape ({n_samples},), got shape {alpha.shape}")
        return jnp.broadcast_to(alpha, (n_samples,)).astype(dtype)
    a = check_array(alpha, "alpha", ndim=(0, 1), dtype=dtype, min_samples=0, _numpy=True)
    if a.ndim == 1 and a.shape[0] != n_samples:
        raise ValueError(f"alpha must be a scalar or have shape ({n_samples},), got shape {a.shape}")
    if np.any(a < 0):
        raise ValueError(f"alpha must be >= 0, got minimum {float(np.min(a))!r}")
    return to_device(np.broadcast_to(a, (n_samples,)))  # no compiled program


def _prepare(X, y, sample_weight, alpha, amplitude, length_scale, noise, kernel):
    kernel_fn = get_gp_kernel(kernel)
    X, y = check_X_y(X, y)
    sw = check_sample_weight(sample_weight, X.shape[0], dtype=X.dtype)
    check_hyperparameters(amplitude, length_scale, noise, X.shape[1])
    added_noise = _check_alpha(alpha, X.shape[0], X.dtype)
    return X, y, sw, added_noise, kernel_fn


# --------------------------------------------------------------------------- public
def fit_gp(X, y, *, kernel="rbf", amplitude=1.0, length_scale=1.0, noise=0.0, alpha=1e-10,
           normalize_y: bool = False, sample_weight=None) -> GPParams:
    r"""Fit a GP regressor with fixed hyperparameters: Cholesky of :math:`C = K + (\sigma^2 + a)/s`.

    :math:`K = c\,\kappa(X/\ell, X/\ell)`, :math:`C = LL^\top`, :math:`\alpha = C^{-1}t` by two
    triangular solves, and the log marginal likelihood
    :math:`-\tfrac12 t^\top\alpha - \sum_i\log L_{ii} - \tfrac n2\log 2\pi` (module docstring:
    weights, weight-0 rows, jitter). Equals scikit-learn's
    ``GaussianProcessRegressor(ConstantKernel(c) * RBF(ℓ) + WhiteKernel(σ²), alpha=a,
    optimizer=None)`` (or ``Matern(ℓ, nu)``). To optimise the hyperparameters first, see
    :func:`~jaxclassic.gaussian_process.optimize_hyperparameters`.

    Parameters
    ----------
    X : (n_samples, n_features) array-like
    y : (n_samples,) array-like
    kernel : str or callable
        ``"rbf"``, ``"matern12"``, ``"matern32"``, ``"matern52"`` or a block kernel
        ``(X, Z) -> (n, m)`` applied to the scaled inputs (static).
    amplitude : float > 0
        :math:`c` (traced).
    length_scale : float > 0 or (n_features,) array
        :math:`\ell`; per feature for ARD (traced).
    noise : float >= 0
        :math:`\sigma^2`, the ``WhiteKernel`` noise variance (traced).
    alpha : float >= 0 or (n_samples,) array
        Fixed value added to the diagonal (scikit-learn's ``alpha``; traced).
    normalize_y : bool
        Standardise ``y`` (weighted mean and population std) before fitting (static).
    sample_weight : (n_samples,) array-like, optional
        Row ``i``'s noise variance is divided by :math:`s_i` (= :math:`s_i` copies of the row);
        a row of weight 0 has no influence.

    Returns
    -------
    GPParams
        Of the subclass that carries the kernel (:func:`params_type`).

    Raises
    ------
    ValueError
        Bad shapes or values (``amplitude <= 0``, ``length_scale <= 0``, ``noise < 0``, NaN),
        or a kernel that is not positive semi-definite on ``X`` (the factorisation fails even
        with the largest jitter).

    Warns
    -----
    NumericalJitterWarning
        Jitter was needed to factorise :math:`C` (eager calls only; read ``params.jitter``
        under ``jit`` / ``vmap``).

    Examples
    --------
    >>> import jax.numpy as jnp
    >>> X = jnp.linspace(0, 5, 20)[:, None]; y = jnp.sin(X[:, 0])
    >>> params = fit_gp(X, y, length_scale=1.0, noise=1e-4)
    >>> float(jnp.max(jnp.abs(predict(params, X) - y))) < 1e-2
    True

    References
    ----------
    Rasmussen & Williams, *Gaussian Processes for Machine Learning*, 2006, Algorithm 2.1.
    """
    X, y, sw, added_noise, kernel_fn = _prepare(X, y, sample_weight, alpha, amplitude, length_scale,
                                                noise, kernel)
    hyper = _as_hyper(amplitude, length_scale, noise, X.dtype)
    params = _fit_gp(X, y, sw, added_noise, hyper, kernel_fn=kernel_fn,
                     normalize_y=check_bool(normalize_y, "normalize_y"))
    _check_jitter(params.jitter, "fit_gp")
    return params


def _check_jitter(jitter, where: str) -> None:
    """Eagerly: raise when the factorisation failed, warn when jitter was needed."""
    if is_traced(jitter):
        return
    value = float(jitter)
    if math.isnan(value):
        raise ValueError(
            f"{where}: the covariance K + noise is not positive definite on these points even with "
            f"jitter up to {N_JITTER_LEVELS - 1} decades above 10 n eps mean(diag): the kernel is not "
            "positive semi-definite (not a Mercer kernel; see jaxclassic.kernels.check_mercer)")
    if value > 0:
        warnings.warn(
            f"{where}: the covariance K + noise was not numerically positive definite (duplicate inputs "
            f"with noise=0, or a very smooth kernel); added jitter {value:.3g} to its diagonal. "
            "Use noise > 0 or alpha > 0 to avoid it.", NumericalJitterWarning, stacklevel=3)


@partial(_jit.jit, static_argnames=("return_std", "return_cov", "include_noise", "tile"))
def _predict_gp(params, X, *, return_std, return_cov, include_noise, tile):
    kernel_fn = _kernel_of(params)
    hyper = params.kernel
    rows = (params.sample_weight > 0).astype(X.dtype)
    scale = params.y_train_std
    noise_var = hyper.noise if include_noise else jnp.zeros((), X.dtype)

    def cross(Q):  # k(Q, X_train) with weight-0 columns zeroed
        return covariance(hyper, Q, params.X_train, kernel_fn) * rows[None, :]

    if return_cov:
        Ks = cross(X)
        V = solve_triangular(params.L, Ks.T, lower=True)
        cov = train_covariance(hyper, X, kernel_fn) - _precision.matmul(V.T, V)
        cov = cov + noise_var * jnp.eye(X.shape[0], dtype=X.dtype)
        mean = _precision.matmul(Ks, params.alpha)
        return params.y_train_mean + scale * mean, jnp.square(scale) * cov

    def block(Q):
        Ks = cross(Q)
        mean = _precision.matmul(Ks, params.alpha)
        if not return_std:
            return mean
        V = solve_triangular(params.L, Ks.T, lower=True)
        var = prior_variance(hyper, Q, kernel_fn) - jnp.sum(V * V, axis=0)
        return mean, jnp.maximum(var, 0) + noise_var

    out = _tiling.map_row_tiles(block, X, tile=tile)
    if not return_std:
        return params.y_train_mean + scale * out
    mean, var = out
    return params.y_train_mean + scale * mean, scale * jnp.sqrt(var)


@predict.register(GPParams)
def predict_gp(params: GPParams, X, return_std: bool = False, return_cov: bool = False,
               include_noise: bool = False):
    r"""Posterior mean :math:`k_*^\top\alpha` and, optionally, its standard deviation or covariance.

    .. math::

        \mu(x_*) = \bar y + s_y\,k_*^\top\alpha, \qquad
        \operatorname{var}(x_*) = s_y^2\,\big(k(x_*, x_*) - \lVert L^{-1}k_*\rVert^2\big)_+
        \;[+\, s_y^2\sigma^2],

    with :math:`(\bar y, s_y)` the normalisation of ``y`` (0 and 1 without ``normalize_y``).
    Tiled over the rows of ``X`` under :data:`jaxclassic._tiling.MEMORY_BUDGET`; the
    covariance ``(m, m)`` of ``return_cov`` is built whole.

    Parameters
    ----------
    params : GPParams
    X : (m, n_features) array-like
    return_std : bool
        Also return the standard deviation ``(m,)`` (scikit-learn's ``return_std``).
    return_cov : bool
        Also return the covariance ``(m, m)`` (not with ``return_std``).
    include_noise : bool
        Add the noise variance :math:`\sigma^2` (``params.kernel.noise``) to the variance or
        the covariance's diagonal: the distribution of a new noisy observation, as
        scikit-learn's ``WhiteKernel`` does.

    Returns
    -------
    mean : (m,) array, or ``(mean, std)``, or ``(mean, cov)``.

    Examples
    --------
    >>> import jax.numpy as jnp
    >>> X = jnp.linspace(0, 1, 8)[:, None]
    >>> params = fit_gp(X, X[:, 0] ** 2, noise=1e-3)
    >>> mean, std = predict(params, jnp.array([[0.5], [3.0]]), return_std=True)
    >>> bool(std[1] > std[0])  # far from the data the posterior returns to the prior
    True
    """
    if return_std and return_cov:
        raise ValueError("return_std and return_cov cannot both be True (ask for one)")
    _kernel_of(params)
    X = check_predict_X(X, params.X_train.dtype, params.X_train.shape[1])
    n, m = X.shape[0], params.X_train.shape[0]
    # per query row: k_* and L^{-1} k_* (m values each) and a temporary
    tile = _tiling.tile_size(n, 3 * m * jnp.dtype(X.dtype).itemsize)
    return _predict_gp(params, X, return_std=bool(return_std), return_cov=bool(return_cov),
                       include_noise=bool(include_noise), tile=tile)


@partial(_jit.jit, static_argnames=("kernel_fn", "normalize_y"))
def _log_marginal_likelihood(hyper, X, y, sample_weight, added_noise, *, kernel_fn, normalize_y):
    return _lml(hyper, X, y, sample_weight, added_noise, kernel_fn, normalize_y)


def log_marginal_likelihood(params_or_hyper, X, y, *, kernel="rbf", alpha=1e-10,
                            normalize_y: bool = False, sample_weight=None) -> jax.Array:
    r"""The log marginal likelihood :math:`\log p(t \mid X, \theta)`, differentiable in :math:`\theta`.

    .. math::

        \log p = -\tfrac12 t^\top C^{-1} t - \sum_i \log L_{ii} - \tfrac n2 \log 2\pi,
        \qquad
        \frac{\partial \log p}{\partial\theta_j}
        = \tfrac12 \operatorname{tr}\!\Big((\alpha\alpha^\top - C^{-1})\frac{\partial C}{\partial\theta_j}\Big)

    (R&W eqs. 2.30, 5.9; the gradient comes from autodiff and is tested against the closed
    form). With weights, the copies' term of the module docstring is added.

    Parameters
    ----------
    params_or_hyper : GPParams or GPKernel
        Hyperparameters :math:`\theta` (a ``GPKernel``, traced: ``jax.grad`` of this function
        in it is the gradient above), or fitted params (their ``kernel`` and kernel function).
    X : (n_samples, n_features) array-like
    y : (n_samples,) array-like
    kernel : str or callable
        The unit kernel, with a ``GPKernel`` (params carry their own).
    alpha, normalize_y, sample_weight
        As :func:`fit_gp`.

    Returns
    -------
    () array
        :math:`-\infty` when :math:`C` cannot be factorised.

    Examples
    --------
    >>> import jax, jax.numpy as jnp
    >>> from jaxclassic.gaussian_process import GPKernel
    >>> X = jnp.linspace(0, 5, 20)[:, None]; y = jnp.sin(X[:, 0])
    >>> theta = GPKernel(amplitude=1.0, length_scale=1.0, noise=0.01)
    >>> grad = jax.grad(log_marginal_likelihood)(theta, X, y)
    >>> grad.length_scale.shape
    ()

    References
    ----------
    Rasmussen & Williams, *Gaussian Processes for Machine Learning*, 2006, eqs. 2.30, 5.9.
    """
    if isinstance(params_or_hyper, GPParams):
        kernel_fn = _kernel_of(params_or_hyper)
        hyper = params_or_hyper.kernel
    elif isinstance(params_or_hyper, GPKernel):
        kernel_fn = get_gp_kernel(kernel)
        hyper = params_or_hyper
    else:
        raise TypeError(f"params_or_hyper must be GPParams or GPKernel, got {type(params_or_hyper).__name__}")
    X, y, sw, added_noise, kernel_fn = _prepare(X, y, sample_weight, alpha, hyper.amplitude,
                                                hyper.length_scale, hyper.noise, kernel_fn)
    hyper = GPKernel(*(jnp.asarray(h).astype(X.dtype) for h in hyper))
    return _log_marginal_likelihood(hyper, X, y, sw, added_noise, kernel_fn=kernel_fn,
                                    normalize_y=check_bool(normalize_y, "normalize_y"))
