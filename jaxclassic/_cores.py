r"""The CPU's cores as JAX devices: boosting's histograms built on every core (issue 26).

XLA's CPU backend runs a scatter-add on one thread, and the histograms of the tree engine
(:mod:`jaxclassic.tree._engine`) are scatter-adds: on one CPU device a boosting fit uses
one core for most of its time. xgboost, LightGBM and scikit-learn build a partial histogram
per thread and add them. JAX can do the same with the host's cores as devices: with
``jax_num_cpu_devices`` set to :math:`D` before JAX starts its backend, the process has
:math:`D` CPU devices, and a program partitioned over them (``shard_map``) runs one
partition per device, each on its own thread. A fit here then splits its training rows into
:math:`D` blocks, each device builds the histograms of its block, and one all-reduce
(``psum``) adds them, as xgboost's distributed training does with its workers (Chen &
Guestrin 2016, §4; Ke et al. 2017, §4 "data parallel"). Every device then finds the same
splits from the same sums, routes its own rows, and returns the same trees.

**Opt-in.** Nothing here changes a JAX setting by itself. A user who wants every core calls
:func:`jaxclassic.distributed.use_cpu_cores` (or sets ``jax_num_cpu_devices`` /
``XLA_FLAGS=--xla_force_host_platform_device_count``) before the first JAX computation.
A process with one CPU device (JAX's default) runs every fit as before. With several, the
fits that support it (:func:`jaxclassic.ensemble.fit_xgboost`,
:func:`jaxclassic.ensemble.fit_gradient_boosting` and their estimators) split the rows when
:func:`row_mesh` says so: the default backend is the CPU, the call is at the top level (not
inside the user's ``jit``/``vmap``/``grad``, whose programs are the user's), its arrays are
not already placed by the user (:mod:`jaxclassic.distributed`), and the table has at least
:data:`MIN_ROWS` rows (below, one device is as fast: the all-reduces cost more than the
rows they split). ``JAXCLASSIC_CPU_SPLIT_MIN_ROWS`` (environment, read at import) overrides
that threshold.

**What stays the same.** One code path for every backend: the program is the one-device
program with its sums over rows taken across the devices (``axis_name``), and on a GPU or a
one-device CPU it is compiled without them. Fits are deterministic for a given number of
devices; against one device, each histogram entry is the same sum in another association
(the float32 rounding of :mod:`jaxclassic.distributed`). Float32 histogram sums, and children's
sums by subtraction from their parent's, carry errors of up to about 1e-3 relative in a small
node (a user's check: up to 0.9 % in one case on one device, 0.46 % split), so two splits
within that of each other, or a child's weight that close to ``min_child_weight``, can be
decided the other way, and a boosting fit then goes on differently (float64 fits agree to
1e-13). Forests split by trees are the same bit for bit. The fitted params are returned on the default device, as an
unsplit fit's.

CRF training (:func:`jaxclassic.graphical.crf.fit_crf`, at least ``crf.SPLIT_MIN_TOKENS``
tokens) splits its packed rows of sentences: each device computes the objective and its
forward-backward gradient over its rows, a ``psum`` adds them, and every device takes the same
L-BFGS steps (``run_split(..., check_vma=True)``: JAX differentiates through the ``psum``).

Forests (:func:`jaxclassic.ensemble.fit_random_forest`) need no collective: their trees are
independent, so each device grows a block of them from all the rows (:func:`member_mesh`,
``run_split(..., split_outputs=True)``) and the trees are the one-device trees bit for bit.

Measured 2026-11-29 on the quiet 2-core host (``python -m benchmarks.run --only boosting
forest``; process CPU seconds / wall seconds in brackets): ``fit_xgboost``, 100 rounds of depth
6, 160,000 x 28 float32: 3.18 s (1.30) -> 2.25 s (1.68), 800,000 x 28: 18.7 s (1.45) -> 10.7 s
(1.82), xgboost 1.17 and 5.5-5.7 s (1.97); a random forest of 100 trees of depth 10 on
160,000 x 28: 12.5 s (1.54) -> 8.6 s (1.81), scikit-learn (n_jobs=-1) 24.7 s. One depth-6
tree of the engine on 160,000 x 28: 29-35 ms on one device, 20-21 ms on two.

**n_jobs.** The estimators' ``n_jobs`` (scikit-learn's name) is the number of these devices a
fit may use: :func:`limit_devices` caps :func:`row_mesh` / :func:`member_mesh` at
``min(n_jobs, devices present)`` for the fits inside it (``-1``: all present; None: no cap,
the default; ``1``: the one-device program). It cannot add devices: JAX creates them once,
when its backend starts, so a process that wants ``n_jobs=8`` calls
:func:`jaxclassic.distributed.use_cpu_cores` before its first JAX computation; asking for more
than are present warns once (a UserWarning naming ``use_cpu_cores``) and uses those present.
"""

from __future__ import annotations

import contextlib
import functools
import numbers
import os
import warnings

import jax
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec

from jaxclassic._jit import _top_level

__all__ = ["MIN_ROWS", "AXIS", "row_mesh", "member_mesh", "run_split", "check_n_jobs", "limit_devices"]

def _min_rows_from_env(name: str = "JAXCLASSIC_CPU_SPLIT_MIN_ROWS", default: int = 1 << 15) -> int:
    """The threshold from the environment variable ``name``: a non-negative integer."""
    text = os.environ.get(name, "").strip()
    if not text:
        return default
    try:
        value = int(text)
    except ValueError:
        raise ValueError(f"{name} must be a non-negative integer number of rows, got {text!r}") from None
    if value < 0:
        raise ValueError(f"{name} must be a non-negative integer number of rows, got {text!r}")
    return value


#: the fewest training rows for which a fit splits them over several CPU devices
MIN_ROWS = _min_rows_from_env()
#: a forest splits its trees from MIN_ROWS / MEMBER_ROWS_FACTOR rows (each device grows whole trees)
MEMBER_ROWS_FACTOR = 16
#: the mesh axis the rows are split over
AXIS = "rows"


_state: dict = {}


def _cpu_devices():
    """The default backend's devices when it is the CPU, else ``[]`` (read once per process)."""
    if "devices" not in _state:
        devices = jax.devices()
        _state["devices"] = list(devices) if devices[0].platform == "cpu" else []
    return _state["devices"]


def _placed(a) -> bool:
    """A ``jax.Array`` placed by the user on other devices than the default one alone."""
    if not isinstance(a, jax.Array) or isinstance(a, jax.core.Tracer):
        return False
    try:
        return a.sharding.device_set != {jax.devices()[0]}
    except Exception:  # an array without a concrete sharding: leave it to the plain path
        return True


def row_mesh(n_rows: int, *arrays, min_rows: int | None = None) -> Mesh | None:
    """A one-axis mesh (:data:`AXIS`) of the process's CPU devices, or None for the plain
    one-device program: fewer than two CPU devices, another default backend, fewer than
    ``min_rows`` (default :data:`MIN_ROWS`) rows, a traced call, or an argument already placed
    by the user."""
    devices = _cpu_devices()
    n_devices = len(devices) if not _caps else min(len(devices), _caps[-1])  # n_jobs: limit_devices
    if n_devices < 2 or n_rows < (MIN_ROWS if min_rows is None else min_rows):
        return None
    if not _top_level() or any(isinstance(a, jax.core.Tracer) or _placed(a) for a in arrays):
        return None
    return _mesh(n_devices)


def member_mesh(n_members: int, n_rows: int, *arrays) -> Mesh | None:
    """A mesh for ``n_members`` independent members (a forest's trees, each on all
    ``n_rows`` rows) split evenly over the CPU devices, or None (:func:`row_mesh`'s rules,
    and ``n_members`` a multiple of the devices)."""
    mesh = row_mesh(n_rows * MEMBER_ROWS_FACTOR, *arrays)
    return mesh if mesh is not None and n_members % mesh.devices.size == 0 else None


#: the device caps of the limit_devices blocks in force (innermost last)
_caps: list = []
_warned: set = set()


def check_n_jobs(n_jobs, name: str = "n_jobs") -> int | None:
    """The number of CPU devices ``n_jobs`` asks for, checked: None (no cap) stays None;
    ``-1`` is every device present; an int >= 1 is capped at the devices present, with a
    UserWarning (once per value) naming :func:`jaxclassic.distributed.use_cpu_cores` when it
    asks for more. Not an int: TypeError; 0 or below -1: ValueError (both naming ``name``)."""
    if n_jobs is None:
        return None
    if isinstance(n_jobs, (bool, np.bool_)) or not isinstance(n_jobs, (numbers.Integral, np.integer)):
        raise TypeError(f"{name} must be an int (>= 1, or -1 for every core) or None, got "
                        f"{type(n_jobs).__name__} {n_jobs!r}")
    n_jobs = int(n_jobs)
    if n_jobs == 0 or n_jobs < -1:
        raise ValueError(f"{name} must be >= 1, -1 (every core) or None, got {n_jobs}")
    present = max(len(_cpu_devices()), 1)
    if n_jobs == -1:
        return present
    if n_jobs > present and _cpu_devices() and (n_jobs, present) not in _warned:
        _warned.add((n_jobs, present))
        warnings.warn(f"{name}={n_jobs} asks for more CPU cores than the {present} CPU device(s) JAX started "
                      f"with; using {present}. Call jaxclassic.distributed.use_cpu_cores({n_jobs}) before the "
                      "first JAX computation of the process to make the cores devices", UserWarning, stacklevel=3)
    return min(n_jobs, present)


@contextlib.contextmanager
def limit_devices(n_jobs, name: str = "n_jobs"):
    """The fits inside use at most ``check_n_jobs(n_jobs)`` CPU devices (None: no cap)."""
    cap = check_n_jobs(n_jobs, name)
    if cap is None:
        yield
        return
    _caps.append(cap)
    try:
        yield
    finally:
        _caps.pop()


@functools.lru_cache(maxsize=None)
def _mesh(n_devices: int) -> Mesh:
    return Mesh(np.array(_cpu_devices()[:n_devices]), (AXIS,))


def _pad_split(a, axis: int, n_devices: int, mesh: Mesh):
    """``a`` with zero rows appended along ``axis`` to a multiple of ``n_devices``, placed
    with that axis split over the mesh."""
    a = np.asarray(a) if not isinstance(a, jax.Array) else a
    n = a.shape[axis]
    pad = -n % n_devices
    if pad:
        widths = [(0, 0)] * a.ndim
        widths[axis] = (0, pad)
        a = np.pad(np.asarray(a), widths)
    spec = [None] * a.ndim
    spec[axis] = AXIS
    return jax.device_put(a, NamedSharding(mesh, PartitionSpec(*spec)))


@functools.lru_cache(maxsize=64)
def _program(fun, statics, row_axes, n_args, mesh, split_outputs, check_vma=False):
    """``jit(shard_map(fun))``: the arguments at ``row_axes`` (index -> axis) split over the
    mesh, the others replicated; every output replicated (the same on every device) or, with
    ``split_outputs``, split along its leading axis. ``check_vma``: JAX tracks which values
    vary over the devices (needed when ``fun`` differentiates through its collectives)."""
    axes = dict(row_axes)
    specs = [PartitionSpec(*([None] * axes[i] + [AXIS])) if i in axes else PartitionSpec() for i in range(n_args)]
    body = functools.partial(fun, **dict(statics)) if split_outputs else functools.partial(
        fun, **dict(statics), axis_name=AXIS)
    out_specs = PartitionSpec(AXIS) if split_outputs else PartitionSpec()
    return jax.jit(jax.shard_map(body, mesh=mesh, in_specs=tuple(specs), out_specs=out_specs, check_vma=check_vma))


def run_split(fun, mesh: Mesh, args: tuple, row_axes: dict, statics: dict, *, split_outputs: bool = False,
              check_vma: bool = False):
    """``fun(*args, **statics, axis_name=AXIS)`` with the arguments ``args[i]``, ``i`` in
    ``row_axes``, split along axis ``row_axes[i]`` over ``mesh`` (zero rows appended to a
    multiple of the devices: the callers give them weight 0), the others replicated; the
    outputs on the default device.

    ``fun`` must take ``axis_name`` and, with it, reduce its sums over rows across the mesh
    (the rows of every device are a block of the whole); ``statics`` must be hashable.

    ``split_outputs``: independent members instead (a forest's trees): ``fun`` runs on each
    device's block of the split arguments without ``axis_name`` (no collective), the blocks
    must divide evenly (no padding), and every output is the devices' blocks concatenated
    along its leading axis.

    A split argument may be a pytree of arrays (each split along the same axis). With
    ``check_vma``, JAX tracks which values vary over the devices, so that ``fun`` may
    differentiate through its collectives (a ``psum``'s transpose is then right)."""
    n_devices = mesh.devices.size
    everywhere = NamedSharding(mesh, PartitionSpec())

    def replicated(a):  # a committed one-device array would clash with the mesh's placement
        return jax.device_put(a, everywhere) if isinstance(a, (jax.Array, np.ndarray)) else a

    if split_outputs and any(np.shape(leaf)[axis] % n_devices for i, axis in row_axes.items()
                             for leaf in jax.tree.leaves(args[i])):
        raise ValueError("run_split: split_outputs needs blocks that divide evenly over the devices")
    placed = tuple(jax.tree.map(lambda leaf, axis=row_axes[i]: _pad_split(leaf, axis, n_devices, mesh), a)
                   if i in row_axes else jax.tree.map(replicated, a) for i, a in enumerate(args))
    program = _program(fun, tuple(sorted(statics.items())), tuple(sorted(row_axes.items())), len(args), mesh,
                       split_outputs, check_vma)
    out = program(*placed)
    return jax.device_put(out, jax.devices()[0])
