"""The graphical-models tour: its rows are finite and equal their references."""

import math
from fractions import Fraction

import pytest

pytest.importorskip("sklearn")

from jaxclassic.tour import TourRow, format_table  # noqa: E402
from jaxclassic.tour import graphical as tour_graphical  # noqa: E402

#: the tour's rows are checked here in the full tier (`make tour` runs them in the quick start)
pytestmark = pytest.mark.full


def test_bayes_net_rows_equal_mitchell_and_pgmpy():
    pytest.importorskip("pgmpy")
    rows = tour_graphical._bayes_net_rows()
    assert [r.dataset for r in rows] == ["play_tennis", "play_tennis"]
    for r in rows:
        assert isinstance(r, TourRow) and math.isfinite(r.ours) and r.sklearn is not None
        assert r.fit_seconds >= 0
    assert format_table(rows).count("\n") == len(rows) + 1
    # Mitchell §6.9.1 by hand, exact fractions: p(yes) prod p(a | yes) vs the same for no
    yes = Fraction(9, 14) * Fraction(2, 9) * Fraction(3, 9) * Fraction(3, 9) * Fraction(3, 9)
    no = Fraction(5, 14) * Fraction(3, 5) * Fraction(1, 5) * Fraction(4, 5) * Fraction(3, 5)
    assert rows[0].ours == pytest.approx(float(yes / (yes + no)), abs=1e-12)
    assert rows[0].ours == pytest.approx(rows[0].sklearn, abs=1e-10)  # pgmpy, float64 both
    # leave-one-out: our zero-weight folds = pgmpy's refits on 13 rows, fold by fold
    assert rows[1].ours == pytest.approx(rows[1].sklearn, abs=1e-12)


def test_hmm_rows_equal_hmmlearn():
    pytest.importorskip("hmmlearn")
    rows = tour_graphical._hmm_rows()
    assert [r.dataset for r in rows] == ["smarket", "smarket"]
    for r in rows:
        assert isinstance(r, TourRow) and math.isfinite(r.ours) and r.sklearn is not None
        assert r.fit_seconds >= 0
        # same start, same number of Baum-Welch iterations, float64: the same fit
        assert r.ours == pytest.approx(r.sklearn, abs=1e-8)
    assert format_table(rows).count("\n") == len(rows) + 1


def test_crf_row_is_close_to_crfsuite():
    pytest.importorskip("pycrfsuite")
    rows = tour_graphical._crf_rows()
    assert [r.dataset for r in rows] == ["conll2000_chunking"]
    (r,) = rows
    assert math.isfinite(r.ours) and r.sklearn is not None and r.fit_seconds >= 0
    # same features and c2 on 150 sentences: the two models differ (crfsuite weighs only the
    # attribute-label pairs seen in training and has no start/end weights), within 1.5 points
    assert abs(r.ours - r.sklearn) <= 0.015, r
    assert r.ours > 0.85
    assert format_table(rows).count("\n") == len(rows) + 1
