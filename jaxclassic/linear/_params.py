"""The params pytree shared by the least-squares regressions (OLS, ridge) and their predict."""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

from jaxclassic.linear._api import predict

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


@jax.jit
def predict_linear(params, X):
    """``X @ coef + intercept`` for any params with ``coef`` (..., d) and ``intercept`` (...).

    Returns (n,) for one fit and (..., n) for a batch of fits (a path or a ``vmap``-ed grid).
    """
    X = jnp.asarray(X)
    coef = jnp.asarray(params.coef).astype(X.dtype)
    intercept = jnp.asarray(params.intercept).astype(X.dtype)
    return jnp.einsum("nd,...d->...n", X, coef) + intercept[..., None]


predict.register(LinearParams, predict_linear)
