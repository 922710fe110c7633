r"""Learning curves, validation curves and early stopping.

* :func:`learning_curve` — validation (and training) score against the number of training
  rows. The training subsets are weights too: the first ``m`` training rows of fold ``k`` is
  ``w_k ⊙ 1[rank_k ≤ m]``, so all sizes × folds are one ``vmap``.
* :func:`validation_curve` — scores against one hyperparameter; traced values are one
  ``vmap`` over the values and the folds.
* :func:`early_stopping`, :func:`early_stopping_init`, :func:`early_stopping_update` — the
  early-stopping rule, defined in the ground module :mod:`jaxclassic._early_stopping` (the
  families that stop early — SGD, boosting — sit below model selection and use it from there;
  DESIGN.md) and re-exported here.

References
----------
Hastie, Tibshirani, Friedman, *The Elements of Statistical Learning*, 2nd ed., §7.10
(learning curves, Figure 7.8) and §11.5.2 (early stopping).
Prechelt, "Early Stopping — But When?", *Neural Networks: Tricks of the Trade*, 1998.
"""

from __future__ import annotations

from typing import Any, Callable, NamedTuple, Sequence

import jax
import jax.numpy as jnp
import numpy as np

from jaxclassic.model_selection.cross_validation import (
    _check_callables,
    _check_hyperparameters,
    _run_program,
    _prepare,
    _static_kwargs,
)
from jaxclassic._early_stopping import EarlyStopping
from jaxclassic._early_stopping import EarlyStoppingState
from jaxclassic._early_stopping import early_stopping
from jaxclassic._early_stopping import early_stopping_init
from jaxclassic._early_stopping import early_stopping_update
from jaxclassic.validation import check_array, check_int, check_key, check_scalar, is_traced

__all__ = [
    "LearningCurveResult",
    "ValidationCurveResult",
    "EarlyStopping",
    "EarlyStoppingState",
    "learning_curve",
    "validation_curve",
    "early_stopping",
    "early_stopping_init",
    "early_stopping_update",
]


class LearningCurveResult(NamedTuple):
    """Outcome of :func:`learning_curve`.

    Attributes
    ----------
    train_sizes : (S,) int numpy array
        Number of training rows at each point of the curve.
    train_scores : (S, K) float
        Score of each fit on the training rows it was fitted on.
    val_scores : (S, K) float
        Score of each fit on its fold's validation rows.
    """

    train_sizes: np.ndarray
    train_scores: jax.Array
    val_scores: jax.Array


class ValidationCurveResult(NamedTuple):
    """Outcome of :func:`validation_curve`.

    Attributes
    ----------
    param_range : (P,) array
        The hyperparameter values.
    train_scores : (P, K) float
        Score on the training rows of each fold.
    val_scores : (P, K) float
        Score on the validation rows of each fold.
    """

    param_range: Any
    train_scores: jax.Array
    val_scores: jax.Array


# --------------------------------------------------------------------------- learning curve
def _absolute_sizes(train_sizes: Any, n_max: int) -> np.ndarray:
    """Fractions of ``n_max`` (floats in (0, 1]) or counts (ints in [1, n_max]) -> sorted
    unique counts, as scikit-learn's ``learning_curve``."""
    sizes = np.asarray(train_sizes)
    if sizes.ndim != 1 or sizes.size == 0:
        raise ValueError(f"train_sizes must be a non-empty 1-d sequence, got {train_sizes!r}")
    if sizes.dtype.kind == "f":
        if not np.all((sizes > 0) & (sizes <= 1)):
            raise ValueError(
                f"train_sizes as fractions must lie in (0, 1], got {sizes.tolist()}"
            )
        counts = np.clip((sizes * n_max).astype(int), 1, n_max)
    elif sizes.dtype.kind in "iu":
        if not np.all((sizes >= 1) & (sizes <= n_max)):
            raise ValueError(
                f"train_sizes as counts must lie in [1, {n_max}] (the smallest fold's "
                f"training rows), got {sizes.tolist()}"
            )
        counts = sizes.astype(int)
    else:
        raise TypeError(f"train_sizes must hold floats (fractions) or ints (counts), got {sizes.dtype}")
    return np.unique(counts)


def learning_curve(
    fit: Callable,
    score: Callable,
    X: Any,
    y: Any,
    folds: Any,
    train_sizes: Sequence[float] | Sequence[int] = (0.1, 0.325, 0.55, 0.775, 1.0),
    *,
    key: Any = None,
    hyperparameters: dict | None = None,
    fit_kwargs: dict | None = None,
    sample_weight: Any = None,
    allow_nan: bool = False,
) -> LearningCurveResult:
    r"""Training and validation score against the number of training rows.

    For each size ``m`` and fold ``k`` the model is fitted on the first ``m`` training rows
    of the fold (in row order, or in a random order drawn from ``key``), as the weights
    :math:`w_k \odot \mathbb 1[\mathrm{rank}_k(i) \le m]`, and scored on the fold's whole
    validation set. All ``S × K`` fits are one vmapped, jitted call.

    Parameters
    ----------
    fit, score : callables
        As in :func:`~jaxclassic.model_selection.cross_validate`.
    X, y : arrays
    folds : (K, n) array of 0/1 training weights
    train_sizes : sequence of floats in (0, 1] or ints, default (0.1, 0.325, 0.55, 0.775, 1.0)
        scikit-learn's default ``np.linspace(0.1, 1.0, 5)``. Fractions of (or numbers of rows in) the smallest fold's training set; converted to
        counts ``floor(fraction · n_train)`` (at least 1), sorted and made unique, as in
        scikit-learn's ``learning_curve``.
    key : jax.random key, optional
        Take the subsets in a random order of the rows (the same order for every fold and
        size, so the subsets are nested). ``None`` (the default): in row order, as
        scikit-learn's ``learning_curve`` with its default ``shuffle=False``; the same call
        gives the same curve either way.
    hyperparameters, fit_kwargs, sample_weight, allow_nan
        As in :func:`~jaxclassic.model_selection.cross_validate`.

    Returns
    -------
    LearningCurveResult
        ``(train_sizes (S,), train_scores (S, K), val_scores (S, K))``.
    """
    _check_callables(fit, score)
    X, y, train_w, val_w, dtype = _prepare(X, y, folds, sample_weight, allow_nan)
    hp = _check_hyperparameters(hyperparameters, dtype)
    in_fold = np.asarray(train_w) > 0
    sizes = _absolute_sizes(train_sizes, int(in_fold.sum(axis=1).min()))
    n_folds, n = train_w.shape
    order = jnp.arange(n) if key is None else jax.random.permutation(check_key(key), n)
    # rank of each row among its fold's training rows, in the chosen order (1-based)
    member = (train_w > 0)[:, order]
    rank = jnp.zeros(member.shape, jnp.int32).at[:, order].set(jnp.cumsum(member, axis=1, dtype=jnp.int32))
    subset = (rank[None] <= jnp.asarray(sizes)[:, None, None]) & (train_w[None] > 0)
    sub_w = jnp.where(subset, train_w[None], jnp.zeros((), dtype)).reshape(-1, n)
    rep_val = jnp.broadcast_to(val_w[None], (len(sizes), n_folds, n)).reshape(-1, n)
    _, val, train = _run_program(
        X, y, sub_w, rep_val, hp, {},
        fit=fit, score=score, fit_kwargs=_static_kwargs(fit_kwargs), has_grid=False,
        return_train_score=True, return_params=False,
    )
    shape = (len(sizes), n_folds)
    return LearningCurveResult(sizes, train.reshape(shape), val.reshape(shape))


# --------------------------------------------------------------------------- validation curve
def validation_curve(
    fit: Callable,
    score: Callable,
    X: Any,
    y: Any,
    folds: Any,
    param_name: str,
    param_range: Any,
    *,
    static: bool = False,
    hyperparameters: dict | None = None,
    fit_kwargs: dict | None = None,
    sample_weight: Any = None,
    allow_nan: bool = False,
) -> ValidationCurveResult:
    r"""Training and validation scores against one hyperparameter.

    A traced hyperparameter (``alpha``, ``l2``, ``C``...) is vmapped over its ``P`` values
    and the ``K`` folds in one compiled call; a static one (``static=True``: ``degree``,
    ``max_depth``...) is looped over, one program per value.

    Parameters
    ----------
    fit, score : callables
        As in :func:`~jaxclassic.model_selection.cross_validate`.
    X, y : arrays
    folds : (K, n) array of training weights
    param_name : str
        The keyword argument of ``fit`` to vary.
    param_range : (P,) sequence
        Its values.
    static : bool
        Whether ``param_name`` is a static argument of ``fit`` (looped) rather than traced.
    hyperparameters, fit_kwargs, sample_weight, allow_nan
        As in :func:`~jaxclassic.model_selection.cross_validate`.

    Returns
    -------
    ValidationCurveResult
        ``(param_range, train_scores (P, K), val_scores (P, K))``.
    """
    _check_callables(fit, score)
    if not isinstance(param_name, str):
        raise TypeError(f"param_name must be a str, got {type(param_name).__name__}")
    X, y, train_w, val_w, dtype = _prepare(X, y, folds, sample_weight, allow_nan)
    hp = _check_hyperparameters(hyperparameters, dtype)
    base_kwargs = dict(fit_kwargs or {})
    if param_name in hp or param_name in base_kwargs:
        raise ValueError(f"param_name {param_name!r} is also given in hyperparameters or fit_kwargs")
    if static:
        values = list(param_range)
        if not values:
            raise ValueError("param_range is empty; give at least one value")
        vals, trains = [], []
        for value in values:
            _, val, train = _run_program(
                X, y, train_w, val_w, hp, {},
                fit=fit, score=score, fit_kwargs=_static_kwargs({**base_kwargs, param_name: value}),
                has_grid=False, return_train_score=True, return_params=False,
            )
            vals.append(val)
            trains.append(train)
        return ValidationCurveResult(values, jnp.stack(trains), jnp.stack(vals))
    grid = _check_hyperparameters({param_name: param_range}, dtype, name="param_range")
    if grid[param_name].ndim == 0 or grid[param_name].shape[0] == 0:
        raise ValueError(f"param_range must be a non-empty 1-d sequence, got {param_range!r}")
    _, val, train = _run_program(
        X, y, train_w, val_w, hp, grid,
        fit=fit, score=score, fit_kwargs=_static_kwargs(base_kwargs), has_grid=True,
        return_train_score=True, return_params=False,
        static_hint="static=True (validation_curve) or fit_kwargs",
    )
    return ValidationCurveResult(grid[param_name], train, val)
