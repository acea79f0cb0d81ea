# Each target creates or reuses .venv and installs the project into it.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test package-check lint bench bench-release findings notebooks install clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(BIN)/halfmoon batch --range 0:2000 --out results && $(BIN)/halfmoon stats results
	$(BIN)/halfmoon report results --out report

test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/python -m pytest -q -m "not packaging" -n auto --maxprocesses=4 --dist loadfile --durations=20

# The sdist and the wheel built with every warning an error, the wheel installed in a fresh
# environment and run (about 2 min: the installed solver compiles its kernels); CI runs it.
package-check: $(STAMP)
	$(BIN)/python -m pytest -q -m packaging tests/test_packaging.py

lint: $(STAMP)
	$(BIN)/ruff check .

# halfmoon bench: SUITE=quick (a minute once compiled), standard (10-25 min) or tail; a result
# folder under bench-results/ (git ignores it).  bench-release: the committed standard result
# and the dry run's tail model made again from the solver as committed, after any change of
# its source (benchmarks/release.py; it refuses a tree with changes not committed).
SUITE ?= quick
bench: $(STAMP)
	$(BIN)/halfmoon bench --suite $(SUITE)

bench-release: $(STAMP)
	$(BIN)/python benchmarks/release.py

# The census behind docs/findings.md (resumable: rerun it to go on), then the page, its
# charts and data from it (each stage resumable under $(CENSUS)/_findings/).
CENSUS ?= census
findings: $(STAMP)
	$(BIN)/halfmoon batch --random 1000000 --seed 2026 --out $(CENSUS) --chunk-size 5000
	$(BIN)/halfmoon findings $(CENSUS) --out docs --seed 2026

# JupyterLab on notebooks/ with the project's environment (the lab extra, installed here only);
# the notebooks read $(RESULTS) (make run's results) and its findings ($(RESULTS)/_findings/
# findings; FINDINGS=DIR/findings those written with --out DIR, FINDINGS=census the shipped
# census's in docs/findings). It listens on 127.0.0.1 and prints the address to open.
RESULTS ?= $(CURDIR)/results
FINDINGS ?=
LAB_STAMP := $(VENV)/.lab-installed
$(LAB_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[lab]"
	touch $(LAB_STAMP)

# (as root, in a container, Jupyter asks for --allow-root: given only there)
notebooks: $(LAB_STAMP)
	HALFMOON_RESULTS=$(RESULTS) HALFMOON_FINDINGS=$(FINDINGS) $(BIN)/jupyter lab --notebook-dir=notebooks \
		--ServerApp.ip=127.0.0.1 --no-browser $(if $(filter 0,$(shell id -u)),--allow-root)

clean:
	rm -rf $(VENV) build *.egg-info
