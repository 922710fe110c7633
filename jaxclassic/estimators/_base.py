"""Shared machinery of the scikit-learn-compatible estimator layer.

The estimator classes convert and validate input with scikit-learn's own helpers (so
``n_features_in_``, ``feature_names_in_`` and scikit-learn's error messages come for free),
encode class labels to ``0..C-1`` with ``classes_``, pad the rows to a *shape bucket* with
zero-weight rows so that refits on data of nearby sizes reuse one compiled program, call the
functional core and store its params pytree. They hold no maths.

dtype: inputs are validated as float64 or float32 by scikit-learn; the core then computes in
float64 only when ``jax_enable_x64`` is on, else in float32. In float32, scikit-learn's
tightest estimator checks (``check_fit_idempotent``, ``check_methods_subset_invariance``,
which compare at about 1e-7 relative) can fail by rounding; the test suite runs with x64 on.
"""

from __future__ import annotations

import numpy as np

try:
    from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
    from sklearn.utils.multiclass import check_classification_targets as _sk_check_targets
    from sklearn.utils.validation import check_is_fitted, validate_data
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "jaxclassic.estimators needs scikit-learn: pip install 'jaxclassic[sklearn]'"
    ) from exc

import jax
import jax.numpy as jnp

__all__ = [
    "BaseEstimator",
    "ClassifierMixin",
    "RegressorMixin",
    "check_is_fitted",
    "validate_data",
    "bucket_size",
    "pad_rows",
    "fit_dtype",
    "to_core",
    "encode_labels",
    "prepare_fit",
    "prepare_predict",
]

#: smallest shape bucket: datasets of up to this many rows share one compiled program
MIN_BUCKET = 32


def bucket_size(n_samples: int) -> int:
    """The padded number of rows for ``n_samples``: the next power of two, at least 32."""
    return max(MIN_BUCKET, 1 << max(0, int(n_samples) - 1).bit_length())


def fit_dtype(X: np.ndarray):
    """The dtype the core computes in: the input's float dtype if x64 is on, else float32."""
    if jax.config.read("jax_enable_x64") and X.dtype == np.float64:
        return np.float64
    return np.float32


def pad_rows(X: np.ndarray, y: np.ndarray | None, sample_weight: np.ndarray, n_padded: int):
    """Append zero rows with weight 0 up to ``n_padded`` rows.

    Every fit in the core gives a zero-weight row no influence at all, so the padded fit
    equals the unpadded one while sharing its compiled program with all sizes in the bucket.
    """
    n = X.shape[0]
    extra = n_padded - n
    if extra <= 0:
        return X, y, sample_weight
    Xp = np.concatenate([X, np.zeros((extra,) + X.shape[1:], X.dtype)])
    sw = np.concatenate([sample_weight, np.zeros(extra, sample_weight.dtype)])
    yp = None if y is None else np.concatenate([y, np.zeros((extra,) + y.shape[1:], y.dtype)])
    return Xp, yp, sw


def to_core(*arrays):
    """numpy -> jax arrays (None passes through)."""
    return tuple(None if a is None else jnp.asarray(a) for a in arrays)


def encode_labels(estimator, y) -> np.ndarray:
    """Set ``estimator.classes_`` and return ``y`` coded as int32 ``0..C-1``.

    Raises scikit-learn's error for continuous targets and a ``ValueError`` naming ``y``
    when fewer than two classes are present.
    """
    _sk_check_targets(y)
    classes, codes = np.unique(y, return_inverse=True)
    if len(classes) < 2:
        raise ValueError(
            f"y must contain at least 2 classes, got 1 class: {classes.tolist()}"
        )
    estimator.classes_ = classes
    return codes.astype(np.int32).reshape(-1)


def prepare_fit(estimator, X, y, sample_weight=None, *, classifier: bool = False, pad: bool = True,
                y_numeric: bool = True):
    """Validate, encode and pad the training data of an estimator.

    Returns ``(X, y, sample_weight, n_samples)`` as jax arrays in the core's dtype, padded to
    :func:`bucket_size` rows with zero weights (unless ``pad=False``), where ``y`` is int32
    class codes for a classifier (``classes_`` set on the estimator) and float otherwise.
    """
    X, y = validate_data(
        estimator, X, y, dtype=[np.float64, np.float32], y_numeric=(y_numeric and not classifier),
        reset=True,
    )
    dtype = fit_dtype(X)
    X = X.astype(dtype, copy=False)
    if classifier:
        y = encode_labels(estimator, y)
    else:
        y = np.asarray(y, dtype=dtype)
    n = X.shape[0]
    if sample_weight is None:
        sw = np.ones(n, dtype)
    else:
        from sklearn.utils.validation import _check_sample_weight

        sw = _check_sample_weight(sample_weight, X, dtype=dtype, ensure_non_negative=True)
        if not (sw > 0).any():
            raise ValueError("sample_weight must have at least one positive value, got all zeros")
    if pad:
        X, y, sw = pad_rows(X, y, sw, bucket_size(n))
    Xj, yj, swj = to_core(X, y, sw)
    return Xj, yj, swj, n


def prepare_predict(estimator, X, *, attributes=None):
    """Check the estimator is fitted and validate ``X`` for prediction (no padding).

    Returns ``(X_jax_padded, n_samples)``: X padded to its bucket so prediction programs are
    reused too; callers slice the first ``n_samples`` results.
    """
    check_is_fitted(estimator, attributes)
    X = validate_data(estimator, X, dtype=[np.float64, np.float32], reset=False)
    X = X.astype(fit_dtype(X), copy=False)
    n = X.shape[0]
    Xp, _, _ = pad_rows(X, None, np.ones(n, X.dtype), bucket_size(n))
    return jnp.asarray(Xp), n
