"""Estimator base: shape buckets, zero-weight padding, label encoding."""

import functools

import numpy as np
import pytest

from jaxclassic.estimators import _base


@pytest.mark.parametrize("n, bucket", [(1, 32), (32, 32), (33, 64), (100, 128), (1024, 1024), (1025, 2048)])
def test_bucket_size(n, bucket):
    assert _base.bucket_size(n) == bucket


def test_pad_rows_appends_zero_weight_rows():
    X = np.arange(6.0).reshape(3, 2)
    y = np.array([1.0, 2.0, 3.0])
    Xp, yp, sw = _base.pad_rows(X, y, np.ones(3), 8)
    assert Xp.shape == (8, 2) and yp.shape == (8,) and sw.shape == (8,)
    np.testing.assert_array_equal(Xp[:3], X)
    np.testing.assert_array_equal(sw, [1, 1, 1, 0, 0, 0, 0, 0])
    assert _base.pad_rows(X, y, np.ones(3), 3)[0] is X


def test_encode_labels_strings_and_single_class():
    class Dummy:
        pass

    d = Dummy()
    codes = _base.encode_labels(d, np.array(["b", "a", "b", "c"]))
    np.testing.assert_array_equal(d.classes_, ["a", "b", "c"])
    np.testing.assert_array_equal(codes, [1, 0, 1, 2])
    with pytest.raises(ValueError, match="at least 2 classes, got 1"):
        _base.encode_labels(Dummy(), np.array([3, 3, 3]))
    with pytest.raises(ValueError, match="Unknown label type"):
        _base.encode_labels(Dummy(), np.array([0.5, 1.5, 2.25]))


@pytest.mark.parametrize("y", [
    np.array([0, 1, 1, 0]), np.array([True, False, True]), np.array([3.0, 1.0, 2.0]),
    np.array([0.5, 1.0]), np.array([1.0, np.nan]), np.array([1.0, np.inf]), np.arange(30),
    np.arange(30.0), np.array([2**40, 1], np.int64), np.array([1e20, 0.0]), np.array(["a", "b"]),
    np.array([[0, 1], [1, 0]]), np.zeros(0, int),
])
def test_encode_labels_skips_type_of_target_only_where_scikit_learn_passes_y(y):
    """The fast test (_discrete_1d) says "discrete" only for a y that scikit-learn's
    check_classification_targets passes without a warning or with its many-classes warning
    (which encode_labels still issues through scikit-learn)."""
    from sklearn.utils.multiclass import type_of_target

    if _base._discrete_1d(y):
        assert type_of_target(y) in ("binary", "multiclass")
    many = y.ndim == 1 and y.shape[0] > 20 and len(np.unique(y)) > round(0.5 * y.shape[0])
    if many:
        with pytest.warns(UserWarning, match="unique classes is greater than 50%"):
            _base.encode_labels(type("Dummy", (), {})(), y)


@pytest.mark.parametrize("n", [4097, 5000, 70_000, 600_000, 1_000_000])
def test_large_buckets_pad_at_most_an_eighth(n):
    # above 4096 rows a power of two could nearly double X (600,000 -> 1,048,576 rows)
    bucket = _base.bucket_size(n)
    assert n <= bucket <= n * 1.125
    assert _base.bucket_size(bucket) == bucket  # a bucket is its own bucket: refits reuse it


def test_no_padding_copy_of_a_large_X():
    big = np.zeros((70_000, 300), np.float32)  # 21M values > MAX_PADDED_SIZE
    assert _base._n_padded(big) == 70_000
    small = np.zeros((100, 3), np.float32)
    assert _base._n_padded(small) == 128


@pytest.mark.full
def test_prepare_fit_keeps_a_contiguous_float32_X_uncopied(monkeypatch):
    """The estimator layer's only copy of a large float32 X is the device buffer."""
    import jax

    from jaxclassic.estimators import LogisticRegression

    seen = []
    real_device_put = jax.device_put
    monkeypatch.setattr(jax, "device_put", lambda a, *args, **kw: seen.append(a) or real_device_put(a, *args, **kw))
    X = np.random.default_rng(0).standard_normal((70_000, 300)).astype(np.float32)
    y = (X[:, 0] > 0).astype(int)
    est = LogisticRegression()

    @_base.dtype_scope
    def prepare(self):
        return _base.prepare_fit(self, X, y, classifier=True)

    Xj, _, _, n = prepare(est)
    assert n == 70_000 and Xj.shape == X.shape and Xj.dtype == np.float32
    assert seen[0] is X  # validated and cast without a copy, not padded


def test_prepare_fit_and_predict_allow_nan_only_when_asked():
    """NaN in X: refused by default (scikit-learn's message), let through with allow_nan
    (trees, forests, boosting read it as missing); inf refused either way."""
    from jaxclassic.estimators import DecisionTreeRegressor

    X = np.array([[0.0], [np.nan], [2.0], [3.0]])
    y = np.array([0.0, 1.0, 2.0, 3.0])
    est = DecisionTreeRegressor()

    @_base.dtype_scope
    def fit(self, X, **kw):
        return _base.prepare_fit(self, X, y, **kw)

    @_base.dtype_scope
    def predict(self, X, **kw):
        return _base.prepare_predict(self, X, attributes=["n_features_in_"], **kw)

    with pytest.raises(ValueError, match="Input X contains NaN"):
        fit(est, X)
    Xj, _, sw, n = fit(est, X, allow_nan=True)
    assert n == 4 and np.isnan(np.asarray(Xj)[1, 0]) and np.asarray(sw)[:4].tolist() == [1.0] * 4
    with pytest.raises(ValueError, match="Input X contains infinity"):
        fit(est, np.where(np.isnan(X), np.inf, X), allow_nan=True)
    with pytest.raises(ValueError, match="Input X contains NaN"):
        predict(est, X)
    Xp, n = predict(est, X, allow_nan=True)
    assert n == 4 and np.isnan(np.asarray(Xp)[1, 0])


def _aligned(shape, dtype, alignment=64):
    """An uninitialised array at an ``alignment``-byte address (what ``jax.device_put`` on the CPU
    takes without copying when the dtype matches)."""
    nbytes = int(np.prod(shape)) * np.dtype(dtype).itemsize
    raw = np.empty(nbytes + alignment, np.uint8)
    offset = -raw.ctypes.data % alignment
    return raw[offset:offset + nbytes].view(dtype).reshape(shape)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_to_core_never_aliases_its_input(dtype):
    """jax.device_put aliases an aligned host buffer of its dtype on the CPU (jax 0.10.2); to_core
    copies such a buffer, so a core that keeps its input does not see the caller's later edits."""
    import jax

    X = _aligned((512, 3), dtype)
    X[...] = np.arange(X.size).reshape(X.shape)
    with jax.enable_x64(dtype == np.float64):
        Xj, yj, none = _base.to_core(X, X[:, 0].copy(), None)
    assert none is None and Xj.dtype == dtype
    assert not np.shares_memory(np.asarray(Xj), X)
    X *= -1
    assert np.array_equal(np.asarray(Xj), -X)


@pytest.mark.parametrize("name", ["KNeighborsClassifier", "KNeighborsRegressor", "KernelDensity"])
def test_fitted_state_ignores_in_place_edits_of_X_and_y(name):
    """At a bucket size (512 rows: no padding copy) an aligned X (and a regressor's y) reached the
    device uncopied and was aliased by device_put: a k-NN or KDE fit, which stores them, then
    changed its predictions when the caller edited X or y in place."""
    import jax

    import jaxclassic.estimators as jc

    rng = np.random.default_rng(0)
    X = _aligned((512, 3), np.float32)
    X[...] = rng.normal(size=X.shape)
    y = _aligned((512,), np.float32)  # float32 as X: the regressor keeps it uncast
    y[...] = X[:, 0] > 0
    query = rng.normal(size=(7, 3)).astype(np.float32)
    est = getattr(jc, name)()
    if name == "KernelDensity":
        out = functools.partial(est.fit(X).score_samples, query)
    else:
        est.fit(X, y)
        out = functools.partial(getattr(est, "predict_proba", est.predict), query)
    before = out()
    leaves = [v for v in jax.tree.leaves(est.params_) if isinstance(v, np.ndarray)]
    assert not any(np.shares_memory(v, X) or np.shares_memory(v, y) for v in leaves)
    X *= -1
    y *= -1
    np.testing.assert_array_equal(out(), before)
