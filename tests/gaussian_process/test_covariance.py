"""Tests of jaxclassic/gaussian_process/covariance.py: the GP kernels equal scikit-learn's
``ConstantKernel * RBF / Matern`` (float64, 1e-12 relative: the same formulas, distances by
the Gram trick after centring vs scipy's exact differences), their diagonal is exact, their
derivatives are finite at duplicate points, and the tiles change nothing."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from sklearn import datasets
from sklearn.gaussian_process import kernels as sk_kernels

from jaxclassic import _tiling
from jaxclassic.gaussian_process import covariance as Cv

X, _ = datasets.load_diabetes(return_X_y=True)
X, Q = X[:40], X[40:55]
SK = {
    "rbf": lambda ls: sk_kernels.RBF(ls),
    "matern12": lambda ls: sk_kernels.Matern(ls, nu=0.5),
    "matern32": lambda ls: sk_kernels.Matern(ls, nu=1.5),
    "matern52": lambda ls: sk_kernels.Matern(ls, nu=2.5),
}


@pytest.mark.full
@pytest.mark.parametrize("name", sorted(SK))
@pytest.mark.parametrize("ard", [False, True])
def test_kernels_equal_sklearn(name, ard):
    ls = np.linspace(0.05, 0.3, X.shape[1]) if ard else 0.12
    hyper = Cv.GPKernel(jnp.asarray(1.9), jnp.asarray(ls), jnp.asarray(0.0))
    ref = sk_kernels.ConstantKernel(1.9) * SK[name](ls)
    fn = Cv.get_gp_kernel(name)
    np.testing.assert_allclose(Cv.covariance(hyper, Q, X, fn), ref(Q, X), rtol=1e-12, atol=1e-12)
    K = Cv.train_covariance(hyper, X, fn)
    np.testing.assert_allclose(K, ref(X), rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(np.diagonal(K), 1.9)  # exactly c, as scikit-learn's
    np.testing.assert_array_equal(Cv.prior_variance(hyper, Q, fn), ref.diag(Q))


def test_user_kernel_diagonal_by_vmap():
    dot = lambda A, B: 1.0 + A @ B.T  # noqa: E731
    hyper = Cv.GPKernel(jnp.asarray(2.0), jnp.asarray(0.5), jnp.asarray(0.0))
    np.testing.assert_allclose(Cv.prior_variance(hyper, Q, dot), 2.0 * (1.0 + np.sum((Q / 0.5) ** 2, axis=1)),
                               rtol=1e-12)
    assert not Cv.is_stationary(dot) and Cv.is_stationary(Cv.rbf)


@pytest.mark.full
@pytest.mark.parametrize("name", ["matern12", "matern32", "matern52"])
def test_gradient_at_duplicate_points_is_finite_and_exact(name):
    # r = 0 off the diagonal: the safe square root gives the exact derivative 0 there
    Xd = np.vstack([X[:5], X[:2]])
    fn = Cv.get_gp_kernel(name)
    grad = jax.jacobian(lambda ls: Cv.train_covariance(Cv.GPKernel(1.0, ls, 0.0), jnp.asarray(Xd), fn))(
        jnp.asarray(0.1))
    assert np.all(np.isfinite(np.asarray(grad)))
    assert float(grad[0, 5]) == 0.0 and float(grad[1, 6]) == 0.0


@pytest.mark.full
def test_tiles_equal_one_block(monkeypatch):
    hyper = Cv.GPKernel(jnp.asarray(1.0), jnp.asarray(0.1), jnp.asarray(0.0))
    whole = Cv.covariance(hyper, X, Q, Cv.matern32)
    monkeypatch.setattr(_tiling, "MEMORY_BUDGET", 3 * 15 * 8 * 8)  # 8 rows a tile
    np.testing.assert_allclose(Cv.covariance(hyper, X, Q, Cv.matern32), whole, rtol=1e-14)


def test_unknown_kernel_name():
    with pytest.raises(ValueError, match=r"kernel must be one of \['matern12', 'matern32', 'matern52', 'rbf'\]"):
        Cv.get_gp_kernel("matern72")


def test_kernel_of_the_wrong_type():
    with pytest.raises(TypeError, match="kernel must be a string or a callable"):
        Cv.get_gp_kernel(1.5)
