"""Autodiff against hand-derived gradients and Hessians of every loss (``jaxclassic gradcheck``)."""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxclassic import losses

__all__ = ["GradCheckRow", "RTOL", "ATOL", "sample_inputs", "check_losses"]

#: relative tolerance in float64 (issue: 1e-10) ...
RTOL = 1e-10
#: ... with an absolute floor for values near zero, where cancellation is unavoidable: e.g.
#: autodiff's log-loss Hessian sigma(f)(1 - sigma(f)) loses all relative accuracy once
#: sigma(f) rounds to 1, leaving an absolute error of a few ulp of 1 (~1e-16).
ATOL = 1e-14


class GradCheckRow(NamedTuple):
    loss: str
    max_rel_grad: float
    max_rel_hess: float
    ok: bool


def sample_inputs(name: str, key, n: int = 2000):
    """Random ``(y, f)`` in float64 for a loss, extreme scores included (|f| up to 1e3)."""
    k1, k2, k3 = jax.random.split(key, 3)
    # scores spread over many orders of magnitude, plus exact extremes
    f = jax.random.normal(k1, (n,), jnp.float64) * jnp.exp(jax.random.uniform(k2, (n,), jnp.float64, -3, 7))
    if name == "exponential":
        f = jnp.clip(f, -600.0, 600.0)  # e^{-yf} overflows float64 beyond ~709 (documented range)
    else:
        f = jnp.concatenate([jnp.clip(f, -1e3, 1e3), jnp.array([-1e3, 1e3, -37.0, 37.0, 0.3])])
    m = f.shape[0]
    if name == "softmax_cross_entropy":
        n_classes = 5
        scores = jax.random.normal(k1, (m, n_classes), jnp.float64) * jnp.exp(
            jax.random.uniform(k2, (m, 1), jnp.float64, -3, 6))
        y = jax.random.randint(k3, (m,), 0, n_classes)
        return y, scores
    if name in ("squared", "absolute"):
        y = jax.random.normal(k3, (m,), jnp.float64) * 10
    elif name == "log_loss":
        y = jax.random.bernoulli(k3, 0.5, (m,)).astype(jnp.float64)
    else:
        y = jnp.where(jax.random.bernoulli(k3, 0.5, (m,)), 1.0, -1.0)
    # stay off the kinks of the piecewise-linear losses (documented separately)
    if name in ("hinge", "perceptron", "absolute"):
        kink = {"hinge": 1.0, "perceptron": 0.0}.get(name)
        if kink is None:
            f = jnp.where(jnp.abs(f - y) < 1e-8, f + 1.0, f)
        else:
            f = jnp.where(jnp.abs(y * f - kink) < 1e-8, f + 0.5, f)
    return y, f


def _rel(a, b) -> float:
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return float(np.max(np.abs(a - b) / np.maximum(np.abs(b), ATOL / RTOL)))


def check_losses(seed: int = 0) -> list[GradCheckRow]:
    """Largest relative difference between autodiff and hand-derived g and h, per loss.

    Needs ``jax_enable_x64`` (the caller enables it).
    """
    rows = []
    key = jax.random.key(seed)
    for i, (name, (loss, grad_fn, hess_fn)) in enumerate(losses.HAND_DERIVED.items()):
        y, f = sample_inputs(name, jax.random.fold_in(key, i))
        if name == "softmax_cross_entropy":
            g, h = losses.grad_hess(loss, y, f, full_hessian=True)
            g_hand = jax.vmap(grad_fn)(y, f)
            h_hand = jax.vmap(hess_fn)(y, f)
        else:
            g, h = losses.grad_hess(loss, y, f)
            g_hand, h_hand = grad_fn(y, f), hess_fn(y, f)
        rg, rh = _rel(g, g_hand), _rel(h, h_hand)
        rows.append(GradCheckRow(name, rg, rh, rg <= RTOL and rh <= RTOL))
    return rows
