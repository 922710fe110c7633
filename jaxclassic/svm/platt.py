r"""Platt scaling: a sigmoid of an SVM's decision values as the class probability, shared by
the linear and kernel SVMs.

Platt (1999) models :math:`P(y = 1\mid f) = 1/(1 + e^{Af + B})` and fits :math:`(A, B)` by
maximum likelihood on decision values :math:`f_i` with *regularised* targets

.. math::

    t_i = \frac{N_+ + 1}{N_+ + 2}\ (y_i = 1), \qquad t_i = \frac{1}{N_- + 2}\ (y_i = 0),

(:math:`N_\pm` the weighted class totals: a Bayesian prior that keeps the fit finite on
separable decision values), minimising

.. math::

    F(A, B) = \sum_i s_i\,\bigl[\log(1 + e^{z_i}) - (1 - t_i) z_i\bigr], \qquad z_i = Af_i + B,

which is the shared :func:`jaxclassic.losses.log_loss` of the target :math:`1 - t_i` and the
score :math:`z_i`; its derivatives in :math:`z` come from
:func:`jaxclassic.losses.grad_hess` (:math:`g_i = t_i - p_i`, :math:`h_i = p_i(1 - p_i)`,
:math:`p_i = P(y=1\mid f_i)`).

Algorithm: Lin, Lin & Weng (2007)'s improvement of Platt's pseudo-code, as in LIBSVM's
``sigmoid_train``: start at :math:`A = 0`, :math:`B = \log\frac{N_- + 1}{N_+ + 1}`; Newton
steps on :math:`(A, B)` with the Hessian plus :math:`\sigma I`, :math:`\sigma = 10^{-12}`;
step halving until Armijo's condition (:math:`c = 10^{-4}`) holds; stop when both gradient
entries are below ``tol`` :math:`= 10^{-5}` in magnitude, after ``max_iter`` = 100 steps, or
when the line search fails. The loss is evaluated stably for large :math:`|z|` (the shared
loss's ``logaddexp`` form), which is the point of Lin-Lin-Weng's note. The loop is the
package's :func:`jaxclassic._solver.iterate` and the halving is
:func:`jaxclassic.linear._newton.backtracking` (Armijo, at most 30 halvings, i.e. a smallest
step of :math:`2^{-30} \approx 10^{-9}` where LIBSVM stops at :math:`10^{-10}`).

Calibration data: decision values of the training rows themselves are biased (the SVM was fit
to make them large), so the SVMs follow LIBSVM (``svm_binary_svc_probability``): each row's
decision value comes from a fit on the other folds of an ``n_splits``-fold split
(:func:`cross_validated_platt`; all folds are one ``vmap`` of the fit over fold weights).

References
----------
Platt, "Probabilistic outputs for support vector machines and comparisons to regularized
likelihood methods", in *Advances in Large Margin Classifiers*, MIT Press (1999/2000).
Lin, Lin & Weng, "A note on Platt's probabilistic outputs for support vector machines",
Machine Learning 68 (2007), Algorithm 1.
Chang & Lin, "LIBSVM: a library for support vector machines", ACM TIST 2 (2011), §8.
"""

from __future__ import annotations

from typing import Callable

import jax
import jax.numpy as jnp
import numpy as np

from jaxclassic import _deprecation
from jaxclassic import _jit
from jaxclassic import _linalg
from jaxclassic import losses
from jaxclassic._solver import iterate
from jaxclassic.linear._newton import backtracking
from jaxclassic.validation import (
    check_array,
    check_consistent_length,
    check_int,
    check_sample_weight,
    check_scalar,
    is_traced,
)

__all__ = ["platt_scale", "sigmoid_proba", "cross_validated_platt", "fold_assignment"]

#: Lin-Lin-Weng's ridge on the 2 x 2 Hessian (keeps it invertible when all h_i vanish)
HESSIAN_RIDGE = 1e-12


def _platt(f, positive, sw, *, max_iter: int = 100, tol=1e-5):
    """Lin-Lin-Weng's Newton iteration (module docstring); returns ``(A, B, n_iter, converged)``."""
    dtype = f.dtype
    s = jnp.where(sw > 0, sw, 0).astype(dtype)
    n_pos = jnp.sum(jnp.where(positive, s, 0))
    n_neg = jnp.sum(jnp.where(positive, 0, s))
    t = jnp.where(positive, (n_pos + 1) / (n_pos + 2), 1 / (n_neg + 2))
    target = 1 - t  # the loss's "label" for the score z = A f + B

    def objective(theta):
        z = theta[0] * f + theta[1]
        return jnp.sum(s * losses.log_loss(target, z))

    def derivatives(theta):
        z = theta[0] * f + theta[1]
        g, h = losses.grad_hess(losses.log_loss, target, z)
        sg, sh = s * g, s * h
        grad = jnp.stack([jnp.sum(sg * f), jnp.sum(sg)])
        h11 = jnp.sum(sh * f * f) + HESSIAN_RIDGE
        h21 = jnp.sum(sh * f)
        h22 = jnp.sum(sh) + HESSIAN_RIDGE
        return grad, jnp.stack([jnp.stack([h11, h21]), jnp.stack([h21, h22])])

    def step(carry):
        theta, value, grad, hess = carry
        direction = -_linalg.solve(hess, grad)
        t_step, new_value, accepted = backtracking(lambda a: objective(theta + a * direction), value,
                                                   jnp.dot(grad, direction))
        theta = jnp.where(accepted, theta + t_step * direction, theta)
        value = jnp.where(accepted, new_value, value)
        grad, hess = derivatives(theta)
        error = jnp.max(jnp.abs(grad))
        # a failed line search ends the fit (LIBSVM: "Line search fails"), not converged
        return (theta, value, grad, hess), jnp.where(accepted | (error <= tol), error, jnp.nan)

    theta0 = jnp.stack([jnp.zeros((), dtype), jnp.log((n_neg + 1) / (n_pos + 1))]).astype(dtype)
    grad0, hess0 = derivatives(theta0)
    res = iterate(step, (theta0, objective(theta0), grad0, hess0), max_iter=max_iter, tol=tol,
                  init_error=jnp.max(jnp.abs(grad0)), history_size=1)
    theta = res.carry[0]
    return theta[0], theta[1], res.n_iter, res.converged


_platt_jit = _jit.jit(_platt, static_argnames=("max_iter",))


def platt_scale(decision_values, y, sample_weight=None, *, max_iter: int = 100, tol=1e-5):
    r"""Fit Platt's sigmoid :math:`P(y=1\mid f) = 1/(1 + e^{Af + B})` to decision values.

    Maximum likelihood with Platt's regularised targets, by Lin-Lin-Weng's Newton method with
    backtracking (module docstring).

    Parameters
    ----------
    decision_values : (n_samples,) array
        :math:`f_i` (larger: more likely class 1).
    y : (n_samples,) array
        Class codes {0, 1}, signs {-1, +1} or booleans; class 1 is ``y > 0``.
    sample_weight : (n_samples,) array, optional
        Weights :math:`s_i` of the likelihood and of the class totals :math:`N_\pm`; a
        weight-0 row has no influence.
    max_iter : int
        Newton steps (static; 100 as LIBSVM).
    tol : float
        Stop when both gradient entries are below ``tol`` in magnitude (1e-5 as LIBSVM).

    Returns
    -------
    (A, B) : scalar arrays

    Examples
    --------
    >>> import jax.numpy as jnp
    >>> A, B = platt_scale(jnp.array([-2.0, -1.0, -0.5, 0.5, 1.0, 2.0]), jnp.array([0, 0, 1, 0, 1, 1]))
    >>> bool(A < 0)  # larger decision values, larger P(y = 1)
    True

    References
    ----------
    Platt (1999); Lin, Lin & Weng, Machine Learning 68 (2007).
    """
    max_iter = check_int(max_iter, "max_iter", low=1)
    tol = check_scalar(tol, "tol", low=0.0)
    f = check_array(decision_values, "decision_values", ndim=1)
    y = check_array(y, "y", ndim=1, numeric="any")
    check_consistent_length(decision_values=f, y=y)
    sw = check_sample_weight(sample_weight, f.shape[0], dtype=f.dtype)
    A, B, _, _ = _platt_jit(f, y > 0, sw, max_iter=max_iter, tol=jnp.asarray(tol, f.dtype))
    return A, B


def sigmoid_proba(decision_values, A, B):
    r"""``(n, 2)`` probabilities :math:`(1 - p, p)`, :math:`p = 1/(1 + e^{Af + B})`, computed
    as :math:`\sigma(-z)`, :math:`\sigma(z)` (:math:`z = Af + B`; no cancellation)."""
    z = A * decision_values + B
    return jnp.stack([jax.nn.sigmoid(z), jax.nn.sigmoid(-z)], axis=-1)


def check_calibrated(params) -> None:
    """Raise when concrete params carry no sigmoid (fitted without ``probability=True``)."""
    prob_a = params.probA
    if not is_traced(prob_a) and np.isnan(np.asarray(prob_a)).any():
        raise ValueError(f"predict_proba needs {type(params).__name__} fitted with probability=True "
                         "(Platt's sigmoid was not fitted: probA is NaN)")


@_deprecation.key_moved(2)
@_deprecation.renamed_arguments(n_folds="n_splits")
def fold_assignment(sample_weight, n_splits: int, *, key=None):
    r"""Fold of each row (0..n_splits-1; -1 for weight-0 rows), LIBSVM's contiguous split of a
    permutation of the positive-weight rows.

    Row :math:`i` of rank :math:`r_i` among the positive-weight rows goes to fold
    :math:`\lfloor p_i K / N\rfloor`, :math:`p_i` its position in the permutation (the
    identity without ``key``; with ``key``, the order of ``bits(fold_in(key, r_i))``), so
    weight-0 rows (padding, other folds) change nobody's fold. ``key=None`` (the default)
    is the deterministic contiguous split, LIBSVM's without shuffling. ``n_folds=``, the 0.1
    name of ``n_splits``, still works until jaxclassic 0.3.0, with a ``DeprecationWarning``.
    """
    positive = sample_weight > 0
    n = sample_weight.shape[0]
    n_pos = jnp.sum(positive.astype(jnp.int32))
    rank = jnp.cumsum(positive.astype(jnp.int32)) - 1
    if key is None:
        position = rank
    else:
        bits = jax.vmap(lambda r: jax.random.bits(jax.random.fold_in(key, r), dtype=jnp.uint32))(rank)
        order = jnp.lexsort((bits, jnp.logical_not(positive)))
        position = jnp.zeros(n, jnp.int32).at[order].set(jnp.arange(n, dtype=jnp.int32))
    return jnp.where(positive, (position * n_splits) // jnp.maximum(n_pos, 1), -1)


@_deprecation.key_moved(3)
@_deprecation.renamed_arguments(n_folds="n_splits")
def cross_validated_platt(fold_decision: Callable, t, sample_weight, *, key=None, n_splits: int = 5):
    r"""Platt's :math:`(A, B)` from out-of-fold decision values (LIBSVM's
    ``svm_binary_svc_probability``), jittable.

    Parameters
    ----------
    fold_decision : callable
        ``train_weight (n,) -> decision values (n,)`` of every row, from a fit on the rows of
        positive ``train_weight``; called once under ``jax.vmap`` over the ``n_splits`` folds.
    t : (n,) array
        Class signs (or codes): class 1 is ``t > 0``.
    sample_weight : (n,) array
    key : jax.random key, optional
        Random folds (:func:`fold_assignment`); contiguous without.
    n_splits : int, default 5
        The number of folds (static). ``n_folds=``, its 0.1 name, still works until
        jaxclassic 0.3.0, with a ``DeprecationWarning``.

    Returns
    -------
    (A, B)

    Notes
    -----
    As LIBSVM, a fold whose training rows hold one class only does not fit: its rows get the
    decision value +1 (only class 1 seen), -1 (only class 0) or 0 (none).
    """
    fold = fold_assignment(sample_weight, n_splits, key=key)
    folds = jnp.arange(n_splits)
    train = jnp.where(fold[None, :] != folds[:, None], sample_weight[None, :], 0)  # (K, n)
    decisions = jax.vmap(fold_decision)(train)
    positive = t > 0
    has_pos = jnp.any((train > 0) & positive[None, :], axis=1)
    has_neg = jnp.any((train > 0) & ~positive[None, :], axis=1)
    fallback = jnp.where(has_pos, 1.0, jnp.where(has_neg, -1.0, 0.0)).astype(decisions.dtype)
    decisions = jnp.where((has_pos & has_neg)[:, None], decisions, fallback[:, None])
    out_of_fold = jnp.sum(jnp.where(fold[None, :] == folds[:, None], decisions, 0), axis=0)
    A, B, _, _ = _platt(out_of_fold, positive, sample_weight)
    return A, B
