"""Shared pieces of :mod:`jaxclassic.plot`: the lazy matplotlib import and the target Axes.

matplotlib is the optional extra ``jaxclassic[plot]``: it is imported inside the functions
(never at ``import jaxclassic.plot``), so the rest of the package works without it and a
figure function without it raises one clear :class:`ImportError`.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from jaxclassic.validation import check_array

INSTALL_HINT = "jaxclassic.plot needs matplotlib: pip install 'jaxclassic[plot]'"


def pyplot():
    """``matplotlib.pyplot``, or an :class:`ImportError` that says how to install it."""
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:  # matplotlib missing, or a broken install
        raise ImportError(f"{INSTALL_HINT} ({exc})") from exc
    return plt


def axes(ax: Any):
    """The Axes to draw on: ``ax`` itself, or the current Axes of pyplot when ``ax is None``."""
    plt = pyplot()
    if ax is None:
        return plt.gca()
    from matplotlib.axes import Axes

    if not isinstance(ax, Axes):
        raise TypeError(f"ax must be a matplotlib Axes or None, got {type(ax).__name__}")
    return ax


def fitted_params(model: Any) -> tuple[Any, Any]:
    """``(params, estimator)`` of what a figure was given: a fitted estimator of
    :mod:`jaxclassic.estimators` gives its ``params_`` and itself, anything else is taken as
    params (``(model, None)``). An estimator not fitted yet is scikit-learn's
    ``NotFittedError`` (a ``ValueError``)."""
    params = getattr(model, "params_", None)
    if params is not None:
        return params, model
    if callable(getattr(model, "fit", None)) and callable(getattr(model, "get_params", None)):
        from sklearn.exceptions import NotFittedError

        raise NotFittedError(f"This {type(model).__name__} instance is not fitted yet: call fit "
                             "before drawing it")
    return model, None


def colours(n: int, cmap: str = "tab10") -> list:
    """``n`` distinct RGBA colours of a named colormap (cycled for a qualitative map)."""
    import matplotlib

    try:
        colormap = matplotlib.colormaps[cmap]
    except KeyError:
        raise ValueError(f"cmap must be a matplotlib colormap name, got {cmap!r}") from None
    if isinstance(colormap, matplotlib.colors.ListedColormap) and colormap.N <= 20:
        return [colormap(i % colormap.N) for i in range(n)]
    return [colormap(i / max(n - 1, 1)) for i in range(n)]


def as_numpy(x: Any, name: str, *, ndim: int | Sequence[int] = 1, allow_nan: bool = False) -> np.ndarray:
    """A validated float array as numpy (the error names ``name``)."""
    return np.asarray(check_array(x, name, ndim=ndim, allow_nan=allow_nan))


def names(given: Any, n: int, name: str, default: str) -> list[str]:
    """``n`` display names: ``given`` as strings, or ``default.format(i)``."""
    if given is None:
        return [default.format(i) for i in range(n)]
    given = [str(s) for s in given]
    if len(given) != n:
        raise ValueError(f"{name} must hold {n} names, got {len(given)}")
    return given


def fit_to_figure(ax) -> None:
    """Give ``ax``'s figure matplotlib's constrained layout when it has no layout engine, so
    tick labels, axis labels, an outside legend and a colour bar stay inside the figure at
    small sizes (a figure the caller laid out is left as it is)."""
    root = ax.figure.figure  # the root figure (ax.figure may be a SubFigure)
    if root.get_layout_engine() is None:
        root.set_layout_engine("constrained")
