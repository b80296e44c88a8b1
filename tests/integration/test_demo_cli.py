"""`dicepost demo --ruleset universal` plays to a winner, embedded and in full mode."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from engine import replay
from tests.conftest import ROOT, clean_env, dicepost_command, empty_tables, full_config, full_env

pytestmark = pytest.mark.slow


def _demo(env: dict[str, str], record: Path, seed: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*dicepost_command(), "demo", "--ruleset", "universal", "--seed", seed,
                           "--record", str(record), "--wait", "60"],
                          env=env, cwd=ROOT, capture_output=True, text=True, timeout=300)


def _check(done: subprocess.CompletedProcess[str], record: Path, database_url: str) -> None:
    assert done.returncode == 0, done.stdout + done.stderr
    assert "winner: " in done.stdout
    assert ("record replayed under universal rules revision 1: every roll, event and state hash "
            "checks") in done.stdout
    assert "      a   b   c" in done.stdout  # the final grid
    assert "] finished" in done.stderr  # the progress bar
    # Nothing but the bar on stderr: no web-server request lines breaking it up.
    pieces = [p for p in re.split(r"[\r\n]", done.stderr) if p.strip()]
    assert all(p.startswith("[") for p in pieces), [p for p in pieces if not p.startswith("[")][:5]
    data = json.loads(record.read_text())
    assert data["format"] == "dicepost-record/1" and replay(data).ok
    # The printed link is where `dicepost serve` shows the game, on the same database: the
    # game is private, so the link is its GM's page, and that browser may then read the game.
    link = re.search(r"see it at http://127\.0\.0\.1:5000(/games/(\w+)/gm/\S+) \(served by `dicepost serve`, "
                     r"the game master's page: the game is private \(--public lists it\)\)", done.stdout)
    assert link and link.group(2) == data["game_id"], done.stdout
    from service import create_app

    app = create_app({"DATABASE_URL": database_url, "REDIS_URL": None, "SECRET_KEY": "t"})
    assert app.test_client().get(f"/games/{data['game_id']}").status_code == 404  # private
    browser = app.test_client()
    assert browser.get(link.group(1)).status_code == 200
    assert browser.get(f"/games/{data['game_id']}").status_code == 200


def test_demo_embedded(tmp_path: Path) -> None:
    env = clean_env(DATABASE_URL=f"sqlite:///{tmp_path}/demo.sqlite3")
    record = tmp_path / "record.json"
    _check(_demo(env, record, "embedded"), record, env["DATABASE_URL"])


def test_demo_full_mode(tmp_path: Path, pg_url: str, redis_env: dict[str, str], worker: Any) -> None:
    from service import create_app

    empty_tables(create_app(full_config(pg_url, redis_env)))
    record = tmp_path / "record.json"
    _check(_demo(full_env(pg_url, redis_env), record, "full"), record, pg_url)
