"""The shared names of :mod:`jaxclassic.ensemble`: dispatched on the params type.

Each ensemble module registers its params NamedTuple here (``predict.register(ForestParams,
_predict)``), so ``ensemble.predict(params, X)`` works for every ensemble.
"""

from jaxclassic._dispatch import Dispatcher

__all__ = ["predict", "predict_proba", "decision_function", "feature_importances"]

predict = Dispatcher("predict", "Predictions (class codes or values) of any ensemble's params: ``predict(params, X)``.")
predict_proba = Dispatcher("predict_proba", "Class probabilities ``(n, C)`` of an ensemble classifier's params.")
decision_function = Dispatcher("decision_function", "Raw scores (margins) of an ensemble's params.")
feature_importances = Dispatcher("feature_importances", "Normalised feature importances ``(F,)`` of an ensemble's params.")
