"""``jaxclassic tour``: every model family that exists, fitted on real bundled data.

Each family contributes a module ``jaxclassic/tour/<family>.py`` with a function
``rows() -> list[TourRow]``; :func:`run_tour` discovers them and prints one table.

The tour fits on scikit-learn's bundled data sets and puts scikit-learn's figure beside ours,
so it needs the ``sklearn`` extra: :func:`run_tour` raises an ``ImportError`` saying what to
install when scikit-learn is missing, rather than printing an empty table.
"""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path
from typing import NamedTuple

__all__ = ["TourRow", "discover", "check_families", "require_sklearn", "run_tour", "format_table",
           "timed"]

#: what to install for the tour
SKLEARN_HINT = "pip install 'jaxclassic[sklearn]'"


class TourRow(NamedTuple):
    """One line of the tour: jaxclassic's value beside scikit-learn's (None if not installed)."""

    model: str
    dataset: str
    metric: str
    ours: float
    sklearn: float | None
    fit_seconds: float


def timed(fn):
    """``(output, seconds)`` of one call of ``fn`` after a warm-up call of the same shapes.

    The tour's ``fit s`` column is therefore run time with the program already compiled.
    """
    import time

    import jax

    jax.block_until_ready(fn())  # compile
    t0 = time.perf_counter()
    out = jax.block_until_ready(fn())
    return out, time.perf_counter() - t0


def discover() -> list[str]:
    here = Path(__file__).parent
    return sorted(m.name for m in pkgutil.iter_modules([str(here)]) if not m.name.startswith("_"))


def format_table(rows: list[TourRow]) -> str:
    header = ["model", "dataset", "metric", "jaxclassic", "scikit-learn", "fit s"]
    body = [
        [r.model, r.dataset, r.metric, f"{r.ours:.4f}",
         "-" if r.sklearn is None else f"{r.sklearn:.4f}", f"{r.fit_seconds:.3f}"]
        for r in rows
    ]
    table = [header] + body
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths)) for row in table]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def check_families(families: list[str] | None) -> list[str] | None:
    """``families`` unchanged, or a ``ValueError`` naming the unknown ones and the known ones."""
    if not families:
        return families
    known = discover()
    unknown = [f for f in families if f not in known]
    if unknown:
        raise ValueError(f"unknown tour family {', '.join(map(repr, unknown))}; "
                         f"known families: {', '.join(known)}")
    return families


def require_sklearn() -> None:
    """Raise an ``ImportError`` saying what to install when scikit-learn is missing."""
    try:
        import sklearn  # noqa: F401
    except ImportError as exc:
        raise ImportError(
            "jaxclassic tour fits on scikit-learn's bundled data sets and compares with "
            f"scikit-learn, which is not installed: {SKLEARN_HINT}"
        ) from exc


def run_tour(families: list[str] | None = None, echo=print) -> list[TourRow]:
    """Fit every family (or those named in ``families``) and ``echo`` one table.

    Raises ``ValueError`` for an unknown family and ``ImportError`` without scikit-learn.
    """
    check_families(families)
    require_sklearn()
    rows: list[TourRow] = []
    for name in discover():
        if families and name not in families:
            continue
        module = importlib.import_module(f"jaxclassic.tour.{name}")
        rows.extend(module.rows())
    echo(format_table(rows))
    return rows
