"""``jaxclassic tour``: every model family that exists, fitted on real bundled data.

Each family contributes a module ``jaxclassic/tour/<family>.py`` with a function
``rows() -> list[TourRow]``; :func:`run_tour` discovers them and prints one table.
"""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path
from typing import NamedTuple

__all__ = ["TourRow", "discover", "run_tour", "format_table", "timed"]


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


def run_tour(families: list[str] | None = None, echo=print) -> list[TourRow]:
    rows: list[TourRow] = []
    for name in discover():
        if families and name not in families:
            continue
        module = importlib.import_module(f"jaxclassic.tour.{name}")
        rows.extend(module.rows())
    echo(format_table(rows))
    return rows
