r"""Least squares and logistic regression from row blocks (data larger than memory).

**OLS / ridge** depend on the data only through the weight :math:`W = \sum_i w_i`, the means
:math:`\bar z` and the centred scatter :math:`M = \sum_i w_i (z_i - \bar z)(z_i - \bar z)^\top`
of the augmented rows :math:`z_i = (x_i, y_i)`: :math:`G = M_{xx} = X_c^\top WX_c`,
:math:`g = M_{xy} = X_c^\top Wy_c` and :math:`b = \bar y - \bar x^\top\beta`
(:mod:`jaxclassic.linear._gram`). One pass accumulates them piece by piece (one jitted
function, Chan's merge: :mod:`jaxclassic.streaming._blocks`); the fit is then
:func:`jaxclassic.linear.fit_ols` / :func:`~jaxclassic.linear.fit_ridge` themselves, run on
the :math:`2(d+1)`-row weighted sample with exactly these moments
(:func:`jaxclassic.streaming._blocks.pseudo_sample`), so the solve, the intercept, the
constant-column rule, ``standardize`` and the rank-deficiency fallback and warning are those
of the in-memory fits. Memory: :math:`O(\text{chunk\_rows}\cdot d + d^2)`.

**Logistic regression** (Newton): a first pass takes the weighted column means and standard
deviations (Chan's merge), and Newton runs in the standardised basis
:math:`Z = (X - \bar x)/\sigma` of :func:`jaxclassic.linear.fit_logistic` (no centring without
an intercept; constant columns keep :math:`\sigma = 1`), with the penalty
:math:`\tfrac12\sum_j(\lambda/\sigma_j^2)w_{Z,j}^2` that keeps the objective
:math:`J(w, b) = \sum_i s_i\ell(y_i, x_i^\top w + b) + \tfrac{\lambda}{2}\lVert w\rVert^2`
unchanged. Per pass, the gradient and Hessian are row sums, each piece's from
:func:`jaxclassic.linear.logistic_grad_hess` (the shared ``losses.grad_hess`` of the log-loss)
on its standardised rows, with the objective in the same pass. The step
:math:`d = -H^{-1}\nabla J` is taken with Armijo backtracking
(:math:`J(\theta + td) \le J(\theta) + 10^{-4}t\nabla J^\top d`, :math:`t = 1, \tfrac12,\dots`;
each trial is one pass, which also yields the next gradient and Hessian). It stops as the
in-memory fit: :math:`\lVert\nabla_{\theta_Z} J\rVert_2 / \sum_i s_i \le` ``tol``, or at the
rounding floor (:func:`jaxclassic.linear._newton.at_rounding_floor`); both fits reach the same
optimum (the iterates differ: the in-memory fit's line search is its own). The loop is a Python
loop over passes (each pass reads the data again), not :func:`jaxclassic._solver.iterate`,
whose ``lax.while_loop`` needs the whole data inside one program.

References
----------
Chan, Golub & LeVeque, The American Statistician 37 (1983) (merging moments);
Hastie, Tibshirani & Friedman, *ESL*, 2nd ed., §3.2, §3.4.1, §4.4.1 (Newton / IRLS);
Nocedal & Wright, *Numerical Optimization*, 2nd ed., §3.1 (Armijo backtracking).
"""

from __future__ import annotations

from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

from jaxclassic import _jit
from jaxclassic import _linalg
from jaxclassic import _precision, losses
from jaxclassic.linear._gram import constant_columns
from jaxclassic.linear._newton import at_rounding_floor, default_tol, warn_after_fit, weighted_sum
from jaxclassic.linear._params import LinearParams
from jaxclassic.linear.logistic import LogisticParams, logistic_grad_hess
from jaxclassic.linear.ols import fit_ols as _fit_ols_memory
from jaxclassic.linear.ridge import fit_ridge as _fit_ridge_memory
from jaxclassic.streaming._blocks import DEFAULT_CHUNK_ROWS, Source, accumulate_moments, pseudo_sample
from jaxclassic.validation import (
    check_bool,
    check_classification_targets,
    check_int,
    check_sample_weight,
    check_scalar,
)

__all__ = ["least_squares_moments", "fit_ols", "fit_ridge", "fit_logistic"]


def _augmented(piece):
    Z = np.concatenate([piece.X, piece.y[:, None]], axis=1)
    return Z, np.zeros(Z.shape[0], np.int32)


def least_squares_moments(data, y=None, *, sample_weight=None, chunk_rows=DEFAULT_CHUNK_ROWS,
                          progress=False):
    r"""Weight, means and centred scatter of the rows :math:`(x_i, y_i)`, in one pass.

    Parameters
    ----------
    data : (n, d) array / np.memmap, or an iterable (or callable returning one) of (X, y, w)
    y, sample_weight : (n,) arrays with array ``data`` (None with blocks)
    chunk_rows : int >= 1
    progress : bool

    Returns
    -------
    GroupMoments
        ``count`` (1,), ``mean`` (1, d+1), ``scatter`` (1, d+1, d+1) (last column: y).
    """
    source = Source(data, y, sample_weight, chunk_rows=chunk_rows, target="real",
                    progress=progress, desc="least squares")
    return accumulate_moments(source, _augmented, 1, True)


def _pseudo_xy(moments):
    Z, _, w = pseudo_sample(moments)
    return Z[:, :-1], Z[:, -1], w


def fit_ols(data, y=None, *, fit_intercept: bool = True, sample_weight=None, rcond=None,
            chunk_rows: int = DEFAULT_CHUNK_ROWS, progress: bool = False) -> LinearParams:
    r"""Ordinary (weighted) least squares from row blocks, equal to :func:`jaxclassic.linear.fit_ols`.

    Minimises :math:`\sum_i w_i (y_i - x_i^\top\beta - b)^2` (normal equations
    :math:`X_c^\top WX_c\beta = X_c^\top Wy_c`, :math:`b = \bar y - \bar x^\top\beta`) from
    the moments of one pass (module docstring).

    Parameters
    ----------
    data : (n, d) array or np.memmap, or an iterable of ``(X, y, w)`` blocks (or a callable
        returning one)
        With an array, rows are read ``chunk_rows`` at a time.
    y : (n,) array, only with array ``data``
    fit_intercept : bool
    sample_weight : (n,) array, only with array ``data``; rows of weight 0 have no influence
    rcond : float, optional
        As :func:`jaxclassic.linear.fit_ols`.
    chunk_rows : int >= 1
        Rows per piece (every piece is padded to it: one compile).
    progress : bool
        Show a tqdm bar per pass when tqdm is installed (``jaxclassic[progress]``).

    Returns
    -------
    LinearParams

    Example
    -------
    >>> import numpy as np
    >>> X = np.arange(12.0).reshape(6, 2); y = X @ np.array([1.0, -1.0]) + 3.0
    >>> blocks = [(X[:4], y[:4], None), (X[4:], y[4:], None)]
    >>> p = fit_ols(blocks, chunk_rows=4)  # doctest: +SKIP

    References
    ----------
    Hastie, Tibshirani & Friedman, *ESL*, 2nd ed., §3.2; Chan, Golub & LeVeque (1983).
    """
    if rcond is not None:  # before the pass compiles anything
        check_scalar(rcond, "rcond", low=0.0)
    fit_intercept = check_bool(fit_intercept, "fit_intercept")
    moments = least_squares_moments(data, y, sample_weight=sample_weight, chunk_rows=chunk_rows,
                                    progress=progress)
    X, yp, w = _pseudo_xy(moments)
    return _fit_ols_memory(X, yp, fit_intercept=fit_intercept, sample_weight=w, rcond=rcond)


def fit_ridge(data, y=None, *, alpha, fit_intercept: bool = True, standardize: bool = False,
              sample_weight=None, chunk_rows: int = DEFAULT_CHUNK_ROWS,
              progress: bool = False) -> LinearParams:
    r"""Ridge regression from row blocks, equal to :func:`jaxclassic.linear.fit_ridge`.

    :math:`\beta = (X_c^\top WX_c + \alpha I)^{-1}X_c^\top Wy_c` (scikit-learn's ``alpha``),
    from the moments of one pass (module docstring).

    Parameters
    ----------
    data, y, sample_weight, chunk_rows, progress
        As :func:`fit_ols`.
    alpha : float >= 0
    fit_intercept, standardize : bool
        As :func:`jaxclassic.linear.fit_ridge`.

    Returns
    -------
    LinearParams

    Example
    -------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(100, 3)); y = X.sum(axis=1)
    >>> fit_ridge(X, y, alpha=1.0, chunk_rows=32).coef.shape
    (3,)

    References
    ----------
    Hoerl & Kennard, Technometrics 12 (1970); ESL §3.4.1.
    """
    check_scalar(alpha, "alpha", low=0.0)
    fit_intercept = check_bool(fit_intercept, "fit_intercept")
    standardize = check_bool(standardize, "standardize")
    moments = least_squares_moments(data, y, sample_weight=sample_weight, chunk_rows=chunk_rows,
                                    progress=progress)
    X, yp, w = _pseudo_xy(moments)
    return _fit_ridge_memory(X, yp, alpha=alpha, fit_intercept=fit_intercept,
                             standardize=standardize, sample_weight=w)


# --------------------------------------------------------------------------- logistic
@partial(_jit.jit, static_argnames=("fit_intercept",))
def _logistic_piece(theta, mean, scale, X, y, w, *, fit_intercept):
    """Objective, gradient, Hessian (unpenalised, standardised basis) and the smallest margin
    of one piece at ``theta``."""
    d = X.shape[1]
    Z = jnp.where((w > 0)[:, None], (X - mean) / scale, 0)
    grad, hess = logistic_grad_hess(theta[:d], theta[d], Z, y, l2=0.0, sample_weight=w,
                                    fit_intercept=fit_intercept)
    f = _precision.matmul(Z, theta[:d]) + theta[d]
    value = weighted_sum(w, losses.log_loss(y, f))
    margin = jnp.min(jnp.where(w > 0, (2 * y - 1) * f, jnp.inf))
    return value, grad, hess, margin


def _logistic_pass(source, theta, mean, scale, penalty, fit_intercept):
    d = theta.shape[0] - 1
    value, grad, hess, margin = 0.0, 0.0, 0.0, np.inf
    for piece in source.pieces():
        v, g, h, m = _logistic_piece(theta, mean, scale, piece.X, piece.y.astype(piece.X.dtype),
                                     piece.w, fit_intercept=fit_intercept)
        value, grad, hess = value + v, grad + g, hess + h
        margin = min(margin, float(m))
    value = value + 0.5 * jnp.sum(penalty * jnp.square(theta[:d]))
    full_penalty = jnp.concatenate([penalty, jnp.zeros(1, theta.dtype)])
    # without an intercept each piece's Hessian has the row e_{d+1}: keep one
    hess = hess if fit_intercept else hess.at[d, d].set(1.0)
    return value, grad + full_penalty * theta, hess + jnp.diag(full_penalty), margin


def fit_logistic(data, y=None, *, l2=0.0, fit_intercept: bool = True, max_iter: int = 100,
                 tol=None, sample_weight=None, chunk_rows: int = DEFAULT_CHUNK_ROWS,
                 progress: bool = False) -> LogisticParams:
    r"""Binary logistic regression by Newton's method from row blocks, one pass per step.

    Minimises :math:`J(w, b) = \sum_i s_i[\log(1 + e^{f_i}) - y_if_i] + \tfrac{\lambda}{2}\lVert w\rVert^2`
    (:func:`jaxclassic.linear.fit_logistic`'s objective, ``l2`` :math:`= \lambda = 1/C`);
    per pass :math:`\nabla J = \tilde Z^\top(s\odot(p - y)) + (\lambda/\sigma^2)(w_Z, 0)` and
    :math:`\nabla^2 J = \tilde Z^\top\operatorname{diag}(s\,p(1-p))\tilde Z + \operatorname{diag}(\lambda/\sigma^2, 0)`
    summed over pieces (standardised basis), then a backtracked Newton step (module docstring).

    Parameters
    ----------
    data, y, sample_weight, chunk_rows, progress
        As :func:`fit_ols`; ``y`` in {0, 1}. Block sources must be re-iterable (a callable
        returning an iterable, or a list): the data are read once per step.
    l2 : float >= 0
    fit_intercept : bool
    max_iter : int >= 1
        Newton steps (each one or more passes over the data).
    tol : float, optional
        On :math:`\lVert\nabla_{\theta_Z} J\rVert_2/\sum_i s_i`; default that of the in-memory fit.

    Returns
    -------
    LogisticParams
        ``separated`` is True when, with ``l2 = 0``, the last iterate classifies every row of
        positive weight with a positive margin (the MLE does not exist).

    Example
    -------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0); X = rng.normal(size=(200, 2))
    >>> y = (X[:, 0] + rng.normal(size=200) > 0).astype(int)
    >>> fit_logistic(X, y, chunk_rows=64).coef.shape  # doctest: +SKIP
    (2,)

    References
    ----------
    ESL §4.4.1; Nocedal & Wright (2006), §3.1.
    """
    check_scalar(l2, "l2", low=0.0)
    max_iter = check_int(max_iter, "max_iter", low=1)
    fit_intercept = check_bool(fit_intercept, "fit_intercept")
    source = Source(data, y, sample_weight, chunk_rows=chunk_rows, target="class", n_classes=2,
                    passes=2, progress=progress, desc="logistic pass")
    if y is not None:  # in-memory labels: both classes, as the in-memory fit asks, before any pass
        sw = check_sample_weight(sample_weight, len(y))
        check_classification_targets(y, "y", n_classes=2, sample_weight=sw)
    class_weight = np.zeros(2)  # per class, over the rows of positive weight of the first pass

    def rows(piece):
        class_weight[:] += np.bincount(piece.y, weights=piece.w, minlength=2)
        return piece.X, np.zeros(piece.X.shape[0], np.int32)

    moments = accumulate_moments(source, rows, 1, False)
    if not (class_weight > 0).all():  # blocks of one class only: no finite MLE (the intercept runs off)
        raise ValueError("y must contain at least 2 classes, got 1 (labels present: "
                         f"{np.flatnonzero(class_weight > 0).tolist()})")
    total = moments.count[0]
    dtype = moments.mean.dtype
    tol = default_tol(dtype) if tol is None else check_scalar(tol, "tol", low=0.0)
    if fit_intercept:
        mean, variance = moments.mean[0], moments.scatter[0] / total
    else:  # no centring: the second moment about 0
        mean = jnp.zeros_like(moments.mean[0])
        variance = moments.scatter[0] / total + jnp.square(moments.mean[0])
    constant = constant_columns(variance, mean) | (variance <= 0)
    scale = jnp.where(constant, 1, jnp.sqrt(jnp.where(constant, 1, variance))).astype(dtype)
    d = mean.shape[0]
    penalty = jnp.asarray(l2, dtype) / jnp.square(scale)
    theta = jnp.zeros(d + 1, dtype)
    value, grad, hess, margin = _logistic_pass(source, theta, mean, scale, penalty, fit_intercept)
    history = np.zeros(max_iter, dtype)
    grad_norm = float(jnp.linalg.norm(grad) / total)
    n_iter, converged = 0, grad_norm <= tol
    while not converged and n_iter < max_iter:
        step = -_linalg.solve(hess, grad)
        slope = float(grad @ step)
        t, accepted = 1.0, False
        for _ in range(30):
            trial = _logistic_pass(source, theta + t * step, mean, scale, penalty, fit_intercept)
            accepted = bool(np.isfinite(float(trial[0]))
                            and float(trial[0]) <= float(value) + 1e-4 * t * slope)
            if accepted:
                break
            t *= 0.5
        if not accepted:  # a refused step ends the fit, unconverged (as the in-memory fit)
            break
        new_norm = float(jnp.linalg.norm(trial[1]) / total)
        floor = bool(at_rounding_floor(value, jnp.asarray(-slope, dtype), new_norm, grad_norm))
        theta = theta + t * step
        value, grad, hess, margin = trial
        grad_norm = new_norm
        history[n_iter] = grad_norm
        n_iter += 1
        converged = grad_norm <= tol
        if floor:  # rounding noise: stop (unconverged unless tol is met), as the in-memory fit
            break
        if float(l2) == 0.0 and margin > 0:  # a separating iterate: the MLE does not exist
            converged = False
            break
    separated = bool(float(l2) == 0.0 and margin > 0)
    coef = theta[:d] / scale
    intercept = theta[d] - _precision.dot(mean, coef) if fit_intercept else jnp.zeros((), dtype)
    params = LogisticParams(coef, intercept, jnp.int32(n_iter), jnp.asarray(converged),
                            jnp.asarray(history), jnp.asarray(separated))
    # the in-memory fit's warnings: perfect separation, or not converged
    warn_after_fit(params, "streaming.fit_logistic", l2, max_iter)
    return params
