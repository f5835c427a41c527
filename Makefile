# Every target sets up what it needs from nothing (a fresh machine has python3, pip, node, npm).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

# `make run PORT=9090` serves on another port; ARGS passes any other option (ARGS='--strict --engine replay').
PORT ?=
ARGS ?=

# Keep compiled bytecode (and pytest's rewritten test modules) between runs even where the shell sets
# PYTHONDONTWRITEBYTECODE: without the cache every pytest worker compiles ~2,000 modules and rewrites ~570
# again, about six seconds of CPU each (half of collecting the suite).
export PYTHONDONTWRITEBYTECODE :=

.PHONY: help run test test-fast lint bench fuzz sdk-matrix container-test conformance captures redteam clean
.DEFAULT_GOAL := help

help:  ## list the targets with what each does
	@awk 'BEGIN {FS = ":[^#]*## "} /^[a-z][a-z-]*:.*## / {printf "  make %-16s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

# The first install takes a minute or two: each step says what it does, and pip shows its progress.
$(STAMP): pyproject.toml
	@echo "==> creating $(VENV) with $(PYTHON)"
	$(PYTHON) -m venv $(VENV)
	@echo "==> upgrading pip in $(VENV)"
	$(BIN)/pip install --upgrade pip
	@echo "==> installing gemini-emulator (editable) with its test dependencies into $(VENV)"
	$(BIN)/pip install -e '.[test]'
	touch $(STAMP)
	@echo "==> ready: $(BIN)/gemini-emulator"

run: $(STAMP)  ## serve on http://127.0.0.1:8080 (PORT=9090 for another port, ARGS='...' for other options)
	$(BIN)/gemini-emulator serve $(if $(PORT),--port $(PORT)) $(ARGS)

CONFORMANCE := build/conformance-results.json

# Debian's redis-server, nginx and HAProxy for tests/scaling (each test starts its own on a free port; the proxies run
# docs/scaling.md's recipes), installed when missing as root; without them those tests skip, naming the package.
SCALING_TOOLS := /usr/bin/redis-server /usr/sbin/nginx /usr/sbin/haproxy

# Without ../shared beside the clone the tests that read the raw corpus skip (one reason, tests/corpus.py) and
# the matrix check leaves out what they decide; everything else runs from the repo alone.
test: $(STAMP)  ## lint, then the whole suite against real servers on loopback; fails if the conformance matrix is stale
	@for tool in $(SCALING_TOOLS); do [ -x $$tool ] || missing=1; done; [ -z "$$missing" ] || \
		if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			redis-server nginx haproxy; \
		else echo "==> redis-server, nginx or haproxy missing: tests/scaling skip what needs them"; fi
	$(BIN)/ruff check
	$(BIN)/pytest -q --conformance-results=$(CONFORMANCE)
	$(BIN)/python tools/conformance_matrix.py --check $(CONFORMANCE)

test-fast: $(STAMP)  ## lint, then the suite less fuzz, stress, JS SDKs, browser, container and slow tests (under a minute)
	$(BIN)/ruff check
	$(BIN)/pytest -q --fast -n 4  # four pytest-xdist workers: most of the time is waiting on sockets and subprocesses

conformance: $(STAMP)  ## the whole suite, then docs/conformance-matrix.md regenerated from its results (needs ../shared/corpus)
	$(BIN)/pytest -q --conformance-results=$(CONFORMANCE); status=$$?; \
	$(BIN)/python tools/conformance_matrix.py $(CONFORMANCE) && exit $$status

captures: $(STAMP)  ## re-import captures/ from ../shared/corpus (the curated import; see captures/README.md)
	@$(BIN)/python tools/import_captures.py

redteam: $(STAMP)  ## the red-team suite (tests/redteam): freezes, unbounded memory, isolation; bounded, also in `make test`
	$(BIN)/pytest -q tests/redteam

lint: $(STAMP)  ## ruff: lint and formatting
	$(BIN)/ruff check
	$(BIN)/ruff format --check

bench: $(STAMP)  ## the emulator against a bare Starlette app and aimock, then its long runs (not a test; ~5 min)
	$(BIN)/python bench/run.py

fuzz: $(STAMP)  ## hypothesis (1,500 examples per test) and schemathesis fuzz tests, new random inputs every run (~85,000 requests, ~6 min)
	FUZZ_EXAMPLES=1500 FUZZ_RANDOM=1 $(BIN)/pytest -q tests/fuzz/test_fuzz.py tests/fuzz/test_schemathesis.py

SDK_MATRIX := build/sdk-matrix

sdk-matrix: $(STAMP)  ## every SDK × call (Python and Node), then docs/sdk-matrix.md regenerated from the results
	rm -rf $(SDK_MATRIX) && mkdir -p $(SDK_MATRIX)
	SDK_MATRIX_RESULTS=$(SDK_MATRIX) $(BIN)/pytest -q --junitxml=$(SDK_MATRIX)/python.xml \
		tests/sdk/test_sdk_matrix_*.py tests/sdk/test_py_extras.py tests/sdk/test_js_matrix.py; status=$$?; \
	$(BIN)/python tools/gen_sdk_matrix.py $(SDK_MATRIX) > $(SDK_MATRIX)/sdk-matrix.md && \
		mv $(SDK_MATRIX)/sdk-matrix.md docs/sdk-matrix.md && exit $$status

IMAGE ?= localhost/gemini-emulator:test

container-test: $(STAMP)  ## build the image with podman and test it for real, alone and in deploy/compose.yaml (as root; installs podman)
	bash tools/container-env.sh
	podman build --format docker --tag $(IMAGE) .
	GEMINI_EMULATOR_IMAGE=$(IMAGE) $(BIN)/pytest -q tests/container

clean:  ## remove .venv, build/ and the egg-info
	rm -rf $(VENV) build *.egg-info
