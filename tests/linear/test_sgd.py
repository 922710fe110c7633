"""Tests of jaxclassic/linear/sgd.py: fit_sgd_regressor.

References: the closed-form OLS / ridge solutions that are SGD's fixed point. Tolerances are
those of a finite stochastic run on well-conditioned data (decaying schedules, ~1e-4 observed;
asserted at 2e-3), and exact (1e-10) where the iterates are deterministic functions of the
data (full batches).
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxclassic.linear import fit_ols, fit_ridge, fit_sgd_regressor, predict
from jaxclassic.linear.sgd import _fit_sgd, sgd_objective

N, D = 256, 4
KEY = jax.random.key(0)
#: one configuration shared by most tests (compiled once)
ADAM = dict(optimizer="adam", learning_rate=0.05, schedule="cosine", n_epochs=60, batch_size=32)


@pytest.fixture(scope="module")
def data():
    rng = np.random.RandomState(0)
    X = rng.randn(N, D)
    y = X @ np.array([1.0, -2.0, 0.5, 3.0]) + 5.0 + 0.3 * rng.randn(N)
    w = rng.uniform(0.5, 2.0, N)
    return X, y, w


@pytest.fixture(scope="module")
def adam_fit(data):
    X, y, w = data
    return fit_sgd_regressor(X, y, key=KEY, l2=0.01, sample_weight=w, **ADAM)


def _close(ours, ref, rtol, atol=0.0):
    np.testing.assert_allclose(np.asarray(ours), np.asarray(ref), rtol=rtol, atol=atol)


# ----------------------------------------------------------------- (1) references
@pytest.mark.parametrize("optimizer, learning_rate, schedule, n_epochs", [
    ("sgd", 0.05, "invscaling", 100),
    ("momentum", 0.01, "cosine", 60),
])
def test_converges_to_ols(data, optimizer, learning_rate, schedule, n_epochs):
    X, y, _ = data
    params = fit_sgd_regressor(X, y, key=KEY, optimizer=optimizer, learning_rate=learning_rate,
                               schedule=schedule, n_epochs=n_epochs, batch_size=32)
    ols = fit_ols(X, y)
    _close(params.coef, ols.coef, 0, atol=2e-3)
    _close(params.intercept, ols.intercept, 0, atol=2e-3)
    assert params.loss_history.shape == (n_epochs,)
    assert float(params.loss_history[-1]) <= float(params.loss_history[0])


def test_weighted_l2_fixed_point_is_ridge(data, adam_fit):
    X, y, w = data
    ridge = fit_ridge(X, y, alpha=0.01 * w.sum(), sample_weight=w)  # documented equivalence
    _close(adam_fit.coef, ridge.coef, 0, atol=2e-3)
    _close(adam_fit.intercept, ridge.intercept, 0, atol=2e-3)
    _close(predict(adam_fit, X), predict(ridge, X), 0, atol=1e-2)


# ----------------------------------------------------------------- (2) gradients
@pytest.mark.full
def test_objective_gradient_equals_hand_form_and_nearly_vanishes_at_the_fit(data, adam_fit):
    X, y, w = (jnp.asarray(a) for a in data)
    Xc = X - (w @ X) / w.sum()
    yc = y - (w @ y) / w.sum()
    l2 = 0.01

    def hand(beta):  # X^T W (X beta - y) / sum(w) + l2 beta
        return Xc.T @ (w * (Xc @ beta - yc)) / w.sum() + l2 * beta

    beta = jnp.asarray(np.random.RandomState(1).randn(D))
    _close(jax.grad(sgd_objective)(beta, Xc, yc, w, l2), hand(beta), 1e-12)
    at_fit = jax.grad(sgd_objective)(adam_fit.coef, Xc, yc, w, l2)
    assert float(jnp.abs(at_fit).max()) < 1e-3 * float(jnp.abs(hand(jnp.zeros(D))).max())


# ----------------------------------------------------------------- (3) transformations
def test_same_key_same_result_other_key_differs_jit_equals_eager_no_retrace(data, adam_fit):
    X, y, w = data
    again = fit_sgd_regressor(X, y, key=KEY, l2=0.01, sample_weight=w, **ADAM)
    _close(again.coef, adam_fit.coef, 0)
    other = fit_sgd_regressor(X, y, key=jax.random.key(1), l2=0.01, sample_weight=w, **ADAM)
    assert not np.array_equal(np.asarray(other.coef), np.asarray(adam_fit.coef))
    jitted = jax.jit(lambda X, k, w: fit_sgd_regressor(X, y, key=k, l2=0.01, sample_weight=w, **ADAM))(X, KEY, w)
    _close(jitted.coef, adam_fit.coef, 1e-12)
    before = _fit_sgd._cache_size()
    fit_sgd_regressor(X, y + 1.0, key=jax.random.key(5), l2=0.5, sample_weight=w, **ADAM)
    assert _fit_sgd._cache_size() == before


def test_vmap_over_learning_rate_and_folds_equals_loop(data):
    X, y, w = data
    kw = dict(ADAM, learning_rate=0.05)
    rates = jnp.array([0.01, 0.05])
    grid = jax.vmap(lambda lr: fit_sgd_regressor(X, y, key=KEY, **dict(kw, learning_rate=lr)))(rates)
    folds = jnp.asarray(np.stack([(np.arange(N) % 2 != k).astype(float) for k in range(2)]))
    batched = jax.vmap(lambda fw: fit_sgd_regressor(X, y, key=KEY, sample_weight=fw, **kw))(folds)
    for k in range(2):
        one = fit_sgd_regressor(X, y, key=KEY, **dict(kw, learning_rate=float(rates[k])))
        _close(grid.coef[k], one.coef, 1e-9)
        one = fit_sgd_regressor(X, y, key=KEY, sample_weight=folds[k], **kw)
        _close(batched.coef[k], one.coef, 1e-9)


def test_zero_weight_rows_full_batch_identical_minibatch_same_fixed_point(data):
    X, y, w = data
    rng = np.random.RandomState(3)
    n_extra = 32
    Xg, yg = np.r_[X, 50 * rng.randn(n_extra, D)], np.r_[y, 1e3 * rng.rand(n_extra)]
    wg = np.r_[w, np.zeros(n_extra)]
    # full batches: each step's gradient is the same weighted mean: identical iterates
    full = dict(optimizer="sgd", learning_rate=0.5, schedule="constant", n_epochs=20)
    a = fit_sgd_regressor(X, y, key=KEY, sample_weight=w, batch_size=N, **full)
    b = fit_sgd_regressor(Xg, yg, key=KEY, sample_weight=wg, batch_size=N + n_extra, **full)
    _close(b.coef, a.coef, 1e-10)
    _close(b.intercept, a.intercept, 1e-10)
    _close(b.loss_history, a.loss_history, 1e-10)
    # minibatches: batch composition changes, so only the limit is shared
    b = fit_sgd_regressor(Xg, yg, key=KEY, sample_weight=wg, l2=0.01, **ADAM)
    ridge = fit_ridge(X, y, alpha=0.01 * w.sum(), sample_weight=w)
    _close(b.coef, ridge.coef, 0, atol=2e-3)
    _close(b.intercept, ridge.intercept, 0, atol=2e-3)


def test_float32_keeps_dtype_and_converges(data):
    X, y, _ = data
    params = fit_sgd_regressor(X.astype(np.float32), y.astype(np.float32), key=KEY, **ADAM)
    assert params.coef.dtype == jnp.float32 and params.loss_history.dtype == jnp.float32
    _close(params.coef, fit_ols(X, y).coef, 0, atol=5e-3)


# ----------------------------------------------------------------- bad input
@pytest.mark.parametrize("kwargs, error, match", [
    ({"optimizer": "rmsprop"}, ValueError, "optimizer must be one of"),
    ({"schedule": "step"}, ValueError, "schedule must be one of"),
    ({"learning_rate": 0.0}, ValueError, "learning_rate must be > 0.0"),
    ({"batch_size": 0}, ValueError, "batch_size must be >= 1"),
    ({"n_epochs": 2.5}, TypeError, "n_epochs must be an int"),
    ({"l2": -1.0}, ValueError, "l2 must be >= 0.0"),
    ({"momentum": 1.0}, ValueError, "momentum must be < 1.0"),
    ({"key": 0}, TypeError, "key must be a jax.random key"),
])
def test_bad_arguments_are_rejected(data, kwargs, error, match):
    X, y, _ = data
    with pytest.raises(error, match=match):
        fit_sgd_regressor(X, y, **{"key": KEY, **kwargs})


def test_default_key_is_key_0(data):
    # issue 27: key is optional; None is the fixed key jax.random.key(0) (deterministic)
    X, y, _ = data
    a, b = fit_sgd_regressor(X, y), fit_sgd_regressor(X, y, key=KEY)
    np.testing.assert_array_equal(a.coef, b.coef)
    np.testing.assert_array_equal(a.intercept, b.intercept)


def test_nan_in_X_is_rejected(data):
    X, y, _ = data
    X = X.copy()
    X[1, 1] = np.nan
    with pytest.raises(ValueError, match="X contains 1 NaN"):
        fit_sgd_regressor(X, y, key=KEY)


# ----------------------------------------------------------------- early stopping
#: constant-rate SGD keeps the validation loss noisy, so a small patience stops early
EARLY = dict(optimizer="sgd", learning_rate=0.2, schedule="constant", n_epochs=40, batch_size=32)


@pytest.fixture(scope="module")
def split(data):
    """Every fourth row held out (validation_weight 1), the rest trains (0)."""
    X, y, w = data
    v = (np.arange(N) % 4 == 0).astype(float)
    return X, y, w, v


@pytest.fixture(scope="module")
def early_fit(split):
    X, y, w, v = split
    return fit_sgd_regressor(X, y, key=KEY, sample_weight=w, validation_weight=v, patience=3, **EARLY)


def test_early_stopping_returns_the_plain_run_of_best_epoch_plus_one(split, early_fit):
    X, y, w, v = split
    best = int(early_fit.best_epoch)
    assert bool(early_fit.stopped) and best < EARLY["n_epochs"] - 4  # the rule really fired
    assert int(early_fit.n_iter) == best + 3 + 1  # stop at t = t* + patience
    plain = fit_sgd_regressor(X, y, key=KEY, sample_weight=w * (v == 0),
                              **dict(EARLY, n_epochs=best + 1))
    _close(early_fit.coef, plain.coef, 1e-12)
    _close(early_fit.intercept, plain.intercept, 1e-12)
    _close(early_fit.loss_history[:best + 1], plain.loss_history, 1e-12)
    # the recorded validation loss at t* is that of the returned parameters
    f = predict(early_fit, X)
    val = np.sum(w * v * 0.5 * (y - f) ** 2) / np.sum(w * v)
    _close(early_fit.validation_loss_history[best], val, 1e-12)


def test_best_epoch_follows_early_stopping_rule_on_recorded_history(early_fit):
    from jaxclassic.model_selection.curves import early_stopping

    rule = early_stopping(early_fit.validation_loss_history, 3)
    assert int(rule.best_iter) == int(early_fit.best_epoch)
    assert int(rule.stop_iter) + 1 == int(early_fit.n_iter)
    assert bool(rule.stopped) == bool(early_fit.stopped)
    hist = np.asarray(early_fit.validation_loss_history)
    assert hist[int(early_fit.best_epoch)] == hist.min()  # frozen after the stop


def test_early_stopping_vmap_over_learning_rate_equals_loop(split):
    X, y, w, v = split
    rates = jnp.array([0.05, 0.2])
    grid = jax.vmap(lambda lr: fit_sgd_regressor(
        X, y, key=KEY, sample_weight=w, validation_weight=v, patience=3,
        **dict(EARLY, learning_rate=lr)))(rates)
    for k in range(2):
        one = fit_sgd_regressor(X, y, key=KEY, sample_weight=w, validation_weight=v, patience=3,
                                **dict(EARLY, learning_rate=float(rates[k])))
        _close(grid.coef[k], one.coef, 1e-9)
        assert int(grid.best_epoch[k]) == int(one.best_epoch)
        assert bool(grid.stopped[k]) == bool(one.stopped)


@pytest.mark.parametrize("kwargs, error, match", [
    ({"patience": 3}, ValueError, "patience requires validation_weight"),
    ({"validation_weight": "v"}, ValueError, "validation_weight requires patience"),
    ({"validation_weight": "v", "patience": 0}, ValueError, "patience must be >= 1"),
    ({"validation_weight": "v", "patience": 2.0}, TypeError, "patience must be an int"),
    ({"validation_weight": "short", "patience": 3}, ValueError, r"validation_weight must have shape \(256,\)"),
    ({"validation_weight": "negative", "patience": 3}, ValueError, "validation_weight must be non-negative"),
    ({"validation_weight": "all", "patience": 3}, ValueError, "leaves no training row"),
    ({"validation_weight": "none", "patience": 3}, ValueError, "must mark at least one row"),
])
def test_bad_early_stopping_arguments_are_rejected(split, kwargs, error, match):
    X, y, _, v = split
    arrays = {"v": v, "short": v[:-1], "negative": np.r_[-1.0, v[1:]], "all": np.ones(N),
              "none": np.zeros(N)}
    if "validation_weight" in kwargs:
        kwargs = dict(kwargs, validation_weight=arrays[kwargs["validation_weight"]])
    with pytest.raises(error, match=match):
        fit_sgd_regressor(X, y, key=KEY, **kwargs)
