"""Tour rows for clustering, each beside its reference on the same data.

* k-means (:func:`jaxclassic.cluster.fit_kmeans`, k = number of classes, greedy k-means++,
  10 restarts vmapped) on iris and on standardised wine: the inertia and the adjusted Rand
  index (ARI) of the clusters against the true classes, beside scikit-learn's
  ``KMeans(n_init=10)``. Both find the same optimum on these data (iris: 78.85).
* Agglomerative clustering (:func:`jaxclassic.cluster.fit_agglomerative`, :func:`~jaxclassic.cluster.cut_tree`):
  complete linkage on standardised wine and ward on standardised breast cancer, in float64 as
  SciPy, cut into as many clusters as classes; the ARI against the classes and the sum of the
  merge heights, beside SciPy's ``linkage`` / ``fcluster`` (the reference column holds SciPy's
  figure). These data have no tied distances, so the merges are SciPy's; on iris (one
  decimal: many ties, duplicate rows) tied merges may come in another order.
The Gaussian mixture has its own tour rows (``jaxclassic/tour/mixture.py``).

``fit s`` is the time of one jaxclassic fit after a warm-up fit of the same shapes.
"""

from __future__ import annotations

import numpy as np

from jaxclassic.tour import TourRow, timed

__all__ = ["rows"]


def _data(datasets, name):
    X, y = getattr(datasets, f"load_{name}")(return_X_y=True)
    if name != "iris":
        X = (X - X.mean(axis=0)) / X.std(axis=0)
    return X, y


def _kmeans_rows(datasets, sk_cluster, ari) -> list[TourRow]:
    import jax

    from jaxclassic import cluster

    out = []
    for name in ("iris", "wine"):
        X, y = _data(datasets, name)
        k = int(y.max()) + 1
        params, seconds = timed(lambda: cluster.fit_kmeans(X, k, key=jax.random.key(0), n_init=10,
                                                           n_local_trials="auto"))
        ref = sk_cluster.KMeans(k, n_init=10, random_state=0).fit(X)
        model = f"k-means++ (k={k}, 10 restarts)"
        out.append(TourRow(model, name, "inertia", float(params.inertia), float(ref.inertia_), seconds))
        out.append(TourRow(model, name, "ARI vs classes", float(ari(y, np.asarray(params.labels))),
                           float(ari(y, ref.labels_)), seconds))
    return out


def _hierarchical_rows(datasets, ari) -> list[TourRow]:
    import jax
    from scipy.cluster import hierarchy

    from jaxclassic import cluster

    out = []
    for name, linkage in (("wine", "complete"), ("breast_cancer", "ward")):
        X, y = _data(datasets, name)
        k = int(y.max()) + 1
        with jax.enable_x64(True):  # SciPy computes in float64: so do we, to compare heights
            Z, seconds = timed(lambda: cluster.fit_agglomerative(X, linkage=linkage).linkage_matrix)
            labels = np.asarray(cluster.cut_tree(Z, n_clusters=k))
            Z = np.asarray(Z)
        R = hierarchy.linkage(X, linkage)
        model = f"agglomerative {linkage} (ref: scipy)"
        out.append(TourRow(model, name, "ARI vs classes", float(ari(y, labels)),
                           float(ari(y, hierarchy.fcluster(R, k, "maxclust"))), seconds))
        out.append(TourRow(model, name, "sum of merge heights", float(np.sum(Z[:, 2])),
                           float(R[:, 2].sum()), seconds))
    return out


def rows() -> list[TourRow]:
    from sklearn import cluster as sk_cluster
    from sklearn import datasets
    from sklearn.metrics import adjusted_rand_score

    return (_kmeans_rows(datasets, sk_cluster, adjusted_rand_score)
            + _hierarchical_rows(datasets, adjusted_rand_score))
