"""Tests of jaxclassic/graphical/bayes_net.py (with _dag.py and _elimination.py).

References:
- enumeration of the full joint (numpy products of the table entries over every assignment)
  for every query on the student and asia networks, to 1e-12 (float64, the same sums in
  another order);
- pgmpy, its networks built by hand from the textbook tables (Koller & Friedman's student
  network, Lauritzen & Spiegelhalter's asia): ``VariableElimination`` posteriors to 1e-8,
  ``MaximumLikelihoodEstimator`` / ``BayesianEstimator`` (K2 and a scalar Dirichlet prior)
  tables to 1e-10, ``is_dconnected`` on every triple of asia and student,
  ``get_markov_blanket`` on every node;
- hand values: K&F's p(i1, d0, g2, s1, l0) = 0.004608, counts of a 4-row table;
- autodiff: the gradient of the data log-likelihood in the tables is N / theta (the counts),
  constant along each row at the ML fit (the Lagrange condition of the simplex);
- ancestral sampling: cell frequencies of 20,000 draws vs the enumerated joint (Pearson
  chi-square at a fixed key, p > 1e-3).
"""

import itertools
import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxclassic import graphical as G
from jaxclassic.graphical import _elimination, bayes_net as bn

# ----------------------------------------------------------------------------- networks
STUDENT_PARENTS = {"D": [], "I": [], "G": ["I", "D"], "S": ["I"], "L": ["G"]}
STUDENT_CARDS = {"D": 2, "I": 2, "G": 3, "S": 2, "L": 2}
STUDENT_CPTS = {  # Koller & Friedman (2009), figure 3.4; G's axes (I, D, G)
    "D": [0.6, 0.4],
    "I": [0.7, 0.3],
    "G": [[[0.3, 0.4, 0.3], [0.05, 0.25, 0.7]], [[0.9, 0.08, 0.02], [0.5, 0.3, 0.2]]],
    "S": [[0.95, 0.05], [0.2, 0.8]],
    "L": [[0.1, 0.9], [0.4, 0.6], [0.99, 0.01]],
}

# Lauritzen & Spiegelhalter (1988), state 0 = "yes", 1 = "no"
ASIA_PARENTS = {"asia": [], "tub": ["asia"], "smoke": [], "lung": ["smoke"], "bronc": ["smoke"],
                "either": ["tub", "lung"], "xray": ["either"], "dysp": ["bronc", "either"]}


def _bern(p):
    return [p, 1 - p]


ASIA_CPTS = {
    "asia": _bern(0.01),
    "tub": [_bern(0.05), _bern(0.01)],
    "smoke": _bern(0.5),
    "lung": [_bern(0.1), _bern(0.01)],
    "bronc": [_bern(0.6), _bern(0.3)],
    "either": [[_bern(1.0), _bern(1.0)], [_bern(1.0), _bern(0.0)]],  # tub OR lung
    "xray": [_bern(0.98), _bern(0.05)],
    "dysp": [[_bern(0.9), _bern(0.8)], [_bern(0.7), _bern(0.1)]],
}

STUDENT = bn.make_bayes_net(bn.make_structure(STUDENT_PARENTS, STUDENT_CARDS), STUDENT_CPTS)
ASIA = bn.make_bayes_net(bn.make_structure(ASIA_PARENTS, [2] * 8), ASIA_CPTS)
NETS = {"student": STUDENT, "asia": ASIA}

QUERIES = {  # (target, evidence)
    "student": [("G", {}), ("I", {"L": 0}), ("I", {"L": 0, "S": 1}), ("D", {"G": 2}),
                ("D", {"G": 2, "I": 1}), ("L", {"I": 1}), ("S", {"D": 1, "L": 1})],
    "asia": [("lung", {}), ("lung", {"xray": 0}), ("tub", {"asia": 0, "xray": 0}),
             ("bronc", {"smoke": 0, "dysp": 0, "xray": 1}), ("either", {"dysp": 0}),
             ("smoke", {"dysp": 0, "xray": 0, "asia": 1}), ("asia", {"tub": 0})],
}

TOL_ENUM = 1e-12  # float64, the same products summed in a different order
TOL_PGMPY = 1e-8  # the tolerance; observed ~1e-16
TOL_FIT = 1e-10  # the tolerance; the same ratios of counts, observed ~1e-16


def _enumerate_joint(net):
    """The full joint table, one axis per variable, by products of table entries (numpy)."""
    s = net.structure
    cpts = [np.asarray(c) for c in net.cpts]
    joint = np.ones(s.cardinalities)
    for assignment in itertools.product(*[range(c) for c in s.cardinalities]):
        p = 1.0
        for v in range(s.n_variables):
            p *= float(cpts[v][tuple(assignment[a] for a in s.parents[v] + (v,))])
        joint[assignment] = p
    return joint


def _enumerate_query(net, target, evidence):
    s = net.structure
    joint = _enumerate_joint(net)
    index = [slice(None)] * s.n_variables
    for name, value in evidence.items():
        index[s.names.index(name)] = slice(value, value + 1)
    sub = joint[tuple(index)]
    t = s.names.index(target)
    table = sub.sum(axis=tuple(a for a in range(s.n_variables) if a != t))
    return table / table.sum()


# ----------------------------------------------------------------------------- pgmpy
@pytest.fixture(scope="module")
def pgmpy_mod():
    return pytest.importorskip("pgmpy")


def _to_pgmpy(net):
    from pgmpy.factors.discrete import TabularCPD
    from pgmpy.models import DiscreteBayesianNetwork

    s = net.structure
    edges = [(s.names[p], s.names[v]) for v in range(s.n_variables) for p in s.parents[v]]
    model = DiscreteBayesianNetwork(edges)
    model.add_nodes_from(s.names)
    for v, name in enumerate(s.names):
        table = np.moveaxis(np.asarray(net.cpts[v]), -1, 0).reshape(s.cardinalities[v], -1)
        pa = [s.names[p] for p in s.parents[v]]
        model.add_cpds(TabularCPD(name, s.cardinalities[v], table, evidence=pa or None,
                                  evidence_card=[s.cardinalities[p] for p in s.parents[v]] or None))
    assert model.check_model()
    return model


def _from_pgmpy_cpd(cpd, structure, v):
    """pgmpy's table (axes: the variable, then its parents sorted by name) in our layout."""
    axes = list(cpd.variables)
    order = [axes.index(structure.names[p]) for p in structure.parents[v]] + [0]
    return np.transpose(cpd.values, order)


@pytest.fixture(scope="module")
def pgmpy_nets(pgmpy_mod):
    return {name: _to_pgmpy(net) for name, net in NETS.items()}


# ----------------------------------------------------------------------------- joint
def test_joint_log_prob_equals_koller_friedman_value():
    # K&F §3.2.1.2: P(i1, d0, g2, s1, l0) = 0.3 * 0.6 * 0.08 * 0.8 * 0.4 = 0.004608
    # (their g2 is our state 1, l0 our state 0); columns in names order D, I, G, S, L
    x = np.array([0, 1, 1, 1, 0])
    assert float(jnp.exp(bn.joint_log_prob(STUDENT, x))) == pytest.approx(0.004608, rel=1e-12)


@pytest.mark.parametrize("name", ["student", "asia"])
def test_joint_log_prob_equals_enumeration_and_sums_to_one(name):
    net = NETS[name]
    joint = _enumerate_joint(net)
    X = np.array(list(itertools.product(*[range(c) for c in net.structure.cardinalities])))
    logp = np.asarray(bn.joint_log_prob(net, X))
    np.testing.assert_allclose(np.exp(logp), joint[tuple(X.T)], rtol=TOL_ENUM, atol=0)
    assert np.exp(logp).sum() == pytest.approx(1.0, abs=1e-12)


def test_joint_log_prob_vmap_equals_batch():
    X = np.asarray(bn.sample(STUDENT, 300, key=jax.random.key(1)))  # the shape of _data
    batch = bn.joint_log_prob(STUDENT, X)
    mapped = jax.vmap(lambda x: bn.joint_log_prob(STUDENT, x))(jnp.asarray(X))
    np.testing.assert_allclose(mapped, batch, rtol=1e-14)
    jitted = jax.jit(lambda x: bn.joint_log_prob(STUDENT, x))(jnp.asarray(X))
    np.testing.assert_allclose(jitted, batch, rtol=1e-14)


# ----------------------------------------------------------------------------- query
@pytest.mark.full
@pytest.mark.parametrize("name", ["student", "asia"])
def test_query_equals_enumeration(name):
    net = NETS[name]
    for target, evidence in QUERIES[name]:
        ours = np.asarray(bn.query(net, target, evidence))
        np.testing.assert_allclose(ours, _enumerate_query(net, target, evidence), atol=TOL_ENUM,
                                   err_msg=f"{target} | {evidence}")


@pytest.mark.full
@pytest.mark.parametrize("name", ["student", "asia"])
def test_query_equals_pgmpy_variable_elimination(name, pgmpy_nets):
    from pgmpy.inference import VariableElimination

    ve = VariableElimination(pgmpy_nets[name])
    net = NETS[name]
    for target, evidence in QUERIES[name]:
        ref = ve.query([target], evidence=evidence or None, show_progress=False)
        np.testing.assert_allclose(bn.query(net, target, evidence), ref.values, atol=TOL_PGMPY)
    # every variable's marginal at once, and a joint of two targets
    evidence = {"dysp": 0} if name == "asia" else {"L": 1}
    targets = [n for n in net.structure.names if n not in evidence]
    ours = bn.query(net, targets, evidence)
    refs = ve.query(targets, evidence=evidence, joint=False, show_progress=False)
    for t in targets:
        np.testing.assert_allclose(ours[t], refs[t].values, atol=TOL_PGMPY, err_msg=t)
    pair = targets[:2]
    ref = ve.query(pair, evidence=evidence, joint=True, show_progress=False)
    ref_values = np.transpose(ref.values, [ref.variables.index(t) for t in pair])
    np.testing.assert_allclose(bn.query(net, pair, evidence, joint=True), ref_values, atol=TOL_PGMPY)


def test_query_vmap_over_evidence_equals_loop_without_retrace():
    values = jnp.arange(3)
    mapped = jax.vmap(lambda g: bn.query(STUDENT, "I", {"G": g, "S": 0}))(values)
    loop = np.stack([bn.query(STUDENT, "I", {"G": int(g), "S": 0}) for g in values])
    np.testing.assert_allclose(mapped, loop, atol=1e-14)
    jitted = jax.jit(lambda g: bn.query(STUDENT, "I", {"G": g, "S": 0}))
    np.testing.assert_allclose(jitted(1), loop[1], atol=1e-14)
    before = _elimination._query_joint._cache_size()
    bn.query(STUDENT, "I", {"G": 2, "S": 1})  # new values, same plan
    bn.query(STUDENT, "I", {"G": 0, "S": 0})
    assert _elimination._query_joint._cache_size() == before


def test_query_long_chain_does_not_underflow():
    # a 60-link chain with a rare observation at the end: per-step rescaling keeps it finite
    n = 60
    names = [f"x{i}" for i in range(n)]
    s = bn.make_structure({names[0]: [], **{names[i]: [names[i - 1]] for i in range(1, n)}},
                          [2] * n)
    cpts = {names[0]: [0.5, 0.5], **{nm: [[1e-6, 1 - 1e-6], [1 - 1e-6, 1e-6]] for nm in names[1:]}}
    net = bn.make_bayes_net(s, cpts)
    post = np.asarray(bn.query(net, "x0", {names[-1]: 0}))
    # a deterministic flip per link: x59 = x0 flipped 59 times = not x0, almost surely
    assert np.isfinite(post).all() and post[1] == pytest.approx(1.0, abs=1e-3)


def test_elimination_order_is_min_fill():
    # a star centre (0) joined to 1..4 and a chain 4-5: eliminating the centre first would add
    # 6 fill edges among 1..4; min-fill takes the leaves (no fill), ties by index
    scopes = [(0, 1), (0, 2), (0, 3), (0, 4), (4, 5)]
    assert _elimination.elimination_order(scopes, [0, 1, 2, 3, 4, 5]) == [1, 2, 3, 0, 4, 5]
    # variables left out of ``eliminate`` stay in the graph and are never ordered
    assert _elimination.elimination_order(scopes, [0, 5]) == [5, 0]


# ----------------------------------------------------------------------------- fit
def _data(net, n=300, seed=2):
    X = np.array(bn.sample(net, n, key=jax.random.key(seed)))
    w = np.random.default_rng(seed).uniform(0.2, 3.0, n)
    return X, w


def _pgmpy_fit(net, X, estimator, weights=None, **kwargs):
    import pandas as pd
    from pgmpy.estimators import BayesianEstimator, MaximumLikelihoodEstimator

    s = net.structure
    df = pd.DataFrame(X, columns=list(s.names))
    if weights is not None:
        df["_weight"] = weights
    model = _to_pgmpy(net)
    cls = {"mle": MaximumLikelihoodEstimator, "bayes": BayesianEstimator}[estimator]
    est = cls(model, df, state_names={nm: list(range(c)) for nm, c in zip(s.names, s.cardinalities)})
    return [_from_pgmpy_cpd(est.estimate_cpd(nm, weighted=weights is not None, **kwargs), s, v)
            for v, nm in enumerate(s.names)]


@pytest.mark.full
@pytest.mark.parametrize("weighted", [False, True])
def test_fit_equals_pgmpy_maximum_likelihood(weighted, pgmpy_mod):
    X, w = _data(ASIA)
    X[:5, 0] = 1 - X[:5, 0]  # make rare asia/tub configurations appear (and one stay unseen)
    net = bn.fit_bayes_net(X, ASIA.structure, sample_weight=w if weighted else None)
    for v, ref in enumerate(_pgmpy_fit(ASIA, X, "mle", w if weighted else None)):
        np.testing.assert_allclose(net.cpts[v], ref, atol=TOL_FIT, err_msg=ASIA.structure.names[v])


@pytest.mark.parametrize("prior", ["K2", "dirichlet", "BDeu"])
def test_fit_equals_pgmpy_bayesian_estimator(prior, pgmpy_mod):
    X, w = _data(STUDENT)
    alpha = {"K2": 1.0, "dirichlet": 0.5, "BDeu": bn.bdeu_pseudo_counts(STUDENT.structure, 5.0)}[prior]
    kwargs = {"K2": {}, "dirichlet": {"pseudo_counts": 0.5},
              "BDeu": {"equivalent_sample_size": 5.0}}[prior] | {"prior_type": prior}
    net = bn.fit_bayes_net(X, STUDENT.structure, pseudo_count=alpha, sample_weight=w)
    for v, ref in enumerate(_pgmpy_fit(STUDENT, X, "bayes", w, **kwargs)):
        np.testing.assert_allclose(net.cpts[v], ref, atol=TOL_FIT)


def test_fit_counts_by_hand_and_unseen_configuration_is_uniform():
    s = bn.make_structure({"a": [], "b": ["a"]}, {"a": 3, "b": 2})
    X = [[0, 0], [0, 1], [0, 1], [1, 0]]  # a = 2 never seen
    net = bn.fit_bayes_net(X, s)
    np.testing.assert_allclose(net.cpts[0], [3 / 4, 1 / 4, 0], atol=1e-15)
    np.testing.assert_allclose(net.cpts[1], [[1 / 3, 2 / 3], [1, 0], [0.5, 0.5]], atol=1e-15)
    laplace = bn.fit_bayes_net(X, s, pseudo_count=1.0)
    np.testing.assert_allclose(laplace.cpts[0], [4 / 7, 2 / 7, 1 / 7], atol=1e-15)
    np.testing.assert_allclose(laplace.cpts[1], [[2 / 5, 3 / 5], [2 / 3, 1 / 3], [0.5, 0.5]],
                               atol=1e-15)


def test_zero_weight_rows_equal_dropped_rows():
    X, w = _data(STUDENT)
    w[::3] = 0.0
    X_noise = X.copy()
    X_noise[::3] = np.asarray(bn.sample(STUDENT, len(X), key=jax.random.key(9)))[::3]
    full = bn.fit_bayes_net(X_noise, STUDENT.structure, pseudo_count=0.3, sample_weight=w)
    keep = w > 0
    dropped = bn.fit_bayes_net(X[keep], STUDENT.structure, pseudo_count=0.3, sample_weight=w[keep])
    for a, b in zip(full.cpts, dropped.cpts):
        np.testing.assert_allclose(a, b, atol=1e-14)


def test_gradient_of_log_likelihood_is_counts_over_tables():
    # d/d theta_{v,j,k} sum_i w_i log p(x_i) = N_{v,j,k} / theta_{v,j,k}; at the ML fit this is
    # N_{v,j} on every cell of a seen row (the simplex's Lagrange condition)
    X, w = _data(STUDENT)
    net = bn.fit_bayes_net(X, STUDENT.structure, sample_weight=w)

    def loglik(cpts):
        return jnp.sum(w * bn.joint_log_prob(bn.BayesNet(cpts, net.structure), X))

    grads = jax.grad(loglik)(net.cpts)
    s = net.structure
    for v in range(s.n_variables):
        counts = np.zeros(s.cpt_shape(v))
        np.add.at(counts, tuple(X[:, a] for a in s.parents[v] + (v,)), w)
        seen = counts > 0
        np.testing.assert_allclose(np.asarray(grads[v])[seen],
                                   counts[seen] / np.asarray(net.cpts[v])[seen], rtol=1e-12)
        row_total = np.broadcast_to(counts.sum(-1, keepdims=True), counts.shape)
        np.testing.assert_allclose(np.asarray(grads[v])[seen], row_total[seen], rtol=1e-10)


@pytest.mark.full
def test_fit_jit_vmap_and_no_retrace():
    X, w = _data(STUDENT)
    s = STUDENT.structure
    alphas = jnp.array([0.0, 0.5, 2.0])
    mapped = jax.vmap(lambda a: bn.fit_bayes_net(X, s, pseudo_count=a, sample_weight=w).cpts)(alphas)
    for i, a in enumerate(alphas):
        loop = bn.fit_bayes_net(X, s, pseudo_count=float(a), sample_weight=w).cpts
        for m, l in zip(mapped, loop):
            np.testing.assert_allclose(m[i], l, atol=1e-14)
    folds = jnp.stack([jnp.asarray(w) * (jnp.arange(len(w)) % 3 != k) for k in range(3)])
    by_fold = jax.vmap(lambda sw: bn.fit_bayes_net(X, s, sample_weight=sw).cpts)(folds)
    eager = bn.fit_bayes_net(X, s, sample_weight=np.asarray(folds[1])).cpts
    for m, l in zip(by_fold, eager):
        np.testing.assert_allclose(m[1], l, atol=1e-14)
    jitted = jax.jit(lambda Xj, a: bn.fit_bayes_net(Xj, s, pseudo_count=a).cpts)
    for a, b in zip(jitted(jnp.asarray(X), 0.5), bn.fit_bayes_net(X, s, pseudo_count=0.5).cpts):
        np.testing.assert_allclose(a, b, atol=1e-14)
    before = bn._fit._cache_size()
    bn.fit_bayes_net(X, s, pseudo_count=0.7, sample_weight=w * 2)
    assert bn._fit._cache_size() == before


def test_fit_keeps_float32_weights():
    X, w = _data(STUDENT)
    net = bn.fit_bayes_net(X, STUDENT.structure, sample_weight=w.astype(np.float32))
    assert all(c.dtype == jnp.float32 for c in net.cpts)
    ref = bn.fit_bayes_net(X, STUDENT.structure, sample_weight=w)
    for a, b in zip(net.cpts, ref.cpts):
        np.testing.assert_allclose(a, b, atol=1e-6)  # float32 rounding of the counts


# ----------------------------------------------------------------------------- graph queries
@pytest.mark.parametrize("name", ["student", "asia"])
def test_d_separation_equals_pgmpy_on_every_triple(name, pgmpy_nets):
    model, s = pgmpy_nets[name], NETS[name].structure
    n_checked = 0
    for x, y in itertools.permutations(s.names, 2):
        for given in [[]] + [[z] for z in s.names]:
            ref = not model.is_dconnected(x, y, observed=given)
            assert bn.d_separated(s, x, y, given) == ref, (x, y, given)
            n_checked += 1
    assert n_checked == len(s.names) * (len(s.names) - 1) * (len(s.names) + 1)


def test_d_separation_equals_pgmpy_given_every_pair(pgmpy_nets):
    model, s = pgmpy_nets["asia"], ASIA.structure
    for x, y in itertools.combinations(s.names, 2):
        for given in itertools.combinations([n for n in s.names if n not in (x, y)], 2):
            assert bn.d_separated(s, x, y, given) == (not model.is_dconnected(x, y, list(given)))


def test_d_separation_chain_fork_collider_by_hand():
    s = bn.make_structure({"a": [], "b": ["a"], "c": ["b"], "d": ["b"], "e": ["c", "d"],
                           "f": ["e"]}, [2] * 6)
    assert not bn.d_separated(s, "a", "c")                 # chain a -> b -> c open
    assert bn.d_separated(s, "a", "c", ["b"])              # blocked by observing b
    assert bn.d_separated(s, "c", "d", ["b"])              # fork c <- b -> d blocked
    assert not bn.d_separated(s, "c", "d", ["b", "f"])     # collider opened by a descendant
    assert bn.d_separated(s, ["a"], ["e", "f"], ["c", "d"])


@pytest.mark.parametrize("name", ["student", "asia"])
def test_markov_blanket_equals_pgmpy(name, pgmpy_nets):
    model, s = pgmpy_nets[name], NETS[name].structure
    for v in s.names:
        assert set(bn.markov_blanket(s, v)) == set(model.get_markov_blanket(v)), v


def test_markov_blanket_screens_off_the_rest():
    # p(v | all others) = p(v | blanket): checked by enumeration on asia for "either"
    s = ASIA.structure
    blanket = bn.markov_blanket(s, "either")
    assert set(blanket) == {"tub", "lung", "xray", "bronc", "dysp"}
    evidence = {"tub": 1, "lung": 1, "xray": 0, "bronc": 0, "dysp": 0}
    full = dict(evidence, asia=0, smoke=1)
    np.testing.assert_allclose(bn.query(ASIA, "either", evidence), bn.query(ASIA, "either", full),
                               atol=1e-14)


# ----------------------------------------------------------------------------- sampling
def test_sample_frequencies_match_joint():
    scipy_stats = pytest.importorskip("scipy.stats")
    n = 20_000
    X = np.asarray(bn.sample(STUDENT, n, key=jax.random.key(0)))
    assert X.dtype == np.int32 and X.shape == (n, 5)
    joint = _enumerate_joint(STUDENT)
    counts = np.zeros(joint.shape)
    np.add.at(counts, tuple(X.T), 1)
    expected = n * joint
    chi2 = ((counts - expected) ** 2 / expected).sum()
    p_value = scipy_stats.chi2.sf(chi2, joint.size - 1)
    assert p_value > 1e-3, (chi2, p_value)  # fixed key: deterministic
    # and every cell within 5 binomial standard deviations
    assert np.all(np.abs(counts - expected) <= 5 * np.sqrt(expected * (1 - joint)) + 1)


def test_sample_same_key_same_draws():
    a = bn.sample(ASIA, 300, key=jax.random.key(3))  # the shape of _data(ASIA)
    b = bn.sample(ASIA, 300, key=jax.random.key(3))
    c = bn.sample(ASIA, 300, key=jax.random.key(4))
    assert np.array_equal(a, b) and not np.array_equal(a, c)
    # deterministic node: either = tub OR lung (state 0 = yes)
    a = np.asarray(a)
    assert np.array_equal(a[:, 5], np.minimum(a[:, 1], a[:, 3]))


def test_package_exports():
    assert G.fit_bayes_net is bn.fit_bayes_net and G.query is bn.query and G.sample is bn.sample


# ----------------------------------------------------------------------------- bad input
def test_cycle_is_rejected():
    with pytest.raises(ValueError, match="structure must be acyclic.*cycle"):
        bn.make_structure({"a": ["c"], "b": ["a"], "c": ["b"]}, [2, 2, 2])


def test_self_parent_is_rejected():
    with pytest.raises(ValueError, match="acyclic.*'a' as its own parent"):
        bn.make_structure({"a": ["a"]}, [2])


def test_cpt_not_summing_to_one_is_rejected():
    bad = dict(STUDENT_CPTS, S=[[0.95, 0.05], [0.2, 0.7]])
    with pytest.raises(ValueError, match=r"cpts\['S'\] must sum to 1"):
        bn.make_bayes_net(STUDENT.structure, bad)


def test_cpt_of_wrong_shape_is_rejected():
    bad = dict(STUDENT_CPTS, L=[[0.1, 0.9], [0.4, 0.6]])
    with pytest.raises(ValueError, match=r"cpts\['L'\] must have shape \(3, 2\)"):
        bn.make_bayes_net(STUDENT.structure, bad)


def test_evidence_outside_cardinality_is_rejected():
    with pytest.raises(ValueError, match=r"evidence\['G'\] = 3 is outside the cardinality"):
        bn.query(STUDENT, "I", {"G": 3})


def test_non_integer_evidence_is_rejected():
    with pytest.raises(ValueError, match=r"evidence\['G'\] must be an integer state, got 0.5"):
        bn.query(STUDENT, "I", {"G": 0.5})


def test_unknown_variable_in_query_is_rejected():
    with pytest.raises(ValueError, match="targets names an unknown variable 'Q'"):
        bn.query(STUDENT, "Q")
    with pytest.raises(ValueError, match="evidence names an unknown variable 'Z'"):
        bn.query(STUDENT, "I", {"Z": 0})


def test_unknown_parent_is_rejected():
    with pytest.raises(ValueError, match=r"parents\['b'\] names an unknown variable 'z'"):
        bn.make_structure({"a": [], "b": ["z"]}, [2, 2])


def test_unknown_variable_in_graph_queries_is_rejected():
    with pytest.raises(ValueError, match="v names an unknown variable 'Q'"):
        bn.markov_blanket(STUDENT.structure, "Q")
    with pytest.raises(ValueError, match="given names an unknown variable 'Q'"):
        bn.d_separated(STUDENT.structure, "I", "D", ["Q"])


@pytest.mark.full
def test_zero_probability_evidence_is_an_error_not_nan():
    # either = tub OR lung: tub = yes with either = no is impossible
    with pytest.raises(ValueError, match="evidence has probability zero"):
        bn.query(ASIA, "smoke", {"tub": 0, "either": 1})


def test_zero_probability_evidence_under_jit_is_nan():
    # the documented traced result: a jitted program cannot raise, the row comes back NaN
    post = jax.jit(lambda e: bn.query(ASIA, "smoke", {"tub": 0, "either": e}))(1)
    assert np.isnan(np.asarray(post)).all()


def test_target_in_evidence_is_rejected():
    with pytest.raises(ValueError, match="targets and evidence share the variable 'I'"):
        bn.query(STUDENT, "I", {"I": 0})


def test_negative_pseudo_count_is_rejected():
    X, _ = _data(STUDENT)
    with pytest.raises(ValueError, match="pseudo_count must be >= 0.0, got -1.0"):
        bn.fit_bayes_net(X, STUDENT.structure, pseudo_count=-1.0)


def test_pseudo_count_of_wrong_length_is_rejected():
    X, _ = _data(STUDENT)
    with pytest.raises(ValueError, match=r"pseudo_count must be a scalar or have one entry per "
                                         r"variable \(5\), got shape \(3,\)"):
        bn.fit_bayes_net(X, STUDENT.structure, pseudo_count=np.ones(3))


def test_bdeu_pseudo_counts_by_hand():
    # ESS 6 over the cells of each table: D 2, I 2, G 2*2*3, S 2*2, L 3*2
    np.testing.assert_allclose(bn.bdeu_pseudo_counts(STUDENT.structure, 6.0),
                               [3.0, 3.0, 0.5, 1.5, 1.0], rtol=1e-15)


def test_x_outside_cardinality_is_rejected():
    X, _ = _data(STUDENT)
    X[4, 2] = 3
    with pytest.raises(ValueError, match=r"X column 2 \('G'\) holds the value 3 outside its cardinality 3"):
        bn.fit_bayes_net(X, STUDENT.structure)
    with pytest.raises(ValueError, match=r"X column 2 \('G'\) holds the value 3"):  # checked on device
        bn.fit_bayes_net(jnp.asarray(X), STUDENT.structure)
    with pytest.raises(ValueError, match=r"x column 0 \('D'\) holds the value -1"):
        bn.joint_log_prob(STUDENT, [-1, 0, 0, 0, 0])


def test_x_with_wrong_number_of_columns_is_rejected():
    with pytest.raises(ValueError, match="X must have one column per variable"):
        bn.fit_bayes_net(np.zeros((4, 3), int), STUDENT.structure)


def test_structure_of_wrong_type_is_rejected():
    with pytest.raises(TypeError, match="structure must be a Structure"):
        bn.fit_bayes_net(np.zeros((4, 5), int), STUDENT_PARENTS)


def test_non_integer_x_is_rejected():
    with pytest.raises(ValueError, match="X must hold integer values"):
        bn.fit_bayes_net(np.full((4, 5), 0.5), STUDENT.structure)


def test_sample_size_must_be_positive():
    with pytest.raises(ValueError, match="n_samples must be >= 1, got 0"):
        bn.sample(STUDENT, 0, key=jax.random.key(0))
    assert math.isfinite(float(bn.query(STUDENT, "I")[0]))


# --------------------------------------------------------------------------- vocabulary (issue 27)
def test_sample_with_a_positional_key_is_deprecated():
    new = bn.sample(STUDENT, 20, key=jax.random.key(5))
    with pytest.warns(DeprecationWarning, match="key=key"):
        old = bn.sample(STUDENT, 20, jax.random.key(5))
    np.testing.assert_array_equal(old, new)
    np.testing.assert_array_equal(bn.sample(STUDENT, 20), bn.sample(STUDENT, 20, key=jax.random.key(0)))
