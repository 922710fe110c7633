r"""Classification metrics of predicted labels and probabilities: accuracy, confusion matrix,
binary rates, precision / recall / F1, balanced error rate, log-loss.

See :mod:`jaxclassic.metrics` for the conventions (labels, weights, dtypes, zero division).
"""

from __future__ import annotations

import warnings
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

from jaxclassic import _jit
from jaxclassic.metrics._common import (
    _AVERAGES,
    _binary_counts,
    _check_label_pair,
    _check_labels,
    _check_pos_label,
    _check_weight,
    _check_zero_division,
    _class_sums,
    _divide,
    _eager,
    _float_dtype,
)
from jaxclassic.validation import check_array, check_choice, check_consistent_length, is_traced

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
    "log_loss",
]


@_jit.jit
def _accuracy(y_true, y_pred, w):
    return jnp.sum(jnp.where(y_true == y_pred, w, jnp.zeros_like(w))) / jnp.sum(w)


def accuracy(y_true, y_pred, *, sample_weight=None) -> jax.Array:
    r"""Weighted fraction of correct predictions.

    .. math:: \mathrm{acc} = \frac{\sum_i w_i [\hat y_i = y_i]}{\sum_i w_i}

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)
        Labels (any numeric codes; compared for equality).
    sample_weight : array-like of shape (n_samples,), optional
        Non-negative row weights; None means all ones.

    Returns
    -------
    jax.Array, 0-d float.

    Example
    -------
    >>> float(accuracy([0, 1, 1, 0], [0, 1, 0, 0]))
    0.75
    """
    y_true, y_pred, w = _check_accuracy_input(y_true, y_pred, sample_weight)
    return _accuracy(y_true, y_pred, w)


@_eager
def _check_accuracy_input(y_true, y_pred, sample_weight):
    y_true = check_array(y_true, "y_true", ndim=1, numeric="any")
    y_pred = check_array(y_pred, "y_pred", ndim=1, numeric="any")
    n_samples = check_consistent_length(y_true=y_true, y_pred=y_pred)
    return y_true, y_pred, _check_weight(sample_weight, n_samples, _float_dtype(sample_weight))


@partial(_jit.jit, static_argnames="n_classes")
def _confusion_matrix(y_true, y_pred, w, n_classes):
    flat = jax.ops.segment_sum(w, y_true * n_classes + y_pred, n_classes * n_classes)
    return flat.reshape(n_classes, n_classes)


def confusion_matrix(y_true, y_pred, *, n_classes=None, sample_weight=None) -> jax.Array:
    r"""Weighted confusion matrix: rows are true classes, columns predicted (scikit-learn's order).

    .. math:: M_{jk} = \sum_i w_i [y_i = j][\hat y_i = k], \qquad j, k = 0..C-1

    Parameters
    ----------
    y_true, y_pred : array-like of int, shape (n_samples,)
        Class codes ``0..C-1``.
    n_classes : int, optional (static)
        ``C``; inferred as ``max(y_true, y_pred) + 1`` when the labels are concrete. Unlike
        scikit-learn, a code that never occurs still gets its (zero) row and column.
    sample_weight : array-like of shape (n_samples,), optional

    Returns
    -------
    jax.Array of shape (C, C): integer counts when ``sample_weight`` is None, else weight sums
    in the weights' float dtype.

    Example
    -------
    >>> confusion_matrix([0, 1, 1, 2], [0, 1, 2, 2]).tolist()
    [[1, 0, 0], [0, 1, 1], [0, 0, 1]]
    """
    y_true, y_pred, w, n_classes = _check_label_pair(y_true, y_pred, sample_weight, n_classes=n_classes)
    if sample_weight is None:
        w = jnp.ones(w.shape, dtype=jnp.int32)
    return _confusion_matrix(y_true, y_pred, w, n_classes)


@partial(_jit.jit, static_argnames=("pos_label", "rate"))
def _binary_rate(y_true, y_pred, w, zero_division, *, pos_label, rate):
    tp, fn, fp, tn = _binary_counts(y_true, y_pred, w, pos_label)
    num, den = {
        "tpr": (tp, tp + fn),
        "fnr": (fn, tp + fn),
        "fpr": (fp, fp + tn),
        "tnr": (tn, fp + tn),
    }[rate]
    return _divide(num, den, zero_division)


def _rate(rate, y_true, y_pred, pos_label, sample_weight, zero_division):
    pos_label = _check_pos_label(pos_label)
    zero_division = _check_zero_division(zero_division)
    y_true, y_pred, w, _ = _check_label_pair(y_true, y_pred, sample_weight, binary=True)
    return _binary_rate(y_true, y_pred, w, zero_division, pos_label=pos_label, rate=rate)


def true_positive_rate(y_true, y_pred, *, pos_label=1, sample_weight=None, zero_division=0.0):
    r"""True positive rate (sensitivity, recall) of binary labels: :math:`TP / (TP + FN)`.

    With weights, :math:`TP = \sum_i w_i [y_i = \hat y_i = \text{pos}]` and so on.

    Parameters
    ----------
    y_true, y_pred : array-like of {0, 1}, shape (n_samples,)
    pos_label : {0, 1}
        The class counted as positive.
    sample_weight : array-like of shape (n_samples,), optional
    zero_division : float in [0, 1] or nan
        Returned when there are no (weighted) positives.

    Returns
    -------
    jax.Array, 0-d float.

    Example
    -------
    >>> float(true_positive_rate([1, 1, 0, 0], [1, 0, 0, 1]))
    0.5
    """
    return _rate("tpr", y_true, y_pred, pos_label, sample_weight, zero_division)


def false_positive_rate(y_true, y_pred, *, pos_label=1, sample_weight=None, zero_division=0.0):
    r"""False positive rate (fall-out) of binary labels: :math:`FP / (FP + TN)`.

    Parameters are those of :func:`true_positive_rate`; ``zero_division`` is returned when
    there are no (weighted) negatives.

    Example
    -------
    >>> float(false_positive_rate([1, 1, 0, 0], [1, 0, 0, 1]))
    0.5
    """
    return _rate("fpr", y_true, y_pred, pos_label, sample_weight, zero_division)


def true_negative_rate(y_true, y_pred, *, pos_label=1, sample_weight=None, zero_division=0.0):
    r"""True negative rate (specificity) of binary labels: :math:`TN / (TN + FP)`.

    Parameters are those of :func:`true_positive_rate`; ``zero_division`` is returned when
    there are no (weighted) negatives.

    Example
    -------
    >>> float(true_negative_rate([1, 1, 0, 0, 0], [1, 0, 0, 0, 1]))
    0.6666666666666666
    """
    return _rate("tnr", y_true, y_pred, pos_label, sample_weight, zero_division)


def false_negative_rate(y_true, y_pred, *, pos_label=1, sample_weight=None, zero_division=0.0):
    r"""False negative rate (miss rate) of binary labels: :math:`FN / (FN + TP)`.

    Parameters are those of :func:`true_positive_rate`; ``zero_division`` is returned when
    there are no (weighted) positives.

    Example
    -------
    >>> float(false_negative_rate([1, 1, 1, 0], [1, 0, 1, 1]))
    0.3333333333333333
    """
    return _rate("fnr", y_true, y_pred, pos_label, sample_weight, zero_division)


def _nanaverage(values, present, weights):
    """Average of ``values`` over present classes, skipping nan (scikit-learn's ``_nanaverage``)."""
    valid = present & ~jnp.isnan(values)
    wts = jnp.where(valid, weights, jnp.zeros_like(weights))
    return jnp.sum(jnp.where(valid, values, jnp.zeros_like(values)) * wts) / jnp.sum(wts)


@partial(_jit.jit, static_argnames=("n_classes", "average", "pos_label", "score"))
def _prf(y_true, y_pred, w, zero_division, *, n_classes, average, pos_label, score):
    tp, true_sum, pred_sum = _class_sums(y_true, y_pred, w, n_classes)
    if average == "micro":
        tp, true_sum, pred_sum = jnp.sum(tp), jnp.sum(true_sum), jnp.sum(pred_sum)
    if score == "precision":
        value = _divide(tp, pred_sum, zero_division)
    elif score == "recall":
        value = _divide(tp, true_sum, zero_division)
    else:  # F1 = 2TP / (2TP + FP + FN), the harmonic mean of precision and recall
        value = _divide(2 * tp, true_sum + pred_sum, zero_division)
    if average == "binary":
        return value[pos_label]
    if average in (None, "micro"):
        return value
    present = (true_sum + pred_sum) > 0
    weights = true_sum if average == "weighted" else jnp.ones_like(true_sum)
    return _nanaverage(value, present, weights)


def _precision_recall_f1(score, y_true, y_pred, average, pos_label, n_classes, sample_weight,
                         zero_division):
    average = check_choice(average, "average", _AVERAGES)
    pos_label = _check_pos_label(pos_label)
    zero_division = _check_zero_division(zero_division)
    binary = average == "binary"
    try:
        y_true, y_pred, w, n_classes = _check_label_pair(
            y_true, y_pred, sample_weight, n_classes=None if binary else n_classes, binary=binary
        )
    except ValueError as exc:
        if binary and "binary labels" in str(exc):
            raise ValueError(
                f"{exc}; use average='macro', 'micro', 'weighted' or None for multiclass labels"
            ) from None
        raise
    return _prf(y_true, y_pred, w, zero_division, n_classes=n_classes, average=average,
                pos_label=pos_label, score=score)


_PRF_PARAMS = r"""
    Parameters
    ----------
    y_true, y_pred : array-like of int, shape (n_samples,)
        Class codes; ``{0, 1}`` for ``average='binary'``.
    average : {'binary', 'micro', 'macro', 'weighted', None}
        ``'binary'``: the score of class ``pos_label``. ``'micro'``: from the summed counts
        (:math:`\sum_c TP_c` etc.). ``'macro'``: unweighted mean of per-class scores over the
        classes that occur (with positive weight) in ``y_true`` or ``y_pred``.
        ``'weighted'``: that mean weighted by each class's true (weighted) support.
        ``None``: the per-class scores, an array of length ``n_classes`` (a class that never
        occurs gets ``zero_division``; scikit-learn returns only the classes that occur).
    pos_label : {0, 1}
        Positive class for ``average='binary'``.
    n_classes : int, optional (static)
        Number of classes for the other averages; inferred from concrete labels.
    sample_weight : array-like of shape (n_samples,), optional
    zero_division : float in [0, 1] or nan
        Value of a score whose denominator is zero.

    Returns
    -------
    jax.Array: 0-d float, or (n_classes,) when ``average=None``.
"""


def precision(y_true, y_pred, *, average="binary", pos_label=1, n_classes=None, sample_weight=None,
              zero_division=0.0):
    r"""Precision :math:`TP / (TP + FP)` (positive predictive value), binary or averaged.

    Per class :math:`c`, :math:`TP_c = \sum_i w_i [y_i = \hat y_i = c]` and
    :math:`TP_c + FP_c = \sum_i w_i [\hat y_i = c]`. Agrees with
    ``sklearn.metrics.precision_score`` (same ``average`` and ``zero_division`` rules).
    {params}
    Example
    -------
    >>> float(precision([0, 1, 1, 1], [1, 1, 1, 0]))
    0.6666666666666666
    """
    return _precision_recall_f1("precision", y_true, y_pred, average, pos_label, n_classes,
                                sample_weight, zero_division)


def recall(y_true, y_pred, *, average="binary", pos_label=1, n_classes=None, sample_weight=None,
           zero_division=0.0):
    r"""Recall :math:`TP / (TP + FN)` (sensitivity), binary or averaged.

    Per class :math:`c`, :math:`TP_c + FN_c = \sum_i w_i [y_i = c]`. Agrees with
    ``sklearn.metrics.recall_score``. For binary labels this equals
    :func:`true_positive_rate`.
    {params}
    Example
    -------
    >>> float(recall([0, 1, 1, 1], [1, 1, 1, 0]))
    0.6666666666666666
    """
    return _precision_recall_f1("recall", y_true, y_pred, average, pos_label, n_classes,
                                sample_weight, zero_division)


def f1_score(y_true, y_pred, *, average="binary", pos_label=1, n_classes=None, sample_weight=None,
             zero_division=0.0):
    r"""F1 score, the harmonic mean of precision and recall, binary or averaged.

    .. math:: F_1 = \frac{2\,TP}{2\,TP + FP + FN}

    (per class, then averaged; ``'micro'`` uses summed counts). Agrees with
    ``sklearn.metrics.f1_score``.
    {params}
    Example
    -------
    >>> float(f1_score([0, 1, 1, 1], [1, 1, 1, 0]))
    0.6666666666666666
    """
    return _precision_recall_f1("f1", y_true, y_pred, average, pos_label, n_classes,
                                sample_weight, zero_division)


for _fn in (precision, recall, f1_score):
    if _fn.__doc__:  # None under python -OO
        _fn.__doc__ = _fn.__doc__.replace("{params}", _PRF_PARAMS)
del _fn


@partial(_jit.jit, static_argnames="n_classes")
def _balanced_error_rate(y_true, y_pred, w, *, n_classes):
    tp, true_sum, _ = _class_sums(y_true, y_pred, w, n_classes)
    present = true_sum > 0
    per_class_recall = _divide(tp, true_sum, 0.0)
    return 1 - jnp.sum(jnp.where(present, per_class_recall, 0)) / jnp.sum(present)


def balanced_error_rate(y_true, y_pred, *, n_classes=None, sample_weight=None) -> jax.Array:
    r"""One minus the balanced accuracy, the mean of the per-class recalls.

    .. math::
        \mathrm{BER} = 1 - \frac{1}{|K|} \sum_{c \in K} \frac{TP_c}{TP_c + FN_c},

    where :math:`K` is the set of classes with positive weight in ``y_true`` (classes that
    only occur in ``y_pred`` are ignored, as in ``sklearn.metrics.balanced_accuracy_score``).
    For two classes it is :math:`(FPR + FNR) / 2`.

    Parameters
    ----------
    y_true, y_pred : array-like of int, shape (n_samples,)
    n_classes : int, optional (static)
    sample_weight : array-like of shape (n_samples,), optional

    Returns
    -------
    jax.Array, 0-d float.

    Example
    -------
    >>> float(balanced_error_rate([0, 0, 0, 1], [0, 0, 0, 0]))
    0.5
    """
    y_true, y_pred, w, n_classes = _check_label_pair(y_true, y_pred, sample_weight, n_classes=n_classes)
    return _balanced_error_rate(y_true, y_pred, w, n_classes=n_classes)


# =========================================================================== log loss
@_jit.jit
def _log_loss(y_true, y_prob, w):
    eps = jnp.finfo(y_prob.dtype).eps
    if y_prob.ndim == 1:
        p_true = jnp.where(y_true == 1, y_prob, 1 - y_prob)
    else:
        p_true = jnp.take_along_axis(y_prob, y_true[:, None], axis=1)[:, 0]
    p_true = jnp.clip(p_true, eps, 1 - eps)
    return -jnp.sum(w * jnp.log(p_true)) / jnp.sum(w)


def log_loss(y_true, y_prob, *, sample_weight=None) -> jax.Array:
    r"""Mean negative log-likelihood (cross-entropy) of predicted class probabilities.

    .. math::
        L = -\frac{\sum_i w_i \log \operatorname{clip}(p_{i, y_i}, \epsilon, 1 - \epsilon)}
                  {\sum_i w_i}

    in nats, where :math:`p_{i,1}` is ``y_prob[i]`` and :math:`p_{i,0} = 1 - p_{i,1}` for 1-d
    (binary) input, and :math:`p_{i,c}` is ``y_prob[i, c]`` for (n, C) input.
    :math:`\epsilon` is the machine epsilon of ``y_prob``'s dtype (2.2e-16 in float64,
    1.2e-7 in float32), so a confident mistake costs at most :math:`-\log\epsilon`
    (36.0 in float64) instead of infinity. This is scikit-learn's clipping (since 1.5).
    Rows of (n, C) input that do not sum to 1 (relative tolerance :math:`\sqrt\epsilon`)
    give a ``UserWarning``, as in scikit-learn; they are not renormalised.

    For a model's raw scores use :func:`jaxclassic.losses.log_loss` (logits) or
    :func:`jaxclassic.losses.softmax_cross_entropy`, which need no clipping.

    Parameters
    ----------
    y_true : array-like of int, shape (n_samples,)
        ``{0, 1}`` for 1-d ``y_prob``; class codes ``0..C-1`` for 2-d.
    y_prob : array-like of float, shape (n_samples,) or (n_samples, C)
        Probability of class 1, or of every class. Values must lie in [0, 1].
    sample_weight : array-like of shape (n_samples,), optional

    Returns
    -------
    jax.Array, 0-d float of ``y_prob``'s dtype.

    Example
    -------
    >>> round(float(log_loss([1, 0], [0.9, 0.2])), 6)
    0.164252
    """
    y_true, y_prob, w = _check_log_loss_input(y_true, y_prob, sample_weight)
    return _log_loss(y_true, y_prob, w)


@_eager
def _check_log_loss_input(y_true, y_prob, sample_weight):
    y_prob = check_array(y_prob, "y_prob", ndim=(1, 2))
    if y_prob.ndim == 2 and y_prob.shape[1] == 1:
        y_prob = y_prob[:, 0]
    binary = y_prob.ndim == 1
    n_classes = 2 if binary else y_prob.shape[1]
    y_true = _check_labels(y_true, "y_true", n_classes, binary)
    n_samples = check_consistent_length(y_true=y_true, y_prob=y_prob)
    w = _check_weight(sample_weight, n_samples, y_prob.dtype)
    if not is_traced(y_prob):
        p = np.asarray(y_prob)
        if p.min() < 0 or p.max() > 1:
            raise ValueError(f"y_prob must lie in [0, 1], got values in [{p.min()}, {p.max()}]")
        if not binary:
            tol = np.sqrt(np.finfo(p.dtype).eps)
            if not np.allclose(p.sum(axis=1), 1.0, rtol=tol, atol=0):
                warnings.warn("the rows of y_prob do not sum to one; pass probabilities",
                              UserWarning, stacklevel=4)
    return y_true, y_prob, w
