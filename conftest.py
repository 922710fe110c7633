"""Test configuration (tests and doctests): float64 on, so comparisons with hand derivations and references can be
tight. Float32 behaviour is tested by passing float32 inputs explicitly (the core keeps the
input's float dtype).

Compilation dominates the suite's time, and the two xdist workers (and many tests) compile
the same programs: JAX's persistent compilation cache (``.jax_cache/`` in the checkout, or
``$JAXCLASSIC_JAX_CACHE``) lets a program compiled once be loaded by every later test and
worker. Its keys include the program, the jax version and the flags, so an entry is never
reused for a different computation.
"""

import os
from pathlib import Path

import jax

jax.config.update("jax_enable_x64", True)
jax.config.update(
    "jax_compilation_cache_dir",
    os.environ.get("JAXCLASSIC_JAX_CACHE", str(Path(__file__).resolve().parent / ".jax_cache")),
)
jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.5)
jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)


# --------------------------------------------------------------------------- memory maps
# Every compiled XLA CPU executable holds a few memory mappings, and JAX keeps every compiled
# program alive in its in-process caches. A test worker compiles thousands of programs
# (scikit-learn's checks alone fit ~35 estimators at many shapes) and reached Linux's default
# limit of 65,530 mappings per process (vm.max_map_count), where XLA's compiler segfaults
# (seen in this suite: "Fatal Python error: Segmentation fault" in backend_compile_and_load).
# Every 20 tests, when the process holds more than MAX_MAPS mappings, the in-process caches
# are cleared; programs needed again reload from the persistent cache above.
import gc  # noqa: E402

import pytest  # noqa: E402

MAX_MAPS = 30_000
_COUNTER = {"tests": 0}


def _n_maps() -> int:
    try:
        with open("/proc/self/maps", "rb") as fh:
            return sum(1 for _ in fh)
    except OSError:  # not Linux: no such limit to watch
        return 0


@pytest.fixture(autouse=True)
def _bounded_memory_maps():
    yield
    _COUNTER["tests"] += 1
    if _COUNTER["tests"] % 20 == 0 and _n_maps() > MAX_MAPS:
        jax.clear_caches()
        gc.collect()
