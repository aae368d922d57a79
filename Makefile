# Two entry points for a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: setup samples demo test lint

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev,samples]'
	touch $(STAMP)

setup: $(STAMP)

# Rails (Debian packages) and json-server (npm) for the other sample stacks; needs root.
samples:
	bash samples/setup.sh

# make demo PORT=9000 serves the A2App surface on another port
demo: setup
	$(BIN)/a2map demo $(if $(PORT),--port $(PORT))

lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

test: lint samples
	$(BIN)/python -m pytest
