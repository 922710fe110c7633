r"""ID3: multiway decision trees on categorical features by information gain (Quinlan 1986).

At a node holding the weighted sample :math:`S` (weights :math:`w_i`, class counts
:math:`n_k = \sum_{i \in S} w_i [y_i = k]`), ID3 splits on the attribute of greatest
information gain

.. math::

    \mathrm{Gain}(S, A) = H(S) - \sum_{v \in \mathrm{values}(A)} \frac{|S_v|}{|S|}\, H(S_v),
    \qquad H(S) = -\sum_k \frac{n_k}{|S|} \log_2 \frac{n_k}{|S|},

with :math:`|S| = \sum_{i\in S} w_i` (weights enter every count, so a zero-weight row has no
influence, and an integer weight equals repeating the row). The split has one branch per
category ``0..n_categories[A]-1`` (Mitchell 1997, table 3.1), and each attribute is used at
most once on a path. A node becomes a leaf when it is pure, when no attribute remains, when
``max_depth`` is reached or fewer than ``min_samples_split`` rows of positive weight reach it;
a branch that no training row reaches is a leaf predicting its parent's class distribution
(Mitchell: "the most common value of the target in Examples"). The best attribute is the first
(lowest column index) of those within ``1e-12`` of the largest gain; ID3 splits even when that
gain is 0 (XOR needs it).

Growth runs on the host (a Python loop over nodes, pre-order); each node's statistics (the
weighted (feature, value, class) contingency table and the gains of all features) are one
jitted JAX call on full-length weight vectors, compiled once per data shape.

Prediction walks the array tree (``jax.lax.while_loop`` per row, ``vmap`` over rows; jittable).
A category never seen in training for the tested feature (a code ``>= n_categories[f]``)
stops the walk at that internal node, which then predicts its own training class
distribution (``unseen="node"``, the default); ``unseen="error"`` raises a ``ValueError``
before tracing instead. Negative codes are always an error.

Feature importances (``jaxclassic.tree.feature_importances``): the total weighted
information gain :math:`\sum_{t: f_t = j} W_t\,\mathrm{Gain}(S_t, A_j)` of the splits on each
feature, normalised to sum 1 (the weighted entropy decrease: scikit-learn's definition with
``criterion="entropy"``, for multiway splits).

References
----------
J. R. Quinlan, "Induction of decision trees", Machine Learning 1 (1986) 81-106.
J. R. Quinlan, *C4.5: Programs for Machine Learning*, Morgan Kaufmann 1993, ch. 2.
T. M. Mitchell, *Machine Learning*, McGraw-Hill 1997, ch. 3 (table 3.1, the play-tennis gains).
"""

from __future__ import annotations

from functools import partial
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxclassic import _jit
from jaxclassic.tree import _api
from jaxclassic.tree._multiway import (
    feature_importances as _feature_importances,
    NodeStore,
    check_codes,
    contingency,
    gain_from_table,
    hard_walk,
    resolve_n_categories,
)
from jaxclassic._implicit import nondifferentiable
from jaxclassic.validation import (
    check_array,
    check_choice,
    check_classification_targets,
    check_consistent_length,
    check_int,
    check_sample_weight,
    default_float_dtype,
    is_traced,
)

#: why jax.grad through this fit raises (issue 14, :func:`jaxclassic._implicit.nondifferentiable`)
_NO_DERIVATIVE = (
    "its splits are discrete choices (the best impurity decrease) at thresholds between sample"
    " values, so the fitted tree is piecewise constant in the data and the hyperparameters"
)

__all__ = ["ID3Params", "fit_id3", "information_gain"]


class ID3Params(NamedTuple):
    """A fitted ID3 tree (``M`` nodes in pre-order, ``K`` branch slots, ``C`` classes, ``F`` features).

    Attributes
    ----------
    feature : (M,) int32
        Tested feature; ``-1`` at leaves.
    children : (M, K) int32
        ``children[t, v]``: the child for category ``v``; ``-1`` at leaves and unused slots.
    value : (M, C) float
        Weighted class fractions at every node (an empty branch: its parent's fractions).
    weighted_n_node_samples : (M,) float
        Sum of training weights reaching the node (0 for an empty branch).
    n_node_samples : (M,) int32
        Training rows of positive weight reaching the node.
    is_leaf : (M,) bool
    depth : (M,) int32
        Root at 0.
    gain : (M,) float
        Information gain (bits) of the node's split; NaN at leaves.
    n_nodes : () int32
        ``M``.
    n_categories : (F,) int32
        Categories known per feature (codes ``0..n_categories[f]-1``).

    ``n_classes`` (a read-only property, not a pytree leaf) is ``C``, the class axis of
    ``value`` (a static shape: a Python int).
    """

    feature: jax.Array
    children: jax.Array
    value: jax.Array
    weighted_n_node_samples: jax.Array
    n_node_samples: jax.Array
    is_leaf: jax.Array
    depth: jax.Array
    gain: jax.Array
    n_nodes: jax.Array
    n_categories: jax.Array

    @property
    def n_classes(self) -> int:
        return int(self.value.shape[-1])


# --------------------------------------------------------------------------- validation
def _check_codes_X(X, name="X"):
    codes = np.asarray(check_array(X, name, numeric="int", _numpy=True))
    check_codes(codes, name)
    return codes


def _validate(X, y, sample_weight, n_categories, n_classes):
    codes = _check_codes_X(X)
    if n_classes is not None:
        n_classes = check_int(n_classes, "n_classes", low=1)
    weight = np.asarray(check_sample_weight(sample_weight, codes.shape[0], dtype=default_float_dtype()))
    check_consistent_length(X=codes, y=np.asarray(y) if not is_traced(y) else y)
    y_codes, n_classes = check_classification_targets(y, "y", min_classes=1, n_classes=n_classes,
                                                      sample_weight=weight)
    n_cat = resolve_n_categories(n_categories, codes, weight, range(codes.shape[1]))
    return codes, np.asarray(y_codes), weight, n_classes, n_cat


# --------------------------------------------------------------------------- statistics
@partial(_jit.jit, static_argnames=("n_bins", "n_classes"))
def _node_statistics(codes, y, weight, n_bins, n_classes):
    table = contingency(codes, y, weight, n_bins, n_classes)
    gains, _, _ = gain_from_table(table)
    return gains, table[0].sum(axis=0)


def information_gain(X, y, *, n_categories=None, n_classes=None, sample_weight=None) -> jax.Array:
    r"""Information gain of every categorical feature for the class, in bits.

    .. math:: \mathrm{Gain}(S, A) = H(S) - \sum_v \frac{|S_v|}{|S|} H(S_v)

    with weighted counts (Quinlan 1986, eq. for gain(A); Mitchell 1997 eq. 3.4). Equal to the
    empirical mutual information :math:`I(A; Y)` in bits.

    Parameters
    ----------
    X : array-like (n_samples, n_features) of int codes ``0..255``
    y : array-like (n_samples,) of class codes ``0..C-1``
    n_categories, n_classes : optional, as in :func:`fit_id3`
    sample_weight : array-like (n_samples,), optional

    Returns
    -------
    jax.Array (n_features,) float: the gains, in bits.

    Example
    -------
    >>> from jaxclassic.datasets import load_play_tennis
    >>> X, y = load_play_tennis(return_X_y=True)
    >>> [round(float(g), 3) for g in information_gain(X, y)]  # outlook, temperature, humidity, wind
    [0.247, 0.029, 0.152, 0.048]

    References
    ----------
    J. R. Quinlan (1986), Induction of decision trees, Machine Learning 1, 81-106.
    T. M. Mitchell (1997), Machine Learning, §3.4.1.2.
    """
    codes, y_codes, weight, n_classes, n_cat = _validate(X, y, sample_weight, n_categories, n_classes)
    gains, _ = _node_statistics(jnp.asarray(codes), jnp.asarray(y_codes), jnp.asarray(weight),
                                int(n_cat.max()), n_classes)
    return gains


# --------------------------------------------------------------------------- fit
def fit_id3(X, y, *, n_categories=None, n_classes=None, sample_weight=None, max_depth=None,
            min_samples_split=2) -> ID3Params:
    r"""Grow an ID3 tree: multiway splits on categorical features by information gain.

    At each node, split on :math:`A^* = \arg\max_A \mathrm{Gain}(S, A)` over the attributes
    not yet tested on the path,
    :math:`\mathrm{Gain}(S, A) = H(S) - \sum_v \frac{|S_v|}{|S|} H(S_v)` (weighted counts,
    bits), with one branch per category. Stop at a pure node, when no attribute remains, at
    ``max_depth``, or with fewer than ``min_samples_split`` positive-weight rows. An empty
    branch predicts its parent's class distribution. Growth runs on the host; each node's
    contingency table and gains are one jitted JAX call (see the module docstring).

    Parameters
    ----------
    X : array-like (n_samples, n_features) of int
        Category codes ``0..k_f-1`` per feature (integer-valued floats accepted), at most 256
        categories per feature.
    y : array-like (n_samples,) of int
        Class codes ``0..C-1``.
    n_categories : int or sequence of int (n_features,), optional
        Categories per feature (branches of a split on it). Default: ``max + 1`` of each
        column over rows of positive weight. More than 256 is a ``ValueError``.
    n_classes : int, optional
        ``C``; default ``max(y) + 1``.
    sample_weight : array-like (n_samples,), optional
        Non-negative weights, entering every count; zero-weight rows have no influence.
    max_depth : int or None
        Deepest level of a split's children (root depth 0); ``None``: unlimited.
    min_samples_split : int
        A node with fewer rows of positive weight is a leaf (scikit-learn's meaning).

    Returns
    -------
    ID3Params
        The multiway tree as arrays (see :class:`ID3Params`; ``n_classes`` a property).
        Classification only, so no ``task=``: ID3 splits by the information gain of the class
        distribution, which has no regression counterpart in Quinlan's algorithm.

    Example
    -------
    >>> from jaxclassic.datasets import load_play_tennis
    >>> tennis = load_play_tennis()
    >>> X, y, names = tennis.data, tennis.target, tennis.feature_names
    >>> params = fit_id3(X, y)
    >>> names[int(params.feature[0])], int(params.n_nodes)
    ('outlook', 8)

    References
    ----------
    J. R. Quinlan (1986), Induction of decision trees, Machine Learning 1, 81-106.
    T. M. Mitchell (1997), Machine Learning, ch. 3, table 3.1.
    """
    # jax.grad / jax.jvp through this fit raise a TypeError naming it (issue 14)
    X, y, sample_weight = (
        nondifferentiable("fit_id3", a, reason=_NO_DERIVATIVE) if is_traced(a) else a
        for a in (X, y, sample_weight))
    if max_depth is not None:
        max_depth = check_int(max_depth, "max_depth", low=0)
    min_samples_split = check_int(min_samples_split, "min_samples_split", low=2)
    codes, y_codes, weight, n_classes, n_cat = _validate(X, y, sample_weight, n_categories, n_classes)
    dtype = weight.dtype
    codes_j, y_j = jnp.asarray(codes), jnp.asarray(y_codes)
    n_bins = int(n_cat.max())
    n_features = codes.shape[1]
    store = NodeStore(n_classes)
    # stack items: (weights, depth, available features, parent value, parent index, slot)
    stack = [(weight, 0, np.ones(n_features, bool), None, -1, 0)]
    while stack:
        w, depth, available, parent_value, parent, slot = stack.pop()
        total = float(w.sum())
        if total <= 0:
            store.add(parent, slot, value=parent_value, weight=0.0, n_samples=0, depth=depth)
            continue
        gains, counts = (np.asarray(a) for a in _node_statistics(codes_j, y_j, jnp.asarray(w), n_bins, n_classes))
        value = counts / total
        n_rows = int((w > 0).sum())
        leaf = (
            (counts > 0).sum() <= 1
            or not available.any()
            or (max_depth is not None and depth >= max_depth)
            or n_rows < min_samples_split
        )
        if leaf:
            store.add(parent, slot, value=value, weight=total, n_samples=n_rows, depth=depth)
            continue
        masked = np.where(available, gains, -np.inf)
        best = int(np.flatnonzero(masked >= masked.max() - 1e-12)[0])
        k = int(n_cat[best])
        node = store.add(parent, slot, value=value, weight=total, n_samples=n_rows, depth=depth,
                         feature=best, is_leaf=False, gain=float(gains[best]), children=[-1] * k)
        child_available = available.copy()
        child_available[best] = False
        for v in reversed(range(k)):  # pushed in reverse so category 0 is numbered first
            stack.append((np.where(codes[:, best] == v, w, 0.0), depth + 1, child_available, value, node, v))
    arrays = store.pack(dtype)
    return ID3Params(
        feature=jnp.asarray(arrays["feature"]),
        children=jnp.asarray(arrays["children"]),
        value=jnp.asarray(arrays["value"]),
        weighted_n_node_samples=jnp.asarray(arrays["weighted_n_node_samples"]),
        n_node_samples=jnp.asarray(arrays["n_node_samples"]),
        is_leaf=jnp.asarray(arrays["is_leaf"]),
        depth=jnp.asarray(arrays["depth"]),
        gain=jnp.asarray(arrays["gain"]),
        n_nodes=jnp.asarray(arrays["n_nodes"]),
        n_categories=jnp.asarray(n_cat),
    )


# --------------------------------------------------------------------------- prediction
@_jit.jit
def _apply(params: ID3Params, codes):
    walk = partial(hard_walk, params.feature, params.children, params.is_leaf, params.n_categories)
    return jax.vmap(walk)(codes)


def _check_predict_X(params: ID3Params, X, unseen):
    check_choice(unseen, "unseen", ("node", "error"))
    if is_traced(X):
        return X.astype(jnp.int32)
    codes = np.asarray(check_array(X, "X", numeric="int", _numpy=True))
    n_features = params.n_categories.shape[0]
    if codes.shape[1] != n_features:
        raise ValueError(f"X has {codes.shape[1]} features, but the tree was fitted with {n_features}")
    if (codes < 0).any():
        raise ValueError(f"X must hold category codes >= 0, got {int(codes.min())}")
    if unseen == "error":
        n_cat = np.asarray(params.n_categories)
        bad = codes >= n_cat[None, :]
        if bad.any():
            i, f = np.argwhere(bad)[0]
            raise ValueError(
                f"X[{i}, {f}] = {codes[i, f]} is a category unseen in training "
                f"(feature {f} has codes 0..{n_cat[f] - 1}); use unseen='node' to stop at the node"
            )
    return jnp.asarray(codes)


def apply_id3(params: ID3Params, X, *, unseen="node") -> jax.Array:
    """Index (n,) of the node where each row stops: its leaf, or the internal node whose
    category is unseen (``unseen="node"``). See :func:`predict_proba_id3`.

    Parameters
    ----------
    params : ID3Params
    X : array-like (n_samples, n_features) of int codes
    unseen : {"node", "error"}

    Returns
    -------
    jax.Array (n_samples,) int32 node indices.

    Example
    -------
    >>> from jaxclassic.datasets import load_play_tennis
    >>> X, y = load_play_tennis(return_X_y=True)
    >>> apply_id3(fit_id3(X, y), [[0, 0, 0, 0], [7, 0, 0, 0]]).tolist()  # overcast leaf; unseen outlook: root
    [1, 0]

    References
    ----------
    J. R. Quinlan (1986), Induction of decision trees, Machine Learning 1, 81-106.
    """
    return _apply(params, _check_predict_X(params, X, unseen))


def predict_proba_id3(params: ID3Params, X, *, unseen="node") -> jax.Array:
    r"""Class fractions (n, C) of the node where each row stops.

    A row follows the branch of its category at every split; at a leaf it gets the leaf's
    weighted training class fractions. With ``unseen="node"`` a category outside the
    training codes stops the walk at that node (its class fractions); ``unseen="error"``
    raises ``ValueError`` instead.

    Example
    -------
    >>> from jaxclassic.datasets import load_play_tennis
    >>> X, y = load_play_tennis(return_X_y=True)
    >>> predict_proba_id3(fit_id3(X, y), X[:2]).tolist()
    [[1.0, 0.0], [1.0, 0.0]]
    """
    return params.value[apply_id3(params, X, unseen=unseen)]


def predict_id3(params: ID3Params, X, *, unseen="node") -> jax.Array:
    """Class codes (n,): the arg-max of :func:`predict_proba_id3` (ties: lowest code).

    Example
    -------
    >>> from jaxclassic.datasets import load_play_tennis
    >>> X, y = load_play_tennis(return_X_y=True)
    >>> bool((predict_id3(fit_id3(X, y), X) == y).all())
    True

    References
    ----------
    T. M. Mitchell (1997), Machine Learning, ch. 3.
    """
    return jnp.argmax(predict_proba_id3(params, X, unseen=unseen), axis=-1).astype(jnp.int32)


_api.predict.register(ID3Params, predict_id3)
_api.predict_proba.register(ID3Params, predict_proba_id3)
_api.apply.register(ID3Params, apply_id3)
_api.feature_importances.register(ID3Params, _feature_importances)
