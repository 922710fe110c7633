"""The shared names of :mod:`jaxclassic.discriminant`: dispatched on the params type."""

from jaxclassic._dispatch import Dispatcher

__all__ = ["predict", "predict_proba", "predict_log_proba"]

predict = Dispatcher("predict", "Class codes of any discriminant-family params: ``predict(params, X)``.")
predict_proba = Dispatcher(
    "predict_proba",
    "Class probabilities ``(n, C)``: ``p(k | x) = exp(s_k(x) - logsumexp_j s_j(x))`` of the class scores.",
)
predict_log_proba = Dispatcher(
    "predict_log_proba",
    "Log class probabilities ``(n, C)``: ``s_k(x) - logsumexp_j s_j(x)``, computed in log space.",
)
