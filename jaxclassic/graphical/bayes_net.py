r"""Discrete Bayesian networks: conditional probability tables over a DAG.

A network over discrete variables :math:`x_1, \dots, x_d` factorises along its DAG,

.. math::

    p(x) = \prod_{v=1}^{d} p(x_v \mid x_{\mathrm{pa}(v)}),
    \qquad p(x_v = k \mid x_{\mathrm{pa}(v)} = j) = \theta_{v, j, k},

so the log-probability of a full assignment is a sum of one table entry per variable
(:func:`joint_log_prob`), and sampling goes through the variables in a topological order
(:func:`sample`, ancestral sampling).

**Representation.** :class:`BayesNet` is a NamedTuple pytree of the tables ``cpts`` (one array
per variable, shape ``(card(pa_1), ..., card(pa_k), card(v))``: the parents' axes in the
order of :attr:`Structure.parents`, the variable's own states last, every row summing to one)
and the :class:`~jaxclassic.graphical._dag.Structure` (names, parents, cardinalities: host
data, hashable, a pytree node with no leaves, hence static under ``jit`` and ``vmap``).

**Learning from complete data** (:func:`fit_bayes_net`). The likelihood factorises per
variable and per parent configuration, so the MAP estimate under independent symmetric
Dirichlet priors with pseudo-count :math:`\alpha` on every cell is

.. math::

    \hat\theta_{v, j, k} = \frac{N_{v, j, k} + \alpha}{\sum_{k'} (N_{v, j, k'} + \alpha)},
    \qquad N_{v, j, k} = \sum_i w_i \, [x_{i, \mathrm{pa}(v)} = j] \, [x_{iv} = k],

the weighted counts (:math:`\alpha = 0` maximum likelihood, :math:`\alpha = 1` Laplace,
pgmpy's K2 prior; one :math:`\alpha_v` per variable gives the BDeu prior
:math:`\alpha_v = \mathrm{ESS} / (K_v \prod_{u \in \mathrm{pa}(v)} K_u)`,
:func:`bdeu_pseudo_counts`). A parent configuration never seen (all its counts zero with
:math:`\alpha = 0`) gets the uniform distribution, as in pgmpy. The counts are weighted sums,
so a row of weight 0 has no influence; ``pseudo_count`` is traced (a grid is a ``vmap``).

**Inference and graph queries** live beside: :func:`query` (exact posteriors by variable
elimination, :mod:`jaxclassic.graphical._elimination`), :func:`d_separated`,
:func:`markov_blanket` (:mod:`jaxclassic.graphical._dag`).

Networks do not join the ``(params, X) -> predictions`` dispatch registry: a network has no
single target; a prediction is a :func:`query` naming its target and evidence.

References
----------
D. Koller, N. Friedman, *Probabilistic Graphical Models*, MIT Press 2009, §3.2 (the chain
rule over a DAG), §12.1.1 (forward / ancestral sampling), §17.2-17.3 (maximum likelihood and
Bayesian parameter estimation, Dirichlet priors).
D. Heckerman, D. Geiger, D. M. Chickering (1995), Learning Bayesian networks: the combination
of knowledge and statistical data, Machine Learning 20, 197-243.
"""

from __future__ import annotations

from functools import partial
from typing import Mapping, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxclassic import _jit
from jaxclassic._deprecation import key_moved
from jaxclassic.graphical._dag import Structure, d_separated, make_structure, markov_blanket
from jaxclassic.graphical._elimination import query
from jaxclassic.validation import (
    check_array,
    check_key,
    check_int,
    check_sample_weight,
    check_scalar,
    default_float_dtype,
    key_from_seed,
    is_traced,
)

__all__ = [
    "Structure",
    "BayesNet",
    "make_structure",
    "make_bayes_net",
    "fit_bayes_net",
    "bdeu_pseudo_counts",
    "joint_log_prob",
    "query",
    "d_separated",
    "markov_blanket",
    "sample",
]

#: tolerance of the "rows sum to one" check of :func:`make_bayes_net`
SUM_TOLERANCE = 1e-6


class BayesNet(NamedTuple):
    """A discrete Bayesian network: conditional probability tables over a :class:`Structure`.

    Attributes
    ----------
    cpts : tuple of arrays, one per variable (in ``structure.names`` order)
        ``cpts[v][j_1, ..., j_k, s] = p(x_v = s | parents = (j_1, ..., j_k))``, shape
        ``structure.cpt_shape(v)``; the last axis sums to one.
    structure : Structure
        Static host data (no pytree leaves).
    """

    cpts: tuple
    structure: Structure


def _check_structure(structure) -> Structure:
    structure = getattr(structure, "structure", structure)
    if not isinstance(structure, Structure):
        raise TypeError("structure must be a Structure (build it with make_structure), got "
                        f"{type(structure).__name__}")
    return structure


def make_bayes_net(structure: Structure, cpts, *, dtype=None) -> BayesNet:
    """A network from given tables, checked against the structure.

    Parameters
    ----------
    structure : Structure
    cpts : mapping name -> array-like, or sequence (in ``structure.names`` order)
        Each of shape ``structure.cpt_shape(v)`` (the parents' axes, then the variable's
        states), finite, non-negative, each row summing to one (within 1e-6).
    dtype : float dtype, optional (default: float64 under x64, else float32)

    Returns
    -------
    BayesNet

    Raises
    ------
    ValueError
        A missing or unknown variable, a table of the wrong shape, a negative entry or a row
        that does not sum to one.

    Example
    -------
    >>> s = make_structure({"rain": [], "wet": ["rain"]}, [2, 2])
    >>> net = make_bayes_net(s, {"rain": [0.8, 0.2], "wet": [[0.9, 0.1], [0.2, 0.8]]})
    >>> net.cpts[1].shape
    (2, 2)
    """
    structure = _check_structure(structure)
    names = structure.names
    if isinstance(cpts, Mapping):
        missing = [n for n in names if n not in cpts]
        unknown = [n for n in cpts if n not in names]
        if missing or unknown:
            raise ValueError(f"cpts must have one table per variable: missing {missing}, "
                             f"unknown {unknown}")
        tables = [cpts[n] for n in names]
    else:
        tables = list(cpts)
        if len(tables) != len(names):
            raise ValueError(f"cpts must have one table per variable ({len(names)}), got {len(tables)}")
    dtype = dtype or default_float_dtype()
    out = []
    for v, (name, table) in enumerate(zip(names, tables)):
        arr = np.asarray(table, dtype=np.float64)
        shape = structure.cpt_shape(v)
        if arr.shape != shape:
            raise ValueError(f"cpts[{name!r}] must have shape {shape} (parents' states, then "
                             f"its own), got {arr.shape}")
        if not np.isfinite(arr).all() or (arr < 0).any():
            raise ValueError(f"cpts[{name!r}] must hold finite non-negative probabilities")
        sums = arr.sum(-1)
        if np.abs(sums - 1).max() > SUM_TOLERANCE:
            raise ValueError(f"cpts[{name!r}] must sum to 1 over its last axis (the states of "
                             f"{name!r}), got sums from {sums.min():.6g} to {sums.max():.6g}")
        out.append(jnp.asarray(arr, dtype))
    return BayesNet(tuple(out), structure)


@_jit.jit
def _codes_in_range(x, cardinalities):
    return jnp.all((x >= 0) & (x < cardinalities))


def _check_codes(x, structure: Structure, name: str, ndim):
    """Integer codes with one column per variable, each inside its cardinality."""
    columns = getattr(x, "columns", None)  # a DataFrame: its columns are matched by name
    if columns is not None:
        labels = list(columns)
        if sorted(map(repr, labels)) == sorted(map(repr, structure.names)):
            x = x[list(structure.names)]
        elif any(isinstance(c, str) for c in labels):
            raise ValueError(f"{name} has the columns {labels}, which are not the network's "
                             f"variables {list(structure.names)}")
    ndims = ndim if isinstance(ndim, tuple) else (ndim,)
    on_device = (isinstance(x, jax.Array) and not is_traced(x) and x.ndim in ndims
                 and jnp.issubdtype(x.dtype, jnp.integer) and x.shape[0] > 0)
    if on_device:  # integer jax codes: one reduction on the device, no copy to the host
        x = x.astype(jnp.int32)
    else:
        x = check_array(x, name, ndim=ndim, numeric="int", min_samples=1)
    d = structure.n_variables
    if x.shape[-1] != d:
        raise ValueError(f"{name} must have one column per variable ({d}: {list(structure.names)}), "
                         f"got shape {x.shape}")
    if on_device and bool(_codes_in_range(x, jnp.asarray(structure.cardinalities, jnp.int32))):
        return x
    if not is_traced(x):
        codes = np.asarray(x).reshape(-1, d)
        for j, (var, card) in enumerate(zip(structure.names, structure.cardinalities)):
            bad = (codes[:, j] < 0) | (codes[:, j] >= card)
            if bad.any():
                raise ValueError(f"{name} column {j} ({var!r}) holds the value "
                                 f"{int(codes[bad, j][0])} outside its cardinality {card} "
                                 f"(states 0..{card - 1})")
    return x


def _flat_config(x, structure: Structure, v: int):
    """Row-major index of ``(x_pa(v), x_v)`` in the flattened table of ``v``."""
    idx = jnp.zeros(x.shape[:-1], jnp.int32)
    for a in structure.parents[v] + (v,):
        idx = idx * structure.cardinalities[a] + x[..., a]
    return idx


@partial(_jit.jit, static_argnames=("structure",))
def _fit(X, sample_weight, pseudo_count, structure):
    alphas = jnp.asarray(pseudo_count, sample_weight.dtype)
    cpts, counts = [], []
    for v in range(structure.n_variables):
        alpha = alphas[v] if alphas.ndim else alphas
        shape = structure.cpt_shape(v)
        n_cells = int(np.prod(shape))
        count = jax.ops.segment_sum(sample_weight, _flat_config(X, structure, v),
                                    num_segments=n_cells).reshape(shape)
        smoothed = count + alpha
        total = smoothed.sum(-1, keepdims=True)
        uniform = jnp.full_like(smoothed, 1.0 / shape[-1])
        cpts.append(jnp.where(total > 0, smoothed / jnp.where(total > 0, total, 1), uniform))
        counts.append(count)
    return tuple(cpts), tuple(counts)


def fit_bayes_net(X, structure: Structure, *, pseudo_count=0.0, sample_weight=None) -> BayesNet:
    r"""Conditional probability tables from complete data by weighted counting (MAP).

    .. math::

        \hat\theta_{v, j, k} = \frac{N_{v, j, k} + \alpha}{\sum_{k'} N_{v, j, k'} + \alpha K_v},
        \qquad N_{v, j, k} = \sum_i w_i [x_{i,\mathrm{pa}(v)} = j][x_{iv} = k]

    (maximum likelihood at :math:`\alpha = 0`; the uniform distribution for a parent
    configuration with no weight and :math:`\alpha = 0`). One ``segment_sum`` per variable:
    :math:`O(n d)` work.

    Parameters
    ----------
    X : array-like (n_samples, n_variables) of int
        States coded ``0 .. cardinality - 1``, column ``j`` for ``structure.names[j]`` (a
        DataFrame whose columns are the variables' names is matched by name, in any order).
    structure : Structure
        The DAG and cardinalities (:func:`make_structure`); static.
    pseudo_count : float >= 0, or array (n_variables,) of them
        The Dirichlet pseudo-count :math:`\alpha` added to every cell (1 = Laplace / K2), or
        one per variable (BDeu: :func:`bdeu_pseudo_counts`); traced.
    sample_weight : array-like (n_samples,), optional
        Non-negative row weights (a zero-weight row has no influence).

    Returns
    -------
    BayesNet, its tables in the float dtype of ``sample_weight`` (default float32, float64
    under x64).

    Example
    -------
    >>> s = make_structure({"rain": [], "wet": ["rain"]}, [2, 2])
    >>> net = fit_bayes_net([[0, 0], [0, 1], [1, 1], [0, 0]], s)
    >>> [round(float(p), 4) for p in net.cpts[1][0]]
    [0.6667, 0.3333]

    References
    ----------
    Koller & Friedman (2009), §17.2.2 (maximum likelihood), §17.3 (Dirichlet priors);
    Heckerman, Geiger & Chickering (1995).
    """
    structure = _check_structure(structure)
    X = _check_codes(X, structure, "X", 2)
    if isinstance(pseudo_count, (list, tuple)):  # one per variable, given as a list
        pseudo_count = np.asarray(pseudo_count, dtype=np.float64)
    check_scalar(pseudo_count, "pseudo_count", low=0.0, allow_array=True)
    if np.ndim(pseudo_count) not in (0, 1) or (
            np.ndim(pseudo_count) == 1 and np.shape(pseudo_count)[0] != structure.n_variables):
        raise ValueError(f"pseudo_count must be a scalar or have one entry per variable "
                         f"({structure.n_variables}), got shape {np.shape(pseudo_count)}")
    sw_dtype = None
    if hasattr(sample_weight, "dtype") and jnp.issubdtype(sample_weight.dtype, jnp.floating):
        sw_dtype = sample_weight.dtype if jax.config.read("jax_enable_x64") else jnp.float32
    sample_weight = check_sample_weight(sample_weight, X.shape[0], dtype=sw_dtype)
    cpts, _ = _fit(X, sample_weight, pseudo_count, structure)
    return BayesNet(cpts, structure)


def bdeu_pseudo_counts(structure: Structure, equivalent_sample_size=1.0) -> jax.Array:
    r"""Per-variable pseudo-counts of the BDeu prior (likelihood-equivalent, uniform).

    .. math::  \alpha_v = \frac{\mathrm{ESS}}{K_v \prod_{u \in \mathrm{pa}(v)} K_u}

    the equivalent sample size spread evenly over the cells of each table; pass the result
    as ``pseudo_count`` of :func:`fit_bayes_net` (pgmpy's ``prior_type="BDeu"``).

    Parameters
    ----------
    structure : Structure
    equivalent_sample_size : float > 0 (may be traced)

    Returns
    -------
    array (n_variables,)

    Example
    -------
    >>> s = make_structure({"a": [], "b": ["a"]}, [2, 3])
    >>> [round(float(a), 4) for a in bdeu_pseudo_counts(s, 6.0)]
    [3.0, 1.0]

    References
    ----------
    Heckerman, Geiger & Chickering (1995), §5 (the BDe metric and its uniform BDeu case).
    """
    structure = _check_structure(structure)
    check_scalar(equivalent_sample_size, "equivalent_sample_size", low=0.0, include_low=False)
    cells = np.array([np.prod(structure.cpt_shape(v)) for v in range(structure.n_variables)])
    return jnp.asarray(equivalent_sample_size, default_float_dtype()) / jnp.asarray(cells)


@partial(_jit.jit, static_argnames=("structure",))
def _joint_log_prob(cpts, x, structure):
    total = 0.0
    for v in range(structure.n_variables):
        # the log of the entries used only: log of the whole table would put 0 * (1 / 0) = NaN
        # in the gradient at every zero entry, used or not
        total = total + jnp.log(cpts[v].reshape(-1)[_flat_config(x, structure, v)])
    # codes are range-checked on the host unless traced: a traced state outside its
    # cardinality would index another cell of the flattened table, so it gives NaN instead
    inside = jnp.all((x >= 0) & (x < jnp.asarray(structure.cardinalities)), axis=-1)
    return jnp.where(inside, total, jnp.nan)


def joint_log_prob(net: BayesNet, x):
    r"""Log-probability of full assignments by the chain rule over the DAG.

    .. math::  \log p(x) = \sum_v \log \theta_{v, x_{\mathrm{pa}(v)}, x_v}

    Parameters
    ----------
    net : BayesNet
    x : array-like (n_variables,) or (n_samples, n_variables) of int
        States, column ``j`` for ``structure.names[j]`` (a DataFrame is matched by column
        name); ``jax.vmap`` over rows works too.

    Returns
    -------
    scalar, or (n_samples,): ``-inf`` where an entry of probability zero is used; NaN for a
    row with a state outside its cardinality that could not be checked (traced ``x``).

    Example
    -------
    >>> s = make_structure({"rain": [], "wet": ["rain"]}, [2, 2])
    >>> net = make_bayes_net(s, {"rain": [0.8, 0.2], "wet": [[0.9, 0.1], [0.2, 0.8]]})
    >>> round(float(jnp.exp(joint_log_prob(net, [1, 1]))), 4)
    0.16

    References
    ----------
    Koller & Friedman (2009), §3.2.
    """
    x = _check_codes(x, net.structure, "x", (1, 2))
    return _joint_log_prob(tuple(net.cpts), x, net.structure)


@partial(_jit.jit, static_argnames=("structure", "n_samples"))
def _sample(cpts, key, structure, n_samples):
    def one(k):
        keys = jax.random.split(k, structure.n_variables)
        x = jnp.zeros(structure.n_variables, jnp.int32)
        for v in structure.order:
            table = cpts[v][tuple(x[p] for p in structure.parents[v])]
            state = jax.random.categorical(keys[v], jnp.log(table))
            x = x.at[v].set(state.astype(jnp.int32))
        return x

    return jax.vmap(one)(jax.random.split(key, n_samples))


@key_moved(2)
def sample(net: BayesNet, n_samples: int, *, key=None) -> jax.Array:
    r"""Draw complete assignments by ancestral (forward) sampling.

    Each sample visits the variables in a topological order and draws
    :math:`x_v \sim p(\cdot \mid x_{\mathrm{pa}(v)})` from its table row (parents already
    drawn); the ``n_samples`` draws are a ``jax.vmap`` over split keys.

    Parameters
    ----------
    net : BayesNet
    n_samples : int >= 1 (static)
    key : jax.random key, optional
        ``None`` (default): ``jax.random.key(0)``, so calls without a key are deterministic.
        The old order ``sample(net, n_samples, key)`` still works, with a
        ``DeprecationWarning``, until jaxclassic 0.3.0.

    Returns
    -------
    int32 array (n_samples, n_variables), column ``j`` for ``structure.names[j]``.

    Example
    -------
    >>> s = make_structure({"rain": [], "wet": ["rain"]}, [2, 2])
    >>> net = make_bayes_net(s, {"rain": [0.8, 0.2], "wet": [[0.9, 0.1], [0.2, 0.8]]})
    >>> sample(net, 5, key=jax.random.key(0)).shape
    (5, 2)

    References
    ----------
    Koller & Friedman (2009), §12.1.1; M. Henrion (1988), Propagating uncertainty in Bayesian
    networks by probabilistic logic sampling.
    """
    n_samples = check_int(n_samples, "n_samples", low=1)
    key = key_from_seed(0) if key is None else check_key(key)
    return _sample(tuple(net.cpts), key, net.structure, n_samples)
