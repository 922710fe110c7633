"""CRF training with the CPU's cores as devices (jaxclassic/_cores.py, issue 26).

A process with two CPU devices (``jaxclassic.distributed.use_cpu_cores(2)``, one child
process) fits the same data on one device (``crf.SPLIT_MIN_TOKENS`` above the corpus) and
with the packed rows split over the two, and compares: the objective and its gradient are
the same sums in another association, so the L-BFGS path and the weights agree to rounding
(float64, sparse features: 1e-7 of the largest weight, where a 1e-16 difference in a gradient
grows to about 3e-9 over the L-BFGS path; float32, the same features as dense rows: 2e-4), and
Viterbi labels on new sentences are the same. The objective's
value and gradient are also compared directly, split and not, in the log-space fallback
(float32 weights of scale 100), whose gradient is autodiff inside each device. The reference
is the one-device fit, itself checked against crfsuite and autodiff by its own test files.
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
pytestmark = pytest.mark.full  # a child process of its own: 35 s from a cold start

_CHILD = r"""
import json
import jaxclassic.distributed as jd
assert jd.use_cpu_cores(2) == 2
import jax, jax.numpy as jnp
import numpy as np
jax.config.update("jax_enable_x64", True)
from jaxclassic import _cores
from jaxclassic.graphical import _crf_packing, crf

rng = np.random.default_rng(0)
n, T, K, F, L = 40, 9, 2, 11, 4
X = rng.integers(-1, F, size=(n, T, K)).astype(np.int32)
lengths = rng.integers(1, T + 1, size=n).astype(np.int32)
W = rng.normal(size=(F, L))
y = np.argmax(np.take(W, np.clip(X, 0, None), axis=0).sum(2) + rng.normal(size=(n, T, L)), axis=2).astype(np.int32)
weight = rng.uniform(0.5, 2.0, size=n)
weight[[3, 17]] = 0.0
X_new = rng.integers(-1, F, size=(15, T, K)).astype(np.int32)
l_new = rng.integers(1, T + 1, size=15).astype(np.int32)
calls = []
original = _cores.run_split
def counting(*a, **k):
    calls.append(1)
    return original(*a, **k)
_cores.run_split = counting

dense = np.zeros((n, T, F), np.float32)  # the same features, dense float32 rows (a float32 fit)
for k in range(K):
    on = X[..., k] >= 0
    np.add.at(dense, (*np.nonzero(on), X[..., k][on]), 1.0)
dense_new = np.zeros((15, T, F), np.float32)
for k in range(K):
    on = X_new[..., k] >= 0
    np.add.at(dense_new, (*np.nonzero(on), X_new[..., k][on]), 1.0)

out = {}
for dtype, features, new in (("float64", X, X_new), ("float32", dense, dense_new)):
    w = weight.astype(dtype)
    fits = {}
    for mode, threshold in (("one", 10**9), ("split", 1)):
        crf.SPLIT_MIN_TOKENS = threshold
        before = len(calls)
        p = crf.fit_crf(features, y, lengths=lengths, c2=0.5, n_labels=L, sample_weight=w,
                        tol=1e-6, max_iter=200)
        fits[mode] = dict(split=len(calls) > before, n_iter=int(p.n_iter), converged=bool(p.converged),
                          theta=[np.asarray(a, np.float64).tolist() for a in p[:4]],
                          dtype=str(p.emission.dtype),
                          pred=np.asarray(crf.predict(p, jnp.asarray(new), jnp.asarray(l_new))).tolist())
    out[dtype] = fits

# the objective in the log-space fallback: float32 weights of scale 100, split and not
theta = tuple(jnp.asarray(100 * rng.normal(size=s), jnp.float32) for s in [(F, L), (L, L), (L,), (L,)])
sw = jnp.asarray(weight, jnp.float32)
packed = _crf_packing.pack(X, y, lengths, row_multiple=16)

def value_and_grad(packed, theta, sw, *, axis_name=None):
    return jax.value_and_grad(lambda th: _crf_packing.packed_objective(th, packed, jnp.float32(0.5), sw, crf._unary,
                                                                     axis_name=axis_name))(theta)

one = jax.jit(value_and_grad)(packed, theta, sw)
mesh = _cores.row_mesh(10**9, min_rows=1)
split = original(value_and_grad, mesh, (packed, theta, sw), {0: 0}, {}, check_vma=True)
out["fallback"] = {"one": [float(one[0])] + [np.asarray(g, np.float64).tolist() for g in one[1]],
                   "split": [float(split[0])] + [np.asarray(g, np.float64).tolist() for g in split[1]]}
print("RESULT" + json.dumps(out))
"""


@pytest.fixture(scope="module")
def child():
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-c", _CHILD], capture_output=True, text=True, env=env, timeout=600,
                          cwd=ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
    line = [ln for ln in done.stdout.splitlines() if ln.startswith("RESULT")][-1]
    return json.loads(line[len("RESULT"):])


@pytest.mark.parametrize("dtype, rtol", [("float64", 1e-7), ("float32", 2e-4)])
def test_split_fit_equals_the_one_device_fit(child, dtype, rtol):
    one, split = child[dtype]["one"], child[dtype]["split"]
    assert not one["split"] and split["split"]
    assert one["converged"] and split["converged"]
    assert split["dtype"] == one["dtype"] == dtype
    if dtype == "float64":
        assert split["n_iter"] == one["n_iter"]
    for a, b in zip(split["theta"], one["theta"]):
        a, b = np.asarray(a), np.asarray(b)
        np.testing.assert_allclose(a, b, rtol=0, atol=rtol * np.abs(b).max())
    assert split["pred"] == one["pred"]


def test_split_objective_in_the_log_space_fallback(child):
    # float32 weights of scale 100: the scaled passes underflow and each device's gradient is
    # autodiff of the log-space pass over its own rows; summed, it is the one-device gradient
    one, split = child["fallback"]["one"], child["fallback"]["split"]
    np.testing.assert_allclose(split[0], one[0], rtol=1e-6)
    for a, b in zip(split[1:], one[1:]):
        a, b = np.asarray(a), np.asarray(b)
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-5 * np.abs(b).max())
