"""Kernels against scikit-learn's ``sklearn.metrics.pairwise`` (float64: 1e-12 relative, the
rounding of two different summation orders), the Gram matrix's tiling, the Mercer check, and
gradients of the hyperparameters against their hand derivation."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.test_util import check_grads
from sklearn.metrics import pairwise as skp

from jaxclassic import _tiling, kernels

RNG = np.random.default_rng(0)
X = RNG.normal(size=(23, 4))
Z = RNG.normal(size=(17, 4))

CASES = [
    ("linear", {}, lambda a, b: skp.linear_kernel(a, b)),
    ("polynomial", dict(gamma=0.3, coef0=-0.5, degree=3),
     lambda a, b: skp.polynomial_kernel(a, b, degree=3, gamma=0.3, coef0=-0.5)),
    ("rbf", dict(gamma=0.7), lambda a, b: skp.rbf_kernel(a, b, gamma=0.7)),
    ("gaussian", dict(gamma=0.7), lambda a, b: skp.rbf_kernel(a, b, gamma=0.7)),
    ("laplace", dict(gamma=0.4), lambda a, b: skp.laplacian_kernel(a, b, gamma=0.4)),
    ("sigmoid", dict(gamma=0.2, coef0=0.1), lambda a, b: skp.sigmoid_kernel(a, b, gamma=0.2, coef0=0.1)),
]


@pytest.mark.full
@pytest.mark.parametrize("name,hyper,ref", CASES, ids=[c[0] for c in CASES])
def test_kernel_equals_sklearn(name, hyper, ref):
    K = kernels.gram(jnp.asarray(X), jnp.asarray(Z), name, **hyper)
    np.testing.assert_allclose(np.asarray(K), ref(X, Z), rtol=1e-12, atol=1e-12)


@pytest.mark.full
@pytest.mark.parametrize("name,hyper,ref", CASES, ids=[c[0] for c in CASES])
def test_gram_tiled_equals_one_block(name, hyper, ref):
    # a budget of a few rows forces several tiles, with a padded last tile (23 rows, tile 8)
    K = kernels.gram(jnp.asarray(X), jnp.asarray(Z), name, memory_budget=8 * 17 * 8 * 4, **hyper)
    np.testing.assert_allclose(np.asarray(K), ref(X, Z), rtol=1e-12, atol=1e-12)


def test_gram_symmetric_when_z_omitted():
    K = np.asarray(kernels.gram(jnp.asarray(X), kernel="rbf", gamma=0.5))
    assert np.array_equal(K, K.T)
    np.testing.assert_allclose(K, skp.rbf_kernel(X, gamma=0.5), rtol=1e-12)


@pytest.mark.full
def test_float32_stays_float32_and_distances_clamped():
    # near-duplicate points far from the origin: the Gram trick can round below 0; clamped
    base = np.full((1, 3), 1e3, np.float32)
    Xf = np.concatenate([base, base + np.float32(1e-4)])
    D = np.asarray(_tiling.squared_euclidean(jnp.asarray(Xf), jnp.asarray(Xf)))
    assert D.dtype == np.float32 and (D >= 0).all()
    K = kernels.gram(jnp.asarray(Xf), kernel="rbf", gamma=1.0)
    assert K.dtype == jnp.float32 and float(K.max()) <= 1.0


@pytest.mark.full
def test_gram_diagonal():
    for name, hyper, ref in CASES:
        np.testing.assert_allclose(np.asarray(kernels.gram_diagonal(jnp.asarray(X), name, **hyper)),
                                   np.diag(ref(X, X)), rtol=1e-12, err_msg=name)


def test_from_pairwise_user_kernel():
    cauchy = kernels.from_pairwise(lambda x, z, gamma=1.0: 1.0 / (1.0 + gamma * jnp.sum((x - z) ** 2)))
    K = np.asarray(kernels.gram(jnp.asarray(X), jnp.asarray(Z), cauchy, gamma=0.5))
    ref = 1.0 / (1.0 + 0.5 * ((X[:, None, :] - Z[None, :, :]) ** 2).sum(-1))
    np.testing.assert_allclose(K, ref, rtol=1e-12)


@pytest.mark.full
def test_rbf_gamma_gradient_equals_hand_derivation():
    # d/dgamma sum_ij exp(-gamma D_ij) = -sum_ij D_ij exp(-gamma D_ij)
    Xj, Zj = jnp.asarray(X), jnp.asarray(Z)
    g = jax.grad(lambda gam: kernels.gram(Xj, Zj, "rbf", gamma=gam).sum())(0.3)
    D = ((X[:, None, :] - Z[None, :, :]) ** 2).sum(-1)
    np.testing.assert_allclose(float(g), -(D * np.exp(-0.3 * D)).sum(), rtol=1e-10)
    check_grads(lambda gam, c0: kernels.gram(Xj, Zj, "polynomial", gamma=gam, coef0=c0, degree=2).sum(),
                (0.3, 0.5), order=2, modes=["fwd", "rev"])


def test_traced_hyperparameters_vmap_and_no_retrace():
    Xj = jnp.asarray(X)
    traces = {"n": 0}

    @jax.jit
    def f(gam):
        traces["n"] += 1
        return kernels.gram(Xj, kernel="rbf", gamma=gam)

    gammas = jnp.array([0.1, 0.5, 2.0])
    batched = jax.vmap(f)(gammas)
    for i, gam in enumerate(gammas):
        np.testing.assert_allclose(np.asarray(batched[i]), skp.rbf_kernel(X, gamma=float(gam)), rtol=1e-12)
    f(0.1), f(0.7)
    assert traces["n"] == 2  # one trace for the vmap, one for the scalar calls


def test_check_mercer_accepts_valid_kernels():
    for name in ("linear", "rbf", "laplace", "polynomial"):
        lo = kernels.check_mercer(kernels.gram(jnp.asarray(X), kernel=name), name=name)
        assert lo > -1e-8


def test_check_mercer_rejects_non_psd_kernel():
    K = kernels.gram(jnp.asarray(X), kernel="sigmoid", gamma=1.0, coef0=1.0)
    with pytest.raises(ValueError, match="sigmoid is not positive semi-definite"):
        kernels.check_mercer(K, name="sigmoid")
    with pytest.raises(ValueError, match="not symmetric"):
        kernels.check_mercer(np.array([[1.0, 0.5], [0.0, 1.0]]))
    with pytest.raises(ValueError, match="square"):
        kernels.check_mercer(np.ones((2, 3)))


def test_bad_kernel_arguments():
    with pytest.raises(ValueError, match="kernel must be one of"):
        kernels.get_kernel("cubic")
    with pytest.raises(TypeError, match="kernel must be a string or a callable"):
        kernels.get_kernel(3)
    with pytest.raises(ValueError, match="degree must be >= 1, got 0"):
        kernels.polynomial(jnp.asarray(X), jnp.asarray(Z), degree=0)
    with pytest.raises(TypeError, match="degree must be an int"):
        kernels.polynomial(jnp.asarray(X), jnp.asarray(Z), degree=2.5)
    with pytest.raises(ValueError, match="same number of columns"):
        kernels.gram(jnp.asarray(X), jnp.asarray(Z[:, :3]))
