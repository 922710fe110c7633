"""The ensemble tour: its rows are finite and print, and each jaxclassic figure is close to
its reference on the same split (different bootstraps, quantile bins and tie-breaks move a
few test rows: margins stated per row)."""

import math

import pytest

pytest.importorskip("sklearn")

from jaxclassic.tour import TourRow, format_table  # noqa: E402
from jaxclassic.tour import ensemble as tour_ensemble  # noqa: E402

#: the tour's rows are checked here in the full tier (`make tour` runs them in the quick start)
pytestmark = pytest.mark.full


@pytest.fixture(scope="module")
def rows():
    return tour_ensemble.rows()


def test_rows_are_finite_and_print(rows):
    assert [r.dataset for r in rows] == ["breast_cancer", "breast_cancer", "breast_cancer", "diabetes",
                                         "wine", "wine"]
    for r in rows:
        assert isinstance(r, TourRow) and math.isfinite(r.ours) and r.sklearn is not None
        assert r.fit_seconds >= 0
    assert format_table(rows).count("\n") == len(rows) + 1


def test_rows_are_close_to_the_references(rows):
    # breast cancer: within 0.04 (7 of 171 test rows); wine: within 0.08 (4 of 54 rows: the
    # member trees break ties in the gain differently, which alone moves scikit-learn's own
    # soft vote over 0.89-1.0 and its tree over 0.85-0.96 across random_state 0-9; ours: 0.93
    # and 0.89); diabetes R^2 within 0.05 (quantile bins vs exact splits; both near 0.28)
    margins = {"breast_cancer": 0.04, "wine": 0.08, "diabetes": 0.05}
    for r in rows:
        assert abs(r.ours - r.sklearn) <= margins[r.dataset], r
        assert r.ours > (0.2 if r.dataset == "diabetes" else 0.9), r
