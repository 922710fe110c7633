r"""Row blocks for the streaming fits: cutting, checking, padding, progress, and the Chan merge.

A *source* of rows is either

* arrays: ``X`` (a numpy array or ``np.memmap``, or anything ``np.asarray`` reads by slices)
  with ``y`` and ``sample_weight`` of the same length (``None``: no targets / unit weights),
  read ``chunk_rows`` rows at a time; or
* blocks: an iterable of ``(X, y, w)`` tuples (``y``, ``w`` may be ``None``; ``(X, y)`` and a
  bare ``X`` are accepted), or a callable returning such an iterable. Fits that read the data
  more than once (k-means, GMM, logistic Newton) call the callable once per pass, or iterate
  a re-iterable (a list) again; a one-shot iterator is refused for them.

Every block is checked in numpy before it reaches JAX (columns equal to the first block's,
finite values, matching lengths, non-negative weights, class codes in range); an error names
the block's index. A block is then cut into pieces of ``chunk_rows`` rows, and the last piece is
padded with rows of weight 0 to ``chunk_rows`` rows, so every piece has ONE shape and each
model's jitted per-piece function compiles once. A row of weight 0 contributes exactly 0 to
every statistic, so the padding has no influence.

Moments are merged by Chan, Golub & LeVeque's pairwise update: for two groups of rows with
weights :math:`W_a, W_b`, means :math:`\bar z_a, \bar z_b` and centred scatters
:math:`M_a, M_b`,

.. math::

    W = W_a + W_b,\quad \delta = \bar z_b - \bar z_a,\quad
    \bar z = \bar z_a + \tfrac{W_b}{W}\delta,\quad
    M = M_a + M_b + \tfrac{W_a W_b}{W}\,\delta\delta^\top,

with each block's own :math:`M_b` computed two-pass about its own mean; no sum of squares of
raw values is ever formed, so there is no catastrophic cancellation (the textbook
:math:`\sum w z z^\top - W\bar z\bar z^\top` loses all digits of a column of mean :math:`10^4`
and sd 1 in float32).

References
----------
Chan, Golub & LeVeque, "Algorithms for computing the sample variance: analysis and
recommendations", The American Statistician 37 (1983); Welford, Technometrics 4 (1962).
"""

from __future__ import annotations

from functools import partial
from typing import Any, Callable, Iterator, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxclassic import _jit
from jaxclassic import _precision
from jaxclassic.validation import _float_dtype_for, check_bool, check_int

__all__ = []

#: rows per piece when the caller gives no ``chunk_rows``
DEFAULT_CHUNK_ROWS = 65536


class Piece(NamedTuple):
    """One padded piece of rows: ``X`` (chunk_rows, d), ``y`` (chunk_rows,) or None, ``w``
    (chunk_rows,); ``n_rows`` real rows at the top, then zero-weight padding."""

    X: np.ndarray
    y: np.ndarray | None
    w: np.ndarray
    n_rows: int


class Source:
    """A validated source of row pieces (see the module docstring)."""

    def __init__(self, data, y, sample_weight, *, chunk_rows, target: str, n_classes=None,
                 passes: int = 1, progress: bool = False, desc: str = "rows", max_code=None,
                 dtype=None):
        self.chunk_rows = check_int(chunk_rows, "chunk_rows", low=1)
        # max_code: X holds integer bin codes 0..max_code (kept as uint8 / uint16), and the
        # float dtype of y and the weights is ``dtype``
        self.max_code, self.forced_dtype = max_code, dtype
        if target not in ("none", "real", "class"):
            raise ValueError(f"target must be 'none', 'real' or 'class', got {target!r}")
        self.target, self.n_classes = target, n_classes
        self.progress, self.desc = check_bool(progress, "progress"), desc
        self.n_rows_total = None
        # pandas objects are in memory already: their numpy values (a DataFrame is iterable
        # over its column names, and a Series slices by label for some indexes)
        data, y, sample_weight = (_from_pandas(a) for a in (data, y, sample_weight))
        if _is_array(data):
            X = data
            if getattr(X, "ndim", None) != 2:
                raise ValueError(f"X must be 2-D (n_samples, n_features), got shape {np.shape(X)}")
            n = X.shape[0]
            if n < 1:
                raise ValueError("X must have at least 1 row, got 0")
            if target != "none" and y is None:
                raise ValueError("y is required with array X (a block source carries y in its blocks)")
            for name, a in (("y", y), ("sample_weight", sample_weight)):
                if a is not None and (np.ndim(a) != 1 or len(a) != n):
                    raise ValueError(f"{name} must have shape ({n},) (one per row of X), got {np.shape(a)}")
            if sample_weight is not None:  # all zeros: said before the first pass compiles anything
                w = np.asarray(sample_weight)
                if w.dtype.kind in "fiu" and np.all(w == 0):
                    raise ValueError("sample_weight must have at least one positive value, got all zeros")
            self._arrays = (X, y, sample_weight)
            self._blocks = None
            self.chunk_rows = min(self.chunk_rows, n)
            self.n_rows_total = n
            self.n_features = X.shape[1]
            self.dtype = self._dtype_for(np.dtype(X.dtype))
        else:
            if y is not None or sample_weight is not None:
                raise ValueError("y and sample_weight must be None when data is a source of "
                                 "(X, y, w) blocks (they travel in the blocks)")
            if not callable(data) and not _iterable(data):
                raise TypeError("data must be an array, an np.memmap, an iterable of (X, y, w) "
                                f"blocks or a callable returning one, got {type(data).__name__}")
            if passes > 1 and not callable(data) and iter(data) is data:
                raise TypeError(f"data is a one-shot iterator ({type(data).__name__}), but this fit "
                                "reads the data several times: pass a callable returning a fresh "
                                "iterator of blocks, or a list of blocks")
            self._arrays = None
            self._blocks = data
            self.n_features = None
            self.dtype = None

    # ------------------------------------------------------------------ raw blocks
    def _raw_blocks(self) -> Iterator[tuple[Any, Any, Any]]:
        if self._arrays is not None:
            X, y, w = self._arrays
            n = X.shape[0]
            for start in range(0, n, self.chunk_rows):
                stop = min(start + self.chunk_rows, n)
                yield (X[start:stop], None if y is None else y[start:stop],
                       None if w is None else w[start:stop])
            return
        blocks = self._blocks() if callable(self._blocks) else self._blocks
        for block in blocks:
            if isinstance(block, (tuple, list)):
                if len(block) == 3:
                    yield tuple(block)
                elif len(block) == 2:
                    yield block[0], block[1], None
                else:
                    raise ValueError(f"a block must be (X, y, w) or (X, y), got a {type(block).__name__} "
                                     f"of length {len(block)}")
            else:
                yield block, None, None

    def _total(self):
        if self.n_rows_total is not None:
            return -(-self.n_rows_total // self.chunk_rows)
        blocks = self._blocks
        return len(blocks) if hasattr(blocks, "__len__") else None

    def pieces(self, desc: str | None = None) -> Iterator[Piece]:
        """One pass over the data as padded, checked pieces."""
        iterator = _with_progress(enumerate(self._raw_blocks()), self._total(),
                                  desc or self.desc, self.progress)
        for index, (Xb, yb, wb) in iterator:
            yield from self._cut(index, *self._check(index, Xb, yb, wb))

    # ------------------------------------------------------------------ checks
    def _check(self, index, Xb, yb, wb):
        where = f"block {index}"
        Xb = np.asarray(Xb)
        if Xb.ndim != 2:
            raise ValueError(f"{where}: X must be 2-D (rows, n_features), got shape {Xb.shape}")
        if not (np.issubdtype(Xb.dtype, np.number) or Xb.dtype == bool):
            raise TypeError(f"{where}: X must be numeric, got dtype {Xb.dtype}")
        if np.iscomplexobj(Xb):  # a cast to float would drop the imaginary part silently
            raise TypeError(f"{where}: X must be real-valued, got complex dtype {Xb.dtype}")
        if self.n_features is None:
            self.n_features = Xb.shape[1]
            self.dtype = self._dtype_for(Xb.dtype)
        if Xb.shape[1] != self.n_features:
            raise ValueError(f"{where}: X has {Xb.shape[1]} columns, expected {self.n_features} "
                             "(the columns of the first block)")
        m = Xb.shape[0]
        if self.max_code is not None:
            if not np.issubdtype(Xb.dtype, np.integer):
                raise TypeError(f"{where}: the codes must be integers (bin codes), got dtype {Xb.dtype}")
            if Xb.size and (Xb.min() < 0 or Xb.max() > self.max_code):
                raise ValueError(f"{where}: codes must be in 0..{self.max_code} (n_bins is the "
                                 f"missing bin), got range {int(Xb.min())}..{int(Xb.max())}")
            Xb = Xb.astype(np.uint8 if self.max_code < 256 else np.uint16, copy=False)
        else:
            Xb = Xb.astype(self.dtype, copy=False)
            if not np.isfinite(Xb).all():
                raise ValueError(f"{where}: X contains {int(np.isnan(Xb).sum())} NaN and "
                                 f"{int(np.isinf(Xb).sum())} infinite value(s)")
        if self.target != "none":
            if yb is None:
                raise ValueError(f"{where}: y is missing (blocks must be (X, y, w) or (X, y))")
            yb = np.asarray(yb)
            if yb.shape != (m,):
                raise ValueError(f"{where}: y must have shape ({m},) (one per row of X), got {yb.shape}")
            if self.target == "real":
                yb = yb.astype(self.dtype, copy=False)
                if not np.isfinite(yb).all():
                    raise ValueError(f"{where}: y contains NaN or infinite value(s)")
            else:
                if not (np.issubdtype(yb.dtype, np.integer)
                        or (np.issubdtype(yb.dtype, np.floating) and np.all(np.mod(yb, 1) == 0))):
                    raise ValueError(f"{where}: y must hold integer class codes 0..{self.n_classes - 1}, "
                                     f"got dtype {yb.dtype}")
                yb = yb.astype(np.int32)
                bad = (yb < 0) | (yb >= self.n_classes)
                if bad.any():
                    raise ValueError(f"{where}: y holds class code(s) outside 0..{self.n_classes - 1}: "
                                     f"{sorted(set(np.asarray(yb[bad]).tolist()))[:5]}")
        else:
            yb = None
        if wb is None:
            wb = np.ones(m, self.dtype)
        else:
            wb = np.asarray(wb, dtype=self.dtype)
            if wb.shape != (m,):
                raise ValueError(f"{where}: sample_weight must have shape ({m},), got {wb.shape}")
            if not np.isfinite(wb).all() or (wb < 0).any():
                raise ValueError(f"{where}: sample_weight must be finite and non-negative")
        return Xb, yb, wb

    def _dtype_for(self, x_dtype):
        return jnp.dtype(self.forced_dtype) if self.forced_dtype is not None else _float_dtype_for(x_dtype)

    def _cut(self, index, Xb, yb, wb) -> Iterator[Piece]:
        rows = self.chunk_rows
        for start in range(0, max(Xb.shape[0], 1), rows):
            Xp, wp = Xb[start:start + rows], wb[start:start + rows]
            yp = None if yb is None else yb[start:start + rows]
            m = Xp.shape[0]
            if m < rows:
                pad = rows - m
                Xp = np.concatenate([Xp, np.zeros((pad, Xb.shape[1]), Xb.dtype)])
                wp = np.concatenate([wp, np.zeros(pad, wb.dtype)])
                if yp is not None:
                    yp = np.concatenate([yp, np.zeros(pad, yp.dtype)])
            yield Piece(Xp, yp, wp, m)


def _from_pandas(a):
    return a.to_numpy() if hasattr(a, "to_numpy") and hasattr(a, "iloc") else a


def _is_array(data) -> bool:
    return isinstance(data, np.ndarray) or (hasattr(data, "shape") and hasattr(data, "dtype")
                                            and hasattr(data, "__getitem__"))


def _iterable(data) -> bool:
    try:
        iter(data)
    except TypeError:
        return False
    return True


def _with_progress(iterable, total, desc, enabled):
    """``tqdm`` over ``iterable`` when ``enabled`` and tqdm is installed (the optional extra
    ``jaxclassic[progress]``); otherwise ``iterable`` itself (silent)."""
    if not enabled:
        return iterable
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return iterable
    return tqdm(iterable, total=total, desc=desc, unit="block")


# --------------------------------------------------------------------------- moments
class GroupMoments(NamedTuple):
    """Per-group weighted moments: ``count`` (G,), ``mean`` (G, k), ``scatter`` (G, k, k) (full)
    or (G, k) (diagonal) about the group mean."""

    count: jax.Array
    mean: jax.Array
    scatter: jax.Array


def empty_moments(n_groups: int, width: int, full: bool, dtype) -> GroupMoments:
    shape = (n_groups, width, width) if full else (n_groups, width)
    return GroupMoments(jnp.zeros(n_groups, dtype), jnp.zeros((n_groups, width), dtype),
                        jnp.zeros(shape, dtype))


def merge_moments(a: GroupMoments, b: GroupMoments) -> GroupMoments:
    """Chan's pairwise merge (module docstring), group by group; an empty side is neutral."""
    count = a.count + b.count
    safe = jnp.where(count > 0, count, 1)
    delta = b.mean - a.mean
    mean = a.mean + (b.count / safe)[:, None] * delta
    cross = a.count * b.count / safe
    if a.scatter.ndim == 3:
        extra = cross[:, None, None] * delta[:, :, None] * delta[:, None, :]
    else:
        extra = cross[:, None] * jnp.square(delta)
    return GroupMoments(count, mean, a.scatter + b.scatter + extra)


def block_moments(Z, groups, w, n_groups: int, full: bool) -> GroupMoments:
    """Moments of one block, two-pass about each group's own block mean."""
    resp = jax.nn.one_hot(groups, n_groups, dtype=Z.dtype) * w[:, None]  # (m, G)
    count = jnp.sum(resp, axis=0)
    safe = jnp.where(count > 0, count, 1)
    mean = _precision.matmul(resp.T, Z) / safe[:, None]
    # rows of weight 0 get D = 0: a finite row of weight 0 whose square overflows (1e20 in
    # float32) would otherwise give 0 * inf = NaN in the diagonal scatter
    D = jnp.where((w > 0)[:, None], Z - mean[groups], 0)
    if full:
        WD = resp.T[:, :, None] * D[None]  # (G, m, k)
        scatter = _precision.einsum("gmk,ml->gkl", WD, D)
    else:
        scatter = _precision.matmul(resp.T, jnp.square(D))
    return GroupMoments(count, mean, scatter)


@partial(_jit.jit, static_argnames=("n_groups", "full"))
def update_moments(state: GroupMoments, Z, groups, w, *, n_groups, full) -> GroupMoments:
    """The one jitted per-piece step: a piece's moments merged into the running ones."""
    return merge_moments(state, block_moments(Z, groups, w, n_groups, full))


def bounded(previous):
    """Wait for the previous piece's result. JAX dispatches asynchronously: without this, the
    loop over pieces would run ahead of the computation and keep every piece's device copy
    alive at once (the whole data in memory: measured 2,000,000 x 50 float32, +340 MB).
    Waiting for piece k - 1 after dispatching piece k keeps at most two pieces in flight, so
    reading the next piece overlaps the computation of the current one."""
    if previous is not None:
        jax.block_until_ready(previous)


def accumulate_moments(source: Source, make_rows: Callable[[Piece], tuple], n_groups: int,
                       full: bool) -> GroupMoments:
    """One pass of :func:`update_moments` over ``source``; ``make_rows(piece) -> (Z, groups)``."""
    state = None
    for piece in source.pieces():
        Z, groups = make_rows(piece)
        if state is None:
            state = empty_moments(n_groups, Z.shape[1], full, Z.dtype)
        previous, state = state, update_moments(state, Z, groups, piece.w, n_groups=n_groups, full=full)
        bounded(previous)
    if state is None:
        raise ValueError("data yielded no blocks")
    if not float(jnp.sum(state.count)) > 0:
        raise ValueError("sample_weight must have at least one positive value, got all zeros")
    return state


def pseudo_sample(moments: GroupMoments):
    r"""A small weighted sample with exactly the given per-group moments.

    For group :math:`g` with weight :math:`W_g`, mean :math:`\bar z_g` and covariance
    :math:`\Sigma_g = M_g / W_g = LL^\top` (:math:`k` columns :math:`l_j`), the :math:`2k` rows
    :math:`\bar z_g \pm \sqrt k\,l_j` of weight :math:`W_g/2k` have weight :math:`W_g`, mean
    :math:`\bar z_g` and scatter :math:`\sum_j 2\frac{W_g}{2k}k\,l_jl_j^\top = M_g`. Any fit
    that depends on the data only through these moments (least squares, naive Bayes, LDA) gives
    on this sample the fit of the full data, so the models' own solves are reused unchanged.
    :math:`L` comes from the eigendecomposition of the unit-diagonal correlation form of
    :math:`\Sigma_g` (columns in any units keep their digits; a singular :math:`\Sigma_g` is
    fine), and a column of zero variance gets exactly 0 spread.

    The factor is computed in float64 whatever the moments' dtype (a k x k problem: no cost),
    and the rows are rounded to that dtype once at the end; a float32 eigendecomposition lost
    digits an ill-conditioned fit needs (float32 OLS on collinear integer columns: 3e-4
    relative error, 5e-5 with the float64 factor, as the in-memory fit).

    Returns ``(Z (G*2k, k), groups (G*2k,), weights (G*2k,))`` in the moments' dtype.
    """
    dtype = np.asarray(moments.mean).dtype
    count, mean, scatter = (np.asarray(a, np.float64) for a in moments)
    n_groups, k = mean.shape
    rows, groups, weights = [], [], []
    for g in range(n_groups):
        if count[g] > 0:
            cov = scatter[g] / count[g] if scatter.ndim == 3 else np.diag(scatter[g] / count[g])
            diag = np.diagonal(cov)
            scale = np.where(diag > 0, np.sqrt(np.where(diag > 0, diag, 1)), 0)
            corr = cov / np.where(scale > 0, scale, 1)[:, None] / np.where(scale > 0, scale, 1)[None, :]
            evals, evecs = np.linalg.eigh(corr)
            factor = scale[:, None] * evecs * np.sqrt(np.maximum(evals, 0))[None, :]  # (k, k)
        else:
            factor = np.zeros((k, k), mean.dtype)
        spread = np.sqrt(k) * factor.T  # rows: sqrt(k) l_j
        rows.append(np.concatenate([mean[g] + spread, mean[g] - spread]))
        groups.append(np.full(2 * k, g, np.int32))
        weights.append(np.full(2 * k, count[g] / (2 * k), mean.dtype))
    return (np.concatenate(rows).astype(dtype), np.concatenate(groups),
            np.concatenate(weights).astype(dtype))
