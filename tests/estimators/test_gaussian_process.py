"""Tests of jaxclassic/estimators/gaussian_process.py (GaussianProcessRegressor).

Reference: scikit-learn's ``GaussianProcessRegressor`` with the same kernel
(``ConstantKernel * RBF / Matern (+ WhiteKernel)``), ``alpha`` and ``normalize_y``: with
fixed hyperparameters (``optimizer=None``) mean, std, covariance, ``alpha_``, ``L_`` and the
log marginal likelihood agree to 1e-6 relative (float64, the same algorithm: ~1e-13 observed);
optimised, our log marginal likelihood is at least scikit-learn's minus 1e-6. scikit-learn's
estimator checks run in tests/estimators/test_sklearn_checks.py.
"""

import warnings

import numpy as np
import pytest
from sklearn import datasets
from sklearn.gaussian_process import GaussianProcessRegressor as SkGPR
from sklearn.gaussian_process import kernels as sk_kernels
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from jaxclassic.estimators import GaussianProcessRegressor
from jaxclassic.gaussian_process import NumericalJitterWarning
from jaxclassic.gaussian_process import regression as R

_X, _Y = datasets.load_diabetes(return_X_y=True)
X, Y = _X[:80], _Y[:80]
Q = _X[80:100]
TOL = 1e-6


def _close(ours, ref, tol=TOL):
    np.testing.assert_allclose(ours, ref, rtol=tol, atol=tol * np.max(np.abs(ref)))


@pytest.mark.full
@pytest.mark.parametrize("kernel,nu", [("rbf", None), ("matern32", 1.5)])
def test_fixed_hyperparameters_equal_sklearn(kernel, nu):
    ours = GaussianProcessRegressor(kernel, amplitude=1.5, length_scale=0.2, noise=0.4, alpha=1e-8,
                                    optimizer=None, normalize_y=True).fit(X, Y)
    base = sk_kernels.RBF(0.2) if nu is None else sk_kernels.Matern(0.2, nu=nu)
    ref = SkGPR(sk_kernels.ConstantKernel(1.5) * base + sk_kernels.WhiteKernel(0.4), alpha=1e-8,
                optimizer=None, normalize_y=True).fit(X, Y)
    for a, b in zip(ours.predict(Q, return_std=True), ref.predict(Q, return_std=True)):
        _close(a, b)
    _close(ours.predict(Q, return_cov=True)[1], ref.predict(Q, return_cov=True)[1])
    _close(ours.alpha_, ref.alpha_)
    _close(ours.L_, ref.L_)
    _close(ours.y_train_, ref.y_train_)
    assert ours.log_marginal_likelihood_value_ == pytest.approx(ref.log_marginal_likelihood_value_, rel=TOL)
    assert ours.n_iter_ == 0 and ours.length_scale_ == 0.2


def test_latent_std_without_the_noise():
    ours = GaussianProcessRegressor(amplitude=1.5, length_scale=0.2, noise=0.4, optimizer=None,
                                    normalize_y=True).fit(X, Y)
    ref = SkGPR(sk_kernels.ConstantKernel(1.5) * sk_kernels.RBF(0.2), alpha=0.4 + 1e-10, optimizer=None,
                normalize_y=True).fit(X, Y)
    _close(ours.predict(Q, return_std=True, include_noise=False)[1], ref.predict(Q, return_std=True)[1])


@pytest.fixture(scope="module")
def optimised():
    ours = GaussianProcessRegressor(noise=0.1, n_restarts_optimizer=1, random_state=0, normalize_y=True).fit(X, Y)
    k = sk_kernels.ConstantKernel(1.0) * sk_kernels.RBF(1.0) + sk_kernels.WhiteKernel(0.1)
    ref = SkGPR(k, n_restarts_optimizer=1, random_state=0, normalize_y=True).fit(X, Y)
    return ours, ref


@pytest.mark.full
def test_optimised_lml_at_least_sklearns(optimised):
    ours, ref = optimised
    assert ours.log_marginal_likelihood_value_ >= ref.log_marginal_likelihood_value_ - 1e-6
    np.testing.assert_allclose(np.log([ours.amplitude_, ours.length_scale_, ours.noise_]), ref.kernel_.theta,
                               atol=1e-3)
    _close(ours.predict(Q), ref.predict(Q), tol=1e-3)  # the optimisers' tolerances
    assert ours.n_iter_ > 0


@pytest.mark.full
def test_ard_length_scales_are_fitted_per_feature():
    est = GaussianProcessRegressor(length_scale=np.ones(3), noise=0.1, normalize_y=True).fit(X[:, :3], Y)
    assert est.length_scale_.shape == (3,)
    k = sk_kernels.ConstantKernel(1.0) * sk_kernels.RBF(np.ones(3)) + sk_kernels.WhiteKernel(0.1)
    ref = SkGPR(k, normalize_y=True).fit(X[:, :3], Y)
    assert est.log_marginal_likelihood_value_ >= ref.log_marginal_likelihood_value_ - 1e-6


def test_zero_weight_rows_equal_removed_rows():
    w = np.ones(80)
    w[::7] = 0
    a = GaussianProcessRegressor(amplitude=1.5, length_scale=0.2, noise=0.4, optimizer=None,
                                 normalize_y=True).fit(X, Y, sample_weight=w)
    b = GaussianProcessRegressor(amplitude=1.5, length_scale=0.2, noise=0.4, optimizer=None,
                                 normalize_y=True).fit(X[w > 0], Y[w > 0])
    for u, v in zip(a.predict(Q, return_std=True), b.predict(Q, return_std=True)):
        np.testing.assert_allclose(u, v, rtol=1e-10)
    assert a.log_marginal_likelihood_value_ == pytest.approx(b.log_marginal_likelihood_value_, rel=1e-12)


@pytest.mark.full
def test_refit_in_the_same_bucket_reuses_the_program():
    est = GaussianProcessRegressor(amplitude=1.5, length_scale=0.2, noise=0.4, optimizer=None)
    est.fit(X[:40], Y[:40])
    before = R._fit_gp._cache_size()
    est.fit(X[:45], Y[:45])  # 40 and 45 rows share the bucket of 64
    assert R._fit_gp._cache_size() == before


@pytest.mark.full
def test_pipeline_and_grid_search():
    pipe = make_pipeline(StandardScaler(), GaussianProcessRegressor(optimizer=None, noise=0.5, normalize_y=True))
    grid = GridSearchCV(pipe, {"gaussianprocessregressor__length_scale": [1.0, 3.0]}, cv=3).fit(X, Y)
    assert grid.best_params_["gaussianprocessregressor__length_scale"] in (1.0, 3.0)
    assert np.isfinite(grid.best_score_)


@pytest.mark.full
def test_float32_input_predicts_in_float32():
    est = GaussianProcessRegressor(optimizer=None, noise=0.5, length_scale=0.2, normalize_y=True)
    mean, std = est.fit(X.astype(np.float32), Y.astype(np.float32)).predict(Q.astype(np.float32), return_std=True)
    assert mean.dtype == np.float32 and std.dtype == np.float32
    ref = GaussianProcessRegressor(optimizer=None, noise=0.5, length_scale=0.2, normalize_y=True).fit(X, Y)
    np.testing.assert_allclose(mean, ref.predict(Q), rtol=1e-4)


@pytest.mark.full
def test_tiny_alpha_in_float32_adds_jitter_with_a_warning():
    Xd = np.vstack([X[:20], X[:5]]).astype(np.float32)
    yd = np.concatenate([Y[:20], Y[:5]]).astype(np.float32)
    with pytest.warns(NumericalJitterWarning, match="GaussianProcessRegressor: the covariance"):
        est = GaussianProcessRegressor(optimizer=None, length_scale=0.2).fit(Xd, yd)
    assert np.all(np.isfinite(est.predict(Xd)))


# ----------------------------------------------------------------------------- bad input
def test_unknown_optimizer():
    with pytest.raises(ValueError, match="optimizer must be 'lbfgs' or None, got 'fmin_l_bfgs_b'"):
        GaussianProcessRegressor(optimizer="fmin_l_bfgs_b").fit(X, Y)


def test_unknown_kernel():
    with pytest.raises(ValueError, match="kernel must be one of"):
        GaussianProcessRegressor("periodic").fit(X, Y)


def test_bad_bounds():
    with pytest.raises(ValueError, match="length_scale_bounds must be 'fixed' or a \\(low, high\\) pair"):
        GaussianProcessRegressor(length_scale_bounds="free").fit(X, Y)


def test_negative_restarts():
    with pytest.raises(ValueError, match="n_restarts_optimizer must be an int >= 0, got -1"):
        GaussianProcessRegressor(n_restarts_optimizer=-1).fit(X, Y)


def test_alpha_of_the_wrong_length():
    with pytest.raises(ValueError, match=r"alpha must be a scalar or an array with same number of entries as y \(3 != 80\)"):
        GaussianProcessRegressor(alpha=np.ones(3), optimizer=None).fit(X, Y)


def test_negative_noise():
    with pytest.raises(ValueError, match="noise must be >= 0.0"):
        GaussianProcessRegressor(noise=-1.0, optimizer=None).fit(X, Y)


def test_std_and_cov_together():
    est = GaussianProcessRegressor(optimizer=None).fit(X[:40], Y[:40])
    with pytest.raises(RuntimeError, match="At most one of return_std or return_cov"):
        est.predict(Q, return_std=True, return_cov=True)


def test_no_warning_on_a_well_posed_fit():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        GaussianProcessRegressor(optimizer=None, noise=0.5).fit(X[:40], Y[:40])
