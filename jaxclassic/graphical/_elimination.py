r"""Exact inference in a discrete Bayesian network by variable elimination.

.. math::

    p(x_Q \mid x_E = e) = \frac{1}{Z} \sum_{x_H} \prod_{v} p(x_v \mid x_{\mathrm{pa}(v)})
    \Big|_{x_E = e}, \qquad Z = p(x_E = e),

with ``H`` the variables neither queried nor observed. The plan is made on the host, once
per (graph, targets, evidence variables) and cached:

1. *Barren nodes*: only the ancestors of ``Q`` and ``E`` matter (a leaf outside both sums to
   one), so the other tables are dropped.
2. *Evidence*: each table is indexed at the observed values (``jnp.take`` along that axis:
   the values may be traced, so a batch of evidence is a ``jax.vmap``).
3. *Order*: greedy min-fill on the interaction graph of the reduced factors
   (:func:`~jaxclassic.graphical._dag.elimination_order`).
4. *Elimination*: for each hidden variable in that order, the factors that hold it are
   multiplied and it is summed out in one ``einsum`` (a factor whose scope lies inside
   another's is first multiplied into it); every factor (the evidence-indexed tables, each
   such product, each new factor and each step of the final product over the targets) is
   divided by its maximum (a constant, which cancels in the normalisation) so long products
   of small probabilities do not underflow, and a factor stays identically zero only when
   the evidence has probability zero.

The numeric part is one jitted program of the CPT arrays and the evidence values. The cost is
exponential only in the width of the order (the largest factor built), as for any exact
method.

References
----------
N. L. Zhang, D. Poole (1994), A simple approach to Bayesian network computations, Proc.
Canadian AI. Koller & Friedman (2009), *Probabilistic Graphical Models*, §9.3 (sum-product
variable elimination), §9.4.3 (min-fill). A. Darwiche (2003), A differential approach to
inference in Bayesian networks, J. ACM 50(3), 280-305 (all marginals from one elimination).
"""

from __future__ import annotations

import string
from collections.abc import Iterable
from functools import lru_cache, partial

import jax
import jax.numpy as jnp
import numpy as np

from jaxclassic import _jit
from jaxclassic import _precision
from jaxclassic.graphical._dag import Structure, elimination_order
from jaxclassic.validation import is_traced

__all__ = ["query"]

_LETTERS = string.ascii_letters


def _einsum(factors, scopes, out_scope):
    """Product of ``factors`` (axes labelled by ``scopes``) summed down to ``out_scope``."""
    labels = {}
    for v in [a for s in scopes for a in s] + list(out_scope):
        labels.setdefault(v, _LETTERS[len(labels)])
    spec = ",".join("".join(labels[a] for a in s) for s in scopes)
    spec += "->" + "".join(labels[a] for a in out_scope)
    return jnp.einsum(spec, *factors, precision=_precision.PRECISION, optimize="greedy")


def _aligned(f, scope, out):
    """``f`` (axes labelled by ``scope``, a subset of ``out``) laid out to broadcast over ``out``."""
    present = [a for a in out if a in scope]
    f = jnp.transpose(f, [scope.index(a) for a in present])
    return f.reshape(tuple(f.shape[present.index(a)] if a in scope else 1 for a in out))


def _product(factors, scopes, out):
    """Product of ``factors`` broadcast over ``out`` (every scope inside it), rescaled after
    each multiplication: a product of many factors whose maxima fall on different states
    (conflicting evidence) would otherwise underflow in float32 before it is normalised."""
    table = None
    for f, s in zip(factors, scopes):
        f = _aligned(f, s, out)
        table = f if table is None else _rescale(table * f)
    return table


def _rescale(f):
    # the scale is a constant of the normalised result: no gradient through it (the value
    # and the derivatives of the normalised tables do not depend on it)
    m = jax.lax.stop_gradient(jnp.max(f))
    return f / jnp.where(m > 0, m, 1)


@lru_cache(maxsize=256)
def _plan(structure: Structure, targets: tuple, observed: tuple, eliminate_targets=False):
    """Host-side plan: kept variables, factor scopes after evidence, elimination order."""
    keep, stack = set(), list(targets) + list(observed)
    while stack:  # ancestors of the targets and the evidence (the rest is barren)
        v = stack.pop()
        if v not in keep:
            keep.add(v)
            stack.extend(structure.parents[v])
    kept = tuple(sorted(keep))
    scopes = []
    for v in kept:
        scope = structure.parents[v] + (v,)
        scopes.append(tuple(a for a in scope if a not in observed))
    hidden = [v for v in kept if v not in observed and (eliminate_targets or v not in targets)]
    order = tuple(elimination_order(scopes, hidden))
    return kept, tuple(scopes), order


def _evidence_factors(cpts, values, structure, kept, observed):
    """The kept tables indexed at the observed values, each rescaled to a maximum of one."""
    factors = []
    for v in kept:
        f = cpts[v]
        scope = structure.parents[v] + (v,)
        # index the observed axes, last axis first so earlier axis numbers stay valid
        for axis in reversed(range(len(scope))):
            if scope[axis] in observed:
                f = jnp.take(f, values[observed.index(scope[axis])], axis=axis)
        # rescaled too: the rows picked by the evidence (scalars when a whole scope is
        # observed) would otherwise multiply into one product that underflows in float32
        factors.append(_rescale(f))
    return factors


def _absorb(pool):
    """Multiply each factor whose scope lies inside another's into that one (broadcast,
    rescaled): many small factors on one variable (conflicting evidence on its children)
    then never meet in one product, which could underflow; no table grows."""
    kept = []
    for f, s in sorted(pool, key=lambda fs: -len(fs[1])):
        host = next((i for i, (_, t) in enumerate(kept) if set(s) <= set(t)), None)
        if host is None:
            kept.append((f, s))
        else:
            g, t = kept[host]
            kept[host] = (_rescale(g * _aligned(f, s, t)), t)
    return kept


def _eliminate(pool, order):
    """Sum the variables of ``order`` out of the ``(factor, scope)`` pool, one at a time."""
    for v in order:
        touching = [(f, s) for f, s in pool if v in s]
        pool = [(f, s) for f, s in pool if v not in s]
        touching = _absorb(touching)
        out = tuple(sorted({a for _, s in touching for a in s} - {v}))
        new = _einsum([f for f, _ in touching], [s for _, s in touching], out)
        pool.append((_rescale(new), out))
    return pool


@partial(_jit.jit, static_argnames=("structure", "targets", "observed"))
def _query_joint(cpts, values, structure, targets, observed):
    """Normalised joint table over ``targets`` given ``observed = values``, and the evidence mass.

    ``mass`` is the sum of the unnormalised table after the per-factor rescaling: zero iff the
    evidence has probability zero.
    """
    kept, scopes, order = _plan(structure, targets, observed)
    factors = _evidence_factors(cpts, values, structure, kept, observed)
    pool = _eliminate(list(zip(factors, scopes)), order)
    # every target keeps its own table's factor, so the product spans all the target axes
    table = _product([f for f, _ in pool], [s for _, s in pool], targets)
    mass = jnp.sum(table)
    return table / mass, mass


@partial(_jit.jit, static_argnames=("structure", "targets", "observed"))
def _query_marginals(cpts, values, structure, targets, observed):
    r"""One posterior marginal per target from a single elimination and its gradient.

    With an indicator vector :math:`\lambda_t` (all ones) multiplied into the table of each
    target, :math:`Z(\lambda) = p(e)` and
    :math:`\lambda_{t,k}\, \partial Z / \partial \lambda_{t,k} = p(x_t = k, e)`
    (Darwiche 2003), so every marginal comes from one elimination of all the kept variables
    and its reverse pass: one program for any number of targets. Returns the marginals and
    the evidence mass (as :func:`_query_joint`).
    """
    kept, scopes, order = _plan(structure, targets, observed, eliminate_targets=True)
    factors = _evidence_factors(cpts, values, structure, kept, observed)

    def mass(lams):
        # a target is unobserved, so its own axis is the last of its factor
        fs = [f * lams[targets.index(v)] if v in targets else f for f, v in zip(factors, kept)]
        pool = _eliminate(list(zip(fs, scopes)), order)
        return _product([f for f, _ in pool], [s for _, s in pool], ())

    ones = tuple(jnp.ones(structure.cardinalities[t], factors[0].dtype) for t in targets)
    z, grads = jax.value_and_grad(mass)(ones)
    return tuple(g / jnp.sum(g) for g in grads), z


def query(net, targets, evidence=None, *, joint: bool = False):
    r"""Exact posterior marginals :math:`p(x_q \mid x_E = e)` by variable elimination.

    The sum-product elimination of the hidden variables in a min-fill order (module
    docstring); the plan is cached per graph, targets and evidence variables, and the numeric
    part is one jitted program, so repeated queries and a ``jax.vmap`` over evidence values
    reuse it.

    Parameters
    ----------
    net : BayesNet
    targets : name or sequence of names
        The query variables (not among the evidence).
    evidence : mapping name -> int, optional
        Observed values, each in ``0 .. cardinality - 1``; values may be traced (under
        ``jax.vmap`` / ``jax.jit``).
    joint : bool
        With several targets: return their joint table instead of one marginal each. The
        marginals of several targets come from one elimination of every kept variable and
        its reverse-mode gradient in indicator vectors on the targets (Darwiche 2003): one
        program whatever the number of targets.

    Returns
    -------
    array (card,) for one target name; for a sequence of targets a dict name -> (card,)
    marginal, or with ``joint=True`` one array with an axis per target (in the given order).

    Raises
    ------
    ValueError
        An unknown variable name, a target that is also observed, a repeated target, an
        evidence value outside the variable's cardinality, or evidence of probability zero
        (checked when the evidence is concrete; under ``jit``/``vmap`` such rows, and rows
        with a traced evidence value outside the cardinality, come back as NaN, the only way
        a traced program can say so).

    Example
    -------
    >>> from jaxclassic.graphical.bayes_net import make_structure, make_bayes_net
    >>> s = make_structure({"rain": [], "wet": ["rain"]}, [2, 2])
    >>> net = make_bayes_net(s, {"rain": [0.8, 0.2], "wet": [[0.9, 0.1], [0.2, 0.8]]})
    >>> [round(float(p), 4) for p in query(net, "rain", {"wet": 1})]
    [0.3333, 0.6667]

    References
    ----------
    Zhang & Poole (1994); Koller & Friedman (2009), §9.3-9.4.
    """
    structure = net.structure
    single = isinstance(targets, (str, bytes)) or not isinstance(targets, Iterable)
    target_names = [targets] if single else list(targets)
    if not target_names:
        raise ValueError("targets must name at least one variable, got an empty list")
    t_idx = tuple(structure.index(t, "targets") for t in target_names)
    if len(set(t_idx)) != len(t_idx):
        raise ValueError(f"targets repeats a variable: {target_names}")
    evidence = {} if evidence is None else dict(evidence)
    items = sorted((structure.index(k, "evidence"), val) for k, val in evidence.items())
    observed = tuple(i for i, _ in items)
    for t, name in zip(t_idx, target_names):
        if t in observed:
            raise ValueError(f"targets and evidence share the variable {name!r}")
    values = []
    for i, val in items:
        name, card = structure.names[i], structure.cardinalities[i]
        if not is_traced(val):
            arr = np.asarray(val)
            integral = np.issubdtype(arr.dtype, np.integer) or (
                np.issubdtype(arr.dtype, np.floating) and arr.ndim == 0
                and np.isfinite(arr) and float(arr) == round(float(arr)))
            if arr.ndim != 0 or not integral:
                raise ValueError(f"evidence[{name!r}] must be an integer state, got {val!r}")
            if not 0 <= int(arr) < card:
                raise ValueError(f"evidence[{name!r}] = {int(arr)} is outside the cardinality of "
                                 f"{name!r} (states 0..{card - 1})")
            values.append(np.int32(int(arr)))  # host scalar: no device op per value
        else:  # unchecked under a trace: a state outside 0..card-1 (negative ones included,
            # which jnp.take would wrap around) is sent out of bounds, so its row comes back NaN
            val = jnp.asarray(val, jnp.int32)
            values.append(jnp.where((val >= 0) & (val < card), val, card))
    cpts = tuple(net.cpts)

    def run(tgt):
        table, mass = _query_joint(cpts, tuple(values), structure, tgt, observed)
        if not is_traced(mass) and float(mass) == 0.0:
            raise ValueError(f"evidence has probability zero under the network: {evidence}")
        return table

    if single or joint:
        return run(t_idx)
    tables, mass = _query_marginals(cpts, tuple(values), structure, t_idx, observed)
    if not is_traced(mass) and float(mass) == 0.0:
        raise ValueError(f"evidence has probability zero under the network: {evidence}")
    return dict(zip(target_names, tables))
