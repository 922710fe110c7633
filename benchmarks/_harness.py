"""Shared timing harness for ``benchmarks/bench_*.py``.

Each benchmark module defines ``run(quick: bool) -> list[Result]``: it runs jaxclassic and a
reference (scikit-learn, statsmodels...) on the same data in this one process, and
:func:`benchmarks.run.main` prints one table and writes JSON. Compile time (the first call)
is reported apart from run time (median of repeats, results blocked on).
"""

from __future__ import annotations

import os
import platform
import statistics
import time
from dataclasses import asdict, dataclass, field
from typing import Any, Callable

import jax

__all__ = ["Result", "time_jax", "time_host", "machine_info", "matmul_rate", "memory_bandwidth",
           "peak_rss_mb", "cpu_use", "last_cpu_use", "fresh_process", "on_cores"]


@dataclass
class Result:
    """One row of the benchmark table.

    ``ours_s`` / ``ref_s`` are median run times in seconds (compile excluded on our side and
    reported in ``compile_s``); ``ratio = ref_s / ours_s`` (above 1: we are faster).
    ``ours_quality`` / ``ref_quality`` are the quality figure of each side (named by
    ``metric``), and ``agreement`` a free-text or numeric comparison of the two results.
    ``peak_rss_mb`` is our side's peak resident memory in MiB where the benchmark measures it
    (in a process of its own: :func:`peak_rss_mb` of a process is the peak of all it ran).
    ``ours_cpu`` / ``ref_cpu``: each side's CPU utilisation during its timed runs, process
    CPU seconds over wall seconds (2.0: two cores busy), where the benchmark records it
    (:func:`last_cpu_use`).
    """

    benchmark: str
    case: str
    ours_s: float
    ref_s: float | None
    compile_s: float | None = None
    metric: str = ""
    ours_quality: float | None = None
    ref_quality: float | None = None
    reference: str = ""
    agreement: Any = None
    extra: dict = field(default_factory=dict)
    peak_rss_mb: float | None = None
    ours_cpu: float | None = None
    ref_cpu: float | None = None

    @property
    def ratio(self) -> float | None:
        if self.ref_s is None or self.ours_s <= 0:
            return None
        return self.ref_s / self.ours_s

    def as_dict(self) -> dict:
        d = asdict(self)
        d["ratio"] = self.ratio
        return d


def _block(out):
    return jax.block_until_ready(out)


def time_jax(fn: Callable[[], Any], repeats: int = 5) -> tuple[Any, float, float]:
    """Call ``fn`` once (compile + run), then ``repeats`` more times.

    Returns ``(output, compile_s, median_run_s)``; ``compile_s`` is the first call's time
    minus the median run time (the compile and tracing overhead).
    """
    t0 = time.perf_counter()
    out = _block(fn())
    first = time.perf_counter() - t0
    times = []
    c0 = time.process_time()
    for _ in range(max(1, repeats)):
        t0 = time.perf_counter()
        out = _block(fn())
        times.append(time.perf_counter() - t0)
    _LAST["cpu"] = (time.process_time() - c0) / max(sum(times), 1e-12)
    med = statistics.median(times)
    return out, max(0.0, first - med), med


_LAST: dict = {}


def last_cpu_use() -> float | None:
    """CPU utilisation of the last :func:`time_jax` or :func:`time_host` call's timed runs:
    process CPU seconds over wall seconds (all threads; 2.0 on two busy cores)."""
    cpu = _LAST.get("cpu")
    return None if cpu is None else round(cpu, 2)


def cpu_use(ours, ref) -> dict:
    """Each side's process CPU time over wall time during its timed runs (2.0 on two busy cores).

    ``ours`` and ``ref`` are lists of ``(wall_s, cpu_s)`` pairs; returns ``{"ours": .., "ref": ..}``.
    """
    return {side: round(sum(c for _, c in t) / max(sum(w for w, _ in t), 1e-12), 2)
            for side, t in (("ours", ours), ("ref", ref))}


def time_host(fn: Callable[[], Any], repeats: int = 3) -> tuple[Any, float]:
    """Median wall time of a host (numpy / scikit-learn) call. Returns ``(output, median_s)``."""
    times = []
    out = None
    c0 = time.process_time()
    for _ in range(max(1, repeats)):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    _LAST["cpu"] = (time.process_time() - c0) / max(sum(times), 1e-12)
    return out, statistics.median(times)


def peak_rss_mb() -> float:
    """This process's peak resident set size in MiB so far (``getrusage``'s ``ru_maxrss``).

    On the XLA CPU backend device buffers and compiled programs live in host memory, so this
    is the honest measure of a fit's memory; run the case in a fresh process (as
    ``bench_first_call`` does) for a per-case figure.
    """
    import resource
    import sys

    r = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return r / 2**20 if sys.platform == "darwin" else r / 2**10  # bytes on macOS, KiB on Linux


def fresh_process(code: str, *args) -> str:
    """Run ``python -c code args...`` in a fresh interpreter (from the repository root) and
    return the last line it printed: a per-case figure such as :func:`peak_rss_mb` needs a
    process of its own. Raises ``CalledProcessError`` (with its stderr) when the child fails."""
    import subprocess
    import sys
    from pathlib import Path

    out = subprocess.run([sys.executable, "-c", code, *map(str, args)], capture_output=True,
                         text=True, check=True, cwd=Path(__file__).resolve().parents[1])
    return out.stdout.strip().splitlines()[-1]


_ON_CORES = """
import importlib, json, sys
import jaxclassic.distributed as jd
jd.use_cpu_cores()
import jax
spec = json.loads(sys.argv[1])
case = getattr(importlib.import_module("benchmarks." + spec["module"]), spec["function"])
with jax.enable_x64(spec["x64"]):
    rows = case(*spec["args"], **spec["kwargs"])
print(json.dumps([r.as_dict() for r in rows], default=str))
"""


def on_cores(module: str, function: str, *args, x64: bool = False, **kwargs) -> list[Result]:
    """``benchmarks.<module>.<function>(*args, **kwargs, label=", CPU cores as devices")`` in a
    fresh process whose CPU cores are JAX devices (``jaxclassic.distributed.use_cpu_cores()``,
    the opt-in of issue 26; ``x64``: under ``jax.enable_x64``), its rows returned; no rows on a
    one-core host. ``function`` returns a list of :class:`Result`."""
    import json

    if (os.cpu_count() or 1) < 2:
        return []
    spec = dict(module=module, function=function, args=list(args), x64=x64,
                kwargs=dict(kwargs, label=", CPU cores as devices"))
    rows = json.loads(fresh_process(_ON_CORES, json.dumps(spec)))
    for r in rows:
        r.pop("ratio", None)
    return [Result(**r) for r in rows]


def matmul_rate(n: int = 2000, dtype="float32") -> float:
    """This machine's measured matrix-multiply rate in FLOP/s (jax, ``n x n @ n x n``)."""
    a = jax.random.normal(jax.random.key(0), (n, n), dtype=dtype)
    f = jax.jit(lambda a: a @ a)
    _, _, t = time_jax(lambda: f(a), repeats=3)
    return 2.0 * n**3 / t


def memory_bandwidth(n_bytes: int = 400_000_000, dtype="float32") -> float:
    """Measured streaming read bandwidth in bytes/s (a jitted sum over a large array)."""
    import jax.numpy as jnp

    n = n_bytes // jnp.dtype(dtype).itemsize
    a = jnp.ones((n,), dtype=dtype)
    f = jax.jit(jnp.sum)
    _, _, t = time_jax(lambda: f(a), repeats=3)
    return n * jnp.dtype(dtype).itemsize / t


def machine_info() -> dict:
    """Cores, backend, devices and versions to record beside every result."""
    import numpy as np

    info = {
        "platform": platform.platform(),
        "cpu_count": os.cpu_count(),
        "backend": jax.default_backend(),
        "devices": [str(d) for d in jax.devices()],
        "jax": jax.__version__,
        "numpy": np.__version__,
        "x64": bool(jax.config.read("jax_enable_x64")),
    }
    try:
        import sklearn

        info["sklearn"] = sklearn.__version__
    except ImportError:
        pass
    return info
