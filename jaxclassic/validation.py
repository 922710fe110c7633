"""Input checks shared by every fit: one place that turns bad input into clear errors.

Every public ``fit_*`` function calls these helpers *before* anything is traced or
compiled, so a NaN, a wrong shape or an impossible hyperparameter surfaces as a
``ValueError`` / ``TypeError`` that names the argument, the value and what was expected.

When an argument is a JAX tracer (the fit is being called inside ``jax.jit`` or
``jax.vmap``, e.g. by :func:`jaxclassic.model_selection.cross_validate`), its *values*
cannot be inspected; shape and dtype checks still run, value checks are skipped.
The caller validated the concrete data once, outside the transformation.

A global ``jax.Array`` that is not fully addressable (``x.is_fully_addressable`` is False:
rows sharded over the devices of several processes, see :mod:`jaxclassic.distributed`) is
treated the same way, also in an eager (un-jitted) call: its values live partly on other
hosts and cannot be read on this one without a collective, so shape and dtype checks run
and value checks (NaN / inf, negative or all-zero weights, label ranges and counts) are
skipped. Validate the data on each host before sharding it (``shard_rows`` checks its
numpy blocks), and pass ``n_classes`` to classifiers: it cannot be inferred from labels
this process cannot see.
"""

from __future__ import annotations

import numbers
from typing import Any, Sequence

import jax
import jax.numpy as jnp
import numpy as np

from jaxclassic import _jit

__all__ = [
    "default_float_dtype",
    "is_traced",
    "check_array",
    "check_X_y",
    "check_sample_weight",
    "to_device",
    "key_from_seed",
    "as_operand",
    "on_host",
    "transposed",
    "check_consistent_length",
    "check_classification_targets",
    "check_classifier_data",
    "check_predict_X",
    "check_scalar",
    "check_int",
    "check_bool",
    "check_choice",
    "check_key",
]


def default_float_dtype():
    """float64 when ``jax_enable_x64`` is on, else float32 (the package default)."""
    return jnp.float64 if jax.config.read("jax_enable_x64") else jnp.float32


def is_traced(x: Any) -> bool:
    """True when the values of ``x`` cannot be read here: an abstract value inside a JAX
    transformation, or a global ``jax.Array`` spanning devices of other processes (not
    fully addressable; reading it would need a collective). Callers skip value checks."""
    if isinstance(x, jax.core.Tracer):
        return True
    return isinstance(x, jax.Array) and not x.is_fully_addressable


def _describe(x: Any) -> str:
    return f"{type(x).__name__}"


def _to_numpy(x: Any, name: str) -> np.ndarray:
    """Convert an array-like (numpy, pandas, list, jax) to numpy without copying jax data twice."""
    if x is None:
        raise ValueError(f"{name} must be an array, got None")
    if hasattr(x, "to_numpy") and not isinstance(x, np.ndarray):  # pandas DataFrame / Series
        x = x.to_numpy()
    try:
        arr = np.asarray(x)
    except Exception as exc:  # ragged lists and other non-array input
        raise ValueError(f"{name} could not be converted to an array: {exc}") from exc
    return arr


def _float_dtype_for(dtype: np.dtype, requested=None):
    if requested is not None:
        return jnp.dtype(requested)
    if np.issubdtype(dtype, np.floating) and dtype.itemsize >= 4:
        # keep the input's float precision (float32 or float64), if x64 allows float64
        if dtype == np.float64 and not jax.config.read("jax_enable_x64"):
            return jnp.dtype(jnp.float32)
        return jnp.dtype(dtype)
    return jnp.dtype(default_float_dtype())


def check_array(
    x: Any,
    name: str = "X",
    *,
    ndim: int | Sequence[int] = 2,
    dtype=None,
    allow_nan: bool = False,
    min_samples: int = 1,
    min_features: int = 1,
    numeric: str = "float",
    _numpy: bool = False,
) -> jax.Array:
    """Validate an array-like and return it as a jax array.

    Parameters
    ----------
    x : array-like (numpy, pandas, list, jax)
    name : str
        Argument name used in error messages.
    ndim : int or tuple of int
        Accepted numbers of dimensions.
    dtype : dtype, optional
        Target dtype. By default floating input keeps its precision (float32 / float64);
        integer and boolean input becomes the default float dtype.
    allow_nan : bool
        Accept NaN (models that handle missing values declare this). inf is never accepted.
    min_samples, min_features : int
        Minimum length of axis 0 and (for 2-d input) axis 1.
    numeric : {"float", "int", "any"}
        ``"float"`` converts to a float dtype; ``"int"`` requires integer-valued input and
        returns int32; ``"any"`` keeps numeric dtype as is.

    Raises
    ------
    TypeError
        Non-numeric (string, object, complex) input.
    ValueError
        Wrong ndim, too few samples or features, NaN or inf.
    """
    ndims = (ndim,) if isinstance(ndim, int) else tuple(ndim)
    if is_traced(x):
        if x.ndim not in ndims:
            raise ValueError(f"{name} must be {_ndim_text(ndims)}, got an array of shape {x.shape}")
        if not isinstance(x, jax.core.Tracer):  # a global array: its shape is concrete
            _check_shape(x.shape, name, ndims, min_samples, min_features)
            if jnp.issubdtype(x.dtype, jnp.complexfloating):
                raise TypeError(f"{name} must be real-valued, got complex dtype {x.dtype}")
        if numeric == "float" and not jnp.issubdtype(x.dtype, jnp.floating):
            x = x.astype(_float_dtype_for(np.dtype(x.dtype), dtype))
        elif dtype is not None:
            x = x.astype(dtype)
        return x
    if isinstance(x, jax.Array) and not _numpy and numeric == "float" and jnp.issubdtype(x.dtype, jnp.floating):
        # a concrete device array: check on the device, no round trip through host memory
        with jax.ensure_compile_time_eval():
            return _check_device_float(x, name, ndims, dtype, allow_nan, min_samples, min_features)
    arr = _to_numpy(x, name)
    if arr.dtype == object or arr.dtype.kind in "USaOV":
        # an object array of numbers (e.g. from pandas) is fine; strings are not
        try:
            if arr.dtype.kind in "USa":
                raise TypeError
            arr = arr.astype(np.float64)
        except (TypeError, ValueError):
            raise TypeError(
                f"{name} must be numeric, got dtype {arr.dtype}"
                + (" (strings: encode them first)" if arr.dtype.kind in "USaO" else "")
            ) from None
    if arr.dtype.kind == "c":
        raise TypeError(f"{name} must be real-valued, got complex dtype {arr.dtype}")
    _check_shape(arr.shape, name, ndims, min_samples, min_features)
    if arr.dtype.kind == "f" and not np.isfinite(arr).all():
        _raise_non_finite(name, int(np.isnan(arr).sum()), int(np.isinf(arr).sum()), allow_nan)
    if numeric == "int":
        if arr.dtype.kind == "f":
            if not np.all(arr == np.round(arr)):
                raise ValueError(f"{name} must hold integer values, got non-integer floats")
        if arr.size and arr.dtype.kind in "fiu" and np.abs(arr).max() > np.iinfo(np.int32).max:
            # a cast would wrap (1e30 -> -2147483648) and a later check would report the wrapped value
            raise ValueError(
                f"{name} must hold integer values within int32's range, got {arr.flat[np.abs(arr).argmax()].item()!r}"
            )
        out = arr.astype(np.int32)
    elif numeric == "any":
        out = arr if dtype is None else arr.astype(dtype)
    else:
        out = arr.astype(_float_dtype_for(arr.dtype, dtype), copy=False)
    # numpy out for the checks below (inside a jit trace jnp.asarray would give a tracer)
    return out if _numpy else to_device(out)


def to_device(a) -> jax.Array:
    """A device array holding a private copy of the NumPy array ``a``, built without a
    compiled program.

    ``jax.device_put`` alone can alias an aligned host buffer on the CPU (measured with jax
    0.10.2 on a 64-byte-aligned float32 X): a fit that keeps its input (k-NN, KDE) would then
    change when the caller edits their array in place. ``jnp.asarray`` copies, but through a
    compiled program (``jit(stage)``, one per new shape and dtype: 5-45 ms of tracing and
    compiling on a process's first call). A NumPy copy put on the device costs neither.
    Dtypes are canonicalised as by ``jnp.asarray`` (float64 to float32 without x64)."""
    return jax.device_put(np.array(a, copy=True))


@_jit.jit
def _sum_is_finite(x):
    return jnp.isfinite(jnp.sum(x))


def host_view(x) -> np.ndarray | None:
    """A numpy view of a concrete jax array held in the host's memory (one CPU device), else None.

    Reading it copies nothing, and numpy's checks of a small array run in microseconds where
    a reduction on the device costs a dispatch and a wait for its result (~50-90 us on the CPU:
    measured on 512 x 30 float64, issue 25).
    """
    host = on_host(x)
    return host if host is not None and host.dtype in _HOST_DTYPES else None


_HOST_DTYPES = tuple(np.dtype(t) for t in (np.float32, np.float64, np.int32, np.int64, np.bool_))


def _check_device_float(x, name, ndims, dtype, allow_nan, min_samples, min_features):
    """The checks of :func:`check_array` for a concrete floating jax array, done on its device
    (on the host when that is where it lives: :func:`host_view`)."""
    _check_shape(x.shape, name, ndims, min_samples, min_features)
    host = host_view(x)
    if host is not None:
        if host.size and not np.isfinite(host).all():
            _raise_non_finite(name, int(np.isnan(host).sum()), int(np.isinf(host).sum()), allow_nan)
    # NaN and inf always reach the sum; only when the sum is not finite (or overflowed) do
    # the exact per-element counts run. One reduction is ~4x cheaper than isfinite(x).all().
    elif x.size and not bool(_sum_is_finite(x)) and not bool(jnp.isfinite(x).all()):
        _raise_non_finite(name, int(jnp.isnan(x).sum()), int(jnp.isinf(x).sum()), allow_nan)
    target = _float_dtype_for(np.dtype(x.dtype), dtype)
    return x if x.dtype == target else x.astype(target)


def _check_shape(shape, name, ndims, min_samples, min_features):
    """ndim, number of samples and of features: the shape checks of :func:`check_array`."""
    if len(shape) not in ndims:
        raise ValueError(f"{name} must be {_ndim_text(ndims)}, got an array of shape {shape}")
    if len(shape) >= 1 and shape[0] < min_samples:
        raise ValueError(
            f"{name} must have at least {min_samples} sample(s), got shape {shape}"
            + (" (empty array)" if shape[0] == 0 else "")
        )
    if len(shape) == 2 and shape[1] < min_features:
        raise ValueError(f"{name} must have at least {min_features} feature(s), got shape {shape}")


def _raise_non_finite(name, n_nan, n_inf, allow_nan):
    """Raise for inf always, and for NaN unless the model declares it handles missing values."""
    if n_inf or (n_nan and not allow_nan):
        what = [f"{n_nan} NaN"] * bool(n_nan) + [f"{n_inf} inf"] * bool(n_inf)
        raise ValueError(f"{name} contains {' and '.join(what)} value(s); it must be finite")


def _ndim_text(ndims: tuple[int, ...]) -> str:
    words = {0: "a scalar", 1: "1-d", 2: "2-d", 3: "3-d"}
    return " or ".join(words.get(d, f"{d}-d") for d in ndims)


def check_consistent_length(**arrays: Any) -> int:
    """Check that every named array has the same number of rows; return it.

    ``check_consistent_length(X=X, y=y)`` raises
    ``ValueError("X and y have inconsistent numbers of samples: 10 != 9")``.
    """
    lengths = {k: (np.shape(v)[0] if np.ndim(v) else 1) for k, v in arrays.items() if v is not None}
    if len(set(lengths.values())) > 1:
        names = " and ".join(lengths)
        values = " != ".join(str(n) for n in lengths.values())
        raise ValueError(f"{names} have inconsistent numbers of samples: {values}")
    return next(iter(lengths.values())) if lengths else 0


def check_X_y(
    X: Any,
    y: Any,
    *,
    y_ndim: int | Sequence[int] = 1,
    y_numeric: str = "float",
    dtype=None,
    allow_nan: bool = False,
    min_samples: int = 1,
) -> tuple[jax.Array, jax.Array]:
    """Validate a design matrix ``X`` (n, d) and a target ``y`` (n,) together.

    ``y`` gets X's float dtype when ``y_numeric == "float"``; ``"int"`` returns int32 labels.
    """
    X = check_array(X, "X", dtype=dtype, allow_nan=allow_nan, min_samples=min_samples)
    y_dtype = X.dtype if y_numeric == "float" else None
    y = check_array(y, "y", ndim=y_ndim, dtype=y_dtype, numeric=y_numeric, min_samples=min_samples)
    check_consistent_length(X=X, y=y)
    return X, y


def check_sample_weight(sample_weight: Any, n_samples: int, dtype=None) -> jax.Array:
    """Validate ``sample_weight`` of length ``n_samples``; ``None`` gives ones.

    Weights must be finite, non-negative and not all zero. A row of weight 0 has no
    influence on any fit in the package.
    """
    dtype = dtype or default_float_dtype()
    if sample_weight is None:
        return jax.device_put(np.ones((n_samples,), dtype=dtype))  # no program to compile
    if is_traced(sample_weight):
        if sample_weight.shape != (n_samples,):
            raise ValueError(
                f"sample_weight must have shape ({n_samples},), got {sample_weight.shape}"
            )
        return sample_weight.astype(dtype)
    sw_np = check_array(sample_weight, "sample_weight", ndim=(0, 1), dtype=dtype, min_samples=0, _numpy=True)
    if sw_np.ndim == 0:
        sw_np = np.full((n_samples,), sw_np, dtype=sw_np.dtype)
    if sw_np.shape != (n_samples,):
        raise ValueError(f"sample_weight must have shape ({n_samples},), got {sw_np.shape}")
    if (sw_np < 0).any():
        raise ValueError(f"sample_weight must be non-negative, got {int((sw_np < 0).sum())} negative value(s)")
    if not (sw_np > 0).any():
        raise ValueError("sample_weight must have at least one positive value, got all zeros")
    if _unchanged(sample_weight, sw_np):
        return sample_weight  # already on the device as it is: no second transfer
    return to_device(sw_np)


def _unchanged(x: Any, checked: np.ndarray) -> bool:
    """Whether the concrete jax array ``x`` holds ``checked`` as it is (same shape and dtype; its
    values are ``checked``'s, which numpy read from it), so a check may return ``x`` itself."""
    return (isinstance(x, jax.Array) and not is_traced(x) and x.shape == checked.shape
            and np.dtype(x.dtype) == checked.dtype)


def check_classification_targets(
    y: Any,
    name: str = "y",
    *,
    min_classes: int = 2,
    n_classes: int | None = None,
    sample_weight: Any = None,
) -> tuple[jax.Array, int]:
    """Validate integer class labels coded 0..C-1 and return ``(y_int32, n_classes)``.

    The functional core works on labels already coded 0..C-1 (the estimator layer encodes
    arbitrary labels, strings included, with ``classes_``). ``n_classes`` is inferred as
    ``max(y) + 1`` unless given (it is static: it fixes parameter shapes). At least
    ``min_classes`` distinct labels must carry positive weight.
    """
    if is_traced(y):
        if n_classes is None:
            raise ValueError(f"n_classes must be given when {name} is traced (inside jit/vmap) "
                             "or a global array spanning other processes")
        if y.ndim != 1:
            raise ValueError(f"{name} must be 1-d, got an array of shape {y.shape}")
        return y.astype(jnp.int32), int(n_classes)
    arr = _to_numpy(y, name)
    if arr.dtype.kind in "USaO":
        raise TypeError(
            f"{name} must hold integer class codes 0..C-1, got dtype {arr.dtype}; "
            "encode string labels first (the estimators do this with classes_)"
        )
    yn = check_array(arr, name, ndim=1, numeric="int", _numpy=True)
    if (yn < 0).any():
        raise ValueError(f"{name} must hold class codes >= 0, got {int(yn.min())}")
    if n_classes is None:
        n_classes = int(yn.max()) + 1
    elif (yn >= n_classes).any():
        raise ValueError(f"{name} holds class code {int(yn.max())} but n_classes={n_classes}")
    present = yn
    if sample_weight is not None and not is_traced(sample_weight):
        sw = np.asarray(sample_weight)
        if sw.shape == yn.shape:
            present = yn[sw > 0]
    n_present = len(np.unique(present))
    if n_present < min_classes:
        raise ValueError(
            f"{name} must contain at least {min_classes} classes, got {n_present} "
            f"(labels present: {np.unique(present).tolist()})"
        )
    return (y if _unchanged(y, yn) else to_device(yn)), int(n_classes)


def check_classifier_data(
    X: Any,
    y: Any,
    sample_weight: Any = None,
    *,
    n_classes: int | None = None,
    min_classes: int = 2,
    allow_nan: bool = False,
    numeric: str = "float",
) -> tuple[jax.Array, jax.Array, jax.Array, int]:
    """Validate a classifier's ``X`` (n, d), class codes ``y`` and ``sample_weight`` together.

    Returns ``(X, y_int32, sample_weight, n_classes)``: the checks of :func:`check_array`,
    :func:`check_sample_weight` and :func:`check_classification_targets` (classes counted on
    rows of positive weight), plus matching lengths and ``n_classes >= min_classes``.
    ``allow_nan`` and ``numeric`` are passed to :func:`check_array` for ``X``; with integer
    ``X`` (``numeric="int"``, category codes) the weights take their own float dtype when
    they have one (float64 only under x64), else the default float dtype.
    """
    if n_classes is not None:
        n_classes = check_int(n_classes, "n_classes", low=min_classes)
    X = check_array(X, "X", allow_nan=allow_nan, numeric=numeric)
    if jnp.issubdtype(X.dtype, jnp.floating):
        sw_dtype = X.dtype
    elif hasattr(sample_weight, "dtype") and np.dtype(sample_weight.dtype) in (np.float32, np.float64):
        sw_dtype = sample_weight.dtype if jax.config.read("jax_enable_x64") else jnp.float32
    else:
        sw_dtype = None
    sw = check_sample_weight(sample_weight, X.shape[0], dtype=sw_dtype)
    y, n_classes = check_classification_targets(
        y, "y", min_classes=min_classes, n_classes=n_classes, sample_weight=sw
    )
    check_consistent_length(X=X, y=y)
    return X, y, sw, n_classes


def check_predict_X(X: Any, params_dtype, n_features: int | None = None, *, name: str = "X",
                    numeric: str = "float", allow_nan: bool = False) -> jax.Array:
    """Validate prediction input against fitted params: 2-d, finite, ``n_features`` columns,
    and a float dtype that can hold the params.

    Integer or boolean ``X`` becomes ``params_dtype`` (never the reverse: casting float
    params to an integer ``X``'s dtype would truncate them); float ``X`` is promoted with
    ``params_dtype`` (float32 ``X`` with float64 params predicts in float64). Works on
    tracers too (shape and dtype only). ``numeric="int"`` keeps integer codes (categorical
    naive Bayes) and ignores ``params_dtype``.

    Raises
    ------
    ValueError
        Wrong ndim, NaN / inf, or a number of columns other than ``n_features``.
    TypeError
        Non-numeric ``X``.
    """
    if numeric == "int":
        X = check_array(X, name, numeric="int", allow_nan=allow_nan)
    else:
        params_dtype = jnp.dtype(params_dtype)
        if not jnp.issubdtype(params_dtype, jnp.floating):
            params_dtype = jnp.dtype(default_float_dtype())
        if not (is_traced(X) or isinstance(X, jax.Array)):
            X = _to_numpy(X, name)
        # float input keeps check_array's float path (on-device checks for jax arrays)
        float_input = X.dtype.kind == "f"
        X = check_array(X, name, numeric="float" if float_input else "any", allow_nan=allow_nan)
        if jnp.issubdtype(X.dtype, jnp.floating):
            target = jnp.promote_types(X.dtype, params_dtype)
        else:
            target = params_dtype
        if X.dtype != target:
            X = X.astype(target)
    if n_features is not None and X.shape[1] != n_features:
        raise ValueError(
            f"{name} has {X.shape[1]} features, but the model was fitted with {n_features} features"
        )
    return X


def check_scalar(
    value: Any,
    name: str,
    *,
    low: float | None = None,
    high: float | None = None,
    include_low: bool = True,
    include_high: bool = True,
    allow_array: bool = False,
) -> Any:
    """Check a continuous hyperparameter (traced in the fits: ``alpha``, ``l2``, ``C``...).

    Accepts Python numbers and numpy / jax scalars (and arrays when ``allow_array``).
    Value checks are skipped for tracers. Returns the value unchanged.
    """
    if is_traced(value):
        return value
    if isinstance(value, bool) or not (
        isinstance(value, numbers.Real) or (hasattr(value, "dtype") and np.ndim(value) == 0)
        or (allow_array and hasattr(value, "dtype"))
    ):
        raise TypeError(f"{name} must be a real number, got {_describe(value)} {value!r}")
    v = np.asarray(value, dtype=np.float64)
    if not np.all(np.isfinite(v)):
        raise ValueError(f"{name} must be finite, got {value!r}")
    if low is not None:
        bad = v < low if include_low else v <= low
        if np.any(bad):
            op = ">=" if include_low else ">"
            raise ValueError(f"{name} must be {op} {low}, got {value!r}")
    if high is not None:
        bad = v > high if include_high else v >= high
        if np.any(bad):
            op = "<=" if include_high else "<"
            raise ValueError(f"{name} must be {op} {high}, got {value!r}")
    return value


def check_int(value: Any, name: str, *, low: int | None = None, high: int | None = None) -> int:
    """Check a static integer hyperparameter (``max_iter``, ``degree``, ``k``...)."""
    if isinstance(value, bool) or not isinstance(value, (numbers.Integral, np.integer)):
        raise TypeError(f"{name} must be an int, got {_describe(value)} {value!r}")
    value = int(value)
    if low is not None and value < low:
        raise ValueError(f"{name} must be >= {low}, got {value}")
    if high is not None and value > high:
        raise ValueError(f"{name} must be <= {high}, got {value}")
    return value


def check_bool(value: Any, name: str) -> bool:
    """Check a boolean flag (``fit_intercept``, ``shuffle``, ``bootstrap``...); return a ``bool``.

    A Python ``bool`` or a numpy ``bool_`` (scikit-learn's ``"boolean"`` constraint); anything
    else, ``"yes"``, ``1``, ``None`` included, is a ``TypeError`` naming the flag (``bool()``
    would read ``"no"`` as True). A 0-d boolean array counts as a bool; flags fix the
    program's structure (static arguments), so a traced one raises JAX's
    ``TracerBoolConversionError``.
    """
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (np.ndarray, jax.Array)) and value.shape == () and value.dtype == np.bool_:
        # a 0-d boolean array (a grid column's entry) is a bool; a traced one raises JAX's
        # TracerBoolConversionError here, which cross_validate / grid_search turn into the
        # advice to put the flag in static_grid
        return bool(value)
    raise TypeError(f"{name} must be a bool, got {_describe(value)} {value!r}")


def check_choice(value: Any, name: str, choices: Sequence[str]) -> str:
    """Check a string option against its allowed values."""
    if value not in choices:
        raise ValueError(f"{name} must be one of {list(choices)}, got {value!r}")
    return value


def as_operand(value, dtype=None):
    """``jnp.asarray(value, dtype)`` for an argument of a jitted function, as a NumPy array
    when ``value`` is concrete.

    ``jnp.asarray`` of a Python or NumPy scalar, or ``astype`` of a JAX array, runs a compiled
    ``convert_element_type`` (built on a process's first call: ~0.1 s when it is the process's
    first program); ``jit`` takes a NumPy array as it is, with the same signature (shape,
    dtype, not weakly typed), so the jitted function's program is the same. A concrete JAX
    array of another dtype held on the CPU is converted on the host (IEEE conversions: the
    same values as XLA's); one of the right dtype, or held elsewhere, is returned as it is or
    through ``jnp.asarray``. Traced values keep ``jnp.asarray`` (derivatives flow through it).

    Parameters
    ----------
    value : scalar or array-like
    dtype : dtype, optional
        None: the value's own (as ``jnp.asarray``).

    Returns
    -------
    numpy.ndarray or jax.Array
    """
    if is_traced(value):
        return jnp.asarray(value, dtype)
    if isinstance(value, jax.Array):
        if dtype is None or value.dtype == dtype:
            return value
        host = on_host(value)
        return jnp.asarray(value, dtype) if host is None else host.astype(dtype)
    return np.asarray(value, dtype)


def on_host(x) -> np.ndarray | None:
    """The NumPy view of a concrete JAX array of a NumPy dtype held by one CPU device, else
    None (traced values, PRNG keys, arrays on an accelerator or sharded over devices)."""
    if not isinstance(x, jax.Array) or is_traced(x) or jax.dtypes.issubdtype(x.dtype, jax.dtypes.extended):
        return None
    devices = x.sharding.device_set
    if len(devices) != 1 or next(iter(devices)).platform != "cpu":
        return None
    return np.asarray(x)


def transposed(x):
    """``x.T``, on the host for a concrete array held by the CPU (an eager transpose is a
    compiled program per shape), as ``x.T`` otherwise."""
    host = on_host(x)
    return x.T if host is None else jax.device_put(np.ascontiguousarray(host.T))


def key_from_seed(seed: int) -> jax.Array:
    """``jax.random.key(seed)``, built on the host: the same key, without a compiled program.

    ``jax.random.key`` runs its seeding (``threefry_seed``) as a compiled program, built on a
    process's first call (5-10 ms of tracing and compiling). For the default Threefry-2x32
    implementation the key's data is the seed's high and low 32-bit words,
    ``[seed >> 32, seed & 0xFFFFFFFF]`` (Salmon et al. 2011; JAX's ``threefry_seed``), which
    is wrapped as a typed key here; another ``jax_default_prng_impl`` goes through
    ``jax.random.key``.

    Parameters
    ----------
    seed : int
        An integer (the host path: 0 <= seed < 2**31, where every JAX setting agrees; other
        seeds go through ``jax.random.key``).

    Returns
    -------
    jax.Array
        A typed key (``key<fry>``), equal to ``jax.random.key(seed)``.

    Examples
    --------
    >>> import jax, numpy as np
    >>> from jaxclassic.validation import key_from_seed
    >>> np.asarray(jax.random.key_data(key_from_seed(7))).tolist()
    [0, 7]
    """
    seed = int(seed)
    if jax.config.jax_default_prng_impl != "threefry2x32" or not 0 <= seed < 1 << 31:
        return jax.random.key(seed)
    words = np.array([seed >> 32, seed & 0xFFFFFFFF], np.uint32)
    return jax.random.wrap_key_data(jax.device_put(words), impl="threefry2x32")


def check_key(key: Any, name: str = "key") -> jax.Array:
    """Check a ``jax.random`` key (raw uint32[2] or typed key); ints are not accepted."""
    if key is None:
        raise ValueError(f"{name} must be a jax.random key (e.g. jax.random.key(0)), got None")
    if isinstance(key, (int, np.integer)):
        raise TypeError(f"{name} must be a jax.random key, got int {key}; use jax.random.key({key})")
    return key
