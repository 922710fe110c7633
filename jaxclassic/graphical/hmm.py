r"""Hidden Markov models: forward, backward, posteriors, Viterbi and sampling by ``lax.scan``.

Model: hidden states :math:`z_t \in \{0..K-1\}` with :math:`p(z_0 = i) = \pi_i` and
:math:`p(z_t = j \mid z_{t-1} = i) = A_{ij}`; observations :math:`x_t` with emission density
:math:`b_j(x_t) = p(x_t \mid z_t = j)`: categorical (:math:`b_j(m) = B_{jm}`, symbols
:math:`0..M-1`) or Gaussian (:math:`\mathcal N(x_t \mid \mu_j, \Sigma_j)` with the four
covariance structures of :mod:`jaxclassic.cluster._gmm_covariance`, whose log-densities and
Cholesky parametrisation are reused here).

Recursions (Rabiner 1989), all in **log space** so that no sequence length underflows:

* forward :math:`\log\alpha_0 = \log\pi + \log b(x_0)`,
  :math:`\log\alpha_t(j) = \log b_j(x_t) + \log\sum_i \alpha_{t-1}(i)A_{ij}`; and
  :math:`\log p(x_{0:T-1}) = \operatorname{logsumexp}_j \log\alpha_{T-1}(j)`;
* backward :math:`\log\beta_{T-1} = 0`,
  :math:`\log\beta_t(i) = \log\sum_j A_{ij} b_j(x_{t+1})\beta_{t+1}(j)`;
* posteriors :math:`\gamma_t(i) = \alpha_t(i)\beta_t(i)/p(x)` and
  :math:`\xi_t(i,j) = \alpha_{t-1}(i)A_{ij}b_j(x_t)\beta_t(j)/p(x)`, :math:`t \ge 1`;
* Viterbi :math:`\delta_t(j) = \log b_j(x_t) + \max_i(\delta_{t-1}(i) + \log A_{ij})` with
  back-pointers (first index on ties, as numpy's ``argmax``), then backtracking.

Each log-sum over states is a matrix product on shifted exponentials,
:math:`\log\sum_i e^{a_i}A_{ij} = m + \log\bigl(\sum_i e^{a_i - m}A_{ij}\bigr)` with
:math:`m = \max_i a_i`: exact, as stable as a log-sum-exp (the largest term is 1 and the rows
of :math:`A` sum to 1, so the total never underflows), and a ``(S, K) @ (K, K)`` product per
time step when vmapped over ``S`` sequences. A state that cannot be reached gets
:math:`\log\alpha = -\infty`; a sequence of probability 0 gets log-likelihood :math:`-\infty`.

Sequences and padding: every function here takes one sequence ``x`` of ``T`` steps (``(T,)``
int symbols or ``(T, d)`` floats) and an optional boolean ``mask`` (``(T,)``, a prefix of
``True``: the sequence's own length, then padding); results at padded steps are the carried
values (forward), 0 (``log_beta``, ``gamma``, ``xi``) or -1 (the Viterbi path), so padding
never changes the result: ``jax.vmap`` over padded sequences of different lengths gives the
unpadded answers. :func:`pad_sequences` turns hmmlearn's ``(X, lengths)`` into that layout.
A sequence of length 1 is valid: :math:`p(x_0) = \sum_i\pi_i b_i(x_0)`, no transition, so its
:math:`\xi` is empty (all zeros). Empty sequences are refused (:func:`pad_sequences`).

Prediction is by sequence, not by row, so these functions are not in the row-wise
:mod:`jaxclassic._dispatch` registry (a ``(params, X) -> (n,)`` predict would have to guess
where sequences start); the estimators (:mod:`jaxclassic.estimators.hmm`) take ``lengths``.

References
----------
L. R. Rabiner, "A tutorial on hidden Markov models and selected applications in speech
recognition", Proc. IEEE 77(2), 1989.
C. M. Bishop, *Pattern Recognition and Machine Learning*, 2006, §13.2.
hmmlearn, ``hmmlearn/base.py`` and ``_hmmc.cpp`` (the reference implementation).
"""

from __future__ import annotations

from functools import partial
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxclassic import _jit
from jaxclassic import _linalg
from jaxclassic import _precision
from jaxclassic.cluster import _gmm_covariance as _cov
from jaxclassic._deprecation import key_moved, renamed_arguments
from jaxclassic.validation import (check_array, check_choice, check_int, check_key, is_traced,
                                   key_from_seed)

__all__ = [
    "CategoricalHMMParams",
    "GaussianHMMParams",
    "FullGaussianHMMParams",
    "TiedGaussianHMMParams",
    "DiagGaussianHMMParams",
    "SphericalGaussianHMMParams",
    "Posterior",
    "categorical_hmm",
    "gaussian_hmm",
    "pad_sequences",
    "log_emission",
    "forward",
    "backward",
    "log_likelihood",
    "decode",
    "posterior",
    "viterbi",
    "sample",
]

COVARIANCE_TYPES = _cov.COVARIANCE_TYPES
#: time steps per iteration of the scans' loops (``lax.scan(unroll=)``): 4 or 8 saved 10-20%
#: of a forward pass over 1000 x 500 steps on a shared CPU (within its noise) and multiply the
#: compile time of every scan, so 1 by default
UNROLL = 1
#: tolerance on the sums of probability vectors given by a user
SUM_TOL = 1e-6


class CategoricalHMMParams(NamedTuple):
    """An HMM with categorical emissions (``fit_hmm(..., emission="categorical")``).

    Attributes
    ----------
    startprob : (K,) array
        :math:`\\pi`.
    transmat : (K, K) array
        :math:`A`, rows sum to 1.
    emissionprob : (K, M) array
        :math:`B_{jm} = p(x = m \\mid z = j)`, rows sum to 1.
    converged, n_iter : bool / int32 scalars, optional
        Baum--Welch's report (``None`` for hand-built params).
    log_likelihood : scalar, optional
        Weighted log-likelihood of the parameters entering the last EM iteration (hmmlearn's
        ``monitor_.history[-1]``).
    log_likelihoods : (max_iter,) array, optional
        The log-likelihood at each iteration (``nan`` past ``n_iter``).
    """

    startprob: jax.Array
    transmat: jax.Array
    emissionprob: jax.Array
    converged: jax.Array | None = None
    n_iter: jax.Array | None = None
    log_likelihood: jax.Array | None = None
    log_likelihoods: jax.Array | None = None

    emission = "categorical"


class GaussianHMMParams(NamedTuple):
    """An HMM with Gaussian emissions. The subclass names the covariance structure
    (``params.covariance_type``): :class:`FullGaussianHMMParams`, ``Tied...``, ``Diag...``,
    ``Spherical...``; build one with :func:`gaussian_hmm`.

    Attributes
    ----------
    startprob : (K,) array
    transmat : (K, K) array
    means : (K, d) array
    covars : array
        ``full`` (K, d, d); ``tied`` (d, d); ``diag`` (K, d); ``spherical`` (K,) (the layout of
        :mod:`jaxclassic.cluster.gmm`).
    precisions_cholesky : array, shape of ``covars``
        :math:`P_k`, :math:`\\Sigma_k^{-1} = P_kP_k^\\top`.
    converged, n_iter, log_likelihood, log_likelihoods
        As :class:`CategoricalHMMParams`.
    """

    startprob: jax.Array
    transmat: jax.Array
    means: jax.Array
    covars: jax.Array
    precisions_cholesky: jax.Array
    converged: jax.Array | None = None
    n_iter: jax.Array | None = None
    log_likelihood: jax.Array | None = None
    log_likelihoods: jax.Array | None = None

    emission = "gaussian"


class FullGaussianHMMParams(GaussianHMMParams):
    """:class:`GaussianHMMParams` with one full covariance per state."""

    __slots__ = ()
    covariance_type = "full"


class TiedGaussianHMMParams(GaussianHMMParams):
    """:class:`GaussianHMMParams` with one full covariance shared by all states."""

    __slots__ = ()
    covariance_type = "tied"


class DiagGaussianHMMParams(GaussianHMMParams):
    """:class:`GaussianHMMParams` with one diagonal covariance per state."""

    __slots__ = ()
    covariance_type = "diag"


class SphericalGaussianHMMParams(GaussianHMMParams):
    """:class:`GaussianHMMParams` with one variance per state."""

    __slots__ = ()
    covariance_type = "spherical"


GAUSSIAN_TYPES = {"full": FullGaussianHMMParams, "tied": TiedGaussianHMMParams,
                  "diag": DiagGaussianHMMParams, "spherical": SphericalGaussianHMMParams}


class Posterior(NamedTuple):
    """State and pair marginals of one sequence (:func:`posterior`).

    Attributes
    ----------
    gamma : (T, K) array
        :math:`\\gamma_t(i) = p(z_t = i \\mid x)` (0 at padded steps).
    xi : (T - 1, K, K) array
        :math:`\\xi_t(i, j) = p(z_t = i, z_{t+1} = j \\mid x)` for the pair ``(t, t + 1)`` (0
        where ``t + 1`` is padded).
    log_likelihood : scalar
        :math:`\\log p(x)`.
    """

    gamma: jax.Array
    xi: jax.Array
    log_likelihood: jax.Array


# --------------------------------------------------------------------------- construction
def _check_distribution(p, name, ndim):
    p = check_array(p, name, ndim=ndim, min_features=1)
    if is_traced(p):
        return p
    a = np.asarray(p)
    if (a < 0).any():
        raise ValueError(f"{name} must be non-negative, got a minimum of {a.min()!r}")
    sums = a.sum(axis=-1)
    if not np.allclose(sums, 1.0, rtol=0, atol=SUM_TOL):
        bad = np.atleast_1d(sums)[np.argmax(np.abs(np.atleast_1d(sums) - 1))]
        what = "its rows" if ndim == 2 else "it"
        raise ValueError(f"{name}: {what} must sum to 1, got a sum of {bad!r}")
    return p


def _check_chain(startprob, transmat):
    startprob = _check_distribution(startprob, "startprob", 1)
    transmat = _check_distribution(transmat, "transmat", 2)
    K = startprob.shape[0]
    if transmat.shape != (K, K):
        raise ValueError(f"transmat must have shape ({K}, {K}) for {K} states, got {transmat.shape}")
    dtype = jnp.result_type(startprob.dtype, transmat.dtype)
    return startprob.astype(dtype), transmat.astype(dtype)


def categorical_hmm(startprob, transmat, emissionprob) -> CategoricalHMMParams:
    """Build (and check) a categorical HMM from its probabilities.

    Parameters
    ----------
    startprob : (K,) array
        :math:`\\pi`, non-negative, sums to 1.
    transmat : (K, K) array
        :math:`A`, rows non-negative and summing to 1.
    emissionprob : (K, M) array
        :math:`B`, rows non-negative and summing to 1.

    Returns
    -------
    CategoricalHMMParams

    Raises
    ------
    ValueError
        A shape that does not match ``K``, a negative entry, or a vector that does not sum to 1
        (to :data:`SUM_TOL`), naming the argument.

    Examples
    --------
    >>> p = categorical_hmm([0.5, 0.5], [[0.9, 0.1], [0.2, 0.8]], [[0.7, 0.3], [0.1, 0.9]])
    >>> p.emissionprob.shape
    (2, 2)

    References
    ----------
    Rabiner (1989), §II (the model's parameters).
    """
    startprob, transmat = _check_chain(startprob, transmat)
    emissionprob = _check_distribution(emissionprob, "emissionprob", 2).astype(startprob.dtype)
    if emissionprob.shape[0] != startprob.shape[0]:
        raise ValueError(f"emissionprob must have {startprob.shape[0]} rows (one per state), got "
                         f"shape {emissionprob.shape}")
    return CategoricalHMMParams(startprob, transmat, emissionprob)


def _covars_shape(covariance_type, K, d):
    return {"full": (K, d, d), "tied": (d, d), "diag": (K, d), "spherical": (K,)}[covariance_type]


def gaussian_hmm(startprob, transmat, means, covars, covariance_type="diag") -> GaussianHMMParams:
    """Build (and check) a Gaussian HMM; the precision Cholesky factors are computed here.

    Parameters
    ----------
    startprob : (K,) array
    transmat : (K, K) array
    means : (K, d) array
    covars : array
        ``full`` (K, d, d); ``tied`` (d, d); ``diag`` (K, d); ``spherical`` (K,); positive
        definite.
    covariance_type : {"full", "tied", "diag", "spherical"}

    Returns
    -------
    GaussianHMMParams
        Of the subclass of ``covariance_type``.

    Raises
    ------
    ValueError
        As :func:`categorical_hmm`, plus covariances of the wrong shape or not positive
        definite.

    Examples
    --------
    >>> p = gaussian_hmm([1.0, 0.0], [[0.5, 0.5], [0.0, 1.0]], [[0.0], [3.0]], [[1.0], [2.0]])
    >>> p.covariance_type
    'diag'

    References
    ----------
    Rabiner (1989), §IV (continuous densities); Bishop (2006), §13.2.
    """
    covariance_type = check_choice(covariance_type, "covariance_type", COVARIANCE_TYPES)
    startprob, transmat = _check_chain(startprob, transmat)
    means = check_array(means, "means").astype(startprob.dtype)
    K, d = means.shape
    if K != startprob.shape[0]:
        raise ValueError(f"means must have {startprob.shape[0]} rows (one per state), got shape "
                         f"{means.shape}")
    covars = check_array(covars, "covars", ndim=(1, 2, 3)).astype(startprob.dtype)
    want = _covars_shape(covariance_type, K, d)
    if covars.shape != want:
        raise ValueError(f"covars must have shape {want} for covariance_type={covariance_type!r}, "
                         f"got {covars.shape}")
    prec_chol = _cov.precision_cholesky(covars, covariance_type)
    if not is_traced(prec_chol) and not bool(jnp.all(jnp.isfinite(prec_chol))):
        raise ValueError(f"covars must be positive definite ({covariance_type})")
    return GAUSSIAN_TYPES[covariance_type](startprob, transmat, means, covars, prec_chol)


def _check_params(params):
    if not isinstance(params, (CategoricalHMMParams, GaussianHMMParams)) or (
            isinstance(params, GaussianHMMParams) and not hasattr(params, "covariance_type")):
        raise TypeError("params must be a CategoricalHMMParams or a GaussianHMMParams subclass "
                        f"(fit_hmm, categorical_hmm, gaussian_hmm), got {type(params).__name__}")


# --------------------------------------------------------------------------- sequences
def pad_sequences(X, lengths=None, *, pad_to=None):
    """Cut a concatenation of sequences (hmmlearn's ``X, lengths``) into a padded block.

    Parameters
    ----------
    X : (n,) or (n, d) array
        The sequences one after the other (host array).
    lengths : sequence of int, optional
        Their lengths, positive, summing to ``n``; ``None`` is one sequence.
    pad_to : int, optional
        Padded length (default the longest sequence), e.g. a bucket size to reuse a compiled
        program.

    Returns
    -------
    Xp : (S, T) or (S, T, d) numpy array
        Padded with zeros.
    mask : (S, T) bool numpy array
        ``True`` on each sequence's own steps.

    Raises
    ------
    ValueError
        ``lengths`` with a non-positive entry (an empty sequence), not summing to ``n``, or
        ``pad_to`` shorter than the longest sequence.

    Examples
    --------
    >>> Xp, mask = pad_sequences(np.arange(5), [2, 3])
    >>> Xp.tolist(), mask.sum(axis=1).tolist()
    ([[0, 1, 0], [2, 3, 4]], [2, 3])

    References
    ----------
    hmmlearn's ``lengths`` convention (``hmmlearn.utils.split_X_lengths``).
    """
    X = np.asarray(X)
    n = X.shape[0]
    if lengths is None:
        lengths = np.array([n])
    else:
        lengths = np.asarray(lengths)
        if lengths.ndim != 1 or lengths.size == 0 or lengths.dtype.kind not in "iu":
            raise ValueError(f"lengths must be a non-empty 1-d sequence of ints, got {lengths!r}")
    if n == 0:
        raise ValueError("X must hold at least one observation, got an empty sequence")
    if (lengths <= 0).any():
        raise ValueError(f"lengths must be positive (empty sequences are not allowed), got "
                         f"{lengths[lengths <= 0][0]} at position {int(np.argmax(lengths <= 0))}")
    if int(lengths.sum()) != n:
        raise ValueError(f"lengths must sum to the number of rows of X ({n}), got a sum of "
                         f"{int(lengths.sum())}")
    T = int(lengths.max()) if pad_to is None else int(pad_to)
    if T < lengths.max():
        raise ValueError(f"pad_to must be >= the longest sequence ({int(lengths.max())}), got {T}")
    S = lengths.size
    Xp = np.zeros((S, T) + X.shape[1:], dtype=X.dtype)
    mask = np.arange(T)[None, :] < lengths[:, None]
    Xp[mask] = X
    return Xp, mask


def _default_mask(x, mask):
    if mask is None:
        return jnp.ones(x.shape[0], dtype=bool)
    return jnp.asarray(mask, dtype=bool)


# --------------------------------------------------------------------------- log b
def log_emission(params, x):
    """:math:`\\log b_j(x_t)`, (T, K), for one sequence ``x``.

    Parameters
    ----------
    params : CategoricalHMMParams or GaussianHMMParams
    x : (T,) int array (categorical; symbols outside ``0..M-1`` are clipped, so check them
        first: the estimators and :func:`jaxclassic.graphical.fit_hmm` do) or (T, d) array.

    Returns
    -------
    (T, K) array

    Examples
    --------
    >>> p = categorical_hmm([0.5, 0.5], [[0.9, 0.1], [0.2, 0.8]], [[0.5, 0.5], [0.25, 0.75]])
    >>> np.exp(np.asarray(log_emission(p, jnp.array([1, 0])))).tolist()
    [[0.5, 0.75], [0.5, 0.25]]

    References
    ----------
    Rabiner (1989), eq. (8) and §IV.
    """
    if isinstance(params, CategoricalHMMParams):
        M = params.emissionprob.shape[1]
        return jnp.log(params.emissionprob).T[jnp.clip(x, 0, M - 1)]
    D = x[:, None, :] - params.means[None]
    return _cov.log_gaussian(D, params.precisions_cholesky, params.covariance_type)


# --------------------------------------------------------------------------- recursions
def _shift(a, axis=0):
    """The max of ``a`` along the states' ``axis``, 0 where it is not finite (all -inf)."""
    m = jnp.max(a, axis=axis)
    return jnp.where(jnp.isfinite(m), m, 0.0)


def _batch_dims(v, nb):
    """``v`` with ``nb`` trailing axes of length 1 (to broadcast against the sequences' axes)."""
    return v.reshape(v.shape + (1,) * nb)


# The recursions take the observations ``x`` (T, *batch[, d]), an ``emit`` function giving the
# log-emissions (K, *batch) of one time slice, and a mask (T, *batch): one sequence (batch = ())
# or many in the batch-minor layout (K, S) per step, where every step is one (K, K) @ (K, S)
# product and the reductions over states run across contiguous rows of S values (2x faster on
# the CPU than a vmap of the one-sequence recursion). The emissions are computed inside the
# steps: a (T, K, S) block of them would cost more memory traffic than the recursion itself.
def _emitter(params):
    """``x_t (*batch[, d]) -> log b(x_t) (K, *batch)``."""
    if isinstance(params, CategoricalHMMParams):
        log_B = jnp.log(params.emissionprob)
        M = log_B.shape[1]
        return lambda x_t: jnp.take(log_B, jnp.clip(x_t, 0, M - 1), axis=1)
    means, prec_chol, ct = params.means, params.precisions_cholesky, params.covariance_type

    def emit(x_t):
        batch = x_t.shape[:-1]
        D = x_t.reshape(-1, 1, x_t.shape[-1]) - means[None]
        log_b = _cov.log_gaussian(D, prec_chol, ct)  # (n, K)
        return jnp.moveaxis(log_b.reshape(batch + (-1,)), -1, 0)

    return emit


def _forward_log(log_pi, A, emit, x, mask):
    """``log_alpha`` (T, K, *batch) and ``log p(x)`` (*batch) (module docstring)."""
    la0 = _batch_dims(log_pi, mask.ndim - 1) + emit(x[0])
    AT = A.T

    def step(la, inputs):
        x_t, m_t = inputs
        s = _shift(la)
        new = jnp.log(_precision.matmul(AT, jnp.exp(la - s))) + s + emit(x_t)
        la = jnp.where(m_t, new, la)
        return la, la

    last, las = jax.lax.scan(step, la0, (x[1:], mask[1:]), unroll=UNROLL)
    log_alpha = jnp.concatenate([la0[None], las], axis=0)
    return log_alpha, jax.nn.logsumexp(last, axis=0)


def _backward_log(A, emit, x, mask):
    """``log_beta`` (T, K, *batch) (0 at padded steps) and
    ``log b(x_{t+1}) + log_beta_{t+1}`` (T - 1, K, *batch), the factor of :math:`\\xi`."""
    end = jnp.zeros((A.shape[0],) + mask.shape[1:], dtype=A.dtype)

    def step(lb_next, inputs):
        x_next, m_next = inputs
        v = emit(x_next) + lb_next
        s = _shift(v)
        new = jnp.log(_precision.matmul(A, jnp.exp(v - s))) + s
        lb = jnp.where(m_next, new, 0.0)
        return lb, (lb, v)

    _, (lbs, vs) = jax.lax.scan(step, end, (x[1:], mask[1:]), reverse=True, unroll=UNROLL)
    return jnp.concatenate([lbs, end[None]], axis=0), vs


def _step_norm(log_alpha, log_beta):
    """:math:`c_t = \\log\\sum_k\\alpha_t(k)\\beta_t(k)` (T, *batch): :math:`\\log p(x)` at every
    step in exact arithmetic. The posteriors divide by :math:`c_t` of their own step, not by
    the one :math:`\\log p(x)` of the last: the rounding of :math:`\\log\\alpha_t` and
    :math:`\\log\\beta_t` (absolute, growing with :math:`|\\log\\alpha_t| \\propto t`) then cancels
    and float32 posteriors of a 10,000-step sequence stay at rounding level (they were off by
    up to 0.08 against float64)."""
    c = jax.nn.logsumexp(log_alpha + log_beta, axis=1)
    return jnp.where(jnp.isfinite(c), c, 0.0)


def _gamma(log_alpha, log_beta, ll, mask):
    g = jnp.exp(log_alpha + log_beta - _step_norm(log_alpha, log_beta)[:, None])
    return jnp.where(mask[:, None] & jnp.isfinite(ll), g, 0.0)


def _xi_factors(log_alpha, log_beta, v, ll, mask):
    """``U``, ``V`` (T-1, K, *batch) and weights ``w`` (T-1, *batch) with
    :math:`\\xi_t = w_t\\,A \\odot U_t V_t^\\top` (shifted exponentials, module docstring);
    ``v`` is the second output of :func:`_backward_log`. :math:`\\sum_{ij}\\alpha_{t-1}(i)A_{ij}
    b_j(x_t)\\beta_t(j) = \\sum_j\\alpha_t(j)\\beta_t(j)`, so ``w`` divides by :math:`e^{c_t}`
    (:func:`_step_norm`) instead of :math:`p(x)`, for the same float32 reason."""
    a = log_alpha[:-1]
    s, r = _shift(a, axis=1), _shift(v, axis=1)
    U = jnp.exp(a - s[:, None])
    V = jnp.exp(v - r[:, None])
    c = _step_norm(log_alpha, log_beta)[1:]
    w = jnp.where(mask[1:] & jnp.isfinite(ll), jnp.exp(s + r - c), 0.0)
    return U, V, w


def _expected_counts(log_pi, A, emit, x, mask, weight):
    """The E-step of many sequences (batch-minor, ``x`` (T, S[, d])) with weights ``weight``
    (S,), a weight 0 ignoring its sequence even at probability 0: ``(sum_s w_s log p(x_s),
    weighted gamma (T, K, S), weighted sum_{s,t} xi (K, K))``. The sum over time and sequences
    is one contraction of the shifted factors."""
    log_alpha, ll = _forward_log(log_pi, A, emit, x, mask)
    log_beta, v = _backward_log(A, emit, x, mask)
    used = weight > 0
    total = jnp.sum(jnp.where(used, weight * ll, 0.0))
    gamma = jnp.where(used, weight * _gamma(log_alpha, log_beta, ll, mask), 0.0)
    U, V, w = _xi_factors(log_alpha, log_beta, v, ll, mask)
    w = jnp.where(used, weight * w, 0.0)
    trans = A * _precision.einsum("tis,tjs->ij", U, w[:, None] * V)
    return total, gamma, trans


def _viterbi_log(log_pi, log_A, emit, x, mask):
    """Best paths (T, *batch) (-1 at padded steps) and their log-probabilities (*batch)."""
    K, nb = log_A.shape[0], mask.ndim - 1
    d0 = _batch_dims(log_pi, nb) + emit(x[0])
    LA = _batch_dims(log_A, nb)
    states = _batch_dims(jnp.arange(K), nb)

    def step(delta, inputs):
        x_t, m_t = inputs
        scores = delta[:, None] + LA  # [i, j]: from i to j
        back = jnp.argmax(scores, axis=0)
        new = jnp.max(scores, axis=0) + emit(x_t)
        return jnp.where(m_t, new, delta), jnp.where(m_t, back, states)

    last_delta, backs = jax.lax.scan(step, d0, (x[1:], mask[1:]), unroll=UNROLL)
    last = jnp.argmax(last_delta, axis=0)

    def back_step(state, back):
        prev = jnp.take_along_axis(back, state[None], axis=0)[0]
        return prev, prev

    _, earlier = jax.lax.scan(back_step, last, backs, reverse=True)
    path = jnp.concatenate([earlier, last[None]], axis=0)
    log_prob = jnp.take_along_axis(last_delta, last[None], axis=0)[0]
    return jnp.where(mask, path, -1).astype(jnp.int32), log_prob


def _time_major(Xp):
    """Padded sequences (S, T[, d]) as (T, S[, d])."""
    return jnp.swapaxes(Xp, 0, 1)


@_jit.jit
def _batch_log_likelihood(params, Xp, mask):
    """``log p(x_s)`` (S,) of padded sequences ``Xp`` (S, T[, d]) with ``mask`` (S, T)."""
    return _forward_log(jnp.log(params.startprob), params.transmat, _emitter(params),
                        _time_major(Xp), mask.T)[1]


@_jit.jit
def _batch_gamma(params, Xp, mask):
    """``(gamma (S, T, K), log p(x_s) (S,))`` of padded sequences."""
    emit, x = _emitter(params), _time_major(Xp)
    log_alpha, ll = _forward_log(jnp.log(params.startprob), params.transmat, emit, x, mask.T)
    log_beta, _ = _backward_log(params.transmat, emit, x, mask.T)
    return jnp.transpose(_gamma(log_alpha, log_beta, ll, mask.T), (2, 0, 1)), ll


@_jit.jit
def _batch_viterbi(params, Xp, mask):
    """``(paths (S, T), log p(z*, x_s) (S,))`` of padded sequences."""
    path, log_prob = _viterbi_log(jnp.log(params.startprob), jnp.log(params.transmat),
                                  _emitter(params), _time_major(Xp), mask.T)
    return path.T, log_prob


# --------------------------------------------------------------------------- public
def _prepare(params, x, mask):
    _check_params(params)
    if isinstance(params, CategoricalHMMParams):
        if not is_traced(x):
            x = check_array(x, "x", ndim=1, numeric="int")
    else:
        x = check_array(x, "x", ndim=2, dtype=jnp.asarray(params.means).dtype)
        if x.shape[1] != params.means.shape[1]:
            raise ValueError(f"x has {x.shape[1]} features, but the model has "
                             f"{params.means.shape[1]}")
    if x.shape[0] < 1:
        raise ValueError("x must hold at least one step, got an empty sequence")
    mask = _default_mask(x, mask)
    if mask.shape != (x.shape[0],):
        raise ValueError(f"mask must have shape ({x.shape[0]},), got {mask.shape}")
    return x, mask


@_jit.jit
def _forward(params, x, mask):
    return _forward_log(jnp.log(params.startprob), params.transmat, _emitter(params), x, mask)


def forward(params, x, mask=None):
    """The forward pass in log space: :math:`\\log\\alpha_t(j) = \\log p(x_{0:t}, z_t = j)`.

    :math:`\\log\\alpha_0 = \\log\\pi + \\log b(x_0)`, :math:`\\log\\alpha_t(j) = \\log b_j(x_t) +
    \\log\\sum_i\\alpha_{t-1}(i)A_{ij}` (a ``lax.scan``; module docstring for the shifted
    product), :math:`\\log p(x) = \\operatorname{logsumexp}_j\\log\\alpha_{T-1}(j)`.

    Parameters
    ----------
    params : CategoricalHMMParams or GaussianHMMParams
    x : (T,) int or (T, d) array
        One sequence (vmap for many).
    mask : (T,) bool array, optional
        ``True`` on the sequence's steps, a prefix; padded steps carry ``alpha`` unchanged.

    Returns
    -------
    log_alpha : (T, K) array
    log_likelihood : scalar

    Examples
    --------
    >>> p = categorical_hmm([0.5, 0.5], [[0.9, 0.1], [0.2, 0.8]], [[0.5, 0.5], [0.25, 0.75]])
    >>> la, ll = forward(p, jnp.array([1]))
    >>> round(float(jnp.exp(ll)), 3)
    0.625

    References
    ----------
    Rabiner (1989), eqs. (19)-(21); Bishop (2006), eq. (13.36).
    """
    x, mask = _prepare(params, x, mask)
    return _forward(params, x, mask)


@_jit.jit
def _backward(params, x, mask):
    return _backward_log(params.transmat, _emitter(params), x, mask)[0]


def backward(params, x, mask=None):
    """The backward pass in log space: :math:`\\log\\beta_t(i) = \\log p(x_{t+1:} \\mid z_t = i)`.

    :math:`\\log\\beta_{T-1} = 0`, :math:`\\log\\beta_t(i) = \\log\\sum_j A_{ij}b_j(x_{t+1})
    \\beta_{t+1}(j)` (a reversed ``lax.scan``).

    Parameters
    ----------
    params, x, mask
        As :func:`forward`.

    Returns
    -------
    log_beta : (T, K) array
        0 at padded steps (and at the last step).

    Examples
    --------
    >>> p = categorical_hmm([0.5, 0.5], [[0.9, 0.1], [0.2, 0.8]], [[0.5, 0.5], [0.25, 0.75]])
    >>> lb = backward(p, jnp.array([0, 1]))
    >>> np.round(np.exp(np.asarray(lb[0])), 3).tolist()
    [0.525, 0.7]

    References
    ----------
    Rabiner (1989), eqs. (23)-(25); Bishop (2006), eq. (13.38).
    """
    x, mask = _prepare(params, x, mask)
    return _backward(params, x, mask)


@_jit.jit
def _posterior(params, x, mask):
    emit = _emitter(params)
    log_alpha, ll = _forward_log(jnp.log(params.startprob), params.transmat, emit, x, mask)
    log_beta, v = _backward_log(params.transmat, emit, x, mask)
    U, V, w = _xi_factors(log_alpha, log_beta, v, ll, mask)
    xi = w[:, None, None] * U[:, :, None] * V[:, None, :] * params.transmat[None]
    return Posterior(_gamma(log_alpha, log_beta, ll, mask), xi, ll)


def posterior(params, x, mask=None) -> Posterior:
    """State marginals :math:`\\gamma` and pair marginals :math:`\\xi` of one sequence.

    :math:`\\gamma_t(i) = \\alpha_t(i)\\beta_t(i)/p(x)`,
    :math:`\\xi_t(i,j) = \\alpha_t(i)A_{ij}b_j(x_{t+1})\\beta_{t+1}(j)/p(x)` (forward--backward).

    Parameters
    ----------
    params, x, mask
        As :func:`forward`.

    Returns
    -------
    Posterior
        ``gamma`` (T, K), ``xi`` (T - 1, K, K) and
        ``log_likelihood``. A sequence of probability 0 gives zeros and ``-inf``.

    Examples
    --------
    >>> p = categorical_hmm([0.5, 0.5], [[0.9, 0.1], [0.2, 0.8]], [[0.5, 0.5], [0.25, 0.75]])
    >>> post = posterior(p, jnp.array([0, 1, 1]))
    >>> np.allclose(post.gamma.sum(axis=1), 1.0), np.allclose(post.xi.sum(axis=(1, 2)), 1.0)
    (True, True)

    References
    ----------
    Rabiner (1989), eqs. (26)-(38); Bishop (2006), eqs. (13.33), (13.43).
    """
    x, mask = _prepare(params, x, mask)
    return _posterior(params, x, mask)


def log_likelihood(params, X, lengths=None):
    """Total log-likelihood :math:`\\sum_s\\log p(x^{(s)})` of sequences (hmmlearn's ``score``).

    Parameters
    ----------
    params : CategoricalHMMParams or GaussianHMMParams
    X : (n,) int or (n, d) array
        Sequences one after the other.
    lengths : sequence of int, optional
        Their lengths (:func:`pad_sequences`); ``None`` is one sequence.

    Returns
    -------
    scalar

    Examples
    --------
    >>> p = categorical_hmm([0.5, 0.5], [[0.9, 0.1], [0.2, 0.8]], [[0.5, 0.5], [0.25, 0.75]])
    >>> round(float(jnp.exp(log_likelihood(p, np.array([1, 1]), [1, 1]))), 4)
    0.3906

    References
    ----------
    Rabiner (1989), Problem 1.
    """
    _check_params(params)
    Xp, mask = _host_sequences(params, X, lengths)
    return jnp.sum(_batch_log_likelihood(params, Xp, mask))


def decode(params, X, lengths=None):
    """Viterbi paths of many sequences at once (hmmlearn's ``decode``): one batched scan.

    Parameters
    ----------
    params : CategoricalHMMParams or GaussianHMMParams
    X : (n,) int or (n, d) array
        Sequences one after the other.
    lengths : sequence of int, optional
        Their lengths (:func:`pad_sequences`); ``None`` is one sequence.

    Returns
    -------
    log_prob : scalar
        :math:`\\sum_s \\log p(z^{*(s)}, x^{(s)})`.
    states : (n,) int32 array
        The best path of each sequence, one after the other (as :func:`viterbi` on each).

    Examples
    --------
    >>> p = categorical_hmm([0.5, 0.5], [[0.9, 0.1], [0.2, 0.8]], [[0.9, 0.1], [0.1, 0.9]])
    >>> _, states = decode(p, np.array([0, 0, 1, 1, 1, 0]), [2, 4])
    >>> states.tolist()
    [0, 0, 1, 1, 1, 0]

    References
    ----------
    Rabiner (1989), Problem 2; hmmlearn's ``BaseHMM.decode``.
    """
    _check_params(params)
    Xp, mask = _host_sequences(params, X, lengths)
    paths, log_probs = _batch_viterbi(params, jnp.asarray(Xp), jnp.asarray(mask))
    return jnp.sum(log_probs), jnp.asarray(np.asarray(paths)[mask])


def _host_sequences(params, X, lengths):
    """Check ``X`` for ``params`` and pad it (host side)."""
    if isinstance(params, CategoricalHMMParams):
        X = check_array(X, "X", ndim=(1, 2), numeric="int", _numpy=True)
        if X.ndim == 2:
            if X.shape[1] != 1:
                raise ValueError(f"X of symbols must be (n,) or (n, 1), got shape {X.shape}")
            X = X[:, 0]
        M = params.emissionprob.shape[1]
        if X.size and (X.min() < 0 or X.max() >= M):
            bad = X[(X < 0) | (X >= M)][0]
            raise ValueError(f"X holds symbol {bad}, outside the model's range 0..{M - 1}")
    else:
        X = check_array(X, "X", dtype=np.result_type(params.means), _numpy=True)
        if X.shape[1] != params.means.shape[1]:
            raise ValueError(f"X has {X.shape[1]} features, but the model has "
                             f"{params.means.shape[1]}")
    return pad_sequences(X, lengths)


@_jit.jit
def _viterbi(params, x, mask):
    return _viterbi_log(jnp.log(params.startprob), jnp.log(params.transmat), _emitter(params), x,
                        mask)


def viterbi(params, x, mask=None):
    """The most probable state path :math:`\\arg\\max_z p(z, x)` (max-product, backtracking).

    :math:`\\delta_0 = \\log\\pi + \\log b(x_0)`, :math:`\\delta_t(j) = \\log b_j(x_t) +
    \\max_i(\\delta_{t-1}(i) + \\log A_{ij})` with back-pointers :math:`\\psi_t(j)` (first index
    on ties); :math:`z_{T-1} = \\arg\\max\\delta_{T-1}`, :math:`z_{t-1} = \\psi_t(z_t)`.

    Parameters
    ----------
    params, x, mask
        As :func:`forward`.

    Returns
    -------
    path : (T,) int32 array
        The states (-1 at padded steps).
    log_prob : scalar
        :math:`\\log p(z^*, x)`.

    Examples
    --------
    >>> p = categorical_hmm([0.5, 0.5], [[0.9, 0.1], [0.2, 0.8]], [[0.9, 0.1], [0.1, 0.9]])
    >>> path, _ = viterbi(p, jnp.array([0, 0, 1, 1, 1]))
    >>> path.tolist()
    [0, 0, 1, 1, 1]

    References
    ----------
    Rabiner (1989), eqs. (30)-(35); A. J. Viterbi, IEEE Trans. Inf. Theory 13(2), 1967.
    """
    x, mask = _prepare(params, x, mask)
    return _viterbi(params, x, mask)


@partial(_jit.jit, static_argnames=("n_steps",))
def _sample(params, key, n_steps):
    K = params.startprob.shape[0]
    k_start, k_trans, k_emit = jax.random.split(key, 3)
    z0 = jax.random.categorical(k_start, jnp.log(params.startprob))
    log_A = jnp.log(params.transmat)

    def step(z, k):
        z = jax.random.categorical(k, log_A[z])
        return z, z

    _, rest = jax.lax.scan(step, z0, jax.random.split(k_trans, n_steps - 1))
    states = jnp.concatenate([z0[None], rest]).astype(jnp.int32)
    if isinstance(params, CategoricalHMMParams):
        logits = jnp.log(params.emissionprob)[states]
        X = jax.random.categorical(k_emit, logits).astype(jnp.int32)
        return X, states
    d = params.means.shape[1]
    z = jax.random.normal(k_emit, (n_steps, d), dtype=params.means.dtype)
    ct = params.covariance_type
    if ct == "full":
        L = _linalg.cholesky(params.covars)[states]
        noise = _precision.einsum("tde,te->td", L, z)
    elif ct == "tied":
        noise = _precision.matmul(z, _linalg.cholesky(params.covars).T)
    elif ct == "diag":
        noise = z * jnp.sqrt(params.covars)[states]
    else:
        noise = z * jnp.sqrt(params.covars)[states][:, None]
    del K
    return params.means[states] + noise, states


@key_moved(2)
@renamed_arguments(n_steps="n_samples")
def sample(params, n_samples=1, *, key=None):
    """Draw one sequence of ``n_samples`` states and observations (hmmlearn's ``sample``).

    :math:`z_0 \\sim \\pi`, :math:`z_t \\sim A_{z_{t-1}}`, :math:`x_t \\sim b_{z_t}` (Gaussian:
    :math:`\\mu_{z_t} + L_{z_t}\\epsilon`, :math:`\\Sigma = LL^\\top`). vmap over keys for many.

    Parameters
    ----------
    params : CategoricalHMMParams or GaussianHMMParams
    n_samples : int, default 1
        The sequence's length ``T >= 1`` (static; hmmlearn's ``sample(n_samples=1)``). Its
        0.1 name ``n_steps=`` still works, with a ``DeprecationWarning``, until jaxclassic 0.3.0.
    key : jax.random key, optional
        ``None`` (default): ``jax.random.key(0)``, so calls without a key are deterministic.
        The old order ``sample(params, n_samples, key)`` still works, with a
        ``DeprecationWarning``, until jaxclassic 0.3.0.

    Returns
    -------
    X : (T,) int32 or (T, d) array
    states : (T,) int32 array

    Examples
    --------
    >>> p = categorical_hmm([1.0, 0.0], [[0.0, 1.0], [1.0, 0.0]], [[1.0, 0.0], [0.0, 1.0]])
    >>> X, z = sample(p, 4, key=jax.random.key(0))
    >>> z.tolist(), X.tolist()
    ([0, 1, 0, 1], [0, 1, 0, 1])

    References
    ----------
    Bishop (2006), §13.2.3 (ancestral sampling of the chain).
    """
    _check_params(params)
    n_samples = check_int(n_samples, "n_samples", low=1)
    key = key_from_seed(0) if key is None else check_key(key)
    return _sample(params, key, n_samples)
