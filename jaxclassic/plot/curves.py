r"""Curves of model selection: regularisation paths, learning and validation curves,
bias-variance against complexity, the k-means elbow and boosting's evaluation log.

Every function draws what a jaxclassic result holds (``LassoPath``, ``ridge_path``'s
coefficients, ``LearningCurveResult``, ``ValidationCurveResult``, ``BiasVarianceResult``,
``KMeansElbow``, a boosting fit's ``train_loss`` / ``eval_loss``): one line per quantity,
whose ``xdata`` / ``ydata`` are the result's numbers.

References
----------
Hastie, Tibshirani, Friedman, *The Elements of Statistical Learning*, 2nd ed.: Figure 3.8
(ridge path), 3.10 (lasso path), 7.1 and 7.8 (learning curves, bias-variance), 10.2 (boosting
test error per iteration).
R. L. Thorndike, "Who belongs in the family?", *Psychometrika* 18 (1953) (the elbow).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from jaxclassic.plot._common import as_numpy, axes, fit_to_figure, names
from jaxclassic.validation import check_int

__all__ = ["regularization_path", "learning_curve", "validation_curve", "bias_variance",
           "elbow", "boosting_eval_log"]


def _x_values(values: Any, name: str) -> tuple[np.ndarray, list[str] | None]:
    """Numeric x positions of ``values``, or ``0..n-1`` with the values as tick labels."""
    raw = np.asarray(values)
    if raw.ndim != 1 or raw.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-d sequence, got shape {raw.shape}")
    if raw.dtype.kind in "biuf":
        return as_numpy(raw, name), None
    return np.arange(raw.size, dtype=float), [str(v) for v in raw.tolist()]


# --------------------------------------------------------------------------- regularisation path
def regularization_path(path, alphas=None, *, feature_names=None, ax=None, log_scale: bool = True,
                        legend: bool = True):
    r"""Coefficients against the penalty: one line :math:`\alpha \mapsto \beta_j(\alpha)` per feature.

    For the lasso, :math:`\beta(\alpha) = \arg\min \tfrac1{2n}\lVert y - X\beta\rVert^2 +
    \alpha\lVert\beta\rVert_1` (:func:`jaxclassic.linear.lasso_path`); for ridge,
    :math:`\beta(\alpha) = (X^\top X + \alpha I)^{-1}X^\top y`
    (:func:`jaxclassic.linear.ridge_path`). Coefficients shrink to 0 as :math:`\alpha` grows
    (ESL Figures 3.8 and 3.10).

    Parameters
    ----------
    path : LassoPath or LinearParams
        A :func:`~jaxclassic.linear.lasso_path` result (``alphas``, ``coefs``), or the
        ``LinearParams`` of :func:`~jaxclassic.linear.ridge_path` (``coef`` of shape
        ``(n_alphas, n_features)``; then ``alphas`` is needed).
    alphas : (n_alphas,) array, optional
        The penalties of the rows; default ``path.alphas``.
    feature_names : sequence of str, optional
        Line labels (default ``x0, x1, ...``).
    ax : matplotlib Axes, optional
    log_scale : bool
        A logarithmic alpha axis (then every alpha must be > 0).
    legend : bool
        Show the legend: outside the Axes on the right, so it covers no line (in columns of
        at most 15 names); a figure without a layout engine gets matplotlib's constrained
        layout, which keeps the legend, ticks and labels inside the figure at small sizes.

    Returns
    -------
    matplotlib Axes
        ``ax.lines[j]``: ``xdata = alphas``, ``ydata = coefs[:, j]``.

    Example
    -------
    >>> import jax.numpy as jnp
    >>> from matplotlib.figure import Figure
    >>> from jaxclassic.linear import lasso_path
    >>> X = jnp.array([[0., 1.], [1., 0.], [2., 1.], [3., 0.]])
    >>> path = lasso_path(X, jnp.array([0., 1., 2., 3.]), n_alphas=5)
    >>> ax = regularization_path(path, ax=Figure().add_subplot())
    >>> len(ax.lines)
    2

    References
    ----------
    ESL §3.4, Figures 3.8, 3.10; Friedman, Hastie & Tibshirani (2010), J. Stat. Software 33(1).
    """
    coefs = getattr(path, "coefs", None)
    if coefs is None:
        coefs = getattr(path, "coef", None)
    if coefs is None:
        raise TypeError("path must be a LassoPath (lasso_path) or the LinearParams of ridge_path, "
                        f"got {type(path).__name__}")
    if alphas is None:
        alphas = getattr(path, "alphas", None)
        if alphas is None:
            raise ValueError(f"alphas must be given for a {type(path).__name__} (ridge_path returns "
                             "no alphas), got None")
    coefs = as_numpy(coefs, "path coefficients", ndim=2)
    alphas = as_numpy(alphas, "alphas")
    if coefs.shape[0] != alphas.shape[0]:
        raise ValueError(f"alphas must hold one penalty per row of the coefficients "
                         f"({coefs.shape[0]}), got {alphas.shape[0]}")
    if log_scale and np.any(alphas <= 0):
        raise ValueError(f"alphas must be > 0 on a log scale (log_scale=False draws them), got "
                         f"min {alphas.min()}")
    labels = names(feature_names, coefs.shape[1], "feature_names", "x{}")
    ax = axes(ax)
    for j, label in enumerate(labels):
        ax.plot(alphas, coefs[:, j], label=label)
    if log_scale:
        ax.set_xscale("log")
    ax.set_xlabel("alpha")
    ax.set_ylabel("coefficient")
    if legend:
        ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0, fontsize="small",
                  ncol=max(1, -(-len(labels) // 15)))
    fit_to_figure(ax)
    return ax


# --------------------------------------------------------------------------- learning / validation
def _score_table(scores: Any, name: str, n: int) -> np.ndarray:
    table = as_numpy(scores, name, ndim=2, allow_nan=True)
    if table.shape[0] != n:
        raise ValueError(f"{name} must have one row per point of the curve ({n}), got {table.shape[0]}")
    return table


def _mean_band(ax, x, scores, label, colour):
    """The mean over folds as a line, and mean ± one standard deviation as a band."""
    mean, std = np.nanmean(scores, axis=1), np.nanstd(scores, axis=1)
    ax.plot(x, mean, marker="o", color=colour, label=label)
    ax.fill_between(x, mean - std, mean + std, color=colour, alpha=0.2)


def learning_curve(result, *, ax=None, score_name: str = "score"):
    r"""Training and validation score against the number of training rows (mean ± std over folds).

    Draws :func:`jaxclassic.model_selection.learning_curve`'s result: for each size :math:`m`
    the means :math:`\bar s(m) = \frac1K\sum_k s_k(m)` over the ``K`` folds, with bands
    :math:`\bar s \pm \operatorname{sd}_k s_k(m)` (NaN scores left out). A gap that stays
    wide means variance; two low curves that meet mean bias (ESL §7.10).

    Parameters
    ----------
    result : LearningCurveResult or (train_sizes, train_scores, val_scores)
        Sizes ``(S,)``, scores ``(S, K)`` (scikit-learn's ``learning_curve`` triple works too).
    ax : matplotlib Axes, optional
    score_name : str
        The y-axis label.

    Returns
    -------
    matplotlib Axes
        ``lines[0]`` training means, ``lines[1]`` validation means; ``collections`` their bands.

    Example
    -------
    >>> from matplotlib.figure import Figure
    >>> result = ([10, 20], [[1.0, 0.5], [1.0, 1.0]], [[0.5, 0.75], [0.75, 0.75]])
    >>> ax = learning_curve(result, ax=Figure().add_subplot())
    >>> ax.lines[1].get_ydata().tolist()
    [0.625, 0.75]

    References
    ----------
    ESL §7.10, Figure 7.8.
    """
    sizes, train, val = result
    sizes, _ = _x_values(sizes, "train_sizes")
    train = _score_table(train, "train_scores", sizes.shape[0])
    val = _score_table(val, "val_scores", sizes.shape[0])
    ax = axes(ax)
    _mean_band(ax, sizes, train, "training", "C0")
    _mean_band(ax, sizes, val, "validation", "C1")
    ax.set_xlabel("training rows")
    ax.set_ylabel(score_name)
    ax.legend(loc="best")
    return ax


def validation_curve(result, *, param_name: str = "parameter", ax=None, score_name: str = "score",
                     log_scale: bool = False):
    r"""Training and validation score against one hyperparameter (mean ± std over folds).

    Draws :func:`jaxclassic.model_selection.validation_curve`'s result as
    :func:`learning_curve` does, over the values :math:`\lambda_p` of the hyperparameter;
    the best :math:`\lambda` maximises the validation mean. Non-numeric values (a static
    option) are drawn at ``0..P-1`` with the values as tick labels.

    Parameters
    ----------
    result : ValidationCurveResult or (param_range, train_scores, val_scores)
        Values ``(P,)``, scores ``(P, K)``.
    param_name : str
        The x-axis label.
    ax : matplotlib Axes, optional
    score_name : str
        The y-axis label.
    log_scale : bool
        A logarithmic x axis (penalties, bandwidths).

    Returns
    -------
    matplotlib Axes
        ``lines[0]`` training means, ``lines[1]`` validation means.

    Example
    -------
    >>> from matplotlib.figure import Figure
    >>> result = ([0.1, 1.0], [[1.0, 0.5], [0.75, 0.75]], [[0.5, 0.75], [0.5, 0.5]])
    >>> ax = validation_curve(result, ax=Figure().add_subplot(), log_scale=True)
    >>> ax.lines[0].get_ydata().tolist()
    [0.75, 0.75]

    References
    ----------
    ESL §7.10; scikit-learn's ``validation_curve``.
    """
    values, train, val = result
    x, ticks = _x_values(values, "param_range")
    train = _score_table(train, "train_scores", x.shape[0])
    val = _score_table(val, "val_scores", x.shape[0])
    ax = axes(ax)
    _mean_band(ax, x, train, "training", "C0")
    _mean_band(ax, x, val, "validation", "C1")
    if ticks is not None:
        ax.set_xticks(x, labels=ticks)
    elif log_scale:
        ax.set_xscale("log")
    ax.set_xlabel(param_name)
    ax.set_ylabel(score_name)
    ax.legend(loc="best")
    return ax


# --------------------------------------------------------------------------- bias-variance
_BV_FIELDS = ("avg_bias_sq", "avg_variance", "avg_noise", "avg_expected_error", "expected_error_se")


def bias_variance(complexity, results, *, ax=None, xlabel: str = "complexity", log_scale: bool = False):
    r"""Bias², variance, noise and the expected test error against model complexity.

    Each point is a :func:`jaxclassic.model_selection.bias_variance_decomposition` at one
    complexity :math:`c` (degree, :math:`1/\alpha`, depth...):

    .. math:: E(h_D(x) - y)^2 = \operatorname{Var}_D h_D(x) + (\bar h(x) - f(x))^2 + \sigma^2,

    averaged over the test points. Drawn: bias², variance, noise, their sum (dashed), and the
    Monte-Carlo estimate of the left-hand side with error bars of ± one standard error; the
    sum lying inside the bars checks the decomposition (ESL Figure 7.1's U shape).

    Parameters
    ----------
    complexity : (P,) array
        The complexity of each result (x axis).
    results : sequence of P BiasVarianceResult, or one with leading axis P
        A list of results, or a result vmapped over the complexity (``avg_*`` of shape ``(P,)``).
    ax : matplotlib Axes, optional
    xlabel : str
    log_scale : bool
        A logarithmic x axis.

    Returns
    -------
    matplotlib Axes
        ``lines[0..3]``: bias², variance, noise, their sum; ``lines[4]`` the estimated
        expected error (its error bars in ``collections``).

    Example
    -------
    >>> from matplotlib.figure import Figure
    >>> from jaxclassic.model_selection.bias_variance import BiasVarianceResult
    >>> r = [BiasVarianceResult(*([None] * 4), b, v, 0.1, b + v + 0.1, 0.01, None, None)
    ...      for b, v in [(0.5, 0.1), (0.1, 0.3)]]
    >>> bias_variance([1, 2], r, ax=Figure().add_subplot()).lines[3].get_ydata().tolist()
    [0.7, 0.5]

    References
    ----------
    ESL §7.3, eq. (7.9), Figure 7.1; Geman, Bienenstock & Doursat (1992).
    """
    x, ticks = _x_values(complexity, "complexity")
    if hasattr(results, "avg_bias_sq"):
        columns = {f: np.atleast_1d(np.asarray(getattr(results, f), dtype=float)) for f in _BV_FIELDS}
    else:
        results = list(results)
        missing = [type(r).__name__ for r in results if not hasattr(r, "avg_bias_sq")]
        if missing:
            raise TypeError(f"results must be BiasVarianceResult values, got {missing[0]}")
        columns = {f: np.asarray([float(getattr(r, f)) for r in results]) for f in _BV_FIELDS}
    for field, column in columns.items():
        if column.shape != x.shape:
            raise ValueError(f"results must hold one decomposition per complexity ({x.shape[0]}), "
                             f"got {field} of shape {column.shape}")
    bias_sq, variance, noise = columns["avg_bias_sq"], columns["avg_variance"], columns["avg_noise"]
    ax = axes(ax)
    ax.plot(x, bias_sq, marker="o", color="C0", label="bias²")
    ax.plot(x, variance, marker="o", color="C1", label="variance")
    ax.plot(x, noise, color="grey", linestyle=":", label="noise")
    ax.plot(x, bias_sq + variance + noise, color="k", linestyle="--", label="bias² + variance + noise")
    ax.errorbar(x, columns["avg_expected_error"], yerr=columns["expected_error_se"], color="C3",
                marker="s", linestyle="", capsize=3, label="expected test error (simulated)")
    if ticks is not None:
        ax.set_xticks(x, labels=ticks)
    elif log_scale:
        ax.set_xscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("squared error")
    ax.legend(loc="best", fontsize="small")
    return ax


# --------------------------------------------------------------------------- elbow
def elbow(result, *, ax=None, mark=None):
    r"""k-means inertia :math:`\sum_i \lVert x_i - c_{l_i}\rVert^2` against the number of clusters.

    The inertia falls with every added centre; the "elbow", where the fall slows, suggests
    ``k`` (Thorndike 1953). Draws :func:`jaxclassic.cluster.kmeans_elbow`'s result.

    Parameters
    ----------
    result : KMeansElbow or (n_clusters, inertia)
        ``(m,)`` values of ``k`` and their inertias.
    ax : matplotlib Axes, optional
    mark : int, optional
        A ``k`` to mark with a vertical dotted line.

    Returns
    -------
    matplotlib Axes
        ``lines[0]``: ``xdata = n_clusters``, ``ydata = inertia``.

    Example
    -------
    >>> from matplotlib.figure import Figure
    >>> ax = elbow(([1, 2, 3], [57.8, 10.2, 0.04]), ax=Figure().add_subplot())
    >>> ax.lines[0].get_xdata().tolist()
    [1.0, 2.0, 3.0]

    References
    ----------
    Thorndike (1953); ESL §14.3.11, Figure 14.8.
    """
    if hasattr(result, "inertia") and hasattr(result, "n_clusters"):
        ks, inertia = result.n_clusters, result.inertia
    else:
        ks, inertia = result
    ks = as_numpy(ks, "n_clusters")
    inertia = as_numpy(inertia, "inertia")
    if ks.shape != inertia.shape:
        raise ValueError(f"inertia must hold one value per k ({ks.shape[0]}), got {inertia.shape[0]}")
    if mark is not None:
        check_int(mark, "mark", low=1)
    ax = axes(ax)
    ax.plot(ks, inertia, marker="o", label="inertia")
    if mark is not None:
        ax.axvline(mark, color="grey", linestyle=":", label=f"k = {mark}")
    ax.set_xticks(ks, labels=[str(int(k)) for k in ks])
    ax.set_xlabel("number of clusters k")
    ax.set_ylabel("inertia (within-cluster sum of squares)")
    return ax


# --------------------------------------------------------------------------- boosting log
def _eval_series(log: Any) -> tuple[dict[str, np.ndarray], int | None]:
    """``{name: per-round values}`` and the best round (0-based) of a boosting log."""
    if isinstance(log, Mapping):
        series = {}
        for name, values in log.items():
            if isinstance(values, Mapping):  # xgboost's evals_result(): {set: {metric: [...]}}
                for metric, inner in values.items():
                    series[f"{name} {metric}"] = as_numpy(inner, f"log[{name!r}][{metric!r}]", allow_nan=True)
            else:
                series[str(name)] = as_numpy(values, f"log[{name!r}]", allow_nan=True)
        if not series:
            raise ValueError("log must hold at least one series, got an empty mapping")
        return series, None
    if not hasattr(log, "train_loss"):
        raise TypeError("log must be a boosting fit's params (with train_loss) or a mapping "
                        f"name -> values, got {type(log).__name__}")
    series = {"training": as_numpy(log.train_loss, "train_loss", allow_nan=True)}
    eval_loss = getattr(log, "eval_loss", None)
    if eval_loss is not None and not np.all(np.isnan(np.asarray(eval_loss, dtype=float))):
        series["validation"] = as_numpy(eval_loss, "eval_loss", allow_nan=True)
    n_iter = getattr(log, "n_iter", None)
    if n_iter is not None:  # rounds after an early stop hold NaN: leave them out
        series = {k: v[: int(n_iter)] for k, v in series.items()}
    best = getattr(log, "best_iteration", None)
    return series, (None if best is None or "validation" not in series else int(best))


def boosting_eval_log(log, *, ax=None, metric_name: str = "mean loss", log_scale: bool = False):
    r"""Training (and validation) loss after each boosting round, with the best round marked.

    After round :math:`m` the model is :math:`F_m = F_0 + \sum_{t \le m} \eta f_t`; the fit
    records :math:`\frac{\sum_i w_i \ell(y_i, F_m(x_i))}{\sum_i w_i}` on the training rows
    (``train_loss``) and on ``eval_set`` (``eval_loss``,
    :func:`jaxclassic.ensemble.fit_xgboost`). Training loss falls monotonically; the
    validation loss turns up when boosting overfits, and early stopping keeps the round of
    its minimum (``best_iteration``, a vertical dotted line).

    Parameters
    ----------
    log : params of a boosting fit, or mapping
        ``XGBoostParams`` / ``GradientBoostingParams`` (``train_loss``, and ``eval_loss``,
        ``best_iteration``, ``n_iter`` where present), or ``{name: per-round values}``
        (xgboost's nested ``evals_result()`` too).
    ax : matplotlib Axes, optional
    metric_name : str
        The y-axis label.
    log_scale : bool
        A logarithmic y axis.

    Returns
    -------
    matplotlib Axes
        One line per series, ``xdata = 1..T`` (rounds), ``ydata`` the values.

    Example
    -------
    >>> from matplotlib.figure import Figure
    >>> log = {"train": [0.5, 0.3, 0.2], "valid": [0.6, 0.5, 0.55]}
    >>> ax = boosting_eval_log(log, ax=Figure().add_subplot())
    >>> ax.lines[1].get_xdata().tolist()
    [1, 2, 3]

    References
    ----------
    ESL §10.12-10.13, Figure 10.2; Chen & Guestrin, "XGBoost", KDD 2016.
    """
    series, best = _eval_series(log)
    ax = axes(ax)
    for name, values in series.items():
        ax.plot(np.arange(1, values.shape[0] + 1), values, label=name)
    if best is not None:
        ax.axvline(best + 1, color="grey", linestyle=":", label=f"best round {best + 1}")
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # rounds are whole numbers
    if log_scale:
        ax.set_yscale("log")
    ax.set_xlabel("boosting round")
    ax.set_ylabel(metric_name)
    ax.legend(loc="best")
    return ax
