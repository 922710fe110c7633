r"""The bias-variance decomposition of the expected squared test error, by simulation.

Let :math:`y = f(x) + \varepsilon` with :math:`E\varepsilon = 0`,
:math:`\operatorname{Var}\varepsilon = \sigma^2(x)`, and let :math:`h_D` be the model fitted
on a training set :math:`D` drawn from the data distribution, independent of the test noise.
Write :math:`\bar h(x) = E_D\, h_D(x)`. At a test point :math:`x`,

.. math::

    E_{D,\varepsilon}\big[(h_D(x) - y)^2\big]
    &= E\big[(h_D(x) - \bar h(x) + \bar h(x) - f(x) - \varepsilon)^2\big] \\
    &= \underbrace{E_D\big[(h_D(x) - \bar h(x))^2\big]}_{\text{variance}}
     + \underbrace{\big(\bar h(x) - f(x)\big)^2}_{\text{bias}^2}
     + \underbrace{\sigma^2(x)}_{\text{noise}},

because the cross terms vanish: :math:`E_D[h_D(x) - \bar h(x)] = 0`, and :math:`\varepsilon`
is independent of :math:`D` with mean 0 (ESL eq. 7.9).

:func:`bias_variance_decomposition` estimates each term by Monte Carlo: it draws
``n_datasets`` training sets from ``sample_dataset`` (vmapped), fits each, and predicts at
the test points. With :math:`B` datasets, :math:`\hat{\bar h} = \tfrac1B\sum_b h_b`,
:math:`\widehat{\text{var}} = \tfrac1B\sum_b (h_b - \hat{\bar h})^2` and
:math:`\widehat{\text{bias}^2} = (\hat{\bar h} - f)^2`, so that
:math:`\widehat{\text{var}} + \widehat{\text{bias}^2} = \tfrac1B\sum_b (h_b - f)^2` exactly.
It also estimates the left-hand side directly, drawing fresh Gaussian test noise
:math:`y_{b} = f(x) + \sigma(x) z_b` for each dataset, with the standard error of that
estimate, so the decomposition can be checked.

References
----------
Hastie, Tibshirani, Friedman, *The Elements of Statistical Learning*, 2nd ed., §7.3, eq. (7.9).
Geman, Bienenstock, Doursat, "Neural networks and the bias/variance dilemma",
*Neural Computation* 4, 1992.
"""

from __future__ import annotations

from functools import partial
from typing import Any, Callable, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxclassic import _jit
from jaxclassic._deprecation import key_moved
from jaxclassic.model_selection.cross_validation import _check_hyperparameters, _static_kwargs
from jaxclassic.validation import check_array, check_int, check_key, check_scalar

__all__ = ["BiasVarianceResult", "bias_variance_decomposition"]


class BiasVarianceResult(NamedTuple):
    r"""Outcome of :func:`bias_variance_decomposition`.

    Attributes
    ----------
    bias_sq : (m,) float
        :math:`(\bar h(x) - f(x))^2` at each test point.
    variance : (m,) float
        :math:`E_D (h_D(x) - \bar h(x))^2` at each test point.
    noise : (m,) float
        :math:`\sigma^2(x)` at each test point.
    expected_error : (m,) float
        Monte-Carlo estimate of :math:`E (h_D(x) - y)^2` at each test point (fresh test noise).
    avg_bias_sq, avg_variance, avg_noise, avg_expected_error : float scalars
        Their means over the test points.
    expected_error_se : float scalar
        Standard error of ``avg_expected_error`` (over the independent datasets).
    mean_prediction : (m,) float
        :math:`\bar h(x)`.
    predictions : (n_datasets, m) float
        :math:`h_D(x)` for every dataset.
    """

    bias_sq: jax.Array
    variance: jax.Array
    noise: jax.Array
    expected_error: jax.Array
    avg_bias_sq: jax.Array
    avg_variance: jax.Array
    avg_noise: jax.Array
    avg_expected_error: jax.Array
    expected_error_se: jax.Array
    mean_prediction: jax.Array
    predictions: jax.Array


@partial(_jit.jit, static_argnames=("fit", "predict", "sample_dataset", "n_datasets", "fit_kwargs"))
def _bias_variance_program(key, x_test, f_values, noise_var, hyperparameters, *, fit, predict,
                           sample_dataset, n_datasets, fit_kwargs):
    data_key, noise_key = jax.random.split(key)

    def one(k):
        X, y = sample_dataset(k)
        params = fit(X, y, **hyperparameters, **dict(fit_kwargs))
        return jnp.reshape(predict(params, x_test), (x_test.shape[0],))

    preds = jax.vmap(one)(jax.random.split(data_key, n_datasets)).astype(f_values.dtype)
    mean_prediction = preds.mean(axis=0)
    bias_sq = jnp.square(mean_prediction - f_values)
    variance = jnp.mean(jnp.square(preds - mean_prediction), axis=0)
    noise = jnp.broadcast_to(noise_var, f_values.shape).astype(f_values.dtype)
    # fresh test targets y = f(x) + sigma(x) z, independent of the training sets
    z = jax.random.normal(noise_key, preds.shape, dtype=f_values.dtype)
    errors = jnp.square(preds - (f_values + jnp.sqrt(noise) * z))
    per_dataset = errors.mean(axis=1)  # independent across datasets
    se = jnp.std(per_dataset, ddof=1) / jnp.sqrt(n_datasets)
    return BiasVarianceResult(
        bias_sq, variance, noise, errors.mean(axis=0),
        bias_sq.mean(), variance.mean(), noise.mean(), per_dataset.mean(), se,
        mean_prediction, preds,
    )


@key_moved(3)
def bias_variance_decomposition(
    fit: Callable,
    predict: Callable,
    sample_dataset: Callable,
    n_datasets: int,
    x_test: Any,
    f_true: Any,
    noise_var: Any,
    *,
    key: Any = None,
    hyperparameters: dict | None = None,
    fit_kwargs: dict | None = None,
) -> BiasVarianceResult:
    r"""Estimate bias², variance and noise of a fitting procedure by simulation.

    .. math::

        E_{D,\varepsilon}\big[(h_D(x) - y)^2\big] = \operatorname{Var}_D h_D(x)
        + \big(E_D h_D(x) - f(x)\big)^2 + \sigma^2(x)

    (the derivation is in the module docstring; ESL §7.3). All ``n_datasets`` fits are one
    ``vmap`` in one jitted program.

    Until jaxclassic 0.3.0 the 0.1 call with the key fourth,
    ``bias_variance_decomposition(fit, predict, sample_dataset, key, n_datasets, ...)``, works
    with a ``DeprecationWarning``.

    Parameters
    ----------
    fit : callable
        ``fit(X, y, **hyperparameters, **fit_kwargs) -> params``.
    predict : callable
        ``predict(params, x_test) -> (m,)`` predictions.
    sample_dataset : callable
        ``sample_dataset(key) -> (X, y)``: one training set drawn from the data
        distribution, with fixed shapes (pure and jittable).
    n_datasets : int >= 2
        Number of training sets.
    x_test : (m, d) or (m,) array
        Test inputs.
    f_true : callable or (m,) array
        The regression function :math:`f`: ``f_true(x_test)`` or its values at ``x_test``.
    noise_var : float or (m,) array
        :math:`\sigma^2(x)`, the variance of the (Gaussian) noise at the test points.
    key : jax.random key, optional
        Draws the datasets and the fresh test noise; same key, same estimates. ``None``: the
        default key ``jax.random.key(0)``.
    hyperparameters : dict, optional
        Traced arguments of ``fit`` (``{"alpha": 0.1}``): a new value reuses the compiled program.
    fit_kwargs : dict, optional
        Static arguments of ``fit`` (``{"degree": 3}``).

    Returns
    -------
    BiasVarianceResult

    Example
    -------
    >>> import jax, jax.numpy as jnp
    >>> def sample(key):
    ...     x = jax.random.uniform(key, (20, 1), minval=-1, maxval=1)
    ...     return x, jnp.sin(3 * x[:, 0]) + 0.3 * jax.random.normal(key, (20,))
    >>> fit = lambda X, y: jnp.polyfit(X[:, 0], y, 3)
    >>> predict = lambda p, X: jnp.polyval(p, X[:, 0])
    >>> x = jnp.linspace(-1, 1, 11)[:, None]
    >>> r = bias_variance_decomposition(fit, predict, sample, 200, x,
    ...                                 lambda x: jnp.sin(3 * x[:, 0]), 0.09, key=jax.random.key(0))
    >>> r.variance.shape
    (11,)
    """
    for name, fn in (("fit", fit), ("predict", predict), ("sample_dataset", sample_dataset)):
        if not callable(fn):
            raise TypeError(f"{name} must be callable, got {type(fn).__name__}")
    key = jax.random.key(0) if key is None else check_key(key)
    n_datasets = check_int(n_datasets, "n_datasets", low=2)
    x_test = check_array(x_test, "x_test", ndim=(1, 2))
    dtype = x_test.dtype
    m = x_test.shape[0]
    f_values = f_true(x_test) if callable(f_true) else f_true
    f_values = check_array(f_values, "f_true", ndim=(0, 1), dtype=dtype, min_samples=0)
    f_values = jnp.broadcast_to(f_values, (m,)) if f_values.ndim == 0 else f_values
    if f_values.shape != (m,):
        raise ValueError(f"f_true must give one value per test point ({m}), got shape {f_values.shape}")
    if np.ndim(noise_var) == 0:
        check_scalar(noise_var, "noise_var", low=0.0)
        noise = jnp.asarray(noise_var, dtype)
    else:
        noise = check_array(noise_var, "noise_var", ndim=1, dtype=dtype)
        if noise.shape != (m,):
            raise ValueError(f"noise_var must be a scalar or have shape ({m},), got {noise.shape}")
        if bool(jnp.any(noise < 0)):
            raise ValueError("noise_var must be non-negative")
    hp = _check_hyperparameters(hyperparameters, dtype)
    return _bias_variance_program(
        key, x_test, f_values, noise, hp,
        fit=fit, predict=predict, sample_dataset=sample_dataset, n_datasets=n_datasets,
        fit_kwargs=_static_kwargs(fit_kwargs),
    )
