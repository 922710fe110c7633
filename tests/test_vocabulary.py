"""One vocabulary across the functional core (issue 27; DESIGN.md, "The functional core:
conventions"), checked mechanically over every public module so a new family cannot drift:

* every public module has an ``__all__`` whose names exist, with no deprecated alias in it;
* every model fit is named ``fit_<model>``; the other functions that take data first are listed
  below with what they are;
* randomness comes from a keyword-only ``key=None`` (never positional, never required), and no
  public function takes ``rng``, ``seed`` or ``random_state``;
* counts are named as scikit-learn names them (no ``k``, ``n_states``, ``n_trees``, ...);
* a fit's params type is exported by its family (annotated return type, and its subclasses);
* iterative fits (those with ``max_iter``) report ``n_iter`` and ``converged``; the params of
  every fit behind a classifier estimator report ``n_classes``;
* a functional default equals the same-named estimator's default, or the fit's docstring says
  why (the phrase ``"``name``'s default differs from the estimator's"``);
* classification and regression share one function with ``task=`` unless the algorithms differ
  (the pairs allowed are listed with their reason).

Everything here is signatures, annotations and docstrings: nothing is compiled.
"""

from __future__ import annotations

import importlib
import inspect
import sys
import typing

import pytest

from jaxclassic import _deprecation

MODULES = (
    "losses", "metrics", "information", "kernels", "linear", "svm", "discriminant", "neighbors",
    "gaussian_process", "tree", "ensemble", "cluster", "graphical", "multiclass", "distributed",
    "streaming", "io", "model_selection", "datasets",
)
#: model families: where fits live
FAMILIES = ("linear", "svm", "discriminant", "neighbors", "gaussian_process", "tree", "ensemble",
            "cluster", "graphical", "multiclass", "streaming")

#: public functions of a family that take data first and are not fits, with what they are
NOT_FITS = {
    "linear.backward_stepwise": "a selection path (ESL 3.3)",
    "linear.best_subset": "a selection path",
    "linear.forward_stagewise": "a coefficient path",
    "linear.forward_stepwise": "a selection path",
    "linear.lasso_path": "a regularisation path",
    "linear.ridge_path": "a regularisation path",
    "linear.polynomial_features": "a feature transform",
    "linear.standardize": "a feature transform",
    "neighbors.kde_bandwidth_cv": "model selection for fit_kde",
    "neighbors.kneighbors": "a query (scikit-learn's kneighbors)",
    "neighbors.knn_cv_scores": "model selection for fit_knn",
    "gaussian_process.optimize_hyperparameters": "model selection for fit_gp",
    "tree.bin_features": "a feature transform",
    "tree.choose_ccp_alpha": "model selection for fit_cart",
    "tree.gain_ratio": "a split criterion",
    "tree.information_gain": "a split criterion",
    "cluster.kmeans_elbow": "model selection for fit_kmeans",
    "cluster.kmeans_plusplus": "an initialiser (scikit-learn's kmeans_plusplus)",
    "streaming.least_squares_moments": "sufficient statistics",
    "streaming.class_moments": "sufficient statistics",
}
DATA_FIRST = ("X", "x", "X_train", "data", "sequences")

#: names a count must not have, and the name it has instead (scikit-learn's)
COUNT_NAMES = {"k": "n_neighbors / n_splits", "n_states": "n_components", "n_trees": "n_estimators",
               "n_rounds": "n_estimators", "num_boost_round": "n_estimators", "n_folds": "n_splits",
               "n_mixtures": "n_components", "n_centers": "n_clusters"}
#: (function, parameter) allowed a name above, with why
COUNT_NAME_EXCEPTIONS = {("kernels.from_pairwise", "k"): "a kernel function k(x, z), not a count"}

#: classification / regression pairs that are two functions, with why
TWO_FUNCTIONS = {("svm.fit_kernel_svm", "svm.fit_kernel_svr"):
                 "C-SVC's and epsilon-SVR's duals are different problems",
                 ("linear.fit_sgd_classifier", "linear.fit_sgd_regressor"):
                 "the regressor centres the data (exact intercept) under optax's momentum / Adam and "
                 "a cosine schedule; the classifier is scikit-learn's margin-loss SGD (one-vs-rest, "
                 "the 'optimal' 1/(alpha t) step, a proximal L1 step, the tol rule)"}

#: each estimator and the functional fits it wraps (family.fit)
ESTIMATOR_FITS = {
    "AdaBoostClassifier": ["ensemble.fit_adaboost"],
    "AgglomerativeClustering": ["cluster.fit_agglomerative"],
    "BaggingClassifier": ["ensemble.fit_bagging"],
    "BaggingRegressor": ["ensemble.fit_bagging"],
    "BayesianRidge": ["linear.fit_bayesian_ridge"],
    "C45Classifier": ["tree.fit_c45"],
    "CategoricalHMM": ["graphical.fit_hmm"],
    "BernoulliNB": ["discriminant.fit_bernoulli_nb"],
    "CategoricalNB": ["discriminant.fit_categorical_nb"],
    "ComplementNB": ["discriminant.fit_complement_nb"],
    "MultinomialNB": ["discriminant.fit_multinomial_nb"],
    "ChainCRF": ["graphical.fit_crf"],
    "DecisionTreeClassifier": ["tree.fit_cart"],
    "DecisionTreeRegressor": ["tree.fit_cart"],
    "GaussianHMM": ["graphical.fit_hmm"],
    "GaussianMixture": ["cluster.fit_gmm"],
    "GaussianNB": ["discriminant.fit_gaussian_nb"],
    "GaussianProcessRegressor": ["gaussian_process.fit_gp"],
    "GradientBoostingClassifier": ["ensemble.fit_gradient_boosting"],
    "GradientBoostingRegressor": ["ensemble.fit_gradient_boosting"],
    "ID3Classifier": ["tree.fit_id3"],
    "KMeans": ["cluster.fit_kmeans"],
    "MiniBatchKMeans": ["cluster.fit_minibatch_kmeans"],
    "KNeighborsClassifier": ["neighbors.fit_knn"],
    "KNeighborsRegressor": ["neighbors.fit_knn"],
    "KernelDensity": ["neighbors.fit_kde"],
    "Lasso": ["linear.fit_lasso"],
    "ElasticNet": ["linear.fit_elastic_net"],
    "LinearDiscriminantAnalysis": ["discriminant.fit_lda"],
    "LinearRegression": ["linear.fit_ols"],
    "LinearSVC": ["svm.fit_linear_svm"],
    "LogisticRegression": ["linear.fit_logistic", "linear.fit_softmax"],
    "PerceptronClassifier": ["linear.fit_perceptron"],
    "QuadraticDiscriminantAnalysis": ["discriminant.fit_qda"],
    "RandomForestClassifier": ["ensemble.fit_random_forest"],
    "RandomForestRegressor": ["ensemble.fit_random_forest"],
    "Ridge": ["linear.fit_ridge"],
    "SGDRegressor": ["linear.fit_sgd_regressor"],
    "SGDClassifier": ["linear.fit_sgd_classifier"],
    "SVC": ["svm.fit_kernel_svm"],
    "SVR": ["svm.fit_kernel_svr"],
    "SoftmaxRegression": ["linear.fit_softmax"],
    "StackingClassifier": ["ensemble.fit_stacking"],
    "StackingRegressor": ["ensemble.fit_stacking"],
    "VotingClassifier": ["ensemble.fit_voting"],
    "VotingRegressor": ["ensemble.fit_voting"],
    "XGBoostClassifier": ["ensemble.fit_xgboost"],
    "XGBoostRegressor": ["ensemble.fit_xgboost"],
}
#: parameters whose defaults are not compared: data, and what the estimator layer supplies itself
NOT_HYPERPARAMETERS = {"X", "y", "sample_weight", "key", "lengths", "task", "init", "estimators"}


def _module(name):
    return importlib.import_module(f"jaxclassic.{name}")


def _public_functions(names=MODULES):
    for module_name in names:
        module = _module(module_name)
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isfunction(obj):
                yield f"{module_name}.{name}", obj


def _resolve(qualified):
    module_name, name = qualified.split(".")
    return getattr(_module(module_name), name)


def _return_types(fit):
    """The params types a fit returns: its annotation (a class or a Union), with subclasses."""
    annotation = typing.get_type_hints(fit).get("return")
    assert annotation is not None, f"{fit.__module__}.{fit.__name__} has no return annotation"
    roots = typing.get_args(annotation) or (annotation,)
    found = []
    for root in roots:
        stack = [root]
        while stack:
            cls = stack.pop()
            if (inspect.isclass(cls) and cls.__module__.startswith("jaxclassic") and cls not in found
                    and getattr(sys.modules[cls.__module__], cls.__name__, None) is cls):
                # (types made at run time, such as a GP params type for a user's kernel, are
                # not a module's names and are not checked)
                found.append(cls)
                stack.extend(cls.__subclasses__())
    return found


@pytest.mark.parametrize("module_name", MODULES)
def test_every_public_module_has_an_all_without_deprecated_names(module_name):
    module = _module(module_name)
    assert hasattr(module, "__all__"), f"jaxclassic.{module_name} has no __all__"
    deprecated = {old for _, old, _ in _deprecation.RENAMES}
    for name in module.__all__:
        assert not name.startswith("_"), f"jaxclassic.{module_name}.__all__ lists {name}"
        obj = getattr(module, name)  # AttributeError: listed but missing
        assert not hasattr(obj, "__deprecated_alias_of__"), f"{module_name}.{name} is deprecated"
        assert name not in deprecated or inspect.isclass(obj), f"{module_name}.{name} is deprecated"


def test_fits_are_named_fit_and_other_data_first_functions_are_listed():
    unlisted = []
    for qualified, func in _public_functions(FAMILIES):
        name = qualified.split(".")[1]
        params = list(inspect.signature(func).parameters)
        if params and params[0] in DATA_FIRST and not name.startswith("fit_"):
            if qualified not in NOT_FITS:
                unlisted.append(qualified)
    assert not unlisted, (f"{unlisted} take data first but are not named fit_*: rename them "
                          "fit_<model>, or list them in NOT_FITS with what they are")
    for qualified in NOT_FITS:
        _resolve(qualified)  # a listed name that no longer exists is stale


def test_randomness_is_a_keyword_only_key_defaulting_to_none():
    wrong = []
    for qualified, func in _public_functions():
        params = inspect.signature(func).parameters
        for banned in ("rng", "seed", "random_state", "prng_key", "rng_key"):
            if banned in params:
                wrong.append(f"{qualified}({banned}=) should be key=")
        if "key" in params:
            key = params["key"]
            if key.kind is not inspect.Parameter.KEYWORD_ONLY or key.default is not None:
                wrong.append(f"{qualified}: key is {key.kind.name}, default {key.default!r}")
    assert not wrong, wrong


def test_counts_are_named_as_scikit_learn_names_them():
    wrong = []
    for qualified, func in _public_functions():
        for name in inspect.signature(func).parameters:
            if name in COUNT_NAMES and (qualified, name) not in COUNT_NAME_EXCEPTIONS:
                wrong.append(f"{qualified}({name}=) should be {COUNT_NAMES[name]}")
    assert not wrong, wrong


def test_params_types_are_exported_by_their_family():
    missing = []
    for family in FAMILIES:
        for qualified, func in _public_functions([family]):
            if not qualified.split(".")[1].startswith("fit_"):
                continue
            for cls in _return_types(func):
                owner = cls.__module__.split(".")[1]
                owner_module = _module(owner)
                if getattr(owner_module, cls.__name__, None) is not cls or (
                        cls.__name__ not in owner_module.__all__):
                    missing.append(f"{cls.__module__}.{cls.__name__} (from {qualified}) "
                                   f"not in jaxclassic.{owner}.__all__")
    assert not missing, missing


def test_iterative_fits_report_n_iter_and_converged():
    missing = []
    for qualified, func in _public_functions(FAMILIES):
        if qualified.split(".")[1].startswith("fit_") and "max_iter" in inspect.signature(
                func).parameters:
            for cls in _return_types(func):
                for attribute in ("n_iter", "converged"):
                    if not hasattr(cls, attribute):
                        missing.append(f"{cls.__name__} (from {qualified}) lacks {attribute}")
    assert not missing, missing


def test_classifier_params_report_n_classes():
    from sklearn.base import ClassifierMixin

    from jaxclassic import estimators

    missing = []
    for estimator_name, fits in ESTIMATOR_FITS.items():
        if not issubclass(getattr(estimators, estimator_name), ClassifierMixin):
            continue
        for qualified in fits:
            types = _return_types(_resolve(qualified))
            leaves = [cls for cls in types if not cls.__subclasses__()]
            classifying = [cls for cls in leaves if "Regress" not in cls.__name__]
            for cls in classifying:
                if not hasattr(cls, "n_classes"):
                    missing.append(f"{cls.__name__} (from {qualified}, behind {estimator_name})")
    assert not missing, f"lack n_classes: {missing}"


def test_every_estimator_is_mapped_to_its_fits():
    from jaxclassic import estimators

    classes = {name for name in estimators.__all__
               if inspect.isclass(getattr(estimators, name))
               and hasattr(getattr(estimators, name), "get_params")}
    assert classes == set(ESTIMATOR_FITS), (
        f"estimators without an entry: {sorted(classes - set(ESTIMATOR_FITS))}; "
        f"entries without an estimator: {sorted(set(ESTIMATOR_FITS) - classes)}")


def _same_default(a, b):
    if a is None or b is None:
        return a is b
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return float(a) == float(b)
    if isinstance(a, (str, tuple)) and isinstance(b, (str, tuple)):
        return a == b
    return a is b  # arrays, callables: the same object or not the same default


@pytest.mark.parametrize("estimator_name", sorted(ESTIMATOR_FITS))
def test_functional_defaults_equal_the_estimators(estimator_name):
    from jaxclassic import estimators

    estimator = inspect.signature(getattr(estimators, estimator_name)).parameters
    differ = []
    for qualified in ESTIMATOR_FITS[estimator_name]:
        fit = _resolve(qualified)
        doc = inspect.getdoc(fit) or ""
        for name, param in inspect.signature(fit).parameters.items():
            if name in NOT_HYPERPARAMETERS or name not in estimator:
                continue
            ours, theirs = param.default, estimator[name].default
            if ours is inspect.Parameter.empty or theirs is inspect.Parameter.empty:
                continue
            if not _same_default(ours, theirs) and (
                    f"``{name}``'s default differs from the estimator's" not in doc):
                differ.append(f"{qualified}({name}={ours!r}) vs {estimator_name}({name}="
                              f"{theirs!r})")
    assert not differ, (f"{differ}: align the default, or say why in the fit's docstring "
                        "(\"``name``'s default differs from the estimator's: ...\")")


def test_classification_and_regression_share_one_function():
    fits = {qualified for qualified, _ in _public_functions(FAMILIES)
            if qualified.split(".")[1].startswith("fit_")}
    allowed = {name for pair in TWO_FUNCTIONS for name in pair}
    pairs = []
    for qualified in fits:
        for suffix in ("_regressor", "_classifier", "_regression", "_classification"):
            if qualified.endswith(suffix):
                stem = qualified[: -len(suffix)]
                twins = {stem, stem + "_classifier", stem + "_regressor"} - {qualified}
                if twins & fits and qualified not in allowed:
                    pairs.append(qualified)
    assert not pairs, f"{pairs}: one function with task= (DESIGN.md), or list the pair"
    for pair in TWO_FUNCTIONS:
        for qualified in pair:
            _resolve(qualified)
