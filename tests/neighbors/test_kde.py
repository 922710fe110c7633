"""Tests of jaxclassic/neighbors/kde.py (fit_kde, score_samples, kde_bandwidth_cv, sample).

References: scikit-learn's ``KernelDensity`` with ``atol=0, rtol=0`` (its trees are then exact)
for the same kernel and bandwidth, 1e-6 relative in float64 (observed ~1e-14: the same sums
in another order); independent of scikit-learn, the density integrates to 1 by quadrature
(1-d, every kernel; 2-d for the cosine kernel, where scikit-learn's constant is off), each
kernel's normalising constant equals a numerical integral of its radial profile, and the
gaussian gradient in the bandwidth equals its hand derivation and finite differences.
"""

import math

import chex
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from scipy import integrate
from sklearn import datasets
from sklearn.neighbors import KernelDensity

from jaxclassic import _tiling
from jaxclassic import neighbors as N
from jaxclassic.neighbors import kde

IRIS = datasets.load_iris().data
STD = (IRIS - IRIS.mean(0)) / IRIS.std(0)
QUERY = STD[::3] + 0.1  # near the data, not on it
FAR = np.full((1, 4), 6.0)  # outside every compact support at h = 0.8
RNG = np.random.default_rng(0)
W = RNG.uniform(0.2, 2.0, len(STD))
H = 0.8


def _sklearn(X, kernel, h, w=None):
    return KernelDensity(kernel=kernel, bandwidth=h, atol=0, rtol=0).fit(X, sample_weight=w)


def _assert_log_density_close(ours, ref, rtol=1e-6):
    ours, ref = np.asarray(ours), np.asarray(ref)
    np.testing.assert_array_equal(np.isfinite(ours), np.isfinite(ref))  # -inf at the same rows
    fin = np.isfinite(ref)
    assert fin.sum() > 0
    np.testing.assert_allclose(ours[fin], ref[fin], rtol=rtol)


# --------------------------------------------------------------------------- vs scikit-learn
@pytest.mark.full
@pytest.mark.parametrize("kernel", ["gaussian", "tophat", "epanechnikov", "exponential", "linear"])
@pytest.mark.parametrize("weighted", [False, True])
def test_equals_sklearn_4d(kernel, weighted):
    w = W if weighted else None
    Q = np.vstack([QUERY, FAR])
    ours = N.score_samples(N.fit_kde(STD, kernel=kernel, bandwidth=H, sample_weight=w), Q)
    _assert_log_density_close(ours, _sklearn(STD, kernel, H, w).score_samples(Q))


@pytest.mark.full
@pytest.mark.parametrize("kernel", kde.KERNELS)
@pytest.mark.parametrize("n_features", [1, 3])
def test_equals_sklearn_odd_dimensions(kernel, n_features):
    X = STD[:, :n_features]
    Q = np.vstack([QUERY[:, :n_features], FAR[:, :n_features]])
    ours = N.score_samples(N.fit_kde(X, kernel=kernel, bandwidth=0.5), Q)
    _assert_log_density_close(ours, _sklearn(X, kernel, 0.5).score_samples(Q))


def test_cosine_in_even_dimensions_differs_from_sklearn_by_its_constant():
    # scikit-learn ends the recursion with I_1 = 2/pi instead of 2/pi - 4/pi^2 (module docstring)
    X = STD[:, :2]
    ours = np.asarray(N.score_samples(N.fit_kde(X, kernel="cosine", bandwidth=H), QUERY[:, :2]))
    ref = _sklearn(X, "cosine", H).score_samples(QUERY[:, :2])
    fin = np.isfinite(ref)
    i1 = 2 / math.pi - 4 / math.pi**2
    np.testing.assert_allclose(ours[fin] - ref[fin], math.log((2 / math.pi) / i1), rtol=1e-10)


@pytest.mark.parametrize("rule", ["scott", "silverman"])
def test_rule_bandwidths_equal_sklearn(rule):
    ours = N.fit_kde(STD, bandwidth=rule)
    ref = KernelDensity(bandwidth=rule).fit(STD)
    np.testing.assert_allclose(float(ours.bandwidth), ref.bandwidth_, rtol=1e-14)
    n, d = STD.shape
    expected = n ** (-1 / (d + 4)) if rule == "scott" else (n * (d + 2) / 4) ** (-1 / (d + 4))
    np.testing.assert_allclose(float(ours.bandwidth), expected, rtol=1e-14)


def test_rule_bandwidth_counts_positive_weight_rows():
    w = np.r_[np.ones(100), np.zeros(50)]
    ours = N.fit_kde(STD, bandwidth="scott", sample_weight=w)
    np.testing.assert_allclose(float(ours.bandwidth), 100 ** (-1 / 8), rtol=1e-14)


# --------------------------------------------------------------------------- hand checks
@pytest.mark.full
@pytest.mark.parametrize("kernel", kde.KERNELS)
def test_density_integrates_to_one_in_1d(kernel):
    X = np.array([[-1.0], [0.3], [0.5], [2.0]])
    params = N.fit_kde(X, kernel=kernel, bandwidth=0.7, sample_weight=np.array([1.0, 2.0, 0.5, 1.0]))
    grid = np.linspace(-20.0, 20.0, 400_001)
    density = np.exp(np.asarray(N.score_samples(params, grid[:, None])))
    # trapezoid on a 1e-4 grid: O(h^2) for smooth kernels, O(h) at the kinks of compact ones
    np.testing.assert_allclose(np.trapezoid(density, grid), 1.0, atol=2e-4)


def test_cosine_density_integrates_to_one_in_2d():
    params = N.fit_kde(np.zeros((1, 2)), kernel="cosine", bandwidth=1.0)
    g = np.linspace(-1.0, 1.0, 1201)
    G = np.stack(np.meshgrid(g, g), -1).reshape(-1, 2)
    density = np.exp(np.asarray(N.score_samples(params, G))).reshape(len(g), len(g))
    np.testing.assert_allclose(np.trapezoid(np.trapezoid(density, g), g), 1.0, atol=2e-4)


_PROFILES = {
    "gaussian": lambda r: np.exp(-0.5 * r * r),
    "tophat": lambda r: 1.0,
    "epanechnikov": lambda r: 1.0 - r * r,
    "exponential": lambda r: np.exp(-r),
    "linear": lambda r: 1.0 - r,
    "cosine": lambda r: np.cos(0.5 * np.pi * r),
}


@pytest.mark.parametrize("kernel", kde.KERNELS)
@pytest.mark.parametrize("n_features", [1, 2, 3, 4, 7])
def test_normaliser_equals_radial_integral(kernel, n_features):
    # int_{R^d} k(|v|) dv = S_{d-1} int_0^R k(r) r^{d-1} dr, S_{d-1} = 2 pi^{d/2} / Gamma(d/2)
    d = n_features
    upper = np.inf if kernel in ("gaussian", "exponential") else 1.0
    radial, _ = integrate.quad(lambda r: _PROFILES[kernel](r) * r ** (d - 1), 0.0, upper,
                               epsabs=0, epsrel=1e-13)
    surface = 2 * math.pi ** (d / 2) / math.gamma(d / 2)
    # quad to ~1e-13 relative; atol for the constants that are log 1 = 0 (linear, d = 1)
    np.testing.assert_allclose(float(N.log_kernel_norm(1.0, d, kernel)), -math.log(surface * radial),
                               rtol=1e-11, atol=1e-13)
    np.testing.assert_allclose(float(N.log_kernel_norm(0.3, d, kernel)),
                               -math.log(surface * radial) - d * math.log(0.3), rtol=1e-11)


def test_gaussian_bandwidth_gradient_equals_hand_derivation_and_finite_differences():
    # d/dh log p(x) = sum_j r_j |x - x_j|^2 / h^3 - d / h, r_j the normalised kernel weights
    X, Q = STD[:60], QUERY[:5]
    h0 = 0.6

    def total(h):
        return jnp.sum(N.score_samples(N.fit_kde(X, bandwidth=h, sample_weight=W[:60]), Q))

    grad = float(jax.grad(total)(h0))
    d2 = ((Q[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    logits = np.log(W[:60])[None, :] - 0.5 * d2 / h0**2
    r = np.exp(logits - logits.max(1, keepdims=True))
    r /= r.sum(1, keepdims=True)
    hand = float(np.sum((r * d2).sum(1) / h0**3 - X.shape[1] / h0))
    np.testing.assert_allclose(grad, hand, rtol=1e-10)
    eps = 1e-6
    fd = (float(total(h0 + eps)) - float(total(h0 - eps))) / (2 * eps)
    np.testing.assert_allclose(grad, fd, rtol=1e-7)  # O(eps^2) truncation


@pytest.mark.parametrize("kernel", ["epanechnikov", "exponential"])
def test_bandwidth_gradient_equals_finite_differences(kernel):
    X, Q = STD[:60], QUERY[:5]

    def total(h):
        return jnp.sum(N.score_samples(N.fit_kde(X, kernel=kernel, bandwidth=h), Q))

    h0, eps = 1.3, 1e-6
    fd = (float(total(h0 + eps)) - float(total(h0 - eps))) / (2 * eps)
    np.testing.assert_allclose(float(jax.grad(total)(h0)), fd, rtol=1e-6)


# --------------------------------------------------------------------------- weights
def test_zero_weight_rows_equal_removal():
    garbage = RNG.normal(0.0, 0.3, size=(20, 4))  # right inside the data
    X = np.vstack([STD, garbage])
    w = np.r_[W, np.zeros(20)]
    for kernel in ("gaussian", "tophat"):
        chex.assert_trees_all_close(
            N.score_samples(N.fit_kde(X, kernel=kernel, bandwidth=H, sample_weight=w), QUERY),
            N.score_samples(N.fit_kde(STD, kernel=kernel, bandwidth=H, sample_weight=W), QUERY),
            rtol=1e-12)


def test_integer_weights_equal_repeated_rows():
    counts = RNG.integers(0, 4, len(STD))
    counts[:3] = 1
    ours = N.score_samples(N.fit_kde(STD, bandwidth=H, sample_weight=counts.astype(float)), QUERY)
    rep = N.score_samples(N.fit_kde(np.repeat(STD, counts, 0), bandwidth=H), QUERY)
    np.testing.assert_allclose(np.asarray(ours), np.asarray(rep), rtol=1e-12)


# --------------------------------------------------------------------------- tiling, transforms
@pytest.mark.parametrize("kernel", ["gaussian", "epanechnikov"])
def test_tiled_equals_one_block(kernel, monkeypatch):
    params = N.fit_kde(STD, kernel=kernel, bandwidth=H)
    Q = np.vstack([STD + 0.1, FAR])
    whole = N.score_samples(params, Q)
    monkeypatch.setattr(_tiling, "MEMORY_BUDGET", 20_000)
    qt, rt = kde.kde_tiles(len(Q), len(STD), 8)
    assert qt < len(Q) and rt < len(STD)  # queries and references both tiled
    tiled = N.score_samples(params, Q)
    np.testing.assert_allclose(np.asarray(tiled), np.asarray(whole), rtol=1e-13)


def test_jit_equals_eager():
    eager = N.score_samples(N.fit_kde(STD, bandwidth=H, sample_weight=W), QUERY)
    jitted = jax.jit(lambda X, h, w, Q: N.score_samples(N.fit_kde(X, bandwidth=h, sample_weight=w), Q))
    np.testing.assert_allclose(np.asarray(jitted(STD, H, W, QUERY)), np.asarray(eager), rtol=1e-13)


def test_vmap_over_bandwidths_equals_loop():
    hs = jnp.array([0.3, 0.8, 2.0])
    batched = jax.vmap(lambda h: N.score_samples(N.fit_kde(STD, kernel="linear", bandwidth=h), QUERY))(hs)
    for g, h in enumerate(hs):
        np.testing.assert_allclose(
            np.asarray(batched[g]),
            np.asarray(N.score_samples(N.fit_kde(STD, kernel="linear", bandwidth=float(h)), QUERY)),
            rtol=1e-13)


def test_second_call_does_not_retrace():
    N.score_samples(N.fit_kde(STD, bandwidth=H), QUERY)
    size = kde._score_samples._cache_size()
    N.score_samples(N.fit_kde(STD * 2, bandwidth=0.3, sample_weight=W), QUERY + 1)
    assert kde._score_samples._cache_size() == size


# --------------------------------------------------------------------------- bandwidth by CV
FOLDS = (np.arange(len(STD))[None, :] % 5 != np.arange(5)[:, None]).astype(float)


@pytest.mark.full
@pytest.mark.parametrize("kernel", ["gaussian", "epanechnikov"])
def test_bandwidth_cv_equals_loop_of_fits(kernel):
    hs = np.array([0.2, 0.5, 1.0])
    res = N.kde_bandwidth_cv(STD, hs, FOLDS, kernel=kernel, sample_weight=W)
    ref = np.empty((3, 5))
    for g, h in enumerate(hs):
        for f, fold in enumerate(FOLDS):
            train, held = fold > 0, fold == 0
            ld = np.asarray(N.score_samples(
                N.fit_kde(STD[train], kernel=kernel, bandwidth=h, sample_weight=W[train]), STD[held]))
            ref[g, f] = np.sum(W[held] * ld) / np.sum(W[held])
    np.testing.assert_allclose(np.asarray(res.scores), ref, rtol=1e-12)
    best = int(np.argmax(ref.mean(1)))
    assert float(res.best_bandwidth) == hs[best]
    np.testing.assert_allclose(float(res.best_score), ref.mean(1)[best], rtol=1e-12)


def test_bandwidth_cv_compact_kernel_gives_minus_inf_for_isolated_held_out_rows():
    res = N.kde_bandwidth_cv(STD, [0.01, 2.0], FOLDS, kernel="tophat")
    assert np.all(np.isneginf(np.asarray(res.scores[0]))) and np.all(np.isfinite(np.asarray(res.scores[1])))
    assert float(res.best_bandwidth) == 2.0


@pytest.mark.full
def test_bandwidth_cv_is_differentiable():
    def mean_score(log_h):
        return N.kde_bandwidth_cv(STD, jnp.exp(log_h)[None], FOLDS).mean_scores[0]

    x0, eps = math.log(0.5), 1e-6
    fd = (float(mean_score(x0 + eps)) - float(mean_score(x0 - eps))) / (2 * eps)
    np.testing.assert_allclose(float(jax.grad(mean_score)(x0)), fd, rtol=1e-6)


# --------------------------------------------------------------------------- sampling
def test_gaussian_samples_have_the_mixture_moments():
    params = N.fit_kde(STD, bandwidth=0.5, sample_weight=W)
    draws = np.asarray(N.sample(params, 40_000, key=jax.random.key(0)))
    mean = W @ STD / W.sum()
    cov = ((STD - mean).T * W) @ (STD - mean) / W.sum() + 0.25 * np.eye(4)
    np.testing.assert_allclose(draws.mean(0), mean, atol=0.03)  # 4 sd of the sample mean
    np.testing.assert_allclose(np.cov(draws.T), cov, atol=0.06)


def test_tophat_samples_lie_within_h_of_a_training_row():
    params = N.fit_kde(STD, kernel="tophat", bandwidth=0.3)
    draws = np.asarray(N.sample(params, 500, key=jax.random.key(1)))
    nearest = np.sqrt(((draws[:, None, :] - STD[None]) ** 2).sum(-1)).min(1)
    assert np.all(nearest < 0.3)
    np.testing.assert_array_equal(draws, np.asarray(N.sample(params, 500, key=jax.random.key(1))))


def test_sample_other_kernels_not_implemented():
    with pytest.raises(NotImplementedError, match="got kernel='epanechnikov'"):
        N.sample(N.fit_kde(STD, kernel="epanechnikov"), 3, key=jax.random.key(0))


# --------------------------------------------------------------------------- bad input
def test_bandwidth_zero_raises():
    with pytest.raises(ValueError, match="bandwidth must be > 0.0, got 0.0"):
        N.fit_kde(STD, bandwidth=0.0)


def test_bandwidth_negative_raises():
    with pytest.raises(ValueError, match="bandwidth must be > 0.0, got -1"):
        N.fit_kde(STD, bandwidth=-1)


def test_bandwidth_nan_raises():
    with pytest.raises(ValueError, match="bandwidth must be finite, got nan"):
        N.fit_kde(STD, bandwidth=float("nan"))


def test_bandwidth_unknown_rule_raises():
    with pytest.raises(ValueError, match=r"bandwidth must be one of \['scott', 'silverman'\], got 'normal'"):
        N.fit_kde(STD, bandwidth="normal")


def test_bad_kernel_raises():
    with pytest.raises(ValueError, match=r"kernel must be one of \['gaussian', 'tophat', .*\], got 'box'"):
        N.fit_kde(STD, kernel="box")


def test_nan_in_X_raises():
    X = STD.copy()
    X[1, 1] = np.nan
    with pytest.raises(ValueError, match="X contains 1 NaN"):
        N.fit_kde(X)


def test_score_samples_wrong_features_raises():
    with pytest.raises(ValueError, match="X has 2 features, but the model was fitted with 4 features"):
        N.score_samples(N.fit_kde(STD), STD[:, :2])


def test_cv_bandwidths_not_positive_raise():
    with pytest.raises(ValueError, match=r"bandwidths must be > 0, got \[0.5, 0.0\]"):
        N.kde_bandwidth_cv(STD, [0.5, 0.0], FOLDS)


# --------------------------------------------------------------------------- vocabulary (issue 27)
def test_sample_with_a_positional_key_is_deprecated():
    params = N.fit_kde(STD, kernel="gaussian", bandwidth=0.5)
    new = N.sample(params, 5, key=jax.random.key(2))
    with pytest.warns(DeprecationWarning, match="key=key"):
        old = N.sample(params, jax.random.key(2), 5)
    np.testing.assert_array_equal(old, new)
    np.testing.assert_array_equal(N.sample(params), N.sample(params, 1, key=jax.random.key(0)))
