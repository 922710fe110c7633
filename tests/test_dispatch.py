"""The one package-wide registry: every family's registration is reachable from ``_dispatch``."""

from typing import NamedTuple

import jax.numpy as jnp
import numpy as np
import pytest

from jaxclassic import _dispatch
from jaxclassic._dispatch import Dispatcher


class _P(NamedTuple):
    x: float


class _Q(NamedTuple):
    x: float


def test_family_registration_reaches_the_package_wide_table():
    family = Dispatcher("zz_test_name")
    family.register(_P, lambda p, z: p.x + z)
    wide = Dispatcher("zz_test_name", package_wide=True)
    assert wide(_P(1.0), 2.0) == 3.0
    assert _P in _dispatch.registered("zz_test_name")
    # a family dispatcher sees only its own registrations
    other = Dispatcher("zz_test_name")
    assert not other.supports(_P)
    with pytest.raises(TypeError, match="zz_test_name does not support params of type _Q"):
        wide(_Q(1.0), 2.0)


@pytest.mark.full
def test_package_wide_predict_equals_each_family_predict():
    from jaxclassic import discriminant, linear, tree

    rng = np.random.default_rng(0)
    X = jnp.asarray(rng.normal(size=(40, 3)))
    y = (X[:, 0] + 0.3 * rng.normal(size=40) > 0).astype(jnp.int32)
    cases = [
        (linear, linear.fit_ridge(X, y.astype(X.dtype), alpha=1.0)),
        (linear, linear.fit_logistic(X, y, l2=1.0)),
        (discriminant, discriminant.fit_lda(X, y)),
        (tree, tree.fit_cart(X, y, max_depth=2, n_bins=16)),
    ]
    for family, params in cases:
        np.testing.assert_array_equal(_dispatch.predict(params, X), family.predict(params, X))
        if _dispatch.predict_proba.supports(params):
            np.testing.assert_array_equal(_dispatch.predict_proba(params, X),
                                          family.predict_proba(params, X))
    assert _dispatch.predict_proba.supports(cases[1][1]) and not _dispatch.predict_proba.supports(cases[0][1])
