"""Tour rows for the graphical models (:mod:`jaxclassic.graphical`) beside their references.

Bayesian networks (pgmpy), hidden Markov models (hmmlearn) and a linear-chain CRF
(python-crfsuite; CoNLL-2000 chunking, trained on a subset of the sentences) on bundled data; the reference column is filled when the reference
package is installed (the ``dev`` extra), otherwise it shows ``-``. ``fit s`` is one fit
after a warm-up fit of the same shapes (compiled).
"""

from __future__ import annotations

from jaxclassic.tour import TourRow, timed

__all__ = ["rows"]


def _pgmpy_play_tennis(data, names, cards, mitchell):
    """pgmpy's figures for :func:`_bayes_net_rows` (``(None, None)`` without pgmpy)."""
    import logging

    import numpy as np

    try:
        import pandas as pd
        from pgmpy.estimators import BayesianEstimator, MaximumLikelihoodEstimator
        from pgmpy.inference import VariableElimination
        from pgmpy.models import DiscreteBayesianNetwork
    except ImportError:
        return None, None
    logging.getLogger("pgmpy").setLevel(logging.ERROR)
    attrs = names[1:]
    df = pd.DataFrame(data, columns=names)
    states = {nm: list(range(c)) for nm, c in zip(names, cards)}

    def pgmpy_fit(frame, estimator, **kwargs):
        model = DiscreteBayesianNetwork([("play", a) for a in attrs])
        est = estimator(model, frame, state_names=states)
        model.add_cpds(*[est.estimate_cpd(nm, **kwargs) for nm in names])
        return VariableElimination(model)

    ve = pgmpy_fit(df, MaximumLikelihoodEstimator)
    ref_query = float(ve.query(["play"], evidence=mitchell, show_progress=False).values[1])
    hits = []
    for i in range(len(data)):
        ve = pgmpy_fit(df.drop(index=i), BayesianEstimator, prior_type="K2")
        evidence = dict(zip(attrs, map(int, data[i, 1:])))
        post = ve.query(["play"], evidence=evidence, show_progress=False)
        hits.append(int(np.argmax(post.values)) == int(data[i, 0]))
    return ref_query, float(np.mean(hits))


def _bayes_net_rows() -> list[TourRow]:
    """Play-tennis under a naive-Bayes-shaped DAG (play -> each attribute), beside pgmpy.

    * Mitchell's query p(play = yes | sunny, cool, high humidity, strong wind) with
      maximum-likelihood tables (his §6.9.1 gives 0.205), by variable elimination; pgmpy:
      ``MaximumLikelihoodEstimator`` + ``VariableElimination``.
    * Leave-one-out accuracy of the MAP state of ``play`` given the four attributes, tables
      with Laplace pseudo-counts (K2); pgmpy refits on 13 rows per fold.

    Ours is one jitted program: a ``vmap`` of fit-then-query over 15 (weights, pseudo-count,
    evidence) rows: all-ones weights with ``pseudo_count=0`` and Mitchell's evidence, then the
    14 zero-weight folds with ``pseudo_count=1`` and the held-out row's attributes (one
    compilation instead of four). ``fit s`` is that program's run time on both rows.
    """
    import jax
    import jax.numpy as jnp
    import numpy as np

    from jaxclassic import graphical as G
    from jaxclassic.datasets import load_play_tennis

    tennis = load_play_tennis()
    X, y, attrs = tennis.data, tennis.target, tennis.feature_names
    data = np.column_stack([y, X]).astype(np.int32)
    names = ["play"] + list(attrs)
    cards = [int(c) for c in data.max(axis=0) + 1]
    structure = G.make_structure({"play": [], **{a: ["play"] for a in attrs}}, cards)
    mitchell = {"outlook": 2, "temperature": 0, "humidity": 0, "wind": 0}  # sunny cool high strong

    n = len(y)
    weights = jnp.asarray(np.vstack([np.ones(n), 1.0 - np.eye(n)]))  # full data, then folds
    alphas = jnp.asarray([0.0] + [1.0] * n)  # ML, then K2
    evidence = jnp.asarray(np.vstack([[mitchell[a] for a in attrs], X]))

    @jax.jit
    def fit_and_query(weights, alphas, evidence):
        def one(w, alpha, row):
            net = G.fit_bayes_net(data, structure, pseudo_count=alpha, sample_weight=w)
            return G.query(net, "play", dict(zip(attrs, row)))

        return jax.vmap(one)(weights, alphas, evidence)

    posterior, fit_s = timed(lambda: fit_and_query(weights, alphas, evidence))
    posterior = np.asarray(posterior)
    ours_query = float(posterior[0, 1])
    ours_loo = float(np.mean(posterior[1:].argmax(1) == y))

    import warnings

    with warnings.catch_warnings():  # pgmpy 1.x announces its renamed estimators
        warnings.simplefilter("ignore", FutureWarning)
        ref_query, ref_loo = _pgmpy_play_tennis(data, names, cards, mitchell)
    return [
        TourRow("Bayes net (naive-Bayes DAG, ML), pgmpy", "play_tennis",
                "p(yes | sunny,cool,high,strong)", ours_query, ref_query, fit_s),
        TourRow("Bayes net (naive-Bayes DAG, K2), pgmpy", "play_tennis", "LOO accuracy (14 folds)",
                ours_loo, ref_loo, fit_s),
    ]


#: Baum-Welch iterations of the HMM rows (tol=0 on both sides: the same number of iterations)
HMM_TOUR_ITER = 30


def _hmm_rows() -> list[TourRow]:
    """HMMs on ISLR's Smarket (S&P 500, 1250 trading days 2001-2005), fitted from the same start
    as hmmlearn (``init_params=""``), ``HMM_TOUR_ITER`` Baum-Welch iterations on each side:
    a 2-state Gaussian HMM on the daily returns (``Lag1``, calm and volatile regimes) and a
    2-state categorical HMM on the up / down sequence (``Direction``). The value is the
    log-likelihood per day of the fitted model; hmmlearn's in the reference column (Gaussian:
    its ``covars_prior=0``, our ``reg_covar=0``, the same update)."""
    import warnings

    import jax
    import numpy as np

    from jaxclassic.datasets import load_smarket
    from jaxclassic.graphical import fit_hmm, hmm

    X, y = load_smarket(return_X_y=True)
    returns = np.asarray(X[:, :1], dtype=np.float64)  # Lag1: the previous day's return, %
    ups = np.asarray(y, dtype=np.int64)
    n = len(ups)
    start = dict(startprob=[0.5, 0.5], transmat=[[0.95, 0.05], [0.05, 0.95]])
    cases = [
        ("GaussianHMM (K=2, returns)", returns,
         hmm.gaussian_hmm(**start, means=[[0.0], [0.0]], covars=[[0.5], [3.0]]),
         dict(emission="gaussian", reg_covar=0.0)),
        ("CategoricalHMM (K=2, up/down)", ups,
         hmm.categorical_hmm(**start, emissionprob=[[0.6, 0.4], [0.4, 0.6]]), {}),
    ]
    rows = []
    with jax.enable_x64(True), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # tol=0: no convergence by design
        for name, data, init, kw in cases:
            def fit(data=data, init=init, kw=kw):
                return fit_hmm(data, None, 2, init=init, max_iter=HMM_TOUR_ITER, tol=0.0, **kw)

            params, seconds = timed(fit)
            ours = float(hmm.log_likelihood(params, data)) / n
            rows.append(TourRow(name, "smarket", "log-lik / day", ours,
                                _hmmlearn_score(init, data, n), seconds))
    return rows


def _hmmlearn_score(init, data, n):
    """hmmlearn's log-likelihood per step after the same fit, or None without hmmlearn."""
    try:
        from hmmlearn import hmm as H
    except ImportError:
        return None
    import numpy as np

    if hasattr(init, "emissionprob"):
        ref = H.CategoricalHMM(2, init_params="", n_iter=HMM_TOUR_ITER, tol=0.0)
        ref.emissionprob_ = np.asarray(init.emissionprob)
        data = data[:, None]
    else:
        ref = H.GaussianHMM(2, init_params="", n_iter=HMM_TOUR_ITER, tol=0.0, covars_prior=0.0)
        ref.means_, ref.covars_ = np.asarray(init.means), np.asarray(init.covars)
    ref.startprob_, ref.transmat_ = np.asarray(init.startprob), np.asarray(init.transmat)
    ref.fit(data)
    return float(ref.score(data)) / n


#: the CRF tour row trains on this many CoNLL-2000 sentences (a subset, to stay a few seconds;
#: benchmarks/bench_crf.py and tests/graphical/test_crf.py use all 700)
CRF_TRAIN_SENTENCES = 150


def _crfsuite_accuracy(train_f, train_c, test_f, test_c):
    """python-crfsuite's test token accuracy, same features, c2 = 1 (None without it)."""
    import os
    import tempfile

    try:
        import pycrfsuite
    except ImportError:
        return None
    trainer = pycrfsuite.Trainer(verbose=False)
    for f, c in zip(train_f, train_c):
        trainer.append(pycrfsuite.ItemSequence(f), c)
    trainer.set_params({"c1": 0.0, "c2": 1.0})
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.crfsuite")
        trainer.train(path)
        tagger = pycrfsuite.Tagger()
        tagger.open(path)
        tagged = [tagger.tag(pycrfsuite.ItemSequence(f)) for f in test_f]
        tagger.close()
    hits = [a == b for p, c in zip(tagged, test_c) for a, b in zip(p, c)]
    return sum(hits) / len(hits)


def _crf_rows() -> list[TourRow]:
    """CoNLL-2000 chunking from POS tags: a linear-chain CRF (:func:`jaxclassic.graphical.fit_crf`,
    c2 = 1, the data README's features) trained on the first ``CRF_TRAIN_SENTENCES`` sentences,
    test token accuracy on the last 200, beside python-crfsuite on the same features."""
    import jax.numpy as jnp
    import numpy as np

    from jaxclassic.datasets import load_conll2000_chunking
    from jaxclassic.graphical import crf
    from jaxclassic.graphical._crf_features import chunking_features, index_features

    pos, chunks = load_conll2000_chunking(return_X_y=True)
    feats = [chunking_features(p) for p in pos]
    n = CRF_TRAIN_SENTENCES
    train_f, train_c, test_f, test_c = feats[:n], chunks[:n], feats[-200:], chunks[-200:]
    classes = sorted({c for s in train_c for c in s})
    code = {c: i for i, c in enumerate(classes)}
    X, lengths, vocab = index_features(train_f, max_length=64)
    y = np.zeros(X.shape[:2], np.int32)
    for i, s in enumerate(train_c):
        y[i, : len(s)] = [code[c] for c in s]
    params, seconds = timed(lambda: crf.fit_crf(X, y, lengths=lengths, c2=1.0, n_labels=len(classes)))
    X_test, l_test, _ = index_features(test_f, vocab, max_length=64)
    pred = np.asarray(crf.predict(params, jnp.asarray(X_test), jnp.asarray(l_test)))
    truth = [code.get(c, -1) for s in test_c for c in s]
    ours = float(np.mean(np.concatenate([p[:k] for p, k in zip(pred, l_test)]) == truth))
    ref = _crfsuite_accuracy(train_f, train_c, test_f, test_c)
    return [TourRow(f"linear-chain CRF (c2=1), first {n} train sentences", "conll2000_chunking",
                    "test token accuracy (last 200)", ours, ref, seconds)]


def rows() -> list[TourRow]:
    return _bayes_net_rows() + _hmm_rows() + _crf_rows()
