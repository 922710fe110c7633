"""Tour rows for Gaussian mixtures (:func:`jaxclassic.cluster.fit_gmm`) beside scikit-learn.

Three full-covariance components by EM, ten k-means starts (one vmapped program) on iris
(raw) and wine (standardised), beside scikit-learn's ``GaussianMixture(3, n_init=10,
random_state=0)``: the mean log-likelihood of the training rows (``score``) and the adjusted
Rand index of the most probable components against the classes (scikit-learn's
``adjusted_rand_score`` on both sides). The starts are different random draws, but with ten
of them both reach the same optimum on these data (log-likelihoods ~1e-7 apart, the same
partition). ``fit s`` is one fit after a warm-up fit of the same shapes (compiled).
"""

from __future__ import annotations

import numpy as np

from jaxclassic.tour import TourRow, timed

__all__ = ["rows"]

N_COMPONENTS = 3
N_INIT = 10


def _rows_for(name, X, y, mixture, adjusted_rand_score) -> list[TourRow]:
    import jax

    from jaxclassic import cluster
    from jaxclassic.cluster.gmm import score

    params, seconds = timed(lambda: cluster.fit_gmm(X, N_COMPONENTS, key=jax.random.key(0),
                                                    covariance_type="full", n_init=N_INIT))
    ref = mixture.GaussianMixture(N_COMPONENTS, covariance_type="full", n_init=N_INIT,
                                  random_state=0).fit(X)
    model = f"GaussianMixture (full, k={N_COMPONENTS}, {N_INIT} starts)"
    ari = adjusted_rand_score(y, np.asarray(cluster.predict(params, X)))
    return [TourRow(model, name, "mean log-likelihood", float(score(params, X)), float(ref.score(X)), seconds),
            TourRow(model, name, "ARI vs classes", float(ari), float(adjusted_rand_score(y, ref.predict(X))),
                    seconds)]


def rows() -> list[TourRow]:
    try:
        from sklearn import datasets, mixture
        from sklearn.metrics import adjusted_rand_score
        from sklearn.preprocessing import StandardScaler
    except ImportError:  # the tour needs scikit-learn's bundled data
        return []
    X_iris, y_iris = datasets.load_iris(return_X_y=True)
    X_wine, y_wine = datasets.load_wine(return_X_y=True)
    X_wine = StandardScaler().fit_transform(X_wine)
    return [*_rows_for("iris", X_iris, y_iris, mixture, adjusted_rand_score),
            *_rows_for("wine (standardised)", X_wine, y_wine, mixture, adjusted_rand_score)]
