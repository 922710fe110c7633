"""The documentation site's wiring (``make docs``) and the README's performance table.

The site itself is built, warnings as errors, by ``make test-all`` (its ``docs`` prerequisite);
these checks are cheap and keep that wiring from drifting: the build's flags, its place in CI
and not in the fast tier, its dependencies, and the API pages covering every public module.
"""

import ast
import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"

# DESIGN.md's table of public names, and the estimator layer: each has an API page
DESIGN_MODULES = [
    "losses", "metrics", "information", "linear", "svm", "kernels", "discriminant", "neighbors",
    "gaussian_process", "tree", "ensemble", "cluster", "graphical", "distributed", "streaming",
    "plot", "io", "model_selection", "estimators",
]


def _api_modules() -> list[str]:
    """``API_MODULES`` of docs/conf.py, read without running conf.py (which writes pages)."""
    tree = ast.parse((DOCS / "conf.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == "API_MODULES":
            return [name for name, _ in ast.literal_eval(node.value)]
    raise AssertionError("docs/conf.py defines no API_MODULES")


def _makefile_rule(target: str) -> str:
    text = (ROOT / "Makefile").read_text()
    match = re.search(rf"^{re.escape(target)}:.*\n(\t.*\n)*", text, flags=re.M)
    assert match, f"the Makefile has no {target!r} target"
    return match.group(0)


def test_docs_target_builds_with_warnings_as_errors():
    rule = _makefile_rule("docs")
    assert "sphinx" in rule and " -W " in rule and "--keep-going" in rule and " -E " in rule
    assert "docs docs/_build/html" in rule


def test_test_all_builds_the_docs_and_test_does_not():
    assert re.match(r"test-all:.*\bdocs\b", _makefile_rule("test-all"))
    assert "docs" not in _makefile_rule("test").splitlines()[0].split(":", 1)[1]


def test_docs_dependencies_are_installed_by_make_venv():
    tomllib = pytest.importorskip("tomllib")  # Python >= 3.11

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    names = {re.split(r"[<>=\[ ]", requirement)[0].lower() for requirement in extras["docs"]}
    assert {"sphinx", "numpydoc", "myst-nb", "pydata-sphinx-theme", "sphinx-mathjax-offline"} <= names
    assert any("docs" in requirement for requirement in extras["dev"] if requirement.startswith("jaxclassic["))


def test_every_public_module_has_an_api_page():
    modules = _api_modules()
    assert len(modules) == len(set(modules))
    missing = [m for m in DESIGN_MODULES if f"jaxclassic.{m}" not in modules]
    assert not missing, f"docs/conf.py API_MODULES lacks {missing}"
    for name in modules:
        assert getattr(importlib.import_module(name), "__all__", None), f"{name} has no __all__"


def test_hand_written_pages_are_in_the_toctree():
    index = (DOCS / "index.md").read_text()
    toctree = re.search(r"```\{toctree\}\n(.*?)```", index, flags=re.S).group(1)
    entries = [re.sub(r".*<(.*)>", r"\1", line).strip() for line in toctree.splitlines()]
    entries = [e for e in entries if e and not e.startswith(":")]
    for page in ("install", "distributed", "vocabulary"):
        assert page in entries and (DOCS / f"{page}.md").exists()
    assert "guide/index" in entries and "api/index" in entries
    ignored = (ROOT / ".gitignore").read_text()
    assert all(f"docs/{d}/" in ignored for d in ("_build", "api", "guide"))


def test_readme_performance_rows_name_their_measurement():
    text = (ROOT / "README.md").read_text()
    section = text.split("## Performance", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| ") and "---" not in line][1:]
    assert len(rows) >= 5
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert len(cells) == 6, row
        assert re.search(r"20\d\d-\d\d-\d\d", cells[5]), f"no date: {row}"
        assert "--only" in cells[5] or "benchmarks." in cells[5], f"no command: {row}"
        assert re.search(r"\d", cells[4]) or "slower" in cells[4], f"no ratio: {row}"


def test_prose_attributes_become_numpydoc_entries():
    """docs/_house_docstrings.py: a prose list of fitted attributes -> one entry per attribute;
    well-formed entries unchanged; free text after the entries -> Notes."""
    import sys

    sys.path.insert(0, str(DOCS))
    try:
        from _house_docstrings import fix_attributes
    finally:
        sys.path.remove(str(DOCS))
    lines = [
        "Summary.", "", "Attributes", "----------",
        "classes_, coef_ (1, d) or (C, d), n_iter_ (epochs),",
        "params_ (:class:`~jaxclassic.linear.LogisticParams`)",
        "scalings_ : (n_features, n_features)", "    Fisher's directions.", "",
        "Examples", "--------", ">>> 1", "1",
    ]
    fix_attributes(lines)
    assert lines[4:14] == [
        "classes_", "coef_", "    (1, d) or (C, d)", "n_iter_", "    epochs",
        "params_", "    :class:`~jaxclassic.linear.LogisticParams`",
        "scalings_ : (n_features, n_features)", "    Fisher's directions.", "",
    ]
    assert lines[14:] == ["Examples", "--------", ">>> 1", "1"]
    lines = ["Attributes", "----------", "coef : (d,) array", "    The weights.", "",
             "A path of fits carries batch axes."]
    fix_attributes(lines)
    assert lines == ["Attributes", "----------", "coef : (d,) array", "    The weights.", "",
                     "Notes", "-----", "A path of fits carries batch axes.", ""]
