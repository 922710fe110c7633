r"""Grid search over hyperparameters: the whole (grid × folds) table in one compiled call.

Traced hyperparameters (``alpha``, ``l2``, ``C``, ``gamma``...) of a grid of ``G`` points and
``K`` folds are fitted as a nested ``vmap`` — one jitted program for all ``G × K`` fits —
instead of ``G × K`` separate fits. Static hyperparameters (``degree``, ``max_iter``,
``n_estimators``: they change shapes or loop structure) are looped over in Python, one
compiled program per static combination.

Selection rule: the grid point of highest mean validation score,

.. math::

    \hat\lambda = \arg\max_{\lambda \in \Lambda} \tfrac1K \textstyle\sum_{k=1}^K
    \mathrm{score}\big(\hat\theta_k(\lambda), X, y;\ \mathbb 1[w_k = 0]\big),

ties going to the first point (as scikit-learn's ``GridSearchCV``); then ``fit`` is run once
more on all rows at :math:`\hat\lambda` (the refit).

References
----------
Hastie, Tibshirani, Friedman, *The Elements of Statistical Learning*, 2nd ed., §7.10.
"""

from __future__ import annotations

import itertools
from typing import Any, Callable, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxclassic.model_selection.cross_validation import (
    _check_callables,
    _check_hyperparameters,
    _prepare,
    _run_program,
    _static_kwargs,
)
from jaxclassic.model_selection.tuning import _best_of_path, _python_value
from jaxclassic.validation import is_traced

__all__ = ["GridSearchResult", "grid_search"]


class GridSearchResult(NamedTuple):
    """Outcome of :func:`grid_search`.

    Attributes
    ----------
    scores : (G, K) float
        Validation score of every grid point (rows) on every fold (columns).
    mean_scores : (G,) float
        Mean over the folds: the CV estimate at each point.
    std_scores : (G,) float
        Standard deviation over the folds (``ddof=0``).
    points : list of dict
        The ``G`` grid points, ``{name: value}`` with both traced and static names, in the
        row order of ``scores``.
    best_index : int
        Row of the best point (highest mean score; the first on ties). Inside ``jax.grad``
        or ``jax.jit`` (traced scores) a traced int, and ``best_point`` holds the traced
        values of the grid's names (``static_grid`` then needs ``refit=False``).
    best_point : dict
        ``points[best_index]``, of the same type as
        :attr:`TuningResult.best_point <jaxclassic.model_selection.TuningResult>`: when the
        result is concrete, plain Python scalars (``{"alpha": 0.1, "degree": 2}``; a
        vector-valued grid entry as a numpy array, a ``static_grid`` value as given); inside
        the caller's ``jax.jit`` / ``jax.vmap`` / ``jax.grad`` (traced), the traced arrays.
    best_score : float
        ``mean_scores[best_index]`` (a traced scalar, differentiable, when traced).
    params : pytree or None
        ``fit`` refitted on all rows at ``best_point`` (``None`` when ``refit=False``).
    train_scores : (G, K) float or None
        Scores on the training rows of each fold (when ``return_train_score``).
    """

    scores: jax.Array
    mean_scores: jax.Array
    std_scores: jax.Array
    points: list
    best_index: int
    best_point: dict
    best_score: float
    params: Any
    train_scores: jax.Array | None


def _check_traced_grid(grid: Any, dtype) -> tuple[dict[str, jax.Array], list[dict]]:
    """The Cartesian product of a traced grid: dict of (G, ...) arrays and the G points."""
    if grid is None:
        grid = {}
    if not isinstance(grid, dict):
        raise TypeError(f"grid must be a dict of name -> 1-d array of values, got {type(grid).__name__}")
    axes = {}
    for name, values in grid.items():
        if not isinstance(name, str):
            raise TypeError(f"grid keys must be argument names (str), got {name!r}")
        arr = _check_hyperparameters({name: values}, dtype, name="grid")[name]
        if arr.ndim == 0:
            raise ValueError(f"grid[{name!r}] must be a 1-d sequence of values, got a scalar {values!r}")
        if arr.shape[0] == 0:
            raise ValueError(f"grid[{name!r}] is empty; give at least one value")
        if (jnp.issubdtype(arr.dtype, jnp.floating) and not is_traced(arr)
                and not bool(jnp.all(jnp.isfinite(arr)))):
            raise ValueError(f"grid[{name!r}] contains NaN or inf values")
        axes[name] = arr
    lengths = [a.shape[0] for a in axes.values()]
    # Cartesian product, the last name varying fastest (as scikit-learn's ParameterGrid
    # with a single dict: itertools.product order)
    index = np.indices(lengths).reshape(len(lengths), -1) if lengths else np.zeros((0, 1), int)
    columns = {name: arr[index[j]] for j, (name, arr) in enumerate(axes.items())}
    n_points = index.shape[1]
    points = [
        {name: _python_value(columns[name][g]) for name in columns} for g in range(n_points)
    ]
    return columns, points


def _static_combinations(static_grid: Any) -> list[dict]:
    if static_grid is None:
        return [{}]
    if not isinstance(static_grid, dict):
        raise TypeError(f"static_grid must be a dict of name -> list of values, got {type(static_grid).__name__}")
    names = list(static_grid)
    lists = []
    for name in names:
        values = static_grid[name]
        if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
            raise TypeError(f"static_grid[{name!r}] must be a list of values, got {values!r}")
        values = list(values)
        if not values:
            raise ValueError(f"static_grid[{name!r}] is empty; give at least one value")
        lists.append(values)
    return [dict(zip(names, combo)) for combo in itertools.product(*lists)]


def grid_search(
    fit: Callable,
    score: Callable,
    X: Any,
    y: Any,
    grid: dict | None,
    folds: Any,
    *,
    static_grid: dict | None = None,
    hyperparameters: dict | None = None,
    fit_kwargs: dict | None = None,
    sample_weight: Any = None,
    refit: bool = True,
    return_train_score: bool = False,
    allow_nan: bool = False,
) -> GridSearchResult:
    r"""Cross-validate every point of a hyperparameter grid; pick the best; refit.

    The traced part of the grid (``grid``) and the K folds are one nested ``vmap``: all
    ``G_traced × K`` fits run in a single compiled program. Each combination of the static
    part (``static_grid``) compiles its own program (shapes or loops change), looped in
    Python. The table's rows are the static combinations (outer) × the traced points (inner).

    ``grid_search`` is differentiable: under ``jax.grad`` the table ``scores`` (and
    ``best_score``, the refit) differentiate with respect to the grid values, the data and
    the weights, through any fit that has derivatives; the choice of the best point is an
    ``argmax`` (piecewise constant: no gradient flows through the choice itself).

    Parameters
    ----------
    fit : callable
        ``fit(X, y, *, sample_weight, **hyperparameters, **fit_kwargs) -> params``.
    score : callable
        ``score(params, X, y, *, sample_weight) -> scalar``, higher is better.
    X, y : arrays
        The data, as ``fit`` expects it.
    grid : dict of str -> 1-d array
        Traced hyperparameters and their values; the grid is their Cartesian product (the
        last name varying fastest). ``{}`` or ``None`` when only ``static_grid`` varies.
    folds : (K, n) array
        Training weights of the folds (e.g. :func:`kfold_weights`); validation rows have
        weight 0.
    static_grid : dict of str -> list, optional
        Static hyperparameters and their values (``{"degree": [1, 2, 3]}``), looped.
    hyperparameters : dict, optional
        Further traced arguments held fixed over the grid.
    fit_kwargs : dict, optional
        Further static arguments held fixed (``{"n_classes": 3}``).
    sample_weight : (n,) array, optional
        Base row weights (multiplied into the fold weights; used by the refit).
    refit : bool
        Refit on all rows at the best point.
    return_train_score : bool
        Also score each fit on its training rows.
    allow_nan : bool
        Let NaN in ``X``/``y`` through.

    Returns
    -------
    GridSearchResult
        ``(scores, mean_scores, std_scores, points, best_index, best_point, best_score,
        params, train_scores)``. ``best_point`` is a dict of plain Python scalars when the
        result is concrete (``{"alpha": 0.1}``, as
        :func:`~jaxclassic.model_selection.tune_hyperparameters`'s) and of the traced arrays
        when called inside ``jax.jit`` / ``jax.vmap`` / ``jax.grad``.

    Example
    -------
    >>> import jax, jax.numpy as jnp
    >>> from jaxclassic.linear import fit_ridge, predict
    >>> from jaxclassic.model_selection import kfold_weights, grid_search, neg_mse_scorer
    >>> X = jax.random.normal(jax.random.key(0), (100, 3)); y = X @ jnp.ones(3)
    >>> res = grid_search(fit_ridge, neg_mse_scorer(predict), X, y,
    ...                   {"alpha": jnp.logspace(-3, 3, 13)}, kfold_weights(100, 5))
    >>> res.scores.shape, type(res.best_point["alpha"])
    ((13, 5), <class 'float'>)
    """
    _check_callables(fit, score)
    X, y, train_w, val_w, dtype = _prepare(X, y, folds, sample_weight, allow_nan)
    fixed = _check_hyperparameters(hyperparameters, dtype)
    columns, traced_points = _check_traced_grid(grid, dtype)
    combos = _static_combinations(static_grid)
    base_kwargs = dict(fit_kwargs or {})
    _static_kwargs(base_kwargs)  # validates hashability before any compilation
    for combo in combos:
        clash = set(combo) & (set(columns) | set(fixed) | set(base_kwargs))
        if clash:
            raise ValueError(f"static_grid names {sorted(clash)} are also given elsewhere")
    clash = set(columns) & (set(fixed) | set(base_kwargs))
    if clash:
        raise ValueError(f"grid names {sorted(clash)} are also given in hyperparameters or fit_kwargs")

    score_blocks, train_blocks, points = [], [], []
    for combo in combos:
        static = _static_kwargs({**base_kwargs, **combo})
        if columns:
            _, val, train = _run_program(
                X, y, train_w, val_w, fixed, columns,
                fit=fit, score=score, fit_kwargs=static, has_grid=True,
                return_train_score=bool(return_train_score), return_params=False,
                static_hint="static_grid",
            )
        else:
            _, val, train = _run_program(
                X, y, train_w, val_w, fixed, {},
                fit=fit, score=score, fit_kwargs=static, has_grid=False,
                return_train_score=bool(return_train_score), return_params=False,
                static_hint="static_grid (or fit_kwargs)",
            )
            val = val[None]
            train = None if train is None else train[None]
        score_blocks.append(val)
        train_blocks.append(train)
        points.extend({**combo, **p} for p in traced_points)

    scores = jnp.concatenate(score_blocks, axis=0)
    train_scores = jnp.concatenate(train_blocks, axis=0) if return_train_score else None
    mean_scores = jnp.mean(scores, axis=1)
    std_scores = jnp.std(scores, axis=1)
    if is_traced(mean_scores):
        # inside jax.grad / jax.jit: the choice is a traced argmax (piecewise constant, so
        # no gradient flows through it), the scores, best_score and refit differentiate
        if len(combos) > 1 and refit:
            raise TypeError(
                "grid_search cannot choose among static_grid combinations when its scores are "
                "traced (inside jax.grad or jax.jit): the refit's program depends on the choice. "
                "Pass refit=False, or search the static values in a Python loop outside"
            )
        best_index, best_score = _best_of_path(mean_scores)
        best_point = {name: col[best_index % len(traced_points)] for name, col in columns.items()}
        best_point.update(combos[0] if len(combos) == 1 else {})
    else:
        try:
            best_index, best_score = _best_of_path(mean_scores)
        except ValueError:
            raise ValueError("every grid point scored NaN; check the fit and the score function") from None
        best_point = points[best_index]  # first maximum: ties go to the first point

    params = None
    if refit:
        combo_index, traced_index = (0, best_index) if is_traced(best_index) else divmod(
            best_index, len(traced_points))
        best_traced = {name: col[traced_index] for name, col in columns.items()}
        refit_weight = None if sample_weight is None else sample_weight
        params = fit(
            X, y, sample_weight=refit_weight,
            **fixed, **best_traced, **base_kwargs, **combos[combo_index],
        )
    return GridSearchResult(
        scores, mean_scores, std_scores, points, best_index, best_point,
        best_score, params, train_scores,
    )
