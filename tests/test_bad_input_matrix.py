"""The bad-input matrix (issue 17): every public fit and every estimator x every case of bad input.

Cases: NaN, +inf, -inf, an empty array, one sample, one feature, one class, mismatched lengths,
the wrong number of dimensions, strings, object dtype, complex, negative and all-zero weights, a
count larger than the data allows (``k``, ``n_clusters``...), each invalid hyperparameter,
each boolean flag given a non-bool (``fit_intercept="yes"``), constant features, values of 1e30 scale and duplicated rows.

Each cell expects either the default of its case (``RAISES``: a ``ValueError`` / ``TypeError``
whose message names the argument, raised before any program of the package was traced or
compiled; see ``tests/_bad_input.py`` for how that is observed), or the documented result of
``DOCUMENTED_RESULTS``, the one table of everything else: fits (then no NaN outside the
documented sentinel fields and finite predictions), a clear error after the fit, or a warning.
Never a silent NaN, never an XLA error.

Cost: the raising cells compile nothing. The cells that fit (one feature, constant features,
1e30, duplicated rows, and the raising cases documented as fitting) compile one program a shape;
the fast tier (``make test``) covers them for ``COMPUTE_SUBSET`` (a fit or two a family, the cheap
compiles); the others are marked ``full`` and run in ``make test-all``. ``test_matrix_summary``
prints the size.
"""

from __future__ import annotations

import re
import warnings
from typing import Any

import numpy as np
import pytest

from tests._bad_input import (
    CASES,
    ESTIMATOR_BAD_HYPER,
    ESTIMATOR_CASES,
    ESTIMATOR_K,
    EXCLUDED_ESTIMATORS,
    EXCLUDED_FITS,
    SPEC_NAMES,
    FitSpec,
    Outcome,
    all_cases,
    build,
    estimator_flags,
    estimator_kind,
    estimator_names,
    nan_leaves,
    raised_while_tracing,
    run,
    run_estimator,
    spec,
    specs,
)


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


#: a boolean flag given "yes" (issue 23.5): a TypeError naming the flag (validation.check_bool),
#: before any compile, in the fits and in the estimators' fit (scikit-learn validates there too);
#: the regex is the flag's name
NON_BOOL_FLAG = ("raises", TypeError, None)


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


def estimator_cases(everything: bool = True) -> list[tuple[str, str, str | None]]:
    """The estimator cells; without ``everything``, not those documented as fitting (each
    compiles a program: the missing-value trees), which are the full tier's."""
    import inspect

    import jaxclassic.estimators as est

    out = []
    for name in estimator_names():
        if name in EXCLUDED_ESTIMATORS:
            continue
        kind = estimator_kind(name)
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
            if case == "non_bool_flag":
                out.extend((name, case, f) for f in estimator_flags(name))
                continue
            if DOCUMENTED_RESULTS.get((name, case), ("",))[0] == "fits" and not everything:
                continue
            out.append((name, case, None))
    return out


# --------------------------------------------------------------------------- documented results
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
       for f in ("fit_ols", "fit_ridge", "fit_lasso", "fit_elastic_net", "fit_bayesian_ridge", "fit_sgd_regressor",
                 "fit_kernel_svr", "fit_kde", "fit_gp", "fit_cart", "fit_id3", "fit_c45",
                 "fit_gradient_boosting", "fit_xgboost", "fit_bagging",
                 "fit_bayes_net", "fit_crf", "streaming.fit_ols", "streaming.fit_ridge")},
    ("fit_knn", "one_sample"): (("raises", ValueError, r"\bn_neighbors must be <="), "3 neighbours of 1 row"),
    ("fit_stacking", "one_sample"): (("raises", ValueError, r"\bn_splits\b"), "3 folds of 1 row"),
    ("fit_kmeans", "one_sample"): (("raises", ValueError, r"\bn_clusters\b"), "2 clusters of 1 row"),
    ("fit_minibatch_kmeans", "one_sample"): (("raises", ValueError, r"\bn_clusters\b"), "2 clusters of 1 row"),
    ("fit_gmm", "one_sample"): (("raises", ValueError, r"\bn_components\b"), "2 components of 1 row"),
    ("fit_hmm", "one_sample"): (("raises", ValueError, r"\bn_components\b"), "2 Gaussian states of 1 row"),
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


def _cells(cells, fast=lambda cell: True):
    """pytest params of (name, case, detail) cells, the known defects marked as expected failures
    and the cells that are not ``fast`` marked ``full``."""
    def marks(c):
        out = [pytest.mark.xfail(reason=KNOWN_DEFECTS[c[:2]], run=False)] if c[:2] in KNOWN_DEFECTS else []
        return out + ([] if fast(c) else [pytest.mark.full])

    return [pytest.param(*c, marks=marks(c)) for c in cells]


#: fields that hold NaN by design (documented in the params' docstrings)
NAN_SENTINELS = {
    "threshold": "tree nodes: NaN at leaves (tree/_params.py)",
    "gain": "ID3 / C4.5: NaN at leaves", "gain_ratio": "C4.5: NaN at leaves",
    "probA": "SVMs: NaN unless probability=True", "probB": "SVMs: NaN unless probability=True",
    "eval_loss": "XGBoost: NaN without an eval_set",
    "log_likelihoods": "HMM: the per-iteration history, NaN past n_iter (graphical/hmm_fit.py)",
}

#: the fits whose compute cases (one_feature, constant_features, scale_1e30, duplicated_rows, and
#: the raising cases documented as fits) run in the default suite: one or two a family, the
#: cheap compiles (each distinct shape is one XLA compile; the boosting, forest, GMM and HMM
#: programs take 10-25 s each on the shared 2-core machine). The others' are the full tier's.
COMPUTE_SUBSET = ("fit_ridge", "fit_sgd_regressor", "fit_perceptron", "fit_kernel_svr",
                  "fit_gaussian_nb", "fit_mixed_nb", "fit_qda", "fit_knn", "fit_kde", "fit_gp",
                  "fit_id3", "fit_c45", "fit_bayes_net")


def documented(fit: str, case: str):
    return DOCUMENTED_RESULTS.get((fit, case)) or DOCUMENTED_RESULTS.get(("*", case))


def expectation(fit: str, case: str):
    """("fits" | ("raises", type, regex) | ("warns", type, regex)) for one (fit, case)."""
    doc = documented(fit, case)
    if doc is not None:
        return doc[0]
    if case in ("k_gt_n", "invalid_hyper"):
        return ("raises", (ValueError, TypeError), None)  # the regex is the hyperparameter's name
    if case == "non_bool_flag":
        return NON_BOOL_FLAG
    exc, pattern = RAISES[case]
    return ("raises", exc, pattern)


def fast_cell(fit: str, case: str) -> bool:
    """Whether a cell is in the fast tier: every raising cell (they compile nothing) and the
    compute cells of ``COMPUTE_SUBSET``."""
    return expectation(fit, case) != "fits" or fit in COMPUTE_SUBSET


def matrix() -> list[tuple[str, str, str | None]]:
    """The (fit, case, detail) cells of the fast tier (:func:`fast_cell`)."""
    return [c for c in all_cases() if fast_cell(c[0], c[1])]


# --------------------------------------------------------------------------- the tests


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
    if case == "non_bool_flag":
        return detail
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


@pytest.mark.parametrize("fit,case,detail", _cells(all_cases(), lambda c: fast_cell(c[0], c[1])),
                         ids=lambda v: str(v) if v is not None else "-")
def test_fit_bad_input(fit, case, detail):
    s = spec(fit)
    data, hyper = build(s, case, detail)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        outcome = run(s, data, **hyper)
    named = _named(s, case, detail) if case in ("k_gt_n", "invalid_hyper", "non_bool_flag") else None
    _check(f"{fit}/{case}", expectation(fit, case), outcome, caught, data.X, named)


def _estimator_expectation(name: str, case: str):
    doc = DOCUMENTED_RESULTS.get((name, case))
    if doc is not None:
        return doc[0]
    if case in ("k_gt_n", "invalid_hyper"):
        return ("raises", (ValueError, TypeError), None)
    if case == "non_bool_flag":
        return NON_BOOL_FLAG
    exc, pattern = ESTIMATOR_RAISES[case]
    return ("raises", exc, pattern)


@pytest.mark.parametrize("name,case,detail",
                         _cells(estimator_cases(), set(estimator_cases(False)).__contains__),
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
              f"({len(run_now)} in the fast tier; {len(full) - len(run_now)} compute cells of fits outside "
              f"COMPUTE_SUBSET in the full tier); {len(estimator_names()) - len(EXCLUDED_ESTIMATORS)} "
              f"estimators x {len(ESTIMATOR_CASES)} cases = {len(estimator_cases())} applicable cells "
              f"({len(estimator_cases(False))} in the fast tier); "
              f"{len(DOCUMENTED_RESULTS)} documented results; excluded: "
              f"{sorted(EXCLUDED_FITS) + sorted(EXCLUDED_ESTIMATORS)}")
    assert len(run_now) > 0 and len(full) >= len(run_now)
