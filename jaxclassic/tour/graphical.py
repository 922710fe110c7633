"""Tour rows for the graphical models (:mod:`jaxclassic.graphical`) beside their references.

Bayesian networks (pgmpy), hidden Markov models (hmmlearn) and a linear-chain CRF
(python-crfsuite) on bundled data; the reference column is filled when the reference
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
      with Laplace pseudo-counts (K2): our 14 folds are one ``vmap`` of the fit over
      zero-weight vectors and one ``vmap`` of the query; pgmpy refits on 13 rows per fold.
    """
    import jax
    import jax.numpy as jnp
    import numpy as np

    from jaxclassic import graphical as G
    from jaxclassic.datasets import load_play_tennis

    X, y, attrs = load_play_tennis()
    data = np.column_stack([y, X]).astype(np.int32)
    names = ["play"] + list(attrs)
    cards = [int(c) for c in data.max(axis=0) + 1]
    structure = G.make_structure({"play": [], **{a: ["play"] for a in attrs}}, cards)
    mitchell = {"outlook": 2, "temperature": 0, "humidity": 0, "wind": 0}  # sunny cool high strong

    net, fit_s = timed(lambda: G.fit_bayes_net(data, structure))
    ours_query = float(G.query(net, "play", mitchell)[1])

    n = len(y)
    folds = jnp.asarray(1.0 - np.eye(n))
    evidence = jnp.asarray(X)

    def loo():
        cpts = jax.vmap(lambda w: G.fit_bayes_net(data, structure, pseudo_count=1.0,
                                                  sample_weight=w).cpts)(folds)
        return jax.vmap(lambda c, row: G.query(G.BayesNet(c, structure), "play",
                                               dict(zip(attrs, row))))(cpts, evidence)

    posterior, loo_s = timed(loo)
    ours_loo = float(np.mean(np.asarray(posterior).argmax(1) == y))

    import warnings

    with warnings.catch_warnings():  # pgmpy 1.x announces its renamed estimators
        warnings.simplefilter("ignore", FutureWarning)
        ref_query, ref_loo = _pgmpy_play_tennis(data, names, cards, mitchell)
    return [
        TourRow("Bayes net (naive-Bayes DAG, ML), pgmpy", "play_tennis",
                "p(yes | sunny,cool,high,strong)", ours_query, ref_query, fit_s),
        TourRow("Bayes net (naive-Bayes DAG, K2), pgmpy", "play_tennis", "LOO accuracy (14 folds)",
                ours_loo, ref_loo, loo_s),
    ]


def _hmm_rows() -> list[TourRow]:
    return []


def _crf_rows() -> list[TourRow]:
    return []


def rows() -> list[TourRow]:
    return _bayes_net_rows() + _hmm_rows() + _crf_rows()
