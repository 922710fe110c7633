"""Tests of jaxclassic/graphical/hmm.py and hmm_fit.py.

References:

* hmmlearn 0.3.3 (``CategoricalHMM``, ``GaussianHMM``, ``implementation="log"``) started
  from the same parameters (``init_params=""``): ``score`` (log-likelihood) to 1e-6,
  ``predict_proba`` (gamma) to 1e-6, Viterbi paths identical, Baum--Welch parameters after
  ``K_ITER`` iterations to 1e-5 and its per-iteration log-likelihoods to 1e-6 (the issue's
  figures; observed ~1e-14 in float64: the same arithmetic up to rounding). Gaussian fits use
  hmmlearn's ``covars_prior=0`` and our ``reg_covar=0`` (the module says why).
* Brute-force enumeration of all K^T state paths on short sequences (forward, gamma, xi,
  Viterbi), to 1e-12 (float64 sums of a few hundred terms).
* The EM identity: the autodiff gradient of log p(x) through the forward pass in the log
  parameters equals the expected counts (d/d log A_ij = sum_t xi_t(i, j); d/d log pi_i =
  gamma_0(i); d/d log B_jm = sum_t gamma_t(j)[x_t = m]), to 1e-10.
* Weights: zero-weight sequences == sequences removed; integer weights == repeated sequences.

Data are float64 (the root conftest turns x64 on); shapes are shared so each program compiles
once.
"""

import itertools

import chex
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxclassic.exceptions import ConvergenceWarning
from jaxclassic.graphical import fit_hmm, hmm
from jaxclassic.graphical import hmm_fit

H = pytest.importorskip("hmmlearn.hmm")

K, M, D = 3, 4, 2
LENGTHS = [7, 1, 12, 5]
N = sum(LENGTHS)
K_ITER = 5
RNG = np.random.default_rng(0)
PI = RNG.dirichlet(np.ones(K))
A = RNG.dirichlet(np.ones(K), K)
B = RNG.dirichlet(np.ones(M), K)
X_CAT = RNG.integers(0, M, N)
X_GAUSS = RNG.normal(size=(N, D)) + np.repeat([0.0, 3.0, -2.0, 1.0], LENGTHS)[:, None]
MEANS = np.array([[0.0, 0.0], [3.0, 3.0], [-2.0, 1.0]])
COVARS = {"diag": RNG.uniform(0.5, 2.0, (K, D)),
          "full": np.stack([np.eye(D) + 0.3 * np.ones((D, D)), np.eye(D) * 2.0,
                            [[1.0, -0.4], [-0.4, 0.8]]]),
          "tied": np.array([[1.2, 0.2], [0.2, 0.9]]),
          "spherical": RNG.uniform(0.5, 2.0, K)}
TYPES = ("diag", "full", "tied", "spherical")
CAT = hmm.categorical_hmm(PI, A, B)


def _gauss(ct):
    return hmm.gaussian_hmm(PI, A, MEANS, COVARS[ct], ct)


def _ref_cat(n_iter=K_ITER):
    ref = H.CategoricalHMM(K, init_params="", n_iter=n_iter, tol=0.0, implementation="log")
    ref.startprob_, ref.transmat_, ref.emissionprob_ = PI, A, B
    return ref


def _ref_gauss(ct, n_iter=K_ITER):
    ref = H.GaussianHMM(K, covariance_type=ct, init_params="", n_iter=n_iter, tol=0.0,
                        covars_prior=0.0, implementation="log")
    ref.startprob_, ref.transmat_, ref.means_, ref.covars_ = PI, A, MEANS, COVARS[ct]
    return ref


def _full_covars(params):
    """Our covariances in hmmlearn's ``covars_`` layout, (K, d, d)."""
    c, ct = np.asarray(params.covars), params.covariance_type
    eye = np.eye(params.means.shape[1])
    if ct == "full":
        return c
    if ct == "tied":
        return np.broadcast_to(c, (K,) + c.shape)
    return (c[:, :, None] if ct == "diag" else c[:, None, None]) * eye


def _sequences(X):
    return np.split(X, np.cumsum(LENGTHS)[:-1])


# --------------------------------------------------------------------------- = hmmlearn
@pytest.mark.full
def test_log_likelihood_equals_hmmlearn_categorical():
    ref = _ref_cat()
    ours = float(hmm.log_likelihood(CAT, X_CAT, LENGTHS))
    assert ours == pytest.approx(ref.score(X_CAT[:, None], LENGTHS), abs=1e-6)
    for x in _sequences(X_CAT):
        assert float(hmm.forward(CAT, x)[1]) == pytest.approx(ref.score(x[:, None]), abs=1e-6)


@pytest.mark.full
@pytest.mark.parametrize("ct", TYPES)
def test_log_likelihood_equals_hmmlearn_gaussian(ct):
    ref = _ref_gauss(ct)
    ours = float(hmm.log_likelihood(_gauss(ct), X_GAUSS, LENGTHS))
    assert ours == pytest.approx(ref.score(X_GAUSS, LENGTHS), abs=1e-6)


@pytest.mark.full
def test_viterbi_and_posterior_equal_hmmlearn():
    ref_c, ref_g = _ref_cat(), _ref_gauss("full")
    g = _gauss("full")
    for xc, xg in zip(_sequences(X_CAT), _sequences(X_GAUSS)):
        lp, path = ref_c.decode(xc[:, None], algorithm="viterbi")
        ours, ours_lp = hmm.viterbi(CAT, xc)
        np.testing.assert_array_equal(np.asarray(ours), path)
        assert float(ours_lp) == pytest.approx(lp, abs=1e-6)
        lp, path = ref_g.decode(xg, algorithm="viterbi")
        ours, ours_lp = hmm.viterbi(g, xg)
        np.testing.assert_array_equal(np.asarray(ours), path)
        assert float(ours_lp) == pytest.approx(lp, abs=1e-6)
        np.testing.assert_allclose(hmm.posterior(CAT, xc).gamma, ref_c.predict_proba(xc[:, None]),
                                   atol=1e-6)
        np.testing.assert_allclose(hmm.posterior(g, xg).gamma, ref_g.predict_proba(xg), atol=1e-6)
    # all sequences at once (the batch-minor scan)
    lp, path = ref_g.decode(X_GAUSS, LENGTHS, algorithm="viterbi")
    ours_lp, ours = hmm.decode(g, X_GAUSS, LENGTHS)
    np.testing.assert_array_equal(np.asarray(ours), path)
    assert float(ours_lp) == pytest.approx(lp, abs=1e-6)


def test_baum_welch_equals_hmmlearn_categorical():
    ref = _ref_cat().fit(X_CAT[:, None], LENGTHS)
    with pytest.warns(ConvergenceWarning):
        fit = fit_hmm(X_CAT, LENGTHS, K, init=CAT, max_iter=K_ITER, tol=0.0)
    np.testing.assert_allclose(fit.startprob, ref.startprob_, atol=1e-5)
    np.testing.assert_allclose(fit.transmat, ref.transmat_, atol=1e-5)
    np.testing.assert_allclose(fit.emissionprob, ref.emissionprob_, atol=1e-5)
    np.testing.assert_allclose(fit.log_likelihoods, list(ref.monitor_.history), atol=1e-6)
    assert int(fit.n_iter) == K_ITER and not bool(fit.converged)


@pytest.mark.full
@pytest.mark.parametrize("ct", TYPES)
def test_baum_welch_equals_hmmlearn_gaussian(ct):
    ref = _ref_gauss(ct).fit(X_GAUSS, LENGTHS)
    with pytest.warns(ConvergenceWarning):
        fit = fit_hmm(X_GAUSS, LENGTHS, K, emission="gaussian", covariance_type=ct,
                      init=_gauss(ct), max_iter=K_ITER, tol=0.0, reg_covar=0.0)
    np.testing.assert_allclose(fit.startprob, ref.startprob_, atol=1e-5)
    np.testing.assert_allclose(fit.transmat, ref.transmat_, atol=1e-5)
    np.testing.assert_allclose(fit.means, ref.means_, atol=1e-5)
    if ct == "spherical":  # hmmlearn 0.3.3 stores its spherical update as (K, d) equal columns
        np.testing.assert_allclose(np.asarray(ref._covars_).reshape(K, -1),
                                   np.repeat(np.asarray(fit.covars)[:, None], D, axis=1), atol=1e-5)
    else:
        np.testing.assert_allclose(_full_covars(fit), ref.covars_, atol=1e-5)
    np.testing.assert_allclose(fit.log_likelihoods, list(ref.monitor_.history), atol=1e-6)


def test_stops_on_tol_as_hmmlearn():
    """hmmlearn's default tol=1e-2 on the total log-likelihood: same number of iterations."""
    ref = H.CategoricalHMM(K, init_params="", n_iter=100, tol=1e-2, implementation="log")
    ref.startprob_, ref.transmat_, ref.emissionprob_ = PI, A, B
    ref.fit(X_CAT[:, None], LENGTHS)
    fit = fit_hmm(X_CAT, LENGTHS, K, init=CAT, max_iter=100, tol=1e-2)
    assert bool(fit.converged) and int(fit.n_iter) == ref.monitor_.iter
    np.testing.assert_allclose(fit.transmat, ref.transmat_, atol=1e-5)


# --------------------------------------------------------------------------- EM
@pytest.mark.full
@pytest.mark.parametrize("emission", ["categorical", "gaussian"])
def test_log_likelihood_never_decreases(emission):
    X = X_CAT if emission == "categorical" else X_GAUSS
    fit = fit_hmm(X, LENGTHS, K, emission=emission, covariance_type="full", max_iter=40,
                  tol=1e-10, key=jax.random.key(3), reg_covar=0.0 if emission == "gaussian" else 1e-6)
    lls = np.asarray(fit.log_likelihoods)[: int(fit.n_iter)]
    assert len(lls) > 5
    assert np.all(np.diff(lls) >= -1e-10), np.diff(lls).min()


@pytest.mark.full
def test_restarts_keep_the_best():
    key = jax.random.key(7)
    best = fit_hmm(X_CAT, LENGTHS, K, n_init=3, key=key, max_iter=30, tol=1e-6)
    singles = [fit_hmm(X_CAT, LENGTHS, K, key=k, max_iter=30, tol=1e-6)
               for k in jax.random.split(key, 3)]
    lls = [float(s.log_likelihood) for s in singles]
    i = int(np.argmax(lls))
    assert float(best.log_likelihood) == pytest.approx(lls[i], abs=1e-10)
    np.testing.assert_allclose(best.transmat, singles[i].transmat, atol=1e-10)


def test_zero_weight_sequences_have_no_influence():
    extra = RNG.integers(0, M, 9)
    X = np.concatenate([X_CAT, extra])
    with pytest.warns(ConvergenceWarning):
        weighted = fit_hmm(X, LENGTHS + [9], K, init=CAT, max_iter=K_ITER, tol=0.0,
                           sample_weight=[1.0, 1.0, 1.0, 1.0, 0.0])
    with pytest.warns(ConvergenceWarning):
        plain = fit_hmm(X_CAT, LENGTHS, K, init=CAT, max_iter=K_ITER, tol=0.0)
    for a, b in zip(weighted[:3], plain[:3]):
        np.testing.assert_allclose(a, b, atol=1e-12)
    np.testing.assert_allclose(weighted.log_likelihoods, plain.log_likelihoods, atol=1e-10)


def test_integer_weights_equal_repeated_sequences():
    seqs = _sequences(X_GAUSS)
    X_rep = np.concatenate(seqs + [seqs[2]])
    kw = dict(emission="gaussian", covariance_type="diag", max_iter=K_ITER, tol=0.0,
              init=_gauss("diag"))
    with pytest.warns(ConvergenceWarning):
        weighted = fit_hmm(X_GAUSS, LENGTHS, K, sample_weight=[1.0, 1.0, 2.0, 1.0], **kw)
    with pytest.warns(ConvergenceWarning):
        repeated = fit_hmm(X_rep, LENGTHS + [LENGTHS[2]], K, **kw)
    for a, b in zip(weighted[:4], repeated[:4]):
        np.testing.assert_allclose(a, b, atol=1e-10)


def test_update_letters_keep_the_others():
    """update="tc": startprob and means kept; one iteration's variances about the kept means
    from hmmlearn's posteriors (hand derivation: sum_t gamma_tj (x_t - mu_j)^2 / sum_t gamma_tj).
    (hmmlearn's own params="tc" fit is not a reference: it leaves its covariance statistics
    unnormalised without "m".)"""
    with pytest.warns(ConvergenceWarning):
        fit = fit_hmm(X_GAUSS, LENGTHS, K, emission="gaussian", init=_gauss("diag"),
                      max_iter=1, tol=0.0, update="tc", reg_covar=0.0)
    np.testing.assert_array_equal(fit.startprob, PI)
    np.testing.assert_array_equal(fit.means, MEANS)
    gamma = _ref_gauss("diag").predict_proba(X_GAUSS, LENGTHS)
    diff2 = (X_GAUSS[:, None, :] - MEANS[None]) ** 2
    expected = np.einsum("tk,tkd->kd", gamma, diff2) / gamma.sum(0)[:, None]
    np.testing.assert_allclose(fit.covars, expected, atol=1e-10)
    ref = _ref_gauss("diag", n_iter=1).fit(X_GAUSS, LENGTHS)  # the full update's transmat
    np.testing.assert_allclose(fit.transmat, ref.transmat_, atol=1e-5)


# --------------------------------------------------------------------------- brute force
def _brute(params, x):
    """All K^T paths: log p(x), gamma, xi and the best path, by enumeration."""
    x = np.asarray(x)
    T = len(x)
    log_b = np.asarray(hmm.log_emission(params, jnp.asarray(x)))
    lp = {}
    for z in itertools.product(range(K), repeat=T):
        v = np.log(PI[z[0]]) + log_b[0, z[0]]
        for t in range(1, T):
            v += np.log(A[z[t - 1], z[t]]) + log_b[t, z[t]]
        lp[z] = v
    vals = np.array(list(lp.values()))
    ll = np.logaddexp.reduce(vals)
    gamma, xi = np.zeros((T, K)), np.zeros((T - 1, K, K))
    for z, v in lp.items():
        p = np.exp(v - ll)
        gamma[np.arange(T), z] += p
        for t in range(T - 1):
            xi[t, z[t], z[t + 1]] += p
    best = max(lp, key=lp.get)
    return ll, gamma, xi, np.array(best), lp[best]


@pytest.mark.full
@pytest.mark.parametrize("emission", ["categorical", "gaussian"])
def test_forward_backward_viterbi_equal_brute_force(emission):
    params, x = (CAT, X_CAT[:5]) if emission == "categorical" else (_gauss("diag"), X_GAUSS[:5])
    ll, gamma, xi, path, lp = _brute(params, x)
    post = hmm.posterior(params, x)
    assert float(post.log_likelihood) == pytest.approx(ll, abs=1e-12)
    np.testing.assert_allclose(post.gamma, gamma, atol=1e-12)
    np.testing.assert_allclose(post.xi, xi, atol=1e-12)
    la, ll_f = hmm.forward(params, x)
    lb = hmm.backward(params, x)
    assert float(ll_f) == pytest.approx(ll, abs=1e-12)
    # alpha_t . beta_t = p(x) at every t
    np.testing.assert_allclose(jax.nn.logsumexp(la + lb, axis=1), ll, atol=1e-12)
    v_path, v_lp = hmm.viterbi(params, x)
    np.testing.assert_array_equal(np.asarray(v_path), path)
    assert float(v_lp) == pytest.approx(lp, abs=1e-12)


def test_length_one_sequence():
    """Documented result: log p(x_0) = log sum_i pi_i b_i(x_0), xi empty, no transition."""
    x = X_CAT[:1]
    post = hmm.posterior(CAT, x)
    expected = np.log(np.sum(PI * B[:, x[0]]))
    assert float(post.log_likelihood) == pytest.approx(expected, abs=1e-12)
    assert post.xi.shape == (0, K, K)
    np.testing.assert_allclose(post.gamma[0], PI * B[:, x[0]] / np.exp(expected), atol=1e-12)
    # sequences of length 1 only: no transition counts, transmat kept
    with pytest.warns(ConvergenceWarning):
        fit = fit_hmm(X_CAT[:6], [1] * 6, K, init=CAT, max_iter=2, tol=0.0)
    np.testing.assert_array_equal(fit.transmat, A)


# --------------------------------------------------------------------------- autodiff = EM
@pytest.mark.full
def test_gradient_of_log_likelihood_is_expected_counts():
    x = jnp.asarray(X_CAT[:12])

    def ll(log_pi, log_A, log_B):
        # unnormalised exponentials: the derivative in log A_ij is A_ij dL/dA_ij
        p = hmm.CategoricalHMMParams(jnp.exp(log_pi), jnp.exp(log_A), jnp.exp(log_B))
        return hmm._forward(p, x, jnp.ones(12, bool))[1]

    g_pi, g_A, g_B = jax.grad(ll, argnums=(0, 1, 2))(jnp.log(PI), jnp.log(A), jnp.log(B))
    post = hmm.posterior(CAT, x)
    np.testing.assert_allclose(g_pi, post.gamma[0], atol=1e-10)
    np.testing.assert_allclose(g_A, post.xi.sum(axis=0), atol=1e-10)
    counts = np.asarray(post.gamma).T @ np.eye(M)[np.asarray(x)]
    np.testing.assert_allclose(g_B, counts, atol=1e-10)


# --------------------------------------------------------------------------- padding, jit, vmap
@pytest.mark.full
def test_padding_equals_unpadded_and_vmap_equals_loop():
    Xp, mask = hmm.pad_sequences(X_CAT, LENGTHS)
    g = _gauss("full")
    Xg, _ = hmm.pad_sequences(X_GAUSS, LENGTHS)
    batched = jax.vmap(hmm.posterior, in_axes=(None, 0, 0))(CAT, jnp.asarray(Xp), jnp.asarray(mask))
    paths, _ = jax.vmap(hmm.viterbi, in_axes=(None, 0, 0))(g, jnp.asarray(Xg), jnp.asarray(mask))
    for s, (xc, xg) in enumerate(zip(_sequences(X_CAT), _sequences(X_GAUSS))):
        T = len(xc)
        post = hmm.posterior(CAT, xc)
        assert float(batched.log_likelihood[s]) == pytest.approx(float(post.log_likelihood), abs=1e-12)
        np.testing.assert_allclose(batched.gamma[s, :T], post.gamma, atol=1e-12)
        np.testing.assert_array_equal(batched.gamma[s, T:], 0.0)
        np.testing.assert_allclose(batched.xi[s, :T - 1], post.xi, atol=1e-12)
        np.testing.assert_array_equal(batched.xi[s, T - 1:], 0.0)
        np.testing.assert_array_equal(paths[s, :T], hmm.viterbi(g, xg)[0])
        np.testing.assert_array_equal(paths[s, T:], -1)


@pytest.mark.full
def test_jit_equals_eager_and_no_retrace():
    x = jnp.asarray(X_GAUSS[:7])
    g = _gauss("diag")
    jitted = jax.jit(lambda p, x: hmm.forward(p, x)[1])
    with jax.disable_jit():
        eager = hmm.forward(g, x)[1]
    assert float(jitted(g, x)) == pytest.approx(float(eager), abs=1e-12)
    before = hmm._forward._cache_size()
    hmm.forward(g, x + 1.0)
    hmm.forward(g._replace(means=g.means + 1.0), x)
    assert hmm._forward._cache_size() <= before + 1  # at most the first (eager-shape) entry
    after = hmm._forward._cache_size()
    hmm.forward(g, x - 1.0)
    assert hmm._forward._cache_size() == after
    fit_cache = hmm_fit._fit._cache_size()
    with pytest.warns(ConvergenceWarning):
        fit_hmm(X_CAT, LENGTHS, K, init=CAT, max_iter=K_ITER, tol=0.0)
    with pytest.warns(ConvergenceWarning):
        fit_hmm(X_CAT[::-1].copy(), LENGTHS, K, init=CAT, max_iter=K_ITER, tol=0.0)
    assert hmm_fit._fit._cache_size() <= fit_cache + 1


@pytest.mark.full
def test_float32_input_keeps_float32():
    fit = fit_hmm(X_GAUSS.astype(np.float32), LENGTHS, K, emission="gaussian", key=jax.random.key(0),
                  max_iter=20, tol=1e-3)
    assert fit.means.dtype == jnp.float32 and fit.transmat.dtype == jnp.float32
    assert np.isfinite(float(fit.log_likelihood))


# --------------------------------------------------------------------------- sampling
@pytest.mark.full
def test_sample_statistics():
    keys = jax.random.split(jax.random.key(0), 400)
    X, Z = jax.vmap(lambda k: hmm.sample(CAT, 50, key=k))(keys)
    Z, X = np.asarray(Z), np.asarray(X)
    # 400 x 49 transitions: standard error of a frequency <= 0.5 / sqrt(rows' counts ~ 6500)
    counts = np.zeros((K, K))
    np.add.at(counts, (Z[:, :-1].ravel(), Z[:, 1:].ravel()), 1)
    np.testing.assert_allclose(counts / counts.sum(1, keepdims=True), A, atol=0.03)
    emit = np.zeros((K, M))
    np.add.at(emit, (Z.ravel(), X.ravel()), 1)
    np.testing.assert_allclose(emit / emit.sum(1, keepdims=True), B, atol=0.03)
    np.testing.assert_allclose(np.bincount(Z[:, 0], minlength=K) / 400, PI, atol=0.08)
    g = _gauss("full")
    Xg, Zg = hmm.sample(g, 3000, key=jax.random.key(1))
    Xg, Zg = np.asarray(Xg), np.asarray(Zg)
    for k in range(K):
        rows = Xg[Zg == k]
        n_k = len(rows)
        assert n_k > 100
        # 5 standard errors: sd / sqrt(n) for means, ~ sqrt(2 / n) var for (co)variances
        np.testing.assert_allclose(rows.mean(0), MEANS[k], atol=5 * np.sqrt(2.0 / n_k))
        np.testing.assert_allclose(np.cov(rows.T), COVARS["full"][k], atol=5 * 2.0 * np.sqrt(2.0 / n_k))


# --------------------------------------------------------------------------- bad input
def test_bad_empty_X():
    with pytest.raises(ValueError, match="X"):
        fit_hmm(np.array([], dtype=int), None, 2, key=jax.random.key(0))


def test_bad_empty_sequence_in_lengths():
    with pytest.raises(ValueError, match="lengths must be positive"):
        fit_hmm(X_CAT, [7, 0, 13, 5], K, key=jax.random.key(0))


def test_bad_lengths_not_summing_to_n():
    with pytest.raises(ValueError, match="lengths must sum to the number of rows of X \\(25\\)"):
        fit_hmm(X_CAT, [7, 1, 12], K, key=jax.random.key(0))
    with pytest.raises(ValueError, match="lengths must sum"):
        hmm.log_likelihood(CAT, X_CAT, [30])


def test_bad_symbols_outside_range():
    with pytest.raises(ValueError, match="symbol 4, outside the range 0..3"):
        fit_hmm(np.r_[X_CAT[:-1], 4], LENGTHS, K, n_symbols=4, init=CAT)
    with pytest.raises(ValueError, match="symbol -1"):
        fit_hmm(np.r_[X_CAT[:-1], -1], LENGTHS, K, key=jax.random.key(0))
    with pytest.raises(ValueError, match="X holds symbol 9, outside the model's range 0..3"):
        hmm.log_likelihood(CAT, np.r_[X_CAT[:-1], 9], LENGTHS)


def test_bad_n_components():
    with pytest.raises(ValueError, match="n_components must be >= 1, got 0"):
        fit_hmm(X_CAT, LENGTHS, 0, key=jax.random.key(0))
    with pytest.raises(TypeError, match="n_components must be an int"):
        fit_hmm(X_CAT, LENGTHS, 2.5, key=jax.random.key(0))


def test_bad_transmat_rows_not_summing_to_one():
    bad = A.copy()
    bad[1, 0] += 0.1
    with pytest.raises(ValueError, match="transmat: its rows must sum to 1"):
        fit_hmm(X_CAT, LENGTHS, K, init=hmm.CategoricalHMMParams(PI, bad, B))
    with pytest.raises(ValueError, match="startprob: it must sum to 1"):
        hmm.categorical_hmm(PI * 2, A, B)
    with pytest.raises(ValueError, match="emissionprob must be non-negative"):
        hmm.categorical_hmm(PI, A, -B)
    with pytest.raises(ValueError, match="covars must be positive definite"):
        hmm.gaussian_hmm(PI, A, MEANS, -COVARS["diag"], "diag")


def test_bad_other_arguments():
    with pytest.raises(TypeError, match="key must be a jax.random key, got int 0"):
        fit_hmm(X_CAT, LENGTHS, K, key=0)
    with pytest.raises(ValueError, match="update must be a string of the letters 'ste'"):
        fit_hmm(X_CAT, LENGTHS, K, key=jax.random.key(0), update="m")
    with pytest.raises(ValueError, match="sample_weight must have one weight per sequence"):
        fit_hmm(X_CAT, LENGTHS, K, key=jax.random.key(0), sample_weight=[1.0, 1.0])
    with pytest.raises(ValueError, match="emission must be one of"):
        fit_hmm(X_CAT, LENGTHS, K, key=jax.random.key(0), emission="poisson")
    with pytest.raises(TypeError, match="init must be a GaussianHMMParams"):
        fit_hmm(X_GAUSS, LENGTHS, K, emission="gaussian", init=CAT)
    with pytest.raises(TypeError, match="params must be a CategoricalHMMParams"):
        hmm.forward((PI, A, B), X_CAT[:3])
    with pytest.raises(ValueError, match="x must have at least 1 sample"):
        hmm.forward(CAT, np.array([], dtype=int))


@pytest.mark.full
def test_left_right_model_with_zero_probabilities_equals_hmmlearn():
    """Exact zeros in startprob / transmat / emissionprob (a left-right chain): log(0) = -inf
    in the recursions, finite results, the zeros kept by EM, as hmmlearn."""
    pi = np.array([1.0, 0.0, 0.0])
    A = np.array([[0.7, 0.3, 0.0], [0.0, 0.8, 0.2], [0.0, 0.0, 1.0]])
    B = np.array([[0.9, 0.1, 0.0], [0.1, 0.8, 0.1], [0.0, 0.2, 0.8]])
    X = np.array([0, 0, 1, 1, 1, 2, 2, 2])
    ref = H.CategoricalHMM(3, init_params="", n_iter=3, tol=0.0, implementation="log")
    ref.startprob_, ref.transmat_, ref.emissionprob_ = pi, A, B
    p = hmm.categorical_hmm(pi, A, B)
    assert float(hmm.log_likelihood(p, X)) == pytest.approx(ref.score(X[:, None]), abs=1e-10)
    np.testing.assert_array_equal(np.asarray(hmm.viterbi(p, X)[0]), ref.decode(X[:, None])[1])
    ref.fit(X[:, None])
    with pytest.warns(ConvergenceWarning):
        fit = fit_hmm(X, None, 3, init=p, max_iter=3, tol=0.0)
    np.testing.assert_allclose(fit.transmat, ref.transmat_, atol=1e-10)
    np.testing.assert_allclose(fit.emissionprob, ref.emissionprob_, atol=1e-10)
    assert np.asarray(fit.transmat)[1, 0] == 0.0 and np.asarray(fit.transmat)[2, 1] == 0.0


# --------------------------------------------------------------------------- vocabulary (issue 27)
def test_n_states_is_a_deprecated_spelling_of_n_components():
    with pytest.warns(ConvergenceWarning):
        new = fit_hmm(X_CAT, LENGTHS, n_components=2, max_iter=2)  # key=None: jax.random.key(0)
    with pytest.warns(DeprecationWarning, match="n_components"), pytest.warns(ConvergenceWarning):
        old = fit_hmm(X_CAT, LENGTHS, n_states=2, max_iter=2, key=jax.random.key(0))
    chex.assert_trees_all_equal(old, new)


def test_sample_with_a_positional_key_is_deprecated():
    new = hmm.sample(CAT, 20, key=jax.random.key(3))
    with pytest.warns(DeprecationWarning, match="key=key"):
        old = hmm.sample(CAT, 20, jax.random.key(3))
    chex.assert_trees_all_equal(old, new)
    chex.assert_trees_all_equal(hmm.sample(CAT, 20), hmm.sample(CAT, 20, key=jax.random.key(0)))
    with pytest.warns(DeprecationWarning, match=r"sample\(n_samples=\)"):
        old = hmm.sample(CAT, n_steps=20, key=jax.random.key(3))  # 0.1's name of the length
    chex.assert_trees_all_equal(old, new)
