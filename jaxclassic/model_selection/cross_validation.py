r"""Cross-validation of any functional fit in one compiled, vmapped call.

Folds are ``(K, n)`` training-weight matrices (:func:`~jaxclassic.model_selection.kfold_weights`,
:func:`~jaxclassic.model_selection.stratified_kfold_weights`,
:func:`~jaxclassic.model_selection.bootstrap_weights`). Because every fit in the package takes
``sample_weight`` and gives a zero-weight row no influence, fold ``k`` is fitted on the full
arrays with weights ``w_k``, and all K fits are one ``jax.vmap``:

.. math::

    \hat\theta_k = \mathrm{fit}(X, y;\ w_k \odot s), \qquad
    \mathrm{CV}_k = \mathrm{score}(\hat\theta_k, X, y;\ \mathbb 1[w_k = 0] \odot s),

where ``s`` is an optional base ``sample_weight``. The validation rows of a fold are those of
training weight 0: the complement of a 0/1 fold, or the out-of-bag rows of a bootstrap count
vector. The CV estimate is :math:`\tfrac1K \sum_k \mathrm{CV}_k` (ESL §7.10).

The fit protocol
    ``fit(X, y, *, sample_weight, **hyperparameters, **fit_kwargs) -> params``: any public
    ``fit_*`` of the package. ``hyperparameters`` are traced arrays (``alpha``, ``l2``,
    ``C``...), so a grid of them is a vmap (:func:`~jaxclassic.model_selection.grid_search`);
    ``fit_kwargs`` are static (``n_classes``, ``max_iter``, ``degree``...).

The score protocol
    ``score(params, X, y, *, sample_weight) -> scalar``, **higher is better** (losses are
    negated, as scikit-learn's ``neg_mean_squared_error``). Ready-made scorers are in
    :mod:`jaxclassic.model_selection.scoring` (``neg_mse_scorer(predict)``,
    ``accuracy_scorer(predict)``, ``log_loss_scorer(predict_proba)``...).

Compilation: the program is ``jax.jit``-ed once per ``(fit, score, fit_kwargs,
hyperparameter names, shapes)``; ``fit`` and ``score`` are static and compared by identity
(the scorers of :mod:`~jaxclassic.model_selection.scoring` by value), so pass the same
function objects (not a fresh ``lambda`` or ``functools.partial`` each call: use
``fit_kwargs``) to reuse the compiled program.

References
----------
Hastie, Tibshirani, Friedman, *The Elements of Statistical Learning*, 2nd ed., §7.10.
"""

from __future__ import annotations

import inspect
from functools import partial
from typing import Any, Callable, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxclassic import _jit
from jaxclassic._deprecation import renamed_arguments
from jaxclassic.validation import check_array, check_sample_weight, default_float_dtype, is_traced

__all__ = ["CrossValidationResult", "cross_validate"]


class CrossValidationResult(NamedTuple):
    """Outcome of :func:`cross_validate`.

    Attributes
    ----------
    fold_scores : (K,) float
        Validation score of each fold (higher is better).
    mean : float scalar
        Mean of ``fold_scores``: the cross-validation estimate.
    std : float scalar
        Standard deviation of ``fold_scores`` (``ddof=0``, as scikit-learn's ``std_test_score``).
    params : pytree or None
        The K fitted params, stacked along a leading axis of length K.
    train_scores : (K,) float or None
        Score of each fold on its own training rows (when ``return_train_score``).
    """

    fold_scores: jax.Array
    mean: jax.Array
    std: jax.Array
    params: Any
    train_scores: jax.Array | None


# --------------------------------------------------------------------------- the engine
def _one_fold(fit, score, fit_kwargs, return_train_score, X, y, hyperparameters, train_w, val_w):
    params = fit(X, y, sample_weight=train_w, **hyperparameters, **dict(fit_kwargs))
    val = score(params, X, y, sample_weight=val_w)
    train = score(params, X, y, sample_weight=train_w) if return_train_score else None
    return params, val, train


@partial(
    _jit.jit,
    static_argnames=("fit", "score", "fit_kwargs", "has_grid", "return_train_score", "return_params"),
)
def _fit_score_program(X, y, train_w, val_w, hyperparameters, grid, *, fit, score, fit_kwargs,
                       has_grid, return_train_score, return_params):
    """Fit and score all folds (and grid points): the one compiled program.

    ``train_w``, ``val_w``: (K, n). ``grid``: dict of (G, ...) arrays, vmapped over G outside
    the vmap over folds when ``has_grid``. Outputs carry leading axes (G, K) or (K,).
    Computation that depends on the folds only (e.g. a weighted Gram matrix) is batched over
    the folds only: vmap batches an operation only over the axes its inputs carry.
    """

    def over_folds(point):
        hp = {**hyperparameters, **point}
        one = partial(_one_fold, fit, score, fit_kwargs, return_train_score, X, y, hp)
        params, val, train = jax.vmap(one)(train_w, val_w)
        return (params if return_params else None), val, train

    if has_grid:
        return jax.vmap(over_folds)(grid)
    return over_folds({})


def _static_kwargs(fit_kwargs: dict | None) -> tuple:
    """Static fit arguments as a hashable, ordered tuple (part of the compilation key)."""
    if fit_kwargs is None:
        return ()
    if not isinstance(fit_kwargs, dict):
        raise TypeError(f"fit_kwargs must be a dict, got {type(fit_kwargs).__name__}")
    items = tuple(sorted(fit_kwargs.items()))
    for name, value in items:
        try:
            hash(value)
        except TypeError:
            raise TypeError(
                f"fit_kwargs[{name!r}] must be hashable (fit_kwargs are static), got "
                f"{type(value).__name__}; pass arrays through hyperparameters instead"
            ) from None
    return items


def _as_hyper_array(value: Any, name: str, dtype) -> jax.Array:
    """A traced hyperparameter as an array; floats (and Python ints) take the data's float dtype.

    Keeping one dtype means a Python float, a numpy float64 and a jax float32 all reuse the
    same compiled program. Integer and boolean arrays (and jax keys) are passed unchanged.
    """
    if is_traced(value):
        return value
    if isinstance(value, bool):
        return jnp.asarray(value)
    if isinstance(value, (int, float, np.integer, np.floating)):
        return jnp.asarray(value, dtype=dtype)
    if isinstance(value, jax.Array):
        return value.astype(dtype) if jnp.issubdtype(value.dtype, jnp.floating) else value
    try:
        arr = np.asarray(value)
    except Exception:
        arr = np.asarray(None)
    if arr.dtype.kind == "f":
        return jnp.asarray(arr, dtype=dtype)
    if arr.dtype.kind in "iub":
        return jnp.asarray(arr)
    raise TypeError(
        f"hyperparameter {name!r} must be numeric (it is traced), got {type(value).__name__} "
        f"{value!r}; pass static values through fit_kwargs"
    )


def _check_hyperparameters(hyperparameters: dict | None, dtype, name: str = "hyperparameters") -> dict:
    if hyperparameters is None:
        return {}
    if not isinstance(hyperparameters, dict):
        raise TypeError(f"{name} must be a dict of name -> value, got {type(hyperparameters).__name__}")
    out = {}
    for key, value in hyperparameters.items():
        if not isinstance(key, str):
            raise TypeError(f"{name} keys must be argument names (str), got {key!r}")
        out[key] = _as_hyper_array(value, key, dtype)
    return out


def _check_data(X: Any, y: Any, allow_nan: bool) -> tuple[jax.Array, jax.Array]:
    X = check_array(X, "X", ndim=(1, 2), numeric="any", allow_nan=allow_nan)
    y = check_array(y, "y", ndim=(1, 2), numeric="any", allow_nan=allow_nan)
    if X.shape[0] != y.shape[0]:
        raise ValueError(f"X and y have inconsistent numbers of samples: {X.shape[0]} != {y.shape[0]}")
    return X, y


def _float_dtype(X: jax.Array):
    return X.dtype if jnp.issubdtype(X.dtype, jnp.floating) else default_float_dtype()


def _check_fold_weights(weights: Any, n_samples: int, dtype, name: str = "weights") -> jax.Array:
    """Validate a (K, n) training-weight matrix: finite, >= 0, each fold with training and
    validation (weight-0) rows."""
    if is_traced(weights):
        if weights.ndim != 2 or weights.shape[1] != n_samples:
            raise ValueError(f"{name} must have shape (K, {n_samples}), got {weights.shape}")
        return weights.astype(dtype)
    w = check_array(weights, name, ndim=2, dtype=dtype)
    if w.shape[1] != n_samples:
        raise ValueError(
            f"{name} must have shape (K, n_samples) = (K, {n_samples}), got {w.shape}"
        )
    # values from the (concrete) input: inside an outer jit, w itself may be a tracer
    w_np = np.asarray(weights.to_numpy() if hasattr(weights, "to_numpy") else weights, dtype=np.float64)
    if (w_np < 0).any():
        raise ValueError(f"{name} must be non-negative, got {int((w_np < 0).sum())} negative value(s)")
    no_train = np.flatnonzero(~(w_np > 0).any(axis=1))
    if no_train.size:
        raise ValueError(f"{name}: fold {int(no_train[0])} has no training rows (all weights 0)")
    no_val = np.flatnonzero(~(w_np == 0).any(axis=1))
    if no_val.size:
        raise ValueError(
            f"{name}: fold {int(no_val[0])} has no validation rows (no weight is 0); the "
            "validation rows of a fold are those of training weight 0"
        )
    return w


def _prepare(X, y, folds, sample_weight, allow_nan):
    """Shared validation of cross_validate / grid_search / curves; returns jax arrays."""
    X, y = _check_data(X, y, allow_nan)
    dtype = _float_dtype(X)
    train_w = _check_fold_weights(folds, X.shape[0], dtype, name="folds")
    base = check_sample_weight(sample_weight, X.shape[0], dtype=dtype)
    val_w = jnp.where(train_w == 0, base, jnp.zeros((), dtype))
    return X, y, train_w * base, val_w, dtype


def _check_callables(fit: Any, score: Any) -> None:
    if not callable(fit):
        raise TypeError(f"fit must be callable (a fit_* function), got {type(fit).__name__}")
    if not callable(score):
        raise TypeError(
            f"score must be callable as score(params, X, y, sample_weight=...), got {type(score).__name__}"
        )
    _check_score_signature(score)


def _name(fn: Any) -> str:
    return getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or type(fn).__name__


def _check_score_signature(score: Callable) -> None:
    """A ``TypeError`` when ``score`` cannot be called as ``score(params, X, y, sample_weight=w)``.

    The usual slip is passing a scorer *factory* (``neg_mse_scorer``) instead of the scorer it
    builds (``neg_mse_scorer(predict)``); without this check the error surfaces inside the
    traced program as an unrelated message about ``sample_weight``.
    """
    try:
        signature = inspect.signature(score)
    except (TypeError, ValueError):  # builtins and the like: nothing to check
        return
    try:
        signature.bind(None, None, None, sample_weight=None)
        return
    except TypeError as exc:
        problem = str(exc)
    from jaxclassic.model_selection import scoring

    if getattr(scoring, getattr(score, "__name__", ""), None) is score:
        raise TypeError(
            f"score is the scorer factory {score.__name__}, not a scorer: call it with the "
            f"model's response function, e.g. score={score.__name__}(jaxclassic.linear.predict)"
        )
    raise TypeError(
        f"score must be callable as score(params, X, y, *, sample_weight), but "
        f"{_name(score)}{signature} does not accept that ({problem})"
    )


#: what JAX raises when a traced value meets Python control flow or int()/bool()
_TRACER_ERRORS = (
    jax.errors.TracerBoolConversionError,
    jax.errors.TracerIntegerConversionError,
    jax.errors.ConcretizationTypeError,
)


def _concrete_points(hyperparameters: dict, grid: dict) -> list[dict]:
    """Concrete points covering the extremes of every traced value: the smallest and largest
    entry of each scalar grid column (each distinct row of a non-scalar one), and the fixed
    hyperparameters. Tracers (an outer ``jit``) are left out."""
    candidates = {}
    for name, value in hyperparameters.items():
        if not is_traced(value):
            candidates[name] = [value]
    for name, column in grid.items():
        if is_traced(column):
            continue
        values = np.asarray(column)
        if values.ndim == 1 and values.dtype.kind in "fiu":
            rows = sorted({int(np.argmin(values)), int(np.argmax(values))})
        else:
            rows = list(np.unique(values.reshape(len(values), -1), axis=0, return_index=True)[1])
        candidates[name] = [column[i] for i in rows]
    if not candidates:
        return []
    n_points = max(len(v) for v in candidates.values())
    return [
        {name: _concrete(values[min(i, len(values) - 1)]) for name, values in candidates.items()}
        for i in range(n_points)
    ]


def _concrete(value: Any) -> Any:
    """A float scalar as a Python float (what a user passes, so the fit's error message shows
    ``-1.0``); anything else unchanged."""
    if np.ndim(value) == 0 and np.asarray(value).dtype.kind == "f":
        return float(value)
    return value


def _check_concrete_values(fit, X, y, sample_weight, hyperparameters, grid, fit_kwargs) -> None:
    """Run ``fit``'s own argument checks on concrete hyperparameter values.

    Inside the compiled program the hyperparameters are tracers, and the fits skip their value
    checks on tracers, so a negative ``alpha`` in a grid would give silently wrong scores. The
    fit is traced abstractly (``jax.eval_shape``: no computation, no compilation) at the
    extreme values of the grid (:func:`_concrete_points`), which reach it concrete.
    """
    for point in _concrete_points(hyperparameters, grid):
        def at_point(X, y, w, point=point):
            return fit(X, y, sample_weight=w, **point, **dict(fit_kwargs))

        try:
            jax.eval_shape(at_point, X, y, sample_weight)
        except _TRACER_ERRORS:
            return  # data-dependent Python control flow: the program explains it below


def _run_program(X, y, train_w, val_w, hyperparameters, grid, *, fit, score, fit_kwargs, has_grid,
                 return_train_score, return_params, static_hint="fit_kwargs"):
    """:func:`_fit_score_program` after :func:`_check_concrete_values`, with JAX's tracer
    errors explained (``static_hint``: where the caller takes static values)."""
    _check_concrete_values(fit, X, y, train_w[0], hyperparameters, grid, fit_kwargs)
    try:
        return _fit_score_program(
            X, y, train_w, val_w, hyperparameters, grid, fit=fit, score=score,
            fit_kwargs=fit_kwargs, has_grid=has_grid, return_train_score=return_train_score,
            return_params=return_params,
        )
    except _TRACER_ERRORS as exc:
        traced = {**hyperparameters, **grid}
        booleans = [n for n, v in traced.items() if jnp.result_type(v) == jnp.bool_]
        names = booleans or sorted(traced)
        detail = str(exc).splitlines()[0]
        if not names:
            raise TypeError(
                f"{_name(fit)} or {_name(score)} converted a traced array to a Python value "
                f"({detail}); the data and weights are traced inside the compiled "
                "cross-validation program, so the fit must not branch on their values in Python"
            ) from exc
        kind = "boolean " if booleans else ""
        raise TypeError(
            f"{_name(fit)} used the traced {kind}hyperparameter(s) {names} in Python control "
            f"flow ({detail}). Traced hyperparameters are arrays inside the compiled program; "
            f"a value that changes the program's structure (a flag such as fit_intercept, a "
            f"count such as max_iter) is static: put it in {static_hint}"
        ) from exc


def _summary(scores: jax.Array) -> tuple[jax.Array, jax.Array]:
    return jnp.mean(scores, axis=-1), jnp.std(scores, axis=-1)


@renamed_arguments(weights="folds")
def cross_validate(
    fit: Callable,
    score: Callable,
    X: Any,
    y: Any,
    folds: Any,
    *,
    hyperparameters: dict | None = None,
    fit_kwargs: dict | None = None,
    sample_weight: Any = None,
    return_train_score: bool = False,
    return_params: bool = True,
    allow_nan: bool = False,
) -> CrossValidationResult:
    r"""Fit and score every fold in one jitted, vmapped call.

    .. math::

        \hat\theta_k = \mathrm{fit}(X, y;\ w_k s),\quad
        \mathrm{CV}_k = \mathrm{score}(\hat\theta_k, X, y;\ \mathbb 1[w_k = 0]\, s),\quad
        \mathrm{CV} = \tfrac1K \textstyle\sum_k \mathrm{CV}_k.

    Since a zero-weight row has no influence on any fit of the package, the result equals
    a Python loop that fits each fold on its training rows only (sliced) and scores it on
    its validation rows.

    The result is differentiable (``jax.grad``, ``jax.jvp``) with respect to the
    hyperparameters, the data and the weights whenever ``fit`` and ``score`` are: closed forms
    such as :func:`~jaxclassic.linear.fit_ridge`, and the fits with implicit derivatives;
    :func:`~jaxclassic.model_selection.tune_hyperparameters` descends that gradient.

    Parameters
    ----------
    fit : callable
        ``fit(X, y, *, sample_weight, **hyperparameters, **fit_kwargs) -> params``.
    score : callable
        ``score(params, X, y, *, sample_weight) -> scalar``, higher is better
        (see :mod:`jaxclassic.model_selection.scoring`).
    X : (n, d) or (n,) array
    y : (n,) or (n, m) array
        Targets as the fit expects them (class codes ``0..C-1`` for the core's classifiers).
    folds : (K, n) array
        Training weights of the K folds (0/1 folds or bootstrap counts), named ``folds`` as
        in :func:`~jaxclassic.model_selection.grid_search` and the curves (``weights=``, its
        0.1 name, works with a ``DeprecationWarning`` until jaxclassic 0.3.0). The validation
        rows of fold ``k`` are those with ``folds[k] == 0``.
    hyperparameters : dict of str -> array, optional
        Traced keyword arguments of ``fit`` (``{"alpha": 0.1}``), the same for every fold.
    fit_kwargs : dict, optional
        Static keyword arguments of ``fit`` (``{"n_classes": 3}``, ``{"max_iter": 50}``);
        values must be hashable. The core's classifiers need ``n_classes`` here.
    sample_weight : (n,) array, optional
        Base row weights, multiplied into both the training and the validation weights.
    return_train_score : bool, default False
        Also score each fold on its training rows (scikit-learn's default too).
    return_params : bool, default True
        Return the K fitted params (stacked). ``False`` saves memory. scikit-learn's
        counterpart, ``return_estimator``, defaults to ``False``: the stacked params are
        arrays, cheap beside K fitted estimator objects, and what a differentiable
        cross-validation needs.
    allow_nan : bool
        Let NaN in ``X``/``y`` through (for fits that handle missing values).

    Returns
    -------
    CrossValidationResult
        ``(fold_scores, mean, std, params, train_scores)``.

    Example
    -------
    >>> import jax
    >>> from jaxclassic.linear import fit_ridge, predict
    >>> from jaxclassic.model_selection import kfold_weights, cross_validate, neg_mse_scorer
    >>> X = jax.random.normal(jax.random.key(0), (100, 3)); y = X @ jax.numpy.ones(3)
    >>> res = cross_validate(fit_ridge, neg_mse_scorer(predict), X, y, kfold_weights(100, 5),
    ...                      hyperparameters={"alpha": 1.0})
    >>> res.fold_scores.shape
    (5,)
    """
    _check_callables(fit, score)
    X, y, train_w, val_w, dtype = _prepare(X, y, folds, sample_weight, allow_nan)
    hp = _check_hyperparameters(hyperparameters, dtype)
    params, val, train = _run_program(
        X, y, train_w, val_w, hp, {},
        fit=fit, score=score, fit_kwargs=_static_kwargs(fit_kwargs), has_grid=False,
        return_train_score=bool(return_train_score), return_params=bool(return_params),
    )
    mean, std = _summary(val)
    return CrossValidationResult(val, mean, std, params, train)
