"""validation: each bad-input case raises a clear error naming the argument, before tracing."""

import jax
import jax.numpy as jnp
import numpy as np
import pandas as pd
import pytest

from jaxclassic import validation as v


@pytest.mark.full
def test_converts_array_likes_and_keeps_float_dtype():
    assert v.check_array([[1, 2], [3, 4]]).dtype == jnp.float64  # ints -> default float (x64 on)
    assert v.check_array(np.ones((2, 2), np.float32)).dtype == jnp.float32
    df = pd.DataFrame({"a": [1.0, 2.0], "b": [3.0, 4.0]})
    np.testing.assert_array_equal(v.check_array(df), [[1.0, 3.0], [2.0, 4.0]])
    assert v.check_array(jnp.ones((3, 1))).shape == (3, 1)
    assert v.check_array(pd.Series([1, 2, 3]), "y", ndim=1).shape == (3,)


def test_float64_downcast_when_x64_off():
    with jax.enable_x64(False):
        assert v.check_array(np.ones((2, 2))).dtype == jnp.float32
        assert v.default_float_dtype() == jnp.float32


@pytest.mark.parametrize("bad, match", [
    (np.array([[1.0, np.nan]]), r"X contains 1 NaN value\(s\); it must be finite"),
    (np.array([[1.0, np.inf]]), r"X contains 1 inf value\(s\)"),
])
def test_rejects_non_finite(bad, match):
    with pytest.raises(ValueError, match=match):
        v.check_array(bad)


def test_allow_nan_still_rejects_inf():
    assert v.check_array(np.array([[np.nan, 1.0]]), allow_nan=True).shape == (1, 2)
    with pytest.raises(ValueError, match="inf"):
        v.check_array(np.array([[np.inf, 1.0]]), allow_nan=True)


def test_rejects_wrong_ndim():
    with pytest.raises(ValueError, match=r"X must be 2-d, got an array of shape \(3,\)"):
        v.check_array(np.ones(3))
    with pytest.raises(ValueError, match=r"y must be 1-d"):
        v.check_array(np.ones((3, 2)), "y", ndim=1)


def test_rejects_empty():
    with pytest.raises(ValueError, match=r"X must have at least 1 sample\(s\).*empty"):
        v.check_array(np.ones((0, 3)))
    with pytest.raises(ValueError, match=r"at least 1 feature"):
        v.check_array(np.ones((3, 0)))


def test_rejects_strings_and_complex():
    with pytest.raises(TypeError, match=r"X must be numeric, got dtype <U1"):
        v.check_array(np.array([["a", "b"]]))
    with pytest.raises(TypeError, match="complex"):
        v.check_array(np.ones((2, 2), complex))
    with pytest.raises(TypeError, match="numeric"):
        v.check_array(np.array([["a", 1]], dtype=object))


def test_ragged_input():
    with pytest.raises(ValueError, match="X could not be converted"):
        v.check_array([[1.0, 2.0], [3.0]])


def test_mismatched_lengths():
    with pytest.raises(ValueError, match=r"X and y have inconsistent numbers of samples: 3 != 2"):
        v.check_X_y(np.ones((3, 2)), np.ones(2))


def test_sample_weight_checks():
    np.testing.assert_array_equal(v.check_sample_weight(None, 3), np.ones(3))
    np.testing.assert_array_equal(v.check_sample_weight(2.0, 3), [2.0, 2.0, 2.0])
    with pytest.raises(ValueError, match=r"sample_weight must be non-negative, got 1 negative"):
        v.check_sample_weight([1.0, -1.0, 1.0], 3)
    with pytest.raises(ValueError, match="all zeros"):
        v.check_sample_weight([0.0, 0.0, 0.0], 3)
    with pytest.raises(ValueError, match=r"sample_weight must have shape \(3,\), got \(2,\)"):
        v.check_sample_weight([1.0, 1.0], 3)
    with pytest.raises(ValueError, match="sample_weight contains 1 NaN"):
        v.check_sample_weight([1.0, np.nan, 1.0], 3)


def test_classification_targets():
    y, c = v.check_classification_targets([0, 1, 2, 1])
    assert c == 3 and y.dtype == jnp.int32
    with pytest.raises(ValueError, match=r"y must contain at least 2 classes, got 1"):
        v.check_classification_targets([1, 1, 1])
    with pytest.raises(TypeError, match="encode string labels"):
        v.check_classification_targets(np.array(["a", "b"]))
    with pytest.raises(ValueError, match="integer values"):
        v.check_classification_targets([0.5, 1.0])
    with pytest.raises(ValueError, match="class codes >= 0"):
        v.check_classification_targets([-1, 0, 1])
    # a class present only with zero weight does not count
    with pytest.raises(ValueError, match="at least 2 classes, got 1"):
        v.check_classification_targets([0, 1, 1], sample_weight=np.array([0.0, 1.0, 1.0]))


def test_scalar_int_choice_key():
    assert v.check_scalar(0.5, "alpha", low=0) == 0.5
    with pytest.raises(ValueError, match=r"alpha must be >= 0, got -1"):
        v.check_scalar(-1.0, "alpha", low=0)
    with pytest.raises(ValueError, match=r"C must be > 0, got 0"):
        v.check_scalar(0.0, "C", low=0, include_low=False)
    with pytest.raises(ValueError, match="tol must be finite"):
        v.check_scalar(float("nan"), "tol")
    with pytest.raises(TypeError, match="alpha must be a real number, got str"):
        v.check_scalar("1", "alpha")
    with pytest.raises(ValueError, match=r"max_depth must be >= 1, got 0"):
        v.check_int(0, "max_depth", low=1)
    with pytest.raises(TypeError, match="max_iter must be an int, got float"):
        v.check_int(2.0, "max_iter")
    with pytest.raises(ValueError, match=r"method must be one of \['newton', 'lbfgs'\], got 'x'"):
        v.check_choice("x", "method", ["newton", "lbfgs"])
    with pytest.raises(TypeError, match="jax.random.key"):
        v.check_key(0)
    with pytest.raises(ValueError, match="key must be a jax.random key"):
        v.check_key(None)


@pytest.mark.parametrize("flag", [True, False, np.True_, np.False_])
def test_check_bool_accepts_python_and_numpy_bools(flag):
    out = v.check_bool(flag, "fit_intercept")
    assert type(out) is bool and out == bool(flag)


@pytest.mark.parametrize("bad, shown", [("yes", "str 'yes'"), ("no", "str 'no'"), (1, "int 1"),
                                        (0.0, "float 0.0"), (None, "NoneType None"),
                                        (np.array([True]), "ndarray")])
def test_check_bool_rejects_everything_else(bad, shown):
    # bool("no") is True: a string flag silently meant its opposite before (issue 23.5)
    with pytest.raises(TypeError, match=rf"fit_intercept must be a bool, got {shown}"):
        v.check_bool(bad, "fit_intercept")


def test_a_fit_takes_a_numpy_bool_flag():
    from jaxclassic.linear import fit_ridge

    X = np.arange(12.0).reshape(6, 2); y = X @ np.array([1.0, -1.0]) + 3.0
    ours = fit_ridge(X, y, alpha=1.0, fit_intercept=np.True_)
    want = fit_ridge(X, y, alpha=1.0, fit_intercept=True)
    np.testing.assert_array_equal(ours.coef, want.coef)


def test_value_checks_skipped_under_tracing_but_shapes_checked():
    @jax.jit
    def f(x, w, a):
        x = v.check_array(x)
        w = v.check_sample_weight(w, x.shape[0], x.dtype)
        v.check_scalar(a, "alpha", low=0)
        return (x.sum(axis=1) * w).sum() * a

    assert f(jnp.ones((3, 2)), jnp.ones(3), 2.0) == 12.0
    with pytest.raises(ValueError, match="X must be 2-d"):
        jax.jit(lambda x: v.check_array(x))(jnp.ones(3))


def test_concrete_numpy_inside_jit_is_checked_not_traced():
    # numpy constants closed over inside a jit trace stay concrete: values are still checked
    w = np.array([1.0, -1.0])

    @jax.jit
    def f(x):
        return v.check_sample_weight(w, 2, x.dtype) * x

    with pytest.raises(ValueError, match="non-negative"):
        f(jnp.ones(2))

    @jax.jit
    def g(x):
        y, c = v.check_classification_targets(np.array([0, 1, 1]))
        return x * c

    assert g(1.0) == 2.0


def test_device_arrays_checked_on_device():
    x = jnp.ones((4, 2), jnp.float32)
    assert v.check_array(x) is x  # no copy for an already-valid device array
    with pytest.raises(ValueError, match=r"X contains 1 NaN value\(s\)"):
        v.check_array(x.at[1, 1].set(jnp.nan))
    with pytest.raises(ValueError, match=r"X contains 1 inf"):
        v.check_array(x.at[0, 0].set(jnp.inf))
    with pytest.raises(ValueError, match="X must be 2-d"):
        v.check_array(jnp.ones(3))
    with pytest.raises(ValueError, match="empty"):
        v.check_array(jnp.ones((0, 2)))


def test_overflowing_sum_of_finite_values_is_not_an_error():
    # the fast path sums X; a sum that overflows must fall back to the exact check
    big = jnp.full((4, 2), 3e38, jnp.float32)
    assert v.check_array(big) is big


def test_classifier_data_checks_together():
    X, y, sw, c = v.check_classifier_data(np.ones((4, 2)), [0, 1, 2, 1], None)
    assert c == 3 and sw.shape == (4,) and y.dtype == jnp.int32
    with pytest.raises(ValueError, match="n_classes must be >= 2, got 1"):
        v.check_classifier_data(np.ones((4, 2)), [0, 1, 0, 1], n_classes=1)
    with pytest.raises(ValueError, match="X and y have inconsistent numbers of samples: 4 != 3"):
        v.check_classifier_data(np.ones((4, 2)), [0, 1, 0])
    with pytest.raises(ValueError, match="at least 2 classes, got 1"):
        v.check_classifier_data(np.ones((3, 2)), [0, 1, 1], [0.0, 1.0, 1.0])


def test_check_predict_X_promotes_to_the_params_float_dtype():
    # integer / bool X takes the params' float dtype (not the reverse: issue 8.2); float X is
    # promoted with it; the feature count is checked; tracers keep shape/dtype checks
    assert v.check_predict_X(np.array([[1, 2]]), jnp.float32, 2).dtype == jnp.float32
    assert v.check_predict_X([[True, False]], jnp.float64, 2).dtype == jnp.float64
    assert v.check_predict_X(np.ones((1, 2), np.float32), jnp.float64, 2).dtype == jnp.float64
    assert v.check_predict_X(jnp.ones((1, 2), jnp.float32), jnp.float32, 2).dtype == jnp.float32
    np.testing.assert_array_equal(v.check_predict_X(np.array([[3, -4]]), jnp.float64), [[3.0, -4.0]])
    traced = jax.jit(lambda X: v.check_predict_X(X, jnp.float32, 2))(jnp.ones((1, 2), jnp.int32))
    assert traced.dtype == jnp.float32
    assert v.check_predict_X(np.array([[1, 2]]), jnp.float32, 2, numeric="int").dtype == jnp.int32


@pytest.mark.parametrize("X, error, match", [
    (np.ones((2, 3)), ValueError, "X has 3 features, but the model was fitted with 2 features"),
    (np.array([[1.0, np.nan]]), ValueError, "X contains 1 NaN"),
    (np.ones(2), ValueError, "X must be 2-d"),
    (np.array([["a", "b"]]), TypeError, "X must be numeric"),
])
def test_check_predict_X_bad_input(X, error, match):
    with pytest.raises(error, match=match):
        v.check_predict_X(X, jnp.float64, 2)


def test_classifier_data_integer_codes_and_nan_options():
    # the options the generative classifiers need (one validator for every classifier)
    X, y, sw, c = v.check_classifier_data(np.array([[0, 1], [1, 2]]), [0, 1], numeric="int")
    assert X.dtype == jnp.int32 and sw.dtype == v.default_float_dtype()
    X, _, sw, _ = v.check_classifier_data(np.array([[0, 1], [1, 2]]), [0, 1], np.ones(2, np.float32),
                                          numeric="int")
    assert sw.dtype == jnp.float32
    X, _, _, _ = v.check_classifier_data(np.array([[np.nan, 1.0], [1.0, 2.0]]), [0, 1], allow_nan=True)
    assert np.isnan(np.asarray(X)[0, 0])
    with pytest.raises(ValueError, match="X contains 1 NaN"):
        v.check_classifier_data(np.array([[np.nan, 1.0], [1.0, 2.0]]), [0, 1])
