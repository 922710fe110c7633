"""Feature-scaling equivariance: OLS coefficients scale inversely, LDA / standardised ridge
respond alike, trees' partitions survive monotone transforms of a feature, k-means labels
survive a uniform rescaling and shift. Data are 24 x 3 (``_cases``): each fit compiles once.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from jaxclassic import cluster, discriminant, linear, tree
from tests.properties._cases import FAST, N_CLASSES, N_FEATURES, make_data, seeds

column_scales = st.lists(st.sampled_from([1e-3, 0.1, 0.5, 2.0, 10.0, 1e3]),
                         min_size=N_FEATURES, max_size=N_FEATURES).map(np.asarray)


@FAST
@given(seed=seeds, scales=column_scales)
def test_ols_coefficients_scale_inversely(seed, scales):
    """Columns ``x_j -> c_j x_j``: ``coef_j -> coef_j / c_j``, the intercept and predictions
    unchanged (the least-squares fit is equivariant under any invertible column map). rtol
    1e-8: float64 least squares on a well-conditioned 24 x 3 problem, the scales up to 1e3
    multiplying the condition number by at most 1e6."""
    X, y, X_test = make_data(seed, "regression")
    a = linear.fit_ols(jnp.asarray(X), jnp.asarray(y))
    b = linear.fit_ols(jnp.asarray(X * scales), jnp.asarray(y))
    np.testing.assert_allclose(np.asarray(b.coef) * scales, np.asarray(a.coef), rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(float(b.intercept), float(a.intercept), rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(np.asarray(linear.predict(b, X_test * scales)),
                               np.asarray(linear.predict(a, X_test)), rtol=1e-8, atol=1e-10)


@FAST
@given(seed=seeds, scales=column_scales, shift=st.floats(-100, 100))
def test_standardised_ridge_and_lda_are_scale_invariant(seed, scales, shift):
    """Ridge with ``standardize=True`` penalises the standardised coefficients, and LDA is
    affine invariant: both predict the same after ``x_j -> c_j x_j + shift``. rtol 1e-7
    (float64; the shift of 100 costs ~4 digits in the centring of the 1e-3 columns)."""
    X, y, X_test = make_data(seed, "regression")
    Xs, X_test_s = X * scales + shift, X_test * scales + shift
    a = linear.fit_ridge(jnp.asarray(X), jnp.asarray(y), alpha=0.7, standardize=True)
    b = linear.fit_ridge(jnp.asarray(Xs), jnp.asarray(y), alpha=0.7, standardize=True)
    np.testing.assert_allclose(np.asarray(linear.predict(b, X_test_s)),
                               np.asarray(linear.predict(a, X_test)), rtol=1e-7, atol=1e-8)
    Xc, yc, Xc_test = make_data(seed, "multiclass")
    a = discriminant.fit_lda(jnp.asarray(Xc), jnp.asarray(yc), n_classes=N_CLASSES)
    b = discriminant.fit_lda(jnp.asarray(Xc * scales + shift), jnp.asarray(yc), n_classes=N_CLASSES)
    np.testing.assert_allclose(np.asarray(discriminant.predict_proba(b, Xc_test * scales + shift)),
                               np.asarray(discriminant.predict_proba(a, Xc_test)), rtol=1e-6, atol=1e-8)


#: strictly increasing maps of a column (to each row's value)
MONOTONE = {
    "affine": lambda x: 1e3 * x - 5.0,
    "tiny": lambda x: 1e-6 * x,
    "cube": lambda x: x**3,
    "exp": np.exp,
    "arctan": np.arctan,
}


@FAST
@given(seed=seeds, maps=st.lists(st.sampled_from(sorted(MONOTONE)), min_size=N_FEATURES,
                                  max_size=N_FEATURES))
def test_tree_partition_unchanged_by_monotone_maps(seed, maps):
    """A strictly increasing map of each column keeps the order of the values, so the bins
    (exact here: 24 distinct values < 255 bins), the split gains and the partition of the
    training rows are the same: the training predictions are equal (exactly: the same rows
    in the same leaves)."""
    X, y, _ = make_data(seed, "multiclass")
    Xm = np.stack([MONOTONE[m](X[:, j]) for j, m in enumerate(maps)], axis=1)
    a = tree.fit_cart(jnp.asarray(X), jnp.asarray(y), max_depth=3, n_classes=N_CLASSES)
    b = tree.fit_cart(jnp.asarray(Xm), jnp.asarray(y), max_depth=3, n_classes=N_CLASSES)
    np.testing.assert_array_equal(np.asarray(tree.apply(b, jnp.asarray(Xm))),
                                  np.asarray(tree.apply(a, jnp.asarray(X))))
    np.testing.assert_array_equal(np.asarray(tree.predict_proba(b, jnp.asarray(Xm))),
                                  np.asarray(tree.predict_proba(a, jnp.asarray(X))))


@FAST
@given(seed=seeds, scale=st.sampled_from([1e-4, 0.5, 3.0, 1e4]), shift=st.floats(-10, 10))
def test_kmeans_labels_unchanged_by_uniform_scaling(seed, scale, shift):
    """``X -> c X + b`` (one ``c > 0`` for every column) scales every distance by ``c``: the
    same key gives the same k-means++ draws, Lloyd steps and labels, and centres ``c m + b``
    (rtol 1e-7: float64 rounding of the scaled distances)."""
    X, _, _ = make_data(seed, "multiclass")
    key = jax.random.key(seed % 1000)
    a = cluster.fit_kmeans(jnp.asarray(X), N_CLASSES, key=key)
    b = cluster.fit_kmeans(jnp.asarray(scale * X + shift), N_CLASSES, key=key)
    np.testing.assert_array_equal(np.asarray(b.labels), np.asarray(a.labels))
    np.testing.assert_allclose(np.asarray(b.cluster_centers), scale * np.asarray(a.cluster_centers) + shift,
                               rtol=1e-7, atol=1e-7 * (scale + abs(shift)))
