# Kaeshi: every target sets up the local virtual environment it needs.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
SHARED ?= ../shared

.DEFAULT_GOAL := help
.PHONY: help demo test bench lint firmware clean

help:
	@echo "Kaeshi — watch a physical Othello board"
	@echo ""
	@echo "  make demo      run the service on simulated hardware (page up until Ctrl-C)"
	@echo "  make test      run every test (sets up .venv, builds host firmware)"
	@echo "  make bench     print performance figures"
	@echo "  make lint      ruff over the whole tree, mypy (strict on the pure core)"
	@echo "  make firmware  build the firmware for the host and, if gcc-avr is present, the AVR"
	@echo "  make clean     remove build products and the virtual environment"

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/kaeshi demo

test: $(STAMP)
	$(PY) -m pytest -n 2 -q

bench: $(STAMP)
	$(PY) benchmarks/run.py $(BENCH)

# mypy reads its settings from pyproject.toml: every package checked, the pure core
# with every --strict flag; its cache makes a second run take a second.
lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy

firmware:
	$(MAKE) -C firmware

clean:
	rm -rf $(VENV) build *.egg-info firmware/build .pytest_cache .ruff_cache .mypy_cache
