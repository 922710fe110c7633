"""Derivatives through :func:`jaxclassic.gaussian_process.fit_gp` (issue 14: the GP fit is a
closed form, so autodiff through it is exact: no implicit differentiation is needed).

The public fit and ``predict`` are differentiated end to end: a validation loss in the
hyperparameters (amplitude, length scale(s), noise), the targets, the inputs and the sample
weights. References: the hand derivation in numpy (:math:`\\partial\\mu_*/\\partial\\sigma^2 =
-k_*^\\top C^{-1}C^{-1}t`, :math:`\\partial\\mu_*/\\partial t = C^{-1}k_*`) to 1e-10 relative
(float64, the same linear algebra up to rounding), and central finite differences of the
re-fitted model (step 1e-6 in float64: truncation ~1e-12, rounding ~1e-10 relative to the
loss, so 1e-6 relative). Forward and reverse mode agree; ``jit`` equals eager; a second
``jit`` call does not retrace.
"""

import pytest
import jax
import jax.numpy as jnp
import numpy as np

from jaxclassic import gaussian_process as G

RNG = np.random.default_rng(0)
X = np.linspace(0.0, 6.0, 20)[:, None]
Y = np.sin(X[:, 0]) + 0.1 * RNG.normal(size=20)
Q = np.linspace(-1.0, 7.0, 9)[:, None]
YQ = np.sin(Q[:, 0])
X2 = RNG.normal(size=(20, 2))
Y2 = X2[:, 0] - np.cos(X2[:, 1]) + 0.1 * RNG.normal(size=20)
Q2 = RNG.normal(size=(9, 2))
FD_RTOL = 1e-6  # central differences, step 1e-6, float64 (module docstring)
#: the rounding part of a central difference is about (error of one loss value) / step. A loss
#: through a Cholesky fit of 20 rows is computed to a few ulps (measured: a 1.5e-6 element off
#: by 2e-10, i.e. 4e-16 of a loss of order 1, on a loaded machine); 50 ulps of the loss / step
#: bounds it with room: the absolute tolerance of a gradient element near zero.
FD_ULPS = 50


def _fd_atol(loss_value, eps=1e-6):
    return FD_ULPS * np.finfo(np.float64).eps * max(abs(float(loss_value)), 1.0) / eps


def _central(f, x, eps=1e-6):
    x = np.asarray(x, dtype=np.float64)
    g = np.zeros_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e.flat[i] = eps
        g.flat[i] = (float(f(x + e)) - float(f(x - e))) / (2 * eps)
    return g


def _val_loss_hyper(h):
    params = G.fit_gp(X, Y, amplitude=h[0], length_scale=h[1], noise=h[2])
    return jnp.mean(jnp.square(G.predict(params, Q) - YQ))


@pytest.mark.full
def test_validation_loss_gradient_in_hyperparameters_equals_finite_differences():
    h = np.array([0.8, 1.1, 0.05])
    grad = np.asarray(jax.grad(_val_loss_hyper)(jnp.asarray(h)))
    np.testing.assert_allclose(grad, _central(_val_loss_hyper, h), rtol=FD_RTOL, atol=_fd_atol(_val_loss_hyper(h)))
    fwd = np.asarray(jax.jacfwd(_val_loss_hyper)(jnp.asarray(h)))
    np.testing.assert_allclose(fwd, grad, rtol=1e-10)


def _hand_kernel(a, b, amplitude, length_scale):
    d2 = np.sum((a[:, None, :] - b[None, :, :]) ** 2 / np.square(length_scale), axis=-1)
    return amplitude * np.exp(-0.5 * d2)


@pytest.mark.full
def test_mean_derivatives_equal_the_hand_derivation():
    amplitude, length_scale, noise = 0.8, 1.1, 0.05
    C = _hand_kernel(X, X, amplitude, length_scale) + (noise + 1e-10) * np.eye(20)
    Ks = _hand_kernel(Q, X, amplitude, length_scale)
    C_inv = np.linalg.inv(C)
    # d mu / d noise = -K* C^{-1} C^{-1} y ; d mu / d y = K* C^{-1}
    d_noise_ref = -Ks @ C_inv @ C_inv @ Y
    d_y_ref = Ks @ C_inv

    def mean_noise(noise):
        return G.predict(G.fit_gp(X, Y, amplitude=amplitude, length_scale=length_scale, noise=noise), Q)

    def mean_y(y):
        return G.predict(G.fit_gp(X, y, amplitude=amplitude, length_scale=length_scale, noise=noise), Q)

    np.testing.assert_allclose(jax.jacfwd(mean_noise)(jnp.asarray(noise)), d_noise_ref, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(jax.jacrev(mean_y)(jnp.asarray(Y)), d_y_ref, rtol=1e-9, atol=1e-12)


def _val_loss_data(Xv, yv, w):
    params = G.fit_gp(Xv, yv, amplitude=0.9, length_scale=np.array([0.7, 1.3]), noise=0.1, sample_weight=w)
    return jnp.mean(jnp.square(G.predict(params, Q2) - np.cos(Q2[:, 1])))


W2 = np.linspace(0.5, 2.0, 20)


@pytest.mark.full
def test_validation_loss_gradient_in_the_data_equals_finite_differences():
    # one reverse program for X, y and the weights together (suite time), each checked against
    # its own central differences (X: the first 6 rows)
    g_x, g_y, g_w = (np.asarray(g) for g in jax.grad(_val_loss_data, argnums=(0, 1, 2))(
        jnp.asarray(X2), jnp.asarray(Y2), jnp.asarray(W2)))
    fd_x = _central(lambda v: _val_loss_data(jnp.concatenate([jnp.asarray(v), X2[6:]]), Y2, W2), X2[:6])
    atol = _fd_atol(_val_loss_data(X2, Y2, W2))  # ~1e-8 (FD_ULPS)
    np.testing.assert_allclose(g_x[:6], fd_x, rtol=FD_RTOL, atol=atol)
    np.testing.assert_allclose(g_y, _central(lambda v: _val_loss_data(X2, v, W2), Y2), rtol=FD_RTOL, atol=atol)
    np.testing.assert_allclose(g_w, _central(lambda v: _val_loss_data(X2, Y2, v), W2), rtol=FD_RTOL, atol=atol)


@pytest.mark.full
def test_zero_weight_row_has_zero_gradient():
    w = np.ones(20)
    w[[2, 11]] = 0.0
    g_x, g_y = jax.grad(_val_loss_data, argnums=(0, 1))(jnp.asarray(X2), jnp.asarray(Y2), jnp.asarray(w))
    # y: exactly 0; X: 0 up to rounding (~1e-18 here: squared distances are measured from a
    # shifted origin, a shift that cancels exactly in the maths but not in rounding)
    assert np.all(np.asarray(g_y)[[2, 11]] == 0)
    np.testing.assert_allclose(np.asarray(g_x)[[2, 11]], 0, atol=1e-15)
    assert np.all(np.asarray(g_y)[w > 0] != 0)


@pytest.mark.full
def test_lml_of_the_fit_differentiates_as_log_marginal_likelihood():
    def through_fit(ls):
        return G.fit_gp(X2, Y2, amplitude=0.9, length_scale=ls, noise=0.1).log_marginal_likelihood_value

    def direct(ls):
        return G.log_marginal_likelihood(G.GPKernel(0.9, ls, 0.1), X2, Y2)

    ls = jnp.array([0.7, 1.3])
    np.testing.assert_allclose(jax.grad(through_fit)(ls), jax.grad(direct)(ls), rtol=1e-10)


def test_jit_grad_equals_eager_and_does_not_retrace():
    traces = []

    def loss(ls):
        traces.append(1)
        params = G.fit_gp(X2, Y2, amplitude=0.9, length_scale=ls, noise=0.1)
        return jnp.mean(jnp.square(G.predict(params, Q2) - np.cos(Q2[:, 1])))

    jitted = jax.jit(jax.grad(loss))
    ls = jnp.array([0.7, 1.3])
    g1 = jitted(ls)
    g2 = jitted(ls * 1.1)
    assert len(traces) == 1
    np.testing.assert_allclose(g1, jax.grad(loss)(ls), rtol=1e-10)
    assert not np.allclose(g1, g2)


# ----------------------------------------------------------------------------- type-II ML
@pytest.mark.full
def test_optimized_hyperparameters_have_implicit_derivatives():
    # the L-BFGS optimum's stationarity d log p / d log theta = 0, differentiated implicitly
    # (never through L-BFGS's loop) = central differences of the re-optimised hyperparameters
    # (tol 1e-10 on the gradient: the optimum is fixed to ~1e-10, step 1e-5: 1e-6 relative);
    # forward mode only: each mode compiles L-BFGS once more (reverse mode: tests/test_implicit.py)
    v = np.cos(np.arange(20.0))

    def theta(s):
        res = G.optimize_hyperparameters(X, Y + s * v, init=G.GPKernel(1.0, 1.0, 0.1), tol=1e-10, max_iter=200)
        return jnp.stack([res.kernel.amplitude, res.kernel.length_scale, res.kernel.noise])

    eps = 1e-5
    fd = (np.asarray(theta(eps)) - np.asarray(theta(-eps))) / (2 * eps)
    _, fwd = jax.jvp(theta, (0.0,), (1.0,))
    np.testing.assert_allclose(fwd, fd, rtol=1e-6, atol=1e-9)


@pytest.mark.full
def test_lml_gradient_in_log_hyperparameters_equals_sklearns_eval_gradient():
    # an independent hand derivation: scikit-learn's analytic dK/dtheta and
    # 1/2 tr((a a^T - K^{-1}) dK/dtheta) over log(c), log(l_1), log(l_2), log(sigma^2)
    from sklearn.gaussian_process import GaussianProcessRegressor
    from sklearn.gaussian_process import kernels as sk_kernels

    c, ls, s2 = 0.9, np.array([0.7, 1.3]), 0.1
    kernel = (sk_kernels.ConstantKernel(c) * sk_kernels.RBF(ls) + sk_kernels.WhiteKernel(s2))
    ref = GaussianProcessRegressor(kernel, optimizer=None).fit(X2, Y2)
    value, grad = ref.log_marginal_likelihood(ref.kernel_.theta, eval_gradient=True)

    def lml(u):
        return G.log_marginal_likelihood(G.GPKernel(jnp.exp(u[0]), jnp.exp(u[1:3]), jnp.exp(u[3])), X2, Y2)

    u = jnp.log(jnp.array([c, *ls, s2]))
    np.testing.assert_allclose(lml(u), value, rtol=1e-10)  # float64, a 20 x 20 Cholesky
    np.testing.assert_allclose(jax.grad(lml)(u), grad, rtol=1e-8, atol=1e-10)
