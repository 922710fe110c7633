r"""Linear-chain conditional random fields: log-partition, marginals, Viterbi, L-BFGS training.

Model. For a sequence of :math:`T` positions with features :math:`x_t` and labels
:math:`y_t \in \{0, \dots, L-1\}`, the score of a labelling is

.. math::

    s(y \mid x) = b_{y_1} + \sum_{t=1}^{T} u_t(y_t) + \sum_{t=2}^{T} A_{y_{t-1} y_t} + e_{y_T},
    \qquad p(y \mid x) = \exp\{s(y \mid x) - \log Z(x)\},

with start weights :math:`b`, end weights :math:`e`, label-transition weights :math:`A` and
emission (state) scores :math:`u_t(l) = \sum_f x_{tf} W_{fl}` from a weight table
:math:`W` of shape ``(n_features, n_labels)``. Features come in two forms:

- **dense** float ``(T, F)``: :math:`u_t = x_t W` (one matrix product at HIGHEST precision);
- **sparse** integer ``(T, K)``: up to ``K`` active *indicator* features per position, indices
  into the rows of :math:`W`, ``-1`` padding: :math:`u_t = \sum_{k: x_{tk} \ge 0} W_{x_{tk}}`.
  This is crfsuite's attribute x label state feature with value 1 (see
  :func:`jaxclassic.graphical._crf_features.index_features`).

Log-partition by the forward algorithm in log space (a ``lax.scan``):
:math:`\alpha_1 = b + u_1`,
:math:`\alpha_t(j) = u_t(j) + \operatorname{logsumexp}_i(\alpha_{t-1}(i) + A_{ij})`,
:math:`\log Z = \operatorname{logsumexp}_j(\alpha_T(j) + e_j)`; cost :math:`O(T L^2)`.
Positions past a sequence's ``length`` leave :math:`\alpha` unchanged, so a padded sequence
has exactly the log Z of the unpadded one.

Marginals as the gradient of log Z (the exponential family identity): writing the pairwise
potentials per position :math:`\psi_t(i, j) = A_{ij}`,
:math:`\partial \log Z / \partial u_t(l) = p(y_t = l \mid x)` and
:math:`\partial \log Z / \partial \psi_t(i, j) = p(y_{t-1} = i, y_t = j \mid x)`:
:func:`marginals` differentiates the forward pass (reverse-mode autodiff of the forward
pass *is* the backward pass of forward--backward). The tests check it against an
independent numpy forward--backward.

Training. :func:`fit_crf` minimises the L2-regularised negative log-likelihood with
per-sequence weights :math:`s_i`,

.. math::

    J(\theta) = \sum_i s_i\,[\log Z(x_i) - s(y_i \mid x_i)] + c_2 \lVert\theta\rVert^2,

:math:`\theta = (W, A, b, e)`, the scaling of crfsuite's ``c2`` (crfsuite adds
:math:`c_2\lVert\theta\rVert^2` to the summed NLL and :math:`2c_2\theta` to its gradient;
scikit-learn-style :math:`\tfrac{\lambda}{2}\lVert\theta\rVert^2` is :math:`\lambda = 2c_2`;
checked in the tests: at crfsuite's own trained weights this :math:`J` equals the objective
crfsuite reports, to its 6 printed decimals).
Its gradient is the classic *empirical minus expected feature counts* plus :math:`2c_2\theta`
(checked in the tests against the counts computed by hand). The optimiser is
``optax.lbfgs`` (zoom line search) driven by :func:`jaxclassic._solver.minimize_optax` on
:math:`J/\sum_i s_i` (same minimiser; the stopping rule ``||grad|| <= tol`` then does not
grow with the corpus). Sequences are padded to a common length and the per-sequence terms
are vmapped; a sequence of weight 0 has no influence. When ``X``, ``y`` and ``lengths`` are
concrete, the fit first packs several sequences into each row
(:mod:`jaxclassic.graphical._crf_packing`, first-fit decreasing, the forward recursion
restarting at each sequence's first token): the same objective term for term, with about a
third of the padded form's work on CoNLL-2000. On packed rows log Z is computed with
Rabiner's scaling (probabilities normalised at each position, no exponential or logarithm
inside the loop) and differentiated by a hand-derived forward--backward pass (a custom JVP:
the node and pair marginals of Sutton & McCallum sec. 4.1, the pair sums as one matrix
product), with a log-space fallback when the scaled messages would underflow; one
value-and-gradient on CoNLL-2000 went from 38 ms (autodiff through the log-space scan) to
about 9 ms.

Differences from crfsuite: every (feature, label) pair and every label pair has a weight
(crfsuite by default only those seen in training), and start/end weights are included
(crfsuite has none); on the CoNLL-2000 chunking data both reach the same token accuracy
(tests/graphical/test_crf.py, benchmarks/bench_crf.py).

Length-1 sequences are valid: log Z = logsumexp(b + u_1 + e), no transition enters, and
Viterbi returns argmax(b + u_1 + e). Empty sequences (length 0) are an error.

References
----------
J. Lafferty, A. McCallum, F. Pereira (2001). Conditional random fields: probabilistic models
for segmenting and labeling sequence data. ICML.
C. Sutton, A. McCallum (2012). An introduction to conditional random fields. Foundations and
Trends in Machine Learning 4(4), sections 4.1 (forward--backward), 5.1 (likelihood gradient).
N. Okazaki (2007). CRFsuite: a fast implementation of conditional random fields.
"""

from __future__ import annotations

import warnings
from functools import partial
from typing import NamedTuple

import jax
import jax.flatten_util
import jax.numpy as jnp
import numpy as np
import optax

from jaxclassic import _cores, _jit, _progress
from jaxclassic import _precision
from jaxclassic._solver import minimize_optax
from jaxclassic.exceptions import ConvergenceWarning
from jaxclassic.graphical import _crf_packing
from jaxclassic.validation import (
    check_int,
    check_sample_weight,
    check_scalar,
    default_float_dtype,
    is_traced,
)

__all__ = [
    "CRFParams",
    "fit_crf",
    "log_partition",
    "marginals",
    "viterbi",
    "sequence_score",
    "predict",
    "negative_log_likelihood",
]


class CRFParams(NamedTuple):
    """A fitted linear-chain CRF.

    Attributes
    ----------
    emission : (n_features, n_labels) float
        State-feature weights :math:`W`.
    transition : (n_labels, n_labels) float
        :math:`A_{ij}`, the weight of label ``i`` followed by label ``j``.
    start, end : (n_labels,) float
        Weights of the first and of the last label.
    n_iter : int32 scalar
        L-BFGS iterations run.
    converged : bool scalar
        Whether the gradient norm of :math:`J/\\sum_i s_i` reached ``tol``.

    ``n_classes`` (read-only) is the number of labels, as every classifier's params say it.
    """

    emission: jax.Array
    transition: jax.Array
    start: jax.Array
    end: jax.Array
    n_iter: jax.Array
    converged: jax.Array

    @property
    def n_classes(self) -> int:
        """The number of labels (``n_labels``; a Python int, from the static shape of ``start``)."""
        return self.start.shape[-1]


# ----------------------------------------------------------------------------- potentials


def _unary(emission: jax.Array, x: jax.Array) -> jax.Array:
    """Emission scores ``(T, L)`` of one sequence, dense ``(T, F)`` or sparse ``(T, K)``."""
    if jnp.issubdtype(x.dtype, jnp.integer):
        rows = emission[jnp.clip(x, 0, None)]  # (T, K, L)
        return jnp.sum(jnp.where((x >= 0)[..., None], rows, 0.0), axis=1)
    return _precision.matmul(x.astype(emission.dtype), emission)


def _mask(length, T: int) -> jax.Array:
    return jnp.arange(T) < length


def _log_z_potentials(unary, transition, start, end, length):
    r"""log Z from unary ``(T, L)`` potentials and transitions ``(L, L)`` (shared by every
    position) or ``(T-1, L, L)`` (one copy per position, for the pair marginals).

    Each step is :math:`\operatorname{logsumexp}_i(\alpha_i + A_{ij}) = m + c_j +
    \log\sum_i e^{\alpha_i - m} e^{A_{ij} - c_j}` with :math:`m = \max_i \alpha_i`,
    :math:`c_j = \max_i A_{ij}`: a ``(L,) @ (L, L)`` product on shifted exponentials (exact in
    exact arithmetic for any shifts, so the shifts are held constant for autodiff). Against the
    textbook ``logsumexp`` over an ``(L, L)`` array this is 9x faster for value and gradient on
    the CoNLL benchmark. The shifts are per factor, not per path: when the best path into
    ``j`` lies more than :math:`\log(\text{tiny}/\epsilon)` below :math:`m + c_j` (71 nats in
    float32, 672 in float64; large weights, long sequences) the sum loses precision or
    underflows. The fast pass flags that case and the whole log Z is then recomputed with the
    textbook ``logsumexp`` (:func:`_log_z_exact`), so the result is accurate for any weights.
    """
    log_z, bad = _log_z_fast(unary, transition, start, end, length)
    return jax.lax.cond(bad, lambda: _log_z_exact(unary, transition, start, end, length), lambda: log_z)


def _log_z_fast(unary, transition, start, end, length):
    """The fast forward pass of :func:`_log_z_potentials`: ``(log Z, lost_precision)``."""
    T = unary.shape[0]
    live = _mask(length, T)[1:]

    if transition.ndim == 2:
        shift = jax.lax.stop_gradient(jnp.max(transition, axis=0))
        weights = jnp.exp(transition - shift)

        def step(carry, inputs):
            alpha, bad = carry
            u_t, on = inputs
            new, lost = _advance_checked(alpha, u_t, weights, shift)
            return (jnp.where(on, new, alpha), bad | (on & lost)), None

        xs = (unary[1:], live)
    else:
        shifts = jax.lax.stop_gradient(jnp.max(transition, axis=1))  # (T-1, L)
        weights = jnp.exp(transition - shifts[:, None, :])

        def step(carry, inputs):
            alpha, bad = carry
            u_t, on, w_t, c_t = inputs
            new, lost = _advance_checked(alpha, u_t, w_t, c_t)
            return (jnp.where(on, new, alpha), bad | (on & lost)), None

        xs = (unary[1:], live, weights, shifts)
    (alpha, bad), _ = jax.lax.scan(step, (start + unary[0], jnp.zeros((), bool)), xs)
    return jax.nn.logsumexp(alpha + end), bad


def _log_z_exact(unary, transition, start, end, length):
    """log Z by the textbook step ``u_t + logsumexp_i(alpha_i + A_ij)`` (slower, no underflow)."""
    T = unary.shape[0]
    live = _mask(length, T)[1:]
    pairwise = jnp.broadcast_to(transition, (T - 1,) + transition.shape[-2:])

    def step(alpha, inputs):
        u_t, on, A_t = inputs
        return jnp.where(on, _advance_exact(alpha, u_t, A_t), alpha), None

    alpha, _ = jax.lax.scan(step, start + unary[0], (unary[1:], live, pairwise))
    return jax.nn.logsumexp(alpha + end)


def _advance(alpha, u_t, weights, shift):
    """One forward step: ``u_t + logsumexp_i(alpha_i + A_ij)`` with ``weights = exp(A - shift)``."""
    return _advance_checked(alpha, u_t, weights, shift)[0]


def _advance_checked(alpha, u_t, weights, shift):
    """:func:`_advance` and whether a column's sum fell below ``tiny / eps`` (precision lost;
    the caller then recomputes with :func:`_advance_exact`)."""
    tiny = jnp.finfo(u_t.dtype).tiny
    m = jax.lax.stop_gradient(jnp.max(alpha))
    s = _precision.matmul(jnp.exp(alpha - m), weights)
    lost = jnp.any(jax.lax.stop_gradient(s) < tiny / jnp.finfo(u_t.dtype).eps)
    return u_t + m + shift + jnp.log(jnp.maximum(s, tiny)), lost


def _advance_exact(alpha, u_t, transition):
    """One forward step ``u_t + logsumexp_i(alpha_i + A_ij)`` over the ``(L, L)`` array."""
    return u_t + jax.nn.logsumexp(alpha[:, None] + transition, axis=0)


def _length(x, length):
    return x.shape[0] if length is None else length


def log_partition(params: CRFParams, x: jax.Array, length=None) -> jax.Array:
    r"""Log-partition function :math:`\log Z(x)` of one sequence by the forward algorithm.

    :math:`\alpha_1 = b + u_1`, :math:`\alpha_t = u_t + \operatorname{logsumexp}_i(\alpha_{t-1}(i) + A_{i\cdot})`,
    :math:`\log Z = \operatorname{logsumexp}(\alpha_T + e)`, in log space (no underflow).
    Vmap over sequences for a batch.

    Parameters
    ----------
    params : CRFParams
    x : (T, n_features) float or (T, K) int
        Dense features or sparse indicator indices (``-1`` = padding).
    length : int scalar, optional
        Number of real positions (``1 <= length <= T``); positions past it are ignored.
        Defaults to ``T``.

    Returns
    -------
    float scalar

    Example
    -------
    >>> import jax.numpy as jnp
    >>> p = CRFParams(jnp.zeros((2, 3)), jnp.zeros((3, 3)), jnp.zeros(3), jnp.zeros(3), 0, True)
    >>> x = jnp.array([[0, -1], [1, 0]])
    >>> round(float(log_partition(p, x)), 6) == round(float(jnp.log(9.0)), 6)  # 3**2 paths
    True

    References
    ----------
    Sutton & McCallum (2012), section 4.1.
    """
    unary = _unary(params.emission, x)
    return _log_z_potentials(unary, params.transition, params.start, params.end, _length(x, length))


def marginals(params: CRFParams, x: jax.Array, length=None) -> tuple[jax.Array, jax.Array]:
    r"""Posterior node and pair marginals of one sequence, as the gradient of log Z.

    :math:`p(y_t = l \mid x) = \partial\log Z/\partial u_t(l)` and
    :math:`p(y_{t-1} = i, y_t = j \mid x) = \partial\log Z/\partial\psi_t(i, j)` for the
    per-position copies :math:`\psi_t = A` of the transitions (reverse-mode autodiff of the
    forward algorithm = the backward pass of forward--backward).

    Parameters
    ----------
    params : CRFParams
    x : (T, n_features) float or (T, K) int
    length : int scalar, optional
        Defaults to ``T``.

    Returns
    -------
    node : (T, n_labels) float
        Rows sum to 1 for ``t < length``; rows past ``length`` are 0.
    pair : (T - 1, n_labels, n_labels) float
        ``pair[t-1, i, j] = p(y_{t-1} = i, y_t = j)``; 0 past ``length``.

    Example
    -------
    >>> import jax.numpy as jnp
    >>> p = CRFParams(jnp.eye(2), jnp.zeros((2, 2)), jnp.zeros(2), jnp.zeros(2), 0, True)
    >>> node, pair = marginals(p, jnp.array([[0], [1]]))
    >>> node.sum(axis=1).round(6).tolist(), pair.shape
    ([1.0, 1.0], (1, 2, 2))

    References
    ----------
    Sutton & McCallum (2012), section 4.1; J. Eisner (2016), Inside-outside and
    forward-backward algorithms are just backprop.
    """
    unary = _unary(params.emission, x)
    T, L = unary.shape
    pairwise = jnp.broadcast_to(params.transition, (T - 1, L, L))
    f = partial(_log_z_potentials, start=params.start, end=params.end, length=_length(x, length))
    return jax.grad(lambda u, p: f(u, p), argnums=(0, 1))(unary, pairwise)


def _batch_marginals(params: CRFParams, X: jax.Array, lengths: jax.Array) -> tuple[jax.Array, jax.Array]:
    """:func:`marginals` of a padded batch ``(n_seq, T, ...)``: ``(n_seq, T, L)`` and
    ``(n_seq, T-1, L, L)``. One exact-fallback ``cond`` for the whole batch (a vmap of
    :func:`marginals` turns its ``cond`` into a select that always runs the slow branch)."""
    unary = jax.vmap(lambda x: _unary(params.emission, x))(X)
    n, T, L = unary.shape
    pairwise = jnp.broadcast_to(params.transition, (n, T - 1, L, L))
    ends = (params.start, params.end)

    def total(u, p):
        fast, bad = jax.vmap(lambda a, b, m: _log_z_fast(a, b, *ends, m))(u, p, lengths)
        return jax.lax.cond(jnp.any(bad),
                            lambda: jnp.sum(jax.vmap(lambda a, b, m: _log_z_exact(a, b, *ends, m))(u, p, lengths)),
                            lambda: jnp.sum(fast))

    return jax.grad(total, argnums=(0, 1))(unary, pairwise)


def sequence_score(params: CRFParams, x: jax.Array, y: jax.Array, length=None) -> jax.Array:
    r"""Unnormalised score :math:`s(y \mid x)` of one labelling (positions past ``length`` ignored).

    Parameters
    ----------
    params : CRFParams
    x : (T, n_features) float or (T, K) int
    y : (T,) int labels
    length : int scalar, optional

    Returns
    -------
    float scalar, ``b[y_1] + sum_t u_t(y_t) + sum_t A[y_{t-1}, y_t] + e[y_length]``.
    """
    unary = _unary(params.emission, x)
    T = unary.shape[0]
    length = _length(x, length)
    live = _mask(length, T)
    y = jnp.where(live, y, 0)
    emit = jnp.sum(jnp.where(live, jnp.take_along_axis(unary, y[:, None], axis=1)[:, 0], 0.0))
    trans = jnp.sum(jnp.where(live[1:], params.transition[y[:-1], y[1:]], 0.0))
    return params.start[y[0]] + emit + trans + params.end[y[length - 1]]


def viterbi(params: CRFParams, x: jax.Array, length=None) -> tuple[jax.Array, jax.Array]:
    r"""Most probable labelling of one sequence (max-product forward pass, backtracking scan).

    :math:`\delta_1 = b + u_1`, :math:`\delta_t(j) = u_t(j) + \max_i(\delta_{t-1}(i) + A_{ij})`
    with back-pointers; the path ends in :math:`\arg\max_j(\delta_T(j) + e_j)`.

    Parameters
    ----------
    params : CRFParams
    x : (T, n_features) float or (T, K) int
    length : int scalar, optional

    Returns
    -------
    labels : (T,) int32
        The argmax path; ``-1`` past ``length``. Ties go to the smallest label index.
    score : float scalar
        Its score :math:`s(y \mid x)` (``score - log_partition`` is its log-probability).

    Example
    -------
    >>> import jax.numpy as jnp
    >>> p = CRFParams(jnp.eye(2), jnp.zeros((2, 2)), jnp.zeros(2), jnp.zeros(2), 0, True)
    >>> viterbi(p, jnp.array([[1], [0], [-1]]), 2)[0].tolist()
    [1, 0, -1]

    References
    ----------
    A. Viterbi (1967); Sutton & McCallum (2012), section 4.1.
    """
    unary = _unary(params.emission, x)
    T, L = unary.shape
    length = _length(x, length)
    live = _mask(length, T)

    def forward(delta, inputs):
        u_t, on = inputs
        cand = delta[:, None] + params.transition  # (i, j)
        back = jnp.argmax(cand, axis=0).astype(jnp.int32)
        new = u_t + jnp.max(cand, axis=0)
        return jnp.where(on, new, delta), jnp.where(on, back, jnp.arange(L, dtype=jnp.int32))

    delta, backs = jax.lax.scan(forward, params.start + unary[0], (unary[1:], live[1:]))
    final = delta + params.end
    last = jnp.argmax(final).astype(jnp.int32)

    def backward(label, back):
        prev = back[label]
        return prev, prev

    _, earlier = jax.lax.scan(backward, last, backs, reverse=True)
    path = jnp.concatenate([earlier, last[None]])
    return jnp.where(live, path, -1), jnp.max(final)


def predict(params: CRFParams, X: jax.Array, lengths=None) -> jax.Array:
    """Viterbi labels of a padded batch ``X`` ``(n_seq, T, ...)``: ``(n_seq, T)`` int32, -1 padding.

    Not in the ``_dispatch`` registry: a sequence model's input is ``(X, lengths)``, not the
    ``(n_samples, n_features)`` rows the registry's callers (multiclass, model selection) pass.
    """
    lengths = _lengths(X, lengths)
    return jax.vmap(lambda x, n: viterbi(params, x, n)[0])(X, lengths)


def _lengths(X, lengths):
    if lengths is None:
        return jnp.full((X.shape[0],), X.shape[1], dtype=jnp.int32)
    return jnp.asarray(lengths)


# ----------------------------------------------------------------------------- training


def negative_log_likelihood(params: CRFParams, X, y, lengths=None) -> jax.Array:
    r"""Per-sequence :math:`\log Z(x_i) - s(y_i \mid x_i)` of a padded batch, ``(n_seq,)``."""
    lengths = _lengths(X, lengths)
    unary = jax.vmap(lambda x: _unary(params.emission, x))(X)
    rest = (params.transition, params.start, params.end)
    fast, bad = jax.vmap(lambda u, n: _log_z_fast(u, *rest, n))(unary, lengths)
    # one branch for the whole batch (a cond inside the vmap would run both branches)
    log_z = jax.lax.cond(jnp.any(bad), lambda: jax.vmap(lambda u, n: _log_z_exact(u, *rest, n))(unary, lengths),
                         lambda: fast)
    score = jax.vmap(lambda x, labels, n: sequence_score(params, x, labels, n))(X, y, lengths)
    return log_z - score


def _objective(theta, X, y, lengths, c2, sample_weight):
    emission, transition, start, end = theta
    params = CRFParams(emission, transition, start, end, 0, True)
    nll = negative_log_likelihood(params, X, y, lengths)
    # a zero weight must not let a NaN/inf of its sequence through (0 * inf = NaN)
    data = jnp.sum(jnp.where(sample_weight > 0, sample_weight * nll, 0.0))
    penalty = sum(jnp.sum(jnp.square(w)) for w in theta)
    return (data + c2 * penalty) / jnp.sum(sample_weight)


@partial(_jit.jit, static_argnames=("n_features", "n_labels", "max_iter", "memory_size", "axis_name", "progress"))
def _fit(data, c2, sample_weight, tol, *, n_features, n_labels, max_iter, memory_size, axis_name=None,
         progress=None):
    """``data`` is ``(X, y, lengths)`` (padded sequences) or a :class:`_crf_packing.Packed`
    (with ``axis_name``: this device's block of its rows, :mod:`jaxclassic._cores`)."""
    dtype = sample_weight.dtype
    theta = (
        jnp.zeros((n_features, n_labels), dtype),
        jnp.zeros((n_labels, n_labels), dtype),
        jnp.zeros((n_labels,), dtype),
        jnp.zeros((n_labels,), dtype),
    )
    c2 = jnp.asarray(c2, dtype)
    if isinstance(data, _crf_packing.Packed):
        fun = partial(_crf_packing.packed_objective, packed=data, c2=c2, sample_weight=sample_weight,
                      unary_fn=_unary, axis_name=axis_name)
    else:
        X, y, lengths = data
        fun = partial(_objective, X=X, y=y, lengths=lengths, c2=c2, sample_weight=sample_weight)
    # L-BFGS on one flat vector: its two-loop recursion and line search run one kernel per
    # operation instead of one per weight array (CoNLL-2000: 0.83-0.86 s a fit, was 0.87-0.91)
    flat, unravel = jax.flatten_util.ravel_pytree(theta)
    result = minimize_optax(lambda v: fun(unravel(v)), flat, optax.lbfgs(memory_size=memory_size),
                            max_iter=max_iter, tol=tol, progress=progress)
    emission, transition, start, end = unravel(result.carry[0])
    return CRFParams(emission, transition, start, end, result.n_iter, result.converged)


#: the fewest tokens (sum of the lengths) at which a fit splits its packed rows over the CPU's
#: cores as devices (:mod:`jaxclassic._cores`, opt-in); CoNLL-2000's 700 sentences (16,880
#: tokens) are split
SPLIT_MIN_TOKENS = 4096


def fit_crf(
    X,
    y,
    *,
    lengths=None,
    c2=1.0,
    sample_weight=None,
    n_labels: int | None = None,
    n_features: int | None = None,
    max_iter: int = 100,
    tol=1e-3,
    memory_size: int = 10,
    verbose: int = 0,
    key=None,
) -> CRFParams:
    r"""Fit a linear-chain CRF by L-BFGS on the L2-regularised negative log-likelihood.

    Minimises :math:`J(\theta)/\sum_i s_i` with
    :math:`J = \sum_i s_i[\log Z(x_i) - s(y_i\mid x_i)] + c_2\lVert\theta\rVert^2`
    (crfsuite's ``c2`` scaling; see the module docstring), gradient
    :math:`\sum_i s_i(\text{expected} - \text{empirical counts}) + 2c_2\theta`, from
    :math:`\theta = 0`, with ``optax.lbfgs`` in :func:`jaxclassic._solver.minimize_optax`.
    Each L-BFGS iteration costs one value-and-gradient (forward pass + its reverse) over all
    sequences, :math:`O(n\,T\,(L^2 + K L))`, plus the line search's extra evaluations.

    Parameters
    ----------
    X : (n_seq, T, n_features) float or (n_seq, T, K) int
        Padded sequences of dense features, or of sparse indicator-feature indices
        (``-1`` padding; build them with :func:`jaxclassic.graphical._crf_features.index_features`).
    y : (n_seq, T) int
        Labels ``0..n_labels-1``; entries past a sequence's length are ignored.
    lengths : (n_seq,) int, optional
        Real lengths, ``1 <= lengths <= T``; defaults to ``T`` for every sequence.
    c2 : float >= 0
        L2 coefficient (traced: a grid of ``c2`` is a vmap).
    sample_weight : (n_seq,) float, optional
        Per-sequence weights; 0 removes a sequence, integer weights repeat it.
    n_labels, n_features : int, optional (static)
        Inferred from ``y.max() + 1`` and ``X`` (its last axis, or the largest index + 1) on
        concrete input; required when ``X``/``y`` are traced.
    max_iter : int (static)
    tol : float
        Stop when the gradient norm of :math:`J/\sum s_i` is at most ``tol``. The default
        1e-3 is above float32's rounding floor of that gradient (about 1e-3 to 1e-2 on the
        CoNLL data, where the line search then stalls and burns its trial steps) and on
        CoNLL-2000 changes the objective by 1e-5 relative from the float64 optimum.
    memory_size : int (static)
        L-BFGS history length (crfsuite's ``num_memories``, 6 there; 10 in optax).
    verbose : int >= 0, default=0 (static)
        0: silent (the program has no callback). ``k > 0``: a tqdm bar of the iterations and,
        every ``k`` iterations and after the last, a line ``[t]\tobjective:<J/sum s>\tgrad_norm:<value>``
        sent from inside the compiled L-BFGS loop (:mod:`jaxclassic._progress`; one fit: under
        ``vmap`` each iteration is reported once).
    key : ignored
        The fit is deterministic (accepted for the common signature).

    Returns
    -------
    CRFParams

    Example
    -------
    >>> import jax.numpy as jnp
    >>> X = jnp.array([[[0], [1], [1]], [[1], [0], [-1]]])  # sparse: one feature per token
    >>> y = jnp.array([[0, 1, 1], [1, 0, 0]])
    >>> params = fit_crf(X, y, lengths=jnp.array([3, 2]), c2=0.01)
    >>> predict(params, X, jnp.array([3, 2])).tolist()
    [[0, 1, 1], [1, 0, -1]]

    References
    ----------
    Lafferty et al. (2001); Sutton & McCallum (2012), section 5.1; D. C. Liu, J. Nocedal
    (1989), On the limited memory BFGS method for large scale optimization.
    """
    del key
    max_iter = check_int(max_iter, "max_iter", low=1)
    memory_size = check_int(memory_size, "memory_size", low=1)
    progress = _progress.spec(verbose, "fit_crf", ("objective", "grad_norm"))
    c2 = check_scalar(c2, "c2", low=0.0)
    tol = check_scalar(tol, "tol", low=0.0)
    X, y, lengths, n_labels, n_features = _check_sequences(X, y, lengths, n_labels, n_features)
    dtype = X.dtype if jnp.issubdtype(X.dtype, jnp.floating) else default_float_dtype()
    sample_weight = check_sample_weight(sample_weight, X.shape[0], dtype=dtype)
    statics = dict(n_features=n_features, n_labels=n_labels, max_iter=max_iter, memory_size=memory_size)
    if progress is not None:  # verbose=0 calls the program compiled without reporting
        statics["progress"] = progress
    if any(is_traced(a) for a in (X, y, lengths)):
        return _fit((X, y, lengths), c2, sample_weight, tol, **statics)
    # several sequences a row: a third of the padded form's work on CoNLL-2000
    lengths = np.asarray(lengths)
    mesh = _cores.row_mesh(int(lengths.sum()), X, y, sample_weight, min_rows=SPLIT_MIN_TOKENS)
    reporting = _progress.reporting(progress, max_iter)
    if mesh is None:
        with reporting:
            params = _fit(_crf_packing.pack(np.asarray(X), np.asarray(y), lengths), c2, sample_weight, tol,
                          **statics)
    else:
        # the CPU's cores as devices (opt-in, jaxclassic._cores): each device holds a block of
        # the packed rows (padding rows up to a multiple of the devices) and the objective and
        # its gradient are summed over the devices; the L-BFGS steps are the same on each
        data = _crf_packing.pack(np.asarray(X), np.asarray(y), lengths, row_multiple=8 * mesh.devices.size)
        with reporting:
            params = _cores.run_split(_fit, mesh, (data, c2, sample_weight, tol), {0: 0}, statics, check_vma=True)
    if not is_traced(params.converged) and not bool(params.converged):  # (traced under a vmap of the weights)
        warnings.warn(f"fit_crf did not converge in max_iter={max_iter} iterations (gradient norm above "
                      f"tol={tol}); raise max_iter or tol", ConvergenceWarning, stacklevel=2)
    return params


def _check_sequences(X, y, lengths, n_labels, n_features):
    """Validate a padded batch in Python before tracing (skipped for tracers)."""
    if not is_traced(X):
        X_np = np.asarray(X)
        if X_np.ndim != 3:
            raise ValueError(f"X must be 3-D (n_seq, T, n_features or K), got shape {X_np.shape}")
        if X_np.shape[0] == 0:
            raise ValueError("X must hold at least one sequence, got n_seq = 0")
        if X_np.shape[1] == 0:
            raise ValueError("X has empty sequences (T = 0): every sequence needs length >= 1")
        if np.issubdtype(X_np.dtype, np.integer):
            if X_np.size and X_np.min() < -1:
                raise ValueError(f"X (sparse feature indices) must be >= -1, got {int(X_np.min())}")
            seen = int(X_np.max()) + 1 if X_np.size else 0
            if n_features is None:
                n_features = max(seen, 1)
            elif seen > n_features:
                raise ValueError(f"X holds feature index {seen - 1} >= n_features = {n_features}")
        elif np.issubdtype(X_np.dtype, np.floating):
            if not np.isfinite(X_np).all():
                raise ValueError("X must be finite, got NaN or inf")
            if n_features is None:
                n_features = X_np.shape[2]
            elif n_features != X_np.shape[2]:
                raise ValueError(f"n_features = {n_features} does not match X.shape[2] = {X_np.shape[2]}")
        else:
            raise TypeError(f"X must be float (dense features) or int (feature indices), got dtype {X_np.dtype}")
        X = jnp.asarray(X)
    elif n_features is None:
        if jnp.issubdtype(X.dtype, jnp.integer):
            raise ValueError("n_features is required when X (feature indices) is traced")
        n_features = X.shape[2]
    n_seq, T = X.shape[0], X.shape[1]
    if lengths is not None and not is_traced(lengths):
        lengths_np = np.asarray(lengths)
        if lengths_np.shape != (n_seq,) or not np.issubdtype(lengths_np.dtype, np.integer):
            raise ValueError(f"lengths must be ({n_seq},) ints, got shape {lengths_np.shape} dtype {lengths_np.dtype}")
        if (lengths_np < 1).any():
            raise ValueError(f"lengths must be >= 1 (empty sequence at index {int(np.argmin(lengths_np))}), "
                             f"got {int(lengths_np.min())}")
        if (lengths_np > T).any():
            raise ValueError(f"lengths must be <= T = {T}, got {int(lengths_np.max())}")
    lengths = _lengths(X, lengths).astype(jnp.int32)
    if not is_traced(y):
        y_np = np.asarray(y)
        if y_np.shape != (n_seq, T):
            raise ValueError(f"y must have shape (n_seq, T) = ({n_seq}, {T}) like X, got {y_np.shape}")
        if not np.issubdtype(y_np.dtype, np.integer):
            raise TypeError(f"y must hold integer labels, got dtype {y_np.dtype}")
        live = np.arange(T)[None, :] < np.asarray(lengths)[:, None]
        real = y_np[live]
        if (real < 0).any():
            raise ValueError(f"y must hold labels >= 0 within each sequence's length, got {int(real.min())}")
        if n_labels is None:
            n_labels = int(real.max()) + 1
        elif (real >= n_labels).any():
            raise ValueError(f"y holds label {int(real.max())} >= n_labels = {n_labels}")
        y = jnp.asarray(y_np)
    elif n_labels is None:
        raise ValueError("n_labels is required when y is traced")
    n_labels = check_int(n_labels, "n_labels", low=1)
    return X, y.astype(jnp.int32), lengths, n_labels, n_features
