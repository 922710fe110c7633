"""First-call time per family: a fresh process's first ``fit`` + ``predict``, with a cold and
with a warm compilation cache, beside scikit-learn's first fit in a fresh process.

A user's first call in a new Python process pays for tracing and XLA compilation; the
persistent compilation cache that ``import jaxclassic`` turns on (:mod:`jaxclassic._cache`)
lets the second process load the compiled programs instead. For each family's main estimator
this script starts, one after the other:

1. ``cold``: a fresh process with an empty cache directory (``XDG_CACHE_HOME`` in a new
   temporary folder) — the very first call, compiling and writing the cache;
2. ``warm``: a fresh process on the same directory — every later process's first call;
3. ``ref``: a fresh process running the reference (scikit-learn; xgboost / hmmlearn where
   they are the reference), its first fit + predict.

Each child times only ``est.fit(X, y); est.predict(X)`` (imports and data loading apart,
reported as ``import s``) and reports its peak resident memory (``ru_maxrss``: the whole
process, imports included; on the XLA CPU backend the honest measure of the compiled
programs' and buffers' memory). Data: scikit-learn's bundled breast_cancer (569 x 30,
classifiers), diabetes (442 x 10, regressors), iris (150 x 4, clustering / mixtures), and a
two-state Gaussian sequence of 600 x 2 (HMMs), columns standardised, float64 as loaded (the
estimators compute in the input's dtype). Hyperparameters are the defaults except where
named in :data:`CASES` (the same on both sides).

Ratios are ``ref / ours`` (above 1: our first call is faster). Run alone on a quiet machine
for figures; on a shared one compare only the ratios measured in one run::

    python -m benchmarks.bench_first_call            # every family (a few minutes)
    python -m benchmarks.bench_first_call --quick    # two families (part of the test suite)
    python -m benchmarks.bench_first_call --only SVC,KMeans

Measured 2026-11-28 on a quiet 2-core CPU host, jax 0.10.2, at f69add4 (the executable cache of
:mod:`jaxclassic._executables` on, as for a user): warm first fit + predict LogisticRegression 0.106 s
(1.35 s at 6ed33c4, JAX's cache alone), Ridge 0.071 (0.68), Lasso 0.072, SVC 0.132 (0.90),
GaussianNB 0.072 (0.33), LDA 0.093, KNeighborsClassifier 0.209 (0.76), DecisionTree 0.217
(1.35), RandomForest(100, depth 8) 0.668 (2.52 for RF(10) on 11-26), GradientBoosting(100) 0.667,
XGBoost(100) 0.355 (1.73 for XGB(20)), KMeans 0.122 (0.83), GaussianMixture 0.162 (1.23), GP
0.406 (2.29), GaussianHMM 0.593 (1.24); cold 0.39-5.2 s (RandomForest 5.17, GP 4.88,
GradientBoosting 4.64 above 3 s). scikit-learn's first fits: 0.003-0.36 s. What a warm process
still pays: loading each program (5-25 ms apiece, XLA:CPU's deserialisation), the fits' own run
time (the forest and boosting rows: 0.19 and 0.36 s for scikit-learn itself), and the eager
operations left (none on these fits' paths since f69add4). Earlier (2026-11-26, load average
7-14, JAX's cache alone): the warm cache cut the first call 2-10x, what it left was tracing and
lowering (not cached by JAX), eager dispatch and the fit itself.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks._harness import Result

__all__ = ["CASES", "QUICK", "run", "main"]

ROOT = Path(__file__).resolve().parents[1]

#: family -> (data, our estimator, reference estimator, reference's name); both expressions
#: are evaluated in the child after ``import jaxclassic.estimators as jc`` and the reference's
#: import (``sk``: a namespace of the scikit-learn classes used here)
CASES: dict[str, tuple[str, str, str, str]] = {
    "LogisticRegression": ("breast_cancer", "jc.LogisticRegression()",
                           "sk.LogisticRegression()", "sklearn"),
    "Ridge": ("diabetes", "jc.Ridge(alpha=1.0)", "sk.Ridge(alpha=1.0)", "sklearn"),
    "Lasso": ("diabetes", "jc.Lasso(alpha=0.1)", "sk.Lasso(alpha=0.1)", "sklearn"),
    "SVC": ("breast_cancer", "jc.SVC()", "sk.SVC()", "sklearn"),
    "GaussianNB": ("breast_cancer", "jc.GaussianNB()", "sk.GaussianNB()", "sklearn"),
    "LinearDiscriminantAnalysis": ("breast_cancer", "jc.LinearDiscriminantAnalysis()",
                                   "sk.LinearDiscriminantAnalysis()", "sklearn"),
    "KNeighborsClassifier": ("breast_cancer", "jc.KNeighborsClassifier()",
                             "sk.KNeighborsClassifier()", "sklearn"),
    "DecisionTreeClassifier": ("breast_cancer", "jc.DecisionTreeClassifier(max_depth=8)",
                               "sk.DecisionTreeClassifier(max_depth=8)", "sklearn"),
    "RandomForestClassifier": ("breast_cancer",
                               "jc.RandomForestClassifier(n_estimators=100, max_depth=8, random_state=0)",
                               "sk.RandomForestClassifier(n_estimators=100, max_depth=8, random_state=0)",
                               "sklearn"),
    "DecisionTreeRegressor": ("diabetes", "jc.DecisionTreeRegressor()", "sk.DecisionTreeRegressor()", "sklearn"),
    "RandomForestRegressor": ("diabetes", "jc.RandomForestRegressor(n_estimators=100, random_state=0)",
                              "sk.RandomForestRegressor(n_estimators=100, random_state=0)", "sklearn"),
    "GradientBoostingClassifier": ("breast_cancer",
                                   "jc.GradientBoostingClassifier(n_estimators=100, max_depth=3)",
                                   "sk.GradientBoostingClassifier(n_estimators=100, max_depth=3)",
                                   "sklearn"),
    "XGBoostClassifier": ("breast_cancer", "jc.XGBoostClassifier(n_estimators=100, max_depth=6)",
                          "sk.XGBClassifier(n_estimators=100, max_depth=6, tree_method='hist')",
                          "xgboost"),
    "KMeans": ("iris", "jc.KMeans(n_clusters=3, random_state=0)",
               "sk.KMeans(n_clusters=3, random_state=0)", "sklearn"),
    "GaussianMixture": ("iris", "jc.GaussianMixture(n_components=3, random_state=0)",
                        "sk.GaussianMixture(n_components=3, random_state=0)", "sklearn"),
    "GaussianProcessRegressor": ("diabetes_small", "jc.GaussianProcessRegressor(noise=1.0)",
                                 "sk.GaussianProcessRegressor(sk.C(1.0) * sk.RBF(1.0) + sk.White(1.0))",
                                 "sklearn"),
    "GaussianHMM": ("sequence", "jc.GaussianHMM(n_components=2, random_state=0)",
                    "sk.GaussianHMM(n_components=2, random_state=0)", "hmmlearn"),
}

#: the families of ``--quick`` (the test suite's run): two of the cheapest compiles, a moment
#: fit and a Gram solve; quick mode runs them one after the other in one process per side
#: (cold, warm, reference: three processes), full mode each family in processes of its own
QUICK = ("GaussianNB", "Ridge")

_CHILD = r"""
import json, resource, sys, time
import numpy as np

def rss_mb():
    r = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return r / 2**20 if sys.platform == "darwin" else r / 2**10

def load(data):
    import sklearn.datasets as ds
    if data in ("breast_cancer", "iris"):
        X, y = getattr(ds, "load_" + data)(return_X_y=True)
    elif data.startswith("diabetes"):
        X, y = ds.load_diabetes(return_X_y=True)
        if data == "diabetes_small":
            X, y = X[:200], (y[:200] - y.mean()) / y.std()
    else:  # two Gaussian states, sticky transitions
        rng = np.random.default_rng(0)
        states = np.cumsum(rng.random(600) < 0.05) % 2
        X = rng.normal(size=(600, 2)) + 3.0 * states[:, None]
        y = None
    return (X - X.mean(axis=0)) / X.std(axis=0), y  # standardised columns, as a user would

def make(side, ours, ref, ref_lib):
    if side == "ours":
        import jaxclassic.estimators as jc
        return eval(ours)
    import types
    if ref_lib == "xgboost":
        import xgboost
        sk = types.SimpleNamespace(XGBClassifier=xgboost.XGBClassifier)
    elif ref_lib == "hmmlearn":
        from hmmlearn import hmm
        sk = types.SimpleNamespace(GaussianHMM=hmm.GaussianHMM)
    else:
        import sklearn.cluster, sklearn.discriminant_analysis, sklearn.ensemble
        import sklearn.gaussian_process, sklearn.gaussian_process.kernels as K
        import sklearn.linear_model, sklearn.mixture, sklearn.naive_bayes, sklearn.neighbors
        import sklearn.svm, sklearn.tree
        sk = types.SimpleNamespace()
        for module in (sklearn.cluster, sklearn.discriminant_analysis, sklearn.ensemble,
                       sklearn.gaussian_process, sklearn.linear_model, sklearn.mixture,
                       sklearn.naive_bayes, sklearn.neighbors, sklearn.svm, sklearn.tree):
            sk.__dict__.update({k: getattr(module, k) for k in dir(module) if k[:1].isupper()})
        sk.C, sk.RBF, sk.White = K.ConstantKernel, K.RBF, K.WhiteKernel
    return eval(ref)

side = sys.argv[2]
for case in sys.argv[1].split(","):
    data, ours, ref, ref_lib = CASES[case]
    t0 = time.perf_counter()
    X, y = load(data)
    est = make(side, ours, ref, ref_lib)
    import_s = time.perf_counter() - t0
    rss_before = rss_mb()

    t0 = time.perf_counter()
    if y is None:
        est.fit(X)
    else:
        est.fit(X, y)
    pred = est.predict(X)
    np.asarray(pred)
    first_s = time.perf_counter() - t0

    if data == "iris":
        from sklearn.metrics import adjusted_rand_score
        score = adjusted_rand_score(y, pred)
    elif y is None:
        score = est.score(X)
    else:
        score = est.score(X, y)
    print("RESULT " + json.dumps({"case": case, "first_s": first_s, "import_s": import_s,
                                  "score": float(score), "rss_before_mb": rss_before,
                                  "peak_rss_mb": rss_mb()}), flush=True)
"""


def _child_env(cache_home: str | None) -> dict:
    env = dict(os.environ)
    for name in ("JAX_COMPILATION_CACHE_DIR", "JAXCLASSIC_JAX_CACHE", "JAXCLASSIC_NO_COMPILATION_CACHE"):
        env.pop(name, None)
    if cache_home is None:
        env["JAXCLASSIC_NO_COMPILATION_CACHE"] = "1"
    else:
        env["XDG_CACHE_HOME"] = cache_home
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def _child(cases: list[str], side: str, cache_home: str | None, timeout: float = 900) -> dict:
    """Run ``cases`` one after the other in one fresh process: ``{case: report}``."""
    code = f"CASES = {CASES!r}\n" + _CHILD
    out = subprocess.run([sys.executable, "-c", code, ",".join(cases), side], cwd=ROOT,
                         env=_child_env(cache_home), capture_output=True, text=True, timeout=timeout)
    reports = [json.loads(l[len("RESULT "):]) for l in out.stdout.splitlines() if l.startswith("RESULT ")]
    if out.returncode != 0 or len(reports) != len(cases):
        raise RuntimeError(f"{cases} ({side}) failed:\n{out.stderr[-3000:]}")
    return {r["case"]: r for r in reports}


def measure(cases: list[str]) -> dict:
    """``{case: {"cold": ..., "warm": ..., "ref": ..., "cache_entries": ...}}`` for ``cases``
    run in one process per side (pass one case for a process of its own)."""
    with tempfile.TemporaryDirectory(prefix="jaxclassic_first_call_") as cache_home:
        cold = _child(cases, "ours", cache_home)
        warm = _child(cases, "ours", cache_home)
        n_entries = sum(1 for p in Path(cache_home).rglob("*-cache"))
    ref = _child(cases, "ref", None)
    return {c: {"cold": cold[c], "warm": warm[c], "ref": ref[c], "cache_entries": n_entries} for c in cases}


def run(quick: bool, only: list[str] | None = None) -> list[Result]:
    names = list(only) if only else list(QUICK if quick else CASES)
    if quick:
        measured = measure(names)
    else:
        measured = {}
        for case in names:
            measured.update(measure([case]))
    results = []
    for case in names:
        m = measured[case]
        cold, warm, ref = m["cold"]["first_s"], m["warm"]["first_s"], m["ref"]["first_s"]
        ref_lib = CASES[case][3]
        results.append(Result(
            "first_call", case, ours_s=warm, ref_s=ref, compile_s=max(0.0, cold - warm),
            metric="train score", ours_quality=m["warm"]["score"], ref_quality=m["ref"]["score"],
            reference=f"{ref_lib} (fresh process)",
            agreement=f"cold {cold:.2f}s ({ref / cold:.2g}x); {m['cache_entries']} cache entries",
            peak_rss_mb=m["warm"]["peak_rss_mb"],
            extra={"cold": m["cold"], "warm": m["warm"], "ref": m["ref"],
                   "cache_entries": m["cache_entries"]},
        ))
    return results


def format_first_call(results: list[Result]) -> str:
    """The table of this benchmark: cold / warm / reference first calls and peak memory."""
    header = ["family", "cold s", "warm s", "ref s", "ref/cold", "ref/warm", "import s",
              "peak MB", "ref peak MB", "score", "ref score", "reference"]
    rows = [header]
    for r in results:
        e = r.extra
        rows.append([
            r.case, f"{e['cold']['first_s']:.3f}", f"{e['warm']['first_s']:.3f}", f"{r.ref_s:.3f}",
            f"{r.ref_s / e['cold']['first_s']:.3g}x", f"{r.ratio:.3g}x", f"{e['warm']['import_s']:.2f}",
            f"{e['warm']['peak_rss_mb']:.0f}", f"{e['ref']['peak_rss_mb']:.0f}",
            f"{r.ours_quality:.4g}", f"{r.ref_quality:.4g}", r.reference,
        ])
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths)) for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help=f"only {', '.join(QUICK)}")
    parser.add_argument("--only", default=None, help="comma-separated families (keys of CASES)")
    parser.add_argument("--json", default=None, help="write the results here")
    args = parser.parse_args(argv)
    only = args.only.split(",") if args.only else None
    unknown = sorted(set(only or ()) - set(CASES))
    if unknown:
        parser.error(f"unknown families {unknown}; choose from {sorted(CASES)}")
    results = run(args.quick, only)
    print(f"first fit + predict in fresh processes ({os.cpu_count()} cores; ratio = ref / ours)")
    print(format_first_call(results))
    if args.json:
        Path(args.json).write_text(json.dumps([r.as_dict() for r in results], indent=2, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
