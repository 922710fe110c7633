r"""Train/test splits and K-fold partitions expressed as weights, not slices.

A fold is a length-``n`` vector of 0/1 *training weights*; its validation weights are the
complement ``1 - w``. K folds are a ``(K, n)`` matrix, so every fit in the package (which
accepts ``sample_weight`` and gives a zero-weight row no influence) can be ``vmap``-ed over
all K folds at fixed shapes: one compiled program for the whole cross-validation
(see :func:`jaxclassic.model_selection.cross_validate`).

Row ``i`` belongs to the validation set of fold ``k`` exactly when ``weights[k, i] == 0``;
for :func:`kfold_weights` and :func:`stratified_kfold_weights` every row is in exactly one
validation fold: ``(1 - weights).sum(axis=0) == 1``.

A single train/test split comes in two forms: :func:`train_test_split` takes the arrays and
returns their pieces, as ``sklearn.model_selection.train_test_split`` does;
:func:`train_test_indices` takes the number of rows and returns the indices and the training
weights (:class:`TrainTestSplit`).

Randomness comes only from the keyword-only ``key``. For the splits, ``key=None`` is the fixed
default key ``jax.random.key(0)``; for the folds, ``key=None`` means no shuffle (the rows in
their order, as scikit-learn's ``KFold`` / ``StratifiedKFold`` with ``shuffle=False``). Either
way, the same call gives the same result.

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

from jaxclassic import _deprecation
from jaxclassic._deprecation import key_moved, renamed_arguments
from jaxclassic.validation import check_array, check_bool, check_int, check_key, default_float_dtype

__all__ = [
    "TrainTestSplit",
    "train_test_split",
    "train_test_indices",
    "kfold_weights",
    "stratified_kfold_weights",
    "fold_indices",
]


class TrainTestSplit(NamedTuple):
    """A train/test split of ``n_samples`` rows (:func:`train_test_indices`).

    Attributes
    ----------
    train_index : (n_train,) int32
        Sorted indices of the training rows.
    test_index : (n_test,) int32
        Sorted indices of the test rows.
    train_weight : (n_samples,) float
        1 on training rows, 0 elsewhere (the same split as weights). When the two sets cover
        all rows (``train_size=None`` or ``test_size=None``, the default) ``1 - train_weight``
        selects the test rows.
    """

    train_index: jax.Array
    test_index: jax.Array
    train_weight: jax.Array


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


def _resolve_key(key: Any) -> jax.Array:
    """``None`` -> the documented default key ``jax.random.key(0)``; else a checked key."""
    return jax.random.key(0) if key is None else check_key(key)


# --------------------------------------------------------------------------- train/test split
def _check_size(value: Any, name: str, n_samples: int) -> Any:
    """A ``test_size`` / ``train_size``: ``None``, a fraction in (0, 1) or a count in
    [1, n_samples - 1] (scikit-learn's ``_validate_shuffle_split`` rules)."""
    if value is None:
        return None
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be a float in (0, 1), an int or None, got bool {value!r}")
    if isinstance(value, (numbers.Integral, np.integer)):
        value = int(value)
        if not 1 <= value <= n_samples - 1:
            raise ValueError(
                f"{name} must be between 1 and n_samples - 1 = {n_samples - 1} as an int, "
                f"got {value}"
            )
        return value
    if not isinstance(value, numbers.Real):
        raise TypeError(
            f"{name} must be a float in (0, 1), an int or None, got {type(value).__name__} {value!r}"
        )
    value = float(value)
    if not 0.0 < value < 1.0:
        raise ValueError(f"{name} must be in (0, 1) as a fraction, got {value}")
    return value


def _split_sizes(n_samples: int, test_size: Any, train_size: Any) -> tuple[int, int]:
    """``(n_train, n_test)`` exactly as scikit-learn's ``train_test_split``: ``test_size=0.25``
    when both are ``None``; ``n_test = ceil(test_size · n)``, ``n_train = floor(train_size · n)``
    for fractions, the counts for ints; a ``None`` size takes the remaining rows."""
    if test_size is None and train_size is None:
        test_size = 0.25
    test_size = _check_size(test_size, "test_size", n_samples)
    train_size = _check_size(train_size, "train_size", n_samples)
    if isinstance(test_size, float) and isinstance(train_size, float) and test_size + train_size > 1:
        raise ValueError(
            f"test_size + train_size must be <= 1 as fractions, got "
            f"{test_size} + {train_size} = {test_size + train_size}"
        )
    n_test = None if test_size is None else (
        math.ceil(test_size * n_samples) if isinstance(test_size, float) else test_size)
    n_train = None if train_size is None else (
        math.floor(train_size * n_samples) if isinstance(train_size, float) else train_size)
    if n_train is None:
        n_train = n_samples - n_test
    elif n_test is None:
        n_test = n_samples - n_train
    if n_train + n_test > n_samples:
        raise ValueError(
            f"train_size and test_size ask for {n_train} + {n_test} = {n_train + n_test} rows, "
            f"more than n_samples={n_samples}; reduce test_size and/or train_size"
        )
    if n_train == 0:
        raise ValueError(
            f"with n_samples={n_samples}, test_size={test_size} and train_size={train_size} the "
            "training set would be empty; adjust test_size or train_size"
        )
    return n_train, n_test


def _approximate_mode(class_counts: np.ndarray, n_draws: int) -> np.ndarray:
    """Per-class counts summing to ``n_draws``, proportional to ``class_counts``: the floors of
    ``n_draws · n_c / n``, plus one for the largest remainders (scikit-learn's
    ``_approximate_mode``; ties go to the first classes instead of a random draw)."""
    continuous = class_counts / class_counts.sum() * n_draws
    floored = np.floor(continuous)
    need = int(n_draws - floored.sum())
    if need > 0:
        remainder = continuous - floored
        order = np.argsort(-remainder, kind="stable")  # largest remainder first, ties in order
        floored[order[:need]] += 1
    return floored.astype(np.int64)


def train_test_indices(
    n_samples: int,
    *,
    test_size: float | int | None = None,
    train_size: float | int | None = None,
    shuffle: bool = True,
    stratify: Any = None,
    key: Any = None,
) -> TrainTestSplit:
    r"""Split ``n_samples`` rows into a training and a test set: the indices and the weights.

    The sizes are scikit-learn's: ``test_size=0.25`` when both sizes are ``None``; a float
    is a fraction, ``n_test = ceil(test_size · n_samples)`` and
    ``n_train = floor(train_size · n_samples)``; an int is a count; a ``None`` size takes the
    remaining rows. With ``shuffle`` (the default) the test set is the first ``n_test`` rows of
    a random permutation drawn from ``key`` and the training set the next ``n_train``; without,
    the training set is the first ``n_train`` rows and the test set the next ``n_test``.

    With ``stratify`` (class labels), class ``c`` of ``n_c`` rows gives
    :math:`n^{\mathrm{train}}_c \approx n_{\mathrm{train}} n_c / n` rows to the training set
    and :math:`n^{\mathrm{test}}_c \approx n_{\mathrm{test}}\, (n_c - n^{\mathrm{train}}_c) /
    (n - n_{\mathrm{train}})` to the test set, the floors plus one for the largest remainders
    (scikit-learn's ``StratifiedShuffleSplit``), so the set sizes are exactly ``n_train`` and
    ``n_test`` and each keeps the class proportions; the rows of each class are drawn at random.

    :func:`train_test_split` applies the same split to arrays.

    Parameters
    ----------
    n_samples : int
        Number of rows (>= 2).
    test_size : float in (0, 1), int in [1, n_samples - 1] or None
        Fraction or number of rows in the test set. ``None``: the rows ``train_size`` leaves,
        or 0.25 when ``train_size`` is ``None`` too.
    train_size : float in (0, 1), int in [1, n_samples - 1] or None
        Fraction or number of rows in the training set. ``None``: the rows the test set leaves.
    shuffle : bool, default True
        Draw the sets at random; ``False`` takes them in row order (no ``stratify`` then).
    stratify : (n_samples,) array-like, optional
        Class labels to stratify on (any hashable dtype); every class needs >= 2 rows, and
        each set at least one row per class.
    key : jax.random key, optional
        Same key, same split. ``None``: the default key ``jax.random.key(0)``.

    Returns
    -------
    TrainTestSplit
        ``(train_index, test_index, train_weight)``; the indices are sorted.

    Example
    -------
    >>> split = train_test_indices(10, test_size=0.3)
    >>> split.test_index.shape, float(split.train_weight.sum())
    ((3,), 7.0)

    References
    ----------
    Hastie, Tibshirani, Friedman, *The Elements of Statistical Learning*, 2nd ed., §7.2;
    scikit-learn's ``train_test_split`` and ``StratifiedShuffleSplit``.
    """
    n_samples = check_int(n_samples, "n_samples", low=2)
    shuffle = check_bool(shuffle, "shuffle")
    n_train, n_test = _split_sizes(n_samples, test_size, train_size)
    key = _resolve_key(key)
    dtype = default_float_dtype()
    if not shuffle:
        if stratify is not None:
            raise ValueError("stratify needs shuffle=True: a split in row order cannot stratify")
        is_train = np.arange(n_samples) < n_train
        is_test = (np.arange(n_samples) >= n_train) & (np.arange(n_samples) < n_train + n_test)
    elif stratify is None:
        perm = np.asarray(jax.random.permutation(key, n_samples))
        is_test = np.zeros(n_samples, bool)
        is_test[perm[:n_test]] = True
        is_train = np.zeros(n_samples, bool)
        is_train[perm[n_test:n_test + n_train]] = True
    else:
        codes, counts = _class_codes(stratify, "stratify")
        if codes.shape[0] != n_samples:
            raise ValueError(f"stratify must have length n_samples={n_samples}, got {codes.shape[0]}")
        if counts.min() < 2:
            raise ValueError(
                f"stratify: every class needs at least 2 rows to appear in both sets, "
                f"the smallest class has {int(counts.min())}"
            )
        n_classes = counts.shape[0]
        for size, name in ((n_train, "training"), (n_test, "test")):
            if size < n_classes:
                raise ValueError(
                    f"stratify: the {name} set has {size} rows, fewer than the {n_classes} "
                    f"classes; increase its size"
                )
        per_train = _approximate_mode(counts, n_train)
        per_test = _approximate_mode(counts - per_train, n_test)
        _, position = _rank_within_class(key, jnp.asarray(codes))
        first = np.concatenate([[0], np.cumsum(counts)[:-1]])
        rank = np.asarray(position) - first[codes]  # random rank of each row within its class
        is_test = rank < per_test[codes]
        is_train = (rank >= per_test[codes]) & (rank < (per_test + per_train)[codes])
    return TrainTestSplit(
        jnp.asarray(np.flatnonzero(is_train).astype(np.int32)),
        jnp.asarray(np.flatnonzero(is_test).astype(np.int32)),
        jnp.asarray(is_train, dtype=dtype),
    )


def _num_samples(array: Any, position: int) -> int:
    if array is None:
        raise TypeError(f"train_test_split: array {position} is None; pass arrays to split")
    shape = getattr(array, "shape", None)
    if shape is not None:
        if len(shape) == 0:
            raise TypeError(
                f"train_test_split: array {position} is a 0-d array (a scalar); it has no rows to split"
            )
        return int(shape[0])
    if hasattr(array, "__len__") and not isinstance(array, (str, bytes)):
        return len(array)
    raise TypeError(
        f"train_test_split: array {position} must be an array, a DataFrame/Series or a list, "
        f"got {type(array).__name__}"
    )


def _take(array: Any, index: np.ndarray) -> Any:
    """Rows ``index`` of ``array`` with its own indexing, keeping its type."""
    if hasattr(array, "iloc"):  # pandas: by position, keeping the index labels
        return array.iloc[index]
    if isinstance(array, (list, tuple)):  # as scikit-learn's _safe_indexing: a list
        return [array[i] for i in index]
    return array[index]  # numpy, jax (a jax Array back), scipy.sparse CSR


def _is_old_train_test_split(arrays: tuple) -> bool:
    """``train_test_split(key, n, ...)``, the 0.1 call: a single PRNG key, then an int."""
    return (len(arrays) >= 2 and _deprecation.is_prng_key(arrays[0]) and np.ndim(arrays[0]) <= 1
            and isinstance(arrays[1], (numbers.Integral, np.integer))
            and not isinstance(arrays[1], bool))


def train_test_split(
    *arrays: Any,
    test_size: float | int | None = None,
    train_size: float | int | None = None,
    shuffle: bool = True,
    stratify: Any = None,
    key: Any = None,
    **legacy: Any,
) -> list:
    r"""Split arrays into random train and test subsets, as scikit-learn's ``train_test_split``.

    The rows are split by :func:`train_test_indices` (its sizes, rounding and stratification are
    scikit-learn's: ``n_test = ceil(test_size · n)``, ``n_train = floor(train_size · n)``,
    ``test_size=0.25`` when both are ``None``), and every array is indexed with its own
    indexing (``.iloc`` for pandas, so a DataFrame stays a DataFrame with its index; a jax
    array stays a jax array; a list gives lists).

    Departures from scikit-learn: randomness comes from ``key`` (not ``random_state``), and
    ``key=None`` is a fixed default key, so a call without a key is reproducible (scikit-learn's
    ``random_state=None`` draws a fresh split each call); the rows of each set keep their
    original order (scikit-learn's come in the order of its permutation).

    Until jaxclassic 0.3.0, the 0.1 call ``train_test_split(key, n, test_size=0.25,
    stratify=None)`` (a PRNG key, then a number of rows) still works: it returns what it returned
    (a :class:`TrainTestSplit`) with a ``DeprecationWarning``; use :func:`train_test_indices`.

    Parameters
    ----------
    *arrays : sequence of arrays of the same length
        numpy or jax arrays, pandas DataFrames / Series, lists, scipy.sparse CSR matrices.
    test_size, train_size : float, int or None
        As in :func:`train_test_indices`.
    shuffle : bool, default True
        Split at random; ``False`` keeps the row order (the training rows first).
    stratify : (n_samples,) array-like, optional
        Class labels whose proportions both sets keep.
    key : jax.random key, optional
        Same key, same split. ``None``: the default key ``jax.random.key(0)``.

    Returns
    -------
    list
        ``[a_train, a_test, b_train, b_test, ...]``: two pieces per input array.

    Example
    -------
    >>> import numpy as np
    >>> X, y = np.arange(20).reshape(10, 2), np.arange(10)
    >>> X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3)
    >>> X_train.shape, X_test.shape, y_test.shape
    ((7, 2), (3, 2), (3,))

    References
    ----------
    scikit-learn's ``sklearn.model_selection.train_test_split``.
    """
    if (len(arrays) == 1 and "n" in legacy and _deprecation.is_prng_key(arrays[0])
            and np.ndim(arrays[0]) <= 1):
        arrays = (arrays[0], legacy.pop("n"))  # the 0.1 keyword form train_test_split(key, n=...)
    if legacy:
        raise TypeError(f"train_test_split() got unexpected keyword arguments {sorted(legacy)}")
    if _is_old_train_test_split(arrays):
        _deprecation.warn("train_test_split(key, n, ...) returning indices",
                          "train_test_indices(n, ..., key=key), or train_test_split(X, y, ..., key=key)")
        if key is not None or train_size is not None or not shuffle:
            raise TypeError(
                "train_test_split(key, n, ...) (deprecated) takes test_size and stratify only; "
                "use train_test_indices(n, ..., key=key)"
            )
        old_args = arrays[1:]
        if len(old_args) > 3:
            raise TypeError(f"train_test_split(key, n, test_size, stratify) got {len(arrays)} positional arguments")
        old_kwargs = {}
        if test_size is not None:
            old_kwargs["test_size"] = test_size
        if stratify is not None:
            old_kwargs["stratify"] = stratify
        return _legacy_train_test_split(arrays[0], *old_args, **old_kwargs)
    if not arrays:
        raise ValueError("train_test_split needs at least one array to split")
    lengths = [_num_samples(array, i) for i, array in enumerate(arrays)]
    if len(set(lengths)) > 1:
        raise ValueError(f"train_test_split: the arrays have inconsistent numbers of rows: {lengths}")
    n_samples = lengths[0]
    if n_samples == 0:
        raise ValueError("train_test_split: the arrays are empty (0 rows)")
    if n_samples < 2:
        raise ValueError(
            f"train_test_split needs at least 2 rows (one in each set), got {n_samples}"
        )
    split = train_test_indices(n_samples, test_size=test_size, train_size=train_size,
                               shuffle=shuffle, stratify=stratify, key=key)
    train, test = np.asarray(split.train_index), np.asarray(split.test_index)
    return [piece for array in arrays for piece in (_take(array, train), _take(array, test))]


def _legacy_train_test_split(key: Any, n: int, test_size: float | int = 0.25,
                             stratify: Any = None) -> TrainTestSplit:
    """The 0.1 ``train_test_split(key, n, test_size=0.25, stratify=None)``, unchanged: what
    the deprecated call returns until it is removed (jaxclassic 0.3.0)."""
    key = check_key(key)
    n = check_int(n, "n", low=2)
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


def _check_n_splits(n_splits: Any, n_samples: int) -> int:
    n_splits = check_int(n_splits, "n_splits", low=2)
    if n_splits > n_samples:
        raise ValueError(
            f"n_splits must be <= the number of rows n_samples={n_samples}, got n_splits={n_splits}"
        )
    return n_splits


def _weights_from_fold_of_row(fold_of_row: jax.Array, n_splits: int, dtype) -> jax.Array:
    return (fold_of_row[None, :] != jnp.arange(n_splits)[:, None]).astype(dtype)


@key_moved(2)
@renamed_arguments(n="n_samples", k="n_splits")
def kfold_weights(n_samples: int, n_splits: int = 5, *, key: Any = None, dtype=None) -> jax.Array:
    r"""K-fold training weights: a ``(n_splits, n_samples)`` matrix of 0/1.

    The rows are cut into ``n_splits`` consecutive blocks (the first ``n_samples mod n_splits``
    blocks one row longer, as scikit-learn's ``KFold``); with a ``key`` the rows are first
    permuted at random. Fold ``j`` trains on every block but the ``j``-th:
    ``weights[j, i] = 1[i ∉ block_j]``, and validates on ``1 - weights[j]``.

    Until jaxclassic 0.3.0 the 0.1 spellings work with a ``DeprecationWarning``: ``n=`` and
    ``k=`` for ``n_samples=`` and ``n_splits=``, and the key as third positional argument,
    ``kfold_weights(n, k, key)``.

    Parameters
    ----------
    n_samples : int
        Number of rows (>= 2).
    n_splits : int, default 5
        Number of folds, ``2 <= n_splits <= n_samples`` (scikit-learn's ``KFold(n_splits=5)``).
    key : jax.random key, optional
        Shuffle the rows before cutting them into blocks. ``None`` (the default): no shuffle,
        so the folds equal ``sklearn.model_selection.KFold(n_splits)``'s (its default
        ``shuffle=False``); the same call gives the same folds either way.
    dtype : float dtype, optional
        Defaults to float32 (float64 when x64 is on).

    Returns
    -------
    (n_splits, n_samples) array of 0/1 training weights.

    Example
    -------
    >>> kfold_weights(5, 2).tolist()
    [[0.0, 0.0, 0.0, 1.0, 1.0], [1.0, 1.0, 1.0, 0.0, 0.0]]

    References
    ----------
    Hastie, Tibshirani, Friedman, *The Elements of Statistical Learning*, 2nd ed., §7.10.
    """
    n_samples = check_int(n_samples, "n_samples", low=2)
    n_splits = _check_n_splits(n_splits, n_samples)
    dtype = dtype or default_float_dtype()
    sizes = np.full(n_splits, n_samples // n_splits, dtype=np.int32)
    sizes[: n_samples % n_splits] += 1
    fold_of_position = jnp.asarray(np.repeat(np.arange(n_splits, dtype=np.int32), sizes))
    if key is None:
        fold_of_row = fold_of_position
    else:
        perm = jax.random.permutation(check_key(key), n_samples)
        fold_of_row = jnp.zeros((n_samples,), jnp.int32).at[perm].set(fold_of_position)
    return _weights_from_fold_of_row(fold_of_row, n_splits, dtype)


@key_moved(2)
@renamed_arguments(k="n_splits")
def stratified_kfold_weights(y: Any, n_splits: int = 5, *, key: Any = None, dtype=None) -> jax.Array:
    r"""Stratified K-fold training weights: each fold keeps the class proportions of ``y``.

    The rows are ordered by class (and, with a ``key``, at random within each class); the
    ``p``-th row in that order goes to validation fold ``p mod n_splits``. So each class's rows
    are spread over the folds as evenly as possible (per-fold counts of a class differ by
    at most one) and the fold sizes differ by at most one.

    Until jaxclassic 0.3.0 the 0.1 spellings work with a ``DeprecationWarning``: ``k=`` for
    ``n_splits=``, and the key as third positional argument, ``stratified_kfold_weights(y, k,
    key)``.

    Parameters
    ----------
    y : (n_samples,) array-like
        Class labels (any dtype: integers, strings...).
    n_splits : int, default 5
        Number of folds, ``2 <= n_splits <= n_samples`` (scikit-learn's
        ``StratifiedKFold(n_splits=5)``). A class with fewer than ``n_splits`` rows is missing
        from some validation folds (a warning says so).
    key : jax.random key, optional
        Shuffle within each class. ``None`` (the default): rows keep their order within each
        class and are dealt to the folds in turn (no shuffle, as scikit-learn's default
        ``shuffle=False``: each fold's class counts equal ``StratifiedKFold``'s, but which rows
        fall in which fold differs).
    dtype : float dtype, optional

    Returns
    -------
    (n_splits, n_samples) array of 0/1 training weights.

    Example
    -------
    >>> w = stratified_kfold_weights([0, 0, 1, 1], 2)
    >>> (1 - w).sum(axis=0).tolist()
    [1.0, 1.0, 1.0, 1.0]

    References
    ----------
    Hastie, Tibshirani, Friedman, *The Elements of Statistical Learning*, 2nd ed., §7.10;
    Kohavi, "A study of cross-validation and bootstrap for accuracy estimation and model
    selection", IJCAI 1995 (stratification).
    """
    codes, counts = _class_codes(y, "y")
    n_samples = int(codes.shape[0])
    if n_samples < 2:
        raise ValueError(f"y must have at least 2 rows, got {n_samples}")
    n_splits = _check_n_splits(n_splits, n_samples)
    if counts.min() < n_splits:
        warnings.warn(
            f"the smallest class of y has {int(counts.min())} row(s), fewer than "
            f"n_splits={n_splits}: some validation folds will miss it",
            UserWarning,
            stacklevel=4,  # the caller, above the two deprecation wrappers
        )
    dtype = dtype or default_float_dtype()
    _, position = _rank_within_class(None if key is None else check_key(key), jnp.asarray(codes))
    return _weights_from_fold_of_row(position % n_splits, n_splits, dtype)


def fold_indices(weights: Any) -> list[tuple[np.ndarray, np.ndarray]]:
    """``(train_index, validation_index)`` numpy pairs of a ``(K, n)`` weight matrix.

    The validation rows of fold ``k`` are those with ``weights[k] == 0``. The list can be
    given as ``cv=`` to scikit-learn's ``GridSearchCV`` / ``cross_val_score`` to run them on
    exactly the same folds.
    """
    w = np.asarray(check_array(weights, "weights", ndim=2))
    return [(np.flatnonzero(row > 0), np.flatnonzero(row == 0)) for row in w]
