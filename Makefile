# The two commands: `make demo` and `make test`. Both create .venv when missing.
# `make demo` (and `make demo-all`, which adds the three slowest selectors) installs only
# the extra it needs (demo), `make docs` the docs extra, `make test` the dev extra. Each
# install has its own stamp, so switching between them reinstalls only what is missing.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
SHARED_DATA := $(abspath ../shared/data)
export UFSEL_DATA ?= $(if $(wildcard $(SHARED_DATA)/*.mat),$(SHARED_DATA),)
SPHINXOPTS ?= -W --keep-going -q

.PHONY: demo demo-all test docs docs-outputs wheel-check lint venv clean

$(VENV)/.created:
	$(PYTHON) -m venv $(VENV)
	touch $@

$(VENV)/.installed-demo: pyproject.toml $(VENV)/.created
	$(PY) -m pip install -q -e ".[demo]"
	touch $@

$(VENV)/.installed-docs: pyproject.toml $(VENV)/.created
	$(PY) -m pip install -q -e ".[docs]"
	touch $@

$(VENV)/.installed-dev: pyproject.toml $(VENV)/.created
	$(PY) -m pip install -q -e ".[dev]"
	touch $@

venv: $(VENV)/.installed-dev

demo: $(VENV)/.installed-demo
	$(PY) -m ufsel.demo

demo-all: $(VENV)/.installed-demo
	$(PY) -m ufsel.demo --all

# The package tests (src/ufsel) and the repository checks (tests/): pyproject.toml testpaths.
test: $(VENV)/.installed-dev
	$(PY) -m pytest -q -p no:cacheprovider -m "not wheel"

# Builds the wheel, installs it into a fresh venv and runs `ufsel select` outside the tree.
wheel-check: $(VENV)/.installed-dev
	$(PY) -m pytest -q -p no:cacheprovider -m wheel

docs: $(VENV)/.installed-docs
	$(VENV)/bin/sphinx-build -b html $(SPHINXOPTS) docs docs/_build/html
	@echo "docs: open docs/_build/html/index.html"

# Rerun the commands whose console output README.md and docs/ quote, and rewrite those
# blocks (`python docs/tools/render_outputs.py --check` only compares; a test runs it).
docs-outputs: $(VENV)/.installed-dev
	$(PY) docs/tools/render_outputs.py

lint: $(VENV)/.installed-dev
	$(VENV)/bin/ruff check src benchmarks tests

clean:
	rm -rf $(VENV) demo_results .pytest_cache docs/_build docs/auto_examples docs/api/generated docs/sg_execution_times.rst
