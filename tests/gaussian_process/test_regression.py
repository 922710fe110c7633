"""Tests of jaxclassic/gaussian_process/regression.py (fit_gp, predict, log_marginal_likelihood).

References: scikit-learn's ``GaussianProcessRegressor`` with the same kernel
(``ConstantKernel * RBF / Matern + WhiteKernel``) and fixed hyperparameters
(``optimizer=None``): mean, std, covariance and log marginal likelihood to 1e-6 relative in
float64 (the same algorithm, so the observed differences are rounding, ~1e-13); the closed-form
gradient of the log marginal likelihood, :math:`\\tfrac12\\operatorname{tr}((\\alpha\\alpha^\\top -
C^{-1})\\,\\partial C/\\partial\\theta)` with :math:`\\partial C/\\partial\\theta` derived by hand
per kernel (numpy, scipy distances), scikit-learn's own ``eval_gradient`` and finite
differences; repeated rows for integer weights; the fit without the zero-weight rows.
"""

import functools
import math
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.test_util import check_grads
from scipy.spatial.distance import cdist
from sklearn import datasets
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process import kernels as sk_kernels

from jaxclassic import _dispatch, _tiling
from jaxclassic import gaussian_process as G
from jaxclassic.gaussian_process import regression as R

# ----------------------------------------------------------------------------- data
_XD, _YD = datasets.load_diabetes(return_X_y=True)
X_DIA, Y_DIA = _XD[:60], _YD[:60]  # raw targets (for normalize_y)
Y_DIA_STD = (Y_DIA - Y_DIA.mean()) / Y_DIA.std()  # standardised targets (without normalize_y)
Q_DIA = _XD[60:85]  # query rows
X_SIN = np.linspace(0.0, 6.0, 30)[:, None]
Y_SIN = np.sin(X_SIN[:, 0]) + 0.1 * np.random.default_rng(0).normal(size=30)
Q_SIN = np.linspace(-1.0, 7.0, 17)[:, None]

HYPER = dict(amplitude=1.7, length_scale=0.15, noise=0.3)
TOL = 1e-6  # float64, the same algorithm as scikit-learn: observed differences ~1e-13

SK_BASE = {
    "rbf": lambda ls: sk_kernels.RBF(ls),
    "matern12": lambda ls: sk_kernels.Matern(ls, nu=0.5),
    "matern32": lambda ls: sk_kernels.Matern(ls, nu=1.5),
    "matern52": lambda ls: sk_kernels.Matern(ls, nu=2.5),
}


def _sklearn(kernel, amplitude, length_scale, noise, *, alpha=1e-10, normalize_y=False, white=True):
    k = sk_kernels.ConstantKernel(amplitude) * SK_BASE[kernel](length_scale)
    if white:
        k = k + sk_kernels.WhiteKernel(noise)
    else:
        alpha = alpha + noise
    return GaussianProcessRegressor(k, alpha=alpha, optimizer=None, normalize_y=normalize_y)


def _close(ours, ref, tol=TOL):
    np.testing.assert_allclose(np.asarray(ours), ref, rtol=tol, atol=tol * np.max(np.abs(ref)))


# ----------------------------------------------------------------------------- = scikit-learn
@pytest.mark.full
@pytest.mark.parametrize("kernel", sorted(SK_BASE))
@pytest.mark.parametrize("normalize_y", [False, True])
def test_fit_predict_equal_sklearn_on_diabetes(kernel, normalize_y):
    y = Y_DIA if normalize_y else Y_DIA_STD
    ours = G.fit_gp(X_DIA, y, kernel=kernel, normalize_y=normalize_y, **HYPER)
    ref = _sklearn(kernel, **HYPER, normalize_y=normalize_y).fit(X_DIA, y)
    mean, std = G.predict(ours, Q_DIA, return_std=True, include_noise=True)  # WhiteKernel's std
    ref_mean, ref_std = ref.predict(Q_DIA, return_std=True)
    _close(mean, ref_mean)
    _close(std, ref_std)
    _, cov = G.predict(ours, Q_DIA, return_cov=True, include_noise=True)
    _close(cov, ref.predict(Q_DIA, return_cov=True)[1])
    assert float(ours.log_marginal_likelihood_value) == pytest.approx(ref.log_marginal_likelihood_value_, rel=TOL)
    _close(ours.alpha, ref.alpha_)
    _close(ours.L, ref.L_)


def test_latent_std_equals_sklearn_with_the_noise_in_alpha():
    # noise in alpha (no WhiteKernel): scikit-learn's std is then the latent f's, our default
    ours = G.fit_gp(X_SIN, Y_SIN, length_scale=1.2, amplitude=0.8, noise=0.01)
    ref = _sklearn("rbf", 0.8, 1.2, 0.01, white=False).fit(X_SIN, Y_SIN)
    mean, std = G.predict(ours, Q_SIN, return_std=True)
    ref_mean, ref_std = ref.predict(Q_SIN, return_std=True)
    _close(mean, ref_mean)
    _close(std, ref_std)
    _, cov = G.predict(ours, Q_SIN, return_cov=True)
    _close(cov, ref.predict(Q_SIN, return_cov=True)[1])
    assert float(ours.log_marginal_likelihood_value) == pytest.approx(ref.log_marginal_likelihood_value_, rel=TOL)


def test_ard_length_scales_equal_sklearn():
    ls = np.linspace(0.08, 0.4, X_DIA.shape[1])
    ours = G.fit_gp(X_DIA, Y_DIA, kernel="matern52", amplitude=1.3, length_scale=ls, noise=0.2, normalize_y=True)
    ref = _sklearn("matern52", 1.3, ls, 0.2, normalize_y=True).fit(X_DIA, Y_DIA)
    mean, std = G.predict(ours, Q_DIA, return_std=True, include_noise=True)
    _close(mean, ref.predict(Q_DIA))
    _close(std, ref.predict(Q_DIA, return_std=True)[1])
    assert float(ours.log_marginal_likelihood_value) == pytest.approx(ref.log_marginal_likelihood_value_, rel=TOL)


def test_alpha_per_row_equals_sklearn():
    alpha = np.linspace(0.01, 0.2, 30)
    ours = G.fit_gp(X_SIN, Y_SIN, length_scale=1.0, alpha=alpha)
    ref = GaussianProcessRegressor(sk_kernels.ConstantKernel(1.0) * sk_kernels.RBF(1.0), alpha=alpha,
                                   optimizer=None).fit(X_SIN, Y_SIN)
    _close(G.predict(ours, Q_SIN), ref.predict(Q_SIN))
    assert float(ours.log_marginal_likelihood_value) == pytest.approx(ref.log_marginal_likelihood_value_, rel=TOL)


@pytest.mark.full
def test_user_kernels_equal_sklearn():
    # a user rbf (the non-stationary path: no centring, the diagonal by vmap) and a dot product
    user_rbf = lambda X, Z: jnp.exp(-0.5 * _tiling.squared_euclidean(X, Z))  # noqa: E731
    ours = G.fit_gp(X_SIN, Y_SIN, kernel=user_rbf, amplitude=0.8, length_scale=1.2, noise=0.05)
    ref = _sklearn("rbf", 0.8, 1.2, 0.05).fit(X_SIN, Y_SIN)
    mean, std = G.predict(ours, Q_SIN, return_std=True, include_noise=True)
    _close(mean, ref.predict(Q_SIN))
    _close(std, ref.predict(Q_SIN, return_std=True)[1])
    dot = lambda X, Z: 1.0 + X @ Z.T  # noqa: E731  DotProduct(sigma_0=1) on x / 1
    ours = G.fit_gp(X_DIA, Y_DIA_STD, kernel=dot, amplitude=2.0, length_scale=1.0, noise=0.5)
    k = sk_kernels.ConstantKernel(2.0) * sk_kernels.DotProduct(1.0) + sk_kernels.WhiteKernel(0.5)
    ref = GaussianProcessRegressor(k, optimizer=None).fit(X_DIA, Y_DIA_STD)
    mean, std = G.predict(ours, Q_DIA, return_std=True, include_noise=True)
    _close(mean, ref.predict(Q_DIA))
    _close(std, ref.predict(Q_DIA, return_std=True)[1])
    assert float(ours.log_marginal_likelihood_value) == pytest.approx(ref.log_marginal_likelihood_value_, rel=TOL)


def test_log_marginal_likelihood_function_equals_the_fit_and_sklearn():
    params = G.fit_gp(X_DIA, Y_DIA, kernel="matern32", normalize_y=True, **HYPER)
    theta = G.GPKernel(**HYPER)
    a = G.log_marginal_likelihood(theta, X_DIA, Y_DIA, kernel="matern32", normalize_y=True)
    b = G.log_marginal_likelihood(params, X_DIA, Y_DIA, normalize_y=True)
    ref = _sklearn("matern32", **HYPER, normalize_y=True).fit(X_DIA, Y_DIA).log_marginal_likelihood_value_
    assert float(a) == pytest.approx(ref, rel=TOL)
    assert float(b) == pytest.approx(float(params.log_marginal_likelihood_value), rel=1e-12)


def test_predict_is_registered_in_the_dispatch_registry():
    params = G.fit_gp(X_SIN, Y_SIN, noise=0.1)
    np.testing.assert_array_equal(_dispatch.predict(params, Q_SIN), G.predict(params, Q_SIN))
    assert isinstance(params, G.GPParams) and type(params) is R.RBFParams


def test_predict_in_tiles_equals_one_block(monkeypatch):
    params = G.fit_gp(X_DIA, Y_DIA_STD, **HYPER)
    whole = G.predict(params, Q_DIA, return_std=True)
    # a budget of 4 query rows per tile: 25 rows -> 7 tiles through lax.map
    monkeypatch.setattr(_tiling, "MEMORY_BUDGET", 4 * 3 * 60 * 8)
    tiled = G.predict(params, Q_DIA, return_std=True)
    np.testing.assert_allclose(tiled[0], whole[0], rtol=1e-12)
    np.testing.assert_allclose(tiled[1], whole[1], rtol=1e-12)


def test_posterior_variance_is_clamped_at_zero_and_reverts_to_the_prior():
    params = G.fit_gp(X_SIN, Y_SIN, amplitude=0.8, length_scale=1.0, noise=0.0, alpha=1e-12)
    _, std = G.predict(params, np.vstack([X_SIN[:3], [[50.0]]]), return_std=True)
    assert np.all(np.asarray(std) >= 0)
    assert float(std[-1]) == pytest.approx(math.sqrt(0.8), rel=1e-12)  # far away: the prior


# ----------------------------------------------------------------------------- gradient
def _hand_dC(kernel, X, amplitude, length_scale, noise):
    """:math:`\\partial C / \\partial\\log\\theta` by hand for (amplitude, each length scale, noise)."""
    ls = np.broadcast_to(np.asarray(length_scale, float), (X.shape[1],))
    D = [cdist(X[:, [j]] / ls[j], X[:, [j]] / ls[j], "sqeuclidean") for j in range(X.shape[1])]
    r2 = sum(D)
    r = np.sqrt(r2)
    if kernel == "rbf":
        kappa = np.exp(-0.5 * r2)
        dk_dr2 = -0.5 * kappa  # d kappa / d r^2
    elif kernel == "matern12":
        kappa = np.exp(-r)
        dk_dr2 = np.where(r > 0, -np.exp(-r) / (2 * np.where(r > 0, r, 1)), 0)
    elif kernel == "matern32":
        kappa = (1 + math.sqrt(3) * r) * np.exp(-math.sqrt(3) * r)
        dk_dr2 = -1.5 * np.exp(-math.sqrt(3) * r)  # d/dr = -3 r e^{-sqrt3 r}
    else:
        kappa = (1 + math.sqrt(5) * r + 5 / 3 * r2) * np.exp(-math.sqrt(5) * r)
        dk_dr2 = -5 / 6 * (1 + math.sqrt(5) * r) * np.exp(-math.sqrt(5) * r)
    # d r^2 / d log l_j = -2 D_j
    d_ls = [amplitude * dk_dr2 * (-2 * Dj) for Dj in D]
    if np.ndim(length_scale) == 0:
        d_ls = [sum(d_ls)]
    n = X.shape[0]
    return [amplitude * kappa] + d_ls + [noise * np.eye(n)], amplitude * kappa + noise * np.eye(n)


def _closed_form_gradient(kernel, X, y, amplitude, length_scale, noise):
    dCs, C = _hand_dC(kernel, X, amplitude, length_scale, noise)
    C_inv = np.linalg.inv(C)
    a = C_inv @ y
    return np.array([0.5 * np.trace((np.outer(a, a) - C_inv) @ dC) for dC in dCs])


def _autodiff_gradient(kernel, X, y, amplitude, length_scale, noise):
    def lml(log_theta):
        ls = jnp.exp(log_theta[1:-1]) if np.ndim(length_scale) else jnp.exp(log_theta[1])
        theta = G.GPKernel(jnp.exp(log_theta[0]), ls, jnp.exp(log_theta[-1]))
        return G.log_marginal_likelihood(theta, X, y, kernel=kernel, alpha=0.0)

    log_theta = np.log(np.concatenate([[amplitude], np.ravel(length_scale), [noise]]))
    return np.asarray(jax.grad(lml)(jnp.asarray(log_theta))), lml, log_theta


@pytest.mark.full
@pytest.mark.parametrize("kernel", sorted(SK_BASE))
def test_lml_gradient_equals_closed_form_and_sklearn(kernel):
    ours, _, _ = _autodiff_gradient(kernel, X_DIA, Y_DIA_STD, 1.7, 0.15, 0.3)
    ref = _closed_form_gradient(kernel, X_DIA, Y_DIA_STD, 1.7, 0.15, 0.3)
    np.testing.assert_allclose(ours, ref, rtol=1e-8, atol=1e-10)
    # scikit-learn's own analytic gradient, theta = log(c, l, sigma^2)
    sk = _sklearn(kernel, 1.7, 0.15, 0.3, alpha=0.0).fit(X_DIA, Y_DIA_STD)
    _, sk_grad = sk.log_marginal_likelihood(sk.kernel_.theta, eval_gradient=True)
    np.testing.assert_allclose(ours, sk_grad, rtol=1e-8, atol=1e-10)


@pytest.mark.full
def test_lml_gradient_ard_equals_closed_form_and_finite_differences():
    ls = np.linspace(0.1, 0.3, X_DIA.shape[1])
    ours, lml, log_theta = _autodiff_gradient("rbf", X_DIA, Y_DIA_STD, 1.7, ls, 0.3)
    ref = _closed_form_gradient("rbf", X_DIA, Y_DIA_STD, 1.7, ls, 0.3)
    np.testing.assert_allclose(ours, ref, rtol=1e-8, atol=1e-10)
    check_grads(lml, (jnp.asarray(log_theta),), order=1, modes=("rev", "fwd"), eps=1e-6, rtol=1e-5)


@pytest.mark.full
def test_fit_outputs_are_differentiable_in_the_hyperparameters():
    # through the custom derivative of the jittered Cholesky: d mean / d length_scale by
    # autodiff equals central finite differences
    def mean_at(log_ls):
        p = R._fit_gp(jnp.asarray(X_SIN), jnp.asarray(Y_SIN), jnp.ones(30), jnp.full(30, 1e-10),
                      G.GPKernel(jnp.asarray(0.8), jnp.exp(log_ls), jnp.asarray(0.05)),
                      kernel_fn=R.rbf, normalize_y=False)
        return jnp.sum(R._predict_gp(p, jnp.asarray(Q_SIN), return_std=True, return_cov=False,
                                     include_noise=False, tile=17)[1])

    check_grads(mean_at, (jnp.asarray(0.1),), order=1, modes=("rev", "fwd"), eps=1e-6, rtol=1e-5)


# ----------------------------------------------------------------------------- weights
@pytest.mark.full
def test_zero_weight_rows_equal_the_fit_without_them():
    w = np.ones(60)
    w[[3, 17, 40, 41, 59]] = 0
    keep = w > 0
    ours = G.fit_gp(X_DIA, Y_DIA, kernel="matern52", normalize_y=True, sample_weight=w, **HYPER)
    ref = G.fit_gp(X_DIA[keep], Y_DIA[keep], kernel="matern52", normalize_y=True, **HYPER)
    for a, b in zip(G.predict(ours, Q_DIA, return_std=True), G.predict(ref, Q_DIA, return_std=True)):
        np.testing.assert_allclose(a, b, rtol=1e-10)
    np.testing.assert_allclose(ours.log_marginal_likelihood_value, ref.log_marginal_likelihood_value, rtol=1e-12)
    np.testing.assert_allclose(np.asarray(ours.alpha)[keep], ref.alpha, rtol=1e-10, atol=1e-12)
    assert np.all(np.asarray(ours.alpha)[~keep] == 0)
    theta = G.GPKernel(**HYPER)
    g_w = jax.grad(G.log_marginal_likelihood)(theta, X_DIA, Y_DIA, kernel="matern52", normalize_y=True,
                                              sample_weight=w)
    g_ref = jax.grad(G.log_marginal_likelihood)(theta, X_DIA[keep], Y_DIA[keep], kernel="matern52",
                                                normalize_y=True)
    np.testing.assert_allclose(np.array(g_w), np.array(g_ref), rtol=1e-9)


def test_integer_weights_equal_repeated_rows():
    w = np.tile([1, 2, 3], 10)
    Xr, yr = np.repeat(X_SIN, w, axis=0), np.repeat(Y_SIN, w)
    for normalize_y in (False, True):
        ours = G.fit_gp(X_SIN, Y_SIN, sample_weight=w, normalize_y=normalize_y, noise=0.05, alpha=0.01)
        ref = G.fit_gp(Xr, yr, normalize_y=normalize_y, noise=0.05, alpha=0.01)
        for a, b in zip(G.predict(ours, Q_SIN, return_std=True), G.predict(ref, Q_SIN, return_std=True)):
            np.testing.assert_allclose(a, b, rtol=1e-8, atol=1e-10)
        np.testing.assert_allclose(ours.log_marginal_likelihood_value, ref.log_marginal_likelihood_value,
                                   rtol=1e-10)


# ----------------------------------------------------------------------------- jitter
@pytest.mark.full
def test_duplicate_inputs_without_noise_take_the_jitter_path():
    X0 = np.arange(8.0)[:, None]  # distinct points, well conditioned at length scale 0.5
    X, y = np.vstack([X0, X0[:3]]), np.sin(np.concatenate([X0[:, 0], X0[:3, 0]]))
    with pytest.warns(G.NumericalJitterWarning, match=r"added jitter .* to its diagonal"):
        params = G.fit_gp(X, y, length_scale=0.5, noise=0.0, alpha=0.0)
    delta = float(params.jitter)
    assert 0 < delta < 1e-8
    # equal copies carry the information of one: the fit without the copies (jitter delta / 2
    # on the copied points, delta on the others: the difference is O(delta))
    ref = G.fit_gp(X0, np.sin(X0[:, 0]), length_scale=0.5, noise=0.0, alpha=0.0)
    np.testing.assert_allclose(G.predict(params, Q_SIN), G.predict(ref, Q_SIN), rtol=1e-8, atol=1e-8)
    assert np.all(np.isfinite(np.asarray(G.predict(params, Q_SIN, return_std=True)[1])))


def test_no_jitter_and_no_warning_with_noise():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        params = G.fit_gp(np.vstack([X_SIN, X_SIN[:5]]), np.concatenate([Y_SIN, Y_SIN[:5]]), noise=0.01)
    assert float(params.jitter) == 0.0


def test_non_psd_user_kernel_is_a_clear_error():
    sigmoid = lambda X, Z: jnp.tanh(2.0 * X @ Z.T - 1.0)  # noqa: E731  not PSD (Lin & Lin 2003)
    with pytest.raises(ValueError, match="not positive semi-definite"):
        G.fit_gp(X_DIA, Y_DIA_STD, kernel=sigmoid, length_scale=0.05, alpha=0.0)
    theta = G.GPKernel(1.0, 0.05, 0.0)
    assert float(G.log_marginal_likelihood(theta, X_DIA, Y_DIA_STD, kernel=sigmoid, alpha=0.0)) == -np.inf


# ----------------------------------------------------------------------------- jit, vmap, traces
def test_jit_equals_eager_and_vmap_over_noise_equals_a_loop():
    noises = jnp.array([0.01, 0.1, 1.0])
    fit = lambda noise: G.fit_gp(X_DIA, Y_DIA_STD, amplitude=1.7, length_scale=0.15, noise=noise)  # noqa: E731
    batched = jax.vmap(fit)(noises)
    jitted = jax.jit(fit)(noises[1])
    for k, noise in enumerate(noises):
        eager = fit(float(noise))
        np.testing.assert_allclose(batched.log_marginal_likelihood_value[k], eager.log_marginal_likelihood_value,
                                   rtol=1e-12)
        np.testing.assert_allclose(batched.alpha[k], eager.alpha, rtol=1e-10, atol=1e-12)
    eager = fit(0.1)
    np.testing.assert_allclose(jitted.alpha, eager.alpha, rtol=1e-12)
    np.testing.assert_allclose(G.predict(jitted, Q_DIA), G.predict(eager, Q_DIA), rtol=1e-12)


@pytest.mark.full
def test_vmap_over_noise_of_the_lml_and_its_gradient():
    lml = lambda noise: G.log_marginal_likelihood(G.GPKernel(1.7, 0.15, noise), X_DIA, Y_DIA_STD)  # noqa: E731
    noises = jnp.array([0.05, 0.3])
    batched = jax.vmap(jax.value_and_grad(lml))(noises)
    for k, noise in enumerate(noises):
        value, grad = jax.value_and_grad(lml)(noise)
        np.testing.assert_allclose(batched[0][k], value, rtol=1e-12)
        np.testing.assert_allclose(batched[1][k], grad, rtol=1e-10)


def test_second_call_does_not_retrace():
    G.fit_gp(X_DIA, Y_DIA_STD, **HYPER)
    G.predict(G.fit_gp(X_DIA, Y_DIA_STD, **HYPER), Q_DIA, return_std=True)
    fits, predicts = R._fit_gp._cache_size(), R._predict_gp._cache_size()
    params = G.fit_gp(X_DIA, Y_DIA_STD[::-1].copy(), amplitude=2.0, length_scale=0.3, noise=0.1)
    G.predict(params, Q_DIA + 0.01, return_std=True)
    assert R._fit_gp._cache_size() == fits
    assert R._predict_gp._cache_size() == predicts


def test_float32_input_keeps_float32():
    params = G.fit_gp(X_SIN.astype(np.float32), Y_SIN.astype(np.float32), noise=0.1)
    assert params.L.dtype == jnp.float32 and params.kernel.noise.dtype == jnp.float32
    mean, std = G.predict(params, Q_SIN.astype(np.float32), return_std=True)
    assert mean.dtype == jnp.float32
    ref = G.fit_gp(X_SIN, Y_SIN, noise=0.1)
    np.testing.assert_allclose(mean, G.predict(ref, Q_SIN), atol=1e-4)  # float32 rounding, noise 0.1


# ----------------------------------------------------------------------------- bad input
fit = functools.partial(G.fit_gp, X_SIN, Y_SIN)


def test_negative_noise():
    with pytest.raises(ValueError, match=r"noise must be >= 0.0, got -0.1"):
        fit(noise=-0.1)


def test_non_positive_amplitude():
    with pytest.raises(ValueError, match=r"amplitude must be > 0.0, got 0.0"):
        fit(amplitude=0.0)


def test_non_positive_length_scale():
    with pytest.raises(ValueError, match=r"length_scale must be > 0.0, got -1.0"):
        fit(length_scale=-1.0)
    with pytest.raises(ValueError, match=r"length_scale must be finite and > 0, got \[0.0, 1.0\]"):
        G.fit_gp(X_SIN[:, [0, 0]], Y_SIN, length_scale=np.array([0.0, 1.0]))


def test_length_scale_of_the_wrong_shape():
    with pytest.raises(ValueError, match=r"length_scale must be a scalar or have shape \(1,\)"):
        fit(length_scale=np.ones(3))


def test_negative_alpha():
    with pytest.raises(ValueError, match=r"alpha must be >= 0, got minimum -0.5"):
        fit(alpha=-0.5)


def test_alpha_of_the_wrong_length():
    with pytest.raises(ValueError, match=r"alpha must be a scalar or have shape \(30,\), got shape \(4,\)"):
        fit(alpha=np.ones(4))


def test_nan_in_y():
    y = Y_SIN.copy()
    y[2] = np.nan
    with pytest.raises(ValueError, match="y contains 1 NaN value"):
        G.fit_gp(X_SIN, y)


def test_mismatched_lengths():
    with pytest.raises(ValueError, match="X and y have inconsistent numbers of samples: 30 != 29"):
        G.fit_gp(X_SIN, Y_SIN[:-1])


def test_unknown_kernel():
    with pytest.raises(ValueError, match=r"kernel must be one of \['matern12', 'matern32', 'matern52', 'rbf'\]"):
        fit(kernel="periodic")
    with pytest.raises(TypeError, match="kernel must be a string or a callable"):
        fit(kernel=3)


def test_predict_std_and_cov_together():
    params = fit(noise=0.1)
    with pytest.raises(ValueError, match="return_std and return_cov cannot both be True"):
        G.predict(params, Q_SIN, return_std=True, return_cov=True)


def test_predict_with_the_wrong_number_of_features():
    with pytest.raises(ValueError, match="X has 2 features, but the model was fitted with 1 features"):
        G.predict(fit(noise=0.1), np.ones((3, 2)))


def test_lml_of_something_else():
    with pytest.raises(TypeError, match="params_or_hyper must be GPParams or GPKernel, got dict"):
        G.log_marginal_likelihood({"noise": 1.0}, X_SIN, Y_SIN)
