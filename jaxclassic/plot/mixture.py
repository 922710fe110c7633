r"""Gaussian mixtures drawn in the plane: the means and their covariance ellipses.

The :math:`r`-sigma ellipse of :math:`\mathcal N(\mu, \Sigma)` is the contour
:math:`\{x : (x - \mu)^\top \Sigma^{-1} (x - \mu) = r^2\}`. With :math:`\Sigma = V \Lambda V^\top`
(:math:`\lambda_1 \le \lambda_2`), its semi-axes are :math:`r\sqrt{\lambda_1}` and
:math:`r\sqrt{\lambda_2}` along the eigenvectors, the long one at the angle
:math:`\operatorname{atan2}(v_{2,2}, v_{1,2})` from the x axis. In two dimensions it holds a
fraction :math:`1 - e^{-r^2/2}` of the component's mass (39% at 1 sigma, 86% at 2).

References
----------
C. M. Bishop, *Pattern Recognition and Machine Learning*, 2006, §2.3 (Figure 2.7) and §9.2.
"""

from __future__ import annotations

import numpy as np

from jaxclassic.plot._common import as_numpy, axes, colours, names
from jaxclassic.validation import check_int, check_scalar

__all__ = ["gmm_ellipses"]

COVARIANCE_TYPES = ("full", "tied", "diag", "spherical")


def _mixture(model):
    """``means (K, d)``, ``covariances`` and their type from params or an estimator."""
    if hasattr(model, "means") and hasattr(model, "covariances"):
        means, covariances = model.means, model.covariances
    elif hasattr(model, "means_") and hasattr(model, "covariances_"):
        means, covariances = model.means_, model.covariances_
    else:
        raise TypeError("model must be a fitted Gaussian mixture (GMMParams of fit_gmm, or an "
                        f"estimator with means_ and covariances_), got {type(model).__name__}")
    kind = getattr(model, "covariance_type", None)
    if kind not in COVARIANCE_TYPES:
        raise ValueError(f"model.covariance_type must be one of {list(COVARIANCE_TYPES)}, got {kind!r}")
    return as_numpy(means, "means", ndim=2), np.asarray(covariances, dtype=float), kind


def _plane_covariance(covariances, kind, k, f):
    """The ``2 x 2`` covariance of component ``k`` on the features ``f = (i, j)``."""
    if kind == "full":
        return covariances[k][np.ix_(f, f)]
    if kind == "tied":
        return covariances[np.ix_(f, f)]
    if kind == "diag":
        return np.diag(covariances[k][list(f)])
    return np.eye(2) * covariances[k]


def gmm_ellipses(model, X=None, *, n_std=(1.0, 2.0), features=(0, 1), ax=None, cmap: str = "tab10",
                 fill: bool = False, feature_names=None, component_names=None, legend: bool = True):
    r"""The means of a Gaussian mixture and their 1- and 2-sigma covariance ellipses.

    Component :math:`k`'s :math:`r`-sigma ellipse is the contour
    :math:`(x - \mu_k)^\top \Sigma_k^{-1} (x - \mu_k) = r^2` of its density restricted to two
    features (the module docstring derives its axes from the eigendecomposition of
    :math:`\Sigma_k`). Every covariance type is drawn: ``full`` (its ``2 x 2`` block),
    ``tied`` (one shape), ``diag`` (axis-aligned), ``spherical`` (circles).

    Parameters
    ----------
    model : GMMParams or fitted estimator
        A :func:`jaxclassic.cluster.fit_gmm` result, or an estimator with ``means_``,
        ``covariances_`` and ``covariance_type`` (``jaxclassic.estimators.GaussianMixture``,
        scikit-learn's ``GaussianMixture``).
    X : (n_samples, d) array, optional
        Data drawn as grey points underneath.
    n_std : sequence of float > 0
        The radii :math:`r` (one ellipse per component and radius).
    features : (int, int)
        The two features to draw.
    ax : matplotlib Axes, optional
    cmap : str
        Component ``k`` gets the colormap's ``k``-th colour.
    fill : bool
        Fill the ellipses (translucent) instead of outlining them.
    feature_names : sequence of str, optional
        Names of all ``d`` features (the two drawn label the axes); default an estimator's
        ``feature_names_in_``, else ``x0, x1, ...``.
    component_names : sequence of K str, optional
        Legend names of the components (default ``component 0, ...``).
    legend : bool
        A legend: one entry per component (its colour), one per radius (its line style,
        ``1 sigma``...), and the data and means when drawn.

    Returns
    -------
    matplotlib Axes
        ``ax.patches``: the ellipses, component by component, radii in the given order;
        the means are the last scatter collection (one colour per component); the legend
        (``ax.get_legend()``) names the components, radii, data and means.

    Example
    -------
    >>> import numpy as np
    >>> from types import SimpleNamespace
    >>> gmm = SimpleNamespace(means=np.zeros((1, 2)), covariances=np.array([[4.0, 1.0]]),
    ...                       covariance_type="diag")
    >>> from matplotlib.figure import Figure
    >>> e = gmm_ellipses(gmm, n_std=[2.0], ax=Figure().add_subplot()).patches[0]
    >>> round(float(e.width), 6), round(float(e.height), 6)
    (8.0, 4.0)

    References
    ----------
    Bishop (2006) §2.3, Figure 2.7; §9.2.
    """
    means, covariances, kind = _mixture(model)
    n_components, n_features = means.shape
    if not isinstance(features, (tuple, list)) or len(features) != 2:
        raise ValueError(f"features must be a pair of feature indices, got {features!r}")
    plane = tuple(check_int(i, "features", low=0, high=n_features - 1) for i in features)
    if plane[0] == plane[1]:
        raise ValueError(f"features must name two different features, got {features!r}")
    radii = np.atleast_1d(np.asarray(n_std, dtype=float))
    if radii.ndim != 1 or radii.size == 0:
        raise ValueError(f"n_std must be a non-empty sequence of radii, got {n_std!r}")
    for r in radii:
        check_scalar(float(r), "n_std", low=0.0, include_low=False)
    if X is not None:
        X = as_numpy(X, "X", ndim=2)
        if X.shape[1] != n_features:
            raise ValueError(f"X must have the model's {n_features} features, got {X.shape[1]}")
    if feature_names is None:
        feature_names = getattr(model, "feature_names_in_", None)
    axis_names = names(feature_names, n_features, "feature_names", "x{}")
    labels = names(component_names, n_components, "component_names", "component {}")
    ax = axes(ax)
    from matplotlib.lines import Line2D
    from matplotlib.patches import Ellipse

    palette = colours(n_components, cmap)
    if X is not None:
        ax.scatter(X[:, plane[0]], X[:, plane[1]], s=6, color="grey", alpha=0.5, label="data")
    for k in range(n_components):
        eigenvalues, eigenvectors = np.linalg.eigh(_plane_covariance(covariances, kind, k, plane))
        eigenvalues = np.clip(eigenvalues, 0.0, None)
        angle = np.degrees(np.arctan2(eigenvectors[1, 1], eigenvectors[0, 1]))
        for i, r in enumerate(radii):
            ax.add_patch(Ellipse(
                tuple(means[k, list(plane)]), width=2 * r * np.sqrt(eigenvalues[1]),
                height=2 * r * np.sqrt(eigenvalues[0]), angle=angle, fill=fill,
                facecolor=palette[k] if fill else "none", edgecolor=palette[k],
                alpha=0.3 if fill else 1.0, linestyle=("-", "--", ":")[min(i, 2)],
                label=labels[k] if i == 0 else None,
            ))
    ax.scatter(means[:, plane[0]], means[:, plane[1]], marker="x", s=60, color=palette, zorder=3,
               label="means")
    ax.autoscale_view()
    ax.set_xlabel(axis_names[plane[0]])
    ax.set_ylabel(axis_names[plane[1]])
    if legend:
        handles, texts = ax.get_legend_handles_labels()
        styles = [Line2D([], [], color="k", linewidth=1, linestyle=("-", "--", ":")[min(i, 2)])
                  for i in range(len(radii))]
        ax.legend(handles + styles, texts + [f"{r:g} sigma" for r in radii], loc="best", fontsize="small")
    return ax
