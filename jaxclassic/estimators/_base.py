"""Shared machinery of the scikit-learn-compatible estimator layer.

The estimator classes convert and validate input with scikit-learn's own helpers (so
``n_features_in_``, ``feature_names_in_`` and scikit-learn's error messages come for free),
encode class labels to ``0..C-1`` with ``classes_``, pad the rows to a *shape bucket* with
zero-weight rows so that refits on data of nearby sizes reuse one compiled program, call the
functional core and store its params pytree. They hold no maths.

dtype (scikit-learn's policy): float64 input is fitted and predicted in float64, float32 input
in float32, whatever the global ``jax_enable_x64`` flag says; non-float input becomes float64.
Every public method that reaches the core is decorated with :func:`dtype_scope`: once
:func:`prepare_fit` / :func:`prepare_predict` know the compute dtype, they switch JAX's x64
mode on (float64) or off (float32) with ``jax.enable_x64`` until the method returns.
Prediction runs in the dtype of the fit. :func:`~jaxclassic.estimators.set_config`
(``dtype="float32"``) forces float32. Fitted attributes are numpy arrays of the compute dtype.

Warnings that the core raises inside a decorated method are re-issued in the estimator's own
vocabulary (``C`` rather than ``l2``, the class name rather than ``fit_logistic``):
each class lists its translations in ``_warning_vocabulary``.

Memory: ``X`` reaches the device with one ``jax.device_put`` (``jnp.asarray`` makes a second
transient copy), or with a host copy and one ``device_put`` where ``device_put`` would alias the
caller's buffer (:func:`to_core`: fitted state never shares memory with the caller's arrays);
padded arrays, the layer's own copies, go in one batched ``device_put`` without that check;
scikit-learn's validation does not copy C-contiguous float input; rows are padded to a bucket
only while the padded ``X`` holds at most :data:`MAX_PADDED_SIZE` values (a padded copy of a
large ``X`` would cost more than the compilation it saves). The smallest
bucket is 32 rows, 512 for the tree family (:data:`TREE_MIN_BUCKET`).
"""

from __future__ import annotations

import numpy as np

try:
    from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
    from sklearn.base import BaseEstimator as _SklearnBaseEstimator
    from sklearn.utils.multiclass import check_classification_targets as _sk_check_targets
    from sklearn.utils.validation import check_is_fitted, validate_data
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "jaxclassic.estimators needs scikit-learn: pip install 'jaxclassic[sklearn]'"
    ) from exc

import contextlib
import functools
import re
import threading
import warnings

import jax

from jaxclassic.estimators._config import get_config

__all__ = [
    "BaseEstimator",
    "ClassifierMixin",
    "RegressorMixin",
    "check_is_fitted",
    "validate_data",
    "bucket_size",
    "MIN_BUCKET",
    "TREE_MIN_BUCKET",
    "pad_rows",
    "compute_dtype",
    "dtype_scope",
    "enter_dtype",
    "start_fit",
    "fitted_dtype",
    "translate_warning",
    "to_core",
    "to_host",
    "encode_labels",
    "prepare_fit",
    "prepare_predict",
    "prepare_fit_sparse",
    "prepare_predict_sparse",
    "SparseInputMixin",
    "fit_sample_weight",
    "C_VOCABULARY",
    "SaveLoadMixin",
    "save_estimator",
    "load_estimator",
]

#: smallest shape bucket: datasets of up to this many rows share one compiled program
MIN_BUCKET = 32
#: smallest shape bucket of the tree family (CART, ID3, C4.5, forests, bagging, AdaBoost, gradient and
#: XGBoost-style boosting; their class attribute ``_min_bucket``): a tree program costs 2-4 s to compile and
#: little more to run on 512 rows than on 32, so every data set of up to 512 rows shares one.
#: Measured (2 cores, 40 rows of iris, warm fit + predict, bucket 64 -> 512, two runs each):
#: DecisionTreeClassifier 10-12 -> 13-14 ms, RandomForestClassifier(100) 114-139 -> 165 ms,
#: GradientBoostingClassifier(100) 182-188 -> 208-236 ms, AdaBoost 17-19 -> 20-24 ms, C4.5 13.7 ->
#: 16.7 ms; XGBoost-style boosting and ID3 within noise; from about 150 rows within noise.
#: scikit-learn's estimator checks of three tree estimators: 839 -> 614 programs, 310 -> 234 s.
#: The padded rows change sums only in their last bits, which can settle an exact tie between two
#: splits' gradient gains the other way (XGBoostClassifier on 17 iris rows: bucket 32 and xgboost
#: split on feature 0, bucket 512 on feature 1; gradient boosting differed between 32 and 64 before).
TREE_MIN_BUCKET = 512
#: above this many rows, buckets are multiples of 1/8 of the power of two below (<= 12.5% padding)
POW2_BUCKETS_UP_TO = 4096
#: rows are padded only while the padded X holds at most this many values (64 MiB in float32)
MAX_PADDED_SIZE = 1 << 24


def tree_bins(Xj, n: int, n_bins) -> int:
    """The bins a tree-family fit uses: :func:`jaxclassic.tree.binning.fewest_bins` of the
    first ``n`` (unpadded) rows of ``Xj``, at most ``n_bins``.

    The tree family's ``n_bins`` (XGBoost's ``max_bin``) is an upper bound: data whose every
    feature has few distinct values is binned at the smallest of 32, 64 or 128 bins that
    still holds them all, which is the same exact binning and so the same trees, in a
    fraction of the time (one compiled program per bucket). Set on the estimator as
    ``n_bins_``.
    """
    from jaxclassic.tree.binning import fewest_bins

    n_bins = int(n_bins)
    if Xj.size > (1 << 25):  # fewest_bins does not read data this large: no host copy of it
        return n_bins
    return fewest_bins(np.asarray(Xj)[:n], n_bins)


def bucket_size(n_samples: int, min_bucket: int = MIN_BUCKET) -> int:
    """The padded number of rows for ``n_samples``.

    The next power of two (at least ``min_bucket``, by default :data:`MIN_BUCKET`, 32) up to 4096
    rows; above, the next multiple of an eighth of the power of two below ``n_samples`` (so at
    most 12.5% of padding).
    """
    n = int(n_samples)
    if n <= POW2_BUCKETS_UP_TO:
        return max(min_bucket, 1 << max(0, n - 1).bit_length())
    step = 1 << ((n - 1).bit_length() - 4)
    return -(-n // step) * step


# --------------------------------------------------------------------------- dtype policy
def compute_dtype(input_dtype) -> type:
    """The dtype an estimator computes in for input of ``input_dtype``.

    float32 input -> float32; anything else (float64, or integers that scikit-learn's
    validation made float64) -> float64; float32 always under ``set_config(dtype="float32")``.
    """
    if get_config()["dtype"] == "float32" or np.dtype(input_dtype) == np.float32:
        return np.float32
    return np.float64


_scopes = threading.local()


def _stack() -> list:
    if not hasattr(_scopes, "stack"):
        _scopes.stack = []
    return _scopes.stack


def dtype_scope(method):
    """Decorate an estimator method that calls the core (after :func:`prepare_fit` or
    :func:`prepare_predict`).

    The x64 mode chosen by :func:`enter_dtype` holds until the method returns, and the
    warnings raised inside are re-issued after it in the estimator's vocabulary
    (:func:`translate_warning`). Nested calls (``predict_proba`` -> ``decision_function``)
    each have their own scope.
    """

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        stack = _stack()
        caught: list = []
        try:
            # entered in this order, left in the reverse: x64 mode first, then the filters
            with warnings.catch_warnings(record=True) as caught, contextlib.ExitStack() as scope:
                warnings.simplefilter("always")
                stack.append(scope)
                try:
                    return method(self, *args, **kwargs)
                finally:
                    stack.pop()
        finally:
            for record in caught:
                _reissue(self, record)

    return wrapper


def _reissue(estimator, record) -> None:
    """Re-issue a recorded warning: translated ones at the user's call site, others unchanged
    at their origin (so the usual per-module filters still apply to them)."""
    text = str(record.message)
    translated = translate_warning(estimator, text)
    if translated != text:
        # stacklevel: _reissue <- wrapper <- the user's call
        warnings.warn(record.category(translated), stacklevel=3)
    else:
        warnings.warn_explicit(record.message, record.category, record.filename, record.lineno,
                               source=record.source)


#: translations shared by every estimator: the core's function names become the class name
_CORE_NAME = re.compile(r"\bfit_\w+(\(method=[^)]*\))?")

#: the core's ``l2`` said with scikit-learn's ``C = 1 / l2`` (LogisticRegression, SoftmaxRegression)
C_VOCABULARY: tuple[tuple[str, str], ...] = (
    (r"\bUse l2 > 0 for a finite optimum", "Use a finite C with penalty='l2' for a finite optimum"),
    (r"\b[Ww]ith l2 = 0\b", "Without a penalty (C=np.inf or penalty=None)"),
    (r"\band l2 = 0\b", "and there is no penalty (C=np.inf or penalty=None)"),
    (r"\badd l2\b", "lower C"),
    (r"\bl2 > 0\b", "finite C"),
    (r"\bl2 = 0\b", "C = np.inf"),
    (r"\bl2\b", "1/C"),
)


def translate_warning(estimator, message: str) -> str:
    """A core warning's text in the estimator's terms.

    The core's ``fit_<model>(method=...)`` becomes the class name; the class's
    ``_warning_vocabulary`` (pairs of regular expression and replacement) renames the core's
    arguments; advice to "use float64" says how, given the dtype the estimator computed in.
    """
    message = _CORE_NAME.sub(type(estimator).__name__, message)
    for pattern, replacement in getattr(estimator, "_warning_vocabulary", ()):
        message = re.sub(pattern, replacement, message)
    dtype = getattr(estimator, "_fit_dtype", None)
    if dtype is not None and np.dtype(dtype) == np.float64:
        message = re.sub(r"\bUse float64 or (\w)", lambda m: m.group(1).upper(), message)
    elif get_config()["dtype"] == "float32":
        message = re.sub(r"\bUse float64\b",
                         "Use float64 (jaxclassic.estimators.set_config(dtype='auto') and "
                         "float64 X)", message)
    else:
        message = re.sub(r"\bUse float64\b", "Pass X as float64", message)
    return message


def enter_dtype(dtype) -> None:
    """Compute in ``dtype`` (float32 / float64) until the decorated method returns.

    Must be called inside a :func:`dtype_scope` method (the estimator layer's public methods).
    """
    stack = _stack()
    if not stack:
        raise RuntimeError("enter_dtype outside a method decorated with dtype_scope")
    stack[-1].enter_context(jax.enable_x64(np.dtype(dtype) == np.float64))


# --------------------------------------------------------------------------- data
def pad_rows(X: np.ndarray, y: np.ndarray | None, sample_weight: np.ndarray, n_padded: int):
    """Append zero rows with weight 0 up to ``n_padded`` rows (one copy of each array).

    Every fit in the core gives a zero-weight row no influence at all, so the padded fit
    equals the unpadded one (up to the last bits of float sums, which can settle an exact tie
    between two splits) while sharing its compiled program with all sizes in the bucket.
    """
    n = X.shape[0]
    extra = n_padded - n
    if extra <= 0:
        return X, y, sample_weight

    def padded(a):
        out = np.empty((n_padded,) + a.shape[1:], a.dtype)
        out[:n] = a
        out[n:] = 0
        return out

    return padded(X), None if y is None else padded(y), padded(sample_weight)


def _n_padded(X: np.ndarray, min_bucket: int = MIN_BUCKET) -> int:
    """Rows after padding: the bucket (:func:`bucket_size`), unless the padded X would exceed
    MAX_PADDED_SIZE values."""
    n = X.shape[0]
    bucket = bucket_size(n, min_bucket)
    per_row = int(np.prod(X.shape[1:], dtype=np.int64))
    return bucket if bucket * per_row <= MAX_PADDED_SIZE else n


def to_core(*arrays, owned: bool = False):
    """numpy -> jax arrays (None passes through) with one ``device_put`` each, never sharing
    memory with the caller's arrays.

    ``owned=True``: the arrays are this layer's own new copies, which nothing else holds (the
    padded rows of :func:`pad_rows`): the device arrays may share their memory, so they go in
    one batched ``device_put`` with no check of aliasing (issue 25: on 512 x 30 float64 rows, a
    512-row ``y`` and weights, 90-170 us against 0.3-0.45 ms one by one with the checks). A
    jitted identity would pass them in 20-60 us, but it is a program traced before an
    estimator's later checks of its hyperparameters could raise (the rule: nothing compiled
    before a bad value is reported; ``tests/test_bad_input_matrix.py``).

    ``jnp.asarray`` of a large numpy array makes a second, transient copy; ``device_put``
    does not. On the CPU ``device_put`` can instead alias the numpy buffer (a 64-byte-aligned
    array of the right dtype: a caller's ``X`` whose row count is a bucket size reaches here
    unpadded and uncopied), and a core that keeps its input (k-NN's and the KDE's ``fit_X``,
    a regressor's ``y``) would then change when the caller edits their array in place. Such an
    array is copied on the host first, to an aligned buffer that ``device_put`` then takes as
    it is: still one copy, kept, none transient.
    """
    if owned:
        present = [a for a in arrays if a is not None]
        on_device = iter(jax.device_put(present))
        return tuple(None if a is None else next(on_device) for a in arrays)
    return tuple(None if a is None else _private_device_put(a) for a in arrays)


def _private_device_put(a):
    """``jax.device_put(a)``, copying ``a`` on the host first when the device array would alias it."""
    out = jax.device_put(a)
    if isinstance(a, np.ndarray) and _aliases(out, a):
        out = jax.device_put(_aligned_copy(a))
    return out


def _aligned_copy(a: np.ndarray, alignment: int = 64) -> np.ndarray:
    """A C-contiguous copy of ``a`` at an ``alignment``-byte address, which ``device_put`` on the
    CPU takes without copying again (numpy's own allocations are only 16-byte aligned)."""
    raw = np.empty(a.nbytes + alignment, np.uint8)
    offset = -raw.ctypes.data % alignment
    out = raw[offset:offset + a.nbytes].view(a.dtype).reshape(a.shape)
    out[...] = a
    return out


def _aliases(out, a: np.ndarray) -> bool:
    """Whether the jax array ``out`` may use ``a``'s host memory (True when it cannot be told)."""
    if a.nbytes == 0:
        return False
    try:
        pointer = out.unsafe_buffer_pointer()
    except Exception:  # pragma: no cover - sharded or deleted arrays: assume the worst
        return True
    start = a.__array_interface__["data"][0]
    steps = [s * (n - 1) for s, n in zip(a.strides, a.shape)]
    low = start + sum(min(0, step) for step in steps)
    high = start + sum(max(0, step) for step in steps) + a.itemsize
    return low <= pointer < high


def to_host(params):
    """The core's params pytree with numpy leaves (in the compute dtype).

    Stored as ``params_``: numpy arrays keep their dtype through pickling and outside the
    x64 scope, where a float64 jax array would come back as float32. On the CPU a leaf can be a
    view of the core's device buffer, which is private: :func:`to_core` never aliases the
    caller's arrays.
    """
    return jax.tree.map(np.asarray, params)


def encode_labels(estimator, y) -> np.ndarray:
    """Set ``estimator.classes_`` and return ``y`` coded as int32 ``0..C-1``.

    Raises scikit-learn's error for continuous targets and a ``ValueError`` naming ``y``
    when fewer than two classes are present.
    """
    discrete = _discrete_1d(y)
    if not discrete:
        _sk_check_targets(y)
    classes, codes = np.unique(y, return_inverse=True)
    if discrete and len(classes) > 2 and y.shape[0] > 20 and len(classes) > round(0.5 * y.shape[0]):
        _sk_check_targets(y)  # its warning that y may be a regression target
    if len(classes) < 2:
        raise ValueError(
            f"y must contain at least 2 classes, got 1 class: {classes.tolist()}"
        )
    estimator.classes_ = classes
    return codes.astype(np.int32).reshape(-1)


def _discrete_1d(y) -> bool:
    """Whether ``y`` is a non-empty 1-d numpy array of integers, booleans or integral floats:
    then scikit-learn's ``check_classification_targets`` finds it "binary" or "multiclass" and
    passes it (its ``type_of_target`` costs ~0.15 ms; this test, microseconds on 426 labels)."""
    if not isinstance(y, np.ndarray) or y.ndim != 1 or not y.size or y.dtype.kind not in "biuf":
        return False
    if y.dtype.kind != "f":
        return True
    with np.errstate(invalid="ignore"):  # NaN and inf: scikit-learn's check raises on them
        return bool(np.all(y == y.astype(np.int64).astype(y.dtype)))


def start_fit(estimator, dtype) -> type:
    """Record the compute dtype of a fit on ``estimator`` and enter it (:func:`enter_dtype`)."""
    estimator._fit_dtype = np.dtype(dtype).type
    enter_dtype(dtype)
    return estimator._fit_dtype


def fit_sample_weight(sample_weight, X, dtype) -> np.ndarray:
    """scikit-learn's checks of ``sample_weight`` for ``X`` (shape, finite, non-negative), as
    ``dtype``; ones when None; all zeros is an error (nothing to fit)."""
    if sample_weight is None:
        return np.ones(X.shape[0], dtype)
    from sklearn.utils.validation import _check_sample_weight

    sw = _check_sample_weight(sample_weight, X, dtype=dtype, ensure_non_negative=True)
    if not (sw > 0).any():
        raise ValueError("sample_weight must have at least one positive value, got all zeros")
    return sw


def _finite(allow_nan: bool):
    return "allow-nan" if allow_nan else True


def _min_bucket(estimator) -> int:
    """The estimator's smallest row bucket: its class attribute ``_min_bucket`` (the tree
    family's :data:`TREE_MIN_BUCKET`), else :data:`MIN_BUCKET`."""
    return getattr(estimator, "_min_bucket", MIN_BUCKET)


def prepare_fit(estimator, X, y, sample_weight=None, *, classifier: bool = False, pad: bool = True,
                y_numeric: bool = True, allow_nan: bool = False):
    """Validate, encode and pad the training data of an estimator; enter its compute dtype.

    Call inside a :func:`dtype_scope` method. Returns ``(X, y, sample_weight, n_samples)`` as
    jax arrays in the compute dtype (:func:`compute_dtype`), padded with zero weights to
    :func:`bucket_size` rows, at least the estimator's ``_min_bucket`` (unless ``pad=False``
    or ``X`` is large, see :data:`MAX_PADDED_SIZE`), where ``y`` is int32 class codes for a
    classifier (``classes_`` set on the estimator) and float otherwise. ``allow_nan=True`` lets NaN through in ``X``
    (estimators whose core treats it as missing: trees, forests, boosting; ``inf`` is still
    an error).
    """
    X, y = validate_data(
        estimator, X, y, dtype=[np.float64, np.float32], y_numeric=(y_numeric and not classifier),
        ensure_all_finite=_finite(allow_nan), reset=True,
    )
    dtype = start_fit(estimator, compute_dtype(X.dtype))
    X = X.astype(dtype, copy=False)
    if classifier:
        y = encode_labels(estimator, y)
    else:
        y = np.asarray(y, dtype=dtype)
    n = X.shape[0]
    sw = fit_sample_weight(sample_weight, X, dtype)
    n_padded = _n_padded(X, _min_bucket(estimator)) if pad else n
    if n_padded > n:
        X, y, sw = pad_rows(X, y, sw, n_padded)
    Xj, yj, swj = to_core(X, y, sw, owned=n_padded > n)
    return Xj, yj, swj, n


def fitted_dtype(estimator) -> type:
    """The dtype ``estimator`` was fitted in."""
    return getattr(estimator, "_fit_dtype", np.float64)


def prepare_predict(estimator, X, *, attributes=None, allow_nan: bool = False):
    """Check the estimator is fitted, validate ``X`` and enter the dtype of the fit.

    Call inside a :func:`dtype_scope` method. Returns ``(X_jax_padded, n_samples)``: ``X``
    in the fit's dtype, padded to its bucket so prediction programs are reused too; callers
    slice the first ``n_samples`` results. ``allow_nan`` as :func:`prepare_fit`.
    """
    check_is_fitted(estimator, attributes)
    X = validate_data(estimator, X, dtype=[np.float64, np.float32], ensure_all_finite=_finite(allow_nan),
                      reset=False)
    dtype = fitted_dtype(estimator)
    enter_dtype(dtype)
    X = X.astype(dtype, copy=False)
    n = X.shape[0]
    Xp, _, _ = pad_rows(X, None, np.ones(n, X.dtype), _n_padded(X, _min_bucket(estimator)))
    return jax.device_put(Xp), n


# --------------------------------------------------------------------------- sparse input
#: the layouts :func:`prepare_fit_sparse` / :func:`prepare_predict_sparse` return a sparse X in
SPARSE_LAYOUTS = ("bcoo", "rows", "csr", "dense")


def _pad_sparse_rows(X, n_padded: int):
    """A CSR ``X`` with empty rows appended up to ``n_padded`` rows (only ``indptr`` grows)."""
    import scipy.sparse as sp

    n, d = X.shape
    if n_padded <= n:
        return X
    indptr = np.concatenate([X.indptr, np.full(n_padded - n, X.indptr[-1], X.indptr.dtype)])
    return sp.csr_matrix((X.data, X.indices, indptr), shape=(n_padded, d))


def _sparse_layout(estimator, X, layout: str):
    """A validated, canonical CSR ``X`` in ``layout`` (:data:`SPARSE_LAYOUTS`): ``"bcoo"``
    (:func:`jaxclassic._sparse.to_bcoo`, the stored count padded to a bucket so that nearby
    counts share a program), ``"rows"`` (:func:`jaxclassic._sparse.to_rows`, the row capacity
    a power of two), ``"csr"`` (the scipy matrix itself) or ``"dense"``
    (:func:`jaxclassic._sparse.densify`, within its limit, as a device array)."""
    from jaxclassic import _sparse

    if layout == "csr":
        return X
    if layout == "bcoo":
        return _sparse.to_bcoo(X, nse=bucket_size(max(X.nnz, 1), 1))
    if layout == "rows":
        largest = int(np.diff(X.indptr).max()) if X.shape[0] else 0
        return _sparse.to_rows(X, row_capacity=1 << max(0, largest - 1).bit_length())
    if layout == "dense":
        return jax.device_put(_sparse.densify(X, model=type(estimator).__name__))
    raise ValueError(f"layout must be one of {list(SPARSE_LAYOUTS)}, got {layout!r}")


def prepare_fit_sparse(estimator, X, y, sample_weight=None, *, layout: str = "bcoo",
                       classifier: bool = False, pad: bool = True, y_numeric: bool = True):
    """:func:`prepare_fit` for an estimator with a sparse path: dense ``X`` goes to
    :func:`prepare_fit` unchanged; a ``scipy.sparse`` CSR / CSC ``X`` is accepted.

    Sparse ``X`` is validated by scikit-learn (``accept_sparse=("csr", "csc")``, finite) and
    :func:`jaxclassic._sparse.check_sparse` (canonical CSR in the compute dtype), padded with
    **empty rows of weight 0** to the bucket (only the row pointers grow, so there is no size
    limit on the padding) and returned in ``layout`` (:func:`_sparse_layout`): ``"bcoo"``,
    ``"rows"``, ``"csr"`` or ``"dense"``. Returns ``(X, y, sample_weight, n_samples)`` as
    :func:`prepare_fit`.
    """
    from jaxclassic import _sparse

    if not _sparse.is_sparse(X):
        return prepare_fit(estimator, X, y, sample_weight, classifier=classifier, pad=pad,
                           y_numeric=y_numeric)
    X, y = validate_data(
        estimator, X, y, accept_sparse=("csr", "csc"), dtype=[np.float64, np.float32],
        y_numeric=(y_numeric and not classifier), ensure_all_finite=True, reset=True,
    )
    dtype = start_fit(estimator, compute_dtype(X.dtype))
    X = _sparse.check_sparse(X, dtype=dtype)
    if classifier:
        y = encode_labels(estimator, y)
    else:
        y = np.asarray(y, dtype=dtype)
    n = X.shape[0]
    sw = fit_sample_weight(sample_weight, X, dtype)
    n_padded = bucket_size(n, _min_bucket(estimator)) if pad else n
    if n_padded > n:
        X = _pad_sparse_rows(X, n_padded)
        _, y, sw = pad_rows(np.empty((n, 0), dtype), y, sw, n_padded)
    yj, swj = to_core(y, sw, owned=n_padded > n)
    return _sparse_layout(estimator, X, layout), yj, swj, n


class SparseInputMixin:
    """Declares, in scikit-learn's tags (``input_tags.sparse``), that an estimator takes
    ``scipy.sparse`` input (:func:`prepare_fit_sparse`); put it first among the bases."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


def prepare_predict_sparse(estimator, X, *, layout: str = "bcoo", attributes=None):
    """:func:`prepare_predict` for an estimator with a sparse path: dense ``X`` goes to
    :func:`prepare_predict` unchanged; a CSR / CSC ``X`` is validated, padded with empty rows
    to its bucket and returned in ``layout`` (as :func:`prepare_fit_sparse`). Returns
    ``(X, n_samples)``; callers slice the first ``n_samples`` results."""
    from jaxclassic import _sparse

    if not _sparse.is_sparse(X):
        return prepare_predict(estimator, X, attributes=attributes)
    check_is_fitted(estimator, attributes)
    X = validate_data(estimator, X, accept_sparse=("csr", "csc"), dtype=[np.float64, np.float32],
                      ensure_all_finite=True, reset=False)
    dtype = fitted_dtype(estimator)
    enter_dtype(dtype)
    X = _sparse.check_sparse(X, dtype=dtype)
    n = X.shape[0]
    X = _pad_sparse_rows(X, bucket_size(n, _min_bucket(estimator)))
    return _sparse_layout(estimator, X, layout), n


# --------------------------------------------------------------------------- model files
def _estimator_class(name):
    """The class ``name`` of ``jaxclassic.estimators`` (None if there is no such class), with its
    family's module imported and that module's NamedTuple / dataclass types registered with
    :mod:`jaxclassic.io`. Only that family is imported (the package loads classes on first use)."""
    import sys

    import jaxclassic.estimators as est
    from jaxclassic import io

    if name not in est._CLASSES:
        return None
    cls = getattr(est, name)
    io.register_module_types(sys.modules[cls.__module__])
    return cls


def _encode_estimator(obj, encoder, where: str):
    """io's hook for the estimator layer: estimators (their parameters and fitted state, an
    estimator met twice saved once) and scikit-learn's ``Bunch``."""
    from sklearn.utils import Bunch

    from jaxclassic.estimators import _pipeline_io

    if isinstance(obj, Bunch):
        return {"t": "bunch", "v": [[k, encoder.encode(v, f"{where}.{k}")] for k, v in obj.items()]}
    if _pipeline_io.is_saveable_sklearn(obj):  # Pipeline, ColumnTransformer, array-state preprocessors
        return _pipeline_io.encode_sklearn(obj, encoder, where)
    if not isinstance(obj, _SklearnBaseEstimator):
        if callable(getattr(obj, "fit", None)):  # a step of another library
            raise _pipeline_io.refuse(obj, where)
        return None
    cls = type(obj)
    if _estimator_class(cls.__name__) is not cls:
        raise _pipeline_io.refuse(obj, where)
    memo = encoder.__dict__.setdefault("_memo", {})
    if id(obj) in memo:
        return {"t": "estref", "id": memo[id(obj)]}
    memo[id(obj)] = len(memo)
    params = obj.get_params(deep=False)
    state = {k: v for k, v in vars(obj).items() if k not in params}
    return {"t": "estimator", "id": memo[id(obj)], "class": cls.__name__,
            "params": {k: encoder.encode(v, f"{where}.{k}") for k, v in params.items()},
            "state": {k: encoder.encode(v, f"{where}.{k}") for k, v in state.items()}}


def _decode_estimator(node, decoder):
    from sklearn.utils import Bunch

    t = node["t"]
    memo = decoder.__dict__.setdefault("_memo", {})
    if t == "bunch":
        return Bunch(**{k: decoder.decode(v) for k, v in node["v"]})
    if t == "estref":
        if node.get("id") not in memo:
            raise ValueError(f"{decoder.path}: corrupt model file: reference to estimator {node.get('id')!r}")
        return memo[node["id"]]
    if t == "sklearn":
        from jaxclassic.estimators._pipeline_io import decode_sklearn

        return decode_sklearn(node, decoder)
    if t != "estimator":
        raise ValueError(f"{decoder.path}: corrupt model file: unknown node type {t!r}")
    cls = _estimator_class(node.get("class"))
    if cls is None:
        raise ValueError(f"{decoder.path}: unknown estimator class {node.get('class')!r}: not a class of "
                         "jaxclassic.estimators in this version")
    params = {k: decoder.decode(v) for k, v in node["params"].items()}
    try:
        obj = cls(**params)
    except TypeError as exc:
        raise ValueError(f"{decoder.path}: the saved parameters of {cls.__name__} do not match this "
                         f"version's ({exc})") from None
    memo[node["id"]] = obj
    for key, value in node["state"].items():
        obj.__dict__[key] = decoder.decode(value)
    return obj


def save_estimator(estimator, path, **metadata):
    """Save a jaxclassic estimator (fitted or not) to ``path``; ``metadata`` as
    :func:`jaxclassic.io.save`. What :meth:`SaveLoadMixin.save` does.

    The header's metadata also holds ``hyperparameters`` (the JSON-representable
    parameters), and ``feature_names`` / ``classes`` when the estimator has
    ``feature_names_in_`` / ``classes_``. Returns the path. ``TypeError`` naming the
    parameter or attribute that a model file cannot hold.
    """
    import json

    from jaxclassic import io

    if not isinstance(estimator, _SklearnBaseEstimator):
        raise TypeError(f"estimator must be a jaxclassic estimator, got {type(estimator).__name__}")
    encoder = io._Encoder(hook=_encode_estimator)
    tree = encoder.encode(estimator, type(estimator).__name__)
    auto = {"hyperparameters": {}}
    for key, value in estimator.get_params(deep=False).items():
        try:
            auto["hyperparameters"][key] = json.loads(json.dumps(value))
        except (TypeError, ValueError):
            continue
    if hasattr(estimator, "feature_names_in_"):
        auto["feature_names"] = [str(v) for v in estimator.feature_names_in_]
    if hasattr(estimator, "classes_"):
        auto["classes"] = np.asarray(estimator.classes_).tolist()
    meta = io._json_metadata({**auto, **metadata})
    return io._write(path, "estimator", type(estimator).__name__, tree, encoder.arrays, meta,
                     format_version=encoder.format_version)


def load_estimator(path):
    """The estimator saved at ``path`` by :meth:`SaveLoadMixin.save`, of whatever class.

    Executes no code from the file (see :mod:`jaxclassic.io`). Raises ``ValueError`` on a
    corrupt file, an unknown class or type, a newer format, or a file of params (load those
    with :func:`jaxclassic.io.load`); ``FileNotFoundError`` if there is no file.
    """
    from jaxclassic import io

    header, arrays = io._read(path)
    if header["content"] != "estimator":
        raise ValueError(f"{path} holds saved {header['content']} ({header['kind']}), not an estimator: "
                         "load it with jaxclassic.io.load")
    return io._Decoder(arrays, path, hook=_decode_estimator).decode(header["tree"])


class SaveLoadMixin:
    """``save(path)`` / ``load(path)`` for the estimators, through :mod:`jaxclassic.io`.

    The file (one ``.npz``, no pickle) holds the class name, the constructor parameters
    (``get_params(deep=False)``: numbers, strings, ``None``, tuples, lists, dicts and nested
    jaxclassic estimators) and every other attribute of the instance: the fitted state
    (``params_``, ``classes_``, ``coef_``... and the private ones prediction needs, such as
    the dtype of the fit), arrays bitwise. So the loaded estimator predicts exactly as the
    saved one. Parameters or attributes that a model file cannot hold (a callable kernel, a
    ``numpy.random.RandomState``, an estimator from another library) make :meth:`save` raise
    ``TypeError`` naming them.
    """

    def save(self, path, **metadata):
        """Save this estimator to ``path`` (:func:`save_estimator`); returns the path.

        Example
        -------
        >>> import os, tempfile, numpy as np
        >>> from jaxclassic.estimators import Ridge
        >>> X = np.array([[0.0], [1.0], [2.0]]); y = np.array([0.0, 1.0, 2.0])
        >>> path = os.path.join(tempfile.mkdtemp(), "ridge.jc")
        >>> _ = Ridge(alpha=1.0).fit(X, y).save(path)
        >>> Ridge.load(path).predict(X).tolist() == Ridge(alpha=1.0).fit(X, y).predict(X).tolist()
        True
        """
        return save_estimator(self, path, **metadata)

    @classmethod
    def load(cls, path):
        """The estimator saved at ``path`` (see :meth:`save`); ``ValueError`` if the file holds
        another class (or is not a valid model file)."""
        obj = load_estimator(path)
        if not isinstance(obj, cls):
            raise ValueError(f"{path} holds a saved {type(obj).__name__}, not a {cls.__name__}")
        return obj


class BaseEstimator(SaveLoadMixin, _SklearnBaseEstimator):  # noqa: F811 - scikit-learn's, with save/load
    """scikit-learn's ``BaseEstimator`` with :class:`SaveLoadMixin`'s ``save`` / ``load``:
    the base class of every estimator of this package."""
