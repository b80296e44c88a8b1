"""The `dicepost` command: registry of sub-commands, rulesets, db upgrade, new-game, run."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from service import cli


@pytest.fixture
def embedded_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("REDIS_URL", "DICEPOST_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path}/cli.sqlite3")
    monkeypatch.setenv("SECRET_KEY", "cli-test")
    return tmp_path


def test_every_listed_command_registers() -> None:
    parser = cli.build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name in ("serve", "run", "worker", "beat", "db", "rulesets", "new-game", "demo", "sweep"):
        assert name in sub.choices


def test_rulesets(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["rulesets"]) == 0
    out = capsys.readouterr().out
    assert "universal:" in out and "--option max_rounds=0" in out and "chain_length" in out


def test_db_upgrade_and_new_game(embedded_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["db", "upgrade"]) == 0
    assert cli.main(["db", "upgrade"]) == 0
    from alembic.script import ScriptDirectory

    from service.migrate import MIGRATIONS

    head = ScriptDirectory(str(MIGRATIONS)).get_current_head()
    assert capsys.readouterr().out.count(f"database at {head}: sqlite:///") == 2
    assert cli.main(["new-game", "--ruleset", "universal", "--seat", "alice:a@example.org",
                     "--seat", "bob", "--option", "width=8", "--title", "CLI game"]) == 0
    out = capsys.readouterr().out
    assert "commitment S_0: " in out and out.count("/join/") == 2
    assert cli.main(["new-game", "--ruleset", "universal", "--seat", "alice", "--seat", "bob",
                     "--option", "width=99"]) == 2
    assert "options.width" in capsys.readouterr().out


def test_run_makes_one_demo_game(embedded_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["run", "--no-serve"]) == 0
    first = capsys.readouterr().out
    assert first.count("player page: http://127.0.0.1:5000/games/") == 2
    assert cli.main(["run", "--no-serve"]) == 0
    second = capsys.readouterr().out
    assert second == first  # the same demo game, links kept in the instance folder


def test_worker_and_beat_refuse_embedded_mode(embedded_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["worker"]) == 2
    assert cli.main(["beat"]) == 2
    assert "REDIS_URL" in capsys.readouterr().out
