"""Shape buckets: refits (and predictions) at nearby sizes reuse the compiled programs.

The estimator layer pads the rows to a bucket (``_base.bucket_size``: 100, 101 and 117 rows
all pad to 128) with zero-weight rows, so a second fit at a nearby size must not build a new
XLA program. Programs are counted where JAX lowers a traced function to an MLIR module
(``/jax/core/compile/jaxpr_to_mlir_module_duration``, one event per new program, whether XLA
then compiles it or loads it from the persistent cache), eager operations included: a
padding op run outside ``jit`` at the new size would count too.
"""

from __future__ import annotations

import contextlib

import jax.monitoring
import numpy as np
import pytest

import jaxclassic.estimators as jc
from jaxclassic.estimators._base import TREE_MIN_BUCKET, bucket_size

LOWERING = "/jax/core/compile/jaxpr_to_mlir_module_duration"
SIZES = (100, 101, 117)  # one bucket


@contextlib.contextmanager
def new_programs():
    """Collect the names of the functions lowered to new programs inside the block."""
    names: list[str] = []

    def listener(event, duration_secs, **kwargs):
        if event == LOWERING:
            names.append(kwargs.get("fun_name", "?"))

    jax.monitoring.register_event_duration_secs_listener(listener)
    try:
        yield names
    finally:
        jax.monitoring.unregister_event_duration_listener(listener)


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(max(SIZES) + 12, 4))
    y_class = (X[:, 0] + 0.5 * rng.normal(size=X.shape[0]) > 0).astype(int)
    y_reg = X @ np.array([1.0, -2.0, 0.5, 0.0]) + 0.1 * rng.normal(size=X.shape[0])
    return X, y_class, y_reg


FAMILIES = {
    "LogisticRegression": (lambda: jc.LogisticRegression(), "class"),
    "Ridge": (lambda: jc.Ridge(alpha=1.0), "reg"),
    "GaussianNB": (lambda: jc.GaussianNB(), "class"),
    "KNeighborsClassifier": (lambda: jc.KNeighborsClassifier(n_neighbors=3), "class"),
    "DecisionTreeClassifier": (lambda: jc.DecisionTreeClassifier(max_depth=2), "class"),
    "KMeans": (lambda: jc.KMeans(n_clusters=2, n_init=1, random_state=0), None),
    # its prediction pads the support vectors (their number changes with every fit) to a bucket
    "SVC": (lambda: jc.SVC(), "class"),
}


def _fit_predict(make, target, X, y_class, y_reg, n):
    est = make()
    if target is None:
        est.fit(X[:n])
    else:
        est.fit(X[:n], (y_class if target == "class" else y_reg)[:n])
    return est.predict(X[:n])


def test_the_sizes_share_one_bucket():
    assert {bucket_size(n) for n in SIZES} == {128}
    assert bucket_size(max(SIZES) + 12) == 256
    # the tree family's smallest bucket (_base.TREE_MIN_BUCKET): 40 and 129 rows share one
    assert {bucket_size(n, TREE_MIN_BUCKET) for n in (1, 40, 129, 512)} == {512}
    assert bucket_size(513, TREE_MIN_BUCKET) == bucket_size(513) == 1024


def test_tree_fits_of_up_to_512_rows_share_one_program(data):
    # 40 rows (bucket 64 elsewhere) and 129 rows (bucket 256) both pad to 512 rows in the tree
    # family (a CART program costs 2-4 s to build); GaussianNB, on 32-row buckets, is the control
    X, y_class, _ = data
    tree = lambda: jc.DecisionTreeClassifier(max_depth=2)  # noqa: E731
    tree().fit(X[:40], y_class[:40]).predict(X[:40])
    with new_programs() as names:
        est = tree().fit(X, y_class)
        pred = est.predict(X)
    assert names == [], f"a tree on {len(X)} rows after one on 40 built new programs: {names}"
    from sklearn.tree import DecisionTreeClassifier

    np.testing.assert_array_equal(pred, DecisionTreeClassifier(max_depth=2).fit(X, y_class).predict(X))
    jc.GaussianNB().fit(X[:40], y_class[:40])
    with new_programs() as names:
        jc.GaussianNB().fit(X, y_class)
    assert names, "GaussianNB at a new bucket lowered no program: the counter is broken"


@pytest.mark.full
@pytest.mark.parametrize("family", list(FAMILIES))
def test_refit_at_nearby_sizes_builds_no_new_program(family, data):
    make, target = FAMILIES[family]
    X, y_class, y_reg = data
    _fit_predict(make, target, X, y_class, y_reg, SIZES[0])  # compiles (or loads) once
    for n in SIZES[1:]:
        with new_programs() as names:
            pred = _fit_predict(make, target, X, y_class, y_reg, n)
        assert names == [], f"{family} at n={n} built new programs: {names}"
        assert pred.shape == (n,)


@pytest.mark.full
def test_the_counter_sees_a_new_bucket(data):
    # the control: 129 rows pad to 256, a new shape, so GaussianNB builds new programs
    make, target = FAMILIES["GaussianNB"]
    X, y_class, y_reg = data
    _fit_predict(make, target, X, y_class, y_reg, SIZES[0])
    with new_programs() as names:
        _fit_predict(make, target, X, y_class, y_reg, max(SIZES) + 12)
    assert names, "a fit at a new bucket size lowered no program: the counter is broken"


# --------------------------------------------------------------------------- max_depth buckets


def test_refit_at_another_depth_of_its_bucket_builds_no_new_program(data):
    from sklearn.tree import DecisionTreeClassifier

    make = lambda d: jc.DecisionTreeClassifier(max_depth=d)  # noqa: E731
    X, y_class, _ = data
    # depths 3 and 4 share one budget (cart.budget_depth), 5 has another (one pair: each new
    # budget is a CART program of ~3 s to build, and the fast tier runs this test)
    make(3).fit(X[:SIZES[0]], y_class[:SIZES[0]])  # compiles (or loads) the bucket's programs
    with new_programs() as names:
        est = make(4).fit(X[:SIZES[0]], y_class[:SIZES[0]])
    assert names == [], f"max_depth=4 after 3 built new programs: {names}"
    # the shared program still stops at the depth asked for
    ref = DecisionTreeClassifier(max_depth=4).fit(X[:SIZES[0]], y_class[:SIZES[0]])
    assert est.get_depth() == ref.get_depth() == 4
    # the control: depth 5 is another bucket (budget 6), so its fit lowers a new program
    with new_programs() as names:
        make(5).fit(X[:SIZES[0]], y_class[:SIZES[0]])
    assert names, "a fit at a new depth bucket lowered no program: the counter is broken"


@pytest.mark.full
def test_forest_depths_of_one_budget_share_a_program(data):
    # a forest sizes its budget by the depth itself (forest_budget), but the depth is traced:
    # on 100 rows (the tree family's bucket, 512) depths 12 and 14 both have the budget of n
    # (M = 1023, W = 64)
    X, y_class, _ = data
    make = lambda d: jc.RandomForestClassifier(n_estimators=3, max_depth=d, n_bins=32, random_state=0)  # noqa: E731
    make(12).fit(X[:SIZES[0]], y_class[:SIZES[0]])
    with new_programs() as names:
        make(14).fit(X[:SIZES[0]], y_class[:SIZES[0]])
    assert names == [], f"max_depth=14 after 12 built new programs: {names}"
    with new_programs() as names:  # the control: depth 3's budget is its own
        make(3).fit(X[:SIZES[0]], y_class[:SIZES[0]])
    assert names, "a forest at a new budget lowered no program: the counter is broken"


def _iris_rows(seed, n):
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    rows = np.random.default_rng(seed).choice(len(X), n, replace=False)
    return X[rows], y[rows], X


def test_tied_gains_split_as_xgboost_at_every_bucket():
    """17 iris rows (seed 0): two root splits of class 1 tie in exact arithmetic (gain
    1.505451924253 in float64). Their float gains differ in the last bits by the padded
    row count, so a first maximum on ``==`` split on feature 1 at one bucket and feature 0 at
    another (0.12 apart in probability from xgboost after one round). With the engine's tie
    tolerance (``tree._engine.TIE_ULPS``) both buckets take the first feature, as xgboost:
    its probabilities on all 150 rows to 1e-6 (float32 sums in xgboost's histograms)."""
    import xgboost as xgb

    X, y, X_all = _iris_rows(0, 17)
    ref = xgb.XGBClassifier(n_estimators=1, tree_method="hist").fit(X, y).predict_proba(X_all)
    for bucket in (32, TREE_MIN_BUCKET):
        cls = type(f"XGBoostClassifier{bucket}", (jc.XGBoostClassifier,), {"_min_bucket": bucket})
        ours = cls(n_estimators=1).fit(X, y).predict_proba(X_all)
        np.testing.assert_allclose(ours, ref, atol=1e-6, err_msg=f"bucket {bucket}")


@pytest.mark.full
@pytest.mark.parametrize("seed", [0, 2])
def test_gradient_boosting_is_the_same_at_every_bucket(seed):
    """Gradient boosting on 17 iris rows pads to 32, 64 or 512 rows: the same trees at each
    (to the rounding of the padded sums, 1e-12), ties included (the 0.074 difference
    between buckets 32 and 64 that ties settled by rounding gave before the tolerance)."""
    X, y, X_all = _iris_rows(seed, 17)
    out = []
    for bucket in (32, 64, TREE_MIN_BUCKET):
        cls = type(f"GradientBoostingClassifier{bucket}", (jc.GradientBoostingClassifier,), {"_min_bucket": bucket})
        out.append(cls(n_estimators=10).fit(X, y).predict_proba(X_all))
    np.testing.assert_allclose(out[1], out[0], atol=1e-12)
    np.testing.assert_allclose(out[2], out[0], atol=1e-12)


# --------------------------------------------------------------------------- n_estimators buckets
# Every ensemble builds its programs for a bucket of member counts
# (ensemble.bagging.estimator_capacity: 1..16, 17..32, 33..64, ... share one), the members past
# n_estimators skipped in the fit and given zero weight in the predictions (issue 25: before,
# every new n_estimators built 3 to 10 new programs). Small trees and 32 bins keep the first
# fits cheap.
ENSEMBLES = {
    "RandomForestClassifier": (lambda e: jc.RandomForestClassifier(e, max_depth=3, n_bins=32, random_state=0),
                               "class"),
    "RandomForestRegressor": (lambda e: jc.RandomForestRegressor(e, max_depth=3, n_bins=32, random_state=0),
                              "reg"),
    "BaggingClassifier": (lambda e: jc.BaggingClassifier(jc.DecisionTreeClassifier(max_depth=3, n_bins=32),
                                                         n_estimators=e, random_state=0), "class"),
    "GradientBoostingClassifier": (lambda e: jc.GradientBoostingClassifier(n_estimators=e, max_depth=2, n_bins=32),
                                   "class"),
    "GradientBoostingRegressor": (lambda e: jc.GradientBoostingRegressor(n_estimators=e, max_depth=2, n_bins=32),
                                  "reg"),
    "XGBoostClassifier": (lambda e: jc.XGBoostClassifier(n_estimators=e, max_depth=2, max_bin=32), "class"),
    "XGBoostRegressor": (lambda e: jc.XGBoostRegressor(n_estimators=e, max_depth=2, max_bin=32), "reg"),
    "AdaBoostClassifier": (lambda e: jc.AdaBoostClassifier(n_estimators=e, n_bins=32), "class"),
}
# the fast tier: one forest and one boosting family (each first fit builds its programs)
_FAST = ("RandomForestClassifier", "GradientBoostingClassifier")


def _members(est):
    """The fitted members (trees or rounds) of an ensemble estimator, stacked."""
    params = est.params_
    return getattr(params, "trees", None) or params.estimators


@pytest.mark.parametrize("family", [f if f in _FAST else pytest.param(f, marks=pytest.mark.full) for f in ENSEMBLES])
def test_refit_with_another_n_estimators_builds_no_new_program(family, data):
    make, target = ENSEMBLES[family]
    X, y_class, y_reg = data
    y = y_class if target == "class" else y_reg
    small = make(3).fit(X, y)
    small.predict(X)
    with new_programs() as names:
        est = make(5).fit(X, y)
        est.predict(X)
    assert names == [], f"{family}: n_estimators=5 after 3 built new programs: {names}"
    # the members past n_estimators are cut off, and the first 3 of 5 are the 3 of the first fit
    # (the trees of a forest hang on their index, the rounds of boosting on the rounds before)
    first, second = _members(small), _members(est)
    assert second.feature.shape[0] == 5
    for a, b in zip(jax.tree.leaves(first), jax.tree.leaves(second)):
        np.testing.assert_array_equal(np.asarray(b)[:3], np.asarray(a))


@pytest.mark.full
def test_a_new_n_estimators_bucket_builds_its_programs(data):
    # the control: 17 trees are past the bucket of 1..16, so the forest builds new programs
    make, _ = ENSEMBLES["RandomForestRegressor"]
    X, _, y_reg = data
    make(3).fit(X, y_reg)
    with new_programs() as names:
        make(17).fit(X, y_reg)
    assert names, "a forest at a new n_estimators bucket lowered no program: the counter is broken"


# --------------------------------------------------------------------------- n_clusters buckets
# KMeans compiles its fit for a bucket of cluster counts (cluster.kmeans.cluster_capacity:
# 1..8, 9..16, 17..24, ...), the slots past n_clusters inactive and sliced off on the host
# (issue 25: before, every new n_clusters built 2 programs, ~0.9 s a refit on iris).


def test_kmeans_refit_with_another_n_clusters_of_its_bucket_builds_no_new_program():
    from sklearn.datasets import load_iris

    from jaxclassic.cluster.kmeans import cluster_capacity

    X = load_iris().data
    assert {cluster_capacity(k) for k in (2, 3, 4, 5)} == {8} and cluster_capacity(9) == 16
    first = jc.KMeans(n_clusters=2, random_state=0).fit(X)  # compiles (or loads) the bucket's program
    assert first.cluster_centers_.shape == (2, 4)
    for k in (3, 4, 5):
        with new_programs() as names:
            est = jc.KMeans(n_clusters=k, random_state=0).fit(X)
        assert names == [], f"KMeans n_clusters={k} after 2 built new programs: {names}"
        assert est.cluster_centers_.shape == (k, 4) and set(est.labels_) == set(range(k))
    # the control: 9 clusters are another bucket (16 slots), so the fit lowers a new program
    with new_programs() as names:
        jc.KMeans(n_clusters=9, random_state=0).fit(X)
    assert names, "KMeans at a new n_clusters bucket lowered no program: the counter is broken"
