"""Tests of jaxclassic.svm.linear (x64 on, from the root conftest).

References: scikit-learn's ``LinearSVC`` (LIBLINEAR, ``dual=True``, same loss, C,
intercept_scaling) on breast cancer (standardised) and wine (multiclass, one-vs-rest); the
duality gap P - D (weak duality, 0 at the optimum); the KKT conditions of the dual; fits on
sliced data (zero-weight rows) and on repeated rows (integer weights).

Tolerances: both solvers stop on LIBLINEAR's rule (range of the projected gradients over an
epoch <= tol) with tol = 1e-10, so the dual is within ~tol of optimal on every coordinate and
the (unique, the primal is strongly convex) w within ~1e-9 relative: coefficients are
compared at 1e-7 relative to the largest one (margin for the conditioning); the primal Newton
fit meets the gradient test at 1e-10.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_wine
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC

from jaxclassic import _dispatch
from jaxclassic.exceptions import ConvergenceWarning
from jaxclassic.multiclass import fit_one_vs_rest
from jaxclassic.svm import LinearSVMParams, fit_linear_svm, predict, decision_function, support_vectors
from jaxclassic.svm import predict_proba
from jaxclassic.svm.linear import _fit_linear_svm, dual_objective, primal_objective

TIGHT = dict(tol=1e-10, max_iter=100_000)
KEY = jax.random.key(0)


@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    return StandardScaler().fit_transform(X), y


@pytest.fixture(scope="module")
def small(cancer):
    """120 rows of breast cancer: the shape of the cheaper tests (one compiled program)."""
    X, y = cancer
    return X[:120], y[:120]


@pytest.fixture(scope="module")
def fits(cancer):
    X, y = cancer
    return {loss: fit_linear_svm(X, y, C=1.0, loss=loss, key=KEY, **TIGHT)
            for loss in ("hinge", "squared_hinge")}


def _rel(a, b):
    return np.max(np.abs(np.asarray(a) - np.asarray(b))) / np.max(np.abs(np.asarray(b)))


# --------------------------------------------------------------------------- references
@pytest.mark.full
@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
def test_equals_sklearn_linearsvc(cancer, fits, loss):
    X, y = cancer
    params = fits[loss]
    ref = LinearSVC(C=1.0, loss=loss, dual=True, tol=1e-10, max_iter=1_000_000, random_state=0).fit(X, y)
    assert bool(params.converged)
    assert _rel(params.coef, ref.coef_[0]) < 1e-7
    np.testing.assert_allclose(params.intercept, ref.intercept_[0], rtol=1e-7, atol=1e-9)
    np.testing.assert_array_equal(predict(params, X), ref.predict(X))


@pytest.mark.full
def test_intercept_scaling_and_no_intercept_equal_sklearn(small):
    X, y = small
    for kwargs in (dict(intercept_scaling=10.0), dict(fit_intercept=False)):
        params = fit_linear_svm(X, y, C=0.5, loss="hinge", key=KEY, **TIGHT, **kwargs)
        ref = LinearSVC(C=0.5, loss="hinge", tol=1e-10, max_iter=1_000_000, **kwargs).fit(X, y)
        assert _rel(params.coef, ref.coef_[0]) < 1e-7, kwargs
        np.testing.assert_allclose(params.intercept, np.ravel(ref.intercept_)[0], rtol=1e-7, atol=1e-9)


@pytest.mark.full
def test_primal_newton_equals_dual_and_sklearn_primal(cancer, fits):
    X, y = cancer
    params = fit_linear_svm(X, y, C=1.0, method="primal", tol=1e-10)
    assert bool(params.converged) and int(params.n_iter) < 30  # finite Newton: a few steps
    dual = fits["squared_hinge"]
    assert _rel(params.coef, dual.coef) < 1e-8
    np.testing.assert_allclose(params.intercept, dual.intercept, rtol=1e-8)
    # LIBLINEAR's trust-region Newton stops on |grad| <= tol |grad_0| (less tight): 1e-5
    ref = LinearSVC(C=1.0, dual=False, tol=1e-12, max_iter=100_000).fit(X, y)
    assert _rel(params.coef, ref.coef_[0]) < 1e-5


@pytest.mark.full
def test_multiclass_one_vs_rest_equals_sklearn():
    X, y = load_wine(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    params = fit_one_vs_rest(fit_linear_svm, X, y, C=0.3, key=KEY, **TIGHT)
    ref = LinearSVC(C=0.3, tol=1e-10, max_iter=1_000_000).fit(X, y)
    assert _rel(params.estimators.coef, ref.coef_) < 1e-7
    np.testing.assert_allclose(params.estimators.intercept, ref.intercept_, rtol=1e-7, atol=1e-9)
    np.testing.assert_array_equal(_dispatch.predict(params, X), ref.predict(X))


# --------------------------------------------------------------------------- optimality
@pytest.mark.full
@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
def test_duality_gap_closes(cancer, fits, loss):
    X, y = cancer
    kw = dict(C=1.0, loss=loss)
    with pytest.warns(ConvergenceWarning, match=r"fit_linear_svm\(method='dual'\): did not converge in 2 iterations"):
        early = fit_linear_svm(X, y, loss=loss, key=KEY, max_iter=2)
    gap_early = float(primal_objective(early, X, y, **kw) - dual_objective(early, X, y, **kw))
    final = fits[loss]
    P, D = float(primal_objective(final, X, y, **kw)), float(dual_objective(final, X, y, **kw))
    assert gap_early > 1e-3  # weak duality, strictly positive before convergence
    assert -1e-12 * abs(P) <= P - D <= 1e-9 * abs(P)


def test_duality_gap_of_primal_fit_closes(cancer):
    X, y = cancer
    params = fit_linear_svm(X, y, C=1.0, method="primal", tol=1e-10)
    P, D = float(primal_objective(params, X, y)), float(dual_objective(params, X, y))
    assert abs(P - D) <= 1e-9 * abs(P)


def test_kkt_hinge(cancer, fits):
    X, y = cancer
    params, C, eps = fits["hinge"], 1.0, 1e-6
    t = 2 * y - 1
    alpha = np.asarray(params.dual_coef) * t
    margin = t * np.asarray(decision_function(params, X))
    assert (alpha >= 0).all() and (alpha <= C).all()
    assert (margin[alpha == 0] >= 1 - eps).all()
    free = (alpha > 1e-9) & (alpha < C - 1e-9)
    assert free.sum() > 5 and np.abs(margin[free] - 1).max() <= eps
    assert (margin[alpha >= C - 1e-9] <= 1 + eps).all()
    # w = sum_i alpha_i t_i x_i and the bias weight sum_i alpha_i t_i (intercept_scaling 1)
    np.testing.assert_allclose(np.asarray(params.dual_coef) @ X, params.coef, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(np.sum(params.dual_coef), params.intercept, rtol=1e-10, atol=1e-12)


@pytest.mark.full
def test_kkt_squared_hinge_and_autodiff_stationarity(cancer, fits):
    X, y = cancer
    params, C = fits["squared_hinge"], 1.0
    t = 2 * y - 1
    margin = t * np.asarray(decision_function(params, X))
    # stationarity of the L2-loss Lagrangian: alpha_i = 2 C max(0, 1 - t_i f_i)
    np.testing.assert_allclose(np.asarray(params.dual_coef) * t, 2 * C * np.maximum(0, 1 - margin),
                               atol=1e-7)
    # the primal gradient by autodiff (of the shared loss) vanishes at the optimum
    grad = jax.grad(lambda coef: primal_objective(params._replace(coef=coef), X, y, C=C))(params.coef)
    assert np.max(np.abs(grad)) < 1e-6


# --------------------------------------------------------------------------- weights
@pytest.mark.parametrize("loss,method,key", [("hinge", "dual", KEY), ("squared_hinge", "dual", KEY),
                                             ("hinge", "dual", None), ("squared_hinge", "primal", None)])
@pytest.mark.full
def test_zero_weight_rows_have_no_influence(small, loss, method, key):
    X, y = small
    rng = np.random.default_rng(0)
    Xg = X.copy()
    zero = rng.random(len(y)) < 0.3
    Xg[zero] = rng.normal(scale=1e3, size=(zero.sum(), X.shape[1]))  # garbage where weight is 0
    full = fit_linear_svm(Xg, y, loss=loss, method=method, sample_weight=(~zero).astype(float),
                          key=key, tol=1e-10)
    sliced = fit_linear_svm(X[~zero], y[~zero], loss=loss, method=method, key=key, tol=1e-10)
    np.testing.assert_allclose(full.coef, sliced.coef, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(full.intercept, sliced.intercept, rtol=1e-9, atol=1e-12)
    assert (np.asarray(full.dual_coef)[zero] == 0).all()
    np.testing.assert_allclose(np.asarray(full.dual_coef)[~zero], sliced.dual_coef, rtol=1e-9, atol=1e-12)


@pytest.mark.full
def test_integer_weights_equal_repeated_rows(small):
    X, y = small
    w = np.tile([1.0, 2.0, 3.0], len(y) // 3)
    weighted = fit_linear_svm(X, y, C=0.7, sample_weight=w, key=KEY, **TIGHT)
    repeated = fit_linear_svm(np.repeat(X, w.astype(int), axis=0), np.repeat(y, w.astype(int)),
                              C=0.7, key=KEY, **TIGHT)
    assert bool(weighted.converged) and bool(repeated.converged)
    assert _rel(weighted.coef, repeated.coef) < 1e-7


@pytest.mark.full
def test_shrinking_and_order_do_not_change_the_solution(small):
    X, y = small
    ref = fit_linear_svm(X, y, key=KEY, tol=1e-10)
    for kwargs in (dict(shrinking=False, key=KEY), dict(key=None), dict(key=jax.random.key(5))):
        params = fit_linear_svm(X, y, **TIGHT, **kwargs)
        assert bool(params.converged) and _rel(params.coef, ref.coef) < 1e-8, kwargs


def test_signs_equal_codes(small):
    X, y = small
    a = fit_linear_svm(X, y, key=KEY)
    b = fit_linear_svm(X, 2 * y - 1, key=KEY)
    np.testing.assert_array_equal(a.coef, b.coef)


# --------------------------------------------------------------------------- transformations
def test_jit_equals_eager(small):
    X, y = small
    eager = fit_linear_svm(X, y, C=2.0, key=KEY)
    jitted = jax.jit(lambda X, y, C: fit_linear_svm(X, y, C=C, key=KEY))(X, y, 2.0)
    np.testing.assert_allclose(jitted.coef, eager.coef, rtol=1e-12, atol=1e-14)
    assert int(jitted.n_iter) == int(eager.n_iter)


@pytest.mark.full
def test_vmap_over_C_equals_loop_and_no_retrace(small):
    X, y = small
    Cs = jnp.array([0.05, 0.5, 5.0])
    grid = jax.vmap(lambda C: fit_linear_svm(X, y, C=C, key=KEY, **TIGHT))(Cs)
    first = fit_linear_svm(X, y, C=0.05, key=KEY, **TIGHT)
    size = _fit_linear_svm._cache_size()
    loop = [first] + [fit_linear_svm(X, y, C=float(C), key=KEY, **TIGHT) for C in Cs[1:]]
    assert _fit_linear_svm._cache_size() == size  # a new C (or a new max_iter) reuses the program
    with pytest.warns(ConvergenceWarning, match="did not converge in 50 iterations"):
        fit_linear_svm(X, y, C=3, key=KEY, tol=1e-8, max_iter=50)
    assert _fit_linear_svm._cache_size() == size
    assert bool(grid.converged.all())
    for k, params in enumerate(loop):
        np.testing.assert_allclose(grid.coef[k], params.coef, rtol=1e-10, atol=1e-12)
        assert int(grid.n_iter[k]) == int(params.n_iter)


@pytest.mark.full
def test_float32_keeps_dtype_and_is_close(small):
    X, y = small
    p32 = fit_linear_svm(X.astype(np.float32), y, key=KEY, tol=1e-4)
    p64 = fit_linear_svm(X, y, key=KEY, tol=1e-10)
    assert p32.coef.dtype == jnp.float32 and p32.dual_coef.dtype == jnp.float32
    assert _rel(p32.coef, p64.coef) < 1e-3  # tol 1e-4 on the dual's projected gradients


# --------------------------------------------------------------------------- predict & co
@pytest.mark.full
def test_predict_support_vectors_and_dispatch(small):
    X, y = small
    params = fit_linear_svm(X, y, loss="hinge", C=0.5, key=KEY, tol=1e-10)
    f = np.asarray(decision_function(params, X))
    np.testing.assert_allclose(f, X @ np.asarray(params.coef) + float(params.intercept), rtol=1e-12)
    np.testing.assert_array_equal(predict(params, X), (f > 0).astype(int))
    np.testing.assert_array_equal(_dispatch.predict(params, X), predict(params, X))
    sv = support_vectors(params, X)
    on_support = np.asarray(params.dual_coef) != 0
    np.testing.assert_array_equal(sv, X[on_support])
    assert (((2 * y - 1) * f)[on_support] <= 1 + 1e-6).all()  # support vectors: margin <= 1
    with pytest.raises(ValueError, match="predict_proba needs LinearSVMParams fitted with probability=True"):
        predict_proba(params, X)


@pytest.mark.full
def test_probability_equals_platt_on_sliced_fold_fits(small):
    """probability=True: Platt's sigmoid on decision values of fits that did not see the row
    (5 contiguous folds without a key) == the same computed by hand with sliced fits."""
    from jaxclassic.svm.platt import platt_scale

    X, y = small
    params = fit_linear_svm(X, y, C=0.5, tol=1e-10, probability=True)
    folds = np.arange(len(y)) * 5 // len(y)
    oof = np.empty(len(y))
    for k in range(5):
        part = fit_linear_svm(X[folds != k], y[folds != k], C=0.5, tol=1e-10)
        oof[folds == k] = np.asarray(decision_function(part, X[folds == k]))
    A, B = platt_scale(oof, y)
    np.testing.assert_allclose([params.probA, params.probB], [A, B], rtol=1e-7)
    proba = np.asarray(predict_proba(params, X))
    np.testing.assert_allclose(proba.sum(axis=1), 1, rtol=1e-12)
    f = np.asarray(decision_function(params, X))
    np.testing.assert_allclose(proba[:, 1], 1 / (1 + np.exp(float(A) * f + float(B))), rtol=1e-6)


# --------------------------------------------------------------------------- bad input
def test_non_positive_C_raises(small):
    X, y = small
    for C in (0.0, -1.0):
        with pytest.raises(ValueError, match=r"C must be > 0.0, got"):
            fit_linear_svm(X, y, C=C)


def test_one_class_raises(small):
    X, y = small
    with pytest.raises(ValueError, match="y must contain at least 2 classes, got 1"):
        fit_linear_svm(X, np.ones_like(y))


def test_nan_raises(small):
    X, y = small
    Xn = X.copy()
    Xn[3, 2] = np.nan
    with pytest.raises(ValueError, match="X contains 1 NaN value"):
        fit_linear_svm(Xn, y)


def test_bad_loss_raises(small):
    X, y = small
    with pytest.raises(ValueError, match=r"loss must be one of \['hinge', 'squared_hinge'\], got 'log'"):
        fit_linear_svm(X, y, loss="log")


def test_primal_hinge_raises(small):
    X, y = small
    with pytest.raises(ValueError, match="method='primal' needs loss='squared_hinge'"):
        fit_linear_svm(X, y, loss="hinge", method="primal")


def test_bad_method_and_intercept_scaling_raise(small):
    X, y = small
    with pytest.raises(ValueError, match=r"method must be one of \['dual', 'primal'\], got 'smo'"):
        fit_linear_svm(X, y, method="smo")
    with pytest.raises(ValueError, match="intercept_scaling must be > 0.0, got 0"):
        fit_linear_svm(X, y, intercept_scaling=0)
    with pytest.raises(ValueError, match="max_iter must be >= 1, got 0"):
        fit_linear_svm(X, y, max_iter=0)


def test_three_classes_raise(small):
    X, y = small
    with pytest.raises(ValueError, match="y holds class code 2 but n_classes=2"):
        fit_linear_svm(X, np.arange(len(y)) % 3)


def test_params_type():
    assert LinearSVMParams._fields[:5] == ("coef", "intercept", "dual_coef", "n_iter", "converged")
