"""Discrete Bayesian networks: variable elimination and fitting by counting vs pgmpy.

A seeded random network (full: 30 nodes; quick: 8), each node with up to 3 parents among the
earlier nodes, cardinalities 2-4, tables drawn from Dirichlet(1). Three cases:

* ``query``: a fixed list of queries (one target, 3-5 evidence variables, drawn at random),
  ours through the public :func:`jaxclassic.graphical.query` one by one (each query pattern
  compiles once: the first pass is reported as compile time), pgmpy's
  ``VariableElimination.query`` on the same list. Time per query.
* ``all marginals``: the posterior of every unobserved variable given the first query's
  evidence, ours as one call (one elimination and its gradient: one program), pgmpy's one
  ``VariableElimination.query`` per variable. Time per call (all marginals).
* ``query batch``: one query pattern with a batch of evidence values, ours as one
  ``jax.vmap`` over the values, pgmpy's in a loop. Time per query.
* ``fit``: :func:`jaxclassic.graphical.fit_bayes_net` (weighted counting, K2 prior) vs
  pgmpy's ``BayesianEstimator(prior_type="K2")`` on the same sampled data (full: 100,000
  rows; quick: 500).

Agreement: the largest absolute difference of the posteriors (of the tables for ``fit``).
"""

from __future__ import annotations

import numpy as np

from benchmarks._harness import Result, time_host, time_jax

__all__ = ["run", "random_network"]


def random_network(n_nodes: int, seed: int = 0, max_parents: int = 3):
    """A seeded random network: ``(parents, cardinalities, cpts)`` over names ``v00, v01...``."""
    rng = np.random.default_rng(seed)
    names = [f"v{i:02d}" for i in range(n_nodes)]
    cards = {n: int(rng.integers(2, 5)) for n in names}
    parents, cpts = {}, {}
    for i, name in enumerate(names):
        k = int(rng.integers(0, min(max_parents, i) + 1))
        pa = sorted(rng.choice(i, size=k, replace=False).tolist()) if k else []
        parents[name] = [names[p] for p in pa]
        shape = tuple(cards[names[p]] for p in pa) + (cards[name],)
        cpts[name] = rng.dirichlet(np.ones(cards[name]), size=shape[:-1]) if pa else \
            rng.dirichlet(np.ones(cards[name]))
    return parents, cards, cpts


def _to_pgmpy(parents, cards, cpts):
    from pgmpy.factors.discrete import TabularCPD
    from pgmpy.models import DiscreteBayesianNetwork

    model = DiscreteBayesianNetwork([(p, v) for v, pa in parents.items() for p in pa])
    model.add_nodes_from(parents)
    for v, pa in parents.items():
        table = np.moveaxis(np.asarray(cpts[v]), -1, 0).reshape(cards[v], -1)
        model.add_cpds(TabularCPD(v, cards[v], table, evidence=pa or None,
                                  evidence_card=[cards[p] for p in pa] or None))
    return model


def run(quick: bool) -> list[Result]:
    import logging

    import jax
    import jax.numpy as jnp
    import pandas as pd

    logging.getLogger("pgmpy").setLevel(logging.ERROR)
    from pgmpy.estimators import BayesianEstimator
    from pgmpy.inference import VariableElimination

    from jaxclassic import graphical as G

    n_nodes, n_queries, n_batch, n_rows = (8, 4, 16, 500) if quick else (30, 20, 200, 100_000)
    parents, cards, cpts = random_network(n_nodes, seed=0)
    structure = G.make_structure(parents, cards)
    net = G.make_bayes_net(structure, cpts)
    ref_model = _to_pgmpy(parents, cards, cpts)
    ve = VariableElimination(ref_model)
    names = list(parents)
    rng = np.random.default_rng(1)
    queries = []
    for _ in range(n_queries):
        chosen = rng.choice(n_nodes, size=1 + int(rng.integers(3, 6)), replace=False)
        target, ev = names[chosen[0]], chosen[1:]
        queries.append((target, {names[e]: int(rng.integers(cards[names[e]])) for e in ev}))
    # evidence of positive probability: draw it from the network itself
    X = np.asarray(G.sample(net, max(n_rows, n_batch), key=jax.random.key(0)))
    queries = [(t, {k: int(X[i, names.index(k)]) for k in ev}) for i, (t, ev) in enumerate(queries)]
    results = []

    def ours_list():
        return [G.query(net, t, ev) for t, ev in queries]

    def ref_list():
        return [ve.query([t], evidence=ev, show_progress=False).values for t, ev in queries]

    ours, compile_s, ours_s = time_jax(ours_list, repeats=3)
    ref, ref_s = time_host(ref_list, repeats=1 if quick else 3)
    diff = max(float(np.max(np.abs(np.asarray(a) - b))) for a, b in zip(ours, ref))
    results.append(Result(
        benchmark="bayes_net", case=f"query {n_nodes} nodes, 3-5 evidence (per query)",
        ours_s=ours_s / n_queries, ref_s=ref_s / n_queries, compile_s=compile_s / n_queries,
        reference="pgmpy VariableElimination", agreement=f"max|dp|={diff:.1e}"))

    ev0 = queries[0][1]
    all_targets = [n for n in names if n not in ev0]
    ours, compile_s, ours_s = time_jax(lambda: G.query(net, all_targets, ev0), repeats=3)
    ref, ref_s = time_host(lambda: [ve.query([t], evidence=ev0, show_progress=False).values
                                    for t in all_targets], repeats=1)
    diff = max(float(np.max(np.abs(np.asarray(ours[t]) - r))) for t, r in zip(all_targets, ref))
    results.append(Result(
        benchmark="bayes_net", case=f"all {len(all_targets)} marginals, {len(ev0)} evidence",
        ours_s=ours_s, ref_s=ref_s, compile_s=compile_s,
        reference="pgmpy VariableElimination (a query per target)", agreement=f"max|dp|={diff:.1e}"))

    target, ev = queries[0]
    ev_names = list(ev)
    values = jnp.asarray(X[:n_batch][:, [names.index(k) for k in ev_names]])
    batched = jax.jit(jax.vmap(lambda row: G.query(net, target, dict(zip(ev_names, row)))))
    out, compile_s, ours_s = time_jax(lambda: batched(values), repeats=3)
    n_ref = min(n_batch, 16 if quick else 50)
    ref, ref_s = time_host(lambda: [ve.query([target], evidence=dict(zip(ev_names, map(int, row))),
                                             show_progress=False).values
                                    for row in np.asarray(values[:n_ref])], repeats=1)
    diff = float(np.max(np.abs(np.asarray(out[:n_ref]) - np.stack(ref))))
    results.append(Result(
        benchmark="bayes_net", case=f"query batch of {n_batch} (vmap) (per query)",
        ours_s=ours_s / n_batch, ref_s=ref_s / n_ref, compile_s=compile_s,
        reference=f"pgmpy VariableElimination (loop of {n_ref})", agreement=f"max|dp|={diff:.1e}"))

    data = X[:n_rows]
    Xj = jnp.asarray(data)
    fitted, compile_s, ours_s = time_jax(lambda: G.fit_bayes_net(Xj, structure, pseudo_count=1.0).cpts,
                                         repeats=3)
    df = pd.DataFrame(data, columns=names)
    state_names = {n: list(range(cards[n])) for n in names}

    def ref_fit():
        est = BayesianEstimator(ref_model, df, state_names=state_names)
        return [est.estimate_cpd(n, prior_type="K2") for n in names]

    ref, ref_s = time_host(ref_fit, repeats=1)
    diff = 0.0
    for v, (name, cpd) in enumerate(zip(names, ref)):
        order = [list(cpd.variables).index(p) for p in parents[name]] + [0]
        diff = max(diff, float(np.max(np.abs(np.asarray(fitted[v]) - np.transpose(cpd.values, order)))))
    results.append(Result(
        benchmark="bayes_net", case=f"fit K2 {n_rows}x{n_nodes}", ours_s=ours_s, ref_s=ref_s,
        compile_s=compile_s, reference="pgmpy BayesianEstimator", agreement=f"max|dtheta|={diff:.1e}"))
    return results


if __name__ == "__main__":
    import argparse

    from benchmarks.run import format_table

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    print(format_table(run(parser.parse_args().quick)))
