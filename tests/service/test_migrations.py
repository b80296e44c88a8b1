"""The packaged migrations build exactly the tables the models describe, on both databases.

A fresh database is migrated to head and compared with the whole of the models' metadata:
every table, column, type, index and constraint, with no filter, and every constraint under
the name the naming convention gives it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from flask import Flask
from sqlalchemy import (
    JSON,
    Column,
    Engine,
    ForeignKeyConstraint,
    Integer,
    MetaData,
    PrimaryKeyConstraint,
    UniqueConstraint,
    column,
    inspect,
    select,
    text,
)
from sqlalchemy import table as sa_table
from sqlalchemy.exc import IntegrityError

from service import clock
from service.config import database_url
from service.db import engine_of, make_engine
from service.dice_keys import SealError, open_tip
from service.migrate import alembic_config, current, upgrade
from service.models import Base, UTCDateTime
from tests.conftest import PG_ADMIN, SESSION_TAG, _pg_admin

SEAL = bytes(range(32))
HEAD = "0024_gm_address"
# The games table as the migrations before the seal left it (the models have moved on).
GAMES_BEFORE_THE_SEAL = sa_table(
    "games", column("options", JSON()), column("created_at", UTCDateTime()),
    *(column(name) for name in ("id", "ruleset", "title", "public", "status", "chain_tip", "chain_length",
                                "commitment", "current_round", "gm_token_hash")))

# The seats table before the message preference (the models have moved on).
SEATS_BEFORE_THE_DIGEST = sa_table("seats", *(column(name) for name in (
    "id", "game_id", "seat_index", "name", "invite_token_hash", "mail_pref")))


def upgrade_down(engine: Engine, revision: str, seal_key: bytes) -> None:
    from alembic import command

    cfg = alembic_config(engine)
    cfg.attributes["seal_key"] = seal_key
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, revision)


@pytest.fixture(params=["sqlite", "postgres"])
def empty_engine(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    """An empty database of its own (not the session's shared one)."""
    if request.param == "sqlite":
        engine = make_engine(f"sqlite:///{tmp_path}/fresh.sqlite3")
        yield engine
        engine.dispose()
        return
    name = f"dicepost_t_{SESSION_TAG}_fresh"
    with _pg_admin() as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    engine = make_engine(database_url(PG_ADMIN.rsplit("/", 1)[0] + f"/{name}", ""))
    try:
        yield engine
    finally:
        engine.dispose()
        with _pg_admin() as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def fresh_engine(empty_engine: Engine) -> Engine:
    upgrade(empty_engine)
    return empty_engine


def differences(engine: Engine, metadata: MetaData) -> list[Any]:
    with engine.connect() as conn:
        return list(compare_metadata(MigrationContext.configure(conn), metadata))


def test_migrations_build_every_table_of_the_models(fresh_engine: Engine) -> None:
    assert differences(fresh_engine, Base.metadata) == []
    tables = set(inspect(fresh_engine).get_table_names()) - {"alembic_version"}
    assert tables == set(Base.metadata.tables)
    assert len(tables) == 35  # table_messages and message_reads, followers, player_zones, spectators, gm_reads, rollbacks, sign_ins, confirmed_addresses, standing_orders, rated_games, player_ratings, player_profiles, entry_rules, webhooks, webhook_events, tournaments, tournament_games, push_subscriptions, push_outbox, seat_presence


def test_a_model_change_without_a_migration_is_caught(fresh_engine: Engine) -> None:
    changed = MetaData(naming_convention=Base.metadata.naming_convention)
    for table in Base.metadata.tables.values():
        table.to_metadata(changed)
    changed.tables["seat_schedule"].append_column(Column("nickname_length", Integer()))
    found = differences(fresh_engine, changed)
    assert [(d[0], d[2], d[3].name) for d in found] == [("add_column", "seat_schedule", "nickname_length")]


def _constraint_names(engine: Engine, table: str) -> dict[str, set[str | None]]:
    found = inspect(engine)
    return {
        "pk": {found.get_pk_constraint(table)["name"]},
        "fk": {fk["name"] for fk in found.get_foreign_keys(table)},
        "uq": {uq["name"] for uq in found.get_unique_constraints(table)},
        "ix": {ix["name"] for ix in found.get_indexes(table) if not ix.get("duplicates_constraint")},
    }


def _model_names(table: str) -> dict[str, set[str | None]]:
    model = Base.metadata.tables[table]

    def named(kind: type) -> set[str | None]:
        return {str(c.name) for c in model.constraints if isinstance(c, kind)}

    return {"pk": named(PrimaryKeyConstraint), "fk": named(ForeignKeyConstraint),
            "uq": named(UniqueConstraint), "ix": {str(ix.name) for ix in model.indexes}}


def test_constraints_carry_the_naming_conventions_names(fresh_engine: Engine) -> None:
    for table in sorted(Base.metadata.tables):
        assert (table, _constraint_names(fresh_engine, table)) == (table, _model_names(table))


def test_renaming_the_constraints_keeps_the_rows_and_their_links(empty_engine: Engine) -> None:
    """A database made before the naming convention keeps its data through the upgrade
    (SQLite rebuilds every table), and its foreign keys still hold afterwards."""
    upgrade(empty_engine, "0003_login_links")
    seats, seat_schedule = (Base.metadata.tables[t] for t in ("seats", "seat_schedule"))
    games = GAMES_BEFORE_THE_SEAL
    game = {"id": "g1", "ruleset": "jep1", "title": "Old", "options": {}, "public": True,
            "status": "active", "chain_tip": "a" * 64, "chain_length": 3, "commitment": "b" * 64,
            "current_round": 1, "gm_token_hash": "c" * 64, "created_at": clock.now()}
    with empty_engine.begin() as conn:
        conn.execute(games.insert(), game)
        conn.execute(SEATS_BEFORE_THE_DIGEST.insert(), {"id": 7, "game_id": "g1", "seat_index": 0, "name": "p1",
                                      "invite_token_hash": "d" * 64, "mail_pref": "all"})
        conn.execute(seat_schedule.insert(), {"seat_id": 7, "absences": [], "misses": 2})
    upgrade(empty_engine, seal_key=SEAL)
    assert current(empty_engine) == HEAD
    with empty_engine.connect() as conn:
        assert conn.execute(select(games.c.title)).scalars().all() == ["Old"]
        assert conn.execute(select(seat_schedule.c.misses, seat_schedule.c.controller)).all() == [(2, "human")]
    with pytest.raises(IntegrityError), empty_engine.begin() as conn:
        conn.execute(seats.insert(), {"game_id": "nope", "seat_index": 1, "name": "p2",
                                      "invite_token_hash": "e" * 64, "mail_pref": "all"})


def _game_at_0005(engine: Engine, game_id: str, tip: str) -> None:
    upgrade(engine, "0005_bounces")
    with engine.begin() as conn:
        conn.execute(GAMES_BEFORE_THE_SEAL.insert(), {
            "id": game_id, "ruleset": "universal", "title": "Old", "options": {}, "public": True,
            "status": "active", "chain_tip": tip, "chain_length": 3, "commitment": "b" * 64,
            "current_round": 1, "gm_token_hash": "c" * 64, "created_at": clock.now()})


def test_the_migration_seals_the_stored_tips_and_keeps_no_plain_copy(empty_engine: Engine) -> None:
    tip = "5e" * 32
    _game_at_0005(empty_engine, "g1", tip)
    upgrade(empty_engine, seal_key=SEAL)
    assert "chain_tip" not in {c["name"] for c in inspect(empty_engine).get_columns("games")}
    with empty_engine.connect() as conn:
        sealed = conn.execute(text("SELECT sealed_tip FROM games WHERE id = 'g1'")).scalar_one()
    assert tip not in sealed and len(sealed) == 96
    assert open_tip(SEAL, "g1", sealed).hex() == tip
    with pytest.raises(SealError):
        open_tip(bytes(32), "g1", sealed)
    # Back down: the plain tip again, opened with the same key.
    upgrade_down(empty_engine, "0005_bounces", SEAL)
    with empty_engine.connect() as conn:
        assert conn.execute(text("SELECT chain_tip FROM games")).scalar_one() == tip


def _table_files(engine: Engine, table: str) -> bytes:
    """Every byte of a table's files on disk (its heap and TOAST, each segment), read as the
    superuser after a checkpoint, so what the shared buffers held is there too."""
    with engine.connect() as conn:
        database = conn.execute(text("SELECT current_database()")).scalar_one()
    with _pg_admin() as admin:
        root = Path(admin.execute("SHOW data_directory").fetchone()[0])
    admin_url = PG_ADMIN.rsplit("/", 1)[0] + f"/{database}"
    import psycopg

    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute("CHECKPOINT")
        paths = [row[0] for row in conn.execute(
            "SELECT pg_relation_filepath(c.oid) FROM pg_class c WHERE c.oid = %s::regclass "
            "OR c.oid = (SELECT reltoastrelid FROM pg_class WHERE oid = %s::regclass)", (table, table))]
    out = b""
    for path in paths:
        main = root / path
        for part in sorted(main.parent.glob(main.name + "*")):  # 16384, 16384.1, _fsm, _vm ...
            out += part.read_bytes()
    return out


@pytest.mark.parametrize("empty_engine", ["postgres"], indirect=True)
def test_no_plain_tip_is_left_in_the_games_tables_files(empty_engine: Engine) -> None:
    """The sealing migration dropped the plain column; PostgreSQL keeps a dropped column's
    values in the rows on disk (and the UPDATE left the old rows): the rewrite removes them."""
    tip = "7c3a" * 16
    _game_at_0005(empty_engine, "g1", tip)
    rewrite = "0017_games_rewritten"
    before = ScriptDirectory.from_config(alembic_config(empty_engine)).get_revision(rewrite).down_revision
    upgrade(empty_engine, str(before), seal_key=SEAL)
    assert tip.encode() in _table_files(empty_engine, "games")  # sealed, dropped, still on disk
    upgrade(empty_engine, seal_key=SEAL)
    assert current(empty_engine) == HEAD
    files = _table_files(empty_engine, "games")
    assert tip.encode() not in files and bytes.fromhex(tip) not in files
    with empty_engine.connect() as conn:  # the game itself is whole, its tip sealed
        sealed = conn.execute(text("SELECT sealed_tip FROM games WHERE id = 'g1'")).scalar_one()
    assert open_tip(SEAL, "g1", sealed).hex() == tip


def test_games_without_the_seal_key_are_not_migrated(empty_engine: Engine) -> None:
    _game_at_0005(empty_engine, "g1", "5e" * 32)
    with pytest.raises(RuntimeError, match="sealing the chain tips of 1 games needs the seal key"):
        upgrade(empty_engine)
    assert current(empty_engine) == "0005_bounces"


def test_upgrade_is_idempotent(sqlite_app: Flask) -> None:
    engine = engine_of(sqlite_app)
    before = current(engine)
    upgrade(engine)
    assert current(engine) == before is not None


def test_the_message_preference_follows_the_mail_preference_a_seat_had(empty_engine: Engine) -> None:
    """Before the digest, "results only" mailed no message and "every mail" each one: the
    upgrade keeps what each seat got, with the digest for "results only"."""
    upgrade(empty_engine, "0008_followers")
    games = Base.metadata.tables["games"]
    seats = SEATS_BEFORE_THE_DIGEST
    with empty_engine.begin() as conn:
        conn.execute(games.insert(), {"id": "g1", "ruleset": "universal", "title": "Old", "options": {},
                                      "public": True, "status": "active", "sealed_tip": "x", "chain_length": 3,
                                      "commitment": "b" * 64, "current_round": 1, "gm_token_hash": "c" * 64,
                                      "created_at": clock.now()})
        conn.execute(seats.insert(), [{"id": i + 1, "game_id": "g1", "seat_index": i, "name": f"p{i}",
                                       "invite_token_hash": str(i) * 64, "mail_pref": pref}
                                      for i, pref in enumerate(("all", "results", "none"))])
    upgrade(empty_engine, seal_key=SEAL)
    now = Base.metadata.tables["seats"]
    with empty_engine.connect() as conn:
        got = conn.execute(select(now.c.mail_pref, now.c.message_pref).order_by(now.c.id)).all()
    assert got == [("all", "each"), ("results", "digest"), ("none", "none")]
    assert "player_zones" in inspect(empty_engine).get_table_names()


def test_the_chain_marks_are_made_from_each_sealed_tip(empty_engine: Engine) -> None:
    """0011: every 64th link of each game whose tip the key opens, sealed; a tip it does
    not open keeps no marks (its links are walked from the tip, and refused there)."""
    from engine.dice import chain
    from service.dice_keys import EVERY, open_mark, seal_tip

    upgrade(empty_engine, "0010_spectators")
    games = Base.metadata.tables["games"]
    tip = bytes([7]) * 32
    row = {"ruleset": "universal", "title": "Old", "public": True, "status": "active", "chain_length": 130,
           "commitment": "b" * 64, "current_round": 1, "gm_token_hash": "c" * 64, "created_at": clock.now()}
    with empty_engine.begin() as conn:
        conn.execute(games.insert(), [
            {**row, "id": "g1", "options": {}, "sealed_tip": seal_tip(SEAL, "g1", tip)},
            {**row, "id": "g2", "options": {"dice_profile": "dicepost-dice/v2"},
             "sealed_tip": seal_tip(SEAL, "g2", tip)},
            {**row, "id": "g3", "options": {}, "sealed_tip": seal_tip(bytes(32), "g3", tip)}])
    upgrade(empty_engine, seal_key=SEAL)
    with empty_engine.connect() as conn:
        marks = dict(conn.execute(text("SELECT id, sealed_marks FROM games")).all())
    for gid, profile in (("g1", "dicepost-dice/v1"), ("g2", "dicepost-dice/v2")):
        assert [open_mark(SEAL, gid, 130, bytes(marks[gid]), i) for i in range(130 // EVERY + 1)] == \
            chain(tip, 130, profile)[::EVERY]
    assert marks["g3"] is None
    upgrade_down(empty_engine, "0010_spectators", SEAL)
    assert "sealed_marks" not in {c["name"] for c in inspect(empty_engine).get_columns("games")}


def test_a_game_stored_before_rules_revisions_plays_revision_one(empty_engine: Engine) -> None:
    """0012: a game stored before rulesets had revisions (its setup names none) is revision 1."""
    upgrade(empty_engine, "0011_chain_marks")
    games = Base.metadata.tables["games"]
    with empty_engine.begin() as conn:
        conn.execute(games.insert(), {"id": "g1", "ruleset": "jep1", "title": "Old", "options": {},
                                      "public": True, "status": "active", "sealed_tip": "x", "chain_length": 3,
                                      "commitment": "b" * 64, "current_round": 1, "gm_token_hash": "c" * 64,
                                      "created_at": clock.now()})
    upgrade(empty_engine, seal_key=SEAL)
    with empty_engine.connect() as conn:
        assert conn.execute(text("SELECT id, revision FROM games")).all() == [("g1", 1)]
    upgrade_down(empty_engine, "0011_chain_marks", SEAL)
    assert "revision" not in {c["name"] for c in inspect(empty_engine).get_columns("games")}
