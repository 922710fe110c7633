r"""Binning of features into small integer codes: the input of the histogram tree engine.

Each feature :math:`j` gets sorted edges :math:`e_{j,0} < e_{j,1} < \dots` (padded with
:math:`+\infty`) and a value :math:`x` gets the code

.. math:: \mathrm{code}(x) = \#\{b : e_{j,b} < x\}
          \quad(\texttt{searchsorted(edges, x, side="left")}),

so bin :math:`b` covers :math:`(e_{j,b-1}, e_{j,b}]` and
:math:`\mathrm{code}(x) \le b \iff x \le e_{j,b}`: a split "code <= b" of the binned data
is the split "x <= edges[b]" of the raw data. NaN gets its own code ``n_bins`` (the
*missing bin*), which the tree engine sends to the learned side of each split.

Edges. When a feature has at most ``n_bins`` distinct (non-missing) values
:math:`v_1 < \dots < v_k`, the binning is **exact**: the edges are the midpoints
:math:`v_i/2 + v_{i+1}/2`, the thresholds scikit-learn's trees use, so a tree grown on the
codes makes the same partitions as an exact CART search. Otherwise the edges are (weighted)
quantiles of the feature: with distinct values :math:`v_i` of total weight :math:`w_i` and
cumulative share :math:`c_i = \sum_{l \le i} w_l / \sum_l w_l`, edge :math:`k`
(:math:`k = 1..n\_bins-1`) is the midpoint after the first :math:`v_i` with
:math:`c_i \ge k / n\_bins` (duplicates dropped), as LightGBM does (Ke et al. 2017).
Rows of zero weight do not take part in the edges (so padding with zero-weight rows does not
change the binning). The edges are computed on the host in numpy: one sort per feature, a
one-off cost before any fit; the codes are computed in JAX (:func:`apply_bins`, jittable).

Edge cases: a constant feature has no edge (one bin, never split); an all-NaN feature has
no edge and every row in the missing bin (never split).

References
----------
G. Ke et al., "LightGBM: A Highly Efficient Gradient Boosting Decision Tree", NeurIPS 2017
(histogram-based split finding).
L. Breiman, J. Friedman, R. Olshen, C. Stone, *Classification and Regression Trees*, 1984
(thresholds between consecutive values).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from jaxclassic.validation import check_array, check_int, check_sample_weight

__all__ = ["bin_features", "apply_bins", "code_dtype"]


def code_dtype(n_bins: int):
    """``uint8`` when the codes ``0..n_bins`` (missing bin included) fit, else ``uint16``."""
    return jnp.uint8 if n_bins <= 255 else jnp.uint16


def _midpoints(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """``lo/2 + hi/2`` (no overflow), falling back to ``lo`` where rounding reaches ``hi``
    (so every value stays strictly right of the edge below it)."""
    mid = lo / 2 + hi / 2
    return np.where(mid < hi, mid, lo)


def _feature_edges(x: np.ndarray, w: np.ndarray, n_bins: int) -> np.ndarray:
    """Sorted edges (at most ``n_bins - 1``) of one feature's non-missing, positive-weight values."""
    keep = ~np.isnan(x) & (w > 0)
    values, inverse = np.unique(x[keep], return_inverse=True)
    if values.size <= 1:
        return values[:0]
    if values.size <= n_bins:  # exact: every distinct value its own bin
        return _midpoints(values[:-1], values[1:])
    weight = np.bincount(inverse.ravel(), weights=w[keep], minlength=values.size)
    share = np.cumsum(weight) / weight.sum()
    targets = np.arange(1, n_bins) / n_bins
    idx = np.searchsorted(share, targets - 1e-12, side="left")  # first i with share_i >= target
    idx = np.unique(np.clip(idx, 0, values.size - 2))
    return _midpoints(values[idx], values[idx + 1])


def bin_features(X, n_bins: int = 255, *, sample_weight=None):
    r"""Quantile (or exact) bin edges of every feature and the codes of ``X``.

    See the module docstring for the edges and the rule
    :math:`\mathrm{code} \le b \iff x \le \mathrm{edges}[b]`.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Raw features; NaN marks a missing value (inf is an error).
    n_bins : int, default 255
        Number of bins of non-missing values, in ``2..256``; the missing bin is code
        ``n_bins``. Departure from the issue's "256" default: 255 keeps the codes ``uint8``
        with the missing bin included (256 needs ``uint16``).
    sample_weight : array-like of shape (n_samples,), optional
        Weights of the quantiles; rows of weight 0 are ignored.

    Returns
    -------
    codes : (n_samples, n_features) uint8 (uint16 when ``n_bins == 256``)
        Bin codes; ``n_bins`` for NaN.
    edges : (n_features, n_bins - 1) array of X's float dtype
        Sorted edges per feature, padded with ``+inf``.

    Examples
    --------
    >>> import numpy as np
    >>> codes, edges = bin_features(np.array([[0.0], [1.0], [1.0], [3.0], [np.nan]]), n_bins=4)
    >>> codes[:, 0].tolist(), edges[0].tolist()
    ([0, 1, 1, 2, 4], [0.5, 2.0, inf])

    References
    ----------
    Ke et al., "LightGBM", NeurIPS 2017 (histogram binning).
    """
    n_bins = check_int(n_bins, "n_bins", low=2, high=256)
    Xn = check_array(X, "X", allow_nan=True, _numpy=True)
    n_samples, n_features = Xn.shape
    if sample_weight is None:
        w = np.ones(n_samples)
    else:
        w = np.asarray(check_sample_weight(sample_weight, n_samples), dtype=np.float64)
    edges = np.full((n_features, n_bins - 1), np.inf, dtype=Xn.dtype)
    for j in range(n_features):
        e = _feature_edges(Xn[:, j], w, n_bins)
        edges[j, : e.size] = e
    edges = jnp.asarray(edges)
    return apply_bins(jnp.asarray(Xn), edges), edges


@jax.jit
def apply_bins(X, edges):
    """Codes of ``X`` under ``edges`` (from :func:`bin_features`): ``searchsorted`` per feature.

    Parameters
    ----------
    X : (n_samples, n_features) float array (NaN allowed)
    edges : (n_features, n_bins - 1) float array, sorted, ``+inf`` padded

    Returns
    -------
    codes : (n_samples, n_features) uint8 / uint16
        ``#{b : edges[j, b] < x}``, and ``n_bins`` for NaN.

    Examples
    --------
    >>> import jax.numpy as jnp
    >>> apply_bins(jnp.array([[0.2], [0.7], [jnp.nan]]), jnp.array([[0.5, jnp.inf]])).tolist()
    [[0], [1], [3]]
    """
    n_bins = edges.shape[1] + 1
    search = jax.vmap(lambda e, x: jnp.searchsorted(e, x, side="left"), in_axes=(0, 1), out_axes=1)
    codes = search(edges, X.astype(edges.dtype))
    codes = jnp.where(jnp.isnan(X), n_bins, codes)
    return codes.astype(code_dtype(n_bins))
