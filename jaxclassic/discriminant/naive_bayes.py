r"""Naive Bayes: Gaussian, categorical, and mixed continuous + categorical features.

Naive Bayes assumes the features are independent given the class, so the joint
log-likelihood of a sample is a sum over features,

.. math::

    \log p(x, y{=}k) = \log \pi_k + \sum_{j} \log p(x_j \mid y{=}k),

and the posterior is its log-space normalisation
:math:`\log p(k \mid x) = \log p(x, k) - \operatorname{logsumexp}_c \log p(x, c)`.
The per-feature terms are Gaussian densities (:func:`fit_gaussian_nb`), smoothed category
frequencies (:func:`fit_categorical_nb`), or both in one model (:func:`fit_mixed_nb`, the
textbook's rule for a test case with discrete and continuous attributes).

All statistics are weighted sums over rows (``resp[i, k] = w_i [y_i = k]``), so a row of
weight 0 has no influence, and a grid of ``alpha`` / ``var_smoothing`` values or a set of CV
folds given as weight vectors is a ``jax.vmap`` of one fit.

A class with no positive-weight sample (possible when ``n_classes`` exceeds the labels
present, e.g. in a CV fold) gets probability 0 at prediction time.

References
----------
T. M. Mitchell, *Machine Learning*, McGraw-Hill 1997, §6.9 (naive Bayes; the PlayTennis example).
Hastie, Tibshirani, Friedman, *The Elements of Statistical Learning*, 2nd ed., §6.6.3.
C. D. Manning, P. Raghavan, H. Schütze, *Introduction to Information Retrieval*, 2008, §13.2
(Laplace / Lidstone smoothing).
"""

from __future__ import annotations

from functools import partial
from typing import Any, NamedTuple, Sequence

import jax
import jax.numpy as jnp
import numpy as np

from jaxclassic import _jit
from jaxclassic import _precision
from jaxclassic.discriminant._common import (
    any_traced,
    check_priors,
    class_means,
    class_prior,
    log_prior,
    register_predictions,
    safe_divide,
    weighted_one_hot,
)
from jaxclassic.validation import (
    as_operand,
    check_bool,
    check_classifier_data,
    check_predict_X,
    check_scalar,
    is_traced,
)

__all__ = [
    "GaussianNBParams",
    "CategoricalNBParams",
    "MixedNBParams",
    "fit_gaussian_nb",
    "fit_categorical_nb",
    "fit_mixed_nb",
    "joint_log_likelihood",
]


class GaussianNBParams(NamedTuple):
    """Fitted Gaussian naive Bayes (fields as scikit-learn's ``GaussianNB`` attributes).

    Attributes
    ----------
    theta : (C, d) class means.
    var : (C, d) class variances, ``epsilon`` already added.
    class_prior : (C,) class probabilities.
    class_count : (C,) weighted number of training samples per class.
    epsilon : () the variance added to every class variance.
    """

    theta: jax.Array
    var: jax.Array
    class_prior: jax.Array
    class_count: jax.Array
    epsilon: jax.Array

    @property
    def n_classes(self) -> int:
        """The number of classes ``C``, a Python int read from the shape of ``class_count`` (not a pytree leaf)."""
        return int(self.class_count.shape[-1])



class CategoricalNBParams(NamedTuple):
    """Fitted categorical naive Bayes.

    Feature ``j`` has ``n_categories[j]`` categories; arrays are padded to
    ``K = max(n_categories)`` along the last axis, with ``feature_log_prob = -inf`` (and zero
    counts) in the padding.

    Attributes
    ----------
    feature_log_prob : (d, C, K) :math:`\\log P(x_j = c \\mid y = k)` at ``[j, k, c]``.
    category_count : (d, C, K) weighted counts of each category per class.
    class_log_prior : (C,) log class probabilities (``-inf`` for an empty class).
    class_count : (C,) weighted number of training samples per class.
    n_categories : (d,) int32 number of categories of each feature.
    alpha : () the smoothing parameter used.
    """

    feature_log_prob: jax.Array
    category_count: jax.Array
    class_log_prior: jax.Array
    class_count: jax.Array
    n_categories: jax.Array
    alpha: jax.Array

    @property
    def n_classes(self) -> int:
        """The number of classes ``C``, a Python int read from the shape of ``class_count`` (not a pytree leaf)."""
        return int(self.class_count.shape[-1])



class MixedNBParams(NamedTuple):
    """Fitted naive Bayes over continuous (Gaussian) and categorical features together.

    Attributes
    ----------
    gaussian : GaussianNBParams over the continuous columns.
    categorical : CategoricalNBParams over the categorical columns.
    continuous_features : (d_cont,) int32 column indices of the continuous features.
    categorical_features : (d_cat,) int32 column indices of the categorical features.
    class_log_prior : (C,) the one class prior of the combined model.
    """

    gaussian: GaussianNBParams
    categorical: CategoricalNBParams
    continuous_features: jax.Array
    categorical_features: jax.Array
    class_log_prior: jax.Array

    @property
    def n_classes(self) -> int:
        """The number of classes ``C``, a Python int read from the shape of ``class_log_prior`` (not a pytree leaf)."""
        return int(self.class_log_prior.shape[-1])



# --------------------------------------------------------------------------- statistics
def _gaussian_stats(X, y, resp, class_count, sample_weight, var_smoothing):
    """Weighted class means and (biased) variances plus the smoothing ``epsilon``."""
    # rows of weight 0 are zeroed first: their squares may overflow (1e20 in float32), and
    # 0 * inf is NaN, not 0 -- they must have no influence whatever their values
    X = jnp.where(sample_weight[:, None] > 0, X, 0)
    theta = class_means(X, resp, class_count)
    # two-pass variance: centre each row on its own class mean, then weighted mean of squares
    centred = X - theta[y]
    var = safe_divide(_precision.matmul(resp.T, jnp.square(centred)), class_count[:, None])
    # epsilon = var_smoothing * (largest weighted variance of a feature over all rows),
    # as scikit-learn but with the weights, so zero-weight rows have no influence; when every
    # feature is constant the scale falls back to 1 so that epsilon stays > 0.
    total = sample_weight.sum()
    mean_all = _precision.matmul(sample_weight, X) / total
    var_all = _precision.matmul(sample_weight, jnp.square(X - mean_all)) / total
    max_var = jnp.max(var_all, initial=0.0)
    epsilon = jnp.asarray(var_smoothing, X.dtype) * jnp.where(max_var > 0, max_var, 1.0)
    return theta, var + epsilon, epsilon


def _category_counts(codes, y, sample_weight, n_categories, n_classes: int, max_categories: int):
    """``count[j, k, c] = sum_i w_i [y_i = k][x_ij = c]`` by ``segment_sum``, shape (d, C, K)."""
    n_features = codes.shape[1]
    K = max_categories
    if n_features == 0:
        return jnp.zeros((0, n_classes, K), sample_weight.dtype)
    valid = (codes >= 0) & (codes < n_categories[None, :])
    # out-of-range codes (only possible in zero-weight rows or under tracing) go to a dropped
    # segment, never into a neighbouring class's slot
    segment = jnp.where(valid, y[:, None] * K + codes, n_classes * K)

    def per_feature(seg):
        return jax.ops.segment_sum(sample_weight, seg, num_segments=n_classes * K + 1)[:-1]

    return jax.vmap(per_feature, in_axes=1)(segment).reshape(n_features, n_classes, K)


def _category_log_prob(category_count, n_categories, alpha):
    r"""Smoothed :math:`\log \frac{N_{jkc} + \alpha}{N_k + \alpha K_j}`; ``-inf`` in the padding."""
    K = category_count.shape[-1]
    valid = (jnp.arange(K)[None, :] < n_categories[:, None])[:, None, :]  # (d, 1, K)
    smoothed = jnp.where(valid, category_count + alpha, 0)
    denom = smoothed.sum(-1, keepdims=True)
    ok = valid & (smoothed > 0) & (denom > 0)
    return jnp.where(ok, jnp.log(jnp.where(ok, smoothed, 1)) - jnp.log(jnp.where(ok, denom, 1)), -jnp.inf)


def _prior_log(class_count, priors, fit_prior: bool):
    if priors is None and not fit_prior:
        prior = jnp.full(class_count.shape, 1.0 / class_count.shape[0], class_count.dtype)
    else:
        prior = class_prior(class_count, priors)
    return log_prior(prior, class_count)


# --------------------------------------------------------------------------- jitted cores
@partial(_jit.jit, static_argnames=("n_classes",))
def _fit_gaussian_nb(X, y, sample_weight, priors, var_smoothing, n_classes):
    resp = weighted_one_hot(y, sample_weight, n_classes, X.dtype)
    class_count = resp.sum(0)
    theta, var, epsilon = _gaussian_stats(X, y, resp, class_count, sample_weight, var_smoothing)
    return GaussianNBParams(theta, var, class_prior(class_count, priors), class_count, epsilon)


@partial(_jit.jit, static_argnames=("n_classes", "max_categories", "fit_prior"))
def _fit_categorical_nb(codes, y, sample_weight, n_categories, alpha, priors, n_classes,
                        max_categories, fit_prior):
    dtype = sample_weight.dtype
    class_count = weighted_one_hot(y, sample_weight, n_classes, dtype).sum(0)
    counts = _category_counts(codes, y, sample_weight, n_categories, n_classes, max_categories)
    alpha = jnp.asarray(alpha, dtype)
    flp = _category_log_prob(counts, n_categories, alpha)
    return CategoricalNBParams(flp, counts, _prior_log(class_count, priors, fit_prior),
                               class_count, n_categories, alpha)


@partial(_jit.jit, static_argnames=("n_classes", "max_categories", "fit_prior", "categorical", "continuous"))
def _fit_mixed_nb(X, y, sample_weight, n_categories, alpha, var_smoothing, priors, n_classes,
                  max_categories, fit_prior, categorical, continuous):
    dtype = X.dtype
    cat_idx = np.asarray(categorical, dtype=np.int32)
    cont_idx = np.asarray(continuous, dtype=np.int32)
    X_cont = X[:, cont_idx]
    codes = X[:, cat_idx].astype(jnp.int32)
    resp = weighted_one_hot(y, sample_weight, n_classes, dtype)
    class_count = resp.sum(0)
    theta, var, epsilon = _gaussian_stats(X_cont, y, resp, class_count, sample_weight, var_smoothing)
    log_pi = _prior_log(class_count, priors, fit_prior)
    gaussian = GaussianNBParams(theta, var, jnp.exp(log_pi), class_count, epsilon)
    counts = _category_counts(codes, y, sample_weight, n_categories, n_classes, max_categories)
    alpha = jnp.asarray(alpha, dtype)
    flp = _category_log_prob(counts, n_categories, alpha)
    categorical_params = CategoricalNBParams(flp, counts, log_pi, class_count, n_categories, alpha)
    return MixedNBParams(gaussian, categorical_params, jnp.asarray(cont_idx), jnp.asarray(cat_idx), log_pi)


# --------------------------------------------------------------------------- log-likelihoods
def _gaussian_log_likelihood(theta, var, X):
    r""":math:`\sum_j \log \mathcal N(x_j; \theta_{kj}, \sigma^2_{kj})`, shape (n, C)."""
    norm = -0.5 * jnp.sum(jnp.log(2.0 * jnp.pi * var), axis=1)
    quad = jnp.sum(jnp.square(X[:, None, :] - theta[None, :, :]) / var[None, :, :], axis=2)
    return norm[None, :] - 0.5 * quad


def _categorical_log_likelihood(feature_log_prob, n_categories, codes):
    r""":math:`\sum_j \log P(x_j \mid k)`, shape (n, C). Out-of-range codes contribute 0."""
    n_features = feature_log_prob.shape[0]
    if n_features == 0:
        return jnp.zeros((codes.shape[0], feature_log_prob.shape[1]), feature_log_prob.dtype)
    codes = codes.astype(jnp.int32)
    valid = (codes >= 0) & (codes < n_categories[None, :])
    safe = jnp.where(valid, codes, 0)
    gathered = feature_log_prob[jnp.arange(n_features)[None, :], :, safe]  # (n, d, C)
    return jnp.sum(jnp.where(valid[:, :, None], gathered, 0), axis=1)


@_jit.jit
def _jll_gaussian(params: GaussianNBParams, X):
    return log_prior(params.class_prior, params.class_count)[None, :] + _gaussian_log_likelihood(
        params.theta, params.var, X)


@_jit.jit
def _jll_categorical(params: CategoricalNBParams, codes):
    return params.class_log_prior[None, :] + _categorical_log_likelihood(
        params.feature_log_prob, params.n_categories, codes)


@_jit.jit
def _jll_mixed(params: MixedNBParams, X):
    X_cont = X[:, params.continuous_features]
    codes = X[:, params.categorical_features].astype(jnp.int32)
    return (params.class_log_prior[None, :]
            + _gaussian_log_likelihood(params.gaussian.theta, params.gaussian.var, X_cont)
            + _categorical_log_likelihood(params.categorical.feature_log_prob,
                                          params.categorical.n_categories, codes))


# --------------------------------------------------------------------------- validation helpers
def _check_codes_in_range(codes, n_categories, names: Sequence[int] | None = None, where: str = "X"):
    """Concrete check that every code lies in ``0 .. n_categories[j]-1``."""
    if any_traced(codes, n_categories):
        return
    c = np.asarray(codes)
    nc = np.asarray(n_categories)
    if c.size == 0:
        return
    if (c < 0).any():
        j = int(np.argwhere(c < 0)[0][1])
        raise ValueError(f"{where} must hold non-negative category codes, got {int(c.min())} "
                         f"in feature {names[j] if names is not None else j}")
    bad = c >= nc[None, :]
    if bad.any():
        i, j = (int(v) for v in np.argwhere(bad)[0])
        feat = names[j] if names is not None else j
        raise ValueError(
            f"{where} holds category code {int(c[i, j])} for feature {feat}, but that feature has "
            f"n_categories={int(nc[j])} (codes 0..{int(nc[j]) - 1}); unseen codes must be covered "
            "by n_categories at fit time"
        )


def _resolve_n_categories(n_categories, codes, sample_weight, n_features: int) -> tuple[int, ...]:
    """Static per-feature numbers of categories: given (int or sequence) or inferred."""
    if n_categories is None:
        if is_traced(codes):
            raise ValueError("n_categories must be given when X is traced (inside jit/vmap)")
        c = np.asarray(codes)
        if c.shape[1] == 0:
            return ()
        if not is_traced(sample_weight):
            c = c[np.asarray(sample_weight) > 0]
        result = tuple(int(v) + 1 for v in np.max(c, axis=0))
        result = tuple(max(1, v) for v in result)
    elif isinstance(n_categories, (int, np.integer)) and not isinstance(n_categories, bool):
        result = (int(n_categories),) * n_features
    else:
        try:
            result = tuple(int(v) for v in n_categories)
        except TypeError:
            raise TypeError(
                f"n_categories must be None, an int or a sequence of ints, got {n_categories!r}"
            ) from None
        if len(result) != n_features:
            raise ValueError(
                f"n_categories must have one entry per categorical feature ({n_features}), "
                f"got {len(result)}"
            )
    if any(v < 1 for v in result):
        raise ValueError(f"n_categories must be >= 1 for every feature, got {list(result)}")
    return result


def _positive_rows(codes, sample_weight):
    if is_traced(codes) or is_traced(sample_weight):
        return codes
    return np.asarray(codes)[np.asarray(sample_weight) > 0]


# --------------------------------------------------------------------------- public fits
def fit_gaussian_nb(
    X: Any,
    y: Any,
    *,
    n_classes: int | None = None,
    priors: Any = None,
    var_smoothing: float | jax.Array = 1e-9,
    sample_weight: Any = None,
) -> GaussianNBParams:
    r"""Fit Gaussian naive Bayes: per-class weighted means and variances.

    With weights :math:`w_i` and :math:`r_{ik} = w_i [y_i = k]`, :math:`N_k = \sum_i r_{ik}`:

    .. math::

        \theta_{kj} = \frac{1}{N_k}\sum_i r_{ik} x_{ij}, \qquad
        \sigma^2_{kj} = \frac{1}{N_k}\sum_i r_{ik} (x_{ij} - \theta_{kj})^2 + \varepsilon, \qquad
        \pi_k = N_k / \textstyle\sum_c N_c,

    the maximisers of the weighted log-likelihood (biased variance, as scikit-learn), with
    :math:`\varepsilon = \text{var\_smoothing}\cdot\max_j \operatorname{Var}_w(x_{\cdot j})`.
    A feature with zero variance in a class thus gets variance :math:`\varepsilon > 0`; when
    *every* feature is constant the scale :math:`\max_j \operatorname{Var}` is 0 and 1 is used
    instead, so :math:`\varepsilon = \text{var\_smoothing}` (still > 0 unless
    ``var_smoothing=0``, which leaves zero variances as they are and gives infinite
    log-likelihoods).

    Parameters
    ----------
    X : (n, d) float array
    y : (n,) int class codes ``0..C-1``
    n_classes : int, optional (static)
        Number of classes C; inferred as ``max(y) + 1`` when ``y`` is concrete.
    priors : (C,) array, optional
        Class priors (non-negative, sum to 1). Default: the weighted class frequencies.
    var_smoothing : float >= 0 (traced)
        Portion of the largest feature variance added to every variance.
    sample_weight : (n,) array, optional
        Non-negative row weights. scikit-learn computes ``epsilon`` from the *unweighted*
        variance of ``X``; here it is weighted, so that zero-weight rows have no influence.

    Returns
    -------
    GaussianNBParams

    Example
    -------
    >>> import jax.numpy as jnp
    >>> from jaxclassic.discriminant import fit_gaussian_nb, predict
    >>> X = jnp.array([[0.0], [0.2], [1.0], [1.2]]); y = jnp.array([0, 0, 1, 1])
    >>> predict(fit_gaussian_nb(X, y), jnp.array([[0.1], [1.1]])).tolist()
    [0, 1]

    References
    ----------
    Mitchell, *Machine Learning* (1997), §6.9; scikit-learn ``GaussianNB``.
    """
    X, y, sample_weight, n_classes = check_classifier_data(X, y, sample_weight, n_classes=n_classes)
    priors = check_priors(priors, n_classes, X.dtype)
    check_scalar(var_smoothing, "var_smoothing", low=0.0)
    return _fit_gaussian_nb(X, y, sample_weight, priors, as_operand(var_smoothing, X.dtype), n_classes)


def fit_categorical_nb(
    X: Any,
    y: Any,
    *,
    n_classes: int | None = None,
    n_categories: int | Sequence[int] | None = None,
    alpha: float | jax.Array = 1.0,
    fit_prior: bool = True,
    priors: Any = None,
    sample_weight: Any = None,
) -> CategoricalNBParams:
    r"""Fit categorical naive Bayes with Laplace / Lidstone smoothing.

    With :math:`N_{jkc} = \sum_i w_i [y_i = k][x_{ij} = c]` and :math:`N_k = \sum_i w_i [y_i = k]`,

    .. math::

        P(x_j = c \mid y = k) = \frac{N_{jkc} + \alpha}{N_k + \alpha K_j},

    where :math:`K_j` is the number of categories of feature *j*; :math:`\alpha = 1` is Laplace
    smoothing, other :math:`\alpha > 0` Lidstone, and :math:`\alpha = 0` the unsmoothed
    maximum-likelihood estimate (Mitchell's PlayTennis example). With :math:`\alpha = 0` a
    category never seen with class *k* has :math:`\log P = -\infty`, so that class gets
    probability 0 for any sample holding it; a sample whose categories rule out *every* class
    gets NaN probabilities. With :math:`\alpha > 0` a category unseen in training (but below
    ``n_categories``) gets the smoothed probability :math:`\alpha / (N_k + \alpha K_j)`.

    Parameters
    ----------
    X : (n, d) array of non-negative integer category codes (ints or integer-valued floats)
    y : (n,) int class codes ``0..C-1``
    n_classes : int, optional (static)
    n_categories : int or sequence of d ints, optional (static)
        Number of categories of each feature (an int applies to every feature). Default: the
        largest code in the positive-weight rows plus one, per feature. At prediction a code
        ``>= n_categories[j]`` raises ``ValueError`` (under tracing, where values cannot be
        checked, such a feature is skipped: it contributes 0 to every class).
    alpha : float >= 0 (traced)
        Additive (Laplace / Lidstone) smoothing.
    fit_prior : bool (static)
        Learn the class prior from the weighted class frequencies; else uniform.
    priors : (C,) array, optional
        Fixed class priors; overrides ``fit_prior``.
    sample_weight : (n,) array, optional
        Row weights; counts are weighted sums. Codes of zero-weight rows are not checked and
        have no influence.

    Returns
    -------
    CategoricalNBParams

    Example
    -------
    >>> import jax.numpy as jnp
    >>> from jaxclassic.discriminant import fit_categorical_nb, predict
    >>> X = jnp.array([[0, 1], [0, 0], [1, 1], [1, 0]]); y = jnp.array([0, 0, 1, 1])
    >>> predict(fit_categorical_nb(X, y), jnp.array([[0, 1], [1, 1]])).tolist()
    [0, 1]

    References
    ----------
    Mitchell, *Machine Learning* (1997), §6.9.1; Manning et al., *Introduction to Information
    Retrieval* (2008), §13.2; scikit-learn ``CategoricalNB``.
    """
    X, y, sample_weight, n_classes = check_classifier_data(X, y, sample_weight, n_classes=n_classes, numeric="int")
    X = X.astype(jnp.int32)
    fit_prior = check_bool(fit_prior, "fit_prior")
    check_scalar(alpha, "alpha", low=0.0)
    dtype = sample_weight.dtype
    priors = check_priors(priors, n_classes, dtype)
    ncat = _resolve_n_categories(n_categories, X, sample_weight, X.shape[1])
    _check_codes_in_range(_positive_rows(X, sample_weight), ncat)
    return _fit_categorical_nb(
        X, y, sample_weight, jnp.asarray(ncat, jnp.int32), jnp.asarray(alpha, dtype), priors,
        n_classes, max(ncat, default=1), bool(fit_prior))


def fit_mixed_nb(
    X: Any,
    y: Any,
    *,
    categorical_features: Sequence[int] | Sequence[bool] | Any,
    n_classes: int | None = None,
    n_categories: int | Sequence[int] | None = None,
    alpha: float | jax.Array = 1.0,
    var_smoothing: float | jax.Array = 1e-9,
    fit_prior: bool = True,
    priors: Any = None,
    sample_weight: Any = None,
) -> MixedNBParams:
    r"""Fit naive Bayes over continuous and categorical features in one model.

    The class-conditional independence of naive Bayes lets each feature bring its own model:
    continuous features a Gaussian density (as :func:`fit_gaussian_nb`), categorical ones
    smoothed frequencies (as :func:`fit_categorical_nb`). One class prior, one sum:

    .. math::

        \log p(x, k) = \log\pi_k + \sum_{j \in \text{cont}} \log\mathcal N(x_j;\theta_{kj},\sigma^2_{kj})
                     + \sum_{j \in \text{cat}} \log\frac{N_{jk x_j} + \alpha}{N_k + \alpha K_j}.

    Parameters
    ----------
    X : (n, d) float array; the categorical columns hold non-negative integer codes
    y : (n,) int class codes
    categorical_features : (d,) bool mask or sequence of column indices (static)
    n_classes, n_categories, alpha, fit_prior, priors
        As in :func:`fit_categorical_nb`; ``n_categories`` is per *categorical* column, in
        increasing column order.
    var_smoothing
        As in :func:`fit_gaussian_nb`, with the scale taken over the continuous columns.
    sample_weight : (n,) array, optional

    Returns
    -------
    MixedNBParams

    Example
    -------
    >>> import jax.numpy as jnp
    >>> from jaxclassic.discriminant import fit_mixed_nb, predict
    >>> X = jnp.array([[0, 0.1], [0, 0.3], [1, 2.0], [1, 2.2]]); y = jnp.array([0, 0, 1, 1])
    >>> params = fit_mixed_nb(X, y, categorical_features=[0])
    >>> predict(params, jnp.array([[0, 0.2], [1, 2.1]])).tolist()
    [0, 1]

    References
    ----------
    Mitchell, *Machine Learning* (1997), §6.9; Hastie et al., *ESL* (2009), §6.6.3 (naive Bayes
    with mixed feature types).
    """
    X, y, sample_weight, n_classes = check_classifier_data(X, y, sample_weight, n_classes=n_classes)
    n_features = X.shape[1]
    categorical = _resolve_feature_indices(categorical_features, n_features)
    continuous = tuple(j for j in range(n_features) if j not in set(categorical))
    fit_prior = check_bool(fit_prior, "fit_prior")
    check_scalar(alpha, "alpha", low=0.0)
    check_scalar(var_smoothing, "var_smoothing", low=0.0)
    priors = check_priors(priors, n_classes, X.dtype)
    codes = X[:, np.asarray(categorical, dtype=np.int32)]
    if not is_traced(codes):
        c = np.asarray(_positive_rows(codes, sample_weight))
        if not np.all(c == np.round(c)):
            raise ValueError("X must hold integer category codes in its categorical_features columns, "
                             "got non-integer values")
        if c.size and np.abs(c).max() > np.iinfo(np.int32).max:
            raise ValueError("X must hold integer category codes within int32's range in its "
                             f"categorical_features columns, got {c.flat[np.abs(c).argmax()].item()!r}")
    codes_int = codes.astype(jnp.int32)
    ncat = _resolve_n_categories(n_categories, codes_int, sample_weight, len(categorical))
    _check_codes_in_range(_positive_rows(codes_int, sample_weight), ncat, names=categorical)
    return _fit_mixed_nb(
        X, y, sample_weight, as_operand(ncat, np.int32), as_operand(alpha, X.dtype),
        as_operand(var_smoothing, X.dtype), priors, n_classes, max(ncat, default=1),
        bool(fit_prior), categorical, continuous)


def _resolve_feature_indices(categorical_features, n_features: int) -> tuple[int, ...]:
    if categorical_features is None or is_traced(categorical_features):
        raise ValueError("categorical_features must be a concrete bool mask or a list of column indices")
    arr = np.asarray(categorical_features)
    if arr.dtype == bool:
        if arr.shape != (n_features,):
            raise ValueError(
                f"categorical_features as a mask must have shape ({n_features},), got {arr.shape}")
        idx = np.flatnonzero(arr)
    else:
        if arr.ndim != 1 or (arr.size and arr.dtype.kind not in "iu"):
            raise TypeError(
                f"categorical_features must be a bool mask or integer indices, got {categorical_features!r}")
        idx = arr.astype(np.int64)
        if ((idx < 0) | (idx >= n_features)).any():
            raise ValueError(f"categorical_features indices must lie in 0..{n_features - 1}, got {idx.tolist()}")
        if len(np.unique(idx)) != len(idx):
            raise ValueError(f"categorical_features has repeated indices: {idx.tolist()}")
    return tuple(sorted(int(i) for i in idx))


# --------------------------------------------------------------------------- prediction
def joint_log_likelihood(params, X):
    r"""Unnormalised :math:`\log p(x, y{=}k)`, shape (n, C), for any naive Bayes params."""
    if isinstance(params, GaussianNBParams):
        X = check_predict_X(X, params.theta.dtype, params.theta.shape[1])
        return _jll_gaussian(params, X)
    if isinstance(params, CategoricalNBParams):
        X = check_predict_X(X, params.feature_log_prob.dtype, params.feature_log_prob.shape[0], numeric="int")
        _check_codes_in_range(X, params.n_categories)
        return _jll_categorical(params, X)
    if isinstance(params, MixedNBParams):
        n_features = params.continuous_features.shape[0] + params.categorical_features.shape[0]
        X = check_predict_X(X, params.gaussian.theta.dtype, n_features)
        if not any_traced(X, params):
            codes = np.asarray(X)[:, np.asarray(params.categorical_features)]
            if not np.all(codes == np.round(codes)):
                raise ValueError("X must hold integer category codes in its categorical columns")
            _check_codes_in_range(codes.astype(np.int64), params.categorical.n_categories,
                                  names=np.asarray(params.categorical_features).tolist())
        return _jll_mixed(params, X)
    raise TypeError(f"joint_log_likelihood does not support {type(params).__name__}")


register_predictions((GaussianNBParams, CategoricalNBParams, MixedNBParams), joint_log_likelihood)
