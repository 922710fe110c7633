"""scikit-learn-compatible linear classifiers: logistic, softmax and perceptron.

Thin wrappers over :mod:`jaxclassic.linear`: they validate and encode the input, pad the rows
to a shape bucket with zero weights (refits of nearby sizes reuse one compiled program), call
the functional fit and store its params (``params_``) and scikit-learn's fitted attributes.

Differences from scikit-learn, documented on the classes:

* ``LogisticRegression``: scikit-learn 1.9's penalty (``l1_ratio`` picks it: 0 L2, 1 L1, between
  elastic-net; ``C=np.inf`` no penalty; the deprecated ``penalty=`` still works, with 1.9's
  ``FutureWarning``); L1 and elastic-net by proximal Newton
  (:mod:`jaxclassic.linear.logistic_l1`), binary and multinomial; ``class_weight`` as scikit-learn's
  (a per-row weight, weighted class counts);
  ``method`` picks the solver of :func:`jaxclassic.linear.fit_logistic` (default
  ``"newton"``: exact Newton with a Cholesky solve), or ``solver`` by scikit-learn's names
  ``"lbfgs"`` / ``"newton-cholesky"`` / ``"newton-cg"``. More than two classes use the
  multinomial (softmax) model, as scikit-learn does. ``tol`` is on the gradient norm of the
  weight-averaged objective (default 1e-8 in float64, 1e-6 in float32).
* ``SoftmaxRegression``: the multinomial model for any number of classes (two included).
* Sparse ``X`` (``scipy.sparse`` CSR / CSC) is accepted by ``LogisticRegression`` and
  ``SoftmaxRegression``. With the L2 penalty it is fitted by L-BFGS on a
  :class:`jax.experimental.sparse.BCOO` (:mod:`jaxclassic.linear._sparse_fits`: products
  :math:`O(\\mathrm{nnz})`, never densified), with L1 / elastic-net by FISTA on the BCOO
  (:func:`jaxclassic.linear.logistic_l1.proximal_gradient`; it takes more iterations than Newton:
  raise ``max_iter`` if it warns): the default ``method="newton"`` becomes ``"lbfgs"`` / ``"gd"``
  for sparse input. An explicit Newton solver (``solver="newton-cholesky"`` or ``"saga"``) densifies
  through :func:`jaxclassic._sparse.densify`, up to its stated limit (2**27 values, else a
  ``ValueError``).
  Predictions on sparse ``X`` are :math:`O(\\mathrm{nnz})` products.
* ``PerceptronClassifier``: Rosenblatt's rule with no penalty (scikit-learn's ``Perceptron``
  with ``penalty=None``), stopping after an epoch without mistakes; multiclass one-vs-rest.

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

import jax
import numpy as np

import warnings

from jaxclassic import _cores, _jit
from jaxclassic._sparse import is_sparse
from jaxclassic.estimators._base import (
    to_host,
    C_VOCABULARY,
    BaseEstimator,
    ClassifierMixin,
    dtype_scope,
    prepare_fit,
    prepare_fit_sparse,
    prepare_predict_sparse,
)
from jaxclassic.estimators._parity import apply_class_weight
from jaxclassic.linear import _api
from jaxclassic.linear.logistic import fit_logistic
from jaxclassic.linear.multiclass import fit_one_vs_rest
from jaxclassic.linear.perceptron import fit_perceptron
from jaxclassic.linear.softmax import fit_softmax
from jaxclassic.validation import check_bool, check_scalar, key_from_seed

__all__ = ["LogisticRegression", "SoftmaxRegression", "PerceptronClassifier"]

_decision = _jit.jit(lambda params, X: _api.decision_function(params, X))


def _l2_from(C, penalty) -> float:
    if penalty not in ("l2", None):
        raise ValueError(f"penalty must be 'l2' or None, got {penalty!r} (only L2 is supported)")
    C = float(C)
    if not C > 0:
        raise ValueError(f"C must be > 0, got {C}")
    return 0.0 if penalty is None or np.isinf(C) else 1.0 / C


_PENALTY_DEPRECATED = (
    "'penalty' was deprecated in scikit-learn 1.8 and will be removed in 1.10. To avoid this warning, "
    "leave 'penalty' set to its default value and use 'l1_ratio' or 'C' instead. Use l1_ratio=0 instead "
    "of penalty='l2', l1_ratio=1 instead of penalty='l1', l1_ratio set to a float between 0 and 1 "
    "instead of penalty='elasticnet', and C=np.inf instead of penalty=None.")


def _penalty_from(C, penalty, l1_ratio):
    """scikit-learn 1.9's reading of ``(C, penalty, l1_ratio)``, as the core's
    ``(penalty, strength, l1_ratio)`` of :func:`jaxclassic.linear.fit_logistic` (strength = 1/C,
    0 without a penalty). Warns as scikit-learn 1.9 does; raises before anything is compiled."""
    if isinstance(C, bool) or not isinstance(C, (int, float, np.number)):
        raise TypeError(f"C must be a real number, got {type(C).__name__} {C!r}")
    C = float(C)
    if not C > 0:
        raise ValueError(f"C must be > 0, got {C}")
    if l1_ratio is not None:
        check_scalar(l1_ratio, "l1_ratio", low=0.0, high=1.0)
        l1_ratio = float(l1_ratio)
    if penalty == "deprecated":
        if l1_ratio is None:
            warnings.warn("'l1_ratio=None' was deprecated in scikit-learn 1.8 and will trigger an error "
                          "in 1.10. Use 0<=l1_ratio<=1 instead.", FutureWarning, stacklevel=4)
            penalty = "l2"
        else:
            penalty = "l2" if l1_ratio == 0 else "l1" if l1_ratio == 1 else "elasticnet"
        if np.isinf(C):
            penalty = None
    else:
        if penalty not in ("l1", "l2", "elasticnet", None):
            raise ValueError(f"penalty must be one of 'l1', 'l2', 'elasticnet' or None, got {penalty!r}")
        warnings.warn(_PENALTY_DEPRECATED, FutureWarning, stacklevel=4)
        if penalty != "elasticnet" and l1_ratio is not None and 0 < l1_ratio < 1:
            warnings.warn(f"l1_ratio parameter is only used when penalty is 'elasticnet'. Got "
                          f"(penalty={penalty})", UserWarning, stacklevel=4)
        if (penalty == "l2" and l1_ratio != 0) or (penalty == "l1" and l1_ratio != 1):
            warnings.warn(f"Inconsistent values: penalty={penalty} with l1_ratio={l1_ratio}. penalty "
                          "is deprecated. Please use l1_ratio only.", UserWarning, stacklevel=4)
        if penalty == "elasticnet" and l1_ratio is None:
            raise ValueError("l1_ratio must be specified when penalty is elasticnet.")
        if penalty is None and C != 1.0:
            warnings.warn("Setting penalty=None will ignore the C and l1_ratio parameters",
                          UserWarning, stacklevel=4)
    if penalty is None or np.isinf(C):
        return "l2", 0.0, None
    if penalty == "elasticnet":
        return "elasticnet", 1.0 / C, l1_ratio
    return penalty, 1.0 / C, None


def _tol(tol):
    return None if tol is None else float(tol)


class _LinearClassifierMixin:
    """decision_function / predict / predict_proba from ``params_`` (scores ``(n, C)`` or ``(n,)``)."""

    @dtype_scope
    def _scores(self, X):
        Xp, n = prepare_predict_sparse(self, X, layout="bcoo")
        return np.asarray(_decision(self.params_, Xp))[:n]

    def decision_function(self, X):
        """Raw scores: ``(n,)`` (positive: ``classes_[1]``) for two classes, else ``(n, C)``."""
        scores = self._scores(X)
        if scores.ndim == 2 and scores.shape[1] == 2 and len(self.classes_) == 2:
            return scores[:, 1] - scores[:, 0]
        return scores

    def predict(self, X):
        """The class label of each row (arg-max score)."""
        scores = self.decision_function(X)
        if scores.ndim == 1:
            return self.classes_[(scores > 0).astype(int)]
        return self.classes_[np.argmax(scores, axis=1)]


class _ProbabilisticMixin(_LinearClassifierMixin):
    def predict_log_proba(self, X):
        """Log class probabilities, ``(n, C)`` in ``classes_`` order."""
        scores = self.decision_function(X)
        if scores.ndim == 1:
            scores = np.stack([np.zeros_like(scores), scores], axis=1)
        top = scores.max(axis=1, keepdims=True)
        return scores - (top + np.log(np.exp(scores - top).sum(axis=1, keepdims=True)))

    def predict_proba(self, X):
        """Class probabilities, ``(n, C)`` in ``classes_`` order."""
        return np.exp(self.predict_log_proba(X))


class LogisticRegression(_ProbabilisticMixin, ClassifierMixin, BaseEstimator):
    """Penalised logistic regression (:func:`jaxclassic.linear.fit_logistic`; multinomial
    :func:`jaxclassic.linear.fit_softmax` for more than two classes).

    Minimises :math:`C\\sum_i s_i \\ell_i + \\rho\\lVert W\\rVert_1 + \\tfrac{1-\\rho}{2}\\lVert W\\rVert^2`
    (:math:`\\rho` = ``l1_ratio``), scikit-learn 1.9's objective; the core is called with
    ``l2 = 1 / C`` (the penalty's strength) and ``penalty="l2"`` / ``"l1"`` / ``"elasticnet"``.
    L1 and elastic-net (``l1_ratio > 0``) are fitted by proximal Newton with the lasso's
    coordinate descent as inner solver (:mod:`jaxclassic.linear.logistic_l1`), binary and
    multinomial (scikit-learn's ``saga`` objective for more than two classes). ``X`` may be
    ``scipy.sparse`` (module docstring).

    Parameters
    ----------
    C : float, default=1.0
        Inverse regularisation strength (``np.inf``: none).
    penalty : {"l1", "l2", "elasticnet", None}, default="deprecated"
        Deprecated as in scikit-learn 1.9 (``FutureWarning`` when set): use ``l1_ratio`` and ``C``.
    l1_ratio : float in [0, 1], default=0.0
        The L1 share of the penalty (scikit-learn 1.9): 0 is L2, 1 is L1, between elastic-net.
    fit_intercept : bool, default=True
    method : {"newton", "lbfgs", "gd", "sgd"}, default="newton"
        ``"gd"``/``"sgd"`` only for two classes; with more, ``"newton"`` is softmax's
        ``"auto"`` (Newton while ``C (d + 1) <= 2000``, else L-BFGS).
    max_iter : int, default=100
    tol : float, default=None
        Gradient-norm tolerance of the weight-averaged objective (None: 1e-8 in float64,
        1e-6 in float32).
    random_state : int, default=None
        Seed of the ``sgd`` minibatch order (None: 0).
    class_weight : dict, "balanced" or None, default=None
        Weight of each class: row ``i``'s loss is scaled by ``class_weight[y_i]`` (times its
        ``sample_weight``), scikit-learn's meaning;
        :func:`jaxclassic.estimators._parity.apply_class_weight`.
    solver : {"lbfgs", "newton-cholesky", "newton-cg", "saga"} or None, default=None
        scikit-learn's name of the solver, when given in place of ``method``: ``"lbfgs"`` runs
        ``method="lbfgs"``, the Newton solvers ``method="newton"`` (exact Newton, Cholesky), and
        ``"saga"`` (scikit-learn's solver for every penalty) ``method="newton"`` too: Newton for
        L2, proximal Newton for L1 / elastic-net, the same optimum by another algorithm.
        ``"liblinear"`` (which penalises the intercept) and ``"sag"`` are not implemented.
        None: ``method`` decides.
    n_jobs : int or None, default=None
        Accepted for scikit-learn's signature and checked (``>= 1``, ``-1`` or None), with no
        effect: the fit (every class's, for several) is one compiled program, run by XLA's own threads. (In this package
        ``n_jobs`` is the number of CPU cores as devices a fit may use, :mod:`jaxclassic._cores`;
        only boosting, forests and bagging of trees have a multi-device path.)

    Attributes
    ----------
    classes_, coef_ (1, d) or (C, d), intercept_ (1,) or (C,), n_iter_ (1,),
    n_features_in_, params_
    """

    _warning_vocabulary = C_VOCABULARY

    def __init__(self, C=1.0, *, penalty="deprecated", l1_ratio=0.0, fit_intercept=True, method="newton",
                 max_iter=100, tol=None, random_state=None, class_weight=None, solver=None, n_jobs=None):
        self.n_jobs = n_jobs
        self.C = C
        self.penalty = penalty
        self.l1_ratio = l1_ratio
        self.fit_intercept = fit_intercept
        self.method = method
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.class_weight = class_weight
        self.solver = solver

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True  # scipy.sparse X: module docstring
        return tags

    def _method(self):
        if self.solver is None:
            return self.method
        solvers = {"lbfgs": "lbfgs", "newton-cholesky": "newton", "newton-cg": "newton",
                   "saga": "newton"}
        if self.solver not in solvers:
            raise ValueError(f"solver must be one of {list(solvers)} or None, got {self.solver!r} "
                             "(liblinear and sag are not implemented; see method)")
        return solvers[self.solver]

    @dtype_scope
    def fit(self, X, y, sample_weight=None):
        check_bool(self.fit_intercept, "fit_intercept")
        _cores.check_n_jobs(self.n_jobs)
        penalty, l2, l1_ratio = _penalty_from(self.C, self.penalty, self.l1_ratio)
        method = self._method()
        sparse = is_sparse(X)
        X, y, sw, _ = prepare_fit_sparse(self, X, y, sample_weight, classifier=True, layout="bcoo")
        if self.class_weight is not None:
            sw = jax.device_put(apply_class_weight(self.class_weight, self.classes_, y, sw))
        n_classes = len(self.classes_)
        if n_classes == 2:
            if sparse and self.solver is None and method == "newton":
                # matrix-free on the BCOO (L-BFGS / FISTA); Newton would densify (module docstring)
                method = "lbfgs" if penalty == "l2" else "gd"
            key = key_from_seed(0 if self.random_state is None else int(self.random_state))
            params = fit_logistic(X, y, l2=l2, fit_intercept=bool(self.fit_intercept),
                                  method=method, max_iter=int(self.max_iter),
                                  tol=_tol(self.tol), sample_weight=sw, key=key, penalty=penalty,
                                  l1_ratio=l1_ratio)
            return _store_linear(self, params, np.asarray(params.coef)[None, :],
                                 np.asarray(params.intercept).reshape(1))
        if method not in ("newton", "lbfgs"):
            raise ValueError(f"method={method!r} supports two classes only; with "
                             f"{n_classes} classes use 'newton' or 'lbfgs'")
        params = fit_softmax(X, y, n_classes=n_classes, l2=l2,
                             fit_intercept=bool(self.fit_intercept),
                             method="auto" if method == "newton" else "lbfgs",
                             max_iter=int(self.max_iter), tol=_tol(self.tol), sample_weight=sw,
                             penalty=penalty, l1_ratio=l1_ratio)
        return _store_linear(self, params, np.asarray(params.coef), np.asarray(params.intercept))


def _store_linear(estimator, params, coef, intercept):
    """Set the fitted attributes shared by the linear classifiers; return the estimator."""
    estimator.params_ = to_host(params)
    estimator.coef_ = coef
    estimator.intercept_ = intercept
    estimator.n_iter_ = np.asarray(params.n_iter).reshape(1)
    return estimator


class SoftmaxRegression(_ProbabilisticMixin, ClassifierMixin, BaseEstimator):
    """Multinomial (softmax) regression for any number of classes (:func:`jaxclassic.linear.fit_softmax`).

    Minimises :math:`C\\sum_i s_i\\ell_i + \\tfrac12\\lVert W\\rVert_F^2` with every class
    penalised (symmetric parametrisation, centred coefficients).

    Parameters
    ----------
    C : float, default=1.0
        Inverse regularisation strength (``np.inf``: none).
    penalty : {"l2", None}, default="l2"
    fit_intercept : bool, default=True
    method : {"auto", "newton", "lbfgs"}, default="auto"
    max_iter : int, default=100
    tol : float, default=None

    Attributes
    ----------
    classes_, coef_ (C, d), intercept_ (C,), n_iter_ (1,), n_features_in_, params_
    """

    _warning_vocabulary = C_VOCABULARY

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True  # scipy.sparse X: module docstring
        return tags

    def __init__(self, C=1.0, *, penalty="l2", fit_intercept=True, method="auto", max_iter=100,
                 tol=None):
        self.C = C
        self.penalty = penalty
        self.fit_intercept = fit_intercept
        self.method = method
        self.max_iter = max_iter
        self.tol = tol

    @dtype_scope
    def fit(self, X, y, sample_weight=None):
        check_bool(self.fit_intercept, "fit_intercept")
        l2 = _l2_from(self.C, self.penalty)
        X, y, sw, _ = prepare_fit_sparse(self, X, y, sample_weight, classifier=True, layout="bcoo")
        params = fit_softmax(X, y, n_classes=len(self.classes_), l2=l2,
                             fit_intercept=bool(self.fit_intercept), method=self.method,
                             max_iter=int(self.max_iter), tol=_tol(self.tol), sample_weight=sw)
        return _store_linear(self, params, np.asarray(params.coef), np.asarray(params.intercept))


class PerceptronClassifier(_LinearClassifierMixin, ClassifierMixin, BaseEstimator):
    """Rosenblatt's perceptron (:func:`jaxclassic.linear.fit_perceptron`); one-vs-rest for
    more than two classes (:func:`jaxclassic.linear.fit_one_vs_rest`).

    Parameters
    ----------
    learning_rate : float, default=1.0
    max_epochs : int, default=100
    fit_intercept : bool, default=True
    shuffle : bool, default=False
        Visit the rows in a fresh random order each epoch (seeded by ``random_state``).
    random_state : int, default=None
        Seed of the shuffling (None: 0).

    Attributes
    ----------
    classes_, coef_ (1, d) or (C, d), intercept_ (1,) or (C,), n_iter_, n_updates_,
    n_features_in_, params_
    """

    def __init__(self, learning_rate=1.0, *, max_epochs=100, fit_intercept=True, shuffle=False,
                 random_state=None):
        self.learning_rate = learning_rate
        self.max_epochs = max_epochs
        self.fit_intercept = fit_intercept
        self.shuffle = shuffle
        self.random_state = random_state

    @dtype_scope
    def fit(self, X, y, sample_weight=None):
        check_bool(self.fit_intercept, "fit_intercept")
        check_bool(self.shuffle, "shuffle")
        X, y, sw, _ = prepare_fit(self, X, y, sample_weight, classifier=True)
        key = None
        if self.shuffle:
            key = key_from_seed(0 if self.random_state is None else int(self.random_state))
        kwargs = dict(learning_rate=float(self.learning_rate), max_epochs=int(self.max_epochs),
                      fit_intercept=bool(self.fit_intercept), key=key)
        n_classes = len(self.classes_)
        if n_classes == 2:
            params = fit_perceptron(X, y, sample_weight=sw, **kwargs)
            self.coef_ = np.asarray(params.coef)[None, :]
            self.intercept_ = np.asarray(params.intercept).reshape(1)
            fitted = params
        else:
            params = fit_one_vs_rest(fit_perceptron, X, y, n_classes=n_classes, sample_weight=sw,
                                     **kwargs)
            fitted = params.estimators
            self.coef_ = np.asarray(fitted.coef)
            self.intercept_ = np.asarray(fitted.intercept)
        self.params_ = to_host(params)
        self.n_iter_ = int(np.max(np.asarray(fitted.n_iter)))
        self.n_updates_ = np.asarray(fitted.n_updates).reshape(-1)
        return self
