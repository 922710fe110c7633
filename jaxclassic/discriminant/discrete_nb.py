r"""Naive Bayes for counts and binary features: multinomial, Bernoulli and complement.

The three models of text classification (bag-of-words counts, word presence), with
scikit-learn's exact definitions. With row weights :math:`w_i`,
:math:`r_{ik} = w_i [y_i = k]`, the sufficient statistics are the class counts and the
class-feature counts

.. math::

    N_k = \sum_i r_{ik}, \qquad N_{kj} = \sum_i r_{ik} x_{ij}
    \quad (\text{i.e. } N = R^\top X),

a product that costs :math:`O(\mathrm{nnz}(X)\,C)`: a ``scipy.sparse`` ``X`` is taken as it is
(:func:`jaxclassic._sparse.to_bcoo`) and never densified. Smoothing :math:`\alpha` (a scalar
or one value per feature) then gives

* **multinomial**: :math:`\log\theta_{kj} = \log(N_{kj} + \alpha_j) - \log\sum_l (N_{kl} + \alpha_l)`,
  joint log-likelihood :math:`\log\pi_k + \sum_j x_j\log\theta_{kj}`;
* **Bernoulli** (``x`` binarised at ``binarize``): :math:`\log p_{kj} = \log(N_{kj} + \alpha_j) -
  \log(N_k + 2\alpha_j)`, joint log-likelihood
  :math:`\log\pi_k + \sum_j x_j\log p_{kj} + (1 - x_j)\log(1 - p_{kj})` (absent words count);
* **complement** (Rennie et al. 2003): the counts of every *other* class,
  :math:`\bar N_{kj} = \sum_c N_{cj} + \alpha_j - N_{kj}`, weights
  :math:`w_{kj} = -\log(\bar N_{kj} / \sum_l \bar N_{kl})` (or, with ``norm``,
  :math:`\log(\cdot)/\sum_l\log(\cdot)`), class score :math:`\sum_j x_j w_{kj}` (the prior
  enters only with a single class, as scikit-learn).

Class prior :math:`\log\pi_k`: the given ``priors``, else with ``fit_prior`` the weighted class
frequencies :math:`\log N_k - \log\sum_c N_c` (``-inf`` for a class with no weight), else
uniform :math:`-\log C`. Probabilities are the log-space normalisation of the class scores.

Every statistic is a weighted row sum, so a row of weight 0 has no influence, and an update
with a new batch is exact: ``update_<model>(params, X, y)`` adds the batch's counts to the
params' and recomputes the log-probabilities, so fitting in batches equals the one-shot fit
(scikit-learn's ``partial_fit``). The fit is the update of empty counts: one compiled program.

With ``alpha = 0`` a count of 0 gives :math:`\log 0 = -\infty`; products use the convention
:math:`0\cdot\infty = 0` (a word absent from a document says nothing about its probability),
where scikit-learn's dense product gives NaN.

References
----------
C. D. Manning, P. Raghavan, H. Schütze, *Introduction to Information Retrieval*, 2008, §13.2-13.3.
A. McCallum, K. Nigam, "A comparison of event models for naive Bayes text classification",
AAAI-98 Workshop on Learning for Text Categorization.
J. D. M. Rennie, L. Shih, J. Teevan, D. R. Karger, "Tackling the poor assumptions of naive Bayes
text classifiers", ICML 2003.
"""

from __future__ import annotations

import warnings
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxclassic import _sparse
from jaxclassic.discriminant import _discrete_core as _core
from jaxclassic.discriminant._common import any_traced, check_priors, register_predictions
from jaxclassic.validation import (
    _float_dtype_for,
    check_bool,
    check_classification_targets,
    check_classifier_data,
    check_predict_X,
    check_sample_weight,
    check_scalar,
    is_traced,
)

__all__ = [
    "MultinomialNBParams",
    "BernoulliNBParams",
    "ComplementNBParams",
    "fit_multinomial_nb",
    "fit_bernoulli_nb",
    "fit_complement_nb",
    "update_multinomial_nb",
    "update_bernoulli_nb",
    "update_complement_nb",
    "joint_log_likelihood",
]

#: scikit-learn's floor for ``alpha`` when ``force_alpha=False``
ALPHA_FLOOR = 1e-10


class MultinomialNBParams(NamedTuple):
    """Fitted multinomial naive Bayes (fields as scikit-learn's ``MultinomialNB`` attributes).

    Attributes
    ----------
    class_count : (C,) weighted number of rows per class.
    feature_count : (C, d) weighted sum of each feature per class, :math:`R^\\top X`.
    class_log_prior : (C,) log class prior.
    feature_log_prob : (C, d) smoothed :math:`\\log\\theta_{kj}`.
    """

    class_count: jax.Array
    feature_count: jax.Array
    class_log_prior: jax.Array
    feature_log_prob: jax.Array

    @property
    def n_classes(self) -> int:
        """The number of classes ``C`` (from the shape of ``class_count``; not a pytree leaf)."""
        return int(self.class_count.shape[-1])


class BernoulliNBParams(NamedTuple):
    """Fitted Bernoulli naive Bayes (fields as scikit-learn's ``BernoulliNB`` attributes).

    Attributes
    ----------
    class_count : (C,) weighted number of rows per class.
    feature_count : (C, d) weighted number of rows per class with the feature present.
    class_log_prior : (C,) log class prior.
    feature_log_prob : (C, d) smoothed :math:`\\log p_{kj}`.
    binarize : () the threshold: a value ``> binarize`` is present (used when ``binarize_input``).
    binarize_input : () bool, False for ``binarize=None`` (``X`` is taken as already binary).
    """

    class_count: jax.Array
    feature_count: jax.Array
    class_log_prior: jax.Array
    feature_log_prob: jax.Array
    binarize: jax.Array
    binarize_input: jax.Array

    @property
    def n_classes(self) -> int:
        """The number of classes ``C`` (from the shape of ``class_count``; not a pytree leaf)."""
        return int(self.class_count.shape[-1])


class ComplementNBParams(NamedTuple):
    """Fitted complement naive Bayes (fields as scikit-learn's ``ComplementNB`` attributes).

    Attributes
    ----------
    class_count : (C,) weighted number of rows per class.
    feature_count : (C, d) weighted sum of each feature per class.
    feature_all : (d,) weighted sum of each feature over all classes.
    class_log_prior : (C,) log class prior (used only by a one-class model, as scikit-learn).
    feature_log_prob : (C, d) the complement weights :math:`w_{kj}` (scores, larger is better).
    """

    class_count: jax.Array
    feature_count: jax.Array
    feature_all: jax.Array
    class_log_prior: jax.Array
    feature_log_prob: jax.Array

    @property
    def n_classes(self) -> int:
        """The number of classes ``C`` (from the shape of ``class_count``; not a pytree leaf)."""
        return int(self.class_count.shape[-1])


_NAMES = {"multinomial": "fit_multinomial_nb", "bernoulli": "fit_bernoulli_nb",
          "complement": "fit_complement_nb"}
_PARAMS = {"multinomial": MultinomialNBParams, "bernoulli": BernoulliNBParams,
           "complement": ComplementNBParams}


# --------------------------------------------------------------------------- validation
def _check_hyper(alpha, force_alpha, fit_prior, n_features: int | None):
    """``alpha`` (scalar or one per feature, >= 0), the flags; returns the alpha to use."""
    force_alpha = check_bool(force_alpha, "force_alpha")
    fit_prior = check_bool(fit_prior, "fit_prior")
    if is_traced(alpha):
        return alpha if force_alpha else jnp.maximum(alpha, ALPHA_FLOOR), fit_prior
    if isinstance(alpha, (list, tuple)) or (hasattr(alpha, "ndim") and np.ndim(alpha) > 0):
        a = np.asarray(alpha)
        if a.dtype.kind not in "fiu" or a.ndim != 1:
            raise TypeError(f"alpha must be a real number or a 1-d array (one per feature), got {alpha!r}")
        if n_features is not None and a.shape[0] != n_features:
            raise ValueError(f"alpha must have one value per feature ({n_features}), got {a.shape[0]}")
        check_scalar(a, "alpha", low=0.0, allow_array=True)
    else:
        check_scalar(alpha, "alpha", low=0.0)
    a = np.asarray(alpha, dtype=np.float64)
    if not force_alpha and np.min(a) < ALPHA_FLOOR:
        warnings.warn(f"alpha too small will result in numeric errors, setting alpha = {ALPHA_FLOOR:.1e}. "
                      "Use `force_alpha=True` to keep alpha unchanged.", UserWarning, stacklevel=3)
        a = np.maximum(a, ALPHA_FLOOR)
    return a, fit_prior


def _check_binarize(binarize):
    """``(threshold, binarize_input)`` from ``binarize`` (None or a real >= 0)."""
    if binarize is None:
        return 0.0, False
    check_scalar(binarize, "binarize", low=0.0)
    return binarize, True


def _sparse_dtype(X):
    """float32 / float64 kept (float64 only under x64), counts of any other dtype the default float."""
    return _float_dtype_for(np.dtype(X.dtype))


def _check_non_negative(values, kind: str):
    if kind == "bernoulli" or values is None or values.size == 0:
        return
    low = values.min()
    if low < 0:
        raise ValueError(f"Negative values in data passed to {_NAMES[kind]}: X must hold non-negative "
                         f"counts, got minimum {low.item()!r}")


def _check_unit_interval(values):
    """``binarize=None``: X must already be binary (values in [0, 1])."""
    if values is not None and values.size and (values.min() < 0 or values.max() > 1):
        raise ValueError("X must hold values in [0, 1] with binarize=None (binary features), got range "
                         f"[{values.min().item()!r}, {values.max().item()!r}]; give a threshold "
                         "binarize >= 0 to binarize it")


def _prepare_data(X, y, sample_weight, *, kind, n_classes, min_classes, binarize_input, dtype=None):
    """Validated ``(X, y, sample_weight, n_classes)``: X dense (jax) or a BCOO; checks before
    anything is compiled."""
    if _sparse.is_sparse(X):
        dtype = dtype or _sparse_dtype(X)
        Xs, csr = _core.sparse_operand(X, dtype)
        n = csr.shape[0]
        sw = check_sample_weight(sample_weight, n, dtype=dtype)
        y, n_classes = check_classification_targets(y, "y", min_classes=min_classes, n_classes=n_classes,
                                                    sample_weight=sw)
        if np.shape(y)[0] != n:
            raise ValueError(f"X and y have inconsistent numbers of samples: {n} != {np.shape(y)[0]}")
        values = csr.data
        X = Xs
    else:
        X, y, sw, n_classes = check_classifier_data(X, y, sample_weight, n_classes=n_classes,
                                                    min_classes=min_classes)
        if dtype is not None and X.dtype != dtype:
            X, sw = X.astype(dtype), sw.astype(dtype)
        values = None if is_traced(X) else np.asarray(X)
    _check_non_negative(values, kind)
    if kind == "bernoulli" and not binarize_input:
        _check_unit_interval(values)
    return X, y, sw, n_classes


def _operand(value, dtype):
    return value if is_traced(value) else np.asarray(value, dtype)


def _fit(kind, X, y, *, alpha, force_alpha, fit_prior, priors, sample_weight, n_classes,
         binarize=None, norm=False):
    norm = check_bool(norm, "norm")
    threshold, binarize_input = _check_binarize(binarize) if kind == "bernoulli" else (0.0, False)
    alpha, fit_prior = _check_hyper(alpha, force_alpha, fit_prior, None)
    X, y, sw, n_classes = _prepare_data(X, y, sample_weight, kind=kind, n_classes=n_classes,
                                        min_classes=2, binarize_input=binarize_input)
    dtype = sw.dtype
    priors = check_priors(priors, n_classes, dtype)
    alpha = _check_alpha_shape(alpha, X.shape[1])
    d = X.shape[1]
    return _PARAMS[kind](*_core.update_counts(
        np.zeros(n_classes, dtype), np.zeros((n_classes, d), dtype), X, y, sw, _operand(alpha, dtype), priors,
        _operand(threshold, dtype), np.asarray(binarize_input), kind=kind, n_classes=n_classes,
        fit_prior=fit_prior, norm=norm))


def _check_alpha_shape(alpha, n_features):
    if np.ndim(alpha) == 1 and np.shape(alpha)[0] != n_features:
        raise ValueError(f"alpha must have one value per feature ({n_features}), got {np.shape(alpha)[0]}")
    return alpha


def _update_params(kind, params, X, y, *, alpha, force_alpha, fit_prior, priors, sample_weight,
                   binarize=None, norm=False):
    if not isinstance(params, _PARAMS[kind]):
        raise TypeError(f"params must be {_PARAMS[kind].__name__}, got {type(params).__name__}")
    norm = check_bool(norm, "norm")
    threshold, binarize_input = _check_binarize(binarize) if kind == "bernoulli" else (0.0, False)
    n_classes, n_features = params.feature_count.shape
    alpha, fit_prior = _check_hyper(alpha, force_alpha, fit_prior, n_features)
    dtype = params.feature_count.dtype
    X, y, sw, _ = _prepare_data(X, y, sample_weight, kind=kind, n_classes=n_classes, min_classes=1,
                                binarize_input=binarize_input, dtype=dtype)
    if X.shape[1] != n_features:
        raise ValueError(f"X has {X.shape[1]} features, but the params were fitted with "
                         f"{n_features} features")
    priors = check_priors(priors, n_classes, dtype)
    return _PARAMS[kind](*_core.update_counts(
        params.class_count, params.feature_count, X, y, sw, _operand(alpha, dtype), priors,
        _operand(threshold, dtype), np.asarray(binarize_input), kind=kind, n_classes=n_classes,
        fit_prior=fit_prior, norm=norm))


# --------------------------------------------------------------------------- public fits
def fit_multinomial_nb(
    X: Any,
    y: Any,
    *,
    alpha: float | Any = 1.0,
    force_alpha: bool = True,
    fit_prior: bool = True,
    priors: Any = None,
    sample_weight: Any = None,
    n_classes: int | None = None,
) -> MultinomialNBParams:
    r"""Fit multinomial naive Bayes (word counts): smoothed class-feature frequencies.

    .. math::

        N_{kj} = \sum_i w_i [y_i = k]\, x_{ij}, \qquad
        \log\theta_{kj} = \log(N_{kj} + \alpha_j) - \log\textstyle\sum_l (N_{kl} + \alpha_l),

    class score :math:`\log\pi_k + \sum_j x_j\log\theta_{kj}` (module docstring). Equals
    scikit-learn's ``MultinomialNB`` (``feature_log_prob_``, ``class_log_prior_``, probabilities)
    to rounding.

    Parameters
    ----------
    X : (n, d) non-negative array (counts; fractional values such as tf-idf work too), or a
        ``scipy.sparse`` matrix (taken as it is: the counts are an O(nnz) product)
    y : (n,) int class codes ``0..C-1``
    alpha : float >= 0 or (d,) array (traced)
        Additive (Laplace / Lidstone) smoothing; 0 for none.
    force_alpha : bool
        If False, an ``alpha`` below 1e-10 is raised to 1e-10 with a warning (scikit-learn's rule).
    fit_prior : bool (static)
        Learn the class prior from the weighted class frequencies; else uniform.
    priors : (C,) array, optional
        Fixed class priors (scikit-learn's ``class_prior``); override ``fit_prior``.
    sample_weight : (n,) array, optional
        Non-negative row weights; counts are weighted sums.
    n_classes : int, optional (static)
        Number of classes; inferred as ``max(y) + 1``.

    Returns
    -------
    MultinomialNBParams

    Raises
    ------
    ValueError
        ``X`` with a negative value (as scikit-learn: "Negative values in data passed to ...").

    Example
    -------
    >>> import numpy as np
    >>> from jaxclassic.discriminant import fit_multinomial_nb, predict
    >>> X = np.array([[3, 0, 1], [2, 0, 0], [0, 2, 3], [0, 3, 1]]); y = np.array([0, 0, 1, 1])
    >>> predict(fit_multinomial_nb(X, y), np.array([[1, 0, 0], [0, 1, 1]])).tolist()
    [0, 1]

    References
    ----------
    Manning et al., *Introduction to Information Retrieval* (2008), §13.2; McCallum & Nigam (1998);
    scikit-learn ``MultinomialNB``.
    """
    return _fit("multinomial", X, y, alpha=alpha, force_alpha=force_alpha, fit_prior=fit_prior,
                priors=priors, sample_weight=sample_weight, n_classes=n_classes)


def fit_bernoulli_nb(
    X: Any,
    y: Any,
    *,
    alpha: float | Any = 1.0,
    force_alpha: bool = True,
    binarize: float | None = 0.0,
    fit_prior: bool = True,
    priors: Any = None,
    sample_weight: Any = None,
    n_classes: int | None = None,
) -> BernoulliNBParams:
    r"""Fit Bernoulli naive Bayes (word presence): smoothed per-class presence frequencies.

    With :math:`b_{ij} = [x_{ij} > \text{binarize}]`,

    .. math::

        \log p_{kj} = \log\Big(\sum_i w_i [y_i{=}k]\, b_{ij} + \alpha_j\Big) - \log(N_k + 2\alpha_j),

    class score :math:`\log\pi_k + \sum_j b_j\log p_{kj} + (1 - b_j)\log(1 - p_{kj})`: unlike the
    multinomial model, an absent feature is evidence too. Equals scikit-learn's ``BernoulliNB``
    to rounding.

    Parameters
    ----------
    X : (n, d) array or ``scipy.sparse`` matrix
    y : (n,) int class codes ``0..C-1``
    alpha, force_alpha, fit_prior, priors, sample_weight, n_classes
        As :func:`fit_multinomial_nb`.
    binarize : float >= 0 or None (traced)
        Threshold: a value above it is "present". None: ``X`` is already binary; its values
        must then lie in [0, 1] (``ValueError`` otherwise; scikit-learn does not check, and a
        count above 1 gives it a probability above 1 and NaN scores).

    Returns
    -------
    BernoulliNBParams
        Its ``binarize`` / ``binarize_input`` make ``predict`` binarize new rows the same way.

    Example
    -------
    >>> import numpy as np
    >>> from jaxclassic.discriminant import fit_bernoulli_nb, predict
    >>> X = np.array([[1, 0, 1], [1, 0, 0], [0, 1, 1], [0, 1, 0]]); y = np.array([0, 0, 1, 1])
    >>> predict(fit_bernoulli_nb(X, y), np.array([[1, 0, 0], [0, 1, 1]])).tolist()
    [0, 1]

    References
    ----------
    Manning et al., *Introduction to Information Retrieval* (2008), §13.3; McCallum & Nigam
    (1998); scikit-learn ``BernoulliNB``.
    """
    return _fit("bernoulli", X, y, alpha=alpha, force_alpha=force_alpha, fit_prior=fit_prior,
                priors=priors, sample_weight=sample_weight, n_classes=n_classes, binarize=binarize)


def fit_complement_nb(
    X: Any,
    y: Any,
    *,
    alpha: float | Any = 1.0,
    force_alpha: bool = True,
    fit_prior: bool = True,
    priors: Any = None,
    norm: bool = False,
    sample_weight: Any = None,
    n_classes: int | None = None,
) -> ComplementNBParams:
    r"""Fit complement naive Bayes (Rennie et al. 2003): weights from every *other* class's counts.

    .. math::

        \bar N_{kj} = \sum_c N_{cj} + \alpha_j - N_{kj}, \qquad
        w_{kj} = -\log\frac{\bar N_{kj}}{\sum_l \bar N_{kl}}
        \quad\Big(\text{norm: } w_{kj} = \log\tfrac{\bar N_{kj}}{\sum_l \bar N_{kl}}\Big/
        \textstyle\sum_l \log\tfrac{\bar N_{kl}}{\sum_m \bar N_{km}}\Big),

    class score :math:`\sum_j x_j w_{kj}` (the class whose complement explains the row *worst*);
    the prior is not used with two classes or more (scikit-learn's rule). Better than the
    multinomial model on imbalanced classes. Equals scikit-learn's ``ComplementNB`` to rounding.

    Parameters
    ----------
    X : (n, d) non-negative array or ``scipy.sparse`` matrix
    y : (n,) int class codes ``0..C-1``
    alpha, force_alpha, fit_prior, priors, sample_weight, n_classes
        As :func:`fit_multinomial_nb`.
    norm : bool (static)
        Normalise the weights (Rennie et al.'s second step).

    Returns
    -------
    ComplementNBParams

    Example
    -------
    >>> import numpy as np
    >>> from jaxclassic.discriminant import fit_complement_nb, predict
    >>> X = np.array([[3, 0, 1], [2, 0, 0], [0, 2, 3], [0, 3, 1]]); y = np.array([0, 0, 1, 1])
    >>> predict(fit_complement_nb(X, y), np.array([[1, 0, 0], [0, 1, 1]])).tolist()
    [0, 1]

    References
    ----------
    Rennie, Shih, Teevan & Karger, "Tackling the poor assumptions of naive Bayes text
    classifiers", ICML 2003; scikit-learn ``ComplementNB``.
    """
    return _fit("complement", X, y, alpha=alpha, force_alpha=force_alpha, fit_prior=fit_prior,
                priors=priors, sample_weight=sample_weight, n_classes=n_classes, norm=norm)


# --------------------------------------------------------------------------- updates (partial_fit)
def update_multinomial_nb(params: MultinomialNBParams, X: Any, y: Any, *, alpha: float | Any = 1.0,
                          force_alpha: bool = True, fit_prior: bool = True, priors: Any = None,
                          sample_weight: Any = None) -> MultinomialNBParams:
    r"""Add a batch to fitted multinomial naive Bayes: :math:`N \leftarrow N + R_b^\top X_b`,
    :math:`N_k \leftarrow N_k + \sum_{i \in b} r_{ik}`, then the log-probabilities of
    :func:`fit_multinomial_nb` from the summed counts (scikit-learn's ``partial_fit``).

    Exact: fitting on batches one after another equals one fit on all their rows. The
    hyperparameters apply to the result (pass the fit's to continue it). A batch may hold
    any subset of the classes (codes ``0..params.n_classes - 1``).

    Parameters
    ----------
    params : MultinomialNBParams
    X : (m, d) array or ``scipy.sparse`` matrix, the batch (d as the params)
    y : (m,) int class codes
    alpha, force_alpha, fit_prior, priors, sample_weight
        As :func:`fit_multinomial_nb`.

    Returns
    -------
    MultinomialNBParams

    Example
    -------
    >>> import numpy as np
    >>> X = np.array([[3, 0], [0, 2], [2, 1], [0, 3]]); y = np.array([0, 1, 0, 1])
    >>> p = update_multinomial_nb(fit_multinomial_nb(X[:2], y[:2]), X[2:], y[2:])
    >>> np.allclose(p.feature_count, fit_multinomial_nb(X, y).feature_count)
    True
    """
    return _update_params("multinomial", params, X, y, alpha=alpha, force_alpha=force_alpha,
                          fit_prior=fit_prior, priors=priors, sample_weight=sample_weight)


def update_bernoulli_nb(params: BernoulliNBParams, X: Any, y: Any, *, alpha: float | Any = 1.0,
                        force_alpha: bool = True, binarize: float | None = 0.0, fit_prior: bool = True,
                        priors: Any = None, sample_weight: Any = None) -> BernoulliNBParams:
    r"""Add a batch to fitted Bernoulli naive Bayes (counts added, log-probabilities of
    :func:`fit_bernoulli_nb` recomputed); exact, as :func:`update_multinomial_nb`.

    Parameters
    ----------
    params : BernoulliNBParams
    X, y, alpha, force_alpha, binarize, fit_prior, priors, sample_weight
        As :func:`fit_bernoulli_nb` (the batch).

    Returns
    -------
    BernoulliNBParams

    Example
    -------
    >>> import numpy as np
    >>> X = np.array([[1, 0], [0, 1], [1, 1], [0, 1]]); y = np.array([0, 1, 0, 1])
    >>> p = update_bernoulli_nb(fit_bernoulli_nb(X[:2], y[:2]), X[2:], y[2:])
    >>> np.allclose(p.feature_log_prob, fit_bernoulli_nb(X, y).feature_log_prob)
    True
    """
    return _update_params("bernoulli", params, X, y, alpha=alpha, force_alpha=force_alpha,
                          fit_prior=fit_prior, priors=priors, sample_weight=sample_weight,
                          binarize=binarize)


def update_complement_nb(params: ComplementNBParams, X: Any, y: Any, *, alpha: float | Any = 1.0,
                         force_alpha: bool = True, fit_prior: bool = True, priors: Any = None,
                         norm: bool = False, sample_weight: Any = None) -> ComplementNBParams:
    r"""Add a batch to fitted complement naive Bayes (counts added, weights of
    :func:`fit_complement_nb` recomputed); exact, as :func:`update_multinomial_nb`.

    Parameters
    ----------
    params : ComplementNBParams
    X, y, alpha, force_alpha, fit_prior, priors, norm, sample_weight
        As :func:`fit_complement_nb` (the batch).

    Returns
    -------
    ComplementNBParams

    Example
    -------
    >>> import numpy as np
    >>> X = np.array([[3, 0], [0, 2], [2, 1], [0, 3]]); y = np.array([0, 1, 0, 1])
    >>> p = update_complement_nb(fit_complement_nb(X[:2], y[:2]), X[2:], y[2:])
    >>> np.allclose(p.feature_log_prob, fit_complement_nb(X, y).feature_log_prob)
    True
    """
    return _update_params("complement", params, X, y, alpha=alpha, force_alpha=force_alpha,
                          fit_prior=fit_prior, priors=priors, sample_weight=sample_weight, norm=norm)


def empty_params(kind: str, n_classes: int, n_features: int, dtype, *, binarize=0.0):
    """Params of no rows (zero counts) for :func:`update_multinomial_nb` and its siblings to
    start from (the estimators' first ``partial_fit``); ``kind``: multinomial, bernoulli or
    complement."""
    zc, zf = jnp.zeros(n_classes, dtype), jnp.zeros((n_classes, n_features), dtype)
    log_prior = jnp.full(n_classes, -np.log(n_classes), dtype)
    if kind == "multinomial":
        return MultinomialNBParams(zc, zf, log_prior, zf)
    if kind == "bernoulli":
        threshold, binarize_input = _check_binarize(binarize)
        return BernoulliNBParams(zc, zf, log_prior, zf, jnp.asarray(threshold, dtype),
                                 jnp.asarray(binarize_input))
    return ComplementNBParams(zc, zf, jnp.zeros(n_features, dtype), log_prior, zf)


# --------------------------------------------------------------------------- prediction
def _kind_of(params) -> str:
    for kind, cls in _PARAMS.items():
        if isinstance(params, cls):
            return kind
    raise TypeError(f"joint_log_likelihood does not support {type(params).__name__}")


def joint_log_likelihood(params, X):
    r"""Class scores, (n, C): :math:`\log p(x, y{=}k)` (multinomial, Bernoulli), the complement
    weights' score (complement). ``X`` dense or ``scipy.sparse`` (never densified)."""
    kind = _kind_of(params)
    dtype = params.feature_log_prob.dtype
    n_features = params.feature_log_prob.shape[1]
    if _sparse.is_sparse(X):
        X, csr = _core.sparse_operand(X, dtype)
        if csr.shape[1] != n_features:
            raise ValueError(f"X has {csr.shape[1]} features, but the model was fitted with "
                             f"{n_features} features")
    else:
        X = check_predict_X(X, dtype, n_features)
        if kind == "bernoulli" and not any_traced(X, params) and not bool(params.binarize_input):
            _check_unit_interval(np.asarray(X))
    return _core.scores(params, X, kind=kind)


register_predictions(tuple(_PARAMS.values()), joint_log_likelihood)
