"""The shared iterate-to-convergence template and the optax driver."""

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

from jaxclassic._solver import iterate, minimize_optax
from jaxclassic._dispatch import Dispatcher


def _newton_sqrt(a, max_iter=50, tol=1e-12):
    # Newton on x^2 - a: x <- (x + a/x)/2, error |x^2 - a|
    def step(x):
        x = 0.5 * (x + a / x)
        return x, jnp.abs(x * x - a)
    return iterate(step, jnp.asarray(a), max_iter=max_iter, tol=tol)


def test_iterate_converges_and_reports():
    r = _newton_sqrt(2.0)
    assert bool(r.converged)
    assert r.carry == pytest.approx(np.sqrt(2.0), rel=1e-15)
    n = int(r.n_iter)
    assert 3 <= n <= 8
    # quadratic convergence: error roughly squares each step (Newton's method)
    h = np.asarray(r.history[:n])
    assert np.all(np.diff(h) < 0) and h[n - 1] <= 1e-12
    assert np.all(h[n:] == 0)


def test_iterate_stops_at_max_iter_unconverged():
    r = _newton_sqrt(2.0, max_iter=2)
    assert int(r.n_iter) == 2 and not bool(r.converged)


def test_iterate_init_error_skips_when_already_converged():
    r = iterate(lambda x: (x + 1.0, jnp.asarray(0.0)), jnp.asarray(0.0), max_iter=5, tol=1e-3, init_error=0.0)
    assert int(r.n_iter) == 0 and bool(r.converged) and r.carry == 0.0


def test_iterate_stops_on_non_finite_error():
    r = iterate(lambda x: (x * 10.0, jnp.asarray(jnp.nan)), jnp.asarray(1.0), max_iter=100, tol=1e-6)
    assert int(r.n_iter) == 1 and not bool(r.converged)


def test_iterate_vmaps_and_jits():
    a = jnp.array([2.0, 9.0, 0.25])
    r = jax.jit(jax.vmap(lambda a: _newton_sqrt(a)))(a)
    np.testing.assert_allclose(r.carry, np.sqrt(a), rtol=1e-14)
    assert bool(r.converged.all())


@pytest.mark.full
@pytest.mark.parametrize("opt", [optax.lbfgs(), optax.sgd(0.1), optax.adam(0.1)])
def test_minimize_optax(opt):
    target = jnp.array([1.0, -2.0, 3.0])
    r = minimize_optax(lambda w: jnp.sum((w - target) ** 2), jnp.zeros(3), opt, max_iter=2000, tol=1e-6)
    params, _ = r.carry
    assert bool(r.converged)
    np.testing.assert_allclose(params, target, atol=1e-5)


def test_dispatcher():
    from typing import NamedTuple

    class A(NamedTuple):
        x: float

    class B(NamedTuple):
        x: float

    d = Dispatcher("predict")
    d.register(A, lambda p, z: p.x + z)
    assert d(A(1.0), 2.0) == 3.0
    with pytest.raises(TypeError, match="predict does not support params of type B; supported: A"):
        d(B(1.0), 2.0)


def test_traced_max_iter_does_not_retrace_and_history_keeps_the_last_error():
    # max_iter as an array is a traced bound: one compiled program for every value; the
    # history has the static history_size and its last entry holds the final error
    traces = []

    @jax.jit
    def run(a, max_iter):
        traces.append(1)

        def step(x):
            x = 0.5 * (x + a / x)
            return x, jnp.abs(x * x - a)

        return iterate(step, a, max_iter=max_iter, tol=0.0, history_size=3)

    two = run(jnp.asarray(2.0), jnp.int32(2))
    five = run(jnp.asarray(2.0), jnp.int32(5))
    assert len(traces) == 1
    assert int(two.n_iter) == 2 and int(five.n_iter) == 5
    assert two.history.shape == (3,) and float(two.history[2]) == 0.0
    # reference: the same loop with a static max_iter of 5 and the full history
    full = _newton_sqrt(2.0, max_iter=5, tol=0.0)
    np.testing.assert_array_equal(five.history[:2], full.history[:2])
    assert float(five.history[2]) == float(full.history[4]) == float(five.error)


def test_traced_max_iter_needs_history_size():
    with pytest.raises(TypeError, match="history_size is required"):
        iterate(lambda x: (x, jnp.asarray(0.0)), jnp.asarray(1.0), max_iter=jnp.int32(3), tol=0.0)
