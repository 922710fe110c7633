"""matplotlib figures of jaxclassic's models and results (the optional extra ``jaxclassic[plot]``).

matplotlib is imported when a figure function is called, never at import: without it,
``import jaxclassic.plot`` works and every function raises an ImportError saying how to
install it. Each function takes an optional ``ax=`` (default: pyplot's current Axes) and
returns the matplotlib Axes it drew on.
"""

from jaxclassic.plot.classification import confusion_matrix
from jaxclassic.plot.classification import decision_regions
from jaxclassic.plot.classification import roc_curve
from jaxclassic.plot.curves import bias_variance
from jaxclassic.plot.curves import boosting_eval_log
from jaxclassic.plot.curves import elbow
from jaxclassic.plot.curves import learning_curve
from jaxclassic.plot.curves import regularization_path
from jaxclassic.plot.curves import validation_curve
from jaxclassic.plot.importances import feature_importances
from jaxclassic.plot.mixture import gmm_ellipses
from jaxclassic.plot.trees import dendrogram
from jaxclassic.plot.trees import tree

__all__ = [
    "decision_regions",
    "roc_curve",
    "confusion_matrix",
    "regularization_path",
    "learning_curve",
    "validation_curve",
    "bias_variance",
    "elbow",
    "dendrogram",
    "tree",
    "boosting_eval_log",
    "gmm_ellipses",
    "feature_importances",
]
