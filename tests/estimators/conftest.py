"""Fixtures of the estimator tests."""

import jax
import pytest


@pytest.fixture
def x64_off():
    """Run a test in the default configuration (``jax_enable_x64`` off; the root conftest
    switches it on for the suite), restoring the flag afterwards."""
    old = jax.config.read("jax_enable_x64")
    jax.config.update("jax_enable_x64", False)
    yield
    jax.config.update("jax_enable_x64", old)
