"""Tests of jaxclassic/linear/sgd_classifier.py (fit_sgd_classifier, partial_fit_sgd_classifier)
and of the SGDClassifier estimator.

References: the exact optimum of scikit-learn's SGDClassifier objective by scipy's L-BFGS (smooth
losses), scikit-learn's SGDClassifier (its objective after the same epochs, held-out accuracy,
its predict_proba formulas on the same coefficients), and exact identities of the algorithm
(partial_fit k times = fit with max_iter=k; appended zero-weight rows and sparse X change
nothing). float64 (the root conftest turns x64 on).
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import scipy.optimize
import scipy.sparse as sp
from sklearn.datasets import load_breast_cancer, load_iris
from sklearn.linear_model import SGDClassifier as SkSGD
from sklearn.preprocessing import StandardScaler

from jaxclassic.linear import fit_sgd_classifier, partial_fit_sgd_classifier, predict, predict_proba
from jaxclassic.linear.sgd_classifier import sgd_classifier_objective

ALPHA = 1e-2
EPOCHS = 40
KEY = jax.random.key(3)


@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    X = StandardScaler().fit_transform(X)[:, :10]
    return X[:300], y[:300], X[300:], y[300:]


def _objective(coef, intercept, X, y, loss, penalty="l2", l1_ratio=0.15):
    y_pm = np.where(y == 1, 1.0, -1.0)
    return float(sgd_classifier_objective(jnp.asarray(coef), jnp.asarray(intercept), jnp.asarray(X),
                                          jnp.asarray(y_pm), jnp.ones(len(y)), ALPHA, l1_ratio, loss=loss,
                                          penalty=penalty))


def _optimum(X, y, loss):
    """min J by L-BFGS on the same objective (the exact reference for a smooth loss)."""
    y_pm = jnp.asarray(np.where(y == 1, 1.0, -1.0))
    J = jax.jit(lambda wb: sgd_classifier_objective(wb[:-1], wb[-1], jnp.asarray(X), y_pm, jnp.ones(len(y)),
                                                    ALPHA, loss=loss))
    grad = jax.jit(jax.grad(J))
    res = scipy.optimize.minimize(lambda wb: float(J(jnp.asarray(wb))), np.zeros(X.shape[1] + 1),
                                  jac=lambda wb: np.asarray(grad(jnp.asarray(wb))), method="L-BFGS-B",
                                  options=dict(gtol=1e-12, ftol=1e-15, maxiter=10000))
    return res.fun


@pytest.fixture(scope="module")
def log_fit(cancer):
    X, y, _, _ = cancer
    return fit_sgd_classifier(X, y, loss="log_loss", alpha=ALPHA, tol=None, max_iter=EPOCHS, key=KEY)


def test_log_loss_reaches_the_optimum_to_1e_4(cancer, log_fit):
    # the objective definition is scikit-learn's (mean loss + alpha/2 |w|^2, intercept free); with
    # the 'optimal' 1/(alpha t) step, 40 epochs reach 2.5e-5 of the L-BFGS optimum (asserted 1e-4)
    X, y, _, _ = cancer
    ours = _objective(log_fit.coef[0], log_fit.intercept[0], X, y, "log_loss")
    best = _optimum(X, y, "log_loss")
    assert best <= ours <= best * (1 + 1e-4)
    assert float(log_fit.t) == EPOCHS * len(y) + 1  # scikit-learn's t_
    assert int(log_fit.n_iter) == EPOCHS and not bool(log_fit.converged)  # tol=None: all epochs


def test_held_out_accuracy_equals_scikit_learn(cancer, log_fit):
    X, y, Xte, yte = cancer
    sk = SkSGD(loss="log_loss", alpha=ALPHA, tol=None, max_iter=EPOCHS, random_state=0).fit(X, y)
    ours = float(np.mean(np.asarray(predict(log_fit, Xte)) == yte))
    # same optimum up to 1e-4 of the objective: held-out accuracy within one row in 269
    assert abs(ours - sk.score(Xte, yte)) <= 1.0 / len(yte) + 1e-12


@pytest.mark.full
@pytest.mark.parametrize("loss", ["modified_huber", "hinge"])
def test_margin_losses_near_the_optimum(cancer, loss):
    # WEAKER than log_loss: the last iterate of the 1/(alpha t) schedule still carries the noise of
    # its last steps, and with these non-smooth / piecewise-quadratic losses it ends 0.3-7 % above
    # the optimum after 40 epochs, depending on the key (scikit-learn's own run: modified_huber
    # 0.2220, 11 % above; hinge 0.17885, 0.4 % above). Asserted: 10 % for modified_huber (vs the
    # L-BFGS optimum, 0.20052), 2 % for hinge (vs scikit-learn after 1000 epochs, 0.17819).
    X, y, _, _ = cancer
    p = fit_sgd_classifier(X, y, loss=loss, alpha=ALPHA, tol=None, max_iter=EPOCHS, key=KEY)
    ours = _objective(p.coef[0], p.intercept[0], X, y, loss)
    if loss == "modified_huber":
        best = _optimum(X, y, loss)
        assert best <= ours <= best * 1.10
    else:
        sk = SkSGD(loss=loss, alpha=ALPHA, tol=None, max_iter=1000, random_state=0).fit(X, y)
        assert ours <= _objective(sk.coef_[0], sk.intercept_[0], X, y, loss) * 1.02


@pytest.mark.full
def test_partial_fit_k_times_equals_fit_with_k_epochs(cancer):
    X, y, _, _ = cancer
    X, y = X[:64], y[:64]
    fit = fit_sgd_classifier(X, y, loss="hinge", alpha=ALPHA, tol=None, max_iter=3, key=KEY)
    params = None
    for _ in range(3):
        params = partial_fit_sgd_classifier(params, X, y, n_classes=2, loss="hinge", alpha=ALPHA, key=KEY)
    np.testing.assert_array_equal(params.coef, fit.coef)
    np.testing.assert_array_equal(params.intercept, fit.intercept)
    assert float(params.t) == float(fit.t) == 3 * 64 + 1 and int(params.n_iter) == 3


@pytest.mark.full
def test_appended_zero_weight_rows_change_nothing(cancer):
    # the estimator layer pads with such rows: same order of the others, same t, same J
    X, y, _, _ = cancer
    X, y = X[:64], y[:64]
    rng = np.random.RandomState(0)
    w = rng.uniform(0.5, 2.0, 64)
    kw = dict(loss="modified_huber", alpha=ALPHA, tol=1e-4, max_iter=8, key=KEY, batch_size=4)
    base = fit_sgd_classifier(X, y, sample_weight=w, **kw)
    Xp = np.vstack([X, rng.randn(9, X.shape[1]) * 100])
    padded = fit_sgd_classifier(Xp, np.r_[y, np.ones(9, int)], sample_weight=np.r_[w, np.zeros(9)], **kw)
    np.testing.assert_allclose(padded.coef, base.coef, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(padded.intercept, base.intercept, rtol=1e-12, atol=1e-14)
    assert float(padded.t) == float(base.t) and int(padded.n_iter) == int(base.n_iter)


@pytest.mark.full
def test_sparse_equals_dense_one_vs_rest():
    X, y = load_iris(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    X[np.abs(X) < 0.5] = 0.0  # a real sparsity pattern
    kw = dict(loss="log_loss", penalty="elasticnet", alpha=1e-3, tol=None, max_iter=3, key=KEY)
    dense = fit_sgd_classifier(X, y, **kw)
    sparse = fit_sgd_classifier(sp.csr_matrix(X), y, **kw)
    assert dense.coef.shape == (3, 4)  # one-vs-rest: one row per class
    # the same updates; sums of the products in another order
    np.testing.assert_allclose(sparse.coef, dense.coef, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(predict_proba(sparse, sp.csc_matrix(X)), predict_proba(dense, X), rtol=1e-10)


@pytest.mark.full
def test_l1_gives_exact_zeros_and_the_same_objective_as_scikit_learn(cancer):
    # the proximal step zeroes coefficients exactly; its objective is no worse than scikit-learn's
    # truncated-gradient run after the same epochs (1e-2 relative slack: both are stochastic)
    X, y, _, _ = cancer
    X = np.hstack([X[:, :4], np.random.RandomState(1).randn(len(y), 6)])  # 6 pure-noise columns
    kw = dict(loss="log_loss", penalty="l1", alpha=0.05, tol=None, max_iter=10)
    p = fit_sgd_classifier(X, y, key=KEY, **kw)
    sk = SkSGD(random_state=0, **kw).fit(X, y)
    assert np.sum(np.asarray(p.coef)[0, 4:] == 0) >= 3
    obj = lambda c, b: float(sgd_classifier_objective(  # noqa: E731
        jnp.asarray(c), jnp.asarray(b), jnp.asarray(X), jnp.asarray(np.where(y == 1, 1.0, -1.0)), jnp.ones(len(y)),
        0.05, loss="log_loss", penalty="l1"))
    assert obj(p.coef[0], p.intercept[0]) <= obj(sk.coef_[0], sk.intercept_[0]) * (1 + 1e-2)


@pytest.mark.parametrize("loss", ["log_loss", "modified_huber"])
@pytest.mark.full
def test_predict_proba_is_scikit_learns_on_the_same_coefficients(loss):
    X, y = load_iris(return_X_y=True)
    p = fit_sgd_classifier(X, y, loss=loss, tol=None, max_iter=2, key=KEY)
    sk = SkSGD(loss=loss)
    sk.coef_, sk.intercept_, sk.classes_ = np.asarray(p.coef), np.asarray(p.intercept), np.arange(3)
    sk.n_features_in_ = 4
    sk.t_ = 1.0
    np.testing.assert_allclose(predict_proba(p, X), sk.predict_proba(X), rtol=1e-12, atol=1e-15)


@pytest.mark.full
def test_tol_rule_stops_early():
    X, y = load_iris(return_X_y=True)
    p = fit_sgd_classifier(StandardScaler().fit_transform(X), y, loss="hinge", alpha=1e-2, max_iter=200, key=KEY)
    assert bool(p.converged) and int(p.n_iter) < 200


def test_bad_input():
    X, y = np.random.RandomState(0).randn(10, 2), np.r_[np.zeros(5, int), np.ones(5, int)]
    with pytest.raises(ValueError, match="loss"):
        fit_sgd_classifier(X, y, loss="bogus")
    with pytest.raises(ValueError, match="penalty"):
        fit_sgd_classifier(X, y, penalty="l3")
    with pytest.raises(ValueError, match="alpha"):
        fit_sgd_classifier(X, y, alpha=0.0)  # the 'optimal' step 1/(alpha t) needs alpha > 0
    with pytest.raises(ValueError, match="l1_ratio"):
        fit_sgd_classifier(X, y, l1_ratio=1.5)
    with pytest.raises(ValueError, match="n_classes"):
        partial_fit_sgd_classifier(None, X, y, n_classes=1)
    with pytest.raises(ValueError, match="X"):
        fit_sgd_classifier(np.full((10, 2), np.nan), y)
    p = fit_sgd_classifier(X, y, max_iter=1)
    with pytest.raises(ValueError, match="predict_proba needs loss"):
        predict_proba(p, X)
