"""Tour rows for the ensembles, each beside its reference on the same split.

* Random forest (:func:`jaxclassic.ensemble.fit_random_forest`, 50 trees, ``sqrt`` features
  per node) on breast cancer: test accuracy on a stratified 70/30 split, beside scikit-learn's
  ``RandomForestClassifier(n_estimators=50)``.
* AdaBoost (:func:`jaxclassic.ensemble.fit_adaboost`, 50 stumps) on breast cancer, beside
  ``AdaBoostClassifier(n_estimators=50)`` (its default base: stumps).
* Gradient boosting regression (:func:`jaxclassic.ensemble.fit_gradient_boosting`, squared
  error, 100 rounds of depth 3, learning rate 0.1) on diabetes: test R², beside
  ``GradientBoostingRegressor()`` (the same defaults).
* XGBoost-style boosting (:func:`jaxclassic.ensemble.fit_xgboost`, log-loss, 50 rounds of
  depth 6, learning rate 0.3, 256 bins) on breast cancer: test accuracy, beside the xgboost
  package's ``XGBClassifier`` with the same settings (``tree_method="hist"``) when it is
  installed, else scikit-learn's ``HistGradientBoostingClassifier`` (the model column says
  which).
* Soft voting and stacking (:class:`~jaxclassic.estimators.VotingClassifier`,
  :class:`~jaxclassic.estimators.StackingClassifier`) of a depth-3 tree and Gaussian naive
  Bayes (stacking's final model: logistic regression), after standardisation, on wine: test
  accuracy beside scikit-learn's classes over scikit-learn's members.

Figures differ from the references where the data are not exactly binnable (breast cancer,
diabetes: 255 quantile bins) and where draws differ (the forests' bootstraps). ``fit s`` is
the time of one jaxclassic fit after a warm-up fit of the same shapes (compiled).
"""

from __future__ import annotations

import numpy as np

from jaxclassic.tour import TourRow, timed

__all__ = ["rows"]

N_TREES = 50


def _split(X, y, train_test_split, stratify=True):
    return train_test_split(X, y, test_size=0.3, stratify=y if stratify else None, random_state=0)


def _accuracy(pred, y):
    return float(np.mean(np.asarray(pred) == y))


def _boosting_rows(datasets, train_test_split) -> list[TourRow]:
    import jax
    from sklearn import ensemble as sk

    from jaxclassic import ensemble as E
    from jaxclassic import metrics

    X, y = datasets.load_breast_cancer(return_X_y=True)
    Xtr, Xte, ytr, yte = _split(X, y, train_test_split)
    out = []
    params, seconds = timed(lambda: E.fit_random_forest(Xtr, ytr, n_estimators=N_TREES, key=jax.random.key(0),
                                                        n_classes=2))
    ref = sk.RandomForestClassifier(n_estimators=N_TREES, random_state=0).fit(Xtr, ytr)
    out.append(TourRow(f"random forest ({N_TREES} trees)", "breast_cancer", "test accuracy",
                       _accuracy(E.predict(params, Xte), yte), float(ref.score(Xte, yte)), seconds))

    params, seconds = timed(lambda: E.fit_adaboost(Xtr, ytr, n_estimators=50))
    ref = sk.AdaBoostClassifier(n_estimators=50, random_state=0).fit(Xtr, ytr)
    out.append(TourRow("AdaBoost (50 stumps)", "breast_cancer", "test accuracy",
                       _accuracy(E.predict(params, Xte), yte), float(ref.score(Xte, yte)), seconds))

    try:
        from xgboost import XGBClassifier

        ref = XGBClassifier(n_estimators=50, learning_rate=0.3, max_depth=6, max_bin=256, tree_method="hist",
                            random_state=0).fit(Xtr, ytr)
        ref_name = "xgboost"
    except ImportError:
        ref = sk.HistGradientBoostingClassifier(max_iter=50, learning_rate=0.3, random_state=0).fit(Xtr, ytr)
        ref_name = "sklearn HistGradientBoosting"
    params, seconds = timed(lambda: E.fit_xgboost(Xtr, ytr, loss="log_loss", n_estimators=50, learning_rate=0.3,
                                                  max_depth=6))
    out.append(TourRow(f"XGBoost (50 rounds, depth 6; ref: {ref_name})", "breast_cancer", "test accuracy",
                       _accuracy(E.predict(params, Xte), yte), float(np.mean(ref.predict(Xte) == yte)), seconds))

    X, y = datasets.load_diabetes(return_X_y=True)
    Xtr, Xte, ytr, yte = _split(X, y, train_test_split, stratify=False)
    params, seconds = timed(lambda: E.fit_gradient_boosting(Xtr, ytr, n_estimators=100, max_depth=3,
                                                            learning_rate=0.1))
    ref = sk.GradientBoostingRegressor(random_state=0).fit(Xtr, ytr)
    out.append(TourRow("gradient boosting (100 x depth 3)", "diabetes", "test R2",
                       float(metrics.r2_score(yte, E.predict(params, Xte))), float(ref.score(Xte, yte)), seconds))
    return out


def _meta_rows(datasets, train_test_split) -> list[TourRow]:
    from sklearn import ensemble as sk
    from sklearn.linear_model import LogisticRegression as SkLogistic
    from sklearn.naive_bayes import GaussianNB as SkNB
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.tree import DecisionTreeClassifier as SkTree

    from jaxclassic.estimators.discriminant import GaussianNB
    from jaxclassic.estimators.voting import StackingClassifier, VotingClassifier
    from jaxclassic.estimators.linear_classification import LogisticRegression
    from jaxclassic.estimators.tree import DecisionTreeClassifier

    X, y = datasets.load_wine(return_X_y=True)
    Xtr, Xte, ytr, yte = _split(X, y, train_test_split)

    def ours_members():
        return [("tree", DecisionTreeClassifier(max_depth=3)), ("nb", GaussianNB())]

    def sk_members():
        return [("tree", SkTree(max_depth=3, random_state=0)), ("nb", SkNB())]

    out = []
    cases = (
        ("soft voting (tree + naive Bayes)",
         lambda: VotingClassifier(ours_members(), voting="soft"),
         lambda: sk.VotingClassifier(sk_members(), voting="soft")),
        ("stacking (tree + naive Bayes -> logistic)",
         lambda: StackingClassifier(ours_members(), LogisticRegression()),
         lambda: sk.StackingClassifier(sk_members(), SkLogistic())),
    )
    for name, ours, ref in cases:
        model, seconds = timed(lambda: make_pipeline(StandardScaler(), ours()).fit(Xtr, ytr))
        reference = make_pipeline(StandardScaler(), ref()).fit(Xtr, ytr)
        out.append(TourRow(name, "wine", "test accuracy", float(model.score(Xte, yte)),
                           float(reference.score(Xte, yte)), seconds))
    return out


def rows() -> list[TourRow]:
    try:
        from sklearn import datasets
        from sklearn.model_selection import train_test_split
    except ImportError:  # the tour needs scikit-learn's bundled data
        return []
    return [*_boosting_rows(datasets, train_test_split), *_meta_rows(datasets, train_test_split)]
