"""The params pytree shared by the least-squares regressions (OLS, ridge) and their predict."""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

from jaxclassic import _jit
from jaxclassic import _precision
from jaxclassic._sparse import is_sparse, predict_operand
from jaxclassic.linear._api import predict
from jaxclassic.validation import as_operand, check_predict_X

__all__ = ["LinearParams", "predict_linear"]


class LinearParams(NamedTuple):
    """A fitted linear regression :math:`\\hat y = x^\\top\\beta + b`.

    Attributes
    ----------
    coef : (n_features,) array
        :math:`\\beta`, on the scale of the input columns.
    intercept : scalar array
        :math:`b` (0 when ``fit_intercept=False``).

    A path of fits (:func:`jaxclassic.linear.ridge_path`, or a ``vmap`` of a fit) carries
    leading batch axes: ``coef`` (..., n_features), ``intercept`` (...,).
    """

    coef: jax.Array
    intercept: jax.Array


def predict_linear(params, X):
    """``X @ coef + intercept`` for any params with ``coef`` (..., d) and ``intercept`` (...).

    Returns (n,) for one fit and (..., n) for a batch of fits (a path or a ``vmap``-ed grid).
    ``X`` is validated and promoted to the params' float dtype
    (:func:`jaxclassic.validation.check_predict_X`): integer ``X`` predicts exactly as the
    same values in float (casting the params to an integer dtype would truncate them).
    """
    coef = as_operand(params.coef)  # fitted on the host: no compiled copy
    if is_sparse(X):  # scipy.sparse / BCOO: an O(nnz) product, X never dense
        X = predict_operand(X, coef.dtype, coef.shape[-1])
        return _predict_linear_sparse(coef, as_operand(params.intercept), X)
    X = check_predict_X(X, coef.dtype, coef.shape[-1])
    return _predict_linear(coef, as_operand(params.intercept), X)


@_jit.jit
def _predict_linear_sparse(coef, intercept, X):
    d = coef.shape[-1]
    scores = X @ coef.reshape(-1, d).T.astype(X.dtype)  # (n, m)
    return scores.T.reshape(coef.shape[:-1] + (X.shape[0],)) + intercept.astype(X.dtype)[..., None]


@_jit.jit
def _predict_linear(coef, intercept, X):
    return _precision.einsum("nd,...d->...n", X, coef.astype(X.dtype)) + intercept.astype(X.dtype)[..., None]


predict.register(LinearParams, predict_linear)
