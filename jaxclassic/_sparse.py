r"""Sparse input: ``scipy.sparse`` matrices into the functional core, and the densifying limit.

Text and one-hot data are mostly zeros: a bag of words of 20,000 tweets over a 10,000-word
vocabulary holds 200 million values of which about 0.1 % are not zero. Models whose sufficient
statistics or solver steps are products with ``X`` (naive Bayes counts :math:`Y^\top X`,
k-means distances :math:`\lVert x\rVert^2 - 2 x^\top c + \lVert c\rVert^2`, first-order and
proximal solvers :math:`X w` and :math:`X^\top r`) take the sparse matrix as it is, as a
:class:`jax.experimental.sparse.BCOO`, and never build the dense ``X``.

Two layouts of one matrix, both :class:`~jax.experimental.sparse.BCOO`:

* :func:`to_bcoo`: plain COO (``n_batch=0``), ``nnz`` stored values; products with dense
  vectors and matrices cost :math:`O(\mathrm{nnz})`. The layout of whole-matrix products.
* :func:`to_rows`: one row per batch entry (``n_batch=1``, ELLPACK-like): ``data`` is
  ``(n_samples, k)`` and ``indices`` ``(n_samples, k, 1)`` with ``k`` the largest number of
  stored values in a row (padding entries hold value 0 at column 0). Row ``i`` is ``X[i]``, so
  per-row and mini-batch algorithms (SGD, dual coordinate descent) index rows in :math:`O(k)`
  and ``vmap`` over them. It stores :math:`n k \ge \mathrm{nnz}` values: for rows of very
  unequal length, prefer :func:`to_bcoo`.

Helpers of the models with a sparse path: :func:`predict_operand` (a sparse ``X`` to predict
on, checked against the fitted width), :func:`rows_operand` (per-row solvers) and
:func:`check_sparse_classifier_data` (labels and weights beside a converted ``X``); the
estimator layer's ``prepare_fit_sparse`` / ``prepare_predict_sparse``
(:mod:`jaxclassic.estimators._base`) validate, pad with empty zero-weight rows and convert.

Models without a sparse path densify, but only up to :data:`MAX_DENSIFY_ELEMENTS` values
(:func:`densify`): above it they raise a ``ValueError`` naming the model, the size and the
limit, never a silent gigabyte copy.

``scipy`` is needed only when a sparse matrix is passed (it comes with scikit-learn).
"""

from __future__ import annotations

import os

import numpy as np

__all__ = [
    "MAX_DENSIFY_ELEMENTS",
    "is_sparse",
    "check_sparse",
    "to_bcoo",
    "to_rows",
    "densify",
    "densify_limit",
    "predict_operand",
    "rows_operand",
    "check_sparse_classifier_data",
]

#: The most values (``n_samples * n_features``) a sparse ``X`` is densified to, for the models
#: without a sparse path: 2**27 values, 512 MiB in float32 and 1 GiB in float64. The environment
#: variable ``JAXCLASSIC_MAX_DENSIFY`` (an integer, read when called) overrides it.
MAX_DENSIFY_ELEMENTS = 2**27


def densify_limit() -> int:
    """The densifying limit in force: ``JAXCLASSIC_MAX_DENSIFY`` if set, else
    :data:`MAX_DENSIFY_ELEMENTS`."""
    value = os.environ.get("JAXCLASSIC_MAX_DENSIFY")
    if value is None:
        return MAX_DENSIFY_ELEMENTS
    try:
        limit = int(value)
    except ValueError:
        raise ValueError(f"JAXCLASSIC_MAX_DENSIFY must be an integer, got {value!r}") from None
    if limit < 0:
        raise ValueError(f"JAXCLASSIC_MAX_DENSIFY must be >= 0, got {limit}")
    return limit


def is_sparse(X) -> bool:
    """Whether ``X`` is a ``scipy.sparse`` matrix / array or a ``jax.experimental.sparse.BCOO``.

    Imports neither library: a type that is not already loaded cannot be an instance of it.
    """
    module = type(X).__module__
    if module.startswith("scipy.sparse"):
        return True
    return module.startswith("jax.experimental.sparse") and hasattr(X, "todense")


def check_sparse(X, name: str = "X", *, dtype=None, allow_nan: bool = False):
    """Validate a sparse ``X`` and return it as a canonical ``scipy.sparse.csr_matrix``.

    Canonical: duplicates summed, column indices sorted, explicit zeros kept out of the
    count checks. Raises ``ValueError`` (naming ``name``) for a matrix that is not 2-D, has no
    rows or no columns, or stores NaN / inf (NaN allowed with ``allow_nan``); ``TypeError``
    for a non-numeric dtype.

    Parameters
    ----------
    X : scipy.sparse matrix or array, or jax.experimental.sparse.BCOO
    name : str
        The argument's name in messages.
    dtype : numpy float dtype, optional
        Convert the stored values to this dtype; default: float64 / float32 kept, any other
        numeric dtype (counts) becomes float64.

    Returns
    -------
    scipy.sparse.csr_matrix of shape ``(n_samples, n_features)``.
    """
    import scipy.sparse as sp

    if type(X).__module__.startswith("jax.experimental.sparse"):
        X = sp.csr_matrix((np.asarray(X.data), np.asarray(X.indices).T), shape=X.shape) \
            if X.n_batch == 0 and X.n_dense == 0 else sp.csr_matrix(np.asarray(X.todense()))
    if not sp.issparse(X):
        raise TypeError(f"{name} must be a scipy.sparse matrix, got {type(X).__name__}")
    if X.ndim != 2:
        raise ValueError(f"{name} must be 2-D, got shape {X.shape}")
    n_samples, n_features = X.shape
    if n_samples == 0 or n_features == 0:
        raise ValueError(f"{name} must have at least one row and one column, got shape {X.shape}")
    if not (np.issubdtype(X.dtype, np.number) or X.dtype == np.bool_) or np.issubdtype(X.dtype, np.complexfloating):
        raise TypeError(f"{name} must hold real numbers, got dtype {X.dtype}")
    if dtype is None:
        dtype = X.dtype if X.dtype in (np.float32, np.float64) else np.float64
    X = sp.csr_matrix(X, dtype=dtype, copy=False)
    if not X.has_canonical_format:
        X = X.copy()
        X.sum_duplicates()
    data = X.data
    finite = np.isfinite(data)
    if not finite.all():
        n_nan = int(np.isnan(data).sum())
        n_inf = int((~finite).sum()) - n_nan
        if n_inf or not allow_nan:
            what = ", ".join(part for part in (f"{n_nan} NaN" if n_nan else "", f"{n_inf} inf" if n_inf else "") if part)
            raise ValueError(f"{name} contains {what} among its stored values; it must be finite")
    return X


def to_bcoo(X, dtype=None, *, nse: int | None = None):
    """A sparse ``X`` as a plain-COO :class:`~jax.experimental.sparse.BCOO` (``n_batch=0``).

    ``X`` is validated by :func:`check_sparse` first. ``X @ W`` and ``X.T @ R`` with dense
    ``W``, ``R`` then cost :math:`O(\\mathrm{nnz})` per column of ``W`` / ``R``. ``nse``
    (at least the stored count) pads the entries with value 0 at index ``(0, 0)``, which add
    nothing to any product: matrices of nearby counts then share one compiled program.
    """
    import jax.numpy as jnp
    from jax.experimental import sparse as jsparse

    X = check_sparse(X, dtype=dtype)
    if nse is None or nse == X.nnz:
        return jsparse.BCOO.from_scipy_sparse(X)
    if nse < X.nnz:
        raise ValueError(f"nse must be >= the stored count {X.nnz}, got {nse}")
    coo = X.tocoo()
    data = np.zeros(nse, X.dtype)
    indices = np.zeros((nse, 2), np.int32)
    data[:X.nnz] = coo.data
    indices[:X.nnz, 0] = coo.row
    indices[:X.nnz, 1] = coo.col
    return jsparse.BCOO((jnp.asarray(data), jnp.asarray(indices)), shape=X.shape)


def to_rows(X, dtype=None, *, row_capacity: int | None = None):
    """A sparse ``X`` as a row-batched :class:`~jax.experimental.sparse.BCOO` (``n_batch=1``).

    ``data`` has shape ``(n_samples, k)``, ``indices`` ``(n_samples, k, 1)``, with ``k`` the
    largest count of stored values in a row, or ``row_capacity`` when given (at least that
    count: a capacity shared by several matrices lets one compiled program serve them). Padding
    entries are value 0 at column 0, so they add nothing to any product.
    """
    import jax.numpy as jnp
    from jax.experimental import sparse as jsparse

    X = check_sparse(X, dtype=dtype)
    n_samples, n_features = X.shape
    counts = np.diff(X.indptr)
    k = int(counts.max()) if counts.size else 0
    if row_capacity is not None:
        if row_capacity < k:
            raise ValueError(f"row_capacity must be >= the largest row count {k}, got {row_capacity}")
        k = row_capacity
    k = max(k, 1)
    data = np.zeros((n_samples, k), X.dtype)
    indices = np.zeros((n_samples, k, 1), np.int32)
    rows = np.repeat(np.arange(n_samples), counts)
    slots = np.arange(X.nnz) - np.repeat(X.indptr[:-1], counts)
    data[rows, slots] = X.data
    indices[rows, slots, 0] = X.indices
    return jsparse.BCOO((jnp.asarray(data), jnp.asarray(indices)), shape=(n_samples, n_features),
                        indices_sorted=True, unique_indices=True)


def densify(X, *, model: str, dtype=None, limit: int | None = None, allow_nan: bool = False) -> np.ndarray:
    """A sparse ``X`` as a dense numpy array, for a model without a sparse path, within the limit.

    Raises ``ValueError`` when ``n_samples * n_features`` exceeds ``limit`` (default
    :func:`densify_limit`), naming ``model``, the shape, the stored count and the limit.
    """
    X = check_sparse(X, dtype=dtype, allow_nan=allow_nan)
    limit = densify_limit() if limit is None else limit
    n_samples, n_features = X.shape
    size = n_samples * n_features
    if size > limit:
        raise ValueError(
            f"{model} has no sparse path and would densify X of shape {X.shape} ({X.nnz} stored values) to "
            f"{size} values, above the limit of {limit} (jaxclassic._sparse.MAX_DENSIFY_ELEMENTS; environment "
            f"variable JAXCLASSIC_MAX_DENSIFY). Reduce the features (e.g. CountVectorizer(max_features=...) or "
            f"TruncatedSVD), raise the limit, or use a model with a sparse path (MultinomialNB, LogisticRegression, "
            f"KMeans, ...)"
        )
    return X.toarray()


def predict_operand(X, dtype, n_features: int | None = None):
    """A sparse ``X`` to predict on, as a plain-COO :class:`~jax.experimental.sparse.BCOO` of
    the params' float ``dtype``, with ``n_features`` columns (``ValueError`` otherwise).

    A plain-COO ``BCOO`` passes as it is (the estimator layer's: validated, its stored count
    padded; also a traced one inside ``jit``), cast to ``dtype``; a ``scipy.sparse`` matrix is
    validated by :func:`to_bcoo`.
    """
    if type(X).__module__.startswith("jax.experimental.sparse") and getattr(X, "n_batch", 1) == 0 \
            and getattr(X, "n_dense", 1) == 0:
        if X.ndim != 2:
            raise ValueError(f"X must be 2-D, got shape {X.shape}")
        if X.dtype != dtype:
            from jax.experimental import sparse as jsparse

            X = jsparse.BCOO((X.data.astype(dtype), X.indices), shape=X.shape)
    else:
        X = to_bcoo(X, dtype=np.dtype(dtype))
    if n_features is not None and X.shape[1] != n_features:
        raise ValueError(f"X has {X.shape[1]} features, but the model was fitted with {n_features} features")
    return X


def rows_operand(X, *, dtype=None):
    """A sparse ``X`` for a per-row algorithm: a row-batched ``BCOO`` (:func:`to_rows`).

    One already in that layout (``n_batch=1``; the estimator layer's) passes with a check of
    its stored values (finite); anything else sparse is validated by :func:`to_rows`, in
    ``dtype`` (default: float32 / float64 kept, float64 only while ``jax_enable_x64`` is on, as
    dense input).
    """
    if type(X).__module__.startswith("jax.experimental.sparse") and getattr(X, "n_batch", 0) == 1 \
            and getattr(X, "n_dense", 1) == 0 and X.ndim == 2:
        from jaxclassic.validation import is_traced

        if not is_traced(X.data) and not np.isfinite(np.asarray(X.data)).all():
            raise ValueError("X contains NaN or inf among its stored values; it must be finite")
        if X.shape[0] == 0 or X.shape[1] == 0:
            raise ValueError(f"X must have at least one row and one column, got shape {X.shape}")
        return X
    if dtype is None:
        from jaxclassic.validation import _float_dtype_for

        dtype = np.dtype(_float_dtype_for(np.dtype(X.dtype)))
    return to_rows(X, dtype=dtype)


def check_sparse_classifier_data(X, y, sample_weight=None, *, n_classes=None, min_classes: int = 2):
    """:func:`jaxclassic.validation.check_classifier_data` for an ``X`` already converted to a
    ``BCOO`` (:func:`to_bcoo`, :func:`to_rows`, :func:`rows_operand`): checks ``y`` (class
    codes), ``sample_weight`` (in ``X``'s dtype) and their lengths against ``X``'s rows.
    Returns ``(X, y_int32, sample_weight, n_classes)``."""
    from jaxclassic.validation import check_classification_targets, check_int, check_sample_weight

    if n_classes is not None:
        n_classes = check_int(n_classes, "n_classes", low=min_classes)
    sw = check_sample_weight(sample_weight, X.shape[0], dtype=X.dtype)
    y, n_classes = check_classification_targets(y, "y", min_classes=min_classes, n_classes=n_classes,
                                                sample_weight=sw)
    if y.shape[0] != X.shape[0]:
        raise ValueError(f"X and y have inconsistent numbers of samples: {X.shape[0]} != {y.shape[0]}")
    return X, y, sw, n_classes
