"""The chapter notebooks (``notebooks/NN_*.py``, jupytext percent scripts paired with executed
``.ipynb``): each runs at its small size (``JAXCLASSIC_NB_SMALL=1``) without an error, and each
committed ``.ipynb`` is in sync with its script and carries its outputs, figures included.

Running a notebook costs a kernel start, the imports of JAX, scikit-learn and friends, and the
compiles of its fits; so the notebooks of this module share one kernel per test process (the
namespace is reset and float64 turned off between notebooks, as in a fresh kernel), and the
kernel uses the suite's persistent compilation cache (``.jax_cache/`` or
``$JAXCLASSIC_JAX_CACHE``, see the top-level ``conftest.py``). ``make notebooks`` runs them at
full size, each in a fresh kernel, and writes the ``.ipynb``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

jupytext = pytest.importorskip("jupytext")
nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

ROOT = Path(__file__).resolve().parents[1]
NB_DIR = ROOT / "notebooks"
SCRIPTS = sorted(NB_DIR.glob("[0-9][0-9]_*.py"))
CELL_TIMEOUT = 300  # seconds per cell (a cell takes < 90 s even on the loaded shared 2-core machine)
RESET = (
    "%reset -f\n"
    "import jax, matplotlib.pyplot as plt\n"
    "plt.close('all')\n"
    "jax.config.update('jax_enable_x64', False)"
)
KERNEL_ENV = {
    "JAXCLASSIC_NB_SMALL": "1",
    "JAX_COMPILATION_CACHE_DIR": os.environ.get("JAXCLASSIC_JAX_CACHE", str(ROOT / ".jax_cache")),
    "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "0.5",
    "JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES": "0",
    "MPLBACKEND": "module://matplotlib_inline.backend_inline",
}


def _code_and_markdown(nb):
    return [(c.cell_type, c.source.strip()) for c in nb.cells if c.cell_type in ("code", "markdown")]


def test_nine_chapters():
    assert [s.name[:2] for s in SCRIPTS] == [f"{i:02d}" for i in range(1, 10)]


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda s: s.stem)
def test_ipynb_in_sync_with_outputs(script):
    """The committed notebook has the script's cells, was run in order without an error, and
    shows at least one figure."""
    ipynb = script.with_suffix(".ipynb")
    assert ipynb.exists(), f"{ipynb.name} missing: run `make notebooks`"
    assert _code_and_markdown(jupytext.read(ipynb)) == _code_and_markdown(jupytext.read(script)), (
        f"{ipynb.name} is out of sync with {script.name}: run `make notebooks`"
    )
    nb = nbformat.read(ipynb, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert [c.execution_count for c in code] == list(range(1, len(code) + 1)), "not run top to bottom"
    outputs = [o for c in code for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    assert any("image/png" in o.get("data", {}) for o in outputs), "no figure in the outputs"


def test_readme_figure_is_small():
    figure = NB_DIR / "figures" / "hitters_best_subset.png"
    assert figure.exists() and figure.stat().st_size < 150_000


@pytest.fixture(scope="module")
def kernel():
    """One kernel for the notebooks of this module (in this test process), small sizes."""
    saved = {k: os.environ.get(k) for k in KERNEL_ENV}
    os.environ.update(KERNEL_ENV)  # the kernel inherits this process's environment
    client = nbclient.NotebookClient(
        nbformat.v4.new_notebook(), timeout=CELL_TIMEOUT, kernel_name="python3",
        resources={"metadata": {"path": str(NB_DIR)}},
    )
    setup = client.setup_kernel()
    setup.__enter__()
    try:
        yield client
    finally:
        setup.__exit__(None, None, None)
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda s: s.stem)
def test_notebook_runs_small(kernel, script):
    """Every cell of the notebook runs without an error at its small size, and it draws."""
    nb = jupytext.read(script)
    nb.cells.insert(0, nbformat.v4.new_code_cell(RESET))
    kernel.nb = nb
    for index, cell in enumerate(nb.cells):
        if cell.cell_type == "code":
            kernel.execute_cell(cell, index)  # raises CellExecutionError on an error
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    assert any("image/png" in o.get("data", {}) for o in outputs), "the notebook drew no figure"
