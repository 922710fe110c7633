"""Tests of jaxclassic/discriminant/naive_bayes.py.

References: scikit-learn GaussianNB / CategoricalNB (probabilities to 1e-6 in float64: the same
formulas, so the differences are rounding, ~1e-12), Mitchell's PlayTennis posterior computed
by hand with exact fractions, and the maximum-likelihood / MAP property of the fitted
statistics (autodiff gradient of the log-likelihood ~0 at the fit).
"""

import csv
from fractions import Fraction
from pathlib import Path

import chex
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from sklearn import datasets
from sklearn import naive_bayes as sk_nb

import jaxclassic
from jaxclassic import discriminant as D
from jaxclassic.discriminant import naive_bayes as nb

# ----------------------------------------------------------------------------- data
X_IRIS, Y_IRIS = datasets.load_iris(return_X_y=True)
RNG = np.random.default_rng(0)
W_IRIS = RNG.uniform(0.2, 3.0, len(Y_IRIS))
N_CAT = (3, 4, 2, 5)
X_CAT = RNG.integers(0, N_CAT, size=(60, 4))
Y_CAT = RNG.integers(0, 3, size=60)
W_CAT = RNG.uniform(0.2, 2.0, 60)

PROBA_TOL = 1e-6  # float64, identical formulas: observed differences are ~1e-12


def _play_tennis():
    path = Path(jaxclassic.__file__).parent / "data" / "play_tennis.csv"
    with open(path) as fh:
        rows = list(csv.reader(fh))
    header, body = rows[0], np.array(rows[1:])
    levels = [sorted(set(body[:, j])) for j in range(body.shape[1])]
    codes = np.array([[levels[j].index(v) for j, v in enumerate(r)] for r in body])
    return header, levels, codes[:, :-1], codes[:, -1]


HEADER, LEVELS, X_TENNIS, Y_TENNIS = _play_tennis()  # y: 0 = "no", 1 = "yes"


def _encode(query):
    return np.array([[LEVELS[j].index(v) for j, v in enumerate(query)]])


def _maxdiff(a, b):
    return float(np.max(np.abs(np.asarray(a) - np.asarray(b))))


# ----------------------------------------------------------------------------- Gaussian NB
@pytest.mark.parametrize("weighted", [False, True])
def test_gaussian_matches_sklearn(weighted):
    w = W_IRIS if weighted else None
    ours = D.fit_gaussian_nb(X_IRIS, Y_IRIS, sample_weight=w)
    ref = sk_nb.GaussianNB().fit(X_IRIS, Y_IRIS, sample_weight=w)
    np.testing.assert_allclose(ours.theta, ref.theta_, rtol=1e-12)
    # epsilon: ours uses the weighted variance (1e-9 relative difference when weighted)
    np.testing.assert_allclose(ours.var, ref.var_, rtol=1e-8)
    np.testing.assert_allclose(ours.class_prior, ref.class_prior_, rtol=1e-12)
    assert _maxdiff(D.predict_proba(ours, X_IRIS), ref.predict_proba(X_IRIS)) < PROBA_TOL
    assert _maxdiff(D.predict_log_proba(ours, X_IRIS), ref.predict_log_proba(X_IRIS)) < PROBA_TOL
    np.testing.assert_array_equal(D.predict(ours, X_IRIS), ref.predict(X_IRIS))


def test_gaussian_priors_match_sklearn():
    priors = np.array([0.5, 0.3, 0.2])
    ours = D.fit_gaussian_nb(X_IRIS, Y_IRIS, priors=priors)
    ref = sk_nb.GaussianNB(priors=priors).fit(X_IRIS, Y_IRIS)
    assert _maxdiff(D.predict_proba(ours, X_IRIS), ref.predict_proba(X_IRIS)) < PROBA_TOL


def test_gaussian_integer_weights_equal_repeated_rows():
    w = RNG.integers(0, 4, len(Y_IRIS)).astype(float)
    w[:3] = 1.0
    ours = D.fit_gaussian_nb(X_IRIS, Y_IRIS, sample_weight=w)
    rep = D.fit_gaussian_nb(np.repeat(X_IRIS, w.astype(int), 0), np.repeat(Y_IRIS, w.astype(int)))
    chex.assert_trees_all_close(ours, rep, rtol=1e-10, atol=1e-12)


def test_gaussian_zero_weight_rows_have_no_influence():
    garbage = RNG.normal(50.0, 30.0, size=(10, 4))
    X = np.vstack([X_IRIS, garbage])
    y = np.concatenate([Y_IRIS, RNG.integers(0, 3, 10)])
    w = np.concatenate([W_IRIS, np.zeros(10)])
    chex.assert_trees_all_close(D.fit_gaussian_nb(X, y, sample_weight=w),
                                D.fit_gaussian_nb(X_IRIS, Y_IRIS, sample_weight=W_IRIS), rtol=1e-12)


def test_gaussian_zero_weight_rows_of_overflowing_values_have_no_influence():
    # 1e20 squared overflows float32 (and 1e200 float64): 0 * inf would be NaN in the variances
    huge = np.full((10, 4), 1e200)
    X = np.vstack([X_IRIS, huge])
    y = np.concatenate([Y_IRIS, np.zeros(10, int)])
    w = np.concatenate([W_IRIS, np.zeros(10)])
    chex.assert_trees_all_close(D.fit_gaussian_nb(X, y, sample_weight=w),
                                D.fit_gaussian_nb(X_IRIS, Y_IRIS, sample_weight=W_IRIS), rtol=1e-12)


def _gaussian_weighted_loglik(theta, log_var, X, y, w):
    """The model's own per-sample log p(x | y) (from the predict path), weighted and summed."""
    ll = nb._gaussian_log_likelihood(theta, jnp.exp(log_var), X)
    return jnp.sum(w * ll[jnp.arange(len(y)), y])


_grad_gaussian = jax.jit(jax.grad(_gaussian_weighted_loglik, argnums=(0, 1)))


def test_gaussian_fit_is_the_weighted_mle():
    # with var_smoothing = 0 the fitted means and variances maximise the weighted likelihood
    p = D.fit_gaussian_nb(X_IRIS, Y_IRIS, var_smoothing=0.0, sample_weight=W_IRIS)
    g_theta, g_logvar = _grad_gaussian(
        p.theta, jnp.log(p.var), X_IRIS, Y_IRIS, W_IRIS)
    assert float(jnp.max(jnp.abs(g_theta))) < 1e-9
    assert float(jnp.max(jnp.abs(g_logvar))) < 1e-9


def test_gaussian_loglik_gradient_equals_hand_derivation():
    theta = jnp.asarray(RNG.normal(size=(3, 4)))
    log_var = jnp.asarray(RNG.normal(size=(3, 4)) * 0.3)
    g_theta, g_logvar = _grad_gaussian(
        theta, log_var, X_IRIS, Y_IRIS, W_IRIS)
    r = jax.nn.one_hot(Y_IRIS, 3) * W_IRIS[:, None]  # (n, C)
    var = jnp.exp(log_var)
    diff = X_IRIS[:, None, :] - theta[None]  # (n, C, d)
    # d/dtheta = sum_i r_ik (x - theta)/var ;  d/dlog var = 1/2 sum_i r_ik ((x-theta)^2/var - 1)
    hand_theta = jnp.einsum("nc,ncd->cd", r, diff) / var
    hand_logvar = 0.5 * jnp.einsum("nc,ncd->cd", r, diff**2 / var[None] - 1.0)
    np.testing.assert_allclose(g_theta, hand_theta, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(g_logvar, hand_logvar, rtol=1e-10, atol=1e-10)


def test_gaussian_zero_variance_feature_is_smoothed():
    X = np.c_[X_IRIS[:, :3], np.full(len(Y_IRIS), 2.5)]  # a constant feature
    ours = D.fit_gaussian_nb(X, Y_IRIS)
    ref = sk_nb.GaussianNB().fit(X, Y_IRIS)
    np.testing.assert_allclose(ours.var[:, 3], float(ours.epsilon))
    assert float(ours.epsilon) > 0
    proba = D.predict_proba(ours, X)
    assert bool(jnp.all(jnp.isfinite(proba)))
    assert _maxdiff(proba, ref.predict_proba(X)) < PROBA_TOL


@pytest.mark.full
def test_gaussian_all_features_constant_keeps_epsilon_positive():
    X = np.ones((6, 2))
    y = np.array([0, 0, 0, 1, 1, 1])
    p = D.fit_gaussian_nb(X, y, var_smoothing=1e-9)
    assert float(p.epsilon) == pytest.approx(1e-9)  # the scale falls back to 1
    proba = D.predict_proba(p, X)
    np.testing.assert_allclose(proba, 0.5)  # identical class models: the priors


def test_gaussian_empty_class_gets_zero_probability():
    p = D.fit_gaussian_nb(X_IRIS, Y_IRIS, n_classes=4)
    proba = np.asarray(D.predict_proba(p, X_IRIS))
    assert np.all(proba[:, 3] == 0.0) and np.all(np.isfinite(proba))


@pytest.mark.full
def test_gaussian_jit_vmap_and_no_retrace():
    fit = lambda X, y, w, vs: D.fit_gaussian_nb(X, y, n_classes=3, sample_weight=w, var_smoothing=vs)
    eager = fit(X_IRIS, Y_IRIS, W_IRIS, 1e-9)
    jitted = jax.jit(fit)(jnp.asarray(X_IRIS), jnp.asarray(Y_IRIS), jnp.asarray(W_IRIS), 1e-9)
    chex.assert_trees_all_close(eager, jitted, rtol=1e-12)
    # vmap over CV-fold weights and over var_smoothing equals a loop
    folds = jnp.asarray(RNG.integers(0, 2, (3, len(Y_IRIS))).astype(float))
    batched = jax.vmap(lambda w: D.fit_gaussian_nb(X_IRIS, Y_IRIS, sample_weight=w))(folds)
    for i in range(3):
        chex.assert_trees_all_close(jax.tree.map(lambda a: a[i], batched),
                                    D.fit_gaussian_nb(X_IRIS, Y_IRIS, sample_weight=folds[i]), rtol=1e-12)
    grid = jnp.array([1e-9, 1e-3, 1e-1])
    batched = jax.vmap(lambda vs: D.fit_gaussian_nb(X_IRIS, Y_IRIS, var_smoothing=vs))(grid)
    np.testing.assert_allclose(batched.var[2], D.fit_gaussian_nb(X_IRIS, Y_IRIS, var_smoothing=0.1).var)
    proba = jax.vmap(lambda p: D.predict_proba(p, X_IRIS))(batched)
    assert proba.shape == (3, 150, 3)
    # a second fit with the same shapes does not recompile
    before = nb._fit_gaussian_nb._cache_size()
    D.fit_gaussian_nb(X_IRIS + 1.0, Y_IRIS, sample_weight=W_IRIS)
    D.fit_gaussian_nb(X_IRIS * 2.0, Y_IRIS, sample_weight=W_IRIS)
    assert nb._fit_gaussian_nb._cache_size() == before


@pytest.mark.full
def test_gaussian_float32():
    p32 = D.fit_gaussian_nb(X_IRIS.astype(np.float32), Y_IRIS)
    assert p32.theta.dtype == jnp.float32 and p32.var.dtype == jnp.float32
    proba32 = D.predict_proba(p32, X_IRIS.astype(np.float32))
    assert proba32.dtype == jnp.float32
    ref = sk_nb.GaussianNB().fit(X_IRIS, Y_IRIS).predict_proba(X_IRIS)
    assert _maxdiff(proba32, ref) < 1e-4  # float32 rounding of exp(log-likelihood differences)


# ----------------------------------------------------------------------------- categorical NB
@pytest.mark.full
@pytest.mark.parametrize("alpha", [1.0, 0.5])
def test_categorical_matches_sklearn_with_weights(alpha):
    ours = D.fit_categorical_nb(X_CAT, Y_CAT, alpha=alpha, sample_weight=W_CAT)
    ref = sk_nb.CategoricalNB(alpha=alpha).fit(X_CAT, Y_CAT, sample_weight=W_CAT)
    for j, k in enumerate(ref.n_categories_):
        np.testing.assert_allclose(ours.feature_log_prob[j, :, :k], ref.feature_log_prob_[j], rtol=1e-12)
    assert _maxdiff(D.predict_proba(ours, X_CAT), ref.predict_proba(X_CAT)) < PROBA_TOL
    np.testing.assert_array_equal(D.predict(ours, X_CAT), ref.predict(X_CAT))


@pytest.mark.full
def test_categorical_unseen_category_is_smoothed_like_sklearn_min_categories():
    n_categories = (4, 5, 3, 6)  # one category per feature never seen in training
    ours = D.fit_categorical_nb(X_CAT, Y_CAT, n_categories=n_categories, fit_prior=False)
    ref = sk_nb.CategoricalNB(min_categories=np.array(n_categories), fit_prior=False).fit(X_CAT, Y_CAT)
    X_new = np.array([[3, 4, 2, 5], [0, 1, 2, 3]])
    assert _maxdiff(D.predict_proba(ours, X_new), ref.predict_proba(X_new)) < PROBA_TOL
    # by hand: P(x_0 = 3 | k) = alpha / (N_k + alpha K_0) with alpha = 1, K_0 = 4
    n_k = np.bincount(Y_CAT, minlength=3)
    np.testing.assert_allclose(np.exp(ours.feature_log_prob[0, :, 3]), 1.0 / (n_k + 4), rtol=1e-12)


def test_categorical_code_beyond_n_categories_raises():
    p = D.fit_categorical_nb(X_CAT, Y_CAT)
    with pytest.raises(ValueError, match="category code 3 for feature 0"):
        D.predict(p, np.array([[3, 0, 0, 0]]))


@pytest.mark.full
def test_play_tennis_posterior_by_hand_unsmoothed():
    # Mitchell (1997) §6.9.1: <sunny, cool, high, strong>, no smoothing (alpha = 0)
    x = _encode(["sunny", "cool", "high", "strong"])
    p = D.fit_categorical_nb(X_TENNIS, Y_TENNIS, alpha=0.0)
    joint_yes = Fraction(2, 9) * Fraction(3, 9) * Fraction(3, 9) * Fraction(3, 9) * Fraction(9, 14)
    joint_no = Fraction(3, 5) * Fraction(1, 5) * Fraction(4, 5) * Fraction(3, 5) * Fraction(5, 14)
    assert float(joint_yes) == pytest.approx(0.0053, abs=5e-5)
    assert float(joint_no) == pytest.approx(0.0206, abs=5e-5)
    jll = np.asarray(nb.joint_log_likelihood(p, x))[0]
    np.testing.assert_allclose(np.exp(jll), [float(joint_no), float(joint_yes)], rtol=1e-12)
    posterior_no = joint_no / (joint_no + joint_yes)
    np.testing.assert_allclose(D.predict_proba(p, x)[0, 0], float(posterior_no), rtol=1e-12)
    assert float(posterior_no) == pytest.approx(0.795, abs=1e-3)
    assert int(D.predict(p, x)[0]) == LEVELS[-1].index("no")


@pytest.mark.full
def test_play_tennis_posterior_by_hand_laplace():
    x = _encode(["sunny", "cool", "high", "strong"])
    p = D.fit_categorical_nb(X_TENNIS, Y_TENNIS, alpha=1.0)
    # (count + 1) / (N_k + K_j), K = (3 outlooks, 3 temperatures, 2 humidities, 2 winds)
    joint_yes = (Fraction(2 + 1, 9 + 3) * Fraction(3 + 1, 9 + 3) * Fraction(3 + 1, 9 + 2)
                 * Fraction(3 + 1, 9 + 2) * Fraction(9, 14))
    joint_no = (Fraction(3 + 1, 5 + 3) * Fraction(1 + 1, 5 + 3) * Fraction(4 + 1, 5 + 2)
                * Fraction(3 + 1, 5 + 2) * Fraction(5, 14))
    jll = np.asarray(nb.joint_log_likelihood(p, x))[0]
    np.testing.assert_allclose(np.exp(jll), [float(joint_no), float(joint_yes)], rtol=1e-12)
    np.testing.assert_allclose(D.predict_proba(p, x)[0, 0], float(joint_no / (joint_no + joint_yes)),
                               rtol=1e-12)
    ref = sk_nb.CategoricalNB(alpha=1.0).fit(X_TENNIS, Y_TENNIS)
    assert _maxdiff(D.predict_proba(p, X_TENNIS), ref.predict_proba(X_TENNIS)) < PROBA_TOL


@pytest.mark.full
def test_alpha_zero_unseen_pair_gives_zero_probability_and_nan_when_all_ruled_out():
    p = D.fit_categorical_nb(X_TENNIS, Y_TENNIS, alpha=0.0, n_categories=(4, 3, 2, 2))
    overcast = _encode(["overcast", "cool", "high", "strong"])  # overcast is never "no"
    proba = np.asarray(D.predict_proba(p, overcast))[0]
    np.testing.assert_array_equal(proba, [0.0, 1.0])
    unseen = np.array([[3, 0, 0, 0]])  # outlook code 3: seen with no class
    assert np.isneginf(np.asarray(nb.joint_log_likelihood(p, unseen))).all()
    assert np.isnan(np.asarray(D.predict_proba(p, unseen))).all()


def _categorical_map_objective(logits, counts, alpha, valid):
    """sum_{j,k,c} (N_jkc + alpha) log theta_jkc, theta = softmax over the valid categories."""
    masked = jnp.where(valid, logits, -jnp.inf)
    log_theta = jax.nn.log_softmax(masked, axis=-1)
    return jnp.sum(jnp.where(valid, (counts + alpha) * log_theta, 0.0))


_grad_map = jax.jit(jax.grad(_categorical_map_objective))


@pytest.mark.full
@pytest.mark.parametrize("alpha", [0.0, 1.0])
def test_categorical_fit_is_the_map_estimate(alpha):
    # alpha = 0: maximum likelihood; alpha > 0: MAP under a Dirichlet(alpha + 1) prior
    p = D.fit_categorical_nb(X_CAT, Y_CAT, alpha=alpha, sample_weight=W_CAT)
    valid = (jnp.arange(5)[None, :] < jnp.asarray(N_CAT)[:, None])[:, None, :]
    logits = jnp.where(valid, p.feature_log_prob, 0.0)
    g = _grad_map(logits, p.category_count, alpha, valid)
    assert float(jnp.max(jnp.abs(g))) < 1e-10
    # and the gradient at a random point is the hand derivation (N + alpha) - (N_k + alpha K) theta
    z = jnp.asarray(RNG.normal(size=logits.shape))
    g = _grad_map(z, p.category_count, alpha, valid)
    theta = jax.nn.softmax(jnp.where(valid, z, -jnp.inf), axis=-1)
    tot = jnp.sum(jnp.where(valid, p.category_count + alpha, 0.0), axis=-1, keepdims=True)
    hand = jnp.where(valid, p.category_count + alpha - tot * theta, 0.0)
    np.testing.assert_allclose(g, hand, atol=1e-10)


def test_categorical_zero_weight_rows_have_no_influence():
    garbage = np.array([[9, 9, 9, 9], [0, 7, 1, 2]])  # codes far beyond n_categories
    X = np.vstack([X_CAT, garbage])
    y = np.concatenate([Y_CAT, [2, 0]])
    w = np.concatenate([W_CAT, [0.0, 0.0]])
    chex.assert_trees_all_close(D.fit_categorical_nb(X, y, sample_weight=w),
                                D.fit_categorical_nb(X_CAT, Y_CAT, sample_weight=W_CAT), rtol=1e-12)


@pytest.mark.full
def test_categorical_jit_vmap_and_no_retrace():
    fit = lambda X, y, a: D.fit_categorical_nb(X, y, n_classes=3, n_categories=N_CAT, alpha=a)
    eager = fit(X_CAT, Y_CAT, 0.7)
    chex.assert_trees_all_close(eager, jax.jit(fit)(jnp.asarray(X_CAT), jnp.asarray(Y_CAT), 0.7), rtol=1e-12)
    alphas = jnp.array([0.1, 1.0, 3.0])
    batched = jax.vmap(lambda a: fit(X_CAT, Y_CAT, a))(alphas)
    for i, a in enumerate([0.1, 1.0, 3.0]):
        chex.assert_trees_all_close(jax.tree.map(lambda v: v[i], batched), fit(X_CAT, Y_CAT, a), rtol=1e-12)
    folds = jnp.asarray(RNG.integers(0, 2, (2, 60)).astype(float))
    batched = jax.vmap(lambda w: D.fit_categorical_nb(X_CAT, Y_CAT, n_categories=N_CAT, sample_weight=w))(folds)
    chex.assert_trees_all_close(jax.tree.map(lambda v: v[1], batched),
                                D.fit_categorical_nb(X_CAT, Y_CAT, n_categories=N_CAT, sample_weight=folds[1]),
                                rtol=1e-12)
    before = nb._fit_categorical_nb._cache_size()
    fit((X_CAT + 1) % 2, Y_CAT, 0.3)
    assert nb._fit_categorical_nb._cache_size() == before


@pytest.mark.full
def test_categorical_float32_weights():
    p = D.fit_categorical_nb(X_CAT, Y_CAT, sample_weight=W_CAT.astype(np.float32))
    assert p.feature_log_prob.dtype == jnp.float32
    ref = sk_nb.CategoricalNB().fit(X_CAT, Y_CAT, sample_weight=W_CAT).predict_proba(X_CAT)
    assert _maxdiff(D.predict_proba(p, X_CAT), ref) < 1e-5


# ----------------------------------------------------------------------------- mixed NB
@pytest.mark.full
def test_mixed_equals_gaussian_plus_categorical_sklearn():
    X_cont = X_IRIS[:60, :2]
    X = np.c_[X_CAT[:, :1], X_cont, X_CAT[:, 1:2]].astype(float)  # columns: cat, cont, cont, cat
    ours = D.fit_mixed_nb(X, Y_CAT, categorical_features=[0, 3], sample_weight=W_CAT)
    mask = np.array([True, False, False, True])
    same = D.fit_mixed_nb(X, Y_CAT, categorical_features=mask, sample_weight=W_CAT)
    chex.assert_trees_all_close(ours, same)
    g = sk_nb.GaussianNB().fit(X_cont, Y_CAT, sample_weight=W_CAT)
    c = sk_nb.CategoricalNB().fit(X_CAT[:, :2], Y_CAT, sample_weight=W_CAT)
    # the textbook rule: one prior, the per-feature log-likelihoods of both models summed
    jll = (g.predict_joint_log_proba(X_cont) + c.predict_joint_log_proba(X_CAT[:, :2])
           - np.log(g.class_prior_))
    ref = np.exp(jll - jll.max(1, keepdims=True))
    ref /= ref.sum(1, keepdims=True)
    assert _maxdiff(D.predict_proba(ours, X), ref) < PROBA_TOL


def test_mixed_without_categorical_features_is_gaussian():
    p = D.fit_mixed_nb(X_IRIS, Y_IRIS, categorical_features=[])
    q = D.fit_gaussian_nb(X_IRIS, Y_IRIS)
    np.testing.assert_allclose(D.predict_proba(p, X_IRIS), D.predict_proba(q, X_IRIS), rtol=1e-12)


# ----------------------------------------------------------------------------- bad input
def test_one_class_raises():
    with pytest.raises(ValueError, match="at least 2 classes"):
        D.fit_gaussian_nb(X_IRIS[:50], Y_IRIS[:50])


def test_one_class_raises_categorical():
    with pytest.raises(ValueError, match="at least 2 classes"):
        D.fit_categorical_nb(X_CAT, np.zeros(60, int))


def test_string_labels_raise_type_error():
    with pytest.raises(TypeError, match="encode string labels"):
        D.fit_gaussian_nb(X_IRIS[:4], np.array(["a", "b", "a", "b"]))


def test_nan_in_X_raises():
    X = X_IRIS.copy()
    X[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        D.fit_gaussian_nb(X, Y_IRIS)


def test_negative_var_smoothing_raises():
    with pytest.raises(ValueError, match="var_smoothing must be >= 0"):
        D.fit_gaussian_nb(X_IRIS, Y_IRIS, var_smoothing=-1.0)


def test_priors_not_summing_to_one_raise():
    with pytest.raises(ValueError, match="priors must sum to 1"):
        D.fit_gaussian_nb(X_IRIS, Y_IRIS, priors=[0.5, 0.5, 0.5])


def test_priors_wrong_shape_raise():
    with pytest.raises(ValueError, match=r"priors must have shape \(3,\)"):
        D.fit_gaussian_nb(X_IRIS, Y_IRIS, priors=[0.5, 0.5])


def test_negative_category_code_raises():
    X = X_CAT.copy()
    X[0, 2] = -1
    with pytest.raises(ValueError, match="non-negative category codes"):
        D.fit_categorical_nb(X, Y_CAT)


def test_non_integer_category_code_raises():
    with pytest.raises(ValueError, match="integer values"):
        D.fit_categorical_nb(X_CAT + 0.5, Y_CAT)


def test_negative_alpha_raises():
    with pytest.raises(ValueError, match="alpha must be >= 0"):
        D.fit_categorical_nb(X_CAT, Y_CAT, alpha=-0.1)


def test_n_categories_too_small_raises():
    with pytest.raises(ValueError, match="n_categories"):
        D.fit_categorical_nb(X_CAT, Y_CAT, n_categories=2)


def test_n_categories_wrong_length_raises():
    with pytest.raises(ValueError, match="one entry per categorical feature"):
        D.fit_categorical_nb(X_CAT, Y_CAT, n_categories=(3, 4))


def test_categorical_features_out_of_range_raises():
    with pytest.raises(ValueError, match="categorical_features indices"):
        D.fit_mixed_nb(X_IRIS, Y_IRIS, categorical_features=[7])


def test_n_classes_required_under_tracing():
    with pytest.raises(ValueError, match="n_classes must be given"):
        jax.jit(lambda X, y: D.fit_gaussian_nb(X, y))(jnp.asarray(X_IRIS), jnp.asarray(Y_IRIS))


def test_predict_wrong_number_of_features_raises():
    p = D.fit_gaussian_nb(X_IRIS, Y_IRIS)
    with pytest.raises(ValueError, match="3 features, but the model was fitted with 4"):
        D.predict(p, X_IRIS[:, :3])
