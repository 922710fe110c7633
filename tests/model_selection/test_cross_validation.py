"""Tests of jaxclassic/model_selection/cross_validation.py: all folds in one vmapped call.

References:
* scikit-learn's ``cross_val_score`` with ``Ridge`` on the same folds (our private weighted
  ridge solves the same problem in closed form: equal to ~1e-10 in float64);
* a Python loop that fits every fold on its *sliced* training rows (no weights) and scores
  it on its sliced validation rows: this also checks that zero-weight rows have no
  influence. For each functional fit of the package in ``_fits.FIT_CASES`` (closed forms at
  1e-8 relative, iterative solvers at their tolerance).
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from sklearn.linear_model import Ridge
from sklearn.model_selection import cross_val_score

from jaxclassic.model_selection import (
    bootstrap_weights,
    cross_validate,
    fold_indices,
    kfold_weights,
    stratified_kfold_weights,
)
from jaxclassic.model_selection import scoring
from tests.model_selection import _fits
from tests.model_selection._fits import (
    N_FOLDS,
    N_SAMPLES,
    FIT_CASES,
    neg_mse,
    regression_data,
    ridge_fit,
)

X, Y = regression_data(0)
SOLVER_DIAGNOSTICS = {"n_iter", "converged", "dual_gap", "error", "history", "loss", "grad_norm"}
FOLDS = kfold_weights(N_SAMPLES, N_FOLDS, key=jax.random.key(0))


def _loop(fit, score, X, y, folds, hyperparameters, fit_kwargs=None):
    """Reference: fit each fold on its sliced training rows, score on its validation rows.

    The fit runs as the user calls it (eagerly, on concrete sliced rows); the score of the
    sliced validation rows is one jitted program for all folds (the same shapes every fold)
    rather than op by op, where each primitive compiled on its own (for the CRF's vmapped
    forward-backward, ~150 small compilations)."""
    params, scores = [], []
    score_sliced = jax.jit(lambda p, Xv, yv: score(p, Xv, yv, sample_weight=None))
    for train, val in fold_indices(folds):
        p = fit(X[train], y[train], **hyperparameters, **(fit_kwargs or {}))
        params.append(p)
        scores.append(float(score_sliced(p, X[val], y[val])))
    return params, np.array(scores)


def test_equals_sklearn_cross_val_score():
    res = cross_validate(ridge_fit, neg_mse, X, Y, FOLDS, hyperparameters={"alpha": 2.0})
    ref = cross_val_score(Ridge(alpha=2.0), X, Y, cv=fold_indices(FOLDS), scoring="neg_mean_squared_error")
    np.testing.assert_allclose(res.fold_scores, ref, rtol=1e-10)
    np.testing.assert_allclose(res.mean, ref.mean(), rtol=1e-10)
    np.testing.assert_allclose(res.std, ref.std(), rtol=1e-8)


@pytest.mark.full
def test_equals_python_loop_over_sliced_folds():
    res = cross_validate(ridge_fit, neg_mse, X, Y, FOLDS, hyperparameters={"alpha": 0.3})
    params, scores = _loop(ridge_fit, neg_mse, X, Y, FOLDS, {"alpha": 0.3})
    np.testing.assert_allclose(res.fold_scores, scores, rtol=1e-10)
    stacked = jax.tree_util.tree_map(lambda *a: jnp.stack(a), *params)
    jax.tree_util.tree_map(lambda a, b: np.testing.assert_allclose(a, b, rtol=1e-10), res.params, stacked)


@pytest.mark.full
def test_bootstrap_weights_give_the_out_of_bag_estimate():
    counts = bootstrap_weights(N_SAMPLES, N_FOLDS, key=jax.random.key(5))
    res = cross_validate(ridge_fit, neg_mse, X, Y, counts, hyperparameters={"alpha": 0.3})
    for b in range(N_FOLDS):
        rows = np.repeat(np.arange(N_SAMPLES), np.asarray(counts[b]).astype(int))  # the resample
        oob = np.flatnonzero(np.asarray(counts[b]) == 0)
        p = ridge_fit(X[rows], Y[rows], alpha=0.3)
        np.testing.assert_allclose(res.fold_scores[b], neg_mse(p, X[oob], Y[oob], sample_weight=None), rtol=1e-9)


@pytest.mark.full
def test_base_sample_weight_multiplies_train_and_validation_weights():
    sw = np.random.default_rng(0).uniform(0.5, 2.0, N_SAMPLES)
    res = cross_validate(ridge_fit, neg_mse, X, Y, FOLDS, hyperparameters={"alpha": 0.3},
                         sample_weight=sw, return_train_score=True)
    for k, (train, val) in enumerate(fold_indices(FOLDS)):
        p = ridge_fit(X[train], Y[train], alpha=0.3, sample_weight=sw[train])
        np.testing.assert_allclose(res.fold_scores[k], neg_mse(p, X[val], Y[val], sample_weight=sw[val]), rtol=1e-9)
        np.testing.assert_allclose(res.train_scores[k], neg_mse(p, X[train], Y[train], sample_weight=sw[train]), rtol=1e-9)


def test_one_compilation_for_repeated_calls():
    """Same shapes, new data and a new hyperparameter value: the program is not retraced.
    A scorer rebuilt by its maker compares equal, so it reuses the program too."""
    from jaxclassic.model_selection.cross_validation import _fit_score_program

    X2, Y2 = regression_data(7)
    scorer = scoring.neg_mse_scorer(_fits.ridge_predict)
    cross_validate(ridge_fit, scorer, X, Y, FOLDS, hyperparameters={"alpha": 0.1}, return_params=False)
    before, programs = _fits.TRACES["ridge"], _fit_score_program._cache_size()
    for alpha in (0.2, np.float64(3.0), jnp.asarray(1.5)):
        cross_validate(ridge_fit, scoring.neg_mse_scorer(_fits.ridge_predict), X2, Y2, FOLDS,
                       hyperparameters={"alpha": alpha}, return_params=False)
    assert _fit_score_program._cache_size() == programs  # no new compiled program
    # the only traces of the fit: one abstract check of the concrete alpha per call
    # (jax.eval_shape, no computation), never the program
    assert _fits.TRACES["ridge"] - before == 3


def test_jit_of_cross_validate_equals_eager():
    def cv_mean(alpha):
        return cross_validate(ridge_fit, neg_mse, jnp.asarray(X), jnp.asarray(Y), FOLDS,
                              hyperparameters={"alpha": alpha}).mean
    np.testing.assert_allclose(jax.jit(cv_mean)(0.4), cv_mean(0.4), rtol=1e-12)


@pytest.mark.full
def test_cv_score_is_differentiable_in_the_hyperparameter():
    """d CV(alpha) / d log(alpha) by autodiff through all folds equals central differences."""
    def cv(log_alpha):
        return cross_validate(ridge_fit, neg_mse, X, Y, FOLDS,
                              hyperparameters={"alpha": jnp.exp(log_alpha)}, return_params=False).mean

    h = 1e-5
    fd = (cv(jnp.log(2.0) + h) - cv(jnp.log(2.0) - h)) / (2 * h)
    np.testing.assert_allclose(jax.grad(cv)(jnp.log(2.0)), fd, rtol=1e-6)  # O(h^2) truncation


def test_float32_input_gives_float32_scores():
    res = cross_validate(ridge_fit, neg_mse, X.astype(np.float32), Y.astype(np.float32), FOLDS,
                         hyperparameters={"alpha": 0.3})
    ref = cross_validate(ridge_fit, neg_mse, X, Y, FOLDS, hyperparameters={"alpha": 0.3})
    assert res.fold_scores.dtype == np.float32
    np.testing.assert_allclose(res.fold_scores, ref.fold_scores, rtol=1e-4)  # float32 rounding


# --------------------------------------------------------------------------- every package fit
@pytest.mark.full
@pytest.mark.parametrize("case", FIT_CASES, ids=[c.name for c in FIT_CASES])
def test_package_fit_cross_validate_equals_sliced_loop(case):
    fit = _fits.resolve(case.fit)
    response = _fits.resolve(case.response)
    score = getattr(scoring, case.scorer)(response)
    Xc, yc = _fits.case_data(case.data)
    folds = (kfold_weights(N_SAMPLES, N_FOLDS, key=jax.random.key(1)) if case.data == "regression"
             else stratified_kfold_weights(yc, N_FOLDS, key=jax.random.key(1)))
    res = cross_validate(fit, score, Xc, yc, folds, hyperparameters=case.hyperparameters,
                         fit_kwargs=case.fit_kwargs)
    params, scores = _loop(fit, score, Xc, yc, folds, case.hyperparameters, case.fit_kwargs)
    np.testing.assert_allclose(res.fold_scores, scores, rtol=case.rtol, atol=case.rtol)
    stacked = jax.tree_util.tree_map(lambda *a: jnp.stack(a), *params)
    for field in type(stacked)._fields:
        if field in SOLVER_DIAGNOSTICS:  # iterative fits may take a different number of steps
            continue
        if field in case.instance_fields:  # the training rows themselves: the fold's kept rows
            for f, (train, _) in enumerate(fold_indices(folds)):
                np.testing.assert_allclose(np.asarray(getattr(res.params, field)[f])[train],
                                           np.asarray(getattr(params[f], field)),
                                           rtol=case.rtol, atol=case.rtol, err_msg=f"{case.name}.{field}")
            continue
        # a field may itself be a pytree (an ensemble's stacked trees): compare leaf by leaf
        ours_leaves = jax.tree_util.tree_leaves(getattr(res.params, field))
        ref_leaves = jax.tree_util.tree_leaves(getattr(stacked, field))
        assert len(ours_leaves) == len(ref_leaves), f"{case.name}.{field}"
        for ours, ref in zip(ours_leaves, ref_leaves):
            if jnp.issubdtype(jnp.asarray(ours).dtype, jnp.floating):
                # parameters: the solver tolerance amplified by the conditioning, hence x100
                np.testing.assert_allclose(ours, ref, rtol=case.rtol * 100, atol=case.rtol * 100,
                                           err_msg=f"{case.name}.{field}")


def test_deprecated_weights_keyword_warns_and_gives_the_same_result():
    with pytest.warns(DeprecationWarning, match=r"cross_validate\(folds=\)"):
        old = cross_validate(ridge_fit, neg_mse, X, Y, weights=FOLDS, hyperparameters={"alpha": 0.3})
    new = cross_validate(ridge_fit, neg_mse, X, Y, folds=FOLDS, hyperparameters={"alpha": 0.3})
    np.testing.assert_array_equal(old.fold_scores, new.fold_scores)


# --------------------------------------------------------------------------- bad input
def test_folds_wrong_number_of_columns():
    with pytest.raises(ValueError, match=r"folds must have shape \(K, n_samples\) = \(K, 40\)"):
        cross_validate(ridge_fit, neg_mse, X, Y, kfold_weights(30, 5))


def test_folds_not_2d():
    with pytest.raises(ValueError, match="folds must be 2-d"):
        cross_validate(ridge_fit, neg_mse, X, Y, np.ones(N_SAMPLES))


def test_folds_negative():
    w = np.array(FOLDS)
    w[0, 0] = -1
    with pytest.raises(ValueError, match="folds must be non-negative"):
        cross_validate(ridge_fit, neg_mse, X, Y, w)


def test_fold_without_validation_rows():
    w = np.array(FOLDS)
    w[2] = 1
    with pytest.raises(ValueError, match="fold 2 has no validation rows"):
        cross_validate(ridge_fit, neg_mse, X, Y, w)


def test_fold_without_training_rows():
    w = np.array(FOLDS)
    w[1] = 0
    with pytest.raises(ValueError, match="fold 1 has no training rows"):
        cross_validate(ridge_fit, neg_mse, X, Y, w)


def test_X_y_length_mismatch():
    with pytest.raises(ValueError, match="X and y have inconsistent numbers of samples: 40 != 39"):
        cross_validate(ridge_fit, neg_mse, X, Y[:-1], FOLDS)


def test_X_with_nan():
    Xn = X.copy()
    Xn[3, 1] = np.nan
    with pytest.raises(ValueError, match="X contains 1 NaN"):
        cross_validate(ridge_fit, neg_mse, Xn, Y, FOLDS)


def test_fit_not_callable():
    with pytest.raises(TypeError, match="fit must be callable"):
        cross_validate("ridge", neg_mse, X, Y, FOLDS)


def test_score_not_callable():
    with pytest.raises(TypeError, match="score must be callable"):
        cross_validate(ridge_fit, None, X, Y, FOLDS)


def test_hyperparameters_not_a_dict():
    with pytest.raises(TypeError, match="hyperparameters must be a dict"):
        cross_validate(ridge_fit, neg_mse, X, Y, FOLDS, hyperparameters=[("alpha", 1.0)])


def test_hyperparameter_not_numeric():
    with pytest.raises(TypeError, match="hyperparameter 'alpha' must be numeric"):
        cross_validate(ridge_fit, neg_mse, X, Y, FOLDS, hyperparameters={"alpha": "big"})


def test_fit_kwargs_unhashable():
    with pytest.raises(TypeError, match=r"fit_kwargs\['priors'\] must be hashable"):
        cross_validate(ridge_fit, neg_mse, X, Y, FOLDS, fit_kwargs={"priors": [0.5, 0.5]})
