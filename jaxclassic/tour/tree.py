"""Tour rows for the decision trees, each beside scikit-learn on the same split.

* CART classification (:func:`jaxclassic.tree.fit_cart`, gini, depth 4) on breast cancer and
  wine: test accuracy on a stratified 70/30 split, beside scikit-learn's
  ``DecisionTreeClassifier(max_depth=4)``.
* CART regression (squared error, depth 4) on diabetes: test R² on a 70/30 split, beside
  ``DecisionTreeRegressor(max_depth=4)``.
* ID3 (:func:`jaxclassic.tree.fit_id3`) on Quinlan's play-tennis table: leave-one-out
  accuracy (each fold is the full table with one zero weight, so every fold reuses one
  compiled program). scikit-learn has no ID3; the comparison column is scikit-learn's
  *entropy* tree (``DecisionTreeClassifier(criterion="entropy")``, binary splits) on the
  one-hot encoded attributes, under the same leave-one-out.
* C4.5 (:func:`jaxclassic.tree.fit_c45`, gain ratio, pessimistic pruning at CF 0.25) on
  iris: test accuracy on a stratified 70/30 split, beside scikit-learn's entropy tree (no
  pruning, binary splits: the nearest scikit-learn model).

Trees of both libraries see the same rows. CART bins each feature into 255 histogram bins,
exact when a feature has at most 255 distinct values (wine, not breast cancer): the tree then
makes scikit-learn's partitions of the training rows, with scikit-learn's thresholds (the
midpoints of the node's adjacent values), and test figures still differ where two splits tie
in the gain (scikit-learn breaks ties by its random feature order: on wine its test accuracy
ranges over 0.83-0.94 with ``random_state`` 0-9, and these partitions give 0.89). ``fit s`` is the time of
one jaxclassic fit after a warm-up fit of the same shapes (compiled); ID3's is per fold.
"""

from __future__ import annotations

import numpy as np

from jaxclassic.tour import TourRow, timed

__all__ = ["rows"]

DEPTH = 4


def _cart_rows(datasets, sk_tree, train_test_split) -> list[TourRow]:
    from jaxclassic import metrics
    from jaxclassic import tree as T

    out = []
    for name, loader in (("breast_cancer", datasets.load_breast_cancer), ("wine", datasets.load_wine)):
        X, y = loader(return_X_y=True)
        Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, stratify=y, random_state=0)
        n_classes = int(y.max()) + 1
        params, seconds = timed(lambda: T.fit_cart(Xtr, ytr, max_depth=DEPTH, n_classes=n_classes))
        ours = float(np.mean(np.asarray(T.predict(params, Xte)) == yte))
        ref = sk_tree.DecisionTreeClassifier(max_depth=DEPTH, random_state=0).fit(Xtr, ytr)
        out.append(TourRow("CART (gini, depth 4)", name, "test accuracy", ours, float(ref.score(Xte, yte)),
                           seconds))
    X, y = datasets.load_diabetes(return_X_y=True)
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, random_state=0)
    params, seconds = timed(lambda: T.fit_cart(Xtr, ytr, task="regression", max_depth=DEPTH))
    ours = float(metrics.r2_score(yte, T.predict(params, Xte)))
    ref = sk_tree.DecisionTreeRegressor(max_depth=DEPTH, random_state=0).fit(Xtr, ytr)
    out.append(TourRow("CART regression (depth 4)", "diabetes", "test R2", ours, float(ref.score(Xte, yte)),
                       seconds))
    return out


def _id3_row(sk_tree, OneHotEncoder) -> TourRow:
    from jaxclassic import tree as T
    from jaxclassic.datasets import load_play_tennis

    X, y = load_play_tennis(return_X_y=True)
    n = len(y)
    n_categories = [int(v) for v in X.max(axis=0) + 1]

    def loo():
        pred = []
        for i in range(n):
            weight = np.ones(n)
            weight[i] = 0.0
            params = T.fit_id3(X, y, n_categories=n_categories, n_classes=2, sample_weight=weight)
            pred.append(int(T.predict(params, X[i:i + 1])[0]))
        return np.asarray(pred)

    pred, seconds = timed(loo)
    onehot = OneHotEncoder().fit_transform(X).toarray()
    ref = [sk_tree.DecisionTreeClassifier(criterion="entropy", random_state=0)
           .fit(np.delete(onehot, i, 0), np.delete(y, i)).predict(onehot[i:i + 1])[0] for i in range(n)]
    return TourRow("ID3 (sklearn: entropy tree, one-hot)", "play_tennis", "LOO accuracy",
                   float(np.mean(pred == y)), float(np.mean(np.asarray(ref) == y)), seconds / n)


def _c45_row(datasets, sk_tree, train_test_split) -> TourRow:
    from jaxclassic import tree as T

    X, y = datasets.load_iris(return_X_y=True)
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, stratify=y, random_state=0)
    params, seconds = timed(lambda: T.fit_c45(Xtr, ytr, n_classes=3))
    ours = float(np.mean(np.asarray(T.predict(params, Xte)) == yte))
    ref = sk_tree.DecisionTreeClassifier(criterion="entropy", random_state=0).fit(Xtr, ytr)
    return TourRow("C4.5 (sklearn: entropy tree)", "iris", "test accuracy", ours, float(ref.score(Xte, yte)),
                   seconds)


def rows() -> list[TourRow]:
    try:
        from sklearn import datasets
        from sklearn import tree as sk_tree
        from sklearn.model_selection import train_test_split
        from sklearn.preprocessing import OneHotEncoder
    except ImportError:  # the tour needs scikit-learn's bundled data
        return []
    return [*_cart_rows(datasets, sk_tree, train_test_split), _id3_row(sk_tree, OneHotEncoder),
            _c45_row(datasets, sk_tree, train_test_split)]
