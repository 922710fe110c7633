r"""Any binary classifier made multiclass: one-vs-rest and one-vs-one, as one ``vmap``.

One-vs-rest fits, for each class :math:`k`, the binary problem "class :math:`k`" (1) vs
"the rest" (0) on all rows; it predicts :math:`\arg\max_k f_k(x)` of the binary scores.
One-vs-one fits, for each pair :math:`a < b`, the binary problem :math:`b` (1) vs :math:`a`
(0) on the rows of those two classes; it predicts by majority vote.

Both keep shapes static: every binary problem sees all :math:`n` rows, and one-vs-one
restricts pair :math:`(a, b)` to its rows through the sample weights
:math:`s_i [y_i \in \{a, b\}]` (a weight-0 row has no influence on any fit in the package).
So the :math:`C` (or :math:`C(C-1)/2`) binary fits are **one** ``jax.vmap`` of the binary
fit over label vectors and weight masks, one compiled program.

The binary fit is any ``fit(X, y01, *, sample_weight, **fit_kwargs) -> params`` that accepts
traced labels in {0, 1} and traced weights (every ``fit_*`` classifier of the package does;
fits whose class count is a static argument need it fixed, e.g.
``functools.partial(tree.fit_cart, n_classes=2)``). Its params must be registered in the
package-wide registry (:mod:`jaxclassic._dispatch`); no family is named here. The binary
score is scikit-learn's (``sklearn.multiclass._predict_binary``): the registered
``decision_function`` when the params type has one, else the positive-class probability
``predict_proba(params, X)[:, 1]``.

One-vs-rest prediction is scikit-learn's too: the class of largest score, the **last** such
class on exact ties (``OneVsRestClassifier.predict`` keeps the latest maximum; ties are
common with trees' leaf probabilities).

One-vs-one voting is scikit-learn's (``sklearn.multiclass._ovr_decision_function``): pair
:math:`(a, b)` votes for :math:`b` when its binary ``predict`` says 1, else for :math:`a`;
each class also collects the summed confidences :math:`S_k` (``+f`` for :math:`b`, ``-f``
for :math:`a`), and the decision value is :math:`\text{votes}_k + S_k / (3(|S_k| + 1))`.
The second term lies in :math:`(-\tfrac13, \tfrac13)`, so it only breaks ties between
classes with equal votes (in favour of the larger summed confidence; remaining exact ties go
to the lowest class code, ``argmax``'s rule).

References
----------
Bishop, *Pattern Recognition and Machine Learning*, §4.1.2 (one-versus-the-rest,
one-versus-one and their ambiguities).
Hastie, Tibshirani & Friedman, *The Elements of Statistical Learning*, 2nd ed., §12.4 (OvO
voting for SVMs).
"""

from __future__ import annotations

import warnings
from typing import Any, Callable, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxclassic import _dispatch, _precision, _sparse
from jaxclassic._dispatch import Dispatcher
from jaxclassic.validation import check_classifier_data, is_traced

__all__ = [
    "OneVsRestParams",
    "OneVsOneParams",
    "fit_one_vs_rest",
    "fit_one_vs_one",
    "predict",
    "predict_proba",
    "decision_function",
]

predict = Dispatcher("predict", "Class codes of one-vs-rest / one-vs-one params: ``predict(params, X)``.")
predict_proba = Dispatcher("predict_proba", "Normalised one-vs-rest probabilities ``(n, C)``.")
decision_function = Dispatcher(
    "decision_function",
    "One-vs-rest binary scores ``(n, C)``, or one-vs-one votes plus confidences ``(n, C)``.")


class OneVsRestParams(NamedTuple):
    """One binary fit per class, stacked: every leaf of ``estimators`` has a leading
    ``(n_classes,)`` axis; ``estimators[k]`` scores class ``k`` against the rest."""

    estimators: Any

    @property
    def n_classes(self) -> int:
        """The number of classes, a Python int: the leading axis of the stacked fits."""
        return int(jax.tree_util.tree_leaves(self.estimators)[0].shape[0])



class OneVsOneParams(NamedTuple):
    """One binary fit per class pair, stacked on a leading ``(n_pairs,)`` axis.

    Attributes
    ----------
    estimators : params pytree
        ``estimators[p]`` scores class ``pairs[p, 1]`` (positive) against ``pairs[p, 0]``.
    pairs : (n_pairs, 2) int32 array
        The pairs :math:`(a, b)`, :math:`a < b`, in scikit-learn's order.
    """

    estimators: Any
    pairs: jax.Array

    @property
    def n_classes(self) -> int:
        """The number of classes ``C``, a Python int: ``C (C - 1) / 2`` pairs (static shape)."""
        n_pairs = int(self.pairs.shape[-2])
        return int(round((1 + (1 + 8 * n_pairs) ** 0.5) / 2))



# --------------------------------------------------------------------------- scores
def binary_score(params, X) -> jax.Array:
    """Score of one binary fit (larger: class 1), scikit-learn's ``_predict_binary``:
    ``decision_function`` (raveled) when registered, else ``predict_proba(params, X)[:, 1]``."""
    if _dispatch.decision_function.supports(params):
        return jnp.reshape(_dispatch.decision_function(params, X), (-1,))
    if _dispatch.predict_proba.supports(params):
        return _dispatch.predict_proba(params, X)[:, 1]
    raise TypeError(
        f"no decision_function or predict_proba is registered for {type(params).__name__}; "
        "one-vs-rest / one-vs-one need a score from the binary fit")


def _check_scorable(estimators) -> None:
    # the dispatch tables look at the type only, and the stacked params have the binary fit's
    # type: no member is sliced out (an eager slice of every leaf compiled one program per leaf)
    if not (_dispatch.decision_function.supports(estimators) or _dispatch.predict_proba.supports(estimators)):
        raise TypeError(
            f"fit returned {type(estimators).__name__}, which has no decision_function or predict_proba in "
            "the package-wide registry (jaxclassic._dispatch); one-vs-rest / one-vs-one need a score")


def _stacked_scores(estimators, X) -> jax.Array:
    """(n_samples, n_estimators) scores of stacked binary fits."""
    return jax.vmap(lambda p: binary_score(p, X), out_axes=1)(estimators)


def _warn_unconverged(estimators, what: str) -> None:
    """Re-raise, after the vmapped fits return, the warning a binary fit gives on its own
    (the fits that warn carry ``separated``: logistic, softmax); silent fits stay silent."""
    converged = getattr(estimators, "converged", None)
    if converged is None or not hasattr(estimators, "separated") or is_traced(converged):
        return
    bad = np.flatnonzero(~np.asarray(converged).reshape(-1))
    if bad.size:
        warnings.warn(f"{what}: the binary fit(s) {bad.tolist()} did not converge "
                      "(or stopped on perfect separation); see their n_iter / separated fields",
                      UserWarning, stacklevel=3)


# --------------------------------------------------------------------------- fits
def _validate(fit, X, y, n_classes, sample_weight):
    if not callable(fit):
        raise TypeError(f"fit must be a callable fit(X, y01, *, sample_weight, ...), got {type(fit).__name__}")
    if _sparse.is_sparse(X):  # a BCOO from the estimator layer: the binary fit checks X itself
        X, y, sw, n_classes = _sparse.check_sparse_classifier_data(X, y, sample_weight, n_classes=n_classes)
        return X, y, n_classes, sw
    X, y, sw, n_classes = check_classifier_data(X, y, sample_weight, n_classes=n_classes)
    return X, y, n_classes, sw


def fit_one_vs_rest(fit: Callable, X, y, *, n_classes: int | None = None, sample_weight=None,
                    **fit_kwargs) -> OneVsRestParams:
    r"""Fit ``n_classes`` binary problems "class k vs rest" with one ``vmap`` of ``fit``.

    Prediction: :math:`\hat y = \arg\max_k f_k(x)` (last class on exact ties, as
    scikit-learn); ``predict_proba`` (when the binary fit has one) normalises the
    positive-class probabilities, :math:`p_k / \sum_j p_j`, as scikit-learn's
    ``OneVsRestClassifier`` does (NaN where every :math:`p_k = 0`, as there).

    Parameters
    ----------
    fit : callable
        A binary fit ``fit(X, y01, *, sample_weight=..., **fit_kwargs) -> params`` of any
        family (its params registered in :mod:`jaxclassic._dispatch`).
    X : (n_samples, n_features) array
    y : (n_samples,) int array of class codes 0..C-1
    n_classes : int, optional
        Static; inferred from ``y`` when concrete. (The binary fit's own ``n_classes``, if it
        has one, goes in through ``functools.partial``.)
    sample_weight : (n_samples,) array, optional
    **fit_kwargs
        Passed to every binary fit (e.g. ``l2=1.0``).

    Returns
    -------
    OneVsRestParams

    Examples
    --------
    >>> import jax.numpy as jnp
    >>> from jaxclassic.linear import fit_logistic
    >>> X = jnp.array([[0.0], [1.0], [2.0], [3.0], [4.0], [5.0]])
    >>> params = fit_one_vs_rest(fit_logistic, X, jnp.array([0, 0, 1, 1, 2, 2]), l2=1.0)
    >>> predict(params, X).shape
    (6,)

    References
    ----------
    Bishop, *Pattern Recognition and Machine Learning* (2006), §4.1.2 (one-versus-the-rest and
    one-versus-one); Rifkin & Klautau, "In defense of one-vs-all classification", JMLR 5 (2004).
    """
    X, y, n_classes, sw = _validate(fit, X, y, n_classes, sample_weight)
    labels = (y[None, :] == jnp.arange(n_classes, dtype=y.dtype)[:, None]).astype(jnp.int32)
    estimators = jax.vmap(lambda yk: fit(X, yk, sample_weight=sw, **fit_kwargs))(labels)
    _check_scorable(estimators)
    _warn_unconverged(estimators, "fit_one_vs_rest")
    return OneVsRestParams(estimators)


def fit_one_vs_one(fit: Callable, X, y, *, n_classes: int | None = None, sample_weight=None,
                   **fit_kwargs) -> OneVsOneParams:
    r"""Fit the :math:`C(C-1)/2` problems "class b vs class a" with one ``vmap`` of ``fit``.

    Pair :math:`(a, b)` uses weights :math:`s_i [y_i \in \{a, b\}]` and labels
    :math:`[y_i = b]`; prediction is the majority vote with scikit-learn's confidence
    tie-break (module docstring). The weights are traced inside the ``vmap``: a fit that
    derives something on the host from concrete weights (CART's bin edges) uses all rows.

    Parameters
    ----------
    fit, X, y, n_classes, sample_weight, **fit_kwargs
        As for :func:`fit_one_vs_rest`.

    Returns
    -------
    OneVsOneParams

    Examples
    --------
    >>> import jax.numpy as jnp
    >>> from jaxclassic.linear import fit_logistic
    >>> X = jnp.array([[0.0], [1.0], [2.0], [3.0], [4.0], [5.0]])
    >>> params = fit_one_vs_one(fit_logistic, X, jnp.array([0, 0, 1, 1, 2, 2]), l2=1.0)
    >>> params.pairs.tolist()
    [[0, 1], [0, 2], [1, 2]]

    References
    ----------
    Bishop (2006), §4.1.2; Hastie & Tibshirani, "Classification by pairwise coupling", Ann.
    Statist. 26 (1998).
    """
    X, y, n_classes, sw = _validate(fit, X, y, n_classes, sample_weight)
    first, second = np.triu_indices(n_classes, k=1)
    pairs = jnp.asarray(np.stack([first, second], axis=1), jnp.int32)
    in_pair = (y[None, :] == pairs[:, :1]) | (y[None, :] == pairs[:, 1:])
    weights = jnp.where(in_pair, sw[None, :], jnp.zeros((), sw.dtype))
    labels = (y[None, :] == pairs[:, 1:]).astype(jnp.int32)
    estimators = jax.vmap(lambda yk, wk: fit(X, yk, sample_weight=wk, **fit_kwargs))(labels, weights)
    _check_scorable(estimators)
    _warn_unconverged(estimators, "fit_one_vs_one")
    return OneVsOneParams(estimators, pairs)


# --------------------------------------------------------------------------- predict
def _operand(X):
    """``X`` for the binary fits' scores: sparse (``BCOO``, scipy) as it is, else an array."""
    return X if _sparse.is_sparse(X) else jnp.asarray(X)


def _ovr_decision(params: OneVsRestParams, X):
    return _stacked_scores(params.estimators, _operand(X))


def _ovr_predict(params: OneVsRestParams, X):
    scores = _ovr_decision(params, X)
    # scikit-learn keeps the last class among equal maxima
    n_classes = scores.shape[1]
    return (n_classes - 1 - jnp.argmax(scores[:, ::-1], axis=1)).astype(jnp.int32)


def _ovr_predict_proba(params: OneVsRestParams, X):
    X = _operand(X)
    if not _dispatch.predict_proba.supports(params.estimators):
        raise TypeError(f"predict_proba needs a binary fit with predict_proba; "
                        f"{type(params.estimators).__name__} has none")
    positive = jax.vmap(lambda p: _dispatch.predict_proba(p, X)[:, 1], out_axes=1)(params.estimators)
    return positive / jnp.sum(positive, axis=1, keepdims=True)


def _n_classes_of(pairs) -> int:
    n_pairs = pairs.shape[0]
    return int(round((1 + np.sqrt(1 + 8 * n_pairs)) / 2))


def _ovo_votes_and_confidences(params: OneVsOneParams, X):
    X = _operand(X)
    scores = _stacked_scores(params.estimators, X)  # (n, P)
    wins_second = jax.vmap(lambda p: _dispatch.predict(p, X) == 1, out_axes=1)(params.estimators)
    return wins_second.astype(scores.dtype), scores


def _ovo_decision_from(wins_second, scores, pairs):
    """scikit-learn's ``_ovr_decision_function``: votes + S / (3 (|S| + 1))."""
    n_classes = _n_classes_of(pairs)
    first = jax.nn.one_hot(pairs[:, 0], n_classes, dtype=scores.dtype)  # (P, C)
    second = jax.nn.one_hot(pairs[:, 1], n_classes, dtype=scores.dtype)
    votes = _precision.matmul(wins_second, second) + _precision.matmul(1 - wins_second, first)
    confidence = _precision.matmul(scores, second) - _precision.matmul(scores, first)
    return votes + confidence / (3 * (jnp.abs(confidence) + 1))


def _ovo_decision(params: OneVsOneParams, X):
    wins_second, scores = _ovo_votes_and_confidences(params, X)
    return _ovo_decision_from(wins_second, scores, params.pairs)


def _ovo_predict(params: OneVsOneParams, X):
    return jnp.argmax(_ovo_decision(params, X), axis=1).astype(jnp.int32)


decision_function.register(OneVsRestParams, _ovr_decision)
predict.register(OneVsRestParams, _ovr_predict)
predict_proba.register(OneVsRestParams, _ovr_predict_proba)
decision_function.register(OneVsOneParams, _ovo_decision)
predict.register(OneVsOneParams, _ovo_predict)
