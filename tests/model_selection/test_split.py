"""Tests of jaxclassic/model_selection/split.py: folds as 0/1 training weights, train/test splits.

References: scikit-learn's KFold (unshuffled folds are compared exactly) and
``sklearn.model_selection.train_test_split`` (set sizes, unshuffled splits: exact); the
partition and stratification properties are checked directly (exact, integer counts).
"""

import jax
import jax.numpy as jnp
import numpy as np
import pandas as pd
import pytest
from sklearn.model_selection import KFold
from sklearn.model_selection import train_test_split as sk_train_test_split

from jaxclassic.model_selection import (
    TrainTestSplit,
    fold_indices,
    kfold_weights,
    stratified_kfold_weights,
    train_test_indices,
    train_test_split,
)
from jaxclassic.model_selection.split import _legacy_train_test_split

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
    w = np.asarray(kfold_weights(23, 5, key=key))
    assert w.shape == (5, 23)
    assert set(np.unique(w)) == {0.0, 1.0}
    np.testing.assert_array_equal((1 - w).sum(axis=0), np.ones(23))
    sizes = (1 - w).sum(axis=1)
    assert sizes.max() - sizes.min() <= 1


def test_kfold_same_key_same_folds_other_key_other_folds():
    a = kfold_weights(30, 5, key=jax.random.key(7))
    b = kfold_weights(30, 5, key=jax.random.key(7))
    c = kfold_weights(30, 5, key=jax.random.key(8))
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
    w = np.asarray(stratified_kfold_weights(y, k, key=key))
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
        stratified_kfold_weights(y, 4, key=jax.random.key(2)), stratified_kfold_weights(y, 4, key=jax.random.key(2))
    )
    assert not np.array_equal(
        stratified_kfold_weights(y, 4, key=jax.random.key(2)), stratified_kfold_weights(y, 4, key=jax.random.key(5))
    )


def test_stratified_warns_when_a_class_is_smaller_than_k():
    with pytest.warns(UserWarning, match="fewer than n_splits=3"):
        stratified_kfold_weights([0, 0, 0, 0, 1, 1], 3)


# --------------------------------------------------------------------------- train/test split
def test_train_test_indices_partition_and_size():
    split = train_test_indices(50, test_size=0.2, key=KEY)
    assert isinstance(split, TrainTestSplit)
    assert split.test_index.shape == (10,)
    assert split.train_index.shape == (40,)
    np.testing.assert_array_equal(
        np.sort(np.concatenate([split.train_index, split.test_index])), np.arange(50)
    )
    np.testing.assert_array_equal(np.flatnonzero(np.asarray(split.train_weight)), split.train_index)


@pytest.mark.parametrize("kwargs", [{"test_size": 0.2}, {"test_size": 3}, {}])
def test_train_test_indices_equal_the_0_1_function_for_the_same_key(kwargs):
    new = train_test_indices(20, key=jax.random.key(4), **kwargs)
    old = _legacy_train_test_split(jax.random.key(4), 20, **kwargs)
    for a, b in zip(new, old):
        np.testing.assert_array_equal(a, b)


def test_train_test_indices_same_key_same_split_and_none_is_key_zero():
    a = train_test_indices(30, key=jax.random.key(4))
    b = train_test_indices(30, key=jax.random.key(4))
    c = train_test_indices(30, key=jax.random.key(5))
    np.testing.assert_array_equal(a.test_index, b.test_index)
    assert not np.array_equal(a.test_index, c.test_index)
    np.testing.assert_array_equal(train_test_indices(30).test_index,
                                  train_test_indices(30, key=jax.random.key(0)).test_index)


def test_train_test_indices_stratified_keeps_proportions():
    y = np.array([0] * 60 + [1] * 30 + [2] * 10)
    split = train_test_indices(100, test_size=0.3, stratify=y, key=KEY)
    test_counts = np.bincount(y[np.asarray(split.test_index)], minlength=3)
    np.testing.assert_array_equal(test_counts, [18, 9, 3])
    # the totals agree with the 0.1 rule here, and so does the split
    old = _legacy_train_test_split(KEY, 100, test_size=0.3, stratify=y)
    np.testing.assert_array_equal(split.test_index, old.test_index)


# sizes (n, test_size, train_size) against scikit-learn's: the rounding ceil / floor, the
# default 0.25, ints as counts, and a train_size + test_size that leaves rows out
SIZE_CASES = [(10, None, None), (11, 0.3, None), (11, None, 0.3), (7, 2, None), (7, None, 2),
              (13, 0.2, 0.5), (13, 3, 4), (10, 0.25, 6)]


@pytest.mark.parametrize("n,test_size,train_size", SIZE_CASES)
def test_sizes_equal_sklearn(n, test_size, train_size):
    X = np.arange(2 * n).reshape(n, 2)
    ours = train_test_split(X, test_size=test_size, train_size=train_size)
    ref = sk_train_test_split(X, test_size=test_size, train_size=train_size, random_state=0)
    assert [a.shape for a in ours] == [a.shape for a in ref]
    split = train_test_indices(n, test_size=test_size, train_size=train_size)
    assert np.intersect1d(split.train_index, split.test_index).size == 0
    assert float(np.asarray(split.train_weight).sum()) == len(ref[0])


@pytest.mark.parametrize("n,test_size,train_size", SIZE_CASES[:4])
def test_unshuffled_split_equals_sklearn(n, test_size, train_size):
    X, y = np.arange(2 * n).reshape(n, 2), np.arange(n) * 1.5
    ours = train_test_split(X, y, test_size=test_size, train_size=train_size, shuffle=False)
    ref = sk_train_test_split(X, y, test_size=test_size, train_size=train_size, shuffle=False)
    for a, b in zip(ours, ref):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("n_per_class,test_size", [((5, 5), None), ((7, 4, 3), 0.4), ((8, 6), 5)])
def test_stratified_sizes_equal_sklearn(n_per_class, test_size):
    y = np.repeat(np.arange(len(n_per_class)), n_per_class)
    X = np.arange(y.size)
    _, X_test, _, y_test = train_test_split(X, y, test_size=test_size, stratify=y)
    _, sk_X_test, _, sk_y_test = sk_train_test_split(X, y, test_size=test_size, stratify=y,
                                                     random_state=0)
    assert X_test.shape == sk_X_test.shape
    # per-class test counts: scikit-learn's approximate mode (ties may go either way there)
    assert np.abs(np.bincount(y_test) - np.bincount(sk_y_test)).max() <= 1
    np.testing.assert_array_equal(y[X_test], y_test)


def test_arrays_keep_their_type_and_rows_stay_aligned():
    n = 12
    X = np.arange(3 * n, dtype=float).reshape(n, 3)
    frame = pd.DataFrame(X, columns=["a", "b", "c"], index=np.arange(100, 100 + n))
    series = pd.Series(np.arange(n), index=frame.index, name="y")
    labels = [f"row{i}" for i in range(n)]
    X_tr, X_te, J_tr, J_te, F_tr, F_te, S_tr, S_te, L_tr, L_te = train_test_split(
        X, jnp.asarray(X), frame, series, labels, test_size=0.25, key=jax.random.key(2))
    assert isinstance(X_tr, np.ndarray) and isinstance(J_tr, jax.Array)
    assert isinstance(F_tr, pd.DataFrame) and isinstance(S_te, pd.Series)
    assert isinstance(L_tr, list) and len(L_te) == 3
    np.testing.assert_array_equal(J_tr, X_tr)
    np.testing.assert_array_equal(F_te.to_numpy(), X_te)
    rows_te = X_te[:, 0].astype(int) // 3
    np.testing.assert_array_equal(F_te.index, 100 + rows_te)  # pandas keeps its index labels
    np.testing.assert_array_equal(S_te.to_numpy(), rows_te)
    assert L_te == [f"row{i}" for i in rows_te]
    split = train_test_indices(n, test_size=0.25, key=jax.random.key(2))
    np.testing.assert_array_equal(X_te, X[np.asarray(split.test_index)])


def test_deprecated_key_first_call_warns_and_returns_the_0_1_result():
    y = np.array([0, 1] * 10)
    with pytest.warns(DeprecationWarning, match="train_test_indices"):
        old = train_test_split(jax.random.key(4), 20, test_size=0.3)
    assert isinstance(old, TrainTestSplit)
    new = train_test_indices(20, test_size=0.3, key=jax.random.key(4))
    for a, b in zip(old, new):
        np.testing.assert_array_equal(a, b)
    with pytest.warns(DeprecationWarning, match="train_test_indices"):
        old = train_test_split(jax.random.key(1), 20, 0.25, y)  # all four positionally
    for a, b in zip(old, _legacy_train_test_split(jax.random.key(1), 20, 0.25, y)):
        np.testing.assert_array_equal(a, b)
    with pytest.warns(DeprecationWarning, match="train_test_indices"):
        old = train_test_split(jax.random.key(4), n=20, test_size=0.3)  # 0.1's keyword n=
    for a, b in zip(old, train_test_indices(20, test_size=0.3, key=jax.random.key(4))):
        np.testing.assert_array_equal(a, b)
    with pytest.raises(TypeError, match=r"unexpected keyword arguments \['m'\]"):
        train_test_split(np.arange(4), m=3)


@pytest.mark.full
def test_fold_indices_roundtrip():
    w = kfold_weights(9, 3, key=jax.random.key(0))
    for k, (tr, va) in enumerate(fold_indices(w)):
        rebuilt = np.zeros(9)
        rebuilt[tr] = 1
        np.testing.assert_array_equal(rebuilt, w[k])
        assert np.intersect1d(tr, va).size == 0


# --------------------------------------------------------------------------- deprecated spellings
def test_kfold_deprecated_keywords_warn_and_give_the_same_folds():
    with pytest.warns(DeprecationWarning, match=r"kfold_weights\(n_splits=\)"):
        old = kfold_weights(10, k=3)
    np.testing.assert_array_equal(old, kfold_weights(10, n_splits=3))
    with pytest.warns(DeprecationWarning, match=r"kfold_weights\(n_samples=\)"):
        old = kfold_weights(n=10, n_splits=3)
    np.testing.assert_array_equal(old, kfold_weights(n_samples=10, n_splits=3))


def test_kfold_deprecated_positional_key_warns_and_gives_the_same_folds():
    with pytest.warns(DeprecationWarning, match="key=key"):
        old = kfold_weights(10, 3, jax.random.key(1))
    np.testing.assert_array_equal(old, kfold_weights(10, 3, key=jax.random.key(1)))


def test_stratified_deprecated_spellings_warn_and_give_the_same_folds():
    y = np.arange(12) % 2
    with pytest.warns(DeprecationWarning, match=r"stratified_kfold_weights\(n_splits=\)"):
        old = stratified_kfold_weights(y, k=3)
    np.testing.assert_array_equal(old, stratified_kfold_weights(y, n_splits=3))
    with pytest.warns(DeprecationWarning, match="key=key"):
        old = stratified_kfold_weights(y, 3, jax.random.key(1))
    np.testing.assert_array_equal(old, stratified_kfold_weights(y, 3, key=jax.random.key(1)))


# --------------------------------------------------------------------------- bad input
def test_kfold_n_splits_below_two():
    with pytest.raises(ValueError, match="n_splits must be >= 2, got 1"):
        kfold_weights(10, 1)


def test_kfold_n_splits_above_n_samples():
    with pytest.raises(ValueError, match="n_splits must be <= the number of rows n_samples=5, got n_splits=6"):
        kfold_weights(5, 6)


def test_kfold_n_splits_not_int():
    with pytest.raises(TypeError, match="n_splits must be an int"):
        kfold_weights(10, 2.5)


def test_kfold_n_samples_too_small():
    with pytest.raises(ValueError, match="n_samples must be >= 2"):
        kfold_weights(1, 2)


def test_kfold_int_key_rejected():
    with pytest.raises(TypeError, match="key must be a jax.random key"):
        kfold_weights(10, 2, key=0)


def test_kfold_old_and_new_keyword_together():
    with pytest.raises(TypeError, match="got both k= .deprecated. and n_splits="):
        kfold_weights(10, k=2, n_splits=2)


def test_stratified_n_splits_above_n_samples():
    with pytest.raises(ValueError, match="n_splits must be <= the number of rows n_samples=4"):
        stratified_kfold_weights([0, 1, 0, 1], 5)


def test_stratified_y_not_1d():
    with pytest.raises(ValueError, match="y must be 1-d"):
        stratified_kfold_weights(np.zeros((4, 2)), 2)


@pytest.mark.parametrize("name", ["test_size", "train_size"])
@pytest.mark.parametrize("value", [0.0, 1.0, 1.5, -0.1])
def test_split_fraction_out_of_range(name, value):
    with pytest.raises(ValueError, match=rf"{name} must be in \(0, 1\) as a fraction, got"):
        train_test_split(np.zeros(10), **{name: value})


@pytest.mark.parametrize("name", ["test_size", "train_size"])
@pytest.mark.parametrize("value", [0, 10])
def test_split_count_out_of_range(name, value):
    with pytest.raises(ValueError, match=f"{name} must be between 1 and n_samples - 1 = 9"):
        train_test_indices(10, **{name: value})


@pytest.mark.parametrize("value", ["0.2", True])
def test_split_size_wrong_type(value):
    with pytest.raises(TypeError, match="test_size must be a float in"):
        train_test_indices(10, test_size=value)


def test_split_fractions_summing_above_one():
    with pytest.raises(ValueError, match=r"test_size \+ train_size must be <= 1"):
        train_test_indices(10, test_size=0.5, train_size=0.6)


def test_split_counts_above_n_samples():
    with pytest.raises(ValueError, match="more than n_samples=10"):
        train_test_indices(10, test_size=6, train_size=5)


def test_split_no_arrays():
    with pytest.raises(ValueError, match="at least one array"):
        train_test_split()


def test_split_inconsistent_lengths():
    with pytest.raises(ValueError, match=r"inconsistent numbers of rows: \[10, 9\]"):
        train_test_split(np.zeros(10), np.zeros(9))


def test_split_empty_arrays():
    with pytest.raises(ValueError, match="the arrays are empty"):
        train_test_split(np.zeros((0, 2)))


def test_split_one_row():
    with pytest.raises(ValueError, match="at least 2 rows"):
        train_test_split(np.zeros((1, 2)))


def test_split_none_or_scalar_array():
    with pytest.raises(TypeError, match="array 1 is None"):
        train_test_split(np.zeros(4), None)
    with pytest.raises(TypeError, match="array 0 is a 0-d array"):
        train_test_split(np.float64(3.0))


def test_split_shuffle_not_bool():
    with pytest.raises(TypeError, match="shuffle"):
        train_test_indices(10, shuffle="no")


def test_split_stratify_without_shuffle():
    with pytest.raises(ValueError, match="stratify needs shuffle=True"):
        train_test_split(np.zeros(10), stratify=[0, 1] * 5, shuffle=False)


def test_split_stratify_wrong_length():
    with pytest.raises(ValueError, match="stratify must have length n_samples=10, got 8"):
        train_test_indices(10, stratify=[0, 1] * 4)


def test_split_stratify_singleton_class():
    with pytest.raises(ValueError, match="every class needs at least 2 rows"):
        train_test_indices(5, stratify=[0, 0, 0, 0, 1])


def test_split_stratify_test_set_smaller_than_the_classes():
    with pytest.raises(ValueError, match="the test set has 2 rows, fewer than the 3 classes"):
        train_test_indices(9, test_size=2, stratify=[0, 1, 2] * 3)


def test_split_key_not_a_key():
    with pytest.raises(TypeError, match="key must be a jax.random key"):
        train_test_indices(10, key=3)
