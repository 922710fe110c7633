"""Tests of jaxclassic/model_selection/search.py: the (grid x folds) table in one program.

References: scikit-learn's ``GridSearchCV(Ridge())`` on the same folds (same table, same
choice, same refit, to ~1e-10 in float64), and ``cross_validate`` at each grid point.
"""

import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from sklearn.linear_model import Ridge
from sklearn.model_selection import GridSearchCV

from jaxclassic.model_selection import cross_validate, fold_indices, grid_search, kfold_weights
from tests.model_selection import _fits
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
ALPHAS = np.logspace(-2, 3, 7)


@pytest.mark.full
def test_equals_sklearn_grid_search_cv():
    res = grid_search(ridge_fit, neg_mse, X, Y, {"alpha": ALPHAS}, FOLDS)
    ref = GridSearchCV(Ridge(), {"alpha": ALPHAS}, cv=fold_indices(FOLDS),
                       scoring="neg_mean_squared_error").fit(X, Y)
    table = np.stack([ref.cv_results_[f"split{k}_test_score"] for k in range(N_FOLDS)], axis=1)
    np.testing.assert_allclose(res.scores, table, rtol=1e-10)
    np.testing.assert_allclose(res.mean_scores, ref.cv_results_["mean_test_score"], rtol=1e-10)
    np.testing.assert_allclose(res.std_scores, ref.cv_results_["std_test_score"], rtol=1e-8)
    assert res.best_index == ref.best_index_
    assert res.best_point == {"alpha": ref.best_params_["alpha"]}
    np.testing.assert_allclose(res.best_score, ref.best_score_, rtol=1e-10)
    np.testing.assert_allclose(res.params.coef, ref.best_estimator_.coef_, rtol=1e-10)
    np.testing.assert_allclose(res.params.intercept, ref.best_estimator_.intercept_, rtol=1e-10)


@pytest.mark.full
def test_table_rows_equal_cross_validate_at_each_point_and_product_order():
    grid = {"alpha": [0.1, 10.0], "degree_shift": [0.0, 1.0, 2.0]}

    def fit(X, y, *, sample_weight, alpha, degree_shift):  # a second traced argument
        return ridge_fit(X, y + degree_shift, sample_weight=sample_weight, alpha=alpha)

    res = grid_search(fit, neg_mse, X, Y, grid, FOLDS, refit=False, return_train_score=True)
    expected_points = [dict(zip(grid, v)) for v in itertools.product(*grid.values())]
    assert res.points == expected_points
    assert res.params is None
    for g, point in enumerate(expected_points):
        cv = cross_validate(fit, neg_mse, X, Y, FOLDS, hyperparameters=point, return_train_score=True)
        np.testing.assert_allclose(res.scores[g], cv.fold_scores, rtol=1e-10)
        np.testing.assert_allclose(res.train_scores[g], cv.train_scores, rtol=1e-10)


@pytest.mark.full
def test_whole_grid_is_one_trace_of_the_fit():
    from jaxclassic.model_selection.cross_validation import _fit_score_program

    # besides the program, each call traces the fit abstractly (jax.eval_shape, no
    # computation) at the smallest and the largest alpha, to run its checks on concrete values
    checks = 2
    before = _fits.TRACES["ridge"]
    grid_search(ridge_fit, neg_mse, X, Y, {"alpha": np.linspace(0.5, 5.0, 9)}, FOLDS, refit=False)
    assert _fits.TRACES["ridge"] - before <= 1 + checks  # 9 points x 5 folds, traced once (0 if cached)
    middle, programs = _fits.TRACES["ridge"], _fit_score_program._cache_size()
    grid_search(ridge_fit, neg_mse, X, Y, {"alpha": np.linspace(1.0, 9.0, 9)}, FOLDS, refit=False)
    assert _fits.TRACES["ridge"] - middle == checks  # new values, same shapes: no retrace
    assert _fit_score_program._cache_size() == programs


def _poly_score(params, X, y, *, sample_weight):  # params of the polynomial features
    degree = params.coef.shape[0]
    pred = _fits.poly_features(X, degree) @ params.coef + params.intercept
    return -jnp.sum(sample_weight * (y - pred) ** 2) / jnp.sum(sample_weight)


@pytest.mark.full
def test_static_grid_is_looped_outside_the_traced_grid():
    score = _poly_score
    res = grid_search(poly_ridge_fit, score, X, Y, {"alpha": [0.01, 1.0]}, FOLDS,
                      static_grid={"degree": [1, 3]})
    assert res.scores.shape == (4, N_FOLDS)
    assert res.points == [{"degree": 1, "alpha": 0.01}, {"degree": 1, "alpha": 1.0},
                          {"degree": 3, "alpha": 0.01}, {"degree": 3, "alpha": 1.0}]
    for g, point in enumerate(res.points):
        cv = cross_validate(poly_ridge_fit, score, X, Y, FOLDS, hyperparameters={"alpha": point["alpha"]},
                            fit_kwargs={"degree": point["degree"]})
        np.testing.assert_allclose(res.scores[g], cv.fold_scores, rtol=1e-10)
    best = res.best_point
    refit = poly_ridge_fit(X, Y, alpha=best["alpha"], degree=best["degree"])
    np.testing.assert_allclose(res.params.coef, refit.coef, rtol=1e-10)


def test_only_static_grid():
    res = grid_search(poly_ridge_fit, _poly_score, X, Y, None, FOLDS, static_grid={"degree": [1]},
                      hyperparameters={"alpha": 1.0}, refit=False)
    assert res.scores.shape == (1, N_FOLDS)
    assert res.points == [{"degree": 1}]


def test_ties_go_to_the_first_point():
    res = grid_search(ridge_fit, neg_mse, X, Y, {"alpha": [2.0, 1.0, 2.0, 1.0]}, FOLDS, refit=False)
    best = int(np.argmax(np.asarray(res.mean_scores)))
    assert res.best_index == best and res.best_index in (0, 1)


@pytest.mark.full
def test_float32_input():
    res = grid_search(ridge_fit, neg_mse, X.astype(np.float32), Y.astype(np.float32),
                      {"alpha": ALPHAS}, FOLDS)
    ref = grid_search(ridge_fit, neg_mse, X, Y, {"alpha": ALPHAS}, FOLDS)
    assert res.scores.dtype == np.float32
    np.testing.assert_allclose(res.scores, ref.scores, rtol=1e-4)
    assert res.best_index == ref.best_index


# --------------------------------------------------------------------------- bad input
def test_grid_not_a_dict():
    with pytest.raises(TypeError, match="grid must be a dict"):
        grid_search(ridge_fit, neg_mse, X, Y, [0.1, 1.0], FOLDS)


def test_grid_values_empty():
    with pytest.raises(ValueError, match=r"grid\['alpha'\] is empty"):
        grid_search(ridge_fit, neg_mse, X, Y, {"alpha": []}, FOLDS)


def test_grid_values_scalar():
    with pytest.raises(ValueError, match=r"grid\['alpha'\] must be a 1-d sequence"):
        grid_search(ridge_fit, neg_mse, X, Y, {"alpha": 1.0}, FOLDS)


def test_grid_values_nan():
    with pytest.raises(ValueError, match=r"grid\['alpha'\] contains NaN"):
        grid_search(ridge_fit, neg_mse, X, Y, {"alpha": [1.0, np.nan]}, FOLDS)


def test_static_grid_not_a_list():
    with pytest.raises(TypeError, match=r"static_grid\['degree'\] must be a list"):
        grid_search(poly_ridge_fit, neg_mse, X, Y, {"alpha": [1.0]}, FOLDS, static_grid={"degree": 3})


def test_name_in_grid_and_fit_kwargs():
    with pytest.raises(ValueError, match=r"grid names \['alpha'\] are also given"):
        grid_search(ridge_fit, neg_mse, X, Y, {"alpha": [1.0]}, FOLDS, fit_kwargs={"alpha": 2.0})


def test_name_in_static_grid_and_grid():
    with pytest.raises(ValueError, match=r"static_grid names \['alpha'\] are also given"):
        grid_search(ridge_fit, neg_mse, X, Y, {"alpha": [1.0]}, FOLDS, static_grid={"alpha": [1.0]})


def test_every_point_nan():
    def nan_score(params, X, y, *, sample_weight):
        return jnp.nan * jnp.sum(sample_weight)

    with pytest.raises(ValueError, match="every grid point scored NaN"):
        grid_search(ridge_fit, nan_score, X, Y, {"alpha": [1.0]}, FOLDS)


# --------------------------------------------------------------------------- the fit's own checks
def test_negative_alpha_raises_the_fits_error():
    """fit_ridge rejects alpha < 0 eagerly; inside the vmapped program alpha is a tracer and
    that check is skipped, so the grid's values are checked concretely first."""
    from jaxclassic.linear import fit_ridge, predict
    from jaxclassic.model_selection import neg_mse_scorer

    with pytest.raises(ValueError, match=r"alpha must be >= 0.0, got -1.0") as grid_error:
        grid_search(fit_ridge, neg_mse_scorer(predict), X, Y, {"alpha": [1.0, 0.5, -1.0, 2.0]}, FOLDS)
    with pytest.raises(ValueError) as eager_error:  # the same message as the eager fit
        fit_ridge(X, Y, alpha=-1.0)
    assert str(grid_error.value) == str(eager_error.value)


def test_negative_fixed_alpha_in_cross_validate_raises():
    from jaxclassic.linear import fit_ridge, predict
    from jaxclassic.model_selection import neg_mse_scorer

    with pytest.raises(ValueError, match=r"alpha must be >= 0.0, got -0.5"):
        cross_validate(fit_ridge, neg_mse_scorer(predict), X, Y, FOLDS, hyperparameters={"alpha": -0.5})


def test_a_grid_checked_only_at_its_extremes_still_finds_the_bad_value():
    # the check visits the smallest and largest value of every axis (range checks); a second
    # axis of another length is padded with its own extremes
    from jaxclassic.linear import fit_lasso, predict
    from jaxclassic.model_selection import neg_mse_scorer

    grid = {"alpha": [0.1, 1.0, 3.0], "tol": [1e-4, -1e-3]}
    with pytest.raises(ValueError, match="tol"):
        grid_search(fit_lasso, neg_mse_scorer(predict), X, Y, grid, FOLDS)


@pytest.mark.full
def test_boolean_in_traced_grid_says_static_grid():
    from jaxclassic.linear import fit_ridge, predict
    from jaxclassic.model_selection import neg_mse_scorer

    with pytest.raises(TypeError, match=r"boolean hyperparameter\(s\) \['fit_intercept'\].*put it in static_grid"):
        grid_search(fit_ridge, neg_mse_scorer(predict), X, Y,
                    {"alpha": [1.0], "fit_intercept": [True, False]}, FOLDS)
    # the advice works: the same grid with the flag in static_grid runs
    res = grid_search(fit_ridge, neg_mse_scorer(predict), X, Y, {"alpha": [1.0]}, FOLDS,
                      static_grid={"fit_intercept": [True, False]}, refit=False)
    assert res.scores.shape == (2, N_FOLDS)


def test_uncalled_scorer_factory_is_explained():
    from jaxclassic.linear import fit_ridge
    from jaxclassic.model_selection import neg_mse_scorer

    with pytest.raises(TypeError, match=r"score is the scorer factory neg_mse_scorer, not a scorer: "
                                        r"call it .*neg_mse_scorer\(jaxclassic.linear.predict\)"):
        grid_search(fit_ridge, neg_mse_scorer, X, Y, {"alpha": [1.0]}, FOLDS)
    with pytest.raises(TypeError, match="score is the scorer factory"):
        cross_validate(fit_ridge, neg_mse_scorer, X, Y, FOLDS, hyperparameters={"alpha": 1.0})


def test_score_with_a_wrong_signature_is_explained():
    def score(params, X):  # no y, no sample_weight
        return 0.0

    with pytest.raises(TypeError, match=r"score must be callable as score\(params, X, y, \*, sample_weight\)"):
        grid_search(ridge_fit, score, X, Y, {"alpha": [1.0]}, FOLDS)
