"""Test configuration (tests and doctests): float64 on, so comparisons with hand derivations and references can be
tight. Float32 behaviour is tested by passing float32 inputs explicitly (the core keeps the
input's float dtype)."""

import jax

jax.config.update("jax_enable_x64", True)
