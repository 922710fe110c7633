r"""Hyperparameter tuning by gradient: descent on the cross-validated score, one compiled program.

:func:`~jaxclassic.model_selection.grid_search` scores a fixed set of points; when the fit
is differentiable in its continuous hyperparameters (closed forms such as ridge, and the fits
given implicit derivatives by :mod:`jaxclassic._implicit`), the cross-validation estimate
itself is a differentiable function of them and can be descended:

.. math::

    L(\lambda) = -\frac1K \sum_{k=1}^K
        \mathrm{score}\big(\hat\theta_k(\lambda), X, y;\ \mathbb 1[w_k = 0]\, s\big),
    \qquad \hat\theta_k(\lambda) = \mathrm{fit}(X, y;\ w_k s, \lambda),

    \nabla_\lambda L = -\frac1K \sum_k
        \Big(\frac{\partial \hat\theta_k}{\partial \lambda}\Big)^{\!\top}
        \nabla_\theta \mathrm{score}\big(\hat\theta_k, \ldots\big)

(the hypergradient: Bengio 2000; Pedregosa 2016). The chain rule runs through the K fold fits
(a ``vmap``, as :func:`~jaxclassic.model_selection.cross_validate`); each fit's Jacobian
:math:`\partial\hat\theta_k/\partial\lambda` comes from autodiff of a closed form, or from the
implicit function theorem at the fit's optimality condition.

Positive hyperparameters (penalties, ``C``, ``gamma``, bandwidths) are descended in log space
(``log_space=True``): :math:`\lambda = e^{u}` and the optimiser moves :math:`u`, so the
iterates stay positive and a step is a relative change (penalties matter on a log scale).
Several hyperparameters, and vector-valued ones (one penalty per feature), are tuned at once:
``init`` is a dict, i.e. a pytree.

The program: ``n_steps`` optimiser steps (``optax``; L-BFGS by default) in one ``lax.scan``
inside one ``jax.jit``, each step one value-and-gradient of the K-fold CV loss; then the
final point is scored. The result holds the whole path (the hyperparameters and the CV score
at each of the ``n_steps + 1`` points), the best point of the path (the highest mean score;
the first on ties, NaN scores skipped) and the refit on all rows at it, as
:func:`~jaxclassic.model_selection.grid_search` returns.

The CV loss need not be convex in :math:`\lambda`; gradient descent finds a local optimum
from ``init``. The path's best point is reported, not the last one.

References
----------
Y. Bengio, "Gradient-based optimization of hyperparameters", Neural Computation 12 (2000).
F. Pedregosa, "Hyperparameter optimization with approximate gradient", ICML 2016.
Hastie, Tibshirani, Friedman, *The Elements of Statistical Learning*, 2nd ed., §7.10.
"""

from __future__ import annotations

import inspect
from functools import partial
from typing import Any, Callable, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import optax

from jaxclassic import _jit, _progress
from jaxclassic.model_selection.cross_validation import (
    _check_callables,
    _check_concrete_values,
    _check_hyperparameters,
    _fit_score_program,
    _name,
    _prepare,
    _static_kwargs,
    _TRACER_ERRORS,
)
from jaxclassic.validation import check_int, is_traced

__all__ = ["TuningResult", "tune_hyperparameters"]


class TuningResult(NamedTuple):
    """Outcome of :func:`tune_hyperparameters`.

    Attributes
    ----------
    path : dict of str -> (n_steps + 1, ...) array
        The tuned hyperparameters at every point of the descent (natural scale, not log):
        row 0 is ``init``, row ``t`` the point after ``t`` optimiser steps.
    scores : (n_steps + 1,) float
        Mean validation score (the CV estimate, higher is better) at each point of ``path``.
    fold_scores : (n_steps + 1, K) float
        Validation score of every fold at each point.
    best_index : int
        Row of ``path`` with the highest mean score (the first on ties; NaN rows skipped).
    best_point : dict
        The hyperparameters at ``best_index``, of the same type as
        :attr:`GridSearchResult.best_point <jaxclassic.model_selection.GridSearchResult>`:
        when the result is concrete, plain Python scalars (``{"alpha": 0.42}``; a vector-valued
        hyperparameter as a numpy array); inside the caller's ``jax.jit`` / ``jax.vmap`` /
        ``jax.grad`` (traced), the traced arrays.
    best_score : float
        ``scores[best_index]``.
    params : pytree or None
        ``fit`` refitted on all rows at ``best_point`` (``None`` when ``refit=False``).
    """

    path: dict
    scores: jax.Array
    fold_scores: jax.Array
    best_index: int
    best_point: dict
    best_score: float
    params: Any


# --------------------------------------------------------------------------- the program
def _natural(theta: dict, log_names: tuple) -> dict:
    return {name: jnp.exp(u) if name in log_names else u for name, u in theta.items()}


def _fold_scores(X, y, train_w, val_w, fixed, point, *, fit, score, fit_kwargs):
    _, val, _ = _fit_score_program(
        X, y, train_w, val_w, {**fixed, **point}, {}, fit=fit, score=score,
        fit_kwargs=fit_kwargs, has_grid=False, return_train_score=False, return_params=False,
    )
    return val


@partial(_jit.jit, static_argnames=("fit", "score", "fit_kwargs", "optimizer", "n_steps", "log_names",
                                   "progress"))
def _tuning_program(X, y, train_w, val_w, fixed, theta0, *, fit, score, fit_kwargs, optimizer,
                    n_steps, log_names, progress=None):
    """``n_steps`` optimiser steps on the CV loss in one ``lax.scan``; the path and its scores."""

    def loss(theta):
        val = _fold_scores(X, y, train_w, val_w, fixed, _natural(theta, log_names),
                           fit=fit, score=score, fit_kwargs=fit_kwargs)
        return -jnp.mean(val), val

    extra_args = isinstance(optimizer, optax.GradientTransformationExtraArgs)

    def step(carry, t):
        theta, state = carry
        (value, val), grad = jax.value_and_grad(loss, has_aux=True)(theta)
        if progress is not None:  # verbose > 0: the CV score of the point this step starts from
            _progress.emit(progress, t, -value)
        if extra_args:  # line-search optimisers (optax.lbfgs) take the value and the function
            updates, state = optimizer.update(grad, state, theta, value=value, grad=grad,
                                              value_fn=lambda t: loss(t)[0])
        else:
            updates, state = optimizer.update(grad, state, theta)
        return (optax.apply_updates(theta, updates), state), (theta, val)

    (theta_last, _), (thetas, vals) = jax.lax.scan(
        step, (theta0, optimizer.init(theta0)), None if progress is None else jnp.arange(n_steps), length=n_steps
    )
    _, val_last = loss(theta_last)
    thetas = jax.tree.map(lambda path, last: jnp.concatenate([path, last[None]]), thetas, theta_last)
    vals = jnp.concatenate([vals, val_last[None]])
    return _natural(thetas, log_names), vals


# --------------------------------------------------------------------------- checks
def _fit_arguments(fit: Callable) -> tuple[set | None, str]:
    """Keyword names ``fit`` accepts (``None`` when it takes ``**kwargs``) and a listing."""
    try:
        parameters = inspect.signature(fit).parameters
    except (TypeError, ValueError):
        return None, ""
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
        return None, ""
    names = {
        name for name, p in parameters.items()
        if p.kind in (inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    }
    return names, ", ".join(sorted(names - {"X", "y", "sample_weight"}))


def _log_names(log_space: Any, names: list[str]) -> tuple:
    """The names descended in log space: all (True), none (False) or the listed ones."""
    if isinstance(log_space, bool):
        return tuple(names) if log_space else ()
    if isinstance(log_space, (str, bytes)) or not hasattr(log_space, "__iter__"):
        raise TypeError(
            f"log_space must be a bool or a collection of hyperparameter names, got "
            f"{type(log_space).__name__} {log_space!r}"
        )
    listed = list(log_space)
    unknown = sorted(set(listed) - set(names))
    if unknown:
        raise ValueError(f"log_space names {unknown} are not in init (tuned: {sorted(names)})")
    return tuple(name for name in names if name in listed)


def _check_init(init: Any, fit: Callable, dtype, log_space: Any, fixed: dict,
                fit_kwargs: dict) -> tuple[dict, tuple]:
    if not isinstance(init, dict):
        raise TypeError(
            f"init must be a dict of hyperparameter name -> starting value, got {type(init).__name__}"
        )
    if not init:
        raise ValueError("init is empty; give at least one hyperparameter to tune, e.g. {'alpha': 1.0}")
    values = _check_hyperparameters(init, dtype, name="init")
    accepted, listing = _fit_arguments(fit)
    for name, value in values.items():
        if accepted is not None and name not in accepted:
            raise ValueError(
                f"init names the hyperparameter {name!r}, which {_name(fit)} does not take; "
                f"its keyword arguments are: {listing}"
            )
        if not jnp.issubdtype(value.dtype, jnp.floating):
            raise TypeError(
                f"init[{name!r}] must be a float (a continuous hyperparameter), got dtype {value.dtype}"
            )
    clash = sorted(set(values) & (set(fixed) | set(fit_kwargs)))
    if clash:
        raise ValueError(f"init names {clash} are also given in hyperparameters or fit_kwargs")
    log_names = _log_names(log_space, list(values))
    for name, value in values.items():
        if is_traced(value):
            continue
        v = np.asarray(value, dtype=np.float64)
        if not np.all(np.isfinite(v)):
            raise ValueError(f"init[{name!r}] must be finite, got {np.asarray(value)!r}")
        if name in log_names and np.any(v <= 0):
            raise ValueError(
                f"init[{name!r}] must be > 0 with log_space (the descent runs over "
                f"log({name})), got {np.asarray(value)!r}; pass log_space=False (or leave "
                f"{name!r} out of log_space) for a hyperparameter that may be <= 0"
            )
    return values, log_names


def _check_optimizer(optimizer: Any) -> None:
    if not (hasattr(optimizer, "init") and hasattr(optimizer, "update")):
        raise TypeError(
            f"optimizer must be an optax.GradientTransformation (e.g. optax.adam(0.1)), got "
            f"{type(optimizer).__name__}"
        )
    try:
        hash(optimizer)
    except TypeError:
        raise TypeError("optimizer must be hashable (it is static in the compiled program)") from None


def _python_value(x: Any) -> Any:
    """A concrete value as the user would write it: a 0-d array as a Python scalar
    (float/int/bool), a larger one as a numpy array; a traced value (the caller's ``jit``,
    ``vmap`` or ``grad``) unchanged. ``best_point`` of :func:`tune_hyperparameters` and
    :func:`~jaxclassic.model_selection.grid_search` holds these."""
    if is_traced(x):
        return x
    if isinstance(x, (bool, int, float, str)):
        return x
    arr = np.asarray(x)
    return arr.item() if arr.ndim == 0 else arr


def _best_of_path(scores: jax.Array) -> tuple[Any, Any]:
    """Index and value of the highest finite mean score (the first on ties).

    Concrete scores give a Python ``int`` and ``float``; traced ones (inside ``jax.grad`` or
    ``jax.jit``) a traced index and a differentiable score.
    """
    if is_traced(scores):
        index = jnp.argmax(jnp.where(jnp.isnan(scores), -jnp.inf, scores))
        return index, scores[index]
    means = np.asarray(scores)
    if np.all(np.isnan(means)):
        raise ValueError("every point scored NaN; check the fit and the score function")
    index = int(np.nanargmax(means))
    return index, float(means[index])


def tune_hyperparameters(
    fit: Callable,
    score: Callable,
    X: Any,
    y: Any,
    folds: Any,
    init: dict,
    *,
    optimizer: Any = optax.lbfgs(),
    n_steps: int = 30,
    log_space: Any = True,
    hyperparameters: dict | None = None,
    fit_kwargs: dict | None = None,
    sample_weight: Any = None,
    refit: bool = True,
    allow_nan: bool = False,
    verbose: int = 0,
) -> TuningResult:
    r"""Tune continuous hyperparameters by gradient descent on the cross-validated score.

    Minimises :math:`L(\lambda) = -\frac1K\sum_k \mathrm{score}_k(\hat\theta_k(\lambda))`
    with ``optimizer`` over :math:`u = \log\lambda` (``log_space``) or :math:`\lambda`, for
    ``n_steps`` steps, all in one jitted ``lax.scan``; each step differentiates through the K
    fold fits (see the module docstring). ``fit`` must be differentiable in the tuned
    hyperparameters: a closed form (:func:`~jaxclassic.linear.fit_ridge`) or a fit with
    implicit derivatives.

    Parameters
    ----------
    fit : callable
        ``fit(X, y, *, sample_weight, **hyperparameters, **fit_kwargs) -> params``.
    score : callable
        ``score(params, X, y, *, sample_weight) -> scalar``, higher is better
        (:mod:`jaxclassic.model_selection.scoring`); it must be differentiable in ``params``
        (``neg_mse_scorer``, ``log_loss_scorer``: yes; ``accuracy_scorer``: no, its gradient is 0).
    X, y : arrays
        The data, as ``fit`` expects it.
    folds : (K, n) array
        Training weights of the folds (:func:`~jaxclassic.model_selection.kfold_weights`);
        validation rows have weight 0.
    init : dict of str -> float or array
        The hyperparameters to tune and their starting values; an array value (e.g. one
        penalty per feature, shape ``(n_features,)``) is tuned entry by entry.
    optimizer : optax.GradientTransformation, default ``optax.lbfgs()``
        Static (part of the compilation key: pass the same object to reuse the program).
        The CV loss is deterministic and smooth, which suits L-BFGS with its line search
        (it is given the loss as ``value_fn``); first-order optimisers work as well
        (``optax.adam(0.3, b2=0.9)``: with ``log_space`` the learning rate is roughly the
        relative change of :math:`\lambda` per step). Adam with the default ``b2=0.999``
        slows down as the gradient shrinks near the optimum (diabetes, ridge from
        ``alpha=1``: ``adam(0.1)`` was still short of the grid's optimum after 100 steps,
        L-BFGS reached it in 2). On a nearly flat CV curve in float32, L-BFGS can stall at
        ``init`` (its line search sees only rounding; logistic on 5,000 x 50 from ``l2=1``,
        gradient 1e-5: ``benchmarks/bench_tuning.py``), where Adam's normalised steps move
        on: pass ``optax.adam(0.3, b2=0.9)`` there, or run in float64.
    n_steps : int >= 1
        Optimiser steps (static); the path has ``n_steps + 1`` points.
    log_space : bool or collection of str, default True
        Descend :math:`\log\lambda` for all tuned names (``True``), none (``False``) or the
        listed ones. Their ``init`` values must be > 0.
    hyperparameters : dict, optional
        Further traced arguments of ``fit`` held fixed.
    fit_kwargs : dict, optional
        Static arguments of ``fit`` (``{"n_classes": 3}``, ``{"max_iter": 50}``).
    sample_weight : (n,) array, optional
        Base row weights (multiplied into the fold weights; used by the refit).
    refit : bool
        Refit on all rows at the best point of the path.
    allow_nan : bool
        Let NaN in ``X``/``y`` through.
    verbose : int >= 0, default=0 (static)
        0: silent (the program has no callback). ``k > 0``: a tqdm bar of the optimiser steps
        and a line ``[t]\tcv_score:<mean validation score>`` every ``k`` steps and after the
        last, sent from inside the compiled scan (:mod:`jaxclassic._progress`).

    Returns
    -------
    TuningResult
        ``(path, scores, fold_scores, best_index, best_point, best_score, params)``.
        ``best_point`` is a dict of plain Python scalars when the result is concrete
        (``{"alpha": 0.42}``, as :func:`~jaxclassic.model_selection.grid_search`'s; a
        vector-valued hyperparameter as a numpy array) and of the traced arrays when called
        inside ``jax.jit`` / ``jax.vmap`` / ``jax.grad``.

    Example
    -------
    >>> import jax, jax.numpy as jnp
    >>> from jaxclassic.linear import fit_ridge, predict
    >>> from jaxclassic.model_selection import kfold_weights, neg_mse_scorer, tune_hyperparameters
    >>> X = jax.random.normal(jax.random.key(0), (60, 3))
    >>> y = X @ jnp.ones(3) + jax.random.normal(jax.random.key(1), (60,))
    >>> res = tune_hyperparameters(fit_ridge, neg_mse_scorer(predict), X, y,
    ...                            kfold_weights(60, 5), {"alpha": 1.0}, n_steps=10)
    >>> res.path["alpha"].shape, res.scores.shape
    ((11,), (11,))
    >>> type(res.best_point["alpha"])
    <class 'float'>

    References
    ----------
    Y. Bengio, Neural Computation 12 (2000); F. Pedregosa, ICML 2016.
    """
    _check_callables(fit, score)
    _check_optimizer(optimizer)
    n_steps = check_int(n_steps, "n_steps", low=1)
    progress = _progress.spec(verbose, "tune_hyperparameters", ("cv_score",), unit="step")
    extra = {} if progress is None else {"progress": progress}  # verbose=0: the program without reporting
    X, y, train_w, val_w, dtype = _prepare(X, y, folds, sample_weight, allow_nan)
    fixed = _check_hyperparameters(hyperparameters, dtype)
    static = _static_kwargs(fit_kwargs)
    values, log_names = _check_init(init, fit, dtype, log_space, fixed, dict(static))
    _check_concrete_values(fit, X, y, train_w[0], {**fixed, **values}, {}, static)
    theta0 = {name: jnp.log(v) if name in log_names else v for name, v in values.items()}
    try:
        with _progress.reporting(progress, n_steps):
            path, fold_scores = _tuning_program(
                X, y, train_w, val_w, fixed, theta0, fit=fit, score=score, fit_kwargs=static,
                optimizer=optimizer, n_steps=n_steps, log_names=log_names, **extra,
            )
    except _TRACER_ERRORS as exc:
        raise TypeError(
            f"{_name(fit)} or {_name(score)} converted a traced array to a Python value "
            f"({str(exc).splitlines()[0]}); the tuned hyperparameters are traced inside the "
            "compiled program: a value that changes the program's structure is static and "
            "belongs in fit_kwargs"
        ) from exc
    scores = jnp.mean(fold_scores, axis=1)
    best_index, best_score = _best_of_path(scores)
    best_values = {name: column[best_index] for name, column in path.items()}
    params = None
    if refit:
        params = fit(X, y, sample_weight=sample_weight, **fixed, **best_values, **dict(static))
    best_point = {name: _python_value(value) for name, value in best_values.items()}
    return TuningResult(path, scores, fold_scores, best_index, best_point, best_score, params)
