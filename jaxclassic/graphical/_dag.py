r"""The structure of a discrete Bayesian network (host data) and its graph algorithms.

A :class:`Structure` is the DAG of a network with the cardinality of each variable: names,
parents (as indices into ``names``), cardinalities, and a topological order checked once when
it is built. It is plain, hashable Python data, so it is a *static* argument of every jitted
function of :mod:`jaxclassic.graphical.bayes_net` (a different graph is a different program;
the same graph with new numbers reuses the compiled one). It is registered as a pytree node
with **no leaves**, so a :class:`~jaxclassic.graphical.bayes_net.BayesNet` holding it passes
through ``jax.jit`` / ``jax.vmap`` with the structure in its tree definition.

Graph algorithms (all host-side, on the structure only):

- :func:`d_separated`: the reachability ("Bayes-ball") algorithm of Koller & Friedman,
  Algorithm 3.1: a trail is active when every v-structure on it has itself or a descendant in
  the conditioning set and every other node on it is outside the set.
- :func:`markov_blanket`: parents, children and the children's other parents.
- :func:`elimination_order`: greedy min-fill (ties by min-degree, then by position) on the
  interaction graph of a set of factors, the order used by variable elimination.

References
----------
D. Koller, N. Friedman, *Probabilistic Graphical Models*, MIT Press 2009, §3.3.3 (Algorithm
3.1, reachable nodes), §9.4.3 (elimination orderings: min-fill, min-degree).
J. Pearl, *Probabilistic Reasoning in Intelligent Systems*, 1988, §3.3 (d-separation, the
Markov blanket).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

import jax

__all__ = ["Structure", "make_structure", "d_separated", "markov_blanket", "elimination_order"]


@dataclass(frozen=True)
class Structure:
    """The DAG of a discrete Bayesian network and its variables' cardinalities (static data).

    Build it with :func:`make_structure`, which checks it; the fields are plain tuples.

    Attributes
    ----------
    names : tuple of str, (d,)
        Variable names; column ``j`` of a data matrix holds variable ``names[j]``.
    parents : tuple of tuple of int, (d,)
        ``parents[j]``: indices of the parents of variable ``j``, in the order of the axes of
        its conditional probability table.
    cardinalities : tuple of int, (d,)
        Number of states of each variable; states are coded ``0 .. cardinality - 1``.
    order : tuple of int, (d,)
        A topological order (every parent before its children).
    """

    names: tuple
    parents: tuple
    cardinalities: tuple
    order: tuple

    @property
    def n_variables(self) -> int:
        return len(self.names)

    def index(self, name, argument: str = "variable") -> int:
        """Column index of variable ``name``; ``ValueError`` naming ``argument`` if unknown."""
        try:
            return self.names.index(name)
        except ValueError:
            raise ValueError(
                f"{argument} names an unknown variable {name!r}; the network's variables are "
                f"{list(self.names)}"
            ) from None

    def children(self, v: int) -> tuple:
        return tuple(c for c in range(self.n_variables) if v in self.parents[c])

    def cpt_shape(self, v: int) -> tuple:
        """Shape of the table of variable ``v``: its parents' cardinalities, then its own."""
        return tuple(self.cardinalities[p] for p in self.parents[v]) + (self.cardinalities[v],)


jax.tree_util.register_pytree_node(Structure, lambda s: ((), s), lambda s, _: s)


def _topological_order(names: tuple, parents: tuple) -> tuple:
    """Kahn's algorithm (lowest index first among the ready nodes); ``ValueError`` on a cycle."""
    n = len(names)
    n_missing = [len(p) for p in parents]
    children = [[c for c in range(n) if v in parents[c]] for v in range(n)]
    ready = [v for v in range(n) if n_missing[v] == 0]
    order = []
    while ready:
        v = min(ready)
        ready.remove(v)
        order.append(v)
        for c in children[v]:
            n_missing[c] -= 1
            if n_missing[c] == 0:
                ready.append(c)
    if len(order) < n:
        left = [names[v] for v in range(n) if v not in order]
        raise ValueError(f"structure must be acyclic, got a cycle through the variables {left}")
    return tuple(order)


def make_structure(parents: Mapping, cardinalities) -> Structure:
    """Build and check the DAG of a discrete Bayesian network.

    Parameters
    ----------
    parents : mapping name -> sequence of names
        Every variable is a key (in the order of the data columns); its value lists its
        parents, in the order of the axes of its conditional probability table.
    cardinalities : mapping name -> int, or sequence of int (in the order of ``parents``)
        Number of states of each variable (>= 1).

    Returns
    -------
    Structure

    Raises
    ------
    ValueError
        A cycle, a parent that is not a variable, a repeated parent, a variable that is its
        own parent, a missing or non-positive cardinality.

    Example
    -------
    >>> s = make_structure({"rain": [], "sprinkler": ["rain"], "wet": ["rain", "sprinkler"]},
    ...                    {"rain": 2, "sprinkler": 2, "wet": 2})
    >>> s.parents, s.order
    (((), (0,), (0, 1)), (0, 1, 2))
    """
    if not isinstance(parents, Mapping):
        raise TypeError(f"parents must be a mapping name -> list of parent names, got "
                        f"{type(parents).__name__}")
    names = tuple(parents)
    if not names:
        raise ValueError("parents must name at least one variable, got an empty mapping")
    index = {name: j for j, name in enumerate(names)}
    parent_idx = []
    for name in names:
        pa = parents[name]
        if isinstance(pa, (str, bytes)) or not isinstance(pa, Iterable):
            raise TypeError(f"parents[{name!r}] must be a list of names, got {pa!r}")
        pa = list(pa)
        for p in pa:
            if p not in index:
                raise ValueError(f"parents[{name!r}] names an unknown variable {p!r}; the "
                                 f"variables are {list(names)}")
        if name in pa:
            raise ValueError(f"structure must be acyclic, got {name!r} as its own parent")
        if len(set(pa)) != len(pa):
            raise ValueError(f"parents[{name!r}] repeats a parent: {pa}")
        parent_idx.append(tuple(index[p] for p in pa))
    if isinstance(cardinalities, Mapping):
        missing = [n for n in names if n not in cardinalities]
        if missing:
            raise ValueError(f"cardinalities is missing the variables {missing}")
        unknown = [n for n in cardinalities if n not in index]
        if unknown:
            raise ValueError(f"cardinalities names unknown variables {unknown}")
        cards = [cardinalities[n] for n in names]
    else:
        cards = list(cardinalities)
        if len(cards) != len(names):
            raise ValueError(f"cardinalities must have one entry per variable ({len(names)}), "
                             f"got {len(cards)}")
    for name, c in zip(names, cards):
        if isinstance(c, bool) or not isinstance(c, numbers.Integral) or c < 1:
            raise ValueError(f"cardinalities[{name!r}] must be an int >= 1, got {c!r}")
    parent_idx = tuple(parent_idx)
    order = _topological_order(names, parent_idx)
    return Structure(names, parent_idx, tuple(int(c) for c in cards), order)


def _as_index_set(structure: Structure, names, argument: str) -> set:
    if names is None:
        return set()
    if isinstance(names, str) or not isinstance(names, Iterable):
        names = [names]
    return {structure.index(n, argument) for n in names}


def _reachable(structure: Structure, sources: set, given: set) -> set:
    """Nodes reachable from ``sources`` by an active trail given ``given`` (K&F Algorithm 3.1)."""
    # phase 1: the conditioning set and its ancestors (a v-structure is open iff its middle
    # node is in this set)
    ancestors, stack = set(), list(given)
    while stack:
        v = stack.pop()
        if v not in ancestors:
            ancestors.add(v)
            stack.extend(structure.parents[v])
    children = [structure.children(v) for v in range(structure.n_variables)]
    # phase 2: traverse (node, direction) pairs; "up" = reached from a child, "down" = from a parent
    visited, reachable = set(), set()
    stack = [(s, "up") for s in sources]
    while stack:
        v, direction = stack.pop()
        if (v, direction) in visited:
            continue
        visited.add((v, direction))
        if v not in given:
            reachable.add(v)
        if direction == "up" and v not in given:
            stack.extend((p, "up") for p in structure.parents[v])
            stack.extend((c, "down") for c in children[v])
        elif direction == "down":
            if v not in given:  # chain / fork through an unobserved node
                stack.extend((c, "down") for c in children[v])
            if v in ancestors:  # v-structure opened by v or one of its descendants
                stack.extend((p, "up") for p in structure.parents[v])
    return reachable


def d_separated(structure: Structure, x, y, given=None) -> bool:
    r"""Whether ``x`` and ``y`` are d-separated by ``given`` in the DAG of ``structure``.

    :math:`X \perp Y \mid Z` holds in every distribution that factorises over the DAG iff no
    trail between a node of ``x`` and a node of ``y`` is active given ``Z``: on an active
    trail every collider :math:`a \to v \leftarrow b` has ``v`` or a descendant of ``v`` in
    ``Z``, and every other node (chain :math:`a \to v \to b`, fork
    :math:`a \leftarrow v \to b`) is outside ``Z``. Decided by the linear-time reachability
    ("Bayes-ball") algorithm.

    Parameters
    ----------
    structure : Structure (or a BayesNet, whose structure is used)
    x, y : name or iterable of names
    given : iterable of names, optional
        The conditioning set ``Z`` (default empty). A variable of ``x`` or ``y`` inside
        ``given`` is observed, hence separated from everything (pgmpy's convention).

    Returns
    -------
    bool

    Example
    -------
    >>> s = make_structure({"a": [], "b": [], "c": ["a", "b"]}, [2, 2, 2])
    >>> d_separated(s, "a", "b"), d_separated(s, "a", "b", given=["c"])
    (True, False)

    References
    ----------
    Koller & Friedman (2009), Algorithm 3.1; Pearl (1988), §3.3.1.
    """
    structure = getattr(structure, "structure", structure)
    xs = _as_index_set(structure, x, "x")
    ys = _as_index_set(structure, y, "y")
    zs = _as_index_set(structure, given, "given")
    if not xs or not ys:
        raise ValueError("x and y must each name at least one variable")
    return not (_reachable(structure, xs - zs, zs) & (ys - zs))


def markov_blanket(structure: Structure, v) -> tuple:
    """The Markov blanket of ``v``: its parents, its children and its children's other parents.

    Given its blanket, a variable is independent of every other variable of the network.

    Parameters
    ----------
    structure : Structure (or a BayesNet)
    v : name

    Returns
    -------
    tuple of names, in the order of ``structure.names``.

    Example
    -------
    >>> s = make_structure({"a": [], "b": [], "c": ["a", "b"], "d": ["c"]}, [2, 2, 2, 2])
    >>> markov_blanket(s, "a")
    ('b', 'c')

    References
    ----------
    Pearl (1988), §3.2.1.
    """
    structure = getattr(structure, "structure", structure)
    j = structure.index(v, "v")
    blanket = set(structure.parents[j])
    for c in structure.children(j):
        blanket.add(c)
        blanket.update(structure.parents[c])
    blanket.discard(j)
    return tuple(structure.names[k] for k in sorted(blanket))


def elimination_order(scopes: Sequence[Sequence[int]], eliminate: Iterable[int]) -> list:
    """Greedy min-fill order over the interaction graph of factors with the given scopes.

    At each step the variable whose elimination adds the fewest new edges among its
    neighbours is chosen (ties: fewest neighbours, then smallest index); it is then removed
    and its neighbours joined into a clique, as elimination does to the factors.

    Parameters
    ----------
    scopes : sequence of sequences of variable indices (one per factor)
    eliminate : the variables to order (the others stay in the graph, never eliminated)

    Returns
    -------
    list of int
    """
    neighbours: dict = {}
    for scope in scopes:
        for a in scope:
            neighbours.setdefault(a, set()).update(b for b in scope if b != a)
    remaining = set(eliminate)
    order = []
    while remaining:
        def cost(v):
            nb = list(neighbours.get(v, ()))
            fill = sum(1 for i, a in enumerate(nb) for b in nb[i + 1:] if b not in neighbours[a])
            return fill, len(nb), v

        v = min(remaining, key=cost)
        nb = neighbours.pop(v, set())
        for a in nb:
            neighbours[a].discard(v)
            neighbours[a].update(nb - {a})
        remaining.remove(v)
        order.append(v)
    return order
