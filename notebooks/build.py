"""Build the chapter notebooks: jupytext percent scripts -> executed ``.ipynb`` with outputs.

The source of truth is ``notebooks/NN_<chapter>.py`` (jupytext "percent" format: reviewable
diffs). ``python notebooks/build.py`` (``make notebooks``) converts each script to a notebook,
executes it at full size with nbclient in a fresh kernel whose working directory is
``notebooks/``, and writes ``notebooks/NN_<chapter>.ipynb`` with its outputs (figures
embedded), printing each notebook's run time. ``--small`` sets ``JAXCLASSIC_NB_SMALL=1``
(the size the test suite runs at) and writes nothing unless ``--write`` is given.

Example::

    .venv/bin/python notebooks/build.py                 # all, full size, write .ipynb
    .venv/bin/python notebooks/build.py 03 05           # the notebooks whose name starts so
    .venv/bin/python notebooks/build.py --small         # all, small, check they run
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import jupytext
import nbformat
from nbclient import NotebookClient

HERE = Path(__file__).resolve().parent
SMALL_ENV = "JAXCLASSIC_NB_SMALL"
KERNELSPEC = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}


def notebook_scripts() -> list[Path]:
    """The chapter scripts ``notebooks/NN_*.py``, in chapter order."""
    return sorted(HERE.glob("[0-9][0-9]_*.py"))


def execute(script: Path, *, small: bool, timeout: int = 900) -> nbformat.NotebookNode:
    """Read ``script`` with jupytext and execute it in a fresh kernel; return the notebook.

    ``small`` sets ``JAXCLASSIC_NB_SMALL=1`` in the kernel's environment (inherited from
    this process). ``timeout`` is per cell, in seconds.
    """
    nb = jupytext.read(script)
    nb.metadata["kernelspec"] = dict(KERNELSPEC)
    nb.metadata.setdefault("jupytext", {})["formats"] = "ipynb,py:percent"
    old = os.environ.get(SMALL_ENV)
    os.environ[SMALL_ENV] = "1" if small else "0"
    try:
        client = NotebookClient(
            nb, timeout=timeout, kernel_name="python3", record_timing=False,
            resources={"metadata": {"path": str(HERE)}},
        )
        client.execute()
    finally:
        if old is None:
            os.environ.pop(SMALL_ENV, None)
        else:
            os.environ[SMALL_ENV] = old
    return nb


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("only", nargs="*", help="prefixes of the notebooks to build (default all)")
    parser.add_argument("--small", action="store_true", help=f"run with {SMALL_ENV}=1")
    parser.add_argument("--write", action="store_true", help="write the .ipynb even with --small")
    args = parser.parse_args(argv)
    scripts = [s for s in notebook_scripts()
               if not args.only or any(s.name.startswith(p) for p in args.only)]
    total = 0.0
    for script in scripts:
        start = time.perf_counter()
        nb = execute(script, small=args.small)
        seconds = time.perf_counter() - start
        total += seconds
        if args.write or not args.small:
            nbformat.write(nb, script.with_suffix(".ipynb"))
        print(f"{script.name:40s} {seconds:7.1f} s", flush=True)
    print(f"{'total':40s} {total:7.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
