"""The command line: --version, gradcheck's table and exit status."""

import subprocess
import sys

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
