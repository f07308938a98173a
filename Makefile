# Two commands for a fresh machine:  make run  (default study)  and  make test.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
OUT ?= results/default-study

.PHONY: run serve test test-fast gates install install-test docs bench clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e .
	touch $@

$(VENV)/.installed-test: $(VENV)/.installed
	$(PY) -m pip install -q -e '.[test,rl,docs]'
	@# the browser tests (tests/web) drive Debian's Chromium, never a downloaded browser
	@if [ ! -x /usr/bin/chromium ]; then \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -q && apt-get install -y -q chromium; \
	  else echo "note: /usr/bin/chromium is missing (apt-get install chromium as root): the browser tests will be skipped"; fi; \
	fi
	touch $@

$(VENV)/.installed-docs: $(VENV)/.installed
	$(PY) -m pip install -q -e '.[docs]'
	touch $@

$(VENV)/.installed-web: $(VENV)/.installed
	$(PY) -m pip install -q -e '.[web]'
	touch $@

install: $(VENV)/.installed
install-test: $(VENV)/.installed-test

run: install
	@# the default study replaces its own earlier output (a study given --out elsewhere never is)
	$(VENV)/bin/domeng simulate --out $(OUT) --force

# the browser table on http://127.0.0.1:8000 (docs/web.md)
serve: $(VENV)/.installed-web
	$(VENV)/bin/domeng serve

# the suite runs on up to 4 cores (pytest-xdist; the workers share numba's cache,
# saved under a lock: domeng/core/numba_cache.py); TEST_JOBS=0 runs it in one process
TEST_JOBS ?= $(shell n=$$(nproc 2>/dev/null || echo 2); [ $$n -gt 4 ] && n=4; echo $$n)
PYTEST := $(PY) -m pytest --durations=25 $(if $(filter 0,$(TEST_JOBS)),,-n $(TEST_JOBS) --dist worksteal)

# the quality gates (seconds): lint, format, spelling, types; they run first in make test
gates: install-test
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/codespell
	$(VENV)/bin/mypy
	$(VENV)/bin/repo-review --show err .

# the documentation site (mkdocs.yml) into site/; open site/index.html
docs: $(VENV)/.installed-docs
	NO_MKDOCS_2_WARNING=1 $(PY) -m mkdocs build --strict --site-dir site

test: gates
	$(PYTEST)

test-fast: gates
	$(PYTEST) -m "not slow"

bench: install
	$(PY) -m pip install -q -e '.[bench]' || echo "note: the bench extra (dominoes) did not install"
	$(PY) benchmarks/bench_engine.py

clean:
	rm -rf $(VENV) build *.egg-info site
