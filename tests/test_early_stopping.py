"""Tests of jaxclassic/_early_stopping.py (the ground rule shared by SGD, boosting and
model selection).

Reference: a direct Python implementation of the rule (exact integers and values).
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxclassic._early_stopping import early_stopping, early_stopping_init, early_stopping_update


def _reference_early_stopping(losses, patience, min_delta=0.0):
    best, best_t = np.inf, -1
    for t, v in enumerate(losses):
        if v < best - min_delta:
            best, best_t = v, t
        if t - best_t >= patience:
            return best_t, t, best, True
    return best_t, len(losses) - 1, best, False


@pytest.mark.full
@pytest.mark.parametrize("patience", [1, 3, 8])
def test_early_stopping_equals_reference_rule(patience):
    rng = np.random.default_rng(patience)
    for _ in range(20):
        t = np.arange(30)  # a noisy U-shaped validation loss
        losses = (t - rng.integers(5, 25)) ** 2 / 100 + rng.normal(scale=0.3, size=30)
        got = early_stopping(losses, patience)
        best_t, stop_t, best, stopped = _reference_early_stopping(losses, patience)
        assert (int(got.best_iter), int(got.stop_iter), bool(got.stopped)) == (best_t, stop_t, stopped)
        assert float(got.best_value) == best


def test_early_stopping_min_delta():
    got = early_stopping(np.array([1.0, 0.99, 0.98, 0.97, 0.5]), 3, min_delta=0.05)
    assert (int(got.best_iter), int(got.stop_iter), bool(got.stopped)) == (0, 3, True)


@pytest.mark.full
def test_early_stopping_jit_and_vmap_equal_loop():
    losses = jax.random.normal(jax.random.key(0), (6, 25)).cumsum(axis=1)
    batched = jax.jit(jax.vmap(lambda l: early_stopping(l, 4)))(losses)
    for i in range(6):
        one = early_stopping(losses[i], 4)
        assert int(batched.best_iter[i]) == int(one.best_iter)
        assert int(batched.stop_iter[i]) == int(one.stop_iter)


def test_early_stopping_update_inside_a_while_loop():
    losses = jnp.asarray([3.0, 2.0, 1.5, 1.6, 1.7, 1.4, 1.5, 1.6, 1.7, 1.8, 0.1])

    def run(losses):
        def body(carry):
            t, state = carry
            return t + 1, early_stopping_update(state, losses[t], patience=3)

        return jax.lax.while_loop(lambda c: (c[0] < losses.shape[0]) & ~c[1].stop, body,
                                  (0, early_stopping_init(losses.dtype)))

    t, state = jax.jit(run)(losses)
    ref = early_stopping(losses, 3)
    assert int(state.best_iter) == int(ref.best_iter) == 5
    assert int(t) - 1 == int(ref.stop_iter) == 8


def test_state_frozen_after_stop():
    state = early_stopping_init(jnp.float64)
    for v in [1.0, 2.0, 3.0, 0.1]:
        state = early_stopping_update(state, v, patience=2)
    assert (int(state.best_iter), int(state.n_iter), bool(state.stop), float(state.best_value)) == (0, 3, True, 1.0)


def test_early_stopping_patience_below_one():
    with pytest.raises(ValueError, match="patience must be >= 1, got 0"):
        early_stopping([1.0, 0.5], 0)


def test_early_stopping_losses_not_1d():
    with pytest.raises(ValueError, match="val_losses must be 1-d"):
        early_stopping(np.ones((3, 2)), 2)


def test_early_stopping_negative_min_delta():
    with pytest.raises(ValueError, match="min_delta must be >= 0"):
        early_stopping([1.0, 0.5], 2, min_delta=-0.1)
