"""Issue 27 (one vocabulary) for jaxclassic.discriminant and jaxclassic.gaussian_process:
public names and params types, ``n_classes`` on every classifier's params."""

import jax
import numpy as np

from jaxclassic import discriminant, gaussian_process


def test_all_lists_existing_names_with_the_params_types():
    for family, types in ((discriminant, ("LDAParams", "QDAParams", "GaussianNBParams",
                                          "CategoricalNBParams", "MixedNBParams")),
                          (gaussian_process, ("GPParams", "GPOptimization", "GPKernel"))):
        assert all(hasattr(family, name) for name in family.__all__)
        assert set(types) <= set(family.__all__)


def test_n_classes_is_a_static_int_property():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 2)) + np.repeat(np.eye(3, 2) * 3, 20, axis=0)
    y = np.repeat(np.arange(3), 20).astype(np.int32)
    codes = (X > 0).astype(np.int32)
    mixed = np.c_[X[:, :1], codes[:, 1:]]
    fits = (discriminant.fit_lda(X, y), discriminant.fit_qda(X, y),
            discriminant.fit_gaussian_nb(X, y), discriminant.fit_categorical_nb(codes, y),
            discriminant.fit_mixed_nb(mixed, y, categorical_features=[1]))
    for params in fits:
        assert type(params.n_classes) is int and params.n_classes == 3, type(params).__name__
        assert "n_classes" not in type(params)._fields
        # a property: the leaves are the fields' arrays only
        assert len(jax.tree_util.tree_leaves(params)) == len(jax.tree_util.tree_leaves(tuple(params)))
