"""Tests of jaxclassic/cluster/kmeans.py.

References: scikit-learn's ``KMeans(algorithm="lloyd")`` started from the same centres
(centres, labels, inertia and ``n_iter`` to 1e-5 in float64; the same arithmetic up to
rounding, so in practice ~1e-12), exact k-means++ probabilities computed by hand in numpy
against the frequencies of 20,000 seeded draws (chi-square), and the hand gradient of the
inertia in the centres. Data are float64 (the root conftest turns x64 on); float32 is
checked to keep its dtype.
"""

from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from scipy import stats
from sklearn.cluster import KMeans

from jaxclassic import cluster
from jaxclassic.cluster import kmeans as K
from jaxclassic.exceptions import ConvergenceWarning

RNG = np.random.default_rng(0)
CENTRES = np.array([[0.0, 0.0, 0.0], [3.0, 3.0, 0.0], [0.0, 3.5, 3.5]])
X = np.concatenate([RNG.normal(size=(30, 3)) + c for c in CENTRES])  # (90, 3), 3 blobs
W = RNG.uniform(0.2, 3.0, size=X.shape[0])
KEY = jax.random.key(0)


def _sk(init, tol, sample_weight=None, max_iter=300):
    return KMeans(len(init), init=init, n_init=1, algorithm="lloyd", tol=tol,
                  max_iter=max_iter).fit(X, sample_weight=sample_weight)


def _assert_equal_sklearn(ours, ref):
    np.testing.assert_allclose(ours.cluster_centers, ref.cluster_centers_, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(ours.labels, ref.labels_)
    np.testing.assert_allclose(ours.inertia, ref.inertia_, rtol=1e-5)
    assert int(ours.n_iter) == ref.n_iter_


# --------------------------------------------------------------------------- vs scikit-learn
# k = 2..7 all run the bucket's program of 8 slots (cluster_capacity), the slots past k inactive
@pytest.mark.parametrize("rows, tol", [([0, 1, 2], 1e-4), ([0, 1, 2], 0.0), ([5, 40, 70], 1e-4),
                                       ([0, 3, 6, 9, 12], 1e-4), ([0, 3, 6, 9, 12], 0.0),
                                       ([0, 40], 1e-4), ([0, 10, 20, 35, 50, 65, 80], 0.0)])
def test_equals_sklearn_lloyd_from_the_same_centres(rows, tol):
    init = X[rows]
    ours = K.fit_kmeans(X, len(rows), key=KEY, init=init, tol=tol)
    _assert_equal_sklearn(ours, _sk(init, tol))
    assert bool(ours.converged)


def test_equals_sklearn_with_sample_weight():
    # tol=0: both stop on unchanged labels (scikit-learn scales tol by the unweighted variance,
    # we by the weighted one, so a positive tol would stop them at different shifts)
    init = X[[0, 3, 6, 9]]
    _assert_equal_sklearn(K.fit_kmeans(X, 4, key=KEY, init=init, tol=0.0, sample_weight=W),
                          _sk(init, 0.0, sample_weight=W))


def test_empty_cluster_relocation_equals_sklearn():
    # a centre far from every row receives none in the first assignment: both libraries move
    # it onto the row farthest from its centre
    init = np.concatenate([X[[0, 40]], [[50.0, 50.0, 50.0]]])
    _assert_equal_sklearn(K.fit_kmeans(X, 3, key=KEY, init=init, tol=0.0), _sk(init, 0.0))


def test_max_iter_reached_equals_sklearn_and_is_not_converged():
    init = X[[0, 3, 6, 9, 12]]
    ours = K.fit_kmeans(X, 5, key=KEY, init=init, tol=0.0, max_iter=2)
    _assert_equal_sklearn(ours, _sk(init, 0.0, max_iter=2))
    assert not bool(ours.converged)


@pytest.mark.full
def test_kmeans_plusplus_runs_find_sklearns_optimum_on_blobs():
    # independent seeds, same well-separated optimum: inertia within rounding
    ours = K.fit_kmeans(X, 3, key=KEY, n_init=4, n_local_trials="auto")
    ref = KMeans(3, n_init=4, random_state=0).fit(X)
    np.testing.assert_allclose(ours.inertia, ref.inertia_, rtol=1e-10)


# --------------------------------------------------------------------------- Lloyd's descent
def _inertia(Xc, sw, centres):
    d = ((Xc[:, None, :] - centres[None, :, :]) ** 2).sum(-1)
    return float((sw * d.min(axis=1)).sum())


@pytest.mark.parametrize("relocate", [False, True])
def test_inertia_never_increases_at_any_iteration(relocate):
    # the solver's step function run by hand; the inertia of the centres after every step
    # (numpy, exact differences) must not increase
    sw = jnp.asarray(W)
    centres = X[[0, 1, 2, 3, 4, 5, 6, 7]]
    if relocate:
        centres = centres.copy()
        centres[3] = 40.0
    active = jnp.ones(8, bool)
    state = (jnp.asarray(centres), jnp.full(96, -1, jnp.int32))
    tiles = K._make_tiles(jnp.asarray(X), sw, 32)  # 3 tiles, the last one padded
    step = jax.jit(partial(K._lloyd_step, tiles=tiles, active=active, batched=False))
    history = [_inertia(X, W, centres)]
    for _ in range(30):
        state, error = step(state)
        history.append(_inertia(X, W, np.asarray(state[0])))
        if float(error) == 0.0:
            break
    assert len(history) > 4
    assert all(b <= a * (1 + 1e-12) for a, b in zip(history, history[1:])), history
    if relocate:
        assert history[1] < history[0] / 2  # the far centre was moved onto a row


@pytest.mark.full
def test_gradient_of_inertia_equals_hand_derivation_and_vanishes_at_the_fit():
    # J(c) = sum_i s_i min_j |x_i - c_j|^2;  dJ/dc_j = 2 sum_{l_i = j} s_i (c_j - x_i)
    def inertia(c):
        d = ((X[:, None, :] - c[None, :, :]) ** 2).sum(-1)
        return jnp.sum(W * jnp.min(d, axis=1))

    c = jnp.asarray(X[[0, 30, 60]] + 0.3)
    labels = np.argmin(((X[:, None, :] - np.asarray(c)[None]) ** 2).sum(-1), axis=1)
    hand = np.stack([2 * (W[labels == j, None] * (np.asarray(c)[j] - X[labels == j])).sum(0)
                     for j in range(3)])
    np.testing.assert_allclose(jax.grad(inertia)(c), hand, rtol=1e-12)
    fitted = K.fit_kmeans(X, 3, key=KEY, sample_weight=W, tol=0.0)
    np.testing.assert_allclose(jax.grad(inertia)(fitted.cluster_centers), 0.0, atol=1e-10)


# --------------------------------------------------------------------------- k-means++ draws
def test_kmeans_plusplus_first_two_centres_follow_weight_then_d_squared():
    # exact probabilities: P(first = i) = w_i / W; P(second = j | first = i) = w_j D_ij^2 / sum_k w_k D_ik^2
    pts = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 2.0], [3.0, 3.0], [-1.0, 1.0]])
    w = np.array([1.0, 2.0, 0.5, 1.0, 1.5])
    d2 = ((pts[:, None] - pts[None]) ** 2).sum(-1)
    joint = (w / w.sum())[:, None] * (w[None, :] * d2) / (w[None, :] * d2).sum(1, keepdims=True)
    n_draws = 20_000
    keys = jax.random.split(jax.random.key(7), n_draws)
    draw = jax.jit(jax.vmap(lambda k: K._plusplus_indices(jnp.asarray(pts), jnp.asarray(w), k,
                                                          n_clusters=2, n_local_trials=1)))
    idx = np.asarray(draw(keys))
    counts = np.zeros((5, 5))
    np.add.at(counts, (idx[:, 0], idx[:, 1]), 1)
    assert counts[np.eye(5, dtype=bool)].sum() == 0  # D = 0: never the same row twice
    cells = ~np.eye(5, dtype=bool)
    _, p_joint = stats.chisquare(counts[cells], n_draws * joint[cells])
    _, p_first = stats.chisquare(counts.sum(1), n_draws * w / w.sum())
    assert p_joint > 1e-3 and p_first > 1e-3, (p_joint, p_first)


def test_kmeans_plusplus_public_returns_rows_and_never_draws_zero_weight():
    w = np.ones(X.shape[0])
    w[::2] = 0.0
    centres, idx = cluster.kmeans_plusplus(X, 6, key=KEY, sample_weight=w, n_local_trials="auto")
    assert np.all(np.asarray(idx) % 2 == 1) and len(set(np.asarray(idx).tolist())) == 6
    np.testing.assert_array_equal(centres, X[np.asarray(idx)])


# --------------------------------------------------------------------------- weights
@pytest.mark.full
@pytest.mark.parametrize("init, trials", [("k-means++", None), ("k-means++", "auto"), ("random", None)])
def test_zero_weight_rows_have_no_influence(init, trials):
    extra = RNG.normal(scale=5.0, size=(10, 3))
    positions = np.sort(RNG.choice(X.shape[0] + 10, size=10, replace=False))
    keep = np.setdiff1d(np.arange(X.shape[0] + 10), positions)
    Xz = np.empty((X.shape[0] + 10, 3))
    Xz[keep], Xz[positions] = X, extra
    wz = np.zeros(X.shape[0] + 10)
    wz[keep] = W
    kwargs = dict(key=KEY, init=init, n_init=3, n_local_trials=trials)
    ref = K.fit_kmeans(X, 4, sample_weight=W, **kwargs)
    ours = K.fit_kmeans(Xz, 4, sample_weight=wz, **kwargs)
    np.testing.assert_allclose(ours.cluster_centers, ref.cluster_centers, rtol=1e-10)
    np.testing.assert_allclose(ours.inertia, ref.inertia, rtol=1e-10)
    np.testing.assert_array_equal(np.asarray(ours.labels)[keep], ref.labels)
    assert int(ours.n_iter) == int(ref.n_iter)


@pytest.mark.full
def test_integer_weights_equal_repeated_rows_from_the_same_centres():
    counts = RNG.integers(1, 4, size=X.shape[0])
    init = X[[0, 3, 6]]
    ours = K.fit_kmeans(X, 3, key=KEY, init=init, sample_weight=counts.astype(float), tol=0.0)
    ref = K.fit_kmeans(np.repeat(X, counts, axis=0), 3, key=KEY, init=init, tol=0.0)
    np.testing.assert_allclose(ours.cluster_centers, ref.cluster_centers, rtol=1e-10)
    np.testing.assert_allclose(ours.inertia, ref.inertia, rtol=1e-10)


# --------------------------------------------------------------------------- restarts, elbow
def test_restarts_keep_the_lowest_inertia_of_the_split_keys():
    # restart r of n_init is the single run with key split(key, n_init)[r]
    best = K.fit_kmeans(X, 5, key=KEY, init="random", n_init=4)
    runs = [K.fit_kmeans(X, 5, key=k, init="random") for k in jax.random.split(KEY, 4)]
    inertias = [float(r.inertia) for r in runs]
    assert len(set(np.round(inertias, 8))) > 1  # the restarts differ
    kept = runs[int(np.argmin(inertias))]
    np.testing.assert_allclose(best.inertia, min(inertias), rtol=1e-12)
    np.testing.assert_allclose(best.cluster_centers, kept.cluster_centers, rtol=1e-12)
    assert int(best.n_iter) == int(kept.n_iter)


@pytest.mark.full
def test_elbow_equals_separate_fits():
    ks = [1, 2, 3, 5]
    elbow = cluster.kmeans_elbow(X, ks, key=KEY, sample_weight=W)
    for j, k in enumerate(ks):
        fit = K.fit_kmeans(X, k, key=KEY, sample_weight=W)
        np.testing.assert_allclose(elbow.inertia[j], fit.inertia, rtol=1e-10)
        assert int(elbow.n_iter[j]) == int(fit.n_iter)
    assert np.all(np.diff(np.asarray(elbow.inertia)) < 0)


# --------------------------------------------------------------------------- predict, dtype
def test_predict_and_transform():
    params = K.fit_kmeans(X, 3, key=KEY)
    np.testing.assert_array_equal(cluster.predict(params, X), params.labels)
    d = np.sqrt(((X[:, None] - np.asarray(params.cluster_centers)[None]) ** 2).sum(-1))
    np.testing.assert_allclose(K.transform(params, X), d, rtol=1e-10)


def test_float32_input_keeps_float32():
    # from the same centres to convergence (tol=0), the same partition: float32 rounding apart
    init = X[[0, 3, 6]]
    params = K.fit_kmeans(X.astype(np.float32), 3, key=KEY, init=init.astype(np.float32), tol=0.0)
    ref = K.fit_kmeans(X, 3, key=KEY, init=init, tol=0.0)
    assert params.cluster_centers.dtype == jnp.float32 and params.inertia.dtype == jnp.float32
    np.testing.assert_array_equal(params.labels, ref.labels)
    np.testing.assert_allclose(params.inertia, ref.inertia, rtol=1e-5)
    np.testing.assert_allclose(params.cluster_centers, ref.cluster_centers, atol=1e-5)


# --------------------------------------------------------------------------- transformations
@pytest.mark.full
def test_jit_equals_eager_and_vmap_over_keys_equals_loop():
    fit = partial(K.fit_kmeans, n_clusters=3, n_init=2)
    eager = fit(X, key=KEY)
    jitted = jax.jit(fit)(jnp.asarray(X), key=KEY)
    jax.tree_util.tree_map(lambda a, b: np.testing.assert_allclose(a, b, rtol=1e-12), eager, jitted)
    keys = jax.random.split(jax.random.key(3), 3)
    batched = jax.vmap(lambda k: fit(jnp.asarray(X), key=k))(keys)
    for i, k in enumerate(keys):
        one = fit(X, key=k)
        np.testing.assert_allclose(batched.inertia[i], one.inertia, rtol=1e-12)
        np.testing.assert_allclose(batched.cluster_centers[i], one.cluster_centers, rtol=1e-12)


def test_a_bucket_program_equals_the_exact_k_program_to_the_bit(monkeypatch):
    # k = 2, 3, 5 share the program of 8 slots (k-means++ with "auto": 4 candidates drawn a
    # step, the first 2, 3, 3 used); with the capacity patched to k, each k gets its own program,
    # which is the fit before issue 25's buckets. Sample weights, restarts, and an empty cluster
    # relocated (the far centre of the init array) included.
    far = np.concatenate([X[[0, 40, 70]], [[50.0, 50.0, 50.0]]])
    cases = [(k, dict(n_init=2, n_local_trials="auto", sample_weight=W)) for k in (2, 3, 5)]
    cases += [(3, dict(init="random", n_init=3)), (4, dict(init=far, tol=0.0))]
    padded = [K.fit_kmeans(X, k, key=KEY, **kw) for k, kw in cases]
    assert K.cluster_capacity(5) == 8
    monkeypatch.setattr(K, "cluster_capacity", lambda k: k)
    for (k, kw), ours in zip(cases, padded):
        exact = K.fit_kmeans(X, k, key=KEY, **kw)
        assert ours.cluster_centers.shape == exact.cluster_centers.shape == (k, 3)
        for name, a, b in zip(ours._fields, ours, exact):
            np.testing.assert_array_equal(np.asarray(a), np.asarray(b), err_msg=f"k={k} {name}")


def test_n_clusters_past_the_rows_of_a_small_fit():
    # 8 slots for 3 rows: the relocation's top-k takes at most the rows
    ours = K.fit_kmeans(X[:3], 3, key=KEY)
    np.testing.assert_array_equal(np.sort(np.asarray(ours.labels)), [0, 1, 2])
    assert float(ours.inertia) == 0.0


def test_second_call_does_not_retrace():
    K.fit_kmeans(X, 3, key=KEY, tol=1e-4)
    before = K._fit._cache_size()
    K.fit_kmeans(X + 1.0, 3, key=jax.random.key(5), tol=1e-3, sample_weight=W)  # traced tol, key, weights
    assert K._fit._cache_size() == before


# --------------------------------------------------------------------------- bad input
def test_n_clusters_below_one():
    with pytest.raises(ValueError, match="n_clusters must be >= 1, got 0"):
        K.fit_kmeans(X, 0, key=KEY)


def test_n_clusters_above_the_number_of_rows():
    with pytest.raises(ValueError, match=r"n_clusters=91 must be <= n_samples=90"):
        K.fit_kmeans(X, 91, key=KEY)


def test_n_clusters_above_the_rows_of_positive_weight():
    w = np.zeros(X.shape[0])
    w[:2] = 1.0
    with pytest.raises(ValueError, match=r"n_clusters=3 must be <= n_samples=2 \(the number of rows of positive weight\)"):
        K.fit_kmeans(X, 3, key=KEY, sample_weight=w)


def test_nan_in_X():
    Xn = X.copy()
    Xn[4, 1] = np.nan
    with pytest.raises(ValueError, match="X contains 1 NaN"):
        K.fit_kmeans(Xn, 3, key=KEY)


def test_init_array_of_wrong_shape():
    with pytest.raises(ValueError, match=r"init must have shape \(n_clusters, n_features\) = \(3, 3\), got \(2, 3\)"):
        K.fit_kmeans(X, 3, key=KEY, init=X[:2])


def test_unknown_init_method():
    with pytest.raises(ValueError, match=r"init must be one of \['k-means\+\+', 'random'\], got 'kmeans'"):
        K.fit_kmeans(X, 3, key=KEY, init="kmeans")


def test_int_key():
    with pytest.raises(TypeError, match="key must be a jax.random key, got int 0"):
        K.fit_kmeans(X, 3, key=0)


def test_negative_tol():
    with pytest.raises(ValueError, match="tol must be >= 0.0, got -1"):
        K.fit_kmeans(X, 3, key=KEY, tol=-1)


def test_init_array_with_several_restarts_warns_and_runs_once():
    with pytest.warns(RuntimeWarning, match="running once instead of n_init=3"):
        p = K.fit_kmeans(X, 3, key=KEY, init=X[[0, 30, 60]], n_init=3)
    _assert_equal_sklearn(p, _sk(X[[0, 30, 60]], 1e-4))


def test_constant_data_gives_coinciding_centres_and_zero_inertia():
    # documented: fewer distinct points than clusters -> duplicated centres, inertia 0, a warning
    Xc = np.full((12, 2), 3.0)
    with pytest.warns(ConvergenceWarning, match=r"Number of distinct clusters \(1\) found smaller than n_clusters \(3\)"):
        p = K.fit_kmeans(Xc, 3, key=KEY)
    np.testing.assert_array_equal(p.cluster_centers, np.full((3, 2), 3.0))
    np.testing.assert_array_equal(p.labels, 0)
    assert float(p.inertia) == 0.0 and bool(p.converged)


def test_duplicate_points_fewer_distinct_than_clusters():
    Xd = np.repeat(np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 5.0]]), 4, axis=0)
    with pytest.warns(ConvergenceWarning, match=r"\(3\) found smaller than n_clusters \(4\)"):
        p = K.fit_kmeans(Xd, 4, key=KEY)
    assert float(p.inertia) == 0.0
    assert {tuple(r) for r in np.asarray(p.cluster_centers).tolist()} == {(0.0, 0.0), (1.0, 0.0), (0.0, 5.0)}


def test_elbow_with_an_empty_range():
    with pytest.raises(ValueError, match="n_clusters must hold at least one value"):
        cluster.kmeans_elbow(X, [], key=KEY)


# --------------------------------------------------------------------------- vocabulary (issue 27)
def test_key_defaults_to_key_0():
    np.testing.assert_array_equal(K.fit_kmeans(X, 3).cluster_centers,
                                  K.fit_kmeans(X, 3, key=KEY).cluster_centers)
    np.testing.assert_array_equal(K.kmeans_plusplus(X, 3)[1], K.kmeans_plusplus(X, 3, key=KEY)[1])
    np.testing.assert_array_equal(K.kmeans_elbow(X, [1, 2, 3]).inertia,
                                  K.kmeans_elbow(X, [1, 2, 3], key=KEY).inertia)
