"""partial_fit of the SGD estimators (SGDClassifier, SGDRegressor) and the functional
partial_fit_sgd_regressor; the SGDClassifier estimator against its core and scikit-learn; sparse
input equal to dense.

References: the ridge closed form (scikit-learn's Ridge) as the fixed point of full-batch
gradient descent (exact to 1e-8 after enough epochs of a well-conditioned problem), scikit-learn's
SGDClassifier (held-out accuracy), the functional fit on unpadded data (the estimator's padding
is invisible, to the bit), and the dense fit for sparse X (1e-10). float64.
"""

import jax
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import Ridge as SkRidge
from sklearn.linear_model import SGDClassifier as SkSGD
from sklearn.preprocessing import StandardScaler

from jaxclassic.estimators import SGDClassifier, SGDRegressor
from jaxclassic.linear import fit_sgd_classifier, partial_fit_sgd_regressor
from jaxclassic.validation import key_from_seed


@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    X = StandardScaler().fit_transform(X)[:, :10]
    X[np.abs(X) < 0.3] = 0.0  # sparse enough to matter for the sparse tests
    return X[:300], y[:300], X[300:], y[300:]


@pytest.fixture(scope="module")
def regression():
    rng = np.random.RandomState(0)
    X = rng.randn(256, 4)
    y = X @ np.array([1.0, -2.0, 0.5, 3.0]) + 5.0 + 0.3 * rng.randn(256)
    return X, y


@pytest.mark.full
def test_classifier_estimator_equals_its_core_to_the_bit(cancer):
    # the estimator pads 300 rows to 512 with zero weights: appended, they change nothing
    X, y, _, _ = cancer
    est = SGDClassifier(loss="log_loss", alpha=1e-2, max_iter=5, tol=None, random_state=0).fit(X, y)
    core = fit_sgd_classifier(X, y, loss="log_loss", alpha=1e-2, max_iter=5, tol=None, key=key_from_seed(0))
    np.testing.assert_array_equal(est.coef_, core.coef)
    np.testing.assert_array_equal(est.intercept_, core.intercept)
    assert est.t_ == 5 * 300 + 1 and est.n_iter_ == 5


@pytest.mark.full
def test_classifier_partial_fit_matches_scikit_learn_on_new_rows(cancer):
    X, y, Xte, yte = cancer
    ours = SGDClassifier(loss="log_loss", alpha=1e-2, random_state=0)
    theirs = SkSGD(loss="log_loss", alpha=1e-2, random_state=0)
    for _ in range(3):
        for start in range(0, 300, 100):
            ours.partial_fit(X[start:start + 100], y[start:start + 100], classes=[0, 1])
            theirs.partial_fit(X[start:start + 100], y[start:start + 100], classes=[0, 1])
    assert ours.t_ == theirs.t_ == 901
    # the same objective's minimiser approached by both: held-out accuracy within 2 rows of 269
    assert abs(ours.score(Xte, yte) - theirs.score(Xte, yte)) <= 2 / len(yte) + 1e-12
    proba = ours.predict_proba(Xte)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-12)
    np.testing.assert_array_equal(ours.classes_[proba.argmax(axis=1)], ours.predict(Xte))


@pytest.mark.full  # the core's sparse == dense is in the fast tier (tests/linear/test_sgd_classifier.py)
def test_classifier_sparse_equals_dense(cancer):
    X, y, Xte, _ = cancer
    kw = dict(loss="modified_huber", alpha=1e-2, max_iter=3, tol=None, random_state=0)
    dense = SGDClassifier(**kw).fit(X, y)
    sparse = SGDClassifier(**kw).fit(sp.csr_matrix(X), y)
    np.testing.assert_allclose(sparse.coef_, dense.coef_, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(sparse.decision_function(sp.csc_matrix(Xte)), dense.decision_function(Xte),
                               rtol=1e-10, atol=1e-12)
    part = SGDClassifier(**kw).partial_fit(sp.csr_matrix(X), y, classes=[0, 1])
    one = SGDClassifier(**kw).partial_fit(X, y, classes=[0, 1])
    np.testing.assert_allclose(part.coef_, one.coef_, rtol=1e-10, atol=1e-12)


def test_classifier_bad_input(cancer):
    X, y, _, _ = cancer
    with pytest.raises(ValueError, match="classes must be passed"):
        SGDClassifier().partial_fit(X, y)
    est = SGDClassifier().partial_fit(X[:20], y[:20], classes=[0, 1])
    with pytest.raises(ValueError, match="do not exist"):
        est.partial_fit(X[:5], np.full(5, 7))
    assert not hasattr(SGDClassifier(loss="hinge"), "predict_proba")
    with pytest.raises(ValueError, match="loss"):
        SGDClassifier(loss="bogus").fit(X, y)


def test_regressor_partial_fit_full_batches_reach_ridge(regression):
    # full-batch gradient descent on J = sum w r^2 / (2 sum w) + l2/2 |b|^2 (intercept free): the
    # fixed point is ridge with alpha = l2 * n; on this well-conditioned problem 150 epochs of
    # step 0.5 contract the error by (1 - 0.5 * ~0.8)^150, far below the asserted 1e-8
    X, y = regression
    params = state = None
    for _ in range(150):
        params, state = partial_fit_sgd_regressor(params, state, X, y, learning_rate=0.5, schedule="constant",
                                                  batch_size=256, l2=0.01)
    ridge = SkRidge(alpha=0.01 * 256).fit(X, y)
    np.testing.assert_allclose(params.coef, ridge.coef_, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(float(params.intercept), ridge.intercept_, rtol=1e-8)
    assert int(params.n_iter) == 150 and float(state.t) == 151


@pytest.mark.full
def test_regressor_partial_fit_state_continues_and_zero_rows_change_nothing(regression):
    X, y = regression
    X, y = X[:64], y[:64]
    kw = dict(optimizer="adam", learning_rate=0.05, batch_size=8, key=jax.random.key(1))
    a = b = sa = sb = None
    for _ in range(2):
        a, sa = partial_fit_sgd_regressor(a, sa, X, y, **kw)
        b, sb = partial_fit_sgd_regressor(b, sb, np.vstack([X, np.full((7, 4), 1e6)]), np.r_[y, np.zeros(7)],
                                          sample_weight=np.r_[np.ones(64), np.zeros(7)], **kw)
    np.testing.assert_allclose(b.coef, a.coef, rtol=1e-12)
    np.testing.assert_allclose(b.intercept, a.intercept, rtol=1e-12)
    assert float(sa.t) == float(sb.t) == 2 * 8 + 1
    # Adam's moments ride in the state: a fresh state from the same params takes another step
    fresh, _ = partial_fit_sgd_regressor(a, None, X, y, **kw)
    cont, _ = partial_fit_sgd_regressor(a, sa, X, y, **kw)
    assert not np.allclose(fresh.coef, cont.coef)
    with pytest.raises(ValueError, match="schedule"):
        partial_fit_sgd_regressor(None, None, X, y, schedule="cosine")
    with pytest.raises(ValueError, match="state"):
        partial_fit_sgd_regressor(None, sa, X, y)


@pytest.mark.full
def test_regressor_estimator_partial_fit_and_sparse(regression):
    X, y = regression
    X = X.copy()
    X[np.abs(X) < 0.4] = 0.0
    est = SGDRegressor(learning_rate="constant", eta0=0.05, batch_size=16, random_state=0)
    for start in range(0, 256, 64):
        est.partial_fit(X[start:start + 64], y[start:start + 64])
    sparse = SGDRegressor(learning_rate="constant", eta0=0.05, batch_size=16, random_state=0)
    for start in range(0, 256, 64):
        sparse.partial_fit(sp.csr_matrix(X[start:start + 64]), y[start:start + 64])
    np.testing.assert_allclose(sparse.coef_, est.coef_, rtol=1e-10, atol=1e-12)
    assert est.t_ == 4 * 4 + 1 and est.n_iter_ == 4
    dense_fit = SGDRegressor(max_iter=3, random_state=0).fit(X, y)
    sparse_fit = SGDRegressor(max_iter=3, random_state=0).fit(sp.csc_matrix(X), y)
    np.testing.assert_allclose(sparse_fit.coef_, dense_fit.coef_, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(sparse_fit.predict(sp.csr_matrix(X)), dense_fit.predict(X), rtol=1e-10)
