"""Implicit derivatives of :func:`jaxclassic.cluster.fit_gmm` at the EM fixed point (issue 14;
``_gmm_em.em_residual``; x64 on, from the root conftest).

The fitted parameters :math:`\\theta^\\star = \\mathrm{EM}(\\theta^\\star)` are differentiated in
the data, the sample weights and ``reg_covar`` by the implicit function theorem
(:math:`(I - \\partial_\\theta\\mathrm{EM})^{-1}\\partial_h\\mathrm{EM}`), never through EM's loop.
Data: two well-separated clusters of 20 rows in 2-D, EM started from the true
responsibilities (``init`` array: the same start for every refit), run to ``tol=1e-13`` on the
mean log-likelihood (10 iterations; the parameters are then fixed to ~1e-12). References:

* central finite differences of the re-fitted parameters (step 1e-5: ~1e-12 / 1e-5 of solver
  error and ~1e-10 of truncation), asserted to 1e-7, for each covariance type;
* the gradient of an unrolled EM written by hand here (``lax.scan``, 40 iterations of the
  textbook E- and M-steps with ``jnp.linalg`` densities, differentiated by autodiff: it
  converges to the implicit derivative at EM's linear rate), asserted to 1e-8.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxclassic import cluster

RNG = np.random.default_rng(0)
X = np.r_[RNG.normal(size=(20, 2)) * [1.0, 0.6], RNG.normal(size=(20, 2)) * 0.8 + [4.0, 1.0]]
R0 = np.zeros((40, 2))
R0[:20, 0] = 1.0
R0[20:, 1] = 1.0
REG = 0.1
FD_TOL = 1e-7  # module docstring


def _fit(Xv, w, reg, covariance_type="full"):
    return cluster.fit_gmm(Xv, 2, covariance_type=covariance_type, init=R0, tol=1e-13, max_iter=200,
                           reg_covar=reg, sample_weight=w)


def _flat(p):
    return jnp.concatenate([p.weights.ravel(), p.means.ravel(), p.covariances.ravel()])


# Suite time: one direction (VX, VW, 1) moves X, the weights and reg_covar together
# everywhere, so for "full" a single compiled forward-mode program (``_jvp_full``) serves the
# finite differences, the unrolled EM and the lower bound, and a single reverse-mode program
# (``_rev``, run at two weight vectors) serves the zero-weight rows and the lower bound's gradient;
# the finite-difference refits reuse the one compiled fit per covariance type.
VX = np.sin(np.arange(80.0)).reshape(40, 2)
VW = 0.2 * np.cos(np.arange(40.0))
EPS = 1e-5


def _along(s, covariance_type="full"):  # X, the weights and reg_covar all move
    return _fit(X + s * VX, 1.0 + s * VW, REG + s, covariance_type)


@pytest.fixture(scope="module")
def full_jvp():
    """(fit, its tangent along (VX, VW, 1), the refits at +-EPS) for covariance_type="full"."""
    p, t = jax.jit(lambda s: jax.jvp(_along, (s,), (jnp.ones_like(s),)))(jnp.asarray(0.0))
    return p, t, _along(EPS), _along(-EPS)


# every covariance type has its own M-step and its own residual (_gmm_em), so each is checked
@pytest.mark.full
@pytest.mark.parametrize("covariance_type", ["full", "tied", "diag", "spherical"])
def test_derivatives_equal_finite_differences(covariance_type, full_jvp):
    if covariance_type == "full":
        p, t, plus, minus = full_jvp
        tangent = _flat(t)
    else:
        p = _fit(X, np.ones(40), REG, covariance_type)
        _, tangent = jax.jvp(lambda s: _flat(_along(s, covariance_type)), (0.0,), (1.0,))
        plus, minus = _along(EPS, covariance_type), _along(-EPS, covariance_type)
    assert bool(p.converged)
    fd = (np.asarray(_flat(plus)) - np.asarray(_flat(minus))) / (2 * EPS)
    np.testing.assert_allclose(tangent, fd, rtol=FD_TOL, atol=FD_TOL)


def _unrolled_em(Xv, w, reg, n_steps=40):
    """Textbook EM for a full-covariance mixture (Bishop §9.2.2), unrolled with lax.scan."""
    d = Xv.shape[1]

    def m_step(r):
        wr = w[:, None] * r
        nk = jnp.sum(wr, axis=0)
        means = wr.T @ Xv / nk[:, None]
        D = Xv[None] - means[:, None]  # (K, n, d)
        cov = jnp.einsum("kn,kni,knj->kij", wr.T, D, D) / nk[:, None, None] + reg * jnp.eye(d)
        return nk / jnp.sum(nk), means, cov

    def e_step(theta):
        pi, means, cov = theta
        D = Xv[None] - means[:, None]
        maha = jnp.einsum("kni,kni->kn", D, jnp.linalg.solve(cov[:, None], D[..., None])[..., 0])
        logdet = jnp.linalg.slogdet(cov)[1]
        logp = -0.5 * (maha + logdet[:, None] + d * jnp.log(2 * jnp.pi)) + jnp.log(pi)[:, None]
        return jax.nn.softmax(logp, axis=0).T

    theta = jax.lax.scan(lambda th, _: (m_step(e_step(th)), None), m_step(jnp.asarray(R0)), None,
                         length=n_steps)[0]
    return jnp.concatenate([theta[0].ravel(), theta[1].ravel(), theta[2].ravel()])


def _rev(Xv, w):
    """Gradients in (X, w, reg_covar) of [sum of the squared parameters, the lower bound]."""
    def f(Xv, w, reg):
        p = _fit(Xv, w, reg)
        return jnp.stack([jnp.sum(_flat(p) ** 2), p.lower_bound])

    return jax.jacrev(f, argnums=(0, 1, 2))(Xv, w, jnp.asarray(REG))


REV = jax.jit(_rev)


@pytest.mark.full
def test_derivatives_equal_the_unrolled_em(full_jvp):
    w = np.ones(40)
    p, t, _, _ = full_jvp
    np.testing.assert_allclose(_flat(p), _unrolled_em(jnp.asarray(X), w, REG), rtol=1e-10, atol=1e-12)

    def unrolled(s):
        return _unrolled_em(X + s * VX, 1.0 + s * VW, REG + s)

    np.testing.assert_allclose(_flat(t), jax.jvp(unrolled, (0.0,), (1.0,))[1], rtol=1e-8, atol=1e-10)


@pytest.mark.full
def test_zero_weight_rows_have_zero_derivative():
    w = np.ones(40)
    w[[3, 27]] = 0.0
    g = np.asarray(REV(jnp.asarray(X), jnp.asarray(w))[0][0])  # d sum(params^2) / d X
    np.testing.assert_array_equal(g[[3, 27]], 0.0)
    assert np.all(np.abs(g[w > 0]).sum(axis=1) > 0)


@pytest.mark.full
def test_gradient_jit_vmap_and_no_retrace():
    traces = []

    def loss(reg):
        traces.append(1)
        return jnp.sum(_fit(X, np.ones(40), reg).covariances ** 2)

    grad = jax.jit(jax.grad(loss))
    regs = jnp.array([0.05, 0.1, 0.2])
    batched = jax.vmap(grad)(regs)
    n_traces = len(traces)
    looped = np.array([float(grad(r)) for r in regs])
    grad(jnp.asarray(0.3))
    assert len(traces) == n_traces + 1  # one trace for the unbatched jit, then none
    np.testing.assert_allclose(batched, looped, rtol=1e-9)
    np.testing.assert_allclose(looped[1], jax.grad(loss)(0.1), rtol=1e-10)


@pytest.mark.full
def test_generalised_em_has_the_exact_em_derivative(full_jvp):
    # a stationary point of generalised EM is a fixed point of the exact EM map: the same
    # residual differentiates it (here both reach the same point to 2e-14 in 10 iterations);
    # exact EM's side is the shared "full" program (m_step="exact" is fit_gmm's default)
    def along(s):
        return _flat(cluster.fit_gmm(X + s * VX, 2, init=R0, tol=1e-13, max_iter=200, reg_covar=REG + s,
                                     sample_weight=1.0 + s * VW, m_step="gradient"))

    gem = jax.jvp(along, (0.0,), (1.0,))
    p, t, _, _ = full_jvp
    np.testing.assert_allclose(gem[0], _flat(p), rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(gem[1], _flat(t), rtol=1e-10, atol=1e-12)


@pytest.mark.full
def test_lower_bound_derivative_equals_finite_differences(full_jvp):
    # lower_bound is L of the parameters entering the last iteration (= L(theta*) to ~1e-13
    # here); its derivative is that of L(theta*(h), X, s): central differences to 1e-7
    _, t, plus, minus = full_jvp
    fd = (float(plus.lower_bound) - float(minus.lower_bound)) / (2 * EPS)
    np.testing.assert_allclose(t.lower_bound, fd, rtol=FD_TOL, atol=FD_TOL)
    # reverse mode = forward mode: the gradient in (X, w, reg_covar) along (VX, VW, 1)
    g_x, g_w, g_reg = (np.asarray(g[1]) for g in REV(jnp.asarray(X), jnp.ones(40)))
    np.testing.assert_allclose(np.sum(g_x * VX) + g_w @ VW + g_reg, t.lower_bound, rtol=1e-10)
