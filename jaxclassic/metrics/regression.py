r"""Regression metrics: mean squared and absolute error, R², adjusted R².

See :mod:`jaxclassic.metrics` for the conventions.
"""

from __future__ import annotations

import numbers
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

from jaxclassic import _jit
from jaxclassic.metrics._common import _MULTIOUTPUT, _check_regression, _eager, _wsum
from jaxclassic.validation import check_choice, is_traced

__all__ = ["mean_squared_error", "mean_absolute_error", "r2_score", "adjusted_r2"]

def _check_multioutput(multioutput):
    return check_choice(multioutput, "multioutput", _MULTIOUTPUT)


def _finish(per_output, multioutput):
    if per_output.ndim == 0 or multioutput == "raw_values":
        return per_output
    return jnp.mean(per_output)


@partial(_jit.jit, static_argnames="multioutput")
def _mean_squared_error(y_true, y_pred, w, multioutput):
    return _finish(_wsum(w, jnp.square(y_true - y_pred)) / jnp.sum(w), multioutput)


@partial(_jit.jit, static_argnames="multioutput")
def _mean_absolute_error(y_true, y_pred, w, multioutput):
    return _finish(_wsum(w, jnp.abs(y_true - y_pred)) / jnp.sum(w), multioutput)


def _r2_per_output(y_true, y_pred, w):
    mean = _wsum(w, y_true) / jnp.sum(w)
    residual = _wsum(w, jnp.square(y_true - y_pred))
    total = _wsum(w, jnp.square(y_true - mean))
    # scikit-learn's force_finite rule: a constant y_true scores 1 if predicted exactly, else 0
    fallback = jnp.where(residual > 0, jnp.zeros_like(residual), jnp.ones_like(residual))
    return jnp.where(total > 0, 1 - residual / jnp.where(total > 0, total, 1), fallback)


@partial(_jit.jit, static_argnames="multioutput")
def _r2_score(y_true, y_pred, w, multioutput):
    return _finish(_r2_per_output(y_true, y_pred, w), multioutput)


_REGRESSION_PARAMS = """
    Parameters
    ----------
    y_true, y_pred : array-like of float, shape (n_samples,) or (n_samples, n_outputs)
    sample_weight : array-like of shape (n_samples,), optional
    multioutput : {'uniform_average', 'raw_values'}
        For 2-d targets: the mean over outputs, or one value per output.

    Returns
    -------
    jax.Array: 0-d float (or (n_outputs,) for ``'raw_values'``) of the inputs' float dtype.
"""


def mean_squared_error(y_true, y_pred, *, sample_weight=None, multioutput="uniform_average"):
    r"""Weighted mean squared error :math:`\sum_i w_i (y_i - \hat y_i)^2 / \sum_i w_i`.
    {params}
    Example
    -------
    >>> float(mean_squared_error([1.0, 2.0], [1.5, 2.0]))
    0.125
    """
    multioutput = _check_multioutput(multioutput)
    y_true, y_pred, w = _check_regression(y_true, y_pred, sample_weight)
    return _mean_squared_error(y_true, y_pred, w, multioutput)


def mean_absolute_error(y_true, y_pred, *, sample_weight=None, multioutput="uniform_average"):
    r"""Weighted mean absolute error :math:`\sum_i w_i |y_i - \hat y_i| / \sum_i w_i`.
    {params}
    Example
    -------
    >>> float(mean_absolute_error([1.0, 2.0], [1.5, 2.0]))
    0.25
    """
    multioutput = _check_multioutput(multioutput)
    y_true, y_pred, w = _check_regression(y_true, y_pred, sample_weight)
    return _mean_absolute_error(y_true, y_pred, w, multioutput)


def r2_score(y_true, y_pred, *, sample_weight=None, multioutput="uniform_average"):
    r"""Coefficient of determination :math:`R^2 = 1 - SS_{res} / SS_{tot}`.

    .. math::
        R^2 = 1 - \frac{\sum_i w_i (y_i - \hat y_i)^2}{\sum_i w_i (y_i - \bar y_w)^2},
        \qquad \bar y_w = \frac{\sum_i w_i y_i}{\sum_i w_i}.

    A constant ``y_true`` (:math:`SS_{tot} = 0`) scores 1.0 when predicted exactly and 0.0
    otherwise (scikit-learn's ``force_finite=True``). Per output, then averaged.
    {params}
    Example
    -------
    >>> float(r2_score([1.0, 2.0, 3.0], [1.0, 2.0, 4.0]))
    0.5

    References
    ----------
    Hastie, Tibshirani, Friedman, *The Elements of Statistical Learning*, 2nd ed., §3.2.
    """
    multioutput = _check_multioutput(multioutput)
    y_true, y_pred, w = _check_regression(y_true, y_pred, sample_weight)
    return _r2_score(y_true, y_pred, w, multioutput)


for _fn in (mean_squared_error, mean_absolute_error, r2_score):
    if _fn.__doc__:  # None under python -OO
        _fn.__doc__ = _fn.__doc__.replace("{params}", _REGRESSION_PARAMS)
del _fn


@_jit.jit
def _adjusted_r2(y_true, y_pred, w, n_features):
    r2 = jnp.mean(_r2_per_output(y_true, y_pred, w))
    n = jnp.sum(w > 0).astype(r2.dtype)
    return 1 - (1 - r2) * (n - 1) / (n - n_features - 1)


def adjusted_r2(y_true, y_pred, n_features, *, sample_weight=None) -> jax.Array:
    r"""Adjusted :math:`R^2` of a fit with ``n_features`` predictors (plus an intercept).

    .. math:: \bar R^2 = 1 - (1 - R^2) \frac{n - 1}{n - p - 1}

    with :math:`R^2` from :func:`r2_score` (weighted), :math:`p` = ``n_features`` and
    :math:`n` the number of rows with **positive** weight (so zero-weight rows, e.g. the
    other folds of a cross-validation, do not count; with integer frequency weights use the
    expanded data instead). This is statsmodels' ``rsquared_adj`` for a model with an
    intercept.

    Parameters
    ----------
    y_true, y_pred : array-like of float, shape (n_samples,) or (n_samples, n_outputs)
    n_features : int or int array (may be traced, e.g. the size of a vmapped subset)
        Number of predictors :math:`p`, not counting the intercept.
    sample_weight : array-like of shape (n_samples,), optional

    Returns
    -------
    jax.Array, 0-d float. When :math:`n \le p + 1` it is undefined: a ``ValueError`` for
    concrete input, inf or nan under ``jit``.

    Example
    -------
    >>> round(float(adjusted_r2([1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 5.0], 1)), 12)
    0.7
    """
    y_true, y_pred, w = _check_regression(y_true, y_pred, sample_weight)
    n_features = _check_n_features(n_features, w)
    return _adjusted_r2(y_true, y_pred, w, jnp.asarray(n_features, dtype=y_true.dtype))


@_eager
def _check_n_features(n_features, w):
    if is_traced(n_features):
        return n_features
    if isinstance(n_features, bool) or not (
        isinstance(n_features, (numbers.Integral, np.integer))
        or (hasattr(n_features, "dtype") and np.ndim(n_features) == 0
            and np.issubdtype(np.asarray(n_features).dtype, np.integer))
    ):
        raise TypeError(f"n_features must be an int, got {type(n_features).__name__} {n_features!r}")
    n_features = int(n_features)
    if n_features < 0:
        raise ValueError(f"n_features must be >= 0, got {n_features}")
    if not is_traced(w):
        n_rows = int(np.sum(np.asarray(w) > 0))
        if n_rows <= n_features + 1:
            raise ValueError(
                f"adjusted_r2 needs more rows with positive weight than n_features + 1, "
                f"got {n_rows} rows and n_features={n_features}"
            )
    return n_features
