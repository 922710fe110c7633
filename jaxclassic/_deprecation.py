"""Deprecation paths for renamed functions, arguments and fields (issue 27, one vocabulary).

DESIGN.md: an old spelling keeps working for one minor version and warns with a
``DeprecationWarning`` that names the new one. Every rename goes through one of the helpers
below, so the message, the warning class and the stack level are the same everywhere and a
test can find every old spelling (:data:`RENAMES` records each one when it is declared).

* :func:`renamed_function` — an old function name that calls the new function;
* :func:`renamed_arguments` — a decorator accepting old keyword names for new ones;
* :func:`renamed_fields` — a class decorator keeping old field names as warning properties
  (and telling :func:`jaxclassic.io.load` how to read files written before the rename);
* :func:`renamed_module_attributes` — a module ``__getattr__`` for old module-level names;
* :func:`key_made_keyword` — a decorator for functions whose random ``key`` used to be the
  first positional argument (now keyword-only, default ``None``): a call whose first
  positional argument is a PRNG key still works, moves the key and warns;
  :func:`key_moved` the same for a key that was at another position;
* :func:`warn` — the warning itself, for the cases the decorators do not cover (old field
  names on a result, an old return type).

The warnings are raised in Python, before any tracing or compilation.
"""

from __future__ import annotations

import functools
import inspect
import warnings

import numpy as np

__all__ = ["REMOVED_IN", "RENAMES", "warn", "renamed_function", "renamed_arguments",
           "renamed_fields", "renamed_module_attributes",
           "key_made_keyword", "key_moved", "is_prng_key"]

#: the version in which the old spellings go away: the renames ship in 0.2.0, the old spellings
#: work through 0.2.x, one minor version
REMOVED_IN = "0.3.0"

#: every declared rename: ``(where, old, new)``, read by tests/test_vocabulary.py
RENAMES: list[tuple[str, str, str]] = []


def warn(old: str, new: str, *, stacklevel: int = 3) -> None:
    """Warn once per call site that ``old`` is deprecated in favour of ``new``."""
    warnings.warn(f"{old} is deprecated and will be removed in jaxclassic {REMOVED_IN}; "
                  f"use {new} instead", DeprecationWarning, stacklevel=stacklevel)


def renamed_function(new, old_name: str, module: str, **fixed):
    """Return ``old_name``, a deprecated alias that warns and calls ``new``.

    ``fixed`` keywords are passed to every call: the old function was ``new`` with them set
    (``fit_voting_regressor`` is ``fit_voting(..., task="regression")``). The alias has
    ``new``'s signature and a docstring naming the new call.
    """
    function = f"{module}.{new.__name__}"
    settings = ", ".join(f'{k}="{v}"' if isinstance(v, str) else f"{k}={v!r}"
                         for k, v in fixed.items())
    new_name = f"{function}(..., {settings})" if fixed else function

    @functools.wraps(new)
    def alias(*args, **kwargs):
        warn(f"{module}.{old_name}", new_name)
        return new(*args, **kwargs, **fixed)

    alias.__name__ = alias.__qualname__ = old_name
    alias.__doc__ = (f"Deprecated alias of :func:`{function}`"
                     + (f" with ``{settings}``" if fixed else "")
                     + f" (removed in jaxclassic {REMOVED_IN}).\n")
    alias.__deprecated_alias_of__ = new
    RENAMES.append((module, old_name, new_name))
    return alias


def renamed_fields(**old_to_new: str):
    """Class decorator: each old field name (``old=``) becomes a property that warns and reads
    the new field.

    The mapping is also the class's ``_renamed_fields``, from which :func:`jaxclassic.io.load`
    reads model files written before the rename.
    """
    def decorate(cls):
        where = f"{cls.__module__}.{cls.__qualname__}"
        for old, new in old_to_new.items():
            RENAMES.append((where, old, new))

            def read(self, old=old, new=new):
                warn(f"{cls.__name__}.{old}", f"{cls.__name__}.{new}")
                return getattr(self, new)
            setattr(cls, old, property(read, doc=f"Deprecated: :attr:`{new}` (removed in "
                                                 f"jaxclassic {REMOVED_IN})."))
        cls._renamed_fields = {**getattr(cls, "_renamed_fields", {}), **old_to_new}
        return cls
    return decorate


def renamed_module_attributes(module: str, **old_to_new):
    """A module ``__getattr__`` for renamed module-level names.

    ``old_to_new`` maps each old name to ``(obj, "its.new.name")``: reading
    ``module.old`` warns and returns ``obj``. Assign the result to the module's
    ``__getattr__``.
    """
    for old, (_, new_name) in old_to_new.items():
        RENAMES.append((module, old, new_name))

    def __getattr__(name):
        if name in old_to_new:
            obj, new_name = old_to_new[name]
            warn(f"{module}.{name}", new_name)
            return obj
        raise AttributeError(f"module {module!r} has no attribute {name!r}")
    return __getattr__


def renamed_arguments(**old_to_new: str):
    """Decorator: accept each ``old=`` keyword as ``new=``, with a ``DeprecationWarning``.

    Passing both the old and the new name is a ``TypeError``. The decorated function's
    signature (``inspect.signature``) shows only the new names.
    """
    def decorate(func):
        where = f"{func.__module__}.{func.__qualname__}"
        for old, new in old_to_new.items():
            RENAMES.append((where, old, new))

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            for old, new in old_to_new.items():
                if old in kwargs:
                    if new in kwargs:
                        raise TypeError(f"{func.__name__}() got both {old}= (deprecated) and "
                                        f"{new}=; pass only {new}=")
                    warn(f"{func.__name__}({old}=)", f"{func.__name__}({new}=)")
                    kwargs[new] = kwargs.pop(old)
            return func(*args, **kwargs)
        return wrapper
    return decorate


def is_prng_key(value) -> bool:
    """Whether ``value`` is a JAX PRNG key: a typed key array, or a raw ``uint32[2]`` one."""
    import jax
    import jax.numpy as jnp

    dtype = getattr(value, "dtype", None)
    if dtype is None:
        return False
    if jnp.issubdtype(dtype, jax.dtypes.prng_key):
        return True
    shape = getattr(value, "shape", None)
    return np.dtype(dtype) == np.uint32 and shape is not None and tuple(shape)[-1:] == (2,)


def key_moved(position: int):
    """Decorator: ``key`` moved from positional argument ``position`` (0-based) to keyword-only.

    A call whose argument at ``position`` is a PRNG key still works: the key is passed as
    ``key=`` and a ``DeprecationWarning`` names the new call ``f(..., key=key)``.
    """
    def decorate(func):
        where = f"{func.__module__}.{func.__qualname__}"
        if inspect.signature(func).parameters["key"].kind is not inspect.Parameter.KEYWORD_ONLY:
            raise TypeError(f"{where}: key must be keyword-only")
        RENAMES.append((where, "positional key", "key="))

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            if len(args) > position and is_prng_key(args[position]):
                if "key" in kwargs:
                    raise TypeError(f"{func.__name__}() got a key both positionally and as key=")
                first = position == 0
                warn(f"{func.__name__}(key, ...) with the key first" if first
                     else f"{func.__name__}(...) with a positional key",
                     f"{func.__name__}(..., key=key)")
                kwargs["key"] = args[position]
                args = args[:position] + args[position + 1:]
            return func(*args, **kwargs)
        return wrapper
    return decorate


def key_made_keyword(func):
    """Decorator for a function whose ``key`` moved from first positional to keyword-only.

    ``f(key, a, b)`` (the old order) still works when its first argument is a PRNG key: the key
    is passed as ``key=`` and a ``DeprecationWarning`` names the new call ``f(a, b, key=key)``.
    The same as ``key_moved(0)``.
    """
    return key_moved(0)(func)
