r"""The one result type of every coefficient inference of :mod:`jaxclassic.linear`.

:func:`jaxclassic.linear.ols_inference` (t statistics) and
:func:`jaxclassic.linear.logistic_inference` (Wald z statistics) both return an
:class:`InferenceResult`, laid out as statsmodels lays out its results: one entry per
coefficient, the intercept FIRST (named ``const``, as ``statsmodels.add_constant`` names it)
when the fit has one, then the features (``x1, x2, ...`` unless ``feature_names`` are given).
For coefficient :math:`j` with estimate :math:`\hat\theta_j` and standard error
:math:`\widehat{\mathrm{se}}_j = \sqrt{\widehat{\mathrm{Cov}}_{jj}}`:

.. math::

    s_j = \hat\theta_j / \widehat{\mathrm{se}}_j, \qquad
    p_j = P(|S| \ge |s_j|), \qquad
    \hat\theta_j \pm q_{1-\alpha/2}\,\widehat{\mathrm{se}}_j,

with :math:`S` Student's t on ``df_resid`` degrees of freedom (``statistic == "t"``, OLS) or
the standard normal (``statistic == "z"``, Wald inference of a likelihood fit), and
:math:`q_{1-\alpha/2}` its quantile.

Layout of the fields. The first seven are the shared vocabulary of DESIGN.md (``estimates,
std_errors, statistics, p_values, conf_int, covariance, names``); after them come the same
five for every inference: ``statistic`` (``"t"`` or ``"z"``), ``fit_intercept`` (whether
entry 0 is the intercept), ``alpha`` (``conf_int`` is a ``1 - alpha`` interval), and the
scale figures OLS reports — ``df_resid``, ``sigma2`` (statsmodels' ``scale``) and ``rss`` —
which a likelihood fit fills with its own meaning where one exists and NaN where not
(logistic: ``df_resid = n - k`` as statsmodels' ``Logit``, ``sigma2 = 1`` the fixed
dispersion, ``rss`` NaN). So code reading an inference never branches on which fit made it.

``names``, ``statistic`` and ``fit_intercept`` are static (Python values): the type is
registered as a pytree whose children are the array fields only, so an inference still runs
eagerly, under ``jax.jit`` and under ``jax.vmap`` (the static fields travel as auxiliary data),
and ``jax.tree_util.tree_map`` over a result maps its arrays.

References
----------
Seabold & Perktold, "statsmodels: Econometric and statistical modeling with Python" (2010):
the ``summary()`` coefficient table reproduced by :meth:`InferenceResult.summary`.
Hastie, Tibshirani & Friedman, *The Elements of Statistical Learning*, 2nd ed., §3.2 and §4.4.2.
"""

from __future__ import annotations

from typing import NamedTuple, Sequence

import jax
import jax.numpy as jnp
import numpy as np

from jaxclassic import _deprecation

__all__ = ["InferenceResult", "coefficient_names"]

#: the fields held as static auxiliary data of the pytree (not arrays)
_STATIC_FIELDS = ("names", "statistic", "fit_intercept")


class InferenceResult(NamedTuple):
    r"""Coefficient inference of a fit (:func:`~jaxclassic.linear.ols_inference`,
    :func:`~jaxclassic.linear.logistic_inference`); the module docstring has the layout.

    Every per-coefficient array is ordered ``[intercept, coef_1, ..., coef_p]`` when the fit
    has an intercept (statsmodels' order with ``add_constant``), ``[coef_1, ..., coef_p]``
    otherwise; ``k`` denotes that length.

    Attributes
    ----------
    estimates : (k,) array
        The fitted intercept and coefficients :math:`\hat\theta`.
    std_errors : (k,) array
        :math:`\sqrt{\operatorname{diag}\widehat{\mathrm{Cov}}}` (statsmodels' ``bse``).
    statistics : (k,) array
        ``estimates / std_errors``: t values (``statistic == "t"``) or Wald z values.
    p_values : (k,) array
        Two-sided p-values of ``statistics`` under Student's t with ``df_resid`` degrees of
        freedom, or under the standard normal.
    conf_int : (k, 2) array
        ``estimates -/+ q_{1-alpha/2} * std_errors`` (statsmodels' ``conf_int(alpha)``).
    covariance : (k, k) array
        :math:`\widehat{\mathrm{Cov}}(\hat\theta)` (statsmodels' ``cov_params()``).
    names : tuple of str (static)
        The coefficients' names: ``"const"`` for the intercept, then ``feature_names`` or
        ``"x1", "x2", ...``.
    statistic : {"t", "z"} (static)
        Which distribution ``statistics``, ``p_values`` and ``conf_int`` refer to.
    fit_intercept : bool (static)
        Whether entry 0 is the intercept.
    alpha : () array
        ``conf_int`` is a ``1 - alpha`` interval.
    df_resid : () array
        Residual degrees of freedom :math:`n - k` (:math:`n` the rows of positive weight).
    sigma2 : () array
        The residual variance :math:`\mathrm{RSS}/\mathrm{df\_resid}` of OLS (statsmodels'
        ``scale``); 1 for a likelihood fit whose dispersion is fixed (logistic).
    rss : () array
        The weighted residual sum of squares of OLS; NaN for a likelihood fit.

    Methods
    -------
    summary()
        The coefficient table of statsmodels' ``summary()``, as plain text.
    """

    estimates: jax.Array
    std_errors: jax.Array
    statistics: jax.Array
    p_values: jax.Array
    conf_int: jax.Array
    covariance: jax.Array
    names: tuple[str, ...]
    statistic: str
    fit_intercept: bool
    alpha: jax.Array
    df_resid: jax.Array
    sigma2: jax.Array
    rss: jax.Array

    # ------------------------------------------------------------------ table
    def summary(self) -> str:
        """The coefficient table of statsmodels' ``summary()``, as plain text.

        Columns ``coef, std err, t (or z), P>|t| (or P>|z|)`` and the interval bounds
        ``[alpha/2, 1 - alpha/2]``; numbers in statsmodels' format (4 decimals for the
        coefficient, 3 elsewhere, ``%g`` beyond ``[1e-4, 1e4)``). Needs one inference (not a
        ``vmap``-ed batch) with concrete values. The text equals statsmodels' character for
        character when the inference ran in float64 (``jax_enable_x64``); in float32 (the
        default) the last printed digit can differ.

        Example
        -------
        >>> import jax.numpy as jnp
        >>> from jaxclassic.linear import fit_ols, ols_inference
        >>> X = jnp.array([[0.0], [1.0], [2.0], [3.0]]); y = jnp.array([1.0, 2.9, 5.2, 7.0])
        >>> print(ols_inference(fit_ols(X, y), X, y).summary())  # doctest: +NORMALIZE_WHITESPACE
        ==============================================================================
                         coef    std err          t      P>|t|      [0.025      0.975]
        ------------------------------------------------------------------------------
        const          0.9800      0.123      7.988      0.015       0.452       1.508
        x1             2.0300      0.066     30.957      0.001       1.748       2.312
        ==============================================================================
        """
        estimates = np.asarray(self.estimates, dtype=np.float64)
        if estimates.ndim != 1:
            raise ValueError(f"summary() needs one inference, got estimates of shape "
                             f"{estimates.shape} (a batch: index it first)")
        columns = [np.asarray(a, dtype=np.float64) for a in
                   (self.std_errors, self.statistics, self.p_values)]
        conf_int = np.asarray(self.conf_int, dtype=np.float64)
        alpha = float(self.alpha)
        stat = self.statistic
        name_width = max([len(str(n)) + 1 for n in self.names] + [11])  # 78 columns, as statsmodels
        lower, upper = f"[{alpha / 2:g}", f"{1 - alpha / 2:g}]"  # statsmodels' labels
        header = (" " * name_width + f"{'coef':>10}{'std err':>11}{stat:>11}"
                  f"{f'P>|{stat}|':>11}{lower:>12}{upper:>12}")
        width = max(78, len(header))
        lines = ["=" * width, header, "-" * width]
        for j, name in enumerate(self.names):
            lines.append(f"{str(name):<{name_width}}{_forg(estimates[j], 4):>10}"
                         f"{_forg(columns[0][j], 3):>11}{_forg(columns[1][j], 3):>11}"
                         f"{_fpval(columns[2][j]):>11}{_forg(conf_int[j, 0], 3):>12}"
                         f"{_forg(conf_int[j, 1], 3):>12}")
        lines.append("=" * width)
        return "\n".join(lines)

    # ------------------------------------------------------------------ deprecated names
    @property
    def t_values(self):
        """Deprecated: ``statistics`` (the t values of :func:`ols_inference`)."""
        _deprecation.warn("OLSInference.t_values", "InferenceResult.statistics")
        if self.statistic != "t":
            raise AttributeError("t_values exists only on a t inference (ols_inference); "
                                 "use statistics")
        return self.statistics

    @property
    def std_err(self):
        """Deprecated: ``std_errors``, in the old ``LogisticInference`` order (intercept LAST)."""
        _deprecation.warn("LogisticInference.std_err",
                          "InferenceResult.std_errors (intercept first)")
        return self._old_logistic_order(self.std_errors)

    @property
    def z(self):
        """Deprecated: ``statistics``, in the old ``LogisticInference`` order (intercept LAST)."""
        _deprecation.warn("LogisticInference.z", "InferenceResult.statistics (intercept first)")
        return self._old_logistic_order(self.statistics)

    @property
    def p_value(self):
        """Deprecated: ``p_values``, in the old ``LogisticInference`` order (intercept LAST)."""
        _deprecation.warn("LogisticInference.p_value",
                          "InferenceResult.p_values (intercept first)")
        return self._old_logistic_order(self.p_values)

    def _old_logistic_order(self, values):
        """``(w_1..w_d, b)``, the intercept NaN without one: what ``LogisticInference`` held."""
        if self.statistic != "z":
            raise AttributeError("std_err, z and p_value existed only on logistic_inference's "
                                 "result; use std_errors, statistics, p_values")
        values = jnp.asarray(values)
        if self.fit_intercept:
            return jnp.concatenate([values[..., 1:], values[..., :1]], axis=-1)
        return jnp.concatenate([values, jnp.full(values.shape[:-1] + (1,), jnp.nan, values.dtype)],
                               axis=-1)


def _flatten(result: InferenceResult):
    children = tuple(getattr(result, f) for f in InferenceResult._fields if f not in _STATIC_FIELDS)
    return children, tuple(getattr(result, f) for f in _STATIC_FIELDS)


def _unflatten(aux, children):
    values = dict(zip(_STATIC_FIELDS, aux))
    arrays = iter(children)
    return InferenceResult(*(values[f] if f in values else next(arrays)
                             for f in InferenceResult._fields))


jax.tree_util.register_pytree_node(InferenceResult, _flatten, _unflatten)

# the old spellings this type keeps for one minor version (read by the vocabulary tests)
_deprecation.RENAMES.extend([
    ("jaxclassic.linear.InferenceResult", "t_values", "statistics"),
    ("jaxclassic.linear.InferenceResult", "std_err", "std_errors"),
    ("jaxclassic.linear.InferenceResult", "z", "statistics"),
    ("jaxclassic.linear.InferenceResult", "p_value", "p_values"),
])


# --------------------------------------------------------------------------- helpers
def coefficient_names(n_features: int, fit_intercept: bool,
                      feature_names: Sequence[str] | None = None) -> tuple[str, ...]:
    """statsmodels' default coefficient names: ``("const", "x1", ..., "xp")``.

    ``feature_names`` (``n_features`` strings) replace ``x1..xp``; ``const`` is there only
    with an intercept. A wrong count is a ``ValueError``, a non-string a ``TypeError``.
    """
    if feature_names is None:
        features = tuple(f"x{j + 1}" for j in range(n_features))
    else:
        if isinstance(feature_names, str):
            raise TypeError(f"feature_names must be a sequence of str, got the str {feature_names!r}")
        features = tuple(feature_names)
        if len(features) != n_features:
            raise ValueError(f"feature_names must have n_features={n_features} names, "
                             f"got {len(features)}")
        for name in features:
            if not isinstance(name, str):
                raise TypeError(f"feature_names must be strings, got {type(name).__name__} "
                                f"{name!r}")
    return (("const",) if fit_intercept else ()) + features


def _forg(x: float, prec: int) -> str:
    """statsmodels' ``forg``: fixed point, or ``%g`` outside ``[1e-4, 1e4)``."""
    if not np.isfinite(x):
        return "nan" if np.isnan(x) else ("inf" if x > 0 else "-inf")
    if abs(x) >= 1e4 or (abs(x) < 1e-4 and x != 0):
        return f"{x:.{prec}g}"
    return f"{x:.{prec}f}"


def _fpval(p: float) -> str:
    return "nan" if not np.isfinite(p) else f"{p:#6.3f}"
