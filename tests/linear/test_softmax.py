"""Tests of jaxclassic.linear.softmax (x64 on).

References: scikit-learn's multinomial ``LogisticRegression`` (C = 1/l2), the hand
derivation (gradient (p - onehot) x~, Hessian blocks sum_i s_i (diag p - p p^T)_ab x~ x~^T),
``jax.grad`` / ``jax.hessian`` of the objective, and the textbook equivalence of a two-class
softmax with logistic regression on w = w_1 - w_0. Iris (150 x 4, standardised) throughout.
"""

import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxclassic.linear import decision_function, fit_logistic, fit_softmax, predict, predict_proba
from jaxclassic.exceptions import ConvergenceWarning, PerfectSeparationWarning
from jaxclassic.linear.softmax import (
    NEWTON_MAX_PARAMS,
    _fit_softmax,
    softmax_grad_hess,
    softmax_objective,
)


@pytest.fixture(scope="module")
def iris():
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    return (X - X.mean(0)) / X.std(0), y.astype(np.int32)


@pytest.fixture(scope="module")
def iris_fit(iris):
    X, y = iris
    return fit_softmax(X, y, l2=1.0 / 3.0)


@pytest.mark.full
def test_equals_sklearn_multinomial(iris, iris_fit):
    # sklearn (multinomial, symmetric penalty, C = 3) at tol 1e-12 vs our Newton at
    # |grad J|/n <= 1e-8: both centred, so coefficients agree, not only probabilities.
    from sklearn.linear_model import LogisticRegression

    X, y = iris
    sk = LogisticRegression(C=3.0, tol=1e-12, max_iter=10000).fit(X, y)
    assert bool(iris_fit.converged)
    np.testing.assert_allclose(predict_proba(iris_fit, X), sk.predict_proba(X), atol=1e-7)
    np.testing.assert_allclose(iris_fit.coef, sk.coef_, atol=1e-6)
    np.testing.assert_allclose(iris_fit.intercept, sk.intercept_, atol=1e-6)
    np.testing.assert_array_equal(predict(iris_fit, X), sk.predict(X))


@pytest.mark.full
def test_lbfgs_equals_newton(iris, iris_fit):
    X, y = iris
    params = fit_softmax(X, y, l2=1.0 / 3.0, method="lbfgs", max_iter=500)
    assert bool(params.converged)
    np.testing.assert_allclose(predict_proba(params, X), predict_proba(iris_fit, X), atol=1e-6)


@pytest.mark.full
def test_two_class_softmax_equals_logistic_on_the_difference(iris):
    # P(1|x) = e^{F1} / (e^{F0} + e^{F1}) = sigma((w1 - w0)^T x + b1 - b0). The centred softmax
    # has w0 = -w1, so its penalty (l2/2)(|w0|^2 + |w1|^2) = (l2/4)|w1 - w0|^2: logistic l2/2.
    X, y = iris
    binary = (y == 2).astype(np.int32)
    for l2 in (0.0, 2.0):
        soft = fit_softmax(X, binary, l2=l2)
        logi = fit_logistic(X, binary, l2=l2 / 2)
        assert bool(soft.converged) and bool(logi.converged)
        np.testing.assert_allclose(predict_proba(soft, X), predict_proba(logi, X), atol=1e-9)
        np.testing.assert_allclose(soft.coef[1] - soft.coef[0], logi.coef, rtol=1e-6, atol=1e-7)
        np.testing.assert_allclose(soft.intercept[1] - soft.intercept[0], logi.intercept, atol=1e-7)


def test_autodiff_gradient_and_hessian_equal_hand_derivation(iris):
    X, y = iris
    rng = np.random.default_rng(0)
    n, d = X.shape
    C, l2 = 3, 0.6
    W, b = rng.normal(size=(C, d)) * 0.5, rng.normal(size=C)
    sw = rng.uniform(0.5, 2.0, size=n)
    grad, hess = jax.jit(softmax_grad_hess)(jnp.asarray(W), jnp.asarray(b), X, y, l2=l2, sample_weight=sw)
    F = X @ W.T + b
    P = np.exp(F - F.max(1, keepdims=True))
    P /= P.sum(1, keepdims=True)
    Y = np.eye(C)[y]
    Xa = np.column_stack([X, np.ones(n)])
    grad_hand = (sw[:, None] * (P - Y)).T @ Xa + np.column_stack([l2 * W, np.zeros(C)])
    hess_hand = np.zeros((C, d + 1, C, d + 1))
    for a in range(C):
        for c in range(C):
            A_ac = P[:, a] * ((a == c) - P[:, c])  # (diag p - p p^T)_ac
            hess_hand[a, :, c, :] = Xa.T @ (Xa * (sw * A_ac)[:, None])
    hess_hand = hess_hand.reshape(C * (d + 1), C * (d + 1)) + np.diag(np.tile(np.r_[np.full(d, l2), 0.0], C))
    scale_g, scale_h = np.abs(grad_hand).max(), np.abs(hess_hand).max()
    np.testing.assert_allclose(grad, grad_hand, rtol=1e-10, atol=1e-10 * scale_g)
    np.testing.assert_allclose(hess, hess_hand, rtol=1e-10, atol=1e-10 * scale_h)

    def J(B):
        return softmax_objective(B[:, :d], B[:, d], X, y, l2=l2, sample_weight=jnp.asarray(sw))

    B = jnp.asarray(np.column_stack([W, b]))
    np.testing.assert_allclose(jax.jit(jax.grad(J))(B), grad, rtol=1e-10, atol=1e-10 * scale_g)
    auto_hess = jax.jit(jax.hessian(J))(B).reshape(C * (d + 1), C * (d + 1))
    np.testing.assert_allclose(auto_hess, hess, rtol=1e-10, atol=1e-10 * scale_h)


def test_newton_converges_quadratically_and_stays_centred(iris, iris_fit):
    hist = np.asarray(iris_fit.grad_norm_history)[: int(iris_fit.n_iter)]
    tail = hist[hist < 2e-3]
    assert len(tail) >= 2 and hist[-1] <= 1e-8, hist
    assert np.all(tail[1:] / tail[:-1] ** 2 < 100), hist
    # the over-parameterised directions: coefficients and intercepts sum to 0 over classes
    np.testing.assert_allclose(iris_fit.coef.sum(0), 0, atol=1e-10)
    np.testing.assert_allclose(iris_fit.intercept.sum(), 0, atol=1e-10)


@pytest.mark.full
def test_unpenalised_singular_hessian_is_handled(iris):
    # l2 = 0: the loss Hessian is singular along 1_C (x) e_j for every j; the null-space term
    # gives the minimum-norm steps, the fit converges to centred finite parameters.
    X, y = iris
    overlap = (y == 2).astype(np.int32)  # setosa + versicolor vs virginica: they overlap
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        params = fit_softmax(X, overlap, l2=0.0)
    assert bool(params.converged) and not bool(params.separated)
    np.testing.assert_allclose(params.coef.sum(0), 0, atol=1e-8)
    # the two-class softmax is logistic regression on w_1 - w_0 (same finite MLE)
    logistic = fit_logistic(X, overlap)
    np.testing.assert_allclose(params.coef[1] - params.coef[0], logistic.coef, rtol=1e-6)


def test_class_without_rows_is_flagged(iris):
    # n_classes=3 with class 0 absent: p_0 -> 0 has no finite MLE (b_0 -> -inf, a degenerate
    # quasi-complete separation). Before issue 8.3's fix this reported converged=True; since
    # issue 23.5 the warning names the absent class.
    X, y = iris
    binary_overlap = np.where(y == 0, 1, y).astype(np.int32)
    with pytest.warns(PerfectSeparationWarning, match="class 0 has no training row"):
        params = fit_softmax(X, binary_overlap, n_classes=3, l2=0.0)
    assert bool(params.separated) and not bool(params.converged)
    assert np.all(np.isfinite(params.coef))
    np.testing.assert_allclose(params.coef.sum(0), 0, atol=1e-8)


@pytest.mark.full
@pytest.mark.parametrize("method", ["newton", "lbfgs"])
def test_absent_class_is_flagged_and_named_whatever_l2(iris, method):
    # issue 23.5: with l2 > 0 the weights are held by the penalty but the intercepts are not:
    # an absent class's intercept runs to -inf (no finite optimum), and the fit used to report
    # converged=True with that intercept at a finite value set by tol (-12 / -20 here)
    X, y = iris
    no_virginica = np.where(y == 2, 1, y).astype(np.int32)
    with pytest.warns(PerfectSeparationWarning, match=r"class 2 has no training row of positive weight"):
        params = fit_softmax(X, no_virginica, n_classes=3, l2=1.0, method=method)
    assert bool(params.separated) and not bool(params.converged)
    assert np.all(np.isfinite(params.coef)) and float(params.intercept[2]) < -5
    # the classes present are fitted as without the empty class: same probabilities, to the
    # weight the absent class still holds (exp(b_2 - b_c) ~ 1e-5 .. 1e-9)
    two = fit_softmax(X, no_virginica, n_classes=2, l2=1.0, method=method)
    np.testing.assert_allclose(predict_proba(params, X)[:, :2], predict_proba(two, X), atol=1e-4)


def test_class_of_zero_weight_only_is_absent(iris):
    # present in y but every row of it at sample_weight 0: no influence, so absent (DESIGN.md)
    X, y = iris
    sw = np.where(y == 1, 0.0, 1.0)
    with pytest.warns(PerfectSeparationWarning, match=r"class 1 has no training row"):
        params = fit_softmax(X, y, l2=1.0, sample_weight=sw)
    assert bool(params.separated) and not bool(params.converged)


@pytest.mark.full
def test_several_absent_classes_are_all_named(iris):
    X, y = iris
    with pytest.warns(PerfectSeparationWarning, match=r"classes \[1, 3\] have no training row"):
        fit_softmax(X, np.where(y == 1, 0, y).astype(np.int32), n_classes=4, l2=1.0)


def test_absent_class_without_intercept_or_present_classes_are_not_flagged(iris, iris_fit):
    # without an intercept the penalty bounds the absent class's weights: a finite optimum
    X, y = iris
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        params = fit_softmax(X, np.where(y == 2, 1, y).astype(np.int32), n_classes=3, l2=1.0,
                             fit_intercept=False)
    assert bool(params.converged) and not bool(params.separated)
    assert bool(iris_fit.converged) and not bool(iris_fit.separated)


@pytest.mark.full
def test_absent_class_under_jit_and_vmap_is_flagged_without_a_warning(iris):
    # inside jit / vmap nothing can be warned (the params are tracers): the flags say it, per fit
    X, y = iris
    weights = jnp.stack([jnp.where(y == 1, 0.0, 1.0), jnp.ones(len(y))]).astype(X.dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        batched = jax.vmap(lambda w: fit_softmax(X, y, n_classes=3, l2=1.0, sample_weight=w))(weights)
        jitted = jax.jit(lambda w: fit_softmax(X, y, n_classes=3, l2=1.0, sample_weight=w))(weights[0])
    np.testing.assert_array_equal(batched.separated, [True, False])
    np.testing.assert_array_equal(batched.converged, [False, True])
    assert bool(jitted.separated) and not bool(jitted.converged)


@pytest.mark.full
def test_quasi_complete_separation_warns():
    # issue 8.3 in the softmax: x = -2..2 with a tie at 0, two classes (statsmodels' Logit
    # warns on the same data, see test_logistic): flagged, not converged
    x = np.array([-2.0, -1.0, 0.0, 0.0, 1.0, 2.0])[:, None]
    with pytest.warns(PerfectSeparationWarning, match="quasi-perfectly separated"):
        params = fit_softmax(x, np.array([0, 0, 0, 1, 1, 1]), l2=0.0)
    assert bool(params.separated) and not bool(params.converged)


@pytest.mark.full
def test_float32_on_raw_columns_equals_float64(iris):
    # issue 8.4: raw columns with a large mean (1e3) and mixed units; Newton centres and
    # scales them, so float32 converges without a warning to the float64 fit within float32
    # rounding times the conditioning (atol 1e-4 on coefficients of size ~1-10)
    X, y = iris
    raw = X * np.array([1.0, 1e3, 1e-2, 1.0]) + np.array([1e3, 0.0, 0.0, 0.0])
    ref = fit_softmax(raw, y, l2=1.0 / 3.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        params = fit_softmax(raw.astype(np.float32), y, l2=1.0 / 3.0)
    assert bool(params.converged) and bool(ref.converged)
    scale = np.array([1.0, 1e3, 1e-2, 1.0])
    np.testing.assert_allclose(params.coef * scale, ref.coef * scale, atol=1e-4)
    # float32 scores of raw entries ~1e3: rounding ~1e3 |w| eps32 ~ 1e-4 in the scores
    np.testing.assert_allclose(predict_proba(params, raw.astype(np.float32)),
                               predict_proba(ref, raw), atol=3e-4)


def test_int_and_numpy_l2_and_new_max_iter_do_not_retrace(iris, iris_fit):
    # issue 8.7: l2 as an int / np.float64 and a new max_iter reuse the compiled program
    X, y = iris
    fit_softmax(X, y, l2=1.0)
    size = _fit_softmax._cache_size()
    as_int = fit_softmax(X, y, l2=1)
    as_numpy = fit_softmax(X, y, l2=np.float64(1.0))
    with pytest.warns(ConvergenceWarning, match="did not converge in 2 iterations"):
        capped = fit_softmax(X, y, l2=1.0, max_iter=2, tol=1e-30)
    assert _fit_softmax._cache_size() == size
    np.testing.assert_array_equal(as_int.coef, as_numpy.coef)
    assert int(capped.n_iter) == 2


def test_separation_warns_and_stays_finite(iris):
    X, _ = iris
    # labels from the arg-max of a linear function: linearly separable by construction
    W = np.array([[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [-1.0, -1.0, 0.0, 0.0]])
    y = np.argmax(X @ W.T, axis=1).astype(np.int32)
    with pytest.warns(PerfectSeparationWarning, match="perfectly separated"):
        params = fit_softmax(X, y, l2=0.0)
    assert bool(params.separated) and np.all(np.isfinite(params.coef))
    np.testing.assert_array_equal(predict(params, X), y)


@pytest.mark.full
def test_jit_vmap_and_no_retrace(iris, iris_fit):
    X, y = iris
    jitted = jax.jit(lambda X, y: fit_softmax(X, y, n_classes=3, l2=1.0 / 3.0))(X, y)
    np.testing.assert_allclose(jitted.coef, iris_fit.coef, rtol=1e-10, atol=1e-12)
    # a grid over l2 and over weight vectors (bootstrap-like counts) in one vmap
    l2s = jnp.array([0.1, 1.0 / 3.0])
    weights = jnp.stack([jnp.asarray(np.random.default_rng(4).integers(0, 3, len(y)), X.dtype),
                         jnp.ones(len(y), X.dtype)])
    batched = jax.vmap(lambda a, w: fit_softmax(X, y, n_classes=3, l2=a, sample_weight=w))(l2s, weights)
    np.testing.assert_allclose(batched.coef[1], iris_fit.coef, rtol=1e-9, atol=1e-10)
    single = fit_softmax(X, y, l2=0.1, sample_weight=weights[0])
    np.testing.assert_allclose(batched.coef[0], single.coef, rtol=1e-9, atol=1e-10)
    size = _fit_softmax._cache_size()
    fit_softmax(X[::-1].copy(), y[::-1].copy(), l2=2.0)
    assert _fit_softmax._cache_size() == size


@pytest.mark.full
def test_zero_weight_rows_have_no_influence(iris, iris_fit):
    X, y = iris
    rng = np.random.default_rng(3)
    Xg = np.concatenate([X[:70], rng.normal(size=(10, 4)) * 100, X[70:]])
    yg = np.concatenate([y[:70], rng.integers(0, 3, 10), y[70:]]).astype(np.int32)
    sw = np.concatenate([np.ones(70), np.zeros(10), np.ones(80)])
    params = fit_softmax(Xg, yg, l2=1.0 / 3.0, sample_weight=sw)
    np.testing.assert_allclose(params.coef, iris_fit.coef, rtol=1e-10, atol=1e-11)
    np.testing.assert_allclose(params.intercept, iris_fit.intercept, rtol=1e-10, atol=1e-11)


def test_float32(iris, iris_fit):
    X, y = iris
    params = fit_softmax(X.astype(np.float32), y, l2=1.0 / 3.0)
    assert params.coef.dtype == jnp.float32 and bool(params.converged)
    np.testing.assert_allclose(params.coef, iris_fit.coef, atol=1e-4)


def test_auto_picks_lbfgs_beyond_the_newton_size(iris):
    X, _ = iris
    # C (d + 1) = 10 * 5 = 50 <= 200: Newton; digits' 10 * 65 = 650 > 200: L-BFGS
    assert NEWTON_MAX_PARAMS == 200
    from jaxclassic.linear import softmax

    assert softmax._choose_method(10, 4) == "newton"
    assert softmax._choose_method(10, 19) == "newton"
    assert softmax._choose_method(10, 20) == "lbfgs"
    assert softmax._choose_method(10, 64) == "lbfgs"


# --------------------------------------------------------------------------- bad input
def test_one_class_raises(iris):
    X, _ = iris
    with pytest.raises(ValueError, match="at least 2 classes"):
        fit_softmax(X, np.ones(len(X), np.int32))


def test_labels_beyond_n_classes_raise(iris):
    X, y = iris
    with pytest.raises(ValueError, match="n_classes=2"):
        fit_softmax(X, y, n_classes=2)


def test_string_labels_raise(iris):
    X, y = iris
    with pytest.raises(TypeError, match="encode string labels"):
        fit_softmax(X, np.array(["a", "b", "c"])[y])


def test_unknown_method_raises(iris):
    X, y = iris
    with pytest.raises(ValueError, match="method must be one of"):
        fit_softmax(X, y, method="newton-cg")


def test_negative_l2_raises(iris):
    X, y = iris
    with pytest.raises(ValueError, match="l2 must be >= 0"):
        fit_softmax(X, y, l2=-0.1)


def test_traced_labels_need_n_classes(iris):
    X, y = iris
    with pytest.raises(ValueError, match="n_classes must be given"):
        jax.jit(lambda y: fit_softmax(X, y).coef)(y)


def test_decision_function_shape(iris, iris_fit):
    X, _ = iris
    assert decision_function(iris_fit, X).shape == (150, 3)


def test_newton_does_not_materialise_the_standardised_copy_of_X():
    # as for logistic: 200,000 x 100 float32 (X = 76.3 MB), 3 classes, had 102.6 MB of
    # temporaries with Z = (X - mean) / scale formed whole, 29.8 MB now (Z a block at a time);
    # at this size 19.4 MB against X = 32 MB (the packed Hessian blocks and the (n, C, C)
    # curvatures remain)
    from jaxclassic.linear import softmax

    n, d = 131072, 64
    vec = lambda dt: jax.ShapeDtypeStruct((n,), dt)  # noqa: E731
    scalar = jax.ShapeDtypeStruct((), jnp.float32)
    compiled = softmax._fit_softmax.lower(
        jax.ShapeDtypeStruct((n, d), jnp.float32), vec(jnp.int32), vec(jnp.float32), scalar,
        scalar, jax.ShapeDtypeStruct((), jnp.int32), n_classes=3, method="newton",
        fit_intercept=True).compile()
    analysis = compiled.memory_analysis()
    if analysis is None:
        pytest.skip("no memory analysis on this backend")
    assert analysis.temp_size_in_bytes < 0.75 * n * d * 4
