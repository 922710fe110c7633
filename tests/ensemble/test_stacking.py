"""Stacking of any fits (jaxclassic.ensemble.stacking) against scikit-learn's
StackingClassifier / StackingRegressor (x64 on).

Both sides get the same folds: ours as the (K, n) 0/1 training-weight matrix of
``model_selection.kfold_weights``, scikit-learn's as the list of (train, test) index pairs of
the same folds. The bases and meta-models are twins that agree with scikit-learn to the
solver's precision: our logistic / softmax (l2 = 1/C, tol 1e-12) vs LogisticRegression(C,
tol=1e-12), our LDA vs LinearDiscriminantAnalysis, our ridge / OLS vs Ridge /
LinearRegression. Tolerances: out-of-fold meta-features (vs ``cross_val_predict``) and
``transform`` 1e-8, final probabilities / decisions / values 1e-6, predictions exact.
"""

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxclassic import discriminant, ensemble, linear
from jaxclassic.ensemble.stacking import default_folds, fit_stacking, meta_features
from jaxclassic.model_selection import kfold_weights

N = 80
RNG = np.random.default_rng(0)
X = RNG.normal(size=(N, 3))
Y2 = (X @ np.array([1.0, -1.0, 0.5]) + RNG.normal(size=N) > 0).astype(np.int32)
Y3 = np.digitize(X @ np.array([1.0, 0.5, -0.5]) + 0.7 * RNG.normal(size=N), [-0.6, 0.6]).astype(np.int32)
Y_REG = X @ np.array([1.0, -2.0, 0.5]) + X[:, 0] ** 2 + 0.3 * RNG.normal(size=N)
FOLDS = np.asarray(kfold_weights(N, 4, key=jax.random.key(0)))
CV = [(np.flatnonzero(f == 1), np.flatnonzero(f == 0)) for f in FOLDS]

logistic = functools.partial(linear.fit_logistic, l2=1.0, tol=1e-12)
logistic_10 = functools.partial(linear.fit_logistic, l2=0.1, tol=1e-12)
softmax = functools.partial(linear.fit_softmax, l2=1.0, tol=1e-12)


def sk_logistic(C=1.0):
    from sklearn.linear_model import LogisticRegression

    return LogisticRegression(C=C, tol=1e-12, max_iter=10000)


def sk_lda():
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

    return LinearDiscriminantAnalysis()


def _oob(estimators, y, method, drop_first=False):
    from sklearn.model_selection import cross_val_predict

    cols = []
    for est in estimators:
        out = cross_val_predict(est, X, y, cv=CV, method=method)
        out = out[:, 1:] if drop_first else out
        cols.append(out.reshape(N, -1))
    return np.hstack(cols)


@pytest.fixture(scope="module")
def binary():
    return fit_stacking([logistic, discriminant.fit_lda], logistic, X, Y2, folds=FOLDS)


@pytest.mark.full
def test_binary_probabilities_stack_equals_sklearn(binary):
    from sklearn.ensemble import StackingClassifier

    sk = StackingClassifier([("logistic", sk_logistic()), ("lda", sk_lda())], final_estimator=sk_logistic(),
                            cv=CV).fit(X, Y2)
    # binary predict_proba: the positive column only (scikit-learn drops the collinear first one)
    np.testing.assert_allclose(binary.oob_features, _oob([sk_logistic(), sk_lda()], Y2, "predict_proba", True),
                               atol=1e-8)
    np.testing.assert_allclose(meta_features(binary, X), sk.transform(X), atol=1e-8)
    np.testing.assert_array_equal(ensemble.predict(binary, X), sk.predict(X))
    np.testing.assert_allclose(ensemble.predict_proba(binary, X), sk.predict_proba(X), atol=1e-6)
    np.testing.assert_allclose(ensemble.decision_function(binary, X), sk.decision_function(X), atol=1e-6)


@pytest.mark.full
def test_multiclass_with_passthrough_equals_sklearn():
    from sklearn.ensemble import StackingClassifier

    params = fit_stacking([softmax, discriminant.fit_lda], softmax, X, Y3, folds=FOLDS, passthrough=True)
    sk = StackingClassifier([("softmax", sk_logistic()), ("lda", sk_lda())], final_estimator=sk_logistic(),
                            cv=CV, passthrough=True).fit(X, Y3)
    expected = np.hstack([_oob([sk_logistic(), sk_lda()], Y3, "predict_proba"), X])
    assert params.oob_features.shape == (N, 3 + 3 + 3)
    np.testing.assert_allclose(params.oob_features, expected, atol=1e-8)
    np.testing.assert_allclose(meta_features(params, X), sk.transform(X), atol=1e-8)
    np.testing.assert_array_equal(ensemble.predict(params, X), sk.predict(X))
    np.testing.assert_allclose(ensemble.predict_proba(params, X), sk.predict_proba(X), atol=1e-6)


@pytest.mark.full
def test_decision_function_stack_equals_sklearn():
    from sklearn.ensemble import StackingClassifier

    params = fit_stacking([logistic, logistic_10], logistic, X, Y2, folds=FOLDS, stack_method="decision_function")
    sk = StackingClassifier([("a", sk_logistic()), ("b", sk_logistic(10.0))], final_estimator=sk_logistic(),
                            cv=CV, stack_method="decision_function").fit(X, Y2)
    np.testing.assert_allclose(params.oob_features, _oob([sk_logistic(), sk_logistic(10.0)], Y2,
                                                         "decision_function"), atol=1e-8)
    np.testing.assert_allclose(ensemble.predict_proba(params, X), sk.predict_proba(X), atol=1e-6)


@pytest.mark.full
def test_predict_stack_equals_sklearn():
    from sklearn.ensemble import StackingClassifier

    params = fit_stacking([logistic, discriminant.fit_lda], logistic, X, Y2, folds=FOLDS, stack_method="predict")
    sk = StackingClassifier([("logistic", sk_logistic()), ("lda", sk_lda())], final_estimator=sk_logistic(),
                            cv=CV, stack_method="predict").fit(X, Y2)
    np.testing.assert_array_equal(params.oob_features, _oob([sk_logistic(), sk_lda()], Y2, "predict"))
    np.testing.assert_allclose(ensemble.predict_proba(params, X), sk.predict_proba(X), atol=1e-6)


@pytest.mark.full
def test_regression_equals_sklearn():
    from sklearn.ensemble import StackingRegressor
    from sklearn.linear_model import LinearRegression, Ridge

    ridge = functools.partial(linear.fit_ridge, alpha=3.0)
    params = fit_stacking([ridge, linear.fit_ols], functools.partial(linear.fit_ridge, alpha=0.5), X, Y_REG,
                          folds=FOLDS, task="regression")
    sk = StackingRegressor([("ridge", Ridge(alpha=3.0)), ("ols", LinearRegression())],
                           final_estimator=Ridge(alpha=0.5), cv=CV).fit(X, Y_REG)
    np.testing.assert_allclose(params.oob_features, _oob([Ridge(alpha=3.0), LinearRegression()], Y_REG, "predict"),
                               atol=1e-8)
    np.testing.assert_allclose(meta_features(params, X), sk.transform(X), atol=1e-8)
    np.testing.assert_allclose(ensemble.predict(params, X), sk.predict(X), atol=1e-6)


@pytest.mark.full
def test_zero_weight_rows_with_given_folds_have_no_influence(binary):
    # 7 rows of weight 0 interleaved, with arbitrary 0/1 fold weights: same fit on the real rows
    n_pad = 7
    where = np.sort(RNG.choice(N + n_pad, n_pad, replace=False))
    real = np.setdiff1d(np.arange(N + n_pad), where)
    Xp = np.empty((N + n_pad, 3)); Xp[real] = X; Xp[where] = 5 * RNG.normal(size=(n_pad, 3))
    yp = np.empty(N + n_pad, np.int32); yp[real] = Y2; yp[where] = RNG.integers(0, 2, n_pad)
    folds = np.empty((4, N + n_pad)); folds[:, real] = FOLDS; folds[:, where] = RNG.integers(0, 2, (4, n_pad))
    sw = np.ones(N + n_pad); sw[where] = 0.0
    padded = fit_stacking([logistic, discriminant.fit_lda], logistic, Xp, yp, folds=folds, sample_weight=sw)
    np.testing.assert_allclose(np.asarray(padded.oob_features)[real], binary.oob_features, atol=1e-10)
    np.testing.assert_allclose(ensemble.predict_proba(padded, X), ensemble.predict_proba(binary, X), atol=1e-10)


def test_default_folds_are_kfold_blocks_of_the_positive_rows():
    np.testing.assert_array_equal(default_folds(np.ones(N), 4), kfold_weights(N, 4))
    sw = np.ones(N + 3); sw[[0, 10, 40]] = 0.0
    folds = np.asarray(default_folds(sw, 4, key=jax.random.key(1)))
    np.testing.assert_array_equal(folds[:, sw > 0], default_folds(np.ones(N), 4, key=jax.random.key(1)))
    assert (folds[:, sw == 0] == 1).all()


@pytest.mark.full
def test_default_folds_fit_equals_given_kfold_folds():
    ours = fit_stacking([discriminant.fit_lda], logistic, X, Y2, n_splits=4)
    given = fit_stacking([discriminant.fit_lda], logistic, X, Y2, folds=kfold_weights(N, 4))
    np.testing.assert_array_equal(ours.oob_features, given.oob_features)


def test_n_folds_is_a_deprecated_spelling_of_n_splits():
    # issue 27: scikit-learn's name for the number of folds is n_splits
    with pytest.warns(DeprecationWarning, match=r"fit_stacking\(n_splits=\)"):
        old = fit_stacking([discriminant.fit_lda], logistic, X, Y2, n_folds=4)
    new = fit_stacking([discriminant.fit_lda], logistic, X, Y2, n_splits=4)
    np.testing.assert_array_equal(old.oob_features, new.oob_features)
    np.testing.assert_array_equal(ensemble.predict(old, X), ensemble.predict(new, X))


def test_classification_stacking_reports_n_classes(binary):
    assert binary.n_classes == 2 and isinstance(binary.n_classes, int)


@pytest.mark.full
def test_jit_equals_eager(binary):
    np.testing.assert_array_equal(jax.jit(ensemble.predict)(binary, X), ensemble.predict(binary, X))
    np.testing.assert_allclose(jax.jit(ensemble.predict_proba)(binary, X), ensemble.predict_proba(binary, X),
                               rtol=1e-12, atol=1e-15)


# --------------------------------------------------------------------------- bad input
def test_empty_base_fits_raise():
    with pytest.raises(ValueError, match="base_fits must hold at least one fit"):
        fit_stacking([], logistic, X, Y2)


def test_meta_fit_not_callable_raises():
    with pytest.raises(TypeError, match="meta_fit must be a callable"):
        fit_stacking([logistic], None, X, Y2)


def test_unknown_stack_method_raises():
    with pytest.raises(ValueError, match=r"stack_method must be one of \['auto', 'predict_proba', "
                                         r"'decision_function', 'predict'\], got 'proba'"):
        fit_stacking([logistic], logistic, X, Y2, stack_method="proba")


@pytest.mark.full
def test_stack_method_the_base_lacks_raises():
    with pytest.raises(ValueError, match=r"stack_method='predict_proba': base_fits\[0\] returns PerceptronParams"):
        fit_stacking([linear.fit_perceptron], logistic, X, Y2, folds=FOLDS, stack_method="predict_proba")


def test_folds_not_zero_one_raise():
    with pytest.raises(ValueError, match=r"folds must hold only 0 \(held out\) and 1 \(trained on\)"):
        fit_stacking([logistic], logistic, X, Y2, folds=FOLDS * 0.5)


def test_folds_of_wrong_shape_raise():
    with pytest.raises(ValueError, match=r"folds must have shape \(K >= 2, 80\).*got \(4, 79\)"):
        fit_stacking([logistic], logistic, X, Y2, folds=FOLDS[:, 1:])


def test_folds_holding_a_row_out_twice_raise():
    folds = FOLDS.copy()
    folds[:, 3] = 0
    with pytest.raises(ValueError, match="row 3 is held out of 4"):
        fit_stacking([logistic], logistic, X, Y2, folds=folds)


def test_n_splits_below_two_raises():
    with pytest.raises(ValueError, match="n_splits must be >= 2, got 1"):
        fit_stacking([logistic], logistic, X, Y2, n_splits=1)


def test_one_class_raises():
    with pytest.raises(ValueError, match="y must contain at least 2 classes"):
        fit_stacking([logistic], logistic, X, np.zeros(N, np.int32))
