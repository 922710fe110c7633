"""Regression tests from the independent review of the HMM (fit_hmm, CategoricalHMM,
GaussianHMM): each test pins one defect found and fixed.

* A state that EM never visits keeps its covariance (it collapsed to ``reg_covar``, so a later
  prediction on that state saw a variance of 1e-6).
* Zero-probability evidence is a clear error, not a silent result: ``fit`` on data that the
  ``init`` gives probability 0 (EM learnt from the other sequences only and returned a model of
  score -inf); ``predict`` / ``predict_proba`` / ``decode`` of a sequence of probability 0
  (rows of zeros and an arbitrary path). ``score`` stays -inf, as hmmlearn's.
* Bad hyperparameters of the estimators are named as the user wrote them (``n_components``,
  ``n_iter``; the messages said ``n_states`` / ``max_iter``).

Data are float64 (the root conftest turns x64 on); tiny shapes, a few EM iterations.
"""

import numpy as np
import pytest

from jaxclassic.estimators import CategoricalHMM, GaussianHMM

H = pytest.importorskip("hmmlearn.hmm")

RNG = np.random.default_rng(0)
X_GAUSS = np.r_[RNG.normal(0, 1, (30, 1)), RNG.normal(5, 1, (30, 1))]
X_SYM = np.array([[0], [1], [2], [3], [0], [1]])


def _categorical(emissionprob):
    m = CategoricalHMM(2, n_features=4, init_params="", params="", n_iter=3)
    m.startprob_ = np.array([0.5, 0.5])
    m.transmat_ = np.array([[0.9, 0.1], [0.1, 0.9]])
    m.emissionprob_ = np.asarray(emissionprob, dtype=float)
    return m


@pytest.mark.full
def test_never_visited_state_keeps_its_covariance():
    """State 1 has start and transition probability 0: no expected count; EM keeps its mean and
    covariance exactly (before the fix its covariance became reg_covar = 1e-6)."""
    for ct, covars in [("diag", [[1.0], [3.0]]), ("spherical", [1.0, 3.0]),
                       ("full", [[[1.0]], [[3.0]]])]:
        m = GaussianHMM(2, covariance_type=ct, init_params="", n_iter=3)
        m.startprob_ = np.array([1.0, 0.0])
        m.transmat_ = np.eye(2)
        m.means_ = np.array([[2.0], [100.0]])
        m.covars_ = np.array(covars)
        m.fit(X_GAUSS)
        assert m.means_[1, 0] == 100.0, ct
        assert m.covars_[1, 0, 0] == 3.0, ct
        assert np.isfinite(m.covars_).all()


@pytest.mark.full
def test_fit_on_zero_probability_data_is_an_error():
    """Symbol 3 has probability 0 in every state of the init: EM cannot use the sequence."""
    m = _categorical([[1.0, 0, 0, 0], [0, 0.5, 0.5, 0]])
    m.params = "ste"
    with pytest.raises(ValueError, match="probability 0 under the initial parameters"):
        m.fit(X_SYM, [2, 2, 2])


@pytest.mark.full
def test_posteriors_and_paths_of_a_zero_probability_sequence_are_errors():
    m = _categorical([[1.0, 0, 0, 0], [0, 0.5, 0.5, 0]]).fit(np.array([[0], [1]]))
    impossible = np.array([[3], [0]])
    for method in (m.predict, m.predict_proba, m.decode, m.score_samples):
        with pytest.raises(ValueError, match="sequence 0 of X has probability 0"):
            method(impossible)
    # score is the honest -inf, as hmmlearn's
    h = H.CategoricalHMM(2, n_features=4, init_params="", params="")
    h.startprob_, h.transmat_, h.emissionprob_ = m.startprob_, m.transmat_, m.emissionprob_
    assert m.score(impossible) == h.score(impossible) == -np.inf
    # a possible sequence next to it is still fine
    assert np.allclose(m.predict_proba(np.array([[0], [1]])).sum(axis=1), 1.0)


@pytest.mark.parametrize("Est, kwargs, name, match", [
    (CategoricalHMM, {"n_components": 0}, "n_components", "n_components must be >= 1, got 0"),
    (CategoricalHMM, {"n_iter": -1}, "n_iter", "n_iter must be >= 0, got -1"),
    (GaussianHMM, {"n_components": 0}, "n_components", "n_components must be >= 1, got 0"),
    (GaussianHMM, {"n_iter": -1}, "n_iter", "n_iter must be >= 0, got -1"),
])
def test_estimator_messages_name_the_estimator_arguments(Est, kwargs, name, match):
    X = X_SYM if Est is CategoricalHMM else X_GAUSS
    with pytest.raises(ValueError, match=match):
        Est(**kwargs).fit(X)


def test_estimator_float_argument_is_a_type_error():
    with pytest.raises(TypeError, match="n_components must be an int, got float 1.5"):
        CategoricalHMM(1.5).fit(X_SYM)


@pytest.mark.full
def test_float32_posteriors_of_a_long_sequence_stay_at_rounding_level():
    """T = 5000 in float32 against hmmlearn in float64, the same parameters. The posteriors
    divided by the one log p(x) of the last step carried the forward/backward rounding drift
    (|log alpha_t| grows like t; ulp(1.4e4) in float32 is 1e-3): a max error of 0.03 here
    (0.08 at T = 10,000). Normalised per step it is 1e-3; tolerance 5e-3. Score: relative
    1e-5 (float32 summation over 5000 steps)."""
    rng = np.random.default_rng(0)
    T = 5000
    z = np.cumsum(rng.random(T) < 0.05) % 2
    X = np.c_[rng.normal(z, 1.0), rng.normal(-z, 1.0)]
    m = GaussianHMM(2, init_params="", params="")
    m.startprob_ = np.array([0.5, 0.5])
    m.transmat_ = np.array([[0.95, 0.05], [0.05, 0.95]])
    m.means_ = np.array([[0.0, 0.0], [1.0, -1.0]])
    m.covars_ = np.ones((2, 2))
    m.fit(X[:4].astype(np.float32))
    h = H.GaussianHMM(2, init_params="", params="")
    h.startprob_, h.transmat_ = m.startprob_.astype(float), m.transmat_.astype(float)
    h.means_, h.covars_ = m.means_.astype(float), np.ones((2, 2))
    X32 = X.astype(np.float32)
    proba = m.predict_proba(X32)
    assert proba.dtype == np.float32
    np.testing.assert_allclose(proba, h.predict_proba(X), atol=5e-3)
    np.testing.assert_allclose(m.score(X32), h.score(X), rtol=1e-5)
    np.testing.assert_array_equal(m.predict(X32), h.predict(X))
