"""The neighbours tour: its rows are finite and, both sides being exact searches on the same
rows, equal scikit-learn's figures (k-NN accuracy, CV accuracy, R^2 to 1e-9; the KDE's
held-out log-likelihood to 1e-6: the same bandwidth chosen from the same grid and folds)."""

import math

import pytest

pytest.importorskip("sklearn")

from jaxclassic.tour import TourRow, format_table  # noqa: E402
from jaxclassic.tour import neighbors as tour_neighbors  # noqa: E402

#: the tour's rows are checked here in the full tier (`make tour` runs them in the quick start)
pytestmark = pytest.mark.full


@pytest.fixture(scope="module")
def rows():
    return tour_neighbors.rows()


def test_rows_are_finite_and_print(rows):
    assert [r.dataset for r in rows] == ["iris", "breast_cancer", "digits", "breast_cancer",
                                         "diabetes", "iris"]
    for r in rows:
        assert isinstance(r, TourRow) and math.isfinite(r.ours) and r.sklearn is not None
        assert r.fit_seconds >= 0
    assert format_table(rows).count("\n") == len(rows) + 1


def test_knn_rows_equal_sklearn(rows):
    # no ties at the 5th / 10th neighbour on these splits: the same neighbours, the same votes
    for r in rows[:5]:
        assert r.ours == pytest.approx(r.sklearn, abs=1e-9), r


def test_kde_row_equals_sklearn(rows):
    assert rows[5].ours == pytest.approx(rows[5].sklearn, rel=1e-6)
