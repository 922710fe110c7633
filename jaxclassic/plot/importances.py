r"""Feature importances as a bar chart, largest first.

The impurity-based importance of feature :math:`j` in a tree is the weighted impurity decrease
of its splits, :math:`\sum_{t : j_t = j} w_t \Delta i_t`, normalised to sum to 1, and a
forest's or boosted model's is the mean over its trees (Breiman et al. 1984, §5.3.4; ESL
§10.13.1, eq. 10.42-10.43): what the estimators' ``feature_importances_`` hold, as
scikit-learn's do.

References
----------
Breiman, Friedman, Olshen, Stone, *Classification and Regression Trees*, 1984, §5.3.4.
Hastie, Tibshirani, Friedman, *The Elements of Statistical Learning*, 2nd ed., §10.13.1.
"""

from __future__ import annotations

import numpy as np

from jaxclassic.plot._common import as_numpy, axes, fit_to_figure, names
from jaxclassic.validation import check_int

__all__ = ["feature_importances"]


def feature_importances(model, *, feature_names=None, ax=None, max_features=None, color="C0"):
    r"""The importance of each feature as a horizontal bar, the largest at the top.

    Parameters
    ----------
    model : fitted estimator or (n_features,) array
        An estimator with ``feature_importances_`` (our trees, forests and boosting, or
        scikit-learn's), or the importances themselves (e.g.
        :func:`jaxclassic.ensemble.feature_importances` of params).
    feature_names : sequence of n_features str, optional
        Bar labels; default an estimator's ``feature_names_in_`` (fitted on a DataFrame),
        else ``x0, x1, ...``.
    ax : matplotlib Axes, optional
    max_features : int >= 1, optional
        Draw only the ``max_features`` largest.
    color : colour
        Colour of the bars.

    Returns
    -------
    matplotlib Axes
        ``ax.patches``: the bars from the top (largest) down, ``get_width()`` the importance;
        the y tick labels name their features in the same order. A figure without a layout
        engine gets matplotlib's constrained layout, so long names are not clipped.

    Example
    -------
    >>> from matplotlib.figure import Figure
    >>> ax = feature_importances([0.2, 0.7, 0.1], feature_names=["a", "b", "c"], ax=Figure().add_subplot())
    >>> [t.get_text() for t in ax.get_yticklabels()], [float(p.get_width()) for p in ax.patches]
    (['b', 'a', 'c'], [0.7, 0.2, 0.1])

    References
    ----------
    Breiman et al. (1984) §5.3.4; ESL §10.13.1.
    """
    values = getattr(model, "feature_importances_", None)
    if values is None and hasattr(model, "fit"):
        raise TypeError(f"model must be fitted and have feature_importances_ (trees, forests, boosting), "
                        f"got {type(model).__name__} without it")
    importances = as_numpy(model if values is None else values, "feature_importances")
    if feature_names is None:
        feature_names = getattr(model, "feature_names_in_", None)
    labels = names(feature_names, importances.shape[0], "feature_names", "x{}")
    order = np.argsort(-importances, kind="stable")
    if max_features is not None:
        order = order[: check_int(max_features, "max_features", low=1)]
    ax = axes(ax)
    positions = np.arange(order.shape[0])[::-1]  # the largest at the top
    ax.barh(positions, importances[order], color=color)
    ax.set_yticks(positions, labels=[labels[j] for j in order])
    ax.set_xlabel("importance")
    fit_to_figure(ax)
    return ax
