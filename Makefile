# Every target sets up what it needs from nothing (a fresh machine has python3, pip, node, npm).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

run: $(STAMP)  ## serve on http://127.0.0.1:8080 with the scripted engine
	$(BIN)/gemini-emulator serve

test: $(STAMP)  ## lint, then the whole suite against real servers on loopback
	$(BIN)/ruff check
	$(BIN)/pytest -q

lint: $(STAMP)
	$(BIN)/ruff check
	$(BIN)/ruff format --check

bench: $(STAMP)  ## throughput/latency ratios against a bare Starlette baseline (not a test)
	$(BIN)/python bench/run.py

clean:
	rm -rf $(VENV) build *.egg-info
