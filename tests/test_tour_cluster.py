"""The clustering tour: its rows are finite and print; k-means reaches scikit-learn's optimum
on iris and wine (the same inertia to 1e-6: both runs converge to the same partition), and
the agglomerative rows equal SciPy (same merges: the sum of heights to 1e-10, the same ARI)."""

import math

import pytest

pytest.importorskip("sklearn")

from jaxclassic.tour import TourRow, format_table  # noqa: E402
from jaxclassic.tour import cluster as tour_cluster  # noqa: E402

#: the tour's rows are checked here in the full tier (`make tour` runs them in the quick start)
pytestmark = pytest.mark.full


@pytest.fixture(scope="module")
def rows():
    return tour_cluster.rows()


def _row(rows, model_start, dataset, metric):
    (row,) = [r for r in rows if r.model.startswith(model_start) and r.dataset == dataset and r.metric == metric]
    return row


def test_rows_are_finite_and_print(rows):
    assert len(rows) >= 8
    for r in rows:
        assert isinstance(r, TourRow) and math.isfinite(r.ours) and r.sklearn is not None
        assert r.fit_seconds >= 0
    assert format_table(rows).count("\n") == len(rows) + 1


@pytest.mark.parametrize("dataset", ["iris", "wine"])
def test_kmeans_reaches_sklearns_optimum(rows, dataset):
    inertia = _row(rows, "k-means", dataset, "inertia")
    assert inertia.ours == pytest.approx(inertia.sklearn, rel=1e-6)
    ari = _row(rows, "k-means", dataset, "ARI vs classes")
    assert ari.ours == pytest.approx(ari.sklearn, abs=1e-12)


@pytest.mark.parametrize("dataset", ["wine", "breast_cancer"])
def test_agglomerative_equals_scipy(rows, dataset):
    heights = _row(rows, "agglomerative", dataset, "sum of merge heights")
    assert heights.ours == pytest.approx(heights.sklearn, rel=1e-10)
    ari = _row(rows, "agglomerative", dataset, "ARI vs classes")
    assert ari.ours == pytest.approx(ari.sklearn, abs=1e-12)
