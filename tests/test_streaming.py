"""Tests of jaxclassic/streaming/ (fits from row blocks, issue 15).

References: each streaming fit equals the in-memory fit of the same package on the same rows
(float64, which x64 in conftest.py turns on: the same formulas, so the differences are
rounding — observed 1e-13 — and the tolerance is 1e-9 relative); the Chan merge equals the
two-pass moments of numpy in float64; float32 moments of a column of mean 1e4 equal numpy's
float64 variance to 1e-3 relative (the textbook sum of squares loses every digit there).

Shapes are shared (150 x 4 rows, 64-row pieces, so the last piece is padded) so every jitted
per-piece function compiles once for the whole file.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxclassic import cluster, discriminant, linear, streaming
from jaxclassic.exceptions import PerfectSeparationWarning
from jaxclassic.streaming import _blocks

RNG = np.random.default_rng(0)
N, D, CHUNK = 150, 4, 64
X = RNG.normal(size=(N, D)) * [1.0, 10.0, 0.1, 1.0] + [0.0, 1e3, 0.0, 5.0]
Y = X @ np.array([1.0, 0.2, -3.0, 0.5]) + RNG.normal(size=N)
W = RNG.uniform(0.2, 2.0, N)
C3 = ((X[:, 0] + RNG.normal(size=N) > 0).astype(int) + (X[:, 3] > 5)).astype(np.int32)
C2 = (C3 > 0).astype(np.int32)
# three well-separated blobs for the clustering fits
XB = np.r_[RNG.normal(size=(50, D)), RNG.normal(size=(50, D)) + 4, RNG.normal(size=(50, D)) - 4]
SEEDS = XB[[0, 60, 120]] + 0.5

RTOL = 1e-9  # float64, same formulas: observed differences ~1e-13


def _close(a, b, rtol=RTOL):
    for p, q in zip(a, b):
        p, q = np.asarray(p, float), np.asarray(q, float)
        finite = np.isfinite(q)
        np.testing.assert_array_equal(np.isfinite(p), finite)
        np.testing.assert_allclose(p[finite], q[finite], rtol=rtol, atol=rtol * max(1.0, np.abs(q[finite]).max(initial=0)))


def _blocks_of(X, y, w, sizes):
    """A generator of (X, y, w) blocks of the given sizes (a one-shot iterator)."""
    start = 0
    for size in sizes:
        yield X[start:start + size], None if y is None else y[start:start + size], \
            None if w is None else w[start:start + size]
        start += size


# ----------------------------------------------------------------------------- moments
def test_chan_merge_equals_two_pass_moments():
    # reference: numpy's weighted mean and centred scatter of all rows at once (float64)
    Z = np.c_[X, Y]
    state = _blocks.empty_moments(1, D + 1, True, jnp.float64)
    for part in np.array_split(np.arange(N), 3):
        state = _blocks.update_moments(state, Z[part], np.zeros(len(part), np.int32), W[part],
                                       n_groups=1, full=True)
    mean = W @ Z / W.sum()
    scatter = (Z - mean).T @ ((Z - mean) * W[:, None])
    np.testing.assert_allclose(state.count[0], W.sum(), rtol=1e-13)
    np.testing.assert_allclose(state.mean[0], mean, rtol=1e-12)
    np.testing.assert_allclose(state.scatter[0], scatter, rtol=1e-10, atol=1e-8)


def test_float32_moments_avoid_cancellation():
    # column of mean 1e4 and sd 1: sum(x^2) - n mean^2 in float32 has error ~ n * 1e8 * 6e-8
    x = (1e4 + RNG.normal(size=(N, 1))).astype(np.float32)
    moments = streaming.class_moments(x, np.zeros(N, np.int32) + (np.arange(N) % 2), n_classes=2,
                                      full=False, chunk_rows=CHUNK)
    assert moments.scatter.dtype == jnp.float32
    for k in range(2):
        rows = x[np.arange(N) % 2 == k, 0].astype(np.float64)
        np.testing.assert_allclose(float(moments.scatter[k, 0]) / len(rows), rows.var(), rtol=1e-3)


def test_pseudo_sample_has_the_moments():
    moments = streaming.class_moments(X, C3, n_classes=3, full=True, sample_weight=W, chunk_rows=CHUNK)
    Z, groups, w = _blocks.pseudo_sample(moments)
    for k in range(3):
        rows, wk = Z[groups == k], w[groups == k]
        mean = wk @ rows / wk.sum()
        np.testing.assert_allclose(wk.sum(), moments.count[k], rtol=1e-12)
        np.testing.assert_allclose(mean, moments.mean[k], rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose((rows - mean).T @ ((rows - mean) * wk[:, None]), moments.scatter[k],
                                   rtol=1e-9, atol=1e-9 * np.abs(moments.scatter[k]).max())


# ----------------------------------------------------------------------------- least squares
@pytest.mark.full
def test_ridge_equals_in_memory_fit():
    _close(streaming.fit_ridge(X, Y, alpha=2.0, sample_weight=W, chunk_rows=CHUNK),
           linear.fit_ridge(X, Y, alpha=2.0, sample_weight=W))


def test_ols_from_memmap_equals_in_memory_fit(tmp_path):
    np.save(tmp_path / "X.npy", X)
    np.save(tmp_path / "y.npy", Y)
    Xm = np.load(tmp_path / "X.npy", mmap_mode="r")
    ym = np.load(tmp_path / "y.npy", mmap_mode="r")
    assert isinstance(Xm, np.memmap)
    _close(streaming.fit_ols(Xm, ym, chunk_rows=CHUNK), linear.fit_ols(X, Y))


def test_ridge_from_iterator_of_blocks():
    # blocks of uneven sizes: 100 is cut into 64 + 36; every piece padded to 64 rows
    blocks = _blocks_of(X, Y, W, [30, 100, 20])
    _close(streaming.fit_ridge(blocks, alpha=2.0, chunk_rows=CHUNK),
           linear.fit_ridge(X, Y, alpha=2.0, sample_weight=W))


def test_zero_weight_rows_have_no_influence():
    extra = 40
    Xz = np.r_[X, RNG.normal(size=(extra, D)) * 1e3]
    Yz = np.r_[Y, RNG.normal(size=extra) * 1e3]
    Wz = np.r_[W, np.zeros(extra)]
    order = RNG.permutation(N + extra)
    _close(streaming.fit_ridge(Xz[order], Yz[order], alpha=2.0, sample_weight=Wz[order], chunk_rows=CHUNK),
           streaming.fit_ridge(X, Y, alpha=2.0, sample_weight=W, chunk_rows=CHUNK))


def test_one_compile_for_all_pieces():
    # a new piece shape (5 columns): the per-piece step compiles once for its 3 pieces, and a
    # second fit of the same shape does not compile again
    Z = np.c_[X, X[:, :1]]
    before = _blocks.update_moments._cache_size()
    streaming.least_squares_moments(Z, Y, chunk_rows=CHUNK)
    assert _blocks.update_moments._cache_size() == before + 1
    streaming.least_squares_moments(Z[::-1], Y, chunk_rows=CHUNK)
    assert _blocks.update_moments._cache_size() == before + 1


def test_progress_bar_gives_the_same_fit(capsys):
    pytest.importorskip("tqdm")
    a = streaming.fit_ridge(X, Y, alpha=2.0, chunk_rows=CHUNK, progress=True)
    assert "block" in capsys.readouterr().err
    _close(a, streaming.fit_ridge(X, Y, alpha=2.0, chunk_rows=CHUNK))


# ----------------------------------------------------------------------------- discriminant
def test_gaussian_nb_equals_in_memory_fit():
    _close(streaming.fit_gaussian_nb(X, C3, n_classes=3, sample_weight=W, chunk_rows=CHUNK),
           discriminant.fit_gaussian_nb(X, C3, n_classes=3, sample_weight=W))


def test_lda_from_blocks_equals_in_memory_fit():
    blocks = list(_blocks_of(X, C3, W, [64, 64, 22]))
    fitted = streaming.fit_lda(blocks, n_classes=3, shrinkage=0.1, chunk_rows=CHUNK)
    _close(fitted, discriminant.fit_lda(X, C3, n_classes=3, shrinkage=0.1, sample_weight=W))
    # the same params type: the in-memory predict works on it
    np.testing.assert_array_equal(discriminant.predict(fitted, X),
                                  discriminant.predict(discriminant.fit_lda(X, C3, n_classes=3, shrinkage=0.1,
                                                                            sample_weight=W), X))


# ----------------------------------------------------------------------------- iterative fits
@pytest.mark.full
def test_logistic_newton_equals_in_memory_fit():
    # both stop at ||grad J|| / sum(w) <= 1e-10 (different bases): the same optimum to ~1e-10
    source = lambda: _blocks_of(X, C2, W, [64, 64, 22])  # noqa: E731  (re-iterable: one pass a step)
    fitted = streaming.fit_logistic(source, l2=1.0, tol=1e-10, chunk_rows=CHUNK)
    reference = linear.fit_logistic(X, C2, l2=1.0, tol=1e-10, sample_weight=W)
    assert bool(fitted.converged) and not bool(fitted.separated)
    np.testing.assert_allclose(fitted.coef, reference.coef, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(fitted.intercept, reference.intercept, rtol=1e-8, atol=1e-10)


@pytest.mark.full
def test_kmeans_equals_in_memory_fit():
    fitted = streaming.fit_kmeans(XB, 3, init=SEEDS, sample_weight=W, chunk_rows=CHUNK, tol=0.0)
    reference = cluster.fit_kmeans(XB, 3, init=SEEDS, sample_weight=W, key=jax.random.key(0), tol=0.0)
    _close(fitted, reference)  # centres, labels, inertia, n_iter, converged
    # k-means++ on the first piece, from a list of blocks (re-iterable)
    seeded = streaming.fit_kmeans(list(_blocks_of(XB, None, W, [64, 64, 22])), 3,
                                  key=jax.random.key(1), chunk_rows=CHUNK)
    assert bool(seeded.converged) and seeded.labels.shape == (N,)


@pytest.mark.full
def test_gmm_equals_in_memory_fit():
    resp = np.eye(3)[((XB[:, None] - SEEDS[None]) ** 2).sum(-1).argmin(1)]
    fitted = streaming.fit_gmm(XB, 3, means_init=SEEDS, sample_weight=W, chunk_rows=CHUNK, tol=1e-8)
    reference = cluster.fit_gmm(XB, 3, init=resp, sample_weight=W, tol=1e-8)
    assert type(fitted) is type(reference)
    _close(fitted, reference)
    np.testing.assert_array_equal(cluster.predict(fitted, XB), cluster.predict(reference, XB))


# ----------------------------------------------------------------------------- bad input
def test_chunk_rows_below_one_raises():
    with pytest.raises(ValueError, match="chunk_rows must be >= 1, got 0"):
        streaming.fit_ridge(X, Y, alpha=1.0, chunk_rows=0)


def test_block_with_other_columns_raises():
    blocks = [(X[:50], Y[:50], None), (X[50:, :3], Y[50:], None)]
    with pytest.raises(ValueError, match="block 1: X has 3 columns, expected 4"):
        streaming.fit_ols(blocks, chunk_rows=CHUNK)


def test_nan_in_block_raises_naming_it():
    Xn = X.copy()
    Xn[120, 2] = np.nan
    with pytest.raises(ValueError, match="block 2: X contains 1 NaN"):
        streaming.fit_ols(list(_blocks_of(Xn, Y, None, [50, 50, 50])), chunk_rows=CHUNK)


def test_class_code_out_of_range_raises():
    with pytest.raises(ValueError, match=r"block 0: y holds class code\(s\) outside 0..1: \[2\]"):
        streaming.fit_gaussian_nb([(X, C3, None)], n_classes=2, chunk_rows=CHUNK)


def test_one_shot_iterator_refused_for_several_passes():
    with pytest.raises(TypeError, match="one-shot iterator"):
        streaming.fit_kmeans(_blocks_of(XB, None, None, [150]), 3, init=SEEDS, chunk_rows=CHUNK)


def test_all_zero_weights_raise():
    with pytest.raises(ValueError, match="sample_weight must have at least one positive value"):
        streaming.fit_ridge(X, Y, alpha=1.0, sample_weight=np.zeros(N), chunk_rows=CHUNK)


def test_y_and_blocks_together_raise():
    with pytest.raises(ValueError, match="y and sample_weight must be None"):
        streaming.fit_ols([(X, Y, None)], Y, chunk_rows=CHUNK)


@pytest.mark.full
def test_kmeans_relocates_empty_clusters_as_in_memory_fit():
    # a third seed far from every row gets no row at the first assignment: it is moved to the
    # farthest row (found across pieces), as the in-memory fit moves it
    seeds = np.r_[SEEDS[:2], np.full((1, D), 100.0)]
    fitted = streaming.fit_kmeans(XB, 3, init=seeds, sample_weight=W, chunk_rows=CHUNK, tol=0.0)
    reference = cluster.fit_kmeans(XB, 3, init=seeds, sample_weight=W, key=jax.random.key(0), tol=0.0)
    assert np.isfinite(np.asarray(fitted.cluster_centers)).all()
    assert len(np.unique(np.asarray(fitted.labels))) == 3
    _close(fitted, reference)


# ----------------------------------------------------------------------------- boosting
@pytest.mark.full
def test_gradient_boosting_over_codes_equals_in_memory_fit():
    from jaxclassic import ensemble
    from jaxclassic.tree import bin_features

    codes, edges = bin_features(X, 16, sample_weight=W)
    codes = np.asarray(codes)
    source = lambda: _blocks_of(codes, Y, W, [64, 64, 22])  # noqa: E731  (one pass per level)
    fitted = streaming.fit_gradient_boosting(source, bin_edges=edges, n_estimators=3, max_depth=3,
                                             chunk_rows=CHUNK)
    reference = ensemble.fit_gradient_boosting(X, Y, n_estimators=3, max_depth=3, n_bins=16, sample_weight=W)
    assert type(fitted) is type(reference)
    # every field but the raw thresholds: the streaming fit sees codes only, so a split point
    # is its bin edge; the in-memory fit has the values and puts it at scikit-learn's midpoint
    # of the node's adjacent values (issue 23.3). Both route every training row alike (below).
    nan = np.full(fitted.trees.threshold.shape, np.nan)
    _close(fitted.trees._replace(threshold=nan), reference.trees._replace(threshold=nan))
    _close(fitted[1:], reference[1:])  # init, learning rate, train loss, edges
    np.testing.assert_allclose(ensemble.predict(fitted, X), ensemble.predict(reference, X), rtol=RTOL, atol=RTOL)


@pytest.mark.full
def test_codes_out_of_range_raise():
    with pytest.raises(ValueError, match=r"block 0: codes must be in 0..16"):
        streaming.fit_gradient_boosting([(np.full((10, D), 17), Y[:10], None)],
                                        bin_edges=np.zeros((D, 15)), n_estimators=1, chunk_rows=CHUNK)


@pytest.mark.full
def test_logistic_stops_on_separable_data():
    # y = [x_0 > 0] is separated by the first column: no MLE without a penalty; the fit stops
    # at the first separating iterate, unconverged, as the in-memory fit does
    y = (X[:, 0] > 0).astype(np.int32)
    with pytest.warns(PerfectSeparationWarning, match="streaming.fit_logistic"):
        fitted = streaming.fit_logistic(X, y, chunk_rows=CHUNK, max_iter=50)
    assert bool(fitted.separated) and not bool(fitted.converged)
    assert int(fitted.n_iter) < 50
    with pytest.warns(PerfectSeparationWarning):
        reference = linear.fit_logistic(X, y, max_iter=50)
    assert bool(reference.separated) and not bool(reference.converged)


# ----------------------------------------------------------------------------- review (issue 15)
def test_pandas_input_equals_numpy_input():
    # a DataFrame used to be taken for an iterable of blocks (its column names); a Series with
    # a non-positional index must be read by position. Same shapes as above: no new compile.
    pd = pytest.importorskip("pandas")
    index = np.arange(N)[::-1] + 7
    fitted = streaming.fit_ridge(pd.DataFrame(X, index=index), pd.Series(Y, index=index), alpha=2.0,
                                 sample_weight=pd.Series(W, index=index), chunk_rows=CHUNK)
    _close(fitted, linear.fit_ridge(X, Y, alpha=2.0, sample_weight=W))


def test_gaussian_nb_from_blocks_of_one_class_each():
    # each block holds one class (rows sorted by class), all classes overall: the empty groups
    # of a block merge as neutral, and the fit equals the in-memory one
    order = np.argsort(C3, kind="stable")
    blocks = [(X[order][C3[order] == k], C3[order][C3[order] == k], W[order][C3[order] == k]) for k in range(3)]
    _close(streaming.fit_gaussian_nb(blocks, n_classes=3, chunk_rows=CHUNK),
           discriminant.fit_gaussian_nb(X, C3, n_classes=3, sample_weight=W))


def test_logistic_from_blocks_of_one_class_raises():
    # the in-memory fit refuses one class; from blocks the labels are only seen in the first
    # pass (it used to "converge" with the intercept run off to -14)
    with pytest.raises(ValueError, match=r"y must contain at least 2 classes, got 1 \(labels present: \[0\]\)"):
        streaming.fit_logistic([(X, np.zeros(N, np.int32), W)], chunk_rows=CHUNK)


@pytest.mark.full
def test_zero_weight_rows_of_huge_values_have_no_influence():
    # finite rows of weight 0 whose squares overflow (1e200 in float64, 1e20 in float32) made
    # the diagonal scatter 0 * inf = NaN: naive Bayes raised "X contains NaN", logistic
    # regression (its scaling pass) returned NaN coefficients silently
    W0 = W.copy()
    W0[::10] = 0.0
    Xh = X.copy()
    Xh[::10] = 1e200
    _close(streaming.fit_gaussian_nb(Xh, C3, n_classes=3, sample_weight=W0, chunk_rows=CHUNK),
           streaming.fit_gaussian_nb(X, C3, n_classes=3, sample_weight=W0, chunk_rows=CHUNK))
    _close(streaming.fit_logistic(Xh, C2, l2=1.0, sample_weight=W0, chunk_rows=CHUNK)[:2],
           streaming.fit_logistic(X, C2, l2=1.0, sample_weight=W0, chunk_rows=CHUNK)[:2])


@pytest.mark.parametrize("fit", [streaming.fit_kmeans, streaming.fit_gmm])
def test_kmeans_plus_plus_with_a_bad_key_raises_before_reading_the_data(fit):
    # the key used to be checked after a whole pass over the data (the mean pass); key=None is
    # jax.random.key(0) (issue 27), an int is refused
    calls = []

    def source():
        calls.append(1)
        return [XB]

    with pytest.raises(TypeError, match="key must be a jax.random key, got int 0"):
        fit(source, 3, key=0, chunk_rows=CHUNK)
    assert calls == []


def test_float32_ols_on_collinear_integer_columns():
    # x1 - x0 = 4i + 1 for x0 = (2i)^2, x1 = (2i+1)^2, so y = i = -x0/4 + x1/4 - 1/4 exactly
    # (closed form). Condition number ~1e5: float32 in-memory OLS is off by ~4e-5 relative;
    # the pseudo-sample's float32 eigendecomposition made the streaming fit 3.4e-4 off, its
    # float64 factor 5e-5. Tolerance 1.5e-4: three times the float32 error observed.
    i = np.arange(10)
    Xi = np.c_[(2 * i) ** 2, (2 * i + 1) ** 2].astype(np.float32)
    fitted = streaming.fit_ols(Xi, i.astype(np.float32), chunk_rows=4)
    assert fitted.coef.dtype == jnp.float32
    np.testing.assert_allclose(fitted.coef, [-0.25, 0.25], rtol=1.5e-4)


@pytest.mark.full
def test_cross_validation_by_fold_weights_equals_cross_validate_of_the_in_memory_fits():
    # The streaming fits are host loops over pieces (a lax.while_loop cannot re-read a file), so
    # they cannot be vmapped over fold weights and are not in tests/model_selection/_fits.py's
    # FIT_CASES; their cross-validation is a loop over the folds' weight vectors. Each fold's
    # streaming fit (training weights = fold * W) must give the validation score that
    # cross_validate computes, in one vmapped program, for the in-memory fit (in FIT_CASES).
    from jaxclassic.model_selection import (
        accuracy_scorer,
        cross_validate,
        kfold_weights,
        neg_mse_scorer,
    )

    folds = np.asarray(kfold_weights(N, 3, key=jax.random.key(0)))
    cases = [
        (streaming.fit_ridge, linear.fit_ridge, Y, {"alpha": 2.0}, neg_mse_scorer(linear.predict)),
        (streaming.fit_gaussian_nb, discriminant.fit_gaussian_nb, C3, {"n_classes": 3},
         accuracy_scorer(discriminant.predict)),
    ]
    for stream_fit, memory_fit, y, kwargs, score in cases:
        static = {k: v for k, v in kwargs.items() if k == "n_classes"}
        traced = {k: v for k, v in kwargs.items() if k != "n_classes"}
        ref = cross_validate(memory_fit, score, X, y, folds, hyperparameters=traced,
                             fit_kwargs=static, sample_weight=W)
        for k, fold in enumerate(folds):
            params = stream_fit(X, y, sample_weight=fold * W, chunk_rows=CHUNK, **kwargs)
            val = score(params, X, y, sample_weight=(1 - fold) * W)
            np.testing.assert_allclose(val, ref.fold_scores[k], rtol=RTOL, atol=RTOL)
