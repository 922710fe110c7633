"""Shared test material for model selection: a tiny private weighted ridge fit, data, and the
registry of the package's functional fits that ``cross_validate`` must handle.

The private fit is independent of ``jaxclassic.linear`` so the machinery is tested on its own;
the registry (``FIT_CASES``) lists the package's fits. A later family registers by adding one
``FitCase`` (fit, response, scorer maker, traced and static hyperparameters, data kind).

Not here: the fits of :mod:`jaxclassic.streaming`. They are host loops over pieces of data on
disk (a ``lax.while_loop`` cannot re-read a file), so ``cross_validate`` cannot vmap them over
fold weights; tests/test_streaming.py checks that their per-fold fits give ``cross_validate``'s
fold scores of the in-memory fits registered here.
"""

from __future__ import annotations

import importlib
from typing import Any, Callable, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxclassic import metrics

N_SAMPLES, N_FEATURES, N_FOLDS = 40, 3, 5
TRACES = {"ridge": 0}


class RidgeParams(NamedTuple):
    coef: jax.Array
    intercept: jax.Array


def ridge_fit(X, y, *, sample_weight=None, alpha=0.0):
    r"""Weighted ridge with an unpenalised intercept, by the normal equations:
    ``min sum_i w_i (y_i - b - x_i^T beta)^2 + alpha |beta|^2`` (scikit-learn's Ridge)."""
    TRACES["ridge"] += 1  # runs once per trace (or per eager call)
    w = jnp.ones(X.shape[0], X.dtype) if sample_weight is None else sample_weight
    Xa = jnp.concatenate([jnp.ones((X.shape[0], 1), X.dtype), X], axis=1)
    penalty = jnp.diag(jnp.concatenate([jnp.zeros(1, X.dtype), jnp.ones(X.shape[1], X.dtype)]))
    A = Xa.T @ (w[:, None] * Xa) + alpha * penalty
    beta = jnp.linalg.solve(A, Xa.T @ (w * y))
    return RidgeParams(beta[1:], beta[0])


def ridge_predict(params, X):
    return X @ params.coef + params.intercept


def poly_ridge_fit(X, y, *, sample_weight=None, alpha=0.0, degree=1):
    """Ridge on the powers x, x^2, ..., x^degree of the first column (``degree`` static)."""
    return ridge_fit(poly_features(X, degree), y, sample_weight=sample_weight, alpha=alpha)


def poly_features(X, degree):
    x = X[:, :1] if X.ndim == 2 else X[:, None]
    return jnp.concatenate([x**p for p in range(1, degree + 1)], axis=1)


def neg_mse(params, X, y, *, sample_weight):
    return -metrics.mean_squared_error(y, ridge_predict(params, X), sample_weight=sample_weight)


def regression_data(seed=0, n=N_SAMPLES, d=N_FEATURES, dtype=np.float64):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = X @ rng.normal(size=d) + 0.5 + rng.normal(scale=0.7, size=n)
    return X.astype(dtype), y.astype(dtype)


def classification_data(seed=0, n=N_SAMPLES, d=N_FEATURES, n_classes=2):
    """Gaussian blobs, the classes interleaved so every stratified fold holds each class."""
    rng = np.random.default_rng(seed)
    y = np.arange(n) % n_classes
    centers = rng.normal(scale=1.5, size=(n_classes, d))
    X = centers[y] + rng.normal(size=(n, d))
    return X, y.astype(np.int32)


def categorical_data(seed=0, n=N_SAMPLES, d=N_FEATURES, n_classes=2, n_categories=3):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % n_classes
    X = (rng.integers(0, n_categories, size=(n, d)) + y[:, None]) % n_categories
    return X.astype(np.int32), y.astype(np.int32)


# --------------------------------------------------------------------------- the registry
class FitCase(NamedTuple):
    """One functional fit of the package for the ``cross_validate == loop`` test.

    ``fit`` and ``response`` are "module:name" strings, resolved lazily so a missing fit
    skips its case by name; ``scorer`` builds the score from the response; ``data`` is one
    of "regression", "binary", "multiclass", "categorical", "categorical_multiclass";
    ``rtol`` reflects the fit's solver (closed forms tight, iterative solvers their tolerance).
    ``instance_fields`` names the params fields that hold the training rows themselves
    (instance-based models such as k-NN): those are compared on each fold's positive-weight
    rows, the rows a sliced fit keeps.
    """

    name: str
    fit: str
    response: str
    scorer: str
    hyperparameters: dict
    fit_kwargs: dict
    data: str
    rtol: float = 1e-8
    instance_fields: tuple = ()


FIT_CASES = [
    FitCase("ridge", "jaxclassic.linear:fit_ridge", "jaxclassic.linear:predict", "neg_mse_scorer",
            {"alpha": 0.7}, {}, "regression"),
    FitCase("lasso", "jaxclassic.linear:fit_lasso", "jaxclassic.linear:predict", "neg_mse_scorer",
            {"alpha": 0.05}, {"tol": 1e-12, "max_iter": 5000}, "regression", 1e-6),
    FitCase("logistic", "jaxclassic.linear:fit_logistic", "jaxclassic.linear:predict_proba",
            "log_loss_scorer", {"l2": 0.5}, {}, "binary", 1e-6),
    FitCase("softmax", "jaxclassic.linear:fit_softmax", "jaxclassic.linear:predict_proba",
            "log_loss_scorer", {"l2": 0.5}, {"n_classes": 3}, "multiclass", 1e-6),
    FitCase("gaussian_nb", "jaxclassic.discriminant:fit_gaussian_nb",
            "jaxclassic.discriminant:predict_proba", "log_loss_scorer",
            {"var_smoothing": 1e-9}, {"n_classes": 3}, "multiclass"),
    FitCase("categorical_nb", "jaxclassic.discriminant:fit_categorical_nb",
            "jaxclassic.discriminant:predict_proba", "log_loss_scorer",
            {"alpha": 1.0}, {"n_classes": 2, "n_categories": 3}, "categorical"),
    FitCase("multinomial_nb", "jaxclassic.discriminant:fit_multinomial_nb",
            "jaxclassic.discriminant:predict_proba", "log_loss_scorer",
            {"alpha": 1.0}, {"n_classes": 2}, "categorical"),
    FitCase("bernoulli_nb", "jaxclassic.discriminant:fit_bernoulli_nb",
            "jaxclassic.discriminant:predict_proba", "log_loss_scorer",
            {"alpha": 1.0, "binarize": 1.0}, {"n_classes": 2}, "categorical"),
    FitCase("complement_nb", "jaxclassic.discriminant:fit_complement_nb",
            "jaxclassic.discriminant:predict_proba", "log_loss_scorer",
            {"alpha": 1.0}, {"n_classes": 2}, "categorical"),
    FitCase("lda", "jaxclassic.discriminant:fit_lda", "jaxclassic.discriminant:predict_proba",
            "log_loss_scorer", {}, {"n_classes": 3}, "multiclass"),
    FitCase("qda", "jaxclassic.discriminant:fit_qda", "jaxclassic.discriminant:predict_proba",
            "log_loss_scorer", {"reg_param": 0.1}, {"n_classes": 3}, "multiclass"),
    # CART (fit_cart bins inside the program when X or the weights are traced: exact bins on
    # these 3-category columns); accuracy and squared error stay finite where a leaf's 0/1
    # probabilities would not (log-loss)
    FitCase("cart_classification", "jaxclassic.tree:fit_cart",
            "jaxclassic.tree:predict", "accuracy_scorer", {"min_impurity_decrease": 0.01},
            {"task": "classification", "max_depth": 3, "n_classes": 2, "n_bins": 8}, "categorical"),
    FitCase("cart_regression", "jaxclassic.tree:fit_cart",
            "jaxclassic.tree:predict", "neg_mse_scorer", {"min_impurity_decrease": 0.01},
            {"task": "regression", "max_depth": 3, "n_bins": 8}, "categorical"),
    FitCase("xgboost_regression", "jaxclassic.ensemble:fit_xgboost", "jaxclassic.ensemble:predict",
            "neg_mse_scorer", {"learning_rate": 0.5, "reg_lambda": 1.0},
            {"n_estimators": 3, "max_depth": 2, "max_bin": 8}, "categorical"),
    FitCase("gradient_boosting", "jaxclassic.ensemble:fit_gradient_boosting", "jaxclassic.ensemble:predict",
            "neg_mse_scorer", {"learning_rate": 0.5}, {"n_estimators": 3, "max_depth": 2, "n_bins": 8},
            "categorical"),
    FitCase("adaboost", "jaxclassic.ensemble:fit_adaboost", "jaxclassic.ensemble:predict",
            "accuracy_scorer", {"learning_rate": 0.5}, {"n_estimators": 3, "n_classes": 2, "n_bins": 8},
            "categorical"),
    FitCase("gradient_boosting_multinomial", "jaxclassic.ensemble:fit_gradient_boosting",
            "jaxclassic.ensemble:predict_proba", "log_loss_scorer", {"learning_rate": 0.5},
            {"loss": "log_loss", "n_classes": 3, "n_estimators": 3, "max_depth": 2, "n_bins": 8},
            "categorical_multiclass"),
    # k-NN: n_neighbors, task and weights are static; a fold's zero-weight rows are never neighbours
    FitCase("knn_classification", "jaxclassic.neighbors:fit_knn", "jaxclassic.neighbors:predict",
            "accuracy_scorer", {}, {"n_neighbors": 5, "task": "classification", "n_classes": 3}, "multiclass",
            instance_fields=("fit_X", "y", "sample_weight")),
    FitCase("knn_regression", "jaxclassic.neighbors:fit_knn", "jaxclassic.neighbors:predict",
            "neg_mse_scorer", {}, {"n_neighbors": 4, "task": "regression", "weights": "distance"}, "regression",
            instance_fields=("fit_X", "y", "sample_weight")),
    # forests and bagging take a key (not hashable, so not a static fit_kwarg): the wrappers
    # below fix it; a held-out row is never drawn (its bootstrap count, an int, is not compared)
    FitCase("random_forest_classification", "tests.model_selection._fits:random_forest_fit",
            "jaxclassic.ensemble:predict", "accuracy_scorer", {"min_impurity_decrease": 0.01},
            {"task": "classification", "n_estimators": 4, "max_depth": 3, "n_classes": 2, "n_bins": 8,
             "max_features": 2}, "categorical", instance_fields=("sample_weight",)),
    FitCase("random_forest_regression", "tests.model_selection._fits:random_forest_fit",
            "jaxclassic.ensemble:predict", "neg_mse_scorer", {"min_impurity_decrease": 0.01},
            {"task": "regression", "n_estimators": 4, "max_depth": 3, "n_bins": 8}, "categorical",
            instance_fields=("sample_weight",)),
    FitCase("bagging_ridge", "tests.model_selection._fits:bagged_ridge_fit", "jaxclassic.ensemble:predict",
            "neg_mse_scorer", {"alpha": 0.7}, {"n_estimators": 4}, "regression",
            instance_fields=("sample_weight",)),
    # kernel SVM (SMO): a fold's zero-weight rows have upper bound 0 and are never selected
    FitCase("kernel_svm", "jaxclassic.svm:fit_kernel_svm", "jaxclassic.svm:predict", "accuracy_scorer",
            {"C": 0.7, "gamma": 0.3}, {"kernel": "rbf", "tol": 1e-8}, "binary", 1e-6,
            instance_fields=("X_fit", "alpha", "dual_coef")),
    # linear SVM (dual coordinate descent, rows in order): zero-weight rows have upper bound 0
    FitCase("linear_svm", "jaxclassic.svm:fit_linear_svm", "jaxclassic.svm:predict", "accuracy_scorer",
            {"C": 0.5}, {"tol": 1e-10, "max_iter": 100_000}, "binary", 1e-6,
            instance_fields=("dual_coef",)),
    # GP regression (closed form): weight-0 rows have no influence; L reduced to its diagonal
    FitCase("gaussian_process", "tests.model_selection._fits:gaussian_process_fit",
            "jaxclassic.gaussian_process:predict", "neg_mse_scorer",
            {"amplitude": 2.0, "length_scale": 1.5, "noise": 0.3}, {"normalize_y": True}, "regression",
            instance_fields=("X_train", "y_train", "sample_weight", "added_noise", "L", "alpha")),
    # Gaussian mixture by EM (unsupervised): started from responsibilities made row by row from
    # the class labels (so slicing rows slices the start), scored by the log-loss of its
    # membership probabilities against the classes
    FitCase("gaussian_mixture", "tests.model_selection._fits:gaussian_mixture_fit",
            "jaxclassic.cluster:predict_proba", "log_loss_scorer", {"reg_covar": 1e-3},
            {"covariance_type": "full", "tol": 1e-10, "max_iter": 200}, "multiclass", 1e-6),
    # discrete Bayesian network (counting): a naive-Bayes-shaped DAG y -> each column, the
    # class posterior by variable elimination
    FitCase("bayes_net", "tests.model_selection._fits:bayes_net_fit",
            "tests.model_selection._fits:bayes_net_predict_proba", "log_loss_scorer",
            {"pseudo_count": 1.0}, {}, "categorical"),
    # linear-chain CRF: each row a sequence of length 1 (its categories the active features),
    # so the CRF is a multinomial logit on one-hot features; folds weigh whole sequences
    FitCase("crf", "tests.model_selection._fits:crf_fit", "tests.model_selection._fits:crf_predict_proba",
            "log_loss_scorer", {"c2": 0.5}, {"tol": 1e-10, "max_iter": 300}, "categorical", 1e-6),
]


def random_forest_fit(X, y, *, sample_weight=None, **kwargs):
    """:func:`jaxclassic.ensemble.fit_random_forest` with the key fixed."""
    from jaxclassic.ensemble import fit_random_forest

    return fit_random_forest(X, y, sample_weight=sample_weight, key=jax.random.key(0), **kwargs)


def bagged_ridge_fit(X, y, *, sample_weight=None, n_estimators=4, **kwargs):
    """:func:`jaxclassic.ensemble.fit_bagging` of :func:`jaxclassic.linear.fit_ridge`, the key fixed."""
    from jaxclassic.ensemble import fit_bagging
    from jaxclassic.linear import fit_ridge

    return fit_bagging(fit_ridge, X, y, n_estimators=n_estimators, sample_weight=sample_weight,
                       key=jax.random.key(0), **kwargs)


def gaussian_process_fit(X, y, *, sample_weight=None, **kwargs):
    """:func:`jaxclassic.gaussian_process.fit_gp` with its ``(n, n)`` Cholesky factor reduced to its
    diagonal, a row-indexed field: a weight-0 row's row and column of ``L`` are the identity's,
    so the kept rows' block of ``L`` is the sliced fit's (its diagonal is compared here; ``alpha``
    and the log marginal likelihood, which involve all of it, are compared too)."""
    from jaxclassic.gaussian_process import fit_gp

    params = fit_gp(X, y, sample_weight=sample_weight, **kwargs)
    return params._replace(L=jnp.diagonal(params.L))


def gaussian_mixture_fit(X, y, *, sample_weight=None, **kwargs):
    """:func:`jaxclassic.cluster.fit_gmm` with 3 components started from ``0.8 onehot(y) + 0.2/3``
    (a start that depends on each row alone); ``lower_bounds`` (the per-iteration history,
    -inf past ``n_iter``, a solver diagnostic) reduced to the final bound."""
    from jaxclassic.cluster import fit_gmm

    resp = 0.8 * jax.nn.one_hot(y, 3, dtype=X.dtype) + 0.2 / 3
    params = fit_gmm(X, 3, init=resp, sample_weight=sample_weight, **kwargs)
    return params._replace(lower_bounds=params.lower_bound[None])


def _bayes_net_structure(n_features):
    from jaxclassic.graphical import make_structure

    names = [f"x{j}" for j in range(n_features)]
    return make_structure({"y": [], **{n: ["y"] for n in names}}, [2] + [3] * n_features)


def bayes_net_fit(X, y, *, sample_weight=None, pseudo_count=0.0):
    """:func:`jaxclassic.graphical.fit_bayes_net` on the columns ``[y, X]`` (2 classes, 3
    categories a feature: ``categorical_data``) under the DAG ``y -> x_j``."""
    from jaxclassic.graphical import fit_bayes_net

    data = jnp.concatenate([jnp.asarray(y, jnp.int32)[:, None], jnp.asarray(X, jnp.int32)], axis=1)
    return fit_bayes_net(data, _bayes_net_structure(X.shape[1]), pseudo_count=pseudo_count,
                         sample_weight=sample_weight)


def bayes_net_predict_proba(net, X):
    """p(y | x) of each row by :func:`jaxclassic.graphical.query` (vmapped over the rows)."""
    from jaxclassic.graphical import query

    names = net.structure.names[1:]
    return jax.vmap(lambda row: query(net, "y", dict(zip(names, row))))(jnp.asarray(X, jnp.int32))


def _crf_sequences(X):
    """Rows of 3-category codes -> length-1 sequences of feature indices ``3 j + x_j``."""
    X = jnp.asarray(X, jnp.int32)
    return (X + 3 * jnp.arange(X.shape[1], dtype=jnp.int32))[:, None, :]


def crf_fit(X, y, *, sample_weight=None, c2=1.0, **kwargs):
    """:func:`jaxclassic.graphical.fit_crf` on length-1 sequences (``categorical_data``: 2
    labels, 3 categories a feature)."""
    from jaxclassic.graphical import fit_crf

    return fit_crf(_crf_sequences(X), jnp.asarray(y, jnp.int32)[:, None], c2=c2, sample_weight=sample_weight,
                   n_labels=2, n_features=3 * X.shape[1], **kwargs)


def crf_predict_proba(params, X):
    """p(y | x) of each row: the node marginals of its length-1 sequence."""
    from jaxclassic.graphical import marginals

    return jax.vmap(lambda x: marginals(params, x)[0][0])(_crf_sequences(X))


def resolve(target: str) -> Callable:
    """Import "module:name", skipping the test (naming the function) if it does not exist yet."""
    module_name, name = target.split(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:  # pragma: no cover - depends on what other families exist
        pytest.skip(f"{module_name} is not importable yet ({exc})")
    fn = getattr(module, name, None)
    if fn is None:
        pytest.skip(f"{module_name}.{name} does not exist yet")
    return fn


def case_data(kind: str) -> tuple[Any, Any]:
    if kind == "regression":
        return regression_data(1)
    if kind == "binary":
        return classification_data(1, n_classes=2)
    if kind == "multiclass":
        return classification_data(1, n_classes=3)
    if kind == "categorical":
        return categorical_data(1)
    if kind == "categorical_multiclass":
        return categorical_data(1, n_classes=3)
    raise ValueError(kind)
