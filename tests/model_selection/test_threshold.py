"""Tests of jaxclassic/model_selection/threshold.py.

References: Youden's J against the arg-max of tpr - fpr on scikit-learn's ``roc_curve``
(exact threshold); the cost criterion against brute force over every candidate threshold,
counting false positives and negatives directly (to 1e-12).
"""

import numpy as np
import pytest
from sklearn.metrics import roc_curve

from jaxclassic.model_selection import choose_threshold

RNG = np.random.default_rng(0)
Y = (RNG.uniform(size=120) < 0.4).astype(np.int32)
# rounded scores: many ties, as with real probability outputs
SCORES = np.round(Y * 0.8 + RNG.normal(size=120), 1)


def test_youden_equals_argmax_on_sklearn_roc_curve():
    r = choose_threshold(Y, SCORES, "youden")
    fpr, tpr, thr = roc_curve(Y, SCORES, drop_intermediate=False)
    best = int(np.argmax(tpr - fpr))
    assert r.threshold == pytest.approx(thr[best], abs=0)
    assert r.value == pytest.approx(tpr[best] - fpr[best], rel=1e-12)
    assert (r.tpr, r.fpr) == pytest.approx((tpr[best], fpr[best]), rel=1e-12)


def test_youden_with_sample_weight_equals_sklearn():
    w = RNG.uniform(0.1, 3.0, size=120)
    r = choose_threshold(Y, SCORES, "youden", sample_weight=w)
    fpr, tpr, thr = roc_curve(Y, SCORES, sample_weight=w, drop_intermediate=False)
    assert r.threshold == thr[int(np.argmax(tpr - fpr))]


def _brute_force_cost(y, scores, cost_fp, cost_fn, w):
    candidates = np.concatenate([[np.inf], np.unique(scores)[::-1]])  # highest first
    costs = []
    for t in candidates:
        pred = scores >= t
        fp = np.sum(w * (pred & (y == 0)))
        fn = np.sum(w * (~pred & (y == 1)))
        costs.append((cost_fp * fp + cost_fn * fn) / np.sum(w))
    best = int(np.argmin(costs))
    return candidates[best], costs[best]


@pytest.mark.parametrize("cost_fp,cost_fn", [(1.0, 1.0), (1.0, 5.0), (4.0, 1.0), (0.0, 1.0)])
def test_cost_criterion_equals_brute_force(cost_fp, cost_fn):
    r = choose_threshold(Y, SCORES, "cost", cost_fp=cost_fp, cost_fn=cost_fn)
    t, c = _brute_force_cost(Y, SCORES, cost_fp, cost_fn, np.ones(120))
    assert r.threshold == t
    assert r.value == pytest.approx(c, rel=1e-12, abs=1e-15)


def test_cost_criterion_with_weights_equals_brute_force():
    w = RNG.uniform(0.1, 3.0, size=120)
    r = choose_threshold(Y, SCORES, "cost", cost_fp=1.0, cost_fn=3.0, sample_weight=w)
    t, c = _brute_force_cost(Y, SCORES, 1.0, 3.0, w)
    assert r.threshold == t
    assert r.value == pytest.approx(c, rel=1e-10)


def test_free_false_positives_predict_everything_positive():
    r = choose_threshold(Y, SCORES, "cost", cost_fp=0.0, cost_fn=1.0)
    assert r.tpr == 1.0 and r.value == 0.0


# --------------------------------------------------------------------------- bad input
def test_unknown_criterion():
    with pytest.raises(ValueError, match=r"criterion must be one of \['youden', 'cost'\]"):
        choose_threshold(Y, SCORES, "f1")


def test_negative_cost():
    with pytest.raises(ValueError, match="cost_fp must be >= 0"):
        choose_threshold(Y, SCORES, "cost", cost_fp=-1.0)


def test_both_costs_zero():
    with pytest.raises(ValueError, match="cost_fp and cost_fn must not both be 0"):
        choose_threshold(Y, SCORES, "cost", cost_fp=0.0, cost_fn=0.0)


def test_single_class():
    with pytest.raises(ValueError, match="Only one class present in y_true"):
        choose_threshold(np.ones(5, int), np.arange(5.0))


def test_length_mismatch():
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        choose_threshold(Y, SCORES[:-1])


def test_non_binary_labels():
    with pytest.raises(ValueError, match=r"binary labels in \{0, 1\}"):
        choose_threshold(np.array([0, 1, 2, 1]), np.arange(4.0))
