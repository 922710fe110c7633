"""The persistent compilation cache that ``import jaxclassic`` turns on (jaxclassic/_cache.py).

Each case runs in a fresh Python process (JAX reads its cache settings once per process, and
this suite configures its own cache in conftest.py), with ``HOME`` and ``XDG_CACHE_HOME`` in
``tmp_path`` so the user's real cache is never touched. What is served from the cache is read
from JAX's own debug log lines ("Writing jit__fit_logistic to persistent compilation cache",
"Persistent compilation cache hit for 'jit__fit_logistic'"), not from timings.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from jaxclassic import _cache

ROOT = Path(__file__).resolve().parents[1]

_PROBE = r"""
import json, logging, sys

class Lines(logging.Handler):
    lines = []
    def emit(self, record):
        Lines.lines.append(record.getMessage())

for name in ("jax._src.compiler", "jax._src.compilation_cache"):
    log = logging.getLogger(name)
    log.setLevel(logging.DEBUG)
    log.addHandler(Lines())

import jax
import jaxclassic

if sys.argv[1] == "fit":
    import numpy as np
    from jaxclassic.estimators import LogisticRegression

    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = (X[:, 0] + 0.5 * rng.normal(size=40) > 0).astype(int)
    LogisticRegression().fit(X, y).predict(X)

print(json.dumps({
    "dir": jax.config.jax_compilation_cache_dir,
    "min_compile_time": jax.config.jax_persistent_cache_min_compile_time_secs,
    "written": [l.split()[1] for l in Lines.lines if l.startswith("Writing ")],
    "hits": [l.split("'")[1] for l in Lines.lines if l.startswith("Persistent compilation cache hit")],
}))
"""


def _probe(tmp_path: Path, mode: str, **env_overrides) -> dict:
    env = dict(os.environ)
    for name in ("JAX_COMPILATION_CACHE_DIR", "JAXCLASSIC_JAX_CACHE", _cache.OPT_OUT_ENV):
        env.pop(name, None)
    env.update(HOME=str(tmp_path / "home"), XDG_CACHE_HOME=str(tmp_path / "xdg"),
               JAX_PLATFORMS="cpu")
    env.update(env_overrides)
    out = subprocess.run([sys.executable, "-c", _PROBE, mode], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.full
def test_second_process_loads_the_fit_from_the_default_cache(tmp_path):
    cache_dir = tmp_path / "xdg" / "jaxclassic" / "jax"
    first = _probe(tmp_path, "fit")
    assert first["dir"] == str(cache_dir)
    assert first["min_compile_time"] == _cache.MIN_COMPILE_TIME_SECS
    assert "jit__fit_logistic" in first["written"]
    assert first["hits"] == []
    assert any(p.name.startswith("jit__fit_logistic") for p in cache_dir.iterdir())

    second = _probe(tmp_path, "fit")
    assert second["dir"] == str(cache_dir)
    # the fit program is loaded, not compiled: no new entry for it
    assert "jit__fit_logistic" in second["hits"]
    assert "jit__fit_logistic" not in second["written"]


@pytest.mark.full
def test_opt_out_environment_variable_leaves_the_cache_off(tmp_path):
    out = _probe(tmp_path, "import", **{_cache.OPT_OUT_ENV: "1"})
    assert out["dir"] is None
    assert not (tmp_path / "xdg").exists()


@pytest.mark.full
def test_users_own_cache_dir_is_kept(tmp_path):
    mine = tmp_path / "mine"
    out = _probe(tmp_path, "import", JAX_COMPILATION_CACHE_DIR=str(mine))
    assert out["dir"] == str(mine)
    assert out["min_compile_time"] == 1.0  # JAX's default: the user's settings are untouched
    assert not (tmp_path / "xdg").exists()


@pytest.mark.full
def test_unwritable_cache_location_imports_without_a_cache(tmp_path):
    blocker = tmp_path / "xdg"
    blocker.write_text("a file where the cache directory's parent should be")
    out = _probe(tmp_path, "import")
    assert out["dir"] is None


@pytest.mark.parametrize("value, opted_out", [("", False), ("0", False), ("false", False),
                                               ("1", True), ("yes", True)])
@pytest.mark.full
def test_opt_out_values(monkeypatch, value, opted_out):
    monkeypatch.setenv(_cache.OPT_OUT_ENV, value)
    assert _cache._opted_out() is opted_out


def test_default_cache_dir_follows_xdg_then_home(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "x"))
    assert _cache.default_cache_dir() == tmp_path / "x" / "jaxclassic" / "jax"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/ignored")  # XDG: relative paths are invalid
    monkeypatch.setenv("HOME", str(tmp_path / "h"))
    assert _cache.default_cache_dir() == tmp_path / "h" / ".cache" / "jaxclassic" / "jax"
