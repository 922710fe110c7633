"""Tests of jaxclassic/_sparse.py: validation of sparse input, the two BCOO layouts, the
densifying limit.

References: scipy.sparse's own products and ``toarray`` (exact in float64 for these small
integer-valued and random matrices: the tolerances are float64 round-off of sums of <= 20 terms).
"""

import numpy as np
import pytest

sp = pytest.importorskip("scipy.sparse")

from jaxclassic import _sparse  # noqa: E402


@pytest.fixture(scope="module")
def matrix():
    # 30 x 12, about 25 % stored, one empty row and one empty column, rows of unequal length
    X = sp.random(30, 12, density=0.25, random_state=0, format="lil")
    X[3, :] = 0
    X[:, 7] = 0
    X[5, :] = np.arange(1, 13)  # the longest row: 12 stored values
    return sp.csr_matrix(X)


# --------------------------------------------------------------------------- is_sparse
def test_is_sparse(matrix):
    from jax.experimental import sparse as jsparse

    assert _sparse.is_sparse(matrix) and _sparse.is_sparse(matrix.tocsc())
    assert _sparse.is_sparse(sp.csr_array(matrix))
    assert _sparse.is_sparse(jsparse.BCOO.from_scipy_sparse(matrix))
    assert not _sparse.is_sparse(matrix.toarray())
    assert not _sparse.is_sparse([[1.0]])


# --------------------------------------------------------------------------- check_sparse
def test_check_sparse_canonical_csr(matrix):
    coo = matrix.tocoo()
    # the same entries split in two duplicates each, unsorted: summed and sorted
    rows = np.r_[coo.row, coo.row][::-1]
    cols = np.r_[coo.col, coo.col][::-1]
    data = np.r_[coo.data, coo.data][::-1] / 2
    messy = sp.coo_matrix((data, (rows, cols)), shape=matrix.shape)
    out = _sparse.check_sparse(messy)
    assert sp.isspmatrix_csr(out) and out.has_canonical_format
    np.testing.assert_allclose(out.toarray(), matrix.toarray(), rtol=0, atol=1e-15)


def test_check_sparse_dtypes(matrix):
    assert _sparse.check_sparse(matrix.astype(np.float32)).dtype == np.float32
    assert _sparse.check_sparse(matrix).dtype == np.float64
    counts = sp.csr_matrix(np.array([[1, 0, 2], [0, 3, 0]], np.int64))
    assert _sparse.check_sparse(counts).dtype == np.float64  # counts become float64
    assert _sparse.check_sparse(counts, dtype=np.float32).dtype == np.float32


@pytest.mark.parametrize("bad, what", [(np.nan, "1 NaN"), (np.inf, "1 inf")])
def test_check_sparse_non_finite(matrix, bad, what):
    X = matrix.copy()
    X.data[0] = bad
    with pytest.raises(ValueError, match=f"X contains {what} among its stored values"):
        _sparse.check_sparse(X)


def test_check_sparse_nan_allowed(matrix):
    X = matrix.copy()
    X.data[0] = np.nan
    assert np.isnan(_sparse.check_sparse(X, allow_nan=True).data).sum() == 1
    X.data[1] = np.inf  # inf is never allowed
    with pytest.raises(ValueError, match="1 NaN, 1 inf"):
        _sparse.check_sparse(X, allow_nan=True)


@pytest.mark.parametrize("shape", [(0, 3), (3, 0)])
def test_check_sparse_empty(shape):
    with pytest.raises(ValueError, match="at least one row and one column"):
        _sparse.check_sparse(sp.csr_matrix(shape), name="X_train")


def test_check_sparse_one_dimensional():
    with pytest.raises(ValueError, match=r"X must be 2-D, got shape \(4,\)"):
        _sparse.check_sparse(sp.coo_array(np.arange(1.0, 5.0)))


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_check_sparse_complex(dtype):
    # (scipy.sparse itself refuses object dtype, so no object matrix can reach check_sparse)
    with pytest.raises(TypeError, match=f"must hold real numbers, got dtype {np.dtype(dtype).name}"):
        _sparse.check_sparse(sp.csr_matrix(np.array([[1 + 1j, 0]], dtype=dtype)))


def test_check_sparse_bool():
    out = _sparse.check_sparse(sp.csr_matrix(np.array([[True, False], [False, True]])))
    assert out.dtype == np.float64
    np.testing.assert_array_equal(out.toarray(), np.eye(2))


def test_check_sparse_not_sparse():
    with pytest.raises(TypeError, match="X must be a scipy.sparse matrix, got ndarray"):
        _sparse.check_sparse(np.eye(2))


# --------------------------------------------------------------------------- layouts
def test_to_bcoo_products(matrix):
    Xb = _sparse.to_bcoo(matrix.tocsc())
    assert Xb.n_batch == 0 and Xb.nse == matrix.nnz
    W = np.random.default_rng(0).normal(size=(12, 3))
    R = np.random.default_rng(1).normal(size=(30, 2))
    np.testing.assert_allclose(np.asarray(Xb @ W), matrix @ W, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(np.asarray(Xb.T @ R), matrix.T @ R, rtol=1e-13, atol=1e-13)
    np.testing.assert_array_equal(np.asarray(Xb.todense()), matrix.toarray())


def test_to_bcoo_nse_padding(matrix):
    Xb = _sparse.to_bcoo(matrix, nse=matrix.nnz + 9)
    assert Xb.nse == matrix.nnz + 9
    W = np.random.default_rng(0).normal(size=(12, 2))
    np.testing.assert_allclose(np.asarray(Xb @ W), matrix @ W, rtol=1e-13, atol=1e-13)
    np.testing.assert_array_equal(np.asarray(Xb.todense()), matrix.toarray())
    # padded entries are zeros: check_sparse of the padded BCOO is the matrix again
    np.testing.assert_array_equal(_sparse.check_sparse(Xb).toarray(), matrix.toarray())
    with pytest.raises(ValueError, match="nse must be >= the stored count"):
        _sparse.to_bcoo(matrix, nse=matrix.nnz - 1)


def test_to_rows_layout(matrix):
    Xr = _sparse.to_rows(matrix)
    counts = np.diff(matrix.indptr)
    k = int(counts.max())
    assert Xr.n_batch == 1 and Xr.data.shape == (30, k) and Xr.indices.shape == (30, k, 1)
    dense = matrix.toarray()
    for i in (0, 3, 5, 29):  # row i is X[i]; its padding holds value 0
        row = np.zeros(12)
        np.add.at(row, np.asarray(Xr.indices[i, :, 0]), np.asarray(Xr.data[i]))
        np.testing.assert_array_equal(row, dense[i])
        assert np.all(np.asarray(Xr.data[i, counts[i]:]) == 0)
    np.testing.assert_array_equal(np.asarray(Xr.todense()), dense)
    w = np.random.default_rng(2).normal(size=12)
    scores = np.sum(np.asarray(Xr.data) * w[np.asarray(Xr.indices[..., 0])], axis=1)
    np.testing.assert_allclose(scores, matrix @ w, rtol=1e-13, atol=1e-13)


def test_to_rows_capacity(matrix):
    k = int(np.diff(matrix.indptr).max())
    Xr = _sparse.to_rows(matrix, row_capacity=k + 4)
    assert Xr.data.shape == (30, k + 4)
    np.testing.assert_array_equal(np.asarray(Xr.todense()), matrix.toarray())
    with pytest.raises(ValueError, match=f"row_capacity must be >= the largest row count {k}"):
        _sparse.to_rows(matrix, row_capacity=k - 1)


def test_rows_operand_and_predict_operand(matrix):
    Xr = _sparse.to_rows(matrix)
    assert _sparse.rows_operand(Xr) is Xr
    assert _sparse.rows_operand(matrix).n_batch == 1
    Xb = _sparse.predict_operand(matrix, np.float32, 12)
    assert Xb.dtype == np.float32 and Xb.n_batch == 0
    with pytest.raises(ValueError, match="X has 12 features, but the model was fitted with 5"):
        _sparse.predict_operand(matrix, np.float64, 5)


# --------------------------------------------------------------------------- densify
def test_densify_within_limit(matrix):
    out = _sparse.densify(matrix, model="Model")
    assert isinstance(out, np.ndarray)
    np.testing.assert_array_equal(out, matrix.toarray())


def test_densify_limit_message(matrix):
    with pytest.raises(ValueError) as info:
        _sparse.densify(matrix, model="SomeModel", limit=359)
    message = str(info.value)
    assert "SomeModel has no sparse path" in message
    assert "X of shape (30, 12)" in message and f"({matrix.nnz} stored values)" in message
    assert "360 values, above the limit of 359" in message and "JAXCLASSIC_MAX_DENSIFY" in message
    assert _sparse.densify(matrix, model="SomeModel", limit=360).shape == (30, 12)


def test_densify_environment_override(matrix, monkeypatch):
    monkeypatch.setenv("JAXCLASSIC_MAX_DENSIFY", "100")
    assert _sparse.densify_limit() == 100
    with pytest.raises(ValueError, match="above the limit of 100"):
        _sparse.densify(matrix, model="M")
    monkeypatch.setenv("JAXCLASSIC_MAX_DENSIFY", "lots")
    with pytest.raises(ValueError, match="JAXCLASSIC_MAX_DENSIFY must be an integer, got 'lots'"):
        _sparse.densify_limit()
    monkeypatch.setenv("JAXCLASSIC_MAX_DENSIFY", "-1")
    with pytest.raises(ValueError, match="JAXCLASSIC_MAX_DENSIFY must be >= 0, got -1"):
        _sparse.densify_limit()
    monkeypatch.delenv("JAXCLASSIC_MAX_DENSIFY")
    assert _sparse.densify_limit() == _sparse.MAX_DENSIFY_ELEMENTS == 2**27
