r"""Rosenblatt's perceptron, primal and dual (kernel) forms.

Labels :math:`y_i \in \{0, 1\}` are coded :math:`t_i = 2y_i - 1 \in \{-1, +1\}`. One epoch
visits the rows in order (or, when a ``key`` is given, the positive-weight rows in a fresh
random order per epoch that zero-weight rows do not affect) and,
on a *mistake* :math:`t_i(w^\top x_i + b) \le 0` of a row with weight :math:`s_i > 0`, updates

.. math::

    w \leftarrow w + \eta\, s_i t_i x_i, \qquad b \leftarrow b + \eta\, s_i t_i

(the stochastic subgradient step on the perceptron criterion
:func:`jaxclassic.losses.perceptron` weighted by :math:`s_i`; :math:`s_i = 1` is the
textbook rule). Rows of weight 0 never trigger an update. The fit stops after the first
epoch without a mistake (``converged``) or at ``max_epochs``; ``n_updates`` is the total
number of mistakes :math:`k`.

Novikoff's theorem: if some unit :math:`u` separates the data with margin
:math:`\gamma = \min_i t_i u^\top x_i > 0` and :math:`R = \max_i\lVert x_i\rVert`, then
starting from :math:`w = 0` the perceptron (unit weights, no intercept) makes at most
:math:`k \le (R/\gamma)^2` mistakes, whatever :math:`\eta`. With an intercept the bound holds
for the augmented rows :math:`(x_i, 1)`.

Dual form. With :math:`w = \sum_i \alpha_i \eta s_i t_i x_i`, :math:`\alpha_i` the number of
updates on row :math:`i`, the score is :math:`\sum_j \alpha_j\eta s_j t_j k(x_j, x) + b`;
replacing the inner product by a kernel gives the kernel perceptron. ``kernel=None`` is the
linear kernel :math:`k(x, z) = x^\top z` (then the dual fit makes exactly the primal fit's
updates); any callable ``kernel(X, Z) -> (n_X, n_Z)`` Gram matrix is accepted (e.g. from
:mod:`jaxclassic.kernels` once it exists). The dual fit forms the :math:`n\times n` Gram
matrix once; pass the same ``kernel`` to ``predict`` / ``decision_function``.

References
----------
Rosenblatt, "The perceptron: a probabilistic model for information storage and
organization in the brain", Psychological Review 65 (1958).
Novikoff, "On convergence proofs on perceptrons", Symposium on the Mathematical Theory of
Automata 12 (1962).
Freund & Schapire, "Large margin classification using the perceptron algorithm", Machine
Learning 37 (1999) (dual / kernel form).
"""

from __future__ import annotations

from functools import partial
from typing import Callable, NamedTuple

import jax
import jax.numpy as jnp

from jaxclassic import _jit
from jaxclassic import _precision
from jaxclassic._solver import iterate
from jaxclassic.linear._api import decision_function, predict
from jaxclassic._implicit import nondifferentiable
from jaxclassic.validation import (
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

#: why jax.grad through this fit raises (issue 14, :func:`jaxclassic._implicit.nondifferentiable`)
_NO_DERIVATIVE = (
    "its updates are triggered by mistakes, a piecewise-constant function of the data"
)

__all__ = ["PerceptronParams", "KernelPerceptronParams", "fit_perceptron"]


class PerceptronParams(NamedTuple):
    """A primal perceptron :math:`\\hat y = [w^\\top x + b > 0]`.

    Attributes
    ----------
    coef : (n_features,) array
    intercept : scalar array
    n_updates : int32 scalar
        Total number of mistakes (updates) :math:`k`.
    n_iter : int32 scalar
        Epochs run.
    converged : bool scalar
        The last epoch made no mistake.
    """

    coef: jax.Array
    intercept: jax.Array
    n_updates: jax.Array
    n_iter: jax.Array
    converged: jax.Array

    @property
    def n_classes(self) -> int:
        """2: a binary classifier (a Python int; not a pytree leaf)."""
        return 2



class KernelPerceptronParams(NamedTuple):
    """A dual (kernel) perceptron :math:`\\hat y = [\\sum_j c_j k(x_j, x) + b > 0]`.

    Attributes
    ----------
    dual_coef : (n_samples,) array
        :math:`c_j = \\alpha_j\\eta s_j t_j` (0 for rows never updated on).
    intercept : scalar array
    support_vectors : (n_samples, n_features) array
        The training rows :math:`x_j`.
    alpha : (n_samples,) int32 array
        Updates per row :math:`\\alpha_j`.
    n_updates, n_iter, converged
        As in :class:`PerceptronParams`.
    """

    dual_coef: jax.Array
    intercept: jax.Array
    support_vectors: jax.Array
    alpha: jax.Array
    n_updates: jax.Array
    n_iter: jax.Array
    converged: jax.Array

    @property
    def n_classes(self) -> int:
        """2: a binary classifier (a Python int; not a pytree leaf)."""
        return 2



def _linear_kernel(X, Z):
    return _precision.matmul(X, Z.T)


def _epoch_order(key, epoch, sw, shuffle):
    """Visiting order of one epoch: row order, or (``shuffle``) the positive-weight rows in a
    random order followed by the zero-weight rows (which never update).

    The random order depends only on the key, the epoch and the *ranks* of the positive-weight
    rows among themselves: row ``i`` with rank ``r_i`` gets the sort key
    ``bits(fold_in(fold_in(key, epoch), r_i))``. So zero-weight rows, wherever they are
    inserted (padding, folds), leave the order of the others, hence the fit, unchanged.
    """
    n = sw.shape[0]
    if not shuffle:
        return jnp.arange(n)
    positive = sw > 0
    rank = jnp.cumsum(positive.astype(jnp.int32)) - 1
    epoch_key = jax.random.fold_in(key, epoch)
    bits = jax.vmap(lambda r: jax.random.bits(jax.random.fold_in(epoch_key, r), dtype=jnp.uint32))(rank)
    # zero-weight rows last: sort on (not positive, bits); a stable sort breaks ties by index
    order = jnp.lexsort((bits, jnp.logical_not(positive)))
    return order


@partial(_jit.jit, static_argnames=("max_epochs", "fit_intercept", "shuffle"))
def _fit_primal(X, t, sw, learning_rate, key, *, max_epochs, fit_intercept, shuffle):
    n, d = X.shape
    dtype = X.dtype
    fi = jnp.asarray(fit_intercept, dtype)

    def visit(carry, i):
        w, b, mistakes = carry
        mistake = (sw[i] > 0) & (t[i] * (_precision.dot(X[i], w) + b) <= 0)
        scale = jnp.where(mistake, learning_rate * sw[i] * t[i], jnp.zeros((), dtype))
        return (w + scale * X[i], b + fi * scale, mistakes + mistake.astype(jnp.int32)), None

    def epoch(carry):
        w, b, n_updates, k = carry
        (w, b, mistakes), _ = jax.lax.scan(visit, (w, b, jnp.int32(0)), _epoch_order(key, k, sw, shuffle))
        return (w, b, n_updates + mistakes, k + 1), mistakes.astype(dtype)

    init = (jnp.zeros(d, dtype), jnp.zeros((), dtype), jnp.int32(0), jnp.int32(0))
    res = iterate(epoch, init, max_iter=max_epochs, tol=0.0)
    w, b, n_updates, _ = res.carry
    return PerceptronParams(w, b, n_updates, res.n_iter, res.converged)


@partial(_jit.jit, static_argnames=("max_epochs", "fit_intercept", "shuffle", "kernel"))
def _fit_dual(X, t, sw, learning_rate, key, *, max_epochs, fit_intercept, shuffle, kernel):
    n = X.shape[0]
    dtype = X.dtype
    fi = jnp.asarray(fit_intercept, dtype)
    gram = (kernel or _linear_kernel)(X, X).astype(dtype)
    step = learning_rate * sw * t  # c_j grows by this on each update of row j

    def visit(carry, i):
        alpha, b, mistakes = carry
        coef = alpha.astype(dtype) * step
        mistake = (sw[i] > 0) & (t[i] * (_precision.dot(coef, gram[:, i]) + b) <= 0)
        alpha = alpha.at[i].add(mistake.astype(jnp.int32))
        b = b + fi * jnp.where(mistake, step[i], jnp.zeros((), dtype))
        return (alpha, b, mistakes + mistake.astype(jnp.int32)), None

    def epoch(carry):
        alpha, b, n_updates, k = carry
        (alpha, b, mistakes), _ = jax.lax.scan(visit, (alpha, b, jnp.int32(0)), _epoch_order(key, k, sw, shuffle))
        return (alpha, b, n_updates + mistakes, k + 1), mistakes.astype(dtype)

    init = (jnp.zeros(n, jnp.int32), jnp.zeros((), dtype), jnp.int32(0), jnp.int32(0))
    res = iterate(epoch, init, max_iter=max_epochs, tol=0.0)
    alpha, b, n_updates, _ = res.carry
    return KernelPerceptronParams(alpha.astype(dtype) * step, b, X, alpha, n_updates, res.n_iter,
                                  res.converged)


def fit_perceptron(
    X,
    y,
    *,
    form: str = "primal",
    learning_rate=1.0,
    max_epochs: int = 100,
    fit_intercept: bool = True,
    kernel: Callable | None = None,
    sample_weight=None,
    key=None,
) -> PerceptronParams | KernelPerceptronParams:
    r"""Fit Rosenblatt's perceptron: update on :math:`t_i(w^\top x_i + b) \le 0`.

    .. math:: w \leftarrow w + \eta s_i t_i x_i,\quad b \leftarrow b + \eta s_i t_i,
              \qquad t_i = 2y_i - 1.

    Parameters
    ----------
    X : (n_samples, n_features) array
    y : (n_samples,) int array in {0, 1}
    form : {"primal", "dual"}
        ``"dual"`` keeps per-row update counts and accepts a ``kernel``.
    learning_rate : float > 0
        :math:`\eta` (traced). From :math:`w = 0` it only rescales :math:`(w, b)`: the
        mistakes made, hence the predictions, do not depend on it.
    max_epochs : int
        Static bound on the passes over the data.
    fit_intercept : bool
    kernel : callable, optional
        Dual form only: ``kernel(X, Z) -> (len(X), len(Z))`` Gram matrix (static: a new
        function compiles a new program). ``None``: the linear kernel.
    sample_weight : (n_samples,) array, optional
        Scales each row's update; weight-0 rows never update.
    key : jax.random key, optional
        When given, each epoch visits the positive-weight rows in a random order drawn from
        ``fold_in(key, epoch)`` and their ranks (so zero-weight rows, e.g. padding, do not
        change it), then the zero-weight rows (no update); otherwise in row order.

    Returns
    -------
    PerceptronParams (primal) or KernelPerceptronParams (dual)

    Examples
    --------
    >>> import jax.numpy as jnp
    >>> from jaxclassic.linear import fit_perceptron, predict
    >>> X = jnp.array([[0.0, 1.0], [1.0, 0.0], [2.0, 3.0], [3.0, 2.0]])
    >>> params = fit_perceptron(X, jnp.array([0, 0, 1, 1]))
    >>> bool(params.converged), predict(params, X).tolist()
    (True, [0, 0, 1, 1])

    References
    ----------
    Rosenblatt (1958); Novikoff (1962); Freund & Schapire (1999).
    """
    # jax.grad / jax.jvp through this fit raise a TypeError naming it (issue 14)
    X, y, sample_weight = (
        nondifferentiable("fit_perceptron", a, reason=_NO_DERIVATIVE) if is_traced(a) else a
        for a in (X, y, sample_weight))
    form = check_choice(form, "form", ("primal", "dual"))
    max_epochs = check_int(max_epochs, "max_epochs", low=1)
    fit_intercept = check_bool(fit_intercept, "fit_intercept")
    if kernel is not None and form != "dual":
        raise ValueError("kernel is only used with form='dual'")
    if kernel is not None and not callable(kernel):
        raise TypeError(f"kernel must be a callable kernel(X, Z) -> Gram matrix, got {kernel!r}")
    X, y, sw, _ = check_classifier_data(X, y, sample_weight, n_classes=2)
    learning_rate = check_scalar(learning_rate, "learning_rate", low=0.0, include_low=False)
    learning_rate = jnp.asarray(learning_rate, X.dtype)
    shuffle = key is not None
    key = check_key(key) if shuffle else key_from_seed(0)
    t = (2 * y - 1).astype(X.dtype)
    if form == "primal":
        return _fit_primal(X, t, sw, learning_rate, key, max_epochs=max_epochs,
                           fit_intercept=fit_intercept, shuffle=shuffle)
    return _fit_dual(X, t, sw, learning_rate, key, max_epochs=max_epochs,
                     fit_intercept=fit_intercept, shuffle=shuffle, kernel=kernel)


def _decision_primal(params: PerceptronParams, X):
    X = check_predict_X(X, params.coef.dtype, params.coef.shape[-1])
    return _precision.matmul(X, params.coef.astype(X.dtype)) + params.intercept.astype(X.dtype)


def _decision_dual(params: KernelPerceptronParams, X, kernel: Callable | None = None):
    X = check_predict_X(X, params.dual_coef.dtype, params.support_vectors.shape[-1])
    gram = (kernel or _linear_kernel)(X, params.support_vectors.astype(X.dtype))
    return _precision.matmul(gram, params.dual_coef.astype(X.dtype)) + params.intercept.astype(X.dtype)


def _predict_primal(params: PerceptronParams, X):
    return (_decision_primal(params, X) > 0).astype(jnp.int32)


def _predict_dual(params: KernelPerceptronParams, X, kernel: Callable | None = None):
    return (_decision_dual(params, X, kernel) > 0).astype(jnp.int32)


decision_function.register(PerceptronParams, _decision_primal)
predict.register(PerceptronParams, _predict_primal)
decision_function.register(KernelPerceptronParams, _decision_dual)
predict.register(KernelPerceptronParams, _predict_dual)
