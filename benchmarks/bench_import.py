"""Import times in fresh processes: ``import jaxclassic`` beyond ``import jax``,
``import jaxclassic.estimators`` beyond that, and one estimator class, beside scikit-learn's.

Each round starts one fresh interpreter per row, rows alternating, and each child reports the
seconds of its own imports (``time.perf_counter`` around each ``import``, after ``import jax``
or ``import sklearn.base``, which the child imports first and reports apart). Medians of the
rounds are printed; the ratio is ours / scikit-learn's for the same step (below 1: ours is
lighter). Issue 25's goals: ``import jaxclassic`` <= 0.3 s beyond ``import jax``,
``import jaxclassic.estimators`` <= 0.5 s beyond that.

    python -m benchmarks.bench_import            # 7 rounds
    python -m benchmarks.bench_import --rounds 3
    python -m benchmarks.run --only import       # the table's rows (run(); --quick: 1 round)
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

from benchmarks._harness import Result

#: row -> (what the child imports first, untimed beyond its own figure; the timed import)
ROWS = {
    "import jaxclassic (after jax)": ("import jax", "import jaxclassic"),
    "import jaxclassic.estimators (after jaxclassic, sklearn.base)": (
        "import jax, jaxclassic, sklearn.base", "import jaxclassic.estimators"),
    "from jaxclassic.estimators import LogisticRegression (after the package, sklearn.base)": (
        "import jax, jaxclassic.estimators, sklearn.base",
        "from jaxclassic.estimators import LogisticRegression"),
    "from jaxclassic.estimators import RandomForestClassifier (after the package, sklearn.base)": (
        "import jax, jaxclassic.estimators, sklearn.base",
        "from jaxclassic.estimators import RandomForestClassifier"),
    "sklearn: from sklearn.linear_model import LogisticRegression (after sklearn.base)": (
        "import sklearn.base", "from sklearn.linear_model import LogisticRegression"),
    "sklearn: from sklearn.ensemble import RandomForestClassifier (after sklearn.base)": (
        "import sklearn.base", "from sklearn.ensemble import RandomForestClassifier"),
}

#: (our row, scikit-learn's row) timing the same step: importing one estimator class
PAIRS = [(list(ROWS)[2], list(ROWS)[4]), (list(ROWS)[3], list(ROWS)[5])]

_CHILD = """
import json, time
t0 = time.perf_counter(); {first}; t1 = time.perf_counter(); {timed}; t2 = time.perf_counter()
print(json.dumps({{"first": t1 - t0, "timed": t2 - t1}}))
"""


def _child(first: str, timed: str) -> dict:
    env = dict(os.environ, JAXCLASSIC_NO_COMPILATION_CACHE="1")
    out = subprocess.run([sys.executable, "-c", _CHILD.format(first=first, timed=timed)],
                         capture_output=True, text=True, env=env, timeout=300, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def measure(rounds: int) -> dict[str, list[dict]]:
    """Per row, ``rounds`` fresh-process timings (rows alternate within each round)."""
    times: dict[str, list] = {row: [] for row in ROWS}
    for _ in range(rounds):
        for row, (first, timed) in ROWS.items():
            times[row].append(_child(first, timed))
    return times


def _medians(times: dict[str, list[dict]], field: str = "timed") -> dict[str, float]:
    """Per row, the median of ``field`` over :func:`measure`'s rounds."""
    return {row: statistics.median(r[field] for r in runs) for row, runs in times.items()}


def run(quick: bool = False) -> list[Result]:
    """:func:`measure` as rows of the benchmark table (``benchmarks.run``): our import steps,
    each class import beside scikit-learn's (``ratio``: scikit-learn's / ours), 1 round when
    ``quick``, else 7."""
    median = _medians(measure(1 if quick else 7))
    ref_of = dict(PAIRS)
    return [Result("import", row, median[row], median[ref_of[row]] if row in ref_of else None,
                   reference="scikit-learn" if row in ref_of else "")
            for row in list(ROWS)[:4]]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args(argv)
    times = measure(args.rounds)
    print(f"median of {args.rounds} fresh processes per row (rows alternate within each round)")
    print(f"{'step':78s} {'timed s':>8s} {'first s':>8s}")
    median, first = _medians(times), _medians(times, "first")
    for row in times:
        print(f"{row:78s} {median[row]:8.3f} {first[row]:8.3f}")
    for ours, ref in PAIRS:
        print(f"ratio ours / scikit-learn, {ours.split(' (')[0]}: {median[ours] / median[ref]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
