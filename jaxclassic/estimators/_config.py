"""The estimator layer's one switch: the dtype the estimators compute in.

By default (``dtype="auto"``) an estimator computes in the float dtype of its input, as
scikit-learn does: float64 ``X`` (or any non-float ``X``, which scikit-learn's validation turns
into float64) is fitted and predicted in float64 whatever the global ``jax_enable_x64`` flag
says, float32 ``X`` in float32. ``dtype="float32"`` forces float32 for speed and memory.
"""

from __future__ import annotations

import contextlib

__all__ = ["get_config", "set_config", "config_context"]

_DTYPES = ("auto", "float32")
_CONFIG = {"dtype": "auto"}


def _check_dtype(dtype) -> str:
    if dtype not in _DTYPES:
        raise ValueError(f"dtype must be one of {_DTYPES}, got {dtype!r}")
    return dtype


def get_config() -> dict:
    """The current configuration of :mod:`jaxclassic.estimators` (a copy).

    >>> from jaxclassic.estimators import get_config
    >>> get_config()
    {'dtype': 'auto'}
    """
    return dict(_CONFIG)


def set_config(*, dtype: str | None = None) -> None:
    """Set the estimators' configuration for this process.

    Parameters
    ----------
    dtype : {"auto", "float32"}, optional
        ``"auto"`` (default): compute in the input's float dtype (float64 input -> float64
        fits, predictions and fitted attributes, with no need to switch on ``jax_enable_x64``;
        float32 input -> float32). ``"float32"``: always compute in float32 (faster, half the
        memory; scikit-learn's tightest checks may then fail by rounding). ``None``: unchanged.
    """
    if dtype is not None:
        _CONFIG["dtype"] = _check_dtype(dtype)


@contextlib.contextmanager
def config_context(*, dtype: str | None = None):
    """:func:`set_config` for the duration of a ``with`` block; the old value is restored.

    >>> import numpy as np
    >>> from jaxclassic.estimators import Ridge, config_context
    >>> X = np.arange(8.0).reshape(4, 2); y = X.sum(axis=1)
    >>> with config_context(dtype="float32"):
    ...     Ridge().fit(X, y).coef_.dtype
    dtype('float32')
    >>> Ridge().fit(X, y).coef_.dtype
    dtype('float64')
    """
    old = get_config()
    set_config(dtype=dtype)
    try:
        yield
    finally:
        _CONFIG.update(old)
