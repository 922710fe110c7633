"""scikit-learn-compatible ``Lasso`` and ``ElasticNet`` over :func:`jaxclassic.linear.fit_lasso`
and :func:`jaxclassic.linear.fit_elastic_net`.

A thin wrapper: it validates the input, pads the rows to a shape bucket with zero weights (so
refits on data of nearby sizes reuse one compiled program; zero-weight rows have no influence
on the fit), calls the functional fit and stores its params (``params_``) and scikit-learn's
fitted attributes. The maths lives in :mod:`jaxclassic.linear.lasso`.

Differences from scikit-learn's ``Lasso`` (and ``ElasticNet``): no ``precompute``/``copy_X``/``selection``/
``random_state`` (coordinate descent is always cyclic on the weighted Gram matrix; the table
:data:`jaxclassic.estimators._parity.PARAMETER_GAPS` gives the reasons), and a single target
only. Like scikit-learn, ``tol`` applies to the
duality gap relative to :math:`\\lVert y - \\bar y\\rVert^2/n`.
"""

from __future__ import annotations

import warnings

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
from jaxclassic.exceptions import ConvergenceWarning
from jaxclassic.linear.elastic_net import fit_elastic_net
from jaxclassic.linear.lasso import fit_lasso
from jaxclassic.linear._params import predict_linear
from jaxclassic.validation import check_bool, check_int, check_scalar

__all__ = ["Lasso", "ElasticNet"]


class Lasso(SparseInputMixin, RegressorMixin, BaseEstimator):
    r"""Linear regression with an L1 penalty (:func:`jaxclassic.linear.fit_lasso`).

    Minimises :math:`\frac{1}{2\sum w}\sum_i w_i (y_i - x_i^\top\beta - b)^2 + \alpha\lVert\beta\rVert_1`
    (scikit-learn's scaling) by cyclic coordinate descent.

    Parameters
    ----------
    alpha : float, default=1.0
        L1 penalty, >= 0.
    fit_intercept : bool, default=True
    max_iter : int, default=1000
        Maximum number of coordinate-descent sweeps.
    tol : float, default=1e-4
        Tolerance on the relative duality gap.
    warm_start : bool, default=False
        Start coordinate descent from the previous fit's ``coef_`` (when it has the same number
        of features), as scikit-learn: a refit at a nearby ``alpha`` takes fewer sweeps.
    positive : bool, default=False
        Constrain the coefficients to be ``>= 0`` (``fit_lasso(positive=True)``).

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
    intercept_ : float
    n_iter_ : int
    dual_gap_ : float
    n_features_in_ : int
    params_ : LassoParams
        The functional core's params.
    """

    def __init__(self, alpha=1.0, *, fit_intercept=True, max_iter=1000, tol=1e-4, warm_start=False,
                 positive=False):
        self.alpha = alpha
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.tol = tol
        self.warm_start = warm_start
        self.positive = positive

    @dtype_scope
    def fit(self, X, y, sample_weight=None):
        """Fit the lasso; returns ``self``."""
        for flag in ("fit_intercept", "warm_start", "positive"):
            check_bool(getattr(self, flag), flag)
        # the hyperparameters, before the data reach the device (nothing compiled before raising)
        check_scalar(self.alpha, "alpha", low=0)
        check_int(self.max_iter, "max_iter", low=1)
        check_scalar(self.tol, "tol", low=0)
        previous = getattr(self, "coef_", None) if self.warm_start else None
        X, y, sw, _ = prepare_fit_sparse(self, X, y, sample_weight)  # sparse X: Gram by sparse products
        if previous is not None and np.shape(previous) != (X.shape[1],):
            previous = None
        params = fit_lasso(
            X, y, alpha=float(self.alpha), fit_intercept=bool(self.fit_intercept),
            max_iter=int(self.max_iter), tol=float(self.tol), sample_weight=sw,
            coef_init=None if previous is None else np.asarray(previous, X.dtype),
            positive=bool(self.positive),
        )
        self.params_ = to_host(params)
        self.coef_ = np.asarray(params.coef)
        self.intercept_ = float(params.intercept)
        self.n_iter_ = int(params.n_iter)
        self.dual_gap_ = float(params.dual_gap)
        if not bool(params.converged):
            warnings.warn(
                f"Lasso did not converge in max_iter={self.max_iter} sweeps "
                f"(duality gap {self.dual_gap_:.3e}); increase max_iter or tol",
                ConvergenceWarning,
            )
        return self

    @dtype_scope
    def predict(self, X):
        """Predictions ``X @ coef_ + intercept_``, shape (n_samples,)."""
        Xp, n = prepare_predict_sparse(self, X)
        return np.asarray(predict_linear(self.params_, Xp))[:n]


class ElasticNet(SparseInputMixin, RegressorMixin, BaseEstimator):
    r"""Linear regression with an L1 + L2 penalty (:func:`jaxclassic.linear.fit_elastic_net`).

    Minimises :math:`\frac{1}{2\sum w}\sum_i w_i (y_i - x_i^\top\beta - b)^2
    + \alpha\rho\lVert\beta\rVert_1 + \frac{\alpha(1-\rho)}{2}\lVert\beta\rVert^2`
    (scikit-learn's objective, :math:`\rho` = ``l1_ratio``) by the lasso's cyclic coordinate
    descent on the Gram matrix plus :math:`\alpha(1-\rho) I`. A ``scipy.sparse`` ``X`` is
    taken as :class:`Lasso` takes it (the Gram matrix from sparse products).

    Parameters
    ----------
    alpha : float, default=1.0
        Penalty strength, >= 0.
    l1_ratio : float, default=0.5
        The L1 share of the penalty, in [0, 1] (1: the lasso).
    fit_intercept : bool, default=True
    max_iter : int, default=1000
    tol : float, default=1e-4
        Tolerance on the relative duality gap (scikit-learn's).
    warm_start : bool, default=False
        Start from the previous fit's ``coef_``.
    positive : bool, default=False
        Constrain the coefficients to be ``>= 0``.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
    intercept_ : float
    n_iter_ : int
    dual_gap_ : float
    n_features_in_ : int
    params_ : ElasticNetParams
    """

    def __init__(self, alpha=1.0, *, l1_ratio=0.5, fit_intercept=True, max_iter=1000, tol=1e-4,
                 warm_start=False, positive=False):
        self.alpha = alpha
        self.l1_ratio = l1_ratio
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.tol = tol
        self.warm_start = warm_start
        self.positive = positive

    @dtype_scope
    def fit(self, X, y, sample_weight=None):
        """Fit the elastic net; returns ``self``."""
        for flag in ("fit_intercept", "warm_start", "positive"):
            check_bool(getattr(self, flag), flag)
        check_scalar(self.alpha, "alpha", low=0)
        check_scalar(self.l1_ratio, "l1_ratio", low=0, high=1)
        check_int(self.max_iter, "max_iter", low=1)
        check_scalar(self.tol, "tol", low=0)
        previous = getattr(self, "coef_", None) if self.warm_start else None
        X, y, sw, _ = prepare_fit_sparse(self, X, y, sample_weight)  # sparse X: as Lasso's
        if previous is not None and np.shape(previous) != (X.shape[1],):
            previous = None
        params = fit_elastic_net(
            X, y, alpha=float(self.alpha), l1_ratio=float(self.l1_ratio),
            fit_intercept=bool(self.fit_intercept), max_iter=int(self.max_iter), tol=float(self.tol),
            sample_weight=sw, coef_init=None if previous is None else np.asarray(previous, X.dtype),
            positive=bool(self.positive),
        )
        self.params_ = to_host(params)
        self.coef_ = np.asarray(params.coef)
        self.intercept_ = float(params.intercept)
        self.n_iter_ = int(params.n_iter)
        self.dual_gap_ = float(params.dual_gap)
        if not bool(params.converged):
            warnings.warn(
                f"ElasticNet did not converge in max_iter={self.max_iter} sweeps "
                f"(duality gap {self.dual_gap_:.3e}); increase max_iter or tol",
                ConvergenceWarning,
            )
        return self

    @dtype_scope
    def predict(self, X):
        """Predictions ``X @ coef_ + intercept_``, shape (n_samples,)."""
        Xp, n = prepare_predict_sparse(self, X)
        return np.asarray(predict_linear(self.params_, Xp))[:n]
