"""A persistent cache of compiled programs that skips tracing and lowering (issue 25).

JAX's persistent compilation cache (:mod:`jaxclassic._cache`) saves XLA's compilation in a
new process, but not what comes before it: each program is still traced to a jaxpr and
lowered to an MLIR module, whose hash is the cache key. On a small table that is most of a
first fit (a warm-cache ``DecisionTreeClassifier().fit`` on breast_cancer: 12 programs,
0.36 s tracing, 0.27 s lowering, and 0.43 s compiling the ten programs too quick to compile to
pass JAX's write threshold, out of 1.2 s).

This module keys a compiled program by what decides it before tracing, and stores the
compiled executable itself (``jax.experimental.serialize_executable``), so that a later
process loads it without tracing, lowering or compiling. The key holds:

* the function's definition site (module, qualified name, file and first line) and a hash
  of the source files of the installed ``jaxclassic`` package (:func:`source_hash`): any edit
  of the package gives every program a new key;
* the call's signature as ``jax.jit`` sees it: the pytree structure of the dynamic
  arguments, each leaf's shape, dtype and weak type, and the values of the static
  arguments;
* jax and jaxlib versions, the backend's platform and version and the device kind, the
  compiler options, and JAX's trace context (``jax_enable_x64``, the default matmul
  precision, the dtype promotion rules...).

What the key cannot see is a global that a function reads while it is traced and that
someone changes at run time (a module constant patched by a test, say): such a change would
not reach a program loaded from this cache. The package reads no such global on a fit's
path except through its static arguments and the backend; the test suite turns this cache
off (``tests/conftest.py``) because tests patch module constants.

Only calls that qualify take this path (:meth:`Executables.call`, from
:class:`jaxclassic._jit.jit`): top-level calls on the CPU (not inside ``jit``, ``vmap`` or
``grad``) of a plain module-level function (no closure, no ``functools.partial``), whose
array arguments are NumPy arrays, NumPy or Python scalars, or ``jax.Array`` s on the default
device alone (an array sharded over the CPU's cores goes to ``jax.jit``), and whose static
arguments are described without memory addresses (module-level functions by name). Others go
through ``jax.jit`` as before; on a GPU or TPU every call does (not yet measured there). A program whose executable JAX cannot serialize (one
closing over constants) is kept in memory for this process only.

Where it lives and how to turn it off: a ``jaxclassic-executables`` folder inside JAX's
persistent cache directory (so it is on exactly when that cache is, and deleting that
directory empties both), at most :data:`MAX_BYTES` (oldest entries deleted beyond it); the
environment variable ``JAXCLASSIC_NO_EXECUTABLE_CACHE`` (anything but ``""``, ``0``,
``false``, ``no``) turns it off, as does ``JAXCLASSIC_NO_COMPILATION_CACHE``. Each entry starts
with a BLAKE2b checksum of the rest, checked before anything is unpickled or handed to XLA
(whose deserializer trusts its bytes: one flipped bit crashed a process or loaded a program
computing other numbers); an entry that fails it, or cannot be read (truncated, from another
build), is deleted and compiled again. Loading an
entry unpickles it: the directory must be the user's own, as for JAX's own cache.
"""

from __future__ import annotations

import hashlib
import inspect
import logging
import os
import pickle
import re
import tempfile
from pathlib import Path

import jax
import numpy as np
from jax.sharding import SingleDeviceSharding

__all__ = ["OPT_OUT_ENV", "MAX_BYTES", "SUBDIR", "Executables", "cache_dir", "source_hash"]

logger = logging.getLogger("jaxclassic")

#: environment variable that turns this cache off
OPT_OUT_ENV = "JAXCLASSIC_NO_EXECUTABLE_CACHE"
#: the folder, inside JAX's persistent cache directory, holding the entries
SUBDIR = "jaxclassic-executables"
#: total size of the entries beyond which the least recently written are deleted (256 MiB)
MAX_BYTES = 256 << 20
_SUFFIX = ".jcx"
#: bytes of the BLAKE2b checksum that starts every entry (checked before anything is unpickled)
_DIGEST = 32
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")

_state: dict = {}


def _off(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() not in ("", "0", "false", "no")


def cache_dir() -> Path | None:
    """The entries' directory: :data:`SUBDIR` inside ``jax_compilation_cache_dir``, or None
    when the cache is off (no JAX cache directory, or an opt-out variable set)."""
    if _off(OPT_OUT_ENV) or _off("JAXCLASSIC_NO_COMPILATION_CACHE"):
        return None
    root = jax.config.jax_compilation_cache_dir
    return Path(root) / SUBDIR if root else None


def active_dir() -> Path | None:
    """:func:`cache_dir` as this process first found it (read once: ~12 us a call otherwise;
    JAX, too, reads its cache settings once, at its first compilation)."""
    if "dir" not in _state:
        _state["dir"] = cache_dir()
    return _state["dir"]


def source_hash() -> str:
    """BLAKE2b of every ``.py`` file of the installed package (relative path and bytes),
    computed once per process (about 10 ms for the package's 2 MB)."""
    if "source" not in _state:
        root = Path(__file__).resolve().parent
        h = hashlib.blake2b(digest_size=16)
        for path in sorted(root.rglob("*.py")):
            h.update(str(path.relative_to(root)).encode())
            h.update(path.read_bytes())
        _state["source"] = h.hexdigest()
    return _state["source"]


def _environment() -> str:
    """Versions, backend and device: the part of a key that no call changes."""
    if "env" not in _state:
        import jaxlib

        device = jax.devices()[0]
        _state["env"] = repr((source_hash(), jax.__version__, jaxlib.__version__, device.platform,
                              getattr(device.client, "platform_version", ""), device.device_kind,
                              jax.device_count()))
    return _state["env"]


def _default_device():
    if "device" not in _state:
        _state["device"] = jax.devices()[0]
    return _state["device"]


def _leaf_signature(x):
    """``(shape, dtype, weak)`` as ``jax.jit`` abstracts the leaf, or None when the leaf does
    not qualify (a sharded or non-default-device array, an object JAX would reject). The dtype
    object itself, not its name: ``str(dtype)`` costs 5 us, the whole check well under 1 us."""
    t = type(x)
    if t is np.ndarray:
        return (x.shape, x.dtype, False)
    if isinstance(x, jax.Array):
        sharding = x.sharding
        if type(sharding) is not SingleDeviceSharding or sharding._device != _default_device():
            return None
        return (x.shape, x.dtype, bool(getattr(x, "weak_type", False)))
    if isinstance(x, np.ndarray):
        return (x.shape, x.dtype, False)
    if isinstance(x, np.generic):
        return ((), x.dtype, False)
    if t in (bool, int, float, complex):  # Python scalars: weakly typed, the value not in the program
        return t.__name__
    return None


def _describe(value):
    """A static argument as the key describes it: a plain module-level function (a loss
    passed as a static argument, say) by its module and qualified name, which is the same in
    every process (its ``repr`` holds its address); containers element by element; other
    values as they are (their ``repr`` is used)."""
    if isinstance(value, tuple):
        return tuple(_describe(v) for v in value)
    code = getattr(value, "__code__", None)
    if (code is not None and not getattr(value, "__closure__", None)
            and "<" not in getattr(value, "__qualname__", "<")):
        return f"function {value.__module__}.{value.__qualname__} ({os.path.basename(code.co_filename)}:{code.co_firstlineno})"
    return value


class Executables:
    """The cache of one jitted function's compiled programs (memory, then disk).

    Parameters
    ----------
    fun : callable
        The function (must qualify: :func:`qualifies`).
    jitted : jax.stages.Wrapped
        ``jax.jit(fun, ...)`` with the options whose programs are cached.
    options : dict
        ``jax.jit``'s keyword arguments (``static_argnums`` / ``static_argnames`` are read).
    compiler_options : dict
        The compiler options, part of the key.
    """

    def __init__(self, fun, jitted, options, compiler_options):
        self._fun, self._jitted, self._options = fun, jitted, options
        self._memory: dict = {}
        self._site = repr((fun.__module__, fun.__qualname__, os.path.basename(fun.__code__.co_filename),
                           fun.__code__.co_firstlineno, sorted(compiler_options.items())))
        self._static_pos = self._static_names = None  # on the first call: no import-time cost

    def _statics(self):
        """The static positions and names, as ``jax.jit`` resolves them from the signature."""
        params = list(inspect.signature(self._fun).parameters.values())
        positional = [p.name for p in params
                      if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        nums = self._options.get("static_argnums", ()) or ()
        nums = (nums,) if isinstance(nums, int) else tuple(nums)
        names = self._options.get("static_argnames", ()) or ()
        names = (names,) if isinstance(names, str) else tuple(names)
        pos = frozenset(n + len(positional) if n < 0 else n for n in nums) | frozenset(
            positional.index(n) for n in names if n in positional)
        self._static_names = frozenset(names) | frozenset(
            positional[i] for i in pos if 0 <= i < len(positional))
        self._static_pos = pos

    @staticmethod
    def qualifies(fun, options) -> bool:
        """A plain module-level function without closure, and options this cache handles."""
        code = getattr(fun, "__code__", None)
        return (code is not None and not getattr(fun, "__closure__", None)
                and "<locals>" not in getattr(fun, "__qualname__", "<locals>")
                and not options.get("donate_argnums") and not options.get("donate_argnames")
                and set(options) <= {"static_argnums", "static_argnames"})

    def size(self) -> int:
        """Programs held in memory."""
        return len(self._memory)

    def clear(self) -> None:
        self._memory.clear()

    def call(self, args, kwargs):
        """Run the call through a cached executable; ``NotImplemented`` when it does not
        qualify (the caller then uses ``jax.jit``)."""
        from jax._src import config as _config

        if self._static_pos is None:
            self._statics()
        if not self._static_pos and not self._static_names:
            dyn_args, dyn_kwargs, statics = args, kwargs, ((), ())
        else:
            dyn_args = tuple(a for i, a in enumerate(args) if i not in self._static_pos)
            dyn_kwargs = {k: v for k, v in kwargs.items() if k not in self._static_names}
            statics = (tuple((i, a) for i, a in enumerate(args) if i in self._static_pos),
                       tuple(sorted((k, v) for k, v in kwargs.items() if k in self._static_names)))
        leaves, tree = jax.tree_util.tree_flatten((dyn_args, dyn_kwargs))
        signature = []
        for leaf in leaves:
            s = _leaf_signature(leaf)
            if s is None:
                logger.debug("jaxclassic: %s not cached: argument %s", self._site, type(leaf).__name__)
                return NotImplemented
            signature.append(s)
        try:
            key = (tree, tuple(signature), statics, _config.trace_context())
            compiled = self._memory.get(key)
        except TypeError:  # an unhashable static argument: let jax.jit say so
            return NotImplemented
        if compiled is None:
            compiled = self._load_or_compile(args, kwargs, key)
            self._memory[key] = compiled
        return compiled(*dyn_args, **dyn_kwargs)

    def _disk_name(self, key) -> str | None:
        tree, signature, statics, context = key
        described = repr((self._site, tree, signature, _describe(statics)))
        if _ADDRESS.search(described):  # an object named by its address: not the same next time
            logger.debug("jaxclassic: %s kept in memory only: %s", self._site, _ADDRESS.search(described).string[:300])
            return None
        context = _ADDRESS.sub("", repr(context))  # the (empty, top-level) axis environment
        text = repr((_environment(), described, context, jax.config.jax_enable_x64))
        return hashlib.blake2b(text.encode(), digest_size=20).hexdigest() + _SUFFIX

    def _load_or_compile(self, args, kwargs, key):
        folder = active_dir()
        name = self._disk_name(key) if folder is not None else None
        if name is not None:
            compiled = _load(folder / name)
            if compiled is not None:
                return compiled
        lowered = self._jitted.lower(*args, **kwargs)
        if name is None:
            return lowered.compile()
        compiled = _compile_fresh(lowered)
        _store(folder, name, compiled)
        return compiled


def _compile_fresh(lowered):
    """``lowered.compile()`` with JAX's persistent cache bypassed.

    An executable that JAX loaded from its own cache serializes without its compiled kernels
    (jaxlib 0.10.2, CPU): stored again and loaded in a new process, it fails with
    ``NOT_FOUND: Function ... not found``. Programs stored here are therefore always compiled
    by XLA (once per program and package version; JAX's cache is not needed for them)."""
    from jax._src import compilation_cache

    used = compilation_cache.is_cache_used
    compilation_cache.is_cache_used = lambda backend: False
    try:
        return lowered.compile()
    finally:
        compilation_cache.is_cache_used = used


def _runtime_ready() -> None:
    """Load what an executable may call but only lowering would load: on the CPU, the LAPACK
    kernels behind ``cholesky``, ``solve``, ``eigh``... (``jaxlib``'s ``_lapack.initialize``,
    which JAX runs when it lowers a linear-algebra op; an executable loaded without it calls a
    null kernel and crashes the process)."""
    if "runtime" not in _state:
        from jax._src.lax import linalg

        linalg.initialize_lapack()
        _state["runtime"] = True


def _load(path: Path):
    from jax.experimental import serialize_executable

    try:
        _runtime_ready()
        with open(path, "rb") as fh:
            data = fh.read()
        digest, blob = data[:_DIGEST], data[_DIGEST:]
        # XLA trusts the bytes it deserializes: a damaged entry (one flipped bit) can crash the
        # process or load a program that computes something else, so the checksum comes first
        if len(data) <= _DIGEST or hashlib.blake2b(blob, digest_size=_DIGEST).digest() != digest:
            raise ValueError("checksum mismatch")
        payload, in_tree, out_tree = pickle.loads(blob)
        # the programs cached run on the default device alone; left to itself, JAX loads an
        # executable for every device of the backend, and in a process with several (the CPU's
        # cores as devices, a multi-GPU host) its first call then fails ("Expected args to
        # execute_sharded_on_local_devices to have 2 shards, got: [1, 1]")
        return serialize_executable.deserialize_and_load(payload, in_tree, out_tree,
                                                         execution_devices=[_default_device()])
    except FileNotFoundError:
        return None
    except Exception as exc:  # unreadable or damaged: drop it, compile again
        logger.debug("jaxclassic: executable cache entry %s unreadable (%r), deleted", path, exc)
        try:
            path.unlink()
        except OSError:
            pass
        return None


def _store(folder: Path, name: str, compiled) -> None:
    from jax.experimental import serialize_executable

    unloaded = getattr(compiled._executable, "_unloaded_executable", None)
    if unloaded is None or getattr(unloaded, "host_callbacks", None) or getattr(unloaded, "keepalive", None):
        return  # Python callbacks live in this process only
    try:
        blob = pickle.dumps(serialize_executable.serialize(compiled), protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as exc:  # constants closed over, a tree that does not pickle...
        logger.debug("jaxclassic: executable not cached (%r)", exc)
        return
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, delete=False, suffix=".tmp") as fh:
            fh.write(hashlib.blake2b(blob, digest_size=_DIGEST).digest() + blob)
        os.replace(fh.name, folder / name)  # atomic: a reader sees all of an entry or none
        _evict(folder)
    except OSError as exc:
        logger.debug("jaxclassic: executable cache not written (%r)", exc)


def _evict(folder: Path) -> None:
    """Delete the oldest entries while the folder holds more than :data:`MAX_BYTES`."""
    entries = []
    for path in folder.glob("*" + _SUFFIX):
        try:
            st = path.stat()
        except OSError:
            continue
        entries.append((st.st_mtime, st.st_size, path))
    total = sum(size for _, size, _ in entries)
    for _, size, path in sorted(entries):
        if total <= MAX_BYTES:
            break
        try:
            path.unlink()
            total -= size
        except OSError:
            pass
