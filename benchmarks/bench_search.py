"""Hyperparameter search with scikit-learn's tools, and recompiles on hyperparameter values
(issue 25).

Two kinds of case, ours against the reference on the same data in this one process:

* **GridSearchCV** (``sklearn.model_selection.GridSearchCV(est, grid, cv=folds, n_jobs=1)``,
  default ``refit=True`` and the estimator's own ``score``), ours and scikit-learn's
  same-named estimator with the same grid and the same fixed fold object
  (``StratifiedKFold(5, shuffle=True, random_state=0)``; ``KFold`` for KMeans). Full size:

  - DecisionTreeClassifier, breast_cancer: ``max_depth`` [2, 3, 4, 5, None] x
    ``min_samples_leaf`` [1, 2, 4, 8, 16] (25 candidates);
  - RandomForestClassifier(n_estimators=20, random_state=0) (scikit-learn ``n_jobs=1``),
    breast_cancer: ``max_depth`` [3, 5, None] x ``max_features`` ["sqrt", 0.5] (only 6
    candidates: a forest's 30 fits per candidate make 25 of them too long for this table);
  - GradientBoostingClassifier(n_estimators=20), breast_cancer: ``learning_rate``
    [0.03, 0.1, 0.3, 0.5, 1.0] x ``max_depth`` [1, 2, 3, 4, 5] (25);
  - SVC, breast_cancer standardised: ``make_pipeline(StandardScaler(), SVC())`` on both sides
    (scikit-learn's ``StandardScaler`` on both), ``svc__C`` [0.1, 1, 10, 100, 1000] x
    ``svc__gamma`` [1e-4, 1e-3, 1e-2, 1e-1, 1] (25);
  - LogisticRegression, breast_cancer standardised (the same pipeline; scikit-learn with
    ``max_iter=1000``): ``logisticregression__C`` 25 log-spaced values 1e-3 .. 1e3;
  - KMeans(n_init=3, random_state=0), iris, scored by the estimator's own ``score``
    (minus the inertia): ``n_clusters`` [2 .. 6] x ``max_iter`` [10, 20, 50, 100, 300] (25);
  - KNeighborsClassifier, iris: ``n_neighbors`` [1, 3, ..., 49] (25).

  ``compile_s`` is the wall time of our first search in this process minus the warm median
  (tracing and compilation; what an earlier benchmark of the same process compiled already is
  not compiled again, so run ``--only search`` for a process of its own). The warm time is the
  median of ``repeats`` searches, ours and the reference **alternating** (ours, reference,
  ours, ...) so that a slow phase of a shared machine hits both alike; scikit-learn's first
  search runs untimed before them. Quality is the best mean CV score of each side
  (``best_score_``, ``metric="cv score"``) and ``agreement`` is whether the two
  ``best_params_`` are equal. ``extra``: ``cpu`` (each side's process CPU time over wall time
  during its timed searches, 2.0 on two busy cores), ``compiles_first`` / ``compiles_warm``
  (XLA compiles, the ``/jax/core/compile/backend_compile_duration`` events, during our first
  search and during our first warm one), ``cache_loads_first`` / ``cache_loads_warm``
  (programs loaded from JAX's persistent compilation cache instead of compiled: such a load
  fires no compile event, so compiles + loads is the number of new programs), the best
  parameters of each side and the number of candidates and folds.

* **Recompiles on hyperparameter values**: each estimator is fitted once with the first
  value of one hyperparameter, then refitted on the same data with each other value, and the
  XLA compiles (and persistent-cache loads) of each refit are counted. ``ours_s`` is the
  median refit time (compilation included: that is what a user changing the value waits
  for), ``ref_s`` the median of the reference's fits with the same values; ``extra``
  holds ``compiles_per_value`` (one count per refit after the first), ``cache_loads_per_value``,
  the values, each refit's time on both sides and our first fit's time (``first_fit_s``).
  The table's ``ours`` column is the mean compiles per refit. Data: breast_cancer (SVC and
  LogisticRegression standardised with scikit-learn's ``StandardScaler`` beforehand), iris
  for KMeans / GaussianMixture, diabetes for Ridge / Lasso. Cases: DecisionTreeClassifier
  ``max_depth`` [2, 3, 4, 5, 6, None] and ``min_samples_leaf`` [1, 2, 5, 10];
  RandomForestClassifier ``n_estimators`` [10, 20, 50] and ``max_depth`` [3, 5, None]
  (20 trees); GradientBoostingClassifier ``n_estimators`` [20, 50, 100], ``max_depth``
  [2, 3, 4] and ``learning_rate`` [0.05, 0.1, 0.2] (the last two with 20 trees);
  XGBoostClassifier ``max_depth`` [3, 4, 6] (reference ``xgboost.XGBClassifier(
  tree_method="hist")``, every core, as in ``bench_small``); LogisticRegression ``C``
  [0.1, 1, 10]; SVC ``C`` [0.1, 1, 10, 100] and ``gamma`` [1e-3, 1e-2, 0.1, 1];
  KNeighborsClassifier ``n_neighbors`` [3, 5, 7, 9]; KMeans(n_init=3) ``n_clusters``
  [2, 3, 4, 5]; GaussianMixture ``n_components`` [1, 2, 3]; Ridge and Lasso ``alpha``
  [0.01, 0.1, 1, 10]; AdaBoostClassifier ``n_estimators`` [10, 20, 50].

Data: scikit-learn's bundled breast_cancer (569 x 30), iris (150 x 4) and diabetes
(442 x 10), float64 as loaded (no download). ``--quick``: 200 rows of breast_cancer (a fixed
random choice); GridSearchCV of DecisionTreeClassifier (``max_depth`` 2 x ``min_samples_leaf``
[1, 2, 4, 8]: one depth, so one set of programs to compile) and of the LogisticRegression
pipeline (``C`` 4 log-spaced values 1e-2 .. 1e2), 3 folds, one warm repeat; recompiles of
DecisionTreeClassifier ``max_depth`` [2, 3] and LogisticRegression ``C`` [0.1, 1].

Compiles depend on JAX's persistent compilation cache (``import jaxclassic`` turns it on in
``~/.cache/jaxclassic/jax``): a program an earlier process compiled is loaded, not compiled,
so ``compile_s`` and ``compiles_*`` are smaller and ``cache_loads_*`` larger. For cold
figures, set ``JAXCLASSIC_NO_COMPILATION_CACHE=1``. The longest case is the
GradientBoostingClassifier search (125 fits of up to depth 5 per search, each new
``max_depth`` compiles its own programs).

::

    python -m benchmarks.run --only search            # every case (about a quarter of an hour)
    python -m benchmarks.run --only search --quick    # four cases (seconds)

Ratios are ``reference / ours`` (above 1: ours is faster).
"""

from __future__ import annotations

import functools
import os
import statistics
import time
import warnings

import numpy as np

from benchmarks._harness import Result, cpu_use

__all__ = ["run"]

COMPILE_EVENT = "/jax/core/compile/backend_compile_duration"
CACHE_LOAD_EVENT = "/jax/compilation_cache/cache_hits"
QUICK_ROWS = 200

_COUNTS = {"compiles": 0, "cache_loads": 0}


def _on_duration(event, duration_secs, **kwargs):
    if event == COMPILE_EVENT:
        _COUNTS["compiles"] += 1


def _on_event(event, **kwargs):
    if event == CACHE_LOAD_EVENT:
        _COUNTS["cache_loads"] += 1


@functools.cache
def _listen():
    """Register the compile and cache-load listeners, once per process (a listener cannot be
    deduplicated)."""
    import jax

    jax.monitoring.register_event_duration_secs_listener(_on_duration)
    jax.monitoring.register_event_listener(_on_event)


def _measured(fn):
    """Call ``fn`` and measure it.

    Parameters
    ----------
    fn : callable
        No arguments; its result is returned as it is (a fitted estimator or search).

    Returns
    -------
    tuple
        ``(output, wall_s, cpu_s, compiles, cache_loads)``: wall and process CPU time of the
        call, and the XLA compiles and persistent-cache loads that happened during it.
    """
    _listen()
    n0, l0 = _COUNTS["compiles"], _COUNTS["cache_loads"]
    c0, t0 = time.process_time(), time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = fn()
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    return out, wall, cpu, _COUNTS["compiles"] - n0, _COUNTS["cache_loads"] - l0


def _data(name: str, rows: int | None = None):
    """A bundled scikit-learn data set, or a fixed random choice of ``rows`` of it.

    Parameters
    ----------
    name : str
        ``"breast_cancer"``, ``"iris"`` or ``"diabetes"``; ``"breast_cancer_std"`` is
        breast_cancer standardised (for the estimators fitted without a pipeline).
    rows : int, optional
        Keep this many rows (``np.random.default_rng(0)``, without replacement).

    Returns
    -------
    tuple
        ``(X, y)`` as numpy arrays, float64 as loaded.
    """
    from sklearn import datasets

    std = name.endswith("_std")
    X, y = getattr(datasets, f"load_{name.removesuffix('_std')}")(return_X_y=True)
    if rows is not None and rows < len(y):
        keep = np.sort(np.random.default_rng(0).choice(len(y), rows, replace=False))
        X, y = X[keep], y[keep]
    if std:
        from sklearn.preprocessing import StandardScaler

        X = StandardScaler().fit_transform(X)
    return X, y


# --------------------------------------------------------------------------- GridSearchCV
def _search_cases(quick: bool):
    """``(name, data, ours factory, reference factory, reference name, grid, fold kind)``."""
    import jaxclassic.estimators as ours
    from sklearn import cluster, ensemble, linear_model, neighbors, svm, tree
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    if quick:
        return [
            ("DecisionTreeClassifier", "breast_cancer", ours.DecisionTreeClassifier,
             tree.DecisionTreeClassifier, "scikit-learn",
             {"max_depth": [2], "min_samples_leaf": [1, 2, 4, 8]}, "stratified"),
            ("LogisticRegression (scaled)", "breast_cancer",
             lambda: make_pipeline(StandardScaler(), ours.LogisticRegression()),
             lambda: make_pipeline(StandardScaler(), linear_model.LogisticRegression(max_iter=1000)),
             "scikit-learn", {"logisticregression__C": list(np.logspace(-2, 2, 4))}, "stratified"),
        ]
    return [
        ("DecisionTreeClassifier", "breast_cancer", ours.DecisionTreeClassifier,
         tree.DecisionTreeClassifier, "scikit-learn",
         {"max_depth": [2, 3, 4, 5, None], "min_samples_leaf": [1, 2, 4, 8, 16]}, "stratified"),
        ("RandomForestClassifier(20)", "breast_cancer",
         lambda: ours.RandomForestClassifier(n_estimators=20, random_state=0),
         lambda: ensemble.RandomForestClassifier(n_estimators=20, random_state=0, n_jobs=1),
         "scikit-learn n_jobs=1", {"max_depth": [3, 5, None], "max_features": ["sqrt", 0.5]},
         "stratified"),
        ("GradientBoostingClassifier(20)", "breast_cancer",
         lambda: ours.GradientBoostingClassifier(n_estimators=20),
         lambda: ensemble.GradientBoostingClassifier(n_estimators=20, random_state=0),
         "scikit-learn", {"learning_rate": [0.03, 0.1, 0.3, 0.5, 1.0], "max_depth": [1, 2, 3, 4, 5]},
         "stratified"),
        ("SVC (scaled)", "breast_cancer", lambda: make_pipeline(StandardScaler(), ours.SVC()),
         lambda: make_pipeline(StandardScaler(), svm.SVC()), "LIBSVM",
         {"svc__C": [0.1, 1.0, 10.0, 100.0, 1000.0], "svc__gamma": [1e-4, 1e-3, 1e-2, 1e-1, 1.0]},
         "stratified"),
        ("LogisticRegression (scaled)", "breast_cancer",
         lambda: make_pipeline(StandardScaler(), ours.LogisticRegression()),
         lambda: make_pipeline(StandardScaler(), linear_model.LogisticRegression(max_iter=1000)),
         "scikit-learn", {"logisticregression__C": list(np.logspace(-3, 3, 25))}, "stratified"),
        ("KMeans(n_init=3)", "iris", lambda: ours.KMeans(n_init=3, random_state=0),
         lambda: cluster.KMeans(n_init=3, random_state=0), "scikit-learn",
         {"n_clusters": [2, 3, 4, 5, 6], "max_iter": [10, 20, 50, 100, 300]}, "kfold"),
        ("KNeighborsClassifier", "iris", ours.KNeighborsClassifier,
         neighbors.KNeighborsClassifier, "scikit-learn",
         {"n_neighbors": list(range(1, 50, 2))}, "stratified"),
    ]


def _search_case(case, quick: bool, repeats: int) -> Result:
    """Time one GridSearchCV case, ours against the reference.

    Parameters
    ----------
    case : tuple
        One entry of :func:`_search_cases`.
    quick : bool
        200 rows and 3 folds instead of the whole data set and 5 folds.
    repeats : int
        Warm searches of each side (alternating).

    Returns
    -------
    Result
    """
    from sklearn.model_selection import GridSearchCV, KFold, StratifiedKFold

    name, data, make_ours, make_ref, ref_name, grid, fold_kind = case
    X, y = _data(data, QUICK_ROWS if quick else None)
    k = 3 if quick else 5
    splitter = StratifiedKFold if fold_kind == "stratified" else KFold
    folds = splitter(n_splits=k, shuffle=True, random_state=0)
    y_fit = None if fold_kind == "kfold" else y  # KMeans: unsupervised, its own score

    def search(make):
        return lambda: GridSearchCV(make(), grid, cv=folds, n_jobs=1).fit(X, y_fit)

    gs_ours, first_s, _, compiles_first, loads_first = _measured(search(make_ours))
    gs_ref = _measured(search(make_ref))[0]  # untimed: the reference's own first search
    ours, ref = [], []
    compiles_warm = loads_warm = None
    for _ in range(repeats):  # alternate: a slow phase of the machine hits both alike
        gs_ours, wall, cpu, n_compiles, n_loads = _measured(search(make_ours))
        ours.append((wall, cpu))
        if compiles_warm is None:
            compiles_warm, loads_warm = n_compiles, n_loads
        gs_ref, wall, cpu = _measured(search(make_ref))[:3]
        ref.append((wall, cpu))
    ours_s = statistics.median(w for w, _ in ours)
    n_candidates = len(gs_ours.cv_results_["params"])
    return Result(
        "search", f"GridSearchCV {name} {n_candidates}x{k} {data}", ours_s,
        statistics.median(w for w, _ in ref), compile_s=max(0.0, first_s - ours_s),
        metric="cv score", ours_quality=float(gs_ours.best_score_),
        ref_quality=float(gs_ref.best_score_), reference=ref_name,
        agreement=_params_equal(gs_ours.best_params_, gs_ref.best_params_),
        extra={"cpu": cpu_use(ours, ref), "cores": os.cpu_count(), "first_s": first_s,
               "compiles_first": compiles_first, "compiles_warm": compiles_warm,
               "cache_loads_first": loads_first, "cache_loads_warm": loads_warm,
               "best_params_ours": _plain(gs_ours.best_params_),
               "best_params_ref": _plain(gs_ref.best_params_),
               "candidates": n_candidates, "folds": k, "rows": len(y)})


def _plain(params: dict) -> dict:
    """``best_params_`` with numpy scalars as Python numbers (for the JSON output)."""
    return {k: (v.item() if isinstance(v, np.generic) else v) for k, v in params.items()}


def _params_equal(a: dict, b: dict) -> bool:
    return _plain(a) == _plain(b)


# --------------------------------------------------------------------------- recompiles
def _recompile_cases(quick: bool):
    """``(estimator, data, hyperparameter, values, ours factory, reference factory,
    reference name)``; a factory takes the hyperparameter's value."""
    import jaxclassic.estimators as ours
    from sklearn import cluster, ensemble, linear_model, mixture, neighbors, svm, tree

    if quick:
        return [
            ("DecisionTreeClassifier", "breast_cancer", "max_depth", [2, 3],
             lambda v: ours.DecisionTreeClassifier(max_depth=v),
             lambda v: tree.DecisionTreeClassifier(max_depth=v), "scikit-learn"),
            ("LogisticRegression", "breast_cancer_std", "C", [0.1, 1.0],
             lambda v: ours.LogisticRegression(C=v),
             lambda v: linear_model.LogisticRegression(C=v, max_iter=1000), "scikit-learn"),
        ]

    import xgboost

    sk, rs = "scikit-learn", {"random_state": 0}
    rf_ref = {"random_state": 0, "n_jobs": 1}
    cases = [  # (estimator, data, parameter, values, ours, its fixed arguments, reference, its
        #         fixed arguments, reference name)
        ("DecisionTreeClassifier", "breast_cancer", "max_depth", [2, 3, 4, 5, 6, None],
         ours.DecisionTreeClassifier, {}, tree.DecisionTreeClassifier, {}, sk),
        ("DecisionTreeClassifier", "breast_cancer", "min_samples_leaf", [1, 2, 5, 10],
         ours.DecisionTreeClassifier, {}, tree.DecisionTreeClassifier, {}, sk),
        ("RandomForestClassifier", "breast_cancer", "n_estimators", [10, 20, 50],
         ours.RandomForestClassifier, rs, ensemble.RandomForestClassifier, rf_ref,
         "scikit-learn n_jobs=1"),
        ("RandomForestClassifier(20)", "breast_cancer", "max_depth", [3, 5, None],
         ours.RandomForestClassifier, {"n_estimators": 20, **rs}, ensemble.RandomForestClassifier,
         {"n_estimators": 20, **rf_ref}, "scikit-learn n_jobs=1"),
        ("GradientBoostingClassifier", "breast_cancer", "n_estimators", [20, 50, 100],
         ours.GradientBoostingClassifier, {}, ensemble.GradientBoostingClassifier, rs, sk),
        ("GradientBoostingClassifier(20)", "breast_cancer", "max_depth", [2, 3, 4],
         ours.GradientBoostingClassifier, {"n_estimators": 20},
         ensemble.GradientBoostingClassifier, {"n_estimators": 20, **rs}, sk),
        ("GradientBoostingClassifier(20)", "breast_cancer", "learning_rate", [0.05, 0.1, 0.2],
         ours.GradientBoostingClassifier, {"n_estimators": 20},
         ensemble.GradientBoostingClassifier, {"n_estimators": 20, **rs}, sk),
        ("XGBoostClassifier", "breast_cancer", "max_depth", [3, 4, 6], ours.XGBoostClassifier, {},
         xgboost.XGBClassifier, {"tree_method": "hist"}, "xgboost hist"),
        ("LogisticRegression", "breast_cancer_std", "C", [0.1, 1.0, 10.0],
         ours.LogisticRegression, {}, linear_model.LogisticRegression, {"max_iter": 1000}, sk),
        ("SVC", "breast_cancer_std", "C", [0.1, 1.0, 10.0, 100.0], ours.SVC, {}, svm.SVC, {},
         "LIBSVM"),
        ("SVC", "breast_cancer_std", "gamma", [1e-3, 1e-2, 1e-1, 1.0], ours.SVC, {}, svm.SVC, {},
         "LIBSVM"),
        ("KNeighborsClassifier", "breast_cancer", "n_neighbors", [3, 5, 7, 9],
         ours.KNeighborsClassifier, {}, neighbors.KNeighborsClassifier, {}, sk),
        ("KMeans(n_init=3)", "iris", "n_clusters", [2, 3, 4, 5], ours.KMeans,
         {"n_init": 3, **rs}, cluster.KMeans, {"n_init": 3, **rs}, sk),
        ("GaussianMixture", "iris", "n_components", [1, 2, 3], ours.GaussianMixture, rs,
         mixture.GaussianMixture, rs, sk),
        ("Ridge", "diabetes", "alpha", [0.01, 0.1, 1.0, 10.0], ours.Ridge, {}, linear_model.Ridge,
         {}, sk),
        ("Lasso", "diabetes", "alpha", [0.01, 0.1, 1.0, 10.0], ours.Lasso, {}, linear_model.Lasso,
         {}, sk),
        ("AdaBoostClassifier", "breast_cancer", "n_estimators", [10, 20, 50],
         ours.AdaBoostClassifier, {}, ensemble.AdaBoostClassifier, rs, sk),
    ]
    return [(est, data, param, values, _factory(ours_cls, ours_fixed, param),
             _factory(ref_cls, ref_fixed, param), ref_name)
            for est, data, param, values, ours_cls, ours_fixed, ref_cls, ref_fixed, ref_name
            in cases]


def _factory(cls, fixed: dict, param: str):
    """``value -> cls(**fixed, param=value)``."""
    return lambda value: cls(**fixed, **{param: value})


def _recompile_case(case, quick: bool) -> Result:
    """Fit with the first value, refit with each other one; count the compiles of each refit.

    Parameters
    ----------
    case : tuple
        One entry of :func:`_recompile_cases`.
    quick : bool
        200 rows of the data set instead of all of it.

    Returns
    -------
    Result
    """
    est, data, param, values, make_ours, make_ref, ref_name = case
    X, y = _data(data, QUICK_ROWS if quick else None)
    y_fit = None if data == "iris" else y  # KMeans / GaussianMixture: unsupervised
    first_s = _measured(lambda: make_ours(values[0]).fit(X, y_fit))[1]
    _measured(lambda: make_ref(values[0]).fit(X, y_fit))  # the reference's own first fit
    ours_s, ref_s, compiles, loads = [], [], [], []
    for v in values[1:]:  # alternate: ours, then the reference, for each value
        _, wall, _, n_compiles, n_loads = _measured(lambda: make_ours(v).fit(X, y_fit))
        ours_s.append(wall)
        compiles.append(n_compiles)
        loads.append(n_loads)
        ref_s.append(_measured(lambda: make_ref(v).fit(X, y_fit))[1])
    return Result(
        "search", f"refit {est} {param} {values} {data}", statistics.median(ours_s),
        statistics.median(ref_s), metric="compiles / refit",
        ours_quality=float(np.mean(compiles)), reference=ref_name,
        agreement=f"compiles {compiles}",
        extra={"compiles_per_value": compiles, "cache_loads_per_value": loads,
               "values": [str(v) for v in values], "refit_s_ours": ours_s, "refit_s_ref": ref_s,
               "first_fit_s": first_s, "rows": len(y)})


def run(quick: bool = False, repeats: int | None = None) -> list[Result]:
    """Run every case (the four quick ones with ``quick``).

    Parameters
    ----------
    quick : bool
        Toy sizes (seconds in all), as ``tests/test_benchmarks_quick.py`` runs it.
    repeats : int, optional
        Warm GridSearchCV searches of each side; 1 with ``quick``, 3 otherwise.

    Returns
    -------
    list of Result
        The GridSearchCV cases, then the recompile cases.
    """
    repeats = repeats or (1 if quick else 3)
    results = [_search_case(case, quick, repeats) for case in _search_cases(quick)]
    results += [_recompile_case(case, quick) for case in _recompile_cases(quick)]
    return results


if __name__ == "__main__":
    from benchmarks.run import format_table

    print(format_table(run(quick=False)))
