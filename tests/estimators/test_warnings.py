"""Warnings of the estimators speak the estimator's language (``C``, the class name), and
there is one ``ConvergenceWarning`` class: :class:`jaxclassic.exceptions.ConvergenceWarning`."""

import re
import warnings

import numpy as np
import pytest

pytest.importorskip("sklearn")

import jaxclassic.estimators as est  # noqa: E402
from jaxclassic.estimators import _base  # noqa: E402
from jaxclassic.exceptions import (  # noqa: E402
    ConvergenceWarning,
    PerfectSeparationWarning,
    RankDeficientWarning,
)

#: words of the core's vocabulary that an estimator user never typed
CORE_WORDS = re.compile(r"\bl2\b|\bfit_[a-z]+")


def _record(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn()
    return caught


def _separable(n_classes=2):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 2))
    y = np.argmax(np.c_[X[:, 0], -X[:, 0], X[:, 1] * 0.01][:, :n_classes], axis=1)
    return X, y


def _overlapping(n_classes=2):
    rng = np.random.default_rng(1)
    X = rng.standard_normal((60, 3))
    y = rng.integers(0, n_classes, 60)
    return X, y


@pytest.mark.parametrize("make", [
    lambda: est.LogisticRegression(C=np.inf),
    lambda: est.LogisticRegression(penalty=None),
    lambda: est.SoftmaxRegression(C=np.inf),
])
@pytest.mark.full
def test_separation_warning_speaks_of_C(make):
    X, y = _separable()
    caught = [w for w in _record(lambda: make().fit(X, y))
              if issubclass(w.category, PerfectSeparationWarning)]
    assert caught, "separable data without a penalty must warn"
    for w in caught:
        text = str(w.message)
        assert not CORE_WORDS.search(text), text
        assert type(make()).__name__ in text and "C" in text
        assert w.filename == __file__  # points at the user's call, not inside the package


@pytest.mark.parametrize("make, n_classes", [
    (lambda: est.LogisticRegression(max_iter=1), 2),
    (lambda: est.LogisticRegression(max_iter=1), 3),
    (lambda: est.SoftmaxRegression(max_iter=1), 3),
])
@pytest.mark.full
def test_convergence_warning_speaks_of_C(make, n_classes):
    X, y = _overlapping(n_classes)
    caught = [w for w in _record(lambda: make().fit(X, y))
              if issubclass(w.category, ConvergenceWarning)]
    assert caught
    for w in caught:
        text = str(w.message)
        assert not CORE_WORDS.search(text), text
        assert text.startswith(type(make()).__name__)
        assert "lower C" in text  # the core said "add l2"


def test_rank_deficiency_warnings_name_the_estimator():
    X = np.c_[np.arange(10.0), np.arange(10.0)]  # two equal columns
    y = np.arange(10.0)
    for model in (est.LinearRegression(), est.Ridge(alpha=0.0)):
        caught = [w for w in _record(lambda: model.fit(X, y))
                  if issubclass(w.category, RankDeficientWarning)]
        assert len(caught) == 1
        text = str(caught[0].message)
        assert f"{type(model).__name__} returns" in text and not CORE_WORDS.search(text), text


def test_lasso_raises_the_package_convergence_warning():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((30, 5))
    y = X @ np.arange(5.0)
    with pytest.warns(ConvergenceWarning, match="Lasso did not converge"):
        est.Lasso(alpha=1e-3, max_iter=1, tol=1e-12).fit(X, y)


@pytest.mark.full
def test_package_convergence_warning_is_scikit_learns():
    from sklearn.exceptions import ConvergenceWarning as SkConvergenceWarning

    assert issubclass(ConvergenceWarning, SkConvergenceWarning)
    with warnings.catch_warnings():  # scikit-learn's filter silences ours
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", category=SkConvergenceWarning)
        est.LogisticRegression(max_iter=1).fit(*_overlapping())


def test_user_filters_still_apply():
    X, y = _overlapping()
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        with pytest.raises(ConvergenceWarning, match="LogisticRegression"):
            est.LogisticRegression(max_iter=1).fit(X, y)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("ignore", ConvergenceWarning)
        est.LogisticRegression(max_iter=1).fit(X, y)
    assert not [w for w in caught if issubclass(w.category, ConvergenceWarning)]


class _Fitted:
    _warning_vocabulary = _base.C_VOCABULARY

    def __init__(self, dtype):
        self._fit_dtype = dtype


@pytest.mark.parametrize("dtype, forced, advice", [
    (np.float64, False, "Loosen tol."),
    (np.float32, False, "Pass X as float64 or loosen tol."),
    (np.float32, True, "set_config(dtype='auto')"),
])
def test_float64_advice_depends_on_the_compute_dtype(dtype, forced, advice):
    core = ("fit_logistic(method='newton'): stopped after 7 iterations at gradient norm 1e-06 "
            "> tol: the objective cannot be decreased further in float64 (rounding floor, or "
            "a refused line-search step). Use float64 or loosen tol.")
    with est.config_context(dtype="float32" if forced else "auto"):
        text = _base.translate_warning(_Fitted(dtype), core)
    assert text.startswith("_Fitted: stopped") and advice in text, text
    if dtype == np.float64:
        assert "Use float64" not in text and "Pass X as float64" not in text
