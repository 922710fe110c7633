r"""Choosing the cost-complexity α of a CART tree by K-fold cross-validation (Breiman et al.
1984, §3.4; ESL §7.10): the grid of Breiman's geometric means of the full tree's pruning path
(:mod:`jaxclassic.tree.pruning`), each fold's tree pruned at the whole grid and scored on its
held-out rows in one jitted ``vmap``, the least mean error or the one-standard-error rule.

References
----------
L. Breiman, J. Friedman, R. Olshen and C. Stone, *Classification and Regression Trees*,
Wadsworth 1984, §3.4 (cross-validation, the geometric-mean representatives, the 1-SE rule).
T. Hastie, R. Tibshirani and J. Friedman, *The Elements of Statistical Learning*, 2nd ed.,
§7.10 (K-fold CV and the one-standard-error rule), §9.2.2 (cost-complexity pruning).
"""

from __future__ import annotations

from functools import partial
from typing import Any, Callable, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxclassic import _jit
from jaxclassic._deprecation import renamed_arguments
from jaxclassic.tree._api import predict
from jaxclassic.tree._params import TreeParams
from jaxclassic.tree.pruning import _check_params, _prune, cost_complexity_path, prune
from jaxclassic.validation import (
    check_array,
    check_bool,
    check_choice,
    check_classification_targets,
    check_consistent_length,
    check_int,
    check_key,
    check_sample_weight,
)

__all__ = ["CostComplexityCV", "choose_ccp_alpha"]


class CostComplexityCV(NamedTuple):
    """The result of :func:`choose_ccp_alpha`.

    Attributes
    ----------
    ccp_alpha : () float
        The chosen α.
    ccp_alphas : (A,) float
        The α grid: geometric means of consecutive distinct α of the full tree's path, and
        its last α (the root alone).
    cv_errors : (K, A) float
        Held-out error (weighted misclassification rate or mean squared error) of fold
        ``k``'s tree pruned at each α.
    mean_error, std_error : (A,) float
        Mean over the folds, and its standard error :math:`s / \\sqrt K` (``s`` with ddof 1).
    fold_ids : (n,) int32
        The fold of each row.
    params : ClassificationTree or RegressionTree
        The tree grown on all rows, pruned at ``ccp_alpha``.
    """

    ccp_alpha: jax.Array
    ccp_alphas: jax.Array
    cv_errors: jax.Array
    mean_error: jax.Array
    std_error: jax.Array
    fold_ids: jax.Array
    params: TreeParams


@partial(_jit.jit, static_argnames="classification")
def _fold_errors(params, node_alphas, alphas, X, y, w_test, classification):
    """Held-out error of ``params`` pruned at each α (A,): one vmap over the grid."""

    def error(alpha):
        pred = predict(_prune(params, node_alphas, alpha), X)
        loss = (pred != y).astype(X.dtype) if classification else (pred - y) ** 2
        return jnp.sum(w_test * loss) / jnp.sum(w_test)

    return jax.vmap(error)(alphas)


def _fold_ids(n_samples: int, n_splits: int, key) -> np.ndarray:
    """scikit-learn's ``KFold`` sizes (the first ``n % K`` folds one row larger); contiguous
    without a key, else over a ``jax.random`` permutation of the rows."""
    sizes = np.full(n_splits, n_samples // n_splits)
    sizes[: n_samples % n_splits] += 1
    ids = np.repeat(np.arange(n_splits, dtype=np.int32), sizes)
    if key is None:
        return ids
    out = np.empty(n_samples, np.int32)
    out[np.asarray(jax.random.permutation(key, n_samples))] = ids
    return out


def _alpha_grid(ccp_alphas: np.ndarray) -> np.ndarray:
    """Breiman's representatives sqrt(a_k a_{k+1}) of the intervals of constant T(α), and the
    last α (the root alone)."""
    distinct = np.unique(np.maximum(np.asarray(ccp_alphas, np.float64), 0.0))
    return np.concatenate([np.sqrt(distinct[:-1] * distinct[1:]), distinct[-1:]])


@renamed_arguments(n_folds="n_splits")
def choose_ccp_alpha(
    X: Any,
    y: Any,
    *,
    task: str = "classification",
    n_splits: int = 5,
    one_standard_error: bool = False,
    sample_weight: Any = None,
    key: Any = None,
    fit: Callable[..., TreeParams] | None = None,
    **fit_kwargs: Any,
) -> CostComplexityCV:
    r"""Choose the cost-complexity α by K-fold cross-validation, in one call.

    1. Grow the tree on all rows and take its pruning path :math:`0 = \alpha_0 < \alpha_1 <
       \dots < \alpha_m` (distinct values); the grid is Breiman's geometric means
       :math:`\beta_k = \sqrt{\alpha_k \alpha_{k+1}}` (:math:`k < m`) and :math:`\beta_m =
       \alpha_m`, one α inside each interval on which :math:`T(\alpha)` is constant.
    2. For each fold :math:`k`, grow a tree on the other folds (as weights: the held-out
       rows get weight 0), prune it at every :math:`\beta` and score it on fold :math:`k`:
       the weighted misclassification rate (classification) or mean squared error
       (regression), :math:`e_k(\beta) = \sum_{i \in k} w_i L_i / \sum_{i \in k} w_i`.
    3. With :math:`\bar e(\beta)` the mean over folds and :math:`\mathrm{se}(\beta) =
       \mathrm{sd}_k(e_k(\beta)) / \sqrt K` (ddof 1), pick the :math:`\beta` of least
       :math:`\bar e` (ties: the largest β, the smaller tree), or with
       ``one_standard_error`` the largest :math:`\beta` with :math:`\bar e(\beta) \le
       \bar e(\hat\beta) + \mathrm{se}(\hat\beta)` (ESL's one-standard-error rule).

    The folds are built here from weight vectors (this family sits below
    :mod:`jaxclassic.model_selection`). Trees are grown and their paths computed per fold on
    the host; pruning and scoring over the whole grid is one jitted ``vmap`` per fold.

    Parameters
    ----------
    X : (n, F) array
        Training data.
    y : (n,) array
        Class codes ``0..K-1`` (classification) or targets (regression).
    task : {"classification", "regression"}
        Decides the error and the default fit.
    n_splits : int >= 2
        Number of folds ``K`` (at most ``n``; scikit-learn's ``KFold(n_splits)``).
        ``n_folds=`` (its old name) still works for one minor version, with a
        ``DeprecationWarning``.
    one_standard_error : bool
        Use the one-standard-error rule instead of the least mean error.
    sample_weight : (n,) array, optional
        Row weights, used both for growing and for scoring.
    key : jax.random key, optional (keyword-only)
        Shuffles the rows before cutting the folds; None: no shuffling, the folds are
        contiguous blocks (deterministic; scikit-learn's ``KFold(n_splits)`` without
        shuffling).
    fit : callable, optional
        ``fit(X, y, sample_weight=w, **fit_kwargs) -> ClassificationTree | RegressionTree``;
        rows of weight 0 must have no influence. Default: :func:`jaxclassic.tree.cart.fit_cart`
        with ``task`` (and ``n_classes`` for classification).
    **fit_kwargs
        Passed to ``fit`` (``criterion``, ``max_depth``, ``min_samples_leaf``...).

    Returns
    -------
    CostComplexityCV
        The chosen α, the grid, the fold errors and their mean and standard error, the fold
        of each row, and the full-data tree pruned at the chosen α.

    Raises
    ------
    ValueError, TypeError
        Invalid ``X``, ``y``, ``sample_weight``, ``task``, ``n_splits`` or ``key``, or a fold
        without any positive weight.

    Examples
    --------
    See ``tests/tree/test_pruning.py`` (a scikit-learn-backed ``fit`` gives the same choice
    as a hand loop over scikit-learn's ``ccp_alpha``).

    References
    ----------
    Breiman et al. (1984), *Classification and Regression Trees*, §3.4 (cross-validation,
    the geometric-mean representatives, the 1-SE rule); Hastie, Tibshirani & Friedman,
    *ESL* 2nd ed., §7.10 and §9.2.2.
    """
    task = check_choice(task, "task", ("classification", "regression"))
    one_standard_error = check_bool(one_standard_error, "one_standard_error")
    X = check_array(X, "X", allow_nan=True)
    n_samples = X.shape[0]
    n_splits = check_int(n_splits, "n_splits", low=2, high=n_samples)
    sw = check_sample_weight(sample_weight, n_samples, dtype=X.dtype)
    classification = task == "classification"
    if classification:
        y, n_classes = check_classification_targets(y, "y", sample_weight=sw)
    else:
        y = check_array(y, "y", ndim=1, dtype=X.dtype)
    check_consistent_length(X=X, y=y)
    if key is not None:
        key = check_key(key)
    if fit is None:
        from jaxclassic.tree.cart import fit_cart  # the engine; imported late (it imports this package)

        extra = {"n_classes": n_classes} if classification else {}
        fit = partial(fit_cart, task=task, **extra)
    elif not callable(fit):
        raise TypeError(f"fit must be callable, got {type(fit).__name__}")

    fold_ids = _fold_ids(n_samples, n_splits, key)
    sw_np = np.asarray(sw)
    for k in range(n_splits):
        for part, mask in (("held-out", fold_ids == k), ("training", fold_ids != k)):
            if not (sw_np[mask] > 0).any():
                raise ValueError(f"fold {k} has no {part} row of positive sample_weight")

    full = fit(X, y, sample_weight=sw, **fit_kwargs)
    _check_params(full, "fit(...)")
    full_path = cost_complexity_path(full)
    grid = jnp.asarray(_alpha_grid(np.asarray(full_path.ccp_alphas)), full.impurity.dtype)

    errors = []
    for k in range(n_splits):
        held_out = jnp.asarray(fold_ids == k)
        tree = fit(X, y, sample_weight=jnp.where(held_out, 0, sw), **fit_kwargs)
        node_alphas = cost_complexity_path(tree).node_alphas
        errors.append(_fold_errors(tree, node_alphas, grid, X, y, jnp.where(held_out, sw, 0), classification))
    cv_errors = jnp.stack(errors)
    mean = np.asarray(jnp.mean(cv_errors, axis=0))
    std = np.asarray(jnp.std(cv_errors, axis=0, ddof=1)) / np.sqrt(n_splits)
    best = len(mean) - 1 - int(np.argmin(mean[::-1]))  # least mean error, the largest α of ties
    if one_standard_error:
        best = int(np.flatnonzero(mean <= mean[best] + std[best])[-1])
    return CostComplexityCV(
        ccp_alpha=grid[best],
        ccp_alphas=grid,
        cv_errors=cv_errors,
        mean_error=jnp.asarray(mean),
        std_error=jnp.asarray(std),
        fold_ids=jnp.asarray(fold_ids),
        params=prune(full, grid[best], node_alphas=full_path.node_alphas),
    )
