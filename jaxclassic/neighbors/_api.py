"""The shared names of :mod:`jaxclassic.neighbors`: dispatched on the params type.

k-nearest-neighbour classifiers and regressors register their implementations in
:mod:`jaxclassic.neighbors.knn`.
"""

from jaxclassic._dispatch import Dispatcher

__all__ = ["predict", "predict_proba"]

predict = Dispatcher(
    "predict",
    "Predictions of fitted neighbours params: class codes (classifier) or values (regressor): "
    "``predict(params, X)``. With an index sharded by rows (``fit_knn`` on "
    "``jaxclassic.distributed.shard_rows`` output) the result is correct, but XLA gathers the "
    "whole (queries x index rows) distance matrix across the devices: for a large sharded index "
    "call ``jaxclassic.distributed.kneighbors`` (a search per device, then a top-k merge) and "
    "vote from its indices (docs/distributed.md).",
)
predict_proba = Dispatcher(
    "predict_proba",
    "Class probabilities ``(n, n_classes)``: the normalised neighbour votes, ``predict_proba(params, X)``. "
    "For a row-sharded index see ``predict``: ``jaxclassic.distributed.kneighbors`` avoids "
    "gathering the distance matrix.",
)
