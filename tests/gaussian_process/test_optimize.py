"""Tests of jaxclassic/gaussian_process/optimize.py (optimize_hyperparameters).

Reference: scikit-learn's ``GaussianProcessRegressor`` with its L-BFGS-B optimiser on the same
data, kernel, bounds and number of restarts: our optimised log marginal likelihood is at least
scikit-learn's minus 1e-6 (both reach the same interior optimum here; their values agree to
~1e-9). At the optimum the gradient in the log hyperparameters vanishes. Each program compiles
once (shared shapes), and the optimiser's compilation is slow, so the cases are few.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from sklearn import datasets
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process import kernels as sk_kernels

from jaxclassic import gaussian_process as G
from jaxclassic.gaussian_process import optimize as O

_XD, _YD = datasets.load_diabetes(return_X_y=True)
X_DIA, Y_DIA = _XD[:60], _YD[:60]
X_SIN = np.linspace(0.0, 6.0, 30)[:, None]
Y_SIN = np.sin(X_SIN[:, 0]) + 0.1 * np.random.default_rng(0).normal(size=30)
SIN_BOUNDS = G.GPKernel((1e-3, 1e3), "fixed", (1e-5, 1e2))  # the length scale fixed
SIN_INIT = G.GPKernel(1.0, 1.5, 0.1)


@pytest.fixture(scope="module")
def diabetes():
    res = G.optimize_hyperparameters(X_DIA, Y_DIA, kernel="matern52", init=G.GPKernel(1.0, 1.0, 0.1),
                                     n_restarts=2, key=jax.random.key(0), normalize_y=True)
    k = (sk_kernels.ConstantKernel(1.0) * sk_kernels.Matern(1.0, nu=2.5) + sk_kernels.WhiteKernel(0.1))
    ref = GaussianProcessRegressor(k, n_restarts_optimizer=2, normalize_y=True, random_state=0).fit(X_DIA, Y_DIA)
    return res, ref


@pytest.fixture(scope="module")
def sin():
    return G.optimize_hyperparameters(X_SIN, Y_SIN, init=SIN_INIT, bounds=SIN_BOUNDS)


@pytest.mark.full
def test_optimised_lml_at_least_sklearns_on_diabetes(diabetes):
    res, ref = diabetes
    assert float(res.log_marginal_likelihood) >= ref.log_marginal_likelihood_value_ - 1e-6
    # the same interior optimum: the hyperparameters agree to the optimisers' tolerances
    ours = np.log([float(res.kernel.amplitude), float(res.kernel.length_scale), float(res.kernel.noise)])
    np.testing.assert_allclose(ours, ref.kernel_.theta, atol=1e-3)


@pytest.mark.full
def test_best_start_is_kept_and_the_fit_reproduces_its_lml(diabetes):
    res, _ = diabetes
    best = int(np.argmax(np.asarray(res.start_log_marginal_likelihoods)))
    assert res.start_log_marginal_likelihoods.shape == (3,) and res.n_iter.shape == (3,)
    assert float(res.kernel.noise) == float(res.start_kernels.noise[best])
    params = G.fit_gp(X_DIA, Y_DIA, kernel="matern52", normalize_y=True, **res.kernel._asdict())
    np.testing.assert_allclose(params.log_marginal_likelihood_value, res.log_marginal_likelihood, rtol=1e-12)


@pytest.mark.full
def test_vmapped_restarts_equal_restarts_one_after_another(diabetes):
    res, _ = diabetes
    loop = G.optimize_hyperparameters(X_DIA, Y_DIA, kernel="matern52", init=G.GPKernel(1.0, 1.0, 0.1),
                                      n_restarts=2, key=jax.random.key(0), normalize_y=True, batch_restarts=False)
    np.testing.assert_allclose(loop.start_log_marginal_likelihoods, res.start_log_marginal_likelihoods, rtol=1e-9)
    for a, b in zip(loop.start_kernels, res.start_kernels):
        np.testing.assert_allclose(a, b, rtol=1e-6)
    np.testing.assert_array_equal(loop.n_iter, res.n_iter)


@pytest.mark.full
def test_gradient_vanishes_at_the_optimum(diabetes):
    res, _ = diabetes

    def lml(log_theta):
        theta = G.GPKernel(*jnp.exp(log_theta))
        return G.log_marginal_likelihood(theta, X_DIA, Y_DIA, kernel="matern52", normalize_y=True)

    log_theta = jnp.log(jnp.stack(list(res.kernel)))
    assert float(jnp.max(jnp.abs(jax.grad(lml)(log_theta)))) < 1e-4


@pytest.mark.full
def test_fixed_length_scale_stays_fixed_and_lml_at_least_sklearns(sin):
    assert float(sin.kernel.length_scale) == 1.5
    k = (sk_kernels.ConstantKernel(1.0, (1e-3, 1e3)) * sk_kernels.RBF(1.5, "fixed")
         + sk_kernels.WhiteKernel(0.1, (1e-5, 1e2)))
    ref = GaussianProcessRegressor(k).fit(X_SIN, Y_SIN)
    assert float(sin.log_marginal_likelihood) >= ref.log_marginal_likelihood_value_ - 1e-6
    assert bool(sin.converged[0])


@pytest.mark.full
def test_zero_weight_rows_equal_the_optimisation_without_them(sin):
    w = np.ones(30)
    w[[2, 9, 10, 25]] = 0
    weighted = G.optimize_hyperparameters(X_SIN, Y_SIN, init=SIN_INIT, bounds=SIN_BOUNDS, sample_weight=w)
    keep = w > 0
    ref = G.optimize_hyperparameters(X_SIN[keep], Y_SIN[keep], init=SIN_INIT, bounds=SIN_BOUNDS)
    np.testing.assert_allclose(weighted.log_marginal_likelihood, ref.log_marginal_likelihood, rtol=1e-9)
    np.testing.assert_allclose(weighted.kernel.noise, ref.kernel.noise, rtol=1e-5)


@pytest.mark.full
def test_second_call_does_not_retrace(sin):
    before = O._optimize._cache_size()
    G.optimize_hyperparameters(X_SIN, Y_SIN[::-1].copy(), init=G.GPKernel(2.0, 1.5, 0.5), bounds=SIN_BOUNDS)
    assert O._optimize._cache_size() == before


@pytest.mark.full
def test_nothing_free_returns_the_init_and_its_lml():
    init = G.GPKernel(1.0, 1.5, 0.1)
    res = G.optimize_hyperparameters(X_SIN, Y_SIN, init=init, bounds=G.GPKernel(None, "fixed", None))
    assert float(res.kernel.length_scale) == 1.5 and int(res.n_iter[0]) == 0
    np.testing.assert_allclose(res.log_marginal_likelihood, G.log_marginal_likelihood(init, X_SIN, Y_SIN),
                               rtol=1e-12)


# ----------------------------------------------------------------------------- bad input
def test_zero_noise_with_bounds():
    with pytest.raises(ValueError, match="noise is 0 in init and has bounds"):
        G.optimize_hyperparameters(X_SIN, Y_SIN, init=G.GPKernel(1.0, 1.0, 0.0),
                                   bounds=G.GPKernel((1e-5, 1e5), (1e-5, 1e5), (1e-5, 1e5)))


def test_bounds_low_above_high():
    with pytest.raises(ValueError, match=r"bounds of length_scale must be 'fixed' or \(low, high\) with 0 < low < high"):
        G.optimize_hyperparameters(X_SIN, Y_SIN, bounds={"length_scale": (10.0, 1.0)})


def test_bounds_with_an_unknown_name():
    with pytest.raises(ValueError, match=r"bounds has unknown keys \['gamma'\]"):
        G.optimize_hyperparameters(X_SIN, Y_SIN, bounds={"gamma": (1.0, 2.0)})


def test_restarts_without_a_key_use_key_0(diabetes):
    # issue 27: key is optional; None is the fixed key jax.random.key(0) (deterministic)
    res = G.optimize_hyperparameters(X_DIA, Y_DIA, kernel="matern52", init=G.GPKernel(1.0, 1.0, 0.1),
                                     n_restarts=2, normalize_y=True)
    np.testing.assert_array_equal(np.asarray(res.start_log_marginal_likelihoods),
                                  np.asarray(diabetes[0].start_log_marginal_likelihoods))


def test_restarts_with_an_int_key():
    with pytest.raises(TypeError, match="key must be a jax.random key, got int"):
        G.optimize_hyperparameters(X_SIN, Y_SIN, n_restarts=2, key=3)


def test_init_of_the_wrong_type():
    with pytest.raises(TypeError, match="init must be a GPKernel, got dict"):
        G.optimize_hyperparameters(X_SIN, Y_SIN, init={"noise": 0.1})


def test_negative_restarts():
    with pytest.raises(ValueError, match="n_restarts must be >= 0, got -1"):
        G.optimize_hyperparameters(X_SIN, Y_SIN, n_restarts=-1)
