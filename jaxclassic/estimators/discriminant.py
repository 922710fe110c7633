"""scikit-learn-compatible generative classifiers: naive Bayes, LDA and QDA.

Thin wrappers over :mod:`jaxclassic.discriminant`: they validate and encode the input, pad the
rows to a shape bucket with zero weights (so refits of nearby sizes reuse one compiled
program), call the functional fit and store its params (``params_``) and scikit-learn's
fitted attributes. The maths lives in the core.

Differences from scikit-learn, all documented on the classes:

* ``GaussianNB``: ``epsilon_`` uses the *weighted* feature variance (so zero-weight rows have
  no influence); scikit-learn uses the unweighted one. ``partial_fit`` takes it from all the rows
  seen so far (so batches equal one ``fit``); scikit-learn's from the last batch alone.
* ``CategoricalNB``: no sparse input; a category code ``>= n_categories_`` at prediction raises
  ``ValueError`` (scikit-learn: ``IndexError``). Like scikit-learn, ``X`` is cast to int
  (floats are truncated) and must be non-negative.
* ``LinearDiscriminantAnalysis``: ``solver`` is ``"eigh"`` (default; like scikit-learn's
  ``lsqr``) or ``"cholesky"``; ``transform`` projects on Fisher's directions as scikit-learn's
  ``eigen`` solver (centred at ``xbar_``); ``shrinkage="auto"`` is scikit-learn's Ledoit-Wolf
  choice; accepts ``sample_weight``; ``covariance_`` is always stored (``store_covariance``
  is accepted for compatibility). ``coef_`` rows are ``inv(covariance_) @ (means_[k] - xbar)``,
  ``xbar = priors_ @ means_`` (the centred form of scikit-learn's ``svd`` solver; its ``lsqr``
  gives ``inv(covariance_) @ means_[k]``: the two differ by a term common to all classes, so
  the probabilities and a binary ``coef_`` are the same).
* ``QuadraticDiscriminantAnalysis``: accepts ``sample_weight``; with ``reg_param > 0`` a class
  of one sample is allowed (covariance ``reg_param * I``).

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

import jax.numpy as jnp
import numpy as np
from sklearn.base import ClassNamePrefixFeaturesOutMixin, TransformerMixin

from jaxclassic import _precision
from jaxclassic.discriminant import naive_bayes as _nb
from jaxclassic.discriminant import lda_qda as _lq
from jaxclassic.estimators._base import (
    to_host,
    BaseEstimator,
    ClassifierMixin,
    bucket_size,
    check_is_fitted,
    compute_dtype,
    dtype_scope,
    encode_labels,
    fitted_dtype,
    enter_dtype,
    start_fit,
    pad_rows,
    prepare_fit,
    prepare_predict,
    validate_data,
)
from jaxclassic.validation import check_bool, check_scalar

__all__ = [
    "GaussianNB",
    "CategoricalNB",
    "LinearDiscriminantAnalysis",
    "QuadraticDiscriminantAnalysis",
]


class _ProbaClassifierMixin:
    """predict / predict_proba / predict_log_proba from a ``_joint_log_likelihood``."""

    def predict_joint_log_proba(self, X):
        """Unnormalised ``log p(x, y=k)`` (discriminant scores for LDA / QDA), (n, C)."""
        return self._joint_log_likelihood(X)

    def predict_log_proba(self, X):
        """Log class probabilities, (n, C), columns in ``classes_`` order."""
        jll = self._joint_log_likelihood(X)
        top = jll.max(axis=1, keepdims=True)
        return jll - (top + np.log(np.exp(jll - top).sum(axis=1, keepdims=True)))

    def predict_proba(self, X):
        """Class probabilities, (n, C), columns in ``classes_`` order."""
        return np.exp(self.predict_log_proba(X))

    def predict(self, X):
        """The most probable class label of each row."""
        jll = self._joint_log_likelihood(X)
        return self.classes_[np.argmax(jll, axis=1)]


class GaussianNB(_ProbaClassifierMixin, ClassifierMixin, BaseEstimator):
    """Gaussian naive Bayes (:func:`jaxclassic.discriminant.fit_gaussian_nb`).

    Parameters
    ----------
    priors : array-like of shape (n_classes,), default=None
        Fixed class priors (sum to 1); default the weighted class frequencies.
    var_smoothing : float, default=1e-9
        Portion of the largest (weighted) feature variance added to every variance.

    Attributes
    ----------
    classes_, theta_, var_, class_prior_, class_count_, epsilon_, n_features_in_, params_
    """

    def __init__(self, *, priors=None, var_smoothing=1e-9):
        self.priors = priors
        self.var_smoothing = var_smoothing

    @dtype_scope
    def fit(self, X, y, sample_weight=None):
        check_scalar(self.var_smoothing, "var_smoothing", low=0.0)  # before the data reach the device
        X, y, sw, _ = prepare_fit(self, X, y, sample_weight, classifier=True)
        priors = None if self.priors is None else np.asarray(self.priors, dtype=X.dtype)
        params = _nb.fit_gaussian_nb(
            X, y, n_classes=len(self.classes_), priors=priors,
            var_smoothing=float(self.var_smoothing), sample_weight=sw)
        self._store(params)
        return self

    @dtype_scope
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Add a batch of rows to the model (scikit-learn's ``partial_fit``).

        ``classes`` (every label ``y`` may hold) is required on the first call. Each class's
        weight, mean and centred scatter are merged with the batch's by Chan's update
        (:func:`jaxclassic.streaming.update_gaussian_nb`, the merge of the streaming fits), so
        batches give the model of one ``fit`` on all their rows, ``epsilon_`` included (from the
        variance of all rows seen; scikit-learn's ``partial_fit`` takes it from the last batch).
        """
        from jaxclassic.estimators.naive_bayes import _pad, partial_fit_setup
        from jaxclassic.streaming import discriminant as _streaming

        check_scalar(self.var_smoothing, "var_smoothing", low=0.0)
        X, codes, sw, first = partial_fit_setup(self, X, y, classes, sample_weight, accept_sparse=False)
        dtype = fitted_dtype(self)
        priors = None if self.priors is None else np.asarray(self.priors, dtype=dtype)
        if first:
            params = _streaming.empty_gaussian_nb(len(self.classes_), X.shape[1], dtype)
        else:
            params = self.params_
        Xp, yp, swp = _pad(X, codes, sw)
        params = _streaming.update_gaussian_nb(params, Xp, yp, priors=priors,
                                               var_smoothing=float(self.var_smoothing), sample_weight=swp)
        self._store(params)
        return self

    def _store(self, params):
        self.params_ = to_host(params)
        self.theta_ = np.asarray(params.theta)
        self.var_ = np.asarray(params.var)
        self.class_prior_ = np.asarray(params.class_prior)
        self.class_count_ = np.asarray(params.class_count)
        self.epsilon_ = float(params.epsilon)

    @dtype_scope
    def _joint_log_likelihood(self, X):
        Xp, n = prepare_predict(self, X)
        return np.asarray(_nb.joint_log_likelihood(self.params_, Xp))[:n]


class CategoricalNB(_ProbaClassifierMixin, ClassifierMixin, BaseEstimator):
    """Categorical naive Bayes (:func:`jaxclassic.discriminant.fit_categorical_nb`).

    ``X`` holds non-negative integer category codes (cast to int like scikit-learn, so floats
    are truncated). Categories per feature: ``max(X[:, j]) + 1``, at least ``min_categories``.

    Parameters
    ----------
    alpha : float, default=1.0
        Laplace (1) / Lidstone smoothing; 0 for none.
    force_alpha : bool, default=True
        If False and ``alpha < 1e-10``, use 1e-10 (scikit-learn's rule).
    fit_prior : bool, default=True
    class_prior : array-like of shape (n_classes,), default=None
    min_categories : int or array-like of shape (n_features,), default=None

    Attributes
    ----------
    classes_, category_count_, feature_log_prob_ (lists of (n_classes, n_categories_j)),
    class_count_, class_log_prior_, n_categories_, n_features_in_, params_
    """

    def __init__(self, *, alpha=1.0, force_alpha=True, fit_prior=True, class_prior=None,
                 min_categories=None):
        self.alpha = alpha
        self.force_alpha = force_alpha
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.min_categories = min_categories

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.categorical = True
        tags.input_tags.positive_only = True
        return tags

    @staticmethod
    def _check_non_negative(X):
        if X.size and X.min() < 0:
            raise ValueError("Negative values in data passed to CategoricalNB (input X)")

    @dtype_scope
    def fit(self, X, y, sample_weight=None):
        check_bool(self.force_alpha, "force_alpha")
        check_bool(self.fit_prior, "fit_prior")
        try:
            X, y = validate_data(self, X, y, dtype="int", reset=True)
        except ValueError as exc:  # numpy's int() of a word names the word, not X
            if "invalid literal for int()" not in str(exc):
                raise
            raise ValueError(f"X must hold integer category codes for CategoricalNB: {exc}") from None
        self._check_non_negative(X)
        codes = encode_labels(self, y)
        dtype = start_fit(self, compute_dtype(np.float64))  # counts: float64 unless forced
        n = X.shape[0]
        if sample_weight is None:
            sw = np.ones(n, dtype)
        else:
            from sklearn.utils.validation import _check_sample_weight

            sw = _check_sample_weight(sample_weight, X, dtype=dtype, ensure_non_negative=True)
        n_categories = X.max(axis=0) + 1
        if self.min_categories is not None:
            mc = np.asarray(self.min_categories)
            if not np.issubdtype(mc.dtype, np.integer):
                raise ValueError(f"'min_categories' should have integral type. Got {mc.dtype} instead.")
            if mc.ndim > 0 and mc.shape != (X.shape[1],):
                raise ValueError(f"'min_categories' should have shape ({X.shape[1]},) when an "
                                 f"array-like is provided. Got {mc.shape} instead.")
            n_categories = np.maximum(n_categories, mc)
        alpha = float(self.alpha)
        if alpha < 1e-10 and not self.force_alpha:
            warnings.warn("alpha too small will result in numeric errors, setting alpha = 1.0e-10. "
                          "Use `force_alpha=True` to keep alpha unchanged.")
            alpha = 1e-10
        Xp, yp, swp = pad_rows(X.astype(np.int32), codes, sw, bucket_size(n))
        priors = None if self.class_prior is None else np.asarray(self.class_prior, dtype=swp.dtype)
        params = _nb.fit_categorical_nb(
            Xp, yp, n_classes=len(self.classes_), n_categories=tuple(int(v) for v in n_categories),
            alpha=alpha, fit_prior=bool(self.fit_prior), priors=priors, sample_weight=swp)
        self.params_ = to_host(params)
        self.n_categories_ = np.asarray(n_categories, dtype=np.int64)
        counts = np.asarray(params.category_count)
        flp = np.asarray(params.feature_log_prob)
        self.category_count_ = [counts[j, :, :k] for j, k in enumerate(self.n_categories_)]
        self.feature_log_prob_ = [flp[j, :, :k] for j, k in enumerate(self.n_categories_)]
        self.class_count_ = np.asarray(params.class_count)
        self.class_log_prior_ = np.asarray(params.class_log_prior)
        return self

    @dtype_scope
    def _joint_log_likelihood(self, X):
        check_is_fitted(self)
        X = validate_data(self, X, dtype="int", reset=False)
        self._check_non_negative(X)
        dtype = fitted_dtype(self)
        enter_dtype(dtype)
        n = X.shape[0]
        Xp, _, _ = pad_rows(X.astype(np.int32), None, np.ones(n, dtype), bucket_size(n))
        return np.asarray(_nb.joint_log_likelihood(self.params_, Xp))[:n]


def _binary_scores(scores, classes):
    return scores[:, 1] - scores[:, 0] if len(classes) == 2 else scores


def _lda_solver(solver, shrinkage):
    """The core's solver for scikit-learn's names (``svd``/``lsqr``/``eigen`` -> ``eigh``)."""
    if solver == "svd" and shrinkage is not None:
        raise ValueError("shrinkage is not supported with solver='svd' (as scikit-learn); use "
                         "solver='lsqr', 'eigen' or 'eigh'")
    return "eigh" if solver in ("svd", "lsqr", "eigen") else solver


class LinearDiscriminantAnalysis(ClassNamePrefixFeaturesOutMixin, TransformerMixin, _ProbaClassifierMixin,
                                 ClassifierMixin, BaseEstimator):
    """Linear discriminant analysis (:func:`jaxclassic.discriminant.fit_lda`), and the
    projection on its discriminant directions (:func:`jaxclassic.discriminant.lda_qda.lda_scalings`).

    Parameters
    ----------
    solver : {"eigh", "cholesky", "svd", "lsqr", "eigen"}, default="eigh"
        ``"eigh"`` gives the minimum-norm solution for a singular covariance (like
        scikit-learn's ``lsqr``); probabilities equal scikit-learn's ``lsqr`` / ``eigen``.
        scikit-learn's names ``"svd"``, ``"lsqr"`` and ``"eigen"`` run ``"eigh"`` (the same
        posteriors and, for a binary problem, the same ``coef_``; ``transform`` is the
        ``eigen`` solver's for all); ``"svd"`` refuses ``shrinkage``, as scikit-learn's.
    shrinkage : float in [0, 1], "auto" or None, default=None
        ``"auto"``: scikit-learn's Ledoit-Wolf intensity, per class on its standardised rows.
    priors : array-like of shape (n_classes,), default=None
        Renormalised with a warning when they do not sum to 1 (as scikit-learn).
    n_components : int, default=None
        Number of components kept by ``transform``, at most ``min(n_features, n_classes - 1)``
        (None: that maximum).
    store_covariance : bool, default=False
        Accepted for scikit-learn compatibility: ``covariance_`` is always stored (the
        discriminant needs it).

    Attributes
    ----------
    classes_, coef_, intercept_ (binary: one row, the difference, as scikit-learn), means_,
    covariance_, priors_, n_features_in_, params_
    scalings_ : (n_features, n_features)
        Fisher's directions, normalised to ``v^T covariance_ v = 1``, by decreasing ratio of
        between- to within-class variance (scikit-learn's ``eigen`` solver's, up to sign).
    xbar_ : (n_features,)
        ``priors_ @ means_``, the centre of the projection.
    explained_variance_ratio_ : (n_components,)
        Share of the between-class variance of each kept direction (scikit-learn's).
    """

    def __init__(self, *, solver="eigh", shrinkage=None, priors=None, n_components=None,
                 store_covariance=False):
        self.solver = solver
        self.shrinkage = shrinkage
        self.priors = priors
        self.n_components = n_components
        self.store_covariance = store_covariance

    @dtype_scope
    def fit(self, X, y, sample_weight=None):
        check_bool(self.store_covariance, "store_covariance")
        X, y, sw, _ = prepare_fit(self, X, y, sample_weight, classifier=True)
        max_components = min(X.shape[1], len(self.classes_) - 1)
        if self.n_components is None:
            self._max_components = max_components
        else:
            n_components = self.n_components
            if (isinstance(n_components, bool) or not isinstance(n_components, (int, np.integer))
                    or n_components < 1):
                raise ValueError(f"n_components must be an int >= 1 or None, got {n_components!r}")
            if n_components > max_components:
                raise ValueError(f"n_components cannot be larger than min(n_features, n_classes - 1) "
                                 f"= {max_components}, got {n_components}")
            self._max_components = int(n_components)
        params = _lq.fit_lda(X, y, n_classes=len(self.classes_), priors=_priors(self.priors, X.dtype),
                             shrinkage=self.shrinkage, solver=_lda_solver(self.solver, self.shrinkage),
                             sample_weight=sw)
        self.params_ = to_host(params)
        coef = np.asarray(params.coef)
        intercept = np.asarray(params.intercept)
        if len(self.classes_) == 2:
            coef = (coef[1] - coef[0])[None, :]
            intercept = np.array([intercept[1] - intercept[0]])
        self.coef_, self.intercept_ = coef, intercept
        self.means_ = np.asarray(params.means)
        self.covariance_ = np.asarray(params.covariance)
        self.priors_ = np.asarray(params.priors)
        scalings, eigenvalues, xbar = _lq.lda_scalings(params)
        eigenvalues = np.clip(np.asarray(eigenvalues), 0.0, None)
        self.scalings_ = np.asarray(scalings)
        self.xbar_ = np.asarray(xbar)
        total = eigenvalues.sum()
        ratio = eigenvalues / total if total > 0 else np.zeros_like(eigenvalues)
        self.explained_variance_ratio_ = ratio[: self._max_components]
        self._n_features_out = self._max_components
        return self

    @dtype_scope
    def transform(self, X):
        """Project ``X`` on the first ``n_components`` discriminant directions:
        ``(X - xbar_) @ scalings_[:, :n_components]``, shape (n_samples, n_components)."""
        Xp, n = prepare_predict(self, X)
        V = jnp.asarray(self.scalings_[:, : self._max_components])
        return np.asarray(_precision.matmul(Xp - jnp.asarray(self.xbar_), V))[:n]

    @dtype_scope
    def _joint_log_likelihood(self, X):
        Xp, n = prepare_predict(self, X)
        return np.asarray(_lq.discriminant_scores(self.params_, Xp))[:n]

    def decision_function(self, X):
        """Discriminant scores (n, C); for two classes the log-odds of ``classes_[1]`` (n,)."""
        return _binary_scores(self._joint_log_likelihood(X), self.classes_)


class QuadraticDiscriminantAnalysis(_ProbaClassifierMixin, ClassifierMixin, BaseEstimator):
    """Quadratic discriminant analysis (:func:`jaxclassic.discriminant.fit_qda`).

    Parameters
    ----------
    priors : array-like of shape (n_classes,), default=None
    reg_param : float in [0, 1], default=0.0
        Each class covariance becomes ``(1 - reg_param) * S_k + reg_param * I``.
    store_covariance : bool, default=False
        Accepted for scikit-learn compatibility: ``covariance_`` is always stored (the
        discriminant needs it).

    Attributes
    ----------
    classes_, means_, covariance_ (n_classes, d, d), rotations_, scalings_, priors_,
    n_features_in_, params_
    """

    def __init__(self, *, priors=None, reg_param=0.0, store_covariance=False):
        self.priors = priors
        self.reg_param = reg_param
        self.store_covariance = store_covariance

    @dtype_scope
    def fit(self, X, y, sample_weight=None):
        check_bool(self.store_covariance, "store_covariance")
        X, y, sw, _ = prepare_fit(self, X, y, sample_weight, classifier=True)
        params = _lq.fit_qda(X, y, n_classes=len(self.classes_), priors=_priors(self.priors, X.dtype),
                             reg_param=float(self.reg_param), sample_weight=sw)
        self.params_ = to_host(params)
        self.means_ = np.asarray(params.means)
        self.covariance_ = np.asarray(params.covariance)
        # scikit-learn's attributes: the eigendecomposition of each covariance itself, in
        # decreasing order (the core keeps the better-conditioned correlation form)
        evals, evecs = np.linalg.eigh(self.covariance_)
        self.scalings_ = list(evals[:, ::-1])
        self.rotations_ = list(evecs[:, :, ::-1])
        self.priors_ = np.asarray(params.priors)
        return self

    @dtype_scope
    def _joint_log_likelihood(self, X):
        Xp, n = prepare_predict(self, X)
        return np.asarray(_lq.discriminant_scores(self.params_, Xp))[:n]

    def decision_function(self, X):
        """Discriminant scores (n, C); for two classes the log-odds of ``classes_[1]`` (n,)."""
        return _binary_scores(self._joint_log_likelihood(X), self.classes_)


def _priors(priors, dtype):
    """scikit-learn's LDA / QDA rule: negative priors are an error, others are renormalised."""
    if priors is None:
        return None
    p = np.asarray(priors, dtype=dtype)
    if (p < 0).any():
        raise ValueError("priors must be non-negative")
    if abs(p.sum() - 1.0) > 1e-5:
        warnings.warn("The priors do not sum to 1. Renormalizing", UserWarning)
        p = p / p.sum()
    return p
