"""Estimator base: shape buckets, zero-weight padding, label encoding."""

import numpy as np
import pytest

from jaxclassic.estimators import _base


@pytest.mark.parametrize("n, bucket", [(1, 32), (32, 32), (33, 64), (100, 128), (1024, 1024), (1025, 2048)])
def test_bucket_size(n, bucket):
    assert _base.bucket_size(n) == bucket


def test_pad_rows_appends_zero_weight_rows():
    X = np.arange(6.0).reshape(3, 2)
    y = np.array([1.0, 2.0, 3.0])
    Xp, yp, sw = _base.pad_rows(X, y, np.ones(3), 8)
    assert Xp.shape == (8, 2) and yp.shape == (8,) and sw.shape == (8,)
    np.testing.assert_array_equal(Xp[:3], X)
    np.testing.assert_array_equal(sw, [1, 1, 1, 0, 0, 0, 0, 0])
    assert _base.pad_rows(X, y, np.ones(3), 3)[0] is X


def test_encode_labels_strings_and_single_class():
    class Dummy:
        pass

    d = Dummy()
    codes = _base.encode_labels(d, np.array(["b", "a", "b", "c"]))
    np.testing.assert_array_equal(d.classes_, ["a", "b", "c"])
    np.testing.assert_array_equal(codes, [1, 0, 1, 2])
    with pytest.raises(ValueError, match="at least 2 classes, got 1"):
        _base.encode_labels(Dummy(), np.array([3, 3, 3]))
    with pytest.raises(ValueError, match="Unknown label type"):
        _base.encode_labels(Dummy(), np.array([0.5, 1.5, 2.25]))
