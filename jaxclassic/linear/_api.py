"""The shared names of :mod:`jaxclassic.linear`: dispatched on the params type."""

from jaxclassic._dispatch import Dispatcher

__all__ = ["predict", "predict_proba", "predict_dist", "decision_function"]

predict = Dispatcher("predict", "Predictions (values or class codes) of any linear-family params: ``predict(params, X)``.")
predict_proba = Dispatcher("predict_proba", "Class probabilities ``(n, C)`` of a linear classifier's params.")
predict_dist = Dispatcher("predict_dist", "Predictive mean and variance of a Bayesian linear model's params.")
decision_function = Dispatcher("decision_function", "Raw scores of a linear classifier's params.")
