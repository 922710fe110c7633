"""Test configuration (tests and doctests): float64 on, so comparisons with hand derivations and references can be
tight. Float32 behaviour is tested by passing float32 inputs explicitly (the core keeps the
input's float dtype).

Compilation dominates the suite's time, and the two xdist workers (and many tests) compile
the same programs: JAX's persistent compilation cache (``.jax_cache/`` in the checkout, or
``$JAXCLASSIC_JAX_CACHE``) lets a program compiled once be loaded by every later test and
worker. Its keys include the program, the jax version and the flags, so an entry is never
reused for a different computation. Programs that took 0.5 s or more to compile are kept. At
0.1 s a warm run would reload the many small programs too; whether writing them slows a cold
run is not settled (one cold fast tier at 0.1 s took 10 min 52 s, but the same tier at 0.5 s
took 9 min 34 s and, an hour later on the same host, 11 min 14 s), so 0.5 s stays, as CI ran it.

The package's own cache of compiled executables (:mod:`jaxclassic._executables`) is off in
the tests: its keys cannot see a module constant that a test patches while a program is
traced, so a patched program could be stored and loaded by a later test or run. Its own tests
(``tests/test_executables.py``) turn it on in child processes.
"""

import os
from pathlib import Path

os.environ["JAXCLASSIC_NO_EXECUTABLE_CACHE"] = "1"

import jax  # noqa: E402

jax.config.update("jax_enable_x64", True)
jax.config.update(
    "jax_compilation_cache_dir",
    os.environ.get("JAXCLASSIC_JAX_CACHE", str(Path(__file__).resolve().parent / ".jax_cache")),
)
jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.5)
jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)


# --------------------------------------------------------------------------- memory maps
# Every compiled XLA CPU executable holds a few memory mappings, and JAX keeps every compiled
# program alive in its in-process caches. A test worker compiles thousands of programs
# (scikit-learn's checks alone fit ~35 estimators at many shapes) and reached Linux's default
# limit of 65,530 mappings per process (vm.max_map_count), where XLA's compiler segfaults
# (seen in this suite: "Fatal Python error: Segmentation fault" in backend_compile_and_load).
# Every 20 tests, when the process holds more than MAX_MAPS mappings (half the kernel's limit,
# at most 60,000), the in-process caches are cleared; programs needed again reload from the
# persistent cache above. A clear costs 6-10 s at 30,000 maps and 12-22 s at 60,000 (freeing the
# executables), plus the recompiles of programs under the persistent cache's threshold; the fast
# tier made two a worker at 30,000 and makes none at 60,000. `make test` raises the kernel's limit
# where it may (the Makefile's RAISE_MAX_MAPS); without that the threshold is 32,765 as before.
# A worker held 4.4-5.3 GB at 60,000 maps. Resident memory is not a criterion: it does not fall
# after a clear (the allocator keeps the pages), so a bound on it cleared every 20 tests.
import gc  # noqa: E402

import pytest  # noqa: E402


def _kernel_map_limit() -> int:
    try:
        with open("/proc/sys/vm/max_map_count") as fh:
            return int(fh.read())
    except (OSError, ValueError):  # not Linux
        return 65_530


MAX_MAPS = min(_kernel_map_limit() // 2, 60_000)
_COUNTER = {"tests": 0}


def _n_maps() -> int:
    try:
        with open("/proc/self/maps", "rb") as fh:
            return sum(1 for _ in fh)
    except OSError:  # not Linux: no such limit to watch
        return 0


@pytest.fixture(autouse=True)
def _bounded_memory_maps():
    yield
    _COUNTER["tests"] += 1
    if _COUNTER["tests"] % 20 == 0 and _n_maps() > MAX_MAPS:
        jax.clear_caches()
        gc.collect()


# --------------------------------------------------------------------------- test tiers
# `make test` runs `-m "not full"` (the fast tier: every family, fit and estimator on small data,
# the losses' gradient checks, the bad-input checks, the README's examples); `make test-all`
# runs everything. A test goes to the full tier by `@pytest.mark.full` in its module; the
# parametrised bulk below keeps a sample of its cases in the fast tier (one estimator check per
# estimator, one notebook at small size, a round trip per family...), the rest is marked here,
# and the module doctests are the full tier's.
# Nothing is deleted: every case still runs in `make test-all`.

#: parametrised test -> the case ids that stay in the fast tier (all others are `full`)
FAST_CASES = {
    "tests/test_notebooks.py::test_notebook_runs_small": {"02_classification"},
    "tests/test_benchmarks_quick.py::test_benchmark_quick": set(),
    # a few families a property or round trip (an XLA compile each); every family in the full tier
    "tests/estimators/test_save_load.py::test_round_trip_predicts_bitwise_the_same": {
        "LinearRegression", "DecisionTreeRegressor", "StackingRegressor", "CategoricalHMM"},
    "tests/test_io.py::test_round_trip_is_bitwise_and_predicts_the_same": {
        "jaxclassic.linear._params.LinearParams", "jaxclassic.gaussian_process.regression.RBFParams",
        "jaxclassic.graphical.bayes_net.BayesNet", "jaxclassic.tree.id3.ID3Params"},
    "tests/properties/test_invariance.py::test_row_permutation_invariance": {"ols", "kmeans", "random_forest"},
    "tests/properties/test_invariance.py::test_zero_weight_rows_have_no_influence": {
        "ridge", "logistic", "xgboost", "knn"},
    "tests/properties/test_invariance.py::test_integer_weights_equal_repeated_rows": {"ols", "softmax", "kernel_svm"},
    "tests/properties/test_labels.py::test_relabelling_permutes_probabilities": {
        "logistic", "cart_classification", "gmm"},
}

#: the estimator check each estimator keeps in the fast tier (it fits twice and compares)
FAST_ESTIMATOR_CHECK = "check_fit_idempotent"

def _case_id(item) -> str:
    return item.name[item.name.index("[") + 1:-1] if "[" in item.name else ""


def pytest_collection_modifyitems(config, items):
    full = pytest.mark.full
    by_estimator: dict[str, list] = {}
    for item in items:
        function = item.nodeid.split("[", 1)[0]
        if function in FAST_CASES:
            if _case_id(item) not in FAST_CASES[function]:
                item.add_marker(full)
        elif function == "tests/estimators/test_sklearn_checks.py::test_sklearn_compatible":
            estimator, check = _case_id(item).rsplit("-", 1)
            by_estimator.setdefault(estimator, []).append((check, item))
        elif type(item).__name__ == "DoctestItem":
            # module doctests (the docstrings' examples) are the full tier's: the fits they show
            # are fast-tier tests too, and the README's examples stay fast (tests/test_readme.py)
            item.add_marker(full)
    for estimator, cases in by_estimator.items():
        runnable = [(check, item) for check, item in cases
                    if not any(m.name == "xfail" for m in item.iter_markers())]
        # its fit-twice check, or (where that check is an expected failure: the HMMs) the first
        # runnable check that fits
        keep = next((item for check, item in runnable if check == FAST_ESTIMATOR_CHECK),
                    next((item for check, item in runnable if "fit" in check),
                         runnable[0][1] if runnable else None))
        for _, item in cases:
            if item is not keep:
                item.add_marker(full)
