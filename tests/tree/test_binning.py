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


# --------------------------------------------------------------------------- traced input
@pytest.mark.full
@pytest.mark.parametrize("weights", ["none", "counts", "real"])
def test_traced_edges_equal_the_host_edges(weights):
    """Inside jit (X and weights traced) the edges are computed in JAX by the host's rule:
    exact midpoints (<= n_bins distinct), weighted quantiles (more), zero-weight rows and NaN
    left out, constant columns without edges; equal bit for bit on this data."""
    rng = np.random.default_rng(3)
    n = 90
    X = np.c_[rng.integers(0, 5, n), rng.normal(size=n), np.full(n, 3.0), rng.integers(0, 40, n)].astype(float)
    X[::9, 1] = np.nan
    w = {"none": None, "counts": rng.integers(0, 4, n).astype(float),
         "real": rng.uniform(0, 2, n) * (rng.random(n) > 0.3)}[weights]
    codes, edges = bin_features(X, 16, sample_weight=w)
    traced = jax.jit(lambda X, w: bin_features(X, 16, sample_weight=w))(jnp.asarray(X), None if w is None else jnp.asarray(w))
    np.testing.assert_array_equal(np.asarray(traced[1]), np.asarray(edges))
    np.testing.assert_array_equal(np.asarray(traced[0]), np.asarray(codes))


@pytest.mark.full
def test_traced_edges_ignore_zero_weight_rows_like_slicing():
    """vmap over 0/1 fold weights: each fold's edges are those of its sliced rows."""
    rng = np.random.default_rng(4)
    X = rng.normal(size=(60, 2))
    X[:, 1] = np.round(X[:, 1] * 2)  # a few distinct values: exact edges
    folds = (rng.random((3, 60)) > 0.4).astype(float)
    batched = jax.vmap(lambda w: bin_features(X, 8, sample_weight=w)[1])(jnp.asarray(folds))
    for k in range(3):
        _, ref = bin_features(X[folds[k] > 0], 8)
        np.testing.assert_array_equal(np.asarray(batched[k]), np.asarray(ref))


# --------------------------------------------------------------------------- split points (issue 23.3)
def test_midpoint_below_float32_is_scikit_learns_float64_midpoint_rounded_down():
    """float32 pairs: the float64 midpoint ``a/2 + b/2`` (scikit-learn's number, exact here)
    rounded down to float32, including adjacent floats and every scale."""
    from jaxclassic.tree.binning import midpoint_below

    rng = np.random.default_rng(1)
    a = (rng.normal(size=4000) * 10.0 ** rng.integers(-30, 30, size=4000)).astype(np.float32)
    step = np.abs(a) * rng.choice([0.0, 1e-7, 1e-3, 1.0], size=4000)
    b = np.maximum(np.nextafter(a, np.float32(np.inf)), (a + step).astype(np.float32))
    t = np.asarray(jax.jit(midpoint_below)(jnp.asarray(a), jnp.asarray(b)))
    mid = a.astype(np.float64) / 2 + b.astype(np.float64) / 2
    assert t.dtype == np.float32
    assert np.all(t.astype(np.float64) <= mid) and np.all(np.nextafter(t, np.float32(np.inf)).astype(np.float64) > mid)
    assert np.all((a <= t) & (t < b))
    inf = np.float32(np.inf)
    assert float(midpoint_below(jnp.float32(-inf), jnp.float32(1))) == -inf
    assert float(midpoint_below(jnp.float32(1), jnp.float32(inf))) == inf


@pytest.mark.full
def test_midpoint_below_float64_is_the_exact_midpoint_rounded_down():
    from fractions import Fraction

    from jaxclassic.tree.binning import midpoint_below

    a = RNG.normal(size=300) * 1e3
    b = np.where(RNG.random(300) < 0.3, np.nextafter(a, np.inf), a + np.abs(RNG.normal(size=300)))
    t = np.asarray(midpoint_below(jnp.asarray(a), jnp.asarray(b)))
    for ai, bi, ti in zip(a, b, t):
        mid = (Fraction(float(ai)) + Fraction(float(bi))) / 2
        assert Fraction(float(ti)) <= mid < Fraction(float(np.nextafter(ti, np.inf)))


@pytest.mark.full
def test_bin_ranges_hold_each_bins_least_and_largest_positive_weight_value():
    from jaxclassic.tree.binning import bin_ranges

    X = RNG.normal(size=(200, 2))
    X[::9, 0] = np.nan
    w = RNG.integers(0, 3, size=200).astype(float)
    codes, _ = bin_features(X, 8, sample_weight=w)
    lo, hi = (np.asarray(r) for r in bin_ranges(X, codes, 8, sample_weight=w))
    c = np.asarray(codes)
    assert lo.shape == hi.shape == (2, 8)
    for j in range(2):
        for b in range(8):
            v = X[(c[:, j] == b) & (w > 0), j]
            assert (lo[j, b], hi[j, b]) == ((v.min(), v.max()) if v.size else (np.inf, -np.inf))
    # exact binning: both are the bin's one distinct value
    Xi = RNG.integers(0, 5, size=(50, 1)).astype(float)
    codes, _ = bin_features(Xi, 8)
    lo, hi = bin_ranges(Xi, codes, 8)
    np.testing.assert_array_equal(np.asarray(lo)[0, :5], np.arange(5.0))
    np.testing.assert_array_equal(np.asarray(hi)[0, :5], np.arange(5.0))
    # traced (jit) as on the host
    traced = jax.jit(lambda X, w: bin_ranges(X, codes, 8, sample_weight=w))(jnp.asarray(Xi), jnp.ones(50))
    np.testing.assert_array_equal(np.asarray(traced[0]), np.asarray(lo))


def test_bin_ranges_bad_codes():
    from jaxclassic.tree.binning import bin_ranges

    with pytest.raises(ValueError, match="codes must be the unsigned integer codes of X"):
        bin_ranges(np.zeros((4, 2)), np.zeros((4, 3), np.uint8), 8)
