r"""Gaussian mixtures by EM (and generalised EM): fit, predict, densities, BIC / AIC, sampling.

Model: :math:`p(x) = \sum_{k=1}^K \pi_k\,\mathcal N(x\mid\mu_k, \Sigma_k)`, with the covariance
structures ``full``, ``tied``, ``diag``, ``spherical`` of scikit-learn's ``GaussianMixture``
(:mod:`jaxclassic.cluster._gmm_covariance` holds their maths). Sample weights :math:`s_i \ge 0`
make the objective :math:`\sum_i s_i \log p(x_i)`: integer weights equal repeated rows, and a
row of weight 0 has no influence at all.

EM (Dempster, Laird & Rubin 1977; Bishop, *PRML* §9.2.2), each iteration one pass over the rows:

* **E-step**, in log space: :math:`\log\rho_{ik} = \log\pi_k + \log\mathcal N(x_i\mid\mu_k,
  \Sigma_k)` through the Cholesky factors :math:`P_k` of the precisions,
  :math:`\log\mathcal N = -\tfrac12(d\log2\pi + \lVert(x_i-\mu_k)^\top P_k\rVert^2) + \log\lvert
  P_k\rvert`; :math:`\ell_i = \operatorname{logsumexp}_k \log\rho_{ik}` and responsibilities
  :math:`r_{ik} = \exp(\log\rho_{ik} - \ell_i)`.
* **M-step**, closed form: with :math:`\omega_{ik} = s_i r_{ik}`, :math:`n_k = \sum_i\omega_{ik}`,
  :math:`\pi_k = n_k/\sum_c n_c`, :math:`\mu_k = \sum_i\omega_{ik}x_i/n_k`,
  :math:`\Sigma_k = \sum_i\omega_{ik}(x_i-\mu_k)(x_i-\mu_k)^\top/n_k + \rho I` (``reg_covar``
  :math:`\rho` on the diagonal; tied / diag / spherical pool or restrict it). The statistics are
  taken about the current means, the same centred block :math:`x_i - \mu_k` that the E-step
  used, so the pass reads ``X`` once, in row tiles (cache-sized on the CPU; under
  :data:`jaxclassic._tiling.MEMORY_BUDGET` elsewhere; :mod:`jaxclassic.cluster._gmm_em`).
* **Stopping** (scikit-learn's rule): the mean log-likelihood
  :math:`L_t = \sum_i s_i\ell_i / \sum_i s_i` of the parameters entering iteration :math:`t`
  is recorded (``lower_bounds``); EM stops when :math:`\lvert L_t - L_{t-1}\rvert \le` ``tol``
  (scikit-learn: ``<``) or after ``max_iter`` iterations, through :func:`jaxclassic._solver.iterate`.
  As in scikit-learn, ``lower_bound`` is :math:`L` of the parameters *before* the last M-step.

EM never decreases :math:`\sum_i s_i\log p(x_i)` (Bishop §9.4) when ``reg_covar = 0``. With
:math:`\rho > 0` the M-step maximises :math:`Q - \tfrac12\rho\sum_k n_k\operatorname{tr}
\Lambda_k`, a penalty whose weights :math:`n_k` change between iterations, which the theorem
does not cover; an :math:`O(\rho)` dip near convergence is possible in principle. Tested: the
recorded :math:`L_t` never decrease (beyond :math:`10^{-12}`) at any iteration, for each
covariance type, on iris and wine, with :math:`\rho = 0` and with the default
:math:`10^{-6}`.

Generalised EM (``m_step="gradient"``): the M-step only *increases* :math:`Q` (Bishop §9.4):
``m_step_iter`` L-BFGS steps (``optax.lbfgs``, autodiff gradient) on the unconstrained
parameters (log-weights through a softmax, means, precision Cholesky factors with a log
diagonal) from the current ones, starting from the statistics of the E-step (no extra pass
over ``X``); a step that does not increase :math:`Q` is refused, so the likelihood never
decreases either, and a fixed point is a stationary point of the likelihood: on easy data it is
exact EM's optimum, reached in more iterations.

Initialisation: responsibilities :math:`r^{(0)}` (``init``: ``"kmeans"`` one-hot labels of
:func:`jaxclassic.cluster.fit_kmeans`, ``"k-means++"`` one-hot at
:func:`jaxclassic.cluster.kmeans_plusplus`'s seeds, ``"random"`` uniform draws normalised by
row, ``"random_from_data"`` one-hot at ``K`` distinct rows drawn at random, or an (n, K) array),
then one M-step: scikit-learn's ``_initialize``. Weights are normalised by :math:`\sum_k n_k`
(scikit-learn divides by ``n_samples``, the same when the rows of :math:`r^{(0)}` sum to 1).
``n_init`` restarts run as one ``vmap`` over ``jax.random.split(key, n_init)``; the restart of
largest ``lower_bound`` is kept.

Degenerate input: a component that collapses onto one point (or duplicate rows, or constant
data) keeps the covariance :math:`\rho I`: finite, because ``reg_covar`` is on the diagonal.
With :math:`\rho = 0` its covariance is singular, the Cholesky factor is NaN, the loop stops
and :func:`fit_gmm` raises ``ValueError`` (scikit-learn's message); inside ``jit``/``vmap``
the params hold NaN and ``converged`` is False. An empty component keeps its mean and gets
:math:`\Sigma = \rho I` and weight :math:`\approx 0`, as in scikit-learn.

Derivatives (issue 14): the fitted ``weights``, ``means``, ``covariances`` and
``precisions_cholesky`` are differentiable in ``X``, ``sample_weight`` and ``reg_covar`` by the
implicit function theorem at the EM fixed point :math:`\theta = \mathrm{EM}(\theta)`
(:func:`jaxclassic.cluster._gmm_em.em_residual`, :func:`jaxclassic._implicit.with_implicit_derivatives`):
:math:`\partial\theta^\star = (I - \partial_\theta\mathrm{EM})^{-1}\partial_h\mathrm{EM}`, EM's loop
never differentiated and the values unchanged. Defined at an isolated maximum that EM has
reached (a tight ``tol``: the derivative is that of the returned point); a stationary point of
generalised EM is a fixed point of the exact map too. ``lower_bound`` has the derivative of
the mean log-likelihood at the returned parameters (:func:`jaxclassic.cluster._gmm_em.lower_bound_with_derivative`);
``lower_bounds``, ``n_iter`` and the initialisation carry none.

Cost per iteration: ``full`` / ``tied`` two :math:`(n K d^2)` products (Mahalanobis distances
and scatter matrices); ``diag`` / ``spherical`` :math:`O(nKd)`.

References
----------
A. P. Dempster, N. M. Laird, D. B. Rubin, "Maximum likelihood from incomplete data via the EM
algorithm", JRSS B 39 (1977).
C. M. Bishop, *Pattern Recognition and Machine Learning*, 2006, §9.2-9.4.
T. Hastie, R. Tibshirani, J. Friedman, *The Elements of Statistical Learning*, 2nd ed., §8.5.
scikit-learn, ``sklearn/mixture/_gaussian_mixture.py`` and ``_base.py`` (the reference).
"""

from __future__ import annotations

import warnings
from functools import partial
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxclassic import _jit, _progress
from jaxclassic import _linalg
from jaxclassic import _precision, _tiling
from jaxclassic._implicit import with_implicit_derivatives
from jaxclassic.cluster import _api
from jaxclassic.cluster import _gmm_covariance as _cov
from jaxclassic.cluster import _gmm_em as _em
from jaxclassic._deprecation import key_moved
from jaxclassic.exceptions import ConvergenceWarning
from jaxclassic.validation import (
    as_operand,
    check_array,
    check_choice,
    check_int,
    check_key,
    check_predict_X,
    check_sample_weight,
    check_scalar,
    is_traced,
    key_from_seed,
)

__all__ = [
    "GMMParams",
    "FullGMMParams",
    "TiedGMMParams",
    "DiagGMMParams",
    "SphericalGMMParams",
    "fit_gmm",
    "score",
    "bic",
    "aic",
    "sample",
    "n_parameters",
    "precisions",
]

COVARIANCE_TYPES = _cov.COVARIANCE_TYPES
INITS = ("kmeans", "k-means++", "random", "random_from_data")
M_STEPS = ("exact", "gradient")

_COLLAPSE_MESSAGE = (
    "Fitting the mixture model failed because some components have ill-defined empirical "
    "covariance (for instance caused by singleton or collapsed samples). Try to decrease the "
    "number of components, increase reg_covar, or scale the input data."
)


class GMMParams(NamedTuple):
    """A fitted Gaussian mixture. The subclass says the covariance structure
    (:class:`FullGMMParams`, :class:`TiedGMMParams`, :class:`DiagGMMParams`,
    :class:`SphericalGMMParams`; ``params.covariance_type``), so that prediction needs no
    further argument and shapes stay unambiguous when ``K == d``.

    Attributes
    ----------
    weights : (K,) array
        Mixing proportions :math:`\\pi_k` (sum to 1).
    means : (K, d) array
    covariances : array
        ``full`` (K, d, d); ``tied`` (d, d); ``diag`` (K, d); ``spherical`` (K,).
    precisions_cholesky : array, shape of ``covariances``
        :math:`P_k` with :math:`\\Sigma_k^{-1} = P_kP_k^\\top` (upper triangular for
        ``full`` / ``tied``; :math:`1/\\sigma` for ``diag`` / ``spherical``).
    converged : bool scalar
        Whether :math:`|L_t - L_{t-1}| \\le` ``tol`` was met.
    n_iter : int32 scalar
        EM iterations (M-steps after the initial one).
    lower_bound : scalar
        Weighted mean log-likelihood of the parameters entering the last iteration
        (scikit-learn's ``lower_bound_``); ``-inf`` with ``max_iter=0``.
    lower_bounds : (max(max_iter, 1),) array
        :math:`L_t` at each iteration (``-inf`` past ``n_iter``).
    """

    weights: jax.Array
    means: jax.Array
    covariances: jax.Array
    precisions_cholesky: jax.Array
    converged: jax.Array
    n_iter: jax.Array
    lower_bound: jax.Array
    lower_bounds: jax.Array


class FullGMMParams(GMMParams):
    """:class:`GMMParams` with one full covariance per component."""

    __slots__ = ()
    covariance_type = "full"


class TiedGMMParams(GMMParams):
    """:class:`GMMParams` with one full covariance shared by all components."""

    __slots__ = ()
    covariance_type = "tied"


class DiagGMMParams(GMMParams):
    """:class:`GMMParams` with one diagonal covariance per component."""

    __slots__ = ()
    covariance_type = "diag"


class SphericalGMMParams(GMMParams):
    """:class:`GMMParams` with one variance per component."""

    __slots__ = ()
    covariance_type = "spherical"


PARAMS_TYPES = {"full": FullGMMParams, "tied": TiedGMMParams, "diag": DiagGMMParams,
                "spherical": SphericalGMMParams}


# --------------------------------------------------------------------------- the fit
@partial(_jit.jit, static_argnames=("n_components", "covariance_type", "max_iter", "init", "n_init",
                                   "m_step", "m_step_iter", "tile", "progress"))
def _fit_gmm(X, sample_weight, key, init_resp, tol, reg_covar, *, n_components, covariance_type,
             max_iter, init, n_init, m_step, m_step_iter, tile, progress=None):
    # EM's loop sees no tangent; the parameters get the implicit derivatives of the EM fixed
    # point in X, the weights and reg_covar (module docstring, _gmm_em.em_residual)
    data = (X, sample_weight, reg_covar)
    X, sample_weight, reg_covar, init_resp = jax.lax.stop_gradient((X, sample_weight, reg_covar, init_resp))
    params = _run_restarts(X, sample_weight, key, init_resp, tol, reg_covar, n_components=n_components,
                           covariance_type=covariance_type, max_iter=max_iter, init=init, n_init=n_init,
                           m_step=m_step, m_step_iter=m_step_iter, tile=tile, progress=progress)
    theta = (params.weights, params.means, params.covariances, params.precisions_cholesky)
    theta = with_implicit_derivatives(partial(_em.em_residual, covariance_type=covariance_type, tile=tile),
                                      theta, *data)
    lower_bound = _em.lower_bound_with_derivative(params.lower_bound, theta, data[0], data[1],
                                                  covariance_type, tile)
    return params._replace(weights=theta[0], means=theta[1], covariances=theta[2],
                           precisions_cholesky=theta[3], lower_bound=lower_bound)


def _run_restarts(X, sample_weight, key, init_resp, tol, reg_covar, *, n_components, covariance_type,
                  max_iter, init, n_init, m_step, m_step_iter, tile, progress=None):
    def single(key):
        return PARAMS_TYPES[covariance_type](*_em.run_em(
            X, sample_weight, key, init_resp, tol, reg_covar, n_components=n_components,
            covariance_type=covariance_type, max_iter=max_iter, init=init, m_step=m_step,
            m_step_iter=m_step_iter, tile=tile, progress=progress))

    if n_init == 1:
        return single(key)
    fits = jax.vmap(single)(jax.random.split(key, n_init))
    bounds = jnp.where(jnp.isnan(fits.lower_bound), -jnp.inf, fits.lower_bound)
    best = jnp.argmax(bounds)
    return jax.tree.map(lambda a: a[best], fits)


def fit_gmm(X, n_components, *, key=None, covariance_type="full", max_iter=100, tol=1e-3,
            reg_covar=1e-6, init="kmeans", n_init=1, sample_weight=None, m_step="exact",
            m_step_iter=5, verbose=0) -> GMMParams:
    r"""Fit a Gaussian mixture by EM (or generalised EM).

    Maximises :math:`\sum_i s_i\log\sum_k\pi_k\mathcal N(x_i\mid\mu_k,\Sigma_k)` by alternating
    the E-step :math:`r_{ik}\propto\pi_k\mathcal N(x_i\mid\mu_k,\Sigma_k)` (log space) and the
    closed-form M-step :math:`\pi_k = n_k/\sum n`, :math:`\mu_k = \sum_i s_ir_{ik}x_i/n_k`,
    :math:`\Sigma_k = \sum_i s_ir_{ik}(x_i-\mu_k)(x_i-\mu_k)^\top/n_k + \rho I` until the mean
    log-likelihood changes by at most ``tol`` (module docstring: stopping rule, degenerate
    input, generalised EM).

    Parameters
    ----------
    X : (n, d) array
    n_components : int
        :math:`K`, between 1 and the number of rows of positive weight (static).
    key : jax.random key, optional
        Randomness of the initialisation (unused when ``init`` is an array). ``None``
        (default): ``jax.random.key(0)``, so calls without a key are deterministic.
    covariance_type : {"full", "tied", "diag", "spherical"}
        Static.
    max_iter : int
        Bound on EM iterations (static; sizes ``lower_bounds``); 0 returns the initial M-step.
    tol : float
        Tolerance on the change of the mean log-likelihood (traced).
    reg_covar : float
        :math:`\rho \ge 0`, added to the diagonal of every covariance (traced).
    init : {"kmeans", "k-means++", "random", "random_from_data"} or (n, K) array
        Initial responsibilities (module docstring).
    n_init : int
        Restarts, run as one vmap over keys; the largest ``lower_bound`` is kept (static).
    sample_weight : (n,) array, optional
        Non-negative row weights.
    m_step : {"exact", "gradient"}
        Closed-form M-step, or generalised EM's ``m_step_iter`` L-BFGS steps on :math:`Q`.
    m_step_iter : int
        Steps of the generalised M-step (static).
    verbose : int >= 0, default=0 (static)
        0: silent (the program has no callback). ``k > 0``: a tqdm bar of the iterations and,
        every ``k`` iterations and after the last, a line ``[t]\tlower_bound:<L_t>\tchange:<|L_t -
        L_{t-1}|>`` sent from inside the compiled EM loop (:mod:`jaxclassic._progress`; with
        ``n_init > 1`` the restarts run as one vmap and each iteration is reported once).

    Returns
    -------
    GMMParams
        Of the subclass of ``covariance_type``.

    Raises
    ------
    ValueError
        Bad hyperparameters or input (named), or a covariance that is not positive definite
        after the fit (``reg_covar = 0`` with a collapsed component).

    Examples
    --------
    >>> import jax, numpy as np
    >>> from jaxclassic.cluster import fit_gmm, predict
    >>> X = np.r_[np.random.default_rng(0).normal(size=(50, 2)), 8 + np.random.default_rng(1).normal(size=(50, 2))]
    >>> params = fit_gmm(X, 2, key=jax.random.key(0))
    >>> sorted(np.round(np.asarray(params.weights), 2).tolist())
    [0.5, 0.5]
    >>> int((np.asarray(predict(params, X))[:50] == np.asarray(predict(params, X))[0]).sum())
    50

    References
    ----------
    Dempster, Laird & Rubin (1977); Bishop, *PRML* §9.2-9.4 (module docstring).
    """
    X = check_array(X, "X")
    n, d = X.shape
    covariance_type = check_choice(covariance_type, "covariance_type", COVARIANCE_TYPES)
    m_step = check_choice(m_step, "m_step", M_STEPS)
    max_iter = check_int(max_iter, "max_iter", low=0)
    n_init = check_int(n_init, "n_init", low=1)
    m_step_iter = check_int(m_step_iter, "m_step_iter", low=1)
    progress = _progress.spec(verbose, "fit_gmm", ("lower_bound", "change"))
    check_scalar(tol, "tol", low=0.0)
    check_scalar(reg_covar, "reg_covar", low=0.0)
    sw = check_sample_weight(sample_weight, n, dtype=X.dtype)
    n_positive = n if is_traced(sw) else int(np.count_nonzero(np.asarray(sw)))
    n_components = check_int(n_components, "n_components", low=1)
    if n_components > n_positive:
        raise ValueError(f"n_components must be <= the number of rows of positive weight "
                         f"({n_positive}), got {n_components}")
    init_resp = None
    if isinstance(init, str):
        init = check_choice(init, "init", INITS)
        key = key_from_seed(0) if key is None else check_key(key)
    else:
        init_resp = check_array(init, "init", dtype=X.dtype)
        if init_resp.shape != (n, n_components):
            raise ValueError(f"init responsibilities must have shape ({n}, {n_components}), "
                             f"got {init_resp.shape}")
        if not is_traced(init_resp) and bool(jnp.any(init_resp < 0)):
            raise ValueError("init responsibilities must be non-negative")
        init, n_init = "array", 1  # restarts from one array are identical
    tile = _em.tile_rows(n, n_components, d, X.dtype)
    extra = {} if progress is None else {"progress": progress}  # verbose=0: the program without reporting
    with _progress.reporting(progress, max_iter):
        params = _fit_gmm(X, sw, key, init_resp, tol, reg_covar, n_components=n_components,
                          covariance_type=covariance_type, max_iter=max_iter, init=init, n_init=n_init,
                          m_step=m_step, m_step_iter=m_step_iter, tile=tile, **extra)
    if not any(is_traced(leaf) for leaf in jax.tree.leaves(params)):
        _check_after_fit(params, max_iter)
    return params


def _check_after_fit(params, max_iter):
    # in numpy on the fitted (small, concrete) arrays: a jitted check was one more program per
    # n_components (issue 25: refits with another n_components)
    finite = all(bool(np.all(np.isfinite(np.asarray(a))))
                 for a in (params.weights, params.means, params.covariances, params.precisions_cholesky))
    if not finite:
        raise ValueError(_COLLAPSE_MESSAGE)
    if max_iter > 0 and not bool(params.converged):
        warnings.warn(
            f"fit_gmm did not converge in max_iter={max_iter} iterations (last change of the mean "
            "log-likelihood above tol). Try different init parameters, or increase max_iter, "
            "tol, or check for degenerate data.", ConvergenceWarning, stacklevel=3)


# --------------------------------------------------------------------------- prediction
def _check_params(params):
    if not isinstance(params, GMMParams) or not hasattr(params, "covariance_type"):
        raise TypeError(f"params must be the result of fit_gmm (a GMMParams subclass), got "
                        f"{type(params).__name__}")


def _prepare_X(params, X):
    _check_params(params)
    means = as_operand(params.means)
    return check_predict_X(X, means.dtype, means.shape[1])


@_jit.jit
def _log_resp(params, X):
    """``(log r (n, K), log p(x) (n,))`` under ``params``, in row tiles."""
    covariance_type = params.covariance_type
    K, d = params.means.shape
    log_weights = jnp.log(params.weights)

    def fn(Xt):
        D = Xt[:, None, :] - params.means[None]
        log_rho = _cov.log_gaussian(D, params.precisions_cholesky, covariance_type) + log_weights
        ll = jax.nn.logsumexp(log_rho, axis=1)
        return log_rho - ll[:, None], ll

    tile = _tiling.tile_size(X.shape[0], 2 * K * d * X.dtype.itemsize)
    return _tiling.map_row_tiles(fn, X, tile=tile)


@_jit.jit
def _argmax_rows(a):
    return jnp.argmax(a, axis=1).astype(jnp.int32)


def _as_jax(params):
    # device_put: no compiled `stage` program per leaf shape (jnp.asarray compiles one); these
    # arrays live only for the call, so that device_put may alias the host buffers is harmless
    return jax.tree.map(jax.device_put, params)


def _predict(params, X):
    """Most probable component of each row, (n,) int32."""
    X = _prepare_X(params, X)
    return _argmax_rows(_log_resp(_as_jax(params), X)[0])


def _predict_proba(params, X):
    """Responsibilities :math:`p(k\\mid x)`, (n, K)."""
    X = _prepare_X(params, X)
    return jnp.exp(_log_resp(_as_jax(params), X)[0])


def _score_samples(params, X):
    """:math:`\\log p(x_i) = \\operatorname{logsumexp}_k(\\log\\pi_k + \\log\\mathcal N(x_i\\mid
    \\mu_k, \\Sigma_k))`, (n,)."""
    X = _prepare_X(params, X)
    return _log_resp(_as_jax(params), X)[1]


_api.predict.register(GMMParams, _predict)
_api.predict_proba.register(GMMParams, _predict_proba)
_api.score_samples.register(GMMParams, _score_samples)


def score(params, X, sample_weight=None):
    """Weighted mean log-likelihood :math:`\\sum_i s_i\\log p(x_i)/\\sum_i s_i` (scikit-learn's
    ``score``).

    Parameters
    ----------
    params : GMMParams
    X : (n, d) array
    sample_weight : (n,) array, optional

    Returns
    -------
    scalar array

    Examples
    --------
    >>> import jax, numpy as np
    >>> from jaxclassic.cluster import fit_gmm
    >>> from jaxclassic.cluster.gmm import score
    >>> X = np.random.default_rng(0).normal(size=(40, 2))
    >>> params = fit_gmm(X, 1, key=jax.random.key(0), init="random")
    >>> bool(score(params, X) < 0)
    True
    """
    X = _prepare_X(params, X)
    sw = check_sample_weight(sample_weight, X.shape[0], dtype=X.dtype)
    ll = _log_resp(_as_jax(params), X)[1]
    return jnp.sum(jnp.where(sw > 0, sw * ll, 0)) / jnp.sum(sw)


def precisions(params):
    r"""The precision matrices :math:`\Lambda_k = \Sigma_k^{-1} = P_kP_k^\top` (shape of
    ``covariances``; :math:`P^2` for ``diag`` / ``spherical``), scikit-learn's ``precisions_``."""
    _check_params(params)
    prec_chol = params.precisions_cholesky
    if not is_traced(prec_chol):  # fitted arrays: one compiled program, no eager operations
        return _precisions(jax.device_put(prec_chol), params.covariance_type)
    return _precisions(prec_chol, params.covariance_type)


@partial(_jit.jit, static_argnames=("covariance_type",))
def _precisions(prec_chol, covariance_type):
    if covariance_type in ("full", "tied"):
        return _precision.matmul(prec_chol, jnp.swapaxes(prec_chol, -1, -2))
    return jnp.square(prec_chol)


def n_parameters(params) -> int:
    """Free parameters of the mixture (scikit-learn's ``_n_parameters``): ``K - 1`` weights,
    ``K d`` means and ``K d(d+1)/2`` (full), ``d(d+1)/2`` (tied), ``K d`` (diag) or ``K``
    (spherical) covariance parameters."""
    _check_params(params)
    K, d = np.shape(params.means)
    return _cov.n_parameters(K, d, params.covariance_type)


def bic(params, X, sample_weight=None):
    """Bayesian information criterion :math:`-2\\sum_i s_i\\log p(x_i) + p\\log\\sum_i s_i`
    (scikit-learn's ``bic`` with :math:`n = \\sum_i s_i`), lower is better.

    Parameters
    ----------
    params : GMMParams
    X : (n, d) array
    sample_weight : (n,) array, optional

    Returns
    -------
    scalar array

    Examples
    --------
    >>> import jax, numpy as np
    >>> from jaxclassic.cluster import fit_gmm, bic
    >>> X = np.random.default_rng(0).normal(size=(40, 2))
    >>> one = fit_gmm(X, 1, key=jax.random.key(0), init="random")
    >>> three = fit_gmm(X, 3, key=jax.random.key(0), init="random")
    >>> bool(bic(one, X) < bic(three, X))
    True

    References
    ----------
    G. Schwarz, "Estimating the dimension of a model", Annals of Statistics 6 (1978).
    """
    n = _total_weight(X, sample_weight)
    return -2 * score(params, X, sample_weight) * n + n_parameters(params) * jnp.log(n)


def aic(params, X, sample_weight=None):
    """Akaike information criterion :math:`-2\\sum_i s_i\\log p(x_i) + 2p` (scikit-learn's
    ``aic``), lower is better.

    Parameters
    ----------
    params : GMMParams
    X : (n, d) array
    sample_weight : (n,) array, optional

    Returns
    -------
    scalar array

    Examples
    --------
    >>> import jax, numpy as np
    >>> from jaxclassic.cluster import fit_gmm, aic
    >>> X = np.random.default_rng(0).normal(size=(40, 2))
    >>> params = fit_gmm(X, 1, key=jax.random.key(0), init="random")
    >>> bool(aic(params, X) > 0)
    True

    References
    ----------
    H. Akaike, "A new look at the statistical model identification", IEEE TAC 19 (1974).
    """
    n = _total_weight(X, sample_weight)
    return -2 * score(params, X, sample_weight) * n + 2 * n_parameters(params)


def _total_weight(X, sample_weight):
    if sample_weight is None:
        return np.shape(X)[0]
    return jnp.sum(check_sample_weight(sample_weight, np.shape(X)[0]))


@partial(_jit.jit, static_argnames=("n_samples",))
def _sample(params, key, n_samples):
    covariance_type = params.covariance_type
    K, d = params.means.shape
    key_label, key_noise = jax.random.split(key)
    labels = jax.random.categorical(key_label, jnp.log(params.weights), shape=(n_samples,))
    noise = jax.random.normal(key_noise, (n_samples, d), dtype=params.means.dtype)
    if covariance_type == "full":
        chol = _linalg.cholesky(params.covariances)
        offset = _precision.einsum("nde,ne->nd", chol[labels], noise)
    elif covariance_type == "tied":
        offset = _precision.matmul(noise, _linalg.cholesky(params.covariances).T)
    elif covariance_type == "diag":
        offset = noise * jnp.sqrt(params.covariances[labels])
    else:
        offset = noise * jnp.sqrt(params.covariances[labels])[:, None]
    return params.means[labels] + offset, labels.astype(jnp.int32)


@key_moved(2)
def sample(params, n_samples=1, *, key=None):
    """Draw ``n_samples`` rows from the mixture: ``(X (n, d), labels (n,))``.

    :math:`z \\sim \\operatorname{Categorical}(\\pi)`, :math:`x = \\mu_z + L_z\\varepsilon`,
    :math:`\\varepsilon\\sim\\mathcal N(0, I)`, :math:`\\Sigma_z = L_zL_z^\\top`. Rows come in
    random order (scikit-learn's ``sample`` sorts them by component).

    Parameters
    ----------
    params : GMMParams
    n_samples : int
        At least 1 (static); 1 by default, as scikit-learn's ``GaussianMixture.sample``.
    key : jax.random key, optional
        ``None`` (default): ``jax.random.key(0)``. The old order ``sample(params, n_samples,
        key)`` still works, with a ``DeprecationWarning``, until jaxclassic 0.3.0.

    Returns
    -------
    X : (n_samples, d) array
    labels : (n_samples,) int32 array

    Examples
    --------
    >>> import jax, numpy as np
    >>> from jaxclassic.cluster import fit_gmm, sample
    >>> X = np.random.default_rng(0).normal(size=(40, 2))
    >>> params = fit_gmm(X, 2, key=jax.random.key(0), init="random")
    >>> Xs, labels = sample(params, 5, key=jax.random.key(1))
    >>> Xs.shape, labels.shape
    ((5, 2), (5,))

    References
    ----------
    Bishop, *PRML* §11.1 (ancestral sampling).
    """
    _check_params(params)
    n_samples = check_int(n_samples, "n_samples", low=1)
    key = key_from_seed(0) if key is None else check_key(key)
    return _sample(_as_jax(params), key, n_samples)
