"""Fits from chunks (``jaxclassic.streaming``): ridge on a float32 ``np.memmap`` read 65,536 rows
at a time, beside scikit-learn's out-of-core ``SGDRegressor.partial_fit`` over the same chunks
(one epoch) and scikit-learn's in-memory ``Ridge``; peak memory of the streaming fit and of the
in-memory fit each in a fresh process.

Data: full 2,000,000 x 50 float32 (400 MB on disk), quick 20,000 x 10; ``y = X beta + noise``
(sd 0.5), written to a temporary ``.npy`` and opened with ``np.load(mmap_mode="r")``. The
streaming side's time includes reading the memmap (the page cache is warm after the first
run). Quality: R^2 on the training rows; agreement: max |coef - Ridge's coef|.

Peak memory (full mode only; ``VmHWM`` of a fresh subprocess that imports jaxclassic, fits
once and exits; Linux): the streaming fit reads the same file as ``(X, y, None)`` blocks by
``np.fromfile`` (a memmap's pages, once read, count in the process's RSS until unmapped even
though the OS may drop them) and holds one piece (65,536 x 50 float32, 13 MB) and the (51 x 51)
moments beyond the interpreter and XLA; the in-memory ``fit_ridge`` holds ``X`` (400 MB) and
its copies. A third process fits 1,000 rows in memory: the peak without the data (Python, jax,
XLA, the compiled programs), to subtract from both.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import numpy as np

from benchmarks._harness import Result, fresh_process, time_host

__all__ = ["run"]

CHUNK_ROWS = 65_536
ALPHA = 1.0

_PEAK_SCRIPT = """
import json, sys, time
import numpy as np
from jaxclassic import linear, streaming
x_path, y_path, mode = sys.argv[1:4]
Xm = np.load(x_path, mmap_mode="r"); ym = np.load(y_path, mmap_mode="r")
n, d = Xm.shape; x_off, y_off = Xm.offset, ym.offset
del Xm, ym  # nothing mapped: the blocks are read from the file (no page of it stays resident)

def blocks():
    for start in range(0, n, 65536):
        m = min(65536, n - start)
        X = np.fromfile(x_path, np.float32, m * d, offset=x_off + 4 * start * d).reshape(m, d)
        yield X, np.fromfile(y_path, np.float32, m, offset=y_off + 4 * start), None

t = time.perf_counter()
if mode == "streaming":
    p = streaming.fit_ridge(blocks, alpha=1.0, chunk_rows=65536)
elif mode == "baseline":  # the interpreter, jax, XLA and a compiled fit, without the data
    p = linear.fit_ridge(np.load(x_path, mmap_mode="r")[:1000], np.load(y_path, mmap_mode="r")[:1000], alpha=1.0)
else:
    p = linear.fit_ridge(np.load(x_path), np.load(y_path), alpha=1.0)
p.coef.block_until_ready()
# VmHWM: this process's peak resident memory (ru_maxrss would carry the parent's across exec)
hwm = [line for line in open("/proc/self/status") if line.startswith("VmHWM")][0]
print(json.dumps({"seconds": time.perf_counter() - t, "peak_mb": int(hwm.split()[1]) / 1024}))
"""


def _write_data(folder: Path, n: int, d: int):
    rng = np.random.default_rng(0)
    beta = rng.normal(size=d).astype(np.float32)
    X = np.lib.format.open_memmap(folder / "X.npy", mode="w+", dtype=np.float32, shape=(n, d))
    y = np.lib.format.open_memmap(folder / "y.npy", mode="w+", dtype=np.float32, shape=(n,))
    for start in range(0, n, 500_000):
        stop = min(start + 500_000, n)
        block = rng.normal(size=(stop - start, d)).astype(np.float32)
        X[start:stop] = block
        y[start:stop] = block @ beta + 0.5 * rng.normal(size=stop - start).astype(np.float32)
    X.flush()
    y.flush()
    return folder / "X.npy", folder / "y.npy"


def _peak(x_path, y_path, mode: str) -> dict:
    return json.loads(fresh_process(_PEAK_SCRIPT, x_path, y_path, mode))


def _r2(X, y, coef, intercept) -> float:
    ss_res, ss_tot, mean = 0.0, 0.0, float(np.mean(y))
    for start in range(0, X.shape[0], CHUNK_ROWS):
        Xb, yb = np.asarray(X[start:start + CHUNK_ROWS]), np.asarray(y[start:start + CHUNK_ROWS])
        ss_res += float(np.sum((yb - Xb @ coef - intercept) ** 2))
        ss_tot += float(np.sum((yb - mean) ** 2))
    return 1.0 - ss_res / ss_tot


def run(quick: bool) -> list[Result]:
    from sklearn.linear_model import Ridge, SGDRegressor

    from jaxclassic import streaming

    n, d = (20_000, 10) if quick else (2_000_000, 50)
    with tempfile.TemporaryDirectory() as tmp:
        x_path, y_path = _write_data(Path(tmp), n, d)
        X = np.load(x_path, mmap_mode="r")
        y = np.load(y_path, mmap_mode="r")

        def ours():
            params = streaming.fit_ridge(X, y, alpha=ALPHA, chunk_rows=CHUNK_ROWS)
            params.coef.block_until_ready()
            return params

        first, compile_s = None, 0.0
        import time

        t0 = time.perf_counter()
        first = ours()
        first_s = time.perf_counter() - t0
        params, ours_s = time_host(ours, repeats=1 if quick else 3)
        compile_s = max(0.0, first_s - ours_s)
        coef, intercept = np.asarray(params.coef, np.float64), float(params.intercept)
        ours_r2 = _r2(X, y, coef, intercept)

        def sgd():
            model = SGDRegressor(alpha=ALPHA / n, random_state=0)
            for start in range(0, n, CHUNK_ROWS):
                model.partial_fit(np.asarray(X[start:start + CHUNK_ROWS]), np.asarray(y[start:start + CHUNK_ROWS]))
            return model

        sgd_model, sgd_s = time_host(sgd, repeats=1)
        sgd_r2 = _r2(X, y, sgd_model.coef_, float(sgd_model.intercept_[0]))
        X_mem, y_mem = np.asarray(X), np.asarray(y)
        ridge, ridge_s = time_host(lambda: Ridge(alpha=ALPHA).fit(X_mem, y_mem), repeats=1 if quick else 3)
        ridge_r2 = _r2(X, y, ridge.coef_, float(ridge.intercept_))
        diff = float(np.max(np.abs(coef - ridge.coef_)))
        peaks = {}
        if not quick:
            del X_mem, y_mem
            peaks = {mode: _peak(x_path, y_path, mode) for mode in ("baseline", "streaming", "in_memory")}
        case = f"ridge {n}x{d} float32 memmap, chunks {CHUNK_ROWS}"
        streaming_peak = peaks.get("streaming", {}).get("peak_mb")
        extra = {"peaks": peaks, "note": "shared 2-core machine: compare ratios, not seconds"}
        return [
            Result("streaming", case, ours_s, sgd_s, compile_s, "train R2", ours_r2, sgd_r2,
                   "sklearn SGDRegressor.partial_fit, 1 epoch", f"|coef - Ridge| {diff:.1e}",
                   extra, streaming_peak),
            Result("streaming", case, ours_s, ridge_s, compile_s, "train R2", ours_r2, ridge_r2,
                   "sklearn Ridge in memory",
                   (f"peak MB: in-memory fit_ridge {peaks['in_memory']['peak_mb']:.0f}, "
                    f"no data {peaks['baseline']['peak_mb']:.0f}"
                    if peaks else f"|coef diff| {diff:.1e}"), extra, streaming_peak),
        ]
