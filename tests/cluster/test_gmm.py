"""Tests of jaxclassic/cluster/gmm.py and _gmm_covariance.py.

References:

* scikit-learn's ``GaussianMixture`` started from the same initial responsibilities: a
  subclass (``_SameStart``) overrides only ``_initialize_parameters`` (the method that draws
  responsibilities from ``init_params``) to hand our responsibilities to scikit-learn's own
  ``_initialize(X, resp)``, i.e. its initial M-step; everything after that is scikit-learn's
  code. Weights, means, covariances and precision Cholesky factors to 1e-4 (the issue's
  figure; observed ~1e-13 in float64: the same arithmetic up to rounding), ``n_iter``,
  ``converged``, the per-iteration lower bounds, ``score_samples``, ``bic`` and ``aic``, on
  standardised iris and wine, for every covariance type.
* scipy's ``multivariate_normal`` for the mixture density; numpy weighted moments; the
  autodiff gradient of Q, which vanishes at the closed-form M-step (the hand derivation).
* Sample weights: zero-weight rows == rows removed; integer weights == repeated rows.

Data are float64 (the root conftest turns x64 on). Shapes are shared between tests so each
program compiles once.
"""

from functools import partial

import chex
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from scipy import stats
from sklearn import datasets, mixture
from sklearn.cluster import KMeans
from sklearn.preprocessing import StandardScaler

from jaxclassic import _dispatch
from jaxclassic import cluster
from jaxclassic.cluster import _gmm_covariance as C
from jaxclassic.cluster import gmm
from jaxclassic.exceptions import ConvergenceWarning

TYPES = ("full", "tied", "diag", "spherical")
K = 3
MAX_ITER = 300  # one static value for every iris / wine fit: one compiled program per type
TOL = 1e-8      # tight, so that the comparisons run through many iterations
PARAM_TOL = 1e-4  # the figure (observed ~1e-13)
KEY = jax.random.key(0)


def _standardised(loader):
    return StandardScaler().fit_transform(loader(return_X_y=True)[0])


DATA = {"iris": _standardised(datasets.load_iris), "wine": _standardised(datasets.load_wine)}
RESP = {name: np.random.default_rng(i).dirichlet(np.ones(K), size=len(X))
        for i, (name, X) in enumerate(DATA.items())}
X_IRIS, R_IRIS = DATA["iris"], RESP["iris"]


class _SameStart(mixture.GaussianMixture):
    """scikit-learn's GaussianMixture whose initial responsibilities are given (see module)."""

    def __init__(self, resp=None, *, n_components=1, covariance_type="full", tol=1e-3,
                 reg_covar=1e-6, max_iter=100):
        super().__init__(n_components=n_components, covariance_type=covariance_type, tol=tol,
                         reg_covar=reg_covar, max_iter=max_iter)
        self.resp = resp

    def _initialize_parameters(self, X, random_state, xp=None):
        self._initialize(X, np.array(self.resp, dtype=X.dtype))


def _fit(X, resp, covariance_type, **kw):
    kw = {"max_iter": MAX_ITER, "tol": TOL, **kw}
    return cluster.fit_gmm(X, resp.shape[1], covariance_type=covariance_type, init=resp, **kw)


def _reference(X, resp, covariance_type, **kw):
    kw = {"max_iter": MAX_ITER, "tol": TOL, **kw}
    return _SameStart(resp, n_components=resp.shape[1], covariance_type=covariance_type, **kw).fit(X)


_FITS = {}


def _cached_fit(data, covariance_type):
    """Our default-regularised fit from RESP[data] (shared by several tests)."""
    if (data, covariance_type) not in _FITS:
        _FITS[data, covariance_type] = _fit(DATA[data], RESP[data], covariance_type)
    return _FITS[data, covariance_type]


def _full_covariances(params):
    """(K, d, d) covariance matrices of any covariance type."""
    cov = np.asarray(params.covariances)
    K_, d = np.shape(params.means)
    if params.covariance_type == "full":
        return cov
    if params.covariance_type == "tied":
        return np.broadcast_to(cov, (K_, d, d))
    if params.covariance_type == "diag":
        return np.stack([np.diag(c) for c in cov])
    return np.stack([c * np.eye(d) for c in cov])


# --------------------------------------------------------------------------- vs scikit-learn
@pytest.mark.full
@pytest.mark.parametrize("covariance_type", TYPES)
@pytest.mark.parametrize("data", ["iris", "wine"])
def test_equals_sklearn_from_the_same_responsibilities(data, covariance_type):
    X, resp = DATA[data], RESP[data]
    ours = _cached_fit(data, covariance_type)
    ref = _reference(X, resp, covariance_type)
    assert type(ours) is gmm.PARAMS_TYPES[covariance_type]
    for name in ("weights", "means", "covariances", "precisions_cholesky"):
        np.testing.assert_allclose(getattr(ours, name), getattr(ref, name + "_"), atol=PARAM_TOL,
                                   err_msg=name)
    assert int(ours.n_iter) == ref.n_iter_ and bool(ours.converged) == ref.converged_
    np.testing.assert_allclose(ours.lower_bound, ref.lower_bound_, atol=1e-10)
    np.testing.assert_allclose(np.asarray(ours.lower_bounds)[:int(ours.n_iter)], ref.lower_bounds_,
                               atol=1e-10)
    assert np.all(np.isneginf(np.asarray(ours.lower_bounds)[int(ours.n_iter):]))
    np.testing.assert_allclose(cluster.score_samples(ours, X), ref.score_samples(X), atol=1e-8)
    np.testing.assert_allclose(cluster.predict_proba(ours, X), ref.predict_proba(X), atol=1e-8)
    np.testing.assert_array_equal(cluster.predict(ours, X), ref.predict(X))
    np.testing.assert_allclose(gmm.score(ours, X), ref.score(X), rtol=1e-10)
    np.testing.assert_allclose(cluster.bic(ours, X), ref.bic(X), rtol=1e-10)
    np.testing.assert_allclose(cluster.aic(ours, X), ref.aic(X), rtol=1e-10)
    ref._n_parameters()  # noqa: B018 - same count as scikit-learn's
    assert gmm.n_parameters(ours) == ref._n_parameters()


@pytest.mark.full
def test_max_iter_zero_is_the_initial_m_step_as_sklearn():
    for covariance_type in ("full", "spherical"):
        ours = _fit(X_IRIS, R_IRIS, covariance_type, max_iter=0)
        ref = _reference(X_IRIS, R_IRIS, covariance_type, max_iter=0)
        assert int(ours.n_iter) == 0 and np.isneginf(float(ours.lower_bound))
        # scikit-learn divides the initial weights by n (its nk carry 10 eps each): 1e-15 apart
        for name in ("weights", "means", "covariances", "precisions_cholesky"):
            np.testing.assert_allclose(getattr(ours, name), getattr(ref, name + "_"), atol=1e-12)


# --------------------------------------------------------------------------- EM's properties
@pytest.mark.full
@pytest.mark.parametrize("covariance_type", TYPES)
def test_log_likelihood_never_decreases(covariance_type):
    # reg_covar = 0: EM's monotonicity theorem holds exactly (rounding only, 1e-12 of |L| ~ 2);
    # with the default reg_covar the M-step maximises a penalised Q whose weights move, which is
    # not guaranteed to be monotone, but on these data it is too
    for data in ("iris", "wine"):
        for params in (_fit(DATA[data], RESP[data], covariance_type, reg_covar=0.0),
                       _cached_fit(data, covariance_type)):
            bounds = np.asarray(params.lower_bounds)[:int(params.n_iter)]
            assert len(bounds) > 10
            assert np.all(np.diff(bounds) >= -1e-12), np.diff(bounds).min()


@partial(jax.jit, static_argnames="covariance_type")
def _closed_form(X, weighted_resp, shift, reg_covar, covariance_type):
    """Statistics about ``shift`` and the M-step (jitted: eager, each op compiles alone)."""
    stats_ = C.statistics(X[:, None, :] - shift[None], weighted_resp, covariance_type)
    return stats_, C.m_step(stats_, shift, reg_covar, covariance_type)


@pytest.mark.full
@pytest.mark.parametrize("covariance_type", TYPES)
def test_m_step_maximises_q(covariance_type):
    # the closed form (hand derivation) is the maximiser of Q: the autodiff gradient of Q in the
    # unconstrained parameters vanishes there, and random perturbations only lower Q
    X, resp = jnp.asarray(X_IRIS), jnp.asarray(R_IRIS)
    sw = jnp.asarray(np.random.default_rng(3).uniform(0.5, 2.0, len(X)))
    shift = jnp.asarray(np.random.default_rng(4).normal(size=(K, X.shape[1])))
    stats_, (weights, means, _, prec) = _closed_form(X, sw[:, None] * resp, shift, 1e-3, covariance_type)

    @jax.jit
    def q(theta):
        return C.objective(*C.from_unconstrained(theta, covariance_type), stats_, shift, 1e-3,
                           covariance_type)

    theta = C.to_unconstrained(weights, means, prec, covariance_type)
    grad = jax.jit(jax.grad(q))(theta)
    for name, g in grad.items():
        np.testing.assert_allclose(g, 0.0, atol=1e-10, err_msg=name)
    rng = np.random.default_rng(5)
    for _ in range(5):
        moved = jax.tree.map(lambda a: a + 0.05 * rng.normal(size=a.shape), theta)
        assert float(q(moved)) < float(q(theta))


@pytest.mark.parametrize("covariance_type", TYPES)
def test_m_step_equals_weighted_moments(covariance_type):
    # numpy's weighted moments about the new means (statistics shifted elsewhere)
    X = X_IRIS
    w = np.random.default_rng(6).uniform(0.5, 2.0, len(X))[:, None] * R_IRIS
    shift = np.random.default_rng(7).normal(size=(K, X.shape[1]))
    _, (weights, means, cov, _) = _closed_form(X, w, shift, 0.0, covariance_type)
    nk = w.sum(0)
    np.testing.assert_allclose(weights, nk / nk.sum(), rtol=1e-12)
    np.testing.assert_allclose(means, (w.T @ X) / nk[:, None], rtol=1e-10)
    scatter = np.stack([(w[:, k, None] * (X - means[k])).T @ (X - means[k]) for k in range(K)])
    expected = {"full": scatter / nk[:, None, None], "tied": scatter.sum(0) / nk.sum(),
                "diag": np.diagonal(scatter, axis1=1, axis2=2) / nk[:, None],
                "spherical": np.diagonal(scatter, axis1=1, axis2=2).mean(1) / nk}[covariance_type]
    np.testing.assert_allclose(cov, expected, rtol=1e-10, atol=1e-12)


@pytest.mark.full
@pytest.mark.parametrize("covariance_type", TYPES)
def test_score_samples_equals_scipy_mixture_density(covariance_type):
    params = _cached_fit("iris", covariance_type)
    covs = _full_covariances(params)
    dens = sum(float(w) * stats.multivariate_normal(m, c).pdf(X_IRIS)
               for w, m, c in zip(np.asarray(params.weights), np.asarray(params.means), covs))
    np.testing.assert_allclose(cluster.score_samples(params, X_IRIS), np.log(dens), rtol=1e-10)
    # precisions_cholesky is the Cholesky factor of the inverse covariance
    prec = np.asarray(params.precisions_cholesky)
    if covariance_type in ("full", "tied"):
        np.testing.assert_allclose(prec @ np.swapaxes(prec, -1, -2), np.linalg.inv(params.covariances),
                                   rtol=1e-8, atol=1e-10)
    else:
        np.testing.assert_allclose(prec**2, 1 / np.asarray(params.covariances), rtol=1e-12)


def test_predictions_dispatch_package_wide():
    params = _cached_fit("iris", "diag")
    np.testing.assert_array_equal(_dispatch.predict(params, X_IRIS), cluster.predict(params, X_IRIS))
    np.testing.assert_allclose(_dispatch.predict_proba(params, X_IRIS).sum(1), 1.0, rtol=1e-12)


# --------------------------------------------------------------------------- weights
@pytest.mark.full
def test_zero_weight_rows_have_no_influence():
    # far-away rows with weight 0 and arbitrary responsibilities == the rows removed
    extra = np.full((10, X_IRIS.shape[1]), 40.0)
    X = np.r_[X_IRIS, extra]
    resp = np.r_[R_IRIS, np.tile([1.0, 0.0, 0.0], (10, 1))]
    w = np.r_[np.ones(len(X_IRIS)), np.zeros(10)]
    for covariance_type in ("full", "spherical"):
        a = _cached_fit("iris", covariance_type)
        b = _fit(X, resp, covariance_type, sample_weight=w)
        chex.assert_trees_all_close(a, b, atol=1e-10)


@pytest.mark.full
@pytest.mark.parametrize("init", ["random", "random_from_data", "kmeans", "k-means++"])
def test_zero_weight_rows_have_no_influence_on_random_inits(init):
    # the draws for the first n rows do not depend on rows appended with weight 0
    extra = np.full((10, X_IRIS.shape[1]), 40.0)
    w = np.r_[np.ones(len(X_IRIS)), np.zeros(10)]
    a = cluster.fit_gmm(X_IRIS, K, key=KEY, init=init, covariance_type="diag", max_iter=MAX_ITER)
    b = cluster.fit_gmm(np.r_[X_IRIS, extra], K, key=KEY, init=init, covariance_type="diag",
                        max_iter=MAX_ITER, sample_weight=w)
    chex.assert_trees_all_close(a, b, atol=1e-10)
    assert bool(a.converged)


@pytest.mark.full
def test_integer_weights_equal_repeated_rows():
    counts = np.random.default_rng(8).integers(1, 4, len(X_IRIS))
    rep = np.repeat(np.arange(len(X_IRIS)), counts)
    for covariance_type in ("full", "tied"):
        a = _fit(X_IRIS, R_IRIS, covariance_type, sample_weight=counts.astype(float))
        b = _fit(X_IRIS[rep], R_IRIS[rep], covariance_type)
        for name in ("weights", "means", "covariances", "precisions_cholesky", "lower_bound"):
            np.testing.assert_allclose(getattr(a, name), getattr(b, name), atol=1e-9, err_msg=name)
        assert int(a.n_iter) == int(b.n_iter)
        np.testing.assert_allclose(cluster.bic(a, X_IRIS, sample_weight=counts), cluster.bic(b, X_IRIS[rep]),
                                   rtol=1e-10)


# --------------------------------------------------------------------------- generalised EM
BLOBS, BLOB_LABELS = datasets.make_blobs(200, 2, centers=3, cluster_std=0.6, random_state=0)
# well separated: start near k-means (half its one-hot labels, half random responsibilities)
R_BLOBS = (0.5 * np.eye(K)[KMeans(K, n_init=1, random_state=0).fit(BLOBS).labels_]
           + 0.5 * np.random.default_rng(9).dirichlet(np.ones(K), size=len(BLOBS)))


@pytest.mark.full
@pytest.mark.parametrize("covariance_type", TYPES)
def test_generalised_em_never_decreases_and_reaches_em_optimum(covariance_type):
    exact = _fit(BLOBS, R_BLOBS, covariance_type, tol=1e-10)
    gem = _fit(BLOBS, R_BLOBS, covariance_type, tol=1e-10, m_step="gradient", m_step_iter=3)
    bounds = np.asarray(gem.lower_bounds)[:int(gem.n_iter)]
    assert np.all(np.diff(bounds) >= -1e-12)
    assert bool(gem.converged) and bool(exact.converged)
    # both at the same stationary point; GEM's steps are partial, so it takes at least as long
    assert int(gem.n_iter) >= int(exact.n_iter)
    np.testing.assert_allclose(gem.lower_bound, exact.lower_bound, atol=1e-9)
    for name in ("weights", "means", "covariances"):
        np.testing.assert_allclose(getattr(gem, name), getattr(exact, name), atol=1e-5, err_msg=name)


# --------------------------------------------------------------------------- restarts, jit, vmap
def test_n_init_vmapped_equals_loop_and_keeps_best_bound():
    kw = dict(key=KEY, init="random", covariance_type="diag", max_iter=MAX_ITER)
    best = cluster.fit_gmm(X_IRIS, K, n_init=4, **kw)
    kw.pop("key")
    singles = [cluster.fit_gmm(X_IRIS, K, key=k, **kw) for k in jax.random.split(KEY, 4)]
    bounds = [float(s.lower_bound) for s in singles]
    assert len(set(np.round(bounds, 6))) > 1  # the restarts differ
    chex.assert_trees_all_close(best, singles[int(np.argmax(bounds))], atol=1e-10)


@pytest.mark.full
def test_jit_equals_eager_vmap_equals_loop_no_retrace():
    fit = lambda X, w, tol, reg: cluster.fit_gmm(  # noqa: E731
        X, K, init=R_IRIS, covariance_type="full", max_iter=MAX_ITER, tol=tol, reg_covar=reg,
        sample_weight=w)
    ones = np.ones(len(X_IRIS))
    eager = _cached_fit("iris", "full")
    chex.assert_trees_all_close(jax.jit(fit)(X_IRIS, ones, TOL, 1e-6), eager, atol=1e-10)
    weights = np.random.default_rng(10).uniform(0.0, 2.0, (3, len(X_IRIS)))
    batched = jax.vmap(fit, in_axes=(None, 0, None, None))(X_IRIS, weights, TOL, 1e-6)
    for b, w in enumerate(weights):
        chex.assert_trees_all_close(jax.tree.map(lambda a: a[b], batched), fit(X_IRIS, w, TOL, 1e-6),
                                    atol=1e-8)
    # new values of X, tol and reg_covar (traced): the compiled program is reused
    before = gmm._fit_gmm._cache_size()
    fit(X_IRIS[::-1].copy(), ones, 1e-5, 1e-4)
    assert gmm._fit_gmm._cache_size() == before


@pytest.mark.full
def test_row_tiles_equal_one_block(monkeypatch):
    # a budget of 16 rows a tile: the EM pass scans 10 tiles (the last one padded with
    # zero-weight rows), predictions map over row tiles; both equal the one-block results
    from jaxclassic import _tiling
    from jaxclassic.cluster import _gmm_em

    row_bytes = 3 * K * X_IRIS.shape[1] * 8
    monkeypatch.setattr(_gmm_em, "CPU_TILE_BYTES", 16 * row_bytes)
    monkeypatch.setattr(_tiling, "MEMORY_BUDGET", 16 * row_bytes)
    assert _gmm_em.tile_rows(len(X_IRIS), K, X_IRIS.shape[1], np.float64) == 16
    tiled = _fit(X_IRIS, R_IRIS, "full")
    chex.assert_trees_all_close(tiled, _cached_fit("iris", "full"), atol=1e-10)
    rows = X_IRIS[:37]  # a shape not compiled before: its prediction program sees the budget
    covs = _full_covariances(tiled)
    dens = sum(float(w) * stats.multivariate_normal(m, c).pdf(rows)
               for w, m, c in zip(np.asarray(tiled.weights), np.asarray(tiled.means), covs))
    np.testing.assert_allclose(cluster.score_samples(tiled, rows), np.log(dens), rtol=1e-10)


def test_float32_keeps_dtype_and_is_close_to_float64():
    X32 = X_IRIS.astype(np.float32)
    p32 = _fit(X32, R_IRIS, "full", tol=1e-3)
    p64 = _fit(X_IRIS, R_IRIS, "full", tol=1e-3)
    assert p32.means.dtype == jnp.float32 and p32.covariances.dtype == jnp.float32
    assert cluster.score_samples(p32, X32).dtype == jnp.float32
    assert int(p32.n_iter) == int(p64.n_iter)
    np.testing.assert_allclose(p32.means, p64.means, atol=1e-3)
    np.testing.assert_allclose(p32.covariances, p64.covariances, atol=1e-3)


def test_not_converged_warns():
    with pytest.warns(ConvergenceWarning, match="did not converge in max_iter=2"):
        params = _fit(X_IRIS, R_IRIS, "spherical", max_iter=2)
    assert not bool(params.converged) and int(params.n_iter) == 2


# --------------------------------------------------------------------------- sampling
@pytest.mark.parametrize("covariance_type", TYPES)
def test_sample_moments_match_the_mixture(covariance_type):
    params = _cached_fit("iris", covariance_type)
    n = 20_000
    Xs, labels = cluster.sample(params, n, key=jax.random.key(1))
    Xs, labels = np.asarray(Xs), np.asarray(labels)
    assert Xs.shape == (n, X_IRIS.shape[1]) and labels.dtype == np.int32
    weights = np.asarray(params.weights)
    counts = np.bincount(labels, minlength=K)
    assert stats.chisquare(counts, n * weights).pvalue > 1e-3
    for k, cov in enumerate(_full_covariances(params)):
        rows = Xs[labels == k]
        se = np.sqrt(np.diag(cov) / len(rows))
        assert np.all(np.abs(rows.mean(0) - np.asarray(params.means)[k]) < 5 * se)
        # sample covariance: sd of an entry ~ sqrt((s_ii s_jj + s_ij^2) / m)
        sd = np.sqrt((np.outer(np.diag(cov), np.diag(cov)) + cov**2) / len(rows))
        assert np.all(np.abs(np.cov(rows.T) - cov) < 5 * sd)
    again, _ = cluster.sample(params, n, key=jax.random.key(1))
    np.testing.assert_array_equal(again, Xs)  # same key, same draws


# --------------------------------------------------------------------------- degenerate input
def test_collapsed_component_stays_finite_with_reg_covar():
    # one component starts on a single far-away point: its covariance is reg_covar * I
    X = np.r_[X_IRIS, np.full((1, 4), 25.0)]
    resp = np.r_[R_IRIS * [1.0, 1.0, 0.0], [[0.0, 0.0, 1.0]]]
    resp /= resp.sum(1, keepdims=True)
    params = _fit(X, resp, "full", reg_covar=1e-6)
    assert bool(jnp.all(jnp.isfinite(params.covariances))) and np.isfinite(float(params.lower_bound))
    np.testing.assert_allclose(params.covariances[2], 1e-6 * np.eye(4), atol=1e-12)
    np.testing.assert_allclose(params.means[2], 25.0)
    np.testing.assert_allclose(params.weights[2], 1 / len(X), rtol=1e-9)
    with pytest.raises(ValueError, match="ill-defined empirical covariance"):
        _fit(X, resp, "full", reg_covar=0.0)


@pytest.mark.full
def test_constant_data_and_duplicates_give_finite_fits():
    X = np.ones((20, 2))
    params = cluster.fit_gmm(X, 2, key=KEY, init="random", covariance_type="full")
    np.testing.assert_allclose(params.means, 1.0, atol=1e-12)
    np.testing.assert_allclose(params.covariances, np.broadcast_to(1e-6 * np.eye(2), (2, 2, 2)), rtol=1e-6)
    assert np.all(np.isfinite(np.asarray(cluster.score_samples(params, X))))
    # duplicated rows == weight 2
    a = _fit(np.r_[X_IRIS, X_IRIS], np.r_[R_IRIS, R_IRIS], "diag")
    b = _fit(X_IRIS, R_IRIS, "diag", sample_weight=np.full(len(X_IRIS), 2.0))
    np.testing.assert_allclose(a.means, b.means, atol=1e-10)
    np.testing.assert_allclose(a.covariances, b.covariances, atol=1e-10)


# --------------------------------------------------------------------------- bad input
X_SMALL = X_IRIS[:5]


@pytest.mark.parametrize("kwargs, error, message", [
    (dict(n_components=0), ValueError, "n_components must be >= 1, got 0"),
    (dict(n_components=6), ValueError, r"n_components must be <= the number of rows of positive weight \(5\), got 6"),
    (dict(n_components=3, sample_weight=[1, 1, 0, 0, 0]), ValueError, r"positive weight \(2\), got 3"),
    (dict(n_components=2.0), TypeError, "n_components must be an int"),
    (dict(covariance_type="block"), ValueError, "covariance_type must be one of"),
    (dict(reg_covar=-1e-6), ValueError, "reg_covar must be >= 0.0, got -1e-06"),
    (dict(tol=-1.0), ValueError, "tol must be >= 0.0, got -1.0"),
    (dict(max_iter=-1), ValueError, "max_iter must be >= 0, got -1"),
    (dict(n_init=0), ValueError, "n_init must be >= 1, got 0"),
    (dict(init="kmeans+"), ValueError, "init must be one of"),
    (dict(init=np.ones((5, 3))), ValueError, r"init responsibilities must have shape \(5, 2\)"),
    (dict(init=-np.ones((5, 2))), ValueError, "init responsibilities must be non-negative"),
    (dict(key=0), TypeError, "key must be a jax.random key, got int 0"),
    (dict(m_step="newton"), ValueError, "m_step must be one of"),
])
def test_bad_hyperparameters(kwargs, error, message):
    kw = dict(n_components=2, key=KEY, init="random")
    kw.update(kwargs)
    with pytest.raises(error, match=message):
        cluster.fit_gmm(X_SMALL, **kw)


def test_bad_data():
    with pytest.raises(ValueError, match="X contains 1 NaN"):
        cluster.fit_gmm(np.r_[X_SMALL, [[np.nan, 0, 0, 0]]], 2, key=KEY)
    with pytest.raises(ValueError, match="sample_weight must be non-negative"):
        cluster.fit_gmm(X_SMALL, 2, key=KEY, sample_weight=[1, -1, 1, 1, 1])
    params = _cached_fit("iris", "full")
    with pytest.raises(ValueError, match="X has 3 features, but the model was fitted with 4"):
        cluster.predict(params, X_SMALL[:, :3])
    with pytest.raises(ValueError, match="X contains 1 NaN"):
        cluster.score_samples(params, np.r_[X_SMALL, [[np.nan, 0, 0, 0]]])
    with pytest.raises(ValueError, match="n_samples must be >= 1, got 0"):
        cluster.sample(params, 0, key=KEY)
    with pytest.raises(TypeError, match="params must be the result of fit_gmm"):
        cluster.bic(tuple(params), X_SMALL)


# --------------------------------------------------------------------------- vocabulary (issue 27)
def test_key_defaults_to_key_0_and_a_positional_sample_key_is_deprecated():
    params = _cached_fit("iris", "diag")
    new = cluster.sample(params, 5, key=jax.random.key(2))
    with pytest.warns(DeprecationWarning, match="key=key"):
        old = cluster.sample(params, 5, jax.random.key(2))
    chex.assert_trees_all_equal(old, new)
    chex.assert_trees_all_equal(cluster.sample(params), cluster.sample(params, 1, key=KEY))
    chex.assert_trees_all_equal(cluster.fit_gmm(X_IRIS, 2, max_iter=3, tol=1.0),
                                cluster.fit_gmm(X_IRIS, 2, max_iter=3, tol=1.0, key=KEY))
    assert cluster.GMMParams is gmm.GMMParams and "FullGMMParams" in cluster.__all__
