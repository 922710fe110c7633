"""Host jobs on every core (``jaxclassic/_threads.py``): the threaded binning equals the loop.

The per-column jobs write or return each column alone, so the codes, edges and xgboost cuts
must be identical whether the columns run in the thread pool or one after another; the
threshold is patched to send small data through the pool.
"""

import sys
import threading

import numpy as np
import pytest

from jaxclassic import _threads
from jaxclassic.ensemble import _xgb_cuts
from jaxclassic.tree import binning


def test_map_columns_keeps_column_order_and_uses_threads(monkeypatch):
    monkeypatch.setattr(_threads, "MIN_PARALLEL_WORK", 0)
    seen = set()

    def job(j):
        seen.add(threading.current_thread().name)
        return j * j

    assert _threads.map_columns(job, 40, 1) == [j * j for j in range(40)]
    if _threads.n_workers() > 1:
        assert all(name.startswith("jaxclassic-host") for name in seen)
    monkeypatch.setattr(_threads, "MIN_PARALLEL_WORK", 1 << 60)
    seen.clear()
    assert _threads.map_columns(job, 5, 10) == [0, 1, 4, 9, 16]
    assert seen == {threading.current_thread().name}  # below the threshold: this thread


def _data(seed, n, f):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, f))
    X[:, 0] = np.round(X[:, 0], 1)  # ties
    X[rng.random((n, f)) < 0.05] = np.nan
    X[:, -1] = 3.0  # constant
    w = np.where(rng.random(n) < 0.2, 0.0, rng.random(n) * 3)
    return X, w


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_threaded_binning_equals_the_loop(dtype, monkeypatch):
    X, w = _data(0, 3000, 7)
    X = X.astype(dtype)
    results = []
    for threshold in (1 << 60, 0):
        monkeypatch.setattr(_threads, "MIN_PARALLEL_WORK", threshold)
        out = []
        for sw in (None, w):
            codes, edges = binning.bin_features(X, 255, sample_weight=sw)
            out += [np.asarray(codes), np.asarray(edges)]
        out += list(_xgb_cuts.sketch_cuts(X, 64, sample_weight=w))
        out.append(_xgb_cuts.cut_edges(X, 64))
        results.append(out)
    for a, b in zip(*results):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)


@pytest.mark.filterwarnings("ignore:os.fork:RuntimeWarning")  # the child runs no JAX
def test_a_forked_child_makes_its_own_pool(monkeypatch):
    """The pool's threads do not survive ``fork``: a child forked after the parent used the
    pool gets a new one (``os.register_at_fork``) instead of waiting on dead threads."""
    import multiprocessing as mp

    monkeypatch.setattr(_threads, "MIN_PARALLEL_WORK", 0)
    assert _threads.map_columns(abs, 4, 1) == [0, 1, 2, 3]  # the parent's pool exists now
    ctx = mp.get_context("fork")
    q = ctx.Queue()
    child = ctx.Process(target=lambda: q.put(_threads.map_columns(abs, 4, 1)))
    child.start()
    child.join(30)
    alive = child.is_alive()
    if alive:
        child.kill()
    assert not alive and q.get(timeout=5) == [0, 1, 2, 3]


def test_work_in_an_atexit_handler_runs_without_the_pool(tmp_path):
    """Once the interpreter shuts down ``concurrent.futures`` takes no new work; a binning
    in an ``atexit`` handler then runs column by column instead of raising."""
    import subprocess

    script = tmp_path / "late.py"
    script.write_text(
        "import atexit, numpy as np\n"
        "from jaxclassic import _threads\n"
        "from jaxclassic.tree.binning import _host_codes\n"
        "_threads.MIN_PARALLEL_WORK = 0\n"
        "X = np.random.default_rng(0).normal(size=(50, 4))\n"
        "edges = np.sort(np.random.default_rng(1).normal(size=(4, 7)), axis=1)\n"
        "atexit.register(lambda: print('late', _host_codes(X, edges).sum()))\n"
        "print('early', _host_codes(X, edges).sum())\n")
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    early, late = out.stdout.split()[1], out.stdout.split()[3]
    assert early == late


def test_threads_asking_at_once_share_one_pool(monkeypatch):
    """The pool is made under a lock: threads that use it first at the same moment get one
    pool, not one each."""
    monkeypatch.setattr(_threads, "MIN_PARALLEL_WORK", 0)
    monkeypatch.setattr(_threads, "_pool", None)
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads often: the race, if any, shows (2 in 15 runs without the lock)
    pools = []
    barrier = threading.Barrier(8)

    def go():
        barrier.wait()
        _threads.map_columns(abs, 4, 1)
        pools.append(_threads._pool)

    threads = [threading.Thread(target=go) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    sys.setswitchinterval(interval)
    assert len(pools) == 8 and len({id(p) for p in pools}) == 1
