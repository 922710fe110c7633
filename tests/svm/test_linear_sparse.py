"""Sparse X in jaxclassic/svm/linear.py: the dual coordinate descent over the rows of a
row-batched BCOO (``_sparse.to_rows``), and decision values by a sparse product.

Reference: the same fit on ``X.toarray()``. The sparse sweep visits the same rows in the same
order with the same updates (only the inner products are summed over the stored values instead
of all columns), so the iterates agree to float64 round-off: the same epoch count, coefficients
within 1e-12 (they are of order 1; measured ~4e-15).
"""

import numpy as np
import pytest

sp = pytest.importorskip("scipy.sparse")

from jaxclassic import _dispatch, _sparse  # noqa: E402
from jaxclassic.multiclass import fit_one_vs_rest  # noqa: E402
from jaxclassic.svm import decision_function, fit_linear_svm, predict  # noqa: E402

ATOL = 1e-12


def sparse_rows(n_samples, n_features, seed, largest=8):
    """A CSR matrix whose rows store 1..``largest`` values (``largest`` in at least one row):
    the estimator layer's row capacity (a power of two) is then the largest count, and its
    compiled sweep the one these tests compile (tests/estimators/test_sparse_input.py)."""
    rng = np.random.default_rng(seed)
    counts = rng.integers(1, largest + 1, n_samples)
    counts[0] = largest
    rows = np.repeat(np.arange(n_samples), counts)
    cols = np.concatenate([rng.choice(n_features, c, replace=False) for c in counts])
    return sp.csr_matrix((rng.uniform(0.1, 1.0, rows.size), (rows, cols)), shape=(n_samples, n_features))


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = sparse_rows(64, 12, 1)
    score = X @ rng.normal(size=12)
    y3 = np.digitize(score, np.quantile(score, [1 / 3, 2 / 3]))
    w = rng.uniform(0.5, 2.0, 64)
    w[:4] = 0.0
    return X, (y3 > 0).astype(np.int32), y3.astype(np.int32), w


def _close(a, b):
    for field in ("coef", "intercept", "dual_coef"):
        np.testing.assert_allclose(np.asarray(getattr(a, field)), np.asarray(getattr(b, field)),
                                   rtol=0, atol=ATOL, err_msg=field)
    np.testing.assert_array_equal(np.asarray(a.n_iter), np.asarray(b.n_iter))


@pytest.mark.parametrize("loss, fmt", [("squared_hinge", "csr"),
                                       pytest.param("hinge", "csc", marks=pytest.mark.full)])
def test_dual_sparse_equals_dense(data, loss, fmt):
    import jax

    X, y, _, w = data
    # with a key (the rows shuffled per epoch), as the estimator layer fits
    kwargs = dict(loss=loss, tol=1e-10, max_iter=20000, sample_weight=w, key=jax.random.key(0))
    sparse = fit_linear_svm(X.asformat(fmt), y, **kwargs)
    _close(sparse, fit_linear_svm(X.toarray(), y, **kwargs))
    assert bool(sparse.converged)
    new = sp.random(9, 12, density=0.3, random_state=5, format="csr")
    np.testing.assert_allclose(np.asarray(decision_function(sparse, new)),
                               np.asarray(decision_function(sparse, new.toarray())), rtol=0, atol=ATOL)
    np.testing.assert_array_equal(np.asarray(predict(sparse, new)), np.asarray(predict(sparse, new.toarray())))


@pytest.mark.full
def test_dual_sparse_shuffled_and_unshrunk(data):
    import jax

    X, y, _, w = data
    for kwargs in (dict(), dict(shrinking=False)):
        kwargs.update(tol=1e-10, max_iter=20000, sample_weight=w)
        _close(fit_linear_svm(X, y, **kwargs), fit_linear_svm(X.toarray(), y, **kwargs))


@pytest.mark.full
def test_zero_weight_rows_have_no_influence(data):
    X, y, _, w = data
    keep = w > 0
    a = fit_linear_svm(X, y, tol=1e-10, max_iter=20000, sample_weight=w)
    b = fit_linear_svm(X[keep], y[keep], tol=1e-10, max_iter=20000, sample_weight=w[keep])
    # different row sets visit in a different order: equal at the optimum, to the tol's accuracy
    np.testing.assert_allclose(np.asarray(a.coef), np.asarray(b.coef), rtol=0, atol=1e-8)
    assert np.all(np.asarray(a.dual_coef)[~keep] == 0)


@pytest.mark.full
def test_one_vs_rest_sparse_equals_dense(data):
    X, _, y3, w = data
    kwargs = dict(tol=1e-10, max_iter=20000)
    sparse = fit_one_vs_rest(fit_linear_svm, _sparse.to_rows(X), y3, sample_weight=w, **kwargs)
    dense = fit_one_vs_rest(fit_linear_svm, X.toarray(), y3, sample_weight=w, **kwargs)
    _close(sparse.estimators, dense.estimators)
    new = sp.random(9, 12, density=0.3, random_state=5, format="csr")
    np.testing.assert_allclose(np.asarray(_dispatch.decision_function(sparse, _sparse.to_bcoo(new))),
                               np.asarray(_dispatch.decision_function(dense, new.toarray())), rtol=0, atol=ATOL)


@pytest.mark.full
def test_primal_densifies(data):
    X, y, _, _ = data
    a = fit_linear_svm(X, y, method="primal")
    np.testing.assert_allclose(np.asarray(a.coef), np.asarray(fit_linear_svm(X.toarray(), y, method="primal").coef),
                               rtol=0, atol=ATOL)


def test_primal_densifying_limit(data, monkeypatch):
    X, y, _, _ = data
    monkeypatch.setenv("JAXCLASSIC_MAX_DENSIFY", "100")
    with pytest.raises(ValueError, match=r"fit_linear_svm\(method='primal'\) has no sparse path .* above the "
                                         "limit of 100"):
        fit_linear_svm(X, y, method="primal")


def test_bad_sparse_input(data):
    X, y, _, _ = data
    bad = X.copy()
    bad.data[0] = np.inf
    with pytest.raises(ValueError, match="X contains 1 inf among its stored values"):
        fit_linear_svm(bad, y)
    with pytest.raises(ValueError, match="X and y have inconsistent numbers of samples: 64 != 63"):
        fit_linear_svm(X, y[:-1])
