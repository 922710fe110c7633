r"""Bootstrap resamples as multinomial count weights.

A bootstrap sample draws ``n`` rows with replacement; as a weight vector it is the count of
each row, ``w ~ Multinomial(n; 1/n, ..., 1/n)``. Fitting with ``sample_weight=w`` equals
fitting on the resampled rows (a row drawn twice counts twice; a row never drawn has weight
0 and no influence), at a fixed shape, so all resamples are one ``vmap``. Rows with
``w == 0`` are *out of bag*: each row is left out with probability
:math:`(1 - 1/n)^n \to e^{-1} \approx 0.368`, so a resample holds about 63.2% distinct rows.

References
----------
Efron & Tibshirani, *An Introduction to the Bootstrap*, 1993, ch. 6.
Hastie, Tibshirani, Friedman, *The Elements of Statistical Learning*, 2nd ed., §7.11.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import jax
import jax.numpy as jnp

from jaxclassic import _jit
from jaxclassic._deprecation import key_made_keyword, renamed_arguments
from jaxclassic.validation import check_int, check_key, default_float_dtype

__all__ = ["bootstrap_weights"]


@partial(_jit.jit, static_argnames=("n", "n_resamples", "dtype"))
def _bootstrap_counts(key, n: int, n_resamples: int, dtype):
    draws = jax.random.randint(key, (n_resamples, n), 0, n)
    return jax.vmap(lambda idx: jnp.bincount(idx, length=n))(draws).astype(dtype)


@key_made_keyword
@renamed_arguments(n="n_samples")
def bootstrap_weights(n_samples: int, n_resamples: int, *, key: Any = None, dtype=None) -> jax.Array:
    r"""Multinomial count weights of ``n_resamples`` bootstrap samples of ``n_samples`` rows.

    Each row of the result is the number of times each of the ``n`` rows was drawn when
    sampling ``n`` rows uniformly with replacement:
    :math:`w_b \sim \mathrm{Multinomial}(n;\ 1/n, \dots, 1/n)`, so ``w_b.sum() == n``.

    Until jaxclassic 0.3.0 the 0.1 call ``bootstrap_weights(key, n, n_resamples)`` (the key
    first) and ``n=`` work with a ``DeprecationWarning``.

    Parameters
    ----------
    n_samples : int
        Number of rows (>= 1).
    n_resamples : int
        Number of bootstrap samples (>= 1).
    key : jax.random key, optional
        Same key, same resamples. ``None``: the default key ``jax.random.key(0)``.
    dtype : float dtype, optional
        Defaults to float32 (float64 when x64 is on).

    Returns
    -------
    (n_resamples, n_samples) array of counts. ``weights == 0`` marks the out-of-bag rows of each
    resample, which :func:`~jaxclassic.model_selection.cross_validate` uses as the
    validation rows (the out-of-bag estimate).

    Example
    -------
    >>> import jax
    >>> w = bootstrap_weights(100, 3, key=jax.random.key(0))
    >>> w.shape, w.sum(axis=1).tolist()
    ((3, 100), [100.0, 100.0, 100.0])

    References
    ----------
    Efron & Tibshirani, *An Introduction to the Bootstrap*, 1993, ch. 6.
    """
    key = jax.random.key(0) if key is None else check_key(key)
    n_samples = check_int(n_samples, "n_samples", low=1)
    n_resamples = check_int(n_resamples, "n_resamples", low=1)
    dtype = jnp.dtype(dtype or default_float_dtype())
    return _bootstrap_counts(key, n_samples, n_resamples, dtype)
