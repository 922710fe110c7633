"""Tour rows for the generative classifiers: Gaussian NB, LDA, QDA on iris / wine /
breast cancer (test accuracy on a stratified 70/30 split), and categorical NB on the
PlayTennis data (leave-one-out accuracy: the 14 folds are one ``vmap`` over weight vectors).

``fit s`` is the time of one jaxclassic fit after a warm-up fit of the same shapes (compiled).
"""

from __future__ import annotations

import csv
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

from jaxclassic.tour import TourRow, timed

__all__ = ["rows"]



def _play_tennis():
    path = Path(__file__).resolve().parent.parent / "data" / "play_tennis.csv"
    with open(path) as fh:
        body = np.array(list(csv.reader(fh))[1:])
    codes = np.stack([np.unique(body[:, j], return_inverse=True)[1] for j in range(body.shape[1])], 1)
    return codes[:, :-1], codes[:, -1]


def rows() -> list[TourRow]:
    from jaxclassic import discriminant as D

    try:
        from sklearn import datasets
        from sklearn import discriminant_analysis as sk_da
        from sklearn import naive_bayes as sk_nb
        from sklearn.model_selection import train_test_split
    except ImportError:  # the tour needs scikit-learn's bundled data
        return []

    out: list[TourRow] = []
    models = [
        ("GaussianNB", D.fit_gaussian_nb, lambda: sk_nb.GaussianNB()),
        ("LDA", D.fit_lda, lambda: sk_da.LinearDiscriminantAnalysis(solver="lsqr")),
        ("QDA", lambda X, y: D.fit_qda(X, y, reg_param=1e-3),
         lambda: sk_da.QuadraticDiscriminantAnalysis(reg_param=1e-3)),
    ]
    for dname, loader in (("iris", datasets.load_iris), ("wine", datasets.load_wine),
                          ("breast_cancer", datasets.load_breast_cancer)):
        X, y = loader(return_X_y=True)
        Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, stratify=y, random_state=0)
        Xtr_j, ytr_j = jnp.asarray(Xtr), jnp.asarray(ytr)
        for mname, fit, ref in models:
            params, seconds = timed(lambda: fit(Xtr_j, ytr_j))
            ours = float(np.mean(np.asarray(D.predict(params, Xte)) == yte))
            theirs = float(ref().fit(Xtr, ytr).score(Xte, yte))
            out.append(TourRow(mname, dname, "test accuracy", ours, theirs, seconds))

    # categorical NB, Laplace smoothing, leave-one-out on PlayTennis: all folds in one vmap
    Xc, yc = _play_tennis()
    n = len(yc)
    n_categories = tuple(int(v) for v in Xc.max(0) + 1)
    folds = 1.0 - jnp.eye(n)

    def loo():
        params = jax.vmap(lambda w: D.fit_categorical_nb(
            Xc, yc, n_classes=2, n_categories=n_categories, alpha=1.0, sample_weight=w))(folds)
        return jax.vmap(lambda p, x: D.predict(p, x[None])[0])(params, jnp.asarray(Xc))

    pred, seconds = timed(loo)
    ours = float(np.mean(np.asarray(pred) == yc))
    ref_pred = [sk_nb.CategoricalNB(alpha=1.0, min_categories=np.array(n_categories))
                .fit(np.delete(Xc, i, 0), np.delete(yc, i)).predict(Xc[i:i + 1])[0] for i in range(n)]
    theirs = float(np.mean(np.asarray(ref_pred) == yc))
    out.append(TourRow("CategoricalNB", "play_tennis", "LOO accuracy", ours, theirs, seconds))
    return out
