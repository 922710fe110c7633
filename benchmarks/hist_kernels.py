"""The histogram kernel of the tree engine, in the variants measured for issue 9.

One tree level needs, for every (active node, feature, bin), the sums of the rows' statistics
(class counts, ``[w, wy, wy^2]`` or ``[g, h]``). Each function below computes the same
``(L, F, B, S)`` array from feature-major codes ``(F, n)``, statistics ``(n, S)`` and a
per-row node slot ``(n,)`` in ``[0, L)``; ``benchmarks/bench_tree.py`` times them on the CPU and
``benchmarks/gpu_check.py`` on an accelerator (``../shared/notes/histogram-kernel.md`` holds the
first CPU measurements).

Variants:

* ``scan_segment_sum``: ``lax.scan`` over features, one ``segment_sum`` of the stacked
  statistics into ``L*B`` slots per feature (a small, cache-resident target).
* ``flat_segment_sum``: one ``segment_sum`` of ``n*F`` updates into ``L*F*B`` slots.
* ``scatter_add``: ``zeros.at[node, f, code].add(stats)`` (XLA scatter, one call).
* ``onehot_matmul``: per feature, ``onehot(code)^T @ (stats (x) onehot(node))`` in row chunks:
  dense products (tensor cores on a GPU; hopeless on a CPU).
* ``sort_segment_sum``: rows sorted by (node, code) per feature, sums over sorted segments.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp

__all__ = ["VARIANTS", "make_inputs", "reference_numpy"]


def _check(codes_T, stats, node):
    return codes_T.shape[0], stats.shape[1]


@functools.partial(jax.jit, static_argnames=("n_nodes", "n_bins"))
def scan_segment_sum(codes_T, stats, node, *, n_nodes, n_bins):
    n_features, n_stats = _check(codes_T, stats, node)
    base = node * n_bins

    def step(_, codes):
        return None, jax.ops.segment_sum(stats, base + codes.astype(jnp.int32),
                                         num_segments=n_nodes * n_bins)

    _, out = jax.lax.scan(step, None, codes_T)               # (F, L*B, S)
    return out.reshape(n_features, n_nodes, n_bins, n_stats).transpose(1, 0, 2, 3)


@functools.partial(jax.jit, static_argnames=("n_nodes", "n_bins"))
def flat_segment_sum(codes_T, stats, node, *, n_nodes, n_bins):
    n_features, n_stats = _check(codes_T, stats, node)
    f = jnp.arange(n_features, dtype=jnp.int32)[:, None]
    ids = (node[None, :] * n_features + f) * n_bins + codes_T.astype(jnp.int32)   # (F, n)
    upd = jnp.broadcast_to(stats[None], (n_features,) + stats.shape).reshape(-1, n_stats)
    out = jax.ops.segment_sum(upd, ids.reshape(-1), num_segments=n_nodes * n_features * n_bins)
    return out.reshape(n_nodes, n_features, n_bins, n_stats)


@functools.partial(jax.jit, static_argnames=("n_nodes", "n_bins"))
def scatter_add(codes_T, stats, node, *, n_nodes, n_bins):
    n_features, n_stats = _check(codes_T, stats, node)
    out = jnp.zeros((n_nodes, n_features, n_bins, n_stats), stats.dtype)
    f = jnp.arange(n_features, dtype=jnp.int32)[:, None]
    return out.at[node[None, :], f, codes_T.astype(jnp.int32)].add(
        jnp.broadcast_to(stats[None], (n_features,) + stats.shape))


@functools.partial(jax.jit, static_argnames=("n_nodes", "n_bins", "chunk"))
def onehot_matmul(codes_T, stats, node, *, n_nodes, n_bins, chunk=65536):
    n_features, n_stats = _check(codes_T, stats, node)
    n = stats.shape[0]
    pad = (-n) % chunk
    codes_T = jnp.pad(codes_T, ((0, 0), (0, pad)))
    # padded rows carry zero statistics, so their bin does not matter
    rhs = (stats[:, None, :] * jax.nn.one_hot(node, n_nodes, dtype=stats.dtype)[:, :, None])
    rhs = jnp.pad(rhs.reshape(n, n_nodes * n_stats), ((0, pad), (0, 0)))
    n_chunks = (n + pad) // chunk
    rhs = rhs.reshape(n_chunks, chunk, -1)

    def per_feature(codes):
        codes = codes.reshape(n_chunks, chunk)

        def body(acc, xs):
            c, r = xs
            onehot = jax.nn.one_hot(c, n_bins, dtype=stats.dtype)          # (chunk, B)
            return acc + jnp.matmul(onehot.T, r, precision=jax.lax.Precision.HIGHEST), None

        acc, _ = jax.lax.scan(body, jnp.zeros((n_bins, n_nodes * n_stats), stats.dtype),
                              (codes, rhs))
        return acc

    out = jax.lax.map(per_feature, codes_T)                  # (F, B, L*S)
    return out.reshape(n_features, n_bins, n_nodes, n_stats).transpose(2, 0, 1, 3)


@functools.partial(jax.jit, static_argnames=("n_nodes", "n_bins"))
def sort_segment_sum(codes_T, stats, node, *, n_nodes, n_bins):
    n_features, n_stats = _check(codes_T, stats, node)

    def step(_, codes):
        key = node * n_bins + codes.astype(jnp.int32)
        order = jnp.argsort(key)
        return None, jax.ops.segment_sum(stats[order], key[order], num_segments=n_nodes * n_bins,
                                         indices_are_sorted=True)

    _, out = jax.lax.scan(step, None, codes_T)
    return out.reshape(n_features, n_nodes, n_bins, n_stats).transpose(1, 0, 2, 3)


VARIANTS = {
    "scan_segment_sum": scan_segment_sum,
    "flat_segment_sum": flat_segment_sum,
    "scatter_add": scatter_add,
    "onehot_matmul": onehot_matmul,
    "sort_segment_sum": sort_segment_sum,
}


def make_inputs(n, n_features, n_bins, n_nodes, n_stats=2, seed=0):
    """Random codes ``(F, n)`` uint8, statistics ``(n, S)`` float32 and node slots ``(n,)``."""
    k1, k2, k3 = jax.random.split(jax.random.key(seed), 3)
    codes_T = jax.random.randint(k1, (n_features, n), 0, n_bins).astype(jnp.uint8)
    stats = jax.random.normal(k2, (n, n_stats), jnp.float32)
    node = jax.random.randint(k3, (n,), 0, n_nodes).astype(jnp.int32)
    return codes_T, stats, node


def reference_numpy(codes_T, stats, node, n_nodes, n_bins):
    """``np.add.at`` in float64: the independent reference of every variant."""
    import numpy as np

    codes_T, stats, node = (np.asarray(a) for a in (codes_T, stats, node))
    out = np.zeros((n_nodes, codes_T.shape[0], n_bins, stats.shape[1]))
    for f in range(codes_T.shape[0]):
        np.add.at(out[:, f], (node, codes_T[f].astype(np.int64)), stats.astype(np.float64))
    return out
