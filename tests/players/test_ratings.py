"""Ratings (docs/players.md, "Ratings"): folded from finished games' records, stored by the
worker when a game ends, and rebuilt from the records alone with the same numbers."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from click.testing import CliRunner
from flask import Flask
from sqlalchemy import delete, select

from service import cli, ratings
from service.db import session_scope
from service.models import PlayerRating, RatedGame
from tests.conftest import sqlite_app_with
from tests.players.games import play_out

ANN, BEN, CAT = "ann@example.org", "ben@example.org", "cat@example.org"


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Flask]:
    """Three finished games among three addresses, played once for the module (each test
    leaves the ratings as it found them)."""
    for app in sqlite_app_with(tmp_path_factory.mktemp("rated")):
        client = app.test_client()
        play_out(app, client, {"red": ANN, "blue": BEN}, "one", max_rounds=20)
        play_out(app, client, {"red": BEN, "blue": CAT, "green": ANN}, "two", max_rounds=12)
        play_out(app, client, {"red": CAT, "blue": ANN}, "three", max_rounds=20)
        yield app


def test_a_finished_game_is_rated_when_it_ends_and_the_rebuild_gives_the_same_numbers(played: Flask) -> None:
    """"`dicepost ratings` rebuilds every rating from the stored records and gives the same
    numbers as stored"."""
    with session_scope(played) as s, s.begin():
        assert ratings.pending_games(s) == 0  # the worker's pass ran after each game's end
        verdicts = {row.game_id: (row.status, row.reason) for row in s.scalars(select(RatedGame))}
        assert len(verdicts) == 3 and all(v == ("rated", None) for v in verdicts.values()), verdicts
        kept = ratings.stored(s)
        tables, judged = ratings.recompute(s)
        assert [j.key for j in judged] == sorted(j.key for j in judged)
        assert tables == kept  # exactly: the same fold, in the same order, on the same inputs
        assert set(kept["universal"]) == {ANN, BEN, CAT}
        assert kept["universal"][ANN].games == 3 and kept["universal"][CAT].games == 2
        assert ratings.rating_of(s, ANN.upper(), "universal") == kept["universal"][ANN].shown
        assert ratings.rating_of(s, "nobody@example.org", "universal") is None
        assert ratings.rating_of(s, ANN, "heroes") is None


def test_the_command_compares_and_rebuilds(played: Flask, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DATABASE_URL", played.config["DATABASE_URL"])
    monkeypatch.setenv("SECRET_KEY", "test-secret")
    monkeypatch.delenv("REDIS_URL", raising=False)
    runner = CliRunner()
    same = runner.invoke(cli.cli, ["ratings", "--games"], catch_exceptions=False)
    assert same.exit_code == 0, same.output
    assert "the stored ratings equal the rebuild" in same.output and same.output.count(": rated") == 3
    with session_scope(played) as s, s.begin():
        before = ratings.stored(s)
        ratings._store_table(s, "universal", {ANN: ratings.Rating(40.0, 2.0, 9)})  # damaged on purpose
    differs = runner.invoke(cli.cli, ["ratings"], catch_exceptions=False)
    assert differs.exit_code == 1 and "1 stored ratings differ" in differs.output
    fixed = runner.invoke(cli.cli, ["ratings", "--store"], catch_exceptions=False)
    assert fixed.exit_code == 0, fixed.output
    with session_scope(played) as s, s.begin():
        assert ratings.stored(s) == before
    bad = runner.invoke(cli.cli, ["ratings", "--ruleset", "chess"])
    assert bad.exit_code == 2 and "there is no ruleset 'chess'" in bad.output


def test_out_of_order_arrival_folds_the_ruleset_again(played: Flask) -> None:
    """A game that finished before one already folded (its doorbell lost) is not folded on
    top: the ruleset is folded again in the ratings' order."""
    with session_scope(played) as s, s.begin():
        first = min(s.scalars(select(RatedGame)), key=lambda r: (r.finished_at, r.game_id))
        first.status = "pending"
        expected = ratings.stored(s)
        assert ratings.update(s) == 1
        assert ratings.stored(s) == expected


def test_a_game_with_a_replaced_seat_is_not_rated(sqlite_app: Flask) -> None:
    """"A game is rated only if its record verifies and nobody was replaced mid-game"."""
    client: Any = sqlite_app.test_client()
    from tests.service.play import start

    table = start(client, options={"max_rounds": 2})
    r = client.post(f"/api/games/{table.id}/gm/replace", headers={"Authorization": f"Bearer {table.created['gm_token']}"},
                    json={"seat": "alice", "email": "zed@example.org"})
    assert r.status_code == 200, r.json
    r = client.post(f"/api/games/{table.id}/gm/end", headers={"Authorization": f"Bearer {table.created['gm_token']}"})
    with session_scope(sqlite_app) as s, s.begin():
        row = s.get(RatedGame, table.id)
        if row is not None:
            assert row.status == "unrated"
        ratings.rebuild(s)
        row = s.get(RatedGame, table.id)
        assert row is not None and row.status == "unrated"
        assert row.reason in (ratings.UNRATED_ACTIONS["seat_opened"], ratings.UNRATED_ACTIONS["gm_replace"])
        assert ratings.stored(s) == {}





def test_the_sweeper_rings_again_for_a_game_whose_doorbell_was_lost(played: Flask) -> None:
    """The game's end is stored with the game (pending); a lost ring is rung by the sweeper,
    and a second pass changes nothing."""
    from datetime import timedelta

    from service.sweeper import sweep_and_ring

    with session_scope(played) as s, s.begin():
        newest = max(s.scalars(select(RatedGame)), key=lambda r: (r.finished_at, r.game_id))
        expected = ratings.stored(s)
        judged = ratings.recompute(s)[1]
        s.execute(delete(PlayerRating))  # the ratings as they stood before the newest game was folded
        ratings._store_table(s, "universal", ratings.fold({}, judged[:-1]))
        newest.status = "pending"
        for row in s.scalars(select(RatedGame)):  # all past a fresh doorbell's grace, in their order
            row.finished_at -= timedelta(hours=1)
    with played.app_context():
        sweep_and_ring()
    with session_scope(played) as s, s.begin():
        assert ratings.pending_games(s) == 0
        assert ratings.stored(s) == expected
        assert ratings.update(s) == 0  # idempotent: nothing waits
        assert ratings.stored(s) == expected


def test_stored_ratings_read_back_exactly_on_both_databases(app: Flask) -> None:
    """The rebuild is compared with the stored numbers for equality: a float must come back
    from either database bit for bit."""
    from datetime import UTC, datetime

    games = [ratings.Judged(f"g{i}", "universal", datetime(2026, 1, 1, i, tzinfo=UTC),
                            ((ANN, 1), (BEN, 2), (CAT, 2)) if i % 2 else ((CAT, 1), (ANN, 2)), None)
             for i in range(1, 6)]
    table = ratings.fold({}, games)
    with session_scope(app) as s, s.begin():
        ratings._store_table(s, "universal", table)
    with session_scope(app) as s, s.begin():
        assert ratings.stored(s) == {"universal": table}
        s.execute(delete(PlayerRating))
