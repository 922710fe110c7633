r"""Packed sequences for CRF training: several sentences back to back in one row.

Padding every sequence to the longest wastes the scan's work on padding: on CoNLL-2000
(mean 23 tokens, longest 63, padded to 64) 63% of the positions are padding. Training
packs the sequences into rows of the padded length ``P`` by first-fit decreasing (on
CoNLL-2000: 700 sentences into 258 rows of 64, 0.4% padding), with flags per position:

- ``reset``: the position starts a sequence (or is padding): the forward recursion restarts,
  :math:`\alpha_t = b + u_t` (nothing flows from the previous sentence);
- ``last``: the position ends a sequence: its :math:`\log Z = \operatorname{logsumexp}(\alpha_t + e)`
  enters the objective with the sequence's weight;
- ``seq``: the sequence a position belongs to (``-1`` for padding), to weigh each position
  by its sequence's weight (weights stay traced: a fold of a cross-validation is a new
  weight vector over the same packing).

The objective is the same sum over sequences as the padded one, term for term (tested); one
value-and-gradient costs about a third of the padded form's on CoNLL-2000. log Z uses the
scaled forward pass (:func:`_forward`) and its derivative the hand-derived forward-backward
pass (:func:`log_partition_sum`, a custom JVP), with a log-space fallback
(:func:`_exact_shares`) for weights large enough to underflow the scaled messages; on
CoNLL-2000 (700 sentences, float64) one value-and-gradient takes about 9 ms instead of the
38 ms of autodiff through the log-space scan (``tests/graphical/test_crf_packing.py`` checks
value and gradient against autodiff of the padded log-space form). Packing needs
concrete lengths (it is host-side numpy); :func:`jaxclassic.graphical.crf.fit_crf` packs
whenever ``X``, ``y`` and ``lengths`` are concrete, and otherwise uses the padded form.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxclassic import _precision

__all__ = ["Packed", "log_partition_sum", "pack", "packed_objective"]


class Packed(NamedTuple):
    """Sequences packed into rows: ``X`` ``(R, P, ...)``, ``y``, ``reset``, ``last``, ``seq``
    ``(R, P)``."""

    X: jax.Array
    y: jax.Array
    reset: jax.Array
    last: jax.Array
    seq: jax.Array


def pack(X: np.ndarray, y: np.ndarray, lengths: np.ndarray, row_multiple: int = 8) -> Packed:
    """First-fit-decreasing packing of padded sequences ``X`` ``(n, T, ...)`` into rows of ``T``.

    The number of rows is rounded up to a multiple of ``row_multiple`` (empty rows are all
    padding), so nearby data sizes share a compiled program.
    """
    n, T = X.shape[:2]
    order = np.argsort(-lengths, kind="stable")
    free: list[int] = []
    place = np.zeros((n, 2), np.int64)  # row, offset
    for i in order:
        k = int(lengths[i])
        for r, room in enumerate(free):
            if room >= k:
                break
        else:
            r = len(free)
            free.append(T)
        place[i] = r, T - free[r]
        free[r] -= k
    R = -(-len(free) // row_multiple) * row_multiple
    fill = -1 if np.issubdtype(X.dtype, np.integer) else 0
    Xp = np.full((R, T) + X.shape[2:], fill, X.dtype)
    yp = np.zeros((R, T), np.int32)
    reset = np.ones((R, T), bool)
    last = np.zeros((R, T), bool)
    seq = np.full((R, T), -1, np.int32)
    for i in range(n):
        r, o = place[i]
        k = int(lengths[i])
        Xp[r, o:o + k] = X[i, :k]
        yp[r, o:o + k] = y[i, :k]
        reset[r, o + 1:o + k] = False
        last[r, o + k - 1] = True
        seq[r, o:o + k] = i
    return Packed(jnp.asarray(Xp), jnp.asarray(yp), jnp.asarray(reset), jnp.asarray(last), jnp.asarray(seq))


def _forward(unary, transition, start, reset):
    r"""The scaled forward pass over packed rows (all rows at once, a ``lax.scan`` over positions).

    With :math:`\sigma_j = \max_i A_{ij}`, :math:`W = e^{A - \sigma}` and the potentials
    :math:`G_t = b + u_t` at a sequence's first position, :math:`u_t + \sigma` elsewhere,
    shifted by their largest entry :math:`\mu_t` (:math:`E_t = e^{G_t - \mu_t}`, all positions
    at once, outside the loop), the recursion is
    :math:`v_t = (\hat\alpha_{t-1} W) \odot E_t` (or :math:`E_t` at a start),
    :math:`s_t = \sum_j v_t(j)`, :math:`\hat\alpha_t = v_t / s_t`, so that
    :math:`\alpha_t = \log\hat\alpha_t + \sum_{t' \le t} (\mu_{t'} + \log s_{t'})` over the
    sequence's positions (Rabiner's scaling; no exponential or logarithm inside the loop).
    Returns ``(W, E, alpha_hat, s, mu)``, the last three ``(R, P, ...)``.
    """
    sigma = jax.lax.stop_gradient(jnp.max(transition, axis=0))
    weights = jnp.exp(transition - sigma)
    G = jnp.where(reset[..., None], start + unary, unary + sigma)
    mu = jax.lax.stop_gradient(jnp.max(G, axis=-1))
    E = jnp.exp(G - mu[..., None])
    first = reset.at[:, 0].set(True)

    def step(a, inputs):
        e, r = inputs
        v = jnp.where(r[:, None], e, _precision.matmul(a, weights) * e)
        s = jnp.sum(v, axis=-1)
        a = v / s[:, None]
        return a, (a, s)

    _, (alpha, s) = jax.lax.scan(step, jnp.zeros_like(E[:, 0]), (jnp.swapaxes(E, 0, 1), first.T))
    return weights, E, jnp.swapaxes(alpha, 0, 1), s.T, mu


def _backward(weights, E, end, reset):
    r"""The scaled backward pass: :math:`\hat\beta_t \propto e^{e - \max e}` at a sequence's last
    position, :math:`\hat\beta_t \propto W (E_{t+1} \odot \hat\beta_{t+1})` before it, each
    normalised by its sum :math:`q_t`. Returns ``(beta_hat, q)``, ``(R, P, L)`` and ``(R, P)``."""
    closing = jnp.exp(end - jnp.max(end))
    closing = closing / jnp.sum(closing)
    ends = jnp.concatenate([reset[:, 1:], jnp.ones_like(reset[:, :1])], axis=1)  # next position starts
    after = jnp.concatenate([E[:, 1:], jnp.zeros_like(E[:, :1])], axis=1)  # E_{t+1}

    def step(b, inputs):
        e, r = inputs
        v = jnp.where(r[:, None], closing, _precision.matmul(e * b, weights.T))
        q = jnp.sum(v, axis=-1)
        b = v / q[:, None]
        return b, (b, q)

    _, (beta, q) = jax.lax.scan(step, jnp.zeros_like(E[:, 0]) + closing,  # row-shaped (and -placed)
                                (jnp.swapaxes(after, 0, 1), ends.T), reverse=True)
    return jnp.swapaxes(beta, 0, 1), q.T


def _closing(alpha, end, last):
    """Each position's ``log sum_j alpha_hat(j) e^{end_j}`` term of log Z (only at ``last``)."""
    top = jnp.max(end)
    return jnp.where(last, jnp.log(jnp.sum(alpha * jnp.exp(end - top), axis=-1)) + top, 0.0)


def _per_position(alpha, s, mu, end, last):
    """Each position's share of its sequence's log Z: ``mu_t + log s_t`` (+ the closing term at
    the last position); summed over a sequence's positions it is the sequence's log Z."""
    return mu + jnp.log(s) + _closing(alpha, end, last)


def _small(x, inside):
    """Whether a normaliser of a position inside a sequence fell below ``tiny / eps`` (or is
    not finite: once a sum underflows to 0, everything after it is NaN)."""
    info = jnp.finfo(x.dtype)
    return jnp.any(inside & ~(x >= info.tiny / info.eps))


def _exact_shares(unary, transition, start, end, reset, last):
    r"""Each position's share of log Z in log space (the textbook
    :math:`\alpha_t = u_t + \operatorname{logsumexp}_i(\alpha_{t-1}(i) + A_{ij})`, no underflow):
    the sequence's log Z at its last position, 0 elsewhere. ``(R, P)``; the fallback of
    :func:`log_partition_sum` when the scaled passes lose precision."""
    def step(alpha, inputs):
        u, r = inputs
        moved = u + jax.nn.logsumexp(alpha[:, :, None] + transition, axis=1)
        alpha = jnp.where(r[:, None], start + u, moved)
        return alpha, alpha

    first = reset.at[:, 0].set(True)
    # checkpointed: the residuals of differentiating the (R, L, L) logsumexp at every position
    # would size XLA's temporary buffer for every call, taken branch or not (+5 ms a gradient
    # on CoNLL-2000); recomputed, only alpha is kept
    _, alpha = jax.lax.scan(jax.checkpoint(step), jnp.zeros_like(unary[:, 0]), (jnp.swapaxes(unary, 0, 1), first.T))
    log_z = jax.nn.logsumexp(jnp.swapaxes(alpha, 0, 1) + end, axis=-1)
    return jnp.where(last, log_z, 0.0)


def _weighted(share, weight, inside):
    return jnp.sum(jnp.where(inside & (weight > 0), weight * share, 0.0))


@jax.custom_jvp
def log_partition_sum(unary, transition, start, end, weight, reset, last, inside):
    r""":math:`\sum_i s_i \log Z(x_i)` over the sequences packed in rows, and whether the scaled
    forward pass lost precision (1.0) or not (0.0).

    ``unary`` ``(R, P, L)``; ``weight`` ``(R, P)`` each position's sequence weight (the same
    on all of a sequence's positions; 0 for padding); ``reset`` / ``last`` / ``inside``
    ``(R, P)`` bool: a sequence starts / ends / the position is not padding. The value is
    :math:`\sum_t s_t(\mu_t + \log s_t)` plus the closing terms (:func:`_forward`); when a
    normaliser falls below ``tiny / eps`` (weights so large that the scaled messages lose
    precision: about 71 nats in float32, 672 in float64) the shares are recomputed in log
    space (:func:`_exact_shares`, one branch for the whole batch). Its derivative is the
    hand-derived forward-backward one (:func:`_log_partition_sum_jvp`), not autodiff through
    the loop.
    """
    _, _, alpha, s, mu = _forward(unary, transition, start, reset)
    bad = _small(s, inside)
    share = jax.lax.cond(bad, lambda: _exact_shares(unary, transition, start, end, reset, last),
                         lambda: _per_position(alpha, s, mu, end, last))
    return _weighted(share, weight, inside), bad.astype(unary.dtype)


@log_partition_sum.defjvp
def _log_partition_sum_jvp(primals, tangents):
    r"""Tangent of :math:`\sum_i s_i \log Z_i`: with the node marginals
    :math:`p_t = \hat\alpha_t \odot \hat\beta_t / n_t`, :math:`n_t = \hat\alpha_t\cdot\hat\beta_t`,
    and the pair marginals
    :math:`\xi_t(i, j) = \hat\alpha_{t-1}(i) W_{ij} E_t(j) \hat\beta_t(j) / (s_t n_t)`,
    :math:`d\log Z = \sum_t p_t\cdot du_t + \sum_t \langle\xi_t, dA\rangle + p_{first}\cdot db
    + p_{last}\cdot de` (Sutton & McCallum 2012, sec. 4.1), weighted by each sequence's
    :math:`s_i`; a weight's own tangent multiplies its position's share of log Z. The pair
    sums over all positions are one matrix product. The coefficients (the weighted marginals)
    are primal values: when a normaliser of either pass, or an :math:`n_t`, falls below
    ``tiny / eps``, they come from autodiff of the log-space :func:`_exact_shares` instead
    (a ``cond`` choosing between the coefficients, so no tangent passes through a branch;
    the scaled ones are formed outside it: work inside a branch costs more on XLA:CPU)."""
    unary, transition, start, end, weight, reset, last, inside = primals
    du, dA, db, de, dw = tangents[:5]
    live = inside & (weight > 0)
    w = jnp.where(live, weight, 0.0)
    weights, E, alpha, s, mu = _forward(unary, transition, start, reset)
    beta, q = _backward(weights, E, end, reset)
    n = jnp.sum(alpha * beta, axis=-1)
    bad = _small(s, inside) | _small(q, inside) | _small(n, inside)

    def scaled():
        safe_n = jnp.where(live, n, 1.0)
        node = alpha * beta * (w / safe_n)[..., None]  # s_i p_t, (R, P, L)
        into = jnp.where((live & ~reset)[..., None],  # a transition enters position t
                         E * beta * (w / (jnp.where(live, s, 1.0) * safe_n))[..., None], 0.0)
        before = jnp.concatenate([jnp.zeros_like(alpha[:, :1]), alpha[:, :-1]], axis=1)  # alpha_hat_{t-1}
        L = unary.shape[-1]
        pair = weights * _precision.matmul(before.reshape(-1, L).T, into.reshape(-1, L))  # sum_t s_i xi_t
        return (node, pair, jnp.where(reset[..., None], node, 0.0).sum(axis=(0, 1)),
                jnp.where(last[..., None], node, 0.0).sum(axis=(0, 1)), _per_position(alpha, s, mu, end, last))

    def exact(u, A, b, e):
        # with the rows split over devices (shard_map) the weights must vary like the rows
        # (adding zeros placed as they are), so that this gradient is this device's share, as
        # the scaled one is, and the caller's psum adds the shares; a no-op otherwise
        A, b, e = (a + jnp.zeros_like(u, shape=a.shape) for a in (A, b, e))

        def total(u, A, b, e):
            share = _exact_shares(u, A, b, e, reset, last)
            return _weighted(share, weight, inside), share
        grads, share = jax.grad(total, argnums=(0, 1, 2, 3), has_aux=True)(u, A, b, e)
        return (*grads, share)

    fast = scaled()
    node, pair, first, final, share = jax.lax.cond(bad, exact, lambda *_: fast, unary, transition, start, end)
    value = _weighted(share, weight, inside)
    d_value = (jnp.sum(node * du) + jnp.sum(pair * dA) + jnp.sum(first * db) + jnp.sum(final * de)
               + jnp.sum(jnp.where(live, share, 0.0) * dw))
    out = (value, bad.astype(unary.dtype))
    return out, (d_value, jnp.zeros_like(out[1]))


def _gold_score(theta, unary, packed: Packed, weight):
    r""":math:`\sum_i s_i\,s(y_i \mid x_i)`: the weighted scores of the gold labellings."""
    _, transition, start, end = theta
    y = packed.y
    live = weight > 0
    emit = jnp.take_along_axis(unary, y[..., None], axis=-1)[..., 0]
    inner = live[:, 1:] & ~packed.reset[:, 1:]
    return (jnp.where(live, weight * emit, 0.0).sum()
            + jnp.where(inner, weight[:, 1:] * transition[y[:, :-1], y[:, 1:]], 0.0).sum()
            + jnp.where(live & packed.reset, weight * start[y], 0.0).sum()
            + jnp.where(live & packed.last, weight * end[y], 0.0).sum())


def packed_objective(theta, packed: Packed, c2, sample_weight, unary_fn, axis_name=None):
    r""":math:`(\sum_i s_i\,\mathrm{NLL}_i + c_2\lVert\theta\rVert^2)/\sum_i s_i` on packed rows:
    log Z from :func:`log_partition_sum` (scaled passes, log-space fallback, hand-derived
    forward-backward derivative) minus the weighted gold scores. With ``axis_name`` the rows
    are this device's block (``shard_map``, :mod:`jaxclassic._cores`): the data term is summed
    over the devices (``sample_weight`` is the whole, replicated)."""
    weight = jnp.where(packed.seq >= 0, sample_weight[jnp.clip(packed.seq, 0, None)], 0.0)
    emission, transition, start, end = theta
    unary = jax.vmap(lambda x: unary_fn(emission, x))(packed.X)  # (R, P, L)
    log_z, _ = log_partition_sum(unary, transition, start, end, weight, packed.reset, packed.last,
                                 packed.seq >= 0)
    data = log_z - _gold_score(theta, unary, packed, weight)
    if axis_name is not None:
        data = jax.lax.psum(data, axis_name)
    penalty = sum(jnp.sum(jnp.square(w)) for w in theta)
    return (data + c2 * penalty) / jnp.sum(sample_weight)
