# The two commands a newcomer needs: `make run` and `make test`. Each creates .venv first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: venv run test lint typecheck pytest bench lock clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	touch $(STAMP)

venv: $(STAMP)

# Embedded default: SQLite file, tasks in-process, mail kept in the web app's mailbox.
PORT ?= 5000
run: venv
	$(BIN)/dicepost run --port $(PORT)

lint: venv
	$(BIN)/ruff check .

typecheck: venv
	$(BIN)/mypy engine service worker bench

pytest: venv
	$(BIN)/pytest -q

test: lint typecheck pytest

# Benchmarks (docs/performance.md): uses the local PostgreSQL and Redis, about 12 minutes; first the
# side-by-side table with boardgame.io (its harness: --peer DIR or DICEPOST_PEER_DIR, skipped when absent).
# Sizes as flags, e.g. make bench BENCH_ARGS="--games 50 --seconds 60" (python -m bench --help).
bench: venv
	$(BIN)/python -m bench $(BENCH_ARGS)

# requirements.lock, the image's pinned dependencies: a plain (not editable) install of this
# checkout into a fresh venv, frozen. Run it after changing the dependencies in pyproject.toml.
LOCK_VENV := build/lock-venv
lock:
	rm -rf $(LOCK_VENV)
	$(PYTHON) -m venv $(LOCK_VENV)
	$(LOCK_VENV)/bin/pip install -q .
	{ echo "# The image's runtime dependencies, pinned (Python 3.11): regenerate with make lock."; \
	  $(LOCK_VENV)/bin/pip freeze --exclude dicepost; } > requirements.lock
	rm -rf $(LOCK_VENV)

clean:
	rm -rf $(VENV) instance/*.sqlite3 .pytest_cache .mypy_cache .ruff_cache
