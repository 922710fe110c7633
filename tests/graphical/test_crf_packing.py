"""The packed CRF objective's scaled forward pass and hand-derived forward-backward derivative
(jaxclassic/graphical/_crf_packing.py) against independent references: a numpy log-space
forward pass for log Z, and autodiff of the padded log-space objective (crf._objective) for
the gradient, in every argument (weights, transitions, start, end, sample weights)."""

import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from scipy.special import logsumexp

from jaxclassic.graphical import _crf_packing, crf

F, K, L, T = 7, 2, 4, 9


def _problem(seed=0, n_seq=11):
    rng = np.random.default_rng(seed)
    X = rng.integers(-1, F, size=(n_seq, T, K)).astype(np.int32)
    y = rng.integers(0, L, size=(n_seq, T)).astype(np.int32)
    lengths = rng.integers(1, T + 1, size=n_seq).astype(np.int32)
    lengths[:2] = [1, T]
    weight = rng.uniform(0.2, 2.0, size=n_seq)
    weight[3] = 0.0  # a zero weight
    return X, y, lengths, weight


def _theta(scale, dtype, seed=1):
    rng = np.random.default_rng(seed)
    return tuple(jnp.asarray(scale * rng.normal(size=s), dtype) for s in [(F, L), (L, L), (L,), (L,)])


def _np_log_z(theta, x, n):
    W, A, b, e = (np.asarray(a, np.float64) for a in theta)
    u = np.array([sum((W[i] for i in row if i >= 0), np.zeros(L)) for row in x[:n]])
    alpha = b + u[0]
    for t in range(1, n):
        alpha = u[t] + logsumexp(alpha[:, None] + A, axis=0)
    return logsumexp(alpha + e)


def _np_objective(theta, X, y, lengths, weight, c2):
    W, A, b, e = (np.asarray(a, np.float64) for a in theta)
    total = 0.0
    for x, labels, n, s in zip(X, y, lengths, weight):
        if s == 0:
            continue
        u = np.array([sum((W[i] for i in row if i >= 0), np.zeros(L)) for row in x[:n]])
        score = b[labels[0]] + e[labels[n - 1]] + u[np.arange(n), labels[:n]].sum()
        score += A[labels[: n - 1], labels[1:n]].sum()
        total += s * (_np_log_z(theta, x, n) - score)
    return (total + c2 * sum(np.sum(np.square(np.asarray(a, np.float64))) for a in theta)) / weight.sum()


X_, Y_, LENGTHS_, WEIGHT_ = _problem()
PACKED = _crf_packing.pack(X_, Y_, LENGTHS_, row_multiple=1)
assert PACKED.X.shape[0] < len(X_)  # several sequences share a row


@jax.jit
def _packed_vg(theta, sw, packed):
    return jax.value_and_grad(lambda th, w: _crf_packing.packed_objective(th, packed, 0.3, w, crf._unary),
                              (0, 1))(theta, sw)


@jax.jit
def _padded_vg(theta, sw, X, y, lengths):
    return jax.value_and_grad(lambda th, w: crf._objective(th, X, y, lengths, 0.3, w), (0, 1))(theta, sw)


def _padded(theta, sw):
    return _padded_vg(theta, sw, jnp.asarray(X_), jnp.asarray(Y_), jnp.asarray(LENGTHS_))


@jax.jit
def _flags(theta, packed, sw):
    """(primal flag, flag under differentiation) of log_partition_sum: 1.0 = log-space fallback."""
    weight = jnp.where(packed.seq >= 0, sw[jnp.clip(packed.seq, 0, None)], 0.0)
    unary = jax.vmap(lambda x: crf._unary(theta[0], x))(packed.X)
    rest = (weight, packed.reset, packed.last, packed.seq >= 0)

    def f(u, A, b, e):
        return _crf_packing.log_partition_sum(u, A, b, e, *rest)

    primal = f(unary, *theta[1:])[1]
    (_, differentiated), _ = jax.jvp(f, (unary, *theta[1:]), tuple(jnp.zeros_like(a) for a in (unary, *theta[1:])))
    return primal, differentiated


def _flag_pair(theta, sw):
    return tuple(float(f) for f in _flags(theta, PACKED, sw))


@pytest.mark.parametrize("scale", [0.5, 3.0, 40.0])
def test_float64_value_and_gradient_equal_the_log_space_references(scale):
    # scale 40: log-potentials hundreds of nats apart, still within float64's scaled range
    # (no fallback): the scaled pass and its hand derivative stay exact to rounding
    theta, sw = _theta(scale, jnp.float64), jnp.asarray(WEIGHT_)
    assert _flag_pair(theta, sw) == (0.0, 0.0)
    v, (g, g_sw) = _packed_vg(theta, sw, PACKED)
    v_ref, (g_ref, g_sw_ref) = _padded(theta, sw)
    expected = _np_objective(theta, X_, Y_, LENGTHS_, WEIGHT_, 0.3)
    np.testing.assert_allclose(float(v), expected, rtol=1e-12)
    np.testing.assert_allclose(float(v_ref), expected, rtol=1e-12)
    for a, b in zip(g, g_ref):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=0, atol=1e-11 * max(1.0, scale))
    np.testing.assert_allclose(np.asarray(g_sw), np.asarray(g_sw_ref), rtol=0, atol=1e-10 * max(1.0, scale))


def test_forward_mode_equals_reverse_mode():
    # the derivative is a custom JVP: jax.jvp works too, and equals the gradient's projection
    theta, sw = _theta(1.0, jnp.float64, seed=3), jnp.asarray(WEIGHT_)
    direction = _theta(1.0, jnp.float64, seed=4)

    def f(th, packed):
        return _crf_packing.packed_objective(th, packed, 0.3, sw, crf._unary)

    @jax.jit
    def both(th, d, packed):
        return jax.jvp(lambda t: f(t, packed), (th,), (d,))[1], jax.grad(f)(th, packed)

    tangent, grad = both(theta, direction, PACKED)
    np.testing.assert_allclose(float(tangent), sum(float(jnp.sum(a * b)) for a, b in zip(grad, direction)),
                               rtol=1e-12)


def test_float32_large_weights_fall_back_to_log_space_and_keep_the_gradient():
    # weights of scale 100 in float32: the scaled messages would underflow (71 nats), so the
    # value and the derivative's coefficients come from the log-space pass; both equal the
    # float64 references of the same (float32-rounded) weights to float32 accuracy
    theta = _theta(100.0, jnp.float32, seed=6)
    sw = jnp.asarray(WEIGHT_, jnp.float32)
    assert _flag_pair(theta, sw) == (1.0, 1.0)
    v, (g, _) = _packed_vg(theta, sw, PACKED)
    assert v.dtype == jnp.float32 and all(a.dtype == jnp.float32 for a in g)
    theta64 = tuple(a.astype(jnp.float64) for a in theta)
    sw64 = sw.astype(jnp.float64)
    expected = _np_objective(theta64, X_, Y_, LENGTHS_, np.asarray(sw64), 0.3)
    np.testing.assert_allclose(float(v), expected, rtol=1e-5)
    _, (g64, _) = _padded(theta64, sw64)
    for a, b in zip(g, g64):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=0, atol=1e-4 * np.abs(np.asarray(b)).max())


def test_float32_moderate_weights_stay_on_the_scaled_path():
    theta = _theta(2.0, jnp.float32, seed=8)
    sw = jnp.asarray(WEIGHT_, jnp.float32)
    assert _flag_pair(theta, sw) == (0.0, 0.0)
    v, (g, _) = _packed_vg(theta, sw, PACKED)
    theta64 = tuple(a.astype(jnp.float64) for a in theta)
    v64, (g64, _) = _padded(theta64, sw.astype(jnp.float64))
    np.testing.assert_allclose(float(v), float(v64), rtol=1e-6)
    for a, b in zip(g, g64):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=0, atol=2e-6 * np.abs(np.asarray(b)).max())


def test_fit_warns_when_it_stops_before_converging():
    # a fit that stops at max_iter says so (ConvergenceWarning), as the package's other
    # iterative fits do; one that converges is silent
    from jaxclassic.exceptions import ConvergenceWarning

    # (tol is traced: both fits are one program)
    with pytest.warns(ConvergenceWarning, match=r"fit_crf did not converge in max_iter=60 iterations"):
        params = crf.fit_crf(X_, Y_, lengths=LENGTHS_, c2=0.3, sample_weight=WEIGHT_, max_iter=60, tol=0.0)
    assert not bool(params.converged) and int(params.n_iter) == 60
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        assert bool(crf.fit_crf(X_, Y_, lengths=LENGTHS_, c2=0.3, sample_weight=WEIGHT_, max_iter=60,
                                tol=1e-4).converged)
