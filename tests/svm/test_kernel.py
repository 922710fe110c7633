"""Tests of jaxclassic/svm/kernel.py and jaxclassic/svm/_smo.py (x64 on, from the root conftest).

References: scikit-learn's ``SVC`` (LIBSVM, same C, kernel, gamma, tol) on breast cancer
(standardised), digits 3 vs 8 (pixels / 16) and iris versicolor vs virginica, for the linear,
poly, rbf, sigmoid and laplace kernels (scikit-learn's laplace through a callable
``laplacian_kernel``); its dual objective is recomputed from its ``dual_coef_`` with our
Gram matrix. Also: the KKT conditions at the solution, strong duality (primal with the shared
``losses.hinge`` = minus the dual), fits on sliced data (zero-weight rows), on repeated rows
(integer weights), the hard margin on separable data, and out-of-fold Platt scaling rebuilt
from a loop of fits.

Tolerances: both solvers stop when the maximal violating pair gap is <= tol. At tol = 1e-5 the
dual objectives agree to ~1e-11 relative (asserted at the asked 1e-4), the support sets are
identical, and decision values agree to ~1e-4 (asserted at 1e-3: at LIBSVM's default tol =
1e-3 the decision values of two correct solvers differ by up to 2e-2 on breast cancer's
linear kernel, the dual being flat along some directions).

Compilation dominates: the three data sets are brought to one shape (569 x 64) by zero-weight
rows and zero columns (neither changes a kernel value nor the fit: zero columns add nothing
to x.z or to |x - z|, and gamma is given explicitly), so each kernel compiles once.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_digits, load_iris
from sklearn.metrics.pairwise import laplacian_kernel
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from jaxclassic import kernels, losses
from jaxclassic.exceptions import ConvergenceWarning
from jaxclassic.svm import decision_function, fit_kernel_svm, predict, predict_proba, support_vectors
from jaxclassic.svm import kernel as K
from jaxclassic.svm import platt

KERNELS = ["linear", "poly", "rbf", "sigmoid", "laplace"]
N_ROWS, N_COLS = 569, 64


def _datasets():
    X, y = load_breast_cancer(return_X_y=True)
    yield "breast_cancer", StandardScaler().fit_transform(X), y
    X, y = load_digits(return_X_y=True)
    keep = (y == 3) | (y == 8)
    yield "digits_3_8", X[keep] / 16.0, (y[keep] == 8).astype(int)
    X, y = load_iris(return_X_y=True)
    keep = y > 0
    yield "iris_1_2", X[keep], (y[keep] == 2).astype(int)


DATA = {name: (X, y) for name, X, y in _datasets()}


def _common_shape(X, y):
    """Pad to (569, 64): zero columns, then zero rows of weight 0."""
    n, d = X.shape
    Xp = np.zeros((N_ROWS, N_COLS))
    Xp[:n, :d] = X
    yp = np.zeros(N_ROWS, int)
    yp[:n] = y
    sw = (np.arange(N_ROWS) < n).astype(float)
    return Xp, yp, sw


def _gamma(X):
    return 1.0 / (X.shape[1] * X.var())  # scikit-learn's "scale" on the unpadded data


def _sklearn(X, y, kernel, tol):
    gamma = _gamma(X)
    if kernel == "laplace":
        return SVC(kernel=lambda A, B: laplacian_kernel(A, B, gamma=gamma), tol=tol).fit(X, y)
    return SVC(kernel=kernel, gamma=gamma, tol=tol).fit(X, y)


def _gram(params, X):
    fn = K.make_kernel(params.kernel, params.gamma, params.coef0)
    return np.asarray(fn(jnp.asarray(X), jnp.asarray(X)))


def _fit_common(name, kernel, tol=1e-5, **kw):
    X, y = DATA[name]
    Xp, yp, sw = _common_shape(X, y)
    return fit_kernel_svm(Xp, yp, kernel=kernel, gamma=_gamma(X), tol=tol, sample_weight=sw, **kw)


# --------------------------------------------------------------------------- references
@pytest.mark.full
@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("name", list(DATA))
def test_equals_sklearn_svc(name, kernel):
    X, y = DATA[name]
    n = len(y)
    params = _fit_common(name, kernel)
    sk = _sklearn(X, y, kernel, tol=1e-5)
    assert bool(params.converged)
    # dual objective of scikit-learn's solution, recomputed with our Gram matrix
    coef = np.zeros(n)
    coef[sk.support_] = sk.dual_coef_[0]
    Kx = _gram(params, X)
    sk_objective = 0.5 * coef @ Kx @ coef - np.abs(coef).sum()
    np.testing.assert_allclose(float(params.dual_objective), sk_objective, rtol=1e-4)
    # our objective is our alpha's (the solver's incremental gradient did not drift)
    ours = np.asarray(params.dual_coef)[:n]
    np.testing.assert_allclose(float(params.dual_objective), 0.5 * ours @ Kx @ ours - np.abs(ours).sum(),
                               rtol=1e-10)
    assert set(np.flatnonzero(np.asarray(params.alpha) > 0)) == set(sk.support_)
    Xq = _common_shape(X, y)[0][:n]
    np.testing.assert_allclose(decision_function(params, Xq), sk.decision_function(X), atol=1e-3)
    np.testing.assert_allclose(float(params.intercept), sk.intercept_[0], atol=1e-3)


@pytest.mark.full
def test_default_tol_matches_sklearn_objective_and_support():
    # at LIBSVM's default tol = 1e-3 the objectives still agree to ~1e-8 and the support sets
    # are equal; predictions agree
    X, y = DATA["breast_cancer"]
    params = fit_kernel_svm(X, y)
    sk = SVC().fit(X, y)
    coef = np.zeros(len(y))
    coef[sk.support_] = sk.dual_coef_[0]
    Kx = _gram(params, X)
    np.testing.assert_allclose(float(params.dual_objective), 0.5 * coef @ Kx @ coef - np.abs(coef).sum(),
                               rtol=1e-6)
    # scikit-learn lists the support class by class; ours in row order
    np.testing.assert_array_equal(K.support(params), np.sort(sk.support_))
    np.testing.assert_array_equal(predict(params, X), sk.predict(X))


@pytest.mark.full
def test_row_block_equals_kernels_module():
    X = jnp.asarray(DATA["iris_1_2"][0])
    for name, fn, hyper in (("linear", kernels.linear, {}),
                            ("poly", kernels.polynomial, dict(gamma=0.3, coef0=1.5, degree=3)),
                            ("rbf", kernels.gaussian, dict(gamma=0.3)),
                            ("sigmoid", kernels.sigmoid, dict(gamma=0.3, coef0=-0.5)),
                            ("laplace", kernels.laplace, dict(gamma=0.3))):
        spec = K.KernelSpec(name, hyper.get("degree", 3))
        block = K.row_block(spec, hyper.get("gamma", 1.0), hyper.get("coef0", 0.0), X)(X[:7])
        np.testing.assert_allclose(block, fn(X[:7], X, **hyper), rtol=1e-12, atol=1e-13, err_msg=name)


# --------------------------------------------------------------------------- optimality
def test_kkt_conditions_at_the_solution():
    # gap m - M <= tol and b = -rho between the bounds give |violation| <= tol on each row
    X, y = DATA["breast_cancer"]
    tol = 1e-3
    params = fit_kernel_svm(X, y, C=1.0, tol=tol)
    alpha = np.asarray(params.alpha)
    margin = np.where(y == 1, 1.0, -1.0) * np.asarray(decision_function(params, X))
    at_zero, at_C = alpha == 0, alpha == 1.0
    free = ~at_zero & ~at_C
    assert at_zero.any() and at_C.any() and free.any()
    assert np.all(margin[at_zero] >= 1 - tol)
    assert np.all(np.abs(margin[free] - 1) <= tol)
    assert np.all(margin[at_C] <= 1 + tol)
    # the equality constraint and the box
    np.testing.assert_allclose(np.sum(np.asarray(params.dual_coef)), 0.0, atol=1e-10)
    assert alpha.min() >= 0 and alpha.max() <= 1.0


@pytest.mark.full
@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_strong_duality_primal_equals_minus_dual(kernel):
    # P(w, b) = 1/2 |w|^2 + C sum_i hinge(y_i f_i), |w|^2 = c^T K c with c = alpha * y; at the
    # optimum P = -D. The gap is O(tol * sum alpha); at tol = 1e-8, 1e-7 relative.
    X, y = DATA["digits_3_8"]
    C = 0.5
    params = fit_kernel_svm(X, y, C=C, kernel=kernel, gamma=_gamma(X), tol=1e-8)
    coef = np.asarray(params.dual_coef)
    f = np.asarray(decision_function(params, X))
    primal = 0.5 * coef @ _gram(params, X) @ coef + C * float(jnp.sum(losses.hinge(2.0 * y - 1, jnp.asarray(f))))
    np.testing.assert_allclose(primal, -float(params.dual_objective), rtol=1e-7)


@pytest.mark.full
def test_hard_margin_on_separable_data():
    rng = np.random.default_rng(0)
    X = np.concatenate([rng.normal(size=(20, 2)) + 4.0, rng.normal(size=(20, 2)) - 4.0])
    y = np.repeat([1, 0], 20)
    params = fit_kernel_svm(X, y, C=np.inf, kernel="linear", tol=1e-8)
    assert bool(params.converged)
    margin = np.where(y == 1, 1.0, -1.0) * np.asarray(decision_function(params, X))
    assert margin.min() == pytest.approx(1.0, abs=1e-7)  # the support vectors sit on the margin
    sv = np.asarray(params.alpha) > 0
    np.testing.assert_allclose(margin[sv], 1.0, atol=1e-7)
    # scikit-learn with a huge C is the hard margin
    sk = SVC(C=1e8, kernel="linear", tol=1e-8).fit(X, y)
    np.testing.assert_allclose(decision_function(params, X), sk.decision_function(X), atol=1e-5)


def test_hard_margin_on_non_separable_data_does_not_converge():
    X, y = DATA["iris_1_2"]
    with pytest.warns(ConvergenceWarning, match="did not converge within max_iter=200"):
        params = fit_kernel_svm(X, y, C=np.inf, kernel="linear", max_iter=200)
    assert not bool(params.converged)


# --------------------------------------------------------------------------- solver variants
@pytest.mark.full
@pytest.mark.parametrize("kernel", ["rbf", "poly"])
def test_cached_rows_and_rows_on_demand_equal_the_gram_path(kernel):
    full = _fit_common("breast_cancer", kernel)
    assert full.X_fit.shape == (N_ROWS, N_COLS)
    X, y = DATA["breast_cancer"]
    Xq = _common_shape(X, y)[0][:len(y)]
    # a budget for 50 rows of 569: an LRU cache with evictions; then no cache at all
    for kw in (dict(storage="cache", memory_budget=50 * N_ROWS * 8), dict(storage="rows")):
        other = _fit_common("breast_cancer", kernel, **kw)
        # rows and the tiled Gram matrix round differently (~1e-16), which can change a tie in
        # the working-set choice: the paths differ, the optimum does not (the objective to
        # 1e-10; decision values to O(tol); alpha itself is not unique when K is singular, as
        # the cubic kernel's Gram matrix on 569 rows of 30 features is)
        np.testing.assert_allclose(other.dual_objective, full.dual_objective, rtol=1e-10)
        np.testing.assert_allclose(decision_function(other, Xq), decision_function(full, Xq),
                                   rtol=1e-5, atol=1e-4)


def test_choose_storage_by_budget_and_size():
    assert K.choose_storage("auto", 1000, 20, 8, None) == ("gram", 1000)
    assert K.choose_storage("auto", 1000, 20, 8, 1000 * 8 * 10) == ("rows", 10)  # few features
    assert K.choose_storage("auto", 1000, 200, 8, 1000 * 8 * 10) == ("cache", 10)
    assert K.choose_storage("auto", 1000, 200, 8, 8) == ("rows", 0)  # not even 2 rows fit
    assert K.choose_storage("auto", 10_000, 20, 4, 2**40)[0] == "rows"  # above GRAM_MAX_ROWS


@pytest.mark.full
@pytest.mark.parametrize("kernel", ["rbf", "linear"])
def test_batched_working_set_equals_pairs(kernel):
    pairs = _fit_common("breast_cancer", kernel)
    batched = _fit_common("breast_cancer", kernel, working_set="batch", batch_size=32)
    assert bool(batched.converged) and int(batched.n_iter) < int(pairs.n_iter)
    np.testing.assert_allclose(batched.dual_objective, pairs.dual_objective, rtol=1e-8)
    X, y = DATA["breast_cancer"]
    Xq = _common_shape(X, y)[0][:len(y)]
    np.testing.assert_allclose(decision_function(batched, Xq), decision_function(pairs, Xq), atol=1e-3)


# --------------------------------------------------------------------------- weights
def test_zero_weight_rows_equal_fitting_without_them():
    X, y = DATA["breast_cancer"]
    rng = np.random.default_rng(1)
    drop = rng.random(len(y)) < 0.3
    weights = (~drop).astype(float)
    Xg = X.copy()
    Xg[drop] = rng.normal(size=(drop.sum(), X.shape[1])) * 100  # garbage where the weight is 0
    full = fit_kernel_svm(Xg, y, sample_weight=weights, gamma=0.05)
    ref = fit_kernel_svm(X[~drop], y[~drop], gamma=0.05)
    assert np.all(np.asarray(full.alpha)[drop] == 0)
    np.testing.assert_allclose(np.asarray(full.alpha)[~drop], ref.alpha, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(full.intercept, ref.intercept, rtol=1e-9)
    np.testing.assert_allclose(decision_function(full, X), decision_function(ref, X), rtol=1e-9, atol=1e-12)


@pytest.mark.full
def test_integer_weights_equal_repeated_rows():
    # weight k and k copies give the same primal problem, hence the same decision function
    X, y = DATA["iris_1_2"]
    counts = np.random.default_rng(2).integers(1, 4, size=len(y))
    weighted = fit_kernel_svm(X, y, sample_weight=counts.astype(float), tol=1e-8)
    repeated = fit_kernel_svm(np.repeat(X, counts, axis=0), np.repeat(y, counts), tol=1e-8,
                              gamma=float(weighted.gamma))
    np.testing.assert_allclose(weighted.dual_objective, repeated.dual_objective, rtol=1e-8)
    np.testing.assert_allclose(decision_function(weighted, X), decision_function(repeated, X), atol=1e-6)


def test_gamma_scale_is_the_weighted_variance():
    X, y = DATA["iris_1_2"]
    assert float(fit_kernel_svm(X, y).gamma) == pytest.approx(1 / (X.shape[1] * X.var()), rel=1e-12)
    assert float(fit_kernel_svm(X, y, gamma="auto").gamma) == pytest.approx(1 / X.shape[1])
    counts = np.arange(len(y)) % 3 + 1.0
    rep = np.repeat(X, counts.astype(int), axis=0)
    assert float(K.resolve_gamma("scale", X, counts)) == pytest.approx(1 / (X.shape[1] * rep.var()), rel=1e-12)


@pytest.mark.full
def test_duplicate_points_are_fine():
    X, y = DATA["iris_1_2"]
    twice = fit_kernel_svm(np.concatenate([X, X]), np.concatenate([y, y]), tol=1e-8)
    weighted = fit_kernel_svm(X, y, sample_weight=np.full(len(y), 2.0), tol=1e-8)
    assert bool(twice.converged)
    np.testing.assert_allclose(decision_function(twice, X), decision_function(weighted, X), atol=1e-6)


# --------------------------------------------------------------------------- transformations
@pytest.fixture(scope="module")
def small():
    X, y = DATA["breast_cancer"]
    return jnp.asarray(X[:60]), jnp.asarray(y[:60])


@pytest.mark.full
def test_jit_equals_eager(small):
    X, y = small[0][:24], small[1][:24]  # eager runs the loop op by op: few rows
    jitted = jax.jit(lambda C: fit_kernel_svm(X, y, C=C, gamma=0.05))(0.7)
    with jax.disable_jit():
        eager = fit_kernel_svm(X, y, C=0.7, gamma=0.05)
    assert int(jitted.n_iter) == int(eager.n_iter)
    np.testing.assert_allclose(jitted.alpha, eager.alpha, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(jitted.intercept, eager.intercept, rtol=1e-10)


@pytest.mark.full
def test_vmap_over_C_equals_a_loop(small):
    X, y = small
    Cs = jnp.array([0.1, 1.0, 10.0])
    stacked = jax.vmap(lambda C: fit_kernel_svm(X, y, C=C, gamma=0.05))(Cs)
    for k, C in enumerate(Cs):
        one = fit_kernel_svm(X, y, C=C, gamma=0.05)
        np.testing.assert_allclose(stacked.alpha[k], one.alpha, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(stacked.intercept[k], one.intercept, rtol=1e-10)
        assert int(stacked.n_iter[k]) == int(one.n_iter)


def test_no_retrace_on_new_hyperparameters(small):
    X, y = small
    fit_kernel_svm(X, y, C=1.0, gamma=0.05)
    before = K._fit._cache_size()
    fit_kernel_svm(X, y, C=3, gamma=0.2, coef0=1.0, tol=1e-4, max_iter=1000,
                   sample_weight=np.ones(60))
    assert K._fit._cache_size() == before


# --------------------------------------------------------------------------- probabilities
@pytest.mark.full
def test_platt_on_out_of_fold_decisions_equals_a_loop_of_fits(small):
    # LIBSVM's procedure: contiguous folds of the rows, each row's decision value from a fit on
    # the other folds (sliced data here), Platt's sigmoid on those
    X, y = small
    params = fit_kernel_svm(X, y, gamma=0.05, probability=True, tol=1e-8)
    folds = np.asarray(platt.fold_assignment(jnp.ones(60), 5))
    out_of_fold = np.zeros(60)
    for k in range(5):
        train = folds != k
        fold_fit = fit_kernel_svm(X[train], y[train], gamma=0.05, tol=1e-8)
        out_of_fold[~train] = np.asarray(decision_function(fold_fit, X[~train]))
    A, B = platt.platt_scale(out_of_fold, np.asarray(y))
    np.testing.assert_allclose([float(params.probA), float(params.probB)], [float(A), float(B)], rtol=1e-5)
    proba = np.asarray(predict_proba(params, X))
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    f = np.asarray(decision_function(params, X))
    assert np.all(np.diff(proba[np.argsort(f), 1]) >= 0)  # increasing in f


def test_predict_proba_needs_probability(small):
    X, y = small
    with pytest.raises(ValueError, match="probability=True"):
        predict_proba(fit_kernel_svm(X, y, gamma=0.05), X)


# --------------------------------------------------------------------------- accessors
def test_support_vectors_and_restriction(small):
    X, y = small
    params = fit_kernel_svm(X, y, gamma=0.05)
    support, vectors = K.support(params), support_vectors(params)
    np.testing.assert_array_equal(support, np.flatnonzero(np.asarray(params.alpha) > 0))
    np.testing.assert_array_equal(vectors, np.asarray(X)[support])
    np.testing.assert_array_equal(support_vectors(params, X), vectors)  # the linear SVM's call
    compact = K.restrict_to_support(params)
    assert compact.X_fit.shape == (len(support), X.shape[1])
    np.testing.assert_allclose(decision_function(compact, X), decision_function(params, X), rtol=1e-12)


def test_decision_function_in_tiles_equals_one_block(small, monkeypatch):
    X, y = small
    params = fit_kernel_svm(X, y, gamma=0.05)
    whole = np.asarray(decision_function(params, X))
    monkeypatch.setattr("jaxclassic._tiling.MEMORY_BUDGET", 60 * 8 * 3 * 7)  # 7-row tiles
    np.testing.assert_allclose(decision_function(params, X[:59]), whole[:59], rtol=1e-12)


# --------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("C", [0.0, -1.0])
def test_C_not_positive(small, C):
    with pytest.raises(ValueError, match=r"C must be > 0.0, got"):
        fit_kernel_svm(*small, C=C)


@pytest.mark.parametrize("gamma", [0.0, -0.5])
def test_gamma_not_positive(small, gamma):
    with pytest.raises(ValueError, match=r"gamma must be > 0.0, got"):
        fit_kernel_svm(*small, gamma=gamma)


def test_gamma_unknown_string(small):
    with pytest.raises(ValueError, match=r"gamma must be 'scale', 'auto' or a float > 0, got 'big'"):
        fit_kernel_svm(*small, gamma="big")


def test_one_class(small):
    X, _ = small
    with pytest.raises(ValueError, match="y must contain at least 2 classes, got 1"):
        fit_kernel_svm(X, np.ones(60, int))


def test_one_class_with_positive_weight(small):
    X, y = small
    with pytest.raises(ValueError, match="y must contain at least 2 classes, got 1"):
        fit_kernel_svm(X, y, sample_weight=np.asarray(y, float))


def test_labels_beyond_binary(small):
    X, _ = small
    with pytest.raises(ValueError, match="y holds class code 2 but n_classes=2"):
        fit_kernel_svm(X, np.arange(60) % 3)


@pytest.mark.full
def test_non_psd_callable_kernel_detected(small):
    def negative_distance(A, B):  # -|a - b|^2: conditionally, not positive semi-definite
        return -kernels._tiling.squared_euclidean(A, B)

    with pytest.raises(ValueError, match="kernel negative_distance is not positive semi-definite"):
        fit_kernel_svm(*small, kernel=negative_distance)


def test_psd_callable_kernel_equals_builtin(small):
    X, y = small
    user = fit_kernel_svm(X, y, kernel=lambda A, B: kernels.gaussian(A, B, gamma=0.05))
    builtin = fit_kernel_svm(X, y, kernel="rbf", gamma=0.05)
    np.testing.assert_allclose(user.alpha, builtin.alpha, rtol=1e-9, atol=1e-12)


def test_unknown_kernel(small):
    with pytest.raises(ValueError, match="kernel must be one of .* or a callable, got 'cubic'"):
        fit_kernel_svm(*small, kernel="cubic")


def test_kernel_wrong_type(small):
    with pytest.raises(TypeError, match="kernel must be a string or a callable"):
        fit_kernel_svm(*small, kernel=3)


def test_degree_below_one(small):
    with pytest.raises(ValueError, match="degree must be >= 1, got 0"):
        fit_kernel_svm(*small, kernel="poly", degree=0)


def test_unknown_storage(small):
    with pytest.raises(ValueError, match=r"storage must be one of \['auto', 'gram', 'cache', 'rows'\], got 'disk'"):
        fit_kernel_svm(*small, storage="disk")


def test_unknown_working_set(small):
    with pytest.raises(ValueError, match=r"working_set must be one of .*, got 'triple'"):
        fit_kernel_svm(*small, working_set="triple")


def test_X_with_nan(small):
    X, y = small
    X = np.array(X)
    X[3, 2] = np.nan
    with pytest.raises(ValueError, match="X contains 1 NaN"):
        fit_kernel_svm(X, y)


def test_predict_wrong_number_of_features(small):
    X, y = small
    params = fit_kernel_svm(X, y, gamma=0.05)
    with pytest.raises(ValueError, match="X has 29 features, but the model was fitted with 30 features"):
        decision_function(params, X[:, :29])
