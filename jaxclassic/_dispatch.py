"""Dispatch of the shared ``predict`` / ``predict_proba`` names on the params type.

A family package (``jaxclassic.linear``, ``jaxclassic.discriminant``...) exposes one
``predict(params, X)``; each model module registers its own implementation for its params
NamedTuple, so ``linear.predict(fit_ridge(...), X)`` and ``linear.predict(fit_logistic(...), X)``
both work and stay pure (dispatch happens in Python, before tracing).
"""

from __future__ import annotations

from typing import Callable

__all__ = ["Dispatcher"]


class Dispatcher:
    """A function of ``(params, *args)`` chosen by ``type(params)``."""

    def __init__(self, name: str, doc: str = ""):
        self.__name__ = name
        self.__qualname__ = name
        self.__doc__ = doc or f"``{name}(params, ...)`` for any registered params type."
        self._table: dict[type, Callable] = {}

    def register(self, params_type: type, fn: Callable | None = None):
        """Register ``fn`` for ``params_type`` (usable as a decorator)."""
        def deco(f):
            self._table[params_type] = f
            return f
        return deco(fn) if fn is not None else deco

    def __call__(self, params, *args, **kwargs):
        for klass in type(params).__mro__:
            if klass in self._table:
                return self._table[klass](params, *args, **kwargs)
        known = ", ".join(sorted(t.__name__ for t in self._table)) or "none"
        raise TypeError(
            f"{self.__name__} does not support params of type {type(params).__name__}; "
            f"supported: {known}"
        )
