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
value-and-gradient costs about a third of the padded form's on CoNLL-2000. Packing needs
concrete lengths (it is host-side numpy); :func:`jaxclassic.graphical.crf.fit_crf` packs
whenever ``X``, ``y`` and ``lengths`` are concrete, and otherwise uses the padded form.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

__all__ = ["Packed", "pack", "packed_objective"]


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


def _row_nll(theta, x, y, reset, last, weight, unary_fn, advance, advance_exact=None):
    """Weighted sum of the NLLs of the sequences packed in one row, and whether the fast
    forward step lost precision (``advance`` returns ``(alpha, lost)``; with
    ``advance_exact`` given, the textbook step is used instead and the flag is False)."""
    emission, transition, start, end = theta
    unary = unary_fn(emission, x)  # (P, L)
    shift = jax.lax.stop_gradient(jnp.max(transition, axis=0))
    weights = jnp.exp(transition - shift)

    def step(carry, inputs):
        alpha, bad = carry
        u_t, r_t = inputs
        if advance_exact is None:
            moved, lost = advance(alpha, u_t, weights, shift)
        else:
            moved, lost = advance_exact(alpha, u_t, transition), False
        new = jnp.where(r_t, start + u_t, moved)
        return (new, bad | (~r_t & lost)), new

    alpha0 = start + unary[0]
    (_, bad), alphas = jax.lax.scan(step, (alpha0, jnp.zeros((), bool)), (unary[1:], reset[1:]))
    alphas = jnp.concatenate([alpha0[None], alphas])
    live = weight > 0
    log_z = jax.nn.logsumexp(alphas + end, axis=1)
    emit = jnp.take_along_axis(unary, y[:, None], axis=1)[:, 0]
    inner = live[1:] & ~reset[1:]  # a transition inside a sequence
    score = (jnp.where(live, weight * emit, 0.0).sum()
             + jnp.where(inner, weight[1:] * transition[y[:-1], y[1:]], 0.0).sum()
             + jnp.where(live & reset, weight * start[y], 0.0).sum()
             + jnp.where(live & last, weight * end[y], 0.0).sum())
    return jnp.where(live & last, weight * log_z, 0.0).sum() - score, bad


def packed_objective(theta, packed: Packed, c2, sample_weight, unary_fn, advance, advance_exact):
    r""":math:`(\sum_i s_i\,\mathrm{NLL}_i + c_2\lVert\theta\rVert^2)/\sum_i s_i` on packed rows.

    ``advance(alpha, u_t, weights, shift) -> (alpha, lost)`` is the fast forward step
    (:func:`jaxclassic.graphical.crf._advance_checked`); when it reports lost precision
    anywhere in the batch (weights so large that a path's shifted weight underflows), every
    row is recomputed with ``advance_exact(alpha, u_t, transition)`` (one branch for the
    batch: a ``cond`` inside the vmap would run both).
    """
    weight = jnp.where(packed.seq >= 0, sample_weight[jnp.clip(packed.seq, 0, None)], 0.0)

    def rows(exact):
        fn = lambda x, y, r, l, w: _row_nll(theta, x, y, r, l, w, unary_fn, advance,  # noqa: E731
                                            advance_exact if exact else None)
        return jax.vmap(fn)(packed.X, packed.y, packed.reset, packed.last, weight)

    fast, bad = rows(False)
    data = jax.lax.cond(jnp.any(bad), lambda: jnp.sum(rows(True)[0]), lambda: jnp.sum(fast))
    penalty = sum(jnp.sum(jnp.square(w)) for w in theta)
    return (data + c2 * penalty) / jnp.sum(sample_weight)
