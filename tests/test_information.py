"""Information measures against scipy.stats.entropy, sklearn.metrics.mutual_info_score and the
root impurity of scikit-learn's decision trees, in float64 to 1e-10 (sums of O(10) terms
of size O(1) in a different order: rounding ~1e-15); identities; jit / vmap / no retrace;
bad input, one test per case."""

import math

import chex
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxclassic import information

stats = pytest.importorskip("scipy.stats")

TOL = dict(rtol=1e-10, atol=1e-12)
RNG = np.random.default_rng(0)
K = 5
P = RNG.dirichlet(np.ones(K), size=6)  # (6, K) probability vectors
P[0, 2] = 0.0  # a zero entry: 0 log 0 = 0
Q = RNG.dirichlet(np.ones(K), size=6)
COUNTS = RNG.integers(0, 20, size=(6, K))
N = 80
X_LABELS = RNG.integers(0, 3, N)
Y_LABELS = (X_LABELS + RNG.integers(0, 2, N)) % 4  # dependent on X
W_INT = RNG.integers(0, 4, N)
W_INT[0] = 1


def close(ours, ref, **tol):
    np.testing.assert_allclose(np.asarray(ours), np.asarray(ref), **(tol or TOL))


# --------------------------------------------------------------------------- entropy
@pytest.mark.parametrize("base, scipy_base", [(2.0, 2), ("bits", 2), ("nats", None), (None, None),
                                              (10.0, 10), (math.e, None)])
def test_entropy_equals_scipy(base, scipy_base):
    close(information.entropy(P, base=base), stats.entropy(P, base=scipy_base, axis=-1))
    close(information.entropy(COUNTS, base=base), stats.entropy(COUNTS, base=scipy_base, axis=-1))
    close(information.entropy(P.T, base=base, axis=0), stats.entropy(P.T, base=scipy_base, axis=0))


def test_entropy_closed_forms():
    assert float(information.entropy(np.ones(8))) == pytest.approx(3.0, abs=1e-14)  # uniform: log2 8
    assert float(information.entropy([0.0, 1.0, 0.0])) == 0.0  # 0 log 0 = 0
    assert float(information.entropy(np.zeros(4))) == 0.0  # empty node (scipy: nan)


def test_gini_and_entropy_equal_sklearn_tree_root_impurity():
    tree = pytest.importorskip("sklearn.tree")
    X = RNG.normal(size=(N, 2))
    w = RNG.uniform(0.1, 2.0, N)
    class_weights = np.bincount(Y_LABELS, weights=w)
    for criterion, ours in [("gini", information.gini(class_weights)),
                            ("entropy", information.entropy(class_weights, base=2))]:
        fit = tree.DecisionTreeClassifier(criterion=criterion, max_depth=1).fit(X, Y_LABELS, sample_weight=w)
        close(ours, fit.tree_.impurity[0])


def test_gini_equals_probability_two_draws_differ():
    q = P / P.sum(-1, keepdims=True)
    differ = np.einsum("bj,bk->b", q, q) - np.einsum("bj,bj->b", q, q)  # sum_{j != k} q_j q_k
    close(information.gini(P), differ)
    close(information.gini(COUNTS.T, axis=0), information.gini(COUNTS))
    assert float(information.gini(np.zeros(3))) == 0.0 and float(information.gini([0, 4, 0])) == 0.0


# --------------------------------------------------------------------------- KL divergence
@pytest.mark.parametrize("base, scipy_base", [(2.0, 2), ("nats", None), (10.0, 10)])
def test_kl_divergence_equals_scipy(base, scipy_base):
    close(information.kl_divergence(P, Q, base=base), stats.entropy(P, Q, base=scipy_base, axis=-1))
    close(information.kl_divergence(COUNTS + 1, COUNTS + 2, base=base),
          stats.entropy(COUNTS + 1, COUNTS + 2, base=scipy_base, axis=-1))
    close(information.kl_divergence(P, Q[0], base=base), stats.entropy(P, Q[[0] * 6], base=scipy_base, axis=-1))


def test_kl_divergence_infinite_where_q_is_zero_and_zero_for_equal():
    assert float(information.kl_divergence([0.5, 0.5], [1.0, 0.0])) == np.inf
    assert float(information.kl_divergence([0.0, 1.0], [0.5, 0.5])) == pytest.approx(1.0)
    close(information.kl_divergence(P, P), np.zeros(6), atol=1e-15)


# --------------------------------------------------------------------------- mutual information
def test_mutual_information_equals_sklearn():
    skm = pytest.importorskip("sklearn.metrics")
    expected = skm.mutual_info_score(X_LABELS, Y_LABELS)
    close(information.mutual_information(X_LABELS, Y_LABELS, base="nats"), expected)
    close(information.mutual_information(X_LABELS, Y_LABELS), expected / np.log(2))
    # integer weights = repeated rows (zero weight = row left out)
    rep = np.repeat(np.arange(N), W_INT)
    close(information.mutual_information(X_LABELS, Y_LABELS, sample_weight=W_INT, base="nats"),
          skm.mutual_info_score(X_LABELS[rep], Y_LABELS[rep]))
    # a joint table of counts = sklearn's contingency form (which casts tables to int)
    counts = np.zeros((3, 4), dtype=int)
    np.add.at(counts, (X_LABELS, Y_LABELS), W_INT)
    close(information.mutual_information(joint=counts, base="nats"),
          skm.mutual_info_score(None, None, contingency=counts))
    # fractional weights = the definition on the weighted contingency table (numpy)
    w = RNG.uniform(0.1, 2.0, N)
    table = np.zeros((3, 4))
    np.add.at(table, (X_LABELS, Y_LABELS), w)
    pxy = table / table.sum()
    outer = pxy.sum(1, keepdims=True) * pxy.sum(0, keepdims=True)
    nz = pxy > 0
    expected = np.sum(pxy[nz] * np.log(pxy[nz] / outer[nz]))
    close(information.mutual_information(X_LABELS, Y_LABELS, sample_weight=w, base="nats"), expected)
    close(information.mutual_information(joint=table, base="nats"), expected)


@pytest.mark.full
def test_mutual_information_identities():
    table = np.zeros((3, 4))
    np.add.at(table, (X_LABELS, Y_LABELS), 1.0)
    h_x = information.entropy(table.sum(1))
    h_y = information.entropy(table.sum(0))
    h_xy = information.entropy(table.ravel())
    close(information.mutual_information(X_LABELS, Y_LABELS), h_x + h_y - h_xy)
    close(information.mutual_information(X_LABELS, X_LABELS), h_x)  # I(X; X) = H(X)
    independent = np.outer([0.2, 0.8], [0.1, 0.3, 0.6])
    assert float(information.mutual_information(joint=independent)) == pytest.approx(0.0, abs=1e-15)
    # a batch of joint tables
    batch = np.stack([table, np.pad(independent, ((0, 1), (0, 1)))])  # zero row/column: no effect
    close(information.mutual_information(joint=batch), [h_x + h_y - h_xy, 0.0], atol=1e-15)


# --------------------------------------------------------------------------- transformations
def test_vmap_over_weights_equals_loop_and_jit_equals_eager():
    folds = jnp.asarray(np.stack([(np.arange(N) % 3 != k).astype(float) for k in range(3)]))

    def mi(w):
        return information.mutual_information(X_LABELS, Y_LABELS, sample_weight=w)

    close(jax.vmap(mi)(folds), np.stack([mi(f) for f in folds]))
    close(jax.jit(information.entropy)(P), information.entropy(P))
    traced = jax.jit(lambda x, y: information.mutual_information(x, y, n_classes_x=3, n_classes_y=4))
    close(traced(X_LABELS, Y_LABELS), information.mutual_information(X_LABELS, Y_LABELS))


def test_second_call_with_same_shapes_does_not_retrace():
    @jax.jit
    @chex.assert_max_traces(n=1)
    def measures(p, q):
        return information.entropy(p), information.gini(p), information.kl_divergence(p, q)

    measures(P, Q)
    measures(Q, P)
    information.entropy(P, base=2.0)
    size = information._entropy._cache_size()
    information.entropy(Q, base=10.0)  # the base is a traced scalar: no recompile
    assert information._entropy._cache_size() == size


def test_float32_input_keeps_float32():
    h = information.entropy(P.astype(np.float32))
    assert h.dtype == jnp.float32
    close(h, stats.entropy(P, base=2, axis=-1), rtol=1e-5)
    mi = information.mutual_information(X_LABELS, Y_LABELS, sample_weight=np.ones(N, np.float32))
    assert mi.dtype == jnp.float32


# --------------------------------------------------------------------------- bad input
def test_bad_negative_probability():
    with pytest.raises(ValueError, match="p must be non-negative"):
        information.entropy([0.5, -0.1, 0.6])


def test_bad_nan_probability():
    with pytest.raises(ValueError, match="p contains 1 NaN"):
        information.gini([0.5, np.nan])


def test_bad_base_one():
    with pytest.raises(ValueError, match="base must be finite, > 0 and != 1, got 1"):
        information.entropy(P, base=1)


def test_bad_base_string():
    with pytest.raises(ValueError, match="base must be a positive number, 'bits' or 'nats'"):
        information.entropy(P, base="decibans")


def test_bad_base_type():
    with pytest.raises(TypeError, match="base must be a positive number"):
        information.kl_divergence(P, Q, base=True)


def test_bad_axis():
    with pytest.raises(ValueError, match="axis 2 is out of bounds for an array of 2 dimension"):
        information.entropy(P, axis=2)


def test_bad_kl_shapes():
    with pytest.raises(ValueError, match=r"p and q must have the same shape, got \(6, 5\) and \(4,\)"):
        information.kl_divergence(P, np.ones(4))


def test_bad_mutual_information_labels_and_joint():
    with pytest.raises(ValueError, match="either x_labels and y_labels, or joint, not both"):
        information.mutual_information(X_LABELS, Y_LABELS, joint=np.ones((2, 2)))


def test_bad_mutual_information_weight_with_joint():
    with pytest.raises(ValueError, match="sample_weight applies to the label form"):
        information.mutual_information(joint=np.ones((2, 2)), sample_weight=np.ones(4))


def test_bad_mutual_information_missing_labels():
    with pytest.raises(ValueError, match="needs x_labels and y_labels"):
        information.mutual_information(X_LABELS)


def test_bad_mutual_information_lengths():
    with pytest.raises(ValueError, match="inconsistent numbers of samples: 80 != 79"):
        information.mutual_information(X_LABELS, Y_LABELS[:-1])


def test_bad_mutual_information_negative_code():
    with pytest.raises(ValueError, match="y_labels must hold codes >= 0"):
        information.mutual_information(X_LABELS, Y_LABELS - 1)


def test_bad_mutual_information_code_beyond_n_classes():
    with pytest.raises(ValueError, match="x_labels holds code 2 but n_classes_x=2"):
        information.mutual_information(X_LABELS, Y_LABELS, n_classes_x=2)


def test_bad_mutual_information_traced_without_n_classes():
    with pytest.raises(ValueError, match="n_classes_x must be given when x_labels is traced"):
        jax.jit(lambda x: information.mutual_information(x, Y_LABELS))(X_LABELS)


def test_bad_joint_table_ndim():
    with pytest.raises(ValueError, match="joint must be 2-d"):
        information.mutual_information(joint=np.ones(4))


def test_bad_negative_weight():
    with pytest.raises(ValueError, match="sample_weight must be non-negative"):
        information.mutual_information(X_LABELS, Y_LABELS, sample_weight=-np.ones(N))
