"""``jaxclassic.estimators`` imports a family's module on first use of one of its classes.

Each check runs in a fresh interpreter: what an import pulls in shows only there (this process
has every module loaded already).
"""

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _run(code: str) -> str:
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=ROOT, capture_output=True,
                         text=True, timeout=300, env={"JAXCLASSIC_NO_COMPILATION_CACHE": "1",
                                                      "PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)})
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout


def test_the_package_import_loads_no_family_and_a_class_loads_only_its_own():
    out = _run("""
        import sys
        import jaxclassic.estimators as est
        loaded = lambda: sorted(m for m in sys.modules if m.startswith("jaxclassic.estimators."))
        print("A", loaded(), "sklearn.ensemble" in sys.modules)
        from jaxclassic.estimators import SVC
        print("B", SVC.__module__, "jaxclassic.estimators.voting" in sys.modules,
              "sklearn.ensemble" in sys.modules)
        print("C", est.VotingClassifier.__module__, "sklearn.ensemble" in sys.modules)
    """)
    lines = {line.split(" ", 1)[0]: line.split(" ", 1)[1] for line in out.splitlines()}
    assert lines["A"] == "['jaxclassic.estimators._config'] False"
    assert lines["B"] == "jaxclassic.estimators.svm False False"
    assert lines["C"] == "jaxclassic.estimators.voting True"


def test_every_public_name_resolves_and_dir_lists_it():
    out = _run("""
        import jaxclassic.estimators as est
        missing = [n for n in est.__all__ if n not in dir(est)]
        classes = [n for n in est.__all__ if isinstance(getattr(est, n), type)]
        wrong = [n for n in classes if getattr(est, n).__name__ != n
                 or not getattr(est, n).__module__.startswith("jaxclassic.estimators.")]
        try:
            est.NoSuchEstimator
        except AttributeError as exc:
            print("ERR", exc)
        print("N", len(classes), missing, wrong)
    """)
    assert "ERR module 'jaxclassic.estimators' has no attribute 'NoSuchEstimator'" in out
    n_line = next(line for line in out.splitlines() if line.startswith("N "))
    assert n_line == "N 48 [] []", n_line  # 51 names: 48 classes and the 3 config functions


@pytest.mark.full  # fits and compiles in two fresh processes (~15 s)
def test_a_model_file_loads_in_a_process_that_imported_no_family(tmp_path):
    """A saved soft-voting ensemble loads, and predicts bitwise the same, in a process that imported
    only the package: loading resolves the classes it names on demand, and only those."""
    path = tmp_path / "vote.jc"
    _run(f"""
        import numpy as np
        from jaxclassic.estimators import DecisionTreeClassifier, GaussianNB, VotingClassifier
        X = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 2.0], [3.0, 1.0], [0.5, 0.2], [2.5, 2.2]])
        y = np.array([0, 0, 1, 1, 0, 1])
        m = VotingClassifier([("t", DecisionTreeClassifier(max_depth=2)), ("nb", GaussianNB())], voting="soft").fit(X, y)
        m.save({str(path)!r})
        np.save({str(tmp_path / "p.npy")!r}, m.predict_proba(X))
    """)
    out = _run(f"""
        import numpy as np
        import jaxclassic.estimators as est
        m = est.VotingClassifier.load({str(path)!r})
        X = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 2.0], [3.0, 1.0], [0.5, 0.2], [2.5, 2.2]])
        print("SAME", bool(np.array_equal(m.predict_proba(X), np.load({str(tmp_path / "p.npy")!r}))))
        import sys
        print("OTHERS", "jaxclassic.estimators.svm" in sys.modules, "jaxclassic.estimators.hmm" in sys.modules)
    """)
    assert "SAME True" in out
    assert "OTHERS False False" in out  # loading imported the families the file names, no others
