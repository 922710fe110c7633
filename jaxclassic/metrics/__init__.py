r"""Classification and regression metrics, ROC curve and ROC AUC, all with ``sample_weight``.

Every metric is a weighted average over rows: with weights :math:`w_i \ge 0` (all ones when
``sample_weight`` is None) a count such as "true positives" is :math:`\sum_i w_i
[\hat y_i = 1][y_i = 1]`. A row of weight 0 has no influence at all, so a metric over a
cross-validation fold is the metric of the full-length arrays with that fold's 0/1 weights.

Conventions
-----------
* Class labels are integer codes ``0..C-1`` (the estimator layer encodes arbitrary labels
  with ``classes_``). ``n_classes`` is static (it fixes array shapes); it is inferred as
  ``max(y_true, y_pred) + 1`` from concrete input and must be given under ``jit``/``vmap``
  when the labels are traced. Binary metrics take labels in ``{0, 1}``.
* Inputs are validated with :mod:`jaxclassic.validation` before any tracing (lengths, ndim,
  NaN/inf, label ranges, weights); value checks are skipped for tracers.
* Results are 0-d jax arrays of the input's float dtype (float32 by default, float64 with
  ``jax_enable_x64``), so every metric except :func:`roc_curve` can be used inside ``jit``
  and ``vmap`` (e.g. vmapped over fold weights). :func:`confusion_matrix` returns integer
  counts when unweighted.
* Division by zero (e.g. precision with no predicted positives) returns ``zero_division``
  (default 0.0, as scikit-learn); with ``zero_division=nan`` the nan classes are left out of
  the macro / weighted averages, as in scikit-learn.

References
----------
T. Fawcett, "An introduction to ROC analysis", Pattern Recognition Letters 27 (2006) 861-874.
J. A. Hanley and B. J. McNeil, "The meaning and use of the area under a receiver operating
characteristic (ROC) curve", Radiology 143 (1982) 29-36.
K. H. Brodersen et al., "The balanced accuracy and its posterior distribution", ICPR 2010.
C. M. Bishop, *Pattern Recognition and Machine Learning*, Springer 2006, §4.3.2.
H. Theil, *Economic Forecasts and Policy*, North-Holland 1961 (adjusted R²).
"""

from jaxclassic.metrics.classification import accuracy
from jaxclassic.metrics.classification import confusion_matrix
from jaxclassic.metrics.classification import true_positive_rate
from jaxclassic.metrics.classification import false_positive_rate
from jaxclassic.metrics.classification import true_negative_rate
from jaxclassic.metrics.classification import false_negative_rate
from jaxclassic.metrics.classification import precision
from jaxclassic.metrics.classification import recall
from jaxclassic.metrics.classification import f1_score
from jaxclassic.metrics.classification import balanced_error_rate
from jaxclassic.metrics.classification import log_loss
from jaxclassic.metrics.ranking import roc_auc
from jaxclassic.metrics.ranking import hinge_loss
from jaxclassic.metrics.ranking import roc_curve
from jaxclassic.metrics.regression import adjusted_r2
from jaxclassic.metrics.regression import mean_absolute_error
from jaxclassic.metrics.regression import mean_squared_error
from jaxclassic.metrics.regression import r2_score

__all__ = [
    "accuracy",
    "confusion_matrix",
    "true_positive_rate",
    "false_positive_rate",
    "true_negative_rate",
    "false_negative_rate",
    "precision",
    "recall",
    "f1_score",
    "balanced_error_rate",
    "roc_curve",
    "roc_auc",
    "hinge_loss",
    "log_loss",
    "mean_squared_error",
    "mean_absolute_error",
    "r2_score",
    "adjusted_r2",
]
