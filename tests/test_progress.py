"""``verbose=`` (progress from inside the compiled loops, jaxclassic/_progress.py) and ``n_jobs=``
(the CPU cores as devices a fit may use, jaxclassic/_cores.py).

The printed metrics are checked against values computed outside the loop that printed them:
the last boosting round's training log-loss against scikit-learn's ``log_loss`` of the fitted
model's probabilities, the last round's rmse against numpy's on the fitted predictions (both
to 1e-5: five printed decimals of a float32 loss), and EM's lines against the log-likelihood
history the fit returns. ``verbose=0`` must leave the compiled program untouched: the jitted
programs' cache sizes show that a ``verbose=0`` fit reuses the program compiled without the
argument, and a traced loop with ``progress=None`` has the jaxpr of one without reporting.
"""

from __future__ import annotations

import re
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxclassic import _cores, _progress
from jaxclassic.cluster import fit_gmm
from jaxclassic.ensemble import fit_gradient_boosting, fit_xgboost, predict, predict_proba
from jaxclassic.ensemble import xgboost as _xgb
from jaxclassic.graphical import fit_hmm

LINE = re.compile(r"^\[(\d+)\]\t(.*)$", re.M)


def _lines(text):
    """``[(step, {name: value})]`` of the report lines in ``text`` (bar redraws ignored)."""
    out = []
    for match in LINE.finditer(text.replace("\r", "\n")):
        fields = dict(f.split(":", 1) for f in match.group(2).split("\t"))
        out.append((int(match.group(1)), {k: float(v) for k, v in fields.items()}))
    return out


@pytest.fixture(scope="module")
def binary():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(64, 3)).astype(np.float32)
    y = (X[:, 0] + 0.5 * rng.normal(size=64) > 0).astype(np.float32)
    return X, y


# --------------------------------------------------------------------------- verbose
def test_xgboost_prints_one_eval_line_per_round(binary, capsys):
    X, y = binary
    params = fit_xgboost(X, y, loss="log_loss", n_estimators=5, max_depth=2, max_bin=16,
                         eval_set=(X[:16], y[:16]), verbose=1)
    lines = _lines(capsys.readouterr().err)
    assert [step for step, _ in lines] == [0, 1, 2, 3, 4]
    assert all(set(fields) == {"train-logloss", "valid-logloss"} for _, fields in lines)
    from sklearn.metrics import log_loss

    # the last round's printed training loss is the final model's (5 decimals printed)
    final = log_loss(y, np.asarray(predict_proba(params, X)), labels=[0, 1])
    assert lines[-1][1]["train-logloss"] == pytest.approx(final, abs=1e-5)
    held = log_loss(y[:16], np.asarray(predict_proba(params, X[:16])), labels=[0, 1])
    assert lines[-1][1]["valid-logloss"] == pytest.approx(held, abs=1e-5)


@pytest.mark.full
def test_gradient_boosting_prints_the_training_rmse(binary, capsys):
    X, y = binary
    target = X[:, 0] - X[:, 1]
    params = fit_gradient_boosting(X, target, n_estimators=5, max_depth=2, n_bins=16, verbose=1)
    lines = _lines(capsys.readouterr().err)
    assert [step for step, _ in lines] == [0, 1, 2, 3, 4]
    rmse = np.sqrt(np.mean((np.asarray(predict(params, X)) - target) ** 2))
    assert lines[-1][1]["train-rmse"] == pytest.approx(rmse, abs=1e-5)


@pytest.mark.filterwarnings("ignore::jaxclassic.exceptions.ConvergenceWarning")
def test_gmm_prints_one_line_per_em_iteration(capsys):
    rng = np.random.default_rng(1)
    X = np.r_[rng.normal(size=(40, 2)), 4 + rng.normal(size=(40, 2))].astype(np.float32)
    params = fit_gmm(X, 2, max_iter=20, tol=1e-6, init="random", verbose=1)
    lines = _lines(capsys.readouterr().err)
    n_iter = int(params.n_iter)
    assert n_iter > 2
    assert [step for step, _ in lines] == list(range(n_iter))
    printed = np.array([fields["lower_bound"] for _, fields in lines])
    np.testing.assert_allclose(printed, np.asarray(params.lower_bounds)[:n_iter], atol=1e-5)


@pytest.mark.full
def test_hmm_prints_one_line_per_baum_welch_iteration(capsys):
    X = np.array([0, 0, 0, 1, 1, 1, 0, 0, 0, 1, 1, 1] * 5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # 4 iterations do not converge
        params = fit_hmm(X, None, 2, max_iter=4, verbose=1)
    lines = _lines(capsys.readouterr().err)
    assert [step for step, _ in lines] == [0, 1, 2, 3]
    printed = np.array([fields["log_likelihood"] for _, fields in lines])
    np.testing.assert_allclose(printed, np.asarray(params.log_likelihoods)[:4], rtol=1e-6, atol=1e-4)


@pytest.mark.full
def test_verbose_0_prints_nothing_and_reuses_the_program_compiled_without_it(binary, capsys):
    X, y = binary
    kwargs = dict(loss="log_loss", n_estimators=5, max_depth=2, max_bin=16)
    fit_xgboost(X, y, **kwargs)
    before = _xgb._program._cache_size()
    silent = fit_xgboost(X, y, **kwargs, verbose=0)
    assert _xgb._program._cache_size() == before  # the same program: no callback, no recompile
    assert capsys.readouterr().err == ""
    every_third = fit_xgboost(X, y, **kwargs, verbose=3)
    assert _xgb._program._cache_size() == before + 1  # reporting is another program
    assert [step for step, _ in _lines(capsys.readouterr().err)] == [0, 3, 4]  # every 3rd and the last
    fit_xgboost(X, y, **kwargs, verbose=1)  # another interval: the same reporting program
    assert [step for step, _ in _lines(capsys.readouterr().err)] == [0, 1, 2, 3, 4]
    fit_xgboost(X, y, **kwargs, verbose=False)
    assert _xgb._program._cache_size() == before + 1
    assert capsys.readouterr().err == ""
    np.testing.assert_array_equal(np.asarray(silent.train_loss), np.asarray(every_third.train_loss))


def test_emit_without_progress_adds_nothing_to_the_trace():
    def loop(progress):
        def body(i, x):
            _progress.emit(progress, i, x)
            return x * 0.5
        return jax.lax.fori_loop(0, 3, body, jnp.float32(1.0))

    plain = str(jax.make_jaxpr(lambda: jax.lax.fori_loop(0, 3, lambda i, x: x * 0.5, jnp.float32(1.0)))())
    assert str(jax.make_jaxpr(lambda: loop(None))()) == plain
    assert "debug_callback" in str(jax.make_jaxpr(lambda: loop(_progress.spec(1, "t", ("x",))))())


def test_lines_without_tqdm_go_to_stderr(monkeypatch, capsys):
    monkeypatch.setattr(_progress, "_make_bar", lambda progress, total: None)
    progress = _progress.spec(2, "demo", ("train-rmse",), transforms=("rmse",))
    with _progress.reporting(progress, 3):
        for step in range(3):
            _progress._deliver(progress, np.int32(step), np.bool_(True), np.float32(0.5))
        _progress._deliver(progress, np.int32(1), np.bool_(True), np.float32(9.0))  # a copy: ignored
        _progress._deliver(progress, np.int32(3), np.bool_(False), np.float32(9.0))  # a skipped round
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == "[0]\ttrain-rmse:1.00000\n[2]\ttrain-rmse:1.00000\n"  # sqrt(2 * 0.5)


def test_a_report_outside_a_reporting_block_is_a_plain_line(capsys):
    progress = _progress.spec(1, "fit_demo", ("loss",))
    _progress._deliver(progress, np.int32(0), np.bool_(True), np.float32(0.25))
    assert capsys.readouterr().err == "fit_demo [0]\tloss:0.25000\n"


def test_done_prints_one_line_only_when_verbose(capsys):
    _progress.done(0, "RandomForestClassifier", "4 members")
    assert capsys.readouterr().err == ""
    _progress.done(1, "RandomForestClassifier", "4 members")
    assert capsys.readouterr().err == "RandomForestClassifier: 4 members\n"


@pytest.mark.full
def test_crf_prints_its_lbfgs_iterations(capsys):
    from jaxclassic.graphical.crf import fit_crf

    X = jnp.array([[[0], [1], [1]], [[1], [0], [-1]]])  # sparse: one feature per token
    y = jnp.array([[0, 1, 1], [1, 0, 0]])
    params = fit_crf(X, y, lengths=jnp.array([3, 2]), c2=0.01, verbose=1)
    lines = _lines(capsys.readouterr().err)
    assert [s for s, _ in lines] == list(range(int(params.n_iter)))
    assert set(lines[0][1]) == {"objective", "grad_norm"}
    assert lines[-1][1]["objective"] <= lines[0][1]["objective"]  # L-BFGS descends


@pytest.mark.full
@pytest.mark.filterwarnings("ignore::jaxclassic.exceptions.ConvergenceWarning")
def test_the_estimators_report_their_fits(binary, capsys):
    from jaxclassic import estimators as est

    X, y = binary
    labels = np.where(y > 0, "b", "a")
    est.GradientBoostingClassifier(n_estimators=3, max_depth=2, verbose=1).fit(X, labels)
    assert [s for s, f in _lines(capsys.readouterr().err)] == [0, 1, 2]
    est.XGBoostClassifier(n_estimators=3, max_depth=2).fit(X, labels, eval_set=[(X, labels)], verbose=True)
    lines = _lines(capsys.readouterr().err)
    assert [s for s, _ in lines] == [0, 1, 2] and "valid-logloss" in lines[0][1]
    gm = est.GaussianMixture(2, max_iter=30, tol=1e-8, verbose=1, verbose_interval=2, random_state=0).fit(X)
    steps = [s for s, _ in _lines(capsys.readouterr().err)]
    assert steps == sorted(set(list(range(0, gm.n_iter_, 2)) + [gm.n_iter_ - 1]))
    km = est.KMeans(2, verbose=1, random_state=0).fit(X)
    assert len(_lines(capsys.readouterr().err)) == km.n_iter_
    svc = est.SVC(verbose=1).fit(X, labels)
    lines = _lines(capsys.readouterr().err)
    assert lines and lines[-1][0] == int(np.max(svc.n_iter_)) - 1  # the last step, after the strides
    est.RandomForestClassifier(n_estimators=4, verbose=1).fit(X, labels)
    assert "RandomForestClassifier: 4 members" in capsys.readouterr().err
    est.VotingRegressor([("a", est.Ridge()), ("b", est.LinearRegression())], verbose=1).fit(X, y)
    assert capsys.readouterr().err.count("[VotingRegressor] (") == 2


@pytest.mark.parametrize("value, error", [(-1, ValueError), (1.5, TypeError), ("1", TypeError), (None, TypeError)])
def test_bad_verbose_is_refused_naming_it(value, error):
    with pytest.raises(error, match="verbose"):
        _progress.check_verbose(value)


def test_verbose_bool_is_0_or_1():
    assert _progress.check_verbose(True) == 1 and _progress.check_verbose(False) == 0
    assert _progress.spec(False, "x", ("a",)) is None


# --------------------------------------------------------------------------- n_jobs
@pytest.mark.parametrize("value, error", [(0, ValueError), (-2, ValueError), (1.5, TypeError), ("2", TypeError),
                                          (True, TypeError)])
def test_bad_n_jobs_is_refused_naming_it(value, error):
    with pytest.raises(error, match="n_jobs"):
        _cores.check_n_jobs(value)


def test_n_jobs_is_capped_at_the_devices_present_with_one_warning(monkeypatch):
    device = jax.devices("cpu")[0]
    monkeypatch.setitem(_cores._state, "devices", [device, device])  # two CPU devices, as use_cpu_cores(2)
    monkeypatch.setattr(_cores, "_warned", set())
    assert _cores.check_n_jobs(None) is None
    assert _cores.check_n_jobs(-1) == 2
    assert _cores.check_n_jobs(1) == 1
    with pytest.warns(UserWarning, match="use_cpu_cores"):
        assert _cores.check_n_jobs(8) == 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _cores.check_n_jobs(8) == 2  # once
    with _cores.limit_devices(1):  # one device: the plain program, however many rows
        assert _cores.row_mesh(10 ** 9) is None
        assert _cores.member_mesh(64, 10 ** 9) is None
    assert _cores._caps == []


def test_estimators_check_n_jobs_before_fitting(binary):
    from jaxclassic.estimators import RandomForestClassifier, XGBoostRegressor

    X, y = binary
    with pytest.raises(ValueError, match="n_jobs"):
        XGBoostRegressor(n_jobs=0).fit(X, y)
    with pytest.raises(TypeError, match="n_jobs"):
        RandomForestClassifier(n_jobs=2.0).fit(X, y)


@pytest.mark.full
def test_n_jobs_1_fits_the_one_device_model(binary):
    from jaxclassic.estimators import XGBoostRegressor

    X, y = binary
    a = XGBoostRegressor(n_estimators=3, max_depth=2, max_bin=16).fit(X, y)
    b = XGBoostRegressor(n_estimators=3, max_depth=2, max_bin=16, n_jobs=1).fit(X, y)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    with pytest.raises(ValueError, match="n_jobs"):
        XGBoostRegressor(n_jobs=0).fit(X, y)


_CHILD = r"""
import re, sys, io, contextlib
import jaxclassic.distributed as jd
assert jd.use_cpu_cores(2) == 2
import numpy as np
from jaxclassic import _cores, ensemble
_cores.MIN_ROWS = 0
calls = []
original = _cores.run_split
_cores.run_split = lambda *a, **k: calls.append(1) or original(*a, **k)
rng = np.random.default_rng(0)
X = rng.normal(size=(256, 3)).astype(np.float32); y = (X[:, 0] > 0).astype(np.float32)
fit = lambda: ensemble.fit_xgboost(X, y, loss="log_loss", n_estimators=4, max_depth=2, max_bin=16, verbose=1)
err = io.StringIO()
with contextlib.redirect_stderr(err):
    split = fit()
assert len(calls) == 1, calls
steps = [int(m) for m in re.findall(r"^\[(\d+)\]\t", err.getvalue().replace("\r", "\n"), re.M)]
assert steps == [0, 1, 2, 3], steps  # each round once, not once a device
with _cores.limit_devices(1):
    one = fit()
assert len(calls) == 1, calls  # n_jobs=1: the one-device program
np.testing.assert_allclose(np.asarray(one.train_loss), np.asarray(split.train_loss), rtol=1e-5)
from jaxclassic.estimators import RandomForestClassifier
RandomForestClassifier(n_estimators=4, n_jobs=1, random_state=0).fit(X, y)
assert len(calls) == 1, calls
print("ok")
"""


@pytest.mark.full
def test_n_jobs_caps_the_cores_of_a_split_fit_and_each_round_is_reported_once():
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    env = dict(os.environ, JAXCLASSIC_NO_EXECUTABLE_CACHE="1")
    out = subprocess.run([sys.executable, "-c", _CHILD], cwd=root, env=env, capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0 and out.stdout.strip().endswith("ok"), out.stderr[-3000:]
