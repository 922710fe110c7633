r"""AdaBoost: discrete AdaBoost (two classes) and SAMME (``K`` classes) with CART trees.

Round :math:`m = 1..M` (Freund & Schapire 1997; ESL Algorithm 10.1; Zhu, Zou, Rosset &
Hastie 2009, Algorithm 2), with row weights :math:`w^{(1)} = s / \sum s` (``sample_weight``
normalised):

1. fit a weighted gini tree :math:`h_m` of depth ``max_depth`` (stumps by default:
   scikit-learn's ``DecisionTreeClassifier(max_depth=1)``) to :math:`(X, y, w^{(m)})` by
   :func:`~jaxclassic.tree.fit_cart_binned` on the codes of ONE binning;
2. :math:`\varepsilon_m = \sum_i w_i^{(m)} 1[h_m(x_i) \ne y_i] / \sum_i w_i^{(m)}`;
3. :math:`\alpha_m = \eta\,\big(\log\frac{1-\varepsilon_m}{\varepsilon_m} + \log(K-1)\big)`;
4. :math:`w_i^{(m+1)} = w_i^{(m)} e^{\alpha_m 1[h_m(x_i) \ne y_i]} / Z_m`, with the normaliser
   :math:`Z_m = \sum_i w_i^{(m)} e^{\alpha_m 1[h_m(x_i) \ne y_i]}` (kept in the params as ``Z``).

The classifier is :math:`\arg\max_k f_k(x)`, :math:`f_k(x) = \sum_m \alpha_m
\big(1[h_m(x) = k] - \tfrac{1}{K-1} 1[h_m(x) \ne k]\big) / \sum_m \alpha_m` (scikit-learn's
``decision_function``; for :math:`K = 2` it returns :math:`f_1 - f_0 =
2\sum_m \alpha_m \tilde h_m(x) / \sum_m \alpha_m`, :math:`\tilde h \in \{-1, +1\}`, and predicts
class 1 where it is :math:`> 0`). Probabilities: :math:`\mathrm{softmax}(f / (K-1))` (Zhu et
al. eq. 15; for :math:`K = 2` the softmax of :math:`(-d/2, d/2)`, i.e. :math:`\sigma(d)`).

Convention of :math:`\alpha` and :math:`Z`. For :math:`K = 2` the weight is ESL's
:math:`\alpha_m = \log((1-\varepsilon_m)/\varepsilon_m)`, twice Freund & Schapire's
:math:`\beta_m = \tfrac12\log((1-\varepsilon_m)/\varepsilon_m)`. The two give the same
classifier (a positive rescaling of :math:`F`) and the same weights: since
:math:`1[\text{miss}] = (1 - y\tilde h)/2`,
:math:`e^{\alpha_m 1[\text{miss}]} = e^{\beta_m} e^{-\beta_m y \tilde h}`, and the constant
:math:`e^{\beta_m}` cancels in the normalisation. Only :math:`Z` differs:
:math:`Z_m = Z_m^{(1/2)} e^{\alpha_m/2}`, with :math:`Z^{(1/2)}_m = \sum_i w_i e^{-\beta_m y_i \tilde h_m(x_i)}`
the textbook normaliser (:math:`= 2\sqrt{\varepsilon_m(1-\varepsilon_m)}` at :math:`\eta = 1`;
ours is :math:`2(1-\varepsilon_m)`, and :math:`K(1-\varepsilon_m)` for SAMME).

Training-error bound (tested at every round). Unrolling step 4,
:math:`\sum_i w_i^{(1)} e^{\sum_m \alpha_m 1[\text{miss}_{im}]} = \prod_m Z_m`. A row the
ensemble misclassifies has at most half of :math:`A = \sum_m \alpha_m` on its own class (the
scores :math:`f_k` grow with the votes of class :math:`k`), so
:math:`\sum_m \alpha_m 1[\text{miss}_{im}] \ge A/2`, and for every :math:`K` and :math:`\eta`

.. math:: \text{weighted training error} \;\le\; \prod_m Z_m e^{-\alpha_m/2}
          \;\overset{K=2,\ \eta=1}{=}\; \prod_m 2\sqrt{\varepsilon_m(1-\varepsilon_m)}
          \;=\; \prod_m Z^{(1/2)}_m .

Exponential loss (ESL §10.4). For :math:`K = 2` the weights are
:math:`w^{(m)} \propto w^{(1)} e^{-y F_{m-1}/2}`, :math:`F_{m-1} = \sum_{l<m}\alpha_l \tilde h_l`,
so at :math:`\eta = 1`, :math:`\alpha_m` is the stagewise minimiser of the exponential loss
(:func:`jaxclassic.losses.exponential`) of the half score along the new tree:
:math:`\frac{d}{d\alpha}\sum_i w_i^{(1)} \exp\!\big(-y_i (F_{m-1}(x_i) + \alpha\tilde h_m(x_i))/2\big) = 0`
at :math:`\alpha = \alpha_m` (tested with ``jax.grad`` of the shared loss); in the ½ log
convention this is ESL's eq. 10.12 for :math:`\beta_m = \alpha_m/2`.

Stop rules (scikit-learn's), as masks so the ``lax.scan`` over the ``n_estimators`` rounds
keeps static shapes: a round with :math:`\varepsilon_m = 0` (a perfect tree) is kept with
:math:`\alpha_m = 1` (scikit-learn's value, not scaled by :math:`\eta`) and ends the boosting;
a round with :math:`\varepsilon_m \ge 1 - 1/K` (no better than chance) is discarded and ends it;
a non-finite :math:`Z_m` (overflow) keeps the round and ends it. Every round after the end
holds an empty tree (one leaf), :math:`\alpha = 0`, :math:`\varepsilon = 1` and
:math:`Z = 1` (scikit-learn's ``estimator_errors_`` are 1 for rounds not run);
``n_estimators_used`` counts the kept rounds (``len(estimators_)``). If the first round is
no better than chance the fit raises ``ValueError`` (outside ``jit`` / ``vmap``) as
scikit-learn does. As scikit-learn (its issue #20320) each round first raises positive
weights below :math:`2.2\cdot10^{-16}` (float64 epsilon) to it, so no row's weight underflows
to zero; that keeps the bound (raising weights only increases the left side of the
identity above). Rows of weight 0 stay 0: they never influence a tree, an error or (with a
concrete ``sample_weight``) a bin edge; traced weights (inside ``vmap``) bin every row, as
:func:`~jaxclassic.tree.fit_cart` does.

Equality with scikit-learn: when every feature has at most ``n_bins`` distinct values the
binning is exact and the stumps, :math:`\alpha`, :math:`\varepsilon` and the decision
function equal ``AdaBoostClassifier(DecisionTreeClassifier(max_depth=1))`` (float64, up to
ties in the split gains, which scikit-learn breaks by a random feature order); otherwise the
splits are on 255 quantile bins. The raw thresholds are scikit-learn's midpoints between
the node's adjacent values (:mod:`jaxclassic.tree.cart`, "Split points"), so new rows are
routed as scikit-learn routes them too.

Cost per round: one tree (for stumps: one histogram pass over the ``n`` rows per feature and
a cumulative sum over the bins), ``max_depth`` gathers to route the rows, :math:`O(n)` for
the error and the weights.

References
----------
Y. Freund, R. Schapire, "A decision-theoretic generalization of on-line learning and an
application to boosting", J. Comput. Syst. Sci. 55 (1997) 119-139.
T. Hastie, R. Tibshirani, J. Friedman, *The Elements of Statistical Learning*, 2nd ed.,
§10.1-10.4 (Algorithm 10.1, eq. 10.12).
J. Zhu, H. Zou, S. Rosset, T. Hastie, "Multi-class AdaBoost", Stat. Interface 2 (2009) 349-360.
"""

from __future__ import annotations

from functools import partial
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxclassic import _jit
from jaxclassic.ensemble import _boosting as B
from jaxclassic.ensemble._api import decision_function, feature_importances, predict, predict_proba
from jaxclassic.tree._api import feature_importances as tree_feature_importances
from jaxclassic.tree._params import ClassificationTree
from jaxclassic.tree.binning import bin_features, bin_ranges
from jaxclassic.tree.cart import _codes_have_missing, fit_cart_binned
from jaxclassic._implicit import nondifferentiable
from jaxclassic.validation import (
    as_operand,
    check_array,
    check_choice,
    check_classification_targets,
    check_consistent_length,
    check_int,
    check_predict_X,
    check_sample_weight,
    check_scalar,
    is_traced,
)

#: why jax.grad through this fit raises (issue 14, :func:`jaxclassic._implicit.nondifferentiable`)
_NO_DERIVATIVE = (
    "it is built from trees, whose splits are discrete choices at thresholds between sample"
    " values: the fitted model is piecewise constant in the data and the hyperparameters"
)

__all__ = [
    "AdaBoostParams",
    "fit_adaboost",
    "staged_decision_function",
    "staged_predict",
    "training_error_bound",
]

#: scikit-learn's floor of the positive weights (``np.finfo(np.float64).eps``, issue #20320)
WEIGHT_FLOOR = float(np.finfo(np.float64).eps)


class AdaBoostParams(NamedTuple):
    """A fitted AdaBoost (SAMME) classifier of ``T = n_estimators`` rounds, ``K`` classes.

    Attributes
    ----------
    estimators : ClassificationTree, every field with a leading axis ``(T,)``
        The trees (``value (T, M, K)``: weighted class fractions); ``bin_edges`` an empty
        ``(F, 0)`` placeholder (the edges live once, in ``bin_edges``). Rounds after a stop
        hold an empty tree. ``jax.tree.map(lambda a: a[m], params.estimators)`` is an ordinary
        tree (``tree.predict`` works on it).
    estimator_weights : (T,) float
        :math:`\\alpha_m` (0 for rounds not kept), scikit-learn's ``estimator_weights_``.
    estimator_errors : (T,) float
        :math:`\\varepsilon_m` (1 for rounds not kept), ``estimator_errors_``.
    Z : (T,) float
        The normaliser of each round's weights (module docstring; 1 for rounds not kept).
    n_estimators_used : () int32
        Rounds kept (``len(estimators_)``).
    learning_rate : () float
        :math:`\\eta`.
    bin_edges : (F, E) float
        The binning's edges.

    ``n_classes`` (a property) is ``K``, read from the shapes (static).
    """

    estimators: ClassificationTree
    estimator_weights: jax.Array
    estimator_errors: jax.Array
    Z: jax.Array
    n_estimators_used: jax.Array
    learning_rate: jax.Array
    bin_edges: jax.Array

    @property
    def n_classes(self) -> int:
        return int(self.estimators.value.shape[-1])


@partial(_jit.jit, static_argnames=("capacity", "max_depth", "n_bins", "n_classes", "has_missing"))
def _program(codes, edges, ranges, y, sw, learning_rate, n_rounds, *, capacity, max_depth, n_bins, n_classes,
             has_missing=True):
    """The ``capacity`` rounds (one ``lax.scan``): trees, alphas, errors, ``Z`` and the kept
    count; rounds ``t >= n_rounds`` (traced) are skipped (``lax.cond``: no work, all-zero
    outputs, not kept), so every ``n_estimators`` of a bucket
    (``bagging.estimator_capacity``) runs this one program."""
    dtype = edges.dtype
    n_features = edges.shape[0]
    K = n_classes
    codes_T = codes.T
    positive = sw > 0
    w0 = sw / jnp.sum(sw)
    floor = jnp.asarray(WEIGHT_FLOOR, dtype)
    tiny = jnp.finfo(dtype).tiny

    def body(carry, t):
        def skip(carry):
            out = jax.eval_shape(one_round, carry)[1]
            return carry, jax.tree.map(lambda a: jnp.zeros(a.shape, a.dtype), out)

        return jax.lax.cond(t < n_rounds, one_round, skip, carry)

    def one_round(carry):
        w, active = carry
        w = jnp.where(positive, jnp.maximum(w, floor), 0)
        tree = fit_cart_binned(codes, edges, y, task="classification", criterion="gini",
                               max_depth=max_depth, sample_weight=w, n_classes=K, bin_ranges=ranges,
                               has_missing=has_missing)
        leaf = B.route_codes(tree, codes_T, max_depth, n_bins)
        miss = (jnp.argmax(tree.value[leaf], axis=1) != y) & positive
        err = jnp.sum(jnp.where(miss, w, 0)) / jnp.sum(w)
        perfect = err <= 0
        keep = active & (err < 1 - 1 / K)
        e = jnp.clip(err, tiny, 1)
        alpha_fit = learning_rate * (jnp.log1p(-e) - jnp.log(e) + jnp.log(K - 1.0))
        alpha = jnp.where(keep, jnp.where(perfect, 1.0, alpha_fit), 0).astype(dtype)
        new = w * jnp.exp(jnp.where(miss, alpha, 0))
        Z = jnp.where(keep, jnp.sum(new), 1)
        ok = jnp.isfinite(Z) & (Z > 0)
        w_next = jnp.where(keep & ok, new / jnp.where(ok, Z, 1), w)
        tree = tree._replace(bin_edges=jnp.zeros((n_features, 0), dtype))
        tree = jax.tree.map(lambda a, b: jnp.where(keep, a, b), tree, B.empty_tree_like(tree))
        out = (tree, alpha, jnp.where(keep, err, 1).astype(dtype), Z.astype(dtype), keep)
        return (w_next, keep & ~perfect & ok), out

    _, (trees, alpha, err, Z, kept) = jax.lax.scan(body, (w0, jnp.asarray(True)), jnp.arange(capacity))
    return trees, alpha, err, Z, jnp.sum(kept).astype(jnp.int32)


def fit_adaboost(
    X,
    y,
    *,
    n_estimators: int = 50,
    max_depth: int = 1,
    learning_rate=1.0,
    n_classes: int | None = None,
    algorithm: str = "SAMME",
    n_bins: int = 255,
    sample_weight=None,
    key=None,
) -> AdaBoostParams:
    r"""Fit discrete AdaBoost / SAMME with weighted gini trees (stumps by default).

    :math:`\alpha_m = \eta(\log\frac{1-\varepsilon_m}{\varepsilon_m} + \log(K-1))`,
    :math:`w \leftarrow w\,e^{\alpha_m 1[\text{miss}]}/Z_m`; convention, bound, stop rules and
    the exponential-loss view: module docstring.

    Parameters
    ----------
    X : array-like (n_samples, n_features)
        Raw features (finite; NaN is an error).
    y : array-like (n_samples,)
        Class codes ``0..K-1``; at least two classes of positive weight.
    n_estimators : int >= 1
        Boosting rounds (fewer are kept after a stop); the scan's length is its bucket
        (``bagging.estimator_capacity``; :mod:`jaxclassic.ensemble._boosting`, "Rounds and
        programs"), the rounds past ``n_estimators`` skipped.
    max_depth : int >= 1 (static)
        Depth of each tree (1: stumps, scikit-learn's default base estimator).
    learning_rate : float > 0 (traced)
        :math:`\eta` (a grid of them is a ``vmap``).
    n_classes : int >= 2, optional (static)
        ``K``; inferred as ``max(y) + 1`` when not given. A class absent from ``y`` still
        counts in :math:`\log(K-1)` (scikit-learn's ``K`` is the number of labels present).
    algorithm : {"SAMME"}
        The only algorithm (scikit-learn >= 1.6 dropped SAMME.R); SAMME with ``K = 2`` is
        discrete AdaBoost.
    n_bins : int in 2..256 (static)
        Bins per feature (exact when a feature has at most ``n_bins`` distinct values).
    sample_weight : array-like (n_samples,), optional
        Initial weights (normalised to sum 1); rows of weight 0 have no influence.
    key : jax.random key, optional
        Unused (the fit is deterministic); accepted for the common signature.

    Returns
    -------
    AdaBoostParams
        ``n_classes`` is a property. Classification only, so no ``task=``: SAMME reweights
        misclassified rows, and AdaBoost for regression (AdaBoost.R2, Drucker 1997) is a
        different algorithm, not implemented.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0], [4.0], [5.0]]); y = np.array([0, 0, 1, 1, 0, 0])
    >>> params = fit_adaboost(X, y, n_estimators=3)
    >>> predict(params, X).tolist()
    [0, 0, 1, 1, 0, 0]
    >>> [round(float(e), 4) for e in params.estimator_errors]
    [0.3333, 0.25, 0.1667]

    References
    ----------
    Freund & Schapire 1997; ESL Algorithm 10.1 and §10.4; Zhu, Zou, Rosset & Hastie 2009 (SAMME).
    """
    # jax.grad / jax.jvp through this fit raise a TypeError naming it (issue 14)
    X, y, sample_weight, learning_rate = (
        nondifferentiable("fit_adaboost", a, reason=_NO_DERIVATIVE) if is_traced(a) else a
        for a in (X, y, sample_weight, learning_rate))
    check_choice(algorithm, "algorithm", ("SAMME",))
    n_estimators = check_int(n_estimators, "n_estimators", low=1)
    max_depth = check_int(max_depth, "max_depth", low=1)
    check_scalar(learning_rate, "learning_rate", low=0.0, include_low=False)
    n_bins = check_int(n_bins, "n_bins", low=2, high=256)
    if n_classes is not None:
        n_classes = check_int(n_classes, "n_classes", low=2)
    Xc = check_array(X, "X")
    n_samples = Xc.shape[0]
    dtype = Xc.dtype
    sw = check_sample_weight(sample_weight, n_samples, dtype=dtype)
    y, n_classes = check_classification_targets(y, "y", min_classes=2, n_classes=n_classes, sample_weight=sw)
    check_consistent_length(X=Xc, y=y)
    codes, edges = bin_features(Xc, n_bins, sample_weight=None if is_traced(sample_weight) else sample_weight)
    ranges = bin_ranges(Xc, codes, n_bins, sample_weight=sw)
    lr = as_operand(learning_rate, dtype)
    trees, alpha, err, Z, n_used = _program(codes, edges, ranges, y, sw, lr, n_estimators,
                                            capacity=B.estimator_capacity(n_estimators), max_depth=max_depth,
                                            n_bins=n_bins, n_classes=n_classes,
                                            has_missing=_codes_have_missing(codes, n_bins))
    trees, alpha, err, Z = B.first_rounds((trees, alpha, err, Z), n_estimators)
    if not is_traced(n_used) and int(n_used) == 0:
        raise ValueError("the first tree of AdaBoost is no better than chance (weighted error "
                         f"{float(err[0]) if not is_traced(err) else 'traced'} >= 1 - 1/n_classes); "
                         "the ensemble cannot be fit")
    return AdaBoostParams(trees, alpha, err, Z, n_used, lr, edges)


# --------------------------------------------------------------------------- prediction
def _votes(tree, X, depth):
    """Class predicted by one tree at each row of raw ``X`` (first largest fraction)."""
    return jnp.argmax(tree.value[B.route_raw(tree, X, depth)], axis=1)


@partial(_jit.jit, static_argnames=("staged",))
def _decision(trees, estimator_weights, X, n_rounds, staged=False):
    """The SAMME decision function (or its stages) of the rounds ``t < n_rounds``; the later
    rounds (a bucket's padding, of weight 0) are not routed (``lax.cond``)."""
    K = trees.value.shape[-1]
    depth = B.tree_depth(trees.feature.shape[-1])
    X = X.astype(trees.threshold.dtype)

    def add(carry, tree, alpha):
        acc, norm = carry
        hit = jax.nn.one_hot(_votes(tree, X, depth), K, dtype=acc.dtype)
        return acc + alpha * (hit - (1 - hit) / (K - 1)), norm + alpha

    def step(carry, t_tree_alpha):
        t, tree, alpha = t_tree_alpha
        acc, norm = jax.lax.cond(t < n_rounds, add, lambda carry, tree, alpha: carry, carry, tree, alpha)
        out = _binary(acc / jnp.where(norm > 0, norm, 1)) if staged else None
        return (acc, norm), out

    init = (jnp.zeros((X.shape[0], K), trees.value.dtype), jnp.zeros((), trees.value.dtype))
    T = estimator_weights.shape[0]
    (acc, norm), stages = jax.lax.scan(step, init, (jnp.arange(T), trees, estimator_weights))
    return stages if staged else _binary(acc / jnp.where(norm > 0, norm, 1))


def _binary(f):
    """scikit-learn's shape: ``f_1 - f_0`` ``(n,)`` for two classes, else ``(n, K)``."""
    return f[:, 1] - f[:, 0] if f.shape[1] == 2 else f


def _check_X(params, X):
    return check_predict_X(X, params.bin_edges.dtype, params.bin_edges.shape[0])


def _padded(params):
    """The rounds padded to their bucket (``B.pad_rounds``): the padding's :math:`\alpha = 0`
    adds exact zeros to the sums, so one program serves every ``n_estimators`` of a bucket."""
    return B.pad_rounds(params, ("estimators", "estimator_errors", "Z"), zeros=("estimator_weights",))


def _padded_decision_args(params):
    """``(trees, estimator_weights)`` padded to their bucket for :func:`_decision`: the trees'
    routing fields (kept for the next call, ``B.padded_trees``), the weights
    with zeros."""
    trees = B.padded_trees(params.estimators)
    alpha = params.estimator_weights
    if not isinstance(alpha, jax.core.Tracer):
        alpha = np.asarray(alpha)
        alpha = np.concatenate([alpha, np.zeros(trees.feature.shape[0] - alpha.shape[0], alpha.dtype)])
    return trees, alpha


def _decision_function(params, X):
    r"""scikit-learn's SAMME decision function: ``(n,)`` :math:`f_1 - f_0` for two classes,
    else ``(n, K)`` :math:`f_k = \sum_m \alpha_m(1[h_m = k] - 1[h_m \ne k]/(K-1))/\sum_m \alpha_m`."""
    return _decision(*_padded_decision_args(params), _check_X(params, X), params.estimator_weights.shape[0])


def _to_proba(d, K):
    if K == 2:
        return jax.nn.softmax(jnp.stack([-d, d], axis=-1) / 2, axis=-1)
    return jax.nn.softmax(d / (K - 1), axis=-1)


@partial(_jit.jit, static_argnames=("K",))
def _to_class(d, K):
    return ((d > 0) if K == 2 else jnp.argmax(d, axis=-1)).astype(jnp.int32)


def _predict_proba(params, X):
    """``(n, K)``: :math:`\\mathrm{softmax}(f / (K-1))` (Zhu et al. eq. 15; scikit-learn)."""
    return _to_proba(_decision_function(params, X), params.n_classes)


def _predict_class(params, X):
    """Class codes (int32): :math:`\\arg\\max_k f_k` (class 1 where the binary score is > 0)."""
    return _to_class(_decision_function(params, X), params.n_classes)


def staged_decision_function(params, X):
    """The decision function after each round: ``(T, n)`` (two classes) or ``(T, n, K)``;
    stage ``m`` uses the first ``m + 1`` trees (scikit-learn's ``staged_decision_function``)."""
    n_rounds = params.estimator_weights.shape[0]
    return B.first_rounds(_decision(*_padded_decision_args(params), _check_X(params, X), n_rounds, staged=True),
                          n_rounds)


def staged_predict(params, X):
    """Class codes after each round ``(T, n)`` (int32), scikit-learn's ``staged_predict``."""
    return _to_class(staged_decision_function(params, X), params.n_classes)


def training_error_bound(params):
    r"""``(T,)`` :math:`\prod_{l \le m} Z_l e^{-\alpha_l/2}`: the bound on the (initially
    weighted) training error after each round (module docstring; at :math:`K = 2`,
    :math:`\eta = 1`: :math:`\prod 2\sqrt{\varepsilon_l(1-\varepsilon_l)}` until a stop)."""
    return jnp.exp(jnp.cumsum(jnp.log(params.Z) - params.estimator_weights / 2))


def _feature_importances(params):
    r"""scikit-learn's ``feature_importances_``: :math:`\sum_m \alpha_m I_m / \sum_m \alpha_m`
    with :math:`I_m` the normalised impurity decrease of tree :math:`m` (the rounds padded to
    their bucket with :math:`\alpha = 0`: one program per bucket; the product over
    :math:`T_{cap}` rounds can differ from the one over :math:`T` in the last bit, XLA's
    order of the sum depending on its length: 1 ulp on breast_cancer, 50 rounds)."""
    return _importances_of(_padded(params))


@_jit.jit
def _importances_of(params):
    per_tree = jax.vmap(tree_feature_importances)(params.estimators)
    alpha = params.estimator_weights
    norm = jnp.sum(alpha)
    return alpha @ per_tree / jnp.where(norm > 0, norm, 1)


predict.register(AdaBoostParams, _predict_class)
predict_proba.register(AdaBoostParams, _predict_proba)
decision_function.register(AdaBoostParams, _decision_function)
feature_importances.register(AdaBoostParams, _feature_importances)
