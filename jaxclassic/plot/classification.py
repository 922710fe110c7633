r"""Figures of classifiers: decision regions, the ROC curve with its chosen threshold, and the
confusion matrix.

References
----------
T. Fawcett, "An introduction to ROC analysis", *Pattern Recognition Letters* 27 (2006) 861-874.
Hastie, Tibshirani, Friedman, *The Elements of Statistical Learning*, 2nd ed., §4 (decision
boundaries, Figures 4.1, 4.5) and §9.2.5 (ROC curves).
scikit-learn, ``sklearn.inspection.DecisionBoundaryDisplay`` (the grid convention),
``sklearn.metrics.ConfusionMatrixDisplay``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from jaxclassic import _dispatch
from jaxclassic import metrics
from jaxclassic.model_selection.threshold import ThresholdResult, choose_threshold
from jaxclassic.plot._common import as_numpy, axes, colours, fit_to_figure, names
from jaxclassic.validation import check_choice, check_int, check_scalar

__all__ = ["decision_regions", "roc_curve", "confusion_matrix"]

NORMALIZE = (None, "true", "pred", "all")


# --------------------------------------------------------------------------- decision regions
def _predict_function(model: Any):
    """``X -> labels`` of a fitted estimator, a jaxclassic params pytree, or a callable."""
    if callable(getattr(model, "predict", None)):
        return model.predict
    if _dispatch.predict.supports(model):
        return lambda grid: _dispatch.predict(model, grid)
    if callable(model):
        return model
    raise TypeError(
        "model must be a fitted estimator (with .predict), a jaxclassic params pytree with a "
        f"registered predict, or a callable X -> labels, got {type(model).__name__}"
    )


def _encode(values: np.ndarray, classes: np.ndarray, name: str) -> np.ndarray:
    """Codes ``0..C-1`` of ``values`` in ``classes`` (any order); a ValueError on a stranger."""
    if (values.dtype.kind in "biuf") != (classes.dtype.kind in "biuf"):
        raise ValueError(f"{name} holds labels of dtype {values.dtype}, the classes are of dtype "
                         f"{classes.dtype}: they must be both numbers or both strings")
    order = np.argsort(classes, kind="stable")
    pos = np.clip(np.searchsorted(classes, values, sorter=order), 0, len(classes) - 1)
    codes = order[pos]
    unknown = classes[codes] != values
    if np.any(unknown):
        raise ValueError(
            f"{name} holds labels outside the classes {classes.tolist()}: "
            f"{np.unique(values[unknown]).tolist()}"
        )
    return codes


def decision_regions(model, X, y=None, *, ax=None, grid_resolution: int = 100, eps=1.0,
                     alpha=0.4, cmap: str = "tab10", feature_names=None, class_names=None):
    r"""Colour the plane by the class a model predicts; the points of ``X`` on top.

    The grid is scikit-learn's ``DecisionBoundaryDisplay`` grid: ``grid_resolution`` equally
    spaced values on each axis from :math:`\min_i x_{ij} - \epsilon` to
    :math:`\max_i x_{ij} + \epsilon`, and every grid point :math:`g` gets the colour of its
    predicted class :math:`\hat f(g)` (a ``pcolormesh`` whose array is the class code,
    ``0..C-1``, in the order of ``model.classes_`` when the model has it, else sorted).
    Boundaries between colours are the decision boundaries
    :math:`\{x : \hat f \text{ changes}\}`, to a cell's width.

    Parameters
    ----------
    model : fitted estimator, params pytree or callable
        Anything with ``.predict(X)`` (a jaxclassic or scikit-learn estimator), a params
        NamedTuple of any family (predicted through :mod:`jaxclassic._dispatch`), or a
        function ``X (m, 2) -> labels (m,)``.
    X : (n_samples, 2) array
        The two features the model was fitted on (the grid spans their range).
    y : (n_samples,) array, optional
        Labels of ``X``: the points are drawn one scatter per class, in the class's colour.
    ax : matplotlib Axes, optional
        Default: pyplot's current Axes.
    grid_resolution : int >= 2
        Grid points per axis (``grid_resolution ** 2`` predictions).
    eps : float >= 0
        Margin around the data's range, in the features' units.
    alpha : float in [0, 1]
        Opacity of the regions.
    cmap : str
        A matplotlib colormap name; class ``c`` gets its ``c``-th colour.
    feature_names : sequence of 2 str, optional
        Axis labels (default: the columns of a DataFrame ``X``, else ``x0``, ``x1``).
    class_names : sequence of str, optional
        Legend labels of the classes, one per class in the order of ``model.classes_`` (or of
        the sorted labels); default the labels themselves.

    Returns
    -------
    matplotlib Axes

    Example
    -------
    >>> import numpy as np
    >>> from matplotlib.figure import Figure
    >>> X = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]])
    >>> ax = decision_regions(lambda G: (G[:, 0] > 0.5).astype(int), X, [0, 1, 0, 1],
    ...                       ax=Figure().add_subplot())
    >>> ax.collections[0].get_array().shape
    (100, 100)

    References
    ----------
    ESL §4.1, Figure 4.1; scikit-learn's ``DecisionBoundaryDisplay.from_estimator``.
    """
    columns = getattr(X, "columns", None)  # a pandas DataFrame: its column names
    X = as_numpy(X, "X", ndim=2)
    if X.shape[1] != 2:
        raise ValueError(f"X must have 2 features (columns) to draw decision regions, got {X.shape[1]}")
    if feature_names is None and columns is not None:
        feature_names = [str(c) for c in columns]
    grid_resolution = check_int(grid_resolution, "grid_resolution", low=2)
    check_scalar(eps, "eps", low=0.0)
    check_scalar(alpha, "alpha", low=0.0, high=1.0)
    if y is not None:
        y = np.asarray(y)
        if y.ndim != 1 or y.shape[0] != X.shape[0]:
            raise ValueError(f"y must have shape ({X.shape[0]},) like the rows of X, got {y.shape}")
    axis_names = names(feature_names, 2, "feature_names", "x{}")
    predict = _predict_function(model)
    ax = axes(ax)

    xx0, xx1 = np.meshgrid(
        np.linspace(X[:, 0].min() - eps, X[:, 0].max() + eps, grid_resolution),
        np.linspace(X[:, 1].min() - eps, X[:, 1].max() + eps, grid_resolution),
    )
    grid = np.c_[xx0.ravel(), xx1.ravel()].astype(X.dtype)
    if columns is not None and hasattr(model, "feature_names_in_"):
        import pandas as pd  # X was a DataFrame: the model was fitted on named columns

        pred = np.asarray(predict(pd.DataFrame(grid, columns=columns))).reshape(-1)
    else:
        pred = np.asarray(predict(grid)).reshape(-1)
    if pred.shape[0] != grid.shape[0]:
        raise ValueError(f"model predicted {pred.shape[0]} labels for {grid.shape[0]} grid points")
    classes = getattr(model, "classes_", None)
    if classes is None:
        seen = [pred] if y is None else [pred, y]
        if len({a.dtype.kind in "biuf" for a in seen}) > 1:
            raise ValueError(f"y holds labels of dtype {y.dtype} and the model predicts "
                             f"{pred.dtype}: they must be both numbers or both strings")
        classes = np.unique(np.concatenate(seen))
    classes = np.asarray(classes)
    codes = _encode(pred, classes, "the model's predictions")

    from matplotlib.colors import ListedColormap

    legend_names = names(class_names, len(classes), "class_names", "{}")
    if class_names is None:
        legend_names = [str(c) for c in classes.tolist()]
    palette = colours(len(classes), cmap)
    ax.pcolormesh(xx0, xx1, codes.reshape(xx0.shape), cmap=ListedColormap(palette),
                  vmin=-0.5, vmax=len(classes) - 0.5, alpha=alpha, shading="auto")
    if y is not None:
        y_codes = _encode(y, classes, "y")
        for code, label in enumerate(classes):
            rows = y_codes == code
            if rows.any():
                ax.scatter(X[rows, 0], X[rows, 1], color=palette[code], edgecolors="k",
                           linewidths=0.5, s=20, label=legend_names[code])
        ax.legend(loc="best")
    ax.set_xlim(xx0.min(), xx0.max())
    ax.set_ylim(xx1.min(), xx1.max())
    ax.set_xlabel(axis_names[0])
    ax.set_ylabel(axis_names[1])
    return ax


# --------------------------------------------------------------------------- ROC
def roc_curve(y_true, y_score, *, threshold="youden", sample_weight=None, ax=None, label=None,
              cost_fp=1.0, cost_fn=1.0, pos_label=None):
    r"""The ROC curve of binary scores, its area, and the chosen threshold marked on it.

    The curve is :func:`jaxclassic.metrics.roc_curve`: one point
    :math:`(\mathrm{FPR}(t), \mathrm{TPR}(t))` per distinct score :math:`t` (rule "positive if
    :math:`s \ge t`"), from (0, 0) to (1, 1); the legend gives the area
    :func:`jaxclassic.metrics.roc_auc`. The chosen threshold is the point of
    :func:`jaxclassic.model_selection.choose_threshold` (Youden's
    :math:`J = \mathrm{TPR} - \mathrm{FPR}` or the expected cost), or of a given threshold
    :math:`t`: the point of the largest curve threshold :math:`\ge t` (the same rule).

    Parameters
    ----------
    y_true : (n_samples,) array of {0, 1}
    y_score : (n_samples,) float array
        Higher means more likely positive.
    threshold : {"youden", "cost"}, float, ThresholdResult or None
        The threshold to mark: a criterion of :func:`choose_threshold`, a score value, an
        earlier ``choose_threshold`` result, or None (no mark).
    sample_weight : (n_samples,) array, optional
    ax : matplotlib Axes, optional
    label : str, optional
        Name of the curve in the legend (default ``"ROC"``).
    cost_fp, cost_fn : float
        Costs of the ``"cost"`` criterion.
    pos_label : label, optional
        The positive class when ``y_true`` holds two labels other than {0, 1} (strings such as
        ``"no"`` / ``"yes"``): ``y_true == pos_label`` is the positive class, as scikit-learn's
        ``RocCurveDisplay.from_predictions(pos_label=...)``.

    Returns
    -------
    matplotlib Axes
        Lines: the curve (``lines[0]``), the chance diagonal (``lines[1]``) and, when a
        threshold is marked, its point (``lines[2]``).

    Example
    -------
    >>> from matplotlib.figure import Figure
    >>> ax = roc_curve([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8], ax=Figure().add_subplot())
    >>> ax.lines[2].get_xydata().tolist()
    [[0.0, 0.5]]

    References
    ----------
    Fawcett (2006); Youden, *Cancer* 3 (1950) 32-35.
    """
    if pos_label is not None:
        y_true = np.asarray(y_true)
        present = np.unique(y_true)
        if y_true.ndim != 1 or len(present) > 2 or pos_label not in present.tolist():
            raise ValueError(f"pos_label must be one of the (at most two) labels of y_true, got "
                             f"{pos_label!r}; y_true holds {present.tolist()[:5]}")
        y_true = (y_true == pos_label).astype(np.int32)
    fpr, tpr, thresholds = (np.asarray(a) for a in
                            metrics.roc_curve(y_true, y_score, sample_weight=sample_weight))
    auc = float(metrics.roc_auc(y_true, y_score, sample_weight=sample_weight))
    chosen = None
    if isinstance(threshold, ThresholdResult):
        chosen = (threshold.threshold, threshold.fpr, threshold.tpr)
    elif isinstance(threshold, str):
        check_choice(threshold, "threshold", ("youden", "cost"))
        r = choose_threshold(y_true, y_score, threshold, cost_fp=cost_fp, cost_fn=cost_fn,
                             sample_weight=sample_weight)
        chosen = (r.threshold, r.fpr, r.tpr)
    elif threshold is not None:
        check_scalar(threshold, "threshold")
        k = int(np.sum(thresholds >= float(threshold))) - 1  # thresholds decrease from +inf
        chosen = (float(threshold), float(fpr[k]), float(tpr[k]))
    ax = axes(ax)
    ax.plot(fpr, tpr, label=f"{label or 'ROC'} (AUC = {auc:.3f})")
    ax.plot([0.0, 1.0], [0.0, 1.0], linestyle="--", color="grey", linewidth=1, label="chance")
    if chosen is not None:
        t, x, y = chosen
        ax.plot([x], [y], marker="o", linestyle="", color="C3",
                label=f"threshold {t:.3g}: TPR {y:.2f}, FPR {x:.2f}")
        ax.annotate(f"t = {t:.3g}", (x, y), textcoords="offset points", xytext=(8, -12))
    ax.set_xlim(-0.01, 1.01)
    ax.set_ylim(-0.01, 1.01)
    ax.set_xlabel("False positive rate")
    ax.set_ylabel("True positive rate")
    ax.legend(loc="lower right")
    return ax


# --------------------------------------------------------------------------- confusion matrix
def confusion_matrix(y_true, y_pred, *, labels=None, display_labels=None, normalize=None,
                     sample_weight=None, ax=None, cmap: str = "Blues", values_format=None,
                     colorbar: bool = True, class_names=None):
    r"""The confusion matrix as a heat map with its numbers in the cells.

    .. math:: M_{jk} = \sum_i w_i [y_i = c_j][\hat y_i = c_k]

    (rows true classes, columns predicted; :func:`jaxclassic.metrics.confusion_matrix`),
    optionally normalised over the true classes (rows sum to 1), the predictions (columns) or
    everything (scikit-learn's ``normalize``; an empty row or column stays 0).

    Parameters
    ----------
    y_true, y_pred : (n_samples,) arrays of labels (numbers or strings)
    labels : sequence, optional
        The classes, in the order of the rows; default: the sorted labels present.
    display_labels : sequence of str, optional
        Tick labels (default ``labels`` as strings); scikit-learn's name of ``class_names``.
    normalize : {None, "true", "pred", "all"}
    sample_weight : (n_samples,) array, optional
    ax : matplotlib Axes, optional
    cmap : str
        Colormap of the cells.
    values_format : str, optional
        Format of the cell numbers (default ``"d"`` for counts, ``".2g"`` otherwise).
    colorbar : bool
        Add a colour bar beside the Axes.
    class_names : sequence of str, optional
        The tick labels, as every figure of :mod:`jaxclassic.plot` names them (give this or
        ``display_labels``, not both).

    The layout keeps every label inside the figure at small sizes (a 3 x 3 inch figure): the
    colour bar takes its room from this Axes only, tick labels longer than three characters on
    the x axis are turned 45 degrees, and a figure without a layout engine gets matplotlib's
    constrained layout.

    Returns
    -------
    matplotlib Axes
        ``ax.images[0]`` holds the matrix; ``ax.texts`` one number a cell, row by row.

    Example
    -------
    >>> from matplotlib.figure import Figure
    >>> ax = confusion_matrix(["a", "b", "b"], ["a", "b", "a"], ax=Figure().add_subplot())
    >>> [t.get_text() for t in ax.texts]
    ['1', '0', '1', '1']

    References
    ----------
    Fawcett (2006) §2; scikit-learn's ``ConfusionMatrixDisplay``.
    """
    if class_names is not None:
        if display_labels is not None:
            raise ValueError("give class_names or display_labels (its scikit-learn name), not both")
        display_labels = class_names
    y_true, y_pred = np.asarray(y_true), np.asarray(y_pred)
    if y_true.ndim != 1 or y_pred.shape != y_true.shape:
        raise ValueError(f"y_true and y_pred must be 1-d of one length, got shapes "
                         f"{y_true.shape} and {y_pred.shape}")
    check_choice(normalize, "normalize", NORMALIZE)
    classes = np.unique(np.concatenate([y_true, y_pred])) if labels is None else np.asarray(labels)
    if classes.ndim != 1 or classes.size == 0 or np.unique(classes).size != classes.size:
        raise ValueError(f"labels must be a non-empty sequence of distinct classes, got {labels!r}")
    true_codes = _encode(y_true, classes, "y_true")
    pred_codes = _encode(y_pred, classes, "y_pred")
    tick_labels = names(display_labels if display_labels is not None else classes.tolist(),
                        len(classes), "display_labels", "{}")
    cm = np.asarray(metrics.confusion_matrix(true_codes, pred_codes, n_classes=len(classes),
                                             sample_weight=sample_weight))
    if normalize is not None:
        total = {"true": cm.sum(axis=1, keepdims=True), "pred": cm.sum(axis=0, keepdims=True),
                 "all": cm.sum()}[normalize]
        with np.errstate(invalid="ignore", divide="ignore"):
            cm = np.nan_to_num(cm / total)
    if values_format is None:
        values_format = "d" if cm.dtype.kind in "iu" else ".2g"
    ax = axes(ax)
    image = ax.imshow(cm, cmap=cmap, interpolation="nearest")
    low, high = float(cm.min()), float(cm.max())
    middle = (low + high) / 2
    light, dark = image.cmap(0.0), image.cmap(1.0)
    for j in range(cm.shape[0]):
        for k in range(cm.shape[1]):
            ax.text(k, j, format(cm[j, k], values_format), ha="center", va="center",
                    color=light if cm[j, k] > middle else dark)
    long = max(len(t) for t in tick_labels) > 3
    ax.set_xticks(np.arange(len(classes)), labels=tick_labels, rotation=45 if long else 0,
                  ha="right" if long else "center", rotation_mode="anchor")
    ax.set_yticks(np.arange(len(classes)), labels=tick_labels)
    ax.set_xlabel("Predicted label")
    ax.set_ylabel("True label")
    fit_to_figure(ax)
    if colorbar:
        ax.figure.colorbar(image, ax=ax, fraction=0.046, pad=0.04)
    return ax
