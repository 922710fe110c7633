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
