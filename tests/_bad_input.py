"""How the bad-input matrix (issue 17, ``tests/test_bad_input_matrix.py``) calls each public
fit and estimator: small data of every kind, the fits' calls with fast settings and their invalid
hyperparameters, the builders of each case of bad input, and the run of one call that records
the programs JAX traced or compiled during it.

Also used by ``tests/test_determinism.py`` (the same calls on the same shapes, so the compiled
programs are shared).

How "raised before anything was compiled" is observed: JAX reports every trace of a jitted
function and every XLA compile through ``jax.monitoring`` (events
``/jax/core/compile/jaxpr_trace_duration`` and ``/jax/core/compile/backend_compile_duration``,
each with the function's name). :func:`run` records them during the call. An eager ``jnp``
operation (``jnp.asarray``, ``jnp.ones``, a key's creation) is a one-primitive jit of JAX's own
and compiles the first time its shape is seen: those names (JAX's primitives and JAX's own
functions) and the validation layer's on-device finiteness check are ignored, so what is left is
a program of the package. This works on the public functions as they are (no wrapping of inner
jitted functions, as ``chex.assert_max_traces`` needs) and does not depend on JAX's log format.
A program already in JAX's in-memory cache is not traced again and leaves no event: the matrix
uses a 12 x 3 shape that other modules do not, and its raising cells must pass in this module
alone (``pytest tests/test_bad_input_matrix.py``), where they are the first calls at their shapes.
A second check needs no event: the exception's traceback must not pass through JAX's own code
(an error raised while tracing does).
"""

from __future__ import annotations

import functools
from typing import Any, Callable, NamedTuple

import jax
import numpy as np

N_SAMPLES, N_FEATURES = 12, 3
KEY = None  # made lazily (a key is a device array: made once, outside the measured calls)


def key():
    """The key every randomised fit of the matrix takes (``jax.random.key(0)`` unless
    :func:`using_key` sets another)."""
    global KEY
    if KEY is None:
        KEY = jax.random.key(0)
    return KEY


class using_key:
    """``with using_key(k):`` the specs' fits take ``k`` (the determinism tests)."""

    def __init__(self, k):
        self.k = k

    def __enter__(self):
        global KEY
        self.old, KEY = key(), self.k

    def __exit__(self, *exc):
        global KEY
        KEY = self.old


class Data(NamedTuple):
    """One call's input: ``X``, ``y`` (or lengths / None) and ``sample_weight``."""

    X: Any
    y: Any
    sample_weight: Any


def _base_data(kind: str) -> Data:
    rng = np.random.default_rng(0)
    n, d = N_SAMPLES, N_FEATURES
    X = rng.normal(size=(n, d))
    if kind == "regression":
        return Data(X, X @ np.array([1.0, -2.0, 0.5]) + 0.1 * rng.normal(size=n), None)
    if kind == "binary":
        y = np.arange(n) % 2
        return Data(X + 1.5 * y[:, None], y, None)
    if kind == "multiclass":
        y = np.arange(n) % 3
        return Data(X + 1.5 * y[:, None], y, None)
    if kind == "categorical":
        y = np.arange(n) % 2
        Xc = (rng.integers(0, 3, size=(n, d)) + y[:, None]) % 3
        return Data(Xc, y, None)
    if kind == "mixed":  # column 0 categorical codes, the others continuous
        y = np.arange(n) % 2
        X = X + 1.5 * y[:, None]
        X[:, 0] = (np.arange(n) + y) % 3
        return Data(X, y, None)
    if kind == "unsupervised":
        return Data(X + 3.0 * (np.arange(n) % 2)[:, None], None, None)
    if kind == "bayes_net":  # columns [y, x0, x1, x2]: y -> x_j
        c = _base_data("categorical")
        return Data(np.concatenate([c.y[:, None], c.X], axis=1), None, None)
    if kind == "hmm":  # two gaussian sequences of 6 steps; y holds the lengths
        return Data(X + 3.0 * (np.arange(n) % 2)[:, None], [6, 6], None)
    if kind == "crf":  # 4 sequences of 3 steps, 3 dense features; labels follow feature 0
        Xs = rng.normal(size=(4, 3, d))
        return Data(Xs, (Xs[..., 0] > 0).astype(np.int64), None)
    raise ValueError(kind)


@functools.lru_cache(maxsize=None)
def base_data(kind: str) -> Data:
    return _base_data(kind)


class FitSpec(NamedTuple):
    """One public fit in the matrix.

    ``call(X, y, sample_weight, **overrides)`` fits with small, fast settings; ``kind`` picks
    the data; ``bad_hyper`` maps each invalid hyperparameter case to ``(name, value)`` (the
    message must name ``name``); ``k`` is ``(name, value)`` of a count larger than the data
    allows, where one applies; ``classifier``: the one-class case applies.
    """

    name: str
    call: Callable
    kind: str
    bad_hyper: dict
    k: tuple | None = None
    classifier: bool = False


def _specs() -> list[FitSpec]:
    from jaxclassic import cluster, discriminant, ensemble, gaussian_process, graphical, linear
    from jaxclassic import neighbors, streaming, svm, tree

    def ridge(X, y, **kw):
        return linear.fit_ridge(X, y, alpha=1.0, **kw)

    def logistic(X, y, **kw):
        return linear.fit_logistic(X, y, l2=1.0, max_iter=20, **kw)

    net_structure = graphical.make_structure(
        {"y": [], "x0": ["y"], "x1": ["y"], "x2": ["y"]}, [2, 3, 3, 3])

    S = FitSpec
    return [
        S("fit_ols", lambda X, y, sw, **h: linear.fit_ols(X, y, sample_weight=sw, **h),
          "regression", {"rcond": ("rcond", -1.0)}),
        S("fit_ridge", lambda X, y, sw, **h: linear.fit_ridge(X, y, **{"alpha": 1.0, **h}, sample_weight=sw),
          "regression", {"alpha": ("alpha", -1.0)}),
        S("fit_lasso", lambda X, y, sw, **h: linear.fit_lasso(
            X, y, **{"alpha": 0.1, "max_iter": 50, **h}, sample_weight=sw),
          "regression", {"alpha": ("alpha", -1.0), "max_iter": ("max_iter", 0)}),
        S("fit_elastic_net", lambda X, y, sw, **h: linear.fit_elastic_net(
            X, y, **{"alpha": 0.1, "max_iter": 50, **h}, sample_weight=sw),
          "regression", {"alpha": ("alpha", -1.0), "l1_ratio": ("l1_ratio", 1.5),
                         "max_iter": ("max_iter", 0)}),
        S("fit_bayesian_ridge", lambda X, y, sw, **h: linear.fit_bayesian_ridge(
            X, y, **{"max_iter": 20, **h}, sample_weight=sw),
          "regression", {"max_iter": ("max_iter", 0), "alpha_1": ("alpha_1", -1.0)}),
        S("fit_sgd_regressor", lambda X, y, sw, **h: linear.fit_sgd_regressor(
            X, y, key=key(), **{"n_epochs": 2, "batch_size": 4, **h}, sample_weight=sw),
          "regression", {"learning_rate": ("learning_rate", -1.0), "batch_size": ("batch_size", 0)}),
        S("fit_sgd_classifier", lambda X, y, sw, **h: linear.fit_sgd_classifier(
            X, y, key=key(), **{"max_iter": 2, **h}, sample_weight=sw),
          "binary", {"alpha": ("alpha", -1.0), "loss": ("loss", "bogus"), "l1_ratio": ("l1_ratio", 1.5),
                     "batch_size": ("batch_size", 0)}, classifier=True),
        S("fit_logistic", lambda X, y, sw, **h: linear.fit_logistic(
            X, y, **{"l2": 1.0, "max_iter": 20, **h}, sample_weight=sw),
          "binary", {"l2": ("l2", -1.0), "max_iter": ("max_iter", 0), "l1_ratio": ("l1_ratio", 1.5),
                     "penalty": ("penalty", "l3")}, classifier=True),
        S("fit_softmax", lambda X, y, sw, **h: linear.fit_softmax(
            X, y, **{"l2": 1.0, "max_iter": 20, **h}, sample_weight=sw),
          "multiclass", {"l2": ("l2", -1.0), "n_classes": ("n_classes", 1)}, classifier=True),
        S("fit_perceptron", lambda X, y, sw, **h: linear.fit_perceptron(
            X, y, **{"max_epochs": 5, **h}, sample_weight=sw),
          "binary", {"max_epochs": ("max_epochs", 0), "learning_rate": ("learning_rate", -1.0)},
          classifier=True),
        S("fit_one_vs_rest", lambda X, y, sw, **h: linear.fit_one_vs_rest(
            logistic, X, y, sample_weight=sw, **h),
          "multiclass", {"n_classes": ("n_classes", 1)}, classifier=True),
        S("fit_one_vs_one", lambda X, y, sw, **h: linear.fit_one_vs_one(
            logistic, X, y, sample_weight=sw, **h),
          "multiclass", {"n_classes": ("n_classes", 1)}, classifier=True),
        S("fit_linear_svm", lambda X, y, sw, **h: svm.fit_linear_svm(
            X, y, **{"max_iter": 50, **h}, sample_weight=sw),
          "binary", {"C": ("C", -1.0), "max_iter": ("max_iter", 0)}, classifier=True),
        S("fit_kernel_svm", lambda X, y, sw, **h: svm.fit_kernel_svm(X, y, **h, sample_weight=sw),
          "binary", {"C": ("C", -1.0), "gamma": ("gamma", -1.0)}, classifier=True),
        S("fit_kernel_svr", lambda X, y, sw, **h: svm.fit_kernel_svr(X, y, **h, sample_weight=sw),
          "regression", {"C": ("C", -1.0), "epsilon": ("epsilon", -1.0)}),
        S("fit_gaussian_nb", lambda X, y, sw, **h: discriminant.fit_gaussian_nb(X, y, **h, sample_weight=sw),
          "multiclass", {"var_smoothing": ("var_smoothing", -1.0)}, classifier=True),
        S("fit_categorical_nb", lambda X, y, sw, **h: discriminant.fit_categorical_nb(
            X, y, **h, sample_weight=sw),
          "categorical", {"alpha": ("alpha", -1.0)}, classifier=True),
        S("fit_mixed_nb", lambda X, y, sw, **h: discriminant.fit_mixed_nb(
            X, y, categorical_features=[0], **h, sample_weight=sw),
          "mixed", {"alpha": ("alpha", -1.0), "var_smoothing": ("var_smoothing", -1.0)}, classifier=True),
        S("fit_multinomial_nb", lambda X, y, sw, **h: discriminant.fit_multinomial_nb(
            X, y, **h, sample_weight=sw),
          "categorical", {"alpha": ("alpha", -1.0)}, classifier=True),
        S("fit_bernoulli_nb", lambda X, y, sw, **h: discriminant.fit_bernoulli_nb(
            X, y, **h, sample_weight=sw),
          "categorical", {"alpha": ("alpha", -1.0), "binarize": ("binarize", -1.0)}, classifier=True),
        S("fit_complement_nb", lambda X, y, sw, **h: discriminant.fit_complement_nb(
            X, y, **h, sample_weight=sw),
          "categorical", {"alpha": ("alpha", -1.0)}, classifier=True),
        S("fit_lda", lambda X, y, sw, **h: discriminant.fit_lda(X, y, **h, sample_weight=sw),
          "multiclass", {"shrinkage": ("shrinkage", 2.0), "solver": ("solver", "bogus")}, classifier=True),
        S("fit_qda", lambda X, y, sw, **h: discriminant.fit_qda(X, y, **h, sample_weight=sw),
          "multiclass", {"reg_param": ("reg_param", -1.0)}, classifier=True),
        S("fit_knn", lambda X, y, sw, **h: neighbors.fit_knn(X, y, **{"n_neighbors": 3, **h}, sample_weight=sw),
          "binary", {"n_neighbors": ("n_neighbors", 0), "weights": ("weights", "bogus")},
          k=("n_neighbors", 50), classifier=True),
        S("fit_kde", lambda X, y, sw, **h: neighbors.fit_kde(X, **h, sample_weight=sw),
          "unsupervised", {"bandwidth": ("bandwidth", -1.0), "kernel": ("kernel", "bogus")}),
        S("fit_gp", lambda X, y, sw, **h: gaussian_process.fit_gp(X, y, **h, sample_weight=sw),
          "regression", {"length_scale": ("length_scale", -1.0), "noise": ("noise", -1.0)}),
        S("fit_cart", lambda X, y, sw, **h: tree.fit_cart(
            X, y, **{"max_depth": 2, "n_bins": 8, **h}, sample_weight=sw),
          "binary", {"max_depth": ("max_depth", 0), "min_samples_leaf": ("min_samples_leaf", 0)},
          classifier=True),
        S("fit_id3", lambda X, y, sw, **h: tree.fit_id3(X, y, **h, sample_weight=sw),
          "categorical", {"min_samples_split": ("min_samples_split", 0), "max_depth": ("max_depth", -1)},
          classifier=True),
        S("fit_c45", lambda X, y, sw, **h: tree.fit_c45(X, y, **h, sample_weight=sw),
          "binary", {"confidence_factor": ("confidence_factor", 1.5),
                     "min_samples_leaf": ("min_samples_leaf", -1.0)}, classifier=True),
        S("fit_adaboost", lambda X, y, sw, **h: ensemble.fit_adaboost(
            X, y, **{"n_estimators": 3, "n_bins": 8, **h}, sample_weight=sw),
          "binary", {"n_estimators": ("n_estimators", 0), "learning_rate": ("learning_rate", -1.0)},
          classifier=True),
        S("fit_gradient_boosting", lambda X, y, sw, **h: ensemble.fit_gradient_boosting(
            X, y, **{"n_estimators": 3, "max_depth": 2, "n_bins": 8, **h}, sample_weight=sw),
          "regression", {"learning_rate": ("learning_rate", -1.0), "subsample": ("subsample", 0.0),
                         "verbose": ("verbose", -1)}),
        S("fit_xgboost", lambda X, y, sw, **h: ensemble.fit_xgboost(
            X, y, **{"n_estimators": 3, "max_depth": 2, "max_bin": 8, **h}, sample_weight=sw),
          "regression", {"reg_lambda": ("reg_lambda", -1.0), "learning_rate": ("learning_rate", -1.0),
                         "verbose": ("verbose", -1)}),
        S("fit_random_forest", lambda X, y, sw, **h: ensemble.fit_random_forest(
            X, y, key=key(), **{"n_estimators": 3, "max_depth": 2, "n_bins": 8, **h}, sample_weight=sw),
          "binary", {"n_estimators": ("n_estimators", 0), "max_samples": ("max_samples", 2.0)},
          classifier=True),
        S("fit_bagging", lambda X, y, sw, **h: ensemble.fit_bagging(
            ridge, X, y, key=key(), **{"n_estimators": 3, **h}, sample_weight=sw),
          "regression", {"n_estimators": ("n_estimators", 0), "max_samples": ("max_samples", 0.0)}),
        S("fit_stacking", lambda X, y, sw, **h: ensemble.fit_stacking(
            [ridge], ridge, X, y, task="regression", **{"n_splits": 3, **h}, sample_weight=sw),
          "regression", {"n_splits": ("n_splits", 1), "stack_method": ("stack_method", "bogus")},
          k=("n_splits", 50)),
        S("fit_voting", lambda X, y, sw, **h: ensemble.fit_voting(
            [logistic, discriminant.fit_gaussian_nb], X, y, **h, sample_weight=sw),
          "binary", {"voting": ("voting", "bogus"), "weights": ("weights", [-1.0, 1.0])}, classifier=True),
        S("fit_kmeans", lambda X, y, sw, **h: cluster.fit_kmeans(
            X, h.pop("n_clusters", 2), key=key(), **{"max_iter": 10, **h}, sample_weight=sw),
          "unsupervised", {"n_clusters": ("n_clusters", 0), "max_iter": ("max_iter", 0)},
          k=("n_clusters", 50)),
        S("fit_minibatch_kmeans", lambda X, y, sw, **h: cluster.fit_minibatch_kmeans(
            X, h.pop("n_clusters", 2), key=key(), **{"max_iter": 2, "batch_size": 4, **h}, sample_weight=sw),
          "unsupervised", {"n_clusters": ("n_clusters", 0), "batch_size": ("batch_size", 0),
                           "reassignment_ratio": ("reassignment_ratio", -1.0)},
          k=("n_clusters", 50)),
        S("fit_gmm", lambda X, y, sw, **h: cluster.fit_gmm(
            X, h.pop("n_components", 2), key=key(), **{"max_iter": 10, **h}, sample_weight=sw),
          "unsupervised", {"n_components": ("n_components", 0), "reg_covar": ("reg_covar", -1.0),
                           "verbose": ("verbose", -1)},
          k=("n_components", 50)),
        S("fit_bayes_net", lambda X, y, sw, **h: graphical.fit_bayes_net(
            X, net_structure, **h, sample_weight=sw),
          "bayes_net", {"pseudo_count": ("pseudo_count", -1.0)}),
        S("fit_hmm", lambda X, y, sw, **h: graphical.fit_hmm(
            X, y, h.pop("n_components", 2), emission="gaussian", key=key(), **{"max_iter": 5, **h},
            sample_weight=sw),
          "hmm", {"n_components": ("n_components", 0), "tol": ("tol", -1.0), "verbose": ("verbose", -1)}),
        S("fit_crf", lambda X, y, sw, **h: graphical.fit_crf(
            X, y, **{"c2": 1.0, "max_iter": 5, **h}, sample_weight=sw),
          "crf", {"c2": ("c2", -1.0), "max_iter": ("max_iter", 0), "verbose": ("verbose", -1)}, classifier=True),
        # the streaming fits (row blocks of a memmap or an iterator), given in-memory arrays
        S("streaming.fit_ols", lambda X, y, sw, **h: streaming.fit_ols(X, y, sample_weight=sw, **h),
          "regression", {"rcond": ("rcond", -1.0)}),
        S("streaming.fit_ridge", lambda X, y, sw, **h: streaming.fit_ridge(
            X, y, **{"alpha": 1.0, **h}, sample_weight=sw),
          "regression", {"alpha": ("alpha", -1.0), "chunk_rows": ("chunk_rows", 0)}),
        S("streaming.fit_logistic", lambda X, y, sw, **h: streaming.fit_logistic(
            X, y, **{"l2": 1.0, "max_iter": 20, **h}, sample_weight=sw),
          "binary", {"l2": ("l2", -1.0), "max_iter": ("max_iter", 0)}, classifier=True),
        S("streaming.fit_gaussian_nb", lambda X, y, sw, **h: streaming.fit_gaussian_nb(
            X, y, **{"n_classes": 3, **h}, sample_weight=sw),
          "multiclass", {"var_smoothing": ("var_smoothing", -1.0), "n_classes": ("n_classes", 1),
                         "priors": ("priors", [0.2, 0.3, 0.6])},
          classifier=True),
        S("streaming.fit_lda", lambda X, y, sw, **h: streaming.fit_lda(
            X, y, **{"n_classes": 3, **h}, sample_weight=sw),
          "multiclass", {"shrinkage": ("shrinkage", 2.0), "solver": ("solver", "bogus"),
                         "priors": ("priors", [0.2, 0.3, 0.6])}, classifier=True),
        S("streaming.fit_kmeans", lambda X, y, sw, **h: streaming.fit_kmeans(
            X, h.pop("n_clusters", 2), key=key(), **{"max_iter": 10, **h}, sample_weight=sw),
          "unsupervised", {"n_clusters": ("n_clusters", 0), "max_iter": ("max_iter", 0)},
          k=("n_clusters", 50)),
        S("streaming.fit_gmm", lambda X, y, sw, **h: streaming.fit_gmm(
            X, h.pop("n_components", 2), key=key(), **{"max_iter": 10, **h}, sample_weight=sw),
          "unsupervised", {"n_components": ("n_components", 0), "reg_covar": ("reg_covar", -1.0)},
          k=("n_components", 50)),
    ]


@functools.lru_cache(maxsize=None)
def specs() -> tuple[FitSpec, ...]:
    return tuple(_specs())


def spec(name: str) -> FitSpec:
    return next(s for s in specs() if s.name == name)


#: the value every boolean flag is given in the ``non_bool_flag`` case (``bool("no")`` is True too)
NON_BOOL = "yes"


def _public_fit(name: str):
    """The public function a spec calls: ``jaxclassic.streaming.fit_x`` for ``streaming.fit_x``,
    else the family package's ``fit_x``."""
    import importlib

    if name.startswith("streaming."):
        return getattr(importlib.import_module("jaxclassic.streaming"), name.split(".", 1)[1])
    for family in ("linear", "svm", "discriminant", "neighbors", "gaussian_process", "tree",
                   "ensemble", "cluster", "graphical"):
        module = importlib.import_module(f"jaxclassic.{family}")
        if hasattr(module, name):
            return getattr(module, name)
    raise LookupError(name)


def bool_flags(fn) -> list[str]:
    """The boolean flags of a fit or an estimator's ``__init__``: the keyword arguments whose
    default is a bool (found, not listed: a new flag joins the matrix by itself)."""
    import inspect

    return [p.name for p in inspect.signature(fn).parameters.values() if isinstance(p.default, bool)]


#: public fits deliberately outside the matrix, with the reason
EXCLUDED_FITS = {
    "fit_cart_binned": "takes the codes and edges of tree.bin_features (whose X is validated "
                       "there and by fit_cart, which is in the matrix), not raw X",
    "streaming.fit_gradient_boosting": "takes pre-binned integer codes (checked per block against "
                                       "n_bins), like fit_cart_binned, not raw X",
    "fit_agglomerative": "takes no sample_weight (nor does scikit-learn's AgglomerativeClustering), "
                         "which half the matrix's cases pass; its bad X, linkage, metric and "
                         "n_clusters are tested in tests/cluster/test_hierarchical.py",
}

SPEC_NAMES = (
    "fit_ols fit_ridge fit_lasso fit_elastic_net fit_bayesian_ridge fit_sgd_regressor fit_sgd_classifier fit_logistic fit_softmax "
    "fit_perceptron fit_one_vs_rest fit_one_vs_one fit_linear_svm fit_kernel_svm fit_kernel_svr "
    "fit_gaussian_nb fit_categorical_nb fit_mixed_nb fit_multinomial_nb fit_bernoulli_nb "
    "fit_complement_nb fit_lda fit_qda fit_knn fit_kde fit_gp "
    "fit_cart fit_id3 fit_c45 fit_adaboost fit_gradient_boosting fit_xgboost fit_random_forest "
    "fit_bagging fit_stacking fit_voting fit_kmeans fit_minibatch_kmeans fit_gmm fit_bayes_net "
    "fit_hmm fit_crf streaming.fit_ols streaming.fit_ridge streaming.fit_logistic "
    "streaming.fit_gaussian_nb streaming.fit_lda streaming.fit_kmeans streaming.fit_gmm"
).split()


# --------------------------------------------------------------------------- the cases
def _put(X, value):
    X = np.array(X, dtype=np.float64)
    X.flat[1] = value
    return X


def _rows(data: Data, kind: str, idx) -> Data:
    """The rows ``idx`` of the data (sequences for the CRF; for the HMM, one sequence)."""
    if kind == "hmm":
        X = data.X[idx]
        return Data(X, [len(X)] if len(X) else [], None)
    y = None if data.y is None else np.asarray(data.y)[idx]
    return Data(np.asarray(data.X)[idx], y, None)


def _n_weights(data: Data, kind: str) -> int:
    return len(data.y) if kind == "hmm" else len(data.X)


def _case_one_class(data, kind):
    y = np.zeros_like(np.asarray(data.y))
    return Data(data.X, y, None)


def _case_mismatched(data, kind):
    if data.y is None or kind == "bayes_net":  # unsupervised: the weights have the wrong length
        return Data(data.X, data.y, np.ones(_n_weights(data, kind) - 1))
    if kind == "hmm":  # lengths that do not sum to n
        return Data(data.X, [6, 5], None)
    return Data(data.X, np.asarray(data.y)[:-1], None)


def _case_wrong_ndim(data, kind):
    X = np.asarray(data.X)
    return Data(X[..., None] if kind != "crf" else X[..., None], data.y, None)


def _case_constant(data, kind):
    X = np.array(data.X)
    X[..., 1] = X.flat[1] if kind in ("categorical", "bayes_net") else 3.0
    return Data(X, data.y, None)


def _case_duplicated(data, kind):
    half = _n_weights(data, kind) // 2
    if kind == "hmm":
        return Data(np.concatenate([data.X[:6], data.X[:6]]), data.y, None)
    idx = np.concatenate([np.arange(half), np.arange(half)])
    if kind == "crf":
        return Data(np.asarray(data.X)[idx], np.asarray(data.y)[idx], None)
    return _rows(data, kind, idx)


def _case_scale(data, kind):
    return Data(np.asarray(data.X) * 1e30, data.y, None)


#: case name -> builder(data, kind) -> Data
CASES: dict[str, Callable] = {
    "nan": lambda d, k: Data(_put(d.X, np.nan), d.y, None),
    "+inf": lambda d, k: Data(_put(d.X, np.inf), d.y, None),
    "-inf": lambda d, k: Data(_put(d.X, -np.inf), d.y, None),
    "empty": lambda d, k: _rows(d, k, np.arange(0)),
    "one_sample": lambda d, k: _rows(d, k, np.arange(1)),
    "one_feature": lambda d, k: Data(np.asarray(d.X)[..., :1], d.y, None),
    "one_class": _case_one_class,
    "mismatched_lengths": _case_mismatched,
    "wrong_ndim": _case_wrong_ndim,
    "strings": lambda d, k: Data(np.asarray(d.X).astype(str), d.y, None),
    "object_dtype": lambda d, k: Data(np.full(np.shape(d.X), "a", dtype=object), d.y, None),
    "complex": lambda d, k: Data(np.asarray(d.X) + 1j, d.y, None),
    "negative_weights": lambda d, k: Data(d.X, d.y, -np.ones(_n_weights(d, k))),
    "zero_weights": lambda d, k: Data(d.X, d.y, np.zeros(_n_weights(d, k))),
    "k_gt_n": None,  # the spec's k
    "invalid_hyper": None,  # one case per entry of the spec's bad_hyper
    "non_bool_flag": None,  # one case per boolean flag of the fit, given NON_BOOL (issue 23.5)
    "constant_features": _case_constant,
    "scale_1e30": _case_scale,
    "duplicated_rows": _case_duplicated,
}

#: the cases that run the fit (documented results); the others must raise before compiling
COMPUTE_CASES = ("one_feature", "constant_features", "scale_1e30", "duplicated_rows")

# --------------------------------------------------------------------------- running one case
_TRACES: list = []
_LISTENING = {"on": False, "registered": False}
_TRACE_EVENTS = ("/jax/core/compile/jaxpr_trace_duration", "/jax/core/compile/backend_compile_duration")


def _listener(event, duration, **kwargs):
    if _LISTENING["on"] and event in _TRACE_EVENTS:
        _TRACES.append(kwargs.get("fun_name", "?"))


def _jax_internal_names() -> frozenset:
    """Names of JAX's primitives and of the functions of JAX's own modules: what an eager
    ``jnp`` operation (``jnp.asarray``, ``jnp.ones``...) or a key's creation traces and compiles
    when its small program is not yet in JAX's in-memory cache (recomputed when modules were
    imported since)."""
    import sys

    return _jax_internal_names_of(len(sys.modules))


@functools.lru_cache(maxsize=4)
def _jax_internal_names_of(n_modules: int) -> frozenset:
    import sys

    from jax._src import core

    names = set()
    for mod_name, mod in list(sys.modules.items()):
        if mod is None or not (mod_name == "jax" or mod_name.startswith(("jax.", "jaxlib."))):
            continue
        for value in list(vars(mod).values()):
            if isinstance(value, core.Primitive):
                names.add(value.name)
            elif callable(value) and hasattr(value, "__name__"):
                names.add(value.__name__)
    return frozenset(names)


#: programs of the validation layer itself: its one on-device reduction that checks a jax
#: array's finiteness (jaxclassic/validation.py) is part of checking, not of fitting
VALIDATION_PROGRAMS = frozenset({"_sum_is_finite"})


def program_traces(names) -> list:
    """The traced / compiled programs among ``names`` that are not a single eager JAX op or the
    validation layer's own check."""
    internal = _jax_internal_names() | VALIDATION_PROGRAMS
    return [n for n in names if n.removeprefix("jit(").removesuffix(")") not in internal]


class Outcome(NamedTuple):
    exception: BaseException | None
    result: Any
    traces: list  # programs traced or compiled during the call (eager JAX ops excluded)


def run(spec: FitSpec, data: Data, **hyper) -> Outcome:
    """Call the fit on ``data``, recording the programs traced or compiled during the call."""
    if not _LISTENING["registered"]:
        jax.monitoring.register_event_duration_secs_listener(_listener)
        _LISTENING["registered"] = True
    key()  # made before the measured call
    _TRACES.clear()
    _LISTENING["on"] = True
    try:
        result, exception = spec.call(data.X, data.y, data.sample_weight, **hyper), None
    except Exception as exc:  # noqa: BLE001 - the outcome is inspected by the test
        result, exception = None, exc
    finally:
        _LISTENING["on"] = False
    return Outcome(exception, result, program_traces(list(_TRACES)))


def raised_while_tracing(exc: BaseException) -> bool:
    """Whether the exception went through a frame of JAX's own code (tracing, lowering...)."""
    tb = exc.__traceback__
    while tb is not None:
        filename = tb.tb_frame.f_code.co_filename.replace("\\", "/")
        if "/jax/_src/" in filename or "/jaxlib/" in filename:
            return True
        tb = tb.tb_next
    return False


def nan_leaves(params) -> list:
    """Paths of the params' floating leaves that hold a NaN."""
    out = []
    for path, leaf in jax.tree_util.tree_leaves_with_path(params):
        arr = np.asarray(leaf) if hasattr(leaf, "dtype") or isinstance(leaf, (float, np.ndarray)) else None
        if arr is not None and arr.dtype.kind == "f" and np.isnan(arr).any():
            out.append(jax.tree_util.keystr(path))
    return out


def all_cases() -> list[tuple[str, str, str | None]]:
    """``(fit, case, detail)`` for every applicable pair (detail: the invalid hyperparameter)."""
    out = []
    for s in specs():
        for case in CASES:
            if case == "one_class" and not s.classifier:
                continue
            if case == "k_gt_n":
                if s.k is not None:
                    out.append((s.name, case, s.k[0]))
                continue
            if case == "invalid_hyper":
                out.extend((s.name, case, h) for h in s.bad_hyper)
                continue
            if case == "non_bool_flag":
                out.extend((s.name, case, f) for f in bool_flags(_public_fit(s.name)))
                continue
            out.append((s.name, case, None))
    return out


def build(s: FitSpec, case: str, detail):
    """The data and hyperparameter overrides of one (fit, case)."""
    data = base_data(s.kind)
    if case == "k_gt_n":
        return data, {s.k[0]: s.k[1]}
    if case == "invalid_hyper":
        name, value = s.bad_hyper[detail]
        return data, {name: value}
    if case == "non_bool_flag":
        return data, {detail: NON_BOOL}
    return CASES[case](data, s.kind), {}


# --------------------------------------------------------------------------- estimators
#: estimator -> {hyperparameter: invalid value}: the obvious invalid settings of each class
ESTIMATOR_BAD_HYPER: dict[str, dict] = {
    "LogisticRegression": {"C": -1.0, "max_iter": 0, "l1_ratio": 1.5},
    "PerceptronClassifier": {"max_epochs": 0, "learning_rate": -1.0},
    "SoftmaxRegression": {"C": -1.0},
    "BayesianRidge": {"max_iter": 0, "alpha_1": -1.0},
    # its hyperparameters are flags: fit_intercept="yes" is a TypeError (the non_bool_flag case)
    "LinearRegression": {},
    "Ridge": {"alpha": -1.0},
    "SGDRegressor": {"learning_rate": -1.0, "n_epochs": 0},
    "SGDClassifier": {"alpha": -1.0, "max_iter": 0, "loss": "bogus"},
    "Lasso": {"alpha": -1.0, "max_iter": 0},
    "ElasticNet": {"alpha": -1.0, "l1_ratio": 1.5},
    "CategoricalNB": {"alpha": -1.0},
    "MultinomialNB": {"alpha": -1.0},
    "BernoulliNB": {"alpha": -1.0, "binarize": -1.0},
    "ComplementNB": {"alpha": -1.0},
    "GaussianNB": {"var_smoothing": -1.0},
    "LinearDiscriminantAnalysis": {"solver": "bogus", "shrinkage": 2.0},
    "QuadraticDiscriminantAnalysis": {"reg_param": -1.0},
    "DecisionTreeClassifier": {"max_depth": 0, "min_samples_leaf": 0},
    "DecisionTreeRegressor": {"max_depth": 0, "ccp_alpha": -1.0},
    "ID3Classifier": {"min_samples_split": 0},
    "C45Classifier": {"confidence_factor": 1.5},
    "AdaBoostClassifier": {"n_estimators": 0, "learning_rate": -1.0},
    "GradientBoostingClassifier": {"n_estimators": 0, "learning_rate": -1.0},
    "GradientBoostingRegressor": {"n_estimators": 0, "subsample": 0.0},
    "XGBoostClassifier": {"n_estimators": 0, "reg_lambda": -1.0},
    "XGBoostRegressor": {"max_depth": 0, "learning_rate": -1.0},
    "BaggingClassifier": {"n_estimators": 0, "max_samples": 0.0},
    "BaggingRegressor": {"n_estimators": 0},
    "RandomForestClassifier": {"n_estimators": 0, "max_depth": 0},
    "RandomForestRegressor": {"n_estimators": 0},
    "StackingClassifier": {"cv": 1},
    "StackingRegressor": {"cv": 1},
    "VotingClassifier": {"voting": "bogus"},
    # negative weights are accepted, as scikit-learn's VotingRegressor (np.average); a wrong length is not
    "VotingRegressor": {"weights": [1.0]},
    "KNeighborsClassifier": {"n_neighbors": 0, "weights": "bogus"},
    "KNeighborsRegressor": {"n_neighbors": 0},
    "KernelDensity": {"bandwidth": -1.0, "kernel": "bogus"},
    "GaussianMixture": {"n_components": 0, "reg_covar": -1.0},
    "GaussianProcessRegressor": {"noise": -1.0},
    "KMeans": {"n_clusters": 0, "max_iter": 0},
    "MiniBatchKMeans": {"n_clusters": 0, "batch_size": 0},
    "AgglomerativeClustering": {"n_clusters": 0, "linkage": "bogus"},
    "LinearSVC": {"C": -1.0},
    "SVC": {"C": -1.0, "gamma": -1.0},
    "SVR": {"C": -1.0, "epsilon": -1.0},
    "CategoricalHMM": {"n_components": 0},
    "GaussianHMM": {"n_components": 0, "covariance_type": "bogus"},
}

#: estimator -> (its count hyperparameter, a value larger than the 12 rows allow)
ESTIMATOR_K = {
    "KNeighborsClassifier": ("n_neighbors", 50), "KNeighborsRegressor": ("n_neighbors", 50),
    "KMeans": ("n_clusters", 50), "MiniBatchKMeans": ("n_clusters", 50), "GaussianMixture": ("n_components", 50),
    "AgglomerativeClustering": ("n_clusters", 50), "StackingClassifier": ("cv", 50),
    "StackingRegressor": ("cv", 50),
}

#: estimators outside the matrix, with the reason
EXCLUDED_ESTIMATORS = {
    "ChainCRF": "sklearn-crfsuite's API: X is a list of sequences of token-feature dicts, not an "
                "array; its bad input is tested in tests/estimators/test_crf.py",
}

#: the estimator cases: the fits' raising cases (the estimators run no compute case here: their
#: one-feature / one-sample fits are scikit-learn's check_fit2d_1feature / check_fit2d_1sample in
#: tests/estimators/test_sklearn_checks.py, and their maths is the functional fits' above)
ESTIMATOR_CASES = ("nan", "+inf", "-inf", "empty", "one_class", "mismatched_lengths", "wrong_ndim",
                   "strings", "object_dtype", "complex", "negative_weights", "zero_weights",
                   "k_gt_n", "invalid_hyper", "non_bool_flag")

#: (estimator, flag) -> why a bool-defaulted parameter is not a plain flag (left out of the
#: non_bool_flag case)
NOT_FLAGS = {
    ("LinearSVC", "dual"): "True, False or 'auto', as scikit-learn's: dual='yes' is a ValueError "
                           "naming dual (tests/estimators/test_linear_svm.py)",
}


def estimator_flags(name: str) -> list[str]:
    """The boolean flags of an estimator class (``bool_flags`` of its ``__init__``)."""
    import jaxclassic.estimators as est

    return [f for f in bool_flags(getattr(est, name).__init__) if (name, f) not in NOT_FLAGS]

def estimator_kind(name: str) -> str:
    from sklearn.base import is_classifier, is_regressor

    import jaxclassic.estimators as est

    cls = getattr(est, name)
    if name == "GaussianHMM":
        return "hmm"
    if name == "CategoricalHMM":
        return "hmm_symbols"
    if name in ("CategoricalNB", "ID3Classifier"):
        return "categorical"
    if is_classifier(cls()) if name not in _META else name.endswith("Classifier"):
        return "binary"
    if is_regressor(cls()) if name not in _META else name.endswith("Regressor"):
        return "regression"
    return "unsupervised"


_META = ("StackingClassifier", "StackingRegressor", "VotingClassifier", "VotingRegressor")


def estimator_names() -> list[str]:
    import jaxclassic.estimators as est

    return [n for n in est.__all__ if isinstance(getattr(est, n), type)]


def estimator_data(name: str) -> Data:
    kind = estimator_kind(name)
    if kind == "hmm_symbols":
        c = base_data("categorical")
        return Data(c.X[:, :1], [6, 6], None)
    return base_data(kind)


def run_estimator(name: str, case: str, detail) -> Outcome:
    """Fit the estimator on the case's data, recording the programs traced or compiled."""
    import jaxclassic.estimators as est
    from tests.estimators.test_sklearn_checks import CHECK_PARAMS

    kind = estimator_kind(name)
    data = estimator_data(name)
    params = dict(CHECK_PARAMS.get(name, {}))
    if case == "k_gt_n":
        params[ESTIMATOR_K[name][0]] = ESTIMATOR_K[name][1]
    elif case == "invalid_hyper":
        params[detail] = ESTIMATOR_BAD_HYPER[name][detail]
    elif case == "non_bool_flag":
        params[detail] = NON_BOOL
    elif case == "strings":  # scikit-learn converts numeric strings given a float dtype, as the
        # estimators ask: words are the strings no estimator can read
        data = Data(np.full(np.shape(data.X), "word"), data.y, None)
    else:
        data = CASES[case](data, "hmm" if kind.startswith("hmm") else kind)
    estimator = getattr(est, name)(**params)
    kwargs = {} if data.sample_weight is None else {"sample_weight": data.sample_weight}
    if kind == "unsupervised":
        fake = FitSpec(name, lambda X, y, sw, **h: estimator.fit(X, **kwargs), kind, {})
    else:
        fake = FitSpec(name, lambda X, y, sw, **h: estimator.fit(X, y, **kwargs), kind, {})
    return run(fake, data)
