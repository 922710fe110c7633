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


@pytest.mark.parametrize("covariance_type", ["full", "tied", "diag", "spherical"])
def test_derivatives_equal_finite_differences(covariance_type):
    vX = RNG.normal(size=X.shape)
    vw = 0.3 * np.cos(np.arange(40))

    def along(s):  # X, the weights and reg_covar all move
        return _flat(_fit(X + s * vX, 1.0 + s * vw, REG + 0.5 * s, covariance_type))

    assert bool(_fit(X, np.ones(40), REG, covariance_type).converged)
    _, tangent = jax.jvp(along, (0.0,), (1.0,))
    eps = 1e-5
    fd = (np.asarray(along(eps)) - np.asarray(along(-eps))) / (2 * eps)
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


def test_derivatives_equal_the_unrolled_em():
    w = np.ones(40)
    np.testing.assert_allclose(_flat(_fit(X, w, REG)), _unrolled_em(jnp.asarray(X), w, REG), rtol=1e-10,
                               atol=1e-12)
    vX = np.sin(np.arange(80.0)).reshape(40, 2)

    def ours(s):
        return _flat(_fit(X + s * vX, w, REG + s))

    def unrolled(s):
        return _unrolled_em(X + s * vX, w, REG + s)

    np.testing.assert_allclose(jax.jvp(ours, (0.0,), (1.0,))[1], jax.jvp(unrolled, (0.0,), (1.0,))[1],
                               rtol=1e-8, atol=1e-10)


def test_zero_weight_rows_have_zero_derivative():
    w = np.ones(40)
    w[[3, 27]] = 0.0
    g = np.asarray(jax.grad(lambda Xv: jnp.sum(_flat(_fit(Xv, w, REG)) ** 2))(jnp.asarray(X)))
    np.testing.assert_array_equal(g[[3, 27]], 0.0)
    assert np.all(np.abs(g[w > 0]).sum(axis=1) > 0)


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


def test_generalised_em_has_the_exact_em_derivative():
    # a stationary point of generalised EM is a fixed point of the exact EM map: the same
    # residual differentiates it (here both reach the same point to 2e-14 in 10 iterations)
    def along(s, m_step):
        p = cluster.fit_gmm(X + s * np.cos(np.arange(80.0)).reshape(40, 2), 2, init=R0, tol=1e-13, max_iter=200,
                            reg_covar=REG + s, m_step=m_step)
        return _flat(p)

    gem = jax.jvp(lambda s: along(s, "gradient"), (0.0,), (1.0,))
    exact = jax.jvp(lambda s: along(s, "exact"), (0.0,), (1.0,))
    np.testing.assert_allclose(gem[0], exact[0], rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(gem[1], exact[1], rtol=1e-10, atol=1e-12)


def test_lower_bound_derivative_equals_finite_differences():
    # lower_bound is L of the parameters entering the last iteration (= L(theta*) to ~1e-13
    # here); its derivative is that of L(theta*(h), X, s): central differences to 1e-7
    vX = np.sin(np.arange(80.0)).reshape(40, 2)
    vw = 0.2 * np.cos(np.arange(40.0))

    def along(s):
        return _fit(X + s * vX, 1.0 + s * vw, REG + s).lower_bound

    eps = 1e-5
    fd = (float(along(eps)) - float(along(-eps))) / (2 * eps)
    _, tangent = jax.jvp(along, (0.0,), (1.0,))
    np.testing.assert_allclose(tangent, fd, rtol=FD_TOL, atol=FD_TOL)
    g = jax.grad(lambda Xv: _fit(Xv, np.ones(40), REG).lower_bound)(jnp.asarray(X))
    np.testing.assert_allclose(np.sum(g * vX), jax.jvp(lambda s: _fit(X + s * vX, np.ones(40), REG).lower_bound,
                                                       (0.0,), (1.0,))[1], rtol=1e-10)
