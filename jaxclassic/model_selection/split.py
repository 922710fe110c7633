r"""Train/test splits and K-fold partitions expressed as weights, not slices.

A fold is a length-``n`` vector of 0/1 *training weights*; its validation weights are the
complement ``1 - w``. K folds are a ``(K, n)`` matrix, so every fit in the package (which
accepts ``sample_weight`` and gives a zero-weight row no influence) can be ``vmap``-ed over
all K folds at fixed shapes: one compiled program for the whole cross-validation
(see :func:`jaxclassic.model_selection.cross_validate`).

Row ``i`` belongs to the validation set of fold ``k`` exactly when ``weights[k, i] == 0``;
for :func:`kfold_weights` and :func:`stratified_kfold_weights` every row is in exactly one
validation fold: ``(1 - weights).sum(axis=0) == 1``.

References
----------
Hastie, Tibshirani, Friedman, *The Elements of Statistical Learning*, 2nd ed., §7.10
(cross-validation).
"""

from __future__ import annotations

import math
import numbers
import warnings
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxclassic.validation import check_array, check_int, check_key, default_float_dtype

__all__ = [
    "TrainTestSplit",
    "train_test_split",
    "kfold_weights",
    "stratified_kfold_weights",
    "fold_indices",
]


class TrainTestSplit(NamedTuple):
    """A train/test partition of ``n`` rows.

    Attributes
    ----------
    train_index : (n_train,) int32
        Sorted indices of the training rows.
    test_index : (n_test,) int32
        Sorted indices of the test rows.
    train_weight : (n,) float
        1 on training rows, 0 on test rows (the same split as weights; ``1 - train_weight``
        selects the test rows).
    """

    train_index: jax.Array
    test_index: jax.Array
    train_weight: jax.Array


def _check_n(n: Any) -> int:
    return check_int(n, "n", low=2)


def _n_test(test_size: Any, n: int) -> int:
    """Number of test rows: ``ceil(test_size * n)`` for a fraction, the count for an int."""
    if isinstance(test_size, bool):
        raise TypeError(f"test_size must be a float in (0, 1) or an int, got bool {test_size!r}")
    if isinstance(test_size, (numbers.Integral, np.integer)):
        n_test = int(test_size)
        if not 1 <= n_test <= n - 1:
            raise ValueError(f"test_size must be between 1 and n - 1 = {n - 1} as an int, got {n_test}")
        return n_test
    if not isinstance(test_size, numbers.Real):
        raise TypeError(f"test_size must be a float in (0, 1) or an int, got {type(test_size).__name__}")
    test_size = float(test_size)
    if not 0.0 < test_size < 1.0:
        raise ValueError(f"test_size must be in (0, 1) as a fraction, got {test_size}")
    n_test = math.ceil(test_size * n)
    if n_test >= n:
        raise ValueError(f"test_size={test_size} leaves no training rows out of n={n}")
    return n_test


def _class_codes(y: Any, name: str) -> tuple[np.ndarray, np.ndarray]:
    """Integer codes 0..C-1 of any labels (host side) and the class counts."""
    arr = np.asarray(y)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-d, got an array of shape {arr.shape}")
    if arr.dtype.kind == "f" and not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or inf values; it must hold class labels")
    _, codes, counts = np.unique(arr, return_inverse=True, return_counts=True)
    return codes.reshape(-1).astype(np.int32), counts


def _rank_within_class(key, codes: jax.Array) -> tuple[jax.Array, jax.Array]:
    """A random order of the rows grouped by class: returns (order, position of each row)."""
    n = codes.shape[0]
    u = jax.random.uniform(key, (n,)) if key is not None else jnp.arange(n, dtype=jnp.int32)
    order = jnp.lexsort((u, codes))  # by class, then by the random key within each class
    return order, jnp.zeros((n,), jnp.int32).at[order].set(jnp.arange(n, dtype=jnp.int32))


def train_test_split(key: Any, n: int, test_size: float | int = 0.25, stratify: Any = None) -> TrainTestSplit:
    r"""Split ``n`` rows at random into a training and a test set.

    Without ``stratify``, a uniformly random subset of ``n_test = ceil(test_size · n)`` rows
    is the test set. With ``stratify`` (labels of length ``n``), each class ``c`` with
    ``n_c`` rows gives ``round(test_size · n_c)`` (at least 1, at most ``n_c - 1``) rows to
    the test set, so both sets keep the class proportions.

    Parameters
    ----------
    key : jax.random key
        Same key, same split.
    n : int
        Number of rows (>= 2).
    test_size : float in (0, 1) or int in [1, n - 1]
        Fraction or number of rows in the test set.
    stratify : (n,) array-like, optional
        Class labels to stratify on (any hashable dtype); every class needs >= 2 rows.

    Returns
    -------
    TrainTestSplit
        ``(train_index, test_index, train_weight)``.

    Example
    -------
    >>> import jax
    >>> split = train_test_split(jax.random.key(0), 10, test_size=0.3)
    >>> split.test_index.shape, float(split.train_weight.sum())
    ((3,), 7.0)
    """
    key = check_key(key)
    n = _check_n(n)
    dtype = default_float_dtype()
    if stratify is None:
        n_test = _n_test(test_size, n)
        perm = jax.random.permutation(key, n)
        is_test = jnp.zeros((n,), bool).at[perm[:n_test]].set(True)
    else:
        codes, counts = _class_codes(stratify, "stratify")
        if codes.shape[0] != n:
            raise ValueError(f"stratify must have length n={n}, got {codes.shape[0]}")
        if counts.min() < 2:
            raise ValueError(
                f"stratify: every class needs at least 2 rows to appear in both sets, "
                f"the smallest class has {int(counts.min())}"
            )
        frac = _n_test(test_size, n) / n if isinstance(test_size, (numbers.Integral, np.integer)) else test_size
        _n_test(frac, n)  # validates the fraction
        per_class = np.clip(np.round(frac * counts).astype(np.int32), 1, counts - 1)
        order, position = _rank_within_class(key, jnp.asarray(codes))
        first = jnp.asarray(np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int32))
        codes_j = jnp.asarray(codes)
        rank = position - first[codes_j]
        is_test = rank < jnp.asarray(per_class)[codes_j]
    is_test_np = np.asarray(is_test)
    train_index = jnp.asarray(np.flatnonzero(~is_test_np).astype(np.int32))
    test_index = jnp.asarray(np.flatnonzero(is_test_np).astype(np.int32))
    return TrainTestSplit(train_index, test_index, (~is_test).astype(dtype))


def _check_k(k: Any, n: int) -> int:
    k = check_int(k, "k", low=2)
    if k > n:
        raise ValueError(f"k must be <= the number of rows n={n}, got k={k}")
    return k


def _weights_from_fold_of_row(fold_of_row: jax.Array, k: int, dtype) -> jax.Array:
    return (fold_of_row[None, :] != jnp.arange(k)[:, None]).astype(dtype)


def kfold_weights(n: int, k: int = 5, key: Any = None, *, dtype=None) -> jax.Array:
    r"""K-fold training weights: a ``(k, n)`` matrix of 0/1.

    The rows are cut into ``k`` consecutive blocks (the first ``n mod k`` blocks one row
    longer, as scikit-learn's ``KFold``); with a ``key`` the rows are first permuted at
    random. Fold ``j`` trains on every block but the ``j``-th:
    ``weights[j, i] = 1[i ∉ block_j]``, and validates on ``1 - weights[j]``.

    Parameters
    ----------
    n : int
        Number of rows (>= 2).
    k : int
        Number of folds, ``2 <= k <= n``.
    key : jax.random key, optional
        Shuffle the rows before cutting them into blocks. ``None``: no shuffle (then the
        folds equal ``sklearn.model_selection.KFold(k)``'s).
    dtype : float dtype, optional
        Defaults to float32 (float64 when x64 is on).

    Returns
    -------
    (k, n) array of 0/1 training weights.

    Example
    -------
    >>> kfold_weights(5, 2).tolist()
    [[0.0, 0.0, 0.0, 1.0, 1.0], [1.0, 1.0, 1.0, 0.0, 0.0]]
    """
    n = _check_n(n)
    k = _check_k(k, n)
    dtype = dtype or default_float_dtype()
    sizes = np.full(k, n // k, dtype=np.int32)
    sizes[: n % k] += 1
    fold_of_position = jnp.asarray(np.repeat(np.arange(k, dtype=np.int32), sizes))
    if key is None:
        fold_of_row = fold_of_position
    else:
        perm = jax.random.permutation(check_key(key), n)
        fold_of_row = jnp.zeros((n,), jnp.int32).at[perm].set(fold_of_position)
    return _weights_from_fold_of_row(fold_of_row, k, dtype)


def stratified_kfold_weights(y: Any, k: int = 5, key: Any = None, *, dtype=None) -> jax.Array:
    r"""Stratified K-fold training weights: each fold keeps the class proportions of ``y``.

    The rows are ordered by class (and, with a ``key``, at random within each class); the
    ``p``-th row in that order goes to validation fold ``p mod k``. So each class's rows
    are spread over the folds as evenly as possible (per-fold counts of a class differ by
    at most one) and the fold sizes differ by at most one.

    Parameters
    ----------
    y : (n,) array-like
        Class labels (any dtype: integers, strings...).
    k : int
        Number of folds, ``2 <= k <= n``. A class with fewer than ``k`` rows is missing from
        some validation folds (a warning says so).
    key : jax.random key, optional
        Shuffle within each class. ``None``: rows keep their order within each class.
    dtype : float dtype, optional

    Returns
    -------
    (k, n) array of 0/1 training weights.

    Example
    -------
    >>> w = stratified_kfold_weights([0, 0, 1, 1], 2)
    >>> (1 - w).sum(axis=0).tolist()
    [1.0, 1.0, 1.0, 1.0]
    """
    codes, counts = _class_codes(y, "y")
    n = int(codes.shape[0])
    if n < 2:
        raise ValueError(f"y must have at least 2 rows, got {n}")
    k = _check_k(k, n)
    if counts.min() < k:
        warnings.warn(
            f"the smallest class of y has {int(counts.min())} row(s), fewer than k={k}: "
            "some validation folds will miss it",
            UserWarning,
            stacklevel=2,
        )
    dtype = dtype or default_float_dtype()
    _, position = _rank_within_class(None if key is None else check_key(key), jnp.asarray(codes))
    return _weights_from_fold_of_row(position % k, k, dtype)


def fold_indices(weights: Any) -> list[tuple[np.ndarray, np.ndarray]]:
    """``(train_index, validation_index)`` numpy pairs of a ``(K, n)`` weight matrix.

    The validation rows of fold ``k`` are those with ``weights[k] == 0``. The list can be
    given as ``cv=`` to scikit-learn's ``GridSearchCV`` / ``cross_val_score`` to run them on
    exactly the same folds.
    """
    w = np.asarray(check_array(weights, "weights", ndim=2))
    return [(np.flatnonzero(row > 0), np.flatnonzero(row == 0)) for row in w]
