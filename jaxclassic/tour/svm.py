"""Tour rows for the support vector machines, each beside scikit-learn on the same split.

* Kernel SVM (:func:`jaxclassic.svm.fit_kernel_svm`, SMO with LIBSVM's working-set selection,
  rbf kernel, C = 1, gamma = "scale") on breast cancer (standardised): test accuracy on a
  stratified 70/30 split, beside scikit-learn's ``SVC()`` (LIBSVM); the same SMO problem, so
  the support sets and predictions agree (the objectives to ~1e-8).
* Multiclass SVC (:class:`jaxclassic.estimators.SVC`, one-vs-one in one ``vmap``) on wine
  (standardised), beside ``SVC()``.
* ε-SVR (:func:`jaxclassic.svm.fit_kernel_svr`, rbf, C = 1, ε = 0.1) on diabetes (standardised
  features and target): test R², beside ``SVR()``.
* Linear SVM (:func:`jaxclassic.svm.fit_linear_svm`, LIBLINEAR's dual coordinate descent,
  squared hinge, C = 1) on breast cancer, beside ``LinearSVC()``.

``fit s`` is the time of one jaxclassic fit after a warm-up fit of the same shapes (compiled).
"""

from __future__ import annotations

import numpy as np

from jaxclassic.tour import TourRow, timed

__all__ = ["rows"]


def _split(loader, train_test_split, StandardScaler, stratify=True):
    X, y = loader(return_X_y=True)
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, stratify=y if stratify else None,
                                          random_state=0)
    scaler = StandardScaler().fit(Xtr)
    return scaler.transform(Xtr), scaler.transform(Xte), ytr, yte


def rows() -> list[TourRow]:
    try:
        from sklearn import datasets
        from sklearn import svm as sk_svm
        from sklearn.model_selection import train_test_split
        from sklearn.preprocessing import StandardScaler
    except ImportError:  # the tour needs scikit-learn's bundled data
        return []
    from jaxclassic import svm
    from jaxclassic.estimators import SVC

    out = []
    Xtr, Xte, ytr, yte = _split(datasets.load_breast_cancer, train_test_split, StandardScaler)
    params, seconds = timed(lambda: svm.fit_kernel_svm(Xtr, ytr))
    ours = float(np.mean(np.asarray(svm.predict(params, Xte)) == yte))
    ref = sk_svm.SVC().fit(Xtr, ytr).score(Xte, yte)
    out.append(TourRow("kernel SVM (SMO, rbf)", "breast_cancer", "test accuracy", ours, float(ref), seconds))

    Xtr, Xte, ytr, yte = _split(datasets.load_wine, train_test_split, StandardScaler)
    model, seconds = timed(lambda: SVC().fit(Xtr, ytr))
    out.append(TourRow("SVC one-vs-one (rbf)", "wine", "test accuracy", float(model.score(Xte, yte)),
                       float(sk_svm.SVC().fit(Xtr, ytr).score(Xte, yte)), seconds))

    Xtr, Xte, ytr, yte = _split(datasets.load_diabetes, train_test_split, StandardScaler,
                                stratify=False)
    mean, sd = ytr.mean(), ytr.std()
    params, seconds = timed(lambda: svm.fit_kernel_svr(Xtr, (ytr - mean) / sd))
    pred = np.asarray(svm.predict(params, Xte)) * sd + mean
    ours = 1 - np.sum((yte - pred) ** 2) / np.sum((yte - yte.mean()) ** 2)
    ref = sk_svm.SVR().fit(Xtr, (ytr - mean) / sd)
    ref_pred = ref.predict(Xte) * sd + mean
    ref_r2 = 1 - np.sum((yte - ref_pred) ** 2) / np.sum((yte - yte.mean()) ** 2)
    out.append(TourRow("eps-SVR (SMO, rbf)", "diabetes", "test R2", float(ours), float(ref_r2), seconds))

    if hasattr(svm, "fit_linear_svm"):
        Xtr, Xte, ytr, yte = _split(datasets.load_breast_cancer, train_test_split, StandardScaler)
        params, seconds = timed(lambda: svm.fit_linear_svm(Xtr, ytr, max_iter=10_000))
        ours = float(np.mean(np.asarray(svm.predict(params, Xte)) == yte))
        ref = sk_svm.LinearSVC(max_iter=10_000).fit(Xtr, ytr).score(Xte, yte)
        out.append(TourRow("linear SVM (dual CD, squared hinge)", "breast_cancer", "test accuracy", ours,
                           float(ref), seconds))
    return out
