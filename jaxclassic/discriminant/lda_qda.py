r"""Linear and quadratic discriminant analysis: Gaussian classes, shared or own covariance.

Each class is modelled as :math:`x \mid y{=}k \sim \mathcal N(\mu_k, \Sigma_k)` with prior
:math:`\pi_k`; the log-posterior is, up to a term common to all classes, the discriminant

.. math::

    \text{LDA } (\Sigma_k = \Sigma):\quad
        \delta_k(x) = x^\top \Sigma^{-1}\mu_k - \tfrac12 \mu_k^\top\Sigma^{-1}\mu_k + \log\pi_k,

    \text{QDA}:\quad
        \delta_k(x) = -\tfrac12 \log|\Sigma_k| - \tfrac12 (x-\mu_k)^\top\Sigma_k^{-1}(x-\mu_k) + \log\pi_k,

and :math:`p(k \mid x) = \operatorname{softmax}_k \delta(x)` (ESL eqs. 4.10 and 4.12).

Covariance conventions (those of scikit-learn 1.9, matched so that probabilities agree):

* **LDA**: the within-class covariance is the *prior-weighted* sum of the biased (maximum
  likelihood, divide by :math:`N_k`) class covariances, :math:`\Sigma = \sum_k \pi_k S_k`; with
  the fitted priors :math:`\pi_k = N_k/N` this is the biased pooled covariance
  :math:`\frac1N\sum_i (x_i-\mu_{y_i})(x_i-\mu_{y_i})^\top`. Shrinkage :math:`s` acts on each
  class covariance, :math:`S_k \leftarrow (1-s) S_k + s\,\frac{\operatorname{tr} S_k}{d} I`
  (scikit-learn's ``shrunk_covariance``), as scikit-learn's ``lsqr`` / ``eigen`` solvers.
  ``shrinkage="auto"`` is scikit-learn's Ledoit-Wolf choice per class: the class's rows are
  standardised (:math:`z = (x - \mu_k)/\sigma_k`), the Ledoit-Wolf intensity :math:`s_k` of
  their covariance is computed (Ledoit & Wolf 2004, scikit-learn's ``ledoit_wolf_shrinkage``),
  and the shrunk correlation is scaled back:
  :math:`S_k \leftarrow (1-s_k) S_k + s_k m_k\,\operatorname{diag}(\sigma_k^2)`, with
  :math:`m_k` the mean diagonal of the standardised covariance (1 unless a feature is constant
  in the class; a constant feature has :math:`\sigma = 1`, as scikit-learn's ``StandardScaler``).
* **QDA**: the biased class covariance, regularised as
  :math:`\Sigma_k \leftarrow (1-r) S_k + r I` (``reg_param``, on the unscaled features: the
  ``svd`` solver of scikit-learn applies exactly this to the eigenvalues of :math:`S_k`).
  scikit-learn before 1.8 divided by :math:`N_k - 1`; 1.9 uses the biased estimate.

Centring (LDA). The discriminant is formed from the class offsets :math:`c_k = \mu_k - \bar x`,
:math:`\bar x = \sum_k \pi_k\mu_k`: :math:`w_k = \Sigma^{-1}c_k`,
:math:`b_k = -\tfrac12 c_k^\top w_k - \bar x^\top w_k + \log\pi_k`, which differs from ESL's
:math:`w_k = \Sigma^{-1}\mu_k` by terms common to all classes (same posteriors) and is the
``coef_`` / ``intercept_`` of scikit-learn's default ``svd`` solver. ESL's form has intercepts
of order :math:`\mu^\top\Sigma^{-1}\mu`: a column of mean :math:`10^3` and sd 1 gives
:math:`5\cdot10^5`, whose float32 rounding (0.03) was the size of the differences between
classes (probabilities 0.04 off the float64 fit before; :math:`10^{-4}` now). The class means
are likewise formed from :math:`X - \text{(weighted column mean)}`.

Sample weights (scikit-learn's LDA / QDA take none): every statistic is a weighted sum,
:math:`N_k = \sum_i w_i[y_i{=}k]`, :math:`\mu_k = \sum_i w_i[y_i{=}k]\,x_i / N_k`,
:math:`S_k = \sum_i w_i[y_i{=}k](x_i-\mu_k)(x_i-\mu_k)^\top / N_k`, :math:`\pi_k = N_k/\sum_c N_c`:
integer weights equal repeating rows, and a zero-weight row has no influence.

A class with no positive-weight sample gets probability 0.

References
----------
Hastie, Tibshirani, Friedman, *The Elements of Statistical Learning*, 2nd ed., §4.3
(LDA, QDA, regularised discriminant analysis, eq. 4.14).
R. O. Duda, P. E. Hart, D. G. Stork, *Pattern Classification*, 2nd ed., §2.6.
O. Ledoit, M. Wolf, "Honey, I shrunk the sample covariance matrix", 2004 (shrinkage form).
"""

from __future__ import annotations

from functools import partial
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxclassic import _jit
from jaxclassic import _linalg
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
from jaxclassic.validation import as_operand, check_choice, check_classifier_data, check_predict_X, check_scalar

__all__ = ["LDAParams", "QDAParams", "fit_lda", "fit_qda", "discriminant_scores", "lda_scalings"]


class LDAParams(NamedTuple):
    """Fitted linear discriminant analysis (fields as scikit-learn's attributes).

    Attributes
    ----------
    coef : (C, d) :math:`\\Sigma^{-1}(\\mu_k - \\bar x)` per class, :math:`\\bar x = \\sum_k\\pi_k\\mu_k`
        (scikit-learn's ``svd`` solver's ``coef_``; it stores the difference of the two rows
        for a binary problem; here every class keeps its row).
    intercept : (C,) :math:`-\\tfrac12 c_k^\\top w_k - \\bar x^\\top w_k + \\log\\pi_k`,
        :math:`c_k = \\mu_k - \\bar x` (module notes, "Centring").
    means : (C, d) class means.
    covariance : (d, d) the (shrunk) within-class covariance :math:`\\Sigma`.
    priors : (C,) class priors.
    class_count : (C,) weighted number of samples per class.
    """

    coef: jax.Array
    intercept: jax.Array
    means: jax.Array
    covariance: jax.Array
    priors: jax.Array
    class_count: jax.Array

    @property
    def n_classes(self) -> int:
        """The number of classes ``C``, a Python int read from the shape of ``class_count`` (not a pytree leaf)."""
        return int(self.class_count.shape[-1])



class QDAParams(NamedTuple):
    """Fitted quadratic discriminant analysis.

    Attributes
    ----------
    means : (C, d) class means.
    covariance : (C, d, d) regularised class covariances :math:`\\Sigma_k`.
    scalings : (C, d) eigenvalues :math:`s_k` of the correlation form
        :math:`D_k^{-1}\\Sigma_k D_k^{-1}`, in decreasing order (scikit-learn's ``scalings_`` are
        the eigenvalues of :math:`\\Sigma_k` itself; the estimator reports those).
    rotations : (C, d, d) the matching eigenvectors (columns):
        :math:`\\Sigma_k = D_k R_k \\operatorname{diag}(s_k) R_k^\\top D_k`.
    feature_scale : (C, d) :math:`D_k`, the square roots of the diagonal of :math:`\\Sigma_k`
        (1 where it is 0). Factoring the scales out keeps float32 accurate when features
        have very different units.
    priors : (C,) class priors.
    class_count : (C,) weighted number of samples per class.
    """

    means: jax.Array
    covariance: jax.Array
    scalings: jax.Array
    rotations: jax.Array
    feature_scale: jax.Array
    priors: jax.Array
    class_count: jax.Array

    @property
    def n_classes(self) -> int:
        """The number of classes ``C``, a Python int read from the shape of ``class_count`` (not a pytree leaf)."""
        return int(self.class_count.shape[-1])



# --------------------------------------------------------------------------- jitted cores
def _ledoit_wolf_per_class(centred, y, resp, class_count):
    r"""scikit-learn's ``shrinkage="auto"`` per class: ``(s_k, m_k, sigma_k^2)``.

    ``centred`` holds :math:`x_i - \mu_{y_i}`; ``resp`` the weighted one-hot :math:`r_{ik}`, so
    every sum is weighted (integer weights = repeated rows, weight 0 = no influence). With
    :math:`z` the rows standardised in their class and :math:`N_k = \sum_i r_{ik}`
    (scikit-learn's ``ledoit_wolf_shrinkage`` with ``n_samples`` = :math:`N_k`):
    :math:`t_{kj} = \sum_i r_{ik} z_{ij}^2 / N_k`, :math:`m_k = \sum_j t_{kj}/d`,
    :math:`\delta'_k = \lVert \sum_i r_{ik} z_i z_i^\top\rVert_F^2 / N_k^2`,
    :math:`\beta_k = (\sum_i r_{ik}\lVert z_i\rVert^4 / N_k - \delta'_k)/(d N_k)`,
    :math:`\delta_k = (\delta'_k - 2 m_k \sum_j t_{kj} + d m_k^2)/d` and
    :math:`s_k = \min(\beta_k, \delta_k)/\delta_k` (0 when the minimum is 0).
    """
    n_features = centred.shape[1]
    var = safe_divide(_precision.matmul(resp.T, jnp.square(centred)), class_count[:, None])
    scale2 = jnp.where(var > 0, var, 1.0)  # StandardScaler: a constant feature keeps scale 1
    z = centred / jnp.sqrt(scale2)[y]
    z2 = jnp.square(z)
    trace = safe_divide(_precision.matmul(resp.T, z2), class_count[:, None])  # (C, d)
    mu = jnp.sum(trace, axis=1) / n_features
    beta_ = _precision.matmul(resp.T, jnp.square(jnp.sum(z2, axis=1)))
    gram = _precision.einsum("ik,ij,il->kjl", resp, z, z)
    delta_ = safe_divide(jnp.sum(jnp.square(gram), axis=(1, 2)), jnp.square(class_count))
    beta = safe_divide(safe_divide(beta_, class_count) - delta_, n_features * class_count)
    delta = (delta_ - 2.0 * mu * jnp.sum(trace, axis=1) + n_features * jnp.square(mu)) / n_features
    beta = jnp.minimum(beta, delta)
    shrink = jnp.where(beta == 0, 0.0, safe_divide(beta, delta))
    if n_features == 1:  # one feature: every intensity gives the same covariance (scikit-learn: 0)
        shrink = jnp.zeros_like(shrink)
    return shrink, mu, scale2


@partial(_jit.jit, static_argnames=("n_classes", "solver", "auto_shrinkage"))
def _fit_lda(X, y, sample_weight, priors, shrinkage, n_classes, solver, auto_shrinkage=False):
    dtype = X.dtype
    n_features = X.shape[1]
    resp = weighted_one_hot(y, sample_weight, n_classes, dtype)
    class_count = resp.sum(0)
    prior = class_prior(class_count, priors)
    # centre first (module notes, "Centring"): class means of X - shift are the small
    # differences c_k, computed without the cancellation of a large column mean
    shift = _precision.matmul(sample_weight.astype(dtype), X) / jnp.sum(sample_weight)
    Xc = X - shift
    c0 = class_means(Xc, resp, class_count)
    xbar_c = _precision.matmul(prior, c0)  # prior-weighted mean of the class means (- shift)
    offsets = c0 - xbar_c[None, :]  # c_k = mu_k - xbar
    xbar = shift + xbar_c
    means = offsets + xbar[None, :]
    centred = Xc - c0[y]
    # sum_k pi_k S_k = Z^T diag(pi_{y_i} w_i / N_{y_i}) Z  (one pass over the rows)
    row_scale = safe_divide(prior, class_count)[y] * sample_weight
    if auto_shrinkage:
        # sum_k pi_k [(1 - s_k) S_k + s_k m_k diag(sigma_k^2)] (module notes)
        shrink, mu, scale2 = _ledoit_wolf_per_class(centred, y, resp, class_count)
        row_scale = row_scale * (1.0 - shrink)[y]
        ridge = _precision.matmul(prior * shrink * mu, scale2)
    pooled = _precision.matmul((centred * row_scale[:, None]).T, centred)
    if auto_shrinkage:
        pooled = pooled + jnp.diag(ridge)
    # shrinkage of each S_k towards (tr S_k / d) I, summed with the priors
    trace_k = safe_divide(_precision.matmul(resp.T, jnp.sum(jnp.square(centred), axis=1)), class_count)
    target = jnp.sum(prior * trace_k) / n_features
    shrinkage = jnp.asarray(shrinkage, dtype)
    cov = (1 - shrinkage) * pooled + shrinkage * target * jnp.eye(n_features, dtype=dtype)
    cov = 0.5 * (cov + cov.T)
    # solve in correlation form: Sigma = D C D with D = diag(sqrt(diag Sigma)), so
    # Sigma^{-1} mu = D^{-1} C^{-1} D^{-1} mu. Features on very different scales (e.g. breast
    # cancer: 1e3 and 1e-2) make Sigma ill-conditioned by scale alone, which float32 cannot
    # resolve; C has a unit diagonal (Jacobi preconditioning).
    scale = _feature_scale(jnp.diagonal(cov))
    corr = cov / scale[:, None] / scale[None, :]
    scaled_means = offsets / scale[None, :]
    if solver == "cholesky":
        chol = _linalg.cholesky(corr)
        coef = _linalg.cho_solve((chol, True), scaled_means.T).T
        # a pivot of the unit-diagonal corr at the rounding level (1 - R_j^2 <= d eps) means
        # Sigma is singular to working precision: NaN, which the public fit turns into an error
        # (a merely tiny pivot would give huge finite coefficients from rounding alone)
        pivots = jnp.square(jnp.diagonal(chol))
        singular = ~jnp.all(pivots > jnp.finfo(dtype).eps * n_features)
        coef = jnp.where(singular, jnp.nan, coef)
    else:
        # pseudo-inverse through eigh: a minimum-norm solution when Sigma is singular, like
        # the least-squares solve of scikit-learn's 'lsqr' solver
        evals, evecs = _linalg.eigh(corr)
        cutoff = jnp.finfo(dtype).eps * n_features * jnp.max(jnp.abs(evals))
        inv = jnp.where(evals > cutoff, 1.0 / jnp.where(evals > cutoff, evals, 1.0), 0.0)
        coef = _precision.matmul(_precision.matmul(scaled_means, evecs) * inv[None, :], evecs.T)
    coef = coef / scale[None, :]
    # delta_k(x) = (x - xbar)^T Sigma^{-1} c_k - c_k^T Sigma^{-1} c_k / 2 + log pi_k, which differs
    # from ESL's form (coef Sigma^{-1} mu_k) by terms common to all classes
    intercept = (-0.5 * jnp.sum(offsets * coef, axis=1) - _precision.matmul(coef, xbar)
                 + log_prior(prior, class_count))
    return LDAParams(coef, intercept, means, cov, prior, class_count)


@partial(_jit.jit, static_argnames=("n_classes",))
def _fit_qda(X, y, sample_weight, priors, reg_param, n_classes):
    dtype = X.dtype
    n_features = X.shape[1]
    resp = weighted_one_hot(y, sample_weight, n_classes, dtype)
    class_count = resp.sum(0)
    means = class_means(X, resp, class_count)
    prior = class_prior(class_count, priors)
    centred = X - means[y]
    resp_norm = safe_divide(resp, class_count[None, :])
    # one (d, n) @ (n, d) product per class, mapped so the temporary stays (n, d): about twice
    # as fast on CPU as the three-operand einsum, and memory does not grow with C
    S = jax.lax.map(lambda r: _precision.matmul((centred * r[:, None]).T, centred), resp_norm.T)
    reg_param = jnp.asarray(reg_param, dtype)
    cov = (1 - reg_param) * S + reg_param * jnp.eye(n_features, dtype=dtype)
    cov = 0.5 * (cov + jnp.swapaxes(cov, 1, 2))
    # eigendecomposition of the correlation form D_k^{-1} Sigma_k D_k^{-1} (see _fit_lda)
    scale = _feature_scale(jnp.diagonal(cov, axis1=1, axis2=2))
    corr = cov / scale[:, :, None] / scale[:, None, :]
    evals, evecs = _linalg.eigh(corr)
    # decreasing order, as scikit-learn's scalings_ / rotations_
    return QDAParams(means, cov, evals[:, ::-1], evecs[:, :, ::-1], scale, prior, class_count)


def _feature_scale(diag):
    """sqrt of a covariance diagonal, with 1 where it is 0 (a constant feature)."""
    return jnp.sqrt(jnp.where(diag > 0, diag, 1.0))


@_jit.jit
def _scores_lda(params: LDAParams, X):
    return _precision.matmul(X, params.coef.T) + params.intercept[None, :]


@_jit.jit
def _scores_qda(params: QDAParams, X):
    # ||S_k^{-1/2} R_k^T (x - mu_k)||^2 and log|Sigma_k| = sum log s_k (ESL eq. 4.12)
    # with Sigma_k = D_k R_k diag(s_k) R_k^T D_k:  log|Sigma_k| = sum log s_k + 2 sum log D_k
    standardised = (X[:, None, :] - params.means[None]) / params.feature_scale[None]
    z = _precision.einsum("ncj,cjm->ncm", standardised, params.rotations)
    norm2 = jnp.sum(jnp.square(z) / params.scalings[None], axis=2)
    logdet = jnp.sum(jnp.log(params.scalings), axis=1) + 2.0 * jnp.sum(jnp.log(params.feature_scale), axis=1)
    scores = -0.5 * (norm2 + logdet[None, :]) + log_prior(params.priors, params.class_count)[None, :]
    return jnp.where(params.class_count[None, :] > 0, scores, -jnp.inf)


# --------------------------------------------------------------------------- public fits
def _check_lda_options(shrinkage, solver):
    """``(shrinkage as a number, whether it is 'auto')``, or a ValueError / TypeError naming the
    argument (before any data is read or compiled for: the streaming fit calls it first)."""
    if shrinkage is None:
        shrinkage = 0.0
    auto = isinstance(shrinkage, str)
    if auto:
        if shrinkage != "auto":
            raise ValueError(f"shrinkage must be a float in [0, 1], 'auto' or None, got {shrinkage!r}")
        shrinkage = 0.0
    check_scalar(shrinkage, "shrinkage", low=0.0, high=1.0)
    check_choice(solver, "solver", ("eigh", "cholesky"))
    return shrinkage, auto


def fit_lda(
    X: Any,
    y: Any,
    *,
    n_classes: int | None = None,
    priors: Any = None,
    shrinkage: float | jax.Array | None = None,
    solver: str = "eigh",
    sample_weight: Any = None,
) -> LDAParams:
    r"""Fit linear discriminant analysis (shared covariance).

    .. math::

        \Sigma = \sum_k \pi_k\big[(1-s) S_k + s\,\tfrac{\operatorname{tr}S_k}{d} I\big],\qquad
        w_k = \Sigma^{-1}(\mu_k - \bar x),\qquad
        b_k = -\tfrac12(\mu_k - \bar x)^\top w_k - \bar x^\top w_k + \log\pi_k,

    with :math:`S_k` the weighted biased class covariance and :math:`\bar x = \sum_k\pi_k\mu_k`
    (centred: the same posteriors as :math:`w_k = \Sigma^{-1}\mu_k`, without the cancellation
    of a large column mean in float32; see the module notes);
    :math:`p(k\mid x) = \operatorname{softmax}_k(w_k^\top x + b_k)`.

    Parameters
    ----------
    X : (n, d) float array
    y : (n,) int class codes ``0..C-1``
    n_classes : int, optional (static)
    priors : (C,) array, optional
        Fixed class priors (also weight the class covariances, as scikit-learn).
    shrinkage : float in [0, 1], "auto" or None
        Shrinkage intensity :math:`s` (traced); None means 0; ``"auto"``: scikit-learn's
        Ledoit-Wolf intensity of each class's standardised covariance (module notes).
    solver : {"eigh", "cholesky"} (static)
        ``"eigh"`` solves through the eigendecomposition of :math:`\Sigma` (pseudo-inverse, so a
        singular :math:`\Sigma` gives the minimum-norm solution, like scikit-learn's
        ``lstsq``); ``"cholesky"`` is faster but needs :math:`\Sigma` positive definite (a
        concrete fit raises ``LinAlgError`` when a Cholesky pivot of the correlation form of
        :math:`\Sigma` is at most :math:`d\,\mathrm{eps}`; under ``jit`` the coefficients are NaN).
    sample_weight : (n,) array, optional

    Returns
    -------
    LDAParams

    Example
    -------
    >>> import jax.numpy as jnp
    >>> from jaxclassic.discriminant import fit_lda, predict
    >>> X = jnp.array([[0.0, 0.1], [0.3, -0.2], [2.0, 2.1], [2.2, 1.8]]); y = jnp.array([0, 0, 1, 1])
    >>> predict(fit_lda(X, y), jnp.array([[0.1, 0.0], [2.1, 2.0]])).tolist()
    [0, 1]

    References
    ----------
    Hastie et al., *ESL* (2009), §4.3, eq. 4.10; Duda, Hart, Stork (2001), §2.6.2.
    """
    X, y, sample_weight, n_classes = check_classifier_data(X, y, sample_weight, n_classes=n_classes)
    priors = check_priors(priors, n_classes, X.dtype)
    shrinkage, auto = _check_lda_options(shrinkage, solver)
    params = _fit_lda(X, y, sample_weight, priors, as_operand(shrinkage, X.dtype), n_classes, solver,
                      auto_shrinkage=auto)
    if solver == "cholesky" and not any_traced(X, y, sample_weight, priors, shrinkage):
        if not np.all(np.isfinite(np.asarray(params.coef))):
            raise np.linalg.LinAlgError(
                "the within-class covariance is not positive definite (Cholesky failed); "
                "use solver='eigh' or shrinkage > 0")
    return params


@_jit.jit
def _lda_scalings(params: LDAParams):
    dtype = params.covariance.dtype
    xbar = _precision.matmul(params.priors, params.means)
    offsets = params.means - xbar[None, :]
    between = _precision.matmul((offsets * params.priors[:, None]).T, offsets)
    # whiten by the within-class covariance (pseudo-inverse square root when singular), then
    # the ordinary symmetric eigenproblem of the whitened between-class scatter
    evals_w, evecs_w = _linalg.eigh(params.covariance)
    cutoff = jnp.finfo(dtype).eps * evals_w.shape[0] * jnp.max(jnp.abs(evals_w))
    inv_sqrt = jnp.where(evals_w > cutoff, 1.0 / jnp.sqrt(jnp.where(evals_w > cutoff, evals_w, 1.0)), 0.0)
    whiten = evecs_w * inv_sqrt[None, :]
    evals, evecs = _linalg.eigh(_precision.matmul(_precision.matmul(whiten.T, between), whiten))
    order = jnp.argsort(-evals)
    return _precision.matmul(whiten, evecs[:, order]), evals[order], xbar


def lda_scalings(params: LDAParams):
    r"""The discriminant directions of a fitted LDA (Fisher's, scikit-learn's ``eigen`` solver).

    Solves the generalised eigenproblem :math:`S_b v = \lambda \Sigma v` with the between-class
    scatter :math:`S_b = \sum_k \pi_k(\mu_k - \bar x)(\mu_k - \bar x)^\top` and the within-class
    covariance :math:`\Sigma` of ``params`` (shrunk, if it was), by whitening with
    :math:`\Sigma^{-1/2}` (a pseudo-inverse square root when :math:`\Sigma` is singular), the
    vectors normalised to :math:`v^\top\Sigma v = 1` as SciPy's ``eigh(S_b, Sigma)``. With the
    fitted priors and no shrinkage, :math:`S_b` is scikit-learn's total minus within scatter.
    At most :math:`\min(d, C-1)` eigenvalues are nonzero. The projection of ``x`` on the first
    ``m`` directions is :math:`(x - \bar x)^\top V_{:, :m}` (scikit-learn's ``eigen`` solver
    omits the centring: a constant shift per component).

    Parameters
    ----------
    params : LDAParams

    Returns
    -------
    scalings : (d, d) array
        Columns :math:`v_j` in decreasing order of :math:`\lambda_j` (sign arbitrary).
    eigenvalues : (d,) array
        :math:`\lambda_j`, decreasing (``eigenvalues / eigenvalues.sum()`` is scikit-learn's
        ``explained_variance_ratio_``).
    xbar : (d,) array
        :math:`\bar x = \sum_k \pi_k \mu_k`, the centre of the projection.

    Example
    -------
    >>> import jax.numpy as jnp
    >>> X = jnp.array([[0.0, 0.1], [0.3, -0.2], [2.0, 2.1], [2.2, 1.8]]); y = jnp.array([0, 0, 1, 1])
    >>> scalings, eigenvalues, xbar = lda_scalings(fit_lda(X, y))
    >>> scalings.shape, bool(eigenvalues[1] < 1e-6 * eigenvalues[0])
    ((2, 2), True)

    References
    ----------
    Duda, Hart, Stork (2001), §3.8.3; Hastie et al., *ESL* (2009), §4.3.3 (reduced-rank LDA).
    """
    return _lda_scalings(params)


def fit_qda(
    X: Any,
    y: Any,
    *,
    n_classes: int | None = None,
    priors: Any = None,
    reg_param: float | jax.Array = 0.0,
    sample_weight: Any = None,
) -> QDAParams:
    r"""Fit quadratic discriminant analysis (one covariance per class).

    .. math::

        \Sigma_k = (1-r)\,S_k + r I,\qquad
        \delta_k(x) = -\tfrac12\log|\Sigma_k| - \tfrac12(x-\mu_k)^\top\Sigma_k^{-1}(x-\mu_k) + \log\pi_k,

    with :math:`S_k` the weighted biased class covariance; :math:`\Sigma_k` is stored with its
    eigendecomposition in correlation form, :math:`D_k R_k\operatorname{diag}(s_k)R_k^\top D_k`
    with :math:`D_k` the class standard deviations, which the scores use.

    A class with a single (positive-weight) sample has :math:`S_k = 0`: the covariance is
    undefined, and a concrete fit raises ``ValueError`` unless ``reg_param > 0`` (then
    :math:`\Sigma_k = rI`). With ``reg_param = 0`` a class covariance that is singular to
    working precision (smallest eigenvalue ``<= eps * d * largest``: fewer samples than
    features, a constant feature within a class, or in float32 a condition number beyond
    ~1e6) raises ``numpy.linalg.LinAlgError`` (a ``ValueError``) suggesting ``reg_param``;
    with ``reg_param > 0`` every eigenvalue is at least ``reg_param`` and no check is made. Under ``jit`` / ``vmap`` (values not inspectable)
    neither check runs and such a class gets non-finite scores.

    Parameters
    ----------
    X : (n, d) float array
    y : (n,) int class codes
    n_classes : int, optional (static)
    priors : (C,) array, optional
    reg_param : float in [0, 1] (traced)
        Regularisation :math:`r` of each class covariance towards the identity.
    sample_weight : (n,) array, optional

    Returns
    -------
    QDAParams

    Example
    -------
    >>> import jax.numpy as jnp
    >>> from jaxclassic.discriminant import fit_qda, predict
    >>> X = jnp.array([[0.0, 0.1], [0.3, -0.2], [-0.2, 0.2], [2.0, 2.1], [2.2, 1.8], [1.9, 2.5]])
    >>> y = jnp.array([0, 0, 0, 1, 1, 1])
    >>> predict(fit_qda(X, y), jnp.array([[0.1, 0.0], [2.1, 2.0]])).tolist()
    [0, 1]

    References
    ----------
    Hastie et al., *ESL* (2009), §4.3, eqs. 4.12 and 4.13 (regularised discriminant analysis).
    """
    X, y, sample_weight, n_classes = check_classifier_data(X, y, sample_weight, n_classes=n_classes)
    priors = check_priors(priors, n_classes, X.dtype)
    check_scalar(reg_param, "reg_param", low=0.0, high=1.0)
    concrete = not any_traced(X, y, sample_weight, priors, reg_param)
    if concrete and float(reg_param) == 0.0:
        yn, wn = np.asarray(y), np.asarray(sample_weight)
        counts = np.bincount(yn[wn > 0], minlength=n_classes)
        single = np.flatnonzero(counts == 1)
        if single.size:
            raise ValueError(
                f"y has only 1 sample in class {int(single[0])}: its covariance is undefined; "
                "use reg_param > 0 (the covariance becomes reg_param * I) or more samples")
    params = _fit_qda(X, y, sample_weight, priors, as_operand(reg_param, X.dtype), n_classes)
    if concrete and float(reg_param) == 0.0:
        scal = np.asarray(params.scalings)
        present = np.asarray(params.class_count) > 0
        tol = np.finfo(scal.dtype).eps * X.shape[1] * np.maximum(np.abs(scal).max(axis=1), 1e-300)
        bad = present & (scal.min(axis=1) <= tol)
        if bad.any():
            k = int(np.flatnonzero(bad)[0])
            raise np.linalg.LinAlgError(
                f"the covariance matrix of class {k} is singular (not full rank to {scal.dtype} "
                "precision); increase reg_param to regularise it (or standardise the features / "
                "use float64 when it is only ill-conditioned)")
    return params


# --------------------------------------------------------------------------- prediction
def discriminant_scores(params, X):
    r"""The discriminant functions :math:`\delta_k(x)`, shape (n, C) (log-posterior up to a constant)."""
    if isinstance(params, LDAParams):
        X = check_predict_X(X, params.coef.dtype, params.coef.shape[1])
        return _scores_lda(params, X)
    if isinstance(params, QDAParams):
        X = check_predict_X(X, params.means.dtype, params.means.shape[1])
        return _scores_qda(params, X)
    raise TypeError(f"discriminant_scores does not support {type(params).__name__}")


register_predictions((LDAParams, QDAParams), discriminant_scores)
