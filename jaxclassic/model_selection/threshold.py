r"""Choosing a classification threshold on the ROC curve.

A binary scorer (probabilities, logits, decision values) becomes a classifier with a
threshold :math:`t`: predict positive when :math:`s \ge t`. Each distinct score is a
candidate, giving one point :math:`(\mathrm{FPR}(t), \mathrm{TPR}(t))` of the ROC curve
(:func:`jaxclassic.metrics.roc_curve`), plus :math:`t = +\infty` (nothing positive).

* ``"youden"``: maximise Youden's :math:`J(t) = \mathrm{TPR}(t) - \mathrm{FPR}(t)`, the
  point of the curve farthest above the diagonal (equal costs of the two error *rates*).
* ``"cost"``: minimise the expected misclassification cost per row,

  .. math::

      C(t) = \frac{c_{FP}\, N\, \mathrm{FPR}(t) + c_{FN}\, P\, (1 - \mathrm{TPR}(t))}{N + P},

  with :math:`P`, :math:`N` the (weighted) numbers of positives and negatives. With
  calibrated probabilities the Bayes rule puts the threshold at
  :math:`c_{FP} / (c_{FP} + c_{FN})`; this picks the empirical minimiser instead.

Ties go to the highest threshold (the first point of the curve).

References
----------
W. J. Youden, "Index for rating diagnostic tests", *Cancer* 3 (1950) 32-35.
T. Fawcett, "An introduction to ROC analysis", *Pattern Recognition Letters* 27 (2006), §7.
Hastie, Tibshirani, Friedman, *The Elements of Statistical Learning*, 2nd ed., §9.2.5.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from jaxclassic import metrics
from jaxclassic.validation import check_choice, check_scalar

__all__ = ["ThresholdResult", "choose_threshold"]

CRITERIA = ("youden", "cost")


class ThresholdResult(NamedTuple):
    """Outcome of :func:`choose_threshold`.

    Attributes
    ----------
    threshold : float
        Predict positive when ``score >= threshold`` (``inf``: never).
    tpr, fpr : float
        True and false positive rates at the threshold.
    value : float
        The criterion there: Youden's J, or the expected cost per row.
    """

    threshold: float
    tpr: float
    fpr: float
    value: float


def choose_threshold(
    y: Any,
    scores: Any,
    criterion: str = "youden",
    *,
    cost_fp: float = 1.0,
    cost_fn: float = 1.0,
    sample_weight: Any = None,
) -> ThresholdResult:
    r"""The decision threshold on binary scores that optimises a criterion on the ROC curve.

    Parameters
    ----------
    y : (n,) array of {0, 1}
        True labels (1 = positive); both classes must be present.
    scores : (n,) float array
        Higher means more likely positive.
    criterion : {"youden", "cost"}
        Maximise :math:`\mathrm{TPR} - \mathrm{FPR}`, or minimise the expected cost
        :math:`(c_{FP} \cdot FP + c_{FN} \cdot FN) / n` (see the module docstring).
    cost_fp, cost_fn : float >= 0
        Costs of a false positive and a false negative (``"cost"`` only); not both 0.
    sample_weight : (n,) array, optional
        Row weights (counts FP, FN, P and N as weighted sums).

    Returns
    -------
    ThresholdResult
        ``(threshold, tpr, fpr, value)``.

    Example
    -------
    >>> r = choose_threshold([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> round(r.threshold, 4), r.tpr, r.fpr
    (0.8, 0.5, 0.0)
    """
    criterion = check_choice(criterion, "criterion", CRITERIA)
    check_scalar(cost_fp, "cost_fp", low=0.0)
    check_scalar(cost_fn, "cost_fn", low=0.0)
    if criterion == "cost" and float(cost_fp) == 0.0 and float(cost_fn) == 0.0:
        raise ValueError("cost_fp and cost_fn must not both be 0")
    fpr, tpr, thresholds = (
        np.asarray(a) for a in metrics.roc_curve(y, scores, sample_weight=sample_weight)
    )
    if criterion == "youden":
        values = tpr - fpr
        best = int(np.argmax(values))  # first maximum: the highest threshold among ties
    else:
        labels = np.asarray(y, dtype=np.float64)
        # roc_curve validated y and the weights already
        w = np.ones_like(labels) if sample_weight is None else np.asarray(sample_weight, np.float64)
        n_pos = float(np.sum(w * labels))
        n_neg = float(np.sum(w * (1.0 - labels)))
        values = (float(cost_fp) * n_neg * fpr + float(cost_fn) * n_pos * (1.0 - tpr)) / (n_pos + n_neg)
        best = int(np.argmin(values))
    return ThresholdResult(float(thresholds[best]), float(tpr[best]), float(fpr[best]), float(values[best]))
