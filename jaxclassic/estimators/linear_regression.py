"""scikit-learn-compatible least-squares regressors: ``LinearRegression``, ``Ridge``,
``BayesianRidge``, ``SGDRegressor``.

Thin wrappers over :mod:`jaxclassic.linear` (``fit_ols``, ``fit_ridge``,
``fit_bayesian_ridge``, ``fit_sgd_regressor``): they validate the input, pad the rows to a
shape bucket with zero weights (so refits on data of nearby sizes reuse one compiled program;
zero-weight rows have no influence on these fits), call the functional fit and store its
params (``params_``) and scikit-learn's fitted attributes. The maths lives in the core.

Sparse ``X`` (``scipy.sparse`` CSR / CSC; ``LinearRegression``, ``Ridge``): the Gram matrix
from sparse products, at most :data:`jaxclassic.linear._gram.MAX_GRAM_FEATURES` columns.

Differences from scikit-learn: a single target only (1-d ``y``); ``Ridge`` has no solver
choice (Cholesky) and adds ``standardize``; ``LinearRegression`` warns
(:class:`~jaxclassic.linear.ols.RankDeficientWarning`) on a singular Gram matrix and returns
the same minimum-norm solution; ``SGDRegressor`` takes scikit-learn's names (``loss``,
``penalty``, ``alpha``, ``max_iter``, ``learning_rate`` (the schedule), ``eta0``, ``power_t``)
plus the core's ``optimizer``, ``batch_size``, ``momentum``, and runs ``max_iter`` epochs of
minibatches (default 50; no ``tol`` rule: stop with ``early_stopping``). Its earlier names
(``learning_rate`` as a float step, ``schedule``, ``n_epochs``, ``l2``) are still accepted.
The reasons for scikit-learn parameters not taken: :data:`jaxclassic.estimators._parity.PARAMETER_GAPS`.

Precision of float32 (``X`` in float32, or ``set_config(dtype="float32")``): the fits centre and
scale the columns internally, so units from 1e-3 to 1e4 and column means up to ~1e5 times the
column's sd are handled; but the fitted parameters are stored in float32 and prediction works
on the raw ``x``: a column whose mean is ``m`` times its sd carries a rounding of about
``m * 6e-8`` sds in every score (``x - mean_k`` or ``x @ coef``). With ``m = 1e6`` that is 0.06
sd: probabilities ~2e-2 (logistic, LDA) to 0.2 (GaussianNB, QDA) off the float64 fit, as in
scikit-learn's own float32 models. Standardise such columns first (``StandardScaler`` in a
``Pipeline``: then float32 is within ~1e-6 of float64) or pass float64.
"""

from __future__ import annotations

import warnings

import jax
import jax.numpy as jnp
import numpy as np

from jaxclassic.estimators._base import (
    to_host,
    BaseEstimator,
    RegressorMixin,
    dtype_scope,
    prepare_fit,
    prepare_fit_sparse,
    prepare_predict,
    prepare_predict_sparse,
    SparseInputMixin,
)
from jaxclassic import _cores
from jaxclassic.linear._params import predict_linear
from jaxclassic.linear.bayesian import fit_bayesian_ridge, predict_dist_bayesian_ridge
from jaxclassic.linear.lasso import fit_lasso
from jaxclassic.linear.ols import fit_ols
from jaxclassic.linear.ridge import fit_ridge
from jaxclassic.linear.sgd import TAIL_EPOCHS, TAIL_FRACTION, fit_sgd_regressor
from jaxclassic.exceptions import ConvergenceWarning
from jaxclassic.validation import check_bool, check_int, check_scalar, key_from_seed

__all__ = ["LinearRegression", "Ridge", "BayesianRidge", "SGDRegressor"]

#: SGDRegressor warns when, over its last ``SGD_TAIL_EPOCHS`` epochs (without early stopping),
#: the training objective still fell by more than ``SGD_TAIL_FRACTION`` of its whole decrease
#: (the rule of ``SGDRegressorParams.converged``, one definition in jaxclassic.linear.sgd)
SGD_TAIL_EPOCHS = TAIL_EPOCHS
SGD_TAIL_FRACTION = TAIL_FRACTION
#: LinearRegression(positive=True): stopping test on the relative squared projected gradient,
#: and the sweep limit, of its coordinate descent
POSITIVE_TOL = 1e-14
POSITIVE_MAX_ITER = 10000


class _LinearPredictMixin:
    """``predict`` for any estimator storing core params with ``coef`` and ``intercept``."""

    @dtype_scope
    def predict(self, X):
        """Predictions ``X @ coef_ + intercept_``, shape (n_samples,); ``X`` dense or
        ``scipy.sparse`` CSR / CSC (a sparse product, ``X`` never densified)."""
        Xp, n = prepare_predict_sparse(self, X)
        return np.asarray(predict_linear(self.params_, Xp))[:n]

    def _store(self, params):
        self.params_ = to_host(params)
        self.coef_ = np.asarray(params.coef)
        self.intercept_ = float(params.intercept)


class LinearRegression(SparseInputMixin, _LinearPredictMixin, RegressorMixin, BaseEstimator):
    r"""Ordinary least squares (:func:`jaxclassic.linear.fit_ols`).

    Minimises :math:`\sum_i w_i (y_i - x_i^\top\beta - b)^2` by Cholesky of the centred Gram
    matrix; the minimum-norm solution (with a warning) when it is singular.

    Parameters
    ----------
    fit_intercept : bool, default=True
    positive : bool, default=False
        Constrain the coefficients to be ``>= 0`` (non-negative least squares): the lasso's
        coordinate descent with ``alpha=0`` and the constraint
        (:func:`jaxclassic.linear.fit_lasso` with ``positive=True``), run until the squared
        projected gradient, relative to :math:`\lVert y - \bar y\rVert_W^2/\sum w`, is at most
        ``POSITIVE_TOL`` (1e-14; in float32 10 eps, 1.2e-6) or ``POSITIVE_MAX_ITER`` sweeps (a
        ``ConvergenceWarning`` then). scikit-learn solves it by ``scipy.optimize.nnls``.
    n_jobs : int or None, default=None
        Accepted for scikit-learn's signature and checked (``>= 1``, ``-1`` or None), with no
        effect: the fit is one compiled program, run by XLA's own threads. (In this package
        ``n_jobs`` is the number of CPU cores as devices a fit may use, :mod:`jaxclassic._cores`;
        only boosting, forests and bagging of trees have a multi-device path.)
    tol : float, default=1e-6
        No effect (scikit-learn's ``tol`` is the tolerance of its sparse ``lsqr`` solver; here
        sparse input is solved in closed form too, from its Gram matrix).

    Sparse input: ``X`` may be a ``scipy.sparse`` CSR / CSC matrix of at most
    :data:`jaxclassic.linear._gram.MAX_GRAM_FEATURES` (4096) columns. The Gram matrix
    :math:`X^\top WX` is formed by sparse products (:math:`O(\mathrm{nnz}\,d)`, the dense
    ``X`` never built; :func:`jaxclassic.linear._gram.sparse_weighted_gram`), centred by the
    rank-one identity; the rows are padded with empty rows of weight 0. Predictions on sparse
    ``X`` are a sparse product. The result equals the dense fit to round-off.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
    intercept_ : float
    n_features_in_ : int
    params_ : LinearParams
        The functional core's params.
    """

    def __init__(self, *, fit_intercept=True, tol=1e-6, positive=False, n_jobs=None):
        self.n_jobs = n_jobs
        self.fit_intercept = fit_intercept
        self.tol = tol
        self.positive = positive

    @dtype_scope
    def fit(self, X, y, sample_weight=None):
        """Fit by least squares; returns ``self``."""
        check_bool(self.fit_intercept, "fit_intercept")
        _cores.check_n_jobs(self.n_jobs)
        check_bool(self.positive, "positive")
        X, y, sw, _ = prepare_fit_sparse(self, X, y, sample_weight)
        if not self.positive:
            self._store(fit_ols(X, y, fit_intercept=bool(self.fit_intercept), sample_weight=sw))
            return self
        tol = max(POSITIVE_TOL, 10 * float(np.finfo(X.dtype).eps))
        params = fit_lasso(X, y, alpha=0.0, positive=True, fit_intercept=bool(self.fit_intercept),
                           max_iter=POSITIVE_MAX_ITER, tol=tol, sample_weight=sw)
        if not bool(params.converged):
            warnings.warn(f"LinearRegression(positive=True) did not converge in {POSITIVE_MAX_ITER} "
                          "coordinate-descent sweeps", ConvergenceWarning)
        self._store(params)
        return self


class Ridge(SparseInputMixin, _LinearPredictMixin, RegressorMixin, BaseEstimator):
    r"""Ridge regression (:func:`jaxclassic.linear.fit_ridge`).

    Minimises :math:`\sum_i w_i (y_i - x_i^\top\beta - b)^2 + \alpha\lVert\beta\rVert^2`
    (scikit-learn's scaling, so ``alpha`` means what it means for scikit-learn's ``Ridge``).

    Parameters
    ----------
    alpha : float, default=1.0
        Penalty, >= 0.
    fit_intercept : bool, default=True
    standardize : bool, default=False
        Penalise the coefficients of the standardised columns (population std);
        ``coef_`` stays on the original scale.

    Sparse input (``scipy.sparse`` CSR / CSC, at most 4096 columns): as
    :class:`LinearRegression`, from the Gram matrix of sparse products.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
    intercept_ : float
    n_features_in_ : int
    params_ : LinearParams
    """

    def __init__(self, alpha=1.0, *, fit_intercept=True, standardize=False):
        self.alpha = alpha
        self.fit_intercept = fit_intercept
        self.standardize = standardize

    @dtype_scope
    def fit(self, X, y, sample_weight=None):
        """Fit the closed form; returns ``self``."""
        check_bool(self.fit_intercept, "fit_intercept")
        check_bool(self.standardize, "standardize")
        X, y, sw, _ = prepare_fit_sparse(self, X, y, sample_weight)
        self._store(fit_ridge(X, y, alpha=float(self.alpha), fit_intercept=bool(self.fit_intercept),
                              standardize=bool(self.standardize), sample_weight=sw))
        return self


class BayesianRidge(_LinearPredictMixin, RegressorMixin, BaseEstimator):
    r"""Bayesian ridge regression with evidence maximisation (:func:`jaxclassic.linear.fit_bayesian_ridge`).

    Same model, updates, defaults and stopping rule as scikit-learn's ``BayesianRidge``.

    Parameters
    ----------
    max_iter : int, default=300
    tol : float, default=1e-3
    alpha_1, alpha_2, lambda_1, lambda_2 : float, default=1e-6
        Gamma hyperpriors of the noise precision ``alpha`` and the weight precision ``lambda``.
    alpha_init, lambda_init : float, optional
        Starting values (defaults ``1/Var(y)`` and 1).
    fit_intercept : bool, default=True

    Attributes
    ----------
    coef_, intercept_, alpha_, lambda_, sigma_, X_offset_, n_iter_, n_features_in_
        As scikit-learn's (``sigma_`` is the posterior covariance of ``coef_``).
    params_ : BayesianRidgeParams
    """

    def __init__(self, *, max_iter=300, tol=1e-3, alpha_1=1e-6, alpha_2=1e-6, lambda_1=1e-6,
                 lambda_2=1e-6, alpha_init=None, lambda_init=None, fit_intercept=True):
        self.max_iter = max_iter
        self.tol = tol
        self.alpha_1 = alpha_1
        self.alpha_2 = alpha_2
        self.lambda_1 = lambda_1
        self.lambda_2 = lambda_2
        self.alpha_init = alpha_init
        self.lambda_init = lambda_init
        self.fit_intercept = fit_intercept

    @dtype_scope
    def fit(self, X, y, sample_weight=None):
        """Maximise the evidence; returns ``self``."""
        check_bool(self.fit_intercept, "fit_intercept")
        X, y, sw, _ = prepare_fit(self, X, y, sample_weight)
        params = fit_bayesian_ridge(
            X, y, alpha_init=self.alpha_init, lambda_init=self.lambda_init,
            max_iter=int(self.max_iter), tol=float(self.tol), alpha_1=float(self.alpha_1),
            alpha_2=float(self.alpha_2), lambda_1=float(self.lambda_1),
            lambda_2=float(self.lambda_2), fit_intercept=bool(self.fit_intercept), sample_weight=sw,
        )
        self._store(params)
        self.alpha_ = float(params.alpha)
        self.lambda_ = float(params.lambda_)
        self.sigma_ = np.asarray(params.sigma)
        self.X_offset_ = np.asarray(params.x_offset)
        self.n_iter_ = int(params.n_iter)
        return self

    @dtype_scope
    def predict(self, X, return_std=False):
        """Predictive mean, and with ``return_std`` its standard deviation ``sqrt(1/alpha_ + x^T sigma_ x)``."""
        if not return_std:
            return super().predict(X)
        Xp, n = prepare_predict(self, X)
        mean, variance = predict_dist_bayesian_ridge(self.params_, Xp)
        return np.asarray(mean)[:n], np.sqrt(np.asarray(variance))[:n]


class SGDRegressor(_LinearPredictMixin, RegressorMixin, BaseEstimator):
    r"""Least squares by minibatch SGD through optax (:func:`jaxclassic.linear.fit_sgd_regressor`).

    Minimises :math:`\sum_i w_i\tfrac12(y_i - x_i^\top\beta - b)^2/\sum_i w_i + \tfrac{\alpha}{2}\lVert\beta\rVert^2`,
    scikit-learn's ``SGDRegressor`` objective (``loss="squared_error"``, ``penalty="l2"``).
    Standardise ``X`` first (e.g. in a ``Pipeline``): the step size must suit the curvature.

    Parameters
    ----------
    loss : {"squared_error"}, default="squared_error"
    penalty : {"l2", None}, default="l2"
    alpha : float >= 0, default=0.0001
        Weight of the L2 penalty (the core's ``l2``).
    fit_intercept : bool, default=True
    max_iter : int, default=50
        Number of epochs (passes over the data; every one is run: a compiled scan of fixed
        length, and scikit-learn's ``tol`` rule is not implemented; see ``early_stopping``).
    learning_rate : {"invscaling", "constant", "cosine"}, default="invscaling"
        The step schedule over the updates :math:`t = 0, 1, \dots`: ``"invscaling"``
        :math:`\eta_0/(t+1)^{p}` (scikit-learn's with one row per update, ``batch_size=1``),
        ``"constant"`` :math:`\eta_0`, ``"cosine"`` (ours). scikit-learn's ``"optimal"`` and
        ``"adaptive"`` are not implemented. A float is the earlier meaning, the step ``eta0``.
    eta0 : float > 0, default=0.01
        The initial step :math:`\eta_0`.
    power_t : float, default=0.25
    optimizer : {"sgd", "momentum", "adam"}, default="sgd"
    batch_size : int, default=32
    momentum : float, default=0.9
    n_epochs, schedule, l2 : optional
        Earlier names of ``max_iter``, ``learning_rate`` (the schedule) and ``alpha``; when
        given they take precedence.
    random_state : int, RandomState or None, default=None
        Seeds the ``jax.random`` key of the shuffling and of the validation split (None: a
        fresh seed per fit).
    early_stopping : bool, default=False
        Hold out ``validation_fraction`` of the rows (at least one) and stop once the validation
        loss has not improved for ``n_iter_no_change`` epochs, keeping the best epoch's
        coefficients (:func:`jaxclassic.model_selection.early_stopping_update`).
    validation_fraction : float in (0, 1), default=0.1
    n_iter_no_change : int >= 1, default=5

    Attributes
    ----------
    coef_, intercept_, n_iter_ (epochs), loss_history_ (objective per epoch), n_features_in_
    best_epoch_, validation_loss_history_ : with ``early_stopping`` (else ``None``)
    params_ : SGDRegressorParams

    Warns
    -----
    ConvergenceWarning
        The fit runs exactly ``n_epochs`` epochs of ``ceil(n_samples / batch_size)`` updates
        (scikit-learn's ``SGDRegressor`` runs up to ``max_iter=1000`` epochs of one update per
        row), so on small data the defaults can stop far from the least-squares fit (40 rows:
        100 updates, R^2 0.53 where the optimum has 0.99). Without ``early_stopping`` the fit
        warns when the training objective fell by more than ``SGD_TAIL_FRACTION`` (0.1%) of its
        whole decrease over the last ``SGD_TAIL_EPOCHS`` (5) epochs: raise ``n_epochs`` or
        ``learning_rate``.
    """

    _warning_vocabulary = ((r"\blearning_rate\b", "eta0"),)

    def __init__(self, loss="squared_error", *, penalty="l2", alpha=0.0001, fit_intercept=True,
                 max_iter=50, random_state=None, learning_rate="invscaling", eta0=0.01,
                 power_t=0.25, early_stopping=False, validation_fraction=0.1, n_iter_no_change=5,
                 optimizer="sgd", batch_size=32, momentum=0.9, n_epochs=None, schedule=None,
                 l2=None):
        self.loss = loss
        self.penalty = penalty
        self.alpha = alpha
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.random_state = random_state
        self.learning_rate = learning_rate
        self.eta0 = eta0
        self.power_t = power_t
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.optimizer = optimizer
        self.batch_size = batch_size
        self.momentum = momentum
        self.n_epochs = n_epochs
        self.schedule = schedule
        self.l2 = l2

    def _core_arguments(self):
        """The core's (step, schedule, epochs, l2) from scikit-learn's names or the earlier ones."""
        if self.loss != "squared_error":
            raise ValueError(f"loss must be 'squared_error' (the only loss implemented), got {self.loss!r}")
        if self.penalty not in ("l2", None):
            raise ValueError(f"penalty must be 'l2' or None (L1 / elastic-net are not implemented), "
                             f"got {self.penalty!r}")
        if isinstance(self.learning_rate, str):
            if self.learning_rate not in ("invscaling", "constant", "cosine"):
                raise ValueError(f"learning_rate must be one of ['invscaling', 'constant', 'cosine'] "
                                 f"or a float (the step eta0), got {self.learning_rate!r}")
            step, schedule, step_name = self.eta0, self.learning_rate, "eta0"
        else:  # the earlier API: learning_rate is the step
            step, schedule, step_name = self.learning_rate, "invscaling", "learning_rate"
        if self.schedule is not None:
            schedule = self.schedule
        check_scalar(step, step_name, low=0, include_low=False)
        epochs, epochs_name = ((self.max_iter, "max_iter") if self.n_epochs is None
                               else (self.n_epochs, "n_epochs"))
        check_int(epochs, epochs_name, low=1)
        if self.l2 is not None:
            l2 = self.l2
        else:
            check_scalar(self.alpha, "alpha", low=0)
            l2 = 0.0 if self.penalty is None else self.alpha
        return float(step), schedule, int(epochs), float(l2)

    def _key(self):
        if isinstance(self.random_state, (int, np.integer)) and not isinstance(self.random_state, bool):
            return key_from_seed(int(self.random_state))
        from sklearn.utils import check_random_state

        return key_from_seed(int(check_random_state(self.random_state).randint(0, 2**31 - 1)))

    @staticmethod
    def _dense(X):
        """A sparse ``X`` densified within :data:`jaxclassic._sparse.MAX_DENSIFY_ELEMENTS` (the fit
        centres the columns, which fills the matrix anyway); dense ``X`` unchanged."""
        from jaxclassic import _sparse

        return _sparse.densify(X, model="SGDRegressor") if _sparse.is_sparse(X) else X

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    @dtype_scope
    def partial_fit(self, X, y, sample_weight=None):
        """One epoch of minibatch SGD over the batch, continuing the optimiser (its step count
        ``t_``, momentum / Adam moments) and the coefficients
        (:func:`jaxclassic.linear.partial_fit_sgd_regressor`: the intercept is learnt by the
        descent, the data are not centred). After :meth:`fit`, it continues from ``coef_`` with a
        fresh optimiser. ``learning_rate="cosine"`` is refused (no horizon). Returns ``self``."""
        from sklearn.utils.validation import validate_data

        from jaxclassic.estimators._base import (bucket_size, compute_dtype, enter_dtype, fit_sample_weight,
                                                 fitted_dtype, pad_rows, start_fit, to_core)
        from jaxclassic.linear.sgd import partial_fit_sgd_regressor

        check_bool(self.fit_intercept, "fit_intercept")
        step, schedule, _, l2 = self._core_arguments()
        first = not hasattr(self, "params_")
        X, y = validate_data(self, X, y, accept_sparse=("csr", "csc"), dtype=[np.float64, np.float32],
                             y_numeric=True, reset=first)
        X = self._dense(X)
        if first:
            dtype = start_fit(self, compute_dtype(X.dtype))
        else:
            dtype = fitted_dtype(self)
            enter_dtype(dtype)
        X, y = X.astype(dtype, copy=False), np.asarray(y, dtype)
        sw = fit_sample_weight(sample_weight, X, dtype)
        Xp, yp, swp = pad_rows(X, y, sw, bucket_size(X.shape[0]))
        Xj, yj, swj = to_core(Xp, yp, swp, owned=True)
        if first or not hasattr(self, "_partial_key"):
            self._partial_key = self._key()
        params, state = partial_fit_sgd_regressor(
            None if first else self.params_, getattr(self, "_sgd_state", None), Xj, yj,
            key=self._partial_key, optimizer=self.optimizer,
            learning_rate=step, batch_size=int(self.batch_size), schedule=schedule,
            power_t=float(self.power_t), momentum=float(self.momentum), l2=l2,
            fit_intercept=bool(self.fit_intercept), sample_weight=swj)
        self._store(params)
        self._sgd_state = state
        self.n_iter_ = int(params.n_iter)
        self.t_ = float(state.t)
        return self

    @dtype_scope
    def fit(self, X, y, sample_weight=None):
        """Run ``max_iter`` epochs of minibatch SGD; returns ``self``."""
        check_bool(self.fit_intercept, "fit_intercept")
        check_bool(self.early_stopping, "early_stopping")
        step, schedule, epochs, l2 = self._core_arguments()
        X = self._dense(X)
        X, y, sw, n = prepare_fit(self, X, y, sample_weight)
        self.__dict__.pop("_sgd_state", None)  # partial_fit continues from these coefficients
        key = self._key()
        stopping = {}
        if self.early_stopping:
            check_scalar(self.validation_fraction, "validation_fraction", low=0, high=1,
                         include_low=False, include_high=False)
            check_int(self.n_iter_no_change, "n_iter_no_change", low=1)
            if n < 2:
                raise ValueError(f"early_stopping needs at least 2 samples, got {n}")
            n_val = min(n - 1, max(1, int(np.ceil(self.validation_fraction * n))))
            held_out = jax.random.permutation(jax.random.fold_in(key, 1), n)[:n_val]
            val = np.zeros(X.shape[0], np.asarray(sw).dtype)  # padding rows stay 0
            val[np.asarray(held_out)] = 1.0
            stopping = dict(validation_weight=jnp.asarray(val), patience=int(self.n_iter_no_change))
        params = fit_sgd_regressor(
            X, y, key=key, optimizer=self.optimizer, learning_rate=step,
            batch_size=int(self.batch_size), n_epochs=epochs, schedule=schedule,
            power_t=float(self.power_t), momentum=float(self.momentum), l2=l2,
            fit_intercept=bool(self.fit_intercept), sample_weight=sw, **stopping,
        )
        self._store(params)
        self.n_iter_ = int(params.n_iter)
        self.loss_history_ = np.asarray(params.loss_history)
        self.best_epoch_ = int(params.best_epoch) if self.early_stopping else None
        self.validation_loss_history_ = (
            np.asarray(params.validation_loss_history) if self.early_stopping else None
        )
        history = self.loss_history_[: self.n_iter_]
        if (not self.early_stopping and history.size > SGD_TAIL_EPOCHS
                and np.all(np.isfinite(history))):
            tail = history[-SGD_TAIL_EPOCHS - 1] - history[-1]
            if tail > SGD_TAIL_FRACTION * (history[0] - history[-1]) and tail > 0:
                warnings.warn(
                    f"SGDRegressor: the training objective was still falling after max_iter="
                    f"{epochs} epochs ({tail:.3g} over the last {SGD_TAIL_EPOCHS} epochs, "
                    f"{tail / (history[0] - history[-1]):.1%} of its whole decrease): the fit "
                    "stopped short of the least-squares solution; increase max_iter or "
                    "eta0 (or use LinearRegression / Ridge)", ConvergenceWarning)
        if not np.all(np.isfinite(self.coef_)):
            warnings.warn(
                f"SGDRegressor diverged (non-finite coefficients) with eta0="
                f"{step}; standardise X or lower eta0",
                RuntimeWarning,
            )
        return self
