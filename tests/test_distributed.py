"""jaxclassic/distributed.py: row sharding over several devices and several processes.

Two subprocess tests (JAX fixes its devices once per process, so the rest of the suite keeps
its one CPU device):

* ``tests/_distributed_families.py`` with 4 simulated CPU devices fits every row-sum family
  with the same jitted function on one device and on ``shard_rows`` inputs, and prints one
  line a family; tolerance 1e-9 relative (float64: re-associating a sum over 4 devices moves
  it by ~1e-15, and the iterative fits carry that through their iterations; measured
  <= 2e-14). The compiled sharded programs must hold all-reduces: the row sums were reduced
  across devices, not computed on one.
* ``tests/_distributed_worker.py`` started twice, each process with 2 CPU devices, joined by
  ``jax.distributed.initialize`` on localhost (gloo), each holding only its rows (33 and 31):
  ridge, logistic (Newton) and k-means equal the one-device fit of all 64 rows (1e-9) and
  both processes hold the same params (equal digests). The same public fits are also called
  eagerly (not under ``jax.jit``) on the global arrays, whose values the validation layer
  cannot read on one process (``_eager`` lines: same tolerance).

The subprocesses share the suite's persistent compilation cache (conftest.py), so a warm
run compiles nothing. The in-process tests below check the layout and the bad input.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import jax
import numpy as np
import pytest
from jax.sharding import Mesh, PartitionSpec

from jaxclassic import distributed

ROOT = Path(__file__).resolve().parents[1]

FAMILIES = ["ols", "ridge", "logistic_newton", "softmax_newton", "bayesian_ridge", "gaussian_nb", "lda",
            "qda", "kmeans", "gmm", "knn_predict_proba", "cart", "gradient_boosting", "kernel_svm",
            "knn_kneighbors_merged", "hmm_baum_welch", "ridge_padded", "ridge_grad_vmap", "ridge_eager"]


def _env(n_devices: int) -> dict:
    env = dict(os.environ)
    flags = [f for f in env.get("XLA_FLAGS", "").split() if "force_host_platform_device_count" not in f]
    env.update(XLA_FLAGS=" ".join(flags + [f"--xla_force_host_platform_device_count={n_devices}"]),
               JAX_ENABLE_X64="1", JAX_PLATFORMS="cpu", PYTHONPATH=str(ROOT))
    cache_dir = jax.config.jax_compilation_cache_dir
    if cache_dir:  # the suite's cache (conftest.py) serves the subprocesses too, same thresholds
        env["JAX_COMPILATION_CACHE_DIR"] = str(cache_dir)
        env["JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS"] = str(jax.config.jax_persistent_cache_min_compile_time_secs)
        env["JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES"] = str(jax.config.jax_persistent_cache_min_entry_size_bytes)
    return env


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("localhost", 0))
        return s.getsockname()[1]


@pytest.mark.full
def test_every_family_on_four_devices_equals_one_device():
    out = subprocess.run([sys.executable, str(ROOT / "tests" / "_distributed_families.py")], cwd=ROOT,
                         env=_env(4), capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stderr[-3000:]
    lines = out.stdout.splitlines()
    assert lines[-1].startswith("DONE"), out.stdout[-2000:]
    rows = {}
    for line in lines:
        if line.startswith("CASE "):
            name, diff, tol, ok, n_reduce, n_gather, spec = line.split()[1:8]
            rows[name] = (float(diff), float(tol), int(ok), int(n_reduce), int(n_gather), spec)
    assert sorted(rows) == sorted(FAMILIES), out.stdout
    for name, (diff, tol, ok, n_reduce, n_gather, spec) in rows.items():
        assert ok == 1 and diff <= tol <= 1e-9, (name, diff)
        if name == "knn_kneighbors_merged":  # no sum: only the k candidates a device gathered
            assert (n_reduce, n_gather) == (0, 2), (name, n_reduce, n_gather)
        elif name != "ridge_eager":
            assert spec == "P('rows',)", (name, spec)
            assert n_reduce >= 1, f"{name}: no all-reduce in the sharded program"
    assert "PAD ok" in out.stdout, out.stdout
    assert "RETRACE ok" in out.stdout, out.stdout  # new data of the same shapes: no new trace


@pytest.mark.full
def test_two_processes_reach_the_single_process_fit():
    port, env = _free_port(), _env(2)
    cmd = [sys.executable, str(ROOT / "tests" / "_distributed_worker.py"), str(port)]
    procs = [subprocess.Popen(cmd + [str(i), "2"], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for i in range(2)]
    try:
        results = [p.communicate(timeout=300) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    for p, (stdout, stderr) in zip(procs, results):
        assert p.returncode == 0, stderr[-3000:]
    fits = [{ln.split()[1]: ln.split()[2:] for ln in stdout.splitlines() if ln.startswith("FIT ")}
            for stdout, _ in results]
    names = ["kmeans", "kmeans_eager", "logistic", "logistic_eager", "ridge", "ridge_eager"]
    assert sorted(fits[0]) == sorted(fits[1]) == names, fits
    for name in fits[0]:
        digest0, diff, rows = fits[0][name]
        assert fits[1][name][0] == digest0, name  # the same params on both processes
        assert rows == "rows=68"  # 33 + 31 rows, each block padded to 34 (2 local devices)
        assert 0.0 <= float(diff) <= 1e-9, (name, diff)
    for stdout, _ in results:  # shape checks still run on a global array; value checks skipped
        assert "CHECK global_shape ok" in stdout and "CHECK global_n_classes ok" in stdout, stdout
        assert "CHECK global_values_skipped ok" in stdout, stdout


# --------------------------------------------------------------------------- in process (1 device)
def test_make_mesh_is_one_axis_over_the_devices():
    mesh = distributed.make_mesh(axis_name="batch")
    assert mesh.axis_names == ("batch",)
    assert list(mesh.devices.flat) == jax.devices()


def test_shard_rows_keeps_dtypes_and_gives_unit_weights():
    X = np.arange(12.0).reshape(6, 2)
    y = np.arange(6) % 2
    Xs, ys, ws = distributed.shard_rows(X, y, mesh=distributed.make_mesh(1))
    assert Xs.dtype == np.float64 and ys.dtype.kind == "i" and ws.dtype == np.float64
    assert Xs.sharding.spec == PartitionSpec("rows")
    np.testing.assert_array_equal(np.asarray(Xs), X)
    np.testing.assert_array_equal(np.asarray(ys), y)
    np.testing.assert_array_equal(np.asarray(ws), np.ones(6))
    assert distributed.shard_rows(X, mesh=distributed.make_mesh(1))[1] is None


def test_make_mesh_rejects_zero_devices():
    with pytest.raises(ValueError, match="n_devices must be >= 1, got 0"):
        distributed.make_mesh(0)


def test_make_mesh_rejects_more_devices_than_available():
    n = len(jax.devices())
    with pytest.raises(ValueError, match=f"n_devices must be <= the {n} available device"):
        distributed.make_mesh(n + 1)


def test_make_mesh_rejects_a_non_string_axis_name():
    with pytest.raises(TypeError, match="axis_name must be a string, got int"):
        distributed.make_mesh(axis_name=0)


def test_shard_rows_rejects_a_non_mesh():
    with pytest.raises(TypeError, match="mesh must be a jax.sharding.Mesh, got str"):
        distributed.shard_rows(np.ones((4, 2)), mesh="rows")


def test_shard_rows_rejects_a_two_axis_mesh():
    mesh = Mesh(np.array(jax.devices()[:1]).reshape(1, 1), ("a", "b"))
    with pytest.raises(ValueError, match=r"mesh must have one axis \(the rows\), got axes \('a', 'b'\)"):
        distributed.shard_rows(np.ones((4, 2)), mesh=mesh)


def test_shard_rows_rejects_y_of_another_length():
    with pytest.raises(ValueError, match="X and y have inconsistent numbers of samples: 4 != 3"):
        distributed.shard_rows(np.ones((4, 2)), np.ones(3), mesh=distributed.make_mesh(1))


def test_shard_rows_rejects_negative_weights():
    with pytest.raises(ValueError, match="sample_weight must be non-negative"):
        distributed.shard_rows(np.ones((4, 2)), np.ones(4), -np.ones(4), mesh=distributed.make_mesh(1))


def test_shard_rows_rejects_string_X():
    with pytest.raises(TypeError, match="X must be numeric, got dtype <U1"):
        distributed.shard_rows(np.array([["a"], ["b"]]), mesh=distributed.make_mesh(1))


def test_initialize_rejects_unknown_cpu_collectives():
    with pytest.raises(ValueError, match="cpu_collectives must be 'gloo' or 'mpi', got 'nccl'"):
        distributed.initialize("localhost:1", 1, 0, cpu_collectives="nccl")


def test_kneighbors_rejects_n_neighbors_above_the_rows_of_a_device():
    mesh = distributed.make_mesh(1)
    Xs, _, ws = distributed.shard_rows(np.ones((3, 2)), mesh=mesh)
    with pytest.raises(ValueError, match="n_neighbors must be <= 3, got 4"):
        distributed.kneighbors(Xs, np.ones((1, 2)), 4, mesh=mesh, sample_weight=ws)


def test_kneighbors_k_is_a_deprecated_spelling_of_n_neighbors():
    mesh = distributed.make_mesh(1)
    X = np.arange(12.0).reshape(6, 2)
    Xs, _, ws = distributed.shard_rows(X, mesh=mesh)
    new = distributed.kneighbors(Xs, X[:2] + 0.1, n_neighbors=2, mesh=mesh, sample_weight=ws)
    with pytest.warns(DeprecationWarning, match="n_neighbors"):
        old = distributed.kneighbors(Xs, X[:2] + 0.1, k=2, mesh=mesh, sample_weight=ws)
    np.testing.assert_array_equal(old[1], new[1])
    np.testing.assert_array_equal(old[0], new[0])


def test_kneighbors_rejects_a_non_mesh():
    with pytest.raises(TypeError, match="mesh must be a jax.sharding.Mesh, got int"):
        distributed.kneighbors(np.ones((3, 2)), np.ones((1, 2)), 1, mesh=1)
