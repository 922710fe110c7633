r"""Metrics of real-valued scores: the ROC curve and the area under it (tied scores and
sample weights included), and the hinge loss of a decision function.

See :mod:`jaxclassic.metrics` for the conventions.

References
----------
T. Fawcett, "An introduction to ROC analysis", Pattern Recognition Letters 27 (2006) 861-874.
J. A. Hanley and B. J. McNeil, "The meaning and use of the area under a receiver operating
characteristic (ROC) curve", Radiology 143 (1982) 29-36.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from jaxclassic import _jit
from jaxclassic.metrics._common import _check_labels, _check_weight, _eager
from jaxclassic.validation import check_array, check_consistent_length, is_traced

__all__ = ["roc_curve", "roc_auc", "hinge_loss"]


def _check_score_input(y_true, y_score, sample_weight):
    """Binary labels, 1-d scores of the same length, weights: the checks of every score metric."""
    y_true = _check_labels(y_true, "y_true", None, binary=True)
    y_score = check_array(y_score, "y_score", ndim=1)
    n_samples = check_consistent_length(y_true=y_true, y_score=y_score)
    return y_true, y_score, _check_weight(sample_weight, n_samples, y_score.dtype)


@_eager
def _check_roc_input(y_true, y_score, sample_weight):
    y_true, y_score, w = _check_score_input(y_true, y_score, sample_weight)
    if not is_traced(y_true):
        labels = np.asarray(y_true)
        if not is_traced(w):
            labels = labels[np.asarray(w) > 0]
        present = np.unique(labels).tolist()
        if len(present) < 2:
            raise ValueError(
                f"Only one class present in y_true (labels with positive weight: {present}); "
                "ROC AUC is not defined in that case"
            )
    return y_true.astype(y_score.dtype), y_score, w


@_jit.jit
def _roc_auc(y_true, y_score, w):
    # Mann-Whitney form of the trapezoidal area (Hanley & McNeil 1982): with weights,
    #   AUC = sum_{i pos, j neg} w_i w_j ([s_i > s_j] + [s_i = s_j] / 2) / (W_pos W_neg),
    # which equals the trapezoid over the distinct-threshold points of the ROC curve exactly.
    # order within a tie group is irrelevant (groups are handled whole): an unstable sort will do
    order = jnp.argsort(y_score, stable=False)
    s, y, w = y_score[order], y_true[order], w[order]
    w_pos, w_neg = w * y, w * (1 - y)
    neg_upto = jnp.cumsum(w_neg)  # negative weight with score <= s_(k) (within sorted order)
    idx = jnp.arange(s.shape[0])
    starts = jnp.concatenate([jnp.array([True]), s[1:] != s[:-1]])
    ends = jnp.concatenate([s[1:] != s[:-1], jnp.array([True])])
    first = jax.lax.cummax(jnp.where(starts, idx, 0))  # first index of each tie group
    last = jax.lax.cummin(jnp.where(ends, idx, s.shape[0] - 1), reverse=True)  # last index
    below = (neg_upto - w_neg)[first]  # negatives strictly below the group
    upto = neg_upto[last]  # negatives up to and including the group
    u_stat = jnp.sum(w_pos * (below + upto)) / 2
    return u_stat / (jnp.sum(w_pos) * jnp.sum(w_neg))


def roc_auc(y_true, y_score, *, sample_weight=None) -> jax.Array:
    r"""Area under the ROC curve of binary labels and real scores, ties and weights included.

    .. math::
        \mathrm{AUC} = \frac{\sum_{i: y_i=1} \sum_{j: y_j=0} w_i w_j
              \left([s_i > s_j] + \tfrac12 [s_i = s_j]\right)}
              {\left(\sum_{i: y_i = 1} w_i\right)\left(\sum_{j: y_j = 0} w_j\right)},

    the weighted Mann-Whitney statistic, computed in :math:`O(n \log n)` from one sort and
    cumulative sums (tied scores get the mid-rank). It equals the trapezoidal area under
    :func:`roc_curve` (one point per distinct threshold), which is what
    ``sklearn.metrics.roc_auc_score`` computes, to rounding.

    Jittable. Raises ``ValueError`` when ``y_true`` is concrete and only one class has
    positive weight; under ``jit`` with traced labels that case gives nan.

    Parameters
    ----------
    y_true : array-like of {0, 1}, shape (n_samples,)
    y_score : array-like of float, shape (n_samples,)
        Higher means more likely positive (probabilities, logits, decision values).
    sample_weight : array-like of shape (n_samples,), optional

    Returns
    -------
    jax.Array, 0-d float of ``y_score``'s dtype.

    Example
    -------
    >>> float(roc_auc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]))
    0.75
    """
    y_true, y_score, w = _check_roc_input(y_true, y_score, sample_weight)
    return _roc_auc(y_true, y_score, w)


@_jit.jit
def _roc_points(y_true, y_score, w):
    order = jnp.argsort(y_score, stable=False, descending=True)  # ties are taken whole below
    s, y, w = y_score[order], y_true[order], w[order]
    tps = jnp.cumsum(w * y)
    fps = jnp.cumsum(w * (1 - y))
    ends = jnp.concatenate([s[1:] != s[:-1], jnp.array([True])])
    return fps, tps, s, ends


def roc_curve(y_true, y_score, *, sample_weight=None, drop_intermediate=False):
    r"""Receiver operating characteristic: one point per distinct score threshold.

    For each distinct score :math:`t` (in decreasing order) the rule "positive if
    :math:`s \ge t`" gives

    .. math::
        \mathrm{FPR}(t) = \frac{\sum_{j: y_j = 0} w_j [s_j \ge t]}{\sum_{j: y_j=0} w_j}, \qquad
        \mathrm{TPR}(t) = \frac{\sum_{i: y_i = 1} w_i [s_i \ge t]}{\sum_{i: y_i=1} w_i},

    preceded by the point (0, 0) at threshold :math:`+\infty`. Tied scores form one point
    (the curve jumps diagonally across a tie), exactly as ``sklearn.metrics.roc_curve``;
    rows of weight 0 are dropped first, as scikit-learn does.

    Not jittable: the number of points depends on the data. The sort and cumulative sums run
    in a jitted kernel; the selection of distinct thresholds runs on the host.

    Parameters
    ----------
    y_true : array-like of {0, 1}, shape (n_samples,)
    y_score : array-like of float, shape (n_samples,)
    sample_weight : array-like of shape (n_samples,), optional
    drop_intermediate : bool
        False (default): every distinct threshold (scikit-learn's ``drop_intermediate=False``).
        True: drop points collinear with their neighbours, by scikit-learn's rule (identical
        to scikit-learn for integer weights; with fractional weights rounding can keep or drop
        a different collinear point, which never changes the curve or its area).

    Returns
    -------
    fpr, tpr : jax.Array of shape (n_points,)
        Increasing false and true positive rates, starting at 0 and ending at 1.
    thresholds : jax.Array of shape (n_points,)
        Decreasing thresholds; the first is ``inf``.

    Example
    -------
    >>> fpr, tpr, thr = roc_curve([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> fpr.tolist(), tpr.tolist()
    ([0.0, 0.0, 0.5, 0.5, 1.0], [0.0, 0.5, 0.5, 1.0, 1.0])
    """
    y_true, y_score, w = _check_roc_input(y_true, y_score, sample_weight)
    if any(is_traced(a) for a in (y_true, y_score, w)):
        raise TypeError("roc_curve is not jittable (its length depends on the data); use roc_auc")
    keep = np.asarray(w) > 0
    if not keep.all():
        y_true, y_score, w = y_true[keep], y_score[keep], w[keep]
    fps, tps, s, ends = (np.asarray(a) for a in _roc_points(y_true, y_score, w))
    idx = np.flatnonzero(ends)
    fps, tps, thresholds = fps[idx], tps[idx], s[idx]
    if drop_intermediate and fps.shape[0] > 2:
        corner = np.logical_or(np.diff(fps, 2), np.diff(tps, 2))
        keep_points = np.flatnonzero(np.r_[True, corner, True])
        fps, tps, thresholds = fps[keep_points], tps[keep_points], thresholds[keep_points]
    zero = np.zeros(1, dtype=fps.dtype)
    fps, tps = np.concatenate([zero, fps]), np.concatenate([zero, tps])
    thresholds = np.concatenate([np.full(1, np.inf, dtype=thresholds.dtype), thresholds])
    return jnp.asarray(fps / fps[-1]), jnp.asarray(tps / tps[-1]), jnp.asarray(thresholds)


# =========================================================================== hinge loss
_check_hinge_input = _eager(_check_score_input)


@_jit.jit
def _hinge_loss(y_true, y_score, w):
    signed = jnp.where(y_true == 1, y_score, -y_score)
    return jnp.sum(w * jnp.maximum(0.0, 1.0 - signed)) / jnp.sum(w)


def hinge_loss(y_true, y_score, *, sample_weight=None) -> jax.Array:
    r"""Mean hinge loss of a binary decision function (the SVM's training loss).

    .. math::
        L = \frac{\sum_i w_i \max(0,\ 1 - t_i f_i)}{\sum_i w_i},
        \qquad t_i = 2 y_i - 1 \in \{-1, +1\},

    with :math:`f_i` the decision value (``decision_function``, positive for class 1). As
    ``sklearn.metrics.hinge_loss`` for binary labels. Unlike the 0-1 error it is continuous and
    piecewise linear in the scores, so it can be descended: a validation hinge loss is a
    differentiable cross-validation score for an SVM's ``C`` and ``gamma``
    (:func:`jaxclassic.model_selection.neg_hinge_scorer`).

    Parameters
    ----------
    y_true : array-like of {0, 1}, shape (n_samples,)
    y_score : array-like of float, shape (n_samples,)
        Decision values, higher meaning class 1.
    sample_weight : array-like of shape (n_samples,), optional

    Returns
    -------
    jax.Array, 0-d float of ``y_score``'s dtype.

    Example
    -------
    >>> float(hinge_loss([0, 1, 1], [-2.0, 0.5, 3.0]))
    0.16666666666666666

    References
    ----------
    C. Cortes and V. Vapnik, "Support-vector networks", Machine Learning 20 (1995) 273-297.
    """
    y_true, y_score, w = _check_hinge_input(y_true, y_score, sample_weight)
    return _hinge_loss(y_true, y_score, w)
