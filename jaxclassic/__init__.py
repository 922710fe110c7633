"""jaxclassic: the classical machine-learning canon in JAX.

Importing jaxclassic turns on JAX's persistent compilation cache in a user cache directory
(``~/.cache/jaxclassic/jax``), unless ``jax_compilation_cache_dir`` is already configured or
the environment variable ``JAXCLASSIC_NO_COMPILATION_CACHE`` is set: see
:mod:`jaxclassic._cache`.
"""

from jaxclassic._cache import enable_default_cache as _enable_default_cache

__version__ = "0.2.0"

_enable_default_cache()
