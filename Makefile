PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# XLA's compiled programs each hold memory mappings; raise Linux's per-process limit where allowed
RAISE_MAX_MAPS := -sysctl -qw vm.max_map_count=1048576 2>/dev/null || echo 1048576 > /proc/sys/vm/max_map_count 2>/dev/null

.PHONY: tour test test-all bench notebooks docs venv clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e ".[dev]"
	touch $(STAMP)

venv: $(STAMP)

tour: $(STAMP)
	$(BIN)/jaxclassic tour

# test workers: one per core, at least 2, and at most one per 7 GiB of available memory (a worker
# held 4.4-5.3 GiB at conftest.py's 60,000-map clear, and memory is not returned after it); override with `make test WORKERS=n`
WORKERS ?= $(shell $(PYTHON) -c "import os; m = [int(l.split()[1]) for l in open('/proc/meminfo') if l.startswith('MemAvailable')] if os.path.exists('/proc/meminfo') else [9 << 20]; print(max(2, min(len(os.sched_getaffinity(0)) if hasattr(os, 'sched_getaffinity') else os.cpu_count() or 2, int(m[0] / (7 * 2**20)))))")

# the fast tier: every family, fit and estimator on small data (tests marked `full` excluded)
test: $(STAMP)
	$(RAISE_MAX_MAPS)
	@echo "$(or $(WORKERS),2) test workers, $$(nproc) cores, $$(grep MemAvailable /proc/meminfo 2>/dev/null), vm.max_map_count $$(cat /proc/sys/vm/max_map_count 2>/dev/null)"
	$(BIN)/python -m pytest -x -q -n $(or $(WORKERS),2) -m "not full" --durations=10

# the whole suite (CI): the documentation site (first, so that pytest's summary closes the log),
# then the fast tier and every test marked `full`
test-all: $(STAMP) docs
	$(RAISE_MAX_MAPS)
	@echo "$(or $(WORKERS),2) test workers, $$(nproc) cores, $$(grep MemAvailable /proc/meminfo 2>/dev/null), vm.max_map_count $$(cat /proc/sys/vm/max_map_count 2>/dev/null)"
	$(BIN)/python -m pytest -x -q -n $(or $(WORKERS),2) --durations=15

bench: $(STAMP)
	$(BIN)/python -m benchmarks.run

# the documentation site: docs/ -> docs/_build/html (Sphinx; API pages from the docstrings, the executed
# notebooks as the user guide, not run again). Warnings are errors; -E reads every page afresh, so a
# warning is never hidden by an earlier build's saved state
docs: $(STAMP)
	$(BIN)/python -m sphinx -E -W --keep-going -q -b html docs docs/_build/html
	@echo "docs built: docs/_build/html/index.html"

# the chapter notebooks: notebooks/NN_*.py (jupytext) -> executed notebooks/NN_*.ipynb, full size
notebooks: $(STAMP)
	$(BIN)/python notebooks/build.py

clean:
	rm -rf $(VENV) build *.egg-info docs/_build docs/api docs/guide
