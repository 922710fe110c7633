"""Tests of jaxclassic/linear/ridge.py: fit_ridge and ridge_path.

Reference: scikit-learn Ridge (same penalty scaling, so the same alpha), 1e-6 relative
(issue); in float64 both are direct solves and agree to ~1e-12.
"""

import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxclassic import losses
from jaxclassic.exceptions import RankDeficientWarning
from jaxclassic.linear import fit_ridge, predict, ridge_path
from jaxclassic.linear.ridge import _fit_ridge, _ridge_path

sklearn_linear = pytest.importorskip("sklearn.linear_model")
from sklearn.datasets import load_diabetes  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402

ALPHAS = np.array([1e-3, 1e-1, 1.0, 10.0, 1e3])


@pytest.fixture(scope="module")
def diabetes():
    X, y = load_diabetes(return_X_y=True)
    w = np.random.RandomState(0).uniform(0.2, 2.0, len(y))
    return X, y, w


def _close(ours, ref, rtol=1e-6, atol=0.0):
    np.testing.assert_allclose(np.asarray(ours), np.asarray(ref), rtol=rtol, atol=atol)


# ----------------------------------------------------------------- (1) references
@pytest.mark.full
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_equals_sklearn_ridge_weighted(diabetes, fit_intercept):
    X, y, w = diabetes
    path = ridge_path(X, y, ALPHAS, sample_weight=w, fit_intercept=fit_intercept)
    for k, alpha in enumerate(ALPHAS):
        ref = sklearn_linear.Ridge(alpha=alpha, fit_intercept=fit_intercept, solver="cholesky")
        ref.fit(X, y, sample_weight=w)
        ours = fit_ridge(X, y, alpha=alpha, sample_weight=w, fit_intercept=fit_intercept)
        _close(ours.coef, ref.coef_)
        _close(ours.intercept, ref.intercept_, atol=1e-9)
        _close(path.coef[k], ref.coef_)
        _close(path.intercept[k], ref.intercept_, atol=1e-9)


def test_standardize_equals_sklearn_on_scaled_columns_reported_on_original_scale(diabetes):
    X, y, w = diabetes
    X = 100.0 * X + 3.0  # columns on a different scale, so standardising matters
    scaler = StandardScaler().fit(X, sample_weight=w)  # weighted, population std (ddof=0)
    for alpha in (0.1, 10.0):
        ref = sklearn_linear.Ridge(alpha=alpha).fit(scaler.transform(X), y, sample_weight=w)
        ours = fit_ridge(X, y, alpha=alpha, standardize=True, sample_weight=w)
        _close(ours.coef, ref.coef_ / scaler.scale_)
        _close(predict(ours, X), ref.predict(scaler.transform(X)))


def test_standardize_constant_column_gets_zero_coefficient(diabetes):
    X, y, _ = diabetes
    Xk = np.c_[X, np.full(len(y), 4.2)]
    ours = fit_ridge(Xk, y, alpha=1.0, standardize=True)
    # scale 1 (not ~1e-14, which would blow the coefficient up); what is left is the rounding
    # of centring a constant column (~1e-15) divided by alpha
    assert abs(float(ours.coef[-1])) < 1e-12
    _close(ours.coef[:-1], fit_ridge(X, y, alpha=1.0, standardize=True).coef, 1e-10)


# ----------------------------------------------------------------- (2) gradients
@pytest.mark.full
def test_autodiff_gradient_equals_hand_form_and_vanishes_at_the_solution(diabetes):
    X, y, w = (jnp.asarray(a) for a in diabetes)
    alpha = 0.5

    def objective(beta, b):  # 1/2 [sum_i w_i (y_i - x_i^T beta - b)^2 + alpha ||beta||^2]
        return jnp.sum(w * losses.squared(y, X @ beta + b)) + 0.5 * alpha * beta @ beta

    def hand(beta, b):  # X^T W (X beta + b - y) + alpha beta
        return X.T @ (w * (X @ beta + b - y)) + alpha * beta

    beta = jnp.asarray(np.random.RandomState(1).randn(10))
    _close(jax.grad(objective)(beta, 0.3), hand(beta, 0.3), 1e-12)
    fit = fit_ridge(X, y, alpha=alpha, sample_weight=w)
    scale = float(jnp.abs(hand(jnp.zeros(10), 0.0)).max())
    assert float(jnp.abs(jax.grad(objective)(fit.coef, fit.intercept)).max()) < 1e-10 * scale
    assert abs(float(jax.grad(objective, 1)(fit.coef, fit.intercept))) < 1e-10 * scale


# ----------------------------------------------------------------- (3) transformations
@pytest.mark.full
def test_vmap_over_alpha_equals_loop_and_path(diabetes):
    X, y, w = diabetes
    grid = jax.vmap(lambda a: fit_ridge(X, y, alpha=a, sample_weight=w))(jnp.asarray(ALPHAS))
    path = ridge_path(X, y, ALPHAS, sample_weight=w)
    for k, alpha in enumerate(ALPHAS):
        one = fit_ridge(X, y, alpha=float(alpha), sample_weight=w)
        _close(grid.coef[k], one.coef, 1e-10)
        _close(path.coef[k], one.coef, 1e-8)
        _close(predict(path, X)[k], predict(one, X), 1e-8)  # predict of a path: (n_alphas, n)


@pytest.mark.full
def test_vmap_over_fold_weights_equals_loop_jit_equals_eager_no_retrace(diabetes):
    X, y, _ = diabetes
    folds = jnp.asarray(np.stack([(np.arange(len(y)) % 3 != k).astype(float) for k in range(3)]))
    batched = jax.vmap(lambda fw: ridge_path(X, y, ALPHAS, sample_weight=fw))(folds)
    assert batched.coef.shape == (3, len(ALPHAS), 10)
    for k in range(3):
        _close(batched.coef[k], ridge_path(X, y, ALPHAS, sample_weight=folds[k]).coef, 1e-10)
    eager = fit_ridge(X, y, alpha=2.0)
    jitted = jax.jit(lambda X, a: fit_ridge(X, y, alpha=a))(X, 2.0)
    _close(jitted.coef, eager.coef, 1e-12)
    before = _fit_ridge._cache_size(), _ridge_path._cache_size()
    fit_ridge(X, y + 1.0, alpha=3.0)
    ridge_path(X, y + 1.0, ALPHAS * 2)
    assert (_fit_ridge._cache_size(), _ridge_path._cache_size()) == before


@pytest.mark.full
def test_zero_weight_rows_have_no_influence(diabetes):
    X, y, w = diabetes
    rng = np.random.RandomState(2)
    Xg, yg = np.r_[X, 1e3 * rng.randn(9, 10)], np.r_[y, 1e5 * rng.rand(9)]
    wg = np.r_[w, np.zeros(9)]
    for standardize in (False, True):
        a = fit_ridge(X, y, alpha=0.7, sample_weight=w, standardize=standardize)
        b = fit_ridge(Xg, yg, alpha=0.7, sample_weight=wg, standardize=standardize)
        _close(b.coef, a.coef, 1e-10)
        _close(b.intercept, a.intercept, 1e-10)
    _close(ridge_path(Xg, yg, ALPHAS, sample_weight=wg).coef,
           ridge_path(X, y, ALPHAS, sample_weight=w).coef, 1e-9)


def test_float32_keeps_dtype_and_agrees(diabetes):
    X, y, _ = diabetes
    ours = fit_ridge(X.astype(np.float32), y.astype(np.float32), alpha=0.1)
    path = ridge_path(X.astype(np.float32), y.astype(np.float32), ALPHAS.astype(np.float32))
    assert ours.coef.dtype == jnp.float32 and path.coef.dtype == jnp.float32
    ref = sklearn_linear.Ridge(alpha=0.1).fit(X, y).coef_
    # float32 normal equations: the diabetes Gram has condition number ~1e3 -> ~1e-4 relative
    _close(ours.coef, ref, 1e-3, atol=1e-3 * np.abs(ref).max())


def test_alpha_zero_path_on_singular_gram_is_minimum_norm(diabetes):
    X, y, _ = diabetes
    Xc = np.c_[X, X[:, 0] + X[:, 1]]
    path = ridge_path(Xc, y, np.array([0.0, 1.0]))
    ref = sklearn_linear.LinearRegression().fit(Xc, y)
    _close(path.coef[0], ref.coef_, 1e-6)
    assert np.all(np.isfinite(np.asarray(path.coef)))


# ----------------------------------------------------------------- bad input
def test_negative_alpha_is_rejected(diabetes):
    X, y, _ = diabetes
    with pytest.raises(ValueError, match="alpha must be >= 0.0, got -1.0"):
        fit_ridge(X, y, alpha=-1.0)


@pytest.mark.full
def test_negative_alphas_in_path_are_rejected(diabetes):
    X, y, _ = diabetes
    with pytest.raises(ValueError, match="alphas must be >= 0"):
        ridge_path(X, y, np.array([1.0, -0.5]))


def test_non_finite_alpha_is_rejected(diabetes):
    X, y, _ = diabetes
    with pytest.raises(ValueError, match="alpha must be finite"):
        fit_ridge(X, y, alpha=np.inf)


def test_nan_in_X_is_rejected(diabetes):
    X, y, _ = diabetes
    X = X.copy()
    X[0, 0] = np.nan
    with pytest.raises(ValueError, match="X contains 1 NaN"):
        fit_ridge(X, y, alpha=1.0)


def test_single_row_gives_its_target(diabetes):
    X, y, _ = diabetes
    params = fit_ridge(X[:1], y[:1], alpha=1.0)
    _close(params.coef, np.zeros(10), 0)
    _close(params.intercept, y[0], 1e-12)


# ----------------------------------------------------------------- badly scaled columns (issue 8)
@pytest.mark.full
@pytest.mark.parametrize("units", [(100.0, 1.0, 0.01), (1e4, 1e-3, 1.0, 1e2)])
def test_float32_path_on_badly_scaled_columns_equals_float64_and_fit_ridge(diabetes, units):
    """Columns whose norms differ by 1e4 / 1e7: one float32 eigendecomposition of the raw Gram
    (absolute error eps ||G||) erased the small-scale directions (max relative error 1.0; with
    the second scaling the same coefficients for every alpha). Reference: the float64 path,
    itself equal to scikit-learn's Ridge. Tolerance 1e-4 relative: float32 rounding (1.2e-7)
    times the condition number of the equilibrated penalised Gram (< 1e2) times d."""
    X, y, _ = diabetes
    Xs = X[:, :len(units)] * np.array(units)
    path64 = ridge_path(Xs, y, ALPHAS)
    for alpha, coef in zip(ALPHAS, np.asarray(path64.coef)):
        _close(coef, sklearn_linear.Ridge(alpha=alpha, solver="cholesky").fit(Xs, y).coef_, 1e-6)
    X32, y32 = Xs.astype(np.float32), y.astype(np.float32)
    path32 = ridge_path(X32, y32, ALPHAS.astype(np.float32))
    assert path32.coef.dtype == jnp.float32
    _close(path32.coef, path64.coef, 1e-4)
    _close(path32.intercept, path64.intercept, 1e-4)
    for k, alpha in enumerate(ALPHAS):
        _close(path32.coef[k], fit_ridge(X32, y32, alpha=np.float32(alpha)).coef, 1e-4)


def test_alpha_zero_on_collinear_columns_warns_and_gives_the_minimum_norm_solution(diabetes):
    """fit_ridge(alpha=0) on a singular Gram: no NaN / garbage, the minimum-norm solution
    (scikit-learn's LinearRegression, lstsq) and a RankDeficientWarning, as fit_ols."""
    X, y, _ = diabetes
    Xc = np.c_[X, X[:, 0] + X[:, 1]]
    with pytest.warns(RankDeficientWarning, match=r"rank 10 < n_features=11"):
        params = fit_ridge(Xc, y, alpha=0.0)
    ref = sklearn_linear.LinearRegression().fit(Xc, y)
    _close(params.coef, ref.coef_, 1e-6)
    _close(params.intercept, ref.intercept_, 1e-9)
    with warnings.catch_warnings():  # traced: the rank is not known, no warning
        warnings.simplefilter("error")
        traced = jax.jit(lambda a: fit_ridge(Xc, y, alpha=a).coef)(0.0)
    _close(traced, ref.coef_, 1e-6)
