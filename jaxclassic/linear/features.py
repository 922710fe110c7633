r"""Feature construction for linear models: polynomial expansions and standardisation.

References
----------
Hastie, Tibshirani & Friedman, *The Elements of Statistical Learning*, 2nd ed., §3.4.1
(standardised inputs for ridge), §5.1 (basis expansions).
"""

from __future__ import annotations

import itertools
from functools import partial
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxclassic import _jit
from jaxclassic import _precision
from jaxclassic.linear._gram import constant_columns, shift_of
from jaxclassic.validation import (
    check_array,
    check_bool,
    check_int,
    check_sample_weight,
    is_traced,
)

__all__ = ["polynomial_features", "polynomial_powers", "standardize", "Standardized"]


def polynomial_powers(n_features: int, degree: int, *, interaction_only: bool = False,
                      include_bias: bool = False) -> np.ndarray:
    """The exponent matrix ``(n_output, n_features)`` of :func:`polynomial_features`.

    Row ``k`` gives the power of each input feature in output column ``k`` (scikit-learn's
    ``PolynomialFeatures.powers_``), in scikit-learn's order: by total degree, and within a
    degree by ``itertools.combinations_with_replacement`` (``combinations`` when
    ``interaction_only``) of the feature indices.
    """
    combine = itertools.combinations if interaction_only else itertools.combinations_with_replacement
    start = 0 if include_bias else 1
    rows = []
    for deg in range(start, degree + 1):
        for comb in combine(range(n_features), deg):
            row = np.zeros(n_features, dtype=np.int64)
            for j in comb:
                row[j] += 1
            rows.append(row)
    return np.array(rows, dtype=np.int64).reshape(len(rows), n_features)


@partial(_jit.jit, static_argnames=("degree", "interaction_only", "include_bias"))
def _polynomial_features(X, *, degree, interaction_only, include_bias):
    n_features = X.shape[1]
    combine = itertools.combinations if interaction_only else itertools.combinations_with_replacement
    start = 0 if include_bias else 1
    # each output column is a product of at most `degree` input columns; shorter products are
    # padded with index n_features, a column of ones
    width = max(degree, 1)
    index = []
    for deg in range(start, degree + 1):
        for comb in combine(range(n_features), deg):
            index.append(list(comb) + [n_features] * (width - deg))
    index = np.array(index, dtype=np.int32).reshape(len(index), width)
    Xa = jnp.concatenate([X, jnp.ones((X.shape[0], 1), X.dtype)], axis=1)
    return jnp.prod(Xa[:, index], axis=2)


def polynomial_features(X, degree: int = 2, *, interaction_only: bool = False,
                        include_bias: bool = False) -> jax.Array:
    r"""All monomials of the input features up to total degree ``degree``.

    For :math:`x \in \mathbb R^d` the output holds :math:`\prod_j x_j^{k_j}` for every
    exponent vector with :math:`1 \le \sum_j k_j \le \text{degree}` (0 too when
    ``include_bias``), and with every :math:`k_j \le 1` when ``interaction_only``. The columns
    come in exactly scikit-learn's ``PolynomialFeatures`` order (see
    :func:`polynomial_powers`), so coefficients can be compared position by position.

    Parameters
    ----------
    X : (n_samples, n_features) array-like
    degree : int, >= 0
        Maximum total degree (static: it fixes the output's width).
    interaction_only : bool
        Only products of distinct features (no :math:`x_j^2`).
    include_bias : bool
        Prepend the constant column (degree 0). Off by default, unlike scikit-learn, because
        the linear fits of this package fit their own unpenalised intercept.

    Returns
    -------
    (n_samples, n_output) array, X's float dtype.

    Example
    -------
    >>> import jax.numpy as jnp
    >>> polynomial_features(jnp.array([[2.0, 3.0]]), 2).tolist()
    [[2.0, 3.0, 4.0, 6.0, 9.0]]

    References
    ----------
    Hastie, Tibshirani & Friedman, *The Elements of Statistical Learning*, 2nd ed., §5.1.
    """
    X = check_array(X, "X")
    degree = check_int(degree, "degree", low=0)
    interaction_only = check_bool(interaction_only, "interaction_only")
    include_bias = check_bool(include_bias, "include_bias")
    n_out = len(polynomial_powers(X.shape[1], degree, interaction_only=interaction_only,
                                  include_bias=include_bias))
    if n_out == 0:
        raise ValueError(
            f"polynomial_features would produce no columns (degree={degree}, "
            f"include_bias={include_bias}, interaction_only={interaction_only}); "
            "use degree >= 1 or include_bias=True"
        )
    return _polynomial_features(X, degree=degree, interaction_only=bool(interaction_only),
                                include_bias=bool(include_bias))


class Standardized(NamedTuple):
    """Result of :func:`standardize`: ``X_std = (X - mean) / scale``."""

    X: jax.Array
    mean: jax.Array
    scale: jax.Array


def weighted_mean_scale(X, sample_weight, ddof=0):
    r"""Weighted column means and standard deviations, zero-variance columns given scale 1.

    :math:`m_j = \sum_i w_i x_{ij} / \sum_i w_i`,
    :math:`s_j^2 = \sum_i w_i (x_{ij} - m_j)^2 / (\sum_i w_i - \text{ddof})`, computed on data
    shifted by the mean of a spread subsample (:func:`jaxclassic.linear._gram.shift_of`), so
    there is no cancellation. A column is treated as constant when
    :math:`s_j^2 \le (\varepsilon\,m_j)^2` — constant up to the rounding of its values,
    which the shifted sums resolve (a constant column's computed variance is
    :math:`O(\varepsilon\,\mathrm{ulp}(m_j)^2)`); its scale is then 1, as scikit-learn's
    ``StandardScaler`` does, so it standardises to zeros instead of NaN. Jittable.
    """
    dtype = X.dtype
    sw = sample_weight.astype(dtype)
    sw_sum = jnp.sum(sw)
    shift, _ = shift_of(X, jnp.zeros(X.shape[0], dtype), sw)
    D = X - shift
    offset = _precision.matmul(sw, D) / sw_sum
    var = (_precision.matmul(sw, jnp.square(D)) - sw_sum * jnp.square(offset)) / (sw_sum - ddof)
    mean = shift + offset
    constant = constant_columns(var, mean) | (var <= 0)
    return mean, jnp.where(constant, jnp.ones_like(var), jnp.sqrt(jnp.maximum(var, 0)))


@_jit.jit
def _standardize(X, sample_weight, ddof):
    mean, scale = weighted_mean_scale(X, sample_weight, ddof)
    return Standardized((X - mean) / scale, mean, scale)


def standardize(X, *, sample_weight=None, ddof: int = 0) -> Standardized:
    r"""Centre and scale every column: :math:`(x_{ij} - m_j)/s_j`.

    Means and standard deviations are weighted by ``sample_weight`` (a row of weight 0 has no
    influence):

    .. math::

        m_j = \frac{\sum_i w_i x_{ij}}{\sum_i w_i}, \qquad
        s_j = \sqrt{\frac{\sum_i w_i (x_{ij}-m_j)^2}{\sum_i w_i - \text{ddof}}} .

    ``ddof=0`` is the population standard deviation, as *The Elements of Statistical Learning*
    and scikit-learn's ``StandardScaler`` use. **Zero-variance columns** (constant up to the
    rounding of their values, :math:`s_j \le 10\varepsilon|m_j|`) get scale 1, so they become
    columns of zeros (up to the rounding of the mean) rather than NaN.

    Parameters
    ----------
    X : (n_samples, n_features) array-like
    sample_weight : (n_samples,) array-like, optional
    ddof : int, default 0
        Delta degrees of freedom of the variance (1 gives the sample standard deviation).

    Returns
    -------
    Standardized
        ``(X, mean, scale)``: the standardised (n, d) matrix and the (d,) mean and scale.

    Example
    -------
    >>> import jax.numpy as jnp
    >>> Z, mean, scale = standardize(jnp.array([[1.0, 5.0], [3.0, 5.0]]))
    >>> Z.tolist()
    [[-1.0, 0.0], [1.0, 0.0]]

    References
    ----------
    Hastie, Tibshirani & Friedman, *The Elements of Statistical Learning*, 2nd ed., §3.4.1.
    """
    X = check_array(X, "X")
    sw = check_sample_weight(sample_weight, X.shape[0], dtype=X.dtype)
    ddof = check_int(ddof, "ddof", low=0)
    if not is_traced(sw) and ddof > 0 and float(jnp.sum(sw)) <= ddof:
        raise ValueError(f"ddof={ddof} must be smaller than the total sample weight {float(jnp.sum(sw))}")
    return _standardize(X, sw, jnp.asarray(ddof, X.dtype))
