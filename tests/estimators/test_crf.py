"""Tests of jaxclassic/estimators/crf.py (ChainCRF, sklearn-crfsuite's interface).

The maths is tested in tests/graphical/test_crf.py (the full CoNLL-2000 comparison with
python-crfsuite is there); here: the wrapper equals the functional core, weights and padding
have no influence, the sklearn-crfsuite output formats, and the bad input. One shape bucket
(128 sequences x 64 tokens x 8 features) for every fit, so the fit compiles once.
"""

import numpy as np
import pytest

pytest.importorskip("sklearn")

import jax.numpy as jnp  # noqa: E402
from sklearn.base import clone  # noqa: E402
from sklearn.exceptions import NotFittedError  # noqa: E402

from jaxclassic.datasets import load_conll2000_chunking  # noqa: E402
from jaxclassic.estimators import ChainCRF  # noqa: E402
from jaxclassic.graphical import crf  # noqa: E402
from jaxclassic.graphical._crf_features import chunking_features, index_features  # noqa: E402

POS, CHUNKS = load_conll2000_chunking(return_X_y=True)
X_ALL = [chunking_features(p) for p in POS]
TRAIN, TEST = slice(0, 100), slice(800, 830)


@pytest.fixture(scope="module")
def fitted():
    return ChainCRF(c2=1.0).fit(X_ALL[TRAIN], CHUNKS[TRAIN])


@pytest.mark.full
def test_equals_functional_core(fitted):
    # the core on the wrapper-free encoding, labels coded by the sorted classes. Padded to
    # the estimator's buckets (64 tokens, 8 attributes, 128 sequences with 28 of weight 0 and
    # length 1, the feature-table rows) so the packed problem has the fixture's shapes and
    # the fit reuses its compiled program (the core's padding is built here, not by ChainCRF)
    idx, lengths, vocab = index_features(X_ALL[TRAIN], max_length=64, max_active=8)
    assert vocab == fitted.vocabulary_
    classes = sorted({c for s in CHUNKS[TRAIN] for c in s})
    assert fitted.classes_.tolist() == classes
    y = np.zeros((128, 64), np.int32)
    for i, s in enumerate(CHUNKS[TRAIN]):
        y[i, : len(s)] = [classes.index(c) for c in s]
    idx = np.concatenate([idx, np.full((28, 64, 8), -1, np.int32)])
    lengths = np.r_[lengths, np.ones(28, np.int32)]
    weight = np.r_[np.ones(100), np.zeros(28)]
    n_rows = fitted.params_.emission.shape[0]  # the feature-table bucket
    core = crf.fit_crf(idx, y, lengths=lengths, c2=1.0, sample_weight=weight, n_labels=len(classes),
                       n_features=n_rows)
    # the same problem: the weights agree to rounding (the optimiser runs the same steps)
    np.testing.assert_allclose(fitted.params_.transition, np.asarray(core.transition), atol=2e-3)
    np.testing.assert_allclose(fitted.params_.emission, np.asarray(core.emission), atol=2e-3)
    test_idx, test_len, _ = index_features(X_ALL[TEST], vocab)
    pred = np.asarray(crf.predict(core, jnp.asarray(test_idx), jnp.asarray(test_len)))
    expected = [[classes[k] for k in row[:n]] for row, n in zip(pred, test_len)]
    assert fitted.predict(X_ALL[TEST]) == expected


@pytest.mark.full
def test_zero_weight_sequences_have_no_influence(fitted):
    # 20 more sequences of weight 0 (with 3 new attributes the vocabulary takes in). Short
    # ones (<= 8 tokens): they fill the packed rows' free room, so the fit has the fixture's
    # shapes (128 x 64 x 8, 40 packed rows) and reuses its compiled program: the same model
    extra = [i for i in range(100, 800) if len(POS[i]) <= 8][:20]
    X = X_ALL[TRAIN] + [X_ALL[i] for i in extra]
    y = CHUNKS[TRAIN] + [CHUNKS[i] for i in extra]
    w = np.r_[np.ones(100), np.zeros(20)]
    weighted = ChainCRF(c2=1.0).fit(X, y, sample_weight=w)
    assert len(weighted.vocabulary_) == len(fitted.vocabulary_) + 3
    assert weighted.classes_.tolist() == fitted.classes_.tolist()
    np.testing.assert_allclose(weighted.params_.transition, fitted.params_.transition, atol=1e-9)
    rows = [weighted.vocabulary_[name] for name in fitted.vocabulary_]
    np.testing.assert_allclose(weighted.params_.emission[rows], fitted.params_.emission[: len(rows)], atol=1e-9)
    assert weighted.predict(X_ALL[TEST]) == fitted.predict(X_ALL[TEST])


@pytest.mark.full
def test_score_and_marginals_formats(fitted):
    pred = fitted.predict(X_ALL[TEST])
    assert [len(p) for p in pred] == [len(s) for s in CHUNKS[TEST]]
    hits = sum(a == b for p, t in zip(pred, CHUNKS[TEST]) for a, b in zip(p, t))
    assert fitted.score(X_ALL[TEST], CHUNKS[TEST]) == hits / sum(map(len, CHUNKS[TEST]))
    assert fitted.score(X_ALL[TEST], CHUNKS[TEST]) > 0.85  # 100 training sentences
    marg = fitted.predict_marginals(X_ALL[TEST])
    assert [len(m) for m in marg] == [len(s) for s in CHUNKS[TEST]]
    for seq in marg:
        for token in seq:
            assert list(token) == fitted.classes_.tolist()
            assert abs(sum(token.values()) - 1.0) < 1e-9
    # equal to the core's marginals of the same sequence
    idx, n, _ = index_features(X_ALL[TEST][:1], fitted.vocabulary_)
    node, _ = crf.marginals(fitted.params_, jnp.asarray(idx[0]), int(n[0]))
    np.testing.assert_allclose([list(t.values()) for t in marg[0]], np.asarray(node), atol=1e-9)


@pytest.mark.full
def test_length_one_and_token_strings():
    model = ChainCRF(c2=0.01).fit([["the", "dog"], ["runs"]], [["D", "N"], ["V"]])
    assert model.predict([["runs"], ["the", "dog"]]) == [["V"], ["D", "N"]]
    assert clone(model).get_params() == {"c2": 0.01, "max_iter": 100, "tol": 1e-3, "memory_size": 10, "verbose": 0}


# ------------------------------------------------------------------ bad input


def test_bad_input_length_mismatch():
    with pytest.raises(ValueError, match=r"y\[1\] has 1 labels but X\[1\] has 2 tokens"):
        ChainCRF().fit([["a"], ["b", "c"]], [["A"], ["B"]])
    with pytest.raises(ValueError, match=r"y must hold one label sequence per sequence of X \(2\), got 1"):
        ChainCRF().fit([["a"], ["b"]], [["A"]])


def test_bad_input_empty_sequence():
    with pytest.raises(ValueError, match=r"X\[1\] is an empty sequence"):
        ChainCRF().fit([["a"], []], [["A"], []])


@pytest.mark.full
def test_unknown_labels_at_score_count_as_errors(fitted):
    # a label unseen in fit can never be predicted: its token is an error (not a ValueError,
    # which made GridSearchCV score NaN on every fold holding a rare label)
    y = [list(s) for s in CHUNKS[TEST]]
    y[0][0] = "B-LST"
    pred = fitted.predict(X_ALL[TEST])
    hits = sum(a == b for p, t in zip(pred, y) for a, b in zip(p, t))
    assert fitted.score(X_ALL[TEST], y) == hits / sum(map(len, y))
    assert fitted.score(X_ALL[TEST], y) < fitted.score(X_ALL[TEST], CHUNKS[TEST])


def test_bad_input_negative_c2():
    with pytest.raises(ValueError, match=r"c2 must be >= 0.0, got -1"):
        ChainCRF(c2=-1).fit([["a"]], [["A"]])


def test_bad_input_not_fitted_and_real_values():
    with pytest.raises(NotFittedError):
        ChainCRF().predict([["a"]])
    with pytest.raises(ValueError, match=r"feature 'len' has value 3"):
        ChainCRF().fit([[{"len": 3}]], [["A"]])
