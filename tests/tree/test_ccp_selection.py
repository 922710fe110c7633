"""Tests of jaxclassic/tree/ccp_selection.py: choosing the cost-complexity α by K-fold CV.

References: the K-fold loop written out with scikit-learn (its trees, ``ccp_alpha`` refits
and ``KFold`` blocks) through a scikit-learn-backed ``fit``, so the selection is tested
independently of the growth engine; then with the default ``fit_cart``. Tolerance 1e-12:
the same path (tests/tree/test_pruning.py) and the same weighted errors summed in another
order.
"""

from __future__ import annotations

import jax
import numpy as np
import pytest
from sklearn.model_selection import KFold

import jaxclassic.tree as tree_api
from jaxclassic.tree.ccp_selection import choose_ccp_alpha
from jaxclassic.tree.pruning import prune
from tests.tree.test_pruning import ATOL, _assert_same_tree, _data, _sk_fit, _to_params, small_tree  # noqa: F401


def _sklearn_fit(task, criterion, n_classes=3):
    """A ``fit`` for choose_ccp_alpha backed by scikit-learn; zero-weight rows are dropped
    (scikit-learn's splitter would still see them: thresholds, min_samples_leaf)."""

    def fit(X, y, *, sample_weight, **kwargs):
        X, y, w = np.asarray(X), np.asarray(y), np.asarray(sample_weight)
        keep = w > 0
        est = _sk_fit(task, X[keep], y[keep], w[keep], criterion, **kwargs)
        return _to_params(est, n_classes=n_classes if task == "classification" else None)

    return fit


def _hand_cv(task, criterion, X, y, w, fold_ids, kwargs):
    """The K-fold loop written out with scikit-learn: grid from the full tree's path."""
    alphas = _sk_fit(task, X, y, w, criterion, **kwargs).cost_complexity_pruning_path(X, y, sample_weight=w).ccp_alphas
    distinct = np.unique(np.maximum(alphas, 0))
    grid = np.append(np.sqrt(distinct[:-1] * distinct[1:]), distinct[-1])
    errors = np.zeros((fold_ids.max() + 1, len(grid)))
    for k in range(fold_ids.max() + 1):
        train, test = fold_ids != k, fold_ids == k
        for j, alpha in enumerate(grid):
            pred = _sk_fit(task, X[train], y[train], w[train], criterion, ccp_alpha=alpha, **kwargs).predict(X[test])
            loss = (pred != y[test]) if task == "classification" else (pred - y[test]) ** 2
            errors[k, j] = np.sum(w[test] * loss) / np.sum(w[test])
    return grid, errors


@pytest.mark.full
@pytest.mark.parametrize("task, criterion", [("classification", "gini"), ("regression", "squared_error")])
def test_choose_ccp_alpha_equals_hand_loop_over_sklearn(task, criterion):
    X, y, w = _data(task, n=80)
    kwargs = {"max_depth": 5}
    fit = _sklearn_fit(task, criterion)
    best = choose_ccp_alpha(X, y, task=task, n_splits=4, sample_weight=w, fit=fit, **kwargs)
    # without a key the folds are scikit-learn's KFold(4) blocks
    kfold = np.zeros(len(y), int)
    for k, (_, test) in enumerate(KFold(4).split(X)):
        kfold[test] = k
    np.testing.assert_array_equal(best.fold_ids, kfold)
    grid, errors = _hand_cv(task, criterion, X, y, w, kfold, kwargs)
    np.testing.assert_allclose(best.ccp_alphas, grid, rtol=0, atol=ATOL)
    np.testing.assert_allclose(best.cv_errors, errors, rtol=0, atol=ATOL)
    mean = errors.mean(0)
    se = errors.std(0, ddof=1) / 2.0
    i = np.flatnonzero(mean == mean.min())[-1]
    assert float(best.ccp_alpha) == pytest.approx(grid[i], abs=ATOL)
    j = np.flatnonzero(mean <= mean[i] + se[i])[-1]
    one_se = choose_ccp_alpha(X, y, task=task, n_splits=4, sample_weight=w, fit=fit, one_standard_error=True, **kwargs)
    assert float(one_se.ccp_alpha) == pytest.approx(grid[j], abs=ATOL)
    assert float(one_se.ccp_alpha) >= float(best.ccp_alpha)
    # the returned tree is the full-data tree pruned at the chosen α
    ref = _sk_fit(task, X, y, w, criterion, ccp_alpha=float(best.ccp_alpha), **kwargs)
    _assert_same_tree(best.params, ref, X, task)


@pytest.mark.full
def test_choose_ccp_alpha_shuffled_folds_from_key():
    X, y, w = _data("classification", n=40)
    fit = _sklearn_fit("classification", "gini")
    a = choose_ccp_alpha(X, y, n_splits=3, key=jax.random.key(0), fit=fit, max_depth=3)
    b = choose_ccp_alpha(X, y, n_splits=3, key=jax.random.key(0), fit=fit, max_depth=3)
    ids = np.asarray(a.fold_ids)
    np.testing.assert_array_equal(ids, b.fold_ids)
    assert sorted(np.bincount(ids).tolist()) == [13, 13, 14]
    assert not np.array_equal(ids, np.sort(ids))
    assert float(a.ccp_alpha) == float(b.ccp_alpha)


def test_n_folds_is_a_deprecated_spelling_of_n_splits():
    # issue 27: scikit-learn's name for the number of folds is n_splits
    X, y, _ = _data("classification", n=40)
    fit = _sklearn_fit("classification", "gini")
    with pytest.warns(DeprecationWarning, match=r"choose_ccp_alpha\(n_splits=\)"):
        old = choose_ccp_alpha(X, y, n_folds=3, fit=fit, max_depth=3)
    new = choose_ccp_alpha(X, y, n_splits=3, fit=fit, max_depth=3)
    np.testing.assert_array_equal(old.fold_ids, new.fold_ids)
    np.testing.assert_array_equal(old.ccp_alphas, new.ccp_alphas)
    assert float(old.ccp_alpha) == float(new.ccp_alpha)


# ---------------------------------------------------------------------------------------
# bad input
# ---------------------------------------------------------------------------------------


def test_choose_rejects_one_fold(small_tree):
    _, X, y = small_tree
    with pytest.raises(ValueError, match="n_splits must be >= 2, got 1"):
        choose_ccp_alpha(X, y, n_splits=1, fit=_sklearn_fit("classification", "gini"))


def test_choose_rejects_more_folds_than_rows(small_tree):
    _, X, y = small_tree
    with pytest.raises(ValueError, match="n_splits must be <= 30, got 31"):
        choose_ccp_alpha(X, y, n_splits=31, fit=_sklearn_fit("classification", "gini"))


def test_choose_rejects_unknown_task(small_tree):
    _, X, y = small_tree
    with pytest.raises(ValueError, match="task must be one of"):
        choose_ccp_alpha(X, y, task="ranking")


def test_choose_rejects_a_non_callable_fit(small_tree):
    _, X, y = small_tree
    with pytest.raises(TypeError, match="fit must be callable"):
        choose_ccp_alpha(X, y, fit="cart")


def test_choose_rejects_an_int_key(small_tree):
    _, X, y = small_tree
    with pytest.raises(TypeError, match="key must be a jax.random key"):
        choose_ccp_alpha(X, y, key=0, fit=_sklearn_fit("classification", "gini"))


def test_choose_rejects_a_fold_without_weight(small_tree):
    _, X, y = small_tree
    w = np.where(np.arange(30) < 10, 0.0, 1.0)
    with pytest.raises(ValueError, match="fold 0 has no held-out row of positive sample_weight"):
        choose_ccp_alpha(X, y, n_splits=3, sample_weight=w, fit=_sklearn_fit("classification", "gini"))


# ---------------------------------------------------------------------------------------
# trees grown by the engine (jaxclassic.tree.fit_cart)
# ---------------------------------------------------------------------------------------


@pytest.mark.full
def test_choose_ccp_alpha_with_the_default_fit_cart():
    X, y, w = _data("classification", n=80)
    best = choose_ccp_alpha(X, y, n_splits=4, sample_weight=w, max_depth=4)
    one_se = choose_ccp_alpha(X, y, n_splits=4, sample_weight=w, max_depth=4, one_standard_error=True)
    # the grid comes from the full tree, which equals scikit-learn's (exact binning)
    ref = _sk_fit("classification", X, y, w, "gini", max_depth=4).cost_complexity_pruning_path(X, y, sample_weight=w)
    distinct = np.unique(np.maximum(ref.ccp_alphas, 0))
    grid = np.append(np.sqrt(distinct[:-1] * distinct[1:]), distinct[-1])
    np.testing.assert_allclose(best.ccp_alphas, grid, rtol=0, atol=1e-12)
    # each fold's errors: the engine's tree on the fold's training weights, pruned and scored
    for k in range(4):
        test = np.asarray(best.fold_ids) == k
        tree = tree_api.fit_cart(X, y, sample_weight=np.where(test, 0, w), max_depth=4, n_classes=3)
        for j, alpha in enumerate(grid):
            pred = np.asarray(tree_api.predict(prune(tree, float(alpha)), X))
            err = np.sum(w[test] * (pred[test] != y[test])) / np.sum(w[test])
            assert float(best.cv_errors[k, j]) == pytest.approx(err, abs=1e-12)
    assert float(one_se.ccp_alpha) >= float(best.ccp_alpha)
    assert float(best.mean_error[list(np.asarray(best.ccp_alphas)).index(float(best.ccp_alpha))]) == pytest.approx(
        float(np.min(best.mean_error)), abs=0)
