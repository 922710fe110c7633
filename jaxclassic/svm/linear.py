r"""Linear support vector machines: LIBLINEAR's dual coordinate descent and a finite Newton
method on the primal.

Labels :math:`t_i \in \{-1, +1\}` (class codes :math:`y_i \in \{0, 1\}` become
:math:`t_i = 2y_i - 1`), sample weights :math:`s_i \ge 0`. The bias is handled as LIBLINEAR
(and so scikit-learn's ``LinearSVC``) handles it: each row is augmented with a constant
feature :math:`c` = ``intercept_scaling``, :math:`\tilde x_i = (x_i, c)`,
:math:`\tilde w = (w, w_b)`, and the intercept is :math:`b = c\,w_b`. The bias is therefore
**regularised** like the other weights (``intercept = intercept_scaling * w_b``, penalised
through :math:`\tfrac12 w_b^2 = \tfrac12 (b/c)^2`); a larger ``intercept_scaling`` weakens its
penalty. Without ``fit_intercept``, :math:`c = 0`. The primal problem is

.. math::

    \min_{\tilde w}\ P(\tilde w) = \tfrac12\lVert\tilde w\rVert^2
        + C\sum_i s_i\,\ell(t_i, \tilde w^\top\tilde x_i),

with :math:`\ell` = :func:`jaxclassic.losses.hinge` (L1-loss SVM) or
:func:`jaxclassic.losses.squared_hinge` (L2-loss SVM). scikit-learn's ``LinearSVC`` solves the
same problem (``sample_weight`` rescales :math:`C` row by row, as in LIBLINEAR).

**Dual coordinate descent** (``method="dual"``; Hsieh, Chang, Lin, Keerthi & Sundararajan
2008, LIBLINEAR's ``solve_l2r_l1l2_svc``). The dual is

.. math::

    \min_\alpha\ \tfrac12\alpha^\top(Q + D)\alpha - \mathbf 1^\top\alpha, \quad
    0 \le \alpha_i \le U_i, \qquad Q_{ij} = t_i t_j\,\tilde x_i^\top\tilde x_j,

with :math:`U_i = C s_i`, :math:`D = 0` for the hinge and :math:`U_i = \infty`,
:math:`D_{ii} = 1/(2 C s_i)` for the squared hinge; :math:`\tilde w = \sum_i \alpha_i t_i
\tilde x_i` is kept up to date incrementally. One epoch visits the rows one at a time (a
``lax.fori_loop``: the sweep is inherently sequential), in a fresh random order per epoch
when a ``key`` is given (drawn from the epoch and the ranks of the positive-weight rows, so
zero-weight rows do not change it), else in row order. At row :math:`i`,

.. math::

    G = t_i\tilde w^\top\tilde x_i - 1 + D_{ii}\alpha_i, \qquad
    \alpha_i \leftarrow \min\bigl(\max(\alpha_i - G/\bar Q_{ii}, 0), U_i\bigr), \qquad
    \tilde w \leftarrow \tilde w + (\alpha_i^{new} - \alpha_i)\,t_i\tilde x_i,

:math:`\bar Q_{ii} = \lVert\tilde x_i\rVert^2 + D_{ii}`, skipped when the projected gradient
:math:`PG` (:math:`\min(G, 0)` at :math:`\alpha_i = 0`, :math:`\max(G, 0)` at
:math:`\alpha_i = U_i`, else :math:`G`) is below :math:`10^{-12}` in magnitude. Cost per
epoch: :math:`O(\mathrm{nnz}(X))`. **Shrinking** (optional, on by default as in LIBLINEAR):
a row at a bound whose gradient points outside the box by more than the last epoch's
extreme projected gradients (:math:`\alpha_i = 0, G > \overline{PG}`;
:math:`\alpha_i = U_i, G < \underline{PG}`) leaves the active set; later epochs visit only
active rows. **Stopping** (LIBLINEAR's rule): the epoch's
:math:`\max PG - \min PG \le` ``tol``, checked once more over all rows after the active set
converged (the shrunk rows re-enter, as in LIBLINEAR); ``n_iter`` counts epochs. A row of
weight 0 has :math:`U_i = 0` and is never visited: :math:`\alpha_i = 0`, no influence.
Coordinate descent converges linearly, at a rate that degrades with a large :math:`C` (small
:math:`D_{ii}`), many rows or near-duplicate rows (thousands of epochs for ``tol=1e-8``), as
LIBLINEAR's does: with many more rows than features the primal method is usually faster.

**Primal finite Newton** (``method="primal"``, squared hinge only, as LIBLINEAR's primal
solver): the squared hinge is once differentiable with a piecewise-constant *generalised*
Hessian, so Newton's method with the generalised Hessian
:math:`I + C\tilde X^\top\operatorname{diag}(s\,h)\tilde X`, :math:`h_i = 2[t_i f_i < 1]`
(from :func:`jaxclassic.losses.grad_hess` of the shared loss) and Armijo step halving
converges globally, and in finitely many steps once the set of margin violators settles
(Mangasarian 2002; Keerthi & DeCoste 2005). It runs in the package's one Newton loop
(:func:`jaxclassic.linear._newton.newton_solve`: Cholesky of the equilibrated
:math:`(d+1)\times(d+1)` Hessian, :math:`O(nd^2 + d^3)` per iteration, stopping on
:math:`\lVert\nabla P\rVert_2/(\min(C, 1)\sum_i s_i) \le` ``tol``). The scale follows the
optimum's, which bounds the error: :math:`P` is 1-strongly convex, so
:math:`\lVert\tilde w - \tilde w^*\rVert \le \lVert\nabla P(\tilde w)\rVert`. For a small
:math:`C`, :math:`\tilde w^* \approx 2C\sum_i s_i t_i\tilde x_i` shrinks with :math:`C` (a rule on
:math:`\lVert\nabla P\rVert/\sum_i s_i` alone was met at :math:`\tilde w = 0`, since
:math:`\lVert\nabla P(0)\rVert = 2C\lVert\sum_i s_i t_i\tilde x_i\rVert`); for a large
:math:`C` it does not grow with :math:`C` (a rule on :math:`\lVert\nabla P\rVert/(C\sum_i s_i)`,
LIBLINEAR's scale, stopped far from the optimum at :math:`C = 10^4`). The hinge loss is not
differentiable: subgradient descent on it converges slowly and inexactly, so
``method="primal"`` refuses it (scikit-learn's ``LinearSVC(loss="hinge", dual=False)``
refuses it too). Its ``dual_coef`` comes from the KKT conditions,
:math:`\alpha_i = 2Cs_i\max(0, 1 - t_i f_i)`.

**Duality gap.** :func:`primal_objective` and :func:`dual_objective` (the dual as a maximum,
:math:`D(\alpha) = \mathbf 1^\top\alpha - \tfrac12\lVert\tilde w(\alpha)\rVert^2 -
\tfrac12\alpha^\top D\alpha`) meet at the optimum: :math:`P(\tilde w(\alpha)) - D(\alpha)
\ge 0`, and 0 exactly at a solution.

**Derivatives** (issue 14): ``coef``, ``intercept`` and ``dual_coef`` are differentiable in
``X``, ``sample_weight``, ``C`` and ``intercept_scaling`` by the implicit function theorem at
the dual's optimum (:func:`jaxclassic.svm._optimality.linear_svm`: the KKT system on the free
support vectors, bound ones held at :math:`Cs_i`), for either loss and method; the solver's
loop is never differentiated and its values are returned unchanged. ``probA``/``probB`` carry
no derivative.

**Probabilities** (``probability=True``): LIBSVM's procedure, shared with the kernel SVM
(:mod:`jaxclassic.svm.platt`): decision values of each row from a fit that did not see it
(``n_folds``-fold cross-validation, all folds one ``vmap`` of the fit over fold weights),
then Platt's sigmoid :math:`P(y = 1\mid f) = 1/(1 + e^{Af + B})` fitted to them
(``probA``, ``probB``).

References
----------
Hsieh, Chang, Lin, Keerthi & Sundararajan, "A dual coordinate descent method for large-scale
linear SVM", ICML 2008 (Algorithm 1, shrinking Algorithm 3).
Fan, Chang, Hsieh, Wang & Lin, "LIBLINEAR: A library for large linear classification",
JMLR 9 (2008) (the bias as an augmented feature; the stopping rule).
Mangasarian, "A finite Newton method for classification", Optim. Methods Softw. 17 (2002).
Keerthi & DeCoste, "A modified finite Newton method for fast solution of large scale linear
SVMs", JMLR 6 (2005).
"""

from __future__ import annotations

import warnings
from functools import partial
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxclassic import _jit
from jaxclassic import _sparse
from jaxclassic._deprecation import renamed_arguments
from jaxclassic import _precision, losses
from jaxclassic.linear._gram import gram_with_ones
from jaxclassic.linear._newton import NewtonProblem, default_tol, newton_solve, weighted_sum
from jaxclassic.linear.perceptron import _epoch_order
from jaxclassic._implicit import with_implicit_derivatives
from jaxclassic._solver import iterate
from jaxclassic.exceptions import ConvergenceWarning
from jaxclassic.svm import _optimality, platt
from jaxclassic.svm._api import decision_function, predict, predict_proba, support_vectors
from jaxclassic.validation import (
    as_operand,
    check_array,
    check_bool,
    check_choice,
    check_classifier_data,
    check_int,
    check_key,
    check_predict_X,
    check_scalar,
    is_traced,
    key_from_seed,
)

__all__ = ["LinearSVMParams", "fit_linear_svm", "primal_objective", "dual_objective", "warn_if_unconverged"]

LOSSES = ("hinge", "squared_hinge")
METHODS = ("dual", "primal")
#: LIBLINEAR skips a coordinate whose projected gradient is below this (``fabs(PG) > 1e-12``)
_PG_SKIP = 1e-12
#: rows per step of the dual sweep's loop, unrolled inside it: 8 rows per step run about 2x
#: faster than 1 on a CPU (fewer loop steps); the compile time grows faster than the block
#: (measured 8 / 13 / 26 / 99 s at 4 / 8 / 16 / 32 rows on a loaded 2-core machine) for a
#: further gain of about 1.3x at 32
BLOCK = 8


class LinearSVMParams(NamedTuple):
    r"""A fitted binary linear SVM :math:`f(x) = w^\top x + b`, class 1 where :math:`f > 0`.

    Attributes
    ----------
    coef : (n_features,) array
        :math:`w`.
    intercept : scalar array
        :math:`b = c\,w_b` (``intercept_scaling`` times the bias weight; 0 without
        ``fit_intercept``).
    dual_coef : (n_samples,) array
        :math:`\alpha_i t_i` for every training row (0 off the support), so that
        :math:`\tilde w = \sum_i \alpha_i t_i\tilde x_i`.
    n_iter : int32 scalar
        Epochs (dual) or Newton iterations (primal).
    converged : bool scalar
        Whether the stopping rule met ``tol``.
    probA, probB : scalar arrays
        Platt's sigmoid :math:`P(y=1\mid f) = 1/(1 + e^{Af + B})` (NaN unless fitted with
        ``probability=True``).
    """

    coef: jax.Array
    intercept: jax.Array
    dual_coef: jax.Array
    n_iter: jax.Array
    converged: jax.Array
    probA: jax.Array
    probB: jax.Array

    @property
    def n_classes(self) -> int:
        """2: a binary classifier (a Python int; not a pytree leaf)."""
        return 2



# --------------------------------------------------------------------------- objectives
@partial(_jit.jit, static_argnames="dtype")
def _bias_feature(fit_intercept, intercept_scaling, dtype):
    return jnp.where(jnp.asarray(fit_intercept), jnp.asarray(intercept_scaling, dtype), 0).astype(dtype)


def _signs(y, dtype):
    """{0, 1} class codes -> {-1, +1}; {-1, +1} pass through."""
    return _signs_program(y if hasattr(y, "shape") else np.asarray(y), dtype)


@partial(_jit.jit, static_argnames="dtype")
def _signs_program(y, dtype):
    # one program for the three elementwise steps (eagerly, each compiled on its own per shape)
    y = y.astype(dtype)
    return jnp.where(y > 0, 1, -1).astype(dtype)


def primal_objective(params: LinearSVMParams, X, y, *, C=1.0, loss: str = "squared_hinge",
                     fit_intercept: bool = True, intercept_scaling=1.0, sample_weight=None):
    r""":math:`P = \tfrac12(\lVert w\rVert^2 + w_b^2) + C\sum_i s_i\,\ell(t_i, x_i^\top w + b)`,
    :math:`w_b = b/c` (the regularised bias weight of LIBLINEAR's augmented feature).

    ``y`` holds class codes {0, 1} (or signs {-1, +1}); ``loss`` names the shared loss.
    """
    loss_fn = getattr(losses, check_choice(loss, "loss", LOSSES))
    X = jnp.asarray(X)
    dtype = X.dtype
    t = _signs(y, dtype)
    sw = jnp.ones(X.shape[0], dtype) if sample_weight is None else jnp.asarray(sample_weight, dtype)
    c = _bias_feature(fit_intercept, intercept_scaling, dtype)
    coef, intercept = params.coef.astype(dtype), params.intercept.astype(dtype)
    wb = jnp.where(c > 0, intercept / jnp.where(c > 0, c, 1), 0)
    f = _precision.matmul(X, coef) + intercept
    return 0.5 * (jnp.sum(coef**2) + wb**2) + C * weighted_sum(sw, loss_fn(t, f))


def dual_objective(params: LinearSVMParams, X, y, *, C=1.0, loss: str = "squared_hinge",
                   fit_intercept: bool = True, intercept_scaling=1.0, sample_weight=None):
    r"""The dual objective (to be maximised) at :math:`\alpha = ` ``dual_coef`` :math:`\cdot t`:

    .. math:: D(\alpha) = \sum_i\alpha_i - \tfrac12\lVert\tilde w(\alpha)\rVert^2
              - \sum_i \frac{\alpha_i^2}{4Cs_i}\ [\text{squared hinge}],
              \qquad \tilde w(\alpha) = \sum_i\alpha_i t_i\tilde x_i.

    Weak duality: :math:`D(\alpha) \le P(\tilde w)` for every feasible :math:`\alpha` and every
    :math:`\tilde w`; equality at the optimum (the duality gap is 0).
    """
    loss = check_choice(loss, "loss", LOSSES)
    X = jnp.asarray(X)
    dtype = X.dtype
    t = _signs(y, dtype)
    sw = jnp.ones(X.shape[0], dtype) if sample_weight is None else jnp.asarray(sample_weight, dtype)
    c = _bias_feature(fit_intercept, intercept_scaling, dtype)
    beta = params.dual_coef.astype(dtype)  # alpha_i t_i
    alpha = beta * t
    w = _precision.matmul(beta, X)
    wb = c * jnp.sum(beta)
    value = jnp.sum(alpha) - 0.5 * (jnp.sum(w**2) + wb**2)
    if loss == "squared_hinge":
        positive = sw > 0
        value = value - jnp.sum(jnp.where(positive, alpha**2 / (4 * C * jnp.where(positive, sw, 1)), 0))
    return value


# --------------------------------------------------------------------------- dual CD
class _CDState(NamedTuple):
    alpha: jax.Array
    w: jax.Array
    wb: jax.Array
    active: jax.Array
    pg_max_old: jax.Array
    pg_min_old: jax.Array
    epoch: jax.Array


def _dual_cd(X, t, sw, C, tol, c, key, max_iter, *, loss, shuffle, shrinking):
    """LIBLINEAR's ``solve_l2r_l1l2_svc`` (module docstring); returns ``(w~, alpha, n_iter,
    converged)``."""
    n, d = X.shape
    dtype = X.dtype
    block = BLOCK
    sparse = _sparse.is_sparse(X)  # row-batched BCOO (to_rows): row i = (values, columns)
    positive = sw > 0
    Cs = C * jnp.where(positive, sw, 0)
    inf = jnp.asarray(jnp.inf, dtype)
    if loss == "hinge":
        upper = Cs
        diag = jnp.zeros(n, dtype)
    else:
        upper = jnp.where(positive, inf, 0)
        diag = jnp.where(positive, 0.5 / jnp.where(positive, Cs, 1), 0)
    q_diag = jnp.sum(jnp.square(X.data if sparse else X), axis=1) + c * c + diag
    n_positive = jnp.sum(positive.astype(jnp.int32))
    big = jnp.asarray(jnp.finfo(dtype).max, dtype)

    def epoch(state: _CDState):
        # the active rows first: in a random order drawn from the epoch and their ranks
        # (perceptron's rule: zero-weight rows change nothing), or in row order
        if shuffle:
            order = _epoch_order(key, state.epoch, state.active.astype(dtype), shuffle)
        else:
            order = jnp.argsort(jnp.logical_not(state.active), stable=True)
        n_active = jnp.sum(state.active.astype(jnp.int32))
        # blocks of BLOCK rows: one gather of the block's rows and one scatter of its alphas
        # per while-loop step (the rows of an epoch are distinct), the visits unrolled inside
        order = jnp.concatenate([order, jnp.full((-n) % block, n, order.dtype)])

        def visit_block(b, carry):
            alpha, w, wb, active, pg_max, pg_min = carry
            idx = jax.lax.dynamic_slice_in_dim(order, b * block, block)
            if sparse:  # O(k) per row: its stored values and their columns
                rows = X.data.at[idx].get(mode="fill", fill_value=0)
                cols = X.indices[..., 0].at[idx].get(mode="fill", fill_value=0)
            else:
                rows = X.at[idx].get(mode="fill", fill_value=0)
            a_blk = alpha.at[idx].get(mode="fill", fill_value=0)
            u_blk, d_blk, q_blk, t_blk = (v.at[idx].get(mode="fill", fill_value=0)
                                          for v in (upper, diag, q_diag, t))
            new_alphas, keep = [], []
            for j in range(block):
                xi, a, u, ti, q = rows[j], a_blk[j], u_blk[j], t_blk[j], q_blk[j]
                live = b * block + j < n_active
                wx = _precision.dot(w[cols[j]], xi) if sparse else _precision.dot(w, xi)
                G = ti * (wx + c * wb) - 1 + d_blk[j] * a
                at_lower = a <= 0
                at_upper = a >= u
                shrink = shrinking & ((at_lower & (G > state.pg_max_old)) | (at_upper & (G < state.pg_min_old)))
                pg = jnp.where(at_lower, jnp.minimum(G, 0), jnp.where(at_upper, jnp.maximum(G, 0), G))
                counted = live & ~shrink
                pg_max = jnp.where(counted, jnp.maximum(pg_max, pg), pg_max)
                pg_min = jnp.where(counted, jnp.minimum(pg_min, pg), pg_min)
                # a zero row without a bias (q = 0, hinge): G = -1, the optimum is alpha = U
                target = jnp.where(q > 0, a - G / jnp.where(q > 0, q, 1), jnp.where(G < 0, inf, -inf))
                new = jnp.where(counted & (jnp.abs(pg) > _PG_SKIP), jnp.clip(target, 0, u), a)
                step = (new - a) * ti
                w = w.at[cols[j]].add(step * xi) if sparse else w + step * xi
                wb = wb + step * c
                new_alphas.append(new)
                keep.append(~(live & shrink))
            alpha = alpha.at[idx].set(jnp.stack(new_alphas), mode="drop")
            active = active.at[idx].set(active.at[idx].get(mode="fill", fill_value=False) & jnp.stack(keep),
                                        mode="drop")
            return alpha, w, wb, active, pg_max, pg_min

        n_blocks = (n_active + block - 1) // block
        alpha, w, wb, active, pg_max, pg_min = jax.lax.fori_loop(
            0, n_blocks, visit_block, (state.alpha, state.w, state.wb, state.active, -inf, inf))
        # no row measured (all shrunk): the range is empty, i.e. 0
        gap = jnp.where(pg_max >= pg_min, pg_max - pg_min, 0)
        all_active = jnp.sum(active.astype(jnp.int32)) == n_positive
        # converged on the active set only: every row re-enters, thresholds reset (LIBLINEAR)
        reset = (gap <= tol) & ~all_active
        active = jnp.where(reset, positive, active)
        pg_max_old = jnp.where(reset | (pg_max <= 0), inf, pg_max)
        pg_min_old = jnp.where(reset | (pg_min >= 0), -inf, pg_min)
        new_state = _CDState(alpha, w, wb, active, pg_max_old, pg_min_old, state.epoch + 1)
        return new_state, jnp.where(reset, big, gap)

    init = _CDState(jnp.zeros(n, dtype), jnp.zeros(d, dtype), jnp.zeros((), dtype), positive,
                    inf, -inf, jnp.int32(0))
    res = iterate(epoch, init, max_iter=max_iter, tol=tol, history_size=1)
    final = res.carry
    return final.w, final.wb, final.alpha, res.n_iter, res.converged


# --------------------------------------------------------------------------- primal Newton
def _primal_newton(X, t, sw, C, tol, c, max_iter):
    """Finite Newton on the squared-hinge primal in (w, w_b) through ``newton_solve``."""
    n, d = X.shape
    dtype = X.dtype
    s = jnp.where(sw > 0, sw, 0)
    bias_row = jnp.concatenate([jnp.ones(d, dtype), c[None]])  # scales [X, 1] to [X, c]

    def scores(theta):
        return _precision.matmul(X, theta[:d]) + c * theta[d]

    def objective(theta, f):
        return 0.5 * jnp.sum(theta**2) + C * weighted_sum(s, losses.squared_hinge(t, f))

    def derivatives(theta, f):
        g, h = losses.grad_hess(losses.squared_hinge, t, f)
        sg = jnp.where(s > 0, C * s * g, 0)
        grad = theta + jnp.concatenate([_precision.matmul(sg, X), (c * jnp.sum(sg))[None]])
        return grad, jnp.where(s > 0, C * s * h, 0)

    def hessian(sh):
        gram = gram_with_ones(X, sh) * bias_row[:, None] * bias_row[None, :]
        return gram + jnp.eye(d + 1, dtype=dtype)

    problem = NewtonProblem(scores, objective, derivatives, hessian, lambda f: t * f)
    # newton_solve stops on |grad| / sum(weights): weights min(C, 1) s (module docstring)
    res = newton_solve(problem, jnp.zeros(d + 1, dtype), jnp.minimum(C, 1) * s, jnp.asarray(False),
                       max_iter=max_iter, tol=tol, history_size=1, F0=jnp.zeros(n, dtype))
    theta = res.B
    # KKT: alpha_i = 2 C s_i max(0, 1 - t_i f_i) (stationarity of the L2-loss Lagrangian)
    alpha = 2 * C * s * jnp.maximum(0, 1 - t * res.scores)
    return theta[:d], theta[d], alpha, res.n_iter, res.converged


# --------------------------------------------------------------------------- fit
def _solve_binary(X, t, sw, C, tol, c, key, max_iter, *, loss, method, shuffle, shrinking):
    """(w, w_b, alpha, n_iter, converged) of one binary problem."""
    if method == "dual":
        w, wb, alpha, n_iter, converged = _dual_cd(X, t, sw, C, tol, c, key, max_iter, loss=loss,
                                                   shuffle=shuffle, shrinking=shrinking)
    else:
        w, wb, alpha, n_iter, converged = _primal_newton(X, t, sw, C, tol, c, max_iter)
    return w, wb, jnp.where(sw > 0, alpha, 0), n_iter, converged


def _fit_binary(X, t, sw, C, tol, c, key, max_iter, **kwargs):
    """(coef, intercept, dual_coef, n_iter, converged) of one binary problem."""
    w, wb, alpha, n_iter, converged = _solve_binary(X, t, sw, C, tol, c, key, max_iter, **kwargs)
    return w, c * wb, alpha * t, n_iter, converged


@partial(_jit.jit, static_argnames=("loss", "method", "shuffle", "shrinking", "probability", "n_folds"))
def _fit_linear_svm(X, t, sw, C, tol, c, key, max_iter, *, loss, method, shuffle, shrinking,
                    probability, n_folds):
    dtype = X.dtype
    fit_key, fold_key = jax.random.split(key)
    kwargs = dict(loss=loss, method=method, shuffle=shuffle, shrinking=shrinking)
    # the solver's loops see no tangent; (w, w_b, alpha) get the implicit derivatives of the
    # dual's optimality condition in X, the weights, C and c (svm/_optimality.py)
    if _sparse.is_sparse(X):  # sparse rows: no derivative in X (nor through the solver)
        X_ = X
        t_, sw_, C_, c_ = jax.lax.stop_gradient((t, sw, C, c))
    else:
        X_, t_, sw_, C_, c_ = jax.lax.stop_gradient((X, t, sw, C, c))
    w, wb, alpha, n_iter, converged = _solve_binary(X_, t_, sw_, C_, tol, c_, fit_key, max_iter, **kwargs)
    if not _sparse.is_sparse(X):
        w, wb, alpha = with_implicit_derivatives(partial(_optimality.linear_svm, loss=loss), (w, wb, alpha),
                                                 X, t, sw, C, c)
    coef, intercept, dual_coef = w, c * wb, alpha * t
    X, t, sw, C, c = X_, t_, sw_, C_, c_  # the calibration below: no derivative (probA, probB)
    prob_a = prob_b = jnp.asarray(jnp.nan, dtype)
    if probability:
        def fold_decision(train_weight):
            w, b, *_ = _fit_binary(X, t, train_weight, C, tol, c, fit_key, max_iter, **kwargs)
            return _row_scores(X, w) + b

        prob_a, prob_b = platt.cross_validated_platt(fold_decision, t, sw, key=fold_key if shuffle else None,
                                                     n_splits=n_folds)
    return LinearSVMParams(coef, intercept, dual_coef, n_iter, converged, prob_a, prob_b)


@renamed_arguments(n_folds="n_splits")
def fit_linear_svm(
    X,
    y,
    *,
    C=1.0,
    loss: str = "squared_hinge",
    method: str = "dual",
    fit_intercept: bool = True,
    intercept_scaling=1.0,
    tol=None,
    max_iter: int = 1000,
    shrinking: bool = True,
    probability: bool = False,
    n_splits: int = 5,
    sample_weight=None,
    key=None,
) -> LinearSVMParams:
    r"""Fit a binary linear SVM (L1- or L2-loss, L2 penalty, LIBLINEAR's regularised bias).

    .. math::
        \min_{w, w_b}\ \tfrac12(\lVert w\rVert^2 + w_b^2)
            + C\sum_i s_i\,\ell\bigl(t_i,\ x_i^\top w + c\,w_b\bigr),
        \qquad b = c\,w_b,\ c = \texttt{intercept\_scaling},

    :math:`\ell` the hinge or squared hinge of :mod:`jaxclassic.losses`. Multiclass:
    :func:`jaxclassic.multiclass.fit_one_vs_rest` over this fit (what LIBLINEAR and
    scikit-learn's ``LinearSVC`` do).

    Parameters
    ----------
    X : (n_samples, n_features) array, or a ``scipy.sparse`` matrix
        Sparse ``X`` with ``method="dual"``: the sweep reads the rows of a row-batched ``BCOO``
        (:func:`jaxclassic._sparse.to_rows`; :math:`O(\text{stored values})` per visit, equal
        to the dense fit to round-off; no implicit derivatives in ``X``). ``method="primal"``
        densifies it within :data:`jaxclassic._sparse.MAX_DENSIFY_ELEMENTS` values.
    y : (n_samples,) array
        Class codes {0, 1} (class 1 is the positive side), or signs {-1, +1}; traced labels
        are not validated, class 1 is ``y > 0``.
    C : float > 0
        Inverse regularisation strength (traced: a grid of ``C`` is one ``vmap``).
    loss : {"hinge", "squared_hinge"}
        L1-loss or L2-loss SVM (scikit-learn's default is the squared hinge).
    method : {"dual", "primal"}
        ``"dual"``: LIBLINEAR's dual coordinate descent (either loss). ``"primal"``: finite
        Newton with the generalised Hessian (squared hinge only; module docstring).
    fit_intercept : bool
        Append the constant feature ``intercept_scaling`` (static).
    intercept_scaling : float > 0
        :math:`c`; the intercept :math:`b = c w_b` is penalised through :math:`w_b`, as in
        scikit-learn's ``LinearSVC`` (traced).
    tol : float, optional
        Dual: LIBLINEAR's stopping rule, :math:`\max PG - \min PG \le` ``tol`` over an epoch
        (default ``1e-4``, scikit-learn's). Primal: :math:`\lVert\nabla P\rVert/(\min(C, 1)
        \sum_i s_i) \le` ``tol`` (default ``1e-8`` in float64, ``1e-6`` in float32). 
        ``tol``'s default differs from the estimator's: ``None`` picks the method's own
        default, which for the dual method is ``LinearSVC``'s ``1e-4``; the primal Newton
        method's gradient rule needs a tighter, dtype-dependent one.
    max_iter : int
        Epochs (dual) or Newton iterations (primal); traced, a new value does not recompile.
    shrinking : bool
        LIBLINEAR's shrinking of the dual's active set (static; the solution does not depend
        on it).
    probability : bool
        Also fit Platt's sigmoid on ``n_splits``-fold cross-validated decision values
        (LIBSVM's procedure, :func:`jaxclassic.svm.platt.cross_validated_platt`), for
        :func:`jaxclassic.svm.predict_proba`; costs ``n_splits`` more fits (one ``vmap``).
    n_splits : int >= 2
        Folds of the probability calibration (static; scikit-learn's name for a number of
        folds). ``n_folds=``, its old name, still works until 0.3.0 with a
        ``DeprecationWarning``.
    sample_weight : (n_samples,) array, optional
        Rescales :math:`C` row by row (:math:`U_i = C s_i`); a weight-0 row has no influence.
    key : jax.random key, optional
        When given, each dual epoch visits the rows in a fresh random order (LIBLINEAR
        shuffles too) and the calibration folds are random; otherwise row order and
        contiguous folds.

    Returns
    -------
    LinearSVMParams

    Examples
    --------
    >>> import jax.numpy as jnp
    >>> from jaxclassic.svm import fit_linear_svm, predict
    >>> X = jnp.array([[0.0, 1.0], [1.0, 0.0], [2.0, 3.0], [3.0, 2.0]])
    >>> params = fit_linear_svm(X, jnp.array([0, 0, 1, 1]), C=1.0)
    >>> predict(params, X).tolist(), bool(params.converged)
    ([0, 0, 1, 1], True)

    References
    ----------
    Hsieh et al., ICML 2008; Fan et al., JMLR 9 (2008); Mangasarian (2002); Platt (1999).
    """
    loss = check_choice(loss, "loss", LOSSES)
    method = check_choice(method, "method", METHODS)
    if method == "primal" and loss == "hinge":
        raise ValueError("method='primal' needs loss='squared_hinge' (the hinge loss is not "
                         "differentiable; use method='dual' for it), got loss='hinge'")
    max_iter = check_int(max_iter, "max_iter", low=1)
    n_splits = check_int(n_splits, "n_splits", low=2)
    fit_intercept = check_bool(fit_intercept, "fit_intercept")
    shrinking = check_bool(shrinking, "shrinking")
    probability = check_bool(probability, "probability")
    C = check_scalar(C, "C", low=0.0, include_low=False)
    intercept_scaling = check_scalar(intercept_scaling, "intercept_scaling", low=0.0, include_low=False)
    if _sparse.is_sparse(X) and method == "primal":
        X = _sparse.densify(X, model="fit_linear_svm(method='primal')")
    if _sparse.is_sparse(X):  # the dual visits rows: row-batched, O(stored values of a row) per visit
        X = _sparse.rows_operand(X)
        X, y, sw, _ = _sparse.check_sparse_classifier_data(X, _codes(y), sample_weight, n_classes=2)
    else:
        X = check_array(X, "X")
        y = _codes(y)
        X, y, sw, _ = check_classifier_data(X, y, sample_weight, n_classes=2)
    if tol is None:
        tol = 1e-4 if method == "dual" else default_tol(X.dtype)
    tol = check_scalar(tol, "tol", low=0.0)
    shuffle = key is not None
    key = check_key(key) if shuffle else key_from_seed(0)
    as_array = lambda v: as_operand(v, X.dtype)  # noqa: E731
    c = _bias_feature(fit_intercept, as_array(intercept_scaling), X.dtype)
    # signs from y > 0, not 2y - 1: traced signs {-1, +1} reach here unconverted (-1 -> -3)
    params = _fit_linear_svm(X, _signs(y, X.dtype), sw, as_array(C), as_array(tol), c, key,
                             as_operand(max_iter, np.int32), loss=loss, method=method,
                             shuffle=shuffle, shrinking=shrinking, probability=probability,
                             n_folds=n_splits)
    warn_if_unconverged(params, f"fit_linear_svm(method={method!r})", max_iter)
    return params


def warn_if_unconverged(params: LinearSVMParams, model: str, max_iter: int) -> None:
    """Warn (:class:`~jaxclassic.exceptions.ConvergenceWarning`) when concrete params (any
    member of stacked ones) did not meet ``tol``; silent inside ``jit``/``vmap``."""
    if is_traced(params.converged):
        return
    converged = np.asarray(params.converged)
    if not converged.all():
        n_iter = int(np.max(np.asarray(params.n_iter)))
        reason = (f"did not converge in {max_iter} iterations; increase max_iter or loosen tol"
                  if n_iter >= max_iter else
                  f"stopped after {n_iter} iterations without meeting tol (rounding floor or a "
                  "refused line-search step); loosen tol")
        warnings.warn(f"{model}: {reason}", ConvergenceWarning, stacklevel=3)


def _codes(y):
    """Signs {-1, +1} (concrete) -> codes {0, 1}; anything else unchanged (validated later)."""
    if is_traced(y) or y is None:
        return y
    arr = np.asarray(y.to_numpy() if hasattr(y, "to_numpy") else y)
    if arr.dtype.kind in "iuf" and arr.size and np.isin(arr, (-1, 1)).all() and (arr == -1).any():
        return (arr > 0).astype(np.int32)
    return y


# --------------------------------------------------------------------------- predict
def _row_scores(X, w):
    """``X @ w`` for dense ``X`` or a sparse one (plain or row-batched ``BCOO``)."""
    if not _sparse.is_sparse(X):
        return _precision.matmul(X, w)
    if X.n_batch == 1:
        return jnp.sum(X.data * w[X.indices[..., 0]], axis=1)
    return X @ w


def _decision(params: LinearSVMParams, X):
    if _sparse.is_sparse(X):  # a sparse product, X never dense
        X = _sparse.predict_operand(X, params.coef.dtype, params.coef.shape[-1])
        return X @ params.coef.astype(X.dtype) + params.intercept.astype(X.dtype)
    X = check_predict_X(X, params.coef.dtype, params.coef.shape[-1])
    return _precision.matmul(X, params.coef.astype(X.dtype)) + params.intercept.astype(X.dtype)


def _predict(params: LinearSVMParams, X):
    return (_decision(params, X) > 0).astype(jnp.int32)


def _predict_proba(params: LinearSVMParams, X):
    platt.check_calibrated(params)
    return platt.sigmoid_proba(_decision(params, X), params.probA, params.probB)


def _support_vectors(params: LinearSVMParams, X):
    """The training rows with :math:`\\alpha_i > 0` (host side; pass the training ``X``)."""
    X = np.asarray(X)
    beta = np.asarray(params.dual_coef)
    if X.shape[0] != beta.shape[-1]:
        raise ValueError(f"X must be the training data ({beta.shape[-1]} rows), got {X.shape[0]} rows")
    return X[np.flatnonzero(beta != 0)]


decision_function.register(LinearSVMParams, _decision)
predict.register(LinearSVMParams, _predict)
predict_proba.register(LinearSVMParams, _predict_proba)
support_vectors.register(LinearSVMParams, _support_vectors)
