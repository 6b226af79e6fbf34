SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.DELETE_ON_ERROR:
MAKEFLAGS += --warn-undefined-variables --no-builtin-rules

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000

.DEFAULT_GOAL := help

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F ':.*## ' '{printf "  %-10s %s\n", $$1, $$2}'

$(BIN)/hpckg: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $@

install: $(BIN)/hpckg ## create .venv and install hpckg with its test extra

run: $(BIN)/hpckg ## import the configured sources present, build and validate into .hpckg/store, print the derived facts, serve
	$(BIN)/hpckg build
	$(BIN)/hpckg query acme-total
	$(BIN)/hpckg serve --host $(HOST) --port $(PORT)

ontology/context.jsonld: ontology/hpckg.ttl ontology/vocabularies.ttl $(BIN)/hpckg ## regenerate the JSON-LD context from the ontology
	$(BIN)/python -c 'from pathlib import Path; from hpckg.export import jsonld_context_text; print(jsonld_context_text(Path("ontology")), end="")' > $@

context: ontology/context.jsonld ## alias: regenerate ontology/context.jsonld

browser: ## install Debian's Chromium for the browser tests, where this user can (root with apt-get)
	@if command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; then \
	  :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "installing chromium for the browser tests (apt-get)"; \
	  DEBIAN_FRONTEND=noninteractive apt-get update -qq; \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	else \
	  echo "*** Chromium is not installed and this user cannot install it (not root, or no apt-get):"; \
	  echo "*** the browser tests will be SKIPPED. Install chromium (Debian: apt-get install chromium) to run them."; \
	fi

virtuoso: ## install Debian's Virtuoso 7 (virtuoso-opensource) for the Virtuoso tests, where this user can (root with apt-get)
	@if command -v virtuoso-t >/dev/null 2>&1; then \
	  :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "installing virtuoso-opensource for the Virtuoso tests (apt-get)"; \
	  DEBIAN_FRONTEND=noninteractive apt-get update -qq; \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq virtuoso-opensource >/dev/null; \
	else \
	  echo "*** Virtuoso is not installed and this user cannot install it (not root, or no apt-get):"; \
	  echo "*** the Virtuoso tests will be SKIPPED. Install it (Debian: apt-get install virtuoso-opensource) to run them."; \
	fi

# Both run the tests on one worker process per core (pytest-xdist). --dist loadfile keeps each module on one
# worker, so its fixtures and servers are made once (tests/conftest.py's scheduler deals out the tests of a
# few long modules one by one instead); the stores of tests/stores.py are built once for all workers.
PYTEST_WORKERS ?= auto
PYTEST := $(BIN)/pytest -n $(PYTEST_WORKERS) --dist loadfile

test: $(BIN)/hpckg browser virtuoso ## run the linter and the whole test suite (installs Chromium and Virtuoso for their tests)
	$(BIN)/ruff check src tests bench
	$(PYTEST)

test-fast: $(BIN)/hpckg ## the quick loop: no browser, no Virtuoso, no builds of the real datasets, no abuse, no long parity tests
	$(PYTEST) -m "not (slow or browser or virtuoso or imports or abuse)"

.PHONY: help install run test test-fast browser virtuoso context
