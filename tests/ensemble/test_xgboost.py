"""Tests of jaxclassic/ensemble/xgboost.py.

References: the xgboost package (3.2, ``tree_method="hist"``) on data whose features have at
most ``max_bin`` distinct values (exact binning on both sides): the same splits (feature and
partition of the training rows) in the first trees, and predictions equal to ~1e-5 (xgboost
computes g, h, leaf weights and predictions in float32; ours in float64 here); the formulas
of Chen & Guestrin by hand for a one-split tree; the hand derivation of the pseudo-Huber g, h.
Compilation dominates: every test reuses the shapes (300 x 4) and static settings of a few
fitted programs.
"""

import json

import chex
import jax
import jax.numpy as jnp
import numpy as np
import pytest
import xgboost as xgb

from jaxclassic import ensemble, losses
from jaxclassic.ensemble import _boosting
from jaxclassic.ensemble.xgboost import _program

N, F = 300, 4
COMMON = dict(n_estimators=20, max_depth=3, learning_rate=0.3, reg_lambda=1.5, reg_alpha=0.2,
              gamma=0.1, min_child_weight=2.0)
XGB_COMMON = dict(tree_method="hist", max_bin=256, n_jobs=1)


def _data(nan=False, seed=0):
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(N, F)) * 4) / 4  # <= 256 distinct values: exact binning
    y = X[:, 0] + 0.5 * X[:, 1] ** 2 - 0.5 * X[:, 2] + rng.normal(size=N) * 0.3
    if nan:
        X[rng.random((N, F)) < 0.1] = np.nan
    return X, y


def _xgb_nodes(booster, tree_id):
    df = booster.trees_to_dataframe()
    return {row.ID: row for row in df[df.Tree == tree_id].itertuples()}


def _compare_tree(params, booster, X, t, k=0, K=1, rtol=1e-4):
    """Walk xgboost's tree ``t·K + k`` and ours together: same feature, same partition of
    the node's training rows (ours: left iff x <= threshold; xgboost: x < split; NaN by the
    default side), close leaf values."""
    nodes = _xgb_nodes(booster, t * K + k)
    tree = jax.tree.map(lambda a: np.asarray(a[t, k]), params.trees)
    stack = [(0, f"{t * K + k}-0", np.ones(len(X), bool))]
    n_splits = 0
    while stack:
        ours, theirs, rows = stack.pop()
        row = nodes[theirs]
        if row.Feature == "Leaf":
            assert tree.children_left[ours] < 0
            np.testing.assert_allclose(tree.value[ours, 0], row.Gain, rtol=rtol, atol=1e-6)
            continue
        f = int(row.Feature[1:])
        assert tree.feature[ours] == f, (t, k, ours)
        x = X[:, f]
        left = np.where(np.isnan(x), tree.missing_left[ours], x <= tree.threshold[ours])
        left_xgb = np.where(np.isnan(x), row.Missing == row.Yes, x < row.Split)
        has_nan = np.isnan(x[rows]).any()
        same = left[rows] == left_xgb[rows]
        assert same.all() if has_nan else same[~np.isnan(x[rows])].all(), (t, k, ours)
        stack += [(tree.children_left[ours], row.Yes, rows & left), (tree.children_right[ours], row.No, rows & ~left)]
        n_splits += 1
    return n_splits


# --------------------------------------------------------------------------- by hand
@pytest.mark.full
def test_one_split_gain_and_leaf_weights_equal_the_formulas():
    X = np.arange(8.0)[:, None]
    y = np.array([0.0, 0.3, 0.1, 0.2, 1.0, 1.2, 0.9, 1.4])
    lam, alpha, eta, base = 0.7, 0.4, 0.5, 0.25
    p = ensemble.fit_xgboost(X, y, n_estimators=1, max_depth=1, learning_rate=eta, reg_lambda=lam,
                             reg_alpha=alpha, min_child_weight=0.0, base_score=base)
    g, h = base - y, np.ones(8)  # squared loss: g = f - y, h = 1
    T = lambda G: np.sign(G) * max(abs(G) - alpha, 0)
    score = lambda m: T(g[m].sum()) ** 2 / (h[m].sum() + lam)
    left = np.arange(8) < 4
    gain = score(left) + score(~left) - score(np.ones(8, bool))
    # xgboost's cut 4.0 (x < 4 goes left): the threshold is the largest float64 it sends left
    t = float(p.trees.threshold[0, 0, 0])
    assert np.float32(t) < 4.0 and not np.float32(np.nextafter(t, np.inf)) < 4.0
    np.testing.assert_allclose(float(p.split_gain[0, 0, 0]), gain, rtol=1e-12)
    for node, m in ((1, left), (2, ~left)):
        w = -T(g[m].sum()) / (h[m].sum() + lam)
        np.testing.assert_allclose(float(p.trees.value[0, 0, node, 0]), eta * w, rtol=1e-12)
        np.testing.assert_allclose(float(p.trees.weighted_n_node_samples[0, 0, node]), h[m].sum())
    np.testing.assert_allclose(np.asarray(ensemble.predict(p, X)), base + eta * np.where(
        left, -T(g[left].sum()) / (4 + lam), -T(g[~left].sum()) / (4 + lam)), rtol=1e-12)


@pytest.mark.full
def test_gamma_blocks_a_split_below_it():
    X = np.arange(8.0)[:, None]
    y = np.array([0.0, 0.3, 0.1, 0.2, 1.0, 1.2, 0.9, 1.4])
    kw = dict(n_estimators=1, max_depth=1, learning_rate=0.5, reg_lambda=0.7, reg_alpha=0.4,
              min_child_weight=0.0, base_score=0.25)
    gain = float(ensemble.fit_xgboost(X, y, **kw).split_gain[0, 0, 0])
    assert int(ensemble.fit_xgboost(X, y, gamma=gain * 0.99, **kw).trees.n_nodes[0, 0]) == 3
    assert int(ensemble.fit_xgboost(X, y, gamma=gain * 1.01, **kw).trees.n_nodes[0, 0]) == 1
    # the package agrees on the un-halved gain compared with gamma (min_split_loss)
    for factor, n_nodes in ((0.99, 3), (1.01, 1)):
        m = xgb.XGBRegressor(n_estimators=1, max_depth=1, learning_rate=0.5, reg_lambda=0.7, reg_alpha=0.4,
                             min_child_weight=0.0, base_score=0.25, gamma=gain * factor, **XGB_COMMON).fit(X, y)
        assert len(m.get_booster().trees_to_dataframe()) == n_nodes


@pytest.mark.full
def test_pseudo_huber_grad_hess_by_autodiff_equal_the_hand_derivation():
    delta = 1.5
    y = jnp.linspace(-3, 3, 13)
    f = jnp.linspace(2, -1, 13)
    g, h = losses.grad_hess(lambda y, f: _pseudo_huber(y, f, delta), y, f)
    r = f - y
    np.testing.assert_allclose(g, r / np.sqrt(1 + (r / delta) ** 2), rtol=1e-12)
    np.testing.assert_allclose(h, (1 + (r / delta) ** 2) ** -1.5, rtol=1e-12)


def _pseudo_huber(y, f, delta=1.5):
    return delta**2 * (jnp.sqrt(1 + ((f - y) / delta) ** 2) - 1)


# --------------------------------------------------------------------------- vs xgboost
@pytest.fixture(scope="module")
def regression():
    X, y = _data()
    base = float(np.mean(y))
    ours = ensemble.fit_xgboost(X, y, base_score=base, **COMMON)
    theirs = xgb.XGBRegressor(base_score=base, **COMMON, **XGB_COMMON).fit(X, y)
    return X, y, ours, theirs


@pytest.mark.full
def test_regression_equals_xgboost_splits_and_predictions(regression):
    X, y, ours, theirs = regression
    booster = theirs.get_booster()
    assert sum(_compare_tree(ours, booster, X, t) for t in range(5)) > 10
    # float32 (xgboost) vs float64 (ours): ~1e-6 relative per round, over 20 rounds
    np.testing.assert_allclose(np.asarray(ensemble.predict(ours, X)), theirs.predict(X), atol=2e-5)


@pytest.mark.full
def test_missing_values_equal_xgboost():
    X, y = _data(nan=True)
    base = float(np.mean(y))
    ours = ensemble.fit_xgboost(X, y, base_score=base, **COMMON)
    theirs = xgb.XGBRegressor(base_score=base, **COMMON, **XGB_COMMON).fit(X, y)
    _compare_tree(ours, theirs.get_booster(), X, 0)
    np.testing.assert_allclose(np.asarray(ensemble.predict(ours, X)), theirs.predict(X), atol=2e-5)


@pytest.mark.full
def test_feature_importances_equal_get_score(regression):
    X, y, ours, theirs = regression
    for kind in ("weight", "gain", "total_gain", "cover", "total_cover"):
        score = theirs.get_booster().get_score(importance_type=kind)
        ref = np.array([score.get(f"f{j}", 0.0) for j in range(F)])
        got = np.asarray(ensemble.feature_importances(ours, importance_type=kind, normalize=False))
        np.testing.assert_allclose(got, ref, rtol=1e-4)
    np.testing.assert_allclose(np.asarray(ensemble.feature_importances(ours)), theirs.feature_importances_,
                               rtol=1e-4)


@pytest.mark.full
def test_default_base_score_is_xgboosts_estimate():
    X, y = _data()
    ours = ensemble.fit_xgboost(X, y, **COMMON)
    theirs = xgb.XGBRegressor(**COMMON, **XGB_COMMON).fit(X, y)
    cfg = json.loads(theirs.get_booster().save_config())["learner"]["learner_model_param"]
    np.testing.assert_allclose(float(ours.base_score[0]), float(cfg["base_score"].strip("[]")), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(ensemble.predict(ours, X)), theirs.predict(X), atol=2e-5)


@pytest.mark.full
def test_binary_log_loss_equals_xgboost():
    X, y = _data()
    yb = (y > np.median(y)).astype(int)
    ours = ensemble.fit_xgboost(X, yb, loss="log_loss", **COMMON)  # base_score: log-odds of the mean
    theirs = xgb.XGBClassifier(**COMMON, **XGB_COMMON).fit(X, yb)
    cfg = json.loads(theirs.get_booster().save_config())["learner"]["learner_model_param"]
    np.testing.assert_allclose(float(jax.nn.sigmoid(ours.base_score[0])), float(cfg["base_score"].strip("[]")),
                               rtol=1e-6)
    for t in range(3):
        _compare_tree(ours, theirs.get_booster(), X, t)
    np.testing.assert_allclose(np.asarray(ensemble.predict_proba(ours, X)), theirs.predict_proba(X), atol=1e-5)
    assert np.array_equal(np.asarray(ensemble.predict(ours, X)), theirs.predict(X))
    assert ours.n_classes == 2 and isinstance(ours.n_classes, int)


@pytest.mark.full
def test_softmax_equals_xgboost_multi_softprob():
    X, y = _data()
    yc = np.digitize(y, np.quantile(y, [1 / 3, 2 / 3]))
    ours = ensemble.fit_xgboost(X, yc, loss="softmax", base_score=0.5, **COMMON)
    theirs = xgb.XGBClassifier(objective="multi:softprob", base_score=0.5, **COMMON, **XGB_COMMON).fit(X, yc)
    for t in range(2):
        for k in range(3):
            _compare_tree(ours, theirs.get_booster(), X, t, k, K=3)
    assert ours.n_classes == 3
    np.testing.assert_allclose(np.asarray(ensemble.predict_proba(ours, X)), theirs.predict_proba(X), atol=1e-5)


@pytest.mark.full
def test_pseudo_huber_callable_equals_xgboost_pseudohubererror():
    X, y = _data()
    ours = ensemble.fit_xgboost(X, y, loss=_pseudo_huber, base_score=0.5, **COMMON)
    theirs = xgb.XGBRegressor(objective="reg:pseudohubererror", huber_slope=1.5, base_score=0.5,
                              **COMMON, **XGB_COMMON).fit(X, y)
    _compare_tree(ours, theirs.get_booster(), X, 0)
    np.testing.assert_allclose(np.asarray(ensemble.predict(ours, X)), theirs.predict(X), atol=2e-5)


@pytest.mark.full
def test_early_stopping_equals_xgboost_best_iteration():
    X, y = _data()
    Xv, yv = _data(seed=1)
    kw = dict(COMMON, n_estimators=60, learning_rate=0.6, gamma=0.0, reg_alpha=0.0, min_child_weight=5.0)
    ours = ensemble.fit_xgboost(X, y, base_score=0.5, eval_set=(Xv, yv), early_stopping_rounds=3, **kw)
    theirs = xgb.XGBRegressor(base_score=0.5, early_stopping_rounds=3, **kw, **XGB_COMMON).fit(
        X, y, eval_set=[(Xv, yv)], verbose=False)
    assert int(ours.best_iteration) == theirs.best_iteration < 56
    assert int(ours.n_iter) == theirs.get_booster().num_boosted_rounds()
    assert bool(ours.converged)  # early stopping triggered before the 60 rounds
    rmse = np.asarray(theirs.evals_result()["validation_0"]["rmse"])
    np.testing.assert_allclose(np.sqrt(2 * np.asarray(ours.eval_loss[: int(ours.n_iter)])), rmse, rtol=1e-4)
    assert np.all(np.isnan(np.asarray(ours.eval_loss[int(ours.n_iter):])))
    np.testing.assert_allclose(np.asarray(ensemble.predict(ours, X)), theirs.predict(X), atol=2e-5)


# --------------------------------------------------------------------------- weights, jit, vmap
def test_zero_weight_rows_have_no_influence(regression):
    X, y, ours, _ = regression
    rng = np.random.default_rng(5)
    Xg, yg = X.copy(), y.copy()
    pad = np.arange(N) >= N - 40  # 40 rows of weight 0, filled with garbage
    Xg[pad] = rng.normal(size=(40, F)) * 100
    yg[pad] = 1e6
    w = np.where(pad, 0.0, 1.0)
    base = float(np.mean(y))
    a = ensemble.fit_xgboost(X, y, base_score=base, sample_weight=w, **COMMON)
    b = ensemble.fit_xgboost(Xg, yg, base_score=base, sample_weight=w, **COMMON)
    np.testing.assert_allclose(np.asarray(ensemble.predict(a, X[~pad])), np.asarray(ensemble.predict(b, X[~pad])),
                               rtol=1e-12)
    np.testing.assert_allclose(np.asarray(a.split_gain), np.asarray(b.split_gain), rtol=1e-10)


@pytest.mark.full
def test_second_call_does_not_recompile_and_vmap_over_learning_rates_equals_loop(regression):
    X, y, ours, _ = regression
    base = float(np.mean(y))
    before = _program._cache_size()
    again = ensemble.fit_xgboost(X, y * 1.0, base_score=base, **COMMON)
    assert _program._cache_size() == before
    np.testing.assert_array_equal(np.asarray(again.split_gain), np.asarray(ours.split_gain))
    kw = {k: v for k, v in COMMON.items() if k != "learning_rate"}
    rates = jnp.array([0.1, 0.3])
    batched = jax.vmap(lambda lr: ensemble.fit_xgboost(X, y, learning_rate=lr, base_score=base, **kw))(rates)
    for i, lr in enumerate([0.1, 0.3]):
        one = ensemble.fit_xgboost(X, y, learning_rate=lr, base_score=base, **kw)
        np.testing.assert_allclose(np.asarray(batched.trees.value[i]), np.asarray(one.trees.value), atol=1e-12)


@pytest.mark.full
def test_row_and_column_subsampling_follow_the_key(regression):
    X, y, _, _ = regression
    kw = dict(COMMON, n_estimators=5, subsample=0.7, colsample_bytree=0.5)
    a = ensemble.fit_xgboost(X, y, key=jax.random.key(1), **kw)
    b = ensemble.fit_xgboost(X, y, key=jax.random.key(1), **kw)
    c = ensemble.fit_xgboost(X, y, key=jax.random.key(2), **kw)
    np.testing.assert_array_equal(np.asarray(a.trees.value), np.asarray(b.trees.value))
    assert not np.array_equal(np.asarray(a.trees.value), np.asarray(c.trees.value))
    # colsample 0.5 of 4 features: each tree splits on at most 2 features
    for t in range(5):
        used = np.unique(np.asarray(a.trees.feature[t, 0])[np.asarray(a.trees.feature[t, 0]) >= 0])
        assert used.size <= 2
    # subsample: the root cover is the number of rows kept (h = 1), about 70%
    covers = np.asarray(a.trees.weighted_n_node_samples[:, 0, 0])
    assert np.all((covers > 0.55 * N) & (covers < 0.85 * N)) and len(set(covers)) > 1


@pytest.mark.full
def test_non_positive_hessian_is_clamped_with_a_warning():
    X = np.arange(8.0)[:, None]
    y = np.linspace(0, 1, 8)
    with pytest.warns(_boosting.HessianClampedWarning, match="raised to 1e-06"):
        p = ensemble.fit_xgboost(X, y, loss=lambda y, f: -jnp.cos(f - y) * (f - y) ** 2, n_estimators=2,
                                 max_depth=1, min_child_weight=0.0)
    assert np.all(np.isfinite(np.asarray(ensemble.predict(p, X))))


# --------------------------------------------------------------------------- bad input
X_SMALL, Y_SMALL = np.arange(8.0)[:, None], np.arange(8.0)


@pytest.mark.parametrize("kwargs, match", [
    (dict(max_bin=300), "max_bin must be <= 256, got 300"),
    (dict(n_estimators=0), "n_estimators must be >= 1, got 0"),
    (dict(learning_rate=0.0), "learning_rate must be > 0.0"),
    (dict(subsample=0.0), "subsample must be > 0.0"),
    (dict(subsample=1.5), "subsample must be <= 1.0"),
    (dict(colsample_bytree=1.5), "colsample_bytree must be <= 1.0"),
    (dict(reg_lambda=-1.0), "reg_lambda must be >= 0.0"),
    (dict(loss="hinge"), "loss must be one of"),
    (dict(early_stopping_rounds=3), "early_stopping_rounds needs an eval_set"),
])
def test_bad_arguments_are_rejected(kwargs, match):
    with pytest.raises(ValueError, match=match):
        ensemble.fit_xgboost(X_SMALL, Y_SMALL, **kwargs)


def test_nan_target_is_rejected():
    with pytest.raises(ValueError, match="y"):
        ensemble.fit_xgboost(X_SMALL, np.where(np.arange(8) == 3, np.nan, Y_SMALL))


def test_log_loss_needs_two_classes_and_on_more_is_the_softmax():
    with pytest.raises(ValueError, match="use loss='softmax'"):  # one class
        ensemble.fit_xgboost(X_SMALL, np.zeros(8, int), loss="log_loss")
    # issue 27: scikit-learn's log_loss is the multinomial deviance on K > 2 classes, as
    # fit_gradient_boosting's: the same fit as loss="softmax" (xgboost's multi:softprob)
    y3 = np.arange(8) % 3
    kw = dict(n_estimators=2, max_depth=1)
    chex.assert_trees_all_equal(ensemble.fit_xgboost(X_SMALL, y3, loss="log_loss", **kw),
                                ensemble.fit_xgboost(X_SMALL, y3, loss="softmax", **kw))


def test_converged_is_whether_the_fit_ended_by_its_stopping_rule():
    # issue 27: without early stopping a fixed number of rounds is the whole fit (converged);
    # with it, converged says whether the patience ran out before n_estimators rounds
    kw = dict(n_estimators=3, max_depth=1)
    fixed = ensemble.fit_xgboost(X_SMALL, Y_SMALL, **kw)
    assert int(fixed.n_iter) == 3 and bool(fixed.converged)
    # the eval loss keeps falling for all 3 rounds: patience 2 never runs out
    patient = ensemble.fit_xgboost(X_SMALL, Y_SMALL, eval_set=(X_SMALL, Y_SMALL), early_stopping_rounds=2, **kw)
    assert int(patient.n_iter) == 3 and not bool(patient.converged)
