# Two commands for a fresh machine:  make run  (default study)  and  make test.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
OUT ?= results/default-study

.PHONY: run test test-fast install install-test bench clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e .
	touch $@

$(VENV)/.installed-test: $(VENV)/.installed
	$(PY) -m pip install -q -e '.[test,rl]'
	touch $@

install: $(VENV)/.installed
install-test: $(VENV)/.installed-test

run: install
	$(VENV)/bin/domeng simulate --out $(OUT)

test: install-test
	$(PY) -m pytest

test-fast: install-test
	$(PY) -m pytest -m "not slow"

bench: install
	$(PY) -m pip install -q -e '.[bench]' || echo "note: the bench extra (dominoes) did not install"
	$(PY) benchmarks/bench_engine.py

clean:
	rm -rf $(VENV) build *.egg-info
