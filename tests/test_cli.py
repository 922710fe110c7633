"""The command line: --version, gradcheck's table and exit status, bench from the installed
console script, tour's family checks and its message without scikit-learn."""

import subprocess
import sys
from pathlib import Path

import pytest

from jaxclassic import __version__, cli


def test_version(capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.strip() == f"jaxclassic {__version__}"


def test_gradcheck_passes_and_prints_every_loss(capsys):
    from jaxclassic import losses

    assert cli.main(["gradcheck"]) == 0
    out = capsys.readouterr().out
    for name in losses.HAND_DERIVED:
        assert name in out
    assert "NO" not in out


def test_gradcheck_fails_on_a_wrong_derivation(monkeypatch, capsys):
    from jaxclassic import losses

    wrong = dict(losses.HAND_DERIVED)
    loss, grad, hess = wrong["squared"]
    wrong["squared"] = (loss, lambda y, f: 2 * (f - y), hess)  # off by a factor 2
    monkeypatch.setattr(losses, "HAND_DERIVED", wrong)
    assert cli.main(["gradcheck"]) == 1
    assert "FAILED: squared" in capsys.readouterr().err


def test_console_script_installed():
    out = subprocess.run([sys.executable, "-m", "jaxclassic.cli", "--version"], capture_output=True, text=True)
    assert out.returncode == 0 and __version__ in out.stdout


REPO_ROOT = Path(__file__).resolve().parents[1]
CONSOLE_SCRIPT = Path(sys.executable).with_name("jaxclassic")


@pytest.mark.skipif(not CONSOLE_SCRIPT.exists(), reason="console script not installed next to python")
@pytest.mark.parametrize("cwd", [".", "tests"])
def test_console_script_bench_runs_from_the_checkout(cwd):
    # the installed console script (not ``python -m``): its sys.path lacks the working
    # directory, so benchmarks/ is found by walking up from it
    out = subprocess.run([str(CONSOLE_SCRIPT), "bench", "--quick", "--only", "bench_metrics"],
                         cwd=REPO_ROOT / cwd, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "metrics" in out.stdout and "roc_auc" in out.stdout


def test_bench_outside_a_checkout_says_so(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if Path(p or ".").resolve() != REPO_ROOT])
    monkeypatch.delitem(sys.modules, "benchmarks", raising=False)
    monkeypatch.delitem(sys.modules, "benchmarks.run", raising=False)
    assert cli.main(["bench", "--quick"]) == 2
    assert "run from inside a source checkout" in capsys.readouterr().err


def test_find_checkout_walks_up(tmp_path):
    (tmp_path / "benchmarks").mkdir()
    (tmp_path / "benchmarks" / "__init__.py").write_text("")
    (tmp_path / "a" / "b").mkdir(parents=True)
    assert cli._find_checkout(tmp_path / "a" / "b") == tmp_path
    assert cli._find_checkout(tmp_path / "benchmarks") == tmp_path


def test_tour_unknown_family_exits_2_naming_the_families(capsys):
    from jaxclassic.tour import discover

    with pytest.raises(SystemExit) as exc:
        cli.main(["tour", "--family", "unknown"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "unknown" in err and all(name in err for name in discover())


def test_tour_help_lists_the_families(capsys):
    from jaxclassic.tour import discover

    with pytest.raises(SystemExit) as exc:
        cli.main(["tour", "--help"])
    assert exc.value.code == 0
    out = " ".join(capsys.readouterr().out.split())  # argparse wraps the help text
    assert all(name in out for name in discover())


def test_tour_without_sklearn_says_what_to_install(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "sklearn", None)  # ``import sklearn`` now fails
    assert cli.main(["tour", "--family", "linear_regression"]) == 1
    captured = capsys.readouterr()
    assert "pip install 'jaxclassic[sklearn]'" in captured.err
    assert "model" not in captured.out  # no (empty) table
