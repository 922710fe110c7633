"""Tests of jaxclassic/graphical/crf.py (linear-chain CRF) and its feature helper.

References: brute-force enumeration of every label path (log Z, Viterbi, expected feature
counts), an independent numpy log-space forward--backward (marginals), scipy's L-BFGS on the
enumerated objective (the fit), python-crfsuite on the bundled CoNLL-2000 chunking data
(accuracy). The root conftest turns x64 on: the small-chain references are float64 and
agree to 1e-10 (rounding of a few dozen terms).
"""

import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from scipy.special import logsumexp

from jaxclassic.graphical import crf
from jaxclassic.graphical._crf_features import chunking_features, index_features, item_attributes

L, T, F, K = 3, 4, 5, 2  # labels, padded length, features, active features per token
RNG = np.random.default_rng(0)
# jitted once here: eager calls of scans and their gradients compile op by op
log_partition = jax.jit(crf.log_partition)
marginals = jax.jit(crf.marginals)
viterbi = jax.jit(crf.viterbi)


def _params(rng=RNG, scale=1.0):
    return crf.CRFParams(
        jnp.asarray(scale * rng.normal(size=(F, L))),
        jnp.asarray(scale * rng.normal(size=(L, L))),
        jnp.asarray(scale * rng.normal(size=L)),
        jnp.asarray(scale * rng.normal(size=L)),
        0, True,
    )


def _sparse(rng, n_seq):
    X = rng.integers(-1, F, size=(n_seq, T, K)).astype(np.int32)
    return X


def _dense(rng, n_seq):
    return rng.normal(size=(n_seq, T, F))


# ------------------------------------------------------------------ numpy references


def _np_unary(params, x):
    W = np.asarray(params.emission)
    if np.issubdtype(x.dtype, np.integer):
        return np.array([sum((W[i] for i in row if i >= 0), np.zeros(L)) for row in x])
    return x @ W


def _np_score(params, unary, path):
    A, b, e = (np.asarray(a) for a in (params.transition, params.start, params.end))
    s = b[path[0]] + e[path[-1]] + sum(unary[t, l] for t, l in enumerate(path))
    return s + sum(A[i, j] for i, j in zip(path[:-1], path[1:]))


def _enumerate(params, x, n):
    """Every label path of length n and its score (the brute-force oracle), vectorised."""
    A, b, e = (np.asarray(a) for a in (params.transition, params.start, params.end))
    unary = _np_unary(params, x)
    paths = np.array(list(itertools.product(range(L), repeat=n)))
    scores = b[paths[:, 0]] + e[paths[:, -1]] + unary[np.arange(n), paths].sum(axis=1)
    scores = scores + A[paths[:, :-1], paths[:, 1:]].sum(axis=1)
    return [tuple(p) for p in paths], scores


def _np_forward_backward(params, x, n):
    """Log-space forward--backward in numpy (scipy's logsumexp): node and pair marginals."""
    A, b, e = (np.asarray(a) for a in (params.transition, params.start, params.end))
    u = _np_unary(params, x)[:n]
    alpha = np.zeros((n, L))
    beta = np.zeros((n, L))
    alpha[0] = b + u[0]
    for t in range(1, n):
        alpha[t] = u[t] + logsumexp(alpha[t - 1][:, None] + A, axis=0)
    beta[n - 1] = e
    for t in range(n - 2, -1, -1):
        beta[t] = logsumexp(A + (u[t + 1] + beta[t + 1])[None, :], axis=1)
    log_z = logsumexp(alpha[-1] + e)
    node = np.exp(alpha + beta - log_z)
    pair = np.array([np.exp(alpha[t - 1][:, None] + A + (u[t] + beta[t])[None, :] - log_z) for t in range(1, n)])
    return node, pair.reshape(n - 1, L, L), log_z


# ------------------------------------------------------------------ log Z, marginals, Viterbi


@pytest.mark.parametrize("form", ["sparse", "dense"])
def test_log_partition_equals_enumeration(form):
    rng = np.random.default_rng(1)
    params = _params(rng)
    X = _sparse(rng, 4) if form == "sparse" else _dense(rng, 4)
    for x, n in zip(X, [1, 2, 3, 4]):
        _, scores = _enumerate(params, x, n)
        # float64, at most 81 paths: agreement to rounding
        np.testing.assert_allclose(float(log_partition(params, jnp.asarray(x), n)), logsumexp(scores), rtol=0, atol=1e-10)


def test_log_partition_is_stable_for_large_weights():
    # weights of +-300 overflow exp in float64 without the shifts; log Z = max score + log(ties)
    params = _params(np.random.default_rng(2), scale=300.0)
    x = _sparse(np.random.default_rng(3), 1)[0]
    _, scores = _enumerate(params, x, T)
    np.testing.assert_allclose(float(log_partition(params, jnp.asarray(x))), logsumexp(scores), rtol=1e-12)


@pytest.mark.parametrize("n", [1, 2, 4])
def test_marginals_equal_forward_backward(n):
    rng = np.random.default_rng(4)
    params = _params(rng)
    x = _sparse(rng, 1)[0]
    node, pair = marginals(params, jnp.asarray(x), n)
    ref_node, ref_pair, _ = _np_forward_backward(params, x, n)
    np.testing.assert_allclose(np.asarray(node)[:n], ref_node, atol=1e-10)
    np.testing.assert_allclose(np.asarray(pair)[: n - 1], ref_pair, atol=1e-10)
    # positions past the length carry no probability
    assert np.all(np.asarray(node)[n:] == 0) and np.all(np.asarray(pair)[n - 1:] == 0)


def test_marginals_equal_enumeration():
    rng = np.random.default_rng(5)
    params = _params(rng)
    x = _dense(rng, 1)[0]
    paths, scores = _enumerate(params, x, T)
    prob = np.exp(scores - logsumexp(scores))
    ref = np.zeros((T, L))
    for p, w in zip(paths, prob):
        ref[np.arange(T), p] += w
    np.testing.assert_allclose(np.asarray(marginals(params, jnp.asarray(x))[0]), ref, atol=1e-10)


@pytest.mark.parametrize("n", [1, 3, 4])
def test_viterbi_equals_brute_force(n):
    rng = np.random.default_rng(6)
    params = _params(rng)
    for x in _sparse(rng, 3):
        paths, scores = _enumerate(params, x, n)
        labels, score = viterbi(params, jnp.asarray(x), n)
        assert np.asarray(labels).tolist() == list(paths[int(np.argmax(scores))]) + [-1] * (T - n)
        np.testing.assert_allclose(float(score), scores.max(), atol=1e-10)


def test_length_one_documented_result():
    # a length-1 sequence: log Z = logsumexp(b + u_1 + e), Viterbi = argmax(b + u_1 + e), no transition
    params = _params(np.random.default_rng(7))
    x = jnp.asarray([[0, 3]])
    first = np.asarray(params.start + params.emission[0] + params.emission[3] + params.end)
    np.testing.assert_allclose(float(log_partition(params, x)), logsumexp(first), atol=1e-12)
    assert np.asarray(viterbi(params, x)[0]).tolist() == [int(np.argmax(first))]
    node, pair = marginals(params, x)
    np.testing.assert_allclose(np.asarray(node)[0], np.exp(first - logsumexp(first)), atol=1e-12)
    assert pair.shape == (0, L, L)


# ------------------------------------------------------------------ gradient of the NLL


def test_nll_gradient_is_empirical_minus_expected_counts():
    """d/dtheta [sum_i (log Z_i - s(y_i)) + c2 |theta|^2] = expected - empirical + 2 c2 theta,
    the counts computed by enumerating every path (Sutton & McCallum 2012, eq. 5.6)."""
    rng = np.random.default_rng(8)
    params = _params(rng)
    X = _sparse(rng, 3)
    y = rng.integers(0, L, size=(3, T)).astype(np.int32)
    lengths = np.array([4, 2, 3], dtype=np.int32)
    c2 = 0.7
    theta = (params.emission, params.transition, params.start, params.end)
    grad = jax.jit(jax.grad(crf._objective))(theta, jnp.asarray(X), jnp.asarray(y), jnp.asarray(lengths), c2, jnp.ones(3))
    grad = [3.0 * np.asarray(g) for g in grad]  # _objective is J / sum of weights

    def counts(x, path):
        cW, cA, cb, ce = np.zeros((F, L)), np.zeros((L, L)), np.zeros(L), np.zeros(L)
        for t, l in enumerate(path):
            for i in x[t]:
                if i >= 0:
                    cW[i, l] += 1
        for i, j in zip(path[:-1], path[1:]):
            cA[i, j] += 1
        cb[path[0]] += 1
        ce[path[-1]] += 1
        return [cW, cA, cb, ce]

    expected = [np.zeros((F, L)), np.zeros((L, L)), np.zeros(L), np.zeros(L)]
    for x, labels, n in zip(X, y, lengths):
        paths, scores = _enumerate(params, x, n)
        prob = np.exp(scores - logsumexp(scores))
        for p, w in zip(paths, prob):
            for acc, c in zip(expected, counts(x, p)):
                acc += w * c
        for acc, c in zip(expected, counts(x, tuple(labels[:n]))):
            acc -= c
    for g, e, w in zip(grad, expected, theta):
        np.testing.assert_allclose(g, e + 2 * c2 * np.asarray(w), atol=1e-10)


# ------------------------------------------------------------------ the fit


N_REAL, N_SEQ, T_PAD = 6, 8, 6  # the fit tests share one shape (8, 6, K): one compile


def _small_problem(seed=9):
    """6 real sequences (lengths 1..4, labelled by a random CRF's Viterbi path) padded to T = 6
    with garbage past their lengths, and 2 garbage sequences meant for weight 0."""
    rng = np.random.default_rng(9)
    true = _params(rng, scale=2.0)
    X = _sparse(rng, N_REAL)
    lengths = np.array([4, 3, 4, 1, 2, 4], dtype=np.int32)
    y = np.array([np.asarray(viterbi(true, jnp.asarray(x), n)[0]) for x, n in zip(X, lengths)], dtype=np.int32)
    junk = np.random.default_rng(seed)  # everything the fit must ignore
    X = np.concatenate([X, junk.integers(-1, F, size=(N_REAL, T_PAD - T, K))], axis=1).astype(np.int32)
    y = np.concatenate([np.maximum(y, 0), junk.integers(0, L, size=(N_REAL, T_PAD - T))], axis=1)
    y[np.arange(T_PAD)[None, :] >= lengths[:, None]] = junk.integers(0, L, size=1)[0]
    X = np.concatenate([X, junk.integers(-1, F, size=(2, T_PAD, K))]).astype(np.int32)
    y = np.concatenate([y, junk.integers(0, L, size=(2, T_PAD))]).astype(np.int32)
    lengths = np.concatenate([lengths, junk.integers(1, T_PAD + 1, size=2)]).astype(np.int32)
    weight = np.array([1.0] * N_REAL + [0.0, 0.0])
    return X, y, lengths, weight


def _fit(X, y, lengths, weight, c2=0.3):
    """The fit of the small problems: one set of static arguments and shapes, one compile."""
    return crf.fit_crf(X, y, lengths=lengths, c2=c2, sample_weight=weight, n_features=F, n_labels=L,
                       tol=1e-8, max_iter=300)


@pytest.mark.full
def test_fit_equals_scipy_on_enumerated_objective():
    """The fit on padded sequences with two zero-weight sequences = scipy's L-BFGS on the
    objective enumerated over the 6 unpadded sequences alone."""
    scipy_optimize = pytest.importorskip("scipy.optimize")
    X, y, lengths, weight = _small_problem()
    c2 = 0.3
    shapes = [(F, L), (L, L), (L,), (L,)]
    sizes = [int(np.prod(s)) for s in shapes]

    def unpack(v):
        parts = np.split(v, np.cumsum(sizes)[:-1])
        return crf.CRFParams(*[p.reshape(s) for p, s in zip(parts, shapes)], 0, True)

    def objective(v):  # by enumeration, independent of the forward algorithm
        params = unpack(v)
        total = c2 * np.sum(v ** 2)
        for x, labels, n in zip(X[:N_REAL], y[:N_REAL], lengths[:N_REAL]):
            _, scores = _enumerate(params, x[:n], n)
            total += logsumexp(scores) - _np_score(params, _np_unary(params, x[:n]), tuple(labels[:n]))
        return total

    ref = scipy_optimize.minimize(objective, np.zeros(sum(sizes)), method="L-BFGS-B",
                                  options=dict(gtol=1e-10, ftol=1e-15, maxiter=1000))
    fitted = _fit(X, y, lengths, weight, c2)
    assert bool(fitted.converged)
    got = np.concatenate([np.ravel(a) for a in fitted[:4]])
    # strongly convex (c2 > 0): both optimisers stop at gradients ~1e-8 (scipy's by finite
    # differences), weights within ~1e-6
    np.testing.assert_allclose(got, ref.x, atol=1e-5)
    np.testing.assert_allclose(objective(got), ref.fun, rtol=1e-9)


@pytest.mark.full
def test_zero_weight_sequences_and_padding_have_no_influence():
    # other garbage in the zero-weight sequences and past the lengths: the same fit to rounding
    a = _fit(*_small_problem(seed=9))
    b = _fit(*_small_problem(seed=21))
    for u, v in zip(a[:4], b[:4]):
        np.testing.assert_allclose(np.asarray(u), np.asarray(v), rtol=0, atol=1e-12)


@pytest.mark.full
def test_padding_equals_unpadded():
    X, y, lengths, _ = _small_problem()
    params = _params(np.random.default_rng(10))
    for xp, n in zip(X, lengths):
        x = jnp.asarray(xp[:n])
        np.testing.assert_allclose(float(log_partition(params, jnp.asarray(xp), n)),
                                   float(log_partition(params, x)), atol=1e-12)
        assert np.asarray(viterbi(params, jnp.asarray(xp), n)[0]).tolist() == \
            np.asarray(viterbi(params, x)[0]).tolist() + [-1] * (T_PAD - n)
        for a, b in zip(marginals(params, jnp.asarray(xp), n), marginals(params, x)):
            np.testing.assert_allclose(np.asarray(a)[: len(b)], np.asarray(b), atol=1e-12)


@pytest.mark.full
def test_packed_objective_equals_padded():
    # the fit packs several sequences a row (jaxclassic/graphical/_crf_packing.py): the same
    # objective and gradient as one padded sequence a row, with weights (0 included)
    from jaxclassic.graphical import _crf_packing

    X, y, lengths, weight = _small_problem()
    weight = weight + np.r_[np.arange(N_REAL) * 0.25, 0.0, 0.0]
    packed = _crf_packing.pack(X, y, lengths, row_multiple=1)
    assert packed.X.shape[0] < len(X)  # 18 real positions into rows of 6
    params = _params(np.random.default_rng(13))
    theta = tuple(params[:4])
    args = (jnp.asarray(X), jnp.asarray(y), jnp.asarray(lengths))

    def padded(th):
        return crf._objective(th, *args, 0.3, jnp.asarray(weight))

    def packed_form(th):
        return _crf_packing.packed_objective(th, packed, 0.3, jnp.asarray(weight), crf._unary)

    v1, g1 = jax.jit(jax.value_and_grad(padded))(theta)
    v2, g2 = jax.jit(jax.value_and_grad(packed_form))(theta)
    np.testing.assert_allclose(float(v2), float(v1), rtol=1e-12)
    for a, b in zip(g2, g1):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), atol=1e-12)


@pytest.mark.full
def test_dense_float32_equals_sparse_and_keeps_dtype():
    # the dense form with the one-hot rows of the sparse indices is the same model; float32
    # input gives float32 params, equal to the float64 sparse fit to float32's optimum
    # (stopping at gradient norm 1e-4, about 1e-5 in the weights of this conditioned problem)
    X, y, lengths, weight = _small_problem()
    dense = np.zeros(X.shape[:2] + (F,), np.float32)
    for k in range(K):
        on = X[..., k] >= 0
        np.add.at(dense, (*np.nonzero(on), X[..., k][on]), 1.0)
    got = crf.fit_crf(dense, y, lengths=lengths, c2=0.3, sample_weight=weight.astype(np.float32),
                      tol=1e-4, max_iter=300)
    assert got.emission.dtype == jnp.float32 and got.transition.dtype == jnp.float32
    ref = _fit(X, y, lengths, weight)
    for a, b in zip(got[:4], ref[:4]):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), atol=1e-3)


@pytest.mark.full
def test_jit_vmap_and_no_retrace():
    rng = np.random.default_rng(11)
    params = _params(rng)
    X = jnp.asarray(_sparse(rng, 5))
    lengths = jnp.asarray([4, 1, 2, 3, 4])
    batched = jax.jit(jax.vmap(crf.log_partition, in_axes=(None, 0, 0)))(params, X, lengths)  # eager: op by op
    looped = [log_partition(params, x, n) for x, n in zip(X, lengths)]
    np.testing.assert_allclose(np.asarray(batched), np.asarray(looped), atol=1e-12)
    jitted = marginals(params, X[0], lengths[0])
    with jax.disable_jit():
        eager = crf.marginals(params, X[0], lengths[0])
    for a, b in zip(jitted, eager):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), atol=1e-12)
    # a grid of c2 is a vmap of the fit (c2 traced); it equals the loop
    problem = _small_problem()
    grid = [0.1, 1.0]
    vm = jax.vmap(lambda c: _fit(*problem, c2=c))(jnp.asarray(grid))
    for i, c in enumerate(grid):
        np.testing.assert_allclose(np.asarray(vm.emission[i]), np.asarray(_fit(*problem, c2=c).emission), atol=1e-7)
    # a second fit of the same shapes and another c2 does not retrace the jitted core
    before = crf._fit._cache_size()
    _fit(*problem, c2=0.5)
    assert crf._fit._cache_size() == before


# ------------------------------------------------------------------ bad input


def _ok():
    return np.zeros((2, T, K), np.int32), np.zeros((2, T), np.int32)


def test_bad_input_empty_sequence():
    X, y = _ok()
    with pytest.raises(ValueError, match=r"lengths must be >= 1 \(empty sequence at index 1\), got 0"):
        crf.fit_crf(X, y, lengths=np.array([2, 0]))
    with pytest.raises(ValueError, match=r"X has empty sequences \(T = 0\)"):
        crf.fit_crf(np.zeros((2, 0, K), np.int32), np.zeros((2, 0), np.int32))


def test_bad_input_label_feature_length_mismatch():
    X, y = _ok()
    with pytest.raises(ValueError, match=r"y must have shape \(n_seq, T\) = \(2, 4\) like X, got \(2, 3\)"):
        crf.fit_crf(X, y[:, :3])
    with pytest.raises(ValueError, match=r"lengths must be <= T = 4, got 5"):
        crf.fit_crf(X, y, lengths=np.array([5, 2]))


def test_bad_input_negative_c2():
    X, y = _ok()
    with pytest.raises(ValueError, match=r"c2 must be >= 0.0, got -1.0"):
        crf.fit_crf(X, y, c2=-1.0)


def test_bad_input_labels_and_features():
    X, y = _ok()
    with pytest.raises(ValueError, match=r"y holds label 3 >= n_labels = 2"):
        crf.fit_crf(X, y + 3, n_labels=2)
    with pytest.raises(ValueError, match=r"X \(sparse feature indices\) must be >= -1, got -2"):
        crf.fit_crf(X - 2, y)
    with pytest.raises(TypeError, match=r"y must hold integer labels, got dtype float64"):
        crf.fit_crf(X, y.astype(float))


# ------------------------------------------------------------------ feature helper


def test_index_features():
    seqs = [[{"pos": "NN", "bias": 1.0, "BOS": True}, {"pos": "VB", "EOS": False}], ["dog"]]
    idx, lengths, vocab = index_features(seqs, max_length=3)
    assert vocab == {"pos:NN": 0, "bias": 1, "BOS": 2, "pos:VB": 3, "token:dog": 4}
    assert lengths.tolist() == [2, 1]
    assert idx.tolist() == [[[0, 1, 2], [3, -1, -1], [-1, -1, -1]], [[4, -1, -1], [-1] * 3, [-1] * 3]]
    # unknown attributes at prediction are dropped (crfsuite's rule)
    idx2, _, vocab2 = index_features([[{"pos": "JJ", "bias": 1}]], vocab)
    assert idx2.tolist() == [[[1]]] and vocab2 is vocab and len(vocab) == 5
    with pytest.raises(ValueError, match=r"feature 'x' has value 0.5: only indicator features"):
        item_attributes({"x": 0.5})
    assert chunking_features(["DT", "NN", "VB"])[1] == {
        "bias": 1.0, "pos": "NN", "prev": "DT", "prev|pos": "DT|NN", "next": "VB"}


# ------------------------------------------------------------------ CoNLL-2000 vs python-crfsuite


@pytest.mark.full
def test_conll2000_chunking_accuracy_matches_crfsuite():
    """First 700 sentences train, last 200 test, the README's features, c2 = 1: token accuracy
    within 1 point of python-crfsuite trained on the same features (0.9194 measured; the data
    README quotes 0.920)."""
    pycrfsuite = pytest.importorskip("pycrfsuite")
    from jaxclassic.datasets import load_conll2000_chunking

    pos, chunks = load_conll2000_chunking(return_X_y=True)
    feats = [chunking_features(p) for p in pos]
    classes = sorted({c for s in chunks for c in s})
    code = {c: i for i, c in enumerate(classes)}

    def labels(seqs):
        y = np.zeros((len(seqs), 64), np.int32)
        for i, s in enumerate(seqs):
            y[i, : len(s)] = [code[c] for c in s]
        return y

    X_train, l_train, vocab = index_features(feats[:700], max_length=64)
    X_test, l_test, _ = index_features(feats[700:], vocab, max_length=64)
    params = crf.fit_crf(X_train, labels(chunks[:700]), lengths=l_train, c2=1.0, n_labels=len(classes))
    pred = np.asarray(crf.predict(params, jnp.asarray(X_test), jnp.asarray(l_test)))
    truth = labels(chunks[700:])
    live = np.arange(64)[None, :] < l_test[:, None]
    ours = float(np.mean(pred[live] == truth[live]))

    trainer = pycrfsuite.Trainer(verbose=False)
    for f, c in zip(feats[:700], chunks[:700]):
        trainer.append(pycrfsuite.ItemSequence(f), c)
    trainer.set_params({"c1": 0.0, "c2": 1.0})
    import tempfile, os
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.crfsuite")
        trainer.train(path)
        tagger = pycrfsuite.Tagger()
        tagger.open(path)
        tagged = [tagger.tag(pycrfsuite.ItemSequence(f)) for f in feats[700:]]
        tagger.close()
    theirs = float(np.mean([a == b for p, c in zip(tagged, chunks[700:]) for a, b in zip(p, c)]))
    assert abs(ours - theirs) <= 0.01, (ours, theirs)
    assert ours > 0.9


def test_log_partition_and_c2_scaling_equal_crfsuite_objective():
    """crfsuite reports its objective ``loss`` and ``feature_norm = |w|`` at every iteration:
    at its final weights (read back from its model), our sum of NLLs + c2 |w|^2 is its loss.
    That pins both the forward algorithm and the c2 scaling (crfsuite has no start/end
    weights: ours are 0 here). The loss is printed to 6 decimals."""
    pycrfsuite = pytest.importorskip("pycrfsuite")
    import os
    import tempfile

    from jaxclassic.datasets import load_conll2000_chunking

    pos, chunks = load_conll2000_chunking(return_X_y=True)
    feats, chunks = [chunking_features(p) for p in pos[:100]], chunks[:100]
    trainer = pycrfsuite.Trainer(verbose=False)
    for f, c in zip(feats, chunks):
        trainer.append(pycrfsuite.ItemSequence(f), c)
    trainer.set_params({"c1": 0.0, "c2": 1.0})
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.crfsuite")
        trainer.train(path)
        tagger = pycrfsuite.Tagger()
        tagger.open(path)
        info = tagger.info()
        tagger.close()
    last = trainer.logparser.last_iteration
    idx, lengths, vocab = index_features(feats)
    classes = sorted(info.labels)
    code = {c: i for i, c in enumerate(classes)}
    W = np.zeros((len(vocab), len(classes)))
    A = np.zeros((len(classes), len(classes)))
    for (attr, label), w in info.state_features.items():
        W[vocab[attr], code[label]] = w
    for (a, b), w in info.transitions.items():
        A[code[a], code[b]] = w
    zeros = jnp.zeros(len(classes))
    params = crf.CRFParams(jnp.asarray(W), jnp.asarray(A), zeros, zeros, 0, True)
    y = np.zeros(idx.shape[:2], np.int32)
    for i, s in enumerate(chunks):
        y[i, : len(s)] = [code[c] for c in s]
    nll = jax.jit(crf.negative_log_likelihood)(params, jnp.asarray(idx), jnp.asarray(y), jnp.asarray(lengths))
    norm2 = float(np.sum(W ** 2) + np.sum(A ** 2))
    np.testing.assert_allclose(np.sqrt(norm2), last["feature_norm"], atol=1e-6)
    np.testing.assert_allclose(float(jnp.sum(nll)) + 1.0 * norm2, last["loss"], atol=1e-5)


# --------------------------------------------------------------------------- vocabulary (issue 27)
def test_params_report_n_classes_as_a_python_int():
    params = crf.CRFParams(np.zeros((4, 3)), np.zeros((3, 3)), np.zeros(3), np.zeros(3),
                           np.int32(0), np.bool_(True))
    assert params.n_classes == 3 and isinstance(params.n_classes, int)
    assert len(params) == 6  # a property, not a leaf
