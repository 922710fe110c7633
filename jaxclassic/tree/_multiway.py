r"""Shared pieces of the multiway trees (ID3, C4.5): code checks, weighted contingency tables,
host-side node storage, the array walks of prediction, subtree compaction, and Quinlan's
pessimistic pruning (:func:`upper_error_bound`, :func:`pessimistic_prune`; re-exported by
:mod:`jaxclassic.tree.c45`), which applies to either kind of tree.

Layout (one for :class:`~jaxclassic.tree.id3.ID3Params` and
:class:`~jaxclassic.tree.c45.C45Params`): ``M`` nodes numbered in pre-order (a parent's
index is always smaller than its children's), ``children`` is an ``(M, K)`` table with
``-1`` for "no child", ``K`` the largest number of branches of any node (at least 2).

The per-node statistics (weighted class counts per feature value, the gains) are computed by
jitted JAX functions on full-length weight vectors (the node's weights, zero for rows that do
not reach it), so their shapes depend only on the data's shape: one compilation per fit shape.
The recursion over nodes runs in Python on the host (DESIGN.md allows host growth for
multiway trees).
"""

from __future__ import annotations

from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
from jax.scipy.special import betainc

from jaxclassic import _jit
from jaxclassic.information import entropy
from jaxclassic.validation import check_array, check_scalar, is_traced

MAX_CATEGORIES = 256


# --------------------------------------------------------------------------- input checks
def check_codes(codes: np.ndarray, name: str, columns=None) -> None:
    """Integer category codes ``0..255`` in the given columns (NaN allowed: missing).

    ``codes`` is a float or int numpy array (n, F). Raises ``ValueError`` naming ``name``,
    the column and the offending value.
    """
    cols = range(codes.shape[1]) if columns is None else columns
    for f in cols:
        col = codes[:, f]
        known = col[~np.isnan(col)] if col.dtype.kind == "f" else col
        if known.size == 0:
            continue
        if col.dtype.kind == "f":
            bad = known != np.round(known)
            if bad.any():
                raise ValueError(
                    f"{name}[:, {f}] is categorical and must hold integer codes, got {known[bad][0].item()!r}"
                )
        if known.min() < 0:
            raise ValueError(f"{name}[:, {f}] must hold category codes >= 0, got {known.min().item()!r}")
        if known.max() >= MAX_CATEGORIES:
            raise ValueError(
                f"{name}[:, {f}] has more than {MAX_CATEGORIES} categories (code {int(known.max())}); "
                f"at most {MAX_CATEGORIES} categories (codes 0..{MAX_CATEGORIES - 1}) are supported"
            )


def resolve_n_categories(n_categories, codes: np.ndarray, weight: np.ndarray, columns) -> np.ndarray:
    """Categories known per column: given, or ``max + 1`` over rows of positive weight.

    Inferring from positive-weight rows only keeps zero-weight rows without influence.
    Returns an int32 array over all columns (0 for columns not in ``columns``).
    """
    n_features = codes.shape[1]
    out = np.zeros(n_features, dtype=np.int32)
    if n_categories is None:
        rows = codes[weight > 0]
        for f in columns:
            col = rows[:, f]
            col = col[~np.isnan(col)] if col.dtype.kind == "f" else col
            out[f] = int(col.max()) + 1 if col.size else 1
        return out
    if np.ndim(n_categories) == 0:
        values = {f: n_categories for f in columns}
    else:
        seq = list(n_categories)
        if len(seq) != n_features:
            raise ValueError(f"n_categories must be an int or have {n_features} entries, got {len(seq)}")
        values = {f: seq[f] for f in columns}
    for f, k in values.items():
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
            raise TypeError(f"n_categories must hold ints, got {type(k).__name__} {k!r}")
        if not 1 <= k <= MAX_CATEGORIES:
            raise ValueError(
                f"n_categories[{f}] must be in [1, {MAX_CATEGORIES}] (more than {MAX_CATEGORIES} "
                f"categories are not supported), got {k}"
            )
        col = codes[:, f]
        col = col[~np.isnan(col)] if col.dtype.kind == "f" else col
        if col.size and col.max() >= k:
            raise ValueError(f"X[:, {f}] holds code {int(col.max())} but n_categories[{f}]={k}")
        out[f] = k
    return out


# --------------------------------------------------------------------------- statistics (JAX)
@partial(_jit.jit, static_argnames=("n_bins", "n_classes"))
def contingency(codes, y, weight, n_bins: int, n_classes: int):
    """Weighted counts ``table[f, v, k] = sum_i w_i [x_if = v][y_i = k]`` of shape (F, n_bins, C)."""
    n_features = codes.shape[1]
    index = (jnp.arange(n_features)[None, :] * n_bins + codes) * n_classes + y[:, None]
    w = jnp.broadcast_to(weight[:, None], index.shape)
    table = jax.ops.segment_sum(w.ravel(), index.ravel(), n_features * n_bins * n_classes)
    return table.reshape(n_features, n_bins, n_classes)


def gain_from_table(table):
    r"""Information gain (bits) of each feature from its (F, V, C) table of known values.

    .. math:: \mathrm{Gain}(S, A) = H(S) - \sum_v \frac{|S_v|}{|S|} H(S_v).
    """
    class_totals = jnp.sum(table, axis=1)                         # (F, C)
    n_value = jnp.sum(table, axis=2)                              # (F, V)
    n_known = jnp.sum(n_value, axis=1)                            # (F,)
    child = jnp.sum(n_value * entropy(table, axis=-1), axis=1)    # sum_v |S_v| H(S_v)
    safe = jnp.where(n_known > 0, n_known, 1.0)
    return entropy(class_totals, axis=-1) - child / safe, n_value, n_known


# --------------------------------------------------------------------------- host-side node store
class NodeStore:
    """Nodes appended in pre-order; ``pack`` turns them into the (M, ...) arrays."""

    def __init__(self, n_classes: int):
        self.n_classes = n_classes
        self.rows: list[dict] = []

    def add(self, parent: int, slot: int, **fields) -> int:
        index = len(self.rows)
        fields.setdefault("children", [])
        fields.setdefault("fractions", [])
        self.rows.append(fields)
        if parent >= 0:
            kids = self.rows[parent]["children"]
            kids[slot] = index
        return index

    def pack(self, dtype):
        rows = self.rows
        n_nodes = len(rows)
        width = max([2] + [len(r["children"]) for r in rows])
        children = np.full((n_nodes, width), -1, dtype=np.int32)
        fractions = np.zeros((n_nodes, width), dtype=dtype)
        for t, r in enumerate(rows):
            children[t, : len(r["children"])] = r["children"]
            fractions[t, : len(r["fractions"])] = r["fractions"]

        def column(key, default, dt):
            return np.array([r.get(key, default) for r in rows], dtype=dt)

        return dict(
            feature=column("feature", -1, np.int32),
            threshold=column("threshold", np.nan, dtype),
            children=children,
            branch_fraction=fractions,
            value=np.stack([r["value"] for r in rows]).astype(dtype),
            weighted_n_node_samples=column("weight", 0.0, dtype),
            n_node_samples=column("n_samples", 0, np.int32),
            is_leaf=column("is_leaf", True, bool),
            depth=column("depth", 0, np.int32),
            gain=column("gain", np.nan, dtype),
            gain_ratio=column("gain_ratio", np.nan, dtype),
            n_nodes=np.int32(n_nodes),
        )


def compact(params, is_leaf: np.ndarray):
    """Drop the descendants of nodes made leaves (``is_leaf``), renumbering in pre-order.

    Works on any multiway params NamedTuple whose per-node fields have leading size ``M``.
    Nodes made leaves get ``feature = -1``, no children, and NaN split statistics.
    """
    host = {k: np.asarray(v) for k, v in params._asdict().items()}
    n_nodes = int(host["n_nodes"])
    children = host["children"]
    order, stack = [], [0]
    while stack:
        t = stack.pop()
        order.append(t)
        if not is_leaf[t]:
            stack.extend(int(c) for c in children[t][::-1] if c >= 0)
    order = np.array(order, dtype=np.int64)
    new_index = np.full(n_nodes, -1, dtype=np.int32)
    new_index[order] = np.arange(order.size, dtype=np.int32)
    out = {}
    for key, arr in host.items():
        out[key] = arr[order] if (arr.ndim >= 1 and arr.shape[0] == n_nodes and key != "n_categories"
                                  and key != "categorical") else arr
    leaf = is_leaf[order]
    kids = out["children"]
    out["children"] = np.where(leaf[:, None] | (kids < 0), -1, new_index[np.clip(kids, 0, None)]).astype(np.int32)
    out["is_leaf"] = leaf.copy()
    out["feature"] = np.where(leaf, -1, out["feature"]).astype(np.int32)
    for key in ("threshold", "gain", "gain_ratio"):
        if key in out:
            out[key] = np.where(leaf, np.nan, out[key])
    if "branch_fraction" in out:
        out["branch_fraction"] = np.where(leaf[:, None], 0.0, out["branch_fraction"])
    out["n_nodes"] = np.int32(order.size)
    return type(params)(**{k: jnp.asarray(v) for k, v in out.items()})


def training_errors(params) -> tuple[np.ndarray, np.ndarray]:
    """Per node: training weight ``N_t`` and errors of the node as a leaf ``E_t = N_t - max_k n_tk``."""
    n = np.asarray(params.weighted_n_node_samples, dtype=np.float64)
    counts = np.asarray(params.value, dtype=np.float64) * n[:, None]
    return n, n - counts.max(axis=1)


@_jit.jit
def feature_importances(params) -> jax.Array:
    r"""Normalised total weighted gain per feature of a multiway tree (ID3 / C4.5).

    .. math:: I_j = \frac{\sum_{t:\, f_t = j} W_t\, \mathrm{gain}_t}
                        {\sum_{t\ \mathrm{internal}} W_t\, \mathrm{gain}_t}

    over the internal nodes :math:`t` (``W_t`` = ``weighted_n_node_samples``, ``gain_t`` = the
    node's stored ``gain`` in bits). For ID3, :math:`W_t\,\mathrm{Gain}(S_t, A) = W_t H(S_t) -
    \sum_v W_{t,v} H(S_{t,v})`: the weighted entropy decrease, scikit-learn's
    ``feature_importances_`` with ``criterion="entropy"`` carried to multiway splits. For
    C4.5, ``gain_t`` is the gain the split was chosen by: the known-weight factor
    :math:`N_K/N` and, for a threshold, the :math:`\log_2(\#\mathrm{cuts})/N` charge
    included. A tree without splits (or of zero total gain) gives zeros.
    """
    n_features = params.n_categories.shape[0]
    internal = ~params.is_leaf & (params.feature >= 0) & (jnp.arange(params.feature.shape[0]) < params.n_nodes)
    contrib = jnp.where(internal, params.weighted_n_node_samples * jnp.nan_to_num(params.gain), 0)
    imp = jnp.zeros((n_features,), contrib.dtype).at[jnp.where(internal, params.feature, n_features)].add(
        contrib, mode="drop")
    total = jnp.sum(imp)
    return jnp.where(total > 0, imp / jnp.where(total > 0, total, 1), 0)


# --------------------------------------------------------------------------- prediction walks (JAX)
def hard_walk(feature, children, is_leaf, n_categories, x):
    """Node where one row of codes ``x`` (F,) stops: a leaf, or the internal node whose
    category for ``x`` is unknown (outside ``0..n_categories[f]-1``)."""
    width = children.shape[1]

    def body(state):
        node, _ = state
        f = jnp.maximum(feature[node], 0)
        code = x[f]
        known = (code >= 0) & (code < n_categories[f])
        child = jnp.where(known, children[node, jnp.clip(code, 0, width - 1)], -1)
        stop = child < 0
        nxt = jnp.where(stop, node, child)
        return nxt, stop | is_leaf[nxt]

    node, _ = jax.lax.while_loop(lambda s: ~s[1], body, (jnp.int32(0), is_leaf[0]))
    return node


def soft_reach(params, x):
    r"""Fraction of one row ``x`` (F,) reaching each node (M,), Quinlan's rule for unknowns.

    At a split on a known value the row follows its branch; on a missing value (NaN, or a
    category outside ``0..n_categories[f]-1``) it goes down every branch ``b`` with the
    training fraction :math:`p_b` (``branch_fraction``). The reach of a node is the product
    of the branch weights on its path; iterated ``max(depth)`` times from the root.
    """
    feature, children, threshold = params.feature, params.children, params.threshold
    n_nodes, width = children.shape
    f = jnp.maximum(feature, 0)
    v = x[f]
    continuous = ~jnp.isnan(threshold)
    missing = jnp.isnan(v)
    v0 = jnp.where(missing, 0, v)
    code = jnp.where(continuous, jnp.where(v0 <= threshold, 0, 1), v0.astype(jnp.int32))
    known = ~missing & (continuous | ((code >= 0) & (code < params.n_categories[f])))
    onehot = (jnp.arange(width)[None, :] == code[:, None]).astype(params.branch_fraction.dtype)
    route = jnp.where(known[:, None], onehot, params.branch_fraction)   # (M, K)
    parent, slot = parents(children)
    edge = route[parent, slot]
    is_root = jnp.arange(n_nodes) == 0

    def step(_, reach):
        return jnp.where(is_root, 1.0, reach[parent] * edge)

    reach0 = is_root.astype(route.dtype)
    return jax.lax.fori_loop(0, jnp.max(params.depth), step, reach0)


def parents(children):
    """Parent index and branch slot of every node (the root gets 0, 0)."""
    n_nodes, width = children.shape
    target = jnp.where(children >= 0, children, n_nodes).ravel()
    parent = jnp.zeros(n_nodes, jnp.int32).at[target].set(
        jnp.repeat(jnp.arange(n_nodes, dtype=jnp.int32), width), mode="drop")
    slot = jnp.zeros(n_nodes, jnp.int32).at[target].set(
        jnp.tile(jnp.arange(width, dtype=jnp.int32), n_nodes), mode="drop")
    return parent, slot


# --------------------------------------------------------------------------- pessimistic pruning (Quinlan 1993 ch. 4)
_COLLAPSE_TOLERANCE = 1e-3   # C4.5 / J48: collapse when subtree errors >= leaf errors - 1e-3
_PRUNE_SLACK = 0.1           # C4.5 / J48: prune when leaf estimate <= subtree estimate + 0.1


@_jit.jit
def _upper_bound(n_errors, n_samples, confidence_factor):
    a = n_errors + 1.0
    b = n_samples - n_errors
    degenerate = b <= 0
    b = jnp.where(degenerate, 1.0, b)
    target = 1.0 - confidence_factor

    def bisect(_, bracket):
        lo, hi = bracket
        mid = 0.5 * (lo + hi)
        below = betainc(a, b, mid) < target
        return jnp.where(below, mid, lo), jnp.where(below, hi, mid)

    zeros = jnp.zeros(jnp.broadcast_shapes(a.shape, b.shape, jnp.shape(target)), a.dtype)
    lo, hi = jax.lax.fori_loop(0, 64, bisect, (zeros, zeros + 1.0))
    return jnp.where(degenerate, 1.0, 0.5 * (lo + hi))


def check_confidence_factor(confidence_factor):
    return check_scalar(confidence_factor, "confidence_factor", low=0.0, high=1.0,
                        include_low=False, include_high=False)


def upper_error_bound(n_errors, n_samples, confidence_factor=0.25) -> jax.Array:
    r"""Quinlan's pessimistic error rate :math:`U_{CF}(E, N)`, the exact binomial upper limit.

    .. math:: U_{CF}(E, N) = p \ \text{ such that } \ \sum_{j=0}^{E} \binom{N}{j} p^j (1-p)^{N-j} = CF
              \iff I_p(E + 1, N - E) = 1 - CF,

    solved by 64 bisection steps on ``jax.scipy.special.betainc`` (the beta form extends to the
    fractional counts of weighted cases). :math:`E = 0` gives :math:`1 - CF^{1/N}`;
    :math:`E \ge N` (and :math:`N = 0`) gives 1. Jittable and elementwise (broadcasting).

    Parameters
    ----------
    n_errors : array-like, float >= 0
        :math:`E`, the (weighted) training errors of the leaf.
    n_samples : array-like, float >= 0
        :math:`N`, the (weighted) training cases at the leaf.
    confidence_factor : float in (0, 1)
        CF; 0.25 as in C4.5.

    Returns
    -------
    jax.Array of the broadcast shape: the upper limit, in [0, 1].

    Example
    -------
    >>> [round(float(u), 3) for u in upper_error_bound([0, 0, 0], [6, 9, 1])]  # Quinlan 1993 p. 41
    [0.206, 0.143, 0.75]

    References
    ----------
    J. R. Quinlan (1993), C4.5: Programs for Machine Learning, §4.2.
    C. J. Clopper and E. S. Pearson (1934), Biometrika 26, 404-413 (the exact binomial limit).
    """
    if not is_traced(confidence_factor):
        check_confidence_factor(confidence_factor)
    e = check_array(n_errors, "n_errors", ndim=tuple(range(0, 8)), min_samples=0)
    n = check_array(n_samples, "n_samples", ndim=tuple(range(0, 8)), min_samples=0)
    if not (is_traced(e) or is_traced(n)):
        if (np.asarray(e) < 0).any() or (np.asarray(n) < 0).any():
            raise ValueError("n_errors and n_samples must be >= 0")
        if (np.asarray(e) > np.asarray(n) + 1e-9).any():
            raise ValueError("n_errors must be <= n_samples")
    dtype = jnp.promote_types(e.dtype, n.dtype)
    return _upper_bound(e.astype(dtype), n.astype(dtype), jnp.asarray(confidence_factor, dtype))



def _subtree_sums(is_leaf, children, leaf_value):
    """Sum of ``leaf_value`` over the leaves under every node (children have larger indices)."""
    total = np.where(is_leaf, leaf_value, 0.0).astype(np.float64)
    for t in range(len(is_leaf) - 1, -1, -1):
        if not is_leaf[t]:
            total[t] = sum(total[c] for c in children[t] if c >= 0)
    return total


def collapse_tree(params):
    """Collapse every subtree whose leaves make no fewer training errors (within 1e-3) than its root
    as a leaf (C4.5 r8, J48's ``collapseTree``); top-down, then renumbered."""
    _, errors = training_errors(params)
    is_leaf = np.asarray(params.is_leaf).copy()
    subtree = _subtree_sums(is_leaf, np.asarray(params.children), errors)
    is_leaf |= subtree >= errors - _COLLAPSE_TOLERANCE
    return compact(params, is_leaf) if (is_leaf != np.asarray(params.is_leaf)).any() else params


def pessimistic_prune(params, confidence_factor=0.25):
    r"""Quinlan's pessimistic subtree replacement of a fitted C4.5 (or ID3) tree.

    Bottom-up, a subtree rooted at :math:`t` becomes a leaf when

    .. math:: N_t\,U_{CF}(E_t, N_t) \;\le\; \sum_{l \in \text{leaves}(t)} N_l\,U_{CF}(E_l, N_l) + 0.1,

    with :math:`N` the training weight and :math:`E = N - \max_k n_k` the training errors of
    a node as a leaf, and :math:`U_{CF}` from :func:`upper_error_bound` (exact binomial
    limit). Runs on the host; the result is renumbered (pruned descendants removed).

    Parameters
    ----------
    params : C45Params or ID3Params
    confidence_factor : float in (0, 1)

    Returns
    -------
    The pruned params, of the same type.

    Example
    -------
    >>> import numpy as np
    >>> from jaxclassic.tree.c45 import fit_c45
    >>> X = np.repeat([0.0, 1.0, 2.0], [6, 9, 1])[:, None]; y = np.repeat([0, 0, 1], [6, 9, 1])
    >>> full = fit_c45(X, y, categorical=True, prune=False)
    >>> int(full.n_nodes), int(pessimistic_prune(full).n_nodes)  # Quinlan 1993 p. 41
    (4, 1)

    References
    ----------
    J. R. Quinlan (1993), C4.5: Programs for Machine Learning, §4.2.
    """
    confidence_factor = float(check_confidence_factor(confidence_factor))
    n, errors = training_errors(params)
    upper = np.asarray(_upper_bound(jnp.asarray(errors), jnp.asarray(n), jnp.asarray(confidence_factor)))
    estimate = np.where(n > 0, n * upper, 0.0)
    estimate = np.maximum(estimate, errors)
    is_leaf = np.asarray(params.is_leaf).copy()
    children = np.asarray(params.children)
    tree_estimate = np.where(is_leaf, estimate, 0.0)
    for t in range(int(params.n_nodes) - 1, -1, -1):
        if is_leaf[t]:
            continue
        tree_estimate[t] = sum(tree_estimate[c] for c in children[t] if c >= 0)
        if estimate[t] <= tree_estimate[t] + _PRUNE_SLACK:
            is_leaf[t] = True
            tree_estimate[t] = estimate[t]
    return compact(params, is_leaf) if (is_leaf != np.asarray(params.is_leaf)).any() else params
