"""The shared names of :mod:`jaxclassic.neighbors`: dispatched on the params type.

k-nearest-neighbour classifiers and regressors register their implementations in
:mod:`jaxclassic.neighbors.knn`.
"""

from jaxclassic._dispatch import Dispatcher

__all__ = ["predict", "predict_proba"]

predict = Dispatcher(
    "predict",
    "Predictions of fitted neighbours params: class codes (classifier) or values (regressor): "
    "``predict(params, X)``.",
)
predict_proba = Dispatcher(
    "predict_proba",
    "Class probabilities ``(n, n_classes)``: the normalised neighbour votes, ``predict_proba(params, X)``.",
)
