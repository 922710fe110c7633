"""scikit-learn parameter parity: each estimator named like a reference class accepts that
class's constructor parameters, or ``jaxclassic.estimators._parity.PARAMETER_GAPS`` says why not.

The signature test is pure introspection (no fit, no compile). The behaviour tests below fit
the parameters added for parity on one small dataset each and compare with the reference
fitted with the same parameter.
"""

import importlib
import inspect

import jax
import numpy as np
import pytest

pytest.importorskip("sklearn")

from sklearn.utils import all_estimators  # noqa: E402

import jaxclassic.estimators as est  # noqa: E402
from jaxclassic.estimators._parity import PARAMETER_GAPS, REFERENCE_CLASSES  # noqa: E402

_SKLEARN = dict(all_estimators())


def _our_classes():
    return {name: getattr(est, name) for name in est.__all__ if isinstance(getattr(est, name), type)}


def _reference(name):
    """The reference class of our class ``name``: scikit-learn's class of that name, else the
    explicit mapping of ``REFERENCE_CLASSES`` (None when the reference is not installed)."""
    if name in _SKLEARN:
        return _SKLEARN[name]
    if name in REFERENCE_CLASSES:
        module, _, attr = REFERENCE_CLASSES[name].rpartition(".")
        try:
            return getattr(importlib.import_module(module), attr)
        except ImportError:
            return None
    return None


def _parameters(cls):
    return {
        p.name for p in inspect.signature(cls.__init__).parameters.values()
        if p.name != "self" and p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)
    }


_PAIRS = sorted(name for name in _our_classes() if name in _SKLEARN or name in REFERENCE_CLASSES)


def test_the_reference_mapping_names_only_our_classes_without_a_same_named_sklearn_class():
    ours = _our_classes()
    for name in REFERENCE_CLASSES:
        assert name in ours, f"REFERENCE_CLASSES names {name}, not a class of jaxclassic.estimators"
        assert name not in _SKLEARN, f"{name} has a same-named scikit-learn class; drop the mapping"
    assert len(_PAIRS) >= 37  # 33 same-named scikit-learn classes, 2 XGBoost-style, 2 HMMs


@pytest.mark.parametrize("name", _PAIRS)
def test_every_reference_parameter_is_accepted_or_listed_with_a_reason(name):
    reference = _reference(name)
    if reference is None:
        pytest.skip(f"reference of {name} ({REFERENCE_CLASSES.get(name)}) not installed")
    theirs = _parameters(reference)
    ours = _parameters(getattr(est, name))
    listed = {param for (cls, param) in PARAMETER_GAPS if cls == name}
    missing = sorted(theirs - ours - listed)
    assert not missing, (f"{name} lacks {reference.__module__}.{reference.__name__}'s parameters "
                         f"{missing}: accept them or list them in PARAMETER_GAPS with a reason")
    stale = sorted(listed & ours)
    assert not stale, f"PARAMETER_GAPS lists {name}.{stale}, which {name} now accepts: drop them"
    unknown = sorted(listed - theirs)
    assert not unknown, (f"PARAMETER_GAPS lists {name}.{unknown}, which "
                         f"{reference.__name__} does not have")


def test_every_gap_names_a_class_with_a_reference_and_gives_a_reason():
    for (name, param), reason in PARAMETER_GAPS.items():
        assert name in _PAIRS, f"PARAMETER_GAPS names {name}, which has no reference class"
        assert isinstance(reason, str) and len(reason.split()) >= 3, (name, param, reason)


# --------------------------------------------------------------------------- behaviour
# One dataset shape for every fit below (60 rows x 4 features, padded to the 64-row bucket),
# float64 (the estimators compute float64 input in float64), so each family compiles once.
_N, _D = 60, 4


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(_N, _D))
    # imbalanced binary labels (about 1 in 4 positive), a 3-class label and a regression target
    # with one negative coefficient (so positive=True binds)
    y_bin = (X[:, 0] + 0.5 * X[:, 1] + 0.5 * rng.normal(size=_N) > 0.8).astype(int)
    y_multi = np.digitize(X[:, 0] + 0.3 * rng.normal(size=_N), [-0.5, 0.7])
    y_reg = X @ np.array([1.5, -2.0, 0.0, 0.5]) + 0.3 * rng.normal(size=_N)
    return X, y_bin, y_multi, y_reg


@pytest.mark.full
@pytest.mark.parametrize("class_weight", ["balanced", {0: 1.0, 1: 3.0}])
def test_logistic_class_weight_equals_sklearn(data, class_weight):
    from sklearn.linear_model import LogisticRegression as SkLogistic

    X, y, _, _ = data
    ours = est.LogisticRegression(C=0.5, class_weight=class_weight, tol=1e-10).fit(X, y)
    ref = SkLogistic(C=0.5, class_weight=class_weight, solver="newton-cholesky", tol=1e-12).fit(X, y)
    # both solve the same strictly convex problem to a gradient norm ~1e-10: coefficients agree
    # to the conditioning of the Hessian times that (float64)
    np.testing.assert_allclose(ours.coef_, ref.coef_, atol=1e-7)
    np.testing.assert_allclose(ours.intercept_, ref.intercept_, atol=1e-7)
    plain = est.LogisticRegression(C=0.5, tol=1e-10).fit(X, y)
    assert np.abs(ours.coef_ - plain.coef_).max() > 1e-2  # the weights did something


def test_class_weight_bad_values_are_errors(data):
    X, y, _, _ = data
    with pytest.raises(ValueError, match="class_weight must be 'balanced', a dict or None, got 'even'"):
        est.LogisticRegression(class_weight="even").fit(X, y)
    with pytest.raises(TypeError, match=r"class_weight must be 'balanced', a dict or None, got \[1, 2\]"):
        est.LogisticRegression(class_weight=[1, 2]).fit(X, y)
    with pytest.raises(ValueError, match="class_weight values must be finite and >= 0"):
        est.LogisticRegression(class_weight={0: 1.0, 1: -2.0}).fit(X, y)


@pytest.mark.full
def test_lasso_positive_equals_sklearn(data):
    from sklearn.linear_model import Lasso as SkLasso

    X, _, _, y = data
    # max_iter=10000: the compiled program of LinearRegression(positive=True) below
    ours = est.Lasso(alpha=0.05, positive=True, tol=1e-12, max_iter=10000).fit(X, y)
    ref = SkLasso(alpha=0.05, positive=True, tol=1e-12, max_iter=5000).fit(X, y)
    # the same strictly convex problem solved to a duality gap of 1e-12 (relative): 1e-7
    np.testing.assert_allclose(ours.coef_, ref.coef_, atol=1e-7)
    np.testing.assert_allclose(ours.intercept_, ref.intercept_, atol=1e-7)
    assert (ours.coef_ >= 0).all() and ours.coef_[1] == 0.0  # the negative coefficient is cut
    # a second fit in the same bucket reuses the compiled program (no retrace)
    from jaxclassic.linear.lasso import _fit_lasso

    before = _fit_lasso._cache_size()
    est.Lasso(alpha=0.07, positive=True, tol=1e-12, max_iter=10000).fit(X[:-3], y[:-3])
    assert _fit_lasso._cache_size() == before
    # weight-0 rows have no influence on the constrained fit either
    w = np.r_[np.ones(_N - 10), np.zeros(10)]
    weighted = est.Lasso(alpha=0.05, positive=True, tol=1e-12, max_iter=10000).fit(X, y, w)
    head = SkLasso(alpha=0.05, positive=True, tol=1e-12, max_iter=5000).fit(X[:-10], y[:-10])
    np.testing.assert_allclose(weighted.coef_, head.coef_, atol=1e-7)


@pytest.mark.full
def test_positive_lasso_derivative_in_alpha_is_the_hand_derivation(data):
    # on the active set A (all coefficients > 0), beta_A solves G_AA beta_A = c_A - alpha 1, so
    # d beta_A / d alpha = -G_AA^{-1} 1 (G, c: the centred Gram form / n); 0 off the support
    from jaxclassic.linear import fit_lasso

    X, _, _, y = data
    with jax.enable_x64(True):
        fit = lambda a: fit_lasso(X, y, alpha=a, positive=True, tol=1e-14, max_iter=10000).coef  # noqa: E731
        coef = np.asarray(fit(0.05))
        grad = np.asarray(jax.jacfwd(fit)(0.05))
    active = coef > 0
    Xc = X - X.mean(0)
    G = Xc.T @ Xc / _N
    expected = np.zeros(_D)
    expected[active] = -np.linalg.solve(G[np.ix_(active, active)], np.ones(active.sum()))
    assert active.sum() == 2 and not active[1]  # features 0 and 3
    np.testing.assert_allclose(grad, expected, atol=1e-8)  # float64, converged to 1e-14


def test_lasso_warm_start_reuses_the_previous_coefficients(data):
    from sklearn.linear_model import Lasso as SkLasso

    X, _, _, y = data
    cold = est.Lasso(alpha=0.05, tol=1e-10).fit(X, y)
    warm = est.Lasso(alpha=0.06, tol=1e-10, warm_start=True).fit(X, y)
    warm.set_params(alpha=0.05).fit(X, y)
    ref = SkLasso(alpha=0.05, tol=1e-10).fit(X, y)
    np.testing.assert_allclose(warm.coef_, ref.coef_, atol=1e-7)
    # starting next to the optimum takes fewer sweeps than starting from zero
    assert warm.n_iter_ < cold.n_iter_


@pytest.mark.full
def test_lda_shrinkage_auto_equals_sklearn(data):
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis as SkLDA

    X, _, y, _ = data
    Xs = X * np.array([1.0, 5.0, 0.2, 1.0])  # unequal scales: standardisation matters
    ours = est.LinearDiscriminantAnalysis(shrinkage="auto").fit(Xs, y)
    ref = SkLDA(solver="lsqr", shrinkage="auto").fit(Xs, y)
    # closed forms on the same statistics (float64): rounding only
    np.testing.assert_allclose(ours.covariance_, ref.covariance_, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(ours.predict_proba(Xs), ref.predict_proba(Xs), atol=1e-10)
    plain = est.LinearDiscriminantAnalysis().fit(Xs, y)
    assert np.abs(plain.covariance_ - ours.covariance_).max() > 1e-3  # it did shrink


def test_lda_transform_equals_sklearn_eigen_up_to_sign_and_shift(data):
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis as SkLDA

    X, _, y, _ = data
    ours = est.LinearDiscriminantAnalysis(n_components=2).fit(X, y)
    ref = SkLDA(solver="eigen", n_components=2).fit(X, y)
    Z, R = ours.transform(X), ref.transform(X)
    assert Z.shape == (_N, 2)
    # scikit-learn's eigen solver projects X, ours X - xbar_ (a shift per component); the
    # directions are eigenvectors, so each column agrees up to its sign (float64 rounding)
    R = R - R.mean(0)
    signs = np.sign(np.sum(Z * R, axis=0))
    np.testing.assert_allclose(Z * signs, R + Z.mean(0) * signs, atol=1e-9)
    np.testing.assert_allclose(ours.explained_variance_ratio_, ref.explained_variance_ratio_, atol=1e-12)
    assert ours.fit_transform(X, y).shape == (_N, 2)
    assert list(ours.get_feature_names_out()) == ["lineardiscriminantanalysis0",
                                                  "lineardiscriminantanalysis1"]


def test_lda_n_components_too_large_is_an_error(data):
    X, _, y, _ = data
    with pytest.raises(ValueError, match=r"n_components cannot be larger than min\(n_features, "
                                         r"n_classes - 1\) = 2, got 3"):
        est.LinearDiscriminantAnalysis(n_components=3).fit(X, y)
    with pytest.raises(ValueError, match="n_components must be an int >= 1 or None, got 0"):
        est.LinearDiscriminantAnalysis(n_components=0).fit(X, y)


# full-batch (batch_size covers the 64-row bucket), constant step: gradient descent on the
# strongly convex objective, so it converges to its minimiser, the ridge solution
_GD = dict(learning_rate="constant", eta0=0.2, batch_size=64, max_iter=1500, random_state=0)


def test_sgd_regressor_sklearn_names_reach_the_ridge_fixed_point(data):
    from sklearn.linear_model import Ridge as SkRidge
    from sklearn.linear_model import SGDRegressor as SkSGD

    X, _, _, y = data
    ours = est.SGDRegressor(penalty="l2", alpha=0.1, **_GD).fit(X, y)
    # mean squared loss / 2 + alpha/2 ||b||^2 has the minimiser of Ridge(alpha = alpha * n);
    # 1500 full-batch steps of 0.2 on a problem of condition ~3: converged to rounding
    ridge = SkRidge(alpha=0.1 * _N).fit(X, y)
    np.testing.assert_allclose(ours.coef_, ridge.coef_, atol=1e-8)
    np.testing.assert_allclose(ours.intercept_, ridge.intercept_, atol=1e-8)
    # scikit-learn's SGDRegressor, same objective and alpha, one row per step with a small
    # constant step: within its own SGD noise of the same optimum
    sk = SkSGD(alpha=0.1, learning_rate="constant", eta0=0.002, max_iter=2000, tol=None,
               random_state=0).fit(X, y)
    np.testing.assert_allclose(ours.coef_, sk.coef_, atol=0.05)


def test_sgd_regressor_penalty_none_and_earlier_names(data):
    X, _, _, y = data
    none = est.SGDRegressor(penalty=None, alpha=0.1, **_GD).fit(X, y)
    lstsq = np.linalg.lstsq(np.c_[X, np.ones(_N)], y, rcond=None)[0]
    np.testing.assert_allclose(none.coef_, lstsq[:-1], atol=1e-8)
    # the earlier names (learning_rate as the step, schedule, n_epochs, l2) give the same fit
    new = est.SGDRegressor(alpha=0.1, **_GD).fit(X, y)
    old = est.SGDRegressor(learning_rate=0.2, schedule="constant", n_epochs=1500, l2=0.1,
                           batch_size=64, random_state=0).fit(X, y)
    np.testing.assert_array_equal(new.coef_, old.coef_)


@pytest.mark.parametrize("params, message", [
    (dict(loss="huber"), "loss must be 'squared_error' (the only loss implemented), got 'huber'"),
    (dict(penalty="l1"), "penalty must be 'l2' or None (L1 / elastic-net are not implemented), got 'l1'"),
    (dict(learning_rate="optimal"), "learning_rate must be one of ['invscaling', 'constant', 'cosine'] "
                                    "or a float (the step eta0), got 'optimal'"),
    (dict(eta0=0.0), "eta0 must be > 0, got 0.0"),
    (dict(alpha=-1.0), "alpha must be >= 0, got -1.0"),
    (dict(max_iter=0), "max_iter must be >= 1, got 0"),
])
def test_sgd_regressor_bad_parameters(data, params, message):
    import re

    X, _, _, y = data
    with pytest.raises(ValueError, match=re.escape(message)):
        est.SGDRegressor(**params).fit(X, y)


@pytest.mark.full
@pytest.mark.parametrize("class_weight", ["balanced", {0: 1.0, 1: 4.0}])
def test_decision_tree_class_weight_equals_sklearn(data, class_weight):
    from sklearn.tree import DecisionTreeClassifier as SkTree

    X, y, _, _ = data
    ours = est.DecisionTreeClassifier(max_depth=2, class_weight=class_weight).fit(X, y)
    ref = SkTree(max_depth=2, class_weight=class_weight, random_state=0).fit(X, y)
    # 60 distinct values per feature <= 255 bins: the binning is exact, so the splits are
    # scikit-learn's (thresholds may differ inside the same gap between training values:
    # compared on the training rows) and the leaf class fractions carry the same weights.
    # Depth 2: at depth 3 with "balanced", two splits tie exactly in weighted impurity
    # (8.229273 both) and each library keeps a different one
    np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), atol=1e-12)
    plain = est.DecisionTreeClassifier(max_depth=2).fit(X, y)
    assert np.abs(plain.predict_proba(X) - ours.predict_proba(X)).max() > 0.05


def test_random_forest_class_weight_is_the_rows_weighted_by_class(data, monkeypatch):
    from sklearn.utils.class_weight import compute_sample_weight

    X, y, _, _ = data
    # scikit-learn's forest multiplies sample_weight by the class weights before the bootstrap;
    # ours hands the core fit the same weights. The forest's program costs ~25 s to compile on
    # the shared machine, so the core fit is replaced by a probe of the weights it receives.
    seen = {}

    def probe(self, Xj, yj, swj, n, classifier):
        seen["weights"] = np.asarray(swj)
        raise StopIteration

    monkeypatch.setattr(est.RandomForestClassifier, "_core_fit", probe)
    with pytest.raises(StopIteration):
        est.RandomForestClassifier(class_weight="balanced").fit(X, y, np.full(_N, 2.0))
    expected = 2.0 * compute_sample_weight("balanced", y)
    np.testing.assert_allclose(seen["weights"][:_N], expected, rtol=1e-12)
    assert not seen["weights"][_N:].any()  # the bucket's padding rows stay at weight 0
    with pytest.raises(ValueError, match="class_weight='balanced_subsample' is not implemented"):
        est.RandomForestClassifier(class_weight="balanced_subsample").fit(X, y)


@pytest.mark.full
def test_linear_svc_class_weight_equals_sklearn(data):
    from sklearn.svm import LinearSVC as SkLinearSVC

    X, y, _, _ = data
    ours = est.LinearSVC(class_weight="balanced", dual=True, tol=1e-10, max_iter=20000).fit(X, y)
    ref = SkLinearSVC(class_weight="balanced", dual=True, tol=1e-10, max_iter=200000).fit(X, y)
    # the same strictly convex primal (squared hinge, regularised bias, C rescaled per row),
    # both dual coordinate descents run to a projected-gradient range of 1e-10
    np.testing.assert_allclose(ours.coef_, ref.coef_, atol=1e-6)
    np.testing.assert_allclose(ours.intercept_, ref.intercept_, atol=1e-6)


def test_linear_regression_positive_equals_sklearn_nnls(data):
    from sklearn.linear_model import LinearRegression as SkLinearRegression

    X, _, _, y = data
    ours = est.LinearRegression(positive=True).fit(X, y)
    ref = SkLinearRegression(positive=True).fit(X, y)  # scipy.optimize.nnls on centred data
    # coordinate descent to a relative squared projected gradient of 1e-14 (gradient ~1e-7
    # relative) on a well-conditioned design: the unique NNLS solution to ~1e-7
    np.testing.assert_allclose(ours.coef_, ref.coef_, atol=1e-7)
    np.testing.assert_allclose(ours.intercept_, ref.intercept_, atol=1e-7)
    assert ours.coef_[1] == 0.0 and (ours.coef_ >= 0).all()


@pytest.mark.full
def test_svc_class_weight_equals_sklearn(data):
    from sklearn.svm import SVC as SkSVC

    X, y, _, _ = data
    cw = {0: 1.0, 1: 3.0}
    ours = est.SVC(C=2.0, class_weight=cw, tol=1e-10).fit(X, y)
    ref = SkSVC(C=2.0, class_weight=cw, tol=1e-10).fit(X, y)
    # the same dual QP (box C * class weight per row, gamma="scale" from X alone) solved by
    # SMO to a violating-pair gap of 1e-10; LIBSVM caches the kernel matrix in float32 (its
    # Qfloat), which leaves ~3e-7 in its decision values
    np.testing.assert_allclose(ours.decision_function(X), ref.decision_function(X), atol=1e-6)
    np.testing.assert_array_equal(ours.support_, ref.support_)
    plain = est.SVC(C=2.0, tol=1e-10).fit(X, y)
    assert np.abs(plain.decision_function(X) - ours.decision_function(X)).max() > 0.05


@pytest.mark.parametrize("solver", ["svd", "lsqr", "eigen"])
def test_lda_accepts_sklearn_solver_names(data, solver):
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis as SkLDA

    X, _, y, _ = data
    shrinkage = None if solver == "svd" else 0.2
    ours = est.LinearDiscriminantAnalysis(solver=solver, shrinkage=shrinkage).fit(X, y)
    ref = SkLDA(solver=solver, shrinkage=shrinkage).fit(X, y)
    # the same Gaussian model: posteriors equal to float64 rounding of the solves
    np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), atol=1e-10)


def test_lda_svd_solver_refuses_shrinkage(data):
    X, _, y, _ = data
    with pytest.raises(ValueError, match="shrinkage is not supported with solver='svd'"):
        est.LinearDiscriminantAnalysis(solver="svd", shrinkage=0.2).fit(X, y)


def _sklearn_early_stopping_rounds(scores, n_iter_no_change, tol):
    """scikit-learn's rule (ensemble/_gb.py, _fit_stages): keep round i while its validation
    score beats one of the last n_iter_no_change scores by more than tol; the first round that
    does not is the last one kept."""
    history = np.full(n_iter_no_change, np.inf)
    for i, value in enumerate(scores):
        if np.any(value + tol < history):
            history[i % n_iter_no_change] = value
        else:
            return i + 1
    return len(scores)


@pytest.mark.full
@pytest.mark.parametrize("kind", ["regressor", "classifier"])
def test_gradient_boosting_early_stopping_is_sklearns_rule_on_sklearns_split(data, kind):
    from sklearn.ensemble import GradientBoostingClassifier as SkGBC
    from sklearn.ensemble import GradientBoostingRegressor as SkGBR
    from sklearn.metrics import log_loss, mean_squared_error
    from sklearn.model_selection import train_test_split

    from jaxclassic.ensemble.gradient_boosting import staged_decision_function

    X, y_bin, _, y_reg = data
    classifier = kind == "classifier"
    y = y_bin if classifier else y_reg
    ours_cls, sk_cls = (est.GradientBoostingClassifier, SkGBC) if classifier else (est.GradientBoostingRegressor, SkGBR)
    common = dict(n_estimators=40, max_depth=3, learning_rate=0.3)
    stopping = dict(n_iter_no_change=3, validation_fraction=0.25, random_state=0)
    ours = ours_cls(**common, **stopping).fit(X, y)
    # scikit-learn's held-out rows: its fit calls train_test_split(X, y, sample_weight,
    # random_state, test_size=validation_fraction, stratify=y for a classifier)
    train, held_out = train_test_split(np.arange(_N), random_state=0, test_size=0.25,
                                       stratify=y if classifier else None)
    w = np.ones(_N)
    w[held_out] = 0.0
    full = ours_cls(**common).fit(X, y, w)  # every round, the held-out rows at weight 0
    with jax.enable_x64(True):
        stages = np.asarray(staged_decision_function(full.params_, X))[:, held_out]
    if classifier:  # scikit-learn's validation score: 2 x mean log-loss (its deviance)
        scores = [2 * log_loss(y[held_out], 1 / (1 + np.exp(-f)), labels=[0, 1]) for f in stages]
    else:  # the mean squared error
        scores = [mean_squared_error(y[held_out], f) for f in stages]
    with jax.enable_x64(True):  # the last stage is the model's decision function
        last = np.asarray(staged_decision_function(full.params_, X))[-1]
    np.testing.assert_allclose(last, full.decision_function(X) if classifier else full.predict(X),
                               rtol=1e-12, atol=1e-12)
    rounds = _sklearn_early_stopping_rounds(scores, 3, 1e-4)
    assert 1 < rounds < 40  # the rule did stop early on this data
    assert ours.n_estimators_ == rounds
    with jax.enable_x64(True):
        np.testing.assert_allclose(ours.params_.trees.value, full.params_.trees.value[:rounds], atol=0)
    # the kept rounds are scikit-learn's trees on its training rows (exact bins: same splits)
    ref = sk_cls(**common).fit(X[train], y[train])
    np.testing.assert_allclose(ours.train_score_, ref.train_score_[:rounds], rtol=1e-10)
    # (scikit-learn's own early-stopped fit may stop a round apart: its thresholds are node
    # midpoints, ours midpoints of the whole training set, so held-out rows between two
    # training values can be routed differently and their scores differ slightly)


@pytest.mark.full
@pytest.mark.parametrize("solver", ["lbfgs", "newton-cholesky"])
def test_logistic_accepts_sklearn_solver_names(data, solver):
    from sklearn.linear_model import LogisticRegression as SkLogistic

    X, y, _, _ = data
    ours = est.LogisticRegression(C=0.5, solver=solver, tol=1e-10, max_iter=200).fit(X, y)
    ref = SkLogistic(C=0.5, solver="newton-cholesky", tol=1e-12).fit(X, y)
    # the same strictly convex problem: lbfgs to a gradient norm of 1e-10 lands within ~1e-6
    # of the optimum in the coefficients, Newton within rounding
    np.testing.assert_allclose(ours.coef_, ref.coef_, atol=1e-6)
    with pytest.raises(ValueError, match=r"solver must be one of \['lbfgs', 'newton-cholesky', "
                                         r"'newton-cg', 'saga'\] or None, got 'liblinear'"):
        est.LogisticRegression(solver="liblinear").fit(X, y)


@pytest.mark.parametrize("params, message", [
    (dict(n_iter_no_change=0), "n_iter_no_change must be an int >= 1, got 0"),
    (dict(n_iter_no_change=3, validation_fraction=1.0), r"validation_fraction must be in \(0, 1\), got 1.0"),
    (dict(n_iter_no_change=3, tol=-1.0), "tol must be >= 0, got -1.0"),
])
def test_gradient_boosting_early_stopping_bad_parameters(data, params, message):
    X, _, _, y = data  # raised before any boosting (nothing compiles)
    with pytest.raises(ValueError, match=message):
        est.GradientBoostingRegressor(**params).fit(X, y)
