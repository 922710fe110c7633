r"""Incremental forward stagewise regression (ESL Algorithm 3.4), whose path for small steps
follows the lasso path.

References
----------
Hastie, Tibshirani & Friedman, *The Elements of Statistical Learning*, 2nd ed., §3.3.3
(Algorithm 3.4), §3.8.1 and Fig. 3.19 (stagewise and the lasso).
Efron, Hastie, Johnstone & Tibshirani, "Least angle regression", Ann. Statist. 32 (2004).
"""

from __future__ import annotations

from functools import partial
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxclassic import _jit
from jaxclassic import _precision
from jaxclassic.linear._gram import weighted_gram
from jaxclassic.linear.features import weighted_mean_scale
from jaxclassic.validation import as_operand, check_int, check_sample_weight, check_scalar, check_X_y

__all__ = ["StagewisePath", "forward_stagewise"]


class StagewisePath(NamedTuple):
    """The incremental forward-stagewise path (row ``t``: after ``t`` steps).

    Attributes
    ----------
    coefs : (n_steps+1, n_features) — on the scale of the original ``X``.
    intercepts : (n_steps+1,)
    coefs_standardized : (n_steps+1, n_features) — on the standardised predictors (what
        ESL Fig. 3.19 plots against their L1 norm).
    features : (n_steps,) int32 — the predictor moved at each step.
    """

    coefs: jax.Array
    intercepts: jax.Array
    coefs_standardized: jax.Array
    features: jax.Array


@partial(_jit.jit, static_argnames=("n_steps",))
def _forward_stagewise(X, y, w, step_size, *, n_steps):
    # weighted population standard deviation; constant columns keep scale 1 (and, centred,
    # have correlation ~0 with everything, so they are never moved)
    x_mean, std = weighted_mean_scale(X, w)
    wg = weighted_gram((X - x_mean) / std, y, w, True)
    G = wg.gram / wg.sw_sum  # correlation matrix of the predictors
    c = wg.xty / wg.sw_sum
    y_mean = wg.y_mean

    def step(carry, _):
        beta, q = carry
        corr = c - q  # <x_j, r> / sum(w) for the current residual r
        j = jnp.argmax(jnp.abs(corr)).astype(jnp.int32)
        delta = step_size * jnp.sign(corr[j])
        beta = beta.at[j].add(delta)
        q = q + delta * G[j]
        return (beta, q), (beta, j)

    zeros = jnp.zeros((X.shape[1],), X.dtype)
    _, (betas, features) = jax.lax.scan(step, (zeros, zeros), None, length=n_steps)
    betas = jnp.concatenate([zeros[None, :], betas], axis=0)
    coefs = betas / std
    intercepts = y_mean - _precision.matmul(coefs, x_mean)
    return StagewisePath(coefs, intercepts, betas, features)


def forward_stagewise(
    X,
    y,
    *,
    step=0.01,
    n_steps: int = 1000,
    sample_weight=None,
) -> StagewisePath:
    r"""Incremental forward stagewise regression (ESL Algorithm 3.4, :math:`\varepsilon`-stagewise).

    On predictors standardised to weighted mean 0 and (population) variance 1, start from
    :math:`\beta = 0`, :math:`r = y - \bar y` and repeat ``n_steps`` times:

    .. math::

        j = \operatorname*{arg\,max}_k |\langle x_k, r\rangle|,\qquad
        \delta = \varepsilon\,\operatorname{sign}\langle x_j, r\rangle,\qquad
        \beta_j \leftarrow \beta_j + \delta,\quad r \leftarrow r - \delta x_j .

    For small :math:`\varepsilon` the path closely follows the lasso path as a function of
    :math:`\lVert\beta\rVert_1` (exactly, when the lasso's coefficient paths are monotone;
    ESL §3.8.1, Efron et al. 2004). The loop is a ``lax.scan`` over a Gram form, so a step
    costs :math:`O(p)`.

    Parameters
    ----------
    X : (n_samples, n_features) array
    y : (n_samples,) array
    step : float > 0
        :math:`\varepsilon`, on the standardised scale (traced).
    n_steps : int
        Number of increments (static).
    sample_weight : (n_samples,) array, optional

    Returns
    -------
    StagewisePath
        ``coefs``/``intercepts`` on the original scale, ``coefs_standardized``, ``features``.

    Example
    -------
    >>> import jax.numpy as jnp
    >>> X = jnp.array([[1., 0.], [2., 1.], [3., 0.], [4., 1.]])
    >>> path = forward_stagewise(X, X[:, 0], step=0.1, n_steps=20)
    >>> path.coefs.shape
    (21, 2)

    References
    ----------
    ESL §3.3.3 (Algorithm 3.4), §3.8.1; Efron et al. (2004), Ann. Statist. 32, §1.
    """
    X, y = check_X_y(X, y)
    w = check_sample_weight(sample_weight, X.shape[0], dtype=X.dtype)
    check_scalar(step, "step", low=0, include_low=False)
    n_steps = check_int(n_steps, "n_steps", low=1)
    return _forward_stagewise(X, y, w, as_operand(step, X.dtype), n_steps=n_steps)
