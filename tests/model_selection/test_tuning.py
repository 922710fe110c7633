"""Tests of jaxclassic/model_selection/tuning.py and of the derivatives of cross_validate /
grid_search (issue 14).

References: the grid-search optimum of the same CV score (the tuned point must reach it within
the grid's spacing); the hypergradient of ridge's CV score derived by hand in numpy
(d beta / d alpha = -(G + alpha I)^{-1} beta on each fold) and central finite differences;
an eager Python loop of optax steps on ``jax.grad`` of ``cross_validate`` (the compiled path).
Everything in float64 (x64 is on in the suite's conftest).
"""

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest
from sklearn.datasets import load_breast_cancer, load_diabetes

from jaxclassic import svm
from jaxclassic.linear import fit_lasso, fit_logistic, fit_ridge, predict, predict_proba
from jaxclassic.model_selection import (
    cross_validate,
    grid_search,
    kfold_weights,
    log_loss_scorer,
    neg_hinge_scorer,
    neg_mse_scorer,
    tune_hyperparameters,
)
from jaxclassic.model_selection.tuning import _tuning_program

SCORE = neg_mse_scorer(predict)
ADAM = optax.adam(0.3, b2=0.9)


def _diabetes():
    X, y = load_diabetes(return_X_y=True)
    return X, y, kfold_weights(X.shape[0], 5, key=jax.random.key(0))


def _grid_tolerance(grid):
    """How much the CV score changes over one grid step around the grid's optimum: a point
    found between grid points must score at least ``best - this``."""
    means = np.asarray(grid.mean_scores)
    i = grid.best_index
    neighbours = means[max(i - 1, 0): i + 2]
    return float(means[i] - neighbours.min())


# --------------------------------------------------------------------------- (1) references
@pytest.mark.full
def test_ridge_on_diabetes_reaches_the_grid_optimum():
    X, y, folds = _diabetes()
    alphas = np.logspace(-4, 1, 26)  # spacing 0.2 in log10
    grid = grid_search(fit_ridge, SCORE, X, y, {"alpha": alphas}, folds, refit=False)
    res = tune_hyperparameters(fit_ridge, SCORE, X, y, folds, {"alpha": 1.0}, n_steps=12)
    assert res.best_score >= grid.best_score - _grid_tolerance(grid)
    # the CV curve is not flat there: the tuned alpha lies within one grid step of the grid's
    assert abs(np.log10(res.best_point["alpha"]) - np.log10(grid.best_point["alpha"])) <= 0.2
    # the path starts at init, scores are the CV estimate of its points, the refit is at best
    assert res.path["alpha"].shape == (13,) and res.fold_scores.shape == (13, 5)
    np.testing.assert_allclose(res.path["alpha"][0], 1.0)
    cv = cross_validate(fit_ridge, SCORE, X, y, folds,
                        hyperparameters={"alpha": res.best_point["alpha"]})
    np.testing.assert_allclose(res.best_score, cv.mean, rtol=1e-12)
    ref = fit_ridge(X, y, alpha=res.best_point["alpha"])
    np.testing.assert_allclose(res.params.coef, ref.coef, rtol=1e-12)
    assert res.best_score == float(np.max(res.scores))


@pytest.mark.full
def test_logistic_on_breast_cancer_reaches_the_grid_optimum():
    # fit_logistic differentiates by the implicit function theorem at its Newton solution
    X, y = load_breast_cancer(return_X_y=True)
    X = (X - X.mean(0)) / X.std(0)
    y = y.astype(np.int32)
    folds = kfold_weights(X.shape[0], 5, key=jax.random.key(0))
    score = log_loss_scorer(predict_proba)
    grid = grid_search(fit_logistic, score, X, y, {"l2": np.logspace(-2, 3, 26)}, folds,
                       refit=False)
    res = tune_hyperparameters(fit_logistic, score, X, y, folds, {"l2": 10.0}, n_steps=8)
    assert res.best_score >= grid.best_score - _grid_tolerance(grid)
    assert abs(np.log10(res.best_point["l2"]) - np.log10(grid.best_point["l2"])) <= 0.2
    np.testing.assert_allclose(res.params.coef, fit_logistic(X, y, l2=res.best_point["l2"]).coef,
                               rtol=1e-10)


@pytest.mark.full
def test_lasso_on_diabetes_reaches_the_grid_optimum_from_a_coarse_grid():
    # the lasso's CV curve has several local maxima (a kink each time a feature enters the
    # active set; on diabetes at alpha ~ 0.007, 0.017 and 0.037): descent from alpha = 1 stops
    # at the one near 0.037 (CV MSE 3013.0 vs the grid's 3009.6). Started at the best of a
    # coarse 5-point grid it reaches the fine grid's optimum.
    X, y, folds = _diabetes()
    fine = grid_search(fit_lasso, SCORE, X, y, {"alpha": np.logspace(-3, 1, 21)}, folds,
                       refit=False)
    coarse = grid_search(fit_lasso, SCORE, X, y, {"alpha": np.logspace(-3, 1, 5)}, folds,
                         refit=False)
    res = tune_hyperparameters(fit_lasso, SCORE, X, y, folds, coarse.best_point, n_steps=8)
    assert res.best_score >= fine.best_score - _grid_tolerance(fine)
    assert abs(np.log10(res.best_point["alpha"]) - np.log10(fine.best_point["alpha"])) <= 0.2


def _svc_fit(X, y, *, C, gamma, sample_weight=None):
    return svm.fit_kernel_svm(X, y, C=C, gamma=gamma, tol=1e-10, sample_weight=sample_weight)


@pytest.mark.full
def test_kernel_svc_C_and_gamma_tuned_by_the_validation_hinge_loss_beat_a_grid():
    # the accuracy's gradient is 0 almost everywhere; the validation hinge loss is piecewise
    # linear in the decision values, and these move smoothly with (C, gamma) through the SMO
    # solution's implicit derivatives (free support vectors on the margin)
    X, y = load_breast_cancer(return_X_y=True)
    rows = np.random.default_rng(0).choice(len(y), 80, replace=False)
    X, y = X[rows], y[rows].astype(np.int32)
    X = (X - X.mean(0)) / X.std(0)
    folds = kfold_weights(80, 4, key=jax.random.key(0))
    score = neg_hinge_scorer(svm.decision_function)

    def cv(u):  # in log space, as the tuner descends it
        return cross_validate(_svc_fit, score, X, y, folds, return_params=False,
                              hyperparameters={"C": jnp.exp(u[0]), "gamma": jnp.exp(u[1])}).mean

    u0 = jnp.log(jnp.array([1.0, 0.01]))
    # central differences, h = 1e-4: truncation ~h^2, SMO's stopping error (tol 1e-10) / h
    # (measured agreement 1e-7 relative)
    fd = [(cv(u0.at[i].add(1e-4)) - cv(u0.at[i].add(-1e-4))) / 2e-4 for i in range(2)]
    np.testing.assert_allclose(jax.grad(cv)(u0), fd, rtol=1e-5)

    C, gamma = np.meshgrid(np.logspace(-1, 3, 5), np.logspace(-4, 0, 5), indexing="ij")
    grid = grid_search(_svc_fit, score, X, y, {"C": C.ravel(), "gamma": gamma.ravel()}, folds,
                       refit=False)
    res = tune_hyperparameters(_svc_fit, score, X, y, folds, {"C": 1.0, "gamma": 0.01},
                               n_steps=8, refit=False)
    # measured: the 25-point grid's best is -0.2236 (C=100, gamma=0.01); 8 L-BFGS steps reach
    # -0.2199 at C=3.0, gamma=0.0117 (between the grid's points)
    assert res.best_score >= grid.best_score
    assert res.best_score > res.scores[0] + 0.02  # moved well off init (-0.2474)


def fit_ridge_per_feature(X, y, *, sample_weight=None, alpha):
    r"""Ridge with one penalty per feature, :math:`\sum_j \alpha_j \beta_j^2`: ridge with
    ``alpha = 1`` on the columns :math:`x_j / \sqrt{\alpha_j}`, coefficients scaled back."""
    scale = jnp.sqrt(alpha)
    params = fit_ridge(X / scale, y, alpha=1.0, sample_weight=sample_weight)
    return params._replace(coef=params.coef / scale)


def _relevance_data(n, seed):
    """3 relevant features (coefficients 3, -2, 1.5) and 5 pure-noise features, all N(0, 1),
    noise sd 2: one shared penalty must trade shrinking the noise coefficients against biasing
    the relevant ones; per-feature penalties need not (the setting of ARD, Tipping 2001)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 8))
    y = X[:, :3] @ np.array([3.0, -2.0, 1.5]) + rng.normal(scale=2.0, size=n)
    return X, y


@pytest.mark.full
def test_per_feature_penalties_beat_the_best_single_alpha():
    X, y = _relevance_data(60, 0)
    folds = kfold_weights(60, 5, key=jax.random.key(1))
    grid = grid_search(fit_ridge, SCORE, X, y, {"alpha": np.logspace(-2, 3, 26)}, folds)
    init = {"alpha": np.full(8, grid.best_point["alpha"])}
    res = tune_hyperparameters(fit_ridge_per_feature, SCORE, X, y, folds, init, n_steps=15)
    assert res.path["alpha"].shape == (16, 8)
    # a clear gain in the CV mean squared error (measured: 4.77 -> 4.26 here)
    assert -res.best_score < 0.95 * -grid.best_score
    # it shrinks the noise features harder than the relevant ones (one noise feature of the
    # five happens to help the CV a little on these 60 rows: the median, not the minimum)
    alpha = np.asarray(res.best_point["alpha"])
    assert np.median(alpha[3:]) > 10 * alpha[:3].max()
    # and the refit predicts fresh data from the same distribution better
    X_new, y_new = _relevance_data(2000, 1)
    mse_tuned = np.mean((predict(res.params, X_new) - y_new) ** 2)
    mse_grid = np.mean((predict(grid.params, X_new) - y_new) ** 2)
    assert mse_tuned < mse_grid


# --------------------------------------------------------------------------- (2) gradients
def _hand_ridge_cv_gradient(X, y, folds, alpha):
    """d/d alpha of the mean over folds of -MSE on the validation rows, for ridge with an
    unpenalised intercept: beta = (G + alpha I)^{-1} g on centred training rows,
    d beta / d alpha = -(G + alpha I)^{-1} beta, d b / d alpha = -xbar^T d beta."""
    total = 0.0
    for w in np.asarray(folds):
        tr, va = w > 0, w == 0
        xm, ym = X[tr].mean(0), y[tr].mean()
        Xc, yc = X[tr] - xm, y[tr] - ym
        A = Xc.T @ Xc + alpha * np.eye(X.shape[1])
        beta = np.linalg.solve(A, Xc.T @ yc)
        dbeta = -np.linalg.solve(A, beta)
        resid = y[va] - (X[va] - xm) @ beta - ym
        dpred = (X[va] - xm) @ dbeta
        total += 2 * np.mean(resid * dpred)  # d(-mean r^2) = 2 mean(r dpred)
    return total / len(folds)


@pytest.mark.full
def test_cv_gradient_equals_hand_derivation_and_finite_differences():
    X, y, folds = _diabetes()

    def cv(alpha):
        return cross_validate(fit_ridge, SCORE, X, y, folds, hyperparameters={"alpha": alpha},
                              return_params=False).mean

    alpha = 0.05
    grad = jax.grad(cv)(alpha)
    # float64 closed forms on a well-conditioned 10 x 10 system: agree to rounding
    np.testing.assert_allclose(grad, _hand_ridge_cv_gradient(X, y, folds, alpha), rtol=1e-9)
    h = 1e-5 * alpha  # central differences: truncation O(h^2), rounding eps |cv| / h ~ 1e-8
    fd = (cv(alpha + h) - cv(alpha - h)) / (2 * h)
    np.testing.assert_allclose(grad, fd, rtol=1e-6)
    # forward mode agrees with reverse mode
    _, tangent = jax.jvp(cv, (alpha,), (1.0,))
    np.testing.assert_allclose(tangent, grad, rtol=1e-12)


@pytest.mark.full
def test_logistic_cv_gradient_equals_finite_differences():
    # through fit_logistic's implicit derivatives (its Newton solution, not an unrolled loop)
    X, y = load_breast_cancer(return_X_y=True)
    X = (X - X.mean(0)) / X.std(0)
    folds = kfold_weights(X.shape[0], 5, key=jax.random.key(0))
    score = log_loss_scorer(predict_proba)

    def cv(l2):
        return cross_validate(fit_logistic, score, X, y.astype(np.int32), folds,
                              hyperparameters={"l2": l2}, return_params=False).mean

    # central differences with h = 1e-4: truncation ~h^2, rounding and Newton's stopping
    # error ~1e-12 / h (measured: 2e-8 relative)
    fd = (cv(2.0 + 1e-4) - cv(2.0 - 1e-4)) / 2e-4
    np.testing.assert_allclose(jax.grad(cv)(2.0), fd, rtol=1e-6)


@pytest.mark.full
def test_grid_search_scores_differentiate_like_cross_validate():
    X, y, folds = _diabetes()
    alphas = jnp.array([0.01, 0.1, 1.0])

    def grid_mean(a):
        return grid_search(fit_ridge, SCORE, X, y, {"alpha": a}, folds, refit=False).mean_scores

    def cv(a):
        return cross_validate(fit_ridge, SCORE, X, y, folds, hyperparameters={"alpha": a},
                              return_params=False).mean

    jac = jax.jacobian(grid_mean)(alphas)
    np.testing.assert_allclose(np.diag(jac), jax.vmap(jax.grad(cv))(alphas), rtol=1e-12)
    np.testing.assert_allclose(jac - np.diag(np.diag(jac)), 0.0, atol=0)  # points independent

    # best_score and the refit differentiate through the (piecewise-constant) choice
    def best_and_refit(a):
        res = grid_search(fit_ridge, SCORE, X, y, {"alpha": a}, folds)
        return res.best_score, res.params.coef.sum()

    best, coef = jax.jacobian(best_and_refit)(alphas)
    i = int(np.argmax(np.asarray(grid_mean(alphas))))
    np.testing.assert_allclose(best, np.eye(3)[i] * np.asarray(jac[i, i]), rtol=1e-12)
    ref = jax.grad(lambda a: fit_ridge(X, y, alpha=a).coef.sum())(alphas[i])
    np.testing.assert_allclose(coef, np.eye(3)[i] * np.asarray(ref), rtol=1e-12)


# --------------------------------------------------------------------------- (3) program
@pytest.mark.full
def test_compiled_path_equals_an_eager_loop_and_does_not_retrace():
    X, y, folds = _diabetes()

    def loss(u):  # the CV loss in log space, through the public cross_validate
        return -cross_validate(fit_ridge, SCORE, X, y, folds,
                               hyperparameters={"alpha": jnp.exp(u["alpha"])}).mean

    theta = {"alpha": jnp.log(jnp.asarray(2.0))}
    state = ADAM.init(theta)
    expected = [2.0]
    for _ in range(3):
        updates, state = ADAM.update(jax.grad(loss)(theta), state, theta)
        theta = optax.apply_updates(theta, updates)
        expected.append(float(jnp.exp(theta["alpha"])))
    res = tune_hyperparameters(fit_ridge, SCORE, X, y, folds, {"alpha": 2.0}, optimizer=ADAM,
                               n_steps=3, refit=False)
    np.testing.assert_allclose(res.path["alpha"], expected, rtol=1e-12)
    assert res.params is None
    programs = _tuning_program._cache_size()
    again = tune_hyperparameters(fit_ridge, SCORE, X, y, folds, {"alpha": 0.5}, optimizer=ADAM,
                                 n_steps=3, refit=False)
    assert _tuning_program._cache_size() == programs  # new values, same shapes: no retrace
    np.testing.assert_allclose(again.path["alpha"][0], 0.5)


@pytest.mark.full
def test_log_space_false_descends_the_value_itself():
    X, y, folds = _diabetes()
    sgd = optax.sgd(1e-5)
    res = tune_hyperparameters(fit_ridge, SCORE, X, y, folds, {"alpha": 1.0}, optimizer=sgd,
                               n_steps=1, log_space=False, refit=False)
    grad = jax.grad(lambda a: cross_validate(fit_ridge, SCORE, X, y, folds,
                                             hyperparameters={"alpha": a}).mean)(1.0)
    # one sgd step on -CV: alpha + lr * dCV/dalpha
    np.testing.assert_allclose(res.path["alpha"][1], 1.0 + 1e-5 * grad, rtol=1e-12)


# --------------------------------------------------------------------------- bad input
@pytest.fixture(scope="module")
def small():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 2))
    return X, X @ np.ones(2), kfold_weights(20, 4, key=jax.random.key(0))


@pytest.mark.full
def test_n_steps_below_one(small):
    X, y, folds = small
    with pytest.raises(ValueError, match="n_steps must be >= 1, got 0"):
        tune_hyperparameters(fit_ridge, SCORE, X, y, folds, {"alpha": 1.0}, n_steps=0)


def test_n_steps_not_an_int(small):
    X, y, folds = small
    with pytest.raises(TypeError, match="n_steps must be an int, got float 5.0"):
        tune_hyperparameters(fit_ridge, SCORE, X, y, folds, {"alpha": 1.0}, n_steps=5.0)


def test_unknown_hyperparameter_name(small):
    X, y, folds = small
    with pytest.raises(ValueError, match=r"'l2', which fit_ridge does not take; its keyword "
                                         r"arguments are: alpha, fit_intercept, standardize"):
        tune_hyperparameters(fit_ridge, SCORE, X, y, folds, {"l2": 1.0})


def test_non_positive_init_with_log_space(small):
    X, y, folds = small
    with pytest.raises(ValueError, match=r"init\['alpha'\] must be > 0 with log_space .* got "
                                         r"array\(-1\.\)"):
        tune_hyperparameters(fit_ridge, SCORE, X, y, folds, {"alpha": -1.0})
    with pytest.raises(ValueError, match=r"init\['alpha'\] must be > 0 with log_space"):
        tune_hyperparameters(fit_ridge_per_feature, SCORE, X, y, folds, {"alpha": np.array([1.0, 0.0])})


def test_non_finite_init(small):
    X, y, folds = small
    with pytest.raises(ValueError, match=r"init\['alpha'\] must be finite"):
        tune_hyperparameters(fit_ridge, SCORE, X, y, folds, {"alpha": np.nan}, log_space=False)


def test_init_not_a_dict_or_empty(small):
    X, y, folds = small
    with pytest.raises(TypeError, match="init must be a dict of hyperparameter name -> starting value, got float"):
        tune_hyperparameters(fit_ridge, SCORE, X, y, folds, 1.0)
    with pytest.raises(ValueError, match="init is empty"):
        tune_hyperparameters(fit_ridge, SCORE, X, y, folds, {})


def test_init_integer_array_is_not_continuous(small):
    X, y, folds = small
    with pytest.raises(TypeError, match=r"init\['alpha'\] must be a float .* got dtype int"):
        tune_hyperparameters(fit_ridge_per_feature, SCORE, X, y, folds, {"alpha": np.array([1, 2])})


def test_log_space_names_unknown(small):
    X, y, folds = small
    with pytest.raises(ValueError, match=r"log_space names \['gamma'\] are not in init"):
        tune_hyperparameters(fit_ridge, SCORE, X, y, folds, {"alpha": 1.0}, log_space=["gamma"])
    with pytest.raises(TypeError, match="log_space must be a bool or a collection"):
        tune_hyperparameters(fit_ridge, SCORE, X, y, folds, {"alpha": 1.0}, log_space="alpha")


def test_optimizer_not_a_transformation(small):
    X, y, folds = small
    with pytest.raises(TypeError, match="optimizer must be an optax.GradientTransformation"):
        tune_hyperparameters(fit_ridge, SCORE, X, y, folds, {"alpha": 1.0}, optimizer=0.1)


def test_init_name_also_in_fit_kwargs(small):
    X, y, folds = small
    with pytest.raises(ValueError, match=r"init names \['alpha'\] are also given"):
        tune_hyperparameters(fit_ridge, SCORE, X, y, folds, {"alpha": 1.0},
                             hyperparameters={"alpha": 2.0})


@pytest.mark.full
def test_traced_grid_search_cannot_refit_over_static_combinations(small):
    X, y, folds = small

    def fit(X, y, *, sample_weight=None, alpha, standardize):
        return fit_ridge(X, y, alpha=alpha, standardize=standardize, sample_weight=sample_weight)

    def best(a):
        return grid_search(fit, SCORE, X, y, {"alpha": a}, folds,
                           static_grid={"standardize": [False, True]}).best_score

    with pytest.raises(TypeError, match="cannot choose among static_grid combinations"):
        jax.grad(best)(jnp.array([0.1, 1.0]))


# --------------------------------------------------------------------------- best_point's type
def test_best_point_is_python_scalars_when_concrete_in_grid_search_and_tuning(small):
    X, y, folds = small
    grid = grid_search(fit_ridge, SCORE, X, y, {"alpha": [0.1, 1.0]}, folds, refit=False)
    tuned = tune_hyperparameters(fit_ridge, SCORE, X, y, folds, {"alpha": 1.0}, optimizer=ADAM,
                                 n_steps=2, refit=False)
    for res in (grid, tuned):
        assert set(res.best_point) == {"alpha"}
        assert type(res.best_point["alpha"]) is float
        assert type(res.best_index) is int
    # a vector-valued hyperparameter: a numpy array of the path's row
    vector = tune_hyperparameters(fit_ridge_per_feature, SCORE, X, y, folds, {"alpha": np.ones(2)},
                                  optimizer=ADAM, n_steps=2, refit=False)
    assert type(vector.best_point["alpha"]) is np.ndarray
    np.testing.assert_array_equal(vector.best_point["alpha"], vector.path["alpha"][vector.best_index])


def test_best_point_holds_the_traced_arrays_inside_jit_in_grid_search_and_tuning(small):
    X, y, folds = small
    seen = {}

    @jax.jit
    def both(X):
        grid = grid_search(fit_ridge, SCORE, X, y, {"alpha": jnp.array([0.1, 1.0])}, folds,
                           refit=False)
        tuned = tune_hyperparameters(fit_ridge, SCORE, X, y, folds, {"alpha": 1.0},
                                     optimizer=ADAM, n_steps=2, refit=False)
        seen["grid"], seen["tuned"] = grid.best_point["alpha"], tuned.best_point["alpha"]
        return grid.best_point["alpha"], tuned.best_point["alpha"]

    grid_alpha, tuned_alpha = both(jnp.asarray(X))
    assert isinstance(seen["grid"], jax.core.Tracer) and isinstance(seen["tuned"], jax.core.Tracer)
    assert float(grid_alpha) == grid_search(fit_ridge, SCORE, X, y, {"alpha": [0.1, 1.0]}, folds,
                                            refit=False).best_point["alpha"]
    np.testing.assert_allclose(
        float(tuned_alpha),
        tune_hyperparameters(fit_ridge, SCORE, X, y, folds, {"alpha": 1.0}, optimizer=ADAM,
                             n_steps=2, refit=False).best_point["alpha"], rtol=1e-12)
