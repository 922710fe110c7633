"""``jax.jit`` that compiles small-data calls faster on the CPU (issues 24, 25).

XLA:CPU emits a fused loop either with its newer MLIR *fusion emitters* (the default) or with
its older elemental IR emitters (``xla_cpu_use_fusion_emitters=False``). On this project's
programs the older emitters compile in about 60 % of the time (a CART fit: 3.0 -> 1.6 s; with
the option set for the whole process, the first fits of ``benchmarks/bench_small.py``:
DecisionTreeClassifier 5.3 -> 3.1 s, RandomForestClassifier 11.4 -> 6.9 s, SVC 2.6 -> 1.6 s;
with this module's per-call rule, which leaves eager operations and the user's own jits alone:
4.2 -> 3.6 s, 10.6 -> 7.9 s, 2.05 -> 1.79 s) and the code they emit runs as fast on
small arrays, but up to 2x slower on large ones (GradientBoostingClassifier on 8,192 x 16
float32: 87 -> 150 ms; on 2,048 x 16: 48 -> 54 ms; both measured on a 2-core x86 host). A
first fit on a small table is nearly all compilation, a fit on a large one nearly all
run time, so :func:`jit` picks per call:

* the call is made at the top level (not inside ``jit``, ``vmap`` or ``grad``, whose
  programs are compiled as a whole, or not at all), the backend is the CPU, and the largest
  array argument holds at most :data:`SMALL_MAX_ELEMENTS` elements: the program is compiled
  with the older emitters;
* otherwise: XLA's defaults, exactly as ``jax.jit``.

The size looked at is the inputs'. A program whose arrays are far larger than its inputs can
be slower under the older emitters at a large size although its inputs are small: the data
generators (:mod:`jaxclassic._synthetic`, shapes from static arguments) therefore keep
``jax.jit``. Kernel methods build n x n matrices from n x d inputs; measured warm, with and
without, the Gaussian process on diabetes (442 x 10 in, 442 x 442 kernel) took 2.12-2.22 s
either way, SVC on breast_cancer 15-22 ms either way (noise of the shared host).

The two programs are separate compilations (and separate persistent-cache entries); a
function called at both sizes is traced and compiled once for each. Fitted trees are bitwise
the same under both (274 fitted arrays compared); other computations agree to rounding (the
order of a few additions may differ: 1e-14 relative on Ridge, LDA and GP fits).

``JAXCLASSIC_SMALL_MAX_ELEMENTS`` (environment, read at import) overrides the threshold; ``0``
turns the choice off (every call compiled with XLA's defaults).

Top-level calls on the CPU are also served by the package's cache of compiled executables
(:mod:`jaxclassic._executables`): a new process loads the program without tracing, lowering
or compiling it.

Inside another ``jit`` the outer program's options apply (an inner jit is inlined): a jit
of ours called in a user's ``jit`` is compiled with XLA's defaults, unless the user's jit is
itself this one.
"""

from __future__ import annotations

import functools
import math
import os

import jax
from jax._src import core as _core  # trace_state_clean: no public equivalent in jax 0.10

from jaxclassic import _executables

__all__ = ["jit", "SMALL_MAX_ELEMENTS", "SMALL_COMPILER_OPTIONS"]

#: the largest argument's element count up to which a CPU call compiles with the older emitters
SMALL_MAX_ELEMENTS = int(os.environ.get("JAXCLASSIC_SMALL_MAX_ELEMENTS", 1 << 16))

#: XLA compile options of a small call (the older elemental IR emitters)
SMALL_COMPILER_OPTIONS = {"xla_cpu_use_fusion_emitters": False}

@functools.cache
def _cpu() -> bool:
    return jax.default_backend() == "cpu"


def _top_level() -> bool:
    """Whether no transformation is tracing (``jit``, ``vmap``, ``grad``): only a top-level
    jit may carry compiler options (JAX refuses them on a jit staged into another)."""
    return _core.trace_state_clean()


def _largest(args, kwargs) -> int:
    """The most elements in one array among the arguments' leaves.

    Only array-like leaves count: a leaf whose ``shape`` is a tuple of integers. Other
    objects that happen to carry a ``shape`` (a ``jax.sharding.Mesh``, whose ``shape`` is a
    mapping from axis names to sizes) are skipped."""
    largest = 0
    for leaf in jax.tree_util.tree_leaves((args, kwargs)):
        shape = getattr(leaf, "shape", None)
        if isinstance(shape, tuple) and all(isinstance(s, int) for s in shape):
            n = math.prod(shape)
            if n > largest:
                largest = n
    return largest


class _SizedJit:
    """Two ``jax.jit`` wrappers of one function, chosen per call by argument size."""

    def __init__(self, fun, options):
        functools.update_wrapper(self, fun)
        self._default = jax.jit(fun, **options)
        self._small = jax.jit(fun, compiler_options=SMALL_COMPILER_OPTIONS, **options)
        # the compiled-executable cache, one per set of compiler options (the key holds them)
        self._executables = ((_executables.Executables(fun, self._small, options, SMALL_COMPILER_OPTIONS),
                              _executables.Executables(fun, self._default, options, {}))
                             if _executables.Executables.qualifies(fun, options) else None)

    def _pick(self, args, kwargs):
        if (SMALL_MAX_ELEMENTS > 0 and _cpu() and _top_level()
                and _largest(args, kwargs) <= SMALL_MAX_ELEMENTS):
            return self._small
        return self._default

    def __call__(self, *args, **kwargs):
        jitted = self._pick(args, kwargs)
        # a top-level call on the CPU: served by the executable cache where it qualifies
        if self._executables is not None and _cpu() and _top_level() and _executables.active_dir():
            out = self._executables[jitted is self._default].call(args, kwargs)
            if out is not NotImplemented:
                return out
        return jitted(*args, **kwargs)

    def lower(self, *args, **kwargs):
        """``jax.jit(...).lower`` of the program this call would use."""
        return self._pick(args, kwargs).lower(*args, **kwargs)

    def trace(self, *args, **kwargs):
        """``jax.jit(...).trace`` of the program this call would use."""
        return self._pick(args, kwargs).trace(*args, **kwargs)

    def eval_shape(self, *args, **kwargs):
        return self._default.eval_shape(*args, **kwargs)

    def _cache_size(self) -> int:
        """Compiled entries of both programs (``jax.jit``'s private counter, used by the tests
        that check a call does not recompile)."""
        held = sum(e.size() for e in self._executables) if self._executables is not None else 0
        return self._default._cache_size() + self._small._cache_size() + held

    def clear_cache(self) -> None:
        self._default.clear_cache()
        self._small.clear_cache()
        for cache in self._executables or ():
            cache.clear()

    def __get__(self, obj, objtype=None):  # a jitted method: bind like a function
        return self if obj is None else functools.partial(self, obj)


def jit(fun=None, /, **options):
    """``jax.jit(fun, **options)``, compiled with :data:`SMALL_COMPILER_OPTIONS` for calls whose
    largest array argument has at most :data:`SMALL_MAX_ELEMENTS` elements on the CPU.

    Parameters
    ----------
    fun : callable, optional
        The function; without it, a decorator (``@partial(jit, static_argnames=...)`` or
        ``@jit(static_argnames=...)``).
    **options
        ``jax.jit``'s keyword arguments (``static_argnames``, ``donate_argnums``...), except
        ``compiler_options``.

    Returns
    -------
    callable
        Called like ``jax.jit(fun)``; ``lower``, ``trace``, ``_cache_size`` and
        ``clear_cache`` as on a jitted function.

    Examples
    --------
    >>> import jax.numpy as jnp
    >>> from jaxclassic._jit import jit
    >>> square_sum = jit(lambda x: jnp.sum(x * x))
    >>> float(square_sum(jnp.arange(4.0)))  # 4 elements: the small program
    14.0
    """
    if "compiler_options" in options:
        raise TypeError("jaxclassic._jit.jit chooses compiler_options itself; use jax.jit for your own")
    if fun is None:
        return functools.partial(jit, **options)
    return _SizedJit(fun, options)
