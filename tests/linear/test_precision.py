"""Every matrix product traced by the least-squares fits runs at HIGHEST precision.

On GPUs JAX's default float32 product is TF32 (about 1e-3 relative), which breaks the float32
tolerances the CPU meets; ``jaxclassic._precision`` is the one policy. These tests trace each
fit (no compilation) and walk its jaxpr, sub-jaxprs of ``cond`` / ``while`` / ``scan`` / ``jit``
included, asserting that no ``dot_general`` traced from ``jaxclassic/linear/`` is left at the
default precision (products inside other packages, e.g. the metrics the selection summaries
call, belong to their own modules' tests).
"""

import jax
import jax.extend.core as jax_core
import jax.numpy as jnp
import numpy as np
import pytest
from jax._src import source_info_util  # the line of each traced product (test diagnostics)

from jaxclassic.linear import (
    backward_stepwise,
    best_subset,
    fit_bayesian_ridge,
    fit_lasso,
    fit_ols,
    fit_ridge,
    forward_stagewise,
    forward_stepwise,
    lasso_path,
    ridge_path,
    standardize,
)


def _dot_precisions(jaxpr):
    """(precision, source line) of every product traced from ``jaxclassic/linear/`` or through
    ``jaxclassic._precision`` (innermost frame)."""
    for eqn in jaxpr.eqns:
        if eqn.primitive.name == "dot_general":
            where = source_info_util.summarize(eqn.source_info)
            if "jaxclassic/linear/" in where or "jaxclassic/_precision.py" in where:
                yield eqn.params["precision"], where
    for sub in jax_core.subjaxprs(jaxpr):  # cond branches, loop bodies, jit and vmap rules
        yield from _dot_precisions(sub)


FITS = {
    "fit_ols": lambda X, y: fit_ols(X, y),
    "fit_ridge": lambda X, y: fit_ridge(X, y, alpha=1.0),
    "ridge_path": lambda X, y: ridge_path(X, y, jnp.array([0.0, 1.0], X.dtype)),
    "fit_bayesian_ridge": lambda X, y: fit_bayesian_ridge(X, y, max_iter=3),
    "fit_lasso": lambda X, y: fit_lasso(X, y, alpha=0.1, max_iter=3),
    "lasso_path": lambda X, y: lasso_path(X, y, n_alphas=2, max_iter=3),
    "best_subset": lambda X, y: best_subset(X, y),
    "forward_stepwise": lambda X, y: forward_stepwise(X, y),
    "backward_stepwise": lambda X, y: backward_stepwise(X, y),
    "forward_stagewise": lambda X, y: forward_stagewise(X, y, n_steps=3),
    "standardize": lambda X, y: standardize(X),
}


@pytest.mark.parametrize("name", sorted(FITS))
def test_every_product_of_the_fit_is_highest_precision(name):
    rng = np.random.RandomState(0)
    X = jnp.asarray(rng.randn(12, 3), jnp.float32)
    y = jnp.asarray(rng.randn(12), jnp.float32)
    jaxpr = jax.make_jaxpr(FITS[name])(X, y).jaxpr
    products = list(_dot_precisions(jaxpr))
    assert products, "no matrix product found: the walk missed the fit's body"
    highest = (jax.lax.Precision.HIGHEST, jax.lax.Precision.HIGHEST)
    assert [where for precision, where in products if precision != highest] == []
