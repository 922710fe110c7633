"""Losses: autodiff equals the hand derivations (float64, 1e-10 relative with an absolute floor),
closed-form values, stability at extreme scores, second-order check_grads, kink subgradients."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.test_util import check_grads

from jaxclassic import losses
from jaxclassic._gradcheck import ATOL, RTOL, check_losses, sample_inputs

SMOOTH = ["squared", "log_loss", "exponential", "softmax_cross_entropy"]


@pytest.mark.full  # the same comparison as test_grad_hess_equals_hand_derivation (fast tier), through the CLI's function
def test_gradcheck_all_losses_pass():
    rows = check_losses(seed=3)
    assert {r.loss for r in rows} == set(losses.HAND_DERIVED)
    for r in rows:
        assert r.max_rel_grad <= RTOL, r
        assert r.max_rel_hess <= RTOL, r


@pytest.mark.parametrize("name", list(losses.HAND_DERIVED))
def test_grad_hess_equals_hand_derivation(name):
    loss, grad_fn, hess_fn = losses.HAND_DERIVED[name]
    y, f = sample_inputs(name, jax.random.key(11), n=300)
    if name == "softmax_cross_entropy":
        g, h = losses.grad_hess(loss, y, f)
        np.testing.assert_allclose(g, jax.vmap(grad_fn)(y, f), rtol=RTOL, atol=ATOL)
        diag = jnp.diagonal(jax.vmap(hess_fn)(y, f), axis1=-2, axis2=-1)
        np.testing.assert_allclose(h, diag, rtol=RTOL, atol=ATOL)
    else:
        g, h = losses.grad_hess(loss, y, f)
        np.testing.assert_allclose(g, grad_fn(y, f), rtol=RTOL, atol=ATOL)
        np.testing.assert_allclose(h, hess_fn(y, f), rtol=RTOL, atol=ATOL)


@pytest.mark.full
def test_closed_form_values():
    # hand-computed values of each loss at simple points
    assert losses.squared(3.0, 1.0) == pytest.approx(2.0)
    assert losses.absolute(3.0, 1.0) == pytest.approx(2.0)
    assert losses.log_loss(1.0, 0.0) == pytest.approx(np.log(2.0))
    assert losses.log_loss(0.0, 2.0) == pytest.approx(np.log1p(np.exp(2.0)))
    assert losses.hinge(1.0, 0.25) == pytest.approx(0.75)
    assert losses.hinge(-1.0, -3.0) == 0.0
    assert losses.exponential(-1.0, 2.0) == pytest.approx(np.exp(2.0))
    assert losses.perceptron(1.0, -2.0) == pytest.approx(2.0)
    assert losses.zero_one(1.0, 0.0) == 1.0 and losses.zero_one(-1.0, -0.1) == 0.0
    scores = jnp.array([1.0, 2.0, 0.5])
    expected = np.log(np.exp([1.0, 2.0, 0.5]).sum()) - 2.0
    assert losses.softmax_cross_entropy(1, scores) == pytest.approx(expected)
    assert losses.softmax_cross_entropy(jnp.array([0.0, 1.0, 0.0]), scores) == pytest.approx(expected)


@pytest.mark.full
def test_log_loss_and_softmax_finite_and_accurate_at_extreme_scores():
    f = jnp.array([-1e3, -50.0, 50.0, 1e3])
    # log(1 + e^f) - y f, exactly: for f << 0 it is e^f (≈ 0), for f >> 0 it is f
    np.testing.assert_allclose(losses.log_loss(1.0, f), [1e3, 50.0, np.exp(-50.0), 0.0], rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(losses.log_loss(0.0, f), [0.0, np.exp(-50.0), 50.0, 1e3], rtol=1e-12, atol=1e-300)
    big = jnp.array([1e3, -1e3, 0.0])
    assert losses.softmax_cross_entropy(1, big) == pytest.approx(2e3)
    assert jnp.isfinite(losses.grad_hess(losses.log_loss, jnp.ones(4), f)[1]).all()
    g, h = losses.grad_hess(losses.softmax_cross_entropy, jnp.array([1]), big[None])
    assert jnp.isfinite(g).all() and jnp.isfinite(h).all()


def test_hessian_of_log_loss_avoids_cancellation():
    # sigma(f) * sigma(-f) keeps full relative accuracy where 1 - sigma(f) rounds to 0
    f = jnp.array([40.0, 100.0])
    np.testing.assert_allclose(losses.hess_log_loss(0.0, f), np.exp(-f) / (1 + np.exp(-f)) ** 2, rtol=1e-14)
    assert float(losses.hess_log_loss(0.0, 40.0)) > 0.0


def test_exponential_overflow_range_documented():
    assert jnp.isfinite(losses.exponential(-1.0, 700.0))
    assert jnp.isinf(losses.exponential(-1.0, 710.0))  # float64 limit ~709.8, in the docstring
    assert jnp.isinf(losses.exponential(-1.0, jnp.float32(89.0)))  # float32 limit ~88.7


@pytest.mark.full
@pytest.mark.parametrize("name", SMOOTH)
def test_check_grads_second_order(name):
    loss = losses.HAND_DERIVED[name][0]
    if name == "softmax_cross_entropy":
        check_grads(lambda s: loss(2, s), (jnp.array([0.3, -1.2, 0.7, 2.0]),), order=2, modes=["fwd", "rev"])
    else:
        y = 1.0
        for f0 in (-2.5, 0.1, 3.0):
            check_grads(lambda f: loss(y, f), (jnp.asarray(f0),), order=2, modes=["fwd", "rev"])


@pytest.mark.full
def test_subgradients_at_kinks():
    d = jax.grad(losses.hinge, argnums=1)
    assert d(1.0, 1.0) == 0.0 and d(-1.0, -1.0) == 0.0  # yf = 1: 0 ∈ [-y, 0]
    assert d(1.0, 0.999) == -1.0 and d(1.0, 1.001) == 0.0
    d = jax.grad(losses.perceptron, argnums=1)
    assert d(1.0, 0.0) == 0.0 and d(1.0, -1e-9) == -1.0
    d = jax.grad(losses.absolute, argnums=1)
    assert d(2.0, 2.0) == -1.0  # documented: JAX's abs'(0) = +1, the loss is |y - f|
    assert losses.grad_absolute(2.0, 2.0) == 0.0
    assert jax.grad(losses.zero_one, argnums=1)(1.0, 0.5) == 0.0


@pytest.mark.full
def test_grad_hess_user_loss_and_full_hessian():
    def pseudo_huber(y, f, delta=1.5):
        r = (f - y) / delta
        return delta**2 * (jnp.sqrt(1 + r * r) - 1)

    y = jnp.array([0.0, 1.0, -2.0])
    f = jnp.array([0.5, 3.0, -2.0])
    g, h = losses.grad_hess(pseudo_huber, y, f)
    r = (f - y) / 1.5
    np.testing.assert_allclose(g, (f - y) / np.sqrt(1 + r**2), rtol=1e-12)
    np.testing.assert_allclose(h, (1 + r**2) ** -1.5, rtol=1e-12)
    scores = jax.random.normal(jax.random.key(0), (6, 3))
    labels = jnp.array([0, 1, 2, 2, 1, 0])
    _, hfull = losses.grad_hess(losses.softmax_cross_entropy, labels, scores, full_hessian=True)
    np.testing.assert_allclose(hfull, jax.vmap(losses.hess_softmax_cross_entropy)(labels, scores), rtol=1e-12, atol=1e-15)


@pytest.mark.full
def test_float32_kept_and_jit_matches_eager():
    y = jnp.array([0.0, 1.0, 1.0], jnp.float32)
    f = jnp.array([-3.0, 0.5, 9.0], jnp.float32)
    g, h = losses.grad_hess(losses.log_loss, y, f)
    assert g.dtype == jnp.float32 and h.dtype == jnp.float32
    jitted = jax.jit(losses.grad_hess, static_argnums=0)
    gj, hj = jitted(losses.log_loss, y, f)
    np.testing.assert_allclose(g, gj, rtol=1e-6)
    np.testing.assert_allclose(h, hj, rtol=1e-6)


def test_squared_hinge_values_and_kink():
    # hand-computed: max(0, 1 - yf)^2
    assert losses.squared_hinge(1.0, 0.25) == pytest.approx(0.5625)
    assert losses.squared_hinge(-1.0, 0.5) == pytest.approx(2.25)
    assert losses.squared_hinge(1.0, 3.0) == 0.0
    d = jax.grad(losses.squared_hinge, argnums=1)
    assert d(1.0, 1.0) == 0.0 and d(-1.0, -1.0) == 0.0  # continuous derivative: 0 at yf = 1
    assert d(1.0, 0.5) == pytest.approx(-1.0) and d(-1.0, 0.5) == pytest.approx(3.0)
    h = jax.grad(d, argnums=1)
    assert h(1.0, 0.999) == 2.0 and h(1.0, 1.0) == 0.0 and h(1.0, 1.001) == 0.0
