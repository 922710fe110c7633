r"""Linear classification by stochastic gradient descent: scikit-learn's ``SGDClassifier`` objective.

For labels :math:`y_i \in \{-1, +1\}` (one binary problem per class against the rest when there are
more than two classes, as scikit-learn's one-vs-rest), sample weights :math:`s_i \ge 0`, a margin
loss :math:`L` and the penalty :math:`R`, the objective is

.. math::

    J(w, b) = \frac{\sum_i s_i\,L(y_i, x_i^\top w + b)}{\sum_i s_i} + \alpha R(w), \qquad
    R(w) = \tfrac{1-\rho}{2}\lVert w\rVert_2^2 + \rho\lVert w\rVert_1

(``l2``: :math:`\rho = 0`; ``l1``: :math:`\rho = 1`; ``elasticnet``: :math:`\rho` = ``l1_ratio``;
``None``: :math:`R = 0`), scikit-learn's :math:`\frac1n\sum_i L_i + \alpha R(w)` when the weights are
all 1 (with weights, scikit-learn's :math:`\frac1n\sum_i s_i L_i` has the optimum of ours at
:math:`\alpha\,n/\sum_i s_i`). The intercept is not penalised. Losses, all from
:mod:`jaxclassic.losses` on the margin :math:`f = x^\top w + b`: ``hinge`` (linear SVM),
``log_loss`` (logistic regression, :func:`~jaxclassic.losses.log_loss` of :math:`(y+1)/2`),
``modified_huber`` (:func:`~jaxclassic.losses.modified_huber`), ``squared_hinge`` and
``perceptron``.

**Update** (one row per update with ``batch_size=1``, scikit-learn's algorithm). At update
:math:`t = 1, 2, \dots` on the batch :math:`B`, with :math:`\bar s` the mean weight of the rows of
positive weight, the smooth part's autodiff gradient feeds ``optax.sgd`` with step :math:`\eta_t`,
then the L1 part is applied by Tsuruoka et al.'s cumulative penalty (scikit-learn's): with
:math:`u = \sum_{\tau \le t}\eta_\tau\alpha\rho` the penalty every weight could have received
so far and :math:`q_j` what :math:`w_j` did receive,

.. math::

    g = \nabla_{w,b}\Big[\frac{1}{|B|\,\bar s}\sum_{i\in B} s_i L(y_i, x_i^\top w + b)
        + \alpha\tfrac{1-\rho}{2}\lVert w\rVert^2\Big], \quad
    (w, b) \leftarrow (w, b) - \eta_t g, \quad
    w_j \leftarrow \begin{cases}\max(0, w_j - (u + q_j)) & w_j > 0\\
                                 \min(0, w_j + (u - q_j)) & w_j < 0,\end{cases}

and :math:`q_j` grows by the change. A weight whose gradient steps do not outweigh the accrued
penalty is clipped to exactly 0 (a plain proximal step, whose threshold :math:`\eta_t\alpha\rho`
decays, almost never zeroes a coordinate under SGD noise). :math:`u, q` start at 0 at each call
(each :func:`fit_sgd_classifier` and each :func:`partial_fit_sgd_classifier`, as scikit-learn's).

The batch gradient is an unbiased estimate of :math:`\nabla J` (smooth part). Schedules, as
scikit-learn's: ``"optimal"`` :math:`\eta_t = 1/(\alpha(t_0 + t - 1))` with scikit-learn's heuristic
:math:`t_0 = 1/(\eta^{(0)}\alpha)`, :math:`\eta^{(0)} = \tau/\max(1, -L'(1, -\tau))`,
:math:`\tau = \alpha^{-1/4}`; ``"invscaling"`` :math:`\eta_0/t^{p}`; ``"constant"`` :math:`\eta_0`.

**Epochs and stopping.** Each epoch visits every row of positive weight once, in an order drawn
from ``key`` and the epoch's number (row :math:`i` gets the priority
``uniform(fold_in(fold_in(key, epoch), i))``; rows of weight 0 are put last, and a batch of them
alone is skipped: it neither moves the iterate nor advances :math:`t`). After each epoch the
objective :math:`J` is evaluated on all rows; as scikit-learn, the loop stops once ``n_iter_no_change``
epochs in a row have not lowered the best :math:`J` by more than ``tol`` (``tol=None``: run all
``max_iter`` epochs), through :func:`jaxclassic._solver.iterate`. scikit-learn uses the running
average of the per-row objective during the epoch instead of :math:`J` at its end.

**Zero weights.** Rows of weight 0 appended after the others (the estimator layer's padding)
change nothing: same order of the other rows, same batches, same :math:`t`, same :math:`J`; the
fit is identical. Zero-weight rows elsewhere shift the row priorities (another order, the same
optimum).

**Continuing** (:func:`partial_fit_sgd_classifier`): ``params`` carries scikit-learn's ``t_``
(updates so far + 1) and the epochs run; one call is one more epoch from there, so ``k`` calls on
the same data equal :func:`fit_sgd_classifier` with ``max_iter=k, tol=None`` and the same key
(with an L1 part, up to the cumulative penalty, which restarts at each call as scikit-learn's).

**Sparse X** (``scipy.sparse``, CSR or CSC): the rows are held as the row-batched BCOO of
:func:`jaxclassic._sparse.to_rows` (``(n, k)`` values and column indices, ``k`` the most values in a
row); a batch's margins are gathers :math:`\sum_j x_{ij} w_{c_{ij}}`, its gradient a scatter-add;
``X`` is never densified. The result equals the dense fit on the same data (up to the order of
floating-point sums).

References
----------
Zhang, "Solving large scale linear prediction problems using stochastic gradient descent
algorithms", ICML 2004 (modified Huber). Shalev-Shwartz, Singer & Srebro, "Pegasos", ICML 2007
(the ``1/(alpha t)`` step). Bottou, "Stochastic gradient descent tricks", in *Neural Networks:
Tricks of the Trade* (2012). Tsuruoka, Tsujii & Ananiadou, "Stochastic gradient descent training
for L1-regularized log-linear models with cumulative penalty", ACL 2009. scikit-learn, ``sklearn/linear_model/
_sgd_fast.pyx.tp`` (schedules, ``t_``, stopping rule).
"""

from __future__ import annotations

from functools import partial
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import optax

from jaxclassic import _jit, _sparse, losses
from jaxclassic._solver import iterate
from jaxclassic.linear._api import decision_function, predict, predict_proba
from jaxclassic.validation import (
    check_array,
    check_bool,
    check_choice,
    check_classification_targets,
    check_consistent_length,
    check_int,
    check_key,
    check_predict_X,
    check_sample_weight,
    check_scalar,
    is_traced,
    key_from_seed,
)

__all__ = ["SGDClassifierParams", "fit_sgd_classifier", "partial_fit_sgd_classifier",
           "sgd_classifier_objective", "LOSSES", "PENALTIES", "SCHEDULES"]

#: the margin losses (``y`` in {-1, +1}); their index is ``SGDClassifierParams.loss``
LOSSES = ("hinge", "log_loss", "modified_huber", "squared_hinge", "perceptron")
PENALTIES = ("l2", "l1", "elasticnet", None)
SCHEDULES = ("optimal", "constant", "invscaling")


class SGDClassifierParams(NamedTuple):
    """A linear classifier fitted by SGD (one-vs-rest above two classes).

    Attributes
    ----------
    coef : (n_outputs, n_features)
        ``n_outputs`` is 1 for two classes (the score of class 1), else ``n_classes``.
    intercept : (n_outputs,)
    n_iter : int32 ()
        Epochs run (the most over the one-vs-rest problems), all calls together.
    t : ()
        scikit-learn's ``t_``: updates made + 1 (the most over the problems).
    objective : (n_outputs,)
        :math:`J` of each binary problem after the last epoch.
    converged : bool ()
        Every problem met the ``tol`` rule (``False`` with ``tol=None``).
    loss : int32 ()
        Index of the loss in :data:`LOSSES` (``predict_proba`` needs it).
    """

    coef: jax.Array
    intercept: jax.Array
    n_iter: jax.Array
    t: jax.Array
    objective: jax.Array
    converged: jax.Array
    loss: jax.Array

    @property
    def n_classes(self) -> int:
        """Classes: 2 with one row of ``coef``, else its rows (one-vs-rest)."""
        return 2 if self.coef.shape[0] == 1 else int(self.coef.shape[0])


class _Rows(NamedTuple):
    """A sparse X as row-batched values ``data (n, k)`` at columns ``indices (n, k)``."""

    data: jax.Array
    indices: jax.Array


def _margin_loss(name: str):
    """The shared loss as a function of ``y`` in {-1, +1} and the margin score ``f``."""
    if name == "log_loss":
        return lambda y, f: losses.log_loss((y + 1) / 2, f)
    return getattr(losses, name)


def _scores(X, rows, coef, intercept):
    """Margins ``(len(rows), n_outputs)`` of the given rows (all rows when ``rows`` is None)."""
    if isinstance(X, _Rows):
        data = X.data if rows is None else X.data[rows]
        idx = X.indices if rows is None else X.indices[rows]
        return jnp.einsum("rk,rko->ro", data, coef.T[idx]) + intercept
    Xr = X if rows is None else X[rows]
    return Xr @ coef.T + intercept


def _penalty(coef, alpha, l1_ratio, penalty):
    rho = {"l2": 0.0, "l1": 1.0, None: 0.0}.get(penalty, l1_ratio)
    if penalty is None:
        return jnp.zeros((), coef.dtype)
    return alpha * ((1 - rho) * 0.5 * jnp.sum(jnp.square(coef)) + rho * jnp.sum(jnp.abs(coef)))


def sgd_classifier_objective(coef, intercept, X, y_pm, sample_weight, alpha, l1_ratio=0.15, *,
                             loss="hinge", penalty="l2"):
    """:math:`J(w, b)` of one binary problem: ``coef (n_features,)``, ``y_pm`` in {-1, +1}.

    ``X`` dense ``(n, d)`` (or the internal sparse rows).
    """
    f = _scores(X, None, coef[None, :], intercept[None])[:, 0]
    sw = sample_weight.astype(f.dtype)
    data = jnp.sum(sw * _margin_loss(loss)(y_pm, f)) / jnp.sum(sw)
    return data + _penalty(coef, alpha, l1_ratio, penalty)


def _optimal_init(loss, alpha):
    """scikit-learn's ``optimal_init``: :math:`1/(\\eta^{(0)}\\alpha)`."""
    typw = jnp.sqrt(1.0 / jnp.sqrt(alpha))
    slope = jax.grad(_margin_loss(loss), argnums=1)(jnp.ones_like(typw), -typw)
    return 1.0 / (typw / jnp.maximum(1.0, -slope) * alpha)


def _step_size(t, alpha, eta0, power_t, optimal_init, schedule):
    """:math:`\\eta_t` at update ``t`` (1-based), scikit-learn's three schedules."""
    if schedule == "optimal":
        return 1.0 / (alpha * (optimal_init + t - 1))
    if schedule == "invscaling":
        return eta0 / jnp.power(t, power_t)
    return eta0 * jnp.ones_like(t)


def _binary(X, y_pm, sw, coef, intercept, t_start, epoch_start, key, alpha, l1_ratio, eta0, power_t,
            tol, *, loss, penalty, schedule, batch_size, max_iter, n_iter_no_change, fit_intercept):
    """Epochs of one binary problem from ``(coef, intercept)`` at update ``t_start``."""
    n = sw.shape[0]
    dtype = coef.dtype
    batch_size = min(batch_size, n)
    n_batches = -(-n // batch_size)
    n_slots = n_batches * batch_size
    positive = sw > 0
    mean_weight = jnp.sum(sw) / jnp.sum(positive)
    rho = {"l2": 0.0, "l1": 1.0, None: 0.0}.get(penalty, l1_ratio)
    l2_part = 0.0 if penalty is None else alpha * (1 - rho)
    l1_part = 0.0 if penalty in (None, "l2") else alpha * rho
    loss_fn = _margin_loss(loss)
    optimal_init = _optimal_init(loss, alpha) if schedule == "optimal" else jnp.zeros((), dtype)
    eta = lambda t: _step_size(t, alpha, eta0, power_t, optimal_init, schedule)  # noqa: E731
    # the step of the optax state's update ``count`` (0-based) is the one of t = t_start + count
    optimizer = optax.sgd(lambda count: eta(t_start + count.astype(dtype)))
    slot_valid = jnp.arange(n_slots) < n

    def batch_loss(wb, rows, mask):
        w, b = wb
        f = _scores(X, rows, w[None, :], b[None])[:, 0]
        data = jnp.sum(sw[rows] * mask * loss_fn(y_pm[rows], f)) / (batch_size * mean_weight)
        return data + 0.5 * l2_part * jnp.sum(jnp.square(w))

    def batch_step(carry, batch):
        wb, opt_state, q, u = carry
        rows, mask = batch
        active = jnp.any((sw[rows] * mask) > 0)
        step = eta(t_start + optax.tree_utils.tree_get(opt_state, "count").astype(dtype))
        grad = jax.grad(batch_loss)(wb, rows, mask)
        if not fit_intercept:
            grad = (grad[0], jnp.zeros_like(grad[1]))
        updates, new_state = optimizer.update(grad, opt_state, wb)
        w, b = optax.apply_updates(wb, updates)
        if penalty in ("l1", "elasticnet"):
            # Tsuruoka et al.'s cumulative L1 penalty (scikit-learn's l1penalty): u is the total
            # penalty every weight could have received, q what w_j did receive; clip at 0
            u = u + step * l1_part
            z = w
            w = jnp.where(z > 0, jnp.maximum(0.0, z - (u + q)), jnp.where(z < 0, jnp.minimum(0.0, z + (u - q)), z))
            q = q + (w - z)
        new = ((w, b), new_state, q, u)
        return jax.tree_util.tree_map(lambda o, u: jnp.where(active, u, o), carry, new), None

    def objective(wb):
        return sgd_classifier_objective(wb[0], wb[1], X, y_pm, sw, alpha, l1_ratio, loss=loss,
                                        penalty=penalty)

    def epoch(carry):
        wb, opt_state, q, u, epoch_index, best, no_improvement = carry
        epoch_key = jax.random.fold_in(key, epoch_index)
        priority = jax.vmap(lambda i: jax.random.uniform(jax.random.fold_in(epoch_key, i), dtype=dtype))(
            jnp.arange(n))
        order = jnp.argsort(jnp.where(positive, priority, 2.0)).astype(jnp.int32)
        rows = jnp.pad(order, (0, n_slots - n)).reshape(n_batches, batch_size)
        mask = slot_valid.astype(dtype).reshape(n_batches, batch_size)
        (wb, opt_state, q, u), _ = jax.lax.scan(batch_step, (wb, opt_state, q, u), (rows, mask))
        value = objective(wb)
        stalled = ~(value < best - tol)  # NaN counts as no improvement
        no_improvement = jnp.where(stalled, no_improvement + 1, 0)
        best = jnp.minimum(best, value)
        # iterate stops once error <= 0: n_iter_no_change epochs in a row without improvement
        error = jnp.where(jnp.isfinite(value), (n_iter_no_change - no_improvement).astype(dtype), jnp.nan)
        return (wb, opt_state, q, u, epoch_index + 1, best, no_improvement), error

    wb0 = (coef, intercept)
    carry0 = (wb0, optimizer.init(wb0), jnp.zeros_like(coef), jnp.zeros((), dtype), epoch_start,
              jnp.asarray(jnp.inf, dtype), jnp.int32(0))
    result = iterate(epoch, carry0, max_iter=max_iter, tol=0.0, history_size=1)
    (w, b), opt_state, _, _, _, _, _ = result.carry
    t_end = t_start + optax.tree_utils.tree_get(opt_state, "count").astype(dtype)
    return w, b, result.n_iter, t_end, objective((w, b)), result.converged


_STATIC = ("loss", "penalty", "schedule", "batch_size", "max_iter", "n_iter_no_change",
           "fit_intercept", "n_classes")


@partial(_jit.jit, static_argnames=_STATIC)
def _fit(X, y, sw, coef, intercept, t_start, epoch_start, key, alpha, l1_ratio, eta0, power_t, tol, *,
         n_classes, **static):
    targets = (jnp.where(y == 1, 1.0, -1.0)[None, :] if n_classes == 2
               else jnp.where(y[None, :] == jnp.arange(n_classes)[:, None], 1.0, -1.0)).astype(coef.dtype)
    solve = lambda y_pm, w, b: _binary(X, y_pm, sw, w, b, t_start, epoch_start, key, alpha,  # noqa: E731
                                       l1_ratio, eta0, power_t, tol, **static)
    w, b, n_iter, t_end, objective, converged = jax.vmap(solve)(targets, coef, intercept)
    return w, b, epoch_start + jnp.max(n_iter), jnp.max(t_end), objective, jnp.all(converged)


def _check_X(X, dtype=None):
    """Dense X (checked) or a sparse X as its row-batched values; returns ``(X, n, d, dtype)``."""
    if type(X).__module__.startswith("jax.experimental.sparse") and getattr(X, "n_batch", 0) == 1:
        # already row-batched (to_rows; the estimator layer's "rows" layout)
        data = X.data if dtype is None else X.data.astype(dtype)
        return _Rows(data, X.indices[..., 0]), X.shape[0], X.shape[1], data.dtype
    if _sparse.is_sparse(X):
        if dtype is None:
            dtype = np.float64 if jax.config.read("jax_enable_x64") else np.float32
        rows = _sparse.to_rows(X, dtype=np.dtype(dtype))
        return _Rows(rows.data, rows.indices[..., 0]), rows.shape[0], rows.shape[1], rows.data.dtype
    X = check_array(X, "X", dtype=dtype)
    return X, X.shape[0], X.shape[1], X.dtype


def _check_hyper(loss, penalty, alpha, l1_ratio, schedule, eta0, power_t, tol, batch_size, max_iter,
                 n_iter_no_change, fit_intercept):
    check_choice(loss, "loss", LOSSES)
    if penalty not in PENALTIES:
        raise ValueError(f"penalty must be one of ['l2', 'l1', 'elasticnet', None], got {penalty!r}")
    check_choice(schedule, "learning_rate", SCHEDULES)
    check_scalar(alpha, "alpha", low=0.0, include_low=schedule != "optimal")
    check_scalar(l1_ratio, "l1_ratio", low=0.0, high=1.0)
    check_scalar(eta0, "eta0", low=0.0, include_low=schedule == "optimal")
    check_scalar(power_t, "power_t")
    if tol is not None:
        check_scalar(tol, "tol")
    check_int(batch_size, "batch_size", low=1)
    check_int(max_iter, "max_iter", low=1)
    check_int(n_iter_no_change, "n_iter_no_change", low=1)
    check_bool(fit_intercept, "fit_intercept")


def _run(X, y, sw, n_classes, init, key, *, loss, penalty, alpha, l1_ratio, learning_rate, eta0, power_t,
         tol, batch_size, max_iter, n_iter_no_change, fit_intercept):
    X, n, d, dtype = X
    key = key_from_seed(0) if key is None else check_key(key)
    n_out = 1 if n_classes == 2 else n_classes
    if init is None:
        coef, intercept = jnp.zeros((n_out, d), dtype), jnp.zeros((n_out,), dtype)
        t_start, epoch_start = jnp.ones((), dtype), jnp.int32(0)
    else:
        if init.coef.shape != (n_out, d):
            raise ValueError(f"params.coef has shape {init.coef.shape}, expected {(n_out, d)} for "
                             f"n_classes={n_classes} and {d} features")
        coef, intercept = jnp.asarray(init.coef, dtype), jnp.asarray(init.intercept, dtype)
        t_start, epoch_start = jnp.asarray(init.t, dtype), jnp.asarray(init.n_iter, jnp.int32)
    arr = lambda v: jnp.asarray(v, dtype)  # noqa: E731
    w, b, n_iter, t, objective, converged = _fit(
        X, y, sw, coef, intercept, t_start, epoch_start, key, arr(alpha), arr(l1_ratio), arr(eta0),
        arr(power_t), arr(-jnp.inf if tol is None else tol), n_classes=n_classes, loss=loss,
        penalty=penalty, schedule=learning_rate, batch_size=min(int(batch_size), n), max_iter=int(max_iter),
        n_iter_no_change=int(n_iter_no_change), fit_intercept=bool(fit_intercept))
    if tol is None:
        converged = jnp.zeros((), bool)
    return SGDClassifierParams(w, b, n_iter, t, objective, converged, jnp.int32(LOSSES.index(loss)))


def fit_sgd_classifier(X, y, *, loss: str = "hinge", penalty="l2", alpha: float = 0.0001,
                       l1_ratio: float = 0.15, fit_intercept: bool = True, max_iter: int = 1000,
                       tol=0.001, learning_rate: str = "optimal", eta0: float = 0.01,
                       power_t: float = 0.5, n_iter_no_change: int = 5, batch_size: int = 1,
                       n_classes: int | None = None, sample_weight=None, key=None) -> SGDClassifierParams:
    r"""Fit a linear classifier by SGD on scikit-learn's ``SGDClassifier`` objective (module docstring).

    Parameters
    ----------
    X : (n_samples, n_features) array-like or scipy.sparse matrix
        A sparse matrix is never densified (row-batched values, module docstring).
    y : (n_samples,) int
        Class codes ``0..n_classes-1``; above two classes, one-vs-rest (one problem per class).
    loss : {"hinge", "log_loss", "modified_huber", "squared_hinge", "perceptron"}
    penalty : {"l2", "l1", "elasticnet", None}
    alpha : float >= 0 (> 0 for ``learning_rate="optimal"``)
        Penalty weight :math:`\alpha` (traced).
    l1_ratio : float in [0, 1]
        :math:`\rho` of ``"elasticnet"`` (traced).
    fit_intercept : bool
    max_iter : int >= 1
        Most epochs (static).
    tol : float or None
        Stop after ``n_iter_no_change`` epochs whose objective is not below the best by ``tol``
        (traced); ``None`` runs ``max_iter`` epochs.
    learning_rate : {"optimal", "constant", "invscaling"}
        The schedule of :math:`\eta_t` (scikit-learn's name).
    eta0, power_t : float
        :math:`\eta_0` and :math:`p` of ``"constant"`` / ``"invscaling"`` (traced).
    n_iter_no_change : int >= 1
    batch_size : int >= 1
        Rows per update (static; capped at ``n_samples``); 1 is scikit-learn's algorithm.
    n_classes : int, optional
        Default ``max(y) + 1``.
    sample_weight : (n_samples,) array-like, optional
    key : jax.random key, optional
        Drives the row order of every epoch; default ``jax.random.key(0)``.

    Returns
    -------
    SGDClassifierParams

    Example
    -------
    >>> import jax, jax.numpy as jnp
    >>> X = jax.random.normal(jax.random.key(0), (64, 2)); y = (X[:, 0] > 0).astype(jnp.int32)
    >>> params = fit_sgd_classifier(X, y, loss="log_loss", max_iter=20)
    >>> float((predict(params, X) == y).mean()) > 0.9
    True

    References
    ----------
    Zhang (2004); Shalev-Shwartz, Singer & Srebro (2007); Bottou (2012); Tsuruoka et al. (2009).
    """
    _check_hyper(loss, penalty, alpha, l1_ratio, learning_rate, eta0, power_t, tol, batch_size, max_iter,
                 n_iter_no_change, fit_intercept)
    Xc = _check_X(X)
    sw = check_sample_weight(sample_weight, Xc[1], dtype=Xc[3])
    y, n_classes = check_classification_targets(y, "y", n_classes=n_classes, sample_weight=sw)
    check_consistent_length(X=np.empty((Xc[1], 0)), y=y)
    return _run(Xc, y, sw, n_classes, None, key, loss=loss, penalty=penalty, alpha=alpha, l1_ratio=l1_ratio,
                learning_rate=learning_rate, eta0=eta0, power_t=power_t, tol=tol, batch_size=batch_size,
                max_iter=max_iter, n_iter_no_change=n_iter_no_change, fit_intercept=fit_intercept)


def partial_fit_sgd_classifier(params: SGDClassifierParams | None, X, y, *, n_classes: int,
                               loss: str = "hinge", penalty="l2", alpha: float = 0.0001,
                               l1_ratio: float = 0.15, fit_intercept: bool = True,
                               learning_rate: str = "optimal", eta0: float = 0.01, power_t: float = 0.5,
                               batch_size: int = 1, sample_weight=None, key=None) -> SGDClassifierParams:
    r"""One more epoch of SGD over the batch ``(X, y)`` from ``params`` (``None``: from zero).

    ``params -> params``: the update count ``t`` and the epoch count ride in the params, so the
    step schedule continues where it stopped (scikit-learn's ``partial_fit``). ``n_classes`` is
    required (a batch may hold fewer classes). The epoch's row order is drawn from ``key``
    folded with the epoch number, so ``k`` calls on the same data equal
    ``fit_sgd_classifier(..., max_iter=k, tol=None)`` with the same key (L2 or no penalty; the L1
    part's cumulative penalty restarts at each call, as scikit-learn's). One compiled program per
    batch shape.

    Parameters
    ----------
    params : SGDClassifierParams or None
        The model so far (``None``: zeros, ``t = 1``).
    X : (n_samples, n_features) array-like or scipy.sparse matrix
    y : (n_samples,) int
        Class codes ``0..n_classes-1`` (a batch may hold one class only).
    n_classes : int >= 2
    loss, penalty, alpha, l1_ratio, fit_intercept, learning_rate, eta0, power_t, batch_size, sample_weight, key
        As :func:`fit_sgd_classifier`.

    Returns
    -------
    SGDClassifierParams
        ``n_iter`` and ``t`` advanced by one epoch over the batch.

    Example
    -------
    >>> import jax, jax.numpy as jnp
    >>> X = jax.random.normal(jax.random.key(0), (64, 2)); y = (X[:, 0] > 0).astype(jnp.int32)
    >>> params = None
    >>> for start in (0, 32):
    ...     params = partial_fit_sgd_classifier(params, X[start:start + 32], y[start:start + 32], n_classes=2)
    >>> int(params.n_iter)
    2
    """
    _check_hyper(loss, penalty, alpha, l1_ratio, learning_rate, eta0, power_t, None, batch_size, 1, 1,
                 fit_intercept)
    n_classes = check_int(n_classes, "n_classes", low=2)
    dtype = None if params is None else np.asarray(params.coef).dtype
    Xc = _check_X(X, dtype)
    sw = check_sample_weight(sample_weight, Xc[1], dtype=Xc[3])
    y, _ = check_classification_targets(y, "y", n_classes=n_classes, min_classes=1, sample_weight=sw)
    check_consistent_length(X=np.empty((Xc[1], 0)), y=y)
    return _run(Xc, y, sw, n_classes, params, key, loss=loss, penalty=penalty, alpha=alpha, l1_ratio=l1_ratio,
                learning_rate=learning_rate, eta0=eta0, power_t=power_t, tol=None, batch_size=batch_size,
                max_iter=1, n_iter_no_change=1, fit_intercept=fit_intercept)


# --------------------------------------------------------------------------- prediction
def _decision(params: SGDClassifierParams, X):
    """Margins: ``(n,)`` for two classes (positive: class 1), else ``(n, n_classes)``."""
    if _sparse.is_sparse(X):
        Xs = X if type(X).__module__.startswith("jax.experimental.sparse") and X.n_batch == 0 \
            else _sparse.to_bcoo(X, dtype=np.asarray(params.coef).dtype)
        scores = Xs @ jnp.asarray(params.coef).T + params.intercept
    else:
        X = check_predict_X(X, params.coef.dtype, params.coef.shape[1])
        scores = _decision_jit(params.coef, params.intercept, X)
    return scores[:, 0] if params.coef.shape[0] == 1 else scores


@_jit.jit
def _decision_jit(coef, intercept, X):
    return X @ coef.T + intercept


def _predict(params: SGDClassifierParams, X):
    scores = _decision(params, X)
    if scores.ndim == 1:
        return (scores > 0).astype(jnp.int32)
    return jnp.argmax(scores, axis=1).astype(jnp.int32)


def _proba(params: SGDClassifierParams, X):
    r"""scikit-learn's probabilities: ``log_loss`` :math:`\sigma(f)`, ``modified_huber``
    :math:`(\operatorname{clip}(f, -1, 1) + 1)/2`; above two classes one-vs-rest, normalised
    (rows whose every class has probability 0 under ``modified_huber``: uniform)."""
    loss = LOSSES[int(params.loss)] if not is_traced(params.loss) else None
    if loss not in ("log_loss", "modified_huber"):
        raise ValueError(f"predict_proba needs loss='log_loss' or 'modified_huber', got {loss!r}")
    scores = _decision(params, X)
    p = jax.nn.sigmoid(scores) if loss == "log_loss" else (jnp.clip(scores, -1, 1) + 1) / 2
    if scores.ndim == 1:
        return jnp.stack([1 - p, p], axis=1)
    total = jnp.sum(p, axis=1, keepdims=True)
    return jnp.where(total > 0, p / jnp.where(total > 0, total, 1), 1.0 / p.shape[1])


decision_function.register(SGDClassifierParams, _decision)
predict.register(SGDClassifierParams, _predict)
predict_proba.register(SGDClassifierParams, _proba)
