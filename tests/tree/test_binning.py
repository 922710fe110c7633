"""Binning: exact midpoint edges, weighted quantiles, the missing bin, dtypes, bad input."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxclassic.tree import binning
from jaxclassic.tree.binning import apply_bins, bin_features, fewest_bins


def test_exact_edges_are_midpoints_of_distinct_values():
    rng = np.random.default_rng(1)
    X = rng.integers(0, 20, size=(200, 3)).astype(float)
    codes, edges = bin_features(X, n_bins=32)
    for j in range(3):
        v = np.unique(X[:, j])
        expect = (v[:-1] + v[1:]) / 2  # scikit-learn's thresholds
        np.testing.assert_array_equal(np.asarray(edges[j, : v.size - 1]), expect)
        assert np.all(np.isinf(np.asarray(edges[j, v.size - 1:])))
        # exact: one bin per distinct value, in order
        np.testing.assert_array_equal(np.asarray(codes[:, j]), np.searchsorted(v, X[:, j]))


def test_code_rule_and_missing_bin():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(300, 2))
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
    rng = np.random.default_rng(3)
    X = rng.normal(size=(100, 2))
    _, edges = bin_features(X, n_bins=8)
    Z = rng.normal(size=(50, 2)) * 2
    Z[0, 0] = np.nan
    codes = np.asarray(jax.jit(apply_bins)(jnp.asarray(Z), edges))
    for j in range(2):
        expect = np.searchsorted(np.asarray(edges[j]), Z[:, j], side="left")
        expect[np.isnan(Z[:, j])] = 8
        np.testing.assert_array_equal(codes[:, j], expect)


def test_weighted_quantiles_equal_repeated_rows():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(120, 1))
    w = rng.integers(0, 4, size=120)
    _, e_w = bin_features(X, n_bins=10, sample_weight=w.astype(float))
    _, e_r = bin_features(np.repeat(X, w, axis=0), n_bins=10)
    np.testing.assert_array_equal(np.asarray(e_w), np.asarray(e_r))


def test_zero_weight_rows_do_not_shape_the_edges():
    rng = np.random.default_rng(5)
    X = rng.integers(0, 10, size=(50, 2)).astype(float)
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
    rng = np.random.default_rng(6)
    X = rng.normal(size=(50, 2)).astype(np.float32)
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
    rng = np.random.default_rng(7)
    from fractions import Fraction

    from jaxclassic.tree.binning import midpoint_below

    a = rng.normal(size=300) * 1e3
    b = np.where(rng.random(300) < 0.3, np.nextafter(a, np.inf), a + np.abs(rng.normal(size=300)))
    t = np.asarray(midpoint_below(jnp.asarray(a), jnp.asarray(b)))
    for ai, bi, ti in zip(a, b, t):
        mid = (Fraction(float(ai)) + Fraction(float(bi))) / 2
        assert Fraction(float(ti)) <= mid < Fraction(float(np.nextafter(ti, np.inf)))


@pytest.mark.full
def test_bin_ranges_hold_each_bins_least_and_largest_positive_weight_value():
    rng = np.random.default_rng(8)
    from jaxclassic.tree.binning import bin_ranges

    X = rng.normal(size=(200, 2))
    X[::9, 0] = np.nan
    w = rng.integers(0, 3, size=200).astype(float)
    codes, _ = bin_features(X, 8, sample_weight=w)
    lo, hi = (np.asarray(r) for r in bin_ranges(X, codes, 8, sample_weight=w))
    c = np.asarray(codes)
    assert lo.shape == hi.shape == (2, 8)
    for j in range(2):
        for b in range(8):
            v = X[(c[:, j] == b) & (w > 0), j]
            assert (lo[j, b], hi[j, b]) == ((v.min(), v.max()) if v.size else (np.inf, -np.inf))
    # exact binning: both are the bin's one distinct value
    Xi = rng.integers(0, 5, size=(50, 1)).astype(float)
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


def _columns_of(distinct, n, rng):
    """``n`` rows whose columns have 5 and ``distinct`` distinct values, shuffled."""
    return np.c_[rng.integers(0, 5, n), rng.permutation(np.arange(n) % distinct) * 0.37 - 3.0].astype(float)


def test_fewest_bins_is_the_least_bucket_above_the_distinct_count():
    """b is the least of 32, 64, 128 with D + 1 <= b < n_bins (one +inf edge left for the
    all-non-missing split), when the values repeat (2 D <= n); NaN is not a value."""
    rng = np.random.default_rng(9)
    assert fewest_bins(_columns_of(31, 400, rng)) == 32
    assert fewest_bins(_columns_of(32, 400, rng)) == 64  # 32 values leave no +inf edge at 32 bins
    assert fewest_bins(_columns_of(63, 400, rng)) == 64
    assert fewest_bins(_columns_of(127, 400, rng)) == 128
    assert fewest_bins(_columns_of(128, 400, rng)) == 255
    X = _columns_of(31, 400, rng)
    X[::7, 1] = np.nan
    assert fewest_bins(X) == 32
    assert fewest_bins(_columns_of(31, 61, rng)) == 255  # 2 * 31 > 61 rows: continuous
    assert fewest_bins(_columns_of(31, 62, rng)) == 32
    assert fewest_bins(_columns_of(31, 400, rng), 32) == 32  # no bucket below the request
    assert fewest_bins(_columns_of(40, 400, rng), 64) == 64
    assert fewest_bins(_columns_of(20, 400, rng), 64) == 32
    assert fewest_bins(_columns_of(20, 400, rng), 255, max_elements=100) == 255  # not read
    assert fewest_bins(np.zeros((0, 2)), 255) == 255
    # the strided probe sees few values, the full count more: not fooled
    X = np.repeat(np.arange(10.0), 1000)[:, None]
    X[1::100, 0] = np.arange(100, 200)
    assert fewest_bins(X) == 128


@pytest.mark.parametrize("distinct", [31, 32])
def test_cart_at_the_fewest_bins_equals_cart_at_255(distinct):
    """The bins fewest_bins picks give the same tree as 255 bins, field for field (missing
    values included), at both sides of the 32-bin boundary."""
    from jaxclassic.tree import fit_cart

    rng = np.random.default_rng(10)
    X = _columns_of(distinct, 400, rng)
    X[::11, 1] = np.nan
    y = ((X[:, 1] > 0) ^ (X[:, 0] > 2) ^ (rng.random(400) < 0.1)).astype(np.int32)
    b = fewest_bins(X)
    assert b == (32 if distinct == 31 else 64)
    ours, ref = (fit_cart(X, y, n_bins=k, n_classes=2) for k in (b, 255))
    for name, a, r in zip(ref._fields, ours, ref):
        a, r = np.asarray(a), np.asarray(r)
        if name == "bin_edges":  # (F, n_bins - 1): the same edges, then +inf to 254
            assert np.all(np.isinf(r[:, b - 1:]))
            r = r[:, : b - 1]
        np.testing.assert_array_equal(a, r, err_msg=name)


@pytest.mark.full
def test_boosting_at_the_fewest_bins_equals_boosting_at_255():
    """Gradient boosting, XGBoost-style boosting (max_bin), a forest and AdaBoost at the
    bins fewest_bins picks predict as at 255/256 bins (missing values included)."""
    from jaxclassic import ensemble

    rng = np.random.default_rng(11)
    X = _columns_of(31, 400, rng)
    X[::11, 1] = np.nan
    y = ((X[:, 1] > 0) ^ (X[:, 0] > 2) ^ (rng.random(400) < 0.1)).astype(np.int32)
    assert fewest_bins(X) == 32
    key = jax.random.key(0)
    fits = {
        "gradient_boosting": (lambda k: ensemble.fit_gradient_boosting(X, y, loss="log_loss", n_estimators=5,
                                                                       max_depth=3, n_bins=k), 255),
        "xgboost": (lambda k: ensemble.fit_xgboost(X, y, loss="log_loss", n_estimators=5, max_depth=3,
                                                   max_bin=k), 256),
        "forest": (lambda k: ensemble.fit_random_forest(X, y, n_estimators=4, key=key, n_classes=2,
                                                        n_bins=k), 255),
    }
    for name, (fit, full) in fits.items():
        ours, ref = fit(32), fit(full)
        np.testing.assert_array_equal(np.asarray(ensemble.predict(ours, X)), np.asarray(ensemble.predict(ref, X)),
                                      err_msg=name)
    Xa = np.nan_to_num(X, nan=-9.0)  # AdaBoost's trees take no missing values
    ours, ref = (ensemble.fit_adaboost(Xa, y, n_estimators=5, n_bins=k, n_classes=2) for k in (32, 255))
    np.testing.assert_array_equal(np.asarray(ensemble.predict(ours, Xa)), np.asarray(ensemble.predict(ref, Xa)))


def _reference_edges(column, n_bins):
    """The binning rule written out for one column (module docstring): midpoints of the
    distinct values when at most ``n_bins``, else the midpoint after the first distinct value
    whose cumulative row share reaches ``k / n_bins`` (``k = 1 .. n_bins - 1``), once each."""
    x = np.sort(column[~np.isnan(column)])
    values, counts = np.unique(x, return_counts=True)
    if values.size <= 1:
        return np.zeros(0, column.dtype)
    if values.size <= n_bins:
        lo, hi = values[:-1], values[1:]
    else:
        share = np.cumsum(counts.astype(np.float64)) / counts.sum()
        picks = []
        for k in range(1, n_bins):
            i = int(np.argmax(share >= k / n_bins - 1e-12))
            i = min(i, values.size - 2)
            if not picks or picks[-1] != i:
                picks.append(i)
        lo, hi = values[picks], values[np.array(picks) + 1]
    mid = lo / 2 + hi / 2
    return np.where(mid < hi, mid, lo)


@pytest.mark.parametrize("seed", range(4))
def test_vectorised_unit_weight_edges_follow_the_rule_feature_by_feature(seed):
    """The unit-weight edges (all features at once) against the rule written per column, on
    columns of every kind in one matrix: continuous, rounded (ties), few integers, constant,
    all-missing, exactly ``n_bins`` and ``n_bins + 1`` distinct values, NaN mixed in; float64
    and float32. Exact equality: both are the same midpoints of the same values."""
    rng = np.random.default_rng(seed)
    n, n_bins = 600, 16
    cols = [rng.standard_normal(n), np.round(rng.standard_normal(n), 1), rng.integers(0, 5, n).astype(float),
            np.full(n, 3.0), np.full(n, np.nan), rng.permutation(np.arange(n) % n_bins).astype(float),
            rng.permutation(np.arange(n) % (n_bins + 1)).astype(float), rng.exponential(size=n) * 1e6]
    X = np.stack(cols, axis=1)
    X[rng.random(X.shape) < 0.1] = np.nan
    for dtype in (np.float64, np.float32):
        Xd = X.astype(dtype)
        _, edges = bin_features(Xd, n_bins=n_bins)
        edges = np.asarray(edges)
        assert edges.dtype == dtype
        for j in range(Xd.shape[1]):
            ref = _reference_edges(Xd[:, j], n_bins)
            np.testing.assert_array_equal(edges[j, : ref.size], ref)
            assert np.all(np.isinf(edges[j, ref.size:]))


def test_unit_weight_edges_equal_the_weighted_path():
    """Rows of weight 2 take the weighted (per-feature) path and give the same shares, so the
    same edges, as unit weights (the vectorised path): 300 random matrices of every size."""
    rng = np.random.default_rng(7)
    for _ in range(300):
        n, n_features = int(rng.integers(1, 500)), int(rng.integers(1, 5))
        n_bins = int(rng.choice([2, 3, 16, 255]))
        X = np.round(rng.standard_normal((n, n_features)) * rng.choice([1, 10, 1000]), int(rng.integers(0, 3)))
        X[rng.random(X.shape) < 0.2] = np.nan
        unit = binning._edges(X, None, n_bins, 200_000)  # host edges alone: no program per shape
        doubled = binning._edges(X, np.full(n, 2.0), n_bins, 200_000)
        np.testing.assert_array_equal(unit, doubled)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_training_codes_equal_apply_bins(dtype):
    """bin_features codes its (concrete) rows on the host; prediction codes new rows with the
    jitted :func:`apply_bins`: the two must agree on every row (ties on edges, NaN, float32)."""
    rng = np.random.default_rng(5)
    X = np.round(rng.normal(size=(400, 3)) * 3, 1).astype(dtype)
    X[rng.random(X.shape) < 0.1] = np.nan
    for n_bins in (4, 32, 255):
        codes, edges = bin_features(X, n_bins=n_bins)
        np.testing.assert_array_equal(np.asarray(codes), np.asarray(apply_bins(jnp.asarray(X), edges)))


def test_bin_ranges_on_the_host_equal_the_compiled_ones():
    """``bin_ranges`` of concrete arrays runs in numpy (``_host_ranges``): the same least and
    largest values per bin as the compiled segment min / max, NaN and zero weights included."""
    rng = np.random.default_rng(0)
    for dt in (np.float32, np.float64):
        for trial in range(12):
            n, f = int(rng.integers(1, 300)), int(rng.integers(1, 6))
            X = rng.normal(size=(n, f)).round(int(rng.integers(0, 3))).astype(dt)
            X[rng.random((n, f)) < 0.1] = np.nan
            if trial == 3:
                X[:, 0] = np.nan
            w = np.where(rng.random(n) < 0.3, 0, rng.random(n)) if trial % 2 else None
            nb = int(rng.choice([2, 4, 16, 255]))
            codes, _ = bin_features(X, nb, sample_weight=w)
            host = binning.bin_ranges(X, codes, nb, sample_weight=w)
            compiled = binning._bin_ranges(jnp.asarray(X), jnp.asarray(codes), None if w is None else jnp.asarray(w, dt), nb)
            for a, b in zip(host, compiled):
                assert isinstance(a, np.ndarray) and a.dtype == b.dtype
                np.testing.assert_array_equal(a, np.asarray(b))
