"""The persistent cache of compiled executables (jaxclassic/_executables.py).

The round trips run in fresh Python processes (the cache exists to serve a *new* process),
with ``XDG_CACHE_HOME`` in ``tmp_path`` so the user's real cache is never touched and with
the suite's opt-out (conftest.py) removed from the child's environment. What is loaded rather
than built is read from JAX's own events: a program traced and lowered in the child fires
``/jax/core/compile/jaxpr_to_mlir_module_duration`` with its function's name; a program
served by this cache fires nothing. The keys are checked in this process, without compiling.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxclassic import _executables

ROOT = Path(__file__).resolve().parents[1]

# LogisticRegression calls LAPACK (Newton steps: an executable loaded without LAPACK's kernels
# initialised crashes the process); the tree draws from a typed PRNG key and bins on the host.
_PROBE = r"""
import json, sys
import jax, jax.monitoring
lowered = []
jax.monitoring.register_event_duration_secs_listener(
    lambda event, secs, **kw: lowered.append(kw.get("fun_name", "?"))
    if event == "/jax/core/compile/jaxpr_to_mlir_module_duration" else None)
import numpy as np
import jaxclassic.estimators as jc

rng = np.random.default_rng(0)
X = rng.normal(size=(60, 3))
y = (X[:, 0] + 0.5 * rng.normal(size=60) > 0).astype(int)
X_new = rng.normal(size=(25, 3))
out = {"lowered": lowered}
for name, est in [("lr", jc.LogisticRegression()), ("tree", jc.DecisionTreeClassifier(random_state=0))]:
    out[name] = np.asarray(est.fit(X, y).predict_proba(X_new)).tolist()
print(json.dumps(out))
"""

FIT_PROGRAMS = ("_fit_logistic", "_fit_binned")


def _probe(tmp_path: Path, cache: bool, devices: int = 1) -> dict:
    env = dict(os.environ)
    for name in ("JAX_COMPILATION_CACHE_DIR", "JAXCLASSIC_JAX_CACHE", "JAXCLASSIC_NO_COMPILATION_CACHE",
                 _executables.OPT_OUT_ENV):
        env.pop(name, None)
    if not cache:
        env[_executables.OPT_OUT_ENV] = "1"
    env.update(HOME=str(tmp_path / "home"), XDG_CACHE_HOME=str(tmp_path / "xdg"), JAX_PLATFORMS="cpu")
    code = _PROBE if devices == 1 else _PROBE.replace(
        "import jax, jax.monitoring", f"import jax, jax.monitoring\njax.config.update('jax_num_cpu_devices', {devices})")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True,
                         text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def _entries(tmp_path: Path) -> list[Path]:
    folder = tmp_path / "xdg" / "jaxclassic" / "jax" / _executables.SUBDIR
    return sorted(folder.glob("*.jcx")) if folder.exists() else []


@pytest.fixture(scope="module")
def round_trip(tmp_path_factory):
    """Three children on one cache directory: without the cache, writing it, reading it."""
    tmp_path = tmp_path_factory.mktemp("executables")
    off = _probe(tmp_path, cache=False)
    assert _entries(tmp_path) == []  # off means off: nothing written
    writing = _probe(tmp_path, cache=True)
    entries = {p.name: p.stat().st_size for p in _entries(tmp_path)}
    reading = _probe(tmp_path, cache=True)
    return tmp_path, off, writing, reading, entries


def test_a_new_process_loads_the_fits_without_tracing_them(round_trip):
    _, off, writing, reading, entries = round_trip
    for name in FIT_PROGRAMS:
        assert any(name in f for f in off["lowered"]), (name, off["lowered"])
        assert any(name in f for f in writing["lowered"])
        assert not any(name in f for f in reading["lowered"]), reading["lowered"]
    assert len(entries) >= 4 and all(size > 1000 for size in entries.values())


def test_loaded_programs_give_the_same_results_to_the_bit(round_trip):
    _, off, writing, reading, _ = round_trip
    for name in ("lr", "tree"):
        np.testing.assert_array_equal(writing[name], off[name])
        np.testing.assert_array_equal(reading[name], off[name])


def test_an_unreadable_entry_is_compiled_again(round_trip):
    tmp_path, off, _, _, entries = round_trip
    for path in _entries(tmp_path):
        path.write_bytes(b"not an executable")
    again = _probe(tmp_path, cache=True)
    for name in FIT_PROGRAMS:  # built again, and written again
        assert any(name in f for f in again["lowered"])
    for name in ("lr", "tree"):
        np.testing.assert_array_equal(again[name], off[name])
    rewritten = {p.name: p.stat().st_size for p in _entries(tmp_path)}
    assert rewritten.keys() == entries.keys() and min(rewritten.values()) > 1000  # not the junk


def test_a_damaged_entry_is_caught_by_its_checksum(round_trip):
    # one flipped bit in the middle of each entry: XLA's deserializer would trust it (a
    # user's check crashed a process, or loaded a program computing other numbers)
    tmp_path, off, _, _, _ = round_trip
    for path in _entries(tmp_path):
        data = bytearray(path.read_bytes())
        data[len(data) // 2] ^= 0x10
        path.write_bytes(bytes(data))
    again = _probe(tmp_path, cache=True)
    for name in FIT_PROGRAMS:
        assert any(name in f for f in again["lowered"])
    for name in ("lr", "tree"):
        np.testing.assert_array_equal(again[name], off[name])


def test_a_process_with_several_devices_loads_its_programs_for_the_default_device(round_trip, tmp_path):
    # the CPU's cores as devices (jaxclassic._cores): an executable saved by such a process
    # was loaded for every device and its first call failed ("Expected args to
    # execute_sharded_on_local_devices to have 2 shards, got: [1, 1]")
    _, off, _, _, _ = round_trip
    writing = _probe(tmp_path, cache=True, devices=2)
    reading = _probe(tmp_path, cache=True, devices=2)
    for name in FIT_PROGRAMS:
        assert any(name in f for f in writing["lowered"])
        assert not any(name in f for f in reading["lowered"]), reading["lowered"]
    for name in ("lr", "tree"):
        np.testing.assert_array_equal(reading[name], off[name])


# ------------------------------------------------------------------ keys, in this process


def _toy(x, scale, *, mode="a"):
    return x * scale if mode == "a" else x - scale


def _cache_for(fun, **options):
    return _executables.Executables(fun, jax.jit(fun, **options), options, {"opt": False})


def _key(cache, *args, **kwargs):
    """The in-memory key and the file name of a call, without compiling."""
    seen = {}

    def fake_load_or_compile(args_, kwargs_, key):
        seen["key"] = key
        return lambda *a, **k: None

    cache._load_or_compile = fake_load_or_compile
    cache._memory.clear()
    assert cache.call(args, kwargs) is None
    return seen["key"], cache._disk_name(seen["key"])


def test_keys_follow_shapes_dtypes_and_static_values():
    cache = _cache_for(_toy, static_argnames=("mode",))
    x = np.ones((3, 2))
    base = _key(cache, x, 2.0, mode="a")
    assert _key(cache, np.zeros((3, 2)), 5.0, mode="a")[1] == base[1]  # values are not in the key
    others = [_key(cache, np.ones((4, 2)), 2.0, mode="a"),  # shape
              _key(cache, x.astype(np.float32), 2.0, mode="a"),  # dtype
              _key(cache, x, 2, mode="a"),  # a Python int is another weak type
              _key(cache, x, np.float64(2.0), mode="a"),  # a NumPy scalar is not weakly typed
              _key(cache, x, 2.0, mode="b")]  # static value
    names = [base[1]] + [name for _, name in others]
    assert len(set(names)) == len(names)


def test_keys_follow_the_package_source_and_versions(monkeypatch):
    cache = _cache_for(_toy, static_argnames=("mode",))
    key, name = _key(cache, np.ones(3), 1.0)
    monkeypatch.setitem(_executables._state, "env", _executables._environment() + "edited")
    assert cache._disk_name(key) != name


def test_static_positions_and_names_resolve_as_jax_jit_does():
    cache = _cache_for(_toy, static_argnames=("scale",))
    key_kw, _ = _key(cache, np.ones(3), scale=2.0)
    key_pos, _ = _key(cache, np.ones(3), 2.0)
    # static either way: in the statics, not among the traced leaves
    assert key_kw[1] == key_pos[1] == (((3,), "float64", False),)
    cache = _cache_for(_toy, static_argnums=(1,))
    key, _ = _key(cache, np.ones(3), 7)
    assert key[2][0] == ((1, 7),)


def test_only_plain_module_level_functions_qualify():
    def local(x):
        return x

    scale = 2.0
    closure = lambda x: x * scale  # noqa: E731
    assert _executables.Executables.qualifies(_toy, {"static_argnames": ("mode",)})
    assert not _executables.Executables.qualifies(local, {})
    assert not _executables.Executables.qualifies(closure, {})
    assert not _executables.Executables.qualifies(functools.partial(_toy, scale=1.0), {})
    assert not _executables.Executables.qualifies(_toy, {"donate_argnums": (0,)})


def test_calls_that_do_not_qualify_are_left_to_jax_jit():
    cache = _cache_for(_toy)
    sharded = jax.device_put(jnp.ones(4), jax.devices()[-1]) if jax.device_count() > 1 else None
    assert cache.call((object(), 1.0), {}) is NotImplemented  # not an array
    if sharded is not None:  # an array away from the default device
        assert cache.call((sharded, 1.0), {}) is NotImplemented


def test_the_cache_lives_in_jaxs_and_is_off_with_either_opt_out(monkeypatch):
    monkeypatch.delenv(_executables.OPT_OUT_ENV, raising=False)
    monkeypatch.delenv("JAXCLASSIC_NO_COMPILATION_CACHE", raising=False)
    # the suite's JAX cache (conftest.py)
    assert _executables.cache_dir() == Path(jax.config.jax_compilation_cache_dir) / _executables.SUBDIR
    monkeypatch.setenv(_executables.OPT_OUT_ENV, "1")
    assert _executables.cache_dir() is None
    monkeypatch.setenv(_executables.OPT_OUT_ENV, "0")
    monkeypatch.setenv("JAXCLASSIC_NO_COMPILATION_CACHE", "yes")
    assert _executables.cache_dir() is None
