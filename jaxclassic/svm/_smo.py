r"""SMO for the dual QP of kernel SVMs, in LIBSVM's form, inside the one solver template.

The problem (Chang & Lin 2011, §4.1) over :math:`m` variables,

.. math::

    \min_\alpha\ \tfrac12\,\alpha^\top Q\alpha + p^\top\alpha
    \quad\text{s.t.}\quad y^\top\alpha = \text{const},\ \ 0 \le \alpha_t \le u_t,
    \qquad Q_{ts} = y_t y_s K(x_{r(t)}, x_{r(s)}),\ y_t = \pm 1,

covers C-SVC (:math:`m = n`, :math:`p = -e`, :math:`u_t = C s_t`) and ε-SVR (:math:`m = 2n`,
:math:`r(t) = t \bmod n`, ``doubled``). A variable with :math:`u_t = 0` (a row of weight 0)
is in neither index set below, so it is never selected and stays at 0.

**Working-set selection (WSS2; Fan, Chen & Lin 2005).** With the gradient :math:`G = Q\alpha + p`,
:math:`I_{up} = \{t: y_t = 1, \alpha_t < u_t \text{ or } y_t = -1, \alpha_t > 0\}` and
:math:`I_{low} = \{t: y_t = 1, \alpha_t > 0 \text{ or } y_t = -1, \alpha_t < u_t\}`,

.. math::

    i = \arg\max_{t \in I_{up}} -y_t G_t,\qquad
    j = \arg\min_{t \in I_{low},\, -y_t G_t < -y_i G_i} -\frac{b_{it}^2}{a_{it}},\quad
    b_{it} = -y_i G_i + y_t G_t,\ a_{it} = K_{ii} + K_{tt} - 2K_{it},

with :math:`a_{it}` replaced by :math:`\tau = 10^{-12}` when it is not positive (LIBSVM's
treatment of non-PSD kernels such as the sigmoid one: the step stays bounded and the
objective still decreases). The stopping error is the maximal violating pair gap
:math:`m(\alpha) - M(\alpha) = \max_{I_{up}} -y_tG_t - \min_{I_{low}} -y_tG_t`, and the
solver stops when it is ``<= tol`` (LIBSVM's ``eps``, scikit-learn's ``tol``), with ``tol`` raised
to the rounding floor of the gradient :math:`100\,\epsilon\max(1, \max|p|)` (float64: ~2e-14;
float32: ~1.2e-5 for C-SVC), and a step that moves no variable (rounding) stops the solver
unconverged.

**Pair update.** The two-variable subproblem is solved analytically and clipped to the box
exactly as LIBSVM's ``Solver::Solve``; then :math:`G \mathrel{+}= Q_{:i}\Delta\alpha_i +
Q_{:j}\Delta\alpha_j`. Per step: two kernel rows (one for :math:`j`'s update, one for the next
:math:`i`'s selection) and a few :math:`O(m)` passes.

**Kernel rows.** From a precomputed Gram matrix (``gram``), computed on demand (``rows``), or
through an LRU cache of ``cache_rows`` rows (``cache``: a hit reads the row, a miss computes
it and evicts the least recently used one; LIBSVM's cache, without shrinking).

**Batched working set (ThunderSVM's idea; Wen et al. 2018).** Each outer step picks ``q``
violators (the ``q/2`` largest :math:`-y_tG_t` of :math:`I_{up}`, the ``q/2`` smallest of
:math:`I_{low}`), computes their ``(q, n)`` kernel block once, solves the ``q``-variable
subproblem by the same pair SMO on the ``q x q`` block (to the local gap
:math:`\max(\text{tol}, 0.1\cdot\text{local gap})`), and updates :math:`G` with one
``(m, q)`` product. Fewer, heavier steps: matrix products instead of row-at-a-time work.

**Offset.** :math:`\rho` (the decision function is :math:`\sum_t \alpha_t y_t K - \rho`) is
the mean of :math:`y_tG_t` over free variables, or the midpoint of the bounds when none is
free (LIBSVM's ``calculate_rho``). The dual objective is :math:`\tfrac12\sum_t\alpha_t(G_t + p_t)`.

References
----------
Platt, "Sequential minimal optimization", Microsoft Research tech. report MSR-TR-98-14, 1998.
Fan, Chen & Lin, "Working set selection using second order information for training support
vector machines", JMLR 6 (2005) 1889-1918.
Chang & Lin, "LIBSVM: a library for support vector machines", ACM TIST 2 (2011), §4-6.
Wen, Shi, Li, He & Chen, "ThunderSVM: a fast SVM library on GPUs and CPUs", JMLR 19 (2018).
"""

from __future__ import annotations

from typing import Callable, NamedTuple

import jax
import jax.numpy as jnp

from jaxclassic import _precision
from jaxclassic._solver import iterate

__all__ = ["DualProblem", "SMOResult", "RowOracle", "solve", "TAU"]

#: LIBSVM's replacement of a non-positive curvature a_it (non-PSD kernels)
TAU = 1e-12
#: the stopping tolerance is at least TOL_FLOOR * eps * max(1, max|p|) (:func:`effective_tol`)
TOL_FLOOR = 100
#: inner SMO steps of the batched variant: at most INNER_FACTOR * q per outer step
INNER_FACTOR = 10


class DualProblem(NamedTuple):
    """The QP data: signs ``y`` (m,), linear term ``p`` (m,), upper bounds ``upper`` (m,)."""

    y: jax.Array
    p: jax.Array
    upper: jax.Array


class SMOResult(NamedTuple):
    """Solution of :func:`solve`: ``alpha`` (m,), gradient ``G`` (m,), offset ``rho``, dual
    ``objective``, ``n_iter`` (pair steps, or outer steps of the batched variant),
    ``converged`` and the final maximal violating pair ``gap``."""

    alpha: jax.Array
    G: jax.Array
    rho: jax.Array
    objective: jax.Array
    n_iter: jax.Array
    converged: jax.Array
    gap: jax.Array


# --------------------------------------------------------------------------- kernel rows
class RowOracle:
    """Kernel rows of the ``n`` samples: ``K[r]`` from a Gram matrix, on demand, or cached.

    ``storage`` is ``"gram"`` (``K`` given), ``"rows"`` (``block([r])`` each time) or
    ``"cache"`` (an LRU cache of ``cache_rows`` rows). ``row(state, r) -> (row, state)``;
    ``block(rows) -> (len(rows), n)`` (never cached).
    """

    def __init__(self, storage: str, *, n: int, dtype, K=None, block: Callable | None = None,
                 cache_rows: int = 0):
        self.storage, self.K, self._block, self.cache_rows = storage, K, block, cache_rows
        self.n, self.dtype = n, dtype

    def _compute(self, r):
        return self._block(jnp.reshape(r, (1,)))[0].astype(self.dtype)

    def init(self):
        if self.storage != "cache":
            return ()
        m, n = self.cache_rows, self.n
        return (jnp.zeros((m, n), self.dtype), jnp.full((n,), -1, jnp.int32),
                jnp.full((m,), -1, jnp.int32), jnp.zeros((m,), jnp.int32), jnp.int32(1))

    def row(self, state, r):
        if self.storage == "gram":
            return jax.lax.dynamic_index_in_dim(self.K, r, keepdims=False), state
        if self.storage == "rows":
            return self._compute(r), state
        cache, slot_of, owner, stamp, clock = state
        slot = slot_of[r]
        hit = slot >= 0
        # only the (n,) row goes through the branch (a miss computes it and picks the least
        # recently used slot); the cache write below is unconditional (a hit writes the row
        # back to its own slot), so the large buffer is updated in place
        row, target = jax.lax.cond(
            hit, lambda: (jax.lax.dynamic_index_in_dim(cache, jnp.maximum(slot, 0), keepdims=False), slot),
            lambda: (self._compute(r), _argmax(-stamp)))
        evicted = owner[target]
        evicted = jnp.where(hit | (evicted < 0), self.n, evicted)  # index n: dropped
        slot_of = slot_of.at[evicted].set(-1, mode="drop").at[r].set(target)
        cache = jax.lax.dynamic_update_index_in_dim(cache, row, target, axis=0)
        owner = owner.at[target].set(r)
        stamp = stamp.at[target].set(clock)
        return row, (cache, slot_of, owner, stamp, clock + 1)

    def block(self, rows):
        if self.storage == "gram":
            return self.K[rows]
        return self._block(rows).astype(self.dtype)


# --------------------------------------------------------------------------- pieces
def _argmax(v):
    """First index of the maximum. XLA's CPU argmax (a variadic reduce) is ~7x slower than a
    max and a masked min over indices (128 vs 18 us for 10,000 floats): SMO does this every step."""
    n = v.shape[0]
    top = jnp.max(v)
    idx = jnp.min(jnp.where(v == top, jnp.arange(n, dtype=jnp.int32), n))
    return jnp.minimum(idx, n - 1).astype(jnp.int32)


def _index_sets(alpha, y, upper):
    positive = y > 0
    below_upper = alpha < upper
    above_zero = alpha > 0
    in_up = jnp.where(positive, below_upper, above_zero)
    in_low = jnp.where(positive, above_zero, below_upper)
    return in_up, in_low


def _gap(Gmax, Gmax2):
    """m(α) − M(α); 0 when a set is empty (nothing can move), NaN kept (a diverging fit)."""
    gap = Gmax + Gmax2
    return jnp.where(jnp.isinf(Gmax) | jnp.isinf(Gmax2), jnp.zeros_like(gap), gap)


def _select_i(alpha, G, y, upper):
    """The first index of WSS2 and the two extremes of the violation scores."""
    in_up, in_low = _index_sets(alpha, y, upper)
    score = -y * G
    neg_inf = jnp.asarray(-jnp.inf, G.dtype)
    up_scores = jnp.where(in_up, score, neg_inf)
    i = _argmax(up_scores)
    Gmax = up_scores[i]
    Gmax2 = jnp.max(jnp.where(in_low, -score, neg_inf))
    return i, Gmax, Gmax2, score, in_low


def _select_j(i, Gmax, score, in_low, Ki, QD):
    """The second index of WSS2: the largest guaranteed decrease −b²/a over I_low."""
    grad_diff = Gmax - score
    quad = QD[i] + QD - 2.0 * Ki
    quad = jnp.where(quad > 0, quad, jnp.asarray(TAU, quad.dtype))
    inf = jnp.asarray(jnp.inf, score.dtype)
    obj = jnp.where(in_low & (grad_diff > 0), -(grad_diff * grad_diff) / quad, inf)
    j = _argmax(-obj)
    return j


def _pair_update(ai, aj, Gi, Gj, yi, yj, Ci, Cj, Kii, Kjj, Kij):
    """LIBSVM's analytic two-variable step, clipped to the box (``Solver::Solve``)."""
    tau = jnp.asarray(TAU, ai.dtype)
    quad = Kii + Kjj - 2.0 * Kij
    quad = jnp.where(quad > 0, quad, tau)
    # y_i != y_j: alpha_i - alpha_j is conserved
    delta = (-Gi - Gj) / quad
    diff = ai - aj
    ai1, aj1 = ai + delta, aj + delta
    low = diff > 0
    fix = jnp.where(low, aj1 < 0, ai1 < 0)
    ai1, aj1 = (jnp.where(fix, jnp.where(low, diff, 0.0), ai1),
                jnp.where(fix, jnp.where(low, 0.0, -diff), aj1))
    high = diff > Ci - Cj
    fix = jnp.where(high, ai1 > Ci, aj1 > Cj)
    ai1, aj1 = (jnp.where(fix, jnp.where(high, Ci, Cj + diff), ai1),
                jnp.where(fix, jnp.where(high, Ci - diff, Cj), aj1))
    # y_i == y_j: alpha_i + alpha_j is conserved
    delta = (Gi - Gj) / quad
    total = ai + aj
    ai2, aj2 = ai - delta, aj + delta
    over = total > Ci
    fix = jnp.where(over, ai2 > Ci, aj2 < 0)
    ai2, aj2 = (jnp.where(fix, jnp.where(over, Ci, total), ai2),
                jnp.where(fix, jnp.where(over, total - Ci, 0.0), aj2))
    over = total > Cj
    fix = jnp.where(over, aj2 > Cj, ai2 < 0)
    ai2, aj2 = (jnp.where(fix, jnp.where(over, total - Cj, 0.0), ai2),
                jnp.where(fix, jnp.where(over, Cj, total), aj2))
    same = yi == yj
    return jnp.where(same, ai2, ai1), jnp.where(same, aj2, aj1)


def _extend(row, doubled):
    """A sample's kernel row over the m variables (twice over for ε-SVR)."""
    return jnp.concatenate([row, row], axis=-1) if doubled else row


def _sample(t, n, doubled):
    return t % n if doubled else t


def _stop_if_stalled(gap, stalled, tol):
    """The error reported to the solver template: the gap, or NaN when the step moved no
    variable. Near the optimum in float32 the analytic step can round to no change at all;
    the same pair would then be selected forever (a float32 fit asked for tol = 1e-12 ran
    LIBSVM's 10,000,000 steps). A non-finite error stops :func:`jaxclassic._solver.iterate`
    with ``converged=False``; the real gap is kept in the carry and reported."""
    return jnp.where(stalled & (gap > tol), jnp.asarray(jnp.nan, gap.dtype), gap)


# --------------------------------------------------------------------------- pair SMO
def _pair_smo(problem, oracle, QD, alpha0, G0, *, tol, max_iter, doubled, progress=None):
    y, upper = problem.y, problem.upper
    n = oracle.n

    def select(alpha, G, state):
        i, Gmax, Gmax2, score, in_low = _select_i(alpha, G, y, upper)
        Ki, state = oracle.row(state, _sample(i, n, doubled))
        Ki = _extend(Ki, doubled)
        j = _select_j(i, Gmax, score, in_low, Ki, QD)
        return i, j, Ki, _gap(Gmax, Gmax2), state

    def step(carry):
        alpha, G, i, j, Ki, state, _ = carry
        Kj, state = oracle.row(state, _sample(j, n, doubled))
        Kj = _extend(Kj, doubled)
        ai, aj = _pair_update(alpha[i], alpha[j], G[i], G[j], y[i], y[j], upper[i], upper[j],
                              QD[i], QD[j], Ki[j])
        dai, daj = ai - alpha[i], aj - alpha[j]
        alpha = alpha.at[i].set(ai).at[j].set(aj)
        # G += Q_i dα_i + Q_j dα_j with Q_t = y_t y ⊙ K_t
        G = G + y * ((y[i] * dai) * Ki + (y[j] * daj) * Kj)
        i, j, Ki, gap, state = select(alpha, G, state)
        return (alpha, G, i, j, Ki, state, gap), _stop_if_stalled(gap, (dai == 0) & (daj == 0), tol)

    i, j, Ki, gap0, state = select(alpha0, G0, oracle.init())
    res = iterate(step, (alpha0, G0, i, j, Ki, state, gap0), max_iter=max_iter, tol=tol,
                  init_error=gap0, history_size=1, progress=progress, report=lambda carry, err: (carry[-1],))
    alpha, G, gap = res.carry[0], res.carry[1], res.carry[-1]
    return alpha, G, res.n_iter, res.converged, gap


# --------------------------------------------------------------------------- batched SMO
def _local_smo(aB, GB, yB, uB, KBB, QDB, tol, max_inner):
    """The q-variable subproblem by pair SMO on its q x q block, to max(tol, 0.1 local gap)."""

    def gap_of(a, G):
        _, Gmax, Gmax2, _, _ = _select_i(a, G, yB, uB)
        return _gap(Gmax, Gmax2)

    local_tol = jnp.maximum(tol, 0.1 * gap_of(aB, GB))

    def step(carry):
        a, G = carry
        i, Gmax, _, score, in_low = _select_i(a, G, yB, uB)
        j = _select_j(i, Gmax, score, in_low, KBB[i], QDB)
        ai, aj = _pair_update(a[i], a[j], G[i], G[j], yB[i], yB[j], uB[i], uB[j],
                              QDB[i], QDB[j], KBB[i, j])
        dai, daj = ai - a[i], aj - a[j]
        a = a.at[i].set(ai).at[j].set(aj)
        G = G + yB * ((yB[i] * dai) * KBB[i] + (yB[j] * daj) * KBB[j])
        return (a, G), _stop_if_stalled(gap_of(a, G), (dai == 0) & (daj == 0), local_tol)

    res = iterate(step, (aB, GB), max_iter=max_inner, tol=local_tol, init_error=gap_of(aB, GB),
                  history_size=1)
    return res.carry[0]


def _batched_smo(problem, oracle, QD, alpha0, G0, *, tol, max_iter, doubled, batch_size, progress=None):
    y, upper = problem.y, problem.upper
    n, m = oracle.n, y.shape[0]
    q = min(batch_size, m - m % 2)
    half = q // 2
    max_inner = int(INNER_FACTOR * q)

    def gap_of(alpha, G):
        _, Gmax, Gmax2, _, _ = _select_i(alpha, G, y, upper)
        return _gap(Gmax, Gmax2)

    def step(carry):
        alpha, G, _ = carry
        in_up, in_low = _index_sets(alpha, y, upper)
        score = -y * G
        big = jnp.asarray(jnp.finfo(G.dtype).max, G.dtype)
        inf = jnp.asarray(jnp.inf, G.dtype)
        # the q/2 most violating of I_up (largest -yG), then of I_low (smallest), distinct
        _, up_idx = jax.lax.top_k(jnp.where(in_up, score, -inf), half)
        low_key = jnp.where(in_low, -score, -big).at[up_idx].set(-inf)
        _, low_idx = jax.lax.top_k(low_key, q - half)
        B = jnp.concatenate([up_idx, low_idx]).astype(jnp.int32)
        KB = _extend(oracle.block(_sample(B, n, doubled)), doubled)  # (q, m)
        KBB = KB[:, B]
        aB = _local_smo(alpha[B], G[B], y[B], upper[B], KBB, QD[B], tol, max_inner)
        dB = aB - alpha[B]
        alpha = alpha.at[B].set(aB)
        G = G + y * _precision.matmul(y[B] * dB, KB)
        gap = gap_of(alpha, G)
        return (alpha, G, gap), _stop_if_stalled(gap, jnp.all(dB == 0), tol)

    gap0 = gap_of(alpha0, G0)
    res = iterate(step, (alpha0, G0, gap0), max_iter=max_iter, tol=tol, init_error=gap0, history_size=1,
                  progress=progress, report=lambda carry, err: (carry[-1],))
    alpha, G, gap = res.carry
    return alpha, G, res.n_iter, res.converged, gap


# --------------------------------------------------------------------------- solve
def offset(alpha, G, y, upper):
    """LIBSVM's ρ: mean of y_t G_t over free variables, else the midpoint of the bounds
    (variables of upper bound 0 excluded)."""
    active = upper > 0
    at_upper = active & (alpha >= upper)
    at_lower = active & (alpha <= 0) & ~at_upper
    free = active & ~at_upper & ~at_lower
    yG = y * G
    positive = y > 0
    inf = jnp.asarray(jnp.inf, G.dtype)
    ub_set = (at_upper & ~positive) | (at_lower & positive)
    lb_set = (at_upper & positive) | (at_lower & ~positive)
    ub = jnp.min(jnp.where(ub_set, yG, inf))
    lb = jnp.max(jnp.where(lb_set, yG, -inf))
    n_free = jnp.sum(free)
    mean_free = jnp.sum(jnp.where(free, yG, 0.0)) / jnp.maximum(n_free, 1)
    return jnp.where(n_free > 0, mean_free, 0.5 * (ub + lb))


def effective_tol(tol, p):
    """``max(tol, TOL_FLOOR * eps * max(1, max|p|))``: the gap cannot be resolved below the
    rounding of the gradient (whose entries are of the size of ``p``), and in float32 a tol of
    1e-12 made SMO cycle through tiny steps until ``max_iter`` (10,000,000 steps). In float64
    the floor is ~2e-14 (scikit-learn's checks ask for 1e-12); in float32 ~1.2e-5 for C-SVC."""
    eps = jnp.finfo(p.dtype).eps
    floor = TOL_FLOOR * eps * jnp.maximum(1.0, jnp.max(jnp.abs(p)))
    return jnp.maximum(jnp.asarray(tol, p.dtype), floor.astype(p.dtype))


def solve(problem: DualProblem, oracle: RowOracle, QD, *, tol, max_iter, doubled: bool = False,
          working_set: str = "pair", batch_size: int = 64, progress=None) -> SMOResult:
    """Solve the dual QP from α = 0 (G = p) by pair SMO (WSS2) or the batched variant.
    ``progress`` (a fit's ``verbose > 0``, :mod:`jaxclassic._progress`) reports the gap.

    ``QD`` (m,) is the kernel diagonal over the variables; ``max_iter`` may be traced.
    Returns :class:`SMOResult`.
    """
    alpha0 = jnp.zeros_like(problem.p)
    G0 = problem.p
    tol = effective_tol(tol, problem.p)
    if working_set == "batch":
        alpha, G, n_iter, converged, gap = _batched_smo(problem, oracle, QD, alpha0, G0, tol=tol, max_iter=max_iter,
                                     doubled=doubled, batch_size=batch_size, progress=progress)
    else:
        alpha, G, n_iter, converged, gap = _pair_smo(problem, oracle, QD, alpha0, G0, tol=tol, max_iter=max_iter,
                                  doubled=doubled, progress=progress)
    rho = offset(alpha, G, problem.y, problem.upper)
    objective = 0.5 * jnp.sum(alpha * (G + problem.p))
    return SMOResult(alpha, G, rho, objective, n_iter, converged, gap)
