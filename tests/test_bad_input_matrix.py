"""The fits of the bad-input matrix (issue 17): how to call each public ``fit_*`` on small
data, which hyperparameters are invalid, and how each case of bad input is built for it.

Used by ``tests/test_bad_input_matrix.py`` and ``tests/test_determinism.py``.
"""

from __future__ import annotations

import functools
import os
from typing import Any, Callable, NamedTuple

import jax
import numpy as np
import pytest

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
        S("fit_bayesian_ridge", lambda X, y, sw, **h: linear.fit_bayesian_ridge(
            X, y, **{"max_iter": 20, **h}, sample_weight=sw),
          "regression", {"max_iter": ("max_iter", 0), "alpha_1": ("alpha_1", -1.0)}),
        S("fit_sgd_regressor", lambda X, y, sw, **h: linear.fit_sgd_regressor(
            X, y, key=key(), **{"n_epochs": 2, "batch_size": 4, **h}, sample_weight=sw),
          "regression", {"learning_rate": ("learning_rate", -1.0), "batch_size": ("batch_size", 0)}),
        S("fit_logistic", lambda X, y, sw, **h: linear.fit_logistic(
            X, y, **{"l2": 1.0, "max_iter": 20, **h}, sample_weight=sw),
          "binary", {"l2": ("l2", -1.0), "max_iter": ("max_iter", 0)}, classifier=True),
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
        S("fit_lda", lambda X, y, sw, **h: discriminant.fit_lda(X, y, **h, sample_weight=sw),
          "multiclass", {"shrinkage": ("shrinkage", 2.0), "solver": ("solver", "bogus")}, classifier=True),
        S("fit_qda", lambda X, y, sw, **h: discriminant.fit_qda(X, y, **h, sample_weight=sw),
          "multiclass", {"reg_param": ("reg_param", -1.0)}, classifier=True),
        S("fit_knn", lambda X, y, sw, **h: neighbors.fit_knn(X, y, **{"k": 3, **h}, sample_weight=sw),
          "binary", {"k": ("k", 0), "weights": ("weights", "bogus")}, k=("k", 50), classifier=True),
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
          "regression", {"learning_rate": ("learning_rate", -1.0), "subsample": ("subsample", 0.0)}),
        S("fit_xgboost", lambda X, y, sw, **h: ensemble.fit_xgboost(
            X, y, **{"n_estimators": 3, "max_depth": 2, "max_bin": 8, **h}, sample_weight=sw),
          "regression", {"reg_lambda": ("reg_lambda", -1.0), "learning_rate": ("learning_rate", -1.0)}),
        S("fit_random_forest", lambda X, y, sw, **h: ensemble.fit_random_forest(
            X, y, key=key(), **{"n_estimators": 3, "max_depth": 2, "n_bins": 8, **h}, sample_weight=sw),
          "binary", {"n_estimators": ("n_estimators", 0), "max_samples": ("max_samples", 2.0)},
          classifier=True),
        S("fit_bagging", lambda X, y, sw, **h: ensemble.fit_bagging(
            ridge, X, y, key=key(), **{"n_estimators": 3, **h}, sample_weight=sw),
          "regression", {"n_estimators": ("n_estimators", 0), "max_samples": ("max_samples", 0.0)}),
        S("fit_stacking", lambda X, y, sw, **h: ensemble.fit_stacking(
            [ridge], ridge, X, y, task="regression", **{"n_folds": 3, **h}, sample_weight=sw),
          "regression", {"n_folds": ("n_folds", 1), "stack_method": ("stack_method", "bogus")},
          k=("n_folds", 50)),
        S("fit_voting", lambda X, y, sw, **h: ensemble.fit_voting(
            [logistic, discriminant.fit_gaussian_nb], X, y, **h, sample_weight=sw),
          "binary", {"voting": ("voting", "bogus"), "weights": ("weights", [-1.0, 1.0])}, classifier=True),
        S("fit_voting_regressor", lambda X, y, sw, **h: ensemble.fit_voting_regressor(
            [linear.fit_ols, ridge], X, y, **h, sample_weight=sw),
          "regression", {"weights": ("weights", [-1.0, 1.0])}),
        S("fit_kmeans", lambda X, y, sw, **h: cluster.fit_kmeans(
            X, h.pop("n_clusters", 2), key=key(), **{"max_iter": 10, **h}, sample_weight=sw),
          "unsupervised", {"n_clusters": ("n_clusters", 0), "max_iter": ("max_iter", 0)},
          k=("n_clusters", 50)),
        S("fit_gmm", lambda X, y, sw, **h: cluster.fit_gmm(
            X, h.pop("n_components", 2), key=key(), **{"max_iter": 10, **h}, sample_weight=sw),
          "unsupervised", {"n_components": ("n_components", 0), "reg_covar": ("reg_covar", -1.0)},
          k=("n_components", 50)),
        S("fit_bayes_net", lambda X, y, sw, **h: graphical.fit_bayes_net(
            X, net_structure, **h, sample_weight=sw),
          "bayes_net", {"pseudo_count": ("pseudo_count", -1.0)}),
        S("fit_hmm", lambda X, y, sw, **h: graphical.fit_hmm(
            X, y, h.pop("n_states", 2), emission="gaussian", key=key(), **{"max_iter": 5, **h},
            sample_weight=sw),
          "hmm", {"n_states": ("n_states", 0), "tol": ("tol", -1.0)}),
        S("fit_crf", lambda X, y, sw, **h: graphical.fit_crf(
            X, y, **{"c2": 1.0, "max_iter": 5, **h}, sample_weight=sw),
          "crf", {"c2": ("c2", -1.0), "max_iter": ("max_iter", 0)}, classifier=True),
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
          "multiclass", {"var_smoothing": ("var_smoothing", -1.0), "n_classes": ("n_classes", 1)},
          classifier=True),
        S("streaming.fit_lda", lambda X, y, sw, **h: streaming.fit_lda(
            X, y, **{"n_classes": 3, **h}, sample_weight=sw),
          "multiclass", {"shrinkage": ("shrinkage", 2.0), "solver": ("solver", "bogus")}, classifier=True),
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


#: public fits deliberately outside the matrix, with the reason
EXCLUDED_FITS = {
    "fit_cart_binned": "takes the codes and edges of tree.bin_features (whose X is validated "
                       "there and by fit_cart, which is in the matrix), not raw X",
    "streaming.fit_gradient_boosting": "takes pre-binned integer codes (checked per block against "
                                       "n_bins), like fit_cart_binned, not raw X",
}

SPEC_NAMES = (
    "fit_ols fit_ridge fit_lasso fit_bayesian_ridge fit_sgd_regressor fit_logistic fit_softmax "
    "fit_perceptron fit_one_vs_rest fit_one_vs_one fit_linear_svm fit_kernel_svm fit_kernel_svr "
    "fit_gaussian_nb fit_categorical_nb fit_mixed_nb fit_lda fit_qda fit_knn fit_kde fit_gp "
    "fit_cart fit_id3 fit_c45 fit_adaboost fit_gradient_boosting fit_xgboost fit_random_forest "
    "fit_bagging fit_stacking fit_voting fit_voting_regressor fit_kmeans fit_gmm fit_bayes_net "
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
    "constant_features": _case_constant,
    "scale_1e30": _case_scale,
    "duplicated_rows": _case_duplicated,
}

#: the cases that run the fit (documented results); the others must raise before compiling
COMPUTE_CASES = ("one_feature", "constant_features", "scale_1e30", "duplicated_rows")

#: the argument each raising case's message must name (a regular expression), and its type
RAISES = {
    "nan": (ValueError, r"\bX\b"),
    "+inf": (ValueError, r"\bX\b"),
    "-inf": (ValueError, r"\bX\b"),
    "empty": (ValueError, r"\bX\b"),
    "one_sample": (ValueError, r"\b(X|y)\b"),
    "one_class": (ValueError, r"\by\b"),
    "mismatched_lengths": (ValueError, r"\b(X and y|sample_weight|lengths)\b|\by\b.*\bX\b|\by must have shape"),
    "wrong_ndim": (ValueError, r"\bX\b"),
    "strings": (TypeError, r"\bX\b"),
    "object_dtype": (TypeError, r"\bX\b"),
    "complex": (TypeError, r"\bX\b"),
    "negative_weights": (ValueError, r"\bsample_weight\b"),
    "zero_weights": (ValueError, r"\bsample_weight\b"),
}


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
    return CASES[case](data, s.kind), {}


# --------------------------------------------------------------------------- estimators
#: estimator -> {hyperparameter: invalid value}: the obvious invalid settings of each class
ESTIMATOR_BAD_HYPER: dict[str, dict] = {
    "LogisticRegression": {"C": -1.0, "max_iter": 0},
    "PerceptronClassifier": {"max_epochs": 0, "learning_rate": -1.0},
    "SoftmaxRegression": {"C": -1.0},
    "BayesianRidge": {"max_iter": 0, "alpha_1": -1.0},
    # its one hyperparameter, fit_intercept, is read with bool() (so "yes" is True): no invalid
    # value to test (scikit-learn's own LinearRegression rejects non-bools: a known difference)
    "LinearRegression": {},
    "Ridge": {"alpha": -1.0},
    "SGDRegressor": {"learning_rate": -1.0, "n_epochs": 0},
    "Lasso": {"alpha": -1.0, "max_iter": 0},
    "CategoricalNB": {"alpha": -1.0},
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
    "KMeans": ("n_clusters", 50), "GaussianMixture": ("n_components", 50),
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
                   "k_gt_n", "invalid_hyper")

#: what the estimators' messages say (scikit-learn's validation words some of them: its empty
#: array message names the shape and the minimum, its 3-d message the dimension)
ESTIMATOR_RAISES = {
    "nan": ((ValueError,), r"\bX\b"),
    "+inf": ((ValueError,), r"\bX\b"),
    "-inf": ((ValueError,), r"\bX\b"),
    "empty": ((ValueError,), r"\bX\b|0 sample\(s\)"),
    "one_class": ((ValueError,), r"\by\b|class"),
    "mismatched_lengths": ((ValueError,), r"inconsistent numbers of samples|\blengths\b|sample_weight"),
    "wrong_ndim": ((ValueError,), r"\bX\b|dim 3"),
    "strings": ((ValueError, TypeError), r"\bX\b|string|numeric"),
    "object_dtype": ((ValueError, TypeError), r"\bX\b|string|numeric"),
    "complex": ((ValueError, TypeError), r"\bX\b|[Cc]omplex"),
    "negative_weights": ((ValueError,), r"\bsample_weight\b|[Nn]egative"),
    "zero_weights": ((ValueError,), r"\bsample_weight\b|zero"),
}


def _estimator_kind(name: str) -> str:
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
    kind = _estimator_kind(name)
    if kind == "hmm_symbols":
        c = base_data("categorical")
        return Data(c.X[:, :1], [6, 6], None)
    return base_data(kind)


def estimator_cases(everything: bool = False) -> list[tuple[str, str, str | None]]:
    """The estimator cells; without ``everything`` (or JAXCLASSIC_FULL_MATRIX=1), not those
    documented as fitting (each compiles a program: the missing-value trees)."""
    import inspect

    import jaxclassic.estimators as est

    out = []
    for name in estimator_names():
        if name in EXCLUDED_ESTIMATORS:
            continue
        kind = _estimator_kind(name)
        weighted = "sample_weight" in inspect.signature(getattr(est, name).fit).parameters
        for case in ESTIMATOR_CASES:
            if case == "one_class" and kind not in ("binary", "categorical"):
                continue
            if case in ("negative_weights", "zero_weights") and not weighted:
                continue
            if case == "mismatched_lengths" and kind == "unsupervised" and not weighted:
                continue  # no y and no sample_weight: no two lengths to mismatch
            if case == "k_gt_n":
                if name in ESTIMATOR_K:
                    out.append((name, case, ESTIMATOR_K[name][0]))
                continue
            if case == "invalid_hyper":
                out.extend((name, case, h) for h in ESTIMATOR_BAD_HYPER.get(name, {}))
                continue
            if (DOCUMENTED_RESULTS.get((name, case), ("",))[0] == "fits" and not everything
                    and os.environ.get("JAXCLASSIC_FULL_MATRIX") != "1"):
                continue
            out.append((name, case, None))
    return out


def run_estimator(name: str, case: str, detail) -> Outcome:
    """Fit the estimator on the case's data, recording the programs traced or compiled."""
    import jaxclassic.estimators as est
    from tests.estimators.test_sklearn_checks import CHECK_PARAMS

    kind = _estimator_kind(name)
    data = estimator_data(name)
    params = dict(CHECK_PARAMS.get(name, {}))
    if case == "k_gt_n":
        params[ESTIMATOR_K[name][0]] = ESTIMATOR_K[name][1]
    elif case == "invalid_hyper":
        params[detail] = ESTIMATOR_BAD_HYPER[name][detail]
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


# --------------------------------------------------------------------------- documented results
FITS = "fits: finite params (NaN only in the documented sentinel fields) and finite predictions"

#: (fit or "*", case) -> (expected, reason). ``expected`` is "fits"; ("raises", type, regex) for a
#: raise before any compile that differs from ``RAISES`` (another argument named);
#: ("raises_after_fit", type, regex) for a clear error the fit's result raises; or
#: ("warns", type, regex). A fit's own entry wins over the "*" entry of its case. THE one table of
#: what each (fit, case) does when it is not the default of ``RAISES``.
DOCUMENTED_RESULTS: dict[tuple[str, str], tuple[Any, str]] = {
    # the compute cases: every fit fits them
    ("*", "one_feature"): ("fits", "one column is a design matrix like any other"),
    ("*", "constant_features"): ("fits", "a constant column carries no information; closed forms "
                                 "use a minimum-norm / regularised solve, trees never split on it"),
    ("*", "scale_1e30"): ("fits", "float64 (the suite's x64) holds 1e30 and its squares"),
    ("*", "duplicated_rows"): ("fits", "a repeated row is a row of weight 2"),
    # one sample: regressors and density models fit it (scikit-learn's check_fit2d_1sample
    # accepts either); the others name what one row cannot satisfy
    **{(f, "one_sample"): ("fits", "one row: a minimum-norm / prior-dominated fit, as scikit-learn")
       for f in ("fit_ols", "fit_ridge", "fit_lasso", "fit_bayesian_ridge", "fit_sgd_regressor",
                 "fit_kernel_svr", "fit_kde", "fit_gp", "fit_cart", "fit_id3", "fit_c45",
                 "fit_gradient_boosting", "fit_xgboost", "fit_bagging", "fit_voting_regressor",
                 "fit_bayes_net", "fit_crf", "streaming.fit_ols", "streaming.fit_ridge")},
    ("fit_knn", "one_sample"): (("raises", ValueError, r"\bk must be <="), "k=3 neighbours of 1 row"),
    ("fit_stacking", "one_sample"): (("raises", ValueError, r"\bn_folds\b"), "3 folds of 1 row"),
    ("fit_kmeans", "one_sample"): (("raises", ValueError, r"\bn_clusters\b"), "2 clusters of 1 row"),
    ("fit_gmm", "one_sample"): (("raises", ValueError, r"\bn_components\b"), "2 components of 1 row"),
    ("fit_hmm", "one_sample"): (("raises", ValueError, r"\bn_states\b"), "2 Gaussian states of 1 row"),
    **{(f"streaming.fit_{f}", "one_sample"): (("raises", ValueError, rf"\b{n}\b"), "2 seeds of 1 row")
       for f, n in (("kmeans", "n_clusters"), ("gmm", "n_components"))},
    # the streaming naive Bayes / LDA read the labels in the pass that sums the moments: the
    # missing class is a clear error naming y after that pass (a data source is read once a pass)
    **{(f, c): (("raises_after_fit", ValueError, r"\by\b"), "classes counted in the moments pass")
       for f in ("streaming.fit_gaussian_nb", "streaming.fit_lda") for c in ("one_sample", "one_class")},
    # category codes must fit int32 (they index count tables)
    **{(f, "scale_1e30"): (("raises", ValueError, r"\bX\b.*int32"),
                           "codes of 1e30 cannot index a table: a ValueError naming X before any "
                           "compile (was a code wrapped to -2147483648, or an OverflowError in the trace)")
       for f in ("fit_categorical_nb", "fit_mixed_nb", "fit_id3", "fit_bayes_net")},
    ("fit_bayes_net", "one_feature"): (("raises", ValueError, r"\bX must have one column per variable"),
                                       "the structure fixes the columns: one per variable"),
    ("fit_qda", "duplicated_rows"): (
        ("raises_after_fit", ValueError, r"singular.*reg_param"),
        "6 rows twice leave each class 2 distinct points in 3-d: a singular covariance, numpy's "
        "LinAlgError (a ValueError) naming reg_param, as scikit-learn's QDA"),
    ("fit_bagging", "nan"): (
        ("raises_after_fit", ValueError, r"\bX\b"),
        "bagging leaves NaN to its member fit (trees accept it): the member's ValueError naming X "
        "comes after the bootstrap counts' small program"),
    # estimators: scikit-learn's own words where its helpers raise (KFold, the dendrogram cut)
    **{(e, c): (("raises", ValueError, r"\bn_splits\b"), "scikit-learn's KFold message, as its Stacking*")
       for e in ("StackingClassifier", "StackingRegressor") for c in ("invalid_hyper",)},
    **{(e, "k_gt_n"): (("raises_after_fit", ValueError, r"\bn_splits\b"),
                       "scikit-learn's order (its StackingClassifier too): the members are fitted on "
                       "all rows before the cross-validation splits are made")
       for e in ("StackingClassifier", "StackingRegressor")},
    ("AgglomerativeClustering", "k_gt_n"): (("raises", ValueError, r"more clusters than samples"),
                                            "scikit-learn's AgglomerativeClustering message"),
    # one class: the trees and k-NN predict it (as scikit-learn's trees and k-NN do)
    **{(f, "one_class"): ("fits", "a single-class tree / neighbour vote predicts that class, as "
                          "scikit-learn's DecisionTreeClassifier and KNeighborsClassifier")
       for f in ("fit_knn", "fit_cart", "fit_id3", "fit_c45")},
    ("fit_crf", "one_class"): ("fits", "a one-label chain is a valid (trivial) CRF, as in crfsuite"),
    # the estimators of the trees and boosted trees accept NaN as their cores do
    **{(e, "nan"): ("fits", "NaN is a missing value (as scikit-learn's trees and HistGradientBoosting)")
       for e in ("DecisionTreeClassifier", "DecisionTreeRegressor", "C45Classifier",
                 "GradientBoostingClassifier", "GradientBoostingRegressor", "XGBoostClassifier",
                 "XGBoostRegressor", "BaggingClassifier", "BaggingRegressor", "RandomForestClassifier",
                 "RandomForestRegressor")},
    # missing values: the trees route NaN (CART's missing_left, C4.5's fractional cases)
    **{(f, "nan"): ("fits", "NaN is a missing value: CART sends it down a learned side, C4.5 "
                    "splits the case fractionally (Quinlan 1993)")
       for f in ("fit_cart", "fit_c45", "fit_gradient_boosting", "fit_xgboost", "fit_random_forest")},
    # QDA on a constant feature: each class covariance is singular
    ("fit_qda", "constant_features"): (
        ("raises_after_fit", ValueError, r"singular.*reg_param"),
        "numpy's LinAlgError (a ValueError) after the fit, naming reg_param, as scikit-learn's QDA"),
    # SGD at 1e30: the step overflows (scikit-learn's SGDRegressor raises after the epoch)
    ("fit_sgd_regressor", "scale_1e30"): (
        ("warns", RuntimeWarning, r"diverged.*learning_rate"),
        "a step of learning_rate on 1e30-scale X overflows: a RuntimeWarning naming learning_rate "
        "(the SGDRegressor estimator re-issues it)"),
}

#: (fit or estimator, case) -> defect found by this matrix and not fixed yet (its file was being
#: edited by another engineer): the cell is an expected failure, not run (a silent acceptance
#: compiles the fit: seconds for nothing); delete the entry once fixed
KNOWN_DEFECTS: dict[tuple[str, str], str] = {
}


def _cells(cells):
    """pytest params of (name, case, detail) cells, the known defects marked as expected failures."""
    return [pytest.param(*c, marks=pytest.mark.xfail(reason=KNOWN_DEFECTS[c[:2]], run=False))
            if c[:2] in KNOWN_DEFECTS else pytest.param(*c) for c in cells]


#: fields that hold NaN by design (documented in the params' docstrings)
NAN_SENTINELS = {
    "threshold": "tree nodes: NaN at leaves (tree/_params.py)",
    "gain": "ID3 / C4.5: NaN at leaves", "gain_ratio": "C4.5: NaN at leaves",
    "probA": "SVMs: NaN unless probability=True", "probB": "SVMs: NaN unless probability=True",
    "eval_loss": "XGBoost: NaN without an eval_set",
}

#: the fits whose compute cases (one_feature, constant_features, scale_1e30, duplicated_rows, and
#: the raising cases documented as fits) run in the default suite: one or two a family, the
#: cheap compiles (each distinct shape is one XLA compile; the boosting, forest, GMM and HMM
#: programs take 10-25 s each on the shared 2-core machine). JAXCLASSIC_FULL_MATRIX=1 runs all.
COMPUTE_SUBSET = ("fit_ridge", "fit_sgd_regressor", "fit_perceptron", "fit_kernel_svr",
                  "fit_gaussian_nb", "fit_mixed_nb", "fit_qda", "fit_knn", "fit_kde", "fit_gp",
                  "fit_id3", "fit_c45", "fit_voting_regressor", "fit_bayes_net")


def documented(fit: str, case: str):
    return DOCUMENTED_RESULTS.get((fit, case)) or DOCUMENTED_RESULTS.get(("*", case))


def expectation(fit: str, case: str):
    """("fits" | ("raises", type, regex) | ("warns", type, regex)) for one (fit, case)."""
    doc = documented(fit, case)
    if doc is not None:
        return doc[0]
    if case in ("k_gt_n", "invalid_hyper"):
        return ("raises", (ValueError, TypeError), None)  # the regex is the hyperparameter's name
    exc, pattern = RAISES[case]
    return ("raises", exc, pattern)


def runs_compute(fit: str) -> bool:
    import os

    return fit in COMPUTE_SUBSET or os.environ.get("JAXCLASSIC_FULL_MATRIX") == "1"


def matrix() -> list[tuple[str, str, str | None]]:
    """The (fit, case, detail) cells of the default run: every raising cell, and the compute
    cells of ``COMPUTE_SUBSET``."""
    return [c for c in all_cases() if expectation(c[0], c[1]) != "fits" or runs_compute(c[0])]


# --------------------------------------------------------------------------- the tests
import re  # noqa: E402
import warnings  # noqa: E402


def _assert_fitted_finite(fit: str, params, X) -> None:
    """No NaN outside the documented sentinel fields, and finite predictions where the params
    have a registered ``predict``."""
    from jaxclassic import _dispatch

    bad = [p for p in nan_leaves(params) if p.rsplit(".", 1)[-1] not in NAN_SENTINELS]
    assert not bad, f"{fit}: silent NaN in {bad}"
    if _dispatch.predict.supports(params) and np.ndim(X) == 2 and np.asarray(X).dtype.kind == "f":
        pred = np.asarray(_dispatch.predict(params, X))
        if pred.dtype.kind == "f":
            assert np.isfinite(pred).all(), f"{fit}: non-finite predictions"


def _named(s: FitSpec, case: str, detail) -> str:
    """The argument a hyperparameter case's message must name."""
    return s.k[0] if case == "k_gt_n" else s.bad_hyper[detail][0]


def _check(label: str, expected, outcome: Outcome, caught, X, named: str | None) -> None:
    if expected == "fits":
        assert outcome.exception is None, f"{label}: {outcome.exception!r}"
        _assert_fitted_finite(label, outcome.result, X)
        return
    if expected[0] == "warns":
        _, category, pattern = expected
        assert outcome.exception is None, f"{label}: {outcome.exception!r}"
        assert any(issubclass(w.category, category) and re.search(pattern, str(w.message))
                   for w in caught), f"{label}: no {category.__name__} matching {pattern!r}"
        return
    kind, exc_type, pattern = expected
    exc = outcome.exception
    assert isinstance(exc, exc_type), f"{label}: expected {exc_type}, got {exc!r}"
    pattern = pattern or rf"\b{re.escape(named)}\b"
    assert re.search(pattern, str(exc)), f"{label}: message {str(exc)!r} does not match {pattern!r}"
    assert not raised_while_tracing(exc), f"{label}: raised inside a JAX trace"
    if kind == "raises":  # before any program of the package was traced or compiled
        assert outcome.traces == [], f"{label}: traced / compiled {outcome.traces} before raising"


@pytest.mark.parametrize("fit,case,detail", _cells(matrix()), ids=lambda v: str(v) if v is not None else "-")
def test_fit_bad_input(fit, case, detail):
    s = spec(fit)
    data, hyper = build(s, case, detail)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        outcome = run(s, data, **hyper)
    named = _named(s, case, detail) if case in ("k_gt_n", "invalid_hyper") else None
    _check(f"{fit}/{case}", expectation(fit, case), outcome, caught, data.X, named)


def _estimator_expectation(name: str, case: str):
    doc = DOCUMENTED_RESULTS.get((name, case))
    if doc is not None:
        return doc[0]
    if case in ("k_gt_n", "invalid_hyper"):
        return ("raises", (ValueError, TypeError), None)
    exc, pattern = ESTIMATOR_RAISES[case]
    return ("raises", exc, pattern)


@pytest.mark.parametrize("name,case,detail", _cells(estimator_cases()),
                         ids=lambda v: str(v) if v is not None else "-")
def test_estimator_bad_input(name, case, detail):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        outcome = run_estimator(name, case, detail)
    named = ESTIMATOR_K[name][0] if case == "k_gt_n" else detail
    expected = _estimator_expectation(name, case)
    if expected == "fits":
        assert outcome.exception is None, f"{name}/{case}: {outcome.exception!r}"
        return
    _check(f"{name}/{case}", expected, outcome, caught, None, named)


def test_every_public_fit_is_in_the_matrix():
    """Walk the package's subpackages for public ``fit_*`` callables: each is in the matrix or
    excluded with its reason."""
    import importlib
    import pkgutil

    import jaxclassic

    found = set()  # "fit_x", or "streaming.fit_x" for the block-streaming fits of the same name
    for info in pkgutil.walk_packages(jaxclassic.__path__, "jaxclassic."):
        parts = info.name.split(".")[1:]
        if any(p.startswith("_") for p in parts) or parts[0] in ("estimators", "tour", "cli", "plot"):
            continue
        module = importlib.import_module(info.name)
        names = getattr(module, "__all__", None) or [n for n in vars(module) if not n.startswith("_")]
        for n in names:
            fn = getattr(module, n, None)
            if n.startswith("fit_") and callable(fn):
                streamed = ".streaming." in f"{getattr(fn, '__module__', '')}."
                found.add(f"streaming.{n}" if streamed else n)
    assert [s.name for s in specs()] == SPEC_NAMES
    missing = found - set(SPEC_NAMES) - set(EXCLUDED_FITS)
    assert not missing, f"public fits neither in the matrix nor in EXCLUDED_FITS: {sorted(missing)}"
    stale = set(SPEC_NAMES) - found
    assert not stale, f"fits of the matrix that the package no longer has: {sorted(stale)}"


def test_every_estimator_is_in_the_matrix():
    names = set(estimator_names())
    missing = names - set(ESTIMATOR_BAD_HYPER) - set(EXCLUDED_ESTIMATORS)
    assert not missing, f"estimators neither in the matrix nor in EXCLUDED_ESTIMATORS: {sorted(missing)}"
    assert not set(ESTIMATOR_BAD_HYPER) - names


def test_matrix_summary(capsys):
    """The matrix's size, printed (``pytest -s`` shows it): fits x cases and estimators x cases."""
    full, run_now = all_cases(), matrix()
    n_cases = len(CASES)
    with capsys.disabled():
        print(f"\nbad-input matrix: {len(specs())} fits x {n_cases} cases = {len(full)} applicable cells "
              f"({len(run_now)} run here; {len(full) - len(run_now)} compute cells of fits outside "
              f"COMPUTE_SUBSET need JAXCLASSIC_FULL_MATRIX=1); {len(estimator_names()) - len(EXCLUDED_ESTIMATORS)} "
              f"estimators x {len(ESTIMATOR_CASES)} cases = {len(estimator_cases(True))} applicable cells "
              f"({len(estimator_cases())} run here); "
              f"{len(DOCUMENTED_RESULTS)} documented results; excluded: "
              f"{sorted(EXCLUDED_FITS) + sorted(EXCLUDED_ESTIMATORS)}")
    assert len(run_now) > 0 and len(full) >= len(run_now)
