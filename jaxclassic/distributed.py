r"""Device meshes and row sharding: the same jitted fits on several devices and several hosts.

JAX is the distributed engine here: one program over a global device mesh, its reductions
done by XLA's collectives (gloo between CPU processes, NCCL between GPUs). This module only
lays the rows out; no fit changes and no message is passed by hand.

Why sharding rows changes no fit (only the order of a float sum). Split the rows into the
blocks :math:`B_1, \dots, B_D` held by the :math:`D` devices. The statistics of the package's
fits are weighted **row sums**, and a sum over all rows is the sum of the per-block sums:

.. math::

    X^\top W X = \sum_{d=1}^{D} X_{B_d}^\top W_{B_d} X_{B_d}, \qquad
    \nabla J = \sum_{d} \tilde X_{B_d}^\top (s \odot g)_{B_d}, \qquad
    \nabla^2 J = \sum_d \tilde X_{B_d}^\top \operatorname{diag}(s \odot h)_{B_d} \tilde X_{B_d},

and likewise the class moments of naive Bayes / LDA / QDA
(:math:`\sum_i s_i [y_i = c]\, x_i`, :math:`\sum_i s_i [y_i = c]\, x_i x_i^\top`), the
cluster sums of k-means (:math:`\sum_i s_i r_{ik} x_i`), the EM statistics of a Gaussian
mixture (:math:`\sum_i s_i \gamma_{ik} (1, x_i, x_i x_i^\top)`), the histograms of CART and
boosting (:math:`\sum_i s_i [\text{node}_i = v, \text{bin}_{ij} = b]\,(g_i, h_i, 1)`) and
the expected counts of Baum--Welch over sequences. Each device computes its block's sum and
one all-reduce adds the :math:`D` partial sums. The global result is the single-device one
up to the association of a floating-point sum (a relative difference of the order of
:math:`\epsilon \log_2 D` per statistic: ``1e-15`` in float64), so every downstream step
(solves, argmins, split choices) sees the same numbers up to that rounding (only an exact
tie, between two splits or two centres, could break the other way). Row-wise maps (scores
:math:`x_i^\top w`, responsibilities, distances of a row to the centres or to query points,
the SVM's kernel rows :math:`K(X, x_j)` and its gradient update
:math:`G_i \mathrel{+}= \Delta\alpha_j y_i y_j K(x_i, x_j)`) stay on the device that holds
the row; maxima and minima over rows (SMO's working-set choice) are reductions like sums. Nearest neighbours are not a sum but a selection,
and it splits the same way: the :math:`k` nearest rows overall are the :math:`k` nearest of
the union of each block's :math:`k` nearest (:func:`kneighbors` here: :math:`D k`
candidates a query cross the devices, not the query x index distance matrix that XLA gathers
for the plain search on a sharded index).

Padding. A device mesh of :math:`D` devices needs :math:`n` divisible by :math:`D`.
:func:`shard_rows` appends rows of weight 0 (X zero, y equal to the first row's, a valid
label): a row of weight 0 has no influence on any fit of the package (DESIGN.md), so the
padded fit is the unpadded one.

Several hosts. Start the same script on every host; call :func:`initialize` first, then
:func:`make_mesh` spans the devices of all processes and :func:`shard_rows` takes **this
process's rows** and assembles the global arrays
(:func:`jax.make_array_from_process_local_data`). Such arrays are not addressable from one
process without a collective, so :mod:`jaxclassic.validation` treats them like traced
values, eagerly or under :func:`jax.jit`: shapes and dtypes are checked, values (NaN, weights,
labels) are not, and classifiers need ``n_classes``. The fitted params are replicated and readable on every process, except fields with
one entry a row (k-means ``labels``, a k-NN index), which stay sharded. The guide is
``docs/distributed.md``.

References
----------
JAX documentation, "Distributed arrays and automatic parallelization" and "Multi-host and
multi-process environments" (``jax.sharding``, ``jax.distributed``).
Chu et al., "Map-Reduce for Machine Learning on Multicore", NIPS 2006 (the summation form
of the classical fits).
"""

from __future__ import annotations

from functools import partial
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec

from jaxclassic import _jit
from jaxclassic._deprecation import renamed_arguments
from jaxclassic.validation import check_array, check_int, check_sample_weight, default_float_dtype

__all__ = ["make_mesh", "shard_rows", "initialize", "kneighbors", "use_cpu_cores"]


def make_mesh(n_devices: int | None = None, axis_name: str = "rows") -> Mesh:
    """A one-dimensional device mesh over ``jax.devices()`` (all processes' devices).

    Parameters
    ----------
    n_devices : int, optional
        How many devices, the first ``n_devices`` of ``jax.devices()``; default all. With
        several processes, use all of them (each process must hold part of the mesh).
    axis_name : str
        Name of the mesh axis along which rows are sharded.

    Returns
    -------
    jax.sharding.Mesh
        Of shape ``(n_devices,)``.

    Raises
    ------
    ValueError
        ``n_devices`` < 1 or more than the devices available; an empty ``axis_name``.
    TypeError
        ``axis_name`` not a string.

    Examples
    --------
    >>> from jaxclassic.distributed import make_mesh
    >>> mesh = make_mesh(1)
    >>> mesh.axis_names, mesh.devices.shape
    (('rows',), (1,))

    References
    ----------
    JAX documentation, ``jax.sharding.Mesh``.
    """
    devices = jax.devices()
    if n_devices is None:
        n_devices = len(devices)
    n_devices = check_int(n_devices, "n_devices", low=1)
    if n_devices > len(devices):
        raise ValueError(f"n_devices must be <= the {len(devices)} available device(s) "
                         f"({devices[0].platform}), got {n_devices}")
    if not isinstance(axis_name, str):
        raise TypeError(f"axis_name must be a string, got {type(axis_name).__name__}")
    if not axis_name:
        raise ValueError("axis_name must be a non-empty string, got ''")
    return Mesh(np.array(devices[:n_devices]), (axis_name,))


def _local_array(x: Any, name: str) -> np.ndarray:
    """Validate one input as numpy, keeping integer codes integer and floats float."""
    kind = np.asarray(x).dtype.kind if not isinstance(x, jax.Array) else np.dtype(x.dtype).kind
    numeric = "float" if kind in "fc" else "any"
    return check_array(x, name, ndim=(1, 2, 3), numeric=numeric, allow_nan=name == "X",
                       min_samples=1, _numpy=True)


def _row_mesh(mesh) -> Mesh:
    """``mesh``, or a mesh over every device when None; checked to be a 1-axis ``Mesh``."""
    if mesh is None:
        return make_mesh()
    if not isinstance(mesh, Mesh):
        raise TypeError(f"mesh must be a jax.sharding.Mesh, got {type(mesh).__name__}")
    if len(mesh.axis_names) != 1:
        raise ValueError(f"mesh must have one axis (the rows), got axes {mesh.axis_names}")
    return mesh


def shard_rows(X: Any, y: Any = None, sample_weight: Any = None, mesh: Mesh | None = None):
    r"""Place rows (axis 0) across the devices of a mesh, padded with weight-0 rows.

    With :math:`D` devices in ``mesh`` (:math:`L` of them on this process) and :math:`n_p`
    rows on process :math:`p`, every process pads its rows to
    :math:`m = L\lceil \max_p n_p / L\rceil` (X zero, y the first row's value, weight 0) and
    the global arrays hold the processes' blocks one after the other, sharded as
    ``NamedSharding(mesh, PartitionSpec(axis))``. Since every fit's statistics are weighted
    row sums (module docstring), :math:`\sum_i s_i t(x_i, y_i)` over the padded rows equals
    the sum over the real rows, and the fit equals the single-device fit.

    Parameters
    ----------
    X : (n, ...) array-like
        This process's rows (with one process: all rows). Floats keep their precision
        (float64 only under ``jax_enable_x64``); integer codes stay integers. NaN is allowed
        (fits that accept missing values check it themselves).
    y : (n, ...) array-like, optional
        Targets or labels of the same rows.
    sample_weight : (n,) array-like, optional
        Non-negative row weights; default ones.
    mesh : jax.sharding.Mesh, optional
        A one-dimensional mesh (:func:`make_mesh`); default ``make_mesh()``.

    Returns
    -------
    X, y, sample_weight : jax.Array
        Sharded along axis 0 over ``mesh``, each of global length :math:`P m`; ``y`` is None
        when not given. ``sample_weight`` has X's float dtype (the default float dtype for
        integer X).

    Raises
    ------
    ValueError
        A mesh of more than one axis; ``X`` not 1-, 2- or 3-d, non-finite ``y``; ``y`` or
        ``sample_weight`` of another length than ``X``; negative or all-zero weights.
    TypeError
        ``mesh`` not a ``jax.sharding.Mesh``; non-numeric input.

    Examples
    --------
    >>> import numpy as np
    >>> from jaxclassic.distributed import make_mesh, shard_rows
    >>> from jaxclassic.linear import fit_ridge
    >>> X, y = np.arange(10.0).reshape(5, 2), np.arange(5.0)
    >>> Xs, ys, ws = shard_rows(X, y, mesh=make_mesh(1))
    >>> params = fit_ridge(Xs, ys, alpha=1.0, sample_weight=ws)

    References
    ----------
    JAX documentation, ``jax.make_array_from_process_local_data``.
    """
    mesh = _row_mesh(mesh)
    X = _local_array(X, "X")
    n = X.shape[0]
    if y is not None:
        y = _local_array(y, "y")
        if y.shape[0] != n:
            raise ValueError(f"X and y have inconsistent numbers of samples: {n} != {y.shape[0]}")
    w_dtype = X.dtype if X.dtype.kind == "f" else np.dtype(default_float_dtype())
    w = np.asarray(check_sample_weight(sample_weight, n, dtype=w_dtype))
    sharding = NamedSharding(mesh, PartitionSpec(mesh.axis_names[0]))
    n_local_devices = sum(d.process_index == jax.process_index() for d in mesh.devices.flat)
    if n_local_devices == 0:
        raise ValueError(f"mesh holds no device of this process ({jax.process_index()})")
    n_max = n
    if jax.process_count() > 1:  # every process must contribute a block of the same length
        from jax.experimental import multihost_utils

        n_max = int(np.max(multihost_utils.process_allgather(np.array([n]))))
    m = -(-n_max // n_local_devices) * n_local_devices

    def pad(a, fill_row):
        if a.shape[0] == m:
            return a
        extra = np.broadcast_to(fill_row, (m - a.shape[0],) + a.shape[1:]).astype(a.dtype)
        return np.concatenate([a, extra], axis=0)

    out = [pad(X, np.zeros(X.shape[1:], X.dtype))]
    out.append(None if y is None else pad(y, y[0]))
    out.append(pad(w, np.zeros((), w.dtype)))
    return tuple(None if a is None else jax.make_array_from_process_local_data(sharding, a)
                 for a in out)


def use_cpu_cores(n_devices: int | None = None) -> int:
    r"""Make the host's CPU cores JAX devices, so that boosting builds its histograms on every
    core (opt-in; call it before the first JAX computation of the process).

    XLA's CPU backend runs each scatter-add on one thread. With :math:`D` CPU devices the
    boosting fits (:func:`jaxclassic.ensemble.fit_xgboost`,
    :func:`jaxclassic.ensemble.fit_gradient_boosting` and their estimators) split the rows
    of a table of at least :data:`jaxclassic._cores.MIN_ROWS` rows into :math:`D` blocks:
    each device builds its block's histograms on its own thread and an all-reduce adds
    them (:mod:`jaxclassic._cores`). Random forests grow one block of trees per device, and
    :func:`jaxclassic.graphical.crf.fit_crf` splits its packed sentences (at least
    ``crf.SPLIT_MIN_TOKENS`` tokens) and sums its objective and gradient over the devices.
    This sets ``jax_num_cpu_devices`` (the same as
    ``jax.config.update("jax_num_cpu_devices", n_devices)``); a user's own arrays stay on
    device 0 and their programs run as before.

    Parameters
    ----------
    n_devices : int >= 1, optional
        CPU devices; default ``os.cpu_count()`` (this process's usable cores where the OS says).

    Returns
    -------
    int
        The number of CPU devices set.

    Raises
    ------
    RuntimeError
        When JAX's backends have already started with another number of devices (JAX reads
        the setting once).

    Examples
    --------
    >>> import jaxclassic.distributed as jd   # doctest: +SKIP
    >>> jd.use_cpu_cores()                     # doctest: +SKIP
    2

    References
    ----------
    JAX configuration ``jax_num_cpu_devices``; Chen & Guestrin 2016, §4 (histograms summed
    across workers).
    """
    import os

    from jax._src import xla_bridge  # backends_are_initialized: no public equivalent in jax 0.10

    if n_devices is None:
        n_devices = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    n_devices = check_int(n_devices, "n_devices", low=1)
    if xla_bridge.backends_are_initialized():
        have = len(jax.devices("cpu"))
        if have == n_devices:
            return n_devices
        raise RuntimeError(f"use_cpu_cores({n_devices}): JAX's backends have already started with {have} CPU "
                           f"device(s); call it before the first JAX computation of the process")
    jax.config.update("jax_num_cpu_devices", n_devices)
    return n_devices


def initialize(coordinator_address: str | None = None, num_processes: int | None = None,
               process_id: int | None = None, *, local_device_ids=None,
               cpu_collectives: str = "gloo", **kwargs) -> None:
    """Join a multi-process (multi-host) JAX run: a thin wrapper of ``jax.distributed.initialize``.

    Call it first in the script, on every process, before any other JAX call. Afterwards
    ``jax.devices()`` lists the devices of all processes, :func:`make_mesh` spans them, and
    collectives between processes run over gloo (CPU) or NCCL (GPU). On clusters that JAX
    detects (SLURM, Open MPI, Kubernetes, Cloud TPU) the three arguments may be left out;
    otherwise they come from the launch (``docs/distributed.md``).

    Parameters
    ----------
    coordinator_address : str, optional
        ``"host:port"`` of process 0, reachable from every process.
    num_processes : int, optional
        Total number of processes.
    process_id : int, optional
        This process's index, ``0 .. num_processes - 1``.
    local_device_ids : int or sequence of int, optional
        The local devices this process uses (default all).
    cpu_collectives : {"gloo", "mpi"}
        Cross-process collectives of the CPU backend (``jax_cpu_collectives_implementation``;
        gloo is jax's default and needs nothing installed).
    **kwargs
        Passed to ``jax.distributed.initialize`` (``initialization_timeout``,
        ``heartbeat_timeout_seconds``...).

    Raises
    ------
    ValueError
        ``cpu_collectives`` not "gloo" or "mpi"; whatever ``jax.distributed.initialize``
        raises (a missing coordinator, a second call).

    Examples
    --------
    >>> from jaxclassic import distributed
    >>> distributed.initialize("10.0.0.1:1234", num_processes=2, process_id=0)  # doctest: +SKIP

    References
    ----------
    JAX documentation, "Multi-host and multi-process environments".
    """
    if cpu_collectives not in ("gloo", "mpi"):
        raise ValueError(f"cpu_collectives must be 'gloo' or 'mpi', got {cpu_collectives!r}")
    jax.config.update("jax_cpu_collectives_implementation", cpu_collectives)
    jax.distributed.initialize(coordinator_address, num_processes, process_id,
                               local_device_ids=local_device_ids, **kwargs)


@renamed_arguments(k="n_neighbors")
def kneighbors(X_train: Any, X_query: Any, n_neighbors: int, *, mesh: Mesh | None = None,
               metric: str = "euclidean", p: float = 2, sample_weight: Any = None):
    r"""Exact k nearest neighbours in a row-sharded index: a search per device, then a top-k merge.

    With the index rows split into blocks :math:`B_1, \dots, B_D` (one a device),

    .. math::

        \mathcal N_k(q) = \operatorname{top\text{-}k}\Big(\bigcup_{d=1}^{D}
        \mathcal N_k^{B_d}(q)\Big),

    since each of the :math:`k` nearest rows overall is among the :math:`k` nearest of its own
    block. Each device runs :func:`jaxclassic.neighbors.kneighbors` on its block (tiled, rows
    of weight 0 never returned), the :math:`(n_q, k)` distances and global indices are
    all-gathered (:math:`D k` candidates a query) and the :math:`k` smallest kept; ties in
    increasing global index, as the one-device search.

    Parameters
    ----------
    X_train : (m, d) float array
        The index, sharded by rows over ``mesh`` (:func:`shard_rows`); ``m / D >= n_neighbors``.
    X_query : (n, d) float array
        Query rows (replicated on every device).
    n_neighbors : int (static)
        Neighbours per query, :math:`k` (was ``k``, deprecated until jaxclassic 0.3.0).
    mesh : jax.sharding.Mesh, optional
        The one-axis mesh of ``X_train``; default :func:`make_mesh`.
    metric, p
        As :func:`jaxclassic.neighbors.kneighbors` (static).
    sample_weight : (m,) array, optional
        Rows of weight 0 (the padding of :func:`shard_rows`) are never returned; positions
        beyond the positive-weight rows come back with distance ``inf``.

    Returns
    -------
    distances : (n, n_neighbors) float array, ascending along axis 1, replicated.
    indices : (n, n_neighbors) int32 array of global rows of ``X_train``, replicated.

    Raises
    ------
    ValueError
        ``n_neighbors < 1`` or more than the rows a device holds; ``X_train`` not 2-d or of a length
        not divisible by the devices; the checks of :func:`jaxclassic.neighbors.kneighbors`.
    TypeError
        ``mesh`` not a ``jax.sharding.Mesh``.

    Examples
    --------
    >>> import numpy as np
    >>> from jaxclassic.distributed import kneighbors, make_mesh, shard_rows
    >>> X = np.array([[0.0, 0.0], [1.0, 0.0], [3.0, 0.0]])
    >>> mesh = make_mesh(1)
    >>> Xs, _, ws = shard_rows(X, mesh=mesh)
    >>> d, i = kneighbors(Xs, np.array([[0.9, 0.0]]), 2, mesh=mesh, sample_weight=ws)
    >>> i.tolist()
    [[1, 0]]

    References
    ----------
    Johnson, Douze & Jégou, "Billion-scale similarity search with GPUs", IEEE Trans. Big Data
    (2019): k-selection per shard, then a merge of the shards' lists.
    """
    from jaxclassic.neighbors.search import check_metric

    mesh = _row_mesh(mesh)
    if np.ndim(X_train) != 2:
        raise ValueError(f"X_train must be 2-d, got an array of shape {np.shape(X_train)}")
    m = np.shape(X_train)[0]
    if m % mesh.size:
        raise ValueError(f"X_train must have a multiple of the {mesh.size} devices' rows (use "
                         f"shard_rows), got {m}")
    k = check_int(n_neighbors, "n_neighbors", low=1, high=m // mesh.size)
    metric, p = check_metric(metric, p)
    if sample_weight is None:
        sample_weight = jnp.ones((m,), jnp.result_type(X_train))
    return _merged_kneighbors(X_train, jnp.asarray(X_query), sample_weight, k=k, mesh=mesh,
                              metric=metric, p=p)


@partial(_jit.jit, static_argnames=("k", "mesh", "metric", "p"))
def _merged_kneighbors(X_train, X_query, sample_weight, *, k, mesh, metric, p):
    from jaxclassic.neighbors import kneighbors as local_kneighbors

    axis = mesh.axis_names[0]
    rows = PartitionSpec(axis)

    def block(X_block, Q, w_block):
        dist, idx = local_kneighbors(X_block, Q, k, metric=metric, p=p, sample_weight=w_block)
        idx = idx + jax.lax.axis_index(axis).astype(idx.dtype) * X_block.shape[0]
        # (n, D k) candidates, ordered by device then rank: equal distances keep index order
        dist = jax.lax.all_gather(dist, axis, axis=1, tiled=True)
        idx = jax.lax.all_gather(idx, axis, axis=1, tiled=True)
        neg, pos = jax.lax.top_k(-dist, k)
        return -neg, jnp.take_along_axis(idx, pos, axis=1)

    return jax.shard_map(block, mesh=mesh, in_specs=(rows, PartitionSpec(), rows),
                         out_specs=(PartitionSpec(), PartitionSpec()), check_vma=False)(
        X_train, X_query, sample_weight)
