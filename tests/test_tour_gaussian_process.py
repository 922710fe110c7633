"""The Gaussian process tour: its rows are finite, print, and equal scikit-learn's at the same
optimum (R² to 1e-3: the optimisers stop at slightly different points; the maximised log
marginal likelihood at least scikit-learn's minus 1e-6)."""

import math

import pytest

pytest.importorskip("sklearn")

from jaxclassic.tour import TourRow, format_table  # noqa: E402
from jaxclassic.tour import gaussian_process as tour_gp  # noqa: E402

#: the tour's rows are checked here in the full tier (`make tour` runs them in the quick start)
pytestmark = pytest.mark.full


@pytest.fixture(scope="module")
def rows():
    return tour_gp.rows()


def test_rows_are_finite_and_print(rows):
    assert [r.metric for r in rows] == ["test R2", "log marginal likelihood"]
    for r in rows:
        assert isinstance(r, TourRow) and math.isfinite(r.ours) and r.sklearn is not None
        assert r.fit_seconds >= 0
    assert format_table(rows).count("\n") == len(rows) + 1


def test_rows_equal_sklearn_at_the_same_optimum(rows):
    r2, lml = rows
    assert r2.ours == pytest.approx(r2.sklearn, abs=1e-3)
    assert lml.ours >= lml.sklearn - 1e-6
