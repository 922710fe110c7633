r"""Stacking (stacked generalisation): a meta-model fitted on out-of-fold predictions of
several base models (any families).

Wolpert (1992), Breiman (1996): with base fits :math:`f_1, \dots, f_M`, folds
:math:`k = 1..K` (training weights :math:`t_{ki} \in \{0, 1\}`, row :math:`i` held out of
exactly one fold :math:`k(i)`) and the user's weights :math:`s_i`,

.. math::
    z_i = \bigl(\phi_1(\hat f_1^{(-k(i))}, x_i), \dots, \phi_M(\hat f_M^{(-k(i))}, x_i)
          [, x_i]\bigr), \qquad \hat f_m^{(-k)} = f_m(X, y;\ t_k \odot s),

and the meta-model is :math:`g = \mathrm{meta}(Z, y;\ s)`. Each base is then refitted on all
rows, :math:`\hat f_m = f_m(X, y;\ s)`, and predictions are
:math:`g(\phi_1(\hat f_1, x), \dots, \phi_M(\hat f_M, x) [, x])`.

The meta-features :math:`\phi_m` follow scikit-learn's ``StackingClassifier``:
``stack_method="auto"`` takes ``predict_proba`` if the base params have it, else
``decision_function``, else ``predict``; binary probabilities keep only the positive column
(the two are collinear), a 1-d decision or prediction becomes one column, and
``passthrough`` appends the raw features after the predictions. Regression stacks
``predict``.

Shapes stay static (DESIGN.md, "weights, not slices"): each base fit is **one** ``jax.vmap``
over the :math:`K` fold weight vectors :math:`t_k \odot s`, and the out-of-fold feature of
row :math:`i` is read from fold :math:`k(i)`'s predictions. Folds are either given as a
``(K, n)`` 0/1 training-weight matrix (``model_selection.kfold_weights`` /
``stratified_kfold_weights`` make them) or made here: ``n_splits`` consecutive blocks of the
**positive-weight** rows (the first ``n_+ mod K`` one row longer, as scikit-learn's
``KFold``), shuffled first when a ``key`` is given. Rows of weight 0 are held out of no
default fold (their meta-features are 0); they have no influence on any base or meta fit,
and they leave the default folds of the other rows unchanged (padding is free).

One departure: with an integer ``cv`` scikit-learn's classifier stacks on
``StratifiedKFold``; the default folds here are plain blocks. Pass stratified fold weights
(or the same folds as scikit-learn's ``cv`` list) to match it exactly.

References
----------
D. H. Wolpert, "Stacked generalization", *Neural Networks* 5 (1992) 241-259.
L. Breiman, "Stacked regressions", *Machine Learning* 24 (1996) 49-64.
T. Hastie, R. Tibshirani, J. Friedman, *The Elements of Statistical Learning*, 2nd ed., §8.8.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Callable, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxclassic import _dispatch
from jaxclassic._deprecation import renamed_arguments
from jaxclassic.ensemble._api import decision_function, predict, predict_proba
from jaxclassic.ensemble.voting import check_data, check_fits, check_proba_columns
from jaxclassic.validation import (
    check_array,
    check_bool,
    check_choice,
    check_int,
    check_key,
    is_traced,
)

__all__ = [
    "StackingParams",
    "ClassificationStacking",
    "RegressionStacking",
    "StackProba",
    "StackDecision",
    "StackPredict",
    "fit_stacking",
    "meta_features",
]

_METHODS = ("auto", "predict_proba", "decision_function", "predict")


class StackProba(NamedTuple):
    """A base model stacked through ``predict_proba`` (the positive column when binary)."""

    estimator: Any


class StackDecision(NamedTuple):
    """A base model stacked through ``decision_function``."""

    estimator: Any


class StackPredict(NamedTuple):
    """A base model stacked through ``predict`` (class codes or values, one column)."""

    estimator: Any


_WRAPPERS = {"predict_proba": StackProba, "decision_function": StackDecision, "predict": StackPredict}


class StackingParams(NamedTuple):
    """Base models refitted on all rows, and the meta-model on their out-of-fold predictions.

    Attributes
    ----------
    estimators : tuple of StackProba / StackDecision / StackPredict
        The base params (refitted on all rows), each wrapped in the type of its stack method.
    final_estimator : params pytree
        The meta-model, fitted on ``oob_features``.
    classes : (C,) int32
        ``0..C-1`` (classification); empty for regression.
    passthrough : (n_passthrough,) int32
        Columns of ``X`` appended to the meta-features (all of them with ``passthrough=True``,
        none otherwise).
    oob_features : (n_samples, n_meta_features) float
        The meta-model's training set: out-of-fold base predictions of each training row
        (then the passed-through columns).
    """

    estimators: tuple
    final_estimator: Any
    classes: jax.Array
    passthrough: jax.Array
    oob_features: jax.Array


class ClassificationStacking(StackingParams):
    """Stacked classifiers: ``predict`` / ``predict_proba`` / ``decision_function`` of the meta-model.

    ``n_classes`` (a read-only property, not a pytree leaf) is ``C``, the length of
    ``classes`` (a static shape: a Python int).
    """

    @property
    def n_classes(self) -> int:
        return int(self.classes.shape[-1])


class RegressionStacking(StackingParams):
    """Stacked regressors: ``predict`` of the meta-model."""


# --------------------------------------------------------------------------- meta-features
def _base_features(wrapped, X, n_classes: int, dtype) -> jax.Array:
    """(n, d_m) meta-features of one wrapped base model (scikit-learn's shapes)."""
    est = wrapped.estimator
    if isinstance(wrapped, StackProba):
        out = _dispatch.predict_proba(est, X)
        out = out[:, 1:] if n_classes == 2 else out
    elif isinstance(wrapped, StackDecision):
        out = _dispatch.decision_function(est, X)
    else:
        out = _dispatch.predict(est, X)
    out = out.astype(dtype)
    return out[:, None] if out.ndim == 1 else out


def meta_features(params: StackingParams, X) -> jax.Array:
    """The meta-model's input for new rows ``X``: the refitted bases' predictions, then the
    passed-through columns (scikit-learn's ``StackingClassifier.transform``).

    Parameters
    ----------
    params : ClassificationStacking or RegressionStacking
    X : (n_samples, n_features) array

    Returns
    -------
    (n_samples, n_meta_features) array, ``params.oob_features.dtype``.
    """
    X = jnp.asarray(X)
    dtype = params.oob_features.dtype
    n_classes = params.classes.shape[0]
    parts = [_base_features(w, X, n_classes, dtype) for w in params.estimators]
    parts.append(X[:, params.passthrough].astype(dtype))
    return jnp.concatenate(parts, axis=1)


# --------------------------------------------------------------------------- folds
def check_folds(folds, n_samples: int, sample_weight) -> jax.Array:
    """A ``(K, n)`` 0/1 training-weight matrix, ``K >= 2``; every positive-weight row held
    out (0) of exactly one fold, every fold training on some positive-weight row."""
    if is_traced(folds):
        if folds.ndim != 2 or folds.shape[1] != n_samples or folds.shape[0] < 2:
            raise ValueError(f"folds must have shape (K >= 2, {n_samples}), got {folds.shape}")
        return folds
    f = np.asarray(folds)
    if f.ndim != 2 or f.shape[1] != n_samples or f.shape[0] < 2:
        raise ValueError(f"folds must have shape (K >= 2, {n_samples}) (training weights of each fold), "
                         f"got {f.shape}")
    if f.dtype.kind not in "biuf" or not np.isin(f, (0, 1)).all():
        raise ValueError("folds must hold only 0 (held out) and 1 (trained on), "
                         f"got values {np.unique(f)[:5].tolist()}")
    if is_traced(sample_weight):
        return jnp.asarray(f)
    positive = np.asarray(sample_weight) > 0
    held_out = (f == 0).sum(axis=0)
    bad = np.flatnonzero(positive & (held_out != 1))
    if bad.size:
        raise ValueError(f"folds must hold every row of positive weight out of exactly one fold; "
                         f"row {int(bad[0])} is held out of {int(held_out[bad[0]])}")
    empty = np.flatnonzero(~((f == 1) & positive[None, :]).any(axis=1))
    if empty.size:
        raise ValueError(f"folds[{int(empty[0])}] trains on no row of positive weight")
    return jnp.asarray(f)


def default_folds(sample_weight, n_splits: int, *, key=None) -> jax.Array:
    """``(n_splits, n)`` 0/1 training weights: consecutive blocks of the positive-weight rows
    (``KFold``'s sizes), shuffled with ``key``; rows of weight 0 are held out of no fold."""
    positive = np.asarray(sample_weight) > 0
    n_pos = int(positive.sum())
    n_splits = check_int(n_splits, "n_splits", low=2, high=n_pos)
    sizes = np.full(n_splits, n_pos // n_splits)
    sizes[: n_pos % n_splits] += 1
    fold_of_rank = np.repeat(np.arange(n_splits), sizes)
    if key is not None:
        perm = np.asarray(jax.random.permutation(check_key(key), n_pos))
        shuffled = np.empty(n_pos, np.int64)
        shuffled[perm] = fold_of_rank
        fold_of_rank = shuffled
    fold_of_row = np.full(positive.shape[0], -1)
    fold_of_row[positive] = fold_of_rank
    folds = fold_of_row[None, :] != np.arange(n_splits)[:, None]
    return jnp.asarray(folds, jnp.asarray(sample_weight).dtype)


def _resolve_method(stack_method: str, params, index: int, classification: bool) -> str:
    if not classification:
        return "predict"
    supported = {
        "predict_proba": _dispatch.predict_proba.supports(params),
        "decision_function": _dispatch.decision_function.supports(params),
        "predict": _dispatch.predict.supports(params),
    }
    if stack_method == "auto":
        for method in ("predict_proba", "decision_function", "predict"):
            if supported[method]:
                return method
    elif supported[stack_method]:
        return stack_method
    raise ValueError(f"stack_method={stack_method!r}: base_fits[{index}] returns {type(params).__name__}, "
                     f"which has no {'prediction' if stack_method == 'auto' else stack_method} "
                     "in the package-wide registry")


# --------------------------------------------------------------------------- fit
@renamed_arguments(n_folds="n_splits")
def fit_stacking(
    base_fits: Sequence[Callable],
    meta_fit: Callable,
    X,
    y,
    *,
    folds=None,
    n_splits: int = 5,
    stack_method: str = "auto",
    passthrough: bool = False,
    task: str = "classification",
    n_classes: int | None = None,
    sample_weight=None,
    key=None,
) -> StackingParams:
    r"""Fit base models by cross-validation, a meta-model on their out-of-fold predictions,
    and refit the bases on all rows (module docstring).

    Parameters
    ----------
    base_fits : sequence of callables
        ``fit(X, y, *, sample_weight=...) -> params`` of any family (hyperparameters through
        ``functools.partial``); each must accept traced weights (it is ``vmap``-ped over the
        folds) and return params registered in :mod:`jaxclassic._dispatch`.
    meta_fit : callable
        ``meta_fit(Z, y, *, sample_weight=...) -> params`` on the meta-features ``Z``.
    X : (n_samples, n_features) array-like
    y : (n_samples,) array-like
        Class codes ``0..C-1`` (classification) or real targets (regression).
    folds : (K, n_samples) 0/1 array, optional
        Training weights of each fold (e.g. ``model_selection.kfold_weights(n, K)``); every
        row of positive weight is held out (0) of exactly one fold.
    n_splits : int >= 2
        Number of default folds when ``folds`` is None (consecutive blocks of the
        positive-weight rows, scikit-learn's ``KFold(n_splits)``; shuffled with ``key``).
        ``n_folds=`` (its old name) still works for one minor version, with a
        ``DeprecationWarning``.
    stack_method : {"auto", "predict_proba", "decision_function", "predict"}
        Which output of every base model feeds the meta-model (classification; regression
        always uses ``predict``).
    passthrough : bool
        Append the raw features to the meta-features.
    task : {"classification", "regression"}
        One function for both tasks, as the algorithm is shared (regression stacks
        ``predict``; scikit-learn's ``StackingRegressor``).
    n_classes : int, optional
        Number of classes (default ``max(y) + 1``).
    sample_weight : (n_samples,) array-like, optional
        Passed (times the fold weights) to every base fit and to the meta fit; rows of weight
        0 have no influence.
    key : jax.random key, optional (keyword-only)
        Shuffles the default folds (ignored when ``folds`` is given). None: no shuffling, the
        folds are consecutive blocks (deterministic: same data, same folds).

    Returns
    -------
    ClassificationStacking or RegressionStacking
        ``ensemble.predict`` / ``predict_proba`` / ``decision_function`` (of the meta-model),
        :func:`meta_features`.

    Examples
    --------
    >>> import functools, numpy as np
    >>> from jaxclassic import discriminant, linear
    >>> X = np.arange(24.0).reshape(12, 2) % 7; y = (X[:, 0] + X[:, 1] > 6).astype(int)
    >>> params = fit_stacking([discriminant.fit_lda, functools.partial(linear.fit_logistic, l2=1.0)],
    ...                       functools.partial(linear.fit_logistic, l2=1.0), X, y, n_splits=3)
    >>> params.oob_features.shape, predict(params, X).shape
    ((12, 2), (12,))

    References
    ----------
    Wolpert (1992); Breiman (1996); ESL §8.8; scikit-learn's ``StackingClassifier`` /
    ``StackingRegressor``.
    """
    base_fits = check_fits(base_fits, "base_fits")
    if not callable(meta_fit):
        raise TypeError(f"meta_fit must be a callable fit(Z, y, *, sample_weight, ...), got {type(meta_fit).__name__}")
    task = check_choice(task, "task", ("classification", "regression"))
    stack_method = check_choice(stack_method, "stack_method", _METHODS)
    classification = task == "classification"
    if not classification and stack_method not in ("auto", "predict"):
        raise ValueError(f"stack_method must be 'auto' or 'predict' for regression, got {stack_method!r}")
    passthrough = check_bool(passthrough, "passthrough")
    n_samples, dtype, y, sw, n_classes = check_data(X, y, sample_weight, classification=classification,
                                                    n_classes=n_classes)
    Xc = X if is_traced(X) else check_array(X, "X", allow_nan=True)
    if folds is None:
        if is_traced(sw):
            raise ValueError("folds must be given when sample_weight is traced (default folds are made on the host)")
        folds = default_folds(sw, n_splits, key=key)
    else:
        folds = check_folds(folds, n_samples, sw)
    folds = folds.astype(dtype)
    held_out = folds == 0  # (K, n)
    n_held = jnp.maximum(jnp.sum(held_out, axis=0), 1).astype(dtype)
    n_out = n_classes if classification else 0

    oob_parts, estimators = [], []
    for index, fit in enumerate(base_fits):
        fold_params = jax.vmap(lambda w: fit(X, y, sample_weight=w * sw))(folds)
        one = jax.tree_util.tree_map(lambda a: a[0], fold_params)
        method = _resolve_method(stack_method, one, index, classification)
        if method == "predict_proba":
            check_proba_columns(one, Xc, n_classes, f"base_fits[{index}]")
        wrap = _WRAPPERS[method]
        per_fold = jax.vmap(lambda p: _base_features(wrap(p), Xc, n_out, dtype))(fold_params)  # (K, n, d)
        oob = jnp.sum(jnp.where(held_out[:, :, None], per_fold, jnp.zeros((), dtype)), axis=0)
        oob_parts.append(oob / n_held[:, None])
        estimators.append(wrap(fit(X, y, sample_weight=sw)))

    columns = jnp.arange(Xc.shape[1] if passthrough else 0, dtype=jnp.int32)
    oob_parts.append(Xc[:, columns].astype(dtype))
    Z = jnp.concatenate(oob_parts, axis=1)
    final = meta_fit(Z, y, sample_weight=sw)
    cls = ClassificationStacking if classification else RegressionStacking
    classes = jnp.arange(n_out, dtype=jnp.int32)
    return cls(tuple(estimators), final, classes, columns, Z)


# --------------------------------------------------------------------------- predict
def _predict(params: StackingParams, X):
    return _dispatch.predict(params.final_estimator, meta_features(params, X))


def _predict_proba(params: ClassificationStacking, X):
    return _dispatch.predict_proba(params.final_estimator, meta_features(params, X))


def _decision_function(params: ClassificationStacking, X):
    return _dispatch.decision_function(params.final_estimator, meta_features(params, X))


predict.register(ClassificationStacking, _predict)
predict.register(RegressionStacking, _predict)
predict_proba.register(ClassificationStacking, _predict_proba)
decision_function.register(ClassificationStacking, _decision_function)
