"""JAX's persistent compilation cache, on by default in a user cache directory.

Compilation dominates a first call in a fresh process: a first
``LogisticRegression().fit`` on breast_cancer spends about two thirds of its time in XLA's
compiler. JAX can store every compiled program on disk and load it in the next process
instead of compiling again (its *persistent compilation cache*); a cache key holds the
program, the jax/jaxlib version, the backend and the compiler flags, so an entry is never
reused for a different computation. JAX leaves that cache off until a directory is given;
``import jaxclassic`` gives one, unless the user has decided already:

* ``jax_compilation_cache_dir`` already set (by ``jax.config.update`` before the import, or
  the ``JAX_COMPILATION_CACHE_DIR`` environment variable): left as it is, with the user's
  thresholds;
* ``JAXCLASSIC_NO_COMPILATION_CACHE`` set to anything but ``""``/``0``/``false``/``no``:
  no cache (JAX's default);
* otherwise the cache lives in ``$XDG_CACHE_HOME/jaxclassic/jax`` (``~/.cache/jaxclassic/jax``
  when ``XDG_CACHE_HOME`` is unset; ``%LOCALAPPDATA%\\jaxclassic\\jax`` on Windows), with
  :data:`MIN_COMPILE_TIME_SECS` (programs that compile faster are not worth a disk read) and
  :data:`MAX_SIZE_BYTES` (least recently used entries evicted beyond it; needs the
  ``filelock`` package, otherwise the size is not bounded, as JAX's default).

The directory is created if needed; if it cannot be created or written, the cache stays off
silently (a debug message on the ``jaxclassic`` logger) and the import goes on. Settings
changed with ``jax.config.update`` after the import win, provided they come before the first
compilation (JAX reads the cache settings once, when it first compiles).

To empty the cache, delete the directory (:func:`default_cache_dir`).
"""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

__all__ = ["OPT_OUT_ENV", "MIN_COMPILE_TIME_SECS", "MAX_SIZE_BYTES", "default_cache_dir",
           "enable_default_cache"]

logger = logging.getLogger("jaxclassic")

#: environment variable that turns the default cache off
OPT_OUT_ENV = "JAXCLASSIC_NO_COMPILATION_CACHE"
#: programs compiling in less than this many seconds are not written to the cache (JAX: 1 s;
#: most of a family's fit programs compile in 0.1 - 1 s, and a cached load costs milliseconds)
MIN_COMPILE_TIME_SECS = 0.1
#: cache size beyond which the least recently used entries are deleted (1 GiB)
MAX_SIZE_BYTES = 1 << 30


def default_cache_dir() -> Path:
    """The directory of the default cache: ``$XDG_CACHE_HOME/jaxclassic/jax`` or
    ``~/.cache/jaxclassic/jax`` (``%LOCALAPPDATA%\\jaxclassic\\jax`` on Windows)."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not base and sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA", "")
    root = Path(base) if base and os.path.isabs(base) else Path.home() / ".cache"
    return root / "jaxclassic" / "jax"


def _opted_out() -> bool:
    value = os.environ.get(OPT_OUT_ENV, "").strip().lower()
    return value not in ("", "0", "false", "no")


def _writable_dir(path: Path) -> bool:
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        logger.debug("jaxclassic: no compilation cache, cannot create %s: %s", path, exc)
        return False
    if not os.access(path, os.W_OK | os.X_OK):
        logger.debug("jaxclassic: no compilation cache, %s is not writable", path)
        return False
    return True


def enable_default_cache() -> Path | None:
    """Point JAX's persistent compilation cache at :func:`default_cache_dir` unless the user
    configured one or opted out (module docstring). Never raises.

    Returns
    -------
    path : pathlib.Path or None
        The cache directory set here, or None when this call set nothing.

    Examples
    --------
    >>> from jaxclassic._cache import enable_default_cache
    >>> enable_default_cache()  # already done (or declined) by ``import jaxclassic``: no-op
    """
    try:
        if _opted_out():
            logger.debug("jaxclassic: compilation cache off (%s is set)", OPT_OUT_ENV)
            return None
        import jax

        if jax.config.jax_compilation_cache_dir:  # the user's own choice
            return None
        path = default_cache_dir()
        if not _writable_dir(path):
            return None
        jax.config.update("jax_compilation_cache_dir", str(path))
        if "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS" not in os.environ:
            jax.config.update("jax_persistent_cache_min_compile_time_secs", MIN_COMPILE_TIME_SECS)
        if "JAX_COMPILATION_CACHE_MAX_SIZE" not in os.environ and _has_filelock():
            jax.config.update("jax_compilation_cache_max_size", MAX_SIZE_BYTES)
        logger.debug("jaxclassic: persistent compilation cache at %s", path)
        return path
    except Exception as exc:  # a cache is an optimisation: never fail the import for it
        logger.debug("jaxclassic: compilation cache not set: %r", exc)
        return None


def _has_filelock() -> bool:
    import importlib.util

    return importlib.util.find_spec("filelock") is not None
