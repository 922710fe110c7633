"""Tests of jaxclassic.svm.platt (x64 on, from the root conftest).

References: Lin, Lin & Weng (2007)'s pseudo-code (Algorithm 1, as in LIBSVM's
``sigmoid_train``), transcribed in numpy below; scikit-learn's ``_sigmoid_calibration`` (the
same likelihood and targets, minimised by L-BFGS-B to gtol 1e-6: compared at 1e-4); weighted
= repeated rows; hand-derived gradient of the objective.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from sklearn.calibration import _sigmoid_calibration

from jaxclassic import losses
from jaxclassic.svm.platt import _platt, fold_assignment, platt_scale, sigmoid_proba


def llw_reference(dec, label, max_iter=100, min_step=1e-10, sigma=1e-12, eps=1e-5):
    """Lin, Lin & Weng (2007), Algorithm 1 (LIBSVM's sigmoid_train), line by line."""
    prior1 = float(np.sum(label > 0))
    prior0 = float(len(label) - prior1)
    hi, lo = (prior1 + 1) / (prior1 + 2), 1 / (prior0 + 2)
    t = np.where(label > 0, hi, lo)
    A, B = 0.0, np.log((prior0 + 1) / (prior1 + 1))

    def fval(A, B):
        fApB = dec * A + B
        return np.sum(np.where(fApB >= 0, t * fApB + np.log1p(np.exp(-np.abs(fApB))),
                               (t - 1) * fApB + np.log1p(np.exp(-np.abs(fApB)))))

    f = fval(A, B)
    for _ in range(max_iter):
        fApB = dec * A + B
        p = np.where(fApB >= 0, np.exp(-np.abs(fApB)) / (1 + np.exp(-np.abs(fApB))),
                     1 / (1 + np.exp(-np.abs(fApB))))
        q = 1 - p
        d2 = p * q
        h11, h22, h21 = sigma + np.sum(dec * dec * d2), sigma + np.sum(d2), np.sum(dec * d2)
        d1 = t - p
        g1, g2 = np.sum(dec * d1), np.sum(d1)
        if abs(g1) < eps and abs(g2) < eps:
            break
        det = h11 * h22 - h21 * h21
        dA, dB = -(h22 * g1 - h21 * g2) / det, -(-h21 * g1 + h11 * g2) / det
        gd = g1 * dA + g2 * dB
        step = 1.0
        while step >= min_step:
            newA, newB = A + step * dA, B + step * dB
            newf = fval(newA, newB)
            if newf < f + 1e-4 * step * gd:
                A, B, f = newA, newB, newf
                break
            step /= 2
        else:
            break
    return A, B


@pytest.fixture(scope="module")
def scores():
    """Noisy decision values of 300 rows: class 1 tends to score higher."""
    rng = np.random.default_rng(0)
    y = (rng.random(300) < 0.4).astype(int)
    f = 1.5 * (2 * y - 1) + rng.normal(scale=1.6, size=300)
    return f, y


def test_equals_lin_lin_weng_pseudocode(scores):
    f, y = scores
    A, B = platt_scale(f, y)
    A_ref, B_ref = llw_reference(f, y)
    # both stop at |gradient| < 1e-5 on a likelihood of curvature ~ 50: ~1e-7 apart
    np.testing.assert_allclose([A, B], [A_ref, B_ref], rtol=1e-6)


def test_equals_sklearn_sigmoid_calibration(scores):
    f, y = scores
    A, B = platt_scale(f, y)
    np.testing.assert_allclose([A, B], _sigmoid_calibration(f, y), rtol=1e-4)
    w = np.random.default_rng(1).uniform(0.2, 3.0, size=len(y))
    A, B = platt_scale(f, y, sample_weight=w)
    np.testing.assert_allclose([A, B], _sigmoid_calibration(f, y, sample_weight=w), rtol=1e-4)


def test_large_decision_values_stay_finite():
    # separable, huge scores: the regularised targets keep the optimum finite (Lin-Lin-Weng's
    # stable evaluation; the naive log(1 + exp(fApB)) overflows here)
    f = np.array([-300.0, -200.0, -100.0, 100.0, 200.0, 400.0])
    y = np.array([0, 0, 0, 1, 1, 1])
    A, B = platt_scale(f, y)
    assert np.isfinite([A, B]).all() and float(A) < 0
    np.testing.assert_allclose([A, B], llw_reference(f, y), rtol=1e-5, atol=1e-8)
    proba = np.asarray(sigmoid_proba(jnp.asarray(f), A, B))
    assert np.isfinite(proba).all()
    np.testing.assert_allclose(proba.sum(axis=1), 1, rtol=1e-15)


def test_weights_equal_repeated_rows_and_zero_weight_rows(scores):
    f, y = scores
    w = np.tile([0.0, 1.0, 2.0], len(y) // 3)
    A, B = platt_scale(f, y, sample_weight=w)
    reps = w.astype(int)
    A_ref, B_ref = platt_scale(np.repeat(f, reps), np.repeat(y, reps))
    np.testing.assert_allclose([A, B], [A_ref, B_ref], rtol=1e-7)


def test_signs_equal_codes(scores):
    f, y = scores
    np.testing.assert_array_equal(platt_scale(f, y), platt_scale(f, 2 * y - 1))


@pytest.mark.full
def test_gradient_through_shared_loss_equals_hand_derivation(scores):
    """The objective sum_i log_loss(1 - t_i, A f_i + B) has gradient (sum f (t - p), sum (t - p))
    with p = 1 / (1 + exp(A f + B)): LLW's g1, g2."""
    f, y = scores
    f = jnp.asarray(f)
    n1, n0 = y.sum(), len(y) - y.sum()
    t = np.where(y > 0, (n1 + 1) / (n1 + 2), 1 / (n0 + 2))

    def objective(theta):
        return jnp.sum(losses.log_loss(1 - t, theta[0] * f + theta[1]))

    theta = jnp.array([-0.7, 0.3])
    p = 1 / (1 + np.exp(-0.7 * np.asarray(f) + 0.3))  # 1 / (1 + e^{A f + B})
    hand = [np.sum(np.asarray(f) * (t - p)), np.sum(t - p)]
    np.testing.assert_allclose(jax.grad(objective)(theta), hand, rtol=1e-10)


@pytest.mark.full
def test_jit_vmap_equals_loop(scores):
    f, y = scores
    batch = jnp.stack([jnp.asarray(f), 2 * jnp.asarray(f), jnp.asarray(f) - 1])
    pos = jnp.asarray(y > 0)
    sw = jnp.ones(len(y))
    A, B, n_iter, converged = jax.jit(jax.vmap(lambda g: _platt(g, pos, sw)))(batch)
    assert bool(converged.all())
    for k in range(3):
        np.testing.assert_allclose([A[k], B[k]], platt_scale(batch[k], y), rtol=1e-10)
    # scale equivariance: A f = (A / 2)(2 f)
    np.testing.assert_allclose(A[1], A[0] / 2, rtol=1e-6)


@pytest.mark.full
def test_fold_assignment_ignores_zero_weight_rows():
    sw = np.ones(23)
    sw[[2, 7, 8, 20]] = 0
    for key in (None, jax.random.key(3)):
        fold = np.asarray(fold_assignment(jnp.asarray(sw), 5, key=key))
        assert (fold[sw == 0] == -1).all()
        assert sorted(np.bincount(fold[sw > 0])) == [3, 4, 4, 4, 4]  # 19 rows in 5 folds
        compact = np.asarray(fold_assignment(jnp.ones(19), 5, key=key))
        np.testing.assert_array_equal(fold[sw > 0], compact)


def test_nan_raises(scores):
    f, y = scores
    g = f.copy()
    g[0] = np.nan
    with pytest.raises(ValueError, match="decision_values contains 1 NaN value"):
        platt_scale(g, y)


def test_length_mismatch_raises(scores):
    f, y = scores
    with pytest.raises(ValueError, match="decision_values and y have inconsistent numbers of samples"):
        platt_scale(f, y[:-1])


def test_two_dimensional_raises(scores):
    f, y = scores
    with pytest.raises(ValueError, match="decision_values must be 1-d"):
        platt_scale(f[:, None], y)


def test_positional_key_is_deprecated_and_gives_the_same_folds():
    # issue 27: key is keyword-only; the old positional call warns and still works
    key = jax.random.key(3)
    with pytest.warns(DeprecationWarning, match=r"fold_assignment\(\.\.\., key=key\)"):
        old = fold_assignment(jnp.ones(12), 3, key)
    np.testing.assert_array_equal(old, fold_assignment(jnp.ones(12), 3, key=key))
    with pytest.warns(DeprecationWarning, match=r"fold_assignment\(n_splits=\)"):
        old = fold_assignment(jnp.ones(12), n_folds=3, key=key)  # 0.1's name of the count
    np.testing.assert_array_equal(old, fold_assignment(jnp.ones(12), n_splits=3, key=key))
