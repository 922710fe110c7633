"""Sparse ``X`` in LogisticRegression / SoftmaxRegression and in fit_logistic / fit_softmax.

The sparse fit must equal the dense fit on the same data. The L2 sparse path is L-BFGS on a BCOO
(jaxclassic/linear/_sparse_fits.py), the dense one Newton: both run to tol 1e-10 on the gradient
of the averaged objective (float64), so their coefficients agree to ~1e-7 (the objective is
strongly convex: |w - w*| <= |grad| / (l2 / n)), asserted at 1e-6. The L1 path on sparse X is
FISTA on the BCOO (the dense one proximal Newton): the same zeros, coefficients within 1e-6; an
explicit Newton solver densifies within the stated limit and is then the dense fit exactly.
"Never densified" is checked by making
``jaxclassic._sparse.densify`` raise.
"""

import numpy as np
import pytest
import scipy.sparse as sp

from jaxclassic import _sparse
from jaxclassic.estimators import LogisticRegression, SoftmaxRegression
from jaxclassic.linear import fit_logistic, predict_proba

TOL = 1e-10


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    n, d = 120, 40
    X = rng.normal(size=(n, d)) * (rng.random((n, d)) < 0.15)  # 15 % stored
    w = rng.normal(size=d)
    y2 = (X @ w + 0.5 * rng.normal(size=n) > 0).astype(int)
    y3 = np.digitize(X @ w + 0.5 * rng.normal(size=n), [-0.7, 0.7])
    return X, sp.csr_matrix(X), y2, y3, rng.normal(size=(15, d)) * (rng.random((15, d)) < 0.15)


@pytest.fixture
def no_densify(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("densified")

    monkeypatch.setattr(_sparse, "densify", refuse)


@pytest.mark.full
def test_functional_lbfgs_on_sparse_equals_dense_newton(data, no_densify):
    X, Xs, y2, y3, X_new = data
    dense = fit_logistic(X, y2, l2=1.0, tol=TOL)
    sparse = fit_logistic(Xs, y2, l2=1.0, method="lbfgs", tol=TOL, max_iter=1000)
    assert bool(sparse.converged)
    np.testing.assert_allclose(sparse.coef, dense.coef, atol=1e-6)
    np.testing.assert_allclose(sparse.intercept, dense.intercept, atol=1e-6)
    # prediction on sparse rows: O(nnz), equal to the dense rows' prediction
    np.testing.assert_allclose(predict_proba(sparse, sp.csr_matrix(X_new)), predict_proba(sparse, X_new),
                               atol=1e-12)


@pytest.mark.full
def test_zero_weight_rows_on_sparse(data):
    X, Xs, y2, _, _ = data
    w = np.r_[np.ones(X.shape[0]), np.zeros(5)]
    Xp = sp.vstack([Xs, sp.csr_matrix(np.full((5, X.shape[1]), 1e3))]).tocsr()
    padded = fit_logistic(Xp, np.r_[y2, np.ones(5, int)], l2=1.0, method="lbfgs", tol=TOL, max_iter=1000,
                          sample_weight=w)
    plain = fit_logistic(Xs, y2, l2=1.0, method="lbfgs", tol=TOL, max_iter=1000)
    np.testing.assert_allclose(padded.coef, plain.coef, atol=1e-7)


@pytest.mark.parametrize("which", [
    "binary", pytest.param("multinomial", marks=pytest.mark.full),
    pytest.param("softmax", marks=pytest.mark.full)])
@pytest.mark.full
def test_estimators_sparse_equals_dense(data, no_densify, which):
    X, Xs, y2, y3, X_new = data
    make, y = {"binary": (lambda: LogisticRegression(C=0.5, tol=TOL, max_iter=1000), y2),
               "multinomial": (lambda: LogisticRegression(C=0.5, tol=TOL, max_iter=1000), y3),
               "softmax": (lambda: SoftmaxRegression(C=0.5, tol=TOL, max_iter=1000), y3)}[which]
    dense, sparse = make().fit(X, y), make().fit(Xs.tocsc(), y)  # CSC accepted too
    np.testing.assert_allclose(sparse.coef_, dense.coef_, atol=1e-6)
    np.testing.assert_allclose(sparse.predict_proba(sp.csr_matrix(X_new)), dense.predict_proba(X_new),
                               atol=1e-6)
    np.testing.assert_array_equal(sparse.predict(Xs), dense.predict(X))


@pytest.mark.full
def test_binary_l1_on_sparse_is_fista_on_the_bcoo(data, no_densify):
    X, Xs, y2, _, _ = data
    dense = fit_logistic(X, y2, l2=2.0, penalty="l1", tol=TOL)  # proximal Newton
    sparse = fit_logistic(Xs, y2, l2=2.0, penalty="l1", method="gd", tol=1e-9, max_iter=5000)  # FISTA
    assert bool(sparse.converged) and (np.asarray(dense.coef) == 0).any()
    # both within ~1e-8 of the optimum (strongly convex on the support): the same zeros
    np.testing.assert_allclose(sparse.coef, dense.coef, atol=1e-6)
    np.testing.assert_array_equal(np.asarray(sparse.coef) != 0, np.asarray(dense.coef) != 0)


def test_newton_l1_on_sparse_densifies_only_within_the_limit(data, monkeypatch):
    _, Xs, y2, _, _ = data
    monkeypatch.setenv("JAXCLASSIC_MAX_DENSIFY", "100")
    with pytest.raises(ValueError, match=r"fit_logistic\(method='newton', penalty='l1'\) has no sparse path"):
        LogisticRegression(C=0.5, l1_ratio=1.0, solver="saga").fit(Xs, y2)


@pytest.mark.full
def test_estimators_l1_on_sparse(data, monkeypatch):
    X, Xs, y2, y3, _ = data
    for y in (y2, y3):
        dense = LogisticRegression(C=0.5, l1_ratio=1.0, tol=TOL).fit(X, y)  # proximal Newton
        assert (dense.coef_ == 0).any()
        with monkeypatch.context() as m:
            m.setattr(_sparse, "densify", lambda *a, **k: (_ for _ in ()).throw(AssertionError("densified")))
            sparse = LogisticRegression(C=0.5, l1_ratio=1.0, tol=1e-9, max_iter=5000).fit(Xs, y)  # FISTA
        np.testing.assert_allclose(sparse.coef_, dense.coef_, atol=1e-6)
        np.testing.assert_array_equal(sparse.coef_ != 0, dense.coef_ != 0)
    # an explicit Newton solver densifies, exactly the dense fit, within the stated limit
    newton = LogisticRegression(C=0.5, l1_ratio=1.0, tol=TOL, solver="saga").fit(Xs, y2)
    dense = LogisticRegression(C=0.5, l1_ratio=1.0, tol=TOL).fit(X, y2)
    np.testing.assert_array_equal(newton.coef_, dense.coef_)


def test_sparse_bad_input(data):
    X, Xs, y2, _, _ = data
    bad = Xs.copy()
    bad.data[0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        fit_logistic(bad, y2, method="lbfgs")
    with pytest.raises(ValueError):
        LogisticRegression().fit(bad, y2)
    with pytest.raises(ValueError, match="features"):
        LogisticRegression().fit(Xs, y2).predict(sp.csr_matrix(np.ones((2, 3))))
