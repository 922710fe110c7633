"""scikit-learn-compatible ``SGDClassifier`` over :func:`jaxclassic.linear.fit_sgd_classifier`.

It validates and encodes the input, pads the rows to a shape bucket with zero weights (appended
rows of weight 0 change nothing in this fit: the result is the unpadded fit's), calls the
functional fit or its one-epoch continuation (``partial_fit``) and stores the params.

Differences from scikit-learn, documented on the class: the stopping rule evaluates the exact
objective after each epoch (scikit-learn: the running average during the epoch); no
``early_stopping``, ``average``, ``class_weight``, ``warm_start``; ``batch_size`` is ours (1,
scikit-learn's one row per update, by default).
"""

from __future__ import annotations

import warnings

import numpy as np

from jaxclassic.estimators._base import (
    BaseEstimator,
    ClassifierMixin,
    dtype_scope,
    prepare_fit_sparse,
    prepare_predict_sparse,
    to_core,
    to_host,
)
from jaxclassic.exceptions import ConvergenceWarning
from jaxclassic.linear import sgd_classifier as _sgdc
from jaxclassic.validation import key_from_seed

__all__ = ["SGDClassifier"]


def _available_proba(estimator) -> bool:
    return estimator.loss in ("log_loss", "modified_huber")


class SGDClassifier(ClassifierMixin, BaseEstimator):
    r"""Linear classifier by SGD (:func:`jaxclassic.linear.fit_sgd_classifier`), scikit-learn's
    ``SGDClassifier`` objective :math:`\frac{1}{\sum s}\sum_i s_i L(y_i, x_i^\top w + b) + \alpha R(w)`,
    one-vs-rest above two classes.

    Standardise ``X`` first (e.g. in a ``Pipeline``). ``X`` may be ``scipy.sparse`` CSR / CSC:
    it is held as row-batched values and never densified.

    Parameters
    ----------
    loss : {"hinge", "log_loss", "modified_huber", "squared_hinge", "perceptron"}, default="hinge"
    penalty : {"l2", "l1", "elasticnet", None}, default="l2"
        The L1 part by Tsuruoka et al.'s cumulative penalty, as scikit-learn (exact zeros).
    alpha : float, default=0.0001
    l1_ratio : float in [0, 1], default=0.15
    fit_intercept : bool, default=True
    max_iter : int, default=1000
        Most epochs.
    tol : float or None, default=0.001
        Stop after ``n_iter_no_change`` epochs whose objective (evaluated exactly after each epoch)
        is not below the best by ``tol``; ``None``: run ``max_iter`` epochs.
    random_state : int, RandomState or None, default=None
        Seeds the ``jax.random`` key of the row order (None: a fresh seed per fit).
    learning_rate : {"optimal", "constant", "invscaling"}, default="optimal"
    eta0 : float, default=0.01
    power_t : float, default=0.5
    n_iter_no_change : int, default=5
    batch_size : int, default=1
        Rows per update (ours; 1 is scikit-learn's algorithm).

    Attributes
    ----------
    classes_, coef_ (1, d) or (C, d), intercept_ (1,) or (C,), n_iter_ (epochs), t_ (updates + 1),
    n_features_in_, params_ : SGDClassifierParams
    """

    def __init__(self, loss="hinge", *, penalty="l2", alpha=0.0001, l1_ratio=0.15, fit_intercept=True,
                 max_iter=1000, tol=0.001, random_state=None, learning_rate="optimal", eta0=0.01,
                 power_t=0.5, n_iter_no_change=5, batch_size=1):
        self.loss = loss
        self.penalty = penalty
        self.alpha = alpha
        self.l1_ratio = l1_ratio
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.learning_rate = learning_rate
        self.eta0 = eta0
        self.power_t = power_t
        self.n_iter_no_change = n_iter_no_change
        self.batch_size = batch_size

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    def _hyper(self):
        return dict(loss=self.loss, penalty=self.penalty, alpha=self.alpha, l1_ratio=self.l1_ratio,
                    fit_intercept=self.fit_intercept, learning_rate=self.learning_rate, eta0=self.eta0,
                    power_t=self.power_t, batch_size=self.batch_size)

    def _key(self):
        rs = self.random_state
        if isinstance(rs, (int, np.integer)) and not isinstance(rs, bool):
            return key_from_seed(int(rs))
        from sklearn.utils import check_random_state

        return key_from_seed(int(check_random_state(rs).randint(0, 2**31 - 1)))

    def _store(self, params):
        self.params_ = to_host(params)
        self.coef_ = self.params_.coef
        self.intercept_ = self.params_.intercept
        self.n_iter_ = int(params.n_iter)
        self.t_ = float(params.t)
        return self

    @dtype_scope
    def fit(self, X, y, sample_weight=None):
        """Run up to ``max_iter`` epochs of SGD from zero; returns ``self``."""
        _sgdc._check_hyper(self.loss, self.penalty, self.alpha, self.l1_ratio, self.learning_rate, self.eta0,
                           self.power_t, self.tol, self.batch_size, self.max_iter, self.n_iter_no_change,
                           self.fit_intercept)
        X, y, sw, _ = prepare_fit_sparse(self, X, y, sample_weight, layout="rows", classifier=True)
        params = _sgdc.fit_sgd_classifier(
            X, y, n_classes=len(self.classes_), max_iter=int(self.max_iter),
            tol=None if self.tol is None else float(self.tol), n_iter_no_change=int(self.n_iter_no_change),
            sample_weight=sw, key=self._key(), **self._hyper())
        self._store(params)
        if self.tol is not None and not bool(params.converged):
            warnings.warn(f"SGDClassifier: maximum number of iterations ({self.max_iter}) reached before "
                          "the objective stopped improving by tol; consider increasing max_iter",
                          ConvergenceWarning)
        return self

    @dtype_scope
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """One epoch of SGD over the batch, continuing the step schedule (``t_``); ``classes``
        is required on the first call. Returns ``self``."""
        from jaxclassic import _sparse
        from jaxclassic.estimators._base import bucket_size, pad_rows
        from jaxclassic.estimators.naive_bayes import partial_fit_setup

        first = not hasattr(self, "params_")
        _sgdc._check_hyper(self.loss, self.penalty, self.alpha, self.l1_ratio, self.learning_rate, self.eta0,
                           self.power_t, None, self.batch_size, 1, 1, self.fit_intercept)
        X, codes, sw, _ = partial_fit_setup(self, X, y, classes, sample_weight, accept_sparse=("csr", "csc"))
        n = X.shape[0]
        if _sparse.is_sparse(X):
            Xc = _sparse.to_rows(X, dtype=sw.dtype)
            swj, yj = to_core(sw, codes)
        else:
            Xp, yp, swp = pad_rows(X, codes, sw, bucket_size(n))
            Xc, yj, swj = to_core(Xp, yp, swp, owned=True)
        if first or not hasattr(self, "_partial_key"):  # partial_fit after fit continues its coefficients
            self._partial_key = self._key()
        params = _sgdc.partial_fit_sgd_classifier(
            None if first else self.params_, Xc, yj, n_classes=len(self.classes_), sample_weight=swj,
            key=self._partial_key, **self._hyper())
        return self._store(params)

    @dtype_scope
    def decision_function(self, X):
        """Margins: ``(n,)`` (positive: ``classes_[1]``) for two classes, else ``(n, C)``."""
        Xp, n = prepare_predict_sparse(self, X)
        return np.asarray(_sgdc._decision(self.params_, Xp))[:n]

    def predict(self, X):
        """The class label of each row (positive margin / arg-max margin)."""
        scores = self.decision_function(X)
        if scores.ndim == 1:
            return self.classes_[(scores > 0).astype(int)]
        return self.classes_[np.argmax(scores, axis=1)]

    @property
    def predict_proba(self):
        """Probabilities ``(n, C)`` (``loss`` "log_loss" or "modified_huber" only), scikit-learn's
        one-vs-rest normalisation (:func:`jaxclassic.linear.sgd_classifier._proba`)."""
        if not _available_proba(self):
            raise AttributeError(f"probability estimates are not available for loss={self.loss!r}")
        return self._predict_proba

    @dtype_scope
    def _predict_proba(self, X):
        Xp, n = prepare_predict_sparse(self, X)
        return np.asarray(_sgdc._proba(self.params_, Xp))[:n]

    @property
    def predict_log_proba(self):
        """Log of :meth:`predict_proba`."""
        if not _available_proba(self):
            raise AttributeError(f"probability estimates are not available for loss={self.loss!r}")
        return lambda X: np.log(self._predict_proba(X))
