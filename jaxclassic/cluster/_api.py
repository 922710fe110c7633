"""The shared names of :mod:`jaxclassic.cluster`: dispatched on the params type.

k-means (:class:`~jaxclassic.cluster.kmeans.KMeansParams`) registers ``predict`` in
:mod:`jaxclassic.cluster.kmeans`; the Gaussian mixture registers its names in its module.
"""

from jaxclassic._dispatch import Dispatcher

__all__ = ["predict", "predict_proba", "score_samples"]

predict = Dispatcher(
    "predict", "Cluster label ``(n,)`` of every row of ``X`` under fitted cluster params: ``predict(params, X)``."
)
predict_proba = Dispatcher(
    "predict_proba", "Membership probabilities ``(n, n_components)`` of a fitted mixture: ``predict_proba(params, X)``."
)
score_samples = Dispatcher(
    "score_samples", "Per-row log-density ``(n,)`` of a fitted density model: ``score_samples(params, X)``."
)
