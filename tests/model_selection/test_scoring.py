"""Tests of jaxclassic/model_selection/scoring.py: scorers equal scikit-learn's metrics on
the weighted rows (to 1e-12 in float64), negated for losses, and compare by value."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from sklearn import metrics as skm

from jaxclassic.model_selection import (
    accuracy_scorer,
    log_loss_scorer,
    make_scorer,
    neg_mse_scorer,
    r2_scorer,
    roc_auc_scorer,
)

RNG = np.random.default_rng(0)
X = RNG.normal(size=(30, 2))
W = (RNG.uniform(size=30) < 0.5).astype(np.float64)  # a validation fold's weights
ROWS = W > 0


def predict_linear(params, X):
    return X @ params


def proba_binary(params, X):
    p = jax.nn.sigmoid(X @ params)
    return jnp.stack([1 - p, p], axis=1)


def predict_class(params, X):
    return (X @ params > 0).astype(jnp.int32)


PARAMS = jnp.array([1.0, -0.5])
Y_REG = X @ np.array([0.8, -0.4]) + RNG.normal(scale=0.3, size=30)
Y_CLS = (X @ np.array([1.0, -0.3]) + RNG.normal(scale=0.5, size=30) > 0).astype(np.int32)


def test_neg_mse_and_r2():
    pred = X @ np.asarray(PARAMS)
    assert float(neg_mse_scorer(predict_linear)(PARAMS, X, Y_REG, sample_weight=W)) == pytest.approx(
        -skm.mean_squared_error(Y_REG[ROWS], pred[ROWS]), rel=1e-12)
    assert float(r2_scorer(predict_linear)(PARAMS, X, Y_REG, sample_weight=W)) == pytest.approx(
        skm.r2_score(Y_REG[ROWS], pred[ROWS]), rel=1e-12)


@pytest.mark.full
def test_accuracy_log_loss_roc_auc():
    proba = np.asarray(proba_binary(PARAMS, X))
    assert float(accuracy_scorer(predict_class)(PARAMS, X, Y_CLS, sample_weight=W)) == pytest.approx(
        skm.accuracy_score(Y_CLS[ROWS], (proba[:, 1] > 0.5)[ROWS]), rel=1e-12)
    assert float(log_loss_scorer(proba_binary)(PARAMS, X, Y_CLS, sample_weight=W)) == pytest.approx(
        -skm.log_loss(Y_CLS[ROWS], proba[ROWS]), rel=1e-12)
    assert float(roc_auc_scorer(proba_binary)(PARAMS, X, Y_CLS, sample_weight=W)) == pytest.approx(
        skm.roc_auc_score(Y_CLS[ROWS], proba[ROWS, 1]), rel=1e-12)


def test_scorers_compare_by_value_and_work_under_vmap():
    assert neg_mse_scorer(predict_linear) == neg_mse_scorer(predict_linear)
    assert hash(neg_mse_scorer(predict_linear)) == hash(neg_mse_scorer(predict_linear))
    scorer = neg_mse_scorer(predict_linear)
    folds = jnp.stack([jnp.asarray(W), 1 - jnp.asarray(W)])
    batched = jax.vmap(lambda w: scorer(PARAMS, X, Y_REG, sample_weight=w))(folds)
    np.testing.assert_allclose(batched[0], scorer(PARAMS, X, Y_REG, sample_weight=W), rtol=1e-12)


def test_make_scorer_metric_not_callable():
    with pytest.raises(TypeError, match="metric must be callable"):
        make_scorer("mse", predict_linear)


def test_make_scorer_response_not_callable():
    with pytest.raises(TypeError, match="response must be callable"):
        make_scorer(skm.mean_squared_error, None)
