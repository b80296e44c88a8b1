"""The chain tip at rest is sealed with the seal key: a copy of the database alone reveals
no future die, and a missing or wrong key stops the service at start (one line), never a
silent new chain."""

from __future__ import annotations

import secrets
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from flask import Flask

from engine import chain
from engine.dice import NEW_GAME_PROFILE
from service import cli, create_app, webserver
from service.config import from_env
from service.db import engine_of
from service.dice_keys import SealError, open_tip, seal_tip
from tests.conftest import base_config, migrated_sqlite
from tests.service.play import start
from tests.service.test_cli import invoke, one_line_error


@pytest.fixture
def full_db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Flask, Path]]:
    """A database file with one started game, and the environment pointing at it
    (DATABASE_URL set: the seal key must come from DICEPOST_SEAL_KEY)."""
    db_file = tmp_path / "sealed.sqlite3"
    for name in ("REDIS_URL", "DICEPOST_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{db_file}")
    monkeypatch.setenv("SECRET_KEY", "seal-test")
    monkeypatch.setenv("DICEPOST_INSTANCE_PATH", str(tmp_path / "instance"))
    app = create_app(base_config(migrated_sqlite(db_file)))
    start(app.test_client())
    yield app, db_file
    engine_of(app).dispose()


def test_a_copy_of_the_database_reveals_no_tip(full_db: tuple[Flask, Path]) -> None:
    """The raw column is not the tip, nor anything whose chain is the commitment; the tip
    (opened with the key) is nowhere in the file."""
    app, db_file = full_db
    with sqlite3.connect(db_file) as conn:
        game_id, sealed, length, commitment = conn.execute(
            "SELECT id, sealed_tip, chain_length, commitment FROM games").fetchone()
    stored = bytes.fromhex(sealed)
    assert len(stored) == 48
    for candidate in (stored[:32], stored[16:]):  # the sealed tip read as if it were one
        assert chain(candidate, length, NEW_GAME_PROFILE)[0].hex() != commitment
    tip = open_tip(bytes.fromhex(app.config["SEAL_KEY"]), game_id, sealed)
    assert chain(tip, length, NEW_GAME_PROFILE)[0].hex() == commitment  # the key does open it
    raw = db_file.read_bytes()
    assert tip not in raw and tip.hex().encode() not in raw and tip.hex().upper().encode() not in raw


def test_the_seal_is_bound_to_its_key_and_its_game() -> None:
    key, tip = secrets.token_bytes(32), secrets.token_bytes(32)
    sealed = seal_tip(key, "g1", tip)
    assert open_tip(key, "g1", sealed) == tip
    with pytest.raises(SealError, match="does not open game g1's chain tip"):
        open_tip(secrets.token_bytes(32), "g1", sealed)
    with pytest.raises(SealError):
        open_tip(key, "g2", sealed)  # moved to another game
    flipped = sealed[:10] + ("0" if sealed[10] != "0" else "1") + sealed[11:]
    with pytest.raises(SealError):
        open_tip(key, "g1", flipped)


@pytest.mark.parametrize("command", [["serve"], ["run", "--no-serve"], ["db", "upgrade"]])
def test_a_wrong_key_is_refused_at_start(full_db: tuple[Flask, Path], monkeypatch: pytest.MonkeyPatch,
                                         command: list[str]) -> None:
    monkeypatch.setenv("DICEPOST_SEAL_KEY", secrets.token_hex(32))
    error = one_line_error(invoke(*command))
    assert "the seal key from DICEPOST_SEAL_KEY does not open the chain tips in this database" in error


def test_the_worker_refuses_a_wrong_key_before_it_starts(full_db: tuple[Flask, Path],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REDIS_URL", "redis://127.0.0.1:6379/15")
    monkeypatch.setenv("DICEPOST_SEAL_KEY", secrets.token_hex(32))
    assert "does not open the chain tips" in one_line_error(invoke("worker"))


def test_the_right_key_starts(full_db: tuple[Flask, Path]) -> None:
    """The session's key (the one the game was sealed with) passes the same check."""
    result = invoke("run", "--no-serve")
    assert result.exit_code == 0, result.stderr


@pytest.mark.parametrize("command", [["serve"], ["worker"], ["run", "--no-serve"]])
def test_full_mode_without_the_key_is_refused(full_db: tuple[Flask, Path], monkeypatch: pytest.MonkeyPatch,
                                              command: list[str]) -> None:
    monkeypatch.delenv("DICEPOST_SEAL_KEY")
    error = one_line_error(invoke(*command), code=1)
    assert "DICEPOST_SEAL_KEY is required when DATABASE_URL is set" in error


def test_the_web_server_refuses_a_missing_or_wrong_key(full_db: tuple[Flask, Path],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    assert webserver.seal_refusal() is None
    monkeypatch.setenv("DICEPOST_SEAL_KEY", secrets.token_hex(32))
    assert "does not open the chain tips in this database" in (webserver.seal_refusal() or "")
    monkeypatch.delenv("DICEPOST_SEAL_KEY")
    assert "DICEPOST_SEAL_KEY is required" in (webserver.seal_refusal() or "")


def test_the_embedded_default_makes_its_key_once_mode_600(tmp_path: Path) -> None:
    first = from_env(str(tmp_path), {})
    assert len(bytes.fromhex(first["SEAL_KEY"])) == 32
    assert first["SEAL_KEY_SOURCE"] == str(tmp_path / "seal_key")
    assert (tmp_path / "seal_key").stat().st_mode & 0o777 == 0o600
    assert from_env(str(tmp_path), {})["SEAL_KEY"] == first["SEAL_KEY"]


@pytest.mark.parametrize("value", ["abc", "zz" * 32, "ab" * 33])
def test_a_seal_key_that_is_not_32_bytes_of_hex_is_refused(tmp_path: Path, value: str) -> None:
    with pytest.raises(ValueError, match="DICEPOST_SEAL_KEY: the seal key must be 64 hex digits"):
        from_env(str(tmp_path), {"DICEPOST_SEAL_KEY": value})


@pytest.mark.parametrize("command", [["new-game", "--ruleset", "universal", "--seat", "a", "--seat", "b"],
                                     ["sweep"], ["mail-poll"]])
def test_the_commands_that_touch_tips_refuse_a_wrong_key(full_db: tuple[Flask, Path],
                                                         monkeypatch: pytest.MonkeyPatch,
                                                         command: list[str]) -> None:
    monkeypatch.setenv("DICEPOST_SEAL_KEY", secrets.token_hex(32))
    assert "does not open the chain tips" in one_line_error(invoke(*command))


def test_mail_ingest_with_a_wrong_key_leaves_the_mail_with_the_mta(full_db: tuple[Flask, Path],
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """EX_TEMPFAIL (75): the MTA keeps the message and tries again once the key is right."""
    monkeypatch.setenv("DICEPOST_SEAL_KEY", secrets.token_hex(32))
    result = CliRunner().invoke(cli.cli, ["mail-ingest"], input=b"Subject: hi\n\nJOIN\n")
    assert result.exit_code == 75 and "does not open the chain tips" in result.stderr


def test_the_start_check_keeps_no_connection_for_a_forked_worker(full_db: tuple[Flask, Path]) -> None:
    """`dicepost worker` forks its pool after the check: a pooled connection left open would
    be shared by the children (and break them, on PostgreSQL)."""
    from service.commands import make_app, require_seal

    app = make_app()
    require_seal(app)
    assert engine_of(app).pool.checkedin() == 0
