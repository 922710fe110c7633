"""The shared names of :mod:`jaxclassic.tree`: dispatched on the params type.

CART trees (:class:`~jaxclassic.tree._params.ClassificationTree`,
:class:`~jaxclassic.tree._params.RegressionTree`) register their implementations in
:mod:`jaxclassic.tree.cart`; ID3 / C4.5 register theirs in their modules.
"""

from jaxclassic._dispatch import Dispatcher

__all__ = ["predict", "predict_proba", "apply", "feature_importances"]

predict = Dispatcher("predict", "Predictions (class codes or values) of a fitted tree: ``predict(params, X)``.")
predict_proba = Dispatcher("predict_proba", "Class probabilities ``(n, n_classes)`` of a classification tree: ``predict_proba(params, X)``.")
apply = Dispatcher("apply", "Leaf node index ``(n,)`` of every row of ``X``: ``apply(params, X)``.")
feature_importances = Dispatcher(
    "feature_importances",
    "Normalised total weighted impurity decrease (CART) or information gain (ID3, C4.5) per "
    "feature ``(F,)``: ``feature_importances(params)``.",
)
