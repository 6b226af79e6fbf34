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

run: $(BIN)/hpckg ## build and validate the graph into .hpckg/store, print the derived facts, then serve it
	$(BIN)/hpckg build
	$(BIN)/hpckg query acme-total
	$(BIN)/hpckg serve --host $(HOST) --port $(PORT)

ontology/context.jsonld: ontology/hpckg.ttl ontology/vocabularies.ttl $(BIN)/hpckg ## regenerate the JSON-LD context from the ontology
	$(BIN)/python -c 'from hpckg.export import jsonld_context_text; print(jsonld_context_text(), end="")' > $@

context: ontology/context.jsonld ## alias: regenerate ontology/context.jsonld

test: $(BIN)/hpckg ## run the linter and the whole test suite
	$(BIN)/ruff check src tests bench
	$(BIN)/pytest

.PHONY: help install run test context
