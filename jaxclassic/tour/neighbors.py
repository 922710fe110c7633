"""Tour rows for nearest neighbours and kernel density estimation, beside scikit-learn.

* k-NN classification (:func:`jaxclassic.neighbors.fit_knn`, k = 5, euclidean, on standardised
  columns) on iris, breast cancer and digits: test accuracy on a stratified 70/30 split, beside
  scikit-learn's ``KNeighborsClassifier(5, algorithm="brute")`` on the same rows. Exact search
  on both sides, so the figures agree up to ties among the 5th and 6th neighbours.
* k chosen by 5-fold cross-validation (:func:`jaxclassic.neighbors.knn_cv_scores`, all k of
  1..30 from one search per fold) on breast cancer: the best mean CV accuracy, beside
  ``GridSearchCV`` of scikit-learn's classifier over the same k and the same folds.
* k-NN regression (k = 10, distance weights) on diabetes: test R².
* Kernel density (gaussian, on standardised iris): mean test log-likelihood at the bandwidth
  chosen by 5-fold likelihood cross-validation over 20 bandwidths
  (:func:`jaxclassic.neighbors.kde_bandwidth_cv`, one program), beside ``GridSearchCV`` of
  scikit-learn's ``KernelDensity`` (exact: ``atol=rtol=0``) over the same grid and folds.

``fit s`` is the time of one jaxclassic call after a warm-up of the same shapes (compiled):
fit and prediction for k-NN (a fit only stores the rows), the whole grid for the CV rows.
"""

from __future__ import annotations

import numpy as np

from jaxclassic.tour import TourRow, timed

__all__ = ["rows"]

K = 5


def _standardise(Xtr, Xte):
    mean, sd = Xtr.mean(0), Xtr.std(0)
    sd = np.where(sd > 0, sd, 1.0)
    return (Xtr - mean) / sd, (Xte - mean) / sd


def _fold_weights(y, cv):
    folds = np.ones((cv.get_n_splits(), len(y)))
    for f, (_, test) in enumerate(cv.split(np.zeros((len(y), 1)), y)):
        folds[f, test] = 0.0
    return folds


def _classification_rows(datasets, sk_neighbors, train_test_split) -> list[TourRow]:
    from jaxclassic import neighbors as N

    out = []
    for name, loader in (("iris", datasets.load_iris), ("breast_cancer", datasets.load_breast_cancer),
                         ("digits", datasets.load_digits)):
        X, y = loader(return_X_y=True)
        Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, stratify=y, random_state=0)
        Xtr, Xte = _standardise(Xtr, Xte)
        pred, seconds = timed(lambda: N.predict(N.fit_knn(Xtr, ytr, n_neighbors=K), Xte))
        ref = sk_neighbors.KNeighborsClassifier(K, algorithm="brute").fit(Xtr, ytr)
        out.append(TourRow("k-NN (k=5, euclidean)", name, "test accuracy",
                           float(np.mean(np.asarray(pred) == yte)), float(ref.score(Xte, yte)), seconds))
    return out


def _cv_row(datasets, sk_neighbors, StratifiedKFold, GridSearchCV) -> TourRow:
    from jaxclassic import neighbors as N

    X, y = datasets.load_breast_cancer(return_X_y=True)
    X = (X - X.mean(0)) / X.std(0)
    cv = StratifiedKFold(5, shuffle=True, random_state=0)
    ks = list(range(1, 31))
    res, seconds = timed(lambda: N.knn_cv_scores(X, y, ks, _fold_weights(y, cv)).mean_scores)
    ref = GridSearchCV(sk_neighbors.KNeighborsClassifier(algorithm="brute"), {"n_neighbors": ks},
                       cv=cv).fit(X, y)
    return TourRow("k-NN, k by 5-fold CV (k<=30)", "breast_cancer", "best CV accuracy",
                   float(np.max(np.asarray(res))), float(ref.best_score_), seconds)


def _regression_row(datasets, sk_neighbors, train_test_split) -> TourRow:
    from jaxclassic import metrics
    from jaxclassic import neighbors as N

    X, y = datasets.load_diabetes(return_X_y=True)
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, random_state=0)
    pred, seconds = timed(lambda: N.predict(
        N.fit_knn(Xtr, ytr, n_neighbors=10, weights="distance", task="regression"), Xte))
    ref = sk_neighbors.KNeighborsRegressor(10, weights="distance", algorithm="brute").fit(Xtr, ytr)
    return TourRow("k-NN regression (k=10, distance)", "diabetes", "test R2",
                   float(metrics.r2_score(yte, pred)), float(ref.score(Xte, yte)), seconds)


def _kde_row(datasets, sk_neighbors, KFold, GridSearchCV, train_test_split) -> TourRow:
    from jaxclassic import neighbors as N

    X = datasets.load_iris().data
    Xtr, Xte = train_test_split(X, test_size=0.3, random_state=0)
    Xtr, Xte = _standardise(Xtr, Xte)
    grid = np.geomspace(0.1, 2.0, 20)
    cv = KFold(5, shuffle=True, random_state=0)
    folds = _fold_weights(np.zeros(len(Xtr)), cv)

    def ours():
        best = N.kde_bandwidth_cv(Xtr, grid, folds).best_bandwidth
        return N.score_samples(N.fit_kde(Xtr, bandwidth=best), Xte)

    log_density, seconds = timed(ours)
    ref = GridSearchCV(sk_neighbors.KernelDensity(atol=0, rtol=0), {"bandwidth": grid}, cv=cv).fit(Xtr)
    return TourRow("KDE (gaussian, bandwidth by 5-fold CV)", "iris", "test mean log-lik",
                   float(np.mean(np.asarray(log_density))),
                   float(np.mean(ref.best_estimator_.score_samples(Xte))), seconds)


def rows() -> list[TourRow]:
    try:
        from sklearn import datasets
        from sklearn import neighbors as sk_neighbors
        from sklearn.model_selection import GridSearchCV, KFold, StratifiedKFold, train_test_split
    except ImportError:  # the tour needs scikit-learn's bundled data
        return []
    return [*_classification_rows(datasets, sk_neighbors, train_test_split),
            _cv_row(datasets, sk_neighbors, StratifiedKFold, GridSearchCV),
            _regression_row(datasets, sk_neighbors, train_test_split),
            _kde_row(datasets, sk_neighbors, KFold, GridSearchCV, train_test_split)]
