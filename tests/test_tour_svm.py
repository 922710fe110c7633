"""The SVM tour: its rows are finite and print, and each equals scikit-learn's figure (the same
QP solved to the same tolerance: equal support sets and predictions on these splits)."""

import math

import pytest

pytest.importorskip("sklearn")

from jaxclassic.tour import TourRow, format_table  # noqa: E402
from jaxclassic.tour import svm as tour_svm  # noqa: E402

#: the tour's rows are checked here in the full tier (`make tour` runs them in the quick start)
pytestmark = pytest.mark.full


@pytest.fixture(scope="module")
def rows():
    return tour_svm.rows()


def test_rows_are_finite_and_print(rows):
    assert [r.dataset for r in rows][:3] == ["breast_cancer", "wine", "diabetes"]
    for r in rows:
        assert isinstance(r, TourRow) and math.isfinite(r.ours) and r.sklearn is not None
        assert r.fit_seconds >= 0
    assert format_table(rows).count("\n") == len(rows) + 1


def test_kernel_rows_equal_sklearn(rows):
    # accuracies: the same predictions on the test rows; R^2: predictions to ~1e-4 (tol 1e-3)
    for r in rows[:2]:
        assert r.ours == pytest.approx(r.sklearn, abs=1e-12), r
    assert rows[2].ours == pytest.approx(rows[2].sklearn, abs=1e-3), rows[2]


def test_linear_row_is_close_to_sklearn(rows):
    linear = [r for r in rows if r.model.startswith("linear SVM")]
    for r in linear:  # LIBLINEAR's optimum (strongly convex primal): the same test accuracy within a row
        assert abs(r.ours - r.sklearn) <= 1 / 171 + 1e-12, r
