r"""Bagging (bootstrap aggregating) of ANY fit that takes ``sample_weight``.

Breiman (1996): fit :math:`E` copies of a base learner on bootstrap resamples of the data and
average them,

.. math:: \hat f_{bag}(x) = \frac1E \sum_{e=1}^{E} \hat f_e(x),
          \qquad \hat f_e = \mathrm{fit}(X, y;\ w \odot c_e),

(classification: the mean of the members' class probabilities, ``voting="mean"``, or the
fraction of their votes, ``voting="majority"``; the class of largest score wins, the first on
ties). A resample is a **count-weight vector** (DESIGN.md, "weights, not slices"): over the
:math:`n_+` rows of positive weight, :math:`c_e \sim \mathrm{Multinomial}(m;\ 1/n_+, \dots,
1/n_+)` with :math:`m = \max(1, \mathrm{round}(\texttt{max\_samples}\cdot n_+))` draws, and the
member is fitted with weights :math:`c_e \odot w` (scikit-learn's forests: the bootstrap
draws rows uniformly, the user's weights multiply the counts). Every member is fitted in one
``jax.vmap`` over the count vectors (chunks of ``chunk_size`` members in a Python loop when
the batch would pass the memory budget).

The draw depends only on the positive-weight rows, in order: draw :math:`i` of estimator
:math:`e` is ``randint(fold_in(fold_in(key, e), i), 0, n_+)``, the rank of a positive row, so
adding rows of weight 0 anywhere (padding) changes no count of a positive row, and a row of
weight 0 is never drawn. The draws are also prefix-stable in :math:`e`: the first members of
a bag of 20 are the bag of 10.

Out-of-bag: a row with :math:`c_{e,i} = 0` is out of bag for member :math:`e`; its OOB
prediction averages the members for which it is out of bag (about :math:`e^{-1} \approx
37\%` of them), an almost unbiased estimate of the test error without a held-out set
(Breiman 1996b).

Memory: the params keep the ``(E, n)`` count matrix (int32, ``4·E·n`` bytes: 64 MB for 100
members of 160,000 rows) for the out-of-bag predictions; the fit holds every member's
weights ``(E, n)`` and ``chunk_size`` base fits at a time. Default ``chunk_size``: as many
members as fit :data:`MEMORY_BUDGET_BYTES` (1 GiB) at ``8·n·(p + 1)`` bytes of working set
per member (a few copies of the weighted data, the base's own allocation unknown to us): pass
``chunk_size`` for a heavier base.

References
----------
L. Breiman, "Bagging predictors", *Machine Learning* 24 (1996) 123-140.
L. Breiman, "Out-of-bag estimation", technical report, UC Berkeley (1996b).
T. Hastie, R. Tibshirani, J. Friedman, *The Elements of Statistical Learning*, 2nd ed., §8.7, §15.2.
"""

from __future__ import annotations

import numbers
import weakref
from functools import partial
from typing import Any, Callable, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxclassic import _dispatch
from jaxclassic import _jit
from jaxclassic._deprecation import key_made_keyword
from jaxclassic._dispatch import Dispatcher
from jaxclassic.ensemble._api import decision_function, predict, predict_proba
from jaxclassic.metrics import accuracy, r2_score
from jaxclassic.validation import (
    check_array,
    check_choice,
    check_classification_targets,
    check_int,
    check_key,
    check_sample_weight,
    check_scalar,
    is_traced,
    key_from_seed,
)

__all__ = [
    "BaggingParams",
    "estimator_capacity",
    "prediction_capacity",
    "ClassificationBagging",
    "RegressionBagging",
    "MEMORY_BUDGET_BYTES",
    "fit_bagging",
    "bootstrap_counts",
    "oob_decision_function",
    "oob_predict",
    "oob_score",
]

#: Working memory (bytes) one batch of members may take before the fit is chunked.
MEMORY_BUDGET_BYTES = 1 << 30
#: The fewest members a compiled ensemble program is built for (:func:`estimator_capacity`).
MIN_CAPACITY = 16


class BaggingParams(NamedTuple):
    """A bag of ``E`` fitted members (``n`` training rows, ``C`` classes).

    Attributes
    ----------
    estimators : base params pytree
        The members' params stacked on a leading axis of length ``E`` (one ``vmap``).
    counts : (E, n) int32
        Bootstrap counts of each member (0: the row is out of bag for it).
    sample_weight : (n,) float
        The training weights (the out-of-bag score weighs rows by them; weight 0: no influence).
    classes : (C,) int32
        ``0..C-1`` (classification), empty for regression.
    majority : () bool
        ``voting == "majority"`` (class votes) rather than mean probabilities.
    """

    estimators: Any
    counts: jax.Array
    sample_weight: jax.Array
    classes: jax.Array
    majority: jax.Array


class ClassificationBagging(BaggingParams):
    """Bagged classifiers: scores are mean probabilities or vote fractions.

    ``n_classes`` (a read-only property, not a pytree leaf) is ``C``, the length of
    ``classes`` (a static shape: a Python int).
    """

    @property
    def n_classes(self) -> int:
        return int(self.classes.shape[-1])


class RegressionBagging(BaggingParams):
    """Bagged regressors: the prediction is the members' mean."""


# --------------------------------------------------------------------------- shared pieces
def check_n_estimators(n_estimators) -> int:
    return check_int(n_estimators, "n_estimators", low=1)


def check_max_samples(max_samples) -> float:
    """``max_samples`` in (0, 1]: the share of the positive-weight rows drawn per member."""
    if isinstance(max_samples, bool) or not isinstance(max_samples, numbers.Real):
        raise TypeError(f"max_samples must be a float in (0, 1], got {type(max_samples).__name__} {max_samples!r}")
    check_scalar(max_samples, "max_samples", low=0.0, high=1.0, include_low=False)
    return float(max_samples)


def check_targets(y, sample_weight, *, classification: bool | None, n_classes=None):
    """``y`` finite; for classification at least two classes among the positive-weight rows.

    Returns ``(y, n_classes)`` (``n_classes`` None for regression or when undecided)."""
    if is_traced(y):
        return y, n_classes
    arr = np.asarray(y)
    if arr.ndim != 1:
        raise ValueError(f"y must be 1-d, got an array of shape {arr.shape}")
    if arr.dtype.kind == "f" and not np.isfinite(arr).all():
        raise ValueError(f"y contains {int(np.isnan(arr).sum())} NaN and {int(np.isinf(arr).sum())} inf "
                         "value(s); it must be finite")
    if classification is None:
        classification = arr.dtype.kind in "iub"
    if not classification:
        return y, None
    yc, n_classes = check_classification_targets(arr, "y", min_classes=2, n_classes=n_classes,
                                                 sample_weight=sample_weight)
    return yc, n_classes


def estimator_capacity(n_estimators: int) -> int:
    r"""The member count ``E_cap`` that an ensemble's compiled programs are built for.

    :math:`E_{cap} = \max(16, 2^{\lceil \log_2 E \rceil})`: the programs of a fit (growing,
    drawing, predicting) take arrays with a leading axis of ``E_cap`` members, the members past
    ``E`` marked dead (not grown, zero weight in every sum) and sliced off on the host, so a
    refit with another ``n_estimators`` in the same bucket (1..16, 17..32, 33..64, ...) builds
    no new program, and one bucket's programs serve every count in it. Powers of two bound
    the padding by ``E`` members (a dead member costs its bootstrap draw and its outputs'
    memory, not its fit) and the programs by ``log2`` of the largest count.

    Examples
    --------
    >>> [estimator_capacity(e) for e in (1, 10, 16, 17, 40, 100)]
    [16, 16, 16, 32, 64, 128]
    """
    return max(MIN_CAPACITY, 1 << (int(n_estimators) - 1).bit_length())


def prediction_capacity(n_members: int) -> int:
    r"""The member count a forest's prediction programs are built for: finer than
    :func:`estimator_capacity`, whose powers of two keep ``vmap`` batches dividing the fit's
    capacity but would make 100 trees predict as 128.

    :math:`\max(16, s\lceil E / s\rceil)` with :math:`s = \max(16, 2^{\lfloor \log_2 E\rfloor - 3})`:
    buckets 1..16, 17..32, 33..48, ..., 97..112, ..., 257..288, ...; at most ``E / 8`` padded
    members above 128 (each routes every row: prediction costs grow with them) and eight
    programs per doubling of the count.

    Examples
    --------
    >>> [prediction_capacity(e) for e in (1, 10, 16, 17, 40, 100, 300, 1000)]
    [16, 16, 16, 32, 48, 112, 320, 1024]
    """
    n = int(n_members)
    step = max(MIN_CAPACITY, 1 << max(0, n.bit_length() - 4))
    return max(MIN_CAPACITY, -(-n // step) * step)


def _host_slice(tree, n: int):
    """The first ``n`` members of a stacked pytree, sliced in numpy (an eager ``a[:n]`` on a
    jax array would lower a program for every ``n``) and put back on the device."""
    return jax.tree.map(lambda a: jax.device_put(np.asarray(a)[:n]), tree)


def _host_pad(tree, capacity: int):
    """A stacked pytree of ``E`` members padded to ``capacity`` on the host by repeating its
    last member (finite values, given zero weight by the caller)."""
    def pad(a):
        a = np.asarray(a)
        return a if a.shape[0] == capacity else np.concatenate([a, np.repeat(a[-1:], capacity - a.shape[0], 0)])

    return jax.tree.map(pad, tree)


#: padded copies of fitted members, by the ids of the arrays copied (dropped with any of them)
_PADDED: dict = {}


def _padded_members(members, capacity: int, fields: tuple):
    """:func:`_host_pad` of the ``fields`` of stacked trees (a NamedTuple), the other node
    arrays made empty ``(capacity, ..., 0)`` arrays (a prediction reads only some fields: the
    copy is smaller). The copy is kept while the arrays copied live (found again by their
    identity: params with a field replaced, ``params._replace``, are copied anew), so that
    predicting again does not copy again; fitted arrays are not to be changed in place."""
    kept = [getattr(members, f) for f in fields]
    key = (capacity, fields, tuple(id(a) for a in kept))
    hit = _PADDED.get(key)
    if hit is not None and all(ref() is a for ref, a in zip(hit[0], kept)):
        return hit[1]
    node_ndim = np.ndim(members.feature)  # a node array (members, ..., M); fewer axes: one value a member

    def empty(a):
        return np.zeros((capacity,) + np.shape(a)[1:-1] + (0,), np.asarray(a).dtype)

    dropped = {f: empty(getattr(members, f)) for f in members._fields
               if f not in fields and np.ndim(getattr(members, f)) >= node_ndim}
    padded = _host_pad(members._replace(**dropped), capacity)
    try:
        refs = [weakref.ref(a) for a in kept]
        for a in kept:
            weakref.finalize(a, _PADDED.pop, key, None)
    except TypeError:  # an array type without weak references: not cached
        return padded
    _PADDED[key] = (refs, padded)
    return padded


@partial(_jit.jit, static_argnames=("size",))
def _rows(xs, start, size):
    """``a[start:start + size]`` of every leaf (``start`` traced: one program per size)."""
    return jax.tree.map(lambda a: jax.lax.dynamic_slice_in_dim(a, start, size), xs)


def map_capacity(f: Callable, xs, n: int, chunk_size: int):
    """The first ``n`` members of ``jax.vmap(f)(*xs)``, where ``xs`` have a leading axis of
    :func:`estimator_capacity` ``(n)`` members, ``chunk`` at a time.

    ``chunk`` is the largest power of two at most ``chunk_size`` and the capacity (so it divides
    the capacity); the chunks start at ``0, chunk, ...`` below ``n`` (those past ``n`` are not
    run) and their members are joined and cut to ``n`` on the host. Every compiled program
    sees ``chunk`` members: one program for every ``n`` of a bucket."""
    capacity = jax.tree.leaves(xs)[0].shape[0]
    chunk = 1 << (int(min(chunk_size, capacity)).bit_length() - 1)
    outs = [jax.vmap(f)(*_rows(xs, start, chunk)) for start in range(0, n, chunk)]
    if any(is_traced(a) for a in jax.tree.leaves(outs)):
        return jax.tree.map(lambda *a: jnp.concatenate(a, axis=0)[:n], *outs)
    return jax.tree.map(lambda *a: jax.device_put(np.concatenate([np.asarray(b) for b in a], axis=0)[:n]), *outs)


def default_chunk_size(n_estimators: int, bytes_per_member: int, budget: int = MEMORY_BUDGET_BYTES) -> int:
    """Members per ``vmap`` batch so that ``chunk · bytes_per_member <= budget`` (at least 1)."""
    return int(max(1, min(n_estimators, budget // max(1, bytes_per_member))))


def map_chunks(f: Callable, xs, n: int, chunk_size: int):
    """``jax.vmap(f)(*xs)`` over the leading axis (length ``n``), ``chunk_size`` at a time.

    Chunks run one after another in a Python loop (one compiled batch shape: the last chunk
    is padded by repeating its last element and the padding dropped), so at most
    ``chunk_size`` members are in memory at once besides the stacked results."""
    if chunk_size >= n:
        return jax.vmap(f)(*xs)
    outs = []
    for start in range(0, n, chunk_size):
        part = jax.tree.map(lambda a: a[start:start + chunk_size], xs)
        m = min(chunk_size, n - start)
        if m < chunk_size:
            part = jax.tree.map(lambda a: jnp.concatenate([a, jnp.repeat(a[-1:], chunk_size - m, axis=0)]), part)
        out = jax.vmap(f)(*part)
        outs.append(jax.tree.map(lambda a: a[:m], out))
    return jax.tree.map(lambda *a: jnp.concatenate(a, axis=0), *outs)


@partial(_jit.jit, static_argnames=("n_estimators",))
def _counts(key, positive, max_samples, n_estimators):
    n = positive.shape[0]
    n_pos = jnp.sum(positive, dtype=jnp.int32)
    n_draw = jnp.maximum(jnp.round(max_samples * n_pos), 1).astype(jnp.int32)
    rank = jnp.maximum(jnp.cumsum(positive, dtype=jnp.int32) - 1, 0)  # rank of each positive row
    draws = jnp.arange(n, dtype=jnp.int32)

    def one(e):
        k = jax.random.fold_in(key, e)
        r = jax.vmap(lambda i: jax.random.randint(jax.random.fold_in(k, i), (), 0, n_pos))(draws)
        per_rank = jax.ops.segment_sum((draws < n_draw).astype(jnp.int32), r, n)
        return jnp.where(positive, per_rank[rank], 0)

    return jax.vmap(one)(jnp.arange(n_estimators, dtype=jnp.int32))


@key_made_keyword
def bootstrap_counts(sample_weight, n_estimators: int, max_samples: float = 1.0, *, key=None) -> jax.Array:
    r"""Bootstrap count weights ``(n_estimators, n)`` int32 over the rows of positive weight.

    Row ``e`` is :math:`\mathrm{Multinomial}(m; 1/n_+, \dots, 1/n_+)` over the :math:`n_+`
    positive-weight rows (zero elsewhere), :math:`m = \max(1, \mathrm{round}(
    \texttt{max\_samples}\cdot n_+))`; draw :math:`i` of row :math:`e` comes from
    ``fold_in(fold_in(key, e), i)``, so the counts of the positive rows do not depend on
    zero-weight rows anywhere, and row ``e`` does not depend on ``n_estimators``.

    Parameters
    ----------
    sample_weight : (n,) array-like
        Training weights; rows of weight 0 are never drawn.
    n_estimators : int >= 1
        Number of bootstrap samples (rows of the result).
    max_samples : float in (0, 1]
        Share of the positive-weight rows drawn per sample.
    key : jax.random key, optional (keyword-only)
        None: the fixed key ``jax.random.key(0)`` (same key, same counts). The old call
        ``bootstrap_counts(key, sample_weight, n_estimators)`` still works for one minor
        version, with a ``DeprecationWarning``.

    Returns
    -------
    (n_estimators, n) int32

    Examples
    --------
    >>> import jax, jax.numpy as jnp
    >>> c = bootstrap_counts(jnp.array([1.0, 0.0, 1.0, 1.0]), 3, key=jax.random.key(0))
    >>> c.sum(axis=1).tolist(), c[:, 1].tolist()
    ([3, 3, 3], [0, 0, 0])

    References
    ----------
    Efron & Tibshirani (1993), *An Introduction to the Bootstrap*, ch. 6; Breiman 1996 (bagging).
    """
    n_estimators = check_n_estimators(n_estimators)
    max_samples = check_max_samples(max_samples)
    key = key_from_seed(0) if key is None else check_key(key)
    sample_weight = jnp.asarray(sample_weight)
    return _counts(key, sample_weight > 0, max_samples, n_estimators)


# --------------------------------------------------------------------------- fit
def fit_bagging(
    fit: Callable,
    X,
    y,
    *,
    n_estimators: int = 10,
    key=None,
    sample_weight=None,
    max_samples: float = 1.0,
    voting: str = "mean",
    chunk_size: int | None = None,
    **fit_kwargs,
) -> BaggingParams:
    r"""Bag ``n_estimators`` copies of ``fit`` on bootstrap count weights, in one ``vmap``.

    Member :math:`e` is ``fit(X, y, sample_weight=c_e * w, **fit_kwargs)`` with
    :math:`c_e \sim \mathrm{Multinomial}(m; 1/n_+, \dots)` over the positive-weight rows
    (module docstring).

    Parameters
    ----------
    fit : callable
        Any fit of the package (or yours) with ``fit(X, y, *, sample_weight, **fit_kwargs)``
        returning a params pytree registered with :mod:`jaxclassic._dispatch` (``predict``,
        and ``predict_proba`` for ``voting="mean"``); it must accept traced weights
        (``vmap``), as every fit of the package does.
    X : (n_samples, n_features) array-like
        Passed to ``fit`` as given (the base validates it).
    y : (n_samples,) array-like
        Class codes ``0..C-1`` or real targets; must be finite.
    n_estimators : int >= 1 (static)
    key : jax.random key, optional (keyword-only)
        Bootstrap draws (members' own randomness: pass it in ``fit_kwargs``). None: the
        fixed key ``jax.random.key(0)``, so a call is deterministic (same key, same bag).
    sample_weight : (n_samples,) array-like, optional
        Rows of weight 0 are never drawn and have no influence.
    max_samples : float in (0, 1]
        Share of the positive-weight rows drawn per member.
    voting : {"mean", "majority"}
        Classification: average the members' probabilities, or their votes.
    chunk_size : int, optional (static)
        Members per ``vmap`` batch (default: the memory budget, module docstring).
    **fit_kwargs
        Passed to every member's fit (hyperparameters; static ones as ``fit`` declares). The
        bag is a classifier when ``fit_kwargs["task"] == "classification"``, else (no
        ``task``) when ``y`` is integer / boolean or the members' params have a
        ``predict_proba``; a regressor otherwise.

    Returns
    -------
    ClassificationBagging or RegressionBagging
        One function for both tasks, as the algorithm is the same: the task is the members'
        (``fit_kwargs["task"]``, else read from ``y`` and the members' params), so there is
        no ``task=`` of the bag's own.

    Examples
    --------
    >>> import jax, numpy as np
    >>> from jaxclassic.linear import fit_ridge
    >>> X = np.arange(20.0).reshape(10, 2); y = X @ np.array([1.0, -1.0]) + 0.5
    >>> bag = fit_bagging(fit_ridge, X, y, n_estimators=4, key=jax.random.key(0), alpha=1e-6)
    >>> bag.counts.shape, bool(np.allclose(predict(bag, X), y, atol=1e-3))
    ((4, 10), True)

    References
    ----------
    Breiman 1996 (bagging); ESL §8.7.
    """
    if not callable(fit):
        raise TypeError(f"fit must be a callable fit(X, y, *, sample_weight, ...), got {type(fit).__name__}")
    n_estimators = check_n_estimators(n_estimators)
    max_samples = check_max_samples(max_samples)
    voting = check_choice(voting, "voting", ("mean", "majority"))
    task = fit_kwargs.get("task")
    if task not in ("classification", "regression"):
        task = None
    key = key_from_seed(0) if key is None else check_key(key)
    if chunk_size is not None:
        chunk_size = check_int(chunk_size, "chunk_size", low=1)
    Xc = check_array(X, "X", allow_nan=True) if not is_traced(X) else X
    n_samples, n_features = Xc.shape
    dtype = Xc.dtype if jnp.issubdtype(Xc.dtype, jnp.floating) else None
    sw = check_sample_weight(sample_weight, n_samples, dtype=dtype)
    if not is_traced(y) and np.shape(y) != (n_samples,):
        raise ValueError(f"y must have shape ({n_samples},), got {np.shape(y)}")
    classification = None if task is None else task == "classification"
    _, n_classes = check_targets(y, sw, classification=classification, n_classes=fit_kwargs.get("n_classes"))

    counts = _counts(key, sw > 0, max_samples, n_estimators)
    weights = counts.astype(sw.dtype) * sw
    if chunk_size is None:
        chunk_size = default_chunk_size(n_estimators, 8 * n_samples * (n_features + 1) * sw.dtype.itemsize)
    estimators = map_chunks(lambda w: fit(X, y, sample_weight=w, **fit_kwargs), (weights,), n_estimators,
                            chunk_size)

    has_proba = _dispatch.predict_proba.supports(estimators)
    if task is None:
        classification = n_classes is not None or has_proba
    if not classification:
        return RegressionBagging(estimators, counts, sw, jnp.zeros((0,), jnp.int32), jnp.asarray(False))
    if n_classes is None:
        _, n_classes = check_targets(y, sw, classification=True, n_classes=fit_kwargs.get("n_classes"))
    if n_classes is None:  # traced y
        raise ValueError("n_classes must be given (in fit_kwargs) when y is traced")
    if voting == "mean" and not has_proba:
        raise ValueError(f"voting='mean' needs members with predict_proba; {type(estimators).__name__} has none: "
                         "use voting='majority'")
    return ClassificationBagging(estimators, counts, sw, jnp.arange(n_classes, dtype=jnp.int32),
                                 jnp.asarray(voting == "majority"))


# --------------------------------------------------------------------------- members' outputs
def _member_scores(params: BaggingParams, X):
    """(E, n, C) class scores (probabilities or one-hot votes) or (E, n) values of every member."""
    if isinstance(params, RegressionBagging):
        return jax.vmap(lambda p: _dispatch.predict(p, X))(params.estimators)
    n_classes = params.classes.shape[0]
    votes = jax.vmap(lambda p: jax.nn.one_hot(_dispatch.predict(p, X), n_classes))(params.estimators)
    if not _dispatch.predict_proba.supports(params.estimators):
        return votes.astype(params.sample_weight.dtype)
    proba = jax.vmap(lambda p: _dispatch.predict_proba(p, X))(params.estimators)
    return jnp.where(params.majority, votes.astype(proba.dtype), proba)


def _bag_scores(params, X):
    return jnp.mean(_member_scores(params, X), axis=0)


def _bag_predict_class(params, X):
    return jnp.argmax(_bag_scores(params, X), axis=-1).astype(jnp.int32)


def _bag_oob_sums(params, X):
    scores = _member_scores(params, X)
    oob = (params.counts == 0).astype(scores.dtype)  # (E, n)
    if scores.ndim == 3:
        return jnp.einsum("en,enc->nc", oob, scores), jnp.sum(oob, axis=0)
    return jnp.sum(oob * scores, axis=0), jnp.sum(oob, axis=0)


predict.register(RegressionBagging, _bag_scores)
predict.register(ClassificationBagging, _bag_predict_class)
predict_proba.register(ClassificationBagging, _bag_scores)
decision_function.register(ClassificationBagging, _bag_scores)

#: ``oob_sums(params, X_train) -> (sum of OOB scores (n, C) or (n,), number of OOB members (n,))``;
#: each bootstrap ensemble registers its own (the forest sums tree by tree).
oob_sums = Dispatcher("_oob_sums", "Sums of the out-of-bag members' scores and their number per training row.")
oob_sums.register(BaggingParams, _bag_oob_sums)


# --------------------------------------------------------------------------- out of bag
def _check_oob_X(params, X):
    n = params.counts.shape[1]
    if np.shape(X)[0] != n:
        raise ValueError(f"X must be the training data ({n} rows) for out-of-bag predictions, "
                         f"got {np.shape(X)[0]} rows")
    return X


def oob_decision_function(params, X) -> jax.Array:
    r"""Out-of-bag scores of every training row: the mean over the members that did not draw it.

    :math:`\bar s_i = \sum_{e: c_{ei} = 0} s_e(x_i) / \#\{e: c_{ei} = 0\}`: class
    probabilities / vote fractions ``(n, C)`` (scikit-learn's ``oob_decision_function_``) or
    values ``(n,)`` (``oob_prediction_``). NaN for a row that every member drew (scikit-learn
    gives 0 there, with a warning).

    Parameters
    ----------
    params : BaggingParams or ForestParams
    X : (n_samples, n_features) the training data, in the training order
    """
    total, n_oob = oob_sums(params, _check_oob_X(params, X))
    denom = jnp.where(n_oob > 0, n_oob, 1)
    value = total / (denom[:, None] if total.ndim == 2 else denom)
    missing = n_oob == 0
    return jnp.where(missing[:, None] if total.ndim == 2 else missing, jnp.nan, value)


def oob_predict(params, X) -> jax.Array:
    """Out-of-bag predictions of the training rows: the class of largest OOB score (first on
    ties), or the OOB mean; ``-1`` / NaN where no member left the row out."""
    scores = oob_decision_function(params, X)
    if scores.ndim == 1:
        return scores
    best = jnp.argmax(jnp.nan_to_num(scores, nan=-1.0), axis=1)
    return jnp.where(jnp.isnan(scores[:, 0]), -1, best).astype(jnp.int32)


def oob_score(params, X, y) -> jax.Array:
    r"""Out-of-bag accuracy (classification) or :math:`R^2` (regression) on the training data.

    Over the rows with at least one out-of-bag member, weighted by the training
    ``sample_weight`` (rows of weight 0 do not count; scikit-learn's ``oob_score_`` with unit
    weights, except that scikit-learn also scores the rows no member left out).

    Raises
    ------
    ValueError
        When no row is out of bag (e.g. ``bootstrap=False``), or ``X`` is not the training data.
    """
    total, n_oob = oob_sums(params, _check_oob_X(params, X))
    w = jnp.where(n_oob > 0, params.sample_weight, 0)
    if not is_traced(w) and not bool(jnp.any(w > 0)):
        raise ValueError("no training row is out of bag (bootstrap=False, or every member drew every row); "
                         "the out-of-bag score needs bootstrap resamples")
    denom = jnp.where(n_oob > 0, n_oob, 1)
    if total.ndim == 2:
        pred = jnp.argmax(total / denom[:, None], axis=1).astype(jnp.int32)
        return accuracy(jnp.asarray(y).astype(jnp.int32), pred, sample_weight=w)
    return r2_score(jnp.asarray(y, total.dtype), total / denom, sample_weight=w)
