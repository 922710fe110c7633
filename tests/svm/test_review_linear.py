"""An independent review of the linear SVM as a user meets it: ``fit_linear_svm``, Platt's
sigmoid and ``LinearSVC`` beside scikit-learn's ``LinearSVC`` (LIBLINEAR) on awkward data
(x64 on, from the root conftest; float32 by passing float32 input).

References and tolerances:

* scikit-learn's ``LinearSVC`` with ``tol=1e-10``: LIBLINEAR's dual is then within ~1e-9 of
  the unique optimum (the primal is strongly convex), so coefficients agree at 1e-7 relative
  to the largest (1e-6 where the data are rank-deficient or the reference is LIBLINEAR's
  primal, whose stopping rule is relative to the first gradient).
* A hand-written Platt objective minimised by scipy, and scikit-learn's own sigmoid
  calibration (``sklearn.calibration._sigmoid_calibration``) on out-of-fold decision values of
  scikit-learn fits: Platt's Newton stops at gradient 1e-5, hence 1e-6 relative.
* The duality gap :math:`P - D \\ge 0`, 0 at the optimum.

Each ``# regression:`` test failed before the fix named in it.
"""

import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pandas as pd
import pytest
from scipy.optimize import minimize
from sklearn import svm as sk_svm
from sklearn.base import clone
from sklearn.calibration import _sigmoid_calibration
from sklearn.datasets import load_breast_cancer, load_digits
from sklearn.exceptions import NotFittedError
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm._classes import _validate_dual_parameter
from sklearn.utils.class_weight import compute_sample_weight

from jaxclassic import estimators as est
from jaxclassic.exceptions import ConvergenceWarning
from jaxclassic.svm import decision_function, fit_linear_svm, predict_proba
from jaxclassic.svm.linear import dual_objective, primal_objective
from jaxclassic.svm.platt import platt_scale

KEY = jax.random.key(0)
TIGHT = dict(tol=1e-10, max_iter=100_000)
SK_TIGHT = dict(tol=1e-10, max_iter=1_000_000)


@pytest.fixture(scope="module")
def small():
    """100 rows x 6 standardised columns of breast cancer (one compiled shape throughout)."""
    X, y = load_breast_cancer(return_X_y=True)
    return StandardScaler().fit_transform(X[:100, :6]), y[:100]


@pytest.fixture(scope="module")
def raw():
    """The same rows unscaled, then one column x 1e4 and one offset by 1e6."""
    X, y = load_breast_cancer(return_X_y=True)
    X = StandardScaler().fit_transform(X[:100, :6])
    X[:, 0] *= 1e4
    X[:, 1] += 1e6
    return X, y[:100]


@pytest.fixture(scope="module")
def digits():
    X, y = load_digits(return_X_y=True)
    return X[:200] / 16.0, y[:200]


def _rel(a, b):
    return np.max(np.abs(np.asarray(a) - np.asarray(b))) / np.max(np.abs(np.asarray(b)))


def _objective(coef, intercept, X, y, C=1.0):
    """The squared-hinge primal of scikit-learn's LinearSVC in float64, written out."""
    t = 2 * np.asarray(y) - 1
    w, b = np.ravel(coef).astype(np.float64), float(np.ravel(intercept)[0])
    f = np.asarray(X, np.float64) @ w + b
    return 0.5 * (w @ w + b * b) + C * np.sum(np.maximum(0, 1 - t * f) ** 2)


# --------------------------------------------------------------------------- findings
@pytest.mark.full
@pytest.mark.parametrize("C", [1e-5, 1e-3])
def test_primal_small_C_equals_sklearn(small, C):
    """regression: the primal stopped on |grad P| / sum s <= tol, which |grad P(0)| = 2C|sum t x|
    meets at w = 0 for a small C: LinearSVC(C=1e-5, dual=False) returned coef_ = 0 after 0
    iterations, silently (fixed: the rule is on |grad P| / (C sum s))."""
    X, y = small
    ref = sk_svm.LinearSVC(C=C, dual=True, **SK_TIGHT).fit(X, y)
    params = fit_linear_svm(X, y, C=C, method="primal")  # default tol 1e-8 (float64)
    assert int(params.n_iter) >= 1 and bool(params.converged)
    assert _rel(params.coef, ref.coef_[0]) < 1e-6
    model = est.LinearSVC(C=C, dual=False).fit(X, y)  # scikit-learn's default tol 1e-4
    assert _rel(model.coef_, ref.coef_) < 1e-3


@pytest.mark.full
@pytest.mark.parametrize("C", [1e4, 1e6])
def test_primal_large_C_at_default_tol_closes_the_gap(C):
    """regression (of the first fix, |grad P| / (C sum s) <= tol): at C = 1e4 on separable data
    that rule stopped with P 3x its minimum, converged=True. Now min(C, 1): the duality gap
    (a certificate: D(alpha) <= P* for any feasible alpha) closes at scikit-learn's tol."""
    X, y = load_breast_cancer(return_X_y=True)
    X, y = StandardScaler().fit_transform(X[:100]), y[:100]
    params = fit_linear_svm(X, y, C=C, method="primal", tol=1e-4)
    P, D = float(primal_objective(params, X, y, C=C)), float(dual_objective(params, X, y, C=C))
    # P >= D for any feasible alpha; the two sums agree to float64 rounding (1e-13 relative)
    assert bool(params.converged) and -1e-13 * P <= P - D <= 1e-8 * P
    ref = sk_svm.LinearSVC(C=C, dual=False, tol=1e-12, max_iter=100_000).fit(X, y)
    assert P <= _objective(ref.coef_, ref.intercept_, X, y, C=C) * (1 + 1e-8)


def test_primal_rule_invariant_to_weight_scale(small):
    """(C, s) and (C / k, k s) are the same problem; for C <= 1 the stopping rule must not tell
    them apart."""
    X, y = small
    a = fit_linear_svm(X, y, C=1.0, method="primal", tol=1e-4)
    b = fit_linear_svm(X, y, C=1e-3, method="primal", tol=1e-4, sample_weight=np.full(100, 1e3))
    assert int(a.n_iter) == int(b.n_iter)
    np.testing.assert_allclose(b.coef, a.coef, rtol=1e-9)


@pytest.mark.full
def test_traced_sign_labels_equal_codes(small):
    """regression: under jit, labels {-1, +1} were turned into 2y - 1 = {-3, +1} and the fit was
    silently wrong (fixed: signs from y > 0)."""
    X, y = small
    codes = fit_linear_svm(X, y, key=KEY)
    signs = jax.jit(lambda X, t: fit_linear_svm(X, t, key=KEY))(X, jnp.asarray(2 * y - 1))
    np.testing.assert_allclose(signs.coef, codes.coef, rtol=1e-12)
    np.testing.assert_allclose(signs.intercept, codes.intercept, rtol=1e-12)


@pytest.mark.full
@pytest.mark.parametrize("shape", [(5, 8), (8, 8), (12, 8)])
@pytest.mark.parametrize("loss", ["squared_hinge", "hinge"])
def test_dual_auto_follows_sklearn_rule(shape, loss):
    """regression (n_samples == n_features): scikit-learn takes the primal, we took the dual."""
    X = np.zeros(shape)
    expected = _validate_dual_parameter("auto", loss, "l2", "ovr", X)
    ours = est.LinearSVC(loss=loss, dual="auto")._method(*shape)
    assert ours == ("dual" if expected else "primal")


def test_random_state_instance_accepted(small):
    """regression: random_state=np.random.RandomState(0) raised TypeError in int()."""
    X, y = small
    ref = sk_svm.LinearSVC(**SK_TIGHT).fit(X, y)
    model = est.LinearSVC(random_state=np.random.RandomState(0), **TIGHT).fit(X, y)
    assert _rel(model.coef_, ref.coef_) < 1e-7


# --------------------------------------------------------------------------- awkward data
@pytest.mark.full
def test_badly_scaled_float32_primal_reaches_the_optimum(raw):
    """Raw columns (x1e4, +1e6) in float32: the primal reaches the objective of LIBLINEAR's
    float64 primal at tol 1e-12 (to 1e-6; measured 4e-13), where LIBLINEAR at its default tol
    stops well above it. The gradient test cannot be met in float32 on such columns: the fit
    says it stopped at the rounding floor."""
    X, y = raw
    X32 = X.astype(np.float32)
    X = X32.astype(np.float64)  # everyone sees the same (rounded) data
    best = sk_svm.LinearSVC(dual=False, tol=1e-12, max_iter=100_000).fit(X, y)
    P_best = _objective(best.coef_, best.intercept_, X, y)
    with pytest.warns(ConvergenceWarning, match=r"LinearSVC: stopped after \d+ iterations .*\(rounding floor"):
        ours = est.LinearSVC(dual=False).fit(X32, y)
    ref = sk_svm.LinearSVC(dual=False).fit(X32, y)
    P_ours, P_ref = _objective(ours.coef_, ours.intercept_, X, y), _objective(ref.coef_, ref.intercept_, X, y)
    assert ours.coef_.dtype == np.float32
    assert P_ours <= P_best * (1 + 1e-6) and P_ours < P_ref


def test_badly_scaled_dual_warns(raw):
    """Coordinate descent on raw columns crawls (LIBLINEAR's does too): it must say so."""
    X, y = raw
    with pytest.warns(ConvergenceWarning, match="LinearSVC: did not converge in 50 iterations"):
        est.LinearSVC(dual=True, max_iter=50).fit(X.astype(np.float32), y)


def test_pipeline_float32_badly_scaled_equals_sklearn(raw):
    X, y = raw
    X32 = X.astype(np.float32)
    ours = make_pipeline(StandardScaler(), est.LinearSVC()).fit(X32, y)
    ref = make_pipeline(StandardScaler(), sk_svm.LinearSVC(dual=True, **SK_TIGHT)).fit(X32, y)
    assert ours[-1].coef_.dtype == np.float32
    assert _rel(ours[-1].coef_, ref[-1].coef_) < 1e-3  # the default tol 1e-4 on the dual
    assert np.mean(ours.predict(X32) == ref.predict(X32)) == 1.0


@pytest.mark.full
@pytest.mark.parametrize("dual", [True, False])
def test_duplicated_columns_equal_sklearn(small, dual):
    X, y = small
    Xd = np.hstack([X, X])
    ours = est.LinearSVC(dual=dual, **TIGHT).fit(Xd, y)
    ref = sk_svm.LinearSVC(dual=True, **SK_TIGHT).fit(Xd, y)
    assert _rel(ours.coef_, ref.coef_) < 1e-6
    np.testing.assert_allclose(ours.coef_[0, :6], ours.coef_[0, 6:], rtol=1e-6)  # symmetric optimum


def test_constant_column_equals_sklearn(small):
    X, y = small
    Xc = np.hstack([X, np.full((100, 1), 3.0)])
    ours = est.LinearSVC(**TIGHT).fit(Xc, y)
    ref = sk_svm.LinearSVC(**SK_TIGHT).fit(Xc, y)
    assert _rel(ours.coef_, ref.coef_) < 1e-7
    np.testing.assert_allclose(ours.intercept_, ref.intercept_, rtol=1e-7)


@pytest.mark.full
def test_duplicate_rows_equal_weight_two(small):
    X, y = small
    rows = est.LinearSVC(dual=False, tol=1e-10).fit(np.vstack([X, X[:40]]), np.r_[y, y[:40]])
    w = np.r_[np.full(40, 2.0), np.ones(60)]
    weighted = est.LinearSVC(dual=False, tol=1e-10).fit(X, y, sample_weight=w)
    assert _rel(weighted.coef_, rows.coef_) < 1e-8


@pytest.mark.parametrize("loss, method", [("hinge", "dual"), ("squared_hinge", "dual"),
                                          ("squared_hinge", "primal")])
@pytest.mark.full
def test_separable_large_C_converges_with_closed_gap(small, loss, method):
    """C = 1e4 on separable data: converges, the duality gap closes, objective <= LIBLINEAR's."""
    X, y = small
    X = X.copy()
    X[:, 0] += 5 * (2 * y - 1)
    C = 1e4
    params = fit_linear_svm(X, y, C=C, loss=loss, method=method, key=KEY, **TIGHT)
    kw = dict(C=C, loss=loss)
    P, D = float(primal_objective(params, X, y, **kw)), float(dual_objective(params, X, y, **kw))
    assert bool(params.converged)
    assert -1e-12 * P <= P - D <= 1e-8 * P
    ref = sk_svm.LinearSVC(C=C, loss=loss, dual=True, **SK_TIGHT).fit(X, y)
    P_ref = float(primal_objective(params._replace(coef=jnp.asarray(ref.coef_[0]),
                                                   intercept=jnp.asarray(ref.intercept_[0])), X, y, **kw))
    assert P <= P_ref * (1 + 1e-8)


@pytest.mark.full
def test_int_pandas_and_string_labels_equal_sklearn(small):
    X, y = small
    Xi = np.round(X * 10).astype(int)
    frame = pd.DataFrame(Xi, columns=[f"c{j}" for j in range(6)])
    labels = pd.Series(np.array(["benign", "malignant"])[y])
    ours = est.LinearSVC(**TIGHT).fit(frame, labels)
    ref = sk_svm.LinearSVC(**SK_TIGHT).fit(frame, labels)
    assert ours.coef_.dtype == np.float64
    np.testing.assert_array_equal(ours.feature_names_in_, ref.feature_names_in_)
    np.testing.assert_array_equal(ours.classes_, ref.classes_)
    assert _rel(ours.coef_, ref.coef_) < 1e-7
    np.testing.assert_array_equal(ours.predict(frame), ref.predict(frame))


@pytest.mark.full
def test_imbalanced_and_balanced_weights_equal_sklearn_class_weight(small):
    """sample_weight = compute_sample_weight("balanced") is the same problem as scikit-learn's
    class_weight="balanced" (both rescale C row by row); so is our own class_weight="balanced"."""
    X, y = small
    idx = np.r_[np.flatnonzero(y == 0)[:10], np.flatnonzero(y == 1)]
    X, y = X[idx], y[idx]
    ref = sk_svm.LinearSVC(class_weight="balanced", **SK_TIGHT).fit(X, y)
    ours = est.LinearSVC(**TIGHT).fit(X, y, sample_weight=compute_sample_weight("balanced", y))
    # LIBLINEAR's weighted fit lands 1e-6 off in the intercept; ours is at the optimum
    # (duality gap ~1e-16), its objective 6e-15 lower
    assert _rel(ours.coef_, ref.coef_) < 1e-6
    np.testing.assert_allclose(ours.intercept_, ref.intercept_, rtol=1e-5)
    balanced = est.LinearSVC(class_weight="balanced", **TIGHT).fit(X, y)
    np.testing.assert_allclose(balanced.coef_, ours.coef_, rtol=1e-10)


# --------------------------------------------------------------------------- multiclass & API
@pytest.mark.full
def test_digits_one_vs_rest_equals_sklearn_and_zero_weight_is_removal(digits):
    X, y = digits
    ours = est.LinearSVC(C=0.1, **TIGHT).fit(X, y)
    ref = sk_svm.LinearSVC(C=0.1, dual=True, **SK_TIGHT).fit(X, y)
    assert ours.decision_function(X).shape == ref.decision_function(X).shape == (200, 10)
    assert _rel(ours.coef_, ref.coef_) < 1e-7
    np.testing.assert_allclose(ours.decision_function(X), ref.decision_function(X), rtol=1e-6, atol=1e-8)
    np.testing.assert_array_equal(ours.predict(X), ref.predict(X))
    keep = np.arange(200) % 4 != 0
    zero = est.LinearSVC(C=0.1, **TIGHT).fit(X, y, sample_weight=keep.astype(float))
    sliced = est.LinearSVC(C=0.1, **TIGHT).fit(X[keep], y[keep])
    assert _rel(zero.coef_, sliced.coef_) < 1e-7


@pytest.mark.full
def test_grid_search_over_C_equals_sklearn(digits):
    X, y = digits
    grid = {"C": [0.01, 0.1, 1.0]}
    ours = GridSearchCV(est.LinearSVC(), grid, cv=3).fit(X, y)
    ref = GridSearchCV(sk_svm.LinearSVC(dual=True), grid, cv=3).fit(X, y)
    assert ours.best_params_ == ref.best_params_
    np.testing.assert_allclose(ours.cv_results_["mean_test_score"], ref.cv_results_["mean_test_score"])


def test_binary_decision_shape_clone_refit_and_unfitted(small):
    X, y = small
    model = est.LinearSVC(C=0.5)
    with pytest.raises(NotFittedError):
        model.predict(X)
    twin = clone(model).set_params(C=2.0)
    assert twin.get_params()["C"] == 2.0 and model.get_params()["C"] == 0.5
    model.fit(X, y)
    ref = sk_svm.LinearSVC(C=0.5).fit(X, y)
    assert model.decision_function(X).shape == ref.decision_function(X).shape == (100,)
    model.fit(X[:, :4], y)  # refit on another number of features
    assert model.coef_.shape == (1, 4) and model.n_features_in_ == 4
    with pytest.raises(ValueError, match="X has 6 features, but LinearSVC is expecting 4"):
        model.predict(X)


@pytest.mark.full
def test_max_iter_warns_once(digits):
    X, y = digits
    for Xy in ((X, y), (X, (y > 4).astype(int))):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            est.LinearSVC(max_iter=2).fit(*Xy)
        messages = [str(w.message) for w in caught if issubclass(w.category, ConvergenceWarning)]
        assert messages == ["LinearSVC: did not converge in 2 iterations; increase max_iter or loosen tol"]


def test_hinge_primal_refused_as_sklearn(small):
    X, y = small
    with pytest.raises(ValueError, match="loss=.hinge. are not supported when dual=False"):
        sk_svm.LinearSVC(loss="hinge", dual=False).fit(X, y)
    with pytest.raises(ValueError, match="loss='hinge' is not supported with dual=False"):
        est.LinearSVC(loss="hinge", dual=False).fit(X, y)
    with pytest.raises(ValueError, match="method='primal' needs loss='squared_hinge'"):
        fit_linear_svm(X, y, loss="hinge", method="primal")


# --------------------------------------------------------------------------- Platt
def _platt_by_hand(f, y, s):
    """Platt's regularised-target likelihood written out, minimised by scipy's BFGS."""
    n_pos, n_neg = s[y > 0].sum(), s[y <= 0].sum()
    target = np.where(y > 0, (n_pos + 1) / (n_pos + 2), 1 / (n_neg + 2))

    def nll(ab):  # -sum s [t log p + (1 - t) log(1 - p)], p = 1 / (1 + e^{Af + B})
        z = ab[0] * f + ab[1]
        return np.sum(s * (np.logaddexp(0, z) - (1 - target) * z))

    return minimize(nll, [0.0, 0.0], method="BFGS", options=dict(gtol=1e-12)).x


def test_platt_scale_equals_hand_likelihood_weighted_and_repeated():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 60)
    f = 0.8 * (2 * y - 1) + rng.normal(size=60)
    s = rng.integers(0, 4, 60).astype(float)
    A, B = platt_scale(f, y, s)
    np.testing.assert_allclose([A, B], _platt_by_hand(f, y, s), rtol=1e-6, atol=1e-7)
    reps = s.astype(int)
    np.testing.assert_allclose(platt_scale(np.repeat(f, reps), np.repeat(y, reps)), [A, B], rtol=1e-9)


@pytest.mark.full
def test_probability_equals_sklearn_folds_and_sigmoid(small):
    """probability=True (no key: 5 contiguous folds) == scikit-learn fits on the same folds,
    scikit-learn's Platt sigmoid on their out-of-fold decision values, and P(y=1 | f) by hand."""
    X, y = small
    params = fit_linear_svm(X, y, C=0.5, probability=True, **TIGHT)
    folds = np.arange(100) * 5 // 100
    oof = np.empty(100)
    for k in range(5):
        ref = sk_svm.LinearSVC(C=0.5, **SK_TIGHT).fit(X[folds != k], y[folds != k])
        oof[folds == k] = ref.decision_function(X[folds == k])
    A, B = _sigmoid_calibration(oof, y)
    np.testing.assert_allclose([params.probA, params.probB], [A, B], rtol=1e-6, atol=1e-8)
    f = np.asarray(decision_function(params, X))
    proba = np.asarray(predict_proba(params, X))
    np.testing.assert_allclose(proba[:, 1], 1 / (1 + np.exp(A * f + B)), rtol=1e-6)
    np.testing.assert_allclose(proba.sum(axis=1), 1, rtol=1e-12)
