r"""Multinomial (softmax) logistic regression: Newton's method or L-BFGS.

Objective, with class codes :math:`y_i \in \{0, \dots, C-1\}`, weights :math:`s_i`, scores
:math:`F_i = W x_i + b \in \mathbb{R}^C` and the shared loss
:func:`jaxclassic.losses.softmax_cross_entropy`
:math:`\ell(y, F) = \operatorname{logsumexp}(F) - F_y`,

.. math::

    J(W, b) = \sum_i s_i\,\ell(y_i, W x_i + b) + \frac{\lambda}{2}\lVert W\rVert_F^2,

summed, intercepts unpenalised, every class penalised (the symmetric parametrisation of
scikit-learn's multinomial ``LogisticRegression``, whose ``C`` is :math:`1/\lambda`).

Newton's method. With :math:`\tilde x = (x, 1)` and per-sample derivatives in the score
:math:`G_i = \nabla_F\ell` and :math:`A_i = \nabla_F^2\ell` (autodiff of the shared loss
through :func:`jaxclassic.losses.grad_hess`; by hand :math:`G_i = p_i - e_{y_i}`,
:math:`A_i = \operatorname{diag}(p_i) - p_ip_i^\top`), the gradient and the
:math:`C(d+1)\times C(d+1)` Hessian are

.. math::

    \nabla_{B_a} J = \sum_i s_i G_{ia}\,\tilde x_i + \lambda (w_a, 0), \qquad
    \nabla^2_{B_a B_b} J = \tilde X^\top \operatorname{diag}(s \odot A_{\cdot ab})\,\tilde X
    + \lambda [a = b]\,\mathrm{diag}(I, 0),

one :math:`(d+1)\times(d+1)` weighted product per class pair :math:`a \le b` (the rest by
symmetry), all of them one matrix product of the (pairs, n) weights with the packed row
outer products :math:`\operatorname{triu}(\tilde x_i\tilde x_i^\top)`
(:func:`jaxclassic.linear._gram.weighted_outer_sums`). The step is a Cholesky solve
with step halving on :math:`J`, as in :mod:`jaxclassic.linear.logistic`.

The softmax is over-parameterised: adding one vector to every class's
:math:`(w_c, b_c)` leaves the probabilities unchanged, so the loss Hessian is singular along
:math:`\mathbf 1_C \otimes e_j`. The intercept directions stay singular for any
:math:`\lambda` (intercepts are unpenalised), the weight directions when :math:`\lambda = 0`.
The Newton system adds :math:`\mu\,\tfrac1C(\mathbf 1\mathbf 1^\top \otimes E)` on those
directions (:math:`E` selects all weight directions, and the intercepts' when fitted;
:math:`\mu` the mean Hessian diagonal; with :math:`\lambda > 0` the penalty alone holds the
weight directions, but in the standardised basis a column of large scale makes it fall
below the rounding of the data term in float32). The gradient is
orthogonal to them (:math:`\sum_a G_{ia} = 0`), so this gives the minimum-norm Newton step
whatever :math:`\mu` is: starting from centred parameters the iterates stay centred,
:math:`\sum_c w_c = 0` and :math:`\sum_c b_c = 0` — the solution scikit-learn reports.

The Newton loop is the one of :func:`jaxclassic.linear._newton.newton_solve` (shared with
:mod:`jaxclassic.linear.logistic`): it runs in the standardised basis of the columns (weighted
centring and scaling, mapped back exactly; the stopping rule is on the gradient in that
basis) and flags complete and quasi-complete separation when ``l2 = 0``.

A class without training rows. With ``n_classes`` larger than the classes present (or a
class whose rows all have weight 0) and an intercept fitted, :math:`J` has no minimiser for
any :math:`\lambda`: the class's probability on every training row is best 0, so its
(unpenalised) intercept runs to :math:`-\infty` (the others to :math:`+\infty/(C-1)`, centred).
The gradient vanishes along that direction all the same, so the loop meets ``tol`` at a finite
intercept that depends on ``tol``, ``max_iter`` and the method (-9 to -20 on 30 rows, float32
and float64, Newton and L-BFGS), and used to report ``converged=True``. That class is
separated from the rest by every point, the degenerate case of separation, and is reported as
separation is (:mod:`jaxclassic.linear.logistic`): ``separated=True``, ``converged=False``, and
outside ``jit``/``vmap`` :func:`fit_softmax` warns with
:class:`~jaxclassic.exceptions.PerfectSeparationWarning` naming the class codes. Under
``jit``/``vmap`` (a batch of folds, say) nothing can be warned: read ``separated`` /
``converged`` per fit. Without an intercept the class is not flagged: its weights then have a
finite optimum whenever :math:`\lambda > 0` (the penalty holds them), and at
:math:`\lambda = 0` the separation test above applies as for any data.

``method="auto"`` uses Newton while :math:`C(d+1) \le 200` (``NEWTON_MAX_PARAMS``, measured:
the dense :math:`C(d+1)\times C(d+1)` Hessian stops paying beyond it) and ``optax.lbfgs``
beyond.

Derivatives. ``coef`` and ``intercept`` are differentiable with respect to ``X``,
``sample_weight`` and ``l2`` by the implicit function theorem (:mod:`jaxclassic._implicit`)
at :math:`\nabla J(B) + \mathbf 1_C\bar B = 0` (:func:`_optimality`: the gradient plus a
term pinning the over-parameterised directions to the centred solution), so the
derivatives are those of the centred solution and sum to 0 over the classes. They are
taken at the returned solution: at an unconverged fit (``converged`` False) they are not
those of the optimum, and nothing says so but ``converged``.

References
----------
Hastie, Tibshirani & Friedman, *The Elements of Statistical Learning*, 2nd ed., §4.4.
Bishop, *Pattern Recognition and Machine Learning*, §4.3.4 (multiclass logistic regression,
its Hessian, eq. 4.110).
"""

from __future__ import annotations

from functools import partial
import warnings
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import optax

from jaxclassic import _jit, _precision, _sparse, losses
from jaxclassic.exceptions import PerfectSeparationWarning
from jaxclassic._implicit import with_implicit_derivatives
from jaxclassic._solver import minimize_optax
from jaxclassic.linear._api import decision_function, predict, predict_proba
from jaxclassic.linear._gram import standardized_matmul, standardized_rmatmul, weighted_outer_sums
from jaxclassic.linear._newton import (
    HISTORY_SIZE,
    NewtonProblem,
    default_tol,
    newton_solve,
    column_scaling,
    warn_after_fit,
    weighted_sum,
)
from jaxclassic.validation import (
    check_bool,
    check_choice,
    check_classifier_data,
    check_int,
    check_predict_X,
    check_scalar,
    is_traced,
)

__all__ = ["SoftmaxParams", "fit_softmax", "softmax_objective", "softmax_grad_hess"]

METHODS = ("auto", "newton", "lbfgs")
#: largest C * (d + 1) for which ``method="auto"`` picks Newton. Measured on this project's
#: 2-core CPU (n = 2000): Newton 2.2 / 8.7 / 45 ms against L-BFGS 2.0 / 4.7 / 8.2 ms at
#: C(d+1) = 33 / 210 / 650; the dense (C(d+1))^2 Hessian stops paying beyond about 200.
NEWTON_MAX_PARAMS = 200


class SoftmaxParams(NamedTuple):
    """A fitted multinomial logistic regression :math:`P(y=c\\mid x) = \\mathrm{softmax}(Wx+b)_c`.

    Attributes
    ----------
    coef : (n_classes, n_features) array
        :math:`W`, centred over classes (:math:`\\sum_c w_c = 0`).
    intercept : (n_classes,) array
        :math:`b`, centred over classes (0 without ``fit_intercept``).
    n_iter : int32 scalar
    converged : bool scalar
    grad_norm_history : (HISTORY_SIZE,) array
        :math:`\\lVert\\nabla J\\rVert_F / \\sum s` after each iteration (Newton: in the
        standardised basis); ``HISTORY_SIZE = 100`` is static, iterations past it overwrite
        the last entry (the final norm).
    separated : bool scalar
        ``l2 == 0`` and every training row's own class has the strictly largest score
        (complete separation), or some rows' own-class probabilities are within
        :math:`\\sqrt{\\mathrm{eps}}` of 1 while Newton still moves the parameters by a
        sizeable step (quasi-complete separation, Newton only); or, for any ``l2``, a class
        has no training row of positive weight while an intercept is fitted (its intercept's
        optimum is :math:`-\\infty`; module docstring). ``converged`` is then False.
    """

    coef: jax.Array
    intercept: jax.Array
    n_iter: jax.Array
    converged: jax.Array
    grad_norm_history: jax.Array
    separated: jax.Array

    @property
    def n_classes(self) -> int:
        """The number of classes ``C``, a Python int read from the class axis of ``intercept`` (not a pytree leaf)."""
        return int(self.intercept.shape[-1])



def softmax_objective(coef, intercept, X, y, *, l2=0.0, sample_weight=None):
    r""":math:`J(W, b) = \sum_i s_i \ell(y_i, Wx_i + b) + \tfrac{\lambda}{2}\lVert W\rVert_F^2`."""
    X = jnp.asarray(X)
    scores = _precision.matmul(X, coef.T) + intercept
    sw = jnp.ones(X.shape[0], scores.dtype) if sample_weight is None else sample_weight
    return weighted_sum(sw, losses.softmax_cross_entropy(y, scores)) + 0.5 * l2 * jnp.sum(coef**2)


def _pairs(n_classes: int):
    ia, ib = np.triu_indices(n_classes)
    return ia.astype(np.int32), ib.astype(np.int32)


def _gradient(B, scores, X, y, sw, penalty, fit_intercept, mean=None, scale=None):
    """Gradient ``(C, d+1)`` of J at ``B = [W, b]`` given the scores: one pass over X.
    ``penalty``: the L2 weight of each feature's coefficients (a scalar or (d,))."""
    d = X.shape[1]
    G, _ = losses.grad_hess(losses.softmax_cross_entropy, y, scores)  # autodiff, (n, C)
    sG = jnp.where((sw > 0)[:, None], sw[:, None] * G, 0)
    fi = jnp.asarray(fit_intercept, X.dtype)
    if mean is None:
        product = _precision.matmul(sG.T, X)
    else:  # the standardised basis Z = (X - mean) / scale, formed block by block
        product = standardized_rmatmul(sG, X, mean, scale)
    return jnp.concatenate([product + penalty * B[:, :d],
                            fi * jnp.sum(sG, axis=0)[:, None]], axis=1)


def _hessian(scores, X, y, sw, penalty, fit_intercept, mean=None, scale=None):
    """Hessian ``(C(d+1), C(d+1))`` of J given the scores (without the null-space term)."""
    n, d = X.shape
    n_classes = scores.shape[1]
    _, A = losses.grad_hess(losses.softmax_cross_entropy, y, scores, full_hessian=True)
    sA = jnp.where((sw > 0)[:, None, None], sw[:, None, None] * A, 0)
    fi = jnp.asarray(fit_intercept, X.dtype)
    ia, ib = _pairs(n_classes)
    # every class pair's (d+1) x (d+1) block [X, 1]^T diag(s A_ab) [X, 1] in ONE matrix
    # product of the (pairs, n) weights with the packed row outer products of [X, 1]
    upper = weighted_outer_sums(X, sA[:, ia, ib].T, mean, scale)  # (P, d+1, d+1)
    keep = jnp.concatenate([jnp.ones((d,), X.dtype), fi[None]])  # no intercept: zero it
    upper = upper * keep[:, None] * keep[None, :]
    blocks = jnp.zeros((n_classes, n_classes, d + 1, d + 1), X.dtype)
    blocks = blocks.at[ib, ia].set(jnp.swapaxes(upper, 1, 2)).at[ia, ib].set(upper)
    size = n_classes * (d + 1)
    hess = jnp.swapaxes(blocks, 1, 2).reshape(size, size)
    # penalty on the weights; a fixed intercept (no fit_intercept) gets an identity row
    per_coord = jnp.concatenate([jnp.broadcast_to(penalty, (d,)).astype(X.dtype), (1 - fi)[None]])
    return hess + jnp.diag(jnp.tile(per_coord, n_classes))


def _regularise_null_space(hess, fit_intercept, n_classes, d):
    """Add mu/C (11^T kron E) on the directions that leave the softmax unchanged (all of
    them: with l2 > 0 the weights' ones carry only the penalty, which in the standardised
    basis can be below the rounding of the data term)."""
    dtype = hess.dtype
    mask = jnp.concatenate([jnp.ones((d,), bool), jnp.asarray([fit_intercept])]).astype(dtype)
    mu = jnp.mean(jnp.abs(jnp.diagonal(hess)))
    null = jnp.kron(jnp.ones((n_classes, n_classes), dtype) / n_classes, jnp.diag(mask))
    return hess + mu * null


def softmax_grad_hess(coef, intercept, X, y, *, l2=0.0, sample_weight=None, fit_intercept=True):
    r"""Gradient ``(C, d+1)`` and Hessian ``(C(d+1), C(d+1))`` of :math:`J` in ``[W, b]``.

    Row-major over ``[W, b]``: entry ``a * (d + 1) + j`` is class ``a``, feature ``j``
    (``j = d`` the intercept). Without the null-space term (that is added inside the fit).
    """
    X = jnp.asarray(X)
    sw = jnp.ones(X.shape[0], X.dtype) if sample_weight is None else jnp.asarray(sample_weight, X.dtype)
    B = jnp.concatenate([coef, intercept[:, None]], axis=1).astype(X.dtype)
    scores = _precision.matmul(X, coef.T) + intercept
    y, l2 = jnp.asarray(y), jnp.asarray(l2, X.dtype)
    return (_gradient(B, scores, X, y, sw, l2, fit_intercept),
            _hessian(scores, X, y, sw, l2, fit_intercept))


def _own_class_margins(scores, y):
    """Own score minus the largest other score, per row (positive: the row is classified right)."""
    own = jnp.take_along_axis(scores, y[:, None], axis=1)[:, 0]
    others = jnp.where(jax.nn.one_hot(y, scores.shape[1], dtype=bool), -jnp.inf, scores)
    return own - jnp.max(others, axis=1)


def _fit_newton(X, y, sw, l2, tol, b0, max_iter, *, fit_intercept):
    """Newton (the shared loop of ``_newton.newton_solve``) in the standardised basis
    ``Z = (X - mean) / scale``; returns ``B = [W, b]`` on the input scale and the report."""
    n, d = X.shape
    n_classes = b0.shape[0]
    mean, scale = column_scaling(X, sw, fit_intercept)  # Z is never formed (_newton)
    penalty = l2 / jnp.square(scale)  # lambda/2 |W|^2 with W = W_Z / scale
    fi = jnp.asarray(fit_intercept, X.dtype)

    def scores(B):
        return standardized_matmul(X, mean, scale, B[:, :d].T) + fi * B[:, d]

    def objective(B, F):
        data = weighted_sum(sw, losses.softmax_cross_entropy(y, F))
        return data + 0.5 * jnp.sum(penalty * B[:, :d] ** 2)

    def derivatives(B, F):
        return _gradient(B, F, X, y, sw, penalty, fit_intercept, mean, scale), F

    def hessian(F):
        hess = _hessian(F, X, y, sw, penalty, fit_intercept, mean, scale)
        return _regularise_null_space(hess, fit_intercept, n_classes, d)

    problem = NewtonProblem(scores, objective, derivatives, hessian,
                            lambda F: _own_class_margins(F, y))
    B0 = jnp.zeros((n_classes, d + 1), X.dtype).at[:, d].set(b0)
    res = newton_solve(problem, B0, sw, l2 == 0, max_iter=max_iter, tol=tol,
                       F0=jnp.broadcast_to(b0, (n, n_classes)))  # W0 = 0: no pass over X
    # the optimum (and the minimum-norm one when l2 = 0) is centred over classes; the
    # iterates are up to rounding: remove it (the probabilities do not change)
    B = res.B - jnp.mean(res.B, axis=0)
    W = B[:, :d] / scale
    b = fi * (B[:, d] - _precision.matmul(W, mean))
    return jnp.concatenate([W, b[:, None]], axis=1), res


def _optimality(B, X, y, sw, l2, *, fit_intercept):
    r"""The fit's optimality condition, for :mod:`jaxclassic._implicit`:
    :math:`\nabla J(B) + \mathbf 1_C \bar B = 0` with :math:`\bar B` the mean of ``B``'s rows.

    :math:`\nabla J` alone is singular along the over-parameterisation
    :math:`\mathbf 1_C\otimes e_j` (module docstring) and orthogonal to it at a centred
    ``B``; the mean term pins those directions to the centred solution the fit returns
    (:math:`\sum_c w_c = 0`, :math:`\sum_c b_c = 0`), so the condition's Jacobian
    :math:`\nabla^2 J + \tfrac1C\mathbf 1\mathbf 1^\top\otimes I` is invertible and the
    derivatives are those of the centred solution. Without an intercept the intercept
    entries are :math:`b` (held at 0). Weights multiply the loss plainly (no ``where``): the
    derivative with respect to a weight of 0 is the one-sided one of adding the row."""
    d = X.shape[1]
    fi = jnp.asarray(fit_intercept, X.dtype)

    def objective(B):
        scores = _precision.matmul(X, B[:, :d].T) + fi * B[:, d]
        return (jnp.sum(sw * losses.softmax_cross_entropy(y, scores))
                + 0.5 * l2 * jnp.sum(jnp.square(B[:, :d])) + 0.5 * (1 - fi) * jnp.sum(B[:, d] ** 2))

    return jax.grad(objective)(B) + jnp.mean(B, axis=0)


@partial(_jit.jit, static_argnames=("n_classes", "method", "fit_intercept"))
def _fit_softmax(X, y, sw, l2, tol, max_iter, *, n_classes, method, fit_intercept):
    # the solver runs on stopped inputs; derivatives of (coef, intercept) with respect to X,
    # sample_weight and l2 come from the optimality condition (implicit function theorem)
    frozen = jax.lax.stop_gradient((X, sw, l2))
    params = _solve_softmax(frozen[0], y, *frozen[1:], tol, max_iter, n_classes=n_classes,
                            method=method, fit_intercept=fit_intercept)
    B = jnp.concatenate([params.coef, params.intercept[:, None]], axis=1)
    B = with_implicit_derivatives(partial(_optimality, fit_intercept=fit_intercept), B, X, y,
                                  sw.astype(X.dtype), jnp.asarray(l2, X.dtype))
    return params._replace(coef=B[:, :-1], intercept=B[:, -1])


def _solve_softmax(X, y, sw, l2, tol, max_iter, *, n_classes, method, fit_intercept):
    dtype = X.dtype
    n, d = X.shape
    l2 = jnp.asarray(l2, dtype)
    tol = jnp.asarray(tol, dtype)
    # W0 = 0, intercepts at the centred log class frequencies
    counts = jnp.zeros(n_classes, dtype).at[y].add(jnp.where(sw > 0, sw, 0))
    log_prior = jnp.log(jnp.clip(counts / jnp.sum(sw), 1e-3, 1.0))
    b0 = jnp.where(fit_intercept, log_prior - jnp.mean(log_prior), 0).astype(dtype)
    # a class without rows of positive weight: its intercept's optimum is -inf (any l2)
    absent = jnp.asarray(fit_intercept) & jnp.any(counts <= 0)
    if method == "newton":
        B, res = _fit_newton(X, y, sw, l2, tol, b0, max_iter, fit_intercept=fit_intercept)
        return SoftmaxParams(B[:, :d], B[:, d], res.n_iter, res.converged & ~absent, res.history,
                             res.separated | absent)
    total = jnp.sum(sw)
    fi = jnp.asarray(fit_intercept, dtype)
    B0 = jnp.zeros((n_classes, d + 1), dtype).at[:, d].set(b0)

    def fun(B):
        return softmax_objective(B[:, :d], fi * B[:, d], X, y, l2=l2, sample_weight=sw) / total

    res = minimize_optax(fun, B0, optax.lbfgs(), max_iter=max_iter, tol=tol,
                         history_size=HISTORY_SIZE)
    B = res.carry[0].at[:, d].multiply(fi)
    scores = _precision.matmul(X, B[:, :d].T) + B[:, d]
    separated = ((l2 == 0) & jnp.all((_own_class_margins(scores, y) > 0) | (sw <= 0))) | absent
    return SoftmaxParams(B[:, :d], B[:, d], res.n_iter, res.converged & ~separated, res.history,
                         separated)


def _choose_method(n_classes: int, n_features: int) -> str:
    """``"newton"`` while ``n_classes * (n_features + 1) <= NEWTON_MAX_PARAMS``, else ``"lbfgs"``."""
    return "newton" if n_classes * (n_features + 1) <= NEWTON_MAX_PARAMS else "lbfgs"


def fit_softmax(
    X,
    y,
    *,
    n_classes: int | None = None,
    l2=0.0,
    fit_intercept: bool = True,
    method: str = "auto",
    max_iter: int = 100,
    tol=None,
    sample_weight=None,
    key=None,
    penalty: str = "l2",
    l1_ratio=None,
) -> SoftmaxParams:
    r"""Fit multinomial logistic regression (summed weighted cross-entropy + L2 on ``W``).

    .. math::
        J(W, b) = \sum_i s_i\Bigl[\log\sum_c e^{F_{ic}} - F_{i y_i}\Bigr]
                  + \frac{\lambda}{2}\lVert W\rVert_F^2, \qquad F_i = W x_i + b.

    Parameters
    ----------
    X : (n_samples, n_features) array
    y : (n_samples,) int array of class codes 0..C-1
    n_classes : int, optional
        C (static); inferred as ``max(y) + 1`` when ``y`` is concrete, required under tracing.
    l2 : float >= 0
        :math:`\lambda` (= 1/C of scikit-learn's multinomial ``LogisticRegression``; traced,
        cast to ``X``'s dtype: a new value, int or float, does not recompile).
    fit_intercept : bool
    method : {"auto", "newton", "lbfgs"}
        ``"auto"``: Newton while ``n_classes * (n_features + 1) <= 200``, else L-BFGS.
        ``method``'s default differs from the estimator's: ``LogisticRegression(method="newton")``
        is its binary solver, and the estimator runs this fit with ``"auto"`` for it (Newton
        while the system is small), as ``SoftmaxRegression(method="auto")`` does.
    max_iter : int
        Iteration limit (traced: a new value does not recompile).
    tol : float, optional
        Stop when :math:`\lVert\nabla J\rVert_F/\sum s \le` ``tol`` (Newton: the gradient in
        the standardised basis of the columns); default ``1e-8`` in float64, ``1e-6`` in
        float32.
    sample_weight : (n_samples,) array, optional
    key : unused (the fit is deterministic); accepted for the common signature.
    penalty : {"l2", "l1", "elasticnet"}, default "l2"
        As :func:`jaxclassic.linear.fit_logistic`'s: with ``"l1"`` / ``"elasticnet"`` the penalty
        is :math:`\lambda(\rho\lVert W\rVert_1 + \tfrac{1-\rho}{2}\lVert W\rVert_F^2)`, ``l2`` its
        strength :math:`\lambda` (scikit-learn's multinomial ``LogisticRegression(C=1/l2,
        l1_ratio=rho)``), fitted by proximal Newton (``"newton"``; ``"auto"`` while
        ``n_classes * (n_features + 1) <= 2000`` on dense ``X``) or else FISTA (``"auto"``: a
        sparse ``X`` is never densified), :mod:`jaxclassic.linear.logistic_l1`; not differentiable.
    l1_ratio : float in [0, 1], optional
        :math:`\rho` of ``"elasticnet"``.
        ``l1_ratio``'s default differs from the estimator's: ``LogisticRegression(l1_ratio=0.0)``
        picks the penalty from it, here ``penalty`` does.
        ``penalty``'s default differs from the estimator's: scikit-learn 1.9 deprecates the
        estimator's ``penalty`` (its default is the sentinel ``"deprecated"``).

    Returns
    -------
    SoftmaxParams

    Warns
    -----
    PerfectSeparationWarning
        ``l2 == 0`` and the classes are completely or quasi-completely separated; or a class
        of ``range(n_classes)`` has no training row of positive weight and an intercept is
        fitted (any ``l2``; the message names the class codes). Either way ``separated`` is
        True and ``converged`` False. Warnings are raised after the jitted fit returns, so
        not inside ``jit``/``vmap``: there read the two fields.
    ConvergenceWarning
        ``tol`` not met within ``max_iter`` or a line-search step was refused.

    Examples
    --------
    >>> import jax.numpy as jnp
    >>> from jaxclassic.linear import fit_softmax, predict
    >>> X = jnp.array([[0.0], [1.0], [2.0], [3.0], [4.0], [5.0]])
    >>> params = fit_softmax(X, jnp.array([0, 0, 1, 1, 2, 2]), l2=1.0)
    >>> params.coef.shape
    (3, 1)

    References
    ----------
    Bishop, *Pattern Recognition and Machine Learning*, §4.3.4.
    """
    method = check_choice(method, "method", METHODS)
    max_iter = check_int(max_iter, "max_iter", low=1)
    fit_intercept = check_bool(fit_intercept, "fit_intercept")
    from jaxclassic.linear.logistic import PENALTIES, _check_l1_ratio

    penalty = check_choice(penalty, "penalty", PENALTIES)
    l1_ratio = _check_l1_ratio(penalty, l1_ratio)
    if penalty != "l2" and method == "lbfgs":
        raise ValueError(f"penalty={penalty!r} is fitted by proximal Newton: method must be 'auto' or "
                         "'newton', got 'lbfgs'")
    sparse_l1 = _sparse.is_sparse(X) and penalty != "l2" and method == "auto"
    if _sparse.is_sparse(X) and not sparse_l1:  # L-BFGS on a BCOO (jaxclassic.linear._sparse_fits)
        if method != "newton" and penalty == "l2":
            from jaxclassic.linear._sparse_fits import fit_softmax_sparse

            return fit_softmax_sparse(X, y, n_classes=n_classes, l2=l2, fit_intercept=fit_intercept,
                                      max_iter=max_iter, tol=tol, sample_weight=sample_weight)
        X = _sparse.densify(X, model=f"fit_softmax(method={method!r}, penalty={penalty!r})")
    if sparse_l1:  # FISTA on the BCOO: never densified
        from jaxclassic.linear._sparse_fits import _check_sparse_classifier_data

        X, y, sw, n_classes = _check_sparse_classifier_data(X, y, sample_weight, n_classes=n_classes)
    else:
        X, y, sw, n_classes = check_classifier_data(X, y, sample_weight, n_classes=n_classes)
    l2 = check_scalar(l2, "l2", low=0.0)
    tol = default_tol(X.dtype) if tol is None else check_scalar(tol, "tol", low=0.0)
    if penalty != "l2":
        from jaxclassic.linear import logistic_l1

        args = (X, y, sw.astype(X.dtype), jnp.asarray(l2, X.dtype),
                jnp.asarray(1.0 if penalty == "l1" else l1_ratio, X.dtype), jnp.asarray(tol, X.dtype),
                jnp.asarray(max_iter, jnp.int32))
        small = n_classes * (X.shape[1] + 1) <= logistic_l1.L1_NEWTON_MAX_PARAMS
        if method == "newton" or (not sparse_l1 and small):  # proximal Newton, else FISTA
            params = logistic_l1._fit_softmax_l1(*args, n_classes=n_classes, fit_intercept=fit_intercept)
        else:
            params = logistic_l1._fit_proximal_gradient(*args, n_classes=n_classes,
                                                        fit_intercept=fit_intercept)
        model = f"fit_softmax(penalty={penalty!r})"
        if not _warn_absent_classes(params, y, sw, model, fit_intercept):
            warn_after_fit(params, model, l2, max_iter)
        return params
    if method == "auto":
        method = _choose_method(n_classes, X.shape[1])
    # l2 / tol as arrays of X's dtype and max_iter traced: one compiled program for all values
    params = _fit_softmax(X, y, sw, jnp.asarray(l2, X.dtype), jnp.asarray(tol, X.dtype),
                          jnp.asarray(max_iter, jnp.int32), n_classes=n_classes, method=method,
                          fit_intercept=fit_intercept)
    model = f"fit_softmax(method={method!r})"
    if not _warn_absent_classes(params, y, sw, model, fit_intercept):
        warn_after_fit(params, model, l2, max_iter)
    return params


def _warn_absent_classes(params: SoftmaxParams, y, sw, model: str, fit_intercept: bool) -> bool:
    """Warn (``PerfectSeparationWarning``) naming the classes without a training row of positive
    weight, when the fit flagged separation and such classes exist; return whether it warned.

    Only outside ``jit``/``vmap`` (concrete params); the classes are counted only once the fit
    reports ``separated``, so a fit without the flag pays nothing.
    """
    if not fit_intercept or is_traced(params.separated) or is_traced(y) or is_traced(sw):
        return False
    if not np.asarray(params.separated).any():
        return False
    n_classes = params.intercept.shape[-1]
    present = np.asarray(jax.ops.segment_max(sw > 0, y, num_segments=n_classes))
    absent = np.flatnonzero(~present).tolist()
    if not absent:
        return False
    which = f"class {absent[0]} has" if len(absent) == 1 else f"classes {absent} have"
    warnings.warn(
        f"{model}: {which} no training row of positive weight (n_classes={n_classes}), so the "
        "objective has no finite minimiser: the intercept of an absent class runs to -inf "
        "whatever l2 (intercepts are not penalised), and the fit stopped at a finite "
        "iterate that depends on tol and max_iter (separated=True, converged=False). Give the "
        "class training rows, or fit only the classes present (n_classes and y re-encoded).",
        PerfectSeparationWarning,
        stacklevel=3,
    )
    return True


def _decision(params: SoftmaxParams, X):
    if _sparse.is_sparse(X):  # O(nnz): X as a plain-COO BCOO, never densified
        X = _sparse.predict_operand(X, params.coef.dtype, params.coef.shape[-1])
        return X @ params.coef.T + params.intercept
    X = check_predict_X(X, params.coef.dtype, params.coef.shape[-1])
    return _precision.matmul(X, params.coef.T.astype(X.dtype)) + params.intercept.astype(X.dtype)


def _predict_proba(params: SoftmaxParams, X):
    return _softmax_rows(_decision(params, X))


@_jit.jit
def _softmax_rows(f):
    # one program (eagerly, each step of the softmax compiled on its own per shape)
    return jax.nn.softmax(f, axis=-1)


def _predict(params: SoftmaxParams, X):
    return jnp.argmax(_decision(params, X), axis=-1).astype(jnp.int32)


decision_function.register(SoftmaxParams, _decision)
predict_proba.register(SoftmaxParams, _predict_proba)
predict.register(SoftmaxParams, _predict)
