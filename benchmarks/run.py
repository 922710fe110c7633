"""Run every ``benchmarks/bench_*.py`` and print one table of ratios.

Usage::

    python -m benchmarks.run            # full size (minutes)
    python -m benchmarks.run --quick    # toy size (seconds); part of ``make test``
    python -m benchmarks.run --only ridge --json out.json
    python -m benchmarks.run --only boosting forest cluster logistic crf   # issue 26's rows
"""

from __future__ import annotations

import argparse
import importlib
import json
import pkgutil
import sys
from pathlib import Path

from benchmarks._harness import Result, machine_info

__all__ = ["discover", "run_all", "format_table", "main"]


def discover() -> list[str]:
    """Names of the benchmark modules (``bench_*``) in this folder, sorted."""
    here = Path(__file__).parent
    return sorted(m.name for m in pkgutil.iter_modules([str(here)]) if m.name.startswith("bench_"))


def run_all(quick: bool, only: str | list[str] | None = None) -> list[Result]:
    """Every benchmark module's rows; ``only``: substrings of the module names to run (any)."""
    results: list[Result] = []
    only = [only] if isinstance(only, str) else only
    for name in discover():
        if only and not any(o in name for o in only):
            continue
        module = importlib.import_module(f"benchmarks.{name}")
        results.extend(module.run(quick=quick))
    return results


def _fmt(v, spec=".4g"):
    if v is None:
        return "-"
    if isinstance(v, float):
        return format(v, spec)
    return str(v)


def format_table(results: list[Result]) -> str:
    header = ["benchmark", "case", "ours s", "compile s", "ref", "ref s", "ratio", "CPU ours/ref", "metric",
              "ours", "ref value", "agreement", "peak MB"]
    rows = [header]
    for r in results:
        rows.append([
            r.benchmark, r.case, _fmt(r.ours_s), _fmt(r.compile_s), r.reference, _fmt(r.ref_s),
            _fmt(r.ratio, ".3g") + ("x" if r.ratio is not None else ""),
            "-" if r.ours_cpu is None and r.ref_cpu is None else f"{_fmt(r.ours_cpu, '.2f')}/{_fmt(r.ref_cpu, '.2f')}",
            r.metric,
            _fmt(r.ours_quality), _fmt(r.ref_quality), _fmt(r.agreement),
            _fmt(r.peak_rss_mb, ".0f"),
        ])
    widths = [max(len(str(row[i])) for row in rows) for i in range(len(header))]
    lines = ["  ".join(str(c).ljust(w) for c, w in zip(row, widths)) for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="toy sizes, seconds in all")
    parser.add_argument("--only", default=None, nargs="+", help="substrings of the benchmark module names")
    parser.add_argument("--json", default=None, help="write results and machine info here")
    parser.add_argument("--x64", action="store_true", help="enable float64 (default float32)")
    args = parser.parse_args(argv)
    if args.x64:
        import jax

        jax.config.update("jax_enable_x64", True)
    info = machine_info()
    results = run_all(args.quick, args.only)
    print(f"machine: {info['cpu_count']} cores, backend {info['backend']}, jax {info['jax']}")
    print(format_table(results))
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(
            {"machine": info, "quick": args.quick, "results": [r.as_dict() for r in results]},
            indent=2, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
