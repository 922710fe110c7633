r"""The histogram kernel as a Pallas (Triton) kernel for GPUs, and the choice of kernel.

The engine's histograms (:func:`jaxclassic.tree._engine._hist`, ``_hist_rows``) are, per
feature :math:`f`, slot :math:`s` and bin :math:`b`, the sums

.. math:: H_{f, b, s, :} = \sum_{i:\ \mathrm{code}_{f i} = b,\ \mathrm{slot}_i = s}
          \mathrm{stats}_{i, :}

(rows with ``slot == n_slots`` dropped). On a CPU the plain-JAX form (a ``lax.scan`` over
features of one ``segment_sum`` each, ``shared/notes/histogram-kernel.md``) is the measured
fastest: XLA:CPU's scatter is a serial loop and a per-feature target stays in cache. On a GPU
that form is one scatter launch per feature (a sequential scan), with the index arithmetic
and, for ``_hist_rows``, the gather of the codes at the compacted rows as passes of their
own. This kernel does the whole pass in one launch:

* the grid is ``(ceil(m / block), F)``: each program instance takes ``block`` consecutive rows
  (a power of 2, as Triton needs) of one feature, loads their codes (for ``_hist_rows``: a
  gather of the feature's codes at the compacted row indices), slots and statistics, and
* adds every row's ``S1`` statistics into the flat ``(F · n_codes · n_slots · S1)`` output
  in global memory with ``atomic_add`` (``jax.experimental.pallas.triton``), masked for the
  dropped rows and the rows past the end (loads are clamped in range instead of masked).

Why global atomics and not a per-block private histogram in shared memory reduced afterwards:
a private histogram is ``n_codes · n_slots · S1`` words (257 · 64 · 3 float32 = 197 KB at 64
slots: most of an H100 SM's 228 KB, and beyond it at 128 slots or in float64), and
Pallas-Triton offers no scatter into a scratch buffer. The atomic adds of one feature's rows
spread over ``n_codes · n_slots`` addresses, so their contention is that of the data's bin
skew (worst at the root: one slot). Atomic float adds land in an arbitrary order: the sums
equal the plain-JAX ones exactly for integer-valued statistics (counts, integer weights;
exact below :math:`2^{24}` in float32) and to float rounding otherwise, and are not
bit-reproducible run to run on a GPU. Whether this beats XLA's scatter on a GPU is not
measured (no GPU was lent for it): ``benchmarks/gpu_check.py`` is where to time it.

``interpret=True`` runs the same kernel on any backend through Pallas' interpreter (tests on
the CPU). jax 0.10.2's interpreter rule for ``atomic_rmw`` with a vector index reads, adds
and writes the indexed entries (duplicate indices of one vector lose all but one update)
and rejects masks, so in interpret mode the block's atomic adds are issued one element at a
time (scalar index; a masked row adds 0 at index 0): the same per-element atomic semantics,
the index, mask and gather logic unchanged.

The choice (:func:`kernel_choice`): ``HIST_KERNEL`` (this module's flag) if set, else the
environment variable ``JAXCLASSIC_HIST_KERNEL``, else ``"pallas"`` when
``jax.default_backend() == "gpu"`` and a one-off probe passes (the kernel compiles there and
equals the XLA kernel on a small case; else a warning and the XLA kernel), ``"xla"``
otherwise. Values: ``"xla"``, ``"pallas"``, ``"pallas-interpret"`` (the Pallas kernel in
interpret mode: tests). It is read when a
function is traced: a jitted fit compiled under one choice keeps it. ``"pallas"`` traces
``lax.platform_dependent(cuda=<the kernel>, default=<the XLA kernel>)``: the same program
compiled for the CPU (a CPU device beside the GPU, as ``benchmarks/gpu_check.py``'s
reference side) runs the XLA kernel, since Pallas-Triton lowers for CUDA only.

Checked without a GPU (tests): the kernel's Triton lowering (Pallas to Triton IR, both
kernels, ``lower(lowering_platforms=("cuda",))``). Untested here: Triton's compilation to
PTX, the run on a GPU, and its speed (no GPU on the development machine).

References
----------
Mitchell, Adinets, Rao & Frank, "XGBoost: Scalable GPU Accelerated Learning",
arXiv:1806.11248, 2018 (GPU histogram trees); Ke et al., "LightGBM", NeurIPS 2017
(histograms); Tillet, Kung & Cox, "Triton", MAPL 2019.
"""

from __future__ import annotations

import functools
import os

import jax
import jax.numpy as jnp

HIST_KERNEL: str | None = None  # "xla" | "pallas" | "pallas-interpret"; None: env, then backend
KERNELS = ("xla", "pallas", "pallas-interpret")
BLOCK_ROWS = 128  # rows per program instance (a power of 2: Triton's block sizes)


def _backend() -> str:
    return jax.default_backend()


@functools.lru_cache(maxsize=None)
def _probe(interpret: bool = False) -> bool:
    """Whether the Pallas kernels compile, run and equal the XLA ones on a small case.

    Run once per process (and per ``interpret``), in a fresh thread: JAX's trace state is
    per thread, so the probe runs at once even when asked from inside a ``jit`` trace. Any
    failure (a Triton lowering or compile error on this GPU, a wrong sum) is warned about and
    answers ``False``: the engine then keeps the XLA kernel.
    """
    import concurrent.futures
    import warnings

    import numpy as np

    from jaxclassic.tree import _engine

    def run():
        rng = np.random.default_rng(0)
        n, n_codes, n_slots = 300, 17, 4
        codes_T = jnp.asarray(rng.integers(0, n_codes, (3, n)).astype(np.uint8))
        sc = jnp.asarray(rng.integers(-3, 4, (n, 3)).astype(np.float32))  # exact sums
        slot = jnp.asarray(rng.integers(0, n_slots + 1, n).astype(np.int32))
        rows = jnp.asarray(rng.integers(0, n, 160).astype(np.int32))
        slot_rows = slot[rows] % n_slots
        got = jax.jit(lambda c, s, sl: hist(c, s, sl, n_slots, n_codes, interpret=interpret))(codes_T, sc, slot)
        want = jax.jit(lambda c, s, sl: _engine._hist_xla(c, s, sl, n_slots, n_codes))(codes_T, sc, slot)
        used = jnp.int32(100)
        sc_rows = jnp.where((jnp.arange(160) < 100)[:, None], sc[rows], 0)
        got_rows = jax.jit(lambda *a: hist_rows(*a, n_slots, n_codes, interpret=interpret))(
            codes_T, sc_rows, slot_rows, rows, used)
        want_rows = jax.jit(lambda *a: _engine._hist_rows_xla(*a, n_slots, n_codes, 8))(
            codes_T, sc_rows, slot_rows, rows, used)
        return bool(np.array_equal(np.asarray(got), np.asarray(want))
                    and np.array_equal(np.asarray(got_rows), np.asarray(want_rows)))

    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        try:
            ok = pool.submit(run).result()
            why = "its sums differ from the XLA kernel's"
        except Exception as err:  # noqa: BLE001 - any failure means: keep the XLA kernel
            ok, why = False, f"{type(err).__name__}: {err}"
    if not ok:
        warnings.warn(f"jaxclassic: the Pallas histogram kernel is not used on this {_backend()} "
                      f"backend ({why}); using the XLA kernel", RuntimeWarning, stacklevel=2)
    return ok


def kernel_choice() -> str:
    """The histogram kernel to trace: ``HIST_KERNEL``, else ``$JAXCLASSIC_HIST_KERNEL``, else
    ``"pallas"`` on a GPU backend where the kernel passes a one-off check (:func:`_probe`:
    it compiles and its sums equal the XLA kernel's on a small case) and ``"xla"`` otherwise.

    Returns
    -------
    str
        One of ``"xla"``, ``"pallas"``, ``"pallas-interpret"``.

    Examples
    --------
    >>> import jax
    >>> kernel_choice() == ("pallas" if jax.default_backend() == "gpu" else "xla")  # doctest: +SKIP
    True
    """
    choice = HIST_KERNEL if HIST_KERNEL is not None else os.environ.get("JAXCLASSIC_HIST_KERNEL")
    if choice is None or choice == "":
        return "pallas" if _backend() == "gpu" and _probe() else "xla"
    if choice not in KERNELS:
        raise ValueError(f"JAXCLASSIC_HIST_KERNEL (or HIST_KERNEL) must be one of {KERNELS}, got {choice!r}")
    return choice


def _kernel(limit_ref, codes_ref, stats_ref, slot_ref, rows_ref, _zeros_ref, out_ref, *,
            block, n_rows, n_codes_rows, n_slots, n_codes, n_s1, gather, interpret):
    """One program instance: ``block`` rows of feature ``program_id(1)``."""
    from jax.experimental import pallas as pl
    from jax.experimental.pallas import triton as plgpu

    start = pl.program_id(0) * block
    f = pl.program_id(1)
    limit = limit_ref[0]

    @pl.when(start < limit)  # _hist_rows: only the blocks that hold real rows do work
    def _():
        pos = start + jnp.arange(block, dtype=jnp.int32)
        r = jnp.minimum(pos, n_rows - 1)  # clamped loads: always in range, no mask
        row = rows_ref[r] if gather else r
        code = codes_ref[f * n_codes_rows + row].astype(jnp.int32)
        slot = slot_ref[r].astype(jnp.int32)
        keep = (pos < limit) & (slot < n_slots)
        base = ((f * n_codes + code) * n_slots + slot) * n_s1
        for s in range(n_s1):
            val = stats_ref[r * n_s1 + s]
            if not interpret:
                plgpu.atomic_add(out_ref, (base + s,), val, mask=keep)
            else:  # one element at a time (see the module docstring)
                at = jnp.where(keep, base + s, 0)
                val = jnp.where(keep, val, jnp.zeros_like(val))

                def add(j, carry, at=at, val=val):
                    plgpu.atomic_add(out_ref, (at[j],), val[j])
                    return carry

                jax.lax.fori_loop(0, block, add, 0)


def _call(codes_T, stats_count, slot, rows, limit, n_slots, n_codes, interpret, block):
    """The flat ``(F · n_codes · n_slots · S1)`` sums of the ``m`` rows of ``stats_count``."""
    from jax.experimental import pallas as pl
    from jax.experimental.pallas import triton as plgpu

    n_features, n_codes_rows = codes_T.shape
    m, n_s1 = stats_count.shape
    gather = rows is not None
    if rows is None:
        rows = jnp.zeros((1,), jnp.int32)  # unused
    kernel = functools.partial(
        _kernel, block=block, n_rows=m, n_codes_rows=n_codes_rows, n_slots=n_slots,
        n_codes=n_codes, n_s1=n_s1, gather=gather, interpret=interpret)
    size = n_features * n_codes * n_slots * n_s1
    zeros = jnp.zeros((size,), stats_count.dtype)
    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((size,), stats_count.dtype),
        grid=(pl.cdiv(m, block), n_features),
        input_output_aliases={5: 0},  # the output starts as zeros: atomics add into it
        interpret=interpret,
        compiler_params=None if interpret else plgpu.CompilerParams(num_warps=4, num_stages=1),
        name="jaxclassic_histogram",
    )(jnp.reshape(limit, (1,)).astype(jnp.int32), codes_T.reshape(-1), stats_count.reshape(-1),
      slot.astype(jnp.int32), rows.astype(jnp.int32), zeros)


def hist(codes_T, stats_count, slot, n_slots, n_codes, *, interpret=False, block=BLOCK_ROWS):
    r"""Per-(bin, stat, feature, slot) sums: the Pallas form of the engine's ``_hist``.

    .. math:: H_{b, :, f, s} = \sum_{i:\ \mathrm{code}_{f i} = b,\ \mathrm{slot}_i = s}
              \mathrm{stats\_count}_{i, :}

    Parameters
    ----------
    codes_T : (F, n) integer array
        Binned codes, feature-major, in ``[0, n_codes)``.
    stats_count : (n, S1) float array
        The per-row statistics (then the count); a row of weight 0 adds zeros.
    slot : (n,) integer array
        Each row's histogram slot; ``n_slots`` drops the row.
    n_slots, n_codes : int
        Static sizes.
    interpret : bool
        Run through Pallas' interpreter (any backend). Otherwise the kernel is what the
        program runs when it is compiled for a CUDA GPU (``lax.platform_dependent``), and
        the engine's XLA kernel when compiled for anything else.
    block : int
        Rows per program instance (a power of 2).

    Returns
    -------
    (n_codes, S1, F, n_slots) array of ``stats_count``'s dtype: ``_hist``'s layout.

    Examples
    --------
    >>> import jax.numpy as jnp
    >>> h = hist(jnp.array([[0, 1, 1]], jnp.uint8), jnp.ones((3, 1)), jnp.zeros(3, jnp.int32),
    ...          1, 2, interpret=True)
    >>> h[:, 0, 0, 0].tolist()
    [1.0, 2.0]

    References
    ----------
    Mitchell et al. 2018; Ke et al. 2017 (see the module docstring).
    """
    n_features, n = codes_T.shape

    def pallas(codes_T, stats_count, slot):
        flat = _call(codes_T, stats_count, slot, None, jnp.asarray(n, jnp.int32), n_slots, n_codes,
                     interpret, block)
        return flat.reshape(n_features, n_codes, n_slots, -1).transpose(1, 3, 0, 2)

    if interpret:
        return pallas(codes_T, stats_count, slot)
    from jaxclassic.tree import _engine

    return jax.lax.platform_dependent(
        codes_T, stats_count, slot, cuda=pallas,
        default=lambda c, s, sl: _engine._hist_xla(c, s, sl, n_slots, n_codes))


def hist_rows(codes_T, stats_count, slot, rows, n_used, n_slots, n_codes, *, interpret=False,
              block=BLOCK_ROWS):
    r"""The Pallas form of the engine's ``_hist_rows``: the sums of the compacted rows.

    Row :math:`j < m` is data row ``rows[j]`` (its codes ``codes_T[:, rows[j]]``) with
    statistics ``stats_count[j]`` and slot ``slot[j]``; only the first ``n_used`` count
    (the program instances of blocks past ``n_used`` return at once: work follows
    ``n_used``, as the engine's dynamic loop).

    Parameters
    ----------
    codes_T : (F, n) integer array
    stats_count : (m, S1) float array
    slot : (m,) integer array, in ``[0, n_slots]``
    rows : (m,) integer array, in ``[0, n)``
    n_used : int scalar (traced)
    n_slots, n_codes : int (static)
    interpret, block : see :func:`hist`

    Returns
    -------
    (F, n_slots, n_codes, S1) array: ``_hist_rows``'s layout (slot-major within a feature).

    Examples
    --------
    >>> import jax.numpy as jnp
    >>> h = hist_rows(jnp.array([[0, 1, 1]], jnp.uint8), jnp.ones((2, 1)), jnp.zeros(2, jnp.int32),
    ...               jnp.array([2, 0]), 1, 1, 2, interpret=True)
    >>> h[0, 0, :, 0].tolist()
    [0.0, 1.0]

    References
    ----------
    Mitchell et al. 2018; Ke et al. 2017 (see the module docstring).
    """
    n_features = codes_T.shape[0]

    def pallas(codes_T, stats_count, slot, rows, n_used):
        flat = _call(codes_T, stats_count, slot, rows, n_used, n_slots, n_codes, interpret, block)
        return flat.reshape(n_features, n_codes, n_slots, -1).transpose(0, 2, 1, 3)

    if interpret:
        return pallas(codes_T, stats_count, slot, rows, n_used)
    from jaxclassic.tree import _engine

    return jax.lax.platform_dependent(
        codes_T, stats_count, slot, rows, n_used, cuda=pallas,
        default=lambda *a: _engine._hist_rows_xla(*a, n_slots, n_codes, _engine._N_CHUNKS))
