"""Bagging of any fit (jaxclassic.ensemble.bagging): members equal a loop of the base fit on
the bootstrap weights, the bootstrap draw is a multinomial over the positive-weight rows
that zero-weight padding leaves unchanged, out-of-bag scores equal a hand loop, and the
variance of a bag of M trees follows ESL's law rho sigma^2 + (1 - rho) sigma^2 / M.

Data are small and shared (40 x 3 regression / classification) so each program compiles once.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxclassic import ensemble, tree
from jaxclassic.ensemble import bagging
from jaxclassic.linear import fit_ridge

N, P, E = 40, 3, 6
RNG = np.random.default_rng(3)
X = RNG.normal(size=(N, P))
Y = X @ np.array([1.0, -2.0, 0.5]) + 0.3 * RNG.normal(size=N)
Y_CLS = (X[:, 0] - X[:, 1] + 0.5 * RNG.normal(size=N) > 0).astype(int)
W = RNG.integers(1, 4, size=N).astype(float)
KEY = jax.random.key(7)
TREE_KW = dict(max_depth=2, n_bins=8, n_classes=2)


def _compiles(fn):
    """Number of XLA backend compilations while ``fn()`` runs."""
    events = []

    def listener(event, duration, **kwargs):
        if event == "/jax/core/compile/backend_compile_duration":
            events.append(event)

    jax.monitoring.register_event_duration_secs_listener(listener)
    try:
        jax.block_until_ready(fn())
    finally:
        jax.monitoring.unregister_event_duration_listener(listener)
    return len(events)


def _ridge_bag(**kw):
    kw = dict(dict(n_estimators=E, key=KEY, sample_weight=W, alpha=0.5), **kw)
    return ensemble.fit_bagging(fit_ridge, X, Y, **kw)


def _tree_bag(voting="mean"):
    return ensemble.fit_bagging(tree.fit_cart, X, Y_CLS, n_estimators=E, key=KEY, sample_weight=W,
                                voting=voting, **TREE_KW)


# --------------------------------------------------------------------------- the draw
def test_bootstrap_counts_are_a_multinomial_over_the_positive_rows():
    w = np.ones(20)
    w[[3, 11]] = 0.0
    counts = np.asarray(ensemble.bootstrap_counts(w, 4000, key=KEY))
    assert counts.dtype == np.int32 and counts.shape == (4000, 20)
    np.testing.assert_array_equal(counts.sum(axis=1), 18)  # n_+ draws
    assert (counts[:, [3, 11]] == 0).all()
    pos = counts[:, w > 0]
    # Multinomial(18; 1/18): mean 1, variance 17/18; 4 standard errors of the 4000-draw means
    np.testing.assert_allclose(pos.mean(axis=0), 1.0, atol=4 * np.sqrt(17 / 18 / 4000))
    np.testing.assert_allclose(pos.var(axis=0).mean(), 17 / 18, rtol=0.05)
    # max_samples: round(0.5 * 18) = 9 draws; prefix-stable in n_estimators
    half = np.asarray(ensemble.bootstrap_counts(w, 4000, max_samples=0.5, key=KEY))
    np.testing.assert_array_equal(half.sum(axis=1), 9)
    np.testing.assert_array_equal(np.asarray(ensemble.bootstrap_counts(w, 7, key=KEY)), counts[:7])


def test_bootstrap_counts_ignore_zero_weight_rows_anywhere():
    w = RNG.integers(1, 3, size=15).astype(float)
    padded = np.insert(w, [0, 4, 4, 9, 15], 0.0)
    # 7 members (20 rows padded): the shapes of the prefix check above, so that program is reused
    base = np.asarray(ensemble.bootstrap_counts(w, 7, key=KEY))
    pad = np.asarray(ensemble.bootstrap_counts(padded, 7, key=KEY))
    np.testing.assert_array_equal(pad[:, padded > 0], base)
    assert (pad[:, padded == 0] == 0).all()


def test_bootstrap_counts_old_positional_key_warns_and_equals_the_keyword():
    # issue 27: the key moved from first positional argument to key=; the old call still works
    w = np.ones(20)
    with pytest.warns(DeprecationWarning, match=r"bootstrap_counts\(\.\.\., key=key\)"):
        old = ensemble.bootstrap_counts(KEY, w, 7)
    np.testing.assert_array_equal(old, ensemble.bootstrap_counts(w, 7, key=KEY))
    # key=None: the fixed key jax.random.key(0)
    np.testing.assert_array_equal(ensemble.bootstrap_counts(w, 7), ensemble.bootstrap_counts(w, 7, key=jax.random.key(0)))


# --------------------------------------------------------------------------- members
@pytest.mark.full
def test_members_equal_a_loop_of_the_base_fit():
    bag = _ridge_bag()
    assert isinstance(bag, ensemble.RegressionBagging)
    counts = np.asarray(ensemble.bootstrap_counts(W, E, key=KEY))
    np.testing.assert_array_equal(bag.counts, counts)
    for e in range(E):
        ref = fit_ridge(X, Y, alpha=0.5, sample_weight=counts[e] * W)
        member = jax.tree.map(lambda a: np.asarray(a)[e], bag.estimators)  # sliced in NumPy
        jax.tree.map(lambda a, b: np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12), member, ref)
    # the bag predicts the members' mean
    preds = np.stack([X @ np.asarray(bag.estimators.coef)[e] + float(np.asarray(bag.estimators.intercept)[e])
                      for e in range(E)])
    np.testing.assert_allclose(ensemble.predict(bag, X), preds.mean(axis=0), rtol=1e-10)


@pytest.mark.full
def test_chunked_fit_equals_one_vmap():
    one = _ridge_bag()
    chunked = _ridge_bag(chunk_size=4)  # chunks of 4 and 2 (padded to 4)
    jax.tree.map(lambda a, b: np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14), one, chunked)


@pytest.mark.full
def test_zero_weight_rows_have_no_influence():
    rows = [0, 5, 5, 17, 40]
    Xp = np.insert(X, rows, 1e3 * RNG.normal(size=(len(rows), P)), axis=0)
    Yp = np.insert(Y, rows, -1e3)
    Wp = np.insert(W, rows, 0.0)
    base = _ridge_bag()
    pad = ensemble.fit_bagging(fit_ridge, Xp, Yp, n_estimators=E, key=KEY, sample_weight=Wp, alpha=0.5)
    keep = Wp > 0
    np.testing.assert_array_equal(np.asarray(pad.counts)[:, keep], base.counts)
    jax.tree.map(lambda a, b: np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-11), pad.estimators, base.estimators)
    np.testing.assert_allclose(ensemble.predict(pad, X), ensemble.predict(base, X), rtol=1e-9)
    np.testing.assert_allclose(ensemble.oob_score(pad, Xp, Yp), ensemble.oob_score(base, X, Y), rtol=1e-9)


@pytest.mark.full
def test_vmap_over_keys_equals_a_loop():
    keys = jax.random.split(jax.random.key(3), 3)
    batched = jax.vmap(lambda k: _ridge_bag(key=k))(keys)
    for i in range(3):
        one = _ridge_bag(key=keys[i])
        jax.tree.map(lambda a, b: np.testing.assert_allclose(a[i], b, rtol=1e-10, atol=1e-12), batched, one)


def test_second_call_does_not_compile():
    _ridge_bag()
    assert _compiles(lambda: _ridge_bag(key=jax.random.key(99)).estimators.coef) == 0


# --------------------------------------------------------------------------- out of bag
def _hand_oob(scores, counts):
    """Mean of the members' scores over the members that left each row out (a loop)."""
    total = np.zeros(scores.shape[1:])
    n_oob = np.zeros(scores.shape[1])
    for e in range(scores.shape[0]):
        out = counts[e] == 0
        total[out] += scores[e][out]
        n_oob[out] += 1
    return total, n_oob


@pytest.mark.full
def test_oob_regression_equals_a_hand_loop():
    bag = _ridge_bag()
    counts = np.asarray(bag.counts)
    member = np.stack([X @ np.asarray(bag.estimators.coef)[e] + float(np.asarray(bag.estimators.intercept)[e])
                      for e in range(E)])
    total, n_oob = _hand_oob(member, counts)
    has = n_oob > 0
    expect = np.where(has, total / np.maximum(n_oob, 1), np.nan)
    np.testing.assert_allclose(ensemble.oob_decision_function(bag, X), expect, rtol=1e-10)
    w = W * has
    resid = ((Y - expect) ** 2 * w)[has].sum()
    ybar = (w * Y).sum() / w.sum()
    r2 = 1 - resid / ((Y - ybar) ** 2 * w)[has].sum()
    np.testing.assert_allclose(ensemble.oob_score(bag, X, Y), r2, rtol=1e-10)


@pytest.mark.full
@pytest.mark.parametrize("voting", ["mean", "majority"])
def test_oob_classification_equals_a_hand_loop(voting):
    bag = _tree_bag(voting)
    assert isinstance(bag, ensemble.ClassificationBagging)
    counts = np.asarray(bag.counts)
    members = [jax.tree.map(lambda a: np.asarray(a)[e], bag.estimators) for e in range(E)]  # sliced in NumPy
    if voting == "mean":
        scores = np.stack([np.asarray(tree.predict_proba(m, X)) for m in members])
    else:
        scores = np.stack([np.eye(2)[np.asarray(tree.predict(m, X))] for m in members])
    np.testing.assert_allclose(ensemble.predict_proba(bag, X), scores.mean(axis=0), rtol=1e-12)
    np.testing.assert_array_equal(ensemble.predict(bag, X), scores.mean(axis=0).argmax(axis=1))
    total, n_oob = _hand_oob(scores, counts)
    has = n_oob > 0
    dec = total / np.maximum(n_oob, 1)[:, None]
    np.testing.assert_allclose(np.asarray(ensemble.oob_decision_function(bag, X))[has], dec[has], rtol=1e-12)
    assert np.isnan(np.asarray(ensemble.oob_decision_function(bag, X))[~has]).all()
    acc = ((dec.argmax(axis=1) == Y_CLS) * W)[has].sum() / W[has].sum()
    np.testing.assert_allclose(ensemble.oob_score(bag, X, Y_CLS), acc, rtol=1e-12)
    pred = np.asarray(ensemble.oob_predict(bag, X))
    np.testing.assert_array_equal(pred[has], dec[has].argmax(axis=1))


# --------------------------------------------------------------------------- variance law
@pytest.mark.full
def test_variance_of_a_bag_follows_rho_sigma2_law():
    r"""ESL (15.1): trees identically distributed with variance sigma^2 and pairwise
    correlation rho (through the shared training set Z) average to variance
    rho sigma^2 + (1 - rho) sigma^2 / M.

    R = 120 training sets Z_r (random halves of a pool of 48 rows, as 0/1 weights), each
    bagged into K = 50 regression trees of depth 3 (one vmap over (Z_r, key_r) of
    fit_bagging, itself a vmap over its trees). At 4 test points: within-set variance
    s_w^2 = E_r Var_k T (= (1 - rho) sigma^2), between-set tau^2 = Var_r(mean_k T) - s_w^2/K
    (= rho sigma^2). The measured variance over r of the mean of the first M trees must equal
    tau^2 + s_w^2 / M within 4 Monte Carlo standard errors (a bootstrap over the R sets).
    """
    rng = np.random.default_rng(0)
    pool = rng.uniform(size=(48, 2))
    y = np.sin(6 * pool[:, 0]) + pool[:, 1] + 0.3 * rng.normal(size=48)
    R, K = 120, 50
    halves = np.stack([rng.permutation(48) < 24 for _ in range(R)]).astype(float)
    keys = jax.random.split(jax.random.key(1), R)

    def bag(w, k):
        return ensemble.fit_bagging(tree.fit_cart, pool, y, n_estimators=K, key=k, sample_weight=w,
                                    task="regression", max_depth=3, n_bins=16)

    bags = jax.vmap(bag)(jnp.asarray(halves), keys)
    x_test = np.array([[0.1, 0.5], [0.35, 0.2], [0.6, 0.8], [0.9, 0.5]])
    T = np.asarray(jax.vmap(jax.vmap(lambda t: tree.predict(t, x_test)))(bags.estimators))  # (R, K, 4)

    def stats(T):
        s_w2 = T.var(axis=1, ddof=1).mean(axis=0)
        tau2 = T.mean(axis=1).var(axis=0, ddof=1) - s_w2 / K
        measured = np.stack([T[:, :m].mean(axis=1).var(axis=0, ddof=1) for m in (1, 5, 25)])
        formula = np.stack([tau2 + s_w2 / m for m in (1, 5, 25)])
        return measured, formula, tau2, s_w2

    measured, formula, tau2, s_w2 = stats(T)
    boot = np.stack([np.subtract(*stats(T[rng.integers(0, R, R)])[:2]) for _ in range(300)])
    se = boot.std(axis=0)
    assert (np.abs(measured - formula) <= 4 * se).all(), (measured, formula, se)
    rho = tau2 / (tau2 + s_w2)
    assert ((rho > 0.05) & (rho < 0.95)).all(), rho  # both terms of the law are present
    assert (measured[0] > measured[1]).all() and (measured[1] > measured[2]).all()
    assert (measured[2] < tau2 + 0.1 * s_w2).all()  # M = 25 is near the floor rho sigma^2


# --------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("kwargs, match", [
    (dict(n_estimators=0), "n_estimators must be >= 1"),
    (dict(max_samples=0.0), "max_samples must be > 0"),
    (dict(max_samples=1.5), "max_samples must be <= 1"),
    (dict(voting="soft"), "voting must be one of"),
])
def test_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        _ridge_bag(**kwargs)


def test_max_samples_must_be_a_float():
    with pytest.raises(TypeError, match="max_samples must be a float"):
        _ridge_bag(max_samples="half")


def test_nan_y():
    y = Y.copy()
    y[3] = np.nan
    with pytest.raises(ValueError, match="y contains 1 NaN"):
        ensemble.fit_bagging(fit_ridge, X, y, key=KEY, alpha=0.5)


def test_one_class():
    with pytest.raises(ValueError, match="y must contain at least 2 classes"):
        ensemble.fit_bagging(tree.fit_cart, X, np.zeros(N, int), key=KEY, **TREE_KW)


def test_mean_voting_needs_probabilities():
    with pytest.raises(ValueError, match="voting='mean' needs members with predict_proba"):
        ensemble.fit_bagging(fit_ridge, X, Y_CLS, n_estimators=E, key=KEY, sample_weight=W, alpha=0.5)


def test_fit_must_be_callable():
    with pytest.raises(TypeError, match="fit must be a callable"):
        ensemble.fit_bagging("ridge", X, Y, key=KEY)


def test_oob_needs_the_training_rows():
    with pytest.raises(ValueError, match="X must be the training data"):
        ensemble.oob_score(_ridge_bag(), X[:10], Y[:10])


def test_bagging_key_defaults_to_a_fixed_key_and_reports_n_classes():
    # issue 27: key=None is jax.random.key(0) (deterministic); classifiers report n_classes
    default = ensemble.fit_bagging(fit_ridge, X, Y, n_estimators=E, sample_weight=W, alpha=0.5)
    given = _ridge_bag(key=jax.random.key(0))
    jax.tree.map(np.testing.assert_array_equal, default, given)
    bag = _tree_bag()
    assert bag.n_classes == int(np.max(Y_CLS)) + 1 and isinstance(bag.n_classes, int)
