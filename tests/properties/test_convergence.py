"""Guarantees of the iterative algorithms, over generated data: EM never lowers the
log-likelihood (GMM, HMM), a Lloyd iteration never raises the k-means inertia, AdaBoost's
training error is below its bound, the perceptron's mistakes below Novikoff's, duality gaps
(kernel SVM, lasso) are >= 0 and close to 0 at a tight tolerance, and every SVM solution
meets its KKT conditions. Shapes fixed (24 rows): each fit compiles once.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from jaxclassic import cluster, ensemble, graphical, kernels, linear, svm
from tests.properties._cases import FAST, MEDIUM, N_CLASSES, N_FEATURES, N_SAMPLES, make_data, seeds


def _key(seed):
    return jax.random.key(seed % 100_000)


#: tol=0 runs every iteration: not converging is the point, its warning is expected
_RUNS_TO_MAX_ITER = pytest.mark.filterwarnings("ignore::jaxclassic.exceptions.ConvergenceWarning")


@pytest.mark.full
@_RUNS_TO_MAX_ITER
@FAST
@given(seed=seeds)
def test_gmm_em_lower_bound_never_decreases(seed):
    """EM's lower bound (the mean log-likelihood) is non-decreasing over the iterations
    (Dempster, Laird & Rubin 1977); slack 1e-10 relative for float64 rounding."""
    X, _, _ = make_data(seed, "multiclass")
    p = cluster.fit_gmm(jnp.asarray(X), N_CLASSES, key=_key(seed), tol=0.0, max_iter=30, reg_covar=1e-6)
    bounds = np.asarray(p.lower_bounds)[: int(p.n_iter)]
    bounds = bounds[np.isfinite(bounds)]
    assert bounds.size >= 2
    assert np.all(np.diff(bounds) >= -1e-10 * np.abs(bounds[1:])), bounds


@pytest.mark.full
@_RUNS_TO_MAX_ITER
@FAST
@given(symbols=st.lists(st.integers(0, 3), min_size=N_SAMPLES, max_size=N_SAMPLES), seed=seeds)
def test_hmm_baum_welch_log_likelihood_never_decreases(symbols, seed):
    """Baum-Welch is EM: the total log-likelihood of the sequences (two of 12 symbols from 4)
    never decreases; slack 1e-10 relative (float64)."""
    X = np.asarray(symbols, np.int32)
    X[:4] = np.arange(4)  # every symbol present: n_symbols fixed at 4 (one compile)
    p = graphical.fit_hmm(jnp.asarray(X), [12, 12], 2, n_symbols=4, tol=0.0, max_iter=30, key=_key(seed))
    ll = np.asarray(p.log_likelihoods)[: int(p.n_iter)]
    ll = ll[np.isfinite(ll)]
    assert ll.size >= 2
    assert np.all(np.diff(ll) >= -1e-10 * np.abs(ll[1:])), ll


@FAST
@given(seed=seeds, start=st.lists(st.integers(0, N_SAMPLES - 1), min_size=N_CLASSES, max_size=N_CLASSES,
                                   unique=True))
@pytest.mark.full
def test_kmeans_inertia_never_increases_per_lloyd_iteration(seed, start):
    """One Lloyd iteration at a time (``max_iter=1`` from the previous centres): neither the
    assignment nor the mean update raises the inertia (slack 1e-12 relative, float64)."""
    X, _, _ = make_data(seed, "multiclass")
    Xj = jnp.asarray(X)
    centres = Xj[np.asarray(start)]
    inertias = []
    for _ in range(6):
        p = cluster.fit_kmeans(Xj, N_CLASSES, key=_key(0), init=centres, max_iter=1, tol=0.0)
        inertias.append(float(p.inertia))
        centres = p.cluster_centers
    inertias = np.asarray(inertias)
    assert np.all(np.diff(inertias) <= 1e-12 * inertias[1:]), inertias


@pytest.mark.full
@FAST
@given(seed=seeds, w=st.lists(st.integers(1, 4), min_size=N_SAMPLES, max_size=N_SAMPLES))
def test_adaboost_training_error_below_its_bound(seed, w):
    """Discrete AdaBoost (two classes, learning rate 1): the weighted training error is at
    most ``prod_m 2 sqrt(eps_m (1 - eps_m))`` over the rounds run (Freund & Schapire 1997)."""
    X, y, _ = make_data(seed, "binary")
    X = X + np.random.default_rng(seed).normal(scale=1.5, size=X.shape)  # overlapping: errors
    w = np.asarray(w, np.float64)
    p = ensemble.fit_adaboost(jnp.asarray(X), jnp.asarray(y), n_estimators=5, n_classes=2,
                              sample_weight=jnp.asarray(w))
    used = int(p.n_estimators_used)
    eps = np.asarray(p.estimator_errors)[:used]
    bound = np.prod(2.0 * np.sqrt(eps * (1.0 - eps)))
    error = np.sum(w * (np.asarray(ensemble.predict(p, jnp.asarray(X))) != y)) / w.sum()
    assert error <= bound + 1e-12, (error, bound, eps)


@MEDIUM
@given(seed=seeds, margin=st.sampled_from([0.05, 0.2, 0.5]))
def test_perceptron_mistakes_within_novikoff_bound(seed, margin):
    """Data separated by a unit ``u`` with margin ``gamma`` (built so), rows of norm <= R:
    the perceptron from 0 (no intercept) makes at most ``(R / gamma)^2`` mistakes, converges,
    and separates the training rows (Novikoff 1962)."""
    rng = np.random.default_rng(seed)
    u = rng.normal(size=N_FEATURES)
    u /= np.linalg.norm(u)
    Z = rng.normal(size=(N_SAMPLES, N_FEATURES))
    t = np.where(np.arange(N_SAMPLES) % 2 == 0, 1.0, -1.0)
    X = Z - np.outer(Z @ u, u) + np.outer(t * (margin + rng.exponential(size=N_SAMPLES)), u)
    gamma = np.min(t * (X @ u))
    R = np.max(np.linalg.norm(X, axis=1))
    y = (t > 0).astype(np.int32)
    p = linear.fit_perceptron(jnp.asarray(X), jnp.asarray(y), fit_intercept=False, max_epochs=2000)
    assert int(p.n_updates) <= (R / gamma) ** 2, (int(p.n_updates), (R / gamma) ** 2)
    assert bool(p.converged)
    assert np.all(t * (X @ np.asarray(p.coef)) > 0)


def _svm_primal_dual(p, X, y, C, w):
    K = np.asarray(kernels.gram(jnp.asarray(X), jnp.asarray(X), kernels.rbf, gamma=float(p.gamma)))
    t = 2.0 * y - 1.0
    beta = np.asarray(p.dual_coef)
    f = K @ beta + float(p.intercept)
    quad = beta @ K @ beta
    primal = 0.5 * quad + np.sum(C * w * np.maximum(0.0, 1.0 - t * f))
    dual = np.sum(np.asarray(p.alpha)) - 0.5 * quad
    return primal, dual, t * f


@FAST
@given(seed=seeds, C=st.sampled_from([0.1, 1.0, 10.0]),
       w=st.lists(st.sampled_from([0.5, 1.0, 2.0]), min_size=N_SAMPLES, max_size=N_SAMPLES))
@pytest.mark.full
def test_kernel_svm_duality_gap_and_kkt(seed, C, w):
    """Weak duality: primal ``1/2 beta^T K beta + sum_i C s_i hinge_i`` >= dual
    ``sum alpha - 1/2 beta^T K beta`` at any feasible point; at ``tol=1e-3`` and at
    ``tol=1e-8`` the gap is >= 0, and at 1e-8 it is <= 1e-6 (1 + |primal|). KKT at the tight
    solution (Platt 1998 / Keerthi et al. 2001, to SMO's tolerance): ``0 <= alpha_i <= C s_i``,
    ``sum_i alpha_i t_i = 0``, margins ``t_i f_i >= 1`` where ``alpha_i = 0``, ``= 1`` where
    ``0 < alpha_i < C s_i``, ``<= 1`` where ``alpha_i = C s_i`` (slack 1e-6)."""
    X, y, _ = make_data(seed, "binary")
    w = np.asarray(w)
    gaps = []
    for tol in (1e-3, 1e-8):
        p = svm.fit_kernel_svm(jnp.asarray(X), jnp.asarray(y), C=C, gamma=0.5, tol=tol,
                               sample_weight=jnp.asarray(w))
        primal, dual, margins = _svm_primal_dual(p, X, y, C, w)
        gaps.append(primal - dual)
        assert primal - dual >= -1e-9 * (1 + abs(primal)), (tol, primal, dual)
    assert gaps[1] <= 1e-6 * (1 + abs(primal)), gaps
    alpha, bound = np.asarray(p.alpha), C * w
    t = 2.0 * y - 1.0
    slack = 1e-6
    assert np.all(alpha >= -1e-12) and np.all(alpha <= bound * (1 + 1e-12))
    assert abs(np.sum(alpha * t)) <= 1e-9 * max(1.0, alpha.sum())
    at_zero = alpha <= 1e-10 * bound
    at_bound = alpha >= bound * (1 - 1e-10)
    free = ~at_zero & ~at_bound
    assert np.all(margins[at_zero] >= 1 - slack), margins[at_zero].min()
    assert np.all(margins[at_bound] <= 1 + slack), margins[at_bound].max()
    np.testing.assert_allclose(margins[free], 1.0, atol=slack)


@FAST
@given(seed=seeds, alpha=st.sampled_from([0.01, 0.05, 0.2]))
def test_lasso_duality_gap(seed, alpha):
    """For ``1/(2n)||y - X beta||^2 + alpha ||beta||_1`` (no intercept) and the feasible dual
    point ``theta = s r / n``, ``s = min(1, n alpha / ||X^T r||_inf)``, the dual
    ``D = ||y||^2/(2n) - n/2 ||theta - y/n||^2`` is <= the primal at any ``beta`` (gap >= 0,
    computed here independently of the fit), the reported ``dual_gap`` >= 0 too, and at
    ``tol=1e-12`` the gap is <= 1e-10 ``||y||^2 / n`` (scikit-learn's relative scale)."""
    X, y, _ = make_data(seed, "regression")
    n = N_SAMPLES
    for tol in (1e-2, 1e-12):
        p = linear.fit_lasso(jnp.asarray(X), jnp.asarray(y), alpha=alpha, fit_intercept=False, tol=tol,
                             max_iter=10_000)
        beta = np.asarray(p.coef)
        r = y - X @ beta
        primal = r @ r / (2 * n) + alpha * np.abs(beta).sum()
        theta = min(1.0, n * alpha / np.max(np.abs(X.T @ r))) * r / n
        dual = y @ y / (2 * n) - n / 2 * np.sum((theta - y / n) ** 2)
        assert primal - dual >= -1e-12 * (y @ y / n), (tol, primal, dual)
        assert float(p.dual_gap) >= 0.0
    assert primal - dual <= 1e-10 * (y @ y / n), (primal, dual)


@FAST
@given(seed=seeds, C=st.sampled_from([0.1, 1.0, 10.0]),
       w=st.lists(st.sampled_from([0.5, 1.0, 2.0]), min_size=N_SAMPLES, max_size=N_SAMPLES))
@pytest.mark.full
def test_linear_svm_dual_gap_and_kkt(seed, C, w):
    """Linear SVM, hinge loss, dual coordinate descent (liblinear's: the bias is the weight of
    a constant column ``intercept_scaling = 1``, penalised, so no equality constraint):
    ``w~ = sum_i alpha_i t_i x~_i``; the primal ``1/2 |w~|^2 + sum_i C s_i hinge_i`` >= the dual
    ``sum alpha - 1/2 |w~|^2``, their gap <= 1e-6 (1 + primal) at ``tol=1e-10``, and KKT:
    ``0 <= alpha_i <= C s_i``, margins >= 1 at ``alpha = 0``, <= 1 at the bound, = 1 between
    (slack 1e-6)."""
    X, y, _ = make_data(seed, "binary")
    w = np.asarray(w)
    p = svm.fit_linear_svm(jnp.asarray(X), jnp.asarray(y), C=C, loss="hinge", tol=1e-10, max_iter=20_000,
                           sample_weight=jnp.asarray(w))
    t = 2.0 * y - 1.0
    beta = np.asarray(p.dual_coef)
    alpha = beta * t
    Xa = np.concatenate([X, np.ones((N_SAMPLES, 1))], axis=1)
    w_aug = Xa.T @ beta
    np.testing.assert_allclose(w_aug, np.append(np.asarray(p.coef), float(p.intercept)), rtol=1e-8, atol=1e-10)
    margins = t * (Xa @ w_aug)
    quad = w_aug @ w_aug
    primal = 0.5 * quad + np.sum(C * w * np.maximum(0.0, 1.0 - margins))
    dual = alpha.sum() - 0.5 * quad
    assert -1e-9 * (1 + primal) <= primal - dual <= 1e-6 * (1 + primal), (primal, dual)
    bound = C * w
    assert np.all(alpha >= -1e-12) and np.all(alpha <= bound * (1 + 1e-12))
    at_zero, at_bound = alpha <= 1e-10 * bound, alpha >= bound * (1 - 1e-10)
    free = ~at_zero & ~at_bound
    assert np.all(margins[at_zero] >= 1 - 1e-6)
    assert np.all(margins[at_bound] <= 1 + 1e-6)
    np.testing.assert_allclose(margins[free], 1.0, atol=1e-6)
