"""Metrics against scikit-learn / statsmodels in float64 (1e-10: both sides sum the same
O(100) terms of size O(1) in a different order, so they differ by rounding, ~1e-15), ties and
weights included; zero-weight rows have no influence; jit = eager, vmap = loop, no retrace;
bad input, one test per case."""

import warnings

import chex
import jax
import jax.numpy as jnp
import numpy as np
import pytest

sk = pytest.importorskip("sklearn.metrics")

from jaxclassic import metrics  # noqa: E402
from jaxclassic.metrics import ranking, regression  # noqa: E402

TOL = dict(rtol=1e-10, atol=1e-12)
N, C = 64, 4
RNG = np.random.default_rng(0)

# binary labels / predictions, multiclass labels / predictions (every class present), weights
YB = RNG.integers(0, 2, N)
PB = np.where(RNG.random(N) < 0.7, YB, 1 - YB)
YM = np.r_[np.arange(C), RNG.integers(0, C, N - C)]
PM = np.where(RNG.random(N) < 0.6, YM, RNG.integers(0, C, N))
PM[:C] = np.arange(C)[::-1]  # every class predicted at least once
W = RNG.uniform(0.1, 2.0, N)
WINT = RNG.integers(1, 4, N)
# scores with many ties (one decimal) and continuous scores
SCORE_TIED = np.round(RNG.random(N) + 0.4 * YB, 1)
SCORE = RNG.normal(size=N) + YB
# probabilities
PROB = 1 / (1 + np.exp(-SCORE))
_logits = RNG.normal(size=(N, C)) + 1.5 * np.eye(C)[YM]
PROBA = np.exp(_logits) / np.exp(_logits).sum(1, keepdims=True)
# regression
YR = RNG.normal(size=N) * 2 + 1
FR = YR + RNG.normal(size=N) * 0.7
YR2 = RNG.normal(size=(N, 3))
FR2 = YR2 + RNG.normal(size=(N, 3)) * 0.5
# fold weights for vmap tests: 4 folds as 0/1 weights of the full length
FOLDS = np.stack([(np.arange(N) % 4 != k).astype(float) for k in range(4)])


def close(ours, ref, **tol):
    np.testing.assert_allclose(np.asarray(ours), np.asarray(ref), **(tol or TOL))


# --------------------------------------------------------------------------- classification
@pytest.mark.parametrize("weights", [None, W])
def test_accuracy_equals_sklearn(weights):
    close(metrics.accuracy(YM, PM, sample_weight=weights), sk.accuracy_score(YM, PM, sample_weight=weights))


def test_confusion_matrix_equals_sklearn():
    ours = metrics.confusion_matrix(YM, PM)
    assert jnp.issubdtype(ours.dtype, jnp.integer)
    np.testing.assert_array_equal(ours, sk.confusion_matrix(YM, PM, labels=np.arange(C)))
    close(metrics.confusion_matrix(YM, PM, sample_weight=W),
          sk.confusion_matrix(YM, PM, labels=np.arange(C), sample_weight=W))
    # a code that never occurs still gets its zero row and column
    assert metrics.confusion_matrix(YB, PB, n_classes=3).shape == (3, 3)


@pytest.mark.full
@pytest.mark.parametrize("pos_label", [0, 1])
@pytest.mark.parametrize("weights", [None, W])
def test_binary_rates_equal_sklearn_confusion_counts(pos_label, weights):
    cm = sk.confusion_matrix(YB, PB, labels=[1 - pos_label, pos_label], sample_weight=weights)
    tn, fp, fn, tp = cm.ravel()
    kw = dict(pos_label=pos_label, sample_weight=weights)
    close(metrics.true_positive_rate(YB, PB, **kw), tp / (tp + fn))
    close(metrics.false_negative_rate(YB, PB, **kw), fn / (tp + fn))
    close(metrics.false_positive_rate(YB, PB, **kw), fp / (fp + tn))
    close(metrics.true_negative_rate(YB, PB, **kw), tn / (fp + tn))
    close(metrics.true_positive_rate(YB, PB, **kw), sk.recall_score(YB, PB, **kw))
    close(metrics.true_negative_rate(YB, PB, **kw),
          sk.recall_score(YB, PB, pos_label=1 - pos_label, sample_weight=weights))


@pytest.mark.full
@pytest.mark.parametrize("weights", [None, W])
@pytest.mark.parametrize("average", ["binary", "micro", "macro", "weighted", None])
def test_precision_recall_f1_equal_sklearn(average, weights):
    y, p = (YB, PB) if average == "binary" else (YM, PM)
    for ours, ref in [(metrics.precision, sk.precision_score), (metrics.recall, sk.recall_score),
                      (metrics.f1_score, sk.f1_score)]:
        close(ours(y, p, average=average, sample_weight=weights),
              ref(y, p, average=average, sample_weight=weights))


@pytest.mark.full
@pytest.mark.parametrize("zero_division", [0.0, 1.0, np.nan])
@pytest.mark.parametrize("average", ["macro", "weighted", None])
def test_zero_division_equals_sklearn(zero_division, average):
    # class 3 is never predicted (precision 0/0) and class 2 never true (recall 0/0)
    y = np.array([0, 1, 1, 3, 0, 1, 3, 0])
    p = np.array([0, 1, 2, 0, 0, 2, 1, 1])
    for ours, ref in [(metrics.precision, sk.precision_score), (metrics.recall, sk.recall_score),
                      (metrics.f1_score, sk.f1_score)]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = ref(y, p, average=average, zero_division=zero_division)
        close(ours(y, p, average=average, zero_division=zero_division), expected, equal_nan=True, **TOL)


@pytest.mark.full
@pytest.mark.parametrize("y, p", [(YB, PB), (YM, PM)], ids=["binary", "multiclass"])
@pytest.mark.parametrize("weights", [None, W])
def test_balanced_error_rate_equals_sklearn(y, p, weights):
    expected = 1 - sk.balanced_accuracy_score(y, p, sample_weight=weights)
    close(metrics.balanced_error_rate(y, p, sample_weight=weights), expected)


def test_balanced_error_rate_ignores_classes_only_predicted():
    y, p = np.array([0, 0, 1, 1, 1]), np.array([0, 2, 1, 1, 0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # sklearn warns that y_pred has a class not in y_true
        expected = 1 - sk.balanced_accuracy_score(y, p)
    close(metrics.balanced_error_rate(y, p), expected)


def test_log_loss_binary_and_multiclass_equal_sklearn():
    for weights in (None, W):
        close(metrics.log_loss(YB, PROB, sample_weight=weights),
              sk.log_loss(YB, PROB, sample_weight=weights))
        close(metrics.log_loss(YM, PROBA, sample_weight=weights),
              sk.log_loss(YM, PROBA, sample_weight=weights, labels=np.arange(C)))


def test_log_loss_clips_certain_mistakes_like_sklearn():
    y = np.array([0, 1, 1, 0])
    prob = np.array([1.0, 0.0, 1.0, 0.0])  # two certain mistakes: clipped to eps
    close(metrics.log_loss(y, prob), sk.log_loss(y, prob))
    proba = np.array([[0.0, 1.0], [1.0, 0.0], [0.0, 1.0], [1.0, 0.0]])
    close(metrics.log_loss(y, proba), sk.log_loss(y, proba))
    assert np.isfinite(metrics.log_loss(y, prob))


# --------------------------------------------------------------------------- ROC
@pytest.mark.full
@pytest.mark.parametrize("score", [SCORE_TIED, SCORE], ids=["ties", "continuous"])
@pytest.mark.parametrize("weights", [None, W, WINT], ids=["unweighted", "weighted", "int_weights"])
def test_roc_curve_and_auc_equal_sklearn(score, weights):
    fpr, tpr, thr = metrics.roc_curve(YB, score, sample_weight=weights)
    rfpr, rtpr, rthr = sk.roc_curve(YB, score, sample_weight=weights, drop_intermediate=False)
    close(fpr, rfpr)
    close(tpr, rtpr)
    np.testing.assert_array_equal(thr, rthr)
    expected = sk.roc_auc_score(YB, score, sample_weight=weights)
    close(metrics.roc_auc(YB, score, sample_weight=weights), expected)
    # the Mann-Whitney AUC is the trapezoid under our own curve
    close(metrics.roc_auc(YB, score, sample_weight=weights), np.trapezoid(tpr, fpr))


def test_roc_curve_drop_intermediate_equals_sklearn_default():
    for score in (SCORE_TIED, SCORE):
        for weights in (None, WINT):
            ours = metrics.roc_curve(YB, score, sample_weight=weights, drop_intermediate=True)
            ref = sk.roc_curve(YB, score, sample_weight=weights)
            for a, b in zip(ours, ref):
                close(a, b)


def test_roc_auc_all_tied_is_one_half_and_separable_is_one():
    assert float(metrics.roc_auc(YB, np.zeros(N))) == 0.5
    assert float(metrics.roc_auc(YB, YB * 2.0 - 1)) == 1.0
    assert float(metrics.roc_auc(YB, 1.0 - YB)) == 0.0


@pytest.mark.parametrize("weights", [None, W], ids=["unweighted", "weighted"])
def test_hinge_loss_equals_sklearn(weights):
    decision = 4.0 * SCORE - 2.0  # decision values on both sides of the margins
    close(metrics.hinge_loss(YB, decision, sample_weight=weights),
          sk.hinge_loss(YB, decision, sample_weight=weights))
    keep = np.arange(N) % 3 != 0  # zero-weight rows have no influence
    close(metrics.hinge_loss(YB, decision, sample_weight=keep * 1.0),
          sk.hinge_loss(YB[keep], decision[keep]))
    # the gradient is the hand derivative -t_i [t_i f_i < 1] / n
    grad = jax.grad(lambda f: metrics.hinge_loss(YB, f))(jnp.asarray(decision))
    t = 2.0 * YB - 1
    close(grad, -t * (t * decision < 1) / N)
    with pytest.raises(ValueError, match="y_score"):
        metrics.hinge_loss(YB, np.full(N, np.nan))


# --------------------------------------------------------------------------- regression
@pytest.mark.full
@pytest.mark.parametrize("weights", [None, W])
def test_regression_metrics_equal_sklearn(weights):
    for ours, ref in [(metrics.mean_squared_error, sk.mean_squared_error),
                      (metrics.mean_absolute_error, sk.mean_absolute_error),
                      (metrics.r2_score, sk.r2_score)]:
        close(ours(YR, FR, sample_weight=weights), ref(YR, FR, sample_weight=weights))
        close(ours(YR2, FR2, sample_weight=weights), ref(YR2, FR2, sample_weight=weights))
        close(ours(YR2, FR2, sample_weight=weights, multioutput="raw_values"),
              ref(YR2, FR2, sample_weight=weights, multioutput="raw_values"))


def test_r2_of_constant_target_follows_sklearn_force_finite():
    y = np.full(5, 2.0)
    assert float(metrics.r2_score(y, y)) == sk.r2_score(y, y) == 1.0
    assert float(metrics.r2_score(y, y + 0.1)) == sk.r2_score(y, y + 0.1) == 0.0


def test_adjusted_r2_equals_statsmodels():
    sm = pytest.importorskip("statsmodels.api")
    X = RNG.normal(size=(N, 3))
    y = X @ np.array([1.0, -2.0, 0.5]) + RNG.normal(size=N)
    Xc = sm.add_constant(X)
    ols = sm.OLS(y, Xc).fit()
    close(metrics.adjusted_r2(y, ols.fittedvalues, 3), ols.rsquared_adj)
    wls = sm.WLS(y, Xc, weights=W).fit()
    close(metrics.adjusted_r2(y, wls.fittedvalues, 3, sample_weight=W), wls.rsquared_adj)


# --------------------------------------------------------------------------- zero-weight rows
def _with_garbage_rows(*arrays, n_extra=8, seed=1):
    """Append n_extra rows of garbage (finite) values, weighted 0; return arrays and weights."""
    rng = np.random.default_rng(seed)
    out = []
    for a in arrays:
        if np.issubdtype(a.dtype, np.integer):
            extra = rng.integers(0, a.max() + 1, (n_extra,) + a.shape[1:])
        elif a.ndim == 2 and np.allclose(a.sum(1), 1):  # probabilities stay probabilities
            extra = rng.dirichlet(np.ones(a.shape[1]), n_extra)
        elif a.min() >= 0 and a.max() <= 1:
            extra = rng.random((n_extra,) + a.shape[1:])
        else:
            extra = rng.normal(size=(n_extra,) + a.shape[1:]) * 100
        out.append(np.concatenate([a, extra]))
    return out, np.r_[W, np.zeros(n_extra)]


@pytest.mark.parametrize("name, args, kw", [
    ("precision", (YM, PM), dict(average="macro")),
    ("f1_score", (YM, PM), dict(average="weighted")),
    ("balanced_error_rate", (YM, PM), {}),
    ("confusion_matrix", (YM, PM), {}),
    ("roc_auc", (YB, SCORE_TIED), {}),
    ("roc_curve", (YB, SCORE_TIED), {}),
    ("log_loss", (YM, PROBA), {}),
    ("r2_score", (YR, FR), {}),
    ("adjusted_r2", (YR, FR, 2), {}),
])
@pytest.mark.full
def test_zero_weight_rows_have_no_influence(name, args, kw):
    fn = getattr(metrics, name)
    arrays = [a for a in args if isinstance(a, np.ndarray)]
    rest = args[len(arrays):]
    padded, w = _with_garbage_rows(*arrays)
    ours = fn(*padded, *rest, sample_weight=w, **kw)
    ref = fn(*arrays, *rest, sample_weight=W, **kw)
    jax.tree.map(lambda a, b: close(a, b), ours, ref)


def test_macro_average_ignores_a_class_only_in_zero_weight_rows():
    y = np.r_[YB, 2]
    p = np.r_[PB, 2]
    w = np.r_[W, 0.0]
    close(metrics.recall(y, p, average="macro", sample_weight=w),
          sk.recall_score(YB, PB, average="macro", sample_weight=W))


# --------------------------------------------------------------------------- transformations
@pytest.mark.full
def test_jit_equals_eager_and_vmap_over_folds_equals_loop():
    def scores(w):
        return jnp.stack([
            metrics.f1_score(YM, PM, average="macro", sample_weight=w),
            metrics.balanced_error_rate(YM, PM, sample_weight=w),
            metrics.roc_auc(YB, SCORE_TIED, sample_weight=w),
            metrics.log_loss(YM, PROBA, sample_weight=w),
            metrics.adjusted_r2(YR, FR, 2, sample_weight=w),
        ])

    folds = jnp.asarray(FOLDS)
    batched = jax.vmap(scores)(folds)
    looped = np.stack([np.asarray(scores(f)) for f in FOLDS])
    close(batched, looped)
    close(jax.jit(scores)(folds[0]), looped[0])
    # and each fold equals scikit-learn on the fold's rows
    for k, mask in enumerate(FOLDS.astype(bool)):
        close(batched[k, 2], sk.roc_auc_score(YB[mask], SCORE_TIED[mask]))


def test_traced_labels_need_n_classes_and_then_match():
    f = jax.jit(lambda y, p: metrics.precision(y, p, average="macro", n_classes=C))
    close(f(YM, PM), sk.precision_score(YM, PM, average="macro"))


def test_adjusted_r2_accepts_traced_n_features():
    ps = jnp.arange(1, 4)
    out = jax.vmap(lambda p: metrics.adjusted_r2(YR, FR, p))(ps)
    close(out, [metrics.adjusted_r2(YR, FR, int(p)) for p in ps])


@pytest.mark.full
def test_second_call_with_same_shapes_does_not_retrace():
    @jax.jit
    @chex.assert_max_traces(n=1)
    def auc_and_f1(y, s, p, w):
        return (metrics.roc_auc(y, s, sample_weight=w),
                metrics.f1_score(y, p, sample_weight=w, average="binary"))

    auc_and_f1(YB, SCORE, PB, W)
    auc_and_f1(1 - YB, -SCORE, 1 - PB, W[::-1].copy())
    # the eager public functions reuse their compiled kernels too
    metrics.roc_auc(YB, SCORE)
    metrics.r2_score(YR, FR)
    sizes = ranking._roc_auc._cache_size(), regression._r2_score._cache_size()
    metrics.roc_auc(1 - YB, SCORE[::-1].copy())
    metrics.r2_score(FR, YR)
    assert (ranking._roc_auc._cache_size(), regression._r2_score._cache_size()) == sizes


@pytest.mark.full
def test_float32_input_keeps_float32():
    s32 = SCORE_TIED.astype(np.float32)
    auc = metrics.roc_auc(YB, s32)
    assert auc.dtype == jnp.float32
    close(auc, sk.roc_auc_score(YB, SCORE_TIED), rtol=1e-6)
    ll = metrics.log_loss(YB, PROB.astype(np.float32))
    assert ll.dtype == jnp.float32
    close(ll, sk.log_loss(YB, PROB), rtol=1e-5)
    r2 = metrics.r2_score(YR.astype(np.float32), FR.astype(np.float32))
    assert r2.dtype == jnp.float32
    close(r2, sk.r2_score(YR, FR), rtol=1e-5)
    acc = metrics.accuracy(YB, PB, sample_weight=W.astype(np.float32))
    assert acc.dtype == jnp.float32


# --------------------------------------------------------------------------- bad input
def test_bad_mismatched_lengths():
    with pytest.raises(ValueError, match="inconsistent numbers of samples: 64 != 63"):
        metrics.accuracy(YB, PB[:-1])


def test_bad_empty_input():
    with pytest.raises(ValueError, match="at least 1 sample"):
        metrics.f1_score([], [])


def test_bad_nan_score():
    s = SCORE.copy()
    s[3] = np.nan
    with pytest.raises(ValueError, match="y_score contains 1 NaN"):
        metrics.roc_auc(YB, s)


def test_bad_inf_prediction():
    with pytest.raises(ValueError, match="y_pred contains 1 inf"):
        metrics.mean_squared_error(YR, np.r_[FR[:-1], np.inf])


def test_bad_single_class_roc_auc():
    with pytest.raises(ValueError, match="Only one class present in y_true"):
        metrics.roc_auc(np.ones(N, int), SCORE)


def test_bad_single_class_after_weighting():
    with pytest.raises(ValueError, match="Only one class present"):
        metrics.roc_curve(YB, SCORE, sample_weight=(YB == 1).astype(float))


def test_bad_roc_curve_under_jit():
    with pytest.raises(TypeError, match="roc_curve is not jittable"):
        jax.jit(lambda s: metrics.roc_curve(YB, s))(SCORE)


def test_bad_non_binary_labels_for_rate():
    with pytest.raises(ValueError, match=r"y_true must hold binary labels in \{0, 1\}, got \[0, 1, 2, 3\]"):
        metrics.false_positive_rate(YM, PB)


def test_bad_binary_average_on_multiclass():
    with pytest.raises(ValueError, match="use average='macro'"):
        metrics.precision(YM, PM)


def test_bad_average():
    with pytest.raises(ValueError, match="average must be one of"):
        metrics.recall(YM, PM, average="samples")


def test_bad_negative_label():
    with pytest.raises(ValueError, match="y_pred must hold class codes >= 0, got -1"):
        metrics.confusion_matrix(YM, np.r_[PM[:-1], -1])


def test_bad_label_beyond_n_classes():
    with pytest.raises(ValueError, match="y_true holds class code 3 but n_classes=3"):
        metrics.confusion_matrix(YM, PM, n_classes=3)


def test_bad_non_integer_labels():
    with pytest.raises(ValueError, match="y_true must hold integer values"):
        metrics.balanced_error_rate(YB + 0.5, PB)


def test_bad_string_labels():
    with pytest.raises(TypeError, match="y_true must be numeric"):
        metrics.f1_score(np.array(["a", "b"]), np.array([0, 1]))


def test_bad_2d_labels():
    with pytest.raises(ValueError, match="y_true must be 1-d"):
        metrics.accuracy(YM.reshape(-1, 2), PM.reshape(-1, 2))


def test_bad_n_classes_missing_under_jit():
    with pytest.raises(ValueError, match="n_classes must be given"):
        jax.jit(lambda y: metrics.confusion_matrix(y, y))(YM)


def test_bad_n_classes_value():
    with pytest.raises(ValueError, match="n_classes must be >= 1, got 0"):
        metrics.balanced_error_rate(YM, PM, n_classes=0)


def test_bad_negative_sample_weight():
    with pytest.raises(ValueError, match="sample_weight must be non-negative"):
        metrics.accuracy(YB, PB, sample_weight=-W)


def test_bad_all_zero_sample_weight():
    with pytest.raises(ValueError, match="at least one positive value"):
        metrics.r2_score(YR, FR, sample_weight=np.zeros(N))


def test_bad_sample_weight_length():
    with pytest.raises(ValueError, match=r"sample_weight must have shape \(64,\)"):
        metrics.roc_auc(YB, SCORE, sample_weight=W[:-1])


def test_bad_zero_division():
    with pytest.raises(ValueError, match="zero_division must be in"):
        metrics.precision(YB, PB, zero_division=2.0)


def test_bad_pos_label():
    with pytest.raises(ValueError, match="pos_label must be 0 or 1, got 2"):
        metrics.true_positive_rate(YB, PB, pos_label=2)


def test_bad_probability_out_of_range():
    with pytest.raises(ValueError, match=r"y_prob must lie in \[0, 1\]"):
        metrics.log_loss(YB, PROB * 2)


def test_bad_log_loss_label_beyond_columns():
    with pytest.raises(ValueError, match="y_true holds class code 3 but n_classes=3"):
        metrics.log_loss(YM, PROBA[:, :3])


def test_bad_log_loss_rows_not_summing_to_one_warn():
    with pytest.warns(UserWarning, match="do not sum to one"):
        metrics.log_loss(YM, PROBA * 0.9)


def test_bad_regression_shape_mismatch():
    with pytest.raises(ValueError, match=r"same shape, got \(64, 3\) and \(64,\)"):
        metrics.r2_score(YR2, FR)


def test_bad_multioutput():
    with pytest.raises(ValueError, match="multioutput must be one of"):
        metrics.mean_absolute_error(YR2, FR2, multioutput="variance_weighted")


def test_bad_adjusted_r2_too_few_rows():
    with pytest.raises(ValueError, match="more rows with positive weight than n_features"):
        metrics.adjusted_r2(YR[:5], FR[:5], 4)


def test_bad_adjusted_r2_n_features_type():
    with pytest.raises(TypeError, match="n_features must be an int"):
        metrics.adjusted_r2(YR, FR, 2.5)


def test_bad_adjusted_r2_negative_n_features():
    with pytest.raises(ValueError, match="n_features must be >= 0"):
        metrics.adjusted_r2(YR, FR, -1)



def test_bad_concrete_labels_are_checked_inside_jit():
    with pytest.raises(ValueError, match="Only one class present in y_true"):
        jax.jit(lambda w: metrics.roc_auc(np.ones(N, int), SCORE, sample_weight=w))(W)
