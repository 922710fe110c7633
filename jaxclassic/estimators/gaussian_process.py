r"""scikit-learn-compatible Gaussian process regression: ``GaussianProcessRegressor``.

A thin wrapper over :mod:`jaxclassic.gaussian_process`: it validates the input, pads the rows
to a shape bucket with zero weights (a weight-0 row has no influence on the GP: its row and
column of the covariance become the identity's), optimises the hyperparameters
(:func:`~jaxclassic.gaussian_process.optimize_hyperparameters`) unless ``optimizer=None``,
fits the GP (:func:`~jaxclassic.gaussian_process.fit_gp`) and stores its params (``params_``)
and scikit-learn's fitted attributes. The maths lives in the core.

The kernel is named by a string and its hyperparameters are constructor arguments, where
scikit-learn composes kernel objects. ``GaussianProcessRegressor("rbf", amplitude=c,
length_scale=l, noise=s)`` is scikit-learn's ``GaussianProcessRegressor(ConstantKernel(c) *
RBF(l) + WhiteKernel(s))`` (``noise=0``, the default: no ``WhiteKernel``, as scikit-learn's
default kernel), with the same bounds (``*_bounds``, ``"fixed"`` to hold one), the same
``alpha``, ``normalize_y`` and ``n_restarts_optimizer``.

Differences from scikit-learn: the kernels are ``"rbf"``, ``"matern12"``, ``"matern32"``,
``"matern52"`` (``Matern(nu=0.5, 1.5, 2.5)``) or a block kernel callable; the default
amplitude and length scale are optimised (scikit-learn's default kernel has them fixed); the
optimiser is optax's L-BFGS with the bounds kept by a logistic reparametrisation (an optimum
on a bound is approached, not reached: see :mod:`jaxclassic.gaussian_process.optimize`);
``fit`` accepts ``sample_weight`` (row ``i``'s noise variance divided by its weight, the same
posterior as repeated rows); a single target (1-d ``y``); no ``sample_y``. Where scikit-learn
raises on a covariance that is not numerically positive definite (``alpha`` too small), the
fit adds jitter and warns (:class:`~jaxclassic.gaussian_process.NumericalJitterWarning`).
The predicted ``std`` / ``cov`` include the noise variance ``noise_``, as scikit-learn's do
with a ``WhiteKernel``; ``include_noise=False`` gives the latent function's.
"""

from __future__ import annotations

import numpy as np

from jaxclassic import gaussian_process as _gp
from jaxclassic.estimators._base import (
    BaseEstimator,
    RegressorMixin,
    dtype_scope,
    prepare_fit,
    prepare_predict,
    to_host,
)
from jaxclassic.gaussian_process.covariance import get_gp_kernel
from jaxclassic.validation import check_bool, key_from_seed

__all__ = ["GaussianProcessRegressor"]


def _key(random_state):
    """A ``jax.random`` key drawn from scikit-learn's ``random_state``."""
    import jax
    from sklearn.utils import check_random_state

    return key_from_seed(check_random_state(random_state).randint(np.iinfo(np.int32).max))


def _bounds(value, name):
    if isinstance(value, str):
        if value != "fixed":
            raise ValueError(f"{name} must be 'fixed' or a (low, high) pair, got {value!r}")
        return None
    return tuple(value)


class GaussianProcessRegressor(RegressorMixin, BaseEstimator):
    r"""Gaussian process regression (:mod:`jaxclassic.gaussian_process`).

    Covariance :math:`c\,\kappa(x/\ell, z/\ell) + \sigma^2[x = z]`, posterior mean
    :math:`k_*^\top (K + (\sigma^2 + \alpha) I)^{-1} y` by Cholesky; the hyperparameters
    maximise the log marginal likelihood (L-BFGS on their logarithms, with restarts).

    Parameters
    ----------
    kernel : {"rbf", "matern12", "matern32", "matern52"} or callable, default="rbf"
        The unit kernel :math:`\kappa` (a callable: a block kernel ``(X, Z) -> (n, m)`` applied
        to the scaled inputs).
    amplitude : float > 0, default=1.0
        :math:`c` (initial value when optimised).
    length_scale : float > 0 or array of shape (n_features,), default=1.0
        :math:`\ell`; an array optimises one length scale per feature (ARD).
    noise : float >= 0, default=0.0
        :math:`\sigma^2`, the ``WhiteKernel`` noise variance (0: no such term, not optimised).
    alpha : float or array of shape (n_samples,), default=1e-10
        Fixed value added to the diagonal, as scikit-learn's.
    amplitude_bounds, length_scale_bounds, noise_bounds : (low, high) or "fixed", default=(1e-5, 1e5)
    optimizer : {"lbfgs"} or None, default="lbfgs"
        None keeps the given hyperparameters.
    n_restarts_optimizer : int, default=0
        Further starts drawn log-uniformly within the bounds (all in one vmapped program).
    max_iter : int, default=100
        L-BFGS iterations per start.
    tol : float, default=1e-5
        Stop a start when the gradient norm (in the optimiser's unconstrained variables) is at
        most ``tol`` (scikit-learn's L-BFGS-B: ``pgtol=1e-5``).
    normalize_y : bool, default=False
        Standardise the targets (weighted mean and population std) before fitting.
    random_state : int, RandomState or None, default=None
        Seeds the restarts' draws.

    Attributes
    ----------
    amplitude_, length_scale_, noise_ : float (``length_scale_``: array with ARD)
        The fitted hyperparameters.
    kernel_ : GPKernel
        The same, as the core's pytree (numpy leaves).
    log_marginal_likelihood_value_ : float
        Of the (normalised) training targets at the fitted hyperparameters.
    alpha_ : ndarray of shape (n_samples,)
        The dual coefficients :math:`C^{-1}t`.
    L_ : ndarray of shape (n_samples, n_samples)
        Lower Cholesky factor of the training covariance.
    X_train_, y_train_ : ndarray
        The training data (``y_train_`` normalised with ``normalize_y``, as scikit-learn's).
    n_iter_ : int
        L-BFGS iterations of the kept start (0 without optimisation).
    n_features_in_ : int
    params_ : GPParams
        The functional core's params (padded rows included).
    """

    def __init__(self, kernel="rbf", *, amplitude=1.0, length_scale=1.0, noise=0.0, alpha=1e-10,
                 amplitude_bounds=(1e-5, 1e5), length_scale_bounds=(1e-5, 1e5), noise_bounds=(1e-5, 1e5),
                 optimizer="lbfgs", n_restarts_optimizer=0, max_iter=100, tol=1e-5, normalize_y=False,
                 random_state=None):
        self.kernel = kernel
        self.amplitude = amplitude
        self.length_scale = length_scale
        self.noise = noise
        self.alpha = alpha
        self.amplitude_bounds = amplitude_bounds
        self.length_scale_bounds = length_scale_bounds
        self.noise_bounds = noise_bounds
        self.optimizer = optimizer
        self.n_restarts_optimizer = n_restarts_optimizer
        self.max_iter = max_iter
        self.tol = tol
        self.normalize_y = normalize_y
        self.random_state = random_state

    def _checked_options(self):
        if self.optimizer not in ("lbfgs", None):
            raise ValueError(f"optimizer must be 'lbfgs' or None, got {self.optimizer!r}")
        get_gp_kernel(self.kernel)
        if isinstance(self.n_restarts_optimizer, bool) or not isinstance(self.n_restarts_optimizer, (int, np.integer)) \
                or self.n_restarts_optimizer < 0:
            raise ValueError(f"n_restarts_optimizer must be an int >= 0, got {self.n_restarts_optimizer!r}")
        return (_bounds(self.amplitude_bounds, "amplitude_bounds"),
                _bounds(self.length_scale_bounds, "length_scale_bounds"),
                None if float(self.noise) == 0 else _bounds(self.noise_bounds, "noise_bounds"))

    def _alpha(self, n, n_padded, dtype):
        alpha = np.asarray(self.alpha, dtype=dtype)
        if alpha.ndim == 0:
            return alpha
        if alpha.shape != (n,):
            raise ValueError(f"alpha must be a scalar or an array with same number of entries as y "
                             f"({alpha.shape[0] if alpha.ndim else 1} != {n})")
        return np.concatenate([alpha, np.zeros(n_padded - n, dtype)])

    @dtype_scope
    def fit(self, X, y, sample_weight=None):
        """Optimise the hyperparameters (unless ``optimizer=None``) and fit the GP; returns ``self``."""
        bounds = self._checked_options()
        check_bool(self.normalize_y, "normalize_y")
        Xj, yj, swj, n = prepare_fit(self, X, y, sample_weight)
        alpha = self._alpha(n, Xj.shape[0], Xj.dtype)
        length_scale = np.asarray(self.length_scale, dtype=Xj.dtype)
        init = _gp.GPKernel(float(self.amplitude), length_scale, float(self.noise))
        common = dict(kernel=self.kernel, alpha=alpha, normalize_y=bool(self.normalize_y), sample_weight=swj)
        hyper, n_iter = init, 0
        if self.optimizer is not None and any(b is not None for b in bounds):
            n_restarts = int(self.n_restarts_optimizer)
            res = _gp.optimize_hyperparameters(
                Xj, yj, init=init, bounds=_gp.GPKernel(*bounds), n_restarts=n_restarts,
                key=_key(self.random_state) if n_restarts else None, max_iter=int(self.max_iter),
                tol=float(self.tol), **common)
            hyper = res.kernel
            n_iter = int(np.asarray(res.n_iter)[int(np.argmax(np.asarray(res.start_log_marginal_likelihoods)))])
        params = _gp.fit_gp(Xj, yj, amplitude=hyper.amplitude, length_scale=hyper.length_scale,
                            noise=hyper.noise, **common)
        self._store(params, n)
        self.n_iter_ = n_iter
        return self

    def _store(self, params, n):
        self.params_ = to_host(params)
        p = self.params_
        self.kernel_ = p.kernel
        self.amplitude_ = float(p.kernel.amplitude)
        self.length_scale_ = float(p.kernel.length_scale) if p.kernel.length_scale.ndim == 0 \
            else np.asarray(p.kernel.length_scale)
        self.noise_ = float(p.kernel.noise)
        self.log_marginal_likelihood_value_ = float(p.log_marginal_likelihood_value)
        self.alpha_ = p.alpha[:n]
        self.L_ = p.L[:n, :n]
        self.X_train_ = p.X_train[:n]
        self.y_train_ = (p.y_train[:n] - p.y_train_mean) / p.y_train_std

    @dtype_scope
    def predict(self, X, return_std=False, return_cov=False, include_noise=True):
        """Posterior mean ``(n_samples,)``; with ``return_std`` also its std, with ``return_cov`` its
        covariance (``include_noise``: plus the noise variance ``noise_``, as scikit-learn's
        ``WhiteKernel``)."""
        if return_std and return_cov:
            raise RuntimeError("At most one of return_std or return_cov can be requested.")
        Xp, n = prepare_predict(self, X)
        out = _gp.predict(self.params_, Xp, return_std=bool(return_std), return_cov=bool(return_cov),
                          include_noise=bool(include_noise))
        if return_cov:
            return np.asarray(out[0])[:n], np.asarray(out[1])[:n, :n]
        if return_std:
            return np.asarray(out[0])[:n], np.asarray(out[1])[:n]
        return np.asarray(out)[:n]

