"""Tests of jaxclassic/svm/coupling.py: Wu, Lin & Weng's pairwise coupling (method 2).

References: consistent pairwise probabilities r_ij = p_i / (p_i + p_j) give back p exactly (the
objective is 0 there); LIBSVM's ``multiclass_probability`` fixed-point iteration, rewritten in
numpy below from its C source, stops at max_t |(Qp)_t - p'Qp| < 0.005 / K, so the exact
solution agrees with it to ~1e-3 (asserted at 5e-3).
"""

import pytest
import jax.numpy as jnp
import numpy as np

from jaxclassic.svm.coupling import ovo_probabilities, pairwise_coupling


def _libsvm_multiclass_probability(r):
    k = r.shape[0]
    Q = np.zeros((k, k))
    for t in range(k):
        Q[t, t] = sum(r[j, t] ** 2 for j in range(k) if j != t)
        for j in range(k):
            if j != t:
                Q[t, j] = -r[j, t] * r[t, j]
    p = np.full(k, 1.0 / k)
    for _ in range(max(100, k)):
        Qp = Q @ p
        pQp = p @ Qp
        if np.max(np.abs(Qp - pQp)) < 0.005 / k:
            break
        for t in range(k):
            diff = (-Qp[t] + pQp) / Q[t, t]
            p[t] += diff
            pQp = (pQp + diff * (diff * Q[t, t] + 2 * Qp[t])) / (1 + diff) ** 2
            Qp = (Qp + diff * Q[t]) / (1 + diff)
            p /= 1 + diff
    return p


def _random_pairwise(rng, k):
    upper = np.triu(rng.uniform(0.05, 0.95, (k, k)), 1)
    return upper + np.tril(1 - upper.T, -1)


@pytest.mark.full
def test_consistent_pairwise_probabilities_give_back_p():
    p = np.array([0.1, 0.4, 0.3, 0.2])
    r = p[:, None] / (p[:, None] + p[None, :])
    np.testing.assert_allclose(pairwise_coupling(jnp.asarray(r)[None])[0], p, rtol=1e-12)


def test_equals_libsvm_iteration_to_its_tolerance():
    rng = np.random.default_rng(0)
    rs = np.stack([_random_pairwise(rng, 4) for _ in range(20)])
    ours = np.asarray(pairwise_coupling(jnp.asarray(rs)))
    ref = np.stack([_libsvm_multiclass_probability(r) for r in rs])
    np.testing.assert_allclose(ours.sum(axis=1), 1.0, rtol=1e-12)
    assert ours.min() >= 0  # Wu-Lin-Weng's Theorem 2: no need for the constraint p >= 0
    np.testing.assert_allclose(ours, ref, atol=5e-3)


@pytest.mark.full
def test_ovo_probabilities_from_decision_values():
    # three classes, pairs (0,1), (0,2), (1,2); the sigmoid with A = -1, B = 0 is sigmoid(f)
    pairs = jnp.array([[0, 1], [0, 2], [1, 2]])
    f = jnp.array([[2.0, -1.0, 0.5]])
    proba = ovo_probabilities(f, -jnp.ones(3), jnp.zeros(3), pairs, 3)
    second = 1 / (1 + np.exp(-np.asarray(f[0])))  # P(b | a or b)
    r = np.full((3, 3), 0.5)
    for (a, b), s in zip(np.asarray(pairs), second):
        r[b, a], r[a, b] = s, 1 - s
    np.testing.assert_allclose(proba[0], pairwise_coupling(jnp.asarray(r)[None])[0], rtol=1e-12)
