"""Tests of jaxclassic/model_selection/split.py: folds as 0/1 training weights.

References: scikit-learn's KFold (unshuffled folds are compared exactly); the partition and
stratification properties are checked directly (exact, integer counts).
"""

import jax
import numpy as np
import pytest
from sklearn.model_selection import KFold

from jaxclassic.model_selection import (
    fold_indices,
    kfold_weights,
    stratified_kfold_weights,
    train_test_split,
)

KEY = jax.random.key(0)


# --------------------------------------------------------------------------- kfold
@pytest.mark.full
@pytest.mark.parametrize("n,k", [(10, 3), (12, 4), (7, 7)])
def test_kfold_unshuffled_equals_sklearn_kfold(n, k):
    ours = fold_indices(kfold_weights(n, k))
    ref = list(KFold(k).split(np.zeros(n)))
    for (tr, va), (tr_ref, va_ref) in zip(ours, ref):
        np.testing.assert_array_equal(tr, tr_ref)
        np.testing.assert_array_equal(va, va_ref)


@pytest.mark.parametrize("key", [None, jax.random.key(3)])
def test_kfold_every_row_in_exactly_one_validation_fold(key):
    w = np.asarray(kfold_weights(23, 5, key))
    assert w.shape == (5, 23)
    assert set(np.unique(w)) == {0.0, 1.0}
    np.testing.assert_array_equal((1 - w).sum(axis=0), np.ones(23))
    sizes = (1 - w).sum(axis=1)
    assert sizes.max() - sizes.min() <= 1


def test_kfold_same_key_same_folds_other_key_other_folds():
    a = kfold_weights(30, 5, jax.random.key(7))
    b = kfold_weights(30, 5, jax.random.key(7))
    c = kfold_weights(30, 5, jax.random.key(8))
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


def test_kfold_dtype_argument_and_default():
    assert kfold_weights(6, 2).dtype == np.float64  # x64 is on in the tests
    assert kfold_weights(6, 2, dtype=np.float32).dtype == np.float32


# --------------------------------------------------------------------------- stratified
@pytest.mark.full
@pytest.mark.parametrize("key", [None, jax.random.key(1)])
def test_stratified_folds_preserve_class_proportions(key):
    rng = np.random.default_rng(0)
    y = rng.choice(np.array(["a", "b", "c"]), size=103, p=[0.6, 0.3, 0.1])
    k = 5
    w = np.asarray(stratified_kfold_weights(y, k, key))
    np.testing.assert_array_equal((1 - w).sum(axis=0), np.ones(y.size))
    for label in np.unique(y):
        n_c = int((y == label).sum())
        per_fold = ((1 - w)[:, y == label]).sum(axis=1)
        # each class is spread as evenly as possible: floor or ceil of n_c / k per fold
        assert set(per_fold.astype(int)) <= {n_c // k, -(-n_c // k)}
    sizes = (1 - w).sum(axis=1)
    assert sizes.max() - sizes.min() <= 1


def test_stratified_same_key_same_folds():
    y = np.arange(40) % 3
    np.testing.assert_array_equal(
        stratified_kfold_weights(y, 4, jax.random.key(2)), stratified_kfold_weights(y, 4, jax.random.key(2))
    )
    assert not np.array_equal(
        stratified_kfold_weights(y, 4, jax.random.key(2)), stratified_kfold_weights(y, 4, jax.random.key(5))
    )


def test_stratified_warns_when_a_class_is_smaller_than_k():
    with pytest.warns(UserWarning, match="fewer than k=3"):
        stratified_kfold_weights([0, 0, 0, 0, 1, 1], 3)


# --------------------------------------------------------------------------- train_test_split
@pytest.mark.full
def test_train_test_split_partition_and_size():
    split = train_test_split(KEY, 50, test_size=0.2)
    assert split.test_index.shape == (10,)
    assert split.train_index.shape == (40,)
    np.testing.assert_array_equal(
        np.sort(np.concatenate([split.train_index, split.test_index])), np.arange(50)
    )
    np.testing.assert_array_equal(np.flatnonzero(np.asarray(split.train_weight)), split.train_index)


@pytest.mark.full
def test_train_test_split_int_test_size_and_same_key():
    a = train_test_split(jax.random.key(4), 20, test_size=3)
    b = train_test_split(jax.random.key(4), 20, test_size=3)
    assert a.test_index.shape == (3,)
    np.testing.assert_array_equal(a.test_index, b.test_index)


@pytest.mark.full
def test_train_test_split_stratified_keeps_proportions():
    y = np.array([0] * 60 + [1] * 30 + [2] * 10)
    split = train_test_split(KEY, 100, test_size=0.3, stratify=y)
    test_counts = np.bincount(y[np.asarray(split.test_index)], minlength=3)
    np.testing.assert_array_equal(test_counts, [18, 9, 3])


@pytest.mark.full
def test_fold_indices_roundtrip():
    w = kfold_weights(9, 3, jax.random.key(0))
    for k, (tr, va) in enumerate(fold_indices(w)):
        rebuilt = np.zeros(9)
        rebuilt[tr] = 1
        np.testing.assert_array_equal(rebuilt, w[k])
        assert np.intersect1d(tr, va).size == 0


# --------------------------------------------------------------------------- bad input
def test_kfold_k_below_two():
    with pytest.raises(ValueError, match="k must be >= 2, got 1"):
        kfold_weights(10, 1)


def test_kfold_k_above_n():
    with pytest.raises(ValueError, match="k must be <= the number of rows n=5, got k=6"):
        kfold_weights(5, 6)


def test_kfold_k_not_int():
    with pytest.raises(TypeError, match="k must be an int"):
        kfold_weights(10, 2.5)


def test_kfold_n_too_small():
    with pytest.raises(ValueError, match="n must be >= 2"):
        kfold_weights(1, 2)


def test_kfold_int_key_rejected():
    with pytest.raises(TypeError, match="key must be a jax.random key"):
        kfold_weights(10, 2, 0)


def test_stratified_k_above_n():
    with pytest.raises(ValueError, match="k must be <= the number of rows n=4"):
        stratified_kfold_weights([0, 1, 0, 1], 5)


def test_stratified_y_not_1d():
    with pytest.raises(ValueError, match="y must be 1-d"):
        stratified_kfold_weights(np.zeros((4, 2)), 2)


@pytest.mark.parametrize("test_size", [0.0, 1.0, 1.5, -0.1])
def test_train_test_split_fraction_out_of_range(test_size):
    with pytest.raises(ValueError, match=r"test_size must be in \(0, 1\)"):
        train_test_split(KEY, 10, test_size=test_size)


@pytest.mark.parametrize("test_size", [0, 10])
def test_train_test_split_count_out_of_range(test_size):
    with pytest.raises(ValueError, match="test_size must be between 1 and n - 1 = 9"):
        train_test_split(KEY, 10, test_size=test_size)


def test_train_test_split_test_size_wrong_type():
    with pytest.raises(TypeError, match="test_size must be a float"):
        train_test_split(KEY, 10, test_size="0.2")


def test_train_test_split_key_none():
    with pytest.raises(ValueError, match="key must be a jax.random key"):
        train_test_split(None, 10)


def test_train_test_split_stratify_wrong_length():
    with pytest.raises(ValueError, match="stratify must have length n=10, got 8"):
        train_test_split(KEY, 10, stratify=[0, 1] * 4)


def test_train_test_split_stratify_singleton_class():
    with pytest.raises(ValueError, match="every class needs at least 2 rows"):
        train_test_split(KEY, 5, stratify=[0, 0, 0, 0, 1])
