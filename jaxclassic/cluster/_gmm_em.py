"""The EM machinery of :func:`jaxclassic.cluster.fit_gmm`: row tiles, the one pass per
iteration (E-step and the M-step's statistics), the initial responsibilities and M-step, the
generalised M-step, and the loop in :func:`jaxclassic._solver.iterate` (the maths is in
:mod:`jaxclassic.cluster.gmm`'s docstring and :mod:`jaxclassic.cluster._gmm_covariance`)."""

from __future__ import annotations

from functools import partial

import jax
import jax.numpy as jnp
import optax

from jaxclassic import _progress, _tiling
from jaxclassic._solver import iterate, minimize_optax
from jaxclassic.cluster import _gmm_covariance as _cov

__all__ = ["CPU_TILE_BYTES", "tile_rows", "run_em", "em_residual", "lower_bound_with_derivative"]


# --------------------------------------------------------------------------- row passes
#: bytes of the (tile, K, d) blocks of one tile of an EM pass on the CPU: about a core's cache,
#: where the pass is bound by memory traffic (one 200,000-row block of 64 values a row ran
#: 5x slower than cache-sized tiles: every iteration wrote and re-read 50 MB temporaries)
CPU_TILE_BYTES = 4 * 2**20


def tile_rows(n_rows, n_components, n_features, dtype) -> int:
    """Rows per tile of an EM pass: about three (tile, K, d) blocks within
    :data:`CPU_TILE_BYTES` on the CPU, within :data:`jaxclassic._tiling.MEMORY_BUDGET` on
    accelerators."""
    budget = _tiling.MEMORY_BUDGET
    if jax.default_backend() == "cpu":
        budget = min(budget, CPU_TILE_BYTES)
    return _tiling.tile_size(n_rows, 3 * n_components * n_features * jnp.dtype(dtype).itemsize,
                             budget=budget)


def _to_tiles(tile, *rows):
    """Rows as ``(n_tiles, tile, ...)`` blocks, zero-padded (done once per fit); a single block
    when ``tile >= n``. Padded rows have weight 0, so they contribute nothing."""
    n = rows[0].shape[0]
    n_tiles = -(-n // tile)
    pad = n_tiles * tile - n
    return tuple(jnp.pad(a, [(0, pad)] + [(0, 0)] * (a.ndim - 1)).reshape((n_tiles, tile) + a.shape[1:])
                 for a in rows)


def _sum_over_tiles(fn, *tiles):
    """``sum over tiles of fn(*tile)`` (a pytree of sums), the tiles one after another."""
    if tiles[0].shape[0] == 1:
        return fn(*(t[0] for t in tiles))
    zero = jax.tree.map(lambda s: jnp.zeros(s.shape, s.dtype), jax.eval_shape(fn, *(t[0] for t in tiles)))

    def body(total, tile_rows):
        return jax.tree.map(jnp.add, total, fn(*tile_rows)), None

    total, _ = jax.lax.scan(body, zero, tiles)
    return total


def _responsibility_statistics(X_tiles, sw_tiles, resp_tiles, shift, covariance_type):
    """Statistics of given responsibilities (the initial M-step)."""

    def fn(Xt, swt, rt):
        D = Xt[:, None, :] - shift[None]
        wr = jnp.where(swt[:, None] > 0, swt[:, None] * rt, 0)
        return _cov.statistics(D, wr, covariance_type)

    return _sum_over_tiles(fn, X_tiles, sw_tiles, resp_tiles)


def _em_pass(X_tiles, sw_tiles, log_weights, means, prec_chol, covariance_type):
    """One E-step and the M-step's statistics about ``means``: ``(Statistics, sum_i s_i l_i)``."""

    def fn(Xt, swt):
        D = Xt[:, None, :] - means[None]
        log_rho = _cov.log_gaussian(D, prec_chol, covariance_type) + log_weights
        ll = jax.nn.logsumexp(log_rho, axis=1)
        keep = swt > 0
        wr = jnp.where(keep[:, None], swt[:, None] * jnp.exp(log_rho - ll[:, None]), 0)
        return _cov.statistics(D, wr, covariance_type), jnp.sum(jnp.where(keep, swt * ll, 0))

    return _sum_over_tiles(fn, X_tiles, sw_tiles)


# --------------------------------------------------------------------------- initialisation
def _initial_responsibilities(X, sample_weight, key, n_components, init, init_resp):
    n = X.shape[0]
    if init_resp is not None:
        return init_resp.astype(X.dtype)
    if init == "random":
        u = jax.random.uniform(key, (n, n_components), dtype=X.dtype)
        return u / jnp.sum(u, axis=1, keepdims=True)
    if init == "random_from_data":
        p = (sample_weight > 0).astype(X.dtype)
        rows = jax.random.choice(key, n, (n_components,), replace=False, p=p / jnp.sum(p))
        return jnp.zeros((n, n_components), X.dtype).at[rows, jnp.arange(n_components)].set(1)
    if init == "kmeans":
        from jaxclassic.cluster.kmeans import fit_kmeans

        labels = fit_kmeans(X, n_components, key=key, n_init=1, sample_weight=sample_weight).labels
        return jax.nn.one_hot(labels, n_components, dtype=X.dtype)
    from jaxclassic.cluster.kmeans import kmeans_plusplus  # init == "k-means++"

    seeds = kmeans_plusplus(X, n_components, key=key, sample_weight=sample_weight)
    rows = seeds[1] if isinstance(seeds, tuple) else seeds.indices
    return jnp.zeros((n, n_components), X.dtype).at[rows, jnp.arange(n_components)].set(1)


def _initial_parameters(X, sample_weight, resp, reg_covar, covariance_type, tile):
    """scikit-learn's ``_initialize``: one M-step from the responsibilities ``resp``.

    Two passes: the means about the weighted column mean, then the scatter about the means
    (so the shift of :func:`_cov.m_step` is the exact mean and nothing cancels)."""
    K = resp.shape[1]
    center = jnp.sum(sample_weight[:, None] * X, axis=0) / jnp.sum(sample_weight)
    shift = jnp.broadcast_to(center, (K, X.shape[1]))
    tiles = _to_tiles(tile, X, sample_weight, resp)
    stats = _responsibility_statistics(*tiles, shift, covariance_type)
    means = shift + stats.s1 / _cov._pseudo_counts(stats.s0)[:, None]
    stats = _responsibility_statistics(*tiles, means, covariance_type)
    return _cov.m_step(stats, means, reg_covar, covariance_type)


# --------------------------------------------------------------------------- M-steps
def _gradient_m_step(stats, weights, means, prec_chol, reg_covar, covariance_type, n_steps):
    """Generalised EM: ``n_steps`` L-BFGS steps on -Q from the current parameters; refused
    unless Q increased."""

    def negative_q(theta):
        w, m, p = _cov.from_unconstrained(theta, covariance_type)
        return -_cov.objective(w, m, p, stats, means, reg_covar, covariance_type)

    theta0 = _cov.to_unconstrained(weights, means, prec_chol, covariance_type)
    result = minimize_optax(negative_q, theta0, optax.lbfgs(), max_iter=n_steps, tol=0.0)
    theta1 = result.carry[0]
    q0, q1 = negative_q(theta0), negative_q(theta1)
    accept = jnp.isfinite(q1) & (q1 <= q0)
    theta = jax.tree.map(lambda a, b: jnp.where(accept, a, b), theta1, theta0)
    w, m, p = _cov.from_unconstrained(theta, covariance_type)
    return w, m, _cov.covariance_from_precision_cholesky(p, covariance_type), p


# --------------------------------------------------------------------------- the loop
def run_em(X, sample_weight, key, init_resp, tol, reg_covar, *, n_components, covariance_type,
           max_iter, init, m_step, m_step_iter, tile, progress=None):
    """One EM run from one start (traceable; ``fit_gmm`` jits and vmaps it over keys).
    ``progress``: reports each iteration's mean log-likelihood and change
    (:mod:`jaxclassic._progress`; None: nothing).

    Returns ``(weights, means, covariances, precisions_cholesky, converged, n_iter,
    lower_bound, lower_bounds)``: the fields of :class:`jaxclassic.cluster.gmm.GMMParams`.
    """
    dtype = X.dtype
    tol = jnp.asarray(tol, dtype)
    reg_covar = jnp.asarray(reg_covar, dtype)
    total_weight = jnp.sum(sample_weight)
    history_size = max(max_iter, 1)
    big = jnp.finfo(dtype).max
    X_tiles, sw_tiles = _to_tiles(tile, X, sample_weight)

    def step(carry):
        weights, means, covariances, prec_chol, prev, history, i = carry
        stats, ll = _em_pass(X_tiles, sw_tiles, jnp.log(weights), means, prec_chol, covariance_type)
        bound = ll / total_weight
        if m_step == "exact":
            new = _cov.m_step(stats, means, reg_covar, covariance_type)
        else:
            new = _gradient_m_step(stats, weights, means, prec_chol, reg_covar, covariance_type,
                                   m_step_iter)
        # the first iteration has no previous bound: a finite "infinite" change (a non-finite
        # error would stop the solver as diverged)
        change = jnp.where(jnp.isneginf(prev), big, jnp.abs(bound - prev))
        history = history.at[i].set(bound, mode="clip")
        _progress.emit(progress, i, bound, jnp.abs(bound - prev))  # verbose > 0
        return (*new, bound, history, i + 1), change

    resp = _initial_responsibilities(X, sample_weight, key, n_components, init, init_resp)
    start = _initial_parameters(X, sample_weight, resp, reg_covar, covariance_type, tile)
    history = jnp.full((history_size,), -jnp.inf, dtype)
    carry0 = (*start, jnp.asarray(-jnp.inf, dtype), history, jnp.int32(0))
    result = iterate(step, carry0, max_iter=max_iter, tol=tol, history_size=history_size)
    weights, means, covariances, prec_chol, bound, history, _ = result.carry
    return weights, means, covariances, prec_chol, result.converged, result.n_iter, bound, history


# --------------------------------------------------------------------------- the fixed point
def em_residual(theta, X, sample_weight, reg_covar, *, covariance_type, tile):
    r"""The EM fixed point's residual :math:`\theta - \mathrm{EM}(\theta)` (issue 14).

    :math:`\theta` = ``(weights, means, covariances, precisions_cholesky)``; one E-step and the
    exact M-step from ``(weights, means, precisions_cholesky)``. A stationary point of the
    likelihood (what exact and generalised EM converge to) is a fixed point of the exact map,
    so :func:`jaxclassic._implicit.with_implicit_derivatives` differentiates either fit with it:
    :math:`\partial\theta^\star = (I - \partial_\theta\mathrm{EM})^{-1}\partial_h\mathrm{EM}`,
    invertible where EM converges linearly to an isolated maximum (its rate matrix
    :math:`\partial_\theta\mathrm{EM}` has spectral radius below 1 there: Dempster, Laird &
    Rubin 1977, §3; Meng & Rubin 1991). The map reads neither ``covariances`` nor the zero
    triangle of the precision factors, so their rows of the residual are the identity's.
    """
    weights, means, _, prec_chol = theta
    X_tiles, sw_tiles = _to_tiles(tile, X, sample_weight)
    stats, _ = _em_pass(X_tiles, sw_tiles, jnp.log(weights), means, prec_chol, covariance_type)
    new = _cov.m_step(stats, means, jnp.asarray(reg_covar, X.dtype), covariance_type)
    return tuple(a - b for a, b in zip(theta, new))


def mean_log_likelihood(theta, X, sample_weight, *, covariance_type, tile):
    r""":math:`\sum_i s_i\log p(x_i\mid\theta) / \sum_i s_i` (one E-pass)."""
    weights, means, _, prec_chol = theta
    X_tiles, sw_tiles = _to_tiles(tile, X, sample_weight)
    _, ll = _em_pass(X_tiles, sw_tiles, jnp.log(weights), means, prec_chol, covariance_type)
    return ll / jnp.sum(sample_weight)


@partial(jax.custom_jvp, nondiff_argnums=(4, 5))
def lower_bound_with_derivative(value, theta, X, sample_weight, covariance_type, tile):
    r"""``value`` (EM's recorded bound) with the derivative of :math:`L(\theta^\star, X, s)`.

    The fit's ``lower_bound`` is the mean log-likelihood of the parameters entering the last
    iteration, equal at convergence to that of :math:`\theta^\star` (to ``tol``); its tangent is
    the total derivative of :func:`mean_log_likelihood` at :math:`\theta^\star` (whose own
    tangent is the implicit one). The forward value is ``value``, unchanged, and no extra pass
    runs unless differentiated.
    """
    return value


@lower_bound_with_derivative.defjvp
def _lower_bound_jvp(covariance_type, tile, primals, tangents):
    value, theta, X, sample_weight = primals
    _, d_theta, d_X, d_sw = tangents
    fn = partial(mean_log_likelihood, covariance_type=covariance_type, tile=tile)
    _, tangent = jax.jvp(fn, (theta, X, sample_weight), (d_theta, d_X, d_sw))
    return value, tangent.astype(value.dtype)
