"""scikit-learn-compatible naive Bayes for counts and binary features: ``MultinomialNB``,
``BernoulliNB``, ``ComplementNB``, with ``partial_fit``.

Thin wrappers over :mod:`jaxclassic.discriminant.discrete_nb`: they validate and encode the
input, pad the rows to a shape bucket with zero-weight rows, call the functional fit (or, in
``partial_fit``, the functional update of the stored counts) and store its params and
scikit-learn's fitted attributes. The maths lives in the core.

Sparse input (``scipy.sparse``, any format; converted to CSR as scikit-learn does) is the normal
case of these models (a bag of words): it reaches the core as a sparse matrix and is never
densified. Its rows are padded to the bucket too (empty rows of weight 0: free in CSR), and the
core rounds the number of stored values up to a bucket, so data of nearby sizes share one
compiled program.

Differences from scikit-learn:

* ``BernoulliNB(binarize=None)`` requires ``X`` in [0, 1] (``ValueError``); scikit-learn takes
  larger values and returns NaN probabilities.
* With ``alpha=0``, a product :math:`0\\cdot\\log 0` is 0 (an absent word says nothing), where
  scikit-learn's dense product gives NaN.
* ``partial_fit`` raises ``ValueError`` for a label of ``y`` not among ``classes_``.
* Fitted attributes are in the compute dtype (float32 for float32 ``X``); scikit-learn's counts
  are always float64.
"""

from __future__ import annotations

import numpy as np

from jaxclassic.discriminant import discrete_nb as _dnb
from jaxclassic.estimators._base import (
    BaseEstimator,
    ClassifierMixin,
    MAX_PADDED_SIZE,
    bucket_size,
    check_is_fitted,
    compute_dtype,
    dtype_scope,
    encode_labels,
    enter_dtype,
    fit_sample_weight,
    fitted_dtype,
    pad_rows,
    start_fit,
    to_host,
    validate_data,
)
from jaxclassic.estimators.discriminant import _ProbaClassifierMixin
from jaxclassic.validation import check_bool, check_scalar

__all__ = ["MultinomialNB", "BernoulliNB", "ComplementNB"]


def _pad_sparse_rows(X, n_padded: int):
    """A CSR ``X`` with empty rows appended up to ``n_padded`` rows (no copy of the values)."""
    import scipy.sparse as sp

    n = X.shape[0]
    if n_padded <= n:
        return X
    indptr = np.concatenate([X.indptr, np.full(n_padded - n, X.indptr[-1], X.indptr.dtype)])
    return sp.csr_matrix((X.data, X.indices, indptr), shape=(n_padded, X.shape[1]))


def _pad(X, y, sw):
    """Rows padded to the bucket with weight 0 (dense: while the padded X stays under
    MAX_PADDED_SIZE values; sparse: always, empty rows cost nothing)."""
    import scipy.sparse as sp

    n = X.shape[0]
    bucket = bucket_size(n)
    if sp.issparse(X):
        y = None if y is None else np.concatenate([y, np.zeros(bucket - n, y.dtype)])
        sw = np.concatenate([sw, np.zeros(bucket - n, sw.dtype)])
        return _pad_sparse_rows(X, bucket), y, sw
    if bucket * X.shape[1] > MAX_PADDED_SIZE:
        return X, y, sw
    return pad_rows(X, y, sw, bucket)


def partial_fit_setup(estimator, X, y, classes, sample_weight, *, accept_sparse):
    """scikit-learn's ``partial_fit`` bookkeeping: validate ``X`` and ``y`` (``n_features_in_``
    set on the first call), fix ``classes_`` on the first call (``classes`` required then; later
    it must equal ``classes_``), enter the compute dtype, code ``y`` and check the weights.

    Returns ``(X, codes, sample_weight, first_call)``; ``X`` is numpy or CSR in the compute dtype.
    """
    from sklearn.utils.multiclass import unique_labels

    first = not hasattr(estimator, "params_")  # a fit that failed half-way fitted nothing
    if first and classes is None:
        raise ValueError("classes must be passed on the first call to partial_fit.")
    X, y = validate_data(estimator, X, y, accept_sparse=accept_sparse, dtype=[np.float64, np.float32],
                         reset=first)
    if classes is not None:
        wanted = unique_labels(np.asarray(classes))
        if first:
            if len(wanted) < 2:
                raise ValueError(f"classes must hold at least 2 classes, got {wanted.tolist()}")
        elif not np.array_equal(estimator.classes_, wanted):
            raise ValueError(f"`classes={classes!r}` is not the same as on last call to partial_fit, "
                             f"was: {estimator.classes_!r}")
    if first:
        dtype = start_fit(estimator, compute_dtype(X.dtype))
        estimator.classes_ = wanted
    else:
        dtype = fitted_dtype(estimator)
        enter_dtype(dtype)
    y = np.asarray(y).reshape(-1)
    codes = np.searchsorted(estimator.classes_, y)
    known = (codes < len(estimator.classes_)) & (estimator.classes_[np.minimum(codes, len(estimator.classes_) - 1)] == y)
    if not known.all():
        raise ValueError(f"The target label(s) {np.unique(y[~known])} in y do not exist in the initial "
                         f"classes {estimator.classes_}")
    X = X.astype(dtype, copy=False)
    sw = fit_sample_weight(sample_weight, X, dtype)
    return X, codes.astype(np.int32), sw, first


class _DiscreteNB(_ProbaClassifierMixin, ClassifierMixin, BaseEstimator):
    """fit / partial_fit / the fitted attributes shared by the three classes."""

    _kind = ""
    _positive_only = True

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.positive_only = self._positive_only
        tags.classifier_tags.poor_score = True
        return tags

    def _hyper(self) -> dict:
        """The core's keyword arguments from the estimator's parameters (checked before the data)."""
        check_bool(self.force_alpha, "force_alpha")
        check_bool(self.fit_prior, "fit_prior")
        alpha = self.alpha
        if np.ndim(alpha) > 0:
            alpha = np.asarray(alpha, dtype=np.float64)
            check_scalar(alpha, "alpha", low=0.0, allow_array=True)
        else:
            check_scalar(alpha, "alpha", low=0.0)
        return dict(alpha=alpha, force_alpha=self.force_alpha, fit_prior=self.fit_prior)

    def _priors(self, dtype):
        if self.class_prior is None:
            return None
        prior = np.asarray(self.class_prior, dtype=dtype)
        if prior.shape != (len(self.classes_),):
            raise ValueError("Number of priors must match number of classes.")
        return prior

    def _check_non_negative(self, X):
        import scipy.sparse as sp

        if not self._positive_only:
            return
        values = X.data if sp.issparse(X) else X
        if values.size and values.min() < 0:
            raise ValueError(f"Negative values in data passed to {type(self).__name__} (input X)")

    @dtype_scope
    def fit(self, X, y, sample_weight=None):
        """Fit on ``X`` (dense or sparse) and ``y``; ``sample_weight`` scales each row's counts."""
        hyper = {**self._hyper(), **self._extra()}
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=[np.float64, np.float32], reset=True)
        dtype = start_fit(self, compute_dtype(X.dtype))
        X = X.astype(dtype, copy=False)
        codes = encode_labels(self, y)
        sw = fit_sample_weight(sample_weight, X, dtype)
        self._check_non_negative(X)
        priors = self._priors(dtype)
        Xp, yp, swp = _pad(X, codes, sw)
        fit = getattr(_dnb, f"fit_{self._kind}_nb")
        params = fit(Xp, yp, **hyper, priors=priors, sample_weight=swp,
                     n_classes=len(self.classes_))
        self._store(params)
        return self

    @dtype_scope
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Add a batch of rows to the model (scikit-learn's ``partial_fit``).

        ``classes`` (every label ``y`` may hold) is required on the first call. The counts of the
        batch are added to the stored ones and the log-probabilities recomputed
        (:func:`jaxclassic.discriminant.update_multinomial_nb` and siblings), so batches give
        exactly the model of one ``fit`` on all their rows. The current parameters apply.
        """
        hyper = {**self._hyper(), **self._extra()}
        X, codes, sw, first = partial_fit_setup(self, X, y, classes, sample_weight, accept_sparse="csr")
        self._check_non_negative(X)
        dtype = fitted_dtype(self)
        priors = self._priors(dtype)
        if first:
            extra = {"binarize": self.binarize} if self._kind == "bernoulli" else {}
            params = _dnb.empty_params(self._kind, len(self.classes_), X.shape[1], dtype, **extra)
        else:
            params = self.params_
        Xp, yp, swp = _pad(X, codes, sw)
        update = getattr(_dnb, f"update_{self._kind}_nb")
        params = update(params, Xp, yp, **hyper, priors=priors, sample_weight=swp)
        self._store(params)
        return self

    def _extra(self) -> dict:
        return {}

    def _store(self, params):
        self.params_ = to_host(params)
        self.class_count_ = np.asarray(params.class_count)
        self.feature_count_ = np.asarray(params.feature_count)
        self.class_log_prior_ = np.asarray(params.class_log_prior)
        self.feature_log_prob_ = np.asarray(params.feature_log_prob)

    @dtype_scope
    def _joint_log_likelihood(self, X):
        import scipy.sparse as sp

        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse="csr", dtype=[np.float64, np.float32], reset=False)
        dtype = fitted_dtype(self)
        enter_dtype(dtype)
        X = X.astype(dtype, copy=False)
        n = X.shape[0]
        if sp.issparse(X):
            Xp = _pad_sparse_rows(X, bucket_size(n))
        else:
            Xp, _, _ = _pad(X, None, np.ones(n, dtype))
        return np.asarray(_dnb.joint_log_likelihood(self.params_, Xp))[:n]


class MultinomialNB(_DiscreteNB):
    """Multinomial naive Bayes (:func:`jaxclassic.discriminant.fit_multinomial_nb`): word counts.

    Parameters
    ----------
    alpha : float or array-like of shape (n_features,), default=1.0
        Additive (Laplace / Lidstone) smoothing; 0 for none.
    force_alpha : bool, default=True
        If False and ``alpha < 1e-10``, use 1e-10 (with a warning).
    fit_prior : bool, default=True
        Learn the class prior; else uniform.
    class_prior : array-like of shape (n_classes,), default=None
        Fixed class priors.

    Attributes
    ----------
    classes_, class_count_, feature_count_, class_log_prior_, feature_log_prob_, n_features_in_,
    params_

    Example
    -------
    >>> import numpy as np
    >>> X = np.array([[3, 0, 1], [2, 0, 0], [0, 2, 3], [0, 3, 1]]); y = np.array(["a", "a", "b", "b"])
    >>> MultinomialNB().fit(X, y).predict(np.array([[1, 0, 0]])).tolist()
    ['a']
    """

    _kind = "multinomial"

    def __init__(self, *, alpha=1.0, force_alpha=True, fit_prior=True, class_prior=None):
        self.alpha = alpha
        self.force_alpha = force_alpha
        self.fit_prior = fit_prior
        self.class_prior = class_prior


class ComplementNB(_DiscreteNB):
    """Complement naive Bayes (:func:`jaxclassic.discriminant.fit_complement_nb`), Rennie et al. (2003).

    Parameters
    ----------
    alpha, force_alpha, fit_prior, class_prior
        As :class:`MultinomialNB` (the prior is used only with a single class, as scikit-learn).
    norm : bool, default=False
        Normalise the complement weights.

    Attributes
    ----------
    classes_, class_count_, feature_count_, feature_all_, class_log_prior_, feature_log_prob_,
    n_features_in_, params_
    """

    _kind = "complement"

    def __init__(self, *, alpha=1.0, force_alpha=True, fit_prior=True, class_prior=None, norm=False):
        self.alpha = alpha
        self.force_alpha = force_alpha
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.norm = norm

    def _extra(self) -> dict:
        return {"norm": check_bool(self.norm, "norm")}

    def _store(self, params):
        super()._store(params)
        self.feature_all_ = np.asarray(params.feature_all)


class BernoulliNB(_DiscreteNB):
    """Bernoulli naive Bayes (:func:`jaxclassic.discriminant.fit_bernoulli_nb`): word presence.

    Parameters
    ----------
    alpha, force_alpha, fit_prior, class_prior
        As :class:`MultinomialNB`.
    binarize : float or None, default=0.0
        Threshold above which a value is "present"; None: ``X`` is already binary (values in
        [0, 1], else ``ValueError``).

    Attributes
    ----------
    classes_, class_count_, feature_count_, class_log_prior_, feature_log_prob_, n_features_in_,
    params_
    """

    _kind = "bernoulli"
    _positive_only = False

    def __init__(self, *, alpha=1.0, force_alpha=True, binarize=0.0, fit_prior=True, class_prior=None):
        self.alpha = alpha
        self.force_alpha = force_alpha
        self.binarize = binarize
        self.fit_prior = fit_prior
        self.class_prior = class_prior

    def _extra(self) -> dict:
        if self.binarize is not None:
            check_scalar(self.binarize, "binarize", low=0.0)
        return {"binarize": self.binarize}
