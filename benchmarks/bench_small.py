"""Small data, warm: the estimators a notebook user fits on a bundled table, beside the
library they would use instead (issue 25's table).

Data: scikit-learn's bundled breast_cancer (569 x 30, classifiers), diabetes (442 x 10,
regressors), wine (178 x 13: a tree and a forest on 133 training rows, which the tree family
pads to 512, ``estimators._base.TREE_MIN_BUCKET``), digits (1,797 x 64 of 17 distinct values: a
tree and a forest, binned at 32 bins, ``tree.binning.fewest_bins``) and iris (150 x 4, clustering / mixtures),
float64 as loaded, split 75 / 25 with a
fixed seed. Each case fits ours and the reference on the training rows with the same
hyperparameters; the first fit of each (compilation on our side) is reported apart
(``compile_s``); then the two are timed **alternately** (ours, reference, ours, ...), the
median of ``repeats`` fits each, so that a slow phase of a shared machine hits both alike.
Quality is scored on the **held-out rows** (accuracy, R^2, or the adjusted Rand index between
the two clusterings). ``extra["cpu"]`` is each side's CPU time over wall time during its timed
fits (2.0 on two busy cores): the reference here runs single-threaded where it has the choice
(``n_jobs=1``, xgboost ``nthread=1`` is *not* set: xgboost uses every core, as its users run it).

::

    python -m benchmarks.run --only small            # every case (a few minutes)
    python -m benchmarks.run --only small --quick    # three cases

Ratios are ``reference / ours`` (above 1: ours is faster).
"""

from __future__ import annotations

import os
import statistics
import time
import warnings

import numpy as np

from benchmarks._harness import Result, _block, cpu_use

__all__ = ["run", "CASES"]


def _cases():
    """``(name, data, ours factory, reference factory, reference name)``."""
    import jaxclassic.estimators as ours
    import xgboost
    from sklearn import cluster, ensemble, linear_model, mixture, naive_bayes, neighbors, svm, tree

    return [
        ("DecisionTreeClassifier()", "breast_cancer", ours.DecisionTreeClassifier,
         tree.DecisionTreeClassifier, "scikit-learn"),
        ("DecisionTreeRegressor()", "diabetes", ours.DecisionTreeRegressor,
         tree.DecisionTreeRegressor, "scikit-learn"),
        ("RandomForestClassifier(100)", "breast_cancer",
         lambda: ours.RandomForestClassifier(n_estimators=100, random_state=0),
         lambda: ensemble.RandomForestClassifier(n_estimators=100, random_state=0, n_jobs=1),
         "scikit-learn n_jobs=1"),
        # regression trees grow until pure (about one node per row): the sorted engine
        ("RandomForestRegressor(100)", "diabetes",
         lambda: ours.RandomForestRegressor(n_estimators=100, random_state=0),
         lambda: ensemble.RandomForestRegressor(n_estimators=100, random_state=0, n_jobs=1),
         "scikit-learn n_jobs=1"),
        ("BaggingRegressor(10)", "diabetes", lambda: ours.BaggingRegressor(random_state=0),
         lambda: ensemble.BaggingRegressor(random_state=0, n_jobs=1), "scikit-learn n_jobs=1"),
        ("GradientBoostingRegressor(100)", "diabetes",
         lambda: ours.GradientBoostingRegressor(n_estimators=100),
         lambda: ensemble.GradientBoostingRegressor(n_estimators=100, random_state=0), "scikit-learn"),
        ("GradientBoostingClassifier(100)", "breast_cancer",
         lambda: ours.GradientBoostingClassifier(n_estimators=100),
         lambda: ensemble.GradientBoostingClassifier(n_estimators=100, random_state=0), "scikit-learn"),
        ("AdaBoostClassifier(50)", "breast_cancer", lambda: ours.AdaBoostClassifier(n_estimators=50),
         lambda: ensemble.AdaBoostClassifier(n_estimators=50, random_state=0), "scikit-learn"),
        ("XGBoostClassifier(100, depth 6)", "breast_cancer",
         lambda: ours.XGBoostClassifier(n_estimators=100, max_depth=6),
         lambda: xgboost.XGBClassifier(n_estimators=100, max_depth=6, tree_method="hist"), "xgboost hist"),
        ("DecisionTreeClassifier()", "wine", ours.DecisionTreeClassifier, tree.DecisionTreeClassifier,
         "scikit-learn"),
        ("RandomForestClassifier(100)", "wine",
         lambda: ours.RandomForestClassifier(n_estimators=100, random_state=0),
         lambda: ensemble.RandomForestClassifier(n_estimators=100, random_state=0, n_jobs=1),
         "scikit-learn n_jobs=1"),
        # digits (1,797 x 64, 17 distinct pixel values): the tree family bins at 32, not 255
        # (``tree.binning.fewest_bins``), the same trees
        ("DecisionTreeClassifier()", "digits", ours.DecisionTreeClassifier, tree.DecisionTreeClassifier,
         "scikit-learn"),
        ("RandomForestClassifier(100)", "digits",
         lambda: ours.RandomForestClassifier(n_estimators=100, random_state=0),
         lambda: ensemble.RandomForestClassifier(n_estimators=100, random_state=0, n_jobs=1),
         "scikit-learn n_jobs=1"),
        ("SVC()", "breast_cancer", ours.SVC, svm.SVC, "LIBSVM"),
        ("LogisticRegression()", "breast_cancer", ours.LogisticRegression,
         lambda: linear_model.LogisticRegression(max_iter=1000), "scikit-learn"),
        ("KNeighborsClassifier()", "breast_cancer", ours.KNeighborsClassifier,
         neighbors.KNeighborsClassifier, "scikit-learn"),
        ("GaussianNB()", "breast_cancer", ours.GaussianNB, naive_bayes.GaussianNB, "scikit-learn"),
        ("Ridge()", "diabetes", ours.Ridge, linear_model.Ridge, "scikit-learn"),
        ("KMeans(3, n_init=10)", "iris", lambda: ours.KMeans(n_clusters=3, n_init=10, random_state=0),
         lambda: cluster.KMeans(n_clusters=3, n_init=10, random_state=0), "scikit-learn"),
        ("GaussianMixture(3)", "iris", lambda: ours.GaussianMixture(n_components=3, random_state=0),
         lambda: mixture.GaussianMixture(n_components=3, random_state=0), "scikit-learn"),
    ]


QUICK = ("DecisionTreeClassifier()", "LogisticRegression()", "GaussianNB()")


def _data(name):
    from sklearn import datasets
    from sklearn.model_selection import train_test_split

    X, y = getattr(datasets, f"load_{name}")(return_X_y=True)
    return train_test_split(X, y, test_size=0.25, random_state=0)


def _quality(model_ours, model_ref, data, X_te, y_te):
    if data == "iris":  # clustering: agreement of the two partitions of the held-out rows
        from sklearn.metrics import adjusted_rand_score

        a, b = np.asarray(model_ours.predict(X_te)), model_ref.predict(X_te)
        return "adjusted Rand (ours vs ref)", adjusted_rand_score(a, b), 1.0
    if data == "diabetes":
        from sklearn.metrics import r2_score

        return "held-out R^2", r2_score(y_te, np.asarray(model_ours.predict(X_te))), r2_score(
            y_te, model_ref.predict(X_te))
    return "held-out accuracy", float(np.mean(np.asarray(model_ours.predict(X_te)) == y_te)), float(
        np.mean(model_ref.predict(X_te) == y_te))


def _timed(fit):
    c0, t0 = time.process_time(), time.perf_counter()
    out = fit()
    _block(getattr(out, "params_", None))
    return time.perf_counter() - t0, time.process_time() - c0


def run(quick: bool = False, repeats: int | None = None) -> list[Result]:
    repeats = repeats or (3 if quick else 7)
    results = []
    cache = {}
    for case, data, make_ours, make_ref, ref_name in _cases():
        if quick and case not in QUICK:
            continue
        if data not in cache:
            cache[data] = _data(data)
        X_tr, X_te, y_tr, y_te = cache[data]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t0 = time.perf_counter()
            m_ours = make_ours().fit(X_tr, y_tr)
            _block(getattr(m_ours, "params_", None))
            compile_s = time.perf_counter() - t0
            m_ref = make_ref().fit(X_tr, y_tr)
            ours, ref = [], []
            for _ in range(repeats):  # alternate: a slow phase of the machine hits both alike
                ours.append(_timed(lambda: make_ours().fit(X_tr, y_tr)))
                ref.append(_timed(lambda: make_ref().fit(X_tr, y_tr)))
        metric, q_ours, q_ref = _quality(m_ours, m_ref, data, X_te, y_te)
        cpu = cpu_use(ours, ref)
        results.append(Result(
            "small", f"{case} {data}", statistics.median(w for w, _ in ours),
            statistics.median(w for w, _ in ref), compile_s=compile_s, metric=metric,
            ours_quality=q_ours, ref_quality=q_ref, reference=ref_name,
            extra={"cpu": cpu, "cores": os.cpu_count()}))
    return results


if __name__ == "__main__":
    for r in run(quick=False):
        print(f"{r.case:48s} ours {r.ours_s * 1e3:9.1f} ms  ref {r.ref_s * 1e3:8.1f} ms  "
              f"ratio {r.ratio:6.3f}  first {r.compile_s:6.2f} s  {r.metric} {r.ours_quality:.3f} / "
              f"{r.ref_quality:.3f}  cpu {r.extra['cpu']}")
