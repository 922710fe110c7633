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
FOLDS = kfold_weights(N_SAMPLES, N_FOLDS, jax.random.key(0))
SIZES = np.array([0.25, 0.5, 0.75, 1.0])


def test_learning_curve_equals_sklearn():
    res = learning_curve(ridge_fit, neg_mse, X, Y, FOLDS, SIZES, hyperparameters={"alpha": 1.0})
    sizes, train, val = sk_learning_curve(
        Ridge(alpha=1.0), X, Y, cv=fold_indices(FOLDS), train_sizes=SIZES,
        scoring="neg_mean_squared_error",
    )
    np.testing.assert_array_equal(res.train_sizes, sizes)
    np.testing.assert_allclose(res.val_scores, val, rtol=1e-10)
    np.testing.assert_allclose(res.train_scores, train, rtol=1e-10)


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
def _reference_early_stopping(losses, patience, min_delta=0.0):
    best, best_t = np.inf, -1
    for t, v in enumerate(losses):
        if v < best - min_delta:
            best, best_t = v, t
        if t - best_t >= patience:
            return best_t, t, best, True
    return best_t, len(losses) - 1, best, False


@pytest.mark.parametrize("patience", [1, 3, 8])
def test_early_stopping_equals_reference_rule(patience):
    rng = np.random.default_rng(patience)
    for _ in range(20):
        # a noisy U-shaped validation loss
        t = np.arange(30)
        losses = (t - rng.integers(5, 25)) ** 2 / 100 + rng.normal(scale=0.3, size=30)
        got = early_stopping(losses, patience)
        best_t, stop_t, best, stopped = _reference_early_stopping(losses, patience)
        assert (int(got.best_iter), int(got.stop_iter), bool(got.stopped)) == (best_t, stop_t, stopped)
        assert float(got.best_value) == best
        assert best == losses[: stop_t + 1].min()  # the arg-min of what was seen


def test_early_stopping_min_delta():
    losses = np.array([1.0, 0.99, 0.98, 0.97, 0.5])
    got = early_stopping(losses, 3, min_delta=0.05)
    assert (int(got.best_iter), int(got.stop_iter), bool(got.stopped)) == (0, 3, True)


def test_early_stopping_jit_and_vmap_equal_loop():
    losses = jax.random.normal(jax.random.key(0), (6, 25)).cumsum(axis=1)
    batched = jax.jit(jax.vmap(lambda l: early_stopping(l, 4)))(losses)
    for i in range(6):
        one = early_stopping(losses[i], 4)
        assert int(batched.best_iter[i]) == int(one.best_iter)
        assert int(batched.stop_iter[i]) == int(one.stop_iter)


def test_early_stopping_update_inside_a_while_loop():
    """An iterative fit stops its loop on the state: the same iterations as the array rule."""
    losses = jnp.asarray([3.0, 2.0, 1.5, 1.6, 1.7, 1.4, 1.5, 1.6, 1.7, 1.8, 0.1])

    def run(losses):
        def cond(carry):
            t, state = carry
            return (t < losses.shape[0]) & ~state.stop

        def body(carry):
            t, state = carry
            return t + 1, early_stopping_update(state, losses[t], patience=3)

        return jax.lax.while_loop(cond, body, (0, early_stopping_init(losses.dtype)))

    t, state = jax.jit(run)(losses)
    ref = early_stopping(losses, 3)
    assert int(state.best_iter) == int(ref.best_iter) == 5
    assert int(t) - 1 == int(ref.stop_iter) == 8


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


def test_early_stopping_patience_below_one():
    with pytest.raises(ValueError, match="patience must be >= 1, got 0"):
        early_stopping([1.0, 0.5], 0)


def test_early_stopping_losses_not_1d():
    with pytest.raises(ValueError, match="val_losses must be 1-d"):
        early_stopping(np.ones((3, 2)), 2)


def test_early_stopping_negative_min_delta():
    with pytest.raises(ValueError, match="min_delta must be >= 0"):
        early_stopping([1.0, 0.5], 2, min_delta=-0.1)
