"""Tests of jaxclassic/discriminant/discrete_nb.py (multinomial, Bernoulli, complement naive Bayes)
and of the Gaussian naive Bayes update (jaxclassic/streaming/discriminant.py, ``update_gaussian_nb``).

References: scikit-learn's MultinomialNB / BernoulliNB / ComplementNB (float64, the same formulas:
the differences are rounding, observed <= 1e-14, asserted to 1e-10 as issue 28 asks), the
one-shot fit for the batch updates (sums of the same counts: 1e-12), the dense fit for the sparse
path (the same products in another order: 1e-12), and scikit-learn's GaussianNB.partial_fit for
the Gaussian means (exact merge, 1e-10 relative).
"""

import warnings

import jax
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn import naive_bayes as sk_nb

from jaxclassic import _sparse
from jaxclassic import discriminant as D
from jaxclassic import streaming
from jaxclassic.discriminant import discrete_nb as dnb
from jaxclassic.streaming.discriminant import empty_gaussian_nb

TOL = 1e-10  # float64 against scikit-learn (issue 28); observed <= 1e-14
EXACT = 1e-12  # the same sums in another order (batches, sparse products)

RNG = np.random.default_rng(0)
N, D_FEATURES, N_CLASSES = 48, 10, 3
Y = np.arange(N) % N_CLASSES
# word counts whose rate depends on the class, a feature never seen in class 2 (column 0)
RATES = RNG.uniform(0.1, 1.5, size=(N_CLASSES, D_FEATURES))
RATES[2, 0] = 0.0
X = RNG.poisson(RATES[Y]).astype(np.float64)
W = RNG.uniform(0.2, 2.0, N)
X_NEW = RNG.poisson(0.8, size=(16, D_FEATURES)).astype(np.float64)

FITS = {"multinomial": (D.fit_multinomial_nb, sk_nb.MultinomialNB),
        "bernoulli": (D.fit_bernoulli_nb, sk_nb.BernoulliNB),
        "complement": (D.fit_complement_nb, sk_nb.ComplementNB)}
UPDATES = {"multinomial": D.update_multinomial_nb, "bernoulli": D.update_bernoulli_nb,
           "complement": D.update_complement_nb}

#: (kind, our keyword arguments, scikit-learn's)
CASES = [
    ("multinomial", {}, {}),
    ("multinomial", {"alpha": 0.3, "fit_prior": False}, {"alpha": 0.3, "fit_prior": False}),
    ("multinomial", {"priors": [0.2, 0.3, 0.5]}, {"class_prior": [0.2, 0.3, 0.5]}),
    ("multinomial", {"alpha": np.linspace(0.1, 2.0, D_FEATURES)}, {"alpha": np.linspace(0.1, 2.0, D_FEATURES)}),
    ("bernoulli", {}, {}),
    ("bernoulli", {"binarize": 1.5, "alpha": 0.5}, {"binarize": 1.5, "alpha": 0.5}),
    ("complement", {}, {}),
    ("complement", {"norm": True, "alpha": 0.7}, {"norm": True, "alpha": 0.7}),
]


def _maxdiff(a, b):
    return float(np.max(np.abs(np.asarray(a, np.float64) - np.asarray(b, np.float64))))


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("kind,ours,theirs", CASES, ids=lambda v: str(v) if isinstance(v, str) else "")
def test_equals_sklearn(kind, ours, theirs, weighted):
    fit, reference = FITS[kind]
    sw = W if weighted else None
    params = fit(X, Y, **ours, sample_weight=sw)
    ref = reference(**theirs).fit(X, Y, sample_weight=sw)
    assert _maxdiff(params.class_count, ref.class_count_) <= TOL
    assert _maxdiff(params.feature_count, ref.feature_count_) <= TOL
    assert _maxdiff(params.feature_log_prob, ref.feature_log_prob_) <= TOL
    assert _maxdiff(params.class_log_prior, ref.class_log_prior_) <= TOL
    assert _maxdiff(D.predict_proba(params, X_NEW), ref.predict_proba(X_NEW)) <= TOL
    assert _maxdiff(D.predict_log_proba(params, X_NEW), ref.predict_log_proba(X_NEW)) <= 1e-9
    assert np.array_equal(np.asarray(D.predict(params, X_NEW)), ref.predict(X_NEW))
    if kind == "complement":
        assert _maxdiff(params.feature_all, ref.feature_all_) <= TOL


@pytest.fixture
def no_densify(monkeypatch):
    """Any densifying of a scipy.sparse matrix fails the test."""
    def refuse(*args, **kwargs):
        raise AssertionError("a sparse X was densified")

    monkeypatch.setattr(_sparse, "densify", refuse)
    for cls in (sp.csr_matrix, sp.csc_matrix, sp.coo_matrix):
        monkeypatch.setattr(cls, "toarray", refuse)
        monkeypatch.setattr(cls, "todense", refuse)


@pytest.mark.parametrize("kind", list(FITS))
def test_sparse_equals_dense_and_is_never_densified(kind, no_densify):
    fit = FITS[kind][0]
    dense = fit(X, Y, sample_weight=W)
    for fmt in (sp.csr_matrix, sp.csc_matrix):
        sparse = fit(fmt(X), Y, sample_weight=W)
        for name, a, b in zip(dense._fields, dense, sparse):
            assert _maxdiff(a, b) <= EXACT, name
        assert _maxdiff(D.predict_proba(sparse, fmt(X_NEW)), D.predict_proba(dense, X_NEW)) <= EXACT
    # integer counts (CountVectorizer's int64) are read as floats
    as_int = fit(sp.csr_matrix(X.astype(np.int64)), Y, sample_weight=W)
    assert _maxdiff(as_int.feature_log_prob, dense.feature_log_prob) <= EXACT


def test_sparse_stored_values_are_bucketed():
    """Matrices of nearby numbers of stored values share one program: the BCOO's stored values
    are padded (value 0 at (0, 0), no influence) to a bucket."""
    fewer = X.copy()
    fewer[:3] = 0.0
    assert 64 < sp.csr_matrix(fewer).nnz < sp.csr_matrix(X).nnz <= 512
    a, _ = dnb._core.sparse_operand(sp.csr_matrix(X), np.float64)
    b, _ = dnb._core.sparse_operand(sp.csr_matrix(fewer), np.float64)
    assert a.data.shape == b.data.shape == (dnb._core.nnz_capacity(sp.csr_matrix(X).nnz),)
    assert np.asarray(a.todense()).tolist() == X.tolist()
    assert np.asarray(b.todense()).tolist() == fewer.tolist()


@pytest.mark.parametrize("kind", list(FITS))
def test_three_batches_equal_one_fit(kind):
    """partial_fit: counts added batch by batch (dense and sparse batches, the first batch missing
    class 2) give the one-shot fit."""
    fit, update = FITS[kind][0], UPDATES[kind]
    full = fit(X, Y, sample_weight=W)
    first = np.flatnonzero(Y < 2)[:10]
    rest = np.setdiff1d(np.arange(N), first)
    second, third = rest[:20], rest[20:]
    params = fit(X[first], Y[first], sample_weight=W[first], n_classes=N_CLASSES)
    params = update(params, sp.csr_matrix(X[second]), Y[second], sample_weight=W[second])
    params = update(params, X[third], Y[third], sample_weight=W[third])
    for name, a, b in zip(full._fields, full, params):
        assert _maxdiff(a, b) <= EXACT, name


def test_update_from_empty_params_equals_the_fit():
    """The estimators' first partial_fit starts from zero counts."""
    empty = dnb.empty_params("multinomial", N_CLASSES, D_FEATURES, np.float64)
    params = D.update_multinomial_nb(empty, X, Y, sample_weight=W)
    full = D.fit_multinomial_nb(X, Y, sample_weight=W)
    for name, a, b in zip(full._fields, full, params):
        assert _maxdiff(a, b) <= EXACT, name


@pytest.mark.parametrize("kind", list(FITS))
def test_zero_weight_rows_have_no_influence(kind):
    fit = FITS[kind][0]
    junk = np.full((5, D_FEATURES), 1e6)
    padded = fit(np.vstack([X, junk]), np.concatenate([Y, [2, 2, 2, 2, 2]]),
                 sample_weight=np.concatenate([W, np.zeros(5)]))
    plain = fit(X, Y, sample_weight=W)
    for name, a, b in zip(plain._fields, plain, padded):
        assert _maxdiff(a, b) <= EXACT, name


def test_integer_weights_equal_repeated_rows():
    k = np.arange(N) % 3
    weighted = D.fit_multinomial_nb(X, Y, sample_weight=k.astype(float))
    repeated = D.fit_multinomial_nb(np.repeat(X, k, axis=0), np.repeat(Y, k))
    assert _maxdiff(weighted.feature_log_prob, repeated.feature_log_prob) <= EXACT


def test_alpha_grid_is_a_vmap():
    alphas = np.array([0.1, 0.5, 1.0, 2.0])
    grid = jax.vmap(lambda a: D.fit_multinomial_nb(X, Y, alpha=a).feature_log_prob)(alphas)
    for a, row in zip(alphas, grid):
        assert _maxdiff(row, sk_nb.MultinomialNB(alpha=float(a)).fit(X, Y).feature_log_prob_) <= TOL


def test_alpha_zero_absent_words_say_nothing():
    """alpha=0: feature 0 never occurs in class 2 (log theta = -inf). A new row without feature 0
    gets finite scores (0 * log 0 = 0; scikit-learn's dense product gives NaN), a row with it
    rules class 2 out."""
    params = D.fit_multinomial_nb(X, Y, alpha=0.0)
    assert np.isneginf(np.asarray(params.feature_log_prob)[2, 0])
    rows = np.array([[0.0] + [1.0] * (D_FEATURES - 1), [1.0] * D_FEATURES])
    proba = np.asarray(D.predict_proba(params, rows))
    assert np.isfinite(proba).all()
    assert proba[1, 2] == 0.0 and proba[0, 2] > 0
    # the finite entries equal the unsmoothed frequencies
    counts = np.array([X[Y == k].sum(0) for k in range(N_CLASSES)])
    with np.errstate(divide="ignore"):
        expected = np.log(counts) - np.log(counts.sum(1, keepdims=True))
    assert _maxdiff(np.where(np.isfinite(expected), params.feature_log_prob, 0),
                    np.where(np.isfinite(expected), expected, 0)) <= EXACT
    bern = D.fit_bernoulli_nb(X, Y, alpha=0.0)
    assert np.isfinite(np.asarray(D.predict_proba(bern, rows))[0]).all()


def test_force_alpha_false_floors_alpha_with_scikit_learns_warning():
    with pytest.warns(UserWarning, match="alpha too small"):
        params = D.fit_multinomial_nb(X, Y, alpha=0.0, force_alpha=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = sk_nb.MultinomialNB(alpha=0.0, force_alpha=False).fit(X, Y)
    assert _maxdiff(params.feature_log_prob, ref.feature_log_prob_) <= TOL


# ----------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("kind", ["multinomial", "complement"])
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
def test_negative_counts_are_an_error_naming_X(kind, sparse):
    Xn = X.copy()
    Xn[3, 4] = -1.0
    with pytest.raises(ValueError, match=r"Negative values in data.*\bX\b"):
        FITS[kind][0](sp.csr_matrix(Xn) if sparse else Xn, Y)


def test_bernoulli_accepts_negative_values_it_binarizes():
    params = D.fit_bernoulli_nb(X - 1.0, Y, binarize=0.5)
    ref = sk_nb.BernoulliNB(binarize=0.5).fit(X - 1.0, Y)
    assert _maxdiff(params.feature_log_prob, ref.feature_log_prob_) <= TOL


def test_bernoulli_binarize_none_needs_binary_X():
    binary = (X > 0).astype(float)
    params = D.fit_bernoulli_nb(binary, Y, binarize=None)
    assert _maxdiff(params.feature_log_prob, sk_nb.BernoulliNB(binarize=None).fit(binary, Y).feature_log_prob_) <= TOL
    with pytest.raises(ValueError, match=r"\bX\b.*\[0, 1\].*binarize"):
        D.fit_bernoulli_nb(X, Y, binarize=None)
    with pytest.raises(ValueError, match=r"\bX\b.*\[0, 1\]"):
        D.predict(params, X)


@pytest.mark.parametrize("kwargs,error,pattern", [
    ({"alpha": -1.0}, ValueError, r"\balpha\b"),
    ({"alpha": np.ones(3)}, ValueError, r"\balpha\b.*one value per feature"),
    ({"alpha": "one"}, TypeError, r"\balpha\b"),
    ({"fit_prior": "yes"}, TypeError, r"\bfit_prior\b"),
    ({"priors": [0.5, 0.6, 0.1]}, ValueError, r"\bpriors\b"),
    ({"priors": [0.5, 0.5]}, ValueError, r"\bpriors\b"),
])
def test_bad_hyperparameters(kwargs, error, pattern):
    with pytest.raises(error, match=pattern):
        D.fit_multinomial_nb(X, Y, **kwargs)


def test_bad_update_input():
    params = D.fit_multinomial_nb(X, Y)
    with pytest.raises(ValueError, match=r"\bX\b has 3 features"):
        D.update_multinomial_nb(params, X[:, :3], Y)
    with pytest.raises(ValueError, match=r"\by\b.*n_classes=3"):
        D.update_multinomial_nb(params, X, Y + 1)
    with pytest.raises(TypeError, match="params must be MultinomialNBParams"):
        D.update_multinomial_nb(D.fit_complement_nb(X, Y), X, Y)
    with pytest.raises(ValueError, match=r"\bX\b has 3 features"):
        D.predict(params, sp.csr_matrix(X[:, :3]))


def test_sparse_bad_input():
    bad = sp.csr_matrix(X)
    bad.data[0] = np.nan
    with pytest.raises(ValueError, match=r"\bX\b.*NaN"):
        D.fit_multinomial_nb(bad, Y)
    with pytest.raises(ValueError, match=r"\bX and y\b"):
        D.fit_multinomial_nb(sp.csr_matrix(X), Y[:-1])


# ----------------------------------------------------------------------------- Gaussian update
XG = RNG.normal(size=(N, 4)) * np.array([1.0, 10.0, 100.0, 0.1]) + 50.0


def test_gaussian_update_in_three_batches_equals_one_fit():
    """Chan's merge of the class moments; epsilon from the variance of all rows seen."""
    params = empty_gaussian_nb(N_CLASSES, 4, np.float64)
    for rows in (slice(0, 7), slice(7, 30), slice(30, N)):
        params = streaming.update_gaussian_nb(params, XG[rows], Y[rows], sample_weight=W[rows])
    full = D.fit_gaussian_nb(XG, Y, sample_weight=W)
    for name, a, b in zip(full._fields, full, params):
        scale = max(1.0, float(np.max(np.abs(np.asarray(b)))))
        assert _maxdiff(a, b) / scale <= EXACT, name


def test_gaussian_update_means_equal_sklearn_partial_fit():
    """scikit-learn's partial_fit merges the same moments. Its epsilon comes from the last batch
    alone (and the previous batch's epsilon stays in the merged variance), ours from all rows: so
    compared with var_smoothing=0, where both are the exact merged variances."""
    ref = sk_nb.GaussianNB(var_smoothing=0.0)
    params = D.fit_gaussian_nb(XG[:20], Y[:20], var_smoothing=0.0)
    ref.partial_fit(XG[:20], Y[:20], classes=[0, 1, 2])
    params = streaming.update_gaussian_nb(params, XG[20:], Y[20:], var_smoothing=0.0)
    ref.partial_fit(XG[20:], Y[20:])
    assert _maxdiff(params.theta, ref.theta_) <= TOL * 50  # means of ~50
    assert _maxdiff(params.class_count, ref.class_count_) == 0
    assert (np.abs(np.asarray(params.var) - ref.var_) / ref.var_).max() <= TOL


def test_gaussian_update_bad_input():
    params = D.fit_gaussian_nb(XG, Y)
    with pytest.raises(ValueError, match=r"\bX\b has 2 features"):
        streaming.update_gaussian_nb(params, XG[:, :2], Y)
    with pytest.raises(ValueError, match=r"\bvar_smoothing\b"):
        streaming.update_gaussian_nb(params, XG, Y, var_smoothing=-1.0)
    with pytest.raises(ValueError, match=r"\bX and y\b"):
        streaming.update_gaussian_nb(params, XG, Y[:-1])
    with pytest.raises(TypeError, match="GaussianNBParams"):
        streaming.update_gaussian_nb(D.fit_multinomial_nb(X, Y), XG, Y)
