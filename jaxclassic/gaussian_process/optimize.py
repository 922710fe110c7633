r"""Type-II maximum likelihood: the GP hyperparameters that maximise the log marginal likelihood.

The free hyperparameters (amplitude :math:`c`, length scale(s) :math:`\ell`, noise
:math:`\sigma^2`: each free within bounds, or fixed) are optimised on a log scale, as
scikit-learn does. Bounds :math:`[\log l_j, \log h_j]` are kept by a smooth reparametrisation
(the logistic bijection, GPflow's ``Sigmoid``):

.. math::

    \log\theta_j = \log l_j + (\log h_j - \log l_j)\,\operatorname{sigmoid}(u_j),

so the search over :math:`u \in \mathbb R^p` is unconstrained and smooth, and the gradient is
the autodiff gradient of :func:`~jaxclassic.gaussian_process.log_marginal_likelihood` (checked
against the closed form :math:`\tfrac12\operatorname{tr}((\alpha\alpha^\top - C^{-1})\,
\partial C/\partial\theta_j)` in the tests) times :math:`d\log\theta_j/du_j`. A bound is
approached but never reached exactly (scikit-learn's L-BFGS-B projects onto it): where the
optimum lies on a bound, the likelihood falls short of the bound's by about the stopping
tolerance on the gradient in :math:`u` (there :math:`d\log\theta/du` vanishes with the
distance to the bound).

:math:`-\log p` is minimised by optax's L-BFGS (``optax.lbfgs``, zoom line search under the
strong Wolfe conditions) through :func:`jaxclassic._solver.minimize_optax`, which stops when
:math:`\lVert\nabla_u\rVert_2 \le` ``tol`` or after ``max_iter`` iterations. The first start
is ``init``; each of the ``n_restarts`` further starts draws :math:`\log\theta` uniformly
within the bounds (log-uniform :math:`\theta`, scikit-learn's rule) from its own key; all
starts are one ``vmap`` of the solver, and the start with the highest final likelihood is
kept.

Cost. Each likelihood and gradient costs one Cholesky factorisation and one :math:`C^{-1}`
(:math:`O(n^3)`), as scikit-learn's; L-BFGS with optax's zoom line search takes about one
evaluation per iteration (the step 1 of the scaled L-BFGS direction is nearly always
accepted; 16 evaluations for 14 iterations on 300 rows, scikit-learn 17). Under ``vmap`` the
branches of the line search's ``lax.cond`` both run (a batched ``cond`` is a ``select``), about
three evaluations per iteration: the single start (``n_restarts=0``) is therefore not
batched, and ``batch_restarts=False`` runs several starts one after another (``lax.map``),
the cheaper choice on a CPU; batched starts suit a GPU, where the factorisations of all
starts run together.

Derivatives (issue 14). The best start's ``kernel`` has the implicit derivatives of the
optimum's stationarity, :math:`\partial\log p/\partial\log\theta_j = 0` for the free
hyperparameters (the fixed ones pass ``init``'s derivative through), in ``X``, ``y``,
``sample_weight``, ``alpha`` and ``init``'s fixed values:
:math:`\partial\hat\theta = -H^{-1}\partial(\nabla\log p)` with :math:`H` the Hessian in
:math:`\log\theta` (:func:`jaxclassic._implicit.with_implicit_derivatives`; L-BFGS's loop is
never differentiated, and the values are L-BFGS's). Defined at an interior, strict optimum; at
an optimum on a bound it is not. ``log_marginal_likelihood``, ``kernels`` and ``n_iter`` carry
no derivative: differentiate ``log_marginal_likelihood(result.kernel, X, y)`` instead.

References
----------
Rasmussen & Williams, *Gaussian Processes for Machine Learning*, 2006, §5.4.1.
Nocedal & Wright, *Numerical Optimization*, 2nd ed., §7.2 (L-BFGS), §3.5 (zoom line search).
"""

from __future__ import annotations

import math
from functools import partial
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import optax

from jaxclassic import _jit
from jaxclassic._implicit import with_implicit_derivatives
from jaxclassic._solver import minimize_optax
from jaxclassic.gaussian_process.covariance import GPKernel
from jaxclassic.gaussian_process.regression import _lml, _prepare
from jaxclassic.validation import as_operand, check_bool, check_int, check_key, check_scalar, key_from_seed

__all__ = ["GPOptimization", "DEFAULT_BOUNDS", "optimize_hyperparameters"]

#: scikit-learn's default bounds of ConstantKernel, RBF / Matern and WhiteKernel
DEFAULT_BOUNDS = (1e-5, 1e5)
#: a start within this fraction of the log-range from a bound is moved inside (finite u)
_EDGE = 1e-3
_FIELDS = GPKernel._fields


class GPOptimization(NamedTuple):
    """Outcome of :func:`optimize_hyperparameters`.

    Attributes
    ----------
    kernel : GPKernel
        The hyperparameters of the best start.
    log_marginal_likelihood : () array
        Its log marginal likelihood.
    n_iter : (n_starts,) int32
        L-BFGS iterations of each start.
    converged : (n_starts,) bool
        Whether each start met ``tol``.
    start_kernels : GPKernel
        The final hyperparameters of every start (leading axis ``n_starts = 1 + n_restarts``).
    start_log_marginal_likelihoods : (n_starts,) array
    """

    kernel: GPKernel
    log_marginal_likelihood: jax.Array
    n_iter: jax.Array
    converged: jax.Array
    start_kernels: GPKernel
    start_log_marginal_likelihoods: jax.Array


def _parse_bounds(bounds, init: GPKernel):
    """Per field: ``(low, high)`` floats, or None (fixed)."""
    if bounds is None:
        bounds = GPKernel(DEFAULT_BOUNDS, DEFAULT_BOUNDS,
                          DEFAULT_BOUNDS if float(np.asarray(init.noise)) > 0 else None)
    if isinstance(bounds, dict):
        unknown = set(bounds) - set(_FIELDS)
        if unknown:
            raise ValueError(f"bounds has unknown keys {sorted(unknown)}; expected some of {list(_FIELDS)}")
        bounds = GPKernel(*(bounds.get(f, DEFAULT_BOUNDS) for f in _FIELDS))
    if not isinstance(bounds, tuple) or len(bounds) != 3:
        raise TypeError("bounds must be a GPKernel (or dict) of (low, high) pairs, None or 'fixed' per "
                        f"hyperparameter, got {bounds!r}")
    out = []
    for name, b in zip(_FIELDS, bounds):
        if b is None or (isinstance(b, str) and b == "fixed"):
            out.append(None)
            continue
        pair = np.asarray(b, dtype=np.float64)
        if pair.shape != (2,) or not np.all(np.isfinite(pair)) or not 0 < pair[0] < pair[1]:
            raise ValueError(f"bounds of {name} must be 'fixed' or (low, high) with 0 < low < high, "
                             f"finite, got {b!r}")
        out.append((float(pair[0]), float(pair[1])))
    if out[2] is not None and float(np.asarray(init.noise)) == 0:
        raise ValueError("noise is 0 in init and has bounds: a zero noise cannot be optimised on a log "
                         "scale; start from noise > 0 or fix it (bounds noise='fixed' / None)")
    return tuple(out)


def _layout(init: GPKernel, bounds):
    """Static layout of the free vector: ``((field, size) ...)`` and its log bounds (numpy)."""
    layout, low, high = [], [], []
    for name, value, b in zip(_FIELDS, init, bounds):
        if b is None:
            continue
        size = int(np.size(value))
        layout.append((name, size))
        low += [math.log(b[0])] * size
        high += [math.log(b[1])] * size
    return tuple(layout), np.asarray(low), np.asarray(high)


def _unpack(u, init: GPKernel, layout, low, high) -> GPKernel:
    log_theta = low + (high - low) * jax.nn.sigmoid(u)
    values = dict(zip(_FIELDS, init))
    start = 0
    for name, size in layout:
        piece = jnp.exp(log_theta[start:start + size])
        values[name] = piece.reshape(jnp.shape(init._asdict()[name]))
        start += size
    return GPKernel(**values)


def _to_u(log_theta, low, high):
    frac = jnp.clip((log_theta - low) / (high - low), _EDGE, 1 - _EDGE)
    return jnp.log(frac) - jnp.log1p(-frac)


@partial(_jit.jit, static_argnames=("kernel_fn", "normalize_y", "layout", "n_restarts", "max_iter",
                                   "batch_restarts"))
def _optimize(X, y, sample_weight, added_noise, init, low, high, key, tol, *, kernel_fn, normalize_y,
              layout, n_restarts, max_iter, batch_restarts):
    # L-BFGS's loop sees no tangent; the best hyperparameters get the implicit derivatives of
    # the stationarity of the likelihood in X, y, the weights, alpha and the fixed ones
    data = (X, y, sample_weight, added_noise, init)
    X, y, sample_weight, added_noise, init = jax.lax.stop_gradient(data)

    def neg_lml(u):
        hyper = _unpack(u, init, layout, low, high)
        return -_lml(hyper, X, y, sample_weight, added_noise, kernel_fn, normalize_y)

    log_init = jnp.concatenate([jnp.log(jnp.ravel(init._asdict()[name])) for name, _ in layout])
    starts = _to_u(log_init, low, high)[None, :]
    if n_restarts:
        draws = jax.vmap(lambda k: jax.random.uniform(k, low.shape, low.dtype, low, high))(
            jax.random.split(key, n_restarts))
        starts = jnp.concatenate([starts, _to_u(draws, low, high)], axis=0)

    def solve(u0):
        res = minimize_optax(neg_lml, u0, optax.lbfgs(), max_iter=max_iter, tol=tol)
        u = res.carry[0]
        value = -neg_lml(u)
        return u, jnp.where(jnp.isnan(value), -jnp.inf, value), res.n_iter, res.converged

    if n_restarts == 0:  # one start: no batch (see the module docstring on vmap's cost)
        u, lml, n_iter, converged = jax.tree_util.tree_map(lambda a: a[None], solve(starts[0]))
    elif batch_restarts:
        u, lml, n_iter, converged = jax.vmap(solve)(starts)
    else:
        u, lml, n_iter, converged = jax.lax.map(solve, starts)
    kernels = jax.vmap(lambda v: _unpack(v, init, layout, low, high))(u)
    best = jnp.argmax(lml)
    free = tuple(name in dict(layout) for name in _FIELDS)
    kernel = with_implicit_derivatives(
        partial(_stationarity, kernel_fn=kernel_fn, normalize_y=normalize_y, free=free),
        jax.tree_util.tree_map(lambda a: a[best], kernels), *data)
    return GPOptimization(kernel, lml[best], n_iter, converged, kernels, lml)


def _stationarity(hyper: GPKernel, X, y, sample_weight, added_noise, init: GPKernel, *, kernel_fn,
                  normalize_y, free):
    r"""Residual of the optimum: :math:`\partial\log p/\partial\log\theta_j` for the free
    hyperparameters (0 at an interior optimum, where :math:`\nabla_u = 0` with
    :math:`d\log\theta/du > 0`), :math:`\theta_j - \theta_j^{init}` for the fixed ones."""
    grad = jax.grad(_lml)(hyper, X, y, sample_weight, added_noise, kernel_fn, normalize_y)
    return GPKernel(*(h * g if is_free else h - h0 for h, g, h0, is_free in zip(hyper, grad, init, free)))


def optimize_hyperparameters(X, y, *, kernel="rbf", init: GPKernel | None = None, bounds=None,
                             n_restarts: int = 0, key=None, alpha=1e-10, normalize_y: bool = False,
                             sample_weight=None, max_iter: int = 100, tol=1e-5,
                             batch_restarts: bool = True) -> GPOptimization:
    r"""Maximise the log marginal likelihood over the log hyperparameters by L-BFGS, with restarts.

    .. math::

        \hat\theta = \arg\max_{\theta \in [l, h]} \log p(t \mid X, \theta),

    over :math:`\log\theta` with the bounds kept by the logistic reparametrisation of the
    module docstring; restarts are one ``vmap``, the best kept. Fit the GP at the result with
    ``fit_gp(X, y, kernel=kernel, **result.kernel._asdict())``.

    Parameters
    ----------
    X : (n_samples, n_features) array-like
    y : (n_samples,) array-like
    kernel : str or callable
        As :func:`~jaxclassic.gaussian_process.fit_gp`.
    init : GPKernel, optional
        The first start (default ``GPKernel(1.0, 1.0, 0.0)``; an ``(n_features,)``
        ``length_scale`` optimises one length scale per feature, ARD).
    bounds : GPKernel or dict of (low, high) / None / "fixed", optional
        Per hyperparameter: ``(low, high)`` with ``0 < low < high``, or ``None`` / ``"fixed"``
        to keep the ``init`` value (one pair for all the length scales). Default:
        scikit-learn's ``(1e-5, 1e5)`` for all, noise fixed when ``init.noise == 0``.
    n_restarts : int >= 0
        Further starts drawn log-uniformly within the bounds (static).
    key : jax.random key, optional
        Draws the further starts when ``n_restarts > 0`` (default ``jax.random.key(0)``:
        same call, same result); unused otherwise.
    alpha, normalize_y, sample_weight
        As :func:`~jaxclassic.gaussian_process.fit_gp`.
    max_iter : int
        L-BFGS iterations per start (static).
    tol : float
        Stop when the gradient norm in the unconstrained variables is at most ``tol``.
    batch_restarts : bool
        Run the starts as one ``vmap`` (default) or one after another (``lax.map``; fewer
        likelihood evaluations on a CPU, see the module docstring) (static).

    Returns
    -------
    GPOptimization

    Examples
    --------
    >>> import jax.numpy as jnp
    >>> from jaxclassic.gaussian_process import GPKernel
    >>> X = jnp.linspace(0, 5, 30)[:, None]; y = jnp.sin(X[:, 0])
    >>> res = optimize_hyperparameters(X, y, init=GPKernel(1.0, 1.0, 0.1))
    >>> bool(res.log_marginal_likelihood > 0)
    True

    References
    ----------
    Rasmussen & Williams, *Gaussian Processes for Machine Learning*, 2006, §5.4.1.
    """
    init = GPKernel(1.0, 1.0, 0.0) if init is None else init
    if not isinstance(init, GPKernel):
        raise TypeError(f"init must be a GPKernel, got {type(init).__name__}")
    X, y, sw, added_noise, kernel_fn = _prepare(X, y, sample_weight, alpha, init.amplitude,
                                                init.length_scale, init.noise, kernel)
    n_restarts = check_int(n_restarts, "n_restarts", low=0)
    max_iter = check_int(max_iter, "max_iter", low=1)
    check_scalar(tol, "tol", low=0.0)
    normalize_y = check_bool(normalize_y, "normalize_y")
    batch_restarts = check_bool(batch_restarts, "batch_restarts")
    # None: the fixed default key jax.random.key(0), so a call is deterministic
    key = key_from_seed(0) if key is None else check_key(key)
    parsed = _parse_bounds(bounds, init)
    layout, low, high = _layout(init, parsed)
    init = GPKernel(*(as_operand(v, X.dtype) for v in init))
    if not layout:  # nothing to optimise
        lml = _lml(init, X, y, sw, added_noise, kernel_fn, bool(normalize_y))
        stack = jax.tree_util.tree_map(lambda a: a[None], init)
        return GPOptimization(init, lml, jnp.zeros(1, jnp.int32), jnp.ones(1, bool), stack, lml[None])
    return _optimize(X, y, sw, added_noise, init, as_operand(low, X.dtype), as_operand(high, X.dtype),
                     key, as_operand(tol, X.dtype), kernel_fn=kernel_fn, normalize_y=bool(normalize_y),
                     layout=layout, n_restarts=n_restarts, max_iter=max_iter,
                     batch_restarts=bool(batch_restarts))
