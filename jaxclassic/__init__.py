"""jaxclassic: the classical machine-learning canon in JAX."""

__version__ = "0.1.0"
