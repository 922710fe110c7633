r"""The histogram engine: level-wise growth of a binary tree from binned features and
generic per-row statistics (class counts, moments of y, gradient pairs).

Every criterion is a *node loss* :math:`L(s)` of the summed statistics :math:`s` of a node,
and the gain of splitting a parent :math:`P` into :math:`(L, R)` is

.. math:: \Delta(P \to L, R) = L(s_P) - L(s_L) - L(s_R) - \gamma .

With :math:`L(s) = W(s)\,i(s)` (weight times impurity) this is CART's weighted impurity
decrease (Breiman et al. 1984, §4.2; ESL §9.2.3):

* ``gini``: :math:`i = 1 - \sum_k p_k^2`;
* ``entropy``: :math:`i = -\sum_k p_k \log_2 p_k` (bits, as scikit-learn's ``tree_.impurity``);
* ``misclassification``: :math:`i = 1 - \max_k p_k`;
* ``squared_error`` (stats :math:`[w, wy, wy^2]`): :math:`W i = \sum wy^2 - (\sum wy)^2/W`;
* gradient pairs (stats :math:`[g, h]`, XGBoost, Chen & Guestrin 2016, eq. 7):
  :math:`L = -\tfrac12 G^2/(H+\lambda)` and :math:`\gamma` the split penalty, so
  :math:`\Delta = \tfrac12[G_L^2/(H_L+\lambda) + G_R^2/(H_R+\lambda) - G^2/(H+\lambda)] - \gamma`.

One level (Ke et al. 2017): (1) the histograms of ``[stats, count]`` per (node, feature, bin)
of the nodes to split are known (the root's from one pass); (2) the split search is a
cumulative sum over the bins, tried twice — the missing bin on the right and on the left (the
learned default side, ``missing_left``) — the gains vectorised over
(feature, node, bin, side) and an argmax per node; (3) the chosen splits are compacted into
``W`` slots by a cumsum ranking and the rows' node index updated by one gather (of a
per-node table, then of the row's code); (4) the histograms of the new children come from
ONE pass over the rows of the *smaller* child of each split and their siblings by
subtraction from the parent's histogram (no pass at all for the children of the last level:
they are leaves). The pass: the rows of the smaller children (at most half the counted rows)
are compacted, in row order, into a fixed buffer of ``n/2`` (a running count by a blocked
scan: ``jnp.cumsum`` is slow on XLA:CPU); then, over only the chunks of ``n/16`` rows that hold
some (a loop of dynamic length: the work follows the rows, 15-35% of ``n`` per level on
real data rather than ``n``), per feature one scatter-add into that feature's ``W·B``
sums (small enough for the cache; codes feature-major ``(F, n)``: the measured fastest
kernel, ``shared/notes/histogram-kernel.md``), every index in range so that no row costs a
bounds branch (a scatter that drops the rows outside the smaller children mispredicts on
every other row: 3x slower). The sums per (feature, bin) are taken in row order, as one
``segment_sum`` over all rows would. Split search and children histograms run over only
the live candidates of the level, ``_SPLIT_CHUNK`` at a time (a loop of dynamic length), so
their cost does not follow the width ``2W`` of the level's arrays; the search visits only
the candidates that the stopping rules leave open, and a split whose two children will be
leaves (pure, too small, at the depth cap) sends no row to the histogram pass: half of a
tree's nodes are leaves, and a node's search costs ``O(F·B)`` whatever its rows
(DecisionTreeRegressor on diabetes, 635 nodes: 34 -> 23 ms of device time, 2026-11-29).

Layout and cost. The split search reads histograms bins first, ``(B + 1, S + 1, F, C)``: the
cumulative sum over the bins is a scan of whole ``(S + 1, F, C)`` planes and each statistic
is one contiguous plane, and the criteria are written on lists of planes (``plane_loss``),
so the gains of all (bin, side, feature, candidate) are one fused elementwise loop, the best
split a max and a min-index reduction (10-20x faster than a stats-last layout with
``argmax``). Levels run in one ``while_loop`` whose arrays have the width ``2W`` of the
widest level, and no level's work follows that width: the split search and the children's
histograms run over the live candidates (above), and the histograms live in one buffer
``(2, 2W, F, B + 1, S + 1)`` carried by the loop, a level's candidates in one half and its
children written into the other, which nothing zeroes (entries past the live candidates are
stale; nobody reads them), as the scratch of the smaller children's sums ``(F, W, B + 1,
S + 1)`` has only its live slots zeroed. The buffer is candidate-major and the scratch
slot-major within a feature, so that a level reads a parent's histogram, writes a child's
and copies a smaller child's sums as contiguous blocks; a chunk of candidates is moved into
the search's bins-first layout once, and with ``max_features < F`` only the drawn features'
blocks are (the search's work is then ``max_features / F`` of all: 5 of 30 in a forest on
breast_cancer). With the candidates on the minor axis (until 2026-11) a level read one value
in every ``2W`` of the buffer: RandomForestClassifier(100) on breast_cancer took 1.51 s warm,
0.58 s candidate-major with the drawn features alone. (Until
2026-11 levels ran in phases of widths 16, 256, ``2W``, one compiled body each, because a
level zeroed buffers of its whole width: a single tree on 256 x 5 compiled 594 HLO
computations in 4.3 s, one body 250 in 2.0 s; on 200 x 30, 107 ms a fit with phases, 152 ms
in one phase before the zeroing went, 75 ms after; 2-core CPU.)

Drawn features. With ``max_features = k`` at most ``F/2`` (forests' ``"sqrt"`` and ``"p/3"``)
the histograms hold only each node's ``k`` drawn features, ``(2, 2W, k, B + 1, S + 1)``: a
level draws its children's features when it builds their histograms, and builds each child's
from the child's own rows (:func:`_hist_rows_drawn`: ``k`` scatter-adds per row, into blocks
zeroed for the live children only), with no parent histogram and no subtraction; sibling
subtraction would need every feature of the parent (``F`` against ``k``: 30 against 5 on
breast_cancer). The draws are a counter hash of the tree's key, the level and the node's slot
(:func:`_level_uniform`), so a node's draws do not depend on the width ``W``.
RandomForestClassifier(100) on breast_cancer: 0.58 s warm subtracting, 0.33 s drawn, 0.26 s
with the hashed draws (``jax.random.uniform`` of ``(2W, F)`` a level: 80-150 us).

scikit-learn's stopping rules: a node is a leaf when its depth is ``max_depth``, it has fewer
than ``min_samples_split`` (or ``2·min_samples_leaf``) rows, weight below
``2·min_weight_leaf``, it is pure (impurity criteria: see below), no
split leaves ``min_samples_leaf`` rows and ``min_weight_leaf`` weight on each side, or the
best gain divided by the root's weight (``normalise``) is below ``min_impurity_decrease``
(:math:`\frac{N_t}{N}(i_t - \frac{N_L}{N_t} i_L - \frac{N_R}{N_t} i_R)`). Rows are counted
when their ``count`` is positive (rows of weight 0 have none: no influence at all).

Purity. The statistics of the larger child are its parent's minus its sibling's, so a class
absent from a node can hold :math:`\pm 10^{-16}` of weight (non-integer weights) and the
impurity of a pure node comes out :math:`\sim 10^{-15} > \varepsilon`: scikit-learn's rule
(impurity :math:`\le \varepsilon`) then splits pure nodes with zero gain (it does so itself).
The class-count criteria call a node pure when at most one class has weight above half the
least positive row weight :math:`w_{min}` (a class present has at least :math:`w_{min}`; the
subtraction noise is ~:math:`\varepsilon` times the ancestors' weights, far below
:math:`w_{min}/2` unless the weights span ~:math:`1/\varepsilon`), or impurity
:math:`\le \varepsilon`; with integer weights the sums are exact and this is scikit-learn's
rule. ``squared_error`` calls a node pure when its within-node sum of squares is at most
:math:`4\varepsilon` times the root's (a scale-free rule: scikit-learn's absolute
:math:`i \le \varepsilon` makes a one-leaf tree of any target of scale :math:`10^{-9}`).
Splits of zero gain in impure nodes are kept (scikit-learn and XOR need them).

Small regression trees on a CPU grow by the sorted engine instead (:mod:`jaxclassic.tree._sorted`,
the same trees; ``use_sorted`` says when): a level there costs ``O(F·n·S)`` whatever its nodes.

Categorical splits (issue 28; ``grow(..., categorical=mask)``). The bins of a categorical
feature are its category codes, and a split sends a *set* of them left. At each node the
feature's non-empty categories are ordered by a statistic of their sums (the criterion's
``category_key``): the fraction of the second class (two classes), the mean target (squared
error), :math:`G / (H + \lambda)` (gradient pairs, LightGBM's and scikit-learn's
HistGradientBoosting's order with ``reg_lambda`` as the smoothing); with more classes, the
fraction of the node's most frequent class (one-vs-rest: a heuristic, no longer exact). The
order is a permutation of the histogram's bins per (node, feature) applied before the
cumulative sum (:func:`_order_categories`), the identity for numeric features, so the same
scan, missing sides, validity rules and tie rule then score every prefix of the order: the
best partition is such a prefix for squared error and for any concave impurity of two classes
(Fisher 1958; Breiman et al. 1984, §9.4), so those searches are exact, ``k - 1`` prefixes
instead of :math:`2^{k-1} - 1` partitions. The split stores its prefix position in
``threshold_bin`` and the codes going left in ``Grown.left_categories`` ``(M, B)``; the
categories absent from the node (and so every code unseen at fit time) go with the missing
values (``missing_left``), which is how prediction routes unknown categories. The rows are
routed by the set (one more gather per level). Without ``categorical`` nothing of this is
traced: numeric fits compile the programs they compiled before, bit for bit. Not with
``axis_name`` (the devices' blocks of features), and the sorted engine has no categorical
split (callers keep the histogram engine).

Width: at most ``W`` nodes split per level (static). When more would, the first ``W`` in node
order split and the others stay leaves (``truncated``); likewise when the node budget ``M``
is full. Nodes are numbered in creation order, level by level; a split's children are
consecutive (left, right).

References
----------
L. Breiman, J. Friedman, R. Olshen, C. Stone, *Classification and Regression Trees*, 1984.
T. Hastie, R. Tibshirani, J. Friedman, *The Elements of Statistical Learning*, 2nd ed., §9.2.
G. Ke et al., "LightGBM: A Highly Efficient Gradient Boosting Decision Tree", NeurIPS 2017.
T. Chen, C. Guestrin, "XGBoost: A Scalable Tree Boosting System", KDD 2016.
W. D. Fisher, "On grouping for maximum homogeneity", JASA 53 (1958) (the ordered-categories theorem).
"""

from __future__ import annotations

import functools
import math
import operator
from dataclasses import dataclass
from typing import NamedTuple

import jax
import jax.numpy as jnp
from jax.custom_batching import custom_vmap
from jax.scipy.special import xlogy

from jaxclassic.tree import _hist_pallas

__all__ = [
    "Gini",
    "Entropy",
    "Misclassification",
    "SquaredError",
    "GradientPair",
    "CRITERIA",
    "Grown",
    "grow",
    "histogram_buffers",
    "histograms",
]


def _safe(w):
    return jnp.where(w > 0, w, 1)


def _planes(s):
    """The statistics of ``s`` (last axis) as a list of arrays: the criteria are written on
    such lists so that XLA fuses them into plain elementwise loops (a reduction over a short
    minor axis of 2-3 statistics is not vectorised: 10x slower in the split search)."""
    return [s[..., k] for k in range(s.shape[-1])]


def _total(planes):
    return functools.reduce(operator.add, planes)


# --------------------------------------------------------------------------- criteria
@dataclass(frozen=True)
class Gini:
    """Gini impurity of weighted class counts: :math:`L = W - \\sum_k c_k^2 / W`.

    Every criterion defines its node loss and weight on a list of statistic arrays
    (``plane_loss``, ``plane_weight``); ``node_loss`` and ``weight`` take the stacked ``s``.
    """

    stop_when_pure: bool = True
    #: how :meth:`purity_reference` combines across devices (:func:`_across`)
    purity_across: str = "min"
    normalise: bool = True
    #: at a node no counted row reaches with the split feature missing, send NaN right
    #: (xgboost) instead of to the child with more rows (scikit-learn)
    unseen_missing_right: bool = False

    def plane_loss(self, p, params=()):
        w = _total(p)
        return w - _total([c * c for c in p]) / _safe(w)

    def plane_weight(self, p, params=()):
        return _total(p)

    def node_loss(self, s, params=()):
        return self.plane_loss(_planes(s), params)

    def weight(self, s, params=()):
        return self.plane_weight(_planes(s), params)

    def impurity(self, s, params=()):
        w = self.weight(s, params)
        return jnp.where(w > 0, self.node_loss(s, params) / _safe(w), 0)

    def penalty(self, params=()):
        return 0.0

    def purity_reference(self, stats, positive, params=()):
        """The scale of :meth:`is_pure`: the least positive row weight ``w_min``."""
        return jnp.min(jnp.where(positive, self.weight(stats, params), jnp.inf))

    def category_key(self, p, pp, params=()):
        """The order of a categorical feature's categories at a node (module docstring,
        "Categorical splits"): the fraction of one class in each category, ``p`` the
        category planes ``(B, F, C)`` per class, ``pp`` the node's class weights ``(C,)`` per
        class. Two classes: the second's fraction (Breiman et al. 1984, §9.4: the best
        partition is a prefix of this order for every concave impurity); more: the fraction
        of the node's most frequent class (one-vs-rest, a heuristic)."""
        w = _safe(_total(p))
        if len(p) <= 2:
            return p[-1] / w
        major = jnp.argmax(jnp.stack(pp, 0), axis=0)  # (C,)
        share = functools.reduce(lambda acc, k: jnp.where(major == k, p[k], acc), range(len(p)), p[0])
        return share / w

    def is_pure(self, s, impurity, ref, eps):
        """Pure node: at most one class of weight above ``ref / 2`` (``ref = w_min``, the least
        positive row weight), or impurity ``<= eps``. A class absent from the node can hold
        ``±1e-16`` after sibling subtraction (``parent - sibling``), so ``impurity <= eps``
        alone misses pure nodes of non-integer weights; a class present holds at least
        ``w_min``."""
        present = jnp.sum(s > ref / 2, axis=-1)
        return (present <= 1) | (impurity <= eps)


@dataclass(frozen=True)
class Entropy(Gini):
    """Shannon entropy in bits of weighted class counts: :math:`L = -\\sum_k c_k \\log_2(c_k/W)`."""

    def plane_loss(self, p, params=()):
        p = [jnp.maximum(c, 0) for c in p]  # sibling subtraction can leave -1e-17 where a class is absent
        w = _safe(_total(p))
        return -_total([xlogy(c, c / w) for c in p]) / jnp.log(2.0).astype(p[0].dtype)


@dataclass(frozen=True)
class Misclassification(Gini):
    """Misclassification rate of weighted class counts: :math:`L = W - \\max_k c_k`."""

    def plane_loss(self, p, params=()):
        return _total(p) - functools.reduce(jnp.maximum, p)


@dataclass(frozen=True)
class SquaredError(Gini):
    """Within-node sum of squares of stats ``[w, w y, w y^2]``: :math:`L = \\sum wy^2 - (\\sum wy)^2/W`."""

    purity_across: str = "sum"

    def plane_loss(self, p, params=()):
        return p[2] - p[1] ** 2 / _safe(p[0])

    def plane_weight(self, p, params=()):
        return p[0]

    def impurity(self, s, params=()):
        w = s[..., 0]
        return jnp.where(w > 0, jnp.maximum(self.node_loss(s), 0) / _safe(w), 0)

    def category_key(self, p, pp, params=()):
        """Categories ordered by their mean target (Fisher 1958: exact for squared error)."""
        return p[1] / _safe(p[0])

    def purity_reference(self, stats, positive, params=()):
        """The scale of :meth:`is_pure`: the root's :math:`\\sum_i w_i y_i^2` (y centred)."""
        return jnp.sum(jnp.where(positive, stats[:, 2], 0))

    def is_pure(self, s, impurity, ref, eps):
        """Pure node: within-node sum of squares :math:`\\le 4\\varepsilon` times the root's
        (``ref``): scale-free, where scikit-learn's impurity :math:`\\le \\varepsilon` calls a
        root with targets of scale 1e-9 pure (a one-leaf tree)."""
        return self.node_loss(s) <= 4 * eps * ref


@dataclass(frozen=True)
class GradientPair(Gini):
    """Gradient-pair statistics ``[g, h]`` with ``params = (reg_lambda, gamma)``:
    :math:`L = -\\tfrac12 G^2/(H + \\lambda)`, split penalty :math:`\\gamma`, weight :math:`H`
    (so ``min_weight_leaf`` is XGBoost's ``min_child_weight``); impurity 0; gains not normalised."""

    stop_when_pure: bool = False
    normalise: bool = False

    def plane_loss(self, p, params=(1.0, 0.0)):
        return -0.5 * p[0] ** 2 / (p[1] + params[0])

    def plane_weight(self, p, params=()):
        return p[1]

    def node_loss(self, s, params=(1.0, 0.0)):
        return self.plane_loss(_planes(s), params)

    def impurity(self, s, params=()):
        return jnp.zeros(s.shape[:-1], s.dtype)

    def penalty(self, params=(1.0, 0.0)):
        return params[1]

    def category_key(self, p, pp, params=(1.0, 0.0)):
        """Categories ordered by :math:`G / (H + \\lambda)` (LightGBM's and scikit-learn's
        HistGradientBoosting's order, with ``reg_lambda`` as the smoothing)."""
        return p[0] / _safe(p[1] + params[0])


CRITERIA = {
    "gini": Gini(),
    "entropy": Entropy(),
    "misclassification": Misclassification(),
    "squared_error": SquaredError(),
}


# --------------------------------------------------------------------------- result
class Grown(NamedTuple):
    """A grown tree (``M`` slots) with its per-node summed statistics.

    ``node_stats`` is ``(M, S + 1)``: the summed ``stats`` of the rows of each node, then
    their count (the last column); callers turn it into leaf values (class fractions, means,
    :math:`-G/(H+\\lambda)`). ``row_node`` is the leaf of every training row. ``truncated``
    says that some node wanted to split but the width ``W`` or the budget ``M`` was full.
    ``left_bin`` and ``right_bin`` locate a split inside its node: the node's last bin at or
    left of ``threshold_bin`` and its first bin right of it that hold a counted row on the
    split feature (``-1`` and ``n_bins`` where there is none: only missing values on that
    side; ``-1`` at leaves), from one routing pass of the counted rows after the growth
    (:func:`_split_bins`); scikit-learn's split point lies midway between the node's values
    in those two bins (:func:`jaxclassic.tree.binning.split_points`). Every threshold from
    ``left_bin`` to ``right_bin - 1`` makes the same partition of the node. They default to
    None for callers that build a ``Grown`` themselves (no split points then: the bin edge).
    """

    children_left: jax.Array
    children_right: jax.Array
    feature: jax.Array
    threshold_bin: jax.Array
    missing_left: jax.Array
    node_stats: jax.Array
    impurity: jax.Array
    is_leaf: jax.Array
    depth: jax.Array
    n_nodes: jax.Array
    row_node: jax.Array
    truncated: jax.Array
    left_bin: jax.Array | None = None
    right_bin: jax.Array | None = None
    #: ``(M, B)`` bool, the codes each split sends left (growth with ``categorical`` only)
    left_categories: jax.Array | None = None


# --------------------------------------------------------------------------- kernel
def histograms(codes_T, stats_count, slot, n_slots, n_codes):
    """Per-(feature, slot, bin) sums of ``stats_count`` (n, S1): ``(F, n_slots, n_codes, S1)``.

    A ``lax.scan`` over the features of one ``segment_sum`` into ``n_slots·n_codes`` rows
    (on a GPU: the Pallas kernel, :func:`_hist`); rows with ``slot == n_slots`` are dropped.
    """
    hist = _hist(codes_T, stats_count, slot, n_slots, n_codes)  # (n_codes, S1, F, n_slots)
    return hist.transpose(2, 3, 0, 1)


def _hist(codes_T, stats_count, slot, n_slots, n_codes):
    """:func:`_hist_xla`, or on a GPU (or when ``JAXCLASSIC_HIST_KERNEL`` says so) its Pallas
    form (:mod:`jaxclassic.tree._hist_pallas`: one launch, atomic adds); chosen at trace time."""
    choice = _hist_pallas.kernel_choice()
    if choice != "xla":
        return _hist_pallas.hist(codes_T, stats_count, slot, n_slots, n_codes,
                                 interpret=choice == "pallas-interpret")
    return _hist_xla(codes_T, stats_count, slot, n_slots, n_codes)


def _hist_xla(codes_T, stats_count, slot, n_slots, n_codes):
    """The engine's layout of :func:`histograms`: ``(n_codes, S1, F, n_slots)``, bins first so
    that the cumulative sum over bins is a scan of whole ``(S1, F, n_slots)`` planes and every
    statistic is a contiguous plane for the gains. Every row is summed; rows with
    ``slot == n_slots`` are dropped."""
    n_features = codes_T.shape[0]
    n_out = n_codes * n_slots
    # code-major ids code·n_slots + slot; a dropped row gets an id >= n_out whatever its code
    base = jnp.where(slot < n_slots, slot.astype(jnp.int32), n_out)

    def step(_, codes):
        return None, jax.ops.segment_sum(stats_count, codes.astype(jnp.int32) * n_slots + base, n_out)

    _, out = jax.lax.scan(step, None, codes_T)  # (F, n_codes·n_slots, S1)
    return out.reshape(n_features, n_codes, n_slots, -1).transpose(1, 3, 0, 2)


def _dynamic_loop(n_loop, body, init, args):
    """``fori_loop(0, n_loop, lambda i, c: body(i, c, *args), init)`` whose batched form
    (under ``vmap``) runs the largest trip count of the batch with the body vmapped, and no
    per-step select of the carry: for bodies that are no-ops past an element's own
    ``n_loop`` (they add zeros or write entries nobody reads). ``vmap`` of a ``fori_loop``
    with a batched trip count would select the whole carry at every step (the carries
    here are histograms: megabytes per tree of a vmapped forest).
    """

    @custom_vmap
    def loop(n_loop, init, *args):
        return jax.lax.fori_loop(0, n_loop, lambda i, c: body(i, c, *args), init)

    @loop.def_vmap
    def loop_batched(axis_size, in_batched, n_loop, init, *args):
        n_batched, init_batched, *args_batched = in_batched
        if n_batched:
            n_loop = jnp.max(n_loop)
        init = jax.tree.map(lambda a, b: a if b else jnp.broadcast_to(a, (axis_size,) + a.shape),
                            init, init_batched)
        axes = [jax.tree.map(lambda b: 0 if b else None, ab) for ab in args_batched]
        step = jax.vmap(body, in_axes=(None, 0, *axes))
        out = jax.lax.fori_loop(0, n_loop, lambda i, c: step(i, c, *args), init)
        return out, jax.tree.map(lambda _: True, out)

    return loop(n_loop, init, *args)


def _hist_rows(codes_T, stats_count, slot, rows, n_used, n_slots, n_codes, n_chunks, scratch=None, n_live=None):
    """:func:`_hist_rows_xla`, or its Pallas form (:func:`_hist`'s choice of kernel).

    Returns ``(F, n_slots, n_codes, S1)``. With ``scratch`` (such a buffer of earlier sums, :func:`grow`)
    the XLA form zeroes and sums into it only the first ``n_live`` slots (the others keep
    what they held: nobody reads them), instead of a zeroed buffer of every slot."""
    choice = _hist_pallas.kernel_choice()
    if choice != "xla":
        return _hist_pallas.hist_rows(codes_T, stats_count, slot, rows, n_used, n_slots, n_codes,
                                      interpret=choice == "pallas-interpret")
    if scratch is not None:
        scratch = _zero_slots(scratch, n_live, _split_chunk())
    return _hist_rows_xla(codes_T, stats_count, slot, rows, n_used, n_slots, n_codes, n_chunks, acc=scratch)


def _zero_slots(buf, n_live, chunk):
    """``buf`` ``(F, n_slots, n_codes, S1)`` with its first ``n_live`` slots zeroed, ``chunk``
    slots a step (the cost follows ``n_live``, not ``n_slots``)."""
    n_slots = buf.shape[1]
    chunk = min(chunk, n_slots)

    def body(j, buf):  # no closed-over array: _dynamic_loop's custom_vmap traces it alone
        zeros = jnp.zeros((buf.shape[0], chunk) + buf.shape[2:], buf.dtype)
        start = jnp.asarray(jnp.minimum(j * chunk, n_slots - chunk), jnp.int32)
        return jax.lax.dynamic_update_slice(buf, zeros, (jnp.int32(0), start, jnp.int32(0), jnp.int32(0)))

    return _dynamic_loop((n_live + chunk - 1) // chunk, body, buf, ())


def _hist_rows_xla(codes_T, stats_count, slot, rows, n_used, n_slots, n_codes, n_chunks, acc=None):
    """:func:`_hist` (slot-major per feature: ``(F, n_slots, n_codes, S1)``) of the compacted rows
    ``rows`` (m,) (:func:`_compact`) only: their ``stats_count`` (m, S1) and in-range ``slot``
    (m,) given at those rows, of which the first ``n_used`` are real (the rest: zero
    statistics, spread over rows and slots).

    Work in proportion to ``n_used``: a loop over only the ``ceil(n_used / chunk)`` chunks of
    ``m / n_chunks`` rows that hold real rows (:func:`_dynamic_loop`: under ``vmap``, the
    longest of the batch; the extra chunks add zeros); per chunk, a loop over the features
    of one scatter-add of the chunk's rows into that feature's block of the
    ``(F·n_slots·n_codes, S1)`` sums (in place; a block small enough to stay in cache; the
    feature's codes gathered at ``rows``). Per (feature, bin) the rows are added in row
    order: the sums of :func:`_hist` bit for bit. Every index is in range
    (``promise_in_bounds``: no bounds branch per update; an unpredictable branch costs a
    misprediction per row). ``acc``: a ``(F, n_slots, n_codes, S1)`` buffer to add into
    (default zeros); the result is ``acc`` plus the sums. Slot-major within a feature, so that
    a child's sums are one contiguous block per feature (:func:`_children` copies blocks).
    """
    n_features = codes_T.shape[0]
    n_out = n_codes * n_slots
    chunk = rows.shape[0] // n_chunks
    n_s1 = stats_count.shape[-1]

    def body(i, acc, codes_T, stats_count, slot, rows):
        stats_i = jax.lax.dynamic_slice_in_dim(stats_count, i * chunk, chunk)
        slot_i = jax.lax.dynamic_slice_in_dim(slot, i * chunk, chunk).astype(jnp.int32)
        rows_i = jax.lax.dynamic_slice_in_dim(rows, i * chunk, chunk)

        def feature(f, acc):
            codes = codes_T[f].at[rows_i].get(mode="promise_in_bounds").astype(jnp.int32)
            return acc.at[f * n_out + slot_i * n_codes + codes].add(stats_i, mode="promise_in_bounds")

        return jax.lax.fori_loop(0, n_features, feature, acc)

    if acc is None:
        acc = jnp.zeros((n_features * n_out, n_s1), stats_count.dtype)
    else:
        acc = acc.astype(stats_count.dtype).reshape(n_features * n_out, n_s1)
    out = _dynamic_loop((n_used + chunk - 1) // chunk, body, acc, (codes_T, stats_count, slot, rows))
    return out.reshape(n_features, n_slots, n_codes, n_s1)  # transposed by _children, per chunk


def _count_before(keep, block=128):
    """Inclusive running count of ``keep`` (n,) bool, int32.

    ``jnp.cumsum`` of a long vector is slow on XLA:CPU (~7 ns per element); this is a scan
    over the ``block`` positions of ``n / block`` blocks at once, then the block offsets."""
    n = keep.shape[0]
    n_blocks = -(-n // block)
    k = jnp.pad(keep.astype(jnp.int32), (0, n_blocks * block - n)).reshape(n_blocks, block).T
    _, inner = jax.lax.scan(lambda a, r: (a + r, a + r), jnp.zeros((n_blocks,), jnp.int32), k)
    total = inner[-1]
    return (inner + (jnp.cumsum(total) - total)).T.reshape(-1)[:n]


def _compact(keep, size):
    """The indices of the rows where ``keep``, in order, in a buffer of ``size`` (static; at
    least ``sum(keep)``), and their number. The entries past it index rows ``j mod n``.

    The unkept rows are written to a spare last entry (no bounds branch per row)."""
    n = keep.shape[0]
    pos = _count_before(keep) - 1
    spread = jnp.arange(size + 1, dtype=jnp.int32) % n
    at = jnp.where(keep & (pos < size), pos, size)  # (a bound never reached: memory safety)
    idx = spread.at[at].set(jnp.arange(n, dtype=jnp.int32), mode="promise_in_bounds")
    return idx[:size], jnp.minimum(pos[-1] + 1, size)


def _feature_choice(key, level, feature_mask, n_cand, max_features):
    """(C, F) features open to each candidate node: ``feature_mask`` when all are searched;
    with ``max_features < F``, the draws ``u`` (C, F), uniform on allowed features and -1 on
    the others, of which each node searches its ``max_features`` largest (:func:`_drawn`)."""
    n_features = feature_mask.shape[0]
    allowed = jnp.broadcast_to(feature_mask, (n_cand, n_features))
    if max_features is None or max_features >= n_features:
        return allowed
    return jnp.where(allowed, _level_uniform(key, level, (n_cand, n_features)), -1.0)


def _mix32(x):
    """A 32-bit integer finaliser (Wellons' ``lowbias32``, a bijection with full avalanche)."""
    x = x ^ (x >> 16)
    x = x * jnp.uint32(0x7FEB352D)
    x = x ^ (x >> 15)
    x = x * jnp.uint32(0x846CA68B)
    return x ^ (x >> 16)


def _level_uniform(key, level, shape):
    """Uniforms on ``[0, 1)`` (24 bits) for the candidates of one level: a counter hash keyed
    by the tree's ``key`` and the level. ``jax.random.uniform(fold_in(key, level), shape)``
    runs threefry's rounds in a loop on a CPU: 80-150 us for (128, 30) a level, a third of a
    forest's level on breast_cancer; this is one fused elementwise loop. The draws only pick
    the features a node searches (no statistic is estimated from them)."""
    words = jax.random.key_data(key).astype(jnp.uint32).reshape(-1)
    seed = jnp.uint32(0x9E3779B9)
    for i in range(words.shape[0]):
        seed = _mix32(seed ^ words[i])
    seed = _mix32(seed ^ _mix32(jnp.asarray(level).astype(jnp.uint32) + jnp.uint32(0x85EBCA6B)))
    counter = jax.lax.iota(jnp.uint32, math.prod(shape)).reshape(shape)
    bits = _mix32(_mix32(counter ^ seed) + seed)
    return (bits >> 8).astype(jnp.float32) * jnp.float32(1.0 / (1 << 24))


def _drawn(u, max_features):
    """The features a node searches from its draws ``u`` (C, F) (:func:`_feature_choice`):
    ``(index (C, k), open (C, k))``, the ``k = max_features`` largest draws' features in
    increasing index order (so the tie rule's feature order holds) and whether each is
    allowed (fewer than ``k`` allowed features: all of them, the rest feature 0, closed). The
    split search then reads only these ``k`` features' histograms: its work is ``k/F`` of a
    search over every feature masked (RandomForest on breast_cancer: 5 of 30)."""
    n_cand, n_features = u.shape
    # the k-th largest draw by k - 1 removals of the maximum (a sort of (C, F), as top_k is
    # on a CPU, cost 0.3 ms a level of a forest on breast_cancer), then the chosen features'
    # indices in increasing order by a running count (ties with the k-th draw, of
    # probability ~0, would keep the first in feature order)
    rest = u
    for _ in range(max_features - 1):
        rest = jnp.where(rest == jnp.max(rest, axis=1, keepdims=True), -jnp.inf, rest)
    chosen = (u >= jnp.max(rest, axis=1, keepdims=True)) & (u >= 0)  # u < 0: not allowed
    pos = jnp.where(chosen, jnp.cumsum(chosen, axis=1) - 1, max_features)
    cand = jax.lax.broadcasted_iota(jnp.int32, u.shape, 0)
    feat = jax.lax.broadcasted_iota(jnp.int32, u.shape, 1)
    idx = jnp.zeros((n_cand, max_features), jnp.int32).at[cand, pos].set(feat, mode="drop")
    open_ = jnp.zeros((n_cand, max_features), bool).at[cand, pos].set(True, mode="drop")
    return idx, open_


#: gains within this many units of the dtype's epsilon (relative to the parent's loss plus the
#: best gain) of the best are ties, settled by the (feature, bin, side) order
TIE_ULPS = 16


def _tied(gain, best, loss_p):
    """Whether each gain ties the candidate's best: within ``TIE_ULPS`` epsilons of the scale
    ``|loss_p| + |best|``. Gains are differences of sums over the node's rows, so an exact tie
    (two splits of equal gain in exact arithmetic) comes out a few ulps apart, and which one
    is larger depends on the order of the sums: on the padded row count, the bin count, a
    ``vmap``'s batching (a first maximum on ``==`` then picks by rounding). With the tolerance
    the first in order wins, as in exact arithmetic: xgboost's rule (the lowest feature);
    scikit-learn visits the features in a random order, so its tied choice varies with
    ``random_state``. ``best`` is ``-inf`` where no split is valid: nothing ties then."""
    eps = jnp.finfo(gain.dtype).eps
    tol = TIE_ULPS * eps * (jnp.abs(loss_p) + jnp.abs(jnp.where(jnp.isfinite(best), best, 0)))
    return (gain >= best - tol) & (gain > -jnp.inf)


def _order_categories(hist, pstats, criterion, params, n_bins, categorical):
    """``hist`` ``(B + 1, S1, F, C)`` with the bins of every categorical feature (``categorical``
    ``(F, C)`` bool) permuted into the order of :meth:`category_key` (empty categories last,
    ties by code), and the permutation ``(B, F, C)`` (sorted position -> code). Numeric
    features keep the identity, so their cumulative sums and splits are unchanged."""
    n_stats = hist.shape[1] - 1
    body = hist[:n_bins]
    key = criterion.category_key([body[:, k] for k in range(n_stats)], [pstats[:, k] for k in range(n_stats)],
                                 params)
    code = jax.lax.broadcasted_iota(key.dtype, key.shape, 0)
    key = jnp.where(categorical, jnp.where(body[:, n_stats] > 0, key, jnp.inf), code)
    perm = jnp.argsort(key, axis=0, stable=True).astype(jnp.int32)  # (B, F, C)
    body = jnp.take_along_axis(body, perm[:, None], axis=0)
    return jnp.concatenate([body, hist[n_bins:]], axis=0), perm


def _left_categories(perm, hist, n_bins, feat, bin_, mleft):
    """``(C, B)`` bool: the codes a categorical split sends left, the first ``bin_ + 1`` of
    the node's order ``perm`` ``(B, F, C)`` on feature ``feat``; the node's empty categories
    (unseen in the node) go with the missing values (``mleft``)."""
    n_cand = feat.shape[0]
    cand = jnp.arange(n_cand)
    order = perm[:, feat, cand].T  # (C, B)
    first = jnp.arange(n_bins)[None, :] <= bin_[:, None]
    left = jnp.zeros((n_cand, n_bins), bool).at[cand[:, None], order].set(first)
    empty = hist[:n_bins, -1, feat, cand].T <= 0  # (C, B) counts
    return jnp.where(empty, mleft[:, None], left)


def _best_splits(hist, pstats, criterion, params, n_bins, msl, mwl, feat_ok, missing=True, categorical=None):
    """:func:`_best_splits_numeric`; with ``categorical`` (``(F, C)`` bool, traced) the bins of
    the categorical features searched in each node's order of their categories
    (:func:`_order_categories`: a split is then a prefix of that order, ``bin`` its last
    position) and a sixth output, the codes each split sends left ``(C, B)``
    (:func:`_left_categories`; for a numeric split, the codes ``<= bin``)."""
    if categorical is not None:  # the categories in their order, then the numeric search on prefixes
        unsorted = hist
        hist, perm = _order_categories(hist, pstats, criterion, params, n_bins, categorical)
        out = _best_splits(hist, pstats, criterion, params, n_bins, msl, mwl, feat_ok, missing)
        return out + (_left_categories(perm, unsorted, n_bins, out[1], out[2], out[3]),)
    return _best_splits_numeric(hist, pstats, criterion, params, n_bins, msl, mwl, feat_ok, missing)


def _best_splits_numeric(hist, pstats, criterion, params, n_bins, msl, mwl, feat_ok, missing=True):
    """Best split of each candidate from its histogram ``(B + 1, S1, F, C)`` (:func:`_hist`).

    The thresholds ``t < n_bins - 1`` ("code <= t" left) times the two sides of the missing
    bin are scored at once; the first maximum in (feature, bin, NaN right before NaN left)
    order wins, as a first-argmax over the features of per-feature first-argmaxes would, with
    gains within :data:`TIE_ULPS` epsilons of the maximum counted as maxima (:func:`_tied`).
    ``missing=False`` (static: no row of the data is missing) scores one side only: the
    missing bin is empty, both sides have the same gain and validity, and the side the rule
    gives is read at the chosen split (the same result, half the work).
    Returns gain (C,) (-inf when none is valid), feature, bin, missing_left, left stats (C, S1).
    """
    n_stats = hist.shape[1] - 1
    n_thr = n_bins - 1
    n_features, n_cand = hist.shape[2], hist.shape[3]

    def step(acc, h):
        acc = acc + h
        return acc, acc

    # cumulative sums over the bins: a scan of (S1, F, C) planes (jnp.cumsum over an axis of
    # 255 is an associative scan here, 10x slower)
    _, cum = jax.lax.scan(step, jnp.zeros(hist.shape[1:], hist.dtype), hist[:n_thr])  # (T, S1, F, C)
    miss = hist[n_bins]  # (S1, F, C)
    p_planes = [pstats[:, k] for k in range(n_stats + 1)]
    loss_p = criterion.plane_loss(p_planes[:n_stats], params) - criterion.penalty(params)
    no_miss = miss[n_stats] == 0  # (F, C)
    if not missing:  # no row in the missing bin: one side per threshold, chosen after the search
        lp = [cum[:, k] for k in range(n_stats + 1)]  # (T, F, C) each
        rp = [p - l for p, l in zip(p_planes, lp)]
        gain = loss_p - criterion.plane_loss(lp[:n_stats], params) - criterion.plane_loss(rp[:n_stats], params)
        valid = (lp[n_stats] >= msl) & (rp[n_stats] >= msl)
        valid &= criterion.plane_weight(lp[:n_stats], params) >= mwl
        valid &= criterion.plane_weight(rp[:n_stats], params) >= mwl
        gain = jnp.where(valid & feat_ok.T, gain, -jnp.inf)
        best = jnp.max(gain, axis=(0, 1))
        order = (jax.lax.broadcasted_iota(jnp.int32, gain.shape, 1) * n_thr
                 + jax.lax.broadcasted_iota(jnp.int32, gain.shape, 0))
        first = jnp.min(jnp.where(_tied(gain, best, loss_p), order, n_features * n_thr), axis=(0, 1))
        first = jnp.minimum(first, n_features * n_thr - 1)
        feat, bin_ = first // n_thr, first % n_thr
        left_stats = cum[bin_, :, jnp.minimum(feat, n_features - 1), jnp.arange(n_cand)]
        if criterion.unseen_missing_right:
            side = jnp.zeros((n_cand,), bool)
        else:  # the side of the child with more rows, as below
            side = left_stats[:, n_stats] > pstats[:, n_stats] - left_stats[:, n_stats]
        return best, feat.astype(jnp.int32), bin_.astype(jnp.int32), side, left_stats
    gains = []
    for side in (0, 1):  # 1: the missing bin goes left
        lp = [cum[:, k] + miss[k] if side else cum[:, k] for k in range(n_stats + 1)]  # (T, F, C) each
        rp = [p - l for p, l in zip(p_planes, lp)]
        gain = loss_p - criterion.plane_loss(lp[:n_stats], params) - criterion.plane_loss(rp[:n_stats], params)
        valid = (lp[n_stats] >= msl) & (rp[n_stats] >= msl)
        valid &= criterion.plane_weight(lp[:n_stats], params) >= mwl
        valid &= criterion.plane_weight(rp[:n_stats], params) >= mwl
        # no missing value in the node: NaN goes to the child with more rows (scikit-learn),
        # or right (xgboost: ``unseen_missing_right``)
        if criterion.unseen_missing_right:
            if side:
                valid &= ~no_miss
        else:
            nan_left = lp[n_stats] > rp[n_stats]
            valid &= no_miss & (nan_left if side else ~nan_left) | ~no_miss
        gains.append(jnp.where(valid & feat_ok.T, gain, -jnp.inf))
    gain = jnp.stack(gains, axis=1)  # (T, 2, F, C)
    best = jnp.max(gain, axis=(0, 1, 2))
    order = (jax.lax.broadcasted_iota(jnp.int32, gain.shape, 2) * (2 * n_thr)
             + jax.lax.broadcasted_iota(jnp.int32, gain.shape, 0) * 2
             + jax.lax.broadcasted_iota(jnp.int32, gain.shape, 1))
    first = jnp.min(jnp.where(_tied(gain, best, loss_p), order, n_features * 2 * n_thr), axis=(0, 1, 2))
    first = jnp.minimum(first, n_features * 2 * n_thr - 1)
    feat, bin_, side = first // (2 * n_thr), (first // 2) % n_thr, first % 2
    cand = jnp.arange(n_cand)
    left_stats = (cum[bin_, :, feat, cand] + jnp.where(side[:, None] == 1, miss[:, feat, cand].T, 0))
    return best, feat.astype(jnp.int32), bin_.astype(jnp.int32), side == 1, left_stats


def _best_splits_live(hbuf, half, pstats, criterion, params, n_bins, msl, mwl, feat_ok, active, chunk,
                      missing=True, max_features=None, direct=False, categorical=None):
    """:func:`_best_splits` of the ``active`` (C,) candidates only (traced: the level's
    candidates that may split, open by the stopping rules), whose histograms are
    ``hbuf[half]`` (``hbuf``: the two halves ``(2, C, F, B+1, S1)`` of :func:`grow`'s buffer,
    candidate-major), ``chunk`` at a time (a loop of ``ceil(n_active / chunk)`` steps over the
    active candidates in order): the cost follows the candidates that can split, not the
    width of the level's arrays nor the leaves-to-be (pure nodes, nodes too small or at the
    depth cap: half of a tree's nodes are leaves, and a search costs ``O(F·B)`` whatever the
    node's rows: DecisionTreeRegressor on diabetes searched 635 nodes, of which 318 leaves).
    Candidates not searched get gain ``-inf`` (the caller splits only active ones); a chunk
    may also search some inactive ones, whose results nobody reads.

    Each candidate's search is independent of the others, so the chunks give the same
    values as one call over all candidates (a last chunk that would run past the end is
    moved back to end there: it recomputes some candidates, with the same results).
    ``direct`` (static): the histograms hold only each candidate's drawn features
    (``(2, C, k, B+1, S1)``, :func:`grow`'s drawn-feature mode) and ``feat_ok`` is
    :func:`_drawn`'s ``(index, open)`` of them. ``categorical`` ``(F,)`` bool (traced):
    :func:`_best_splits`'s categorical search, with its sixth output."""
    n_cand = hbuf.shape[1]

    def search(hist, pstats, feat_ok):  # hist (c, F, B+1, S1): one contiguous block per candidate
        if max_features is not None and (direct or max_features < hist.shape[1]):
            # only the drawn features' blocks, moved into _best_splits' layout (B+1, S1, k, c)
            idx, ok = feat_ok if direct else _drawn(feat_ok, max_features)
            part = hist if direct else jnp.take_along_axis(hist, idx[:, :, None, None], axis=1)
            part = part.transpose(2, 3, 1, 0)
            cat = None if categorical is None else categorical[idx].T  # (k, c)
            gain, feat, bin_, mleft, lstats, *cats = _best_splits(part, pstats, criterion, params, n_bins, msl,
                                                                  mwl, ok, missing, cat)
            return (gain, jnp.take_along_axis(idx, feat[:, None], axis=1)[:, 0], bin_, mleft, lstats, *cats)
        cat = None if categorical is None else categorical[:, None]
        return _best_splits(hist.transpose(2, 3, 1, 0), pstats, criterion, params, n_bins, msl, mwl, feat_ok,
                            missing, cat)

    if chunk >= n_cand:
        return search(hbuf[half], pstats, feat_ok)
    dtype = hbuf.dtype
    out = (jnp.full((n_cand,), -jnp.inf, dtype), jnp.zeros((n_cand,), jnp.int32), jnp.zeros((n_cand,), jnp.int32),
           jnp.zeros((n_cand,), bool), jnp.zeros(pstats.shape, dtype))
    if categorical is not None:
        out += (jnp.zeros((n_cand, n_bins), bool),)
    # the active candidates' indices first, in order (a ranking scatter), the rest 0
    n_active = jnp.sum(active).astype(jnp.int32)
    rank = jnp.where(active, jnp.cumsum(active) - 1, n_cand).astype(jnp.int32)
    order = jnp.zeros((n_cand,), jnp.int32).at[rank].set(jnp.arange(n_cand, dtype=jnp.int32), mode="drop")

    def body(j, out):
        start = jnp.minimum(j * chunk, n_cand - chunk)
        ids = jax.lax.dynamic_slice_in_dim(order, start, chunk)  # (chunk,) candidates
        if chunk == 1:  # one block: a dynamic slice (no gather)
            at = tuple(jnp.asarray(i, jnp.int32) for i in (half, ids[0], 0, 0, 0))
            hist = jax.lax.dynamic_slice(hbuf, at, (1, 1) + hbuf.shape[2:])[0]
        else:
            hist = hbuf[half, ids]
        part = search(hist, pstats[ids], jax.tree.map(lambda a: a[ids], feat_ok))
        return tuple(o.at[ids].set(p.astype(o.dtype), mode="promise_in_bounds") for o, p in zip(out, part))

    return jax.lax.fori_loop(0, (n_active + chunk - 1) // chunk, body, out)


def _children(hbuf, half, small, src, small_left, n_live, chunk):
    """The children's histograms of the first ``n_live`` (traced) of ``s`` splits, written
    into ``hbuf[1 - half]`` (:func:`grow`'s buffer ``(2, C, F, B+1, S1)``, ``C >= 2s``,
    candidate-major; its parents are ``hbuf[half]``), ``chunk`` splits at a time
    (:func:`_dynamic_loop`): child ``2r`` (left) and ``2r + 1`` (right) of split ``r`` are its
    smaller child's ``small[:, r]`` (``(F, s, B+1, S1)``, as summed) and the parent's
    ``hbuf[half, src[r]]`` minus it. Returns the buffer. Entries past ``2 n_live`` keep
    what they held (no candidate lives there): nothing is zeroed, so the cost follows the
    live splits, not the width (a width-``C`` buffer zeroed per level cost more than the
    level's histograms on 200 x 30). Candidate-major, a parent read and a child written are
    contiguous blocks: with the candidates on the minor axis the same level read one value
    in every ``C`` (RandomForest on breast_cancer: 0.6 ms a level in these two copies)."""
    n_slots = small.shape[1]
    chunk = min(chunk, n_slots)

    def body(j, hbuf, half, small, src, small_left):  # half an argument: batched under vmap
        start = jnp.minimum(j * chunk, n_slots - chunk)
        sm = jax.lax.dynamic_slice_in_dim(small, start, chunk, axis=1).transpose(1, 0, 2, 3)  # (chunk, F, B+1, S1)
        parent = hbuf[half, jax.lax.dynamic_slice_in_dim(src, start, chunk)]  # (chunk, F, B+1, S1)
        large = parent - sm
        sl = jax.lax.dynamic_slice_in_dim(small_left, start, chunk)[:, None, None, None]
        both = jnp.stack([jnp.where(sl, sm, large), jnp.where(sl, large, sm)], 1)  # (chunk, 2, F, B+1, S1)
        both = both.reshape((1, 2 * chunk) + sm.shape[1:])
        at = tuple(jnp.asarray(i, jnp.int32) for i in (1 - half, 2 * start, 0, 0, 0))
        return jax.lax.dynamic_update_slice(hbuf, both.astype(hbuf.dtype), at)

    return _dynamic_loop((n_live + chunk - 1) // chunk, body, hbuf, (half, small, src, small_left))


def _zero_cands(hbuf, half, n_live, chunk):
    """``hbuf`` ``(2, C, k, B+1, S1)`` with the first ``n_live`` candidates of ``hbuf[half]``
    zeroed, ``chunk`` a step (the cost follows ``n_live``)."""
    n_cand = hbuf.shape[1]
    chunk = min(chunk, n_cand)

    def body(j, hbuf, half):
        zeros = jnp.zeros((1, chunk) + hbuf.shape[2:], hbuf.dtype)
        start = jnp.minimum(j * chunk, n_cand - chunk)
        at = tuple(jnp.asarray(i, jnp.int32) for i in (half, start, 0, 0, 0))
        return jax.lax.dynamic_update_slice(hbuf, zeros, at)

    return _dynamic_loop((n_live + chunk - 1) // chunk, body, hbuf, (half,))


def _hist_rows_drawn(flat_codes, n_rows, stats_count, slot, rows, n_used, feats, hbuf, half, n_chunks):
    """Add the compacted rows ``rows`` (m,) (their ``stats_count`` (m, S1) and in-range
    candidate ``slot`` (m,), the first ``n_used`` real, the rest zeros) into the histograms
    of their candidates' drawn features, ``hbuf[half]`` ``(C, k, B+1, S1)``: candidate ``c``'s
    ``j``-th block sums feature ``feats[c, j]`` (``feats`` (C, k)). The drawn-feature mode of
    :func:`grow`: every child's histogram from its own rows, ``k`` features each, no parent
    histogram and no subtraction. A loop over the chunks of ``m / n_chunks`` rows that hold
    real rows (:func:`_dynamic_loop`) and, per chunk, over the ``k`` draws of one scatter-add
    (every index in range, as :func:`_hist_rows_xla`); per block the rows are added in row
    order."""
    n_cand, k, n_codes, n_s1 = hbuf.shape[1:]
    chunk = rows.shape[0] // n_chunks
    per_cand = k * n_codes

    def body(i, flat, flat_codes, stats_count, slot, rows, feats, half):  # no closed-over array (_dynamic_loop)
        stats_i = jax.lax.dynamic_slice_in_dim(stats_count, i * chunk, chunk)
        slot_i = jax.lax.dynamic_slice_in_dim(slot, i * chunk, chunk).astype(jnp.int32)
        rows_i = jax.lax.dynamic_slice_in_dim(rows, i * chunk, chunk)
        base = (half * n_cand + slot_i) * per_cand
        feat_i = feats[slot_i]  # (chunk, k)

        def draw(j, flat):
            f = jax.lax.dynamic_index_in_dim(feat_i, j, axis=1, keepdims=False)
            codes = flat_codes.at[f * n_rows + rows_i].get(mode="promise_in_bounds").astype(jnp.int32)
            return flat.at[base + j * n_codes + codes].add(stats_i, mode="promise_in_bounds")

        return jax.lax.fori_loop(0, k, draw, flat)

    flat = hbuf.reshape(-1, n_s1)
    flat = _dynamic_loop((n_used + chunk - 1) // chunk, body, flat, (flat_codes, stats_count, slot, rows, feats, half))
    return flat.reshape(hbuf.shape)


# --------------------------------------------------------------------------- growth
_N_CHUNKS = 8  # the smaller children's rows are summed in chunks of n/16: work ~ their number
_SPLIT_CHUNK = 1  # candidates searched (and children built) per step on a CPU: work ~ live ones.
# 8 until 2026-11; on a CPU 1 costs no more on wide levels and wastes nothing on narrow ones (a
# level of 1-4 candidates searched 8): DecisionTree breast_cancer 32 -> 14-18 ms, XGBoost(100)
# 0.27-0.39 -> 0.12 s warm, XGBoost(50, depth 6) on 200k x 28 5.4 -> 4.6 s. On a GPU each step is
# a few kernel launches: XGBoost(20, depth 6) on 200k x 28 took 1.90 s warm at 8, 5.59 s at 1
# (H200, 2026-11-28), so other backends keep 8 (_split_chunk)
_SPLIT_CHUNK_ACCELERATOR = 8


def _split_chunk() -> int:
    """Candidates per step of the split search, the children's copies and the zeroing: 1 on a
    CPU, :data:`_SPLIT_CHUNK_ACCELERATOR` elsewhere (read when the program is traced)."""
    return _SPLIT_CHUNK if _hist_pallas._backend() == "cpu" else _SPLIT_CHUNK_ACCELERATOR


def grow(
    codes_T,
    stats,
    count,
    *,
    criterion,
    n_bins: int,
    max_nodes: int,
    max_width: int,
    max_depth: int | None = None,
    criterion_params=(),
    min_samples_split=2,
    min_samples_leaf=1,
    min_weight_leaf=0.0,
    min_impurity_decrease=0.0,
    max_features: int | None = None,
    feature_mask=None,
    key=None,
    has_missing: bool = True,
    buffers=None,
    axis_name: str | None = None,
    categorical=None,
) -> Grown:
    r"""Grow one binary tree level by level from binned features (pure; jit/vmap it).

    Parameters
    ----------
    codes_T : (F, n) uint8 / uint16
        Bin codes **feature-major**; code ``n_bins`` is the missing bin.
    stats : (n, S) float
        Per-row statistics already multiplied by the sample weight (one-hot class counts,
        ``[w, wy, wy^2]``, ``[w g, w h]``).
    count : (n,) float
        1 for rows of positive weight, 0 otherwise (``min_samples_*`` count these).
    criterion : a criterion object (static), e.g. ``CRITERIA["gini"]`` or ``GradientPair()``
        With ``node_loss``, ``impurity``, ``weight``, ``penalty``, ``stop_when_pure``, ``normalise``.
    n_bins : int (static)
        Number of non-missing bins (codes ``0..n_bins-1``).
    max_nodes : int (static)
        Node budget ``M``.
    max_width : int (static)
        ``W``: most nodes split per level.
    max_depth : int, traced int or None
        Levels grown at most (None: until the node budget). Traced, so one program serves every
        depth whose ``max_nodes`` and ``max_width`` are the same (``cart.budget_depth``).
    criterion_params : pytree of traced scalars
        The criterion's parameters (``(reg_lambda, gamma)`` for ``GradientPair``).
    min_samples_split, min_samples_leaf : int or traced int
    min_weight_leaf, min_impurity_decrease : float or traced float
    max_features : int or None (static)
        Features drawn per node (uniformly among ``feature_mask``) from ``key``.
    feature_mask : (F,) bool, optional (traced)
        Features allowed at all (random-subspace forests).
    key : jax.random key, optional
        Needed when ``max_features < F``.
    has_missing : bool (static), default True
        False promises that no code is ``n_bins`` (no missing value): the split search then
        scores one missing side instead of two (the same tree).
    buffers : (hbuf, scratch), optional
        The level loop's working buffers (:func:`histogram_buffers`), whatever they hold: no
        entry is read before this tree writes it. Without them the buffers are zeros made
        here, one write of :math:`2(B+1)(S+1)F\cdot 2W` values per tree (47 MB in float64 on
        breast_cancer with ``W = 64``); trees grown one after another (forests, boosting
        rounds) pass the last tree's buffers instead, and then ``grow`` returns
        ``(Grown, buffers)``.
    axis_name : str or None (static)
        Inside ``shard_map`` with the rows split over this mesh axis: every sum over rows
        (the root's totals, the histograms, the split bins' extremes) is taken across the
        devices (``psum``, ``pmax``, ``pmin``), so every device grows the same tree from all
        the rows while building histograms of its own (data-parallel histograms: Ke et al.
        2017 §4; xgboost's all-reduce). Not with drawn features (``max_features`` at most
        half of ``F``). Without ``max_features``, each device keeps and searches only its
        block of ``ceil(F / D)`` features (:func:`_feature_block`): the histograms are
        reduce-scattered by feature, and each candidate takes the best of the devices' best
        splits, the first device in feature order among gains within :data:`TIE_ULPS`
        (:func:`_tied`), as one device's search would; ``buffers`` then hold that block
        (:func:`histogram_buffers` with ``axis_name``).
    categorical : (F,) bool, optional (traced)
        The features whose codes are categories (module docstring, "Categorical splits"):
        a split of such a feature sends a set of codes left (``Grown.left_categories``),
        the first codes of the node's order of its categories. None (the default): every
        feature is numeric, and the program is the one without this argument. Not with
        ``axis_name``.

    Returns
    -------
    Grown, or (Grown, buffers) when ``buffers`` are passed

    Examples
    --------
    >>> import jax.numpy as jnp
    >>> codes_T = jnp.array([[0, 0, 1, 1]], jnp.uint8)
    >>> stats = jnp.eye(2)[jnp.array([0, 0, 1, 1])]
    >>> g = grow(codes_T, stats, jnp.ones(4), criterion=CRITERIA["gini"], n_bins=2, max_nodes=3, max_width=1)
    >>> int(g.n_nodes), g.feature.tolist(), g.row_node.tolist()
    (3, [0, -1, -1], [1, 1, 2, 2])

    References
    ----------
    Breiman et al. 1984 (CART); ESL §9.2; Ke et al. 2017 (histograms, sibling subtraction).
    """
    n_features, n_rows = codes_T.shape
    n_stats = stats.shape[1]
    dtype = stats.dtype
    n_codes = n_bins + 1
    M, W = int(max_nodes), int(max_width)
    depth_cap = jnp.asarray(M if max_depth is None else max_depth, jnp.int32)  # traced comparisons only
    eps = jnp.finfo(dtype).eps
    if feature_mask is None:
        feature_mask = jnp.ones((n_features,), bool)
    if key is None:
        key = jax.random.key(0)
    msl = jnp.asarray(min_samples_leaf, dtype)
    mss = jnp.maximum(jnp.asarray(min_samples_split, dtype), 2 * msl)
    mwl = jnp.asarray(min_weight_leaf, dtype)
    mid = jnp.asarray(min_impurity_decrease, dtype)

    if axis_name is not None and categorical is not None:
        raise ValueError("grow: axis_name does not support categorical features")
    if axis_name is not None and drawn_mode(n_features, max_features):
        raise ValueError("grow: axis_name does not support drawn features (max_features <= F / 2)")
    across = functools.partial(_across, axis_name=axis_name)
    blocked = axis_name is not None and max_features is None  # each device searches a block of features
    if blocked:
        n_local, f0 = _feature_block(n_features, axis_name)

    def to_block(h, axis):  # the sums across devices of this device's block of features
        return _reduce_block(h, axis, n_features, axis_name) if blocked else across(h)
    sc = jnp.concatenate([stats, count[:, None].astype(dtype)], axis=1)
    total = across(jnp.sum(sc, axis=0))
    root_weight = criterion.weight(total[:n_stats], criterion_params)
    scale = 1 / _safe(root_weight) if criterion.normalise else jnp.asarray(1, dtype)
    positive = sc[:, n_stats] > 0
    purity_ref = None
    if criterion.stop_when_pure:
        purity_ref = across(criterion.purity_reference(stats, positive, criterion_params), op=criterion.purity_across)
    flat_codes = codes_T.reshape(-1)
    rows = jnp.arange(n_rows)
    i32 = jnp.int32
    # the smaller children of a level hold at most half the counted rows (counts are exact
    # float sums below 2^24 rows; the margin covers their rounding above)
    n_small = max(1, min(n_rows, n_rows // 2 + n_rows // (1 << 20) + 1))
    if axis_name is not None:  # the smaller child is smaller across the devices, not on each
        n_small = n_rows
    n_small = -(-n_small // _N_CHUNKS) * _N_CHUNKS  # whole chunks (the pad: spare rows)
    # drawn-feature mode (module docstring, "Drawn features"): with at most half the features
    # drawn per node, every child's histogram holds only its own draws, summed from its rows
    direct = drawn_mode(n_features, max_features)
    n_moved = -(-n_rows // _N_CHUNKS) * _N_CHUNKS

    def draws(level):  # the (2W, k) features of a level's candidates and whether each is open
        return _drawn(_feature_choice(key, level, feature_mask, 2 * W, max_features), max_features)

    # the candidates searched, and the children whose histograms are built (a child that
    # fails them is a leaf: nobody reads its histogram)
    may_split = _stopping_rules(criterion, criterion_params, n_stats, depth_cap, mss, mwl, purity_ref, eps)

    def level(st, hbuf, scratch):
        """Split the candidates of one level (histograms ``hbuf[st["half"]]``, ``hbuf``
        ``(2, 2W, F, B+1, S1)``, at most ``W`` splits); returns the state, the buffer with the
        children's histograms in the other half and the scratch: a while_loop body."""
        n_cand = hbuf.shape[1]
        half = st["half"]
        n_slots = W
        ids = st["cand_ids"]
        pstats = st["node_stats"][ids]
        pdepth = st["depth"][ids]
        open_ = st["cand_valid"] & may_split(pstats, st["impurity"][ids], pdepth)
        if direct:  # drawn when the level before built these histograms
            feat_ok = st["draws"]
        else:
            feat_ok = _feature_choice(key, st["level"], feature_mask, n_cand, max_features)
        if blocked:
            feat_ok = jax.lax.dynamic_slice_in_dim(_pad_axis(feat_ok, 1, n_local * jax.lax.axis_size(axis_name)),
                                                   f0, n_local, axis=1)
        gain, feat, tbin, mleft, lstats, *lcats = _best_splits_live(
            hbuf, half, pstats, criterion, criterion_params, n_bins, msl, mwl, feat_ok,
            open_, _split_chunk(), has_missing, max_features, direct, categorical)
        if blocked:
            feat = jnp.minimum(feat + f0, n_features - 1)  # a padding feature only where no split is valid
            gain, feat, tbin, mleft, lstats = _best_of_devices(gain, feat, tbin, mleft, lstats, pstats,
                                                               criterion, criterion_params, n_stats, axis_name)
        new, (split, rank, n_split, left_id, rstats, at_p) = _commit_splits(
            st, ids, pstats, pdepth, open_, gain, feat, tbin, mleft, lstats, criterion, criterion_params, n_stats,
            W=n_slots, M=M, scale=scale, eps=eps, mid=mid)
        right_id = left_id + 1
        if categorical is not None:
            new["cat_left"] = st["cat_left"].at[at_p].set(lcats[0], mode="drop")
        # route the rows of the split nodes: one gather of a per-node table (feature, bin,
        # missing side, left child, histogram slot of each child) and one of the code
        small_left = lstats[:, n_stats] <= rstats[:, n_stats]
        # children that will be leaves (the next level's stopping rules, on the same values it
        # reads: may_split) need no histogram; a split whose two children are leaves sends
        # no row to the histogram pass (the deep levels of a tree grown until pure)
        kids = [jnp.minimum(c, M - 1) for c in (left_id, right_id)]  # as stored: what the next level reads
        open_l, open_r = (may_split(new["node_stats"][c], new["impurity"][c], new["depth"][c]) for c in kids)
        if direct:  # every child's rows, into the child's own candidate slot of the next level
            slot_l = jnp.where(open_l, 2 * rank, n_cand)
            slot_r = jnp.where(open_r, 2 * rank + 1, n_cand)
        else:
            built = open_l | open_r
            slot_l = jnp.where(small_left & built, rank, n_slots)
            slot_r = jnp.where(small_left | ~built, n_slots, rank)
        table = jnp.stack([jnp.full((M + 1,), -1, i32).at[at_p].set(v, mode="drop")
                           for v in (feat, tbin, mleft.astype(i32), left_id, slot_l, slot_r)], 1)
        node = st["row_node"]
        t = table[node]  # (n, 6)
        code = flat_codes[jnp.maximum(t[:, 0], 0) * n_rows + rows].astype(i32)
        go_left = jnp.where(code == n_bins, t[:, 2] == 1, code <= t[:, 1])
        if categorical is not None:  # a categorical split: the code in the node's left set
            in_set = new["cat_left"][node, jnp.minimum(code, n_bins - 1)]
            go_left = jnp.where((code < n_bins) & categorical[jnp.maximum(t[:, 0], 0)], in_set, go_left)
        moved = t[:, 3] >= 0
        node = jnp.where(moved, t[:, 3] + (~go_left).astype(i32), node)
        new["row_node"] = node
        # children's histograms: the rows of the smaller child of each split (at most half
        # the counted rows) by one pass and their siblings by subtraction, or in the
        # drawn-feature mode every child's rows into the child's own slot; the rows taking
        # part are compacted into a fixed buffer. The children of the last level are leaves:
        # no histogram for them (no row and no split takes part: the loops run no step)
        n_built = n_split if max_depth is None else jnp.where(st["level"] + 1 < depth_cap, n_split, 0)
        n_targets, size = (n_cand, n_moved) if direct else (n_slots, n_small)
        slot = jnp.where(moved & positive, jnp.where(go_left, t[:, 4], t[:, 5]), n_targets)
        sel, n_used = _compact((slot < n_targets) & (n_built > 0), size)
        filled = jnp.arange(size) < n_used
        sc_sel = jnp.where(filled[:, None], sc[sel], 0)
        slot_sel = jnp.where(filled, slot[sel], jnp.arange(size) % n_targets)
        if direct:
            new["draws"] = draws(st["level"] + 1)
            hbuf = _zero_cands(hbuf, 1 - half, 2 * n_built, _split_chunk())
            hbuf = _hist_rows_drawn(flat_codes, n_rows, sc_sel, slot_sel, sel, n_used, new["draws"][0],
                                    hbuf, 1 - half, _N_CHUNKS)
        else:
            at_rank = jnp.where(split, rank, n_slots)
            src = jnp.zeros((n_slots,), i32).at[at_rank].set(jnp.arange(n_cand, dtype=i32), mode="drop")
            small_left_r = jnp.zeros((n_slots,), bool).at[at_rank].set(small_left, mode="drop")
            local = _hist_rows(codes_T, sc_sel, slot_sel, sel, n_used, n_slots, n_codes, _N_CHUNKS,
                               scratch=scratch, n_live=n_built)
            small = to_block(local, 0)
            hbuf = _children(hbuf, half, small, src, small_left_r, n_built, max(1, _split_chunk() // 2))
            scratch = local.astype(scratch.dtype)  # the next level's scratch (or the Pallas kernel's output)
        new["half"] = 1 - half
        new["cand_ids"] = (st["n_nodes"] + jnp.arange(2 * n_slots)).astype(i32)
        new["cand_valid"] = jnp.arange(2 * n_slots) < 2 * n_split
        new["level"] = st["level"] + 1
        return new, hbuf, scratch

    st = _root_state(total, criterion, criterion_params, n_stats, n_rows, M, W)
    st["half"] = jnp.asarray(0, i32)
    if categorical is not None:
        categorical = jnp.asarray(categorical, bool)
        st["cat_left"] = jnp.zeros((M, n_bins), bool)
    # the histograms of a level's candidates are half st["half"] of hbuf, its children are
    # written into the other half (a buffer carried by the loop, never zeroed: _children)
    # (its two halves zeroed once here, with the scratch of the smaller children's sums, or
    # carried from the caller's previous tree: ``buffers``)
    root = to_block(_hist(codes_T, sc, jnp.zeros((n_rows,), i32), 1, n_codes), 2)
    carried = buffers is not None
    if buffers is None:
        buffers = histogram_buffers(n_features, n_bins, n_stats, W, dtype, max_features,
                                    axis_name=axis_name if blocked else None)
    hbuf, scratch = buffers
    if direct:  # the root's drawn features only
        st["draws"] = draws(0)
        root = jnp.take(root, st["draws"][0][0], axis=2)
    hbuf = hbuf.at[0, :1].set(root.transpose(3, 2, 0, 1))  # (B+1, S1, F, 1) -> (1, F, B+1, S1)
    st, hbuf, scratch = jax.lax.while_loop(lambda c: jnp.any(c[0]["cand_valid"]) & (c[0]["level"] < depth_cap),
                                           lambda c: level(*c), (st, hbuf, scratch))
    low, high = _split_bins(flat_codes, n_rows, positive, st, n_bins, categorical)
    grown = _as_grown(st, across(low, op="max"), across(high, op="min"))
    if categorical is not None:
        grown = grown._replace(left_categories=st["cat_left"])
    return (grown, (hbuf, scratch)) if carried else grown


def _feature_block(n_features, axis_name):
    """``(ceil(F / D), first)``: the size of each device's block of features along mesh axis
    ``axis_name`` (``D`` devices; the last block padded) and this device's first feature."""
    n_local = -(-n_features // jax.lax.axis_size(axis_name))
    return n_local, jax.lax.axis_index(axis_name) * n_local


def _pad_axis(x, axis, size):
    """``x`` zero-padded (False for booleans) along ``axis`` to ``size``."""
    if x.shape[axis] == size:
        return x
    widths = [(0, 0)] * x.ndim
    widths[axis] = (0, size - x.shape[axis])
    return jnp.pad(x, widths)


def _reduce_block(h, axis, n_features, axis_name):
    """The sums across the devices of ``h`` (this device's sums of every feature along
    ``axis``), of this device's block of features only (a reduce-scatter: each device
    receives ``1/D`` of the all-reduce's data); the padding features hold zeros."""
    n_local, _ = _feature_block(n_features, axis_name)
    h = _pad_axis(h, axis, n_local * jax.lax.axis_size(axis_name))
    return jax.lax.psum_scatter(h, axis_name, scatter_dimension=axis, tiled=True)


def _best_of_devices(gain, feat, tbin, mleft, lstats, pstats, criterion, params, n_stats, axis_name):
    """Each candidate's best split over the devices' blocks of features: the first device
    (in feature order) whose best gain ties the largest (:func:`_tied`), as
    :func:`_best_splits` over all the features would choose; the gain returned is the
    largest, as there. Inputs are this device's ``(C,)`` results (``feat`` global), outputs
    the same on every device."""
    # one all_gather of the fields packed side by side (a collective costs ~25 us on a CPU):
    # feature and bin are small integers, exact in the stats' float dtype
    dtype = lstats.dtype
    packed = jnp.concatenate([jnp.stack([gain.astype(dtype), feat.astype(dtype), tbin.astype(dtype),
                                         mleft.astype(dtype)], 1), lstats], 1)
    every = jax.lax.all_gather(packed, axis_name)  # (D, C, 4 + S1)
    everyone = [every[..., 0].astype(gain.dtype), every[..., 1].astype(feat.dtype),
                every[..., 2].astype(tbin.dtype), every[..., 3] > 0, every[..., 4:]]
    gains = everyone[0]
    best = jnp.max(gains, axis=0)
    planes = [pstats[:, k] for k in range(n_stats)]
    loss_p = criterion.plane_loss(planes, params) - criterion.penalty(params)
    pick = jnp.argmax(_tied(gains, best[None], loss_p[None]), axis=0)  # the first tied device
    cand = jnp.arange(gain.shape[0])
    return (best,) + tuple(a[pick, cand] for a in everyone[1:])


def _across(x, axis_name=None, op="sum"):
    """``x`` reduced across the devices of mesh axis ``axis_name`` (``psum``, ``pmax`` or
    ``pmin``: ``op``), or ``x`` itself when ``axis_name`` is None."""
    if axis_name is None:
        return x
    return {"sum": jax.lax.psum, "max": jax.lax.pmax, "min": jax.lax.pmin}[op](x, axis_name)


def _stopping_rules(criterion, params, n_stats, depth_cap, mss, mwl, purity_ref, eps):
    """``may_split(s, impurity, depth)``: whether nodes of stats ``s`` (C, S1), ``impurity``
    and ``depth`` pass scikit-learn's stopping rules (module docstring): below the depth cap,
    at least ``mss`` counted rows and twice ``mwl`` of weight, and not pure."""

    def may_split(s, impurity, depth):
        ok = (depth < depth_cap) & (s[:, n_stats] >= mss) & (criterion.weight(s[:, :n_stats], params) >= 2 * mwl)
        if criterion.stop_when_pure:
            ok &= ~criterion.is_pure(s[:, :n_stats], impurity, purity_ref, eps)
        return ok

    return may_split


def _root_state(total, criterion, params, n_stats, n_rows, M, W):
    """The growth's state before the first level (:func:`grow`, ``tree._sorted``): one node,
    the root, of summed statistics ``total`` (S1,), holding every row, the only candidate of
    the ``2W`` slots; ``M`` node slots."""
    i32 = jnp.int32
    return dict(
        level=jnp.asarray(0, i32),
        row_node=jnp.zeros((n_rows,), i32),
        left=jnp.full((M,), -1, i32),
        right=jnp.full((M,), -1, i32),
        feature=jnp.full((M,), -1, i32),
        tbin=jnp.full((M,), -1, i32),
        mleft=jnp.zeros((M,), bool),
        node_stats=jnp.zeros((M, n_stats + 1), total.dtype).at[0].set(total),
        impurity=jnp.zeros((M,), total.dtype).at[0].set(criterion.impurity(total[:n_stats], params)),
        depth=jnp.zeros((M,), i32),
        n_nodes=jnp.asarray(1, i32),
        cand_ids=jnp.zeros((2 * W,), i32),
        cand_valid=jnp.arange(2 * W) < 1,  # the root
        truncated=jnp.asarray(False),
    )


def _commit_splits(st, ids, pstats, pdepth, open_, gain, feat, tbin, mleft, lstats, criterion, params, n_stats, *,
                   W, M, scale, eps, mid):
    """A level's splits written into the state (:func:`grow`, ``tree._sorted``): the open
    candidates ``ids`` (C,) (stats ``pstats``, depths ``pdepth``) whose best split (``gain``,
    ``feat``, ``tbin``, ``mleft``, left stats ``lstats``) passes ``min_impurity_decrease``
    (the gain over the root's weight, ``scale``) split, the first ``W`` in candidate order
    while the ``M`` node slots last (the others stay leaves: ``truncated``); a split's
    children are the next two node numbers (left, right). Returns the new state and
    ``(split, rank, n_split, left_id, rstats, at_p)``: which candidates split, their rank among
    the splits, how many, the left children's numbers, the right children's stats and the
    parents' slots (``M`` where none)."""
    i32 = jnp.int32
    want = open_ & (gain > -jnp.inf) & (gain * scale + eps >= mid)
    rank = (jnp.cumsum(want) - 1).astype(i32)
    fits = (rank < W) & (st["n_nodes"] + 2 * (rank + 1) <= M)
    split = want & fits
    n_split = jnp.sum(split).astype(i32)
    left_id = (st["n_nodes"] + 2 * rank).astype(i32)
    rstats = pstats - lstats
    at_p = jnp.where(split, ids, M)
    at_l = jnp.where(split, left_id, M)
    at_r = jnp.where(split, left_id + 1, M)
    put = lambda a, at, v: a.at[at].set(v, mode="drop")
    new = dict(st)
    new["left"] = put(st["left"], at_p, left_id)
    new["right"] = put(st["right"], at_p, left_id + 1)
    new["feature"] = put(st["feature"], at_p, feat)
    new["tbin"] = put(st["tbin"], at_p, tbin)
    new["mleft"] = put(st["mleft"], at_p, mleft)
    new["node_stats"] = put(put(st["node_stats"], at_l, lstats), at_r, rstats)
    imp = lambda s: criterion.impurity(s[:, :n_stats], params)
    new["impurity"] = put(put(st["impurity"], at_l, imp(lstats)), at_r, imp(rstats))
    new["depth"] = put(put(st["depth"], at_l, pdepth + 1), at_r, pdepth + 1)
    new["n_nodes"] = st["n_nodes"] + 2 * n_split
    new["truncated"] = st["truncated"] | jnp.any(want & ~fits)
    return new, (split, rank, n_split, left_id, rstats, at_p)


def _as_grown(st, left_bin, right_bin) -> Grown:
    """The :class:`Grown` of a finished growth's state."""
    used = jnp.arange(st["left"].shape[0]) < st["n_nodes"]
    return Grown(
        children_left=st["left"],
        children_right=st["right"],
        feature=st["feature"],
        threshold_bin=st["tbin"],
        missing_left=st["mleft"],
        node_stats=st["node_stats"],
        impurity=st["impurity"],
        is_leaf=used & (st["left"] < 0),
        depth=st["depth"],
        n_nodes=st["n_nodes"],
        row_node=st["row_node"],
        truncated=st["truncated"],
        left_bin=left_bin,
        right_bin=right_bin,
    )


def drawn_mode(n_features: int, max_features) -> bool:
    """Whether :func:`grow` keeps only each node's drawn features' histograms (at most half
    the features drawn per node: module docstring, "Drawn features")."""
    return max_features is not None and 2 * int(max_features) <= n_features


def histogram_buffers(n_features: int, n_bins: int, n_stats: int, max_width: int, dtype, max_features=None,
                      axis_name=None):
    """Zero working buffers of :func:`grow` for ``F`` features, ``n_bins`` bins, ``S`` statistics
    and width ``W``: the histograms ``(2, 2W, F, B + 1, S + 1)`` (a level's candidates in one half,
    its children in the other; candidate-major, so that one node's histogram is one contiguous
    block, :func:`_children`) and the smaller children's sums ``(F, W, B + 1, S + 1)``. In the
    drawn-feature mode (``max_features``, :func:`drawn_mode`) ``k = max_features`` blocks per
    candidate ``(2, 2W, k, B + 1, S + 1)`` and no smaller children's sums (a placeholder).

    ``axis_name`` (inside ``shard_map``, rows split over that axis, no ``max_features``):
    the histograms of this device's block of ``ceil(F / D)`` features (:func:`grow`).

    Reference: Ke et al. 2017 (LightGBM's histograms and sibling subtraction, which these hold)."""
    n_codes = n_bins + 1
    if axis_name is not None and max_features is None:
        n_local = _feature_block(n_features, axis_name)[0]
        return (jnp.zeros((2, 2 * max_width, n_local, n_codes, n_stats + 1), dtype),
                jnp.zeros((n_features, max_width, n_codes, n_stats + 1), dtype))
    if drawn_mode(n_features, max_features):
        return (jnp.zeros((2, 2 * max_width, int(max_features), n_codes, n_stats + 1), dtype),
                jnp.zeros((1, 1, 1, n_stats + 1), dtype))
    return (jnp.zeros((2, 2 * max_width, n_features, n_codes, n_stats + 1), dtype),
            jnp.zeros((n_features, max_width, n_codes, n_stats + 1), dtype))


def _split_bins(flat_codes, n_rows, counted, st, n_bins, categorical=None):
    """``left_bin``, ``right_bin`` (:class:`Grown`) of every split: one routing pass of the
    counted rows down the grown tree (one step per level, :func:`_dynamic_loop`), each split
    node taking the largest code of its rows going left and the least going right (missing
    codes aside). After the growth, not inside its levels: the level body, and so every other
    fit of the engine (XGBoost's float32 gains), compiles as without it; a caller that does
    not read these fields gets the pass removed as dead code."""
    M = st["left"].shape[0]
    i32 = jnp.int32
    internal = st["left"] >= 0

    def body(_, carry, flat_codes, counted, left, right, feature, tbin, mleft, *cats):
        node, low, high = carry
        rows = jnp.arange(n_rows)
        inner = left[node] >= 0
        code = flat_codes[jnp.maximum(feature[node], 0) * n_rows + rows].astype(i32)
        seen = inner & counted & (code < n_bins)
        go_left = code <= tbin[node]
        if cats:  # categorical splits: the code in the node's left set
            categorical, cat_left = cats
            in_set = cat_left[node, jnp.minimum(code, n_bins - 1)]
            go_left = jnp.where(categorical[jnp.maximum(feature[node], 0)], in_set, go_left)
        low = low.at[jnp.where(seen & go_left, node, M)].max(code, mode="drop")
        high = high.at[jnp.where(seen & ~go_left, node, M)].min(code, mode="drop")
        go_left = jnp.where(code == n_bins, mleft[node], go_left)
        node = jnp.where(inner, jnp.where(go_left, left[node], right[node]), node)
        return node, low, high

    n_levels = jnp.max(jnp.where(internal, st["depth"] + 1, 0))
    init = (jnp.zeros((n_rows,), i32), jnp.full((M,), -1, i32), jnp.full((M,), n_bins, i32))
    cats = () if categorical is None else (categorical, st["cat_left"])
    _, low, high = _dynamic_loop(n_levels, body, init,
                                 (flat_codes, counted, st["left"], st["right"], st["feature"], st["tbin"],
                                  st["mleft"]) + cats)
    return jnp.where(internal, low, -1), jnp.where(internal, high, -1)
