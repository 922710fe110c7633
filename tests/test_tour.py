"""The tour: every family module yields rows whose jaxclassic value is finite, and the table prints."""

import math

import pytest

from jaxclassic.tour import TourRow, discover, format_table, timed


def test_every_family_registered():
    assert {"linear_regression", "lasso_selection", "classification_linear", "discriminant",
            "model_selection"} <= set(discover())


@pytest.mark.full
@pytest.mark.parametrize("family", ["linear_regression", "discriminant"])
def test_tour_rows_match_sklearn(family):
    import importlib

    rows = importlib.import_module(f"jaxclassic.tour.{family}").rows()
    assert rows and all(isinstance(r, TourRow) for r in rows)
    for r in rows:
        assert math.isfinite(r.ours)
        # same data, same model: our figure equals scikit-learn's to float32 rounding; SGD runs
        # differ in their schedules and sampling, so only closeness is asked of them
        tol = 2e-2 if r.model.startswith("SGD") else 2e-3
        assert r.sklearn is not None and abs(r.ours - r.sklearn) <= tol * max(1.0, abs(r.sklearn)), r
    assert format_table(rows).count("\n") == len(rows) + 1


def test_timed_excludes_compilation():
    calls = []
    out, seconds = timed(lambda: calls.append(1) or 3)
    assert out == 3 and len(calls) == 2 and seconds >= 0


def test_run_tour_rejects_unknown_family():
    from jaxclassic.tour import run_tour

    with pytest.raises(ValueError, match="unknown tour family 'nope'; known families: .*linear_regression"):
        run_tour(["nope"], echo=lambda _: None)


def test_run_tour_without_sklearn_raises_what_to_install(monkeypatch):
    import sys

    from jaxclassic.tour import run_tour

    monkeypatch.setitem(sys.modules, "sklearn", None)  # ``import sklearn`` now fails
    printed = []
    with pytest.raises(ImportError, match=r"pip install 'jaxclassic\[sklearn\]'"):
        run_tour(["linear_regression"], echo=printed.append)
    assert printed == []
