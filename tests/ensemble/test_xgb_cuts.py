"""Tests of jaxclassic/ensemble/_xgb_cuts.py: xgboost's cut points, and the XGBoost family's
parity with the xgboost package on continuous data (issue 23.4).

References: xgboost 3.2 itself. Cut points: ``QuantileDMatrix(X, max_bin=...).get_quantile_cut()``
(each feature's lower bound, then its cuts), compared bit for bit in float32 (the sign of a
zero cut aside: which of -0.0 and +0.0 xgboost keeps follows ``std::sort``'s unspecified
order, and no split can tell them apart). Models: ``xgboost.train`` / ``XGBRegressor`` /
``XGBClassifier`` with ``tree_method="hist"`` and the same hyperparameters; predictions of
*new* rows (continuous values between the training values, values exactly at a cut, the
float32 just below a cut, NaN) within ``1e-5``: xgboost and our float32 fits compute
``g``, ``h``, leaf weights and scores in float32 and differ in summation order (xgboost sums
in double), ~1e-7 relative per round, a few 1e-6 after 50 rounds for predictions of order 1.
``min_child_weight=10`` keeps nodes of a few rows out: there two features can cut the
same rows apart, an exact tie that float32 rounding breaks either way (module docstring
of :mod:`jaxclassic.ensemble.xgboost`, "Parity"). Shapes (2048 x 5) and settings are shared so
that the programs compile once.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import xgboost as xgb

from jaxclassic import ensemble, io
from jaxclassic.ensemble._xgb_cuts import _prune, _Summary, _unit_summary, left_bounds, sketch_cuts
from jaxclassic.estimators import XGBoostClassifier, XGBoostRegressor
from jaxclassic.tree.binning import apply_bins

N, F, N_NEW = 2048, 5, 600
KW = dict(n_estimators=50, max_depth=3, learning_rate=0.3, reg_lambda=1.0, min_child_weight=10.0, max_bin=256)
XGB = dict(tree_method="hist", n_jobs=1)
ATOL = 1e-5


def _bits(a):
    """float32 bit patterns, -0.0 read as +0.0."""
    return (np.asarray(a, np.float32) + np.float32(0)).view(np.uint32)


def _xgb_cuts(X, max_bin, weight=None):
    indptr, values = xgb.QuantileDMatrix(X, weight=weight, max_bin=max_bin).get_quantile_cut()
    return [values[indptr[j]:indptr[j + 1]] for j in range(X.shape[1])]


def _cut_data(kind):
    rng = np.random.default_rng(7)
    n = {"small": 100, "large": 20_000}.get(kind, 3000)
    X = rng.normal(size=(n, 3)) * np.array([1.0, 30.0, 1e-3])
    w = None
    if kind == "heavy":
        X = rng.standard_cauchy(size=(n, 3)) * rng.lognormal(0, 2, size=(n, 1))
    elif kind == "duplicates":
        X = np.round(X / X.std(0) * 20) / 20  # ~150 distinct values, -0.0 and +0.0 among them
    elif kind == "weights":
        w = rng.uniform(0.1, 3.0, n)
    elif kind == "int_weights_duplicates":
        X, w = np.round(X * 4) / 4, rng.integers(1, 5, n).astype(float)
    elif kind == "zero_weights":
        w = np.where(rng.random(n) < 0.3, 0.0, rng.uniform(0.5, 2.0, n))
    elif kind == "nan":
        X[rng.random(X.shape) < 0.2] = np.nan
        X[:, 2] = np.nan  # an empty column
    elif kind == "sorted":
        X = np.sort(X, axis=0)
    return X, w


# --------------------------------------------------------------------------- cut points
@pytest.mark.parametrize("max_bin", [16, 64, 256])
@pytest.mark.parametrize("kind", ["normal", "heavy", "duplicates", "weights", "int_weights_duplicates",
                                  "zero_weights", "nan", "sorted", "small", "large"])
@pytest.mark.full
def test_cut_points_equal_xgboosts_get_quantile_cut_bit_for_bit(kind, max_bin):
    X, w = _cut_data(kind)
    ours = sketch_cuts(X, max_bin, w)
    if kind == "zero_weights":  # ours: the rows of positive weight only (xgboost counts the rest in n)
        X, w = X[w > 0], w[w > 0]
    theirs = _xgb_cuts(X, max_bin, w)
    for j in range(X.shape[1]):
        assert ours[j].dtype == np.float32 and ours[j].shape == theirs[j].shape, (j, ours[j].shape, theirs[j].shape)
        np.testing.assert_array_equal(_bits(ours[j]), _bits(theirs[j]), err_msg=f"feature {j}")


def _without_repeats(rng, n, n_levels):
    """``n`` integer values among ``n_levels``, none equal to the one before it, so that every
    queue entry of the sketch is one row (equal consecutive rows would make one entry)."""
    return (np.cumsum(rng.integers(1, n_levels, n)) % n_levels).astype(np.float64)


@pytest.mark.parametrize("max_bin", [16, 256])
def test_cut_points_of_rows_of_weight_one_equal_xgboost(max_bin):
    """Rows of weight 1 and no repeated consecutive value (each queue summarised and pruned
    from its sorted positions): queues with many equal values, with fewer distinct values
    than a summary holds, and with almost none (continuous values); C- and Fortran-ordered
    input, weights given as ones, and integer weights (the weighted path); bit for bit."""
    rng = np.random.default_rng(11)
    n = 20_000
    X = np.stack([_without_repeats(rng, n, 3000), _without_repeats(rng, n, 150), rng.normal(size=n)], axis=1)
    assert (X.astype(np.float32)[1:] != X.astype(np.float32)[:-1]).all()
    w = rng.integers(1, 4, n).astype(float)
    theirs = _xgb_cuts(X, max_bin)
    cases = [(sketch_cuts(X, max_bin), theirs), (sketch_cuts(np.asfortranarray(X), max_bin), theirs),
             (sketch_cuts(X, max_bin, np.ones(n)), theirs), (sketch_cuts(X, max_bin, w), _xgb_cuts(X, max_bin, w))]
    for ours, expected in cases:
        for j in range(X.shape[1]):
            assert ours[j].shape == expected[j].shape, (j, ours[j].shape, expected[j].shape)
            np.testing.assert_array_equal(_bits(ours[j]), _bits(expected[j]), err_msg=f"feature {j}")


def _xgb_set_prune(summary, max_size):
    """xgboost's ``WQSummary::SetPrune`` (quantile.h) line by line, in float32 scalars."""
    rmin, rmax, wmin, value = summary
    size = value.size
    if size <= max_size:
        return summary
    f32 = np.float32
    begin, span, n = rmax[0], f32(rmin[-1] - rmax[0]), max_size - 1
    keep, i, last = [0], 1, 0
    for k in range(1, n):
        dx2 = f32(2) * ((f32(k) * span) / f32(n) + begin)
        while i < size - 1 and dx2 >= rmax[i + 1] + rmin[i + 1]:
            i += 1
        if i == size - 1:
            break
        j = i if dx2 < (rmin[i] + wmin[i]) + (rmax[i + 1] - wmin[i + 1]) else i + 1
        if j != last:
            keep.append(j)
            last = j
    if last != size - 1:
        keep.append(size - 1)
    return tuple(a[keep] for a in summary)


def _xgb_make_summary(value, weight):
    """xgboost's ``Queue::MakeSummary``: sorted distinct values, the float32 weight before
    each (summed one entry at a time) and with it."""
    order = np.argsort(value, kind="stable")
    v, w = value[order], weight[order]
    start = np.flatnonzero(np.r_[True, v[1:] != v[:-1]])
    wmin = np.array([np.cumsum(w[a:b], dtype=np.float32)[-1] for a, b in zip(start, np.r_[start[1:], v.size])],
                    np.float32)
    rmax = np.cumsum(wmin, dtype=np.float32)
    return np.r_[np.float32(0), rmax[:-1]].astype(np.float32), rmax, wmin, v[start]


def _assert_same_summary(ours, expected):
    """Bit for bit (a zero value's sign aside: it follows the sort's order of -0.0 and 0.0)."""
    for a, b in zip(ours, expected):
        assert a.dtype == np.float32 and a.shape == b.shape
        np.testing.assert_array_equal(_bits(a), _bits(b))


@pytest.mark.parametrize("kind", ["distinct", "few_equal", "many_equal", "signed_zeros"])
def test_prunes_equal_xgboosts_set_prune_loop(kind):
    """The pruned summary of a queue of weight-1 entries (computed from sorted positions) and
    the prune of a weighted summary (a merge of rank lists) equal xgboost's loop, for
    summary sizes from 1 to ~2x the target, targets from 1 up."""
    rng = np.random.default_rng(12)
    for size in (1, 2, 3, 57, 1282):
        value = {"distinct": rng.normal(size=size),
                 "few_equal": np.round(rng.normal(size=size) * 300),
                 "many_equal": rng.integers(0, 5, size),
                 "signed_zeros": rng.integers(-2, 3, size) * np.where(rng.random(size) < 0.5, 1.0, -1.0)}[kind]
        value = value.astype(np.float32)
        ones, weight = np.ones(size, np.float32), rng.uniform(0.1, 3.0, size).astype(np.float32)
        for max_size in (1, 2, 3, 10, 641, 2000):
            unit, weighted = _xgb_make_summary(value, ones), _xgb_make_summary(value, weight)
            _assert_same_summary(_unit_summary(value, max_size), _xgb_set_prune(unit, max_size))
            _assert_same_summary(_prune(_Summary(*weighted), max_size), _xgb_set_prune(weighted, max_size))


@pytest.mark.full
def test_fit_xgboost_bins_at_xgboosts_cuts(continuous):
    """The fitted bin edges are xgboost's cuts (as "x <= edge" bounds), and the training codes
    are xgboost's bins."""
    X, _, _, params = continuous["X"], None, None, continuous["ours"]
    edges = np.asarray(params.bin_edges)
    for j, cuts in enumerate(_xgb_cuts(X, KW["max_bin"])):
        inner = cuts[1:-1]  # no missing value: the cuts but the lower bound and the sentinel
        assert np.all(np.isinf(edges[j, inner.size:]))
        np.testing.assert_array_equal(np.nextafter(edges[j, :inner.size], np.float32(np.inf)), inner)
        bins = np.searchsorted(cuts[1:], X[:, j], side="right")  # xgboost: first cut > x
        codes = np.searchsorted(edges[j], X[:, j], side="left")  # ours: edges below x
        np.testing.assert_array_equal(codes, bins)


def test_left_bounds_route_as_xgboost_in_both_dtypes():
    """x <= left_bounds(c) iff float32(x) < c, for x at, around and between the float32s, in
    numpy and in XLA (whose CPU kernels flush subnormals to zero: a cut at 0 must not send 0
    left), for every x that is zero or normal in float32."""
    rng = np.random.default_rng(3)
    tiny = np.finfo(np.float32).tiny
    cuts = np.concatenate([rng.normal(size=200).astype(np.float32),
                           np.float32([0.0, -0.0, 1.0, tiny, -tiny, 2.0 ** -130, -(2.0 ** -130)])])
    below = np.nextafter(cuts, np.float32(-np.inf))
    t32, t64 = left_bounds(cuts, np.float32), left_bounds(cuts, np.float64)
    mid = (below.astype(np.float64) + cuts) / 2  # where rounding to float32 changes
    zeros = np.zeros_like(mid)
    xla_le = jax.jit(lambda x, t: x <= t)
    for x in (cuts, below, mid, np.nextafter(mid, np.inf), np.nextafter(mid, -np.inf), zeros, -zeros,
              zeros + tiny, zeros - tiny):
        xgb_left = x.astype(np.float32) < cuts
        np.testing.assert_array_equal(x.astype(np.float64) <= t64, xgb_left)
        x32 = x.astype(np.float32)
        ok = (x32 == 0) | (np.abs(x32) >= tiny)
        np.testing.assert_array_equal((x32 <= t32)[ok], xgb_left[ok])
        np.testing.assert_array_equal(np.asarray(xla_le(x32, t32))[ok], xgb_left[ok])


@pytest.mark.full
def test_a_cut_at_zero_bins_and_routes_zero_as_xgboost():
    """Values rounded to quarters (0.0 and -0.0 among them): XLA's codes of the training
    rows are xgboost's bins, and a fit predicts 0.0, -0.0 and the least normals as xgboost."""
    rng = np.random.default_rng(8)
    X = (np.round(rng.normal(size=(N, F)) * 4) / 4).astype(np.float32)
    y = (X[:, 0] + (X[:, 1] == 0) + 0.1 * rng.normal(size=N)).astype(np.float32)
    ours = ensemble.fit_xgboost(X, y, **KW)
    cuts = _xgb_cuts(X, KW["max_bin"])
    codes = np.asarray(jax.jit(apply_bins)(X, ours.bin_edges))
    for j in range(F):
        np.testing.assert_array_equal(codes[:, j], np.searchsorted(cuts[j][1:], X[:, j], side="right"))
    tiny = np.finfo(np.float32).tiny
    Z = np.repeat(X[:40], 4, axis=0)
    Z[:, 1] = np.tile(np.float32([0.0, -0.0, tiny, -tiny]), 40)
    theirs = xgb.XGBRegressor(**KW, **XGB).fit(X, y)
    np.testing.assert_allclose(np.asarray(ensemble.predict(ours, Z)), theirs.predict(Z), atol=ATOL)


# --------------------------------------------------------------------------- parity on new rows
def _continuous(n, seed, scale):
    rng = np.random.default_rng(seed)
    X = (rng.normal(size=(n, F)) * scale).astype(np.float32)
    y = X[:, 0] / scale[0] + 0.5 * (X[:, 1] / scale[1]) ** 2 - np.sin(2 * X[:, 2] / scale[2])
    return X, (y + 0.3 * rng.normal(size=n)).astype(np.float32)


def _new_rows(X, cuts, seed, nan):
    """Fresh continuous rows, then rows with one feature exactly at one of its cuts, at the
    float32 just below one, and (``nan``) missing."""
    rng = np.random.default_rng(seed)
    fresh = (rng.normal(size=(N_NEW, F)) * X.std(0)).astype(np.float32)
    at, below = fresh.copy(), fresh.copy()
    for j in range(F):
        pick = rng.choice(cuts[j][1:], N_NEW)
        rows = rng.random(N_NEW) < 0.4
        at[rows, j] = pick[rows]
        below[rows, j] = np.nextafter(pick[rows], np.float32(-np.inf))
    out = np.concatenate([fresh, at, below])
    if nan:
        out[rng.random(out.shape) < 0.1] = np.nan
    return out


@pytest.fixture(scope="module")
def continuous():
    scale = np.random.default_rng(0).lognormal(size=F).astype(np.float32)
    X, y = _continuous(N, 0, scale)
    cuts = _xgb_cuts(X, KW["max_bin"])
    Xn = _new_rows(X, cuts, 1, nan=True)
    ours = ensemble.fit_xgboost(X, y, **KW)
    return dict(X=X, y=y, Xn=Xn, cuts=cuts, ours=ours, scale=scale)


@pytest.mark.full
def test_fit_xgboost_equals_xgboost_train_on_new_rows(continuous):
    X, y, Xn, ours = continuous["X"], continuous["y"], continuous["Xn"], continuous["ours"]
    assert ours.base_score.dtype == jnp.float32
    params = dict(max_depth=KW["max_depth"], eta=KW["learning_rate"], reg_lambda=KW["reg_lambda"],
                  min_child_weight=KW["min_child_weight"], max_bin=KW["max_bin"], nthread=1, tree_method="hist",
                  base_score=float(ours.base_score[0]))
    booster = xgb.train(params, xgb.DMatrix(X, y), num_boost_round=KW["n_estimators"])
    for Z in (X, Xn):
        np.testing.assert_allclose(np.asarray(ensemble.predict(ours, Z)), booster.predict(xgb.DMatrix(Z)), atol=ATOL)


@pytest.mark.full
def test_estimators_equal_xgboosts_sklearn_api_on_new_rows(continuous):
    X, y, Xn = continuous["X"], continuous["y"], continuous["Xn"]
    reg = XGBoostRegressor(**KW).fit(X, y)
    np.testing.assert_allclose(reg.predict(Xn), xgb.XGBRegressor(**KW, **XGB).fit(X, y).predict(Xn), atol=ATOL)
    yb = (y > np.median(y)).astype(int)
    clf = XGBoostClassifier(**KW).fit(X, yb)
    theirs = xgb.XGBClassifier(**KW, **XGB).fit(X, yb)
    np.testing.assert_allclose(clf.predict_proba(Xn), theirs.predict_proba(Xn), atol=ATOL)


@pytest.mark.full
def test_float64_fit_depth_6_equals_xgboost_on_new_rows(continuous):
    """A float64 fit (float32-valued data; xgboost casts its input to float32): the thresholds
    are float64 rounding boundaries, so float64 new rows between two float32s (where a cast
    decides the side) go where xgboost sends them."""
    X, y, cuts = continuous["X"].astype(np.float64), continuous["y"].astype(np.float64), continuous["cuts"]
    kw = dict(KW, max_depth=6)
    ours = ensemble.fit_xgboost(X, y, **kw)
    assert ours.base_score.dtype == jnp.float64
    theirs = xgb.XGBRegressor(**kw, **XGB).fit(X, y)
    Xn = continuous["Xn"].astype(np.float64)
    rng = np.random.default_rng(2)
    tie = Xn[:N_NEW].copy()  # the float64 midpoints between a cut and the float32 below it
    for j in range(F):
        c = rng.choice(cuts[j][1:], N_NEW)
        tie[:, j] = (np.nextafter(c, np.float32(-np.inf)).astype(np.float64) + c) / 2
    for Z in (X, Xn, tie, np.nextafter(tie, np.inf), np.nextafter(tie, -np.inf)):
        np.testing.assert_allclose(np.asarray(ensemble.predict(ours, Z)), theirs.predict(Z), atol=ATOL)


@pytest.fixture(scope="module")
def with_missing(continuous):
    X, y = continuous["X"].copy(), continuous["y"]
    X[np.random.default_rng(4).random(X.shape) < 0.1] = np.nan
    return X, y, ensemble.fit_xgboost(X, y, **KW)


@pytest.mark.full
def test_missing_values_equal_xgboost_on_new_rows(continuous, with_missing):
    """With NaN in training: xgboost's splits of the missing values from all the others
    (the lower bound and the sentinel are thresholds) and its choice among splits of equal
    gain that make the same partition (missing left: the last such bin; "missing alone left"
    is its mirror with missing right)."""
    X, y, ours = with_missing
    theirs = xgb.XGBRegressor(**KW, **XGB).fit(X, y)
    for Z in (X, continuous["Xn"]):
        np.testing.assert_allclose(np.asarray(ensemble.predict(ours, Z)), theirs.predict(Z), atol=ATOL)
    yc = np.digitize(y, np.quantile(y, [1 / 3, 2 / 3]))  # K = 3 trees a round: the vmapped tie rule
    kw = dict(KW, n_estimators=20)
    soft = ensemble.fit_xgboost(X, yc, loss="softmax", base_score=0.5, **kw)
    theirs = xgb.XGBClassifier(objective="multi:softprob", base_score=0.5, **kw, **XGB).fit(X, yc)
    np.testing.assert_allclose(np.asarray(ensemble.predict_proba(soft, continuous["Xn"])),
                               theirs.predict_proba(continuous["Xn"]), atol=ATOL)


@pytest.mark.full
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_export_xgboost_predicts_as_ours_on_any_rows(continuous, with_missing, dtype, tmp_path):
    """The exported model's split conditions are xgboost's cuts: the package predicts our
    margins on new rows, at the cuts, between float32s and on NaN (float32 fit: bit for bit;
    float64: its leaf values rounded to float32, the routing the same)."""
    X, y, ours = with_missing
    if dtype == np.float64:
        ours = ensemble.fit_xgboost(X.astype(np.float64), y.astype(np.float64), **dict(KW, n_estimators=10))
    path = tmp_path / "model.json"
    io.export_xgboost(ours, path)
    booster = xgb.Booster(model_file=str(path))
    Xn = continuous["Xn"].astype(dtype)
    t = np.asarray(ours.trees.threshold).reshape(-1)
    t = t[np.isfinite(t)]
    rng = np.random.default_rng(5)
    near = np.repeat(Xn[:200], 3, axis=0)  # one feature at a threshold and beside it
    j = rng.integers(0, F, near.shape[0])
    pick = rng.choice(t, near.shape[0]).astype(dtype)
    near[np.arange(near.shape[0]), j] = np.where(np.arange(near.shape[0]) % 3 == 0, pick,
                                                 np.nextafter(pick, np.where(np.arange(near.shape[0]) % 3 == 1,
                                                                             np.inf, -np.inf)).astype(dtype))
    for Z in (Xn, near):
        got = booster.predict(xgb.DMatrix(Z), output_margin=True)
        want = np.asarray(ensemble.decision_function(ours, Z))
        if dtype == np.float32:
            np.testing.assert_array_equal(got, want)
        else:
            np.testing.assert_allclose(got, want, atol=ATOL)


# --------------------------------------------------------------------------- traced weights
@pytest.mark.full
def test_vmap_over_fold_weights_equals_the_loop_and_the_sliced_fits():
    """Traced sample_weight: the sketch runs through jax.pure_callback per weight vector, so
    a vmapped fit equals the loop, and each equals the fit on its rows of positive weight."""
    rng = np.random.default_rng(6)
    X = rng.normal(size=(300, 3)).astype(np.float32)
    y = (X[:, 0] + 0.3 * rng.normal(size=300)).astype(np.float32)
    keep = np.stack([rng.permutation(300) < 210 for _ in range(3)])  # 210 rows each: one sliced shape
    W = (keep * rng.uniform(0.5, 2.0, (3, 300))).astype(np.float32)
    kw = dict(n_estimators=4, max_depth=3, max_bin=32, base_score=0.0)
    batched = jax.vmap(lambda w: ensemble.fit_xgboost(X, y, sample_weight=w, **kw))(jnp.asarray(W))
    for i, w in enumerate(W):
        one = ensemble.fit_xgboost(X, y, sample_weight=w, **kw)
        sliced = ensemble.fit_xgboost(X[w > 0], y[w > 0], sample_weight=w[w > 0], **kw)
        np.testing.assert_array_equal(np.asarray(batched.bin_edges[i]), np.asarray(one.bin_edges))
        np.testing.assert_array_equal(np.asarray(sliced.bin_edges), np.asarray(one.bin_edges))
        np.testing.assert_allclose(np.asarray(batched.trees.value[i]), np.asarray(one.trees.value), atol=1e-6)
        np.testing.assert_allclose(np.asarray(ensemble.predict(one, X)), np.asarray(ensemble.predict(sliced, X)),
                                   atol=1e-5)
