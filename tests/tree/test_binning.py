"""Binning: exact midpoint edges, weighted quantiles, the missing bin, dtypes, bad input."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxclassic.tree.binning import apply_bins, bin_features

RNG = np.random.default_rng(0)


def test_exact_edges_are_midpoints_of_distinct_values():
    X = RNG.integers(0, 20, size=(200, 3)).astype(float)
    codes, edges = bin_features(X, n_bins=32)
    for j in range(3):
        v = np.unique(X[:, j])
        expect = (v[:-1] + v[1:]) / 2  # scikit-learn's thresholds
        np.testing.assert_array_equal(np.asarray(edges[j, : v.size - 1]), expect)
        assert np.all(np.isinf(np.asarray(edges[j, v.size - 1:])))
        # exact: one bin per distinct value, in order
        np.testing.assert_array_equal(np.asarray(codes[:, j]), np.searchsorted(v, X[:, j]))


def test_code_rule_and_missing_bin():
    X = RNG.normal(size=(300, 2))
    X[::7, 1] = np.nan
    codes, edges = bin_features(X, n_bins=16)
    c, e = np.asarray(codes), np.asarray(edges)
    assert codes.dtype == jnp.uint8 and e.shape == (2, 15)
    assert np.all(c[::7, 1] == 16)
    ok = ~np.isnan(X)
    for b in range(15):  # code <= b  <=>  x <= edges[b]
        for j in range(2):
            np.testing.assert_array_equal((c[:, j] <= b)[ok[:, j]], (X[:, j] <= e[j, b])[ok[:, j]])
    # quantile bins: about equal frequency (300 rows / 16 bins = 18.75, ties impossible)
    counts = np.bincount(c[:, 0], minlength=16)
    assert counts.min() >= 17 and counts.max() <= 20


def test_apply_bins_jitted_on_new_data_equals_numpy():
    X = RNG.normal(size=(100, 2))
    _, edges = bin_features(X, n_bins=8)
    Z = RNG.normal(size=(50, 2)) * 2
    Z[0, 0] = np.nan
    codes = np.asarray(jax.jit(apply_bins)(jnp.asarray(Z), edges))
    for j in range(2):
        expect = np.searchsorted(np.asarray(edges[j]), Z[:, j], side="left")
        expect[np.isnan(Z[:, j])] = 8
        np.testing.assert_array_equal(codes[:, j], expect)


def test_weighted_quantiles_equal_repeated_rows():
    X = RNG.normal(size=(120, 1))
    w = RNG.integers(0, 4, size=120)
    _, e_w = bin_features(X, n_bins=10, sample_weight=w.astype(float))
    _, e_r = bin_features(np.repeat(X, w, axis=0), n_bins=10)
    np.testing.assert_array_equal(np.asarray(e_w), np.asarray(e_r))


def test_zero_weight_rows_do_not_shape_the_edges():
    X = RNG.integers(0, 10, size=(50, 2)).astype(float)
    pad = np.vstack([X, np.full((5, 2), 100.0)])
    w = np.r_[np.ones(50), np.zeros(5)]
    _, e = bin_features(X, n_bins=16)
    _, e_pad = bin_features(pad, n_bins=16, sample_weight=w)
    np.testing.assert_array_equal(np.asarray(e), np.asarray(e_pad))


def test_uint16_codes_at_256_bins():
    X = np.arange(400, dtype=float)[:, None]
    codes, edges = bin_features(X, n_bins=256)
    assert codes.dtype == jnp.uint16 and edges.shape == (1, 255)
    assert int(codes.max()) == 255


def test_constant_and_all_nan_features():
    X = np.c_[np.full(10, 3.0), np.full(10, np.nan), np.arange(10.0)]
    codes, edges = bin_features(X, n_bins=4)
    assert np.all(np.isinf(np.asarray(edges[:2])))
    np.testing.assert_array_equal(np.asarray(codes[:, 0]), 0)
    np.testing.assert_array_equal(np.asarray(codes[:, 1]), 4)  # every row in the missing bin


def test_float32_edges_keep_dtype():
    X = RNG.normal(size=(50, 2)).astype(np.float32)
    _, edges = bin_features(X, n_bins=8)
    assert edges.dtype == jnp.float32


@pytest.mark.parametrize("n_bins", [1, 257, 0])
def test_bad_n_bins(n_bins):
    with pytest.raises(ValueError, match="n_bins"):
        bin_features(np.zeros((4, 1)), n_bins=n_bins)


def test_n_bins_must_be_int():
    with pytest.raises(TypeError, match="n_bins"):
        bin_features(np.zeros((4, 1)), n_bins=3.5)


def test_inf_is_rejected():
    with pytest.raises(ValueError, match="inf"):
        bin_features(np.array([[0.0], [np.inf]]))
