"""Tests of jaxclassic/model_selection/curves.py.

References: scikit-learn's ``learning_curve`` and ``validation_curve`` with ``Ridge`` on the
same folds (equal to ~1e-10 in float64: the same subsets and the same closed-form fits);
early stopping against a direct Python implementation of the rule (exact integers).
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from sklearn.linear_model import Ridge
from sklearn.model_selection import learning_curve as sk_learning_curve
from sklearn.model_selection import validation_curve as sk_validation_curve

from jaxclassic.model_selection import (
    cross_validate,
    early_stopping,
    early_stopping_init,
    early_stopping_update,
    fold_indices,
    kfold_weights,
    learning_curve,
    validation_curve,
)
from tests.model_selection._fits import (
    N_FOLDS,
    N_SAMPLES,
    neg_mse,
    poly_ridge_fit,
    regression_data,
    ridge_fit,
)

X, Y = regression_data(0)
FOLDS = kfold_weights(N_SAMPLES, N_FOLDS, key=jax.random.key(0))
SIZES = np.array([0.25, 0.5, 0.75, 1.0])


@pytest.mark.full
def test_learning_curve_equals_sklearn():
    res = learning_curve(ridge_fit, neg_mse, X, Y, FOLDS, SIZES, hyperparameters={"alpha": 1.0})
    sizes, train, val = sk_learning_curve(
        Ridge(alpha=1.0), X, Y, cv=fold_indices(FOLDS), train_sizes=SIZES,
        scoring="neg_mean_squared_error",
    )
    np.testing.assert_array_equal(res.train_sizes, sizes)
    np.testing.assert_allclose(res.val_scores, val, rtol=1e-10)
    np.testing.assert_allclose(res.train_scores, train, rtol=1e-10)


@pytest.mark.full
def test_learning_curve_with_key_uses_random_nested_subsets():
    res = learning_curve(ridge_fit, neg_mse, X, Y, FOLDS, [8, 32], key=jax.random.key(3),
                         hyperparameters={"alpha": 1.0})
    np.testing.assert_array_equal(res.train_sizes, [8, 32])
    # the full-size point is plain cross-validation
    cv = cross_validate(ridge_fit, neg_mse, X, Y, FOLDS, hyperparameters={"alpha": 1.0})
    np.testing.assert_allclose(res.val_scores[-1], cv.fold_scores, rtol=1e-10)
    # the small subsets differ from the row-order ones
    plain = learning_curve(ridge_fit, neg_mse, X, Y, FOLDS, [8, 32], hyperparameters={"alpha": 1.0})
    assert not np.allclose(res.val_scores[0], plain.val_scores[0])


def test_validation_curve_equals_sklearn():
    alphas = np.logspace(-2, 2, 5)
    res = validation_curve(ridge_fit, neg_mse, X, Y, FOLDS, "alpha", alphas)
    train, val = sk_validation_curve(
        Ridge(), X, Y, param_name="alpha", param_range=alphas, cv=fold_indices(FOLDS),
        scoring="neg_mean_squared_error",
    )
    np.testing.assert_allclose(res.val_scores, val, rtol=1e-10)
    np.testing.assert_allclose(res.train_scores, train, rtol=1e-10)
    np.testing.assert_allclose(res.param_range, alphas)


def _poly_score(params, X, y, *, sample_weight):
    from tests.model_selection._fits import poly_features

    pred = poly_features(X, params.coef.shape[0]) @ params.coef + params.intercept
    return -jnp.sum(sample_weight * (y - pred) ** 2) / jnp.sum(sample_weight)


def test_validation_curve_static_parameter_loops():
    res = validation_curve(poly_ridge_fit, _poly_score, X, Y, FOLDS, "degree", [1, 2], static=True,
                           hyperparameters={"alpha": 0.1})
    assert res.val_scores.shape == (2, N_FOLDS)
    for i, degree in enumerate([1, 2]):
        cv = cross_validate(poly_ridge_fit, _poly_score, X, Y, FOLDS, hyperparameters={"alpha": 0.1},
                            fit_kwargs={"degree": degree})
        np.testing.assert_allclose(res.val_scores[i], cv.fold_scores, rtol=1e-10)


# --------------------------------------------------------------------------- early stopping
def test_early_stopping_is_the_ground_module_rule():
    """The rule is defined once, in jaxclassic._early_stopping (tested in
    tests/test_early_stopping.py); model selection re-exports it."""
    from jaxclassic import _early_stopping

    assert early_stopping is _early_stopping.early_stopping
    assert early_stopping_init is _early_stopping.early_stopping_init
    assert early_stopping_update is _early_stopping.early_stopping_update


# --------------------------------------------------------------------------- bad input
def test_learning_curve_fraction_out_of_range():
    with pytest.raises(ValueError, match=r"train_sizes as fractions must lie in \(0, 1\]"):
        learning_curve(ridge_fit, neg_mse, X, Y, FOLDS, [0.0, 0.5])


def test_learning_curve_count_out_of_range():
    with pytest.raises(ValueError, match=r"train_sizes as counts must lie in \[1, 32\]"):
        learning_curve(ridge_fit, neg_mse, X, Y, FOLDS, [5, 33])


def test_learning_curve_empty_sizes():
    with pytest.raises(ValueError, match="train_sizes must be a non-empty 1-d sequence"):
        learning_curve(ridge_fit, neg_mse, X, Y, FOLDS, [])


def test_validation_curve_empty_range():
    with pytest.raises(ValueError, match=r"grid\['alpha'\] is empty|param_range must be a non-empty"):
        validation_curve(ridge_fit, neg_mse, X, Y, FOLDS, "alpha", [])


def test_validation_curve_name_clash():
    with pytest.raises(ValueError, match="param_name 'alpha' is also given"):
        validation_curve(ridge_fit, neg_mse, X, Y, FOLDS, "alpha", [1.0], hyperparameters={"alpha": 1.0})
