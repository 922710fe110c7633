"""Boosting with the CPU's cores as devices (jaxclassic/_cores.py, issue 26).

The split fits need a process with several CPU devices, so they run in one child process
(``jaxclassic.distributed.use_cpu_cores(2)`` before anything else; ``_cores.MIN_ROWS``
lowered so that small tables split). Each fit runs there twice, on one device (``MIN_ROWS``
above the table) and split over the two, and the two fits are compared: the same trees
(features, threshold bins, leaf or internal structure) and leaf values equal to float32
rounding (each histogram entry is the same sum in another association:
``jaxclassic.distributed``), so predictions on new rows agree to 1e-5. The reference is the
one-device fit, itself checked against scikit-learn and xgboost by their own test files.
The child's tests are in the full tier (the child took 103 s of a cold ``make test``, its
largest item); the fast tier keeps the checks that need no child.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]

_CHILD = r"""
import json, sys
import jaxclassic.distributed as jd
assert jd.use_cpu_cores(2) == 2
import jax, jax.numpy as jnp
import numpy as np
from jaxclassic import _cores, ensemble

rng = np.random.default_rng(0)
n, d = 1100, 6  # above 1,024 rows: regression keeps the histogram engine (tree/_sorted.py)
X = rng.normal(size=(n, d)).astype(np.float32) * np.array([1, 10, 1e3, 0.1, 1, 5], np.float32)
X_nan = X.copy(); X_nan[rng.random((n, d)) < 0.05] = np.nan
logit = X[:, 0] - 0.2 * X[:, 1] + 0.001 * X[:, 2]
y2 = (logit + rng.normal(size=n) > 0).astype(np.int32)
y3 = np.digitize(logit, [-1, 1]).astype(np.int32)
yr = (logit + 0.3 * rng.normal(size=n)).astype(np.float32)
X_new = rng.normal(size=(300, d)).astype(np.float32) * np.array([1, 10, 1e3, 0.1, 1, 5], np.float32)
w = rng.uniform(0.5, 2, n).astype(np.float32)
n_odd = 1099  # not a multiple of the devices: zero-weight rows appended

cases = {
    "xgb_binary": lambda: ensemble.fit_xgboost(X, y2, loss="log_loss", n_estimators=8, max_depth=4, max_bin=64),
    "xgb_missing_eval": lambda: ensemble.fit_xgboost(
        X_nan[:n_odd], y2[:n_odd], loss="log_loss", n_estimators=12, max_depth=3, max_bin=32,
        eval_set=(X_new, (X_new[:, 0] > 0).astype(np.int32)), early_stopping_rounds=3),
    "xgb_softmax_weights": lambda: ensemble.fit_xgboost(
        X, y3, loss="softmax", n_estimators=5, max_depth=3, max_bin=32, n_classes=3,
        sample_weight=w),
    "xgb_subsample": lambda: ensemble.fit_xgboost(X, yr, loss="squared", n_estimators=6, max_depth=3,
                                                   subsample=0.7, key=jax.random.key(3)),
    "xgb_odd_features": lambda: ensemble.fit_xgboost(X[:, :5], y2, loss="log_loss", n_estimators=6, max_depth=4,
                                                      max_bin=64, colsample_bytree=0.8, key=jax.random.key(2)),
    "gb_binary": lambda: ensemble.fit_gradient_boosting(X, y2, loss="log_loss", n_estimators=8, max_depth=3,
                                                        n_classes=2),
    "gb_multinomial": lambda: ensemble.fit_gradient_boosting(X[:n_odd], y3[:n_odd], loss="log_loss",
                                                             n_estimators=5, max_depth=3),
    "gb_squared_subsample": lambda: ensemble.fit_gradient_boosting(
        X, yr, loss="squared", n_estimators=6, max_depth=4, subsample=0.8, key=jax.random.key(1)),
}
forests = {
    "rf_classifier": lambda: ensemble.fit_random_forest(X, y3, n_estimators=10, max_depth=5, key=jax.random.key(0)),
    "rf_regressor": lambda: ensemble.fit_random_forest(X_nan, yr, task="regression", n_estimators=16,
                                                       max_features=0.5, key=jax.random.key(1)),
}
split_calls = []
original = _cores.run_split
def counting(*a, **k):
    split_calls.append(1)
    return original(*a, **k)
_cores.run_split = counting

def summary(params):
    trees = params.trees
    out = {"feature": np.asarray(trees.feature).tolist(),
           "threshold": np.asarray(trees.threshold).tolist(),
           "value": np.asarray(trees.value).ravel().tolist()}
    X_q = X_new[:, :params.bin_edges.shape[0]]  # the fit's features
    try:
        out["pred"] = np.asarray(ensemble.predict_proba(params, X_q)).ravel().tolist()
    except Exception:
        out["pred"] = np.asarray(ensemble.predict(params, X_q)).ravel().tolist()
    return out

result = {}
for name, fit in cases.items():
    _cores.MIN_ROWS = 10**9
    one = fit()
    before = len(split_calls)
    _cores.MIN_ROWS = 64
    two = fit()
    assert len(split_calls) == before + 1, name  # the split path ran
    devices = {str(d) for leaf in jax.tree.leaves(two) if isinstance(leaf, jax.Array) for d in leaf.devices()}
    result[name] = {"one": summary(one), "two": summary(two), "devices": sorted(devices)}

for name, fit in forests.items():  # the trees are independent: split or not, the same bits
    _cores.MIN_ROWS = 10**9
    one = fit()
    before = len(split_calls)
    _cores.MIN_ROWS = 64
    two = fit()
    assert len(split_calls) > before, name  # (a regrowth of truncated trees splits again)
    same = all(np.array_equal(np.asarray(a), np.asarray(b), equal_nan=np.asarray(a).dtype.kind == "f")
               for a, b in zip(jax.tree.leaves(one), jax.tree.leaves(two)))  # NaN: the leaves' thresholds
    devices = {str(d) for leaf in jax.tree.leaves(two) if isinstance(leaf, jax.Array) for d in leaf.devices()}
    result[name] = {"same": same, "devices": sorted(devices), "n_trees": int(np.shape(two.trees.feature)[0])}

# not split: a call inside the user's jit, and arrays the user placed
_cores.MIN_ROWS = 64
before = len(split_calls)
jax.jit(lambda X, y: ensemble.fit_gradient_boosting(X, y, n_estimators=2, max_depth=2).init)(X, yr)
from jaxclassic import distributed
Xs, ys, ws = distributed.shard_rows(X, yr, mesh=distributed.make_mesh(2))
ensemble.fit_xgboost(Xs, ys, sample_weight=ws, n_estimators=2, max_depth=2)
result["unsplit_calls"] = len(split_calls) - before
print(json.dumps(result))
"""


@pytest.fixture(scope="module")
def child():
    env = dict(os.environ)
    env.pop("XLA_FLAGS", None)
    env.update(JAX_PLATFORMS="cpu", PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", _CHILD], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=900)
    assert out.returncode == 0, out.stderr[-4000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


CASES = ["xgb_binary", "xgb_missing_eval", "xgb_softmax_weights", "xgb_subsample", "xgb_odd_features", "gb_binary",
         "gb_multinomial", "gb_squared_subsample"]


@pytest.mark.full  # the child compiles every case twice: ~100 s from a cold cache
@pytest.mark.parametrize("name", CASES)
def test_split_fit_grows_the_one_device_trees(child, name):
    one, two = child[name]["one"], child[name]["two"]
    assert two["feature"] == one["feature"]
    np.testing.assert_array_equal(two["threshold"], one["threshold"])
    np.testing.assert_allclose(two["value"], one["value"], rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(two["pred"], one["pred"], rtol=1e-5, atol=1e-5)


@pytest.mark.full  # the child compiles every case twice: ~100 s from a cold cache
@pytest.mark.parametrize("name", CASES)
def test_split_fit_returns_params_on_the_default_device(child, name):
    assert child[name]["devices"] == ["cpu:0"]  # the default device alone


@pytest.mark.full  # the child compiles every case twice: ~100 s from a cold cache
@pytest.mark.parametrize("name", ["rf_classifier", "rf_regressor"])
def test_split_forest_grows_the_same_trees_bit_for_bit(child, name):
    assert child[name]["same"]
    assert child[name]["devices"] == ["cpu:0"]
    assert child[name]["n_trees"] == {"rf_classifier": 10, "rf_regressor": 16}[name]


@pytest.mark.full  # the child compiles every case twice: ~100 s from a cold cache
def test_traced_calls_and_placed_arrays_keep_the_plain_program(child):
    assert child["unsplit_calls"] == 0


def test_the_threshold_from_the_environment_is_checked(monkeypatch):
    from jaxclassic import _cores

    name = "JAXCLASSIC_CPU_SPLIT_MIN_ROWS"
    monkeypatch.setenv(name, "1000")
    assert _cores._min_rows_from_env() == 1000
    monkeypatch.setenv(name, "")
    assert _cores._min_rows_from_env() == 1 << 15
    for bad in ("abc", "1e5", "-3"):
        monkeypatch.setenv(name, bad)
        with pytest.raises(ValueError, match=name):
            _cores._min_rows_from_env()


def test_one_cpu_device_keeps_the_plain_program():
    from jaxclassic import _cores

    assert _cores.row_mesh(10**7) is None  # this process has one CPU device
