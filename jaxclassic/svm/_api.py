"""The shared names of :mod:`jaxclassic.svm`: dispatched on the params type."""

from jaxclassic._dispatch import Dispatcher

__all__ = ["predict", "predict_proba", "decision_function", "support_vectors"]

predict = Dispatcher("predict", "Class codes (or values, for regression) of any SVM params: ``predict(params, X)``.")
predict_proba = Dispatcher("predict_proba", "Platt-scaled class probabilities ``(n, 2)`` of SVM params.")
decision_function = Dispatcher("decision_function", "Signed margins ``f(x)`` of SVM params: ``decision_function(params, X)``.")
support_vectors = Dispatcher("support_vectors", "The support vectors of SVM params (host side, scikit-learn's layout).")
