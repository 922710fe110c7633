"""Tests of jaxclassic/linear/inference.py: the one InferenceResult of ols_inference and
logistic_inference (issue 27), against statsmodels' OLS / Logit on small synthetic data.

Tolerances: both sides are float64 (x64 on, from conftest). OLS is a direct solve on a
well-conditioned 60 x 3 design: 1e-9 relative. Logistic: both sides run Newton to a gradient
of ~1e-12, so the coefficients agree to ~1e-9 and the standard errors (functions of them) to
the same order: 1e-7 relative leaves room for the different Newton paths.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxclassic.linear import (
    InferenceResult,
    fit_logistic,
    fit_ols,
    logistic_inference,
    ols_inference,
)

sm = pytest.importorskip("statsmodels.api")


@pytest.fixture(scope="module")
def regression():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = X @ np.array([1.0, -0.5, 0.0]) + 2.0 + rng.normal(size=60)
    return X, y


@pytest.fixture(scope="module")
def classification():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(200, 2))
    f = 1.2 * X[:, 0] - 0.7 * X[:, 1] + 0.3
    y = (rng.uniform(size=200) < 1 / (1 + np.exp(-f))).astype(np.int32)
    return X, y


@pytest.fixture(scope="module")
def ols_pair(regression):
    X, y = regression
    return ols_inference(fit_ols(X, y), X, y), sm.OLS(y, sm.add_constant(X)).fit()


@pytest.fixture(scope="module")
def logit_pair(classification):
    X, y = classification
    ours = logistic_inference(fit_logistic(X, y, tol=1e-12), X, y)
    ref = sm.Logit(y, sm.add_constant(X)).fit(disp=0, method="newton", tol=1e-12, maxiter=100)
    return ours, ref


def _close(ours, ref, rtol, atol=0.0):
    np.testing.assert_allclose(np.asarray(ours), np.asarray(ref), rtol=rtol, atol=atol)


# ----------------------------------------------------------------- one type, statsmodels' numbers
def test_ols_inference_equals_statsmodels(ols_pair):
    inf, ref = ols_pair
    assert isinstance(inf, InferenceResult) and inf.statistic == "t" and inf.fit_intercept
    assert inf.names == ("const", "x1", "x2", "x3")  # statsmodels' default names
    _close(inf.estimates, ref.params, 1e-9)
    _close(inf.std_errors, ref.bse, 1e-9)
    _close(inf.statistics, ref.tvalues, 1e-9)
    _close(inf.p_values, ref.pvalues, 1e-9)
    _close(inf.conf_int, ref.conf_int(0.05), 1e-9)
    _close(inf.covariance, ref.cov_params(), 1e-9, atol=1e-15)
    _close(inf.sigma2, ref.scale, 1e-9)
    _close(inf.rss, ref.ssr, 1e-9)
    assert float(inf.df_resid) == ref.df_resid


def test_logistic_inference_equals_statsmodels_intercept_first(logit_pair):
    inf, ref = logit_pair
    assert isinstance(inf, InferenceResult) and inf.statistic == "z"
    assert inf.names == ("const", "x1", "x2")
    _close(inf.estimates, ref.params, 1e-7)
    _close(inf.std_errors, ref.bse, 1e-7)
    _close(inf.statistics, ref.tvalues, 1e-7)
    _close(inf.p_values, ref.pvalues, 1e-6)
    _close(inf.conf_int, ref.conf_int(0.05), 1e-7)
    _close(inf.covariance, ref.cov_params(), 1e-7)
    assert float(inf.df_resid) == ref.df_resid  # n - k, as statsmodels' Logit
    assert float(inf.sigma2) == 1.0 and np.isnan(float(inf.rss))  # fixed dispersion, no RSS


def test_logistic_conf_int_level_follows_alpha(classification, logit_pair):
    X, y = classification
    _, ref = logit_pair
    inf = logistic_inference(fit_logistic(X, y, tol=1e-12), X, y, alpha=0.1)
    _close(inf.conf_int, ref.conf_int(0.1), 1e-7)


def test_feature_names_name_the_coefficients(regression):
    X, y = regression
    inf = ols_inference(fit_ols(X, y), X, y, feature_names=["a", "b", "c"])
    assert inf.names == ("const", "a", "b", "c")
    inf0 = ols_inference(fit_ols(X, y, fit_intercept=False), X, y, fit_intercept=False)
    assert inf0.names == ("x1", "x2", "x3") and not inf0.fit_intercept


def test_same_fields_for_every_inference(ols_pair, logit_pair):
    shared = ("estimates", "std_errors", "statistics", "p_values", "conf_int", "covariance", "names")
    assert InferenceResult._fields[:7] == shared
    for inf in (ols_pair[0], logit_pair[0]):
        k = len(inf.names)
        assert inf.estimates.shape == inf.std_errors.shape == inf.statistics.shape == (k,)
        assert inf.p_values.shape == (k,) and inf.conf_int.shape == (k, 2)
        assert inf.covariance.shape == (k, k)


# ----------------------------------------------------------------- summary
def test_summary_is_statsmodels_coefficient_table(ols_pair, logit_pair):
    for inf, ref, stat in ((*ols_pair, "t"), (*logit_pair, "z")):
        text = inf.summary()
        lines = text.splitlines()
        header = lines[1].split()
        assert header == ["coef", "std", "err", stat, f"P>|{stat}|", "[0.025", "0.975]"]
        assert lines[0] == lines[-1] and set(lines[0]) == {"="}
        rows = lines[3:-1]
        assert [row.split()[0] for row in rows] == list(inf.names)
        # the printed numbers are statsmodels' (rounded as its table rounds them)
        const = rows[0].split()
        assert float(const[1]) == pytest.approx(ref.params[0], abs=1e-4)
        assert float(const[2]) == pytest.approx(ref.bse[0], abs=1e-3)
        assert float(const[5]) == pytest.approx(ref.conf_int(0.05)[0, 0], abs=1e-3)
        # and the whole table is statsmodels' own, character for character
        assert text == ref.summary().tables[1].as_text()


def test_summary_needs_one_inference(ols_pair):
    batch = jax.tree_util.tree_map(lambda a: jnp.stack([a, a]), ols_pair[0])
    assert batch.names == ols_pair[0].names  # static fields travel as auxiliary data
    with pytest.raises(ValueError, match="summary\\(\\) needs one inference"):
        batch.summary()


# ----------------------------------------------------------------- pytree, jit
def test_static_fields_are_not_leaves_and_jit_works(regression, ols_pair):
    X, y = regression
    inf = ols_pair[0]
    leaves = jax.tree_util.tree_leaves(inf)
    assert not any(isinstance(leaf, (str, tuple, bool)) for leaf in leaves)
    jitted = jax.jit(lambda X, y: ols_inference(fit_ols(X, y), X, y))(X, y)
    assert jitted.names == inf.names and jitted.statistic == "t"
    _close(jitted.std_errors, inf.std_errors, 1e-12)


# ----------------------------------------------------------------- bad input
def test_feature_names_of_the_wrong_length(regression):
    X, y = regression
    with pytest.raises(ValueError, match="feature_names must have n_features=3 names, got 2"):
        ols_inference(fit_ols(X, y), X, y, feature_names=["a", "b"])


def test_feature_names_not_strings(classification):
    X, y = classification
    params = fit_logistic(X, y)
    with pytest.raises(TypeError, match="feature_names must be strings, got int 1"):
        logistic_inference(params, X, y, feature_names=[1, 2])


def test_logistic_alpha_out_of_range(classification):
    X, y = classification
    with pytest.raises(ValueError, match="alpha must be < 1.0"):
        logistic_inference(fit_logistic(X, y), X, y, alpha=1.0)


# ----------------------------------------------------------------- deprecated spellings
def test_old_ols_field_t_values_warns_and_equals_statistics(ols_pair):
    inf = ols_pair[0]
    with pytest.warns(DeprecationWarning, match="InferenceResult.statistics"):
        old = inf.t_values
    np.testing.assert_array_equal(old, inf.statistics)


@pytest.mark.parametrize("old, new", [("std_err", "std_errors"), ("z", "statistics"),
                                      ("p_value", "p_values")])
def test_old_logistic_fields_warn_and_keep_the_intercept_last_order(logit_pair, old, new):
    inf = logit_pair[0]
    with pytest.warns(DeprecationWarning, match=f"InferenceResult.{new}"):
        values = getattr(inf, old)
    current = np.asarray(getattr(inf, new))
    np.testing.assert_array_equal(values, np.r_[current[1:], current[0]])  # (w..., b)


def test_old_logistic_fields_without_intercept_end_in_nan(classification):
    X, y = classification
    inf = logistic_inference(fit_logistic(X, y, fit_intercept=False), X, y, fit_intercept=False)
    with pytest.warns(DeprecationWarning, match="InferenceResult.std_errors"):
        old = np.asarray(inf.std_err)
    np.testing.assert_array_equal(old[:2], inf.std_errors)
    assert old.shape == (3,) and np.isnan(old[2])


def test_old_result_type_names_warn_and_are_the_new_type():
    from jaxclassic.linear import logistic, ols

    with pytest.warns(DeprecationWarning, match="jaxclassic.linear.InferenceResult"):
        assert ols.OLSInference is InferenceResult
    with pytest.warns(DeprecationWarning, match="jaxclassic.linear.InferenceResult"):
        assert logistic.LogisticInference is InferenceResult
