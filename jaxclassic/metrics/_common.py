"""Validation helpers and weighted counting kernels shared by the metrics modules."""

from __future__ import annotations

import functools
import math
import numbers
from typing import Any

import jax
import jax.numpy as jnp

from jaxclassic import _precision
import numpy as np

from jaxclassic.validation import (
    check_array,
    check_consistent_length,
    check_int,
    check_sample_weight,
    default_float_dtype,
    is_traced,
)

_AVERAGES = ("binary", "micro", "macro", "weighted", None)
_MULTIOUTPUT = ("uniform_average", "raw_values")


def _eager(check):
    """Run a validation helper under ``jax.ensure_compile_time_eval``.

    Inside a ``jit`` trace, ``jnp.asarray`` of a concrete numpy array is otherwise a tracer, so
    the values of concrete input (labels, weights) could not be checked when a public metric is
    called inside a jitted function. Under this context concrete input stays concrete and only
    genuinely traced input is traced.
    """

    @functools.wraps(check)
    def wrapper(*args, **kwargs):
        with jax.ensure_compile_time_eval():
            return check(*args, **kwargs)

    return wrapper


def _float_dtype(*candidates: Any):
    """The first floating dtype among ``candidates`` (float32 / float64), else the default."""
    for c in candidates:
        dt = getattr(c, "dtype", None)
        if dt is None:
            continue
        try:
            dt = np.dtype(dt)
        except TypeError:
            continue
        if dt.kind == "f" and dt.itemsize >= 4:
            if dt == np.float64 and not jax.config.read("jax_enable_x64"):
                return jnp.dtype(jnp.float32)
            return jnp.dtype(dt)
    return jnp.dtype(default_float_dtype())


@_eager
def _check_labels(y: Any, name: str, n_classes: int | None, binary: bool) -> jax.Array:
    y = check_array(y, name, ndim=1, numeric="int")
    if is_traced(y):
        return y.astype(jnp.int32)
    values = np.asarray(y)
    if (values < 0).any():
        raise ValueError(f"{name} must hold class codes >= 0, got {int(values.min())}")
    if binary and (values > 1).any():
        raise ValueError(
            f"{name} must hold binary labels in {{0, 1}}, got {np.unique(values).tolist()}"
        )
    if n_classes is not None and (values >= n_classes).any():
        raise ValueError(f"{name} holds class code {int(values.max())} but n_classes={n_classes}")
    return y


@_eager
def _check_label_pair(y_true, y_pred, sample_weight, *, n_classes=None, binary=False):
    """Validate two label vectors and weights; return ``(y_true, y_pred, w, n_classes)``."""
    if n_classes is not None:
        n_classes = check_int(n_classes, "n_classes", low=1)
    y_true = _check_labels(y_true, "y_true", n_classes, binary)
    y_pred = _check_labels(y_pred, "y_pred", n_classes, binary)
    n_samples = check_consistent_length(y_true=y_true, y_pred=y_pred)
    if binary:
        n_classes = 2
    elif n_classes is None:
        if is_traced(y_true) or is_traced(y_pred):
            raise ValueError("n_classes must be given when y_true or y_pred is traced (inside jit/vmap)")
        n_classes = int(max(np.max(np.asarray(y_true)), np.max(np.asarray(y_pred)))) + 1
    w = _check_weight(sample_weight, n_samples, _float_dtype(sample_weight))
    return y_true, y_pred, w, n_classes


@_eager
def _check_weight(sample_weight, n_samples, dtype):
    return check_sample_weight(sample_weight, n_samples, dtype=dtype)


def _check_zero_division(zero_division):
    if isinstance(zero_division, bool) or not isinstance(zero_division, numbers.Real):
        raise TypeError(f"zero_division must be a real number or nan, got {zero_division!r}")
    if not (math.isnan(zero_division) or 0.0 <= zero_division <= 1.0):
        raise ValueError(f"zero_division must be in [0, 1] or nan, got {zero_division!r}")
    return float(zero_division)


def _check_pos_label(pos_label):
    if isinstance(pos_label, bool) or pos_label not in (0, 1):
        raise ValueError(f"pos_label must be 0 or 1, got {pos_label!r}")
    return int(pos_label)


@_eager
def _check_regression(y_true, y_pred, sample_weight):
    y_true = check_array(y_true, "y_true", ndim=(1, 2))
    y_pred = check_array(y_pred, "y_pred", ndim=(1, 2))
    n_samples = check_consistent_length(y_true=y_true, y_pred=y_pred)
    if y_true.shape != y_pred.shape:
        raise ValueError(
            f"y_true and y_pred must have the same shape, got {y_true.shape} and {y_pred.shape}"
        )
    dtype = jnp.promote_types(y_true.dtype, y_pred.dtype)
    w = _check_weight(sample_weight, n_samples, dtype)
    return y_true.astype(dtype), y_pred.astype(dtype), w


# =========================================================================== shared kernels
def _divide(num, den, zero_division):
    """``num / den`` where ``den > 0``, else ``zero_division``."""
    safe = jnp.where(den > 0, den, jnp.ones_like(den))
    return jnp.where(den > 0, num / safe, jnp.asarray(zero_division, dtype=num.dtype))


def _class_sums(y_true, y_pred, w, n_classes):
    """Per-class weighted true positives, true supports and predicted supports."""
    tp = jax.ops.segment_sum(jnp.where(y_true == y_pred, w, 0), y_true, n_classes)
    true_sum = jax.ops.segment_sum(w, y_true, n_classes)
    pred_sum = jax.ops.segment_sum(w, y_pred, n_classes)
    return tp, true_sum, pred_sum


def _binary_counts(y_true, y_pred, w, pos_label):
    pos_true = y_true == pos_label
    pos_pred = y_pred == pos_label
    zero = jnp.zeros_like(w)
    tp = jnp.sum(jnp.where(pos_true & pos_pred, w, zero))
    fn = jnp.sum(jnp.where(pos_true & ~pos_pred, w, zero))
    fp = jnp.sum(jnp.where(~pos_true & pos_pred, w, zero))
    tn = jnp.sum(jnp.where(~pos_true & ~pos_pred, w, zero))
    return tp, fn, fp, tn


def _wsum(w, values):
    """:math:`\\sum_i w_i v_i` over axis 0 (``values`` of shape (n,) or (n, k))."""
    return _precision.einsum("n,n...->...", w, values)
