r"""Dense linear algebra that cannot deadlock XLA's CPU thread pool under ``vmap``.

Every factorisation and solve of the package goes through this module: :func:`cholesky`,
:func:`solve_triangular`, :func:`cho_solve`, :func:`eigh`, :func:`eigvalsh`, :func:`solve`
and :func:`inv`. They equal their ``jax.numpy.linalg`` / ``jax.scipy.linalg`` namesakes (the
same LAPACK routines on CPU, the same cuSOLVER ones on GPU), with one difference: **a stack of
matrices is never handed to LAPACK in one piece large enough to be split over threads**.

Why. jaxlib 0.10.x (CPU) splits a batched LAPACK call (``potrf``, ``syevd``, ``getrf``,
``trsm``...) into chunks scheduled on XLA's intra-op thread pool, and the calling thread —
itself a thread of that pool — then blocks until its chunks are done
(``ParallelBatchMap`` in ``jaxlib/cpu/lapack_kernels.cc``). It does so when the batch holds
more than one matrix and ``batch × cost ≥ 200,000`` flops, with ``cost`` its estimate per
matrix: :math:`n^3/3` for Cholesky, :math:`5n^3` for ``syevd``, :math:`n^3` for LU,
:math:`n^2 k` for a triangular solve. Two such calls that XLA runs at the same time (both
branches of a ``lax.cond`` under ``vmap`` run; so do any two independent solves of one
program) can take every thread of the pool and wait for chunks that no thread is left to run:
the process sleeps forever (issue 23; ``benchmarks/repro_lapack_hang_minimal.py`` is the
jax-only reproducer, ``benchmarks/soak_lapack.py`` the soak). Upstream disabled the
splitting in open-source builds after 0.10.2 ("no faster on Linux"), so nothing is lost by
never triggering it.

How. Each function here is a :func:`jax.custom_batching.custom_vmap` whose batching rule,
and whose evaluation on an explicit stack ``(..., n, n)``, cuts the stack into chunks of
:math:`b = \max(1, \lfloor (200{,}000 - 1) / \text{cost} \rfloor)` matrices and runs them one
after another with :func:`jax.lax.map`: each LAPACK call then holds :math:`b` matrices with
:math:`b \cdot \text{cost} < 200{,}000` (or a single matrix), which jaxlib runs inline on the
calling thread, never touching the pool. Small systems (the common case: ``d = 10`` gives
:math:`b = 39` eigendecompositions per call) stay batched; large ones are sequential, as
open-source jaxlib runs them anyway. The guarantee holds on any core count, with any number of
concurrent calls, because no call waits on the pool at all. The chunking is chosen at lowering
time for the CPU only (:func:`jax.lax.platform_dependent`): on a GPU the whole stack goes to
the batched cuSOLVER / MAGMA kernels in one call, as before.

Derivatives. ``custom_vmap`` has no reverse mode of its own. The solves are
:func:`jax.lax.custom_linear_solve` calls (as ``jnp.linalg.solve`` is): linear and
transposable in the right-hand side (the transpose is the solve with :math:`A^\top`), so they
can stand in a tangent or a ``custom_root`` tangent solve, and differentiated in the matrix
through its product :math:`Ax`. The factorisations are :func:`jax.custom_jvp` functions whose
tangent is built from the primal factors by matrix products and those solves (so it
transposes, for ``grad``, and nests, for Hessians), the standard results:

- Cholesky :math:`A = LL^\top`: :math:`\dot L = L\,\Phi(L^{-1}\dot A L^{-\top})`, with
  :math:`\Phi` the lower triangle with its diagonal halved (Murray 2016, eq. 8).
- Triangular solve :math:`X = \operatorname{op}(T)^{-1}B`:
  :math:`\dot X = \operatorname{op}(T)^{-1}(\dot B - \operatorname{op}(\dot T)X)`.
- Symmetric eigendecomposition :math:`A = V\Lambda V^\top` (distinct eigenvalues):
  :math:`\dot\lambda_i = (V^\top\dot AV)_{ii}`,
  :math:`\dot V = V\,(F\circ V^\top\dot AV)`, :math:`F_{ij} = 1/(\lambda_j - \lambda_i)`
  off the diagonal, 0 on it (Giles 2008, §3.1).
- Solve :math:`x = A^{-1}b`: :math:`\dot x = A^{-1}(\dot b - \dot Ax)`; inverse:
  :math:`\dot{A^{-1}} = -A^{-1}\dot AA^{-1}` (Giles 2008, §2.2).

The inverses in the tangents are computed once from the primal factor (a triangular solve
against the identity, or an LU inverse), through this module again.

References
----------
Murray, "Differentiation of the Cholesky decomposition", arXiv:1602.07527, 2016.
Giles, "An extended collection of matrix derivative results for forward and reverse mode
algorithmic differentiation", Oxford NA report 08/01, 2008.
jaxlib ``cpu/lapack_kernels.cc`` (``GetLapackBatchChunkSize``, ``ParallelBatchMap``), 0.10.2.
"""

from __future__ import annotations

import functools
import math

import jax
import jax.numpy as jnp
from jax import lax

__all__ = [
    "LAPACK_MIN_WORK",
    "chunk_size",
    "cholesky",
    "cho_solve",
    "eigh",
    "eigvalsh",
    "inv",
    "lapack_cost",
    "solve",
    "solve_triangular",
]

LAPACK_MIN_WORK = 200_000
"""jaxlib's ``kMinWorkPerTask``: a batched LAPACK call of ``batch × cost`` below this many
flops runs inline on the calling thread."""

_HIGHEST = lax.Precision.HIGHEST


def lapack_cost(op: str, n: int, k: int = 1) -> int:
    """jaxlib 0.10.2's flop estimate per matrix for the LAPACK routine behind ``op``
    (``n × n`` matrices, ``k`` right-hand sides): the number its thread split is decided on."""
    if op == "cholesky":
        return n * n * n // 3
    if op == "eigh":
        return 5 * n * n * n
    if op == "lu":
        return n * n * n
    if op == "triangular_solve":
        return n * n * k
    raise ValueError(f"op must be one of 'cholesky', 'eigh', 'lu', 'triangular_solve', got {op!r}")


def chunk_size(cost: int) -> int:
    """The most matrices of ``cost`` flops one LAPACK call may hold and still run inline:
    :math:`\\max(1, \\lfloor (200{,}000 - 1)/\\text{cost}\\rfloor)`."""
    return max(1, (LAPACK_MIN_WORK - 1) // max(int(cost), 1))


def _mT(x):
    return jnp.swapaxes(x, -1, -2)


def _mm(a, b):
    return jnp.matmul(a, b, precision=_HIGHEST)


def _chunked(raw, cost, core_ndims, args):
    """``raw(*args)`` with the leading (batch) dimensions of ``args`` run in chunks of
    :func:`chunk_size` matrices, one chunk after another.

    ``core_ndims[i]`` is the rank of one problem's ``args[i]``; the leading dimensions beyond it
    are broadcast together. ``raw`` takes arrays with one leading batch dimension."""
    batch_shape = jnp.broadcast_shapes(*(a.shape[: a.ndim - c] for a, c in zip(args, core_ndims)))
    if not batch_shape:
        return raw(*(a[None] for a in args), unbatched=True)
    size = math.prod(batch_shape)
    flat = [jnp.broadcast_to(a, batch_shape + a.shape[a.ndim - c:]).reshape((size,) + a.shape[a.ndim - c:])
            for a, c in zip(args, core_ndims)]
    b = chunk_size(cost)
    if size <= b:
        out = raw(*flat)
    else:
        # only the CPU's LAPACK splits over a pool: GPU solvers keep the whole batch
        out = lax.platform_dependent(*flat, cpu=lambda *xs: _in_chunks(raw, b, xs),
                                     default=lambda *xs: raw(*xs))
    return jax.tree.map(lambda o: o.reshape(batch_shape + o.shape[1:]), out)


def _in_chunks(raw, b, flat):
    """``raw`` over the leading axis of ``flat`` in a sequential ``lax.map`` of ``b``-blocks."""
    size = flat[0].shape[0]
    n_chunks = -(-size // b)
    pad = n_chunks * b - size
    # pad with copies of the first problem (well posed if it is), dropped afterwards
    padded = [jnp.concatenate([a, jnp.broadcast_to(a[:1], (pad,) + a.shape[1:])]) if pad else a
              for a in flat]
    chunks = [a.reshape((n_chunks, b) + a.shape[1:]) for a in padded]
    out = lax.map(lambda cs: raw(*cs), chunks)
    return jax.tree.map(lambda o: o.reshape((n_chunks * b,) + o.shape[2:])[:size], out)


def _guarded(raw, cost_of, core_ndims):
    """A ``custom_vmap`` of ``raw`` whose batching rule and explicit stacks go through
    :func:`_chunked`. ``cost_of(*args)`` gives the flops per problem from the core shapes."""

    def run(*args):
        return _chunked(raw, cost_of(*args), core_ndims, args)

    fn = jax.custom_batching.custom_vmap(run)

    @fn.def_vmap
    def rule(axis_size, in_batched, *args):
        if core_ndims == (2, 2) and tuple(in_batched) == (False, True):
            # a shared matrix and a batch of right-hand sides: fold the batch into the columns,
            # one solve of k * axis_size columns (no copy, no refactorisation per member; with
            # an unbatched matrix the call holds one matrix and runs inline)
            a, b = args
            folded = jnp.moveaxis(b, 0, -1).reshape(b.shape[1:-1] + (b.shape[-1] * axis_size,))
            out = fn(a, folded)
            out = jnp.moveaxis(out.reshape(out.shape[:-1] + (b.shape[-1], axis_size)), -1, 0)
            return out, True
        # bring every argument to one leading batch axis of axis_size, then treat the vmap axis
        # as one more stack dimension
        args = [a if batched else jnp.broadcast_to(a, (axis_size,) + a.shape)
                for a, batched in zip(args, in_batched)]
        out = fn(*args)
        return out, jax.tree.map(lambda _: True, out)

    return fn


# --- raw LAPACK-backed kernels on a (batch, ...) stack ------------------------------------------

def _raw_cholesky(a, unbatched=False):
    out = lax.linalg.cholesky(a, symmetrize_input=False)
    return out[0] if unbatched else out


def _raw_eigh(a, unbatched=False):
    v, w = lax.linalg.eigh(a, lower=True, symmetrize_input=False)
    return (w[0], v[0]) if unbatched else (w, v)


def _raw_inv(a, unbatched=False):
    out = jnp.linalg.inv(a)
    return out[0] if unbatched else out


def _raw_solve(a, b, unbatched=False):  # b: (batch, n, k)
    out = jnp.linalg.solve(a, b)
    return out[0] if unbatched else out


@functools.lru_cache(maxsize=None)
def _raw_triangular(lower, trans):
    def raw(a, b, unbatched=False):  # b: (batch, n, k)
        out = lax.linalg.triangular_solve(a, b, left_side=True, lower=lower, transpose_a=trans)
        return out[0] if unbatched else out

    return raw


_cholesky_guarded = _guarded(_raw_cholesky, lambda a: lapack_cost("cholesky", a.shape[-1]), (2,))
_eigh_guarded = _guarded(_raw_eigh, lambda a: lapack_cost("eigh", a.shape[-1]), (2,))
_inv_guarded = _guarded(_raw_inv, lambda a: lapack_cost("lu", a.shape[-1]), (2,))
_solve_guarded = _guarded(
    _raw_solve,
    lambda a, b: max(lapack_cost("lu", a.shape[-1]), lapack_cost("triangular_solve", a.shape[-1], b.shape[-1])),
    (2, 2))


@functools.lru_cache(maxsize=None)
def _triangular_guarded(lower, trans):
    return _guarded(_raw_triangular(lower, trans),
                    lambda a, b: lapack_cost("triangular_solve", a.shape[-1], b.shape[-1]), (2, 2))


# --- differentiable public functions ------------------------------------------------------------

def _differentiable(guarded, tangent):
    """``guarded`` (one matrix argument) as a :func:`jax.custom_jvp` whose tangent is
    ``tangent(a, da, out)``, built from the primal output ``out`` (module docstring)."""
    fn = jax.custom_jvp(lambda a: guarded(a))

    @fn.defjvp
    def jvp(primals, tangents):
        (a,), (da,) = primals, tangents
        out = fn(a)
        return out, tangent(a, da, out)

    return fn


def _cholesky_tangent(a, da, L):
    eye = jnp.broadcast_to(jnp.eye(a.shape[-1], dtype=a.dtype), L.shape)
    L_inv = _solve_triangular_matrix(L, eye, True, False)
    inner = _mm(_mm(L_inv, da), _mT(L_inv))
    phi = jnp.tril(inner) - 0.5 * jnp.tril(jnp.triu(inner))  # lower triangle, diagonal halved
    return _mm(L, phi)


def _eigh_tangent(a, da, out):
    w, v = out
    inner = _mm(_mm(_mT(v), da), v)
    eye = jnp.eye(a.shape[-1], dtype=a.dtype)
    gaps = w[..., None, :] - w[..., :, None]  # lambda_j - lambda_i
    F = jnp.where(eye > 0, 0, 1 / (gaps + eye)) * (1 - eye)
    return jnp.diagonal(inner, axis1=-2, axis2=-1), _mm(v, F * inner)


def _inv_tangent(a, da, a_inv):
    return -_mm(_mm(a_inv, da), a_inv)


_cholesky = _differentiable(_cholesky_guarded, _cholesky_tangent)
_eigh = _differentiable(_eigh_guarded, _eigh_tangent)
_inv = _differentiable(_inv_guarded, _inv_tangent)


def _inexact(*arrays):
    """``arrays`` as arrays of one common inexact dtype, as ``jnp.linalg`` promotes its
    arguments: their result type, and for integers and bools a float of at least their width
    (bool to int32 give float32, 64-bit integers float64: JAX 0.10's ``to_inexact_dtype``)."""
    arrays = [jnp.asarray(x) for x in arrays]
    dtype = jnp.result_type(*arrays)
    if not jnp.issubdtype(dtype, jnp.inexact):
        dtype = jax.dtypes.canonicalize_dtype(jnp.float64 if jnp.dtype(dtype).itemsize > 4 else jnp.float32)
    return [x.astype(dtype) for x in arrays]


def cholesky(a):
    r"""Lower Cholesky factor :math:`L` of the symmetric positive definite :math:`A = LL^\top`
    (of :math:`(A + A^\top)/2`, as ``jnp.linalg.cholesky``); NaN where :math:`A` is not
    positive definite.

    Parameters
    ----------
    a : (..., n, n) float array

    Returns
    -------
    (..., n, n) float array, lower triangular.

    Examples
    --------
    >>> import jax.numpy as jnp
    >>> cholesky(jnp.array([[4.0, 2.0], [2.0, 2.0]])).tolist()
    [[2.0, 0.0], [1.0, 1.0]]
    """
    (a,) = _inexact(a)
    return _cholesky(0.5 * (a + _mT(a)))


def _solve_triangular_matrix(t, b, lower, trans):
    r""":math:`\operatorname{op}(T)^{-1}B` for stacks ``t`` (..., n, n), ``b`` (..., n, k) of one batch
    shape, as a :func:`jax.lax.custom_linear_solve`: linear (transposable) in ``b``, and
    differentiable in ``t`` through its product :math:`\operatorname{op}(T)x`."""
    mask = jnp.tril if lower else jnp.triu
    forward, backward = _triangular_guarded(lower, trans), _triangular_guarded(lower, not trans)

    def matvec(x):
        tri = mask(t)
        return _mm(_mT(tri) if trans else tri, x)

    return lax.custom_linear_solve(matvec, b, solve=lambda _, rhs: forward(t, rhs),
                                   transpose_solve=lambda _, rhs: backward(t, rhs))


def solve_triangular(a, b, *, lower=False, trans=False):
    r"""Solve :math:`\operatorname{op}(T)X = B` for triangular :math:`T`
    (``jax.scipy.linalg.solve_triangular`` with ``trans=0`` or ``1``).

    Parameters
    ----------
    a : (..., n, n) float array
        :math:`T`; only its lower (``lower=True``) or upper triangle is read.
    b : (..., n) or (..., n, k) float array
        Right-hand side(s); a vector when ``b.ndim == a.ndim - 1``.
    lower : bool
    trans : bool
        Solve with :math:`T^\top`.

    Returns
    -------
    Array of ``b``'s shape (broadcast over the leading dimensions).

    Examples
    --------
    >>> import jax.numpy as jnp
    >>> solve_triangular(jnp.array([[2.0, 0.0], [1.0, 1.0]]), jnp.array([2.0, 3.0]), lower=True).tolist()
    [1.0, 2.0]
    """
    a, b = _inexact(a, b)
    vector = b.ndim == a.ndim - 1
    bm = b[..., None] if vector else b
    batch = jnp.broadcast_shapes(a.shape[:-2], bm.shape[:-2])
    a = jnp.broadcast_to(a, batch + a.shape[-2:])
    bm = jnp.broadcast_to(bm, batch + bm.shape[-2:])
    x = _solve_triangular_matrix(a, bm, bool(lower), bool(trans))
    return x[..., 0] if vector else x


def cho_solve(c_and_lower, b):
    r"""Solve :math:`AX = B` given the Cholesky factor of :math:`A`
    (``jax.scipy.linalg.cho_solve``): two triangular solves,
    :math:`X = L^{-\top}(L^{-1}B)` for ``(L, True)``, :math:`X = U^{-1}(U^{-\top}B)` for ``(U, False)``.

    Parameters
    ----------
    c_and_lower : tuple ``(c, lower)``
        ``c`` (..., n, n) the factor; ``lower`` whether it is :math:`L` (else :math:`U = L^\top`).
    b : (..., n) or (..., n, k) float array

    Examples
    --------
    >>> import jax.numpy as jnp
    >>> cho_solve((jnp.array([[2.0, 0.0], [1.0, 1.0]]), True), jnp.array([6.0, 4.0])).tolist()
    [1.0, 1.0]
    """
    c, lower = c_and_lower
    if lower:
        return solve_triangular(c, solve_triangular(c, b, lower=True), lower=True, trans=True)
    return solve_triangular(c, solve_triangular(c, b, lower=False, trans=True), lower=False)


def eigh(a):
    r"""Eigenvalues (ascending) and eigenvectors of the symmetric :math:`(A + A^\top)/2`
    (``jnp.linalg.eigh``).

    Parameters
    ----------
    a : (..., n, n) float array

    Returns
    -------
    w : (..., n) float array
    v : (..., n, n) float array, columns the unit eigenvectors.

    Examples
    --------
    >>> import jax.numpy as jnp
    >>> w, v = eigh(jnp.array([[2.0, 0.0], [0.0, 1.0]]))
    >>> w.tolist()
    [1.0, 2.0]
    """
    (a,) = _inexact(a)
    return _eigh(0.5 * (a + _mT(a)))


def eigvalsh(a):
    r"""Eigenvalues (ascending) of the symmetric :math:`(A + A^\top)/2`
    (``jnp.linalg.eigvalsh``), by :func:`eigh`.

    Parameters
    ----------
    a : (..., n, n) float array

    Returns
    -------
    (..., n) float array
    """
    return eigh(a)[0]


def inv(a):
    r"""Inverse :math:`A^{-1}` by LU with partial pivoting (``jnp.linalg.inv``).

    Parameters
    ----------
    a : (..., n, n) float array

    Returns
    -------
    (..., n, n) float array

    Examples
    --------
    >>> import jax.numpy as jnp
    >>> inv(jnp.array([[2.0, 0.0], [0.0, 4.0]])).tolist()
    [[0.5, 0.0], [0.0, 0.25]]
    """
    (a,) = _inexact(a)
    return _inv(a)


def _solve(a, b):
    r""":math:`A^{-1}B` for stacks of one batch shape, as a :func:`jax.lax.custom_linear_solve`
    (as ``jnp.linalg.solve``): linear in ``b``, differentiable in ``a`` through :math:`Ax`."""
    return lax.custom_linear_solve(lambda x: _mm(a, x), b,
                                   solve=lambda _, rhs: _solve_guarded(a, rhs),
                                   transpose_solve=lambda _, rhs: _solve_guarded(_mT(a), rhs))


def solve(a, b):
    r"""Solve :math:`AX = B` by LU with partial pivoting (``jnp.linalg.solve``).

    Parameters
    ----------
    a : (..., n, n) float array
    b : (..., n) or (..., n, k) float array
        A vector when ``b.ndim == a.ndim - 1`` (or ``b.ndim == 1``).

    Returns
    -------
    Array of ``b``'s shape (broadcast over the leading dimensions).

    Examples
    --------
    >>> import jax.numpy as jnp
    >>> solve(jnp.array([[2.0, 0.0], [0.0, 4.0]]), jnp.array([1.0, 1.0])).tolist()
    [0.5, 0.25]
    """
    a, b = _inexact(a, b)
    vector = b.ndim == 1 or b.ndim == a.ndim - 1
    bm = b[..., None] if vector else b
    batch = jnp.broadcast_shapes(a.shape[:-2], bm.shape[:-2])
    a = jnp.broadcast_to(a, batch + a.shape[-2:])
    bm = jnp.broadcast_to(bm, batch + bm.shape[-2:])
    x = _solve(a, bm)
    return x[..., 0] if vector else x
