"""Regression tests from the review of the linear-chain CRF (jaxclassic/graphical/crf.py,
jaxclassic/estimators/crf.py).

1. float32 log Z with large weights. The fast forward step shifts the alphas and the
   transitions separately (``m = max alpha``, ``c_j = max_i A_ij``); when the best path into
   a label lies more than ~71 nats below ``m + c_j`` the shifted sum underflows in float32
   and was floored at ``tiny``: log Z came out too large (3% on T=500, weights ~ N(0, 100^2)),
   node marginals summed to 0 or 2. The fast pass now flags lost precision and log Z is
   recomputed with the textbook logsumexp. Reference: an independent float64 numpy
   forward algorithm (scipy's logsumexp) on the same float32-rounded weights; float32
   agrees to its rounding (relative 1e-6 of log Z ~ 1e4).
2. ChainCRF with labels mixing strings and numbers (or None): a KeyError / numpy's "'<' not
   supported" from deep inside; now a TypeError naming y.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from scipy.special import logsumexp

from jaxclassic.graphical import _crf_packing, crf

L, F, K, T = 4, 6, 2, 24
log_partition = jax.jit(crf.log_partition)
marginals = jax.jit(crf.marginals)


def _large(dtype, scale=100.0, seed=0):
    rng = np.random.default_rng(seed)
    parts = [scale * rng.normal(size=s) for s in [(F, L), (L, L), (L,), (L,)]]
    return crf.CRFParams(*(jnp.asarray(p, dtype) for p in parts), 0, True)


def _np_log_z(params, x, n):
    W, A, b, e = (np.asarray(a, np.float64) for a in params[:4])
    u = np.array([sum((W[i] for i in row if i >= 0), np.zeros(L)) for row in x[:n]])
    alpha = b + u[0]
    for t in range(1, n):
        alpha = u[t] + logsumexp(alpha[:, None] + A, axis=0)
    return logsumexp(alpha + e)


def _np_score(params, x, y, n):
    W, A, b, e = (np.asarray(a, np.float64) for a in params[:4])
    u = np.array([sum((W[i] for i in row if i >= 0), np.zeros(L)) for row in x[:n]])
    return b[y[0]] + e[y[n - 1]] + u[np.arange(n), y[:n]].sum() + A[y[: n - 1], y[1:n]].sum()


def _sequences(seed=1, n_seq=3):
    rng = np.random.default_rng(seed)
    X = rng.integers(-1, F, size=(n_seq, T, K)).astype(np.int32)
    y = rng.integers(0, L, size=(n_seq, T)).astype(np.int32)
    lengths = np.array([T, 7, 1, 15, 24, 3][:n_seq], np.int32)
    return X, y, lengths


@pytest.mark.full
def test_float32_log_partition_and_marginals_with_large_weights():
    p32 = _large(jnp.float32, seed=3)
    X, _, lengths = _sequences(seed=4)
    for x, n in zip(X, lengths):
        ref = _np_log_z(p32, x, n)
        got = float(log_partition(p32, jnp.asarray(x), n))
        np.testing.assert_allclose(got, ref, rtol=2e-6)
        node, pair = marginals(p32, jnp.asarray(x), n)
        assert node.dtype == jnp.float32
        np.testing.assert_allclose(np.asarray(node)[:n].sum(axis=1), 1.0, atol=1e-5)
        np.testing.assert_allclose(np.asarray(pair)[: n - 1].sum(axis=(1, 2)), 1.0, atol=1e-5)
        # the float64 marginals of the same (float32-rounded) weights
        p64 = crf.CRFParams(*(a.astype(jnp.float64) for a in p32[:4]), 0, True)
        np.testing.assert_allclose(np.asarray(node), np.asarray(marginals(p64, jnp.asarray(x), n)[0]), atol=1e-4)


def test_float32_training_objectives_with_large_weights():
    # the batched NLL (padded form) and the packed objective the fit minimises
    p32 = _large(jnp.float32, seed=3)
    X, y, lengths = _sequences(seed=4, n_seq=6)
    ref = np.array([_np_log_z(p32, x, n) for x, n in zip(X, lengths)])
    score = np.array([_np_score(p32, x, t, n) for x, t, n in zip(X, y, lengths)])
    nll = jax.jit(crf.negative_log_likelihood)(p32, jnp.asarray(X), jnp.asarray(y), jnp.asarray(lengths))
    assert nll.dtype == jnp.float32
    np.testing.assert_allclose(np.asarray(nll), ref - score, rtol=0, atol=2e-6 * np.abs(ref).max())
    weight = jnp.asarray([1.0, 2.0, 0.0, 1.0, 0.5, 1.0], jnp.float32)
    packed = _crf_packing.pack(X, y, lengths, row_multiple=1)
    objective = jax.jit(lambda th, pk, w: _crf_packing.packed_objective(
        th, pk, jnp.float32(0.0), w, crf._unary))
    got = objective(tuple(p32[:4]), packed, weight)
    expected = np.sum(np.asarray(weight) * (ref - score)) / float(weight.sum())
    np.testing.assert_allclose(float(got), expected, rtol=1e-5)


def test_chaincrf_mixed_label_types_are_a_type_error():
    from jaxclassic.estimators import ChainCRF

    X = [["a", "b"], ["c"]]
    with pytest.raises(TypeError, match=r"y must hold labels that are all strings or all numbers, got \['number', 'str'\]"):
        ChainCRF().fit(X, [[0, "N"], ["V"]])
    with pytest.raises(TypeError, match=r"y must hold labels that are all strings or all numbers, got \['NoneType', 'str'\]"):
        ChainCRF().fit(X, [[None, "N"], ["V"]])


@pytest.mark.full
def test_chaincrf_in_grid_search_with_a_label_unseen_in_a_training_fold():
    # ChainCRF.score raised ValueError on a label unseen in fit, so GridSearchCV scored NaN
    # for every candidate whenever a rare label fell in a validation fold only. Now those
    # tokens count as errors. (Same shape buckets as tests/estimators/test_crf.py's
    # token-string fit: 3 labels, T <= 8, one attribute a token; c2 is traced: one compile.)
    from sklearn.model_selection import GridSearchCV

    from jaxclassic.estimators import ChainCRF

    X = [["the", "dog"], ["runs"], ["a", "cat"], ["sleeps"], ["the", "cat"], ["hey", "runs"]]
    y = [["D", "N"], ["V"], ["D", "N"], ["V"], ["D", "N"], ["UH", "V"]]
    split = [(np.arange(4), np.arange(4, 6))]
    search = GridSearchCV(ChainCRF(), {"c2": [0.01, 10.0]}, cv=split, error_score="raise",
                          refit=False).fit(X, y)
    model = ChainCRF(c2=0.01).fit(X[:4], y[:4])
    pred = model.predict(X[4:])
    assert pred[0] == ["D", "N"]
    hits = sum(a == b for p, t in zip(pred, y[4:]) for a, b in zip(p, t))
    assert hits <= 3  # "UH" is never predicted
    np.testing.assert_allclose(search.cv_results_["mean_test_score"][0], hits / 4)
    assert np.isfinite(search.cv_results_["mean_test_score"]).all()


@pytest.mark.full
def test_batch_marginals_equal_per_sequence_marginals():
    # ChainCRF.predict_marginals uses the batched form (one fallback branch for the batch);
    # it equals marginals() sequence by sequence, on the exact path (large float32 weights)
    # and on the fast one (small float64 weights)
    X, _, lengths = _sequences(seed=4)
    for params, atol in [(_large(jnp.float32, seed=3), 1e-5), (_large(jnp.float64, scale=1.0), 1e-12)]:
        node, pair = jax.jit(crf._batch_marginals)(params, jnp.asarray(X), jnp.asarray(lengths))
        for i, (x, n) in enumerate(zip(X, lengths)):
            ref_node, ref_pair = marginals(params, jnp.asarray(x), n)
            np.testing.assert_allclose(np.asarray(node[i]), np.asarray(ref_node), atol=atol)
            np.testing.assert_allclose(np.asarray(pair[i]), np.asarray(ref_pair), atol=atol)
