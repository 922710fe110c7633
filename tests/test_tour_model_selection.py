"""The model-selection tour: its rows are finite, the grid searches equal scikit-learn's
GridSearchCV on the same folds, and the CV score tuned by its gradient reaches the grid's best."""

import math

import pytest

pytest.importorskip("sklearn")

from jaxclassic.tour import TourRow, format_table  # noqa: E402
from jaxclassic.tour import model_selection as tour_model_selection  # noqa: E402

#: the tour's rows are checked here in the full tier (`make tour` runs them in the quick start)
pytestmark = pytest.mark.full


@pytest.fixture(scope="module")
def rows():
    return {r.model: r for r in tour_model_selection.rows()}


def test_rows_are_finite_and_print(rows):
    for r in rows.values():
        assert isinstance(r, TourRow) and math.isfinite(r.ours) and r.sklearn is not None
        assert r.fit_seconds >= 0
    assert format_table(list(rows.values())).count("\n") == len(rows) + 1


def test_grid_rows_equal_sklearn(rows):
    # same folds, same grid, same objective: ridge is a closed form on both sides; scikit-learn's
    # lbfgs stops at its tol=1e-4 on the gradient (measured: CV log-loss 1.2e-3 apart), our
    # Newton at machine precision
    ridge = rows["Ridge 10-fold grid (30 alpha)"]
    assert ridge.ours == pytest.approx(ridge.sklearn, rel=1e-6), ridge
    logistic = rows["Logistic 10-fold grid (10 l2)"]
    assert logistic.ours == pytest.approx(logistic.sklearn, rel=3e-3), logistic


def test_tuned_rows_reach_the_grid_optimum(rows):
    # a continuous optimum scores at least the best of the grid points, up to the CV score's
    # change over one grid step near the optimum (about 1e-4 relative on diabetes; the
    # logistic grid has 2 points a decade, and scikit-learn's lbfgs stops at tol=1e-4)
    r = rows["Ridge alpha by CV gradient (10 steps)"]
    assert r.ours <= r.sklearn * (1 + 1e-4), r
    r = rows["Logistic l2 by CV gradient (8 steps)"]
    assert r.ours <= r.sklearn * (1 + 3e-3), r
