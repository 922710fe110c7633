"""Fits without a derivative say so (issue 14; :func:`jaxclassic._implicit.nondifferentiable`).

Trees (CART, ID3, C4.5), the tree ensembles (random forest, AdaBoost, gradient boosting,
XGBoost; bagging of trees through its member fit), k-means, agglomerative clustering and the
perceptron are piecewise constant in their data: ``jax.grad`` / ``jax.jvp`` through them raise
a ``TypeError`` naming the fit and the reason, where before they raised JAX's ``while_loop``
message or, for CART in ``X``, returned a silent zero. The error is raised when the derivative
is traced, before any compilation, so these tests are cheap. Un-differentiated calls are
untouched (the fits' own tests; here one ``jit`` and one ``vmap`` case still run).
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxclassic import cluster, ensemble, linear, tree

RNG = np.random.default_rng(0)
X = RNG.normal(size=(24, 2))
Y_CLS = (X[:, 0] > 0).astype(np.int32)
Y_REG = X[:, 0] + 0.1 * RNG.normal(size=24)
W = np.ones(24)
KEY = jax.random.key(0)

# (fit's name in the message, function of one float argument, the argument)
CASES = {
    "fit_cart X": ("fit_cart", lambda a: tree.fit_cart(a, Y_CLS, max_depth=1).threshold, X),
    "fit_cart y": ("fit_cart", lambda a: tree.fit_cart(X, a, task="regression", max_depth=1).value, Y_REG),
    "fit_cart sample_weight": ("fit_cart", lambda a: tree.fit_cart(X, Y_CLS, max_depth=1, sample_weight=a).value,
                               W),
    "fit_cart min_impurity_decrease": (
        "fit_cart", lambda a: tree.fit_cart(X, Y_CLS, max_depth=1, min_impurity_decrease=a).value, 0.1),
    "fit_id3 sample_weight": (
        "fit_id3", lambda a: tree.fit_id3((X > 0).astype(np.int32), Y_CLS, sample_weight=a).value, W),
    "fit_c45 X": ("fit_c45", lambda a: tree.fit_c45(a, Y_CLS).value, X),
    "fit_random_forest X": ("fit_random_forest",
                            lambda a: ensemble.fit_random_forest(a, Y_CLS, n_estimators=2, max_depth=1,
                                                                 key=KEY).estimators.value, X),
    "fit_adaboost sample_weight": (
        "fit_adaboost", lambda a: ensemble.fit_adaboost(X, Y_CLS, n_estimators=2, sample_weight=a).estimator_weights,
        W),
    "fit_gradient_boosting y": (
        "fit_gradient_boosting",
        lambda a: ensemble.predict(ensemble.fit_gradient_boosting(X, a, n_estimators=2, max_depth=1), X), Y_REG),
    "fit_xgboost reg_lambda": (
        "fit_xgboost", lambda a: ensemble.predict(ensemble.fit_xgboost(X, Y_REG, n_estimators=2, max_depth=1,
                                                                       reg_lambda=a), X), 1.0),
    "fit_xgboost y": ("fit_xgboost",
                      lambda a: ensemble.predict(ensemble.fit_xgboost(X, a, n_estimators=2, max_depth=1), X), Y_REG),
    "fit_kmeans X": ("fit_kmeans", lambda a: cluster.fit_kmeans(a, 2, key=KEY).cluster_centers, X),
    "fit_kmeans sample_weight": ("fit_kmeans",
                                 lambda a: cluster.fit_kmeans(X, 2, key=KEY, sample_weight=a).cluster_centers, W),
    "fit_agglomerative X": ("fit_agglomerative", lambda a: cluster.fit_agglomerative(a).linkage_matrix, X),
    "fit_perceptron X": ("fit_perceptron", lambda a: linear.fit_perceptron(a, Y_CLS).coef, X),
}


def _scalar(f):
    return lambda a: jnp.sum(jnp.nan_to_num(jnp.asarray(f(a), dtype=jnp.float64)))


@pytest.mark.parametrize("case", sorted(CASES))
def test_grad_raises_a_clear_error_naming_the_fit(case):
    name, f, arg = CASES[case]
    with pytest.raises(TypeError, match=f"^{name} has no derivative with respect to its inputs: "):
        jax.grad(_scalar(f))(jnp.asarray(arg, dtype=jnp.float64))


@pytest.mark.parametrize("case", ["fit_cart X", "fit_kmeans X"])
def test_forward_mode_raises_too(case):
    name, f, arg = CASES[case]
    arg = jnp.asarray(arg, dtype=jnp.float64)
    with pytest.raises(TypeError, match=f"^{name} has no derivative"):
        jax.jvp(_scalar(f), (arg,), (jnp.ones_like(arg),))


def test_the_message_gives_the_reason():
    with pytest.raises(TypeError, match="piecewise constant in the data"):
        jax.grad(_scalar(CASES["fit_kmeans X"][1]))(jnp.asarray(X))


@pytest.mark.full
def test_bagging_of_trees_raises_through_its_member_fit():
    def f(a):
        return ensemble.fit_bagging(tree.fit_cart, a, Y_CLS, n_estimators=2, key=KEY, max_depth=1).estimators.value

    with pytest.raises(TypeError, match="^fit_cart has no derivative"):
        jax.grad(_scalar(f))(jnp.asarray(X))


@pytest.mark.full
def test_undifferentiated_jit_and_vmap_are_unaffected():
    # a traced (not differentiated) input passes through the marker: jit and vmap work as before
    fit = jax.jit(lambda a: tree.fit_cart(a, Y_CLS, max_depth=1).threshold)
    np.testing.assert_array_equal(fit(jnp.asarray(X)), tree.fit_cart(X, Y_CLS, max_depth=1).threshold)
    weights = jnp.stack([jnp.ones(24), jnp.asarray(np.r_[np.ones(12), np.zeros(12)])])
    centres = jax.vmap(lambda w: cluster.fit_kmeans(X, 2, key=KEY, sample_weight=w).cluster_centers)(weights)
    # (the batched program rounds differently: equal to 1e-14)
    np.testing.assert_allclose(centres[0], cluster.fit_kmeans(X, 2, key=KEY).cluster_centers, rtol=1e-14, atol=1e-15)
