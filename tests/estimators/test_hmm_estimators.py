"""The hmmlearn-compatible estimators (jaxclassic/estimators/hmm.py) beside hmmlearn 0.3.3.

Same start (attributes set, ``init_params=""`` on both sides): Baum--Welch parameters after
``N_ITER`` iterations to 1e-5, ``score`` to 1e-6, ``predict`` (Viterbi) identical,
``predict_proba`` to 1e-6 (observed ~1e-13: the same arithmetic). hmmlearn's GaussianHMM runs
with ``covars_prior=0``, ours with ``reg_covar=0`` (the two regularisations differ, module
docstring).
"""

import numpy as np
import pytest

from jaxclassic.estimators import CategoricalHMM, GaussianHMM
from jaxclassic.exceptions import ConvergenceWarning

H = pytest.importorskip("hmmlearn.hmm")

K = 3
N_ITER = 4
LENGTHS = [9, 1, 14, 6]
RNG = np.random.default_rng(1)
PI = RNG.dirichlet(np.ones(K))
A = RNG.dirichlet(np.ones(K), K)
B = RNG.dirichlet(np.ones(4), K)
X_CAT = RNG.integers(0, 4, sum(LENGTHS))[:, None]
X_GAUSS = RNG.normal(size=(sum(LENGTHS), 2)) + np.repeat([0.0, 2.0, -2.0, 1.0], LENGTHS)[:, None]
MEANS = np.array([[0.0, 0.0], [2.0, 2.0], [-2.0, 1.0]])
COVARS = np.array([[1.0, 0.5], [0.8, 1.2], [1.5, 0.7]])


def _set(model, **attrs):
    for k, v in attrs.items():
        setattr(model, k, v)
    return model


@pytest.mark.full
def test_categorical_equals_hmmlearn():
    ours = _set(CategoricalHMM(K, n_iter=N_ITER, tol=0.0, init_params=""),
                startprob_=PI, transmat_=A, emissionprob_=B)
    ref = _set(H.CategoricalHMM(K, n_iter=N_ITER, tol=0.0, init_params="", implementation="log"),
               startprob_=PI, transmat_=A, emissionprob_=B)
    with pytest.warns(ConvergenceWarning, match="n_iter=4"):
        ours.fit(X_CAT, LENGTHS)
    ref.fit(X_CAT, LENGTHS)
    for name in ("startprob_", "transmat_", "emissionprob_"):
        np.testing.assert_allclose(getattr(ours, name), getattr(ref, name), atol=1e-5)
    np.testing.assert_allclose(ours.monitor_history_, list(ref.monitor_.history), atol=1e-6)
    assert ours.score(X_CAT, LENGTHS) == pytest.approx(ref.score(X_CAT, LENGTHS), abs=1e-6)
    np.testing.assert_array_equal(ours.predict(X_CAT, LENGTHS), ref.predict(X_CAT, LENGTHS))
    np.testing.assert_allclose(ours.predict_proba(X_CAT, LENGTHS), ref.predict_proba(X_CAT, LENGTHS),
                               atol=1e-6)
    lp, path = ours.decode(X_CAT, LENGTHS)
    ref_lp, ref_path = ref.decode(X_CAT, LENGTHS)
    assert lp == pytest.approx(ref_lp, abs=1e-6)
    np.testing.assert_array_equal(path, ref_path)


@pytest.mark.full
@pytest.mark.parametrize("ct", ["diag", "full"])
def test_gaussian_equals_hmmlearn(ct):
    covars = COVARS if ct == "diag" else np.stack([np.diag(c) + 0.1 for c in COVARS])
    ours = _set(GaussianHMM(K, covariance_type=ct, n_iter=N_ITER, tol=0.0, reg_covar=0.0,
                            init_params=""),
                startprob_=PI, transmat_=A, means_=MEANS, covars_=covars)
    ref = _set(H.GaussianHMM(K, covariance_type=ct, n_iter=N_ITER, tol=0.0, covars_prior=0.0,
                             init_params="", implementation="log"),
               startprob_=PI, transmat_=A, means_=MEANS, covars_=covars)
    with pytest.warns(ConvergenceWarning):
        ours.fit(X_GAUSS, LENGTHS)
    ref.fit(X_GAUSS, LENGTHS)
    for name in ("startprob_", "transmat_", "means_", "covars_"):
        np.testing.assert_allclose(getattr(ours, name), getattr(ref, name), atol=1e-5)
    assert ours.score(X_GAUSS, LENGTHS) == pytest.approx(ref.score(X_GAUSS, LENGTHS), abs=1e-6)
    np.testing.assert_array_equal(ours.predict(X_GAUSS, LENGTHS), ref.predict(X_GAUSS, LENGTHS))
    ll, post = ours.score_samples(X_GAUSS, LENGTHS)
    ref_ll, ref_post = ref.score_samples(X_GAUSS, LENGTHS)
    assert ll == pytest.approx(ref_ll, abs=1e-6)
    np.testing.assert_allclose(post, ref_post, atol=1e-6)


def test_partial_init_params_keep_the_set_attributes():
    """init_params="c": startprob_, transmat_, means_ come from the attributes; params="c"
    leaves them unchanged by EM."""
    m = _set(GaussianHMM(K, init_params="c", params="c", n_iter=2, tol=0.0, random_state=0),
             startprob_=PI, transmat_=A, means_=MEANS)
    with pytest.warns(ConvergenceWarning):
        m.fit(X_GAUSS, LENGTHS)
    np.testing.assert_allclose(m.startprob_, PI)
    np.testing.assert_allclose(m.means_, MEANS)
    assert m.covars_.shape == (K, 2, 2)


@pytest.mark.full
def test_random_fit_sample_and_float32():
    m = GaussianHMM(2, n_iter=20, random_state=0).fit(X_GAUSS.astype(np.float32), LENGTHS)
    assert m.means_.dtype == np.float32
    X, Z = m.sample(15)
    assert X.shape == (15, 2) and Z.shape == (15,) and set(Z) <= {0, 1}
    c = CategoricalHMM(2, n_iter=20, random_state=0).fit(X_CAT, LENGTHS)
    Xc, Zc = c.sample(5, random_state=1)
    assert Xc.shape == (5, 1) and Xc.dtype == np.int64 and c.n_features_ == 4


@pytest.mark.full
def test_bad_input():
    with pytest.raises(ValueError, match="init_params must be a string of the letters 'ste'"):
        CategoricalHMM(2, init_params="x").fit(X_CAT)
    with pytest.raises(ValueError, match="startprob_ must be set before fit"):
        CategoricalHMM(2, init_params="te").fit(X_CAT)
    with pytest.raises(ValueError, match="X must be one column of symbols"):
        CategoricalHMM(2).fit(X_GAUSS)
    with pytest.raises(ValueError, match="lengths must sum to the number of rows of X"):
        GaussianHMM(2).fit(X_GAUSS, [3, 4])
    m = CategoricalHMM(2, n_iter=2, random_state=0)
    with pytest.warns(ConvergenceWarning):
        m.fit(X_CAT, LENGTHS)
    with pytest.raises(ValueError, match="X holds symbol 7, outside the model's range 0..3"):
        m.predict(np.array([[0], [7]]))
    with pytest.raises(ValueError, match="algorithm must be 'viterbi'"):
        m.decode(X_CAT, LENGTHS, algorithm="map")
