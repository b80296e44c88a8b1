"""`dicepost demo --ruleset universal` plays to a winner, embedded and in full mode."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from engine import replay
from tests.conftest import ROOT, dicepost_command, empty_tables, full_config, full_env

pytestmark = pytest.mark.slow


def _demo(env: dict[str, str], record: Path, seed: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*dicepost_command(), "demo", "--ruleset", "universal", "--seed", seed,
                           "--record", str(record), "--wait", "60"],
                          env=env, cwd=ROOT, capture_output=True, text=True, timeout=300)


def _check(done: subprocess.CompletedProcess[str], record: Path) -> None:
    assert done.returncode == 0, done.stdout + done.stderr
    assert "winner: " in done.stdout
    assert "record replayed: every roll, event and state hash checks" in done.stdout
    assert "      a   b   c" in done.stdout  # the final grid
    assert "] finished" in done.stderr  # the progress bar
    data = json.loads(record.read_text())
    assert data["format"] == "dicepost-record/1" and replay(data).ok


def test_demo_embedded(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items()
           if k not in ("DATABASE_URL", "REDIS_URL") and not k.startswith("DICEPOST_")}
    env["DATABASE_URL"] = f"sqlite:///{tmp_path}/demo.sqlite3"
    record = tmp_path / "record.json"
    _check(_demo(env, record, "embedded"), record)


def test_demo_full_mode(tmp_path: Path, pg_url: str, redis_env: dict[str, str], worker: Any) -> None:
    from service import create_app

    empty_tables(create_app(full_config(pg_url, redis_env)))
    record = tmp_path / "record.json"
    _check(_demo(full_env(pg_url, redis_env), record, "full"), record)
