"""jaxclassic._jit.jit: small top-level CPU calls compile with the older XLA emitters, every
other call exactly as ``jax.jit``; the two agree (bitwise on fitted trees)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxclassic import _jit


def test_small_and_large_calls_compile_separate_programs(monkeypatch):
    monkeypatch.setattr(_jit, "SMALL_MAX_ELEMENTS", 100)
    f = _jit.jit(lambda x: jnp.sum(jnp.sin(x) * x))
    small, large = np.linspace(0, 1, 100), np.linspace(0, 1, 101)
    np.testing.assert_allclose(f(small), np.sum(np.sin(small) * small), rtol=1e-13)
    assert (f._small._cache_size(), f._default._cache_size()) == (1, 0)
    np.testing.assert_allclose(f(large), np.sum(np.sin(large) * large), rtol=1e-13)
    assert (f._small._cache_size(), f._default._cache_size()) == (1, 1)
    assert f._cache_size() == 2
    f(small + 1.0)  # same shape: no new program
    assert f._cache_size() == 2
    f.clear_cache()
    assert f._cache_size() == 0


def test_threshold_zero_is_plain_jit(monkeypatch):
    monkeypatch.setattr(_jit, "SMALL_MAX_ELEMENTS", 0)
    f = _jit.jit(lambda x: x + 1)
    f(np.ones(3))
    assert (f._small._cache_size(), f._default._cache_size()) == (0, 1)


def test_small_program_carries_the_options_and_the_default_none(monkeypatch):
    monkeypatch.setattr(_jit, "SMALL_MAX_ELEMENTS", 10)
    f = _jit.jit(lambda x: x * 2.0)
    # jax keeps a lowering's compiler options in a private field (jax 0.10)
    assert f.lower(np.ones(10))._lowering._compiler_options_kvs == (("xla_cpu_use_fusion_emitters", False),)
    assert f.lower(np.ones(11))._lowering._compiler_options_kvs == ()


def test_inside_transformations_the_default_program_is_used():
    """JAX refuses compiler options on a jit staged into another: inside jit, vmap and grad
    the call goes to the plain jit (this raised before the top-level check)."""
    f = _jit.jit(lambda x, a: jnp.sum(a * x ** 2), static_argnames=())
    x = jnp.arange(3.0)
    assert float(jax.jit(f)(x, 2.0)) == 10.0
    np.testing.assert_array_equal(jax.vmap(f, in_axes=(None, 0))(x, jnp.array([1.0, 2.0])), [5.0, 10.0])
    np.testing.assert_array_equal(jax.grad(f)(x, 2.0), 4.0 * np.arange(3.0))
    assert f._small._cache_size() == 0


def test_static_arguments_and_decorator_forms():
    @_jit.jit(static_argnames=("power",))
    def g(x, *, power):
        return x ** power

    np.testing.assert_array_equal(g(np.arange(4.0), power=3), np.arange(4.0) ** 3)
    assert g.__name__ == "g"
    with pytest.raises(TypeError, match="compiler_options"):
        _jit.jit(lambda x: x, compiler_options={})


def test_static_objects_with_a_non_array_shape_are_not_counted(monkeypatch):
    """A ``jax.sharding.Mesh`` passed as a static argument has a ``shape`` that maps axis
    names to sizes; the size rule once multiplied its keys and raised ``TypeError`` (the
    ``distributed.kneighbors`` doctest in CI). Only array leaves are counted."""
    monkeypatch.setattr(_jit, "SMALL_MAX_ELEMENTS", 10)
    mesh = jax.sharding.Mesh(np.array(jax.devices()[:1]), ("rows",))
    f = _jit.jit(lambda x, mesh: x * mesh.size, static_argnames=("mesh",))
    np.testing.assert_array_equal(f(np.ones(10), mesh=mesh), np.ones(10))
    np.testing.assert_array_equal(f(np.ones(11), mesh=mesh), np.ones(11))
    assert (f._small._cache_size(), f._default._cache_size()) == (1, 1)


@pytest.mark.full
def test_fitted_trees_are_bitwise_the_same_under_both_programs(monkeypatch):
    """The reference is XLA's default program (threshold 0); the data are small, so the
    default threshold takes the small program."""
    from sklearn.datasets import load_breast_cancer

    import jaxclassic.estimators as est

    X, y = load_breast_cancer(return_X_y=True)
    X_new = X[::7] * 1.01
    fits = {}
    for limit in (_jit.SMALL_MAX_ELEMENTS, 0):
        monkeypatch.setattr(_jit, "SMALL_MAX_ELEMENTS", limit)
        m = est.DecisionTreeClassifier(max_depth=6, min_samples_leaf=2).fit(X, y)
        fits[limit] = jax.tree_util.tree_leaves(m.params_) + [m.predict_proba(X_new)]
    small, default = fits.values()
    for a, b in zip(small, default, strict=True):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
