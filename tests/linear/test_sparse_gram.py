"""Sparse X in the Gram-based least-squares fits (jaxclassic/linear/_gram.py's
``sparse_weighted_gram``, through fit_ols, fit_ridge, ridge_path, fit_lasso, lasso_path).

Reference: the same fits on the dense ``X.toarray()`` (an independent route: the dense Gram is
formed by the shifted-data product, the sparse one by sparse products and the rank-one
centring identity). Tolerance 1e-10 absolute on coefficients of order 1 in float64: both are
direct solves of a well-conditioned system (cond(X_c) ~ 10), so they agree to ~1e-14; the
lasso (coordinate descent to a duality gap of 1e-12) to ~1e-12.
"""

import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

sp = pytest.importorskip("scipy.sparse")

from jaxclassic.linear import _gram, fit_lasso, fit_ols, fit_ridge, lasso_path, predict, ridge_path  # noqa: E402
from jaxclassic import _sparse  # noqa: E402

ATOL = 1e-10


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = sp.random(64, 10, density=0.3, random_state=3, format="csr")
    X[:, 9] = 0  # an empty column (constant: coefficient 0 with an intercept)
    X = sp.csr_matrix(X)
    y = X @ rng.normal(size=10) + 0.1 * rng.normal(size=64) + 2.0
    w = rng.uniform(0.5, 2.0, 64)
    w[:6] = 0.0  # zero-weight rows
    return X, y, w


def _close(a, b, atol=ATOL):
    np.testing.assert_allclose(np.asarray(a.coef), np.asarray(b.coef), rtol=0, atol=atol)
    np.testing.assert_allclose(np.asarray(a.intercept), np.asarray(b.intercept), rtol=0, atol=atol)


@pytest.mark.parametrize("fit_intercept", [True, pytest.param(False, marks=pytest.mark.full)])
def test_weighted_gram_equals_dense(data, fit_intercept):
    X, y, w = data
    gram = jax.jit(_gram.weighted_gram, static_argnums=3)  # one program each (eager: one per op)
    dense = gram(jnp.asarray(X.toarray()), jnp.asarray(y), jnp.asarray(w), fit_intercept)
    sparse = gram(_sparse.to_bcoo(X, nse=X.nnz + 7), jnp.asarray(y), jnp.asarray(w), fit_intercept)
    for field in ("gram", "xty", "x_mean", "y_mean", "sw_sum", "yy", "yw"):
        np.testing.assert_allclose(np.asarray(getattr(sparse, field)), np.asarray(getattr(dense, field)),
                                   rtol=1e-12, atol=1e-12, err_msg=field)
    np.testing.assert_array_equal(np.asarray(sparse.constant), np.asarray(dense.constant))
    assert bool(sparse.constant[9]) == fit_intercept


@pytest.mark.parametrize("fmt, fit_intercept", [("csr", True), ("csc", False),
                                                 pytest.param("csc", True, marks=pytest.mark.full)])
def test_fit_ols_sparse_equals_dense(data, fmt, fit_intercept):
    X, y, w = data
    Xs = X.asformat(fmt)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the empty column: rank 9 < 10, on both sides
        _close(fit_ols(Xs, y, fit_intercept=fit_intercept, sample_weight=w),
               fit_ols(X.toarray(), y, fit_intercept=fit_intercept, sample_weight=w))


@pytest.mark.parametrize("standardize, fit_intercept", [
    (False, True), pytest.param(True, True, marks=pytest.mark.full),
    pytest.param(True, False, marks=pytest.mark.full), pytest.param(False, False, marks=pytest.mark.full)])
@pytest.mark.full
def test_fit_ridge_sparse_equals_dense(data, standardize, fit_intercept):
    X, y, w = data
    kwargs = dict(alpha=0.3, fit_intercept=fit_intercept, standardize=standardize, sample_weight=w)
    _close(fit_ridge(X, y, **kwargs), fit_ridge(X.toarray(), y, **kwargs))


@pytest.mark.full
def test_zero_weight_rows_have_no_influence(data):
    X, y, w = data
    keep = w > 0
    _close(fit_ridge(X, y, alpha=0.3, sample_weight=w), fit_ridge(X[keep], y[keep], alpha=0.3, sample_weight=w[keep]))


@pytest.mark.full
def test_ridge_path_and_vmap_over_weights(data):
    X, y, w = data
    alphas = np.array([0.01, 1.0, 10.0])
    path_s, path_d = ridge_path(X, y, alphas, sample_weight=w), ridge_path(X.toarray(), y, alphas, sample_weight=w)
    _close(path_s, path_d)
    folds = np.stack([w, np.ones(64)])
    grid = jax.vmap(lambda sw: fit_ridge(X, y, alpha=1.0, sample_weight=sw).coef)(folds)
    for row, sw in zip(np.asarray(grid), folds):
        np.testing.assert_allclose(row, np.asarray(fit_ridge(X.toarray(), y, alpha=1.0, sample_weight=sw).coef),
                                   rtol=0, atol=ATOL)


@pytest.mark.full  # the Lasso estimator's sparse test runs in the fast tier
def test_fit_lasso_sparse_equals_dense(data):
    X, y, w = data
    kwargs = dict(alpha=0.01, tol=1e-12, max_iter=5000, sample_weight=w)
    a, b = fit_lasso(X, y, **kwargs), fit_lasso(X.toarray(), y, **kwargs)
    _close(a, b, atol=1e-9)
    assert bool(a.converged)


@pytest.mark.full
def test_lasso_path_sparse_equals_dense(data):
    X, y, _ = data
    pa = lasso_path(X, y, n_alphas=4, tol=1e-12, max_iter=5000)
    pb = lasso_path(X.toarray(), y, n_alphas=4, tol=1e-12, max_iter=5000)
    np.testing.assert_allclose(np.asarray(pa.coefs), np.asarray(pb.coefs), rtol=0, atol=1e-9)


def test_predict_on_sparse_rows(data):
    X, y, w = data
    params = fit_ridge(X, y, alpha=0.3, sample_weight=w)
    new = sp.random(7, 10, density=0.4, random_state=9, format="csc")
    np.testing.assert_allclose(np.asarray(predict(params, new)), np.asarray(predict(params, new.toarray())),
                               rtol=0, atol=1e-12)


@pytest.mark.full
def test_float32_sparse_keeps_dtype(data):
    X, y, _ = data
    params = fit_ridge(X.astype(np.float32), y.astype(np.float32), alpha=0.3)
    assert params.coef.dtype == jnp.float32
    # float32 round-off of a well-conditioned solve: ~1e-6 relative
    np.testing.assert_allclose(np.asarray(params.coef), np.asarray(fit_ridge(X.toarray(), y, alpha=0.3).coef),
                               rtol=0, atol=1e-4)


def test_too_many_columns(monkeypatch):
    X = sp.random(20, 40, density=0.2, random_state=0, format="csr")
    monkeypatch.setattr(_gram, "MAX_GRAM_FEATURES", 32)
    with pytest.raises(ValueError, match="fit_ridge solves from the dense d x d Gram matrix X\\^T W X: a sparse "
                                         "X with 40 columns is above its limit of 32 columns"):
        fit_ridge(X, np.zeros(20))
    with pytest.raises(ValueError, match="fit_lasso .* above its limit of 32 columns"):
        fit_lasso(X, np.zeros(20))


def test_bad_sparse_input():
    X = sp.random(20, 4, density=0.5, random_state=0, format="csr")
    X.data[0] = np.nan
    with pytest.raises(ValueError, match="X contains 1 NaN among its stored values"):
        fit_ols(X, np.zeros(20))
    with pytest.raises(ValueError, match="X and y have inconsistent numbers of samples: 20 != 19"):
        fit_ols(sp.random(20, 4, density=0.5, random_state=0, format="csr"), np.zeros(19))
