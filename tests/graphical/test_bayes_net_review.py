"""Regression tests from the review of the discrete Bayesian networks (issue 13).

Each test pins one defect found by the review, with its hand-derived expectation:

- float32 underflow of the evidence: 40 observed independent roots of probability 0.05 each
  (evidence mass 0.05**39 ~ 2e-51, below float32's range) were reported as "probability
  zero"; the posterior of the unobserved parent of the target is the prior, in closed form;
- the gradient of ``joint_log_prob`` in the tables was NaN at every zero entry (the log of
  the whole table); it is 1 / theta at the entries used, 0 elsewhere;
- a traced evidence value of -1 was wrapped to the last state by ``jnp.take``, and a traced
  out-of-range code in ``joint_log_prob`` read another cell; both now give NaN;
- targets given as a numpy array of names were read as one name;
- per-variable pseudo-counts given as a list were rejected.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxclassic.graphical import bayes_net as bn

S2 = bn.make_structure({"a": [], "b": ["a"]}, [2, 2])
CPTS2 = {"a": [0.5, 0.5], "b": [[1.0, 0.0], [0.2, 0.8]]}  # a deterministic row


def test_many_rare_observed_roots_do_not_underflow_in_float32():
    n = 40
    names = [f"r{i}" for i in range(n)]
    s = bn.make_structure({**{nm: [] for nm in names}, "t": ["r0"]}, [2] * (n + 1))
    cpts = {**{nm: [0.05, 0.95] for nm in names}, "t": [[0.3, 0.7], [0.6, 0.4]]}
    with jax.enable_x64(False):
        net = bn.make_bayes_net(s, cpts)
        post = np.asarray(bn.query(net, "t", {nm: 0 for nm in names[1:]}))
    assert post.dtype == np.float32
    # r0 is unobserved and independent of the evidence: p(t) = 0.05 (0.3, 0.7) + 0.95 (0.6, 0.4)
    np.testing.assert_allclose(post, [0.585, 0.415], atol=1e-6)  # float32 rounding


def test_gradient_of_joint_log_prob_is_finite_at_zero_entries():
    net = bn.make_bayes_net(S2, CPTS2)
    grad = jax.grad(lambda c: bn.joint_log_prob(bn.BayesNet(c, S2), jnp.array([0, 0])))(net.cpts)
    # d/dtheta log(theta_a0 * theta_b|a0=0) = 1 / theta at the two used entries, 0 elsewhere
    np.testing.assert_allclose(grad[0], [2.0, 0.0], atol=1e-12)
    np.testing.assert_allclose(grad[1], [[1.0, 0.0], [0.0, 0.0]], atol=1e-12)


def test_gradient_of_query_equals_hand_derivative():
    net = bn.make_bayes_net(S2, CPTS2)
    grad = jax.grad(lambda c: bn.query(bn.BayesNet(c, S2), "a", {"b": 0})[0])(net.cpts)
    # p(a0 | b0) = t0 u / (t0 u + t1 v), t = p(a), u = p(b0 | a0) = 1, v = p(b0 | a1) = 0.2
    t0, t1, u, v = 0.5, 0.5, 1.0, 0.2
    z = t0 * u + t1 * v
    np.testing.assert_allclose(grad[0], [u * t1 * v / z**2, -t0 * u * v / z**2], atol=1e-12)
    np.testing.assert_allclose(grad[1], [[t1 * v * t0 / z**2, 0.0], [-t0 * u * t1 / z**2, 0.0]],
                               atol=1e-12)


def test_traced_evidence_outside_cardinality_is_nan_not_wrapped():
    net = bn.make_bayes_net(S2, CPTS2)
    post = np.asarray(jax.vmap(lambda e: bn.query(net, "a", {"b": e}))(jnp.array([1, -1, 2])))
    np.testing.assert_allclose(post[0], [0.0, 1.0], atol=1e-12)  # p(a | b1) by hand
    assert np.isnan(post[1:]).all()


def test_traced_codes_outside_cardinality_give_nan_log_prob():
    net = bn.make_bayes_net(S2, CPTS2)
    out = np.asarray(jax.jit(lambda x: bn.joint_log_prob(net, x))(jnp.array([[1, 1], [0, 5]])))
    assert out[0] == pytest.approx(np.log(0.5 * 0.8), abs=1e-12) and np.isnan(out[1])


def test_targets_as_numpy_array_is_a_sequence():
    net = bn.make_bayes_net(S2, CPTS2)
    out = bn.query(net, np.array(["a", "b"]))
    assert set(out) == {"a", "b"}
    np.testing.assert_allclose(out["b"], [0.6, 0.4], atol=1e-12)  # 0.5 (1, 0) + 0.5 (0.2, 0.8)


def test_per_variable_pseudo_counts_as_a_list():
    X = np.array([[0, 1], [1, 1], [0, 0]])
    net = bn.fit_bayes_net(X, S2, pseudo_count=[1.0, 2.0])
    np.testing.assert_allclose(net.cpts[0], [3 / 5, 2 / 5], atol=1e-12)  # (2+1, 1+1) / 5
    np.testing.assert_allclose(net.cpts[1], [[3 / 6, 3 / 6], [2 / 5, 3 / 5]], atol=1e-12)
    with pytest.raises(ValueError, match="pseudo_count must be >= 0"):
        bn.fit_bayes_net(X, S2, pseudo_count=[1.0, -1.0])


def test_all_marginals_in_one_program_equal_enumeration():
    # several targets -> one elimination and its gradient (Darwiche 2003), one compiled program
    from tests.graphical.test_bayes_net import ASIA, TOL_ENUM, _enumerate_query

    from jaxclassic.graphical import _elimination

    evidence = {"dysp": 0, "xray": 1}
    targets = [n for n in ASIA.structure.names if n not in evidence]
    before = _elimination._query_marginals._cache_size()
    out = bn.query(ASIA, targets, evidence)
    bn.query(ASIA, targets, {"dysp": 1, "xray": 0})  # new values, same program
    assert _elimination._query_marginals._cache_size() == before + 1
    for name in targets:
        np.testing.assert_allclose(out[name], _enumerate_query(ASIA, name, evidence),
                                   atol=TOL_ENUM)
    with pytest.raises(ValueError, match="probability zero"):  # either = tub OR lung
        bn.query(ASIA, ["asia", "smoke"], {"tub": 0, "either": 1})


def test_dataframe_columns_are_matched_by_name():
    pd = pytest.importorskip("pandas")
    s = bn.make_structure({"a": [], "b": ["a"]}, [2, 2])  # equal cardinalities: no range error
    X = np.array([[0, 1], [1, 1], [0, 0], [0, 1]])
    frame = pd.DataFrame({"b": X[:, 1], "a": X[:, 0]})  # the columns in the other order
    by_name, by_position = bn.fit_bayes_net(frame, s), bn.fit_bayes_net(X, s)
    for got, want in zip(by_name.cpts, by_position.cpts):
        np.testing.assert_array_equal(got, want)
    np.testing.assert_allclose(by_name.cpts[1], [[1 / 3, 2 / 3], [0.0, 1.0]], atol=1e-12)
    np.testing.assert_array_equal(bn.joint_log_prob(by_name, frame), bn.joint_log_prob(by_name, X))


def test_dataframe_with_other_column_names_is_rejected():
    pd = pytest.importorskip("pandas")
    with pytest.raises(ValueError, match=r"X has the columns \['a', 'c'\].*variables \['a', 'b'\]"):
        bn.fit_bayes_net(pd.DataFrame({"a": [0, 1], "c": [1, 0]}), S2)


@pytest.mark.full
def test_conflicting_evidence_on_many_children_does_not_underflow_in_float32():
    # naive-Bayes shape: class c, 50 children observed half for each class; each child's
    # factor on c rescales to (1, 1/99) or (1/99, 1), whose product (99**-25 ~ 1e-50)
    # underflows float32 unless every multiplication is rescaled. By symmetry
    # p(c | e) = (1/2, 1/2), so p(t | e) = (0.8 + 0.3, 0.2 + 0.7) / 2.
    n = 50
    feats = [f"f{i}" for i in range(n)]
    s = bn.make_structure({"c": [], **{f: ["c"] for f in feats}, "t": ["c"]}, [2] * (n + 2))
    cpts = {"c": [0.5, 0.5], **{f: [[0.99, 0.01], [0.01, 0.99]] for f in feats},
            "t": [[0.8, 0.2], [0.3, 0.7]]}
    evidence = {f: i % 2 for i, f in enumerate(feats)}
    with jax.enable_x64(False):
        net = bn.make_bayes_net(s, cpts)
        post_c = np.asarray(bn.query(net, "c", evidence))  # the class a target (final product)
        post_t = np.asarray(bn.query(net, "t", evidence))  # the class eliminated
    np.testing.assert_allclose(post_c, [0.5, 0.5], atol=1e-6)  # float32, 50 rescalings
    np.testing.assert_allclose(post_t, [0.55, 0.45], atol=1e-5)
