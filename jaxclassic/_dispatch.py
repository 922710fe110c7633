"""ONE registry of the shared prediction names, by params type, for every family.

A family package (``jaxclassic.linear``, ``jaxclassic.tree``...) exposes ``predict(params, X)``
as a :class:`Dispatcher`; each model module registers its implementation for its params
NamedTuple, so ``linear.predict(fit_ridge(...), X)`` and ``linear.predict(fit_logistic(...), X)``
both work and stay pure (dispatch happens in Python, before tracing).

Every registration also lands in the one package-wide table of its name, so generic wrappers
(one-vs-rest/one, bagging, voting, stacking, cross-validation) call :func:`predict`,
:func:`predict_proba`, :func:`decision_function`... of this module on params of ANY family,
and never list family modules by name::

    from jaxclassic import _dispatch
    _dispatch.predict(params, X)        # linear, discriminant, tree, ensemble... params alike
"""

from __future__ import annotations

from typing import Callable

__all__ = ["Dispatcher", "registered", "predict", "predict_proba", "predict_log_proba",
           "decision_function", "feature_importances", "apply"]

#: name -> {params type -> implementation}: the package-wide registry
_REGISTRY: dict[str, dict[type, Callable]] = {}


def registered(name: str) -> dict[type, Callable]:
    """The package-wide table of ``name`` (a copy): every params type registered under it."""
    return dict(_REGISTRY.get(name, {}))


class Dispatcher:
    """A function of ``(params, *args)`` chosen by ``type(params)``.

    A family's dispatcher sees the types registered through it; ``Dispatcher(name,
    package_wide=True)`` (the module-level names of this module) sees every type registered
    under ``name`` by any family.
    """

    def __init__(self, name: str, doc: str = "", *, package_wide: bool = False):
        self.__name__ = name
        self.__qualname__ = name
        self.__doc__ = doc or f"``{name}(params, ...)`` for any registered params type."
        self._package_wide = package_wide
        self._table: dict[type, Callable] = _REGISTRY.setdefault(name, {}) if package_wide else {}

    def register(self, params_type: type, fn: Callable | None = None):
        """Register ``fn`` for ``params_type`` here and in the package-wide table (decorator too)."""
        def deco(f):
            self._table[params_type] = f
            _REGISTRY.setdefault(self.__name__, {})[params_type] = f
            return f
        return deco(fn) if fn is not None else deco

    def supports(self, params) -> bool:
        """Whether ``params`` has an implementation here."""
        return any(klass in self._table for klass in type(params).__mro__)

    def __call__(self, params, *args, **kwargs):
        for klass in type(params).__mro__:
            if klass in self._table:
                return self._table[klass](params, *args, **kwargs)
        known = ", ".join(sorted(t.__name__ for t in self._table)) or "none"
        raise TypeError(
            f"{self.__name__} does not support params of type {type(params).__name__}; "
            f"supported: {known}"
        )


_DOC = "``{0}(params, X)`` for params of any family (the package-wide registry)."
predict = Dispatcher("predict", _DOC.format("predict"), package_wide=True)
predict_proba = Dispatcher("predict_proba", _DOC.format("predict_proba"), package_wide=True)
predict_log_proba = Dispatcher("predict_log_proba", _DOC.format("predict_log_proba"), package_wide=True)
decision_function = Dispatcher("decision_function", _DOC.format("decision_function"), package_wide=True)
feature_importances = Dispatcher("feature_importances", _DOC.format("feature_importances"), package_wide=True)
apply = Dispatcher("apply", _DOC.format("apply"), package_wide=True)
