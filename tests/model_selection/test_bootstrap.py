"""Tests of jaxclassic/model_selection/bootstrap.py: multinomial count weights.

Reference: the expected fraction of distinct rows in a bootstrap sample,
1 - (1 - 1/n)^n (-> 1 - 1/e = 0.632), checked within 4 Monte-Carlo standard errors.
"""

import jax
import numpy as np
import pytest

from jaxclassic.model_selection import bootstrap_weights


def test_counts_are_multinomial_draws_of_n_rows():
    w = np.asarray(bootstrap_weights(50, 20, key=jax.random.key(0)))
    assert w.shape == (20, 50)
    np.testing.assert_array_equal(w.sum(axis=1), np.full(20, 50.0))
    assert (w >= 0).all() and np.array_equal(w, np.round(w))


def test_fraction_of_distinct_rows_is_one_minus_one_minus_one_over_n_to_the_n():
    n, n_resamples = 200, 2000
    w = np.asarray(bootstrap_weights(n, n_resamples, key=jax.random.key(1)))
    fractions = (w > 0).mean(axis=1)
    expected = 1 - (1 - 1 / n) ** n  # 0.6330 for n = 200
    se = fractions.std(ddof=1) / np.sqrt(n_resamples)  # about 4e-4
    assert abs(fractions.mean() - expected) < 4 * se
    assert abs(expected - (1 - np.exp(-1))) < 2e-3


def test_each_row_is_drawn_once_on_average():
    w = np.asarray(bootstrap_weights(20, 4000, key=jax.random.key(2)))
    # per-row count ~ Binomial(n, 1/n): mean 1, variance (1 - 1/n); 4 standard errors
    se = np.sqrt(1 - 1 / 20) / np.sqrt(4000)
    assert np.all(np.abs(w.mean(axis=0) - 1) < 4.5 * se)


def test_same_key_same_resamples():
    a = bootstrap_weights(30, 5, key=jax.random.key(3))
    b = bootstrap_weights(30, 5, key=jax.random.key(3))
    c = bootstrap_weights(30, 5, key=jax.random.key(4))
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


def test_dtype_argument():
    assert bootstrap_weights(5, 2, key=jax.random.key(0), dtype=np.float32).dtype == np.float32


def test_key_none_is_the_default_key():
    np.testing.assert_array_equal(bootstrap_weights(30, 5), bootstrap_weights(30, 5, key=jax.random.key(0)))


def test_deprecated_key_first_warns_and_gives_the_same_resamples():
    with pytest.warns(DeprecationWarning, match=r"bootstrap_weights\(\.\.\., key=key\)"):
        old = bootstrap_weights(jax.random.key(3), 30, 5)
    np.testing.assert_array_equal(old, bootstrap_weights(30, 5, key=jax.random.key(3)))


def test_deprecated_n_keyword_warns_and_gives_the_same_resamples():
    with pytest.warns(DeprecationWarning, match=r"bootstrap_weights\(n_samples=\)"):
        old = bootstrap_weights(n=30, n_resamples=5)
    np.testing.assert_array_equal(old, bootstrap_weights(n_samples=30, n_resamples=5))


def test_bad_n():
    with pytest.raises(ValueError, match="n_samples must be >= 1, got 0"):
        bootstrap_weights(0, 3, key=jax.random.key(0))


def test_bad_n_resamples():
    with pytest.raises(ValueError, match="n_resamples must be >= 1, got 0"):
        bootstrap_weights(5, 0, key=jax.random.key(0))


def test_bad_key():
    with pytest.raises(TypeError, match="key must be a jax.random key"):
        bootstrap_weights(5, 2, key=3)
