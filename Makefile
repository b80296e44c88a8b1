# The two commands a newcomer needs: `make run` and `make test` (`make check` for the inner
# loop). Each creates .venv first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: venv run test check lint typecheck pytest bench lock clean pyodide

# The venv gets requirements-dev.lock (every file checked against its hash), then this
# checkout, editable, built with the lock's setuptools (no build environment fetched).
PIP := $(BIN)/python -m pip --disable-pip-version-check
$(STAMP): pyproject.toml requirements-dev.lock
	@echo "make venv: installing requirements-dev.lock and dicepost into $(VENV)"
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@$(PIP) install -qq --require-hashes --requirement requirements-dev.lock
	@$(PIP) install -qq --no-deps --no-build-isolation --editable .
	@touch $(STAMP)

venv: $(STAMP)

# The verifier page's Python runtime (docs/fair-dice.md): npm's pyodide package, pinned by
# version and checksum, unpacked into the package's static files (not in git). Without npm
# the page still checks the dice, and says in amber what it could not check.
PYODIDE_VERSION := 0.29.5
PYODIDE_INTEGRITY := sha512-TkYrUv9m8QmfImADKRmpwZulL48E0uUaBSO+dvRQKyAJc0qh9gu7jn8btyHPh3NZm1r2IH2YrJhIr7Q2B9urAw==
PYODIDE_FILES := pyodide.mjs pyodide.asm.js pyodide.asm.wasm python_stdlib.zip pyodide-lock.json
PYODIDE_DIR := service/static/pyodide
PYODIDE_STAMP := $(PYODIDE_DIR)/.pyodide-$(PYODIDE_VERSION)

$(PYODIDE_STAMP):
	@if ! command -v npm >/dev/null 2>&1; then \
	  echo "make pyodide: npm not found; the verifier page will check the dice only (apt-get install npm)"; \
	  exit 0; fi; \
	set -e; rm -rf build/pyodide; mkdir -p build/pyodide; \
	if ! npm pack --silent --pack-destination build/pyodide pyodide@$(PYODIDE_VERSION) >/dev/null; then \
	  echo "make pyodide: npm could not fetch pyodide@$(PYODIDE_VERSION); the verifier page will check the dice only"; \
	  rm -rf build/pyodide; exit 0; fi; \
	tgz=build/pyodide/pyodide-$(PYODIDE_VERSION).tgz; \
	got=$$(node -e 'const c=require("crypto"),f=require("fs");process.stdout.write("sha512-"+c.createHash("sha512").update(f.readFileSync(process.argv[1])).digest("base64"))' $$tgz); \
	if [ "$$got" != "$(PYODIDE_INTEGRITY)" ]; then echo "pyodide $(PYODIDE_VERSION): checksum $$got, expected $(PYODIDE_INTEGRITY)"; exit 1; fi; \
	tar -xzf $$tgz -C build/pyodide; rm -rf $(PYODIDE_DIR); mkdir -p $(PYODIDE_DIR); \
	for f in $(PYODIDE_FILES); do cp build/pyodide/package/$$f $(PYODIDE_DIR)/$$f; done; \
	rm -rf build/pyodide; touch $@

pyodide: $(PYODIDE_STAMP)

# Embedded default: SQLite file, tasks in-process, mail kept in the web app's mailbox.
PORT ?= 5000
run: venv pyodide
	$(BIN)/dicepost run --port $(PORT)

lint: venv
	$(BIN)/ruff check .

typecheck: venv
	$(BIN)/mypy engine service worker bench

# pytest-xdist: PYTEST_WORKERS test processes share the cores (README, "Tests", has the
# measured times); each process makes its own databases, Redis prefix, ports and browser.
PYTEST_WORKERS ?= 4
PYTEST := $(BIN)/pytest -q -n $(PYTEST_WORKERS)

# A machine may set PYTHONDONTWRITEBYTECODE: then each test process, and each command a test
# starts, would compile the checkout again (and pytest rewrite every test module again). The
# tests keep their bytecode (git ignores __pycache__), compiled once before the processes start.
unexport PYTHONDONTWRITEBYTECODE
COMPILE := $(BIN)/python -m compileall -q -j 0 engine service worker bench tests >/dev/null

pytest: venv pyodide
	@$(COMPILE)
	$(PYTEST)

test: lint typecheck pytest

# The inner loop: lint, types and the tests that start no browser and no processes of
# their own (workers, servers, builds): the markers of pyproject.toml, set in tests/conftest.py.
check: lint typecheck
	@$(COMPILE)
	$(PYTEST) -m "not browser and not processes"

# Benchmarks (docs/performance.md, "How to run" gives each part and its time): uses the local
# PostgreSQL and Redis; first the side-by-side table with boardgame.io (its harness: --peer DIR or
# DICEPOST_PEER_DIR, skipped when absent).
# Sizes as flags, e.g. make bench BENCH_ARGS="--games 50 --seconds 60" (python -m bench --help).
bench: venv
	$(BIN)/python -m bench $(BENCH_ARGS)

# The two locks, from pyproject.toml, every file with its hash (pip installs them with
# --require-hashes): requirements-dev.lock is the runtime, dev and test tools (make venv),
# requirements.lock the runtime alone (the image), resolved within the dev lock so the image
# runs the versions the tests ran. uv rather than pip-tools: one resolver binary pinned in the
# dev lock itself, a universal lock (markers for every platform and Python >= 3.11, not the
# resolving machine's), PyPI alone whatever the machine's pip configuration, and fast.
# Existing pins are kept while pyproject.toml allows them, so the same inputs give the
# same locks; make lock LOCK_ARGS=--upgrade moves everything to the newest releases.
LOCK_ARGS ?=
UV_COMPILE := $(BIN)/uv pip compile --quiet --universal --python-version 3.11 --generate-hashes \
	--custom-compile-command "make lock" $(LOCK_ARGS)
lock: venv
	$(UV_COMPILE) --extra dev --output-file requirements-dev.lock pyproject.toml
	$(UV_COMPILE) --constraint requirements-dev.lock --output-file requirements.lock pyproject.toml

clean:
	rm -rf $(VENV) $(PYODIDE_DIR) instance/*.sqlite3 .pytest_cache .mypy_cache .ruff_cache
