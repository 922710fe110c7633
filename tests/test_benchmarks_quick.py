"""Every benchmark runs in --quick mode, so benchmarks never go stale (as jaxopt's did)."""

import importlib

import pytest

from benchmarks._harness import Result
from benchmarks.run import discover, format_table

BENCHES = discover()


@pytest.mark.parametrize("name", BENCHES)
def test_benchmark_quick(name):
    module = importlib.import_module(f"benchmarks.{name}")
    results = module.run(quick=True)
    assert results, f"{name} returned no results"
    for r in results:
        assert isinstance(r, Result)
        assert r.ours_s > 0
    assert format_table(results).count("\n") == len(results) + 1


def test_harness_table_and_ratio():
    r = Result("b", "c", ours_s=0.5, ref_s=2.0, compile_s=0.1, metric="r2", ours_quality=0.9, ref_quality=0.9)
    assert r.ratio == 4.0
    assert "4x" in format_table([r])


@pytest.mark.full
def test_gpu_check_quick_runs_and_agrees():
    # the prepared device check runs end to end (here device == CPU, so it must agree exactly)
    from benchmarks import gpu_check

    assert gpu_check.main(["--quick"]) == 0


def test_gpu_check_budget_skips_instead_of_failing(capsys):
    # a spent budget skips the remaining cases (reported, exit 0): nothing runs here
    from benchmarks import gpu_check

    assert gpu_check.main(["--quick", "--budget", "0", "--only", "lasso"]) == 0
    out = capsys.readouterr().out
    assert "lasso alpha=0.1 300x10" in out and "SKIPPED (budget of 0 s spent)" in out
