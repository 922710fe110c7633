"""scikit-learn's estimator checks over every registered estimator.

Every class in ``jaxclassic.estimators.__all__`` is instantiated with its defaults (or the
arguments in ``CHECK_PARAMS``) and run through
``sklearn.utils.estimator_checks.parametrize_with_checks``. Any check an estimator cannot
pass is listed in ``EXPECTED_FAILED_CHECKS`` below, with its reason: this is the one place.
"""

import pytest

pytest.importorskip("sklearn")

from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

import jaxclassic.estimators as est  # noqa: E402

#: constructor arguments used for the checks where the defaults would be slow
CHECK_PARAMS: dict[str, dict] = {
}

#: estimator name -> {check name: reason}. Keep every entry justified.
EXPECTED_FAILED_CHECKS: dict[str, dict[str, str]] = {
}


def _instances():
    out = []
    for name in est.__all__:
        cls = getattr(est, name)
        out.append(cls(**CHECK_PARAMS.get(name, {})))
    return out


def _expected_failed(estimator):
    return EXPECTED_FAILED_CHECKS.get(type(estimator).__name__, {})


if est.__all__:

    @parametrize_with_checks(_instances(), expected_failed_checks=_expected_failed)
    def test_sklearn_compatible(estimator, check):
        check(estimator)
