"""Tests of jaxclassic/discriminant/lda_qda.py.

References: scikit-learn 1.9 LinearDiscriminantAnalysis (solvers 'lsqr' and 'eigen', with float
shrinkage) and QuadraticDiscriminantAnalysis (reg_param), probabilities to 1e-6 in float64
(same estimates; observed differences ~1e-13); scipy.stats.multivariate_normal for the
discriminant functions; and the maximum-likelihood property of the fitted means and
covariances (autodiff gradient of the Gaussian log-likelihood ~0 at the fit).
"""

import chex
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from scipy import stats
from sklearn import datasets
from sklearn import discriminant_analysis as sk_da

from jaxclassic import discriminant as D
from jaxclassic.discriminant import lda_qda

X_IRIS, Y_IRIS = datasets.load_iris(return_X_y=True)
X_WINE, Y_WINE = datasets.load_wine(return_X_y=True)
RNG = np.random.default_rng(1)
W_IRIS = RNG.uniform(0.2, 3.0, len(Y_IRIS))
PROBA_TOL = 1e-6  # float64, identical estimates: observed differences are ~1e-13


def _maxdiff(a, b):
    return float(np.max(np.abs(np.asarray(a) - np.asarray(b))))


# ----------------------------------------------------------------------------- LDA vs sklearn
@pytest.mark.full
@pytest.mark.parametrize("data", ["iris", "wine"])
@pytest.mark.parametrize("shrinkage", [None, 0.3])
def test_lda_matches_sklearn(data, shrinkage):
    X, y = (X_IRIS, Y_IRIS) if data == "iris" else (X_WINE, Y_WINE)
    ours = D.fit_lda(X, y, shrinkage=shrinkage)
    for solver in ("lsqr", "eigen"):
        ref = sk_da.LinearDiscriminantAnalysis(solver=solver, shrinkage=shrinkage).fit(X, y)
        assert _maxdiff(D.predict_proba(ours, X), ref.predict_proba(X)) < PROBA_TOL
    np.testing.assert_allclose(ours.covariance, ref.covariance_, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(ours.means, ref.means_, rtol=1e-12)
    np.testing.assert_array_equal(D.predict(ours, X), ref.predict(X))


@pytest.mark.full
def test_lda_cholesky_equals_eigh_and_priors_match_sklearn():
    priors = np.array([0.2, 0.3, 0.5])
    a = D.fit_lda(X_IRIS, Y_IRIS, priors=priors, shrinkage=0.1)
    b = D.fit_lda(X_IRIS, Y_IRIS, priors=priors, shrinkage=0.1, solver="cholesky")
    np.testing.assert_allclose(a.coef, b.coef, rtol=1e-9)
    ref = sk_da.LinearDiscriminantAnalysis(solver="lsqr", priors=priors, shrinkage=0.1).fit(X_IRIS, Y_IRIS)
    assert _maxdiff(D.predict_proba(a, X_IRIS), ref.predict_proba(X_IRIS)) < PROBA_TOL


def test_lda_singular_covariance_eigh_is_min_norm_like_lsqr():
    X = np.c_[X_IRIS, X_IRIS[:, 0]]  # a repeated column: the pooled covariance is singular
    ours = D.fit_lda(X, Y_IRIS)
    ref = sk_da.LinearDiscriminantAnalysis(solver="lsqr").fit(X, Y_IRIS)
    assert _maxdiff(D.predict_proba(ours, X), ref.predict_proba(X)) < PROBA_TOL
    with pytest.raises(np.linalg.LinAlgError, match="not positive definite"):
        D.fit_lda(X, Y_IRIS, solver="cholesky")


# ----------------------------------------------------------------------------- QDA vs sklearn
@pytest.mark.full
@pytest.mark.parametrize("reg_param", [0.0, 0.3])
def test_qda_matches_sklearn(reg_param):
    for X, y in ((X_IRIS, Y_IRIS), (X_WINE, Y_WINE)):
        ours = D.fit_qda(X, y, reg_param=reg_param)
        ref = sk_da.QuadraticDiscriminantAnalysis(reg_param=reg_param, store_covariance=True).fit(X, y)
        assert _maxdiff(D.predict_proba(ours, X), ref.predict_proba(X)) < PROBA_TOL
        assert _maxdiff(D.predict_log_proba(ours, X), ref.predict_log_proba(X)) < 1e-5
        eig = np.linalg.eigvalsh(np.asarray(ours.covariance))[:, ::-1]
        np.testing.assert_allclose(eig, np.stack(ref.scalings_), rtol=1e-8)
        np.testing.assert_array_equal(D.predict(ours, X), ref.predict(X))
        if reg_param == 0.0:  # scikit-learn 1.9: biased (divide by N_k) class covariances
            np.testing.assert_allclose(ours.covariance, np.stack(ref.covariance_), rtol=1e-9, atol=1e-12)


# ----------------------------------------------------------------------------- weights
@pytest.mark.full
@pytest.mark.parametrize("fit", [D.fit_lda, D.fit_qda])
def test_integer_weights_equal_repeated_rows(fit):
    w = RNG.integers(0, 4, len(Y_IRIS)).astype(float)
    w[:3] = 2.0
    ours = fit(X_IRIS, Y_IRIS, sample_weight=w)
    Xr, yr = np.repeat(X_IRIS, w.astype(int), 0), np.repeat(Y_IRIS, w.astype(int))
    rep = fit(Xr, yr)
    np.testing.assert_allclose(D.predict_proba(ours, X_IRIS), D.predict_proba(rep, X_IRIS), atol=1e-10)
    ref_cls = sk_da.LinearDiscriminantAnalysis if fit is D.fit_lda else sk_da.QuadraticDiscriminantAnalysis
    ref = ref_cls().fit(Xr, yr)
    assert _maxdiff(D.predict_proba(ours, X_IRIS), ref.predict_proba(X_IRIS)) < PROBA_TOL


@pytest.mark.parametrize("fit", [D.fit_lda, D.fit_qda])
def test_zero_weight_rows_have_no_influence(fit):
    X = np.vstack([X_IRIS, RNG.normal(40.0, 20.0, size=(6, 4))])
    y = np.concatenate([Y_IRIS, [0, 1, 2, 0, 1, 2]])
    w = np.concatenate([W_IRIS, np.zeros(6)])
    chex.assert_trees_all_close(fit(X, y, sample_weight=w), fit(X_IRIS, Y_IRIS, sample_weight=W_IRIS),
                                rtol=1e-9, atol=1e-12)


# ----------------------------------------------------------------------------- likelihood / gradients
def _shared_cov_loglik(means, cov, X, y, w):
    ll = jax.vmap(lambda x, k: jax.scipy.stats.multivariate_normal.logpdf(x, means[k], cov))(X, y)
    return jnp.sum(w * ll)


def _class_cov_loglik(means, covs, X, y, w):
    ll = jax.vmap(lambda x, k: jax.scipy.stats.multivariate_normal.logpdf(x, means[k], covs[k]))(X, y)
    return jnp.sum(w * ll)


_grad_shared = jax.jit(jax.grad(_shared_cov_loglik, argnums=(0, 1)))
_grad_class = jax.jit(jax.grad(_class_cov_loglik, argnums=(0, 1)))


@pytest.mark.full
def test_lda_fit_is_the_weighted_mle_and_gradient_is_hand_derived():
    # with the fitted priors and no shrinkage, Sigma = (1/N) sum_i w_i (x - mu)(x - mu)^T is the MLE
    p = D.fit_lda(X_IRIS, Y_IRIS, sample_weight=W_IRIS)
    g_mu, g_cov = _grad_shared(p.means, p.covariance, X_IRIS, Y_IRIS, W_IRIS)
    assert float(jnp.max(jnp.abs(g_mu))) < 1e-8
    assert float(jnp.max(jnp.abs(g_cov))) < 1e-7
    # hand derivation at another point: d/dmu_k = Sigma^{-1} sum_i r_ik (x_i - mu_k)
    mu = p.means + 0.3
    g_mu, _ = _grad_shared(mu, p.covariance, X_IRIS, Y_IRIS, W_IRIS)
    r = jax.nn.one_hot(Y_IRIS, 3) * W_IRIS[:, None]
    hand = jnp.linalg.solve(p.covariance, (r.T @ X_IRIS - r.sum(0)[:, None] * mu).T).T
    np.testing.assert_allclose(g_mu, hand, rtol=1e-9, atol=1e-9)


def test_qda_fit_is_the_weighted_mle():
    p = D.fit_qda(X_IRIS, Y_IRIS, sample_weight=W_IRIS)
    g_mu, g_cov = _grad_class(p.means, p.covariance, X_IRIS, Y_IRIS, W_IRIS)
    assert float(jnp.max(jnp.abs(g_mu))) < 1e-8
    assert float(jnp.max(jnp.abs(g_cov))) < 1e-6


def test_scores_are_gaussian_log_joint_up_to_a_constant():
    lda = D.fit_lda(X_WINE, Y_WINE)
    qda = D.fit_qda(X_WINE, Y_WINE)
    s_lda = np.asarray(lda_qda.discriminant_scores(lda, X_WINE))
    s_qda = np.asarray(lda_qda.discriminant_scores(qda, X_WINE))
    logpdf_lda = np.stack([stats.multivariate_normal(m, np.asarray(lda.covariance)).logpdf(X_WINE)
                           for m in np.asarray(lda.means)], 1) + np.log(np.asarray(lda.priors))
    logpdf_qda = np.stack([stats.multivariate_normal(m, c).logpdf(X_WINE)
                           for m, c in zip(np.asarray(qda.means), np.asarray(qda.covariance))], 1)
    logpdf_qda += np.log(np.asarray(qda.priors))
    # LDA drops the class-independent -x'Sigma^{-1}x/2 - log|2 pi Sigma|/2 ; QDA drops -d/2 log 2 pi
    off = s_lda - logpdf_lda
    np.testing.assert_allclose(off, off[:, :1] * np.ones((1, 3)), rtol=1e-8, atol=1e-8)
    np.testing.assert_allclose(s_qda - logpdf_qda, 0.5 * X_WINE.shape[1] * np.log(2 * np.pi), rtol=1e-8)


# ----------------------------------------------------------------------------- transformations
@pytest.mark.full
def test_jit_vmap_and_no_retrace():
    fit = lambda X, y, s, w: D.fit_lda(X, y, n_classes=3, shrinkage=s, sample_weight=w)
    chex.assert_trees_all_close(fit(X_IRIS, Y_IRIS, 0.2, W_IRIS),
                                jax.jit(fit)(jnp.asarray(X_IRIS), jnp.asarray(Y_IRIS), 0.2, jnp.asarray(W_IRIS)),
                                rtol=1e-10)
    grid = jnp.array([0.0, 0.2, 0.9])
    batched = jax.vmap(lambda s: D.fit_lda(X_IRIS, Y_IRIS, shrinkage=s))(grid)
    for i, s in enumerate([0.0, 0.2, 0.9]):
        chex.assert_trees_all_close(jax.tree.map(lambda a: a[i], batched),
                                    D.fit_lda(X_IRIS, Y_IRIS, shrinkage=s), rtol=1e-9, atol=1e-12)
    regs = jnp.array([0.0, 0.5])
    batched = jax.vmap(lambda r: D.fit_qda(X_IRIS, Y_IRIS, reg_param=r))(regs)
    chex.assert_trees_all_close(jax.tree.map(lambda a: a[1], batched),
                                D.fit_qda(X_IRIS, Y_IRIS, reg_param=0.5), rtol=1e-9, atol=1e-12)
    folds = jnp.asarray(RNG.integers(0, 2, (2, len(Y_IRIS))).astype(float))
    batched = jax.vmap(lambda w: D.fit_qda(X_IRIS, Y_IRIS, sample_weight=w))(folds)
    proba = jax.vmap(lambda p: D.predict_proba(p, X_IRIS))(batched)
    np.testing.assert_allclose(proba[0], D.predict_proba(D.fit_qda(X_IRIS, Y_IRIS, sample_weight=folds[0]), X_IRIS),
                               atol=1e-10)
    before = (lda_qda._fit_lda._cache_size(), lda_qda._fit_qda._cache_size())
    D.fit_lda(X_IRIS * 2.0, Y_IRIS, shrinkage=0.5)
    D.fit_qda(X_IRIS + 1.0, Y_IRIS, reg_param=0.1)
    assert (lda_qda._fit_lda._cache_size(), lda_qda._fit_qda._cache_size()) == before


@pytest.mark.full
def test_float32():
    X32 = X_IRIS.astype(np.float32)
    for fit, ref in ((D.fit_lda, sk_da.LinearDiscriminantAnalysis(solver="lsqr")),
                     (D.fit_qda, sk_da.QuadraticDiscriminantAnalysis())):
        p = fit(X32, Y_IRIS)
        assert all(a.dtype == jnp.float32 for a in jax.tree.leaves(p))
        proba = D.predict_proba(p, X32)
        assert proba.dtype == jnp.float32
        # float32 eigendecomposition of covariances with condition ~1e3: ~1e-4 on probabilities
        assert _maxdiff(proba, ref.fit(X_IRIS, Y_IRIS).predict_proba(X_IRIS)) < 1e-3


@pytest.mark.full
def test_float32_badly_scaled_features():
    # breast cancer: feature scales from 1e3 to 1e-2, so Sigma is ill-conditioned by scale
    # alone; the correlation-form solve keeps float32 within ~1e-3 of scikit-learn's float64
    # (without it QDA's float32 accuracy drops from 0.93 to 0.63 on a held-out split)
    X, y = datasets.load_breast_cancer(return_X_y=True)
    X32 = X.astype(np.float32)
    for p, ref in ((D.fit_lda(X32, y), sk_da.LinearDiscriminantAnalysis(solver="lsqr")),
                   (D.fit_qda(X32, y, reg_param=1e-3), sk_da.QuadraticDiscriminantAnalysis(reg_param=1e-3))):
        assert _maxdiff(D.predict_proba(p, X32), ref.fit(X, y).predict_proba(X)) < 3e-3


def test_empty_class_gets_zero_probability():
    for fit in (D.fit_lda, D.fit_qda):
        proba = np.asarray(D.predict_proba(fit(X_IRIS, Y_IRIS, n_classes=4), X_IRIS))
        assert np.all(proba[:, 3] == 0.0) and np.all(np.isfinite(proba))


# ----------------------------------------------------------------------------- bad input
def test_one_class_raises():
    with pytest.raises(ValueError, match="at least 2 classes"):
        D.fit_lda(X_IRIS[:50], Y_IRIS[:50])


@pytest.mark.full
def test_qda_single_sample_class_raises_unless_regularised():
    X, y = X_IRIS[:51], Y_IRIS[:51]  # class 1 has one sample
    with pytest.raises(ValueError, match="only 1 sample in class 1"):
        D.fit_qda(X, y)
    p = D.fit_qda(X, y, reg_param=0.5)
    np.testing.assert_allclose(p.covariance[1], 0.5 * np.eye(4), atol=1e-12)
    assert np.all(np.isfinite(np.asarray(D.predict_proba(p, X))))


def test_qda_singular_class_covariance_raises():
    X = np.c_[X_IRIS, X_IRIS[:, 0] + X_IRIS[:, 1]]  # rank 4 in every class
    with pytest.raises(np.linalg.LinAlgError, match="class 0 is singular"):
        D.fit_qda(X, Y_IRIS)


def test_string_labels_raise_type_error():
    with pytest.raises(TypeError, match="encode string labels"):
        D.fit_qda(X_IRIS[:4], ["a", "b", "a", "b"])


def test_nan_raises():
    X = X_IRIS.copy()
    X[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        D.fit_lda(X, Y_IRIS)


def test_shrinkage_out_of_range_raises():
    with pytest.raises(ValueError, match="shrinkage must be <= 1"):
        D.fit_lda(X_IRIS, Y_IRIS, shrinkage=1.5)


def test_shrinkage_unknown_string_raises():
    # "auto" (Ledoit-Wolf) is implemented since issue 16: tests/estimators/test_sklearn_parity.py
    with pytest.raises(ValueError, match="shrinkage must be a float in \\[0, 1\\], 'auto' or None, got 'oas'"):
        D.fit_lda(X_IRIS, Y_IRIS, shrinkage="oas")


def test_unknown_solver_raises():
    with pytest.raises(ValueError, match="solver must be one of"):
        D.fit_lda(X_IRIS, Y_IRIS, solver="svd")


def test_reg_param_out_of_range_raises():
    with pytest.raises(ValueError, match="reg_param must be >= 0"):
        D.fit_qda(X_IRIS, Y_IRIS, reg_param=-0.1)


def test_negative_priors_raise():
    with pytest.raises(ValueError, match="priors must be non-negative"):
        D.fit_qda(X_IRIS, Y_IRIS, priors=[1.5, -0.25, -0.25])


# ----------------------------------------------------------------------------- raw, badly scaled columns
def _raw_columns(n=400, seed=0):
    """Columns in units 1e-3 .. 1e4 and one of mean 1e3 and sd 1 (three classes), as float32."""
    rng = np.random.default_rng(seed)
    scales = np.array([1e-3, 1e-1, 1.0, 1e2, 1e4])
    y = rng.integers(0, 3, n)
    X = (rng.normal(size=(n, 5)) + 1.4 * np.eye(3, 5)[y]) * scales
    X[:, 2] += 1e3
    return X.astype(np.float32), y, scales


@pytest.mark.full
def test_lda_qda_float32_on_raw_columns_match_float64_and_sklearn():
    # the same (float32-representable) data in both precisions: only the arithmetic differs.
    # Before LDA was centred its intercepts were ~5e5 (mu^T Sigma^-1 mu with a column mean of
    # 1e3) and float32 probabilities were 0.036 off the float64 fit; now ~3e-5.
    # The reference is scikit-learn fitted on the standardised columns (the posteriors of LDA and
    # QDA are invariant to an affine map of each column); its lsqr solve on the raw columns
    # (covariance condition ~1e14) is itself 2e-5 off in float64.
    X32, y, scales = _raw_columns()
    X64 = X32.astype(np.float64)
    Xs = (X64 - X64.mean(0)) / X64.std(0)
    for fit, ref in ((D.fit_lda, sk_da.LinearDiscriminantAnalysis(solver="lsqr")),
                     (D.fit_qda, sk_da.QuadraticDiscriminantAnalysis())):
        p32, p64 = fit(X32, y), fit(X64, y)
        proba32 = D.predict_proba(p32, X32)
        assert proba32.dtype == jnp.float32
        assert _maxdiff(proba32, D.predict_proba(p64, X64)) < 5e-4
        assert _maxdiff(D.predict_proba(p64, X64), ref.fit(Xs, y).predict_proba(Xs)) < PROBA_TOL
    lda32, lda64 = D.fit_lda(X32, y), D.fit_lda(X64, y)
    scaled = np.asarray(lda64.coef) * scales
    assert _maxdiff(np.asarray(lda32.coef) * scales, scaled) < 1e-5 * np.abs(scaled).max()


def test_lda_coef_is_centred_and_differs_from_sklearn_lsqr_by_a_common_term():
    # scikit-learn's lsqr: coef_k = Sigma^-1 mu_k, intercept_k = -mu_k^T Sigma^-1 mu_k / 2 + log pi_k.
    # Ours: Sigma^-1 (mu_k - xbar) with xbar = sum_k pi_k mu_k; the difference is common to the classes.
    priors = np.array([0.2, 0.3, 0.5])
    for pr in (None, priors):
        ours = D.fit_lda(X_WINE, Y_WINE, priors=pr)
        ref = sk_da.LinearDiscriminantAnalysis(solver="lsqr", priors=pr).fit(X_WINE, Y_WINE)
        common = np.linalg.solve(ref.covariance_, ref.priors_ @ ref.means_)
        np.testing.assert_allclose(ours.coef, ref.coef_ - common[None, :], rtol=1e-7,
                                   atol=1e-9 * np.abs(ref.coef_).max())
        shift = np.asarray(ours.intercept) - ref.intercept_
        np.testing.assert_allclose(shift - shift[0], 0.0, atol=1e-8 * np.abs(ref.intercept_).max())
