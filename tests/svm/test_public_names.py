"""Issue 27 (one vocabulary) for jaxclassic.svm: public names and params types, ``n_classes``,
``n_iter`` / ``converged``, keyword-only optional keys, two functions for two algorithms."""

import inspect

import numpy as np
import pytest

from jaxclassic import svm
from jaxclassic.svm import platt


def test_all_lists_existing_names_with_the_params_types():
    assert all(hasattr(svm, name) for name in svm.__all__)
    for name in ("LinearSVMParams", "KernelSVMParams", "KernelSVRParams"):
        assert name in svm.__all__
    assert svm.KernelSVMParams is svm.kernel.KernelSVMParams


def test_n_classes_of_the_binary_svms():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2))
    y = (X[:, 0] + 0.3 * rng.normal(size=40) > 0).astype(np.int32)
    for params in (svm.fit_linear_svm(X, y), svm.fit_kernel_svm(X, y)):
        assert type(params.n_classes) is int and params.n_classes == 2
        assert "n_classes" not in type(params)._fields


def test_iterative_params_have_n_iter_and_converged():
    for params_type in (svm.LinearSVMParams, svm.KernelSVMParams, svm.KernelSVRParams):
        assert {"n_iter", "converged"} <= set(params_type._fields)


def test_keys_are_keyword_only_and_optional():
    for func in (svm.fit_linear_svm, svm.fit_kernel_svm, svm.fit_kernel_svr,
                 platt.fold_assignment, platt.cross_validated_platt):
        key = inspect.signature(func).parameters["key"]
        assert key.kind is inspect.Parameter.KEYWORD_ONLY and key.default is None


def test_classification_and_regression_say_why_they_are_two_functions():
    assert "algorithms differ" in svm.fit_kernel_svm.__doc__
    assert "the algorithm differs" in svm.fit_kernel_svr.__doc__


def test_n_folds_is_a_deprecated_spelling_of_n_splits():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 2))
    y = (X[:, 0] + 0.5 * rng.normal(size=40) > 0).astype(np.int32)
    for fit in (svm.fit_linear_svm, svm.fit_kernel_svm):
        assert "n_splits" in inspect.signature(fit).parameters
        new = fit(X, y, probability=True, n_splits=3)
        with pytest.warns(DeprecationWarning, match=r"n_splits="):
            old = fit(X, y, probability=True, n_folds=3)
        np.testing.assert_array_equal(old.probA, new.probA)
        np.testing.assert_array_equal(old.probB, new.probB)
