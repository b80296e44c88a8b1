"""The service's own record (`GET /api/games/<id>/record`) passes every check, and the app serves /verify.

A game is played through the JSON API only (create, join, submit legal orders each round),
then its record is checked by engine.verify and by `dicepost verify`.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from engine.verify import parse_record, verify
from service import create_app
from service.cli import main
from service.commands.verify import EXIT_DIFFERENT, EXIT_OK, check, command
from tests.conftest import TEST_DOMAINS, migrated_sqlite
from tests.verify.conftest import PAGE, join_game, play_rounds, serialize


@pytest.fixture
def client(tmp_path: Path) -> Any:
    app = create_app({"DATABASE_URL": migrated_sqlite(tmp_path / "verify.sqlite3"), "TESTING": True,
                      "WTF_CSRF_ENABLED": False, "SECRET_KEY": "test", "BASE_URL": "http://dicepost.test",
                      "CONFIRMED_DOMAINS": TEST_DOMAINS})
    return app.test_client()


def test_a_game_played_through_the_api_verifies(client: Any, tmp_path: Path) -> None:
    game_id = play_rounds(client, 3)
    response = client.get(f"/api/games/{game_id}/record")
    assert response.status_code == 200
    record = parse_record(response.data)
    assert len(record["steps"]) >= 4, "three rounds should have been resolved after the setup"
    assert any(record["steps"][t]["inputs"]["red"] for t in range(1, len(record["steps"])))
    v = verify(record)
    assert v.ok, v.difference
    assert v.rolls == sum(len(s["rolls"]) for s in record["steps"]) > 0
    path = tmp_path / "record.json"
    path.write_bytes(response.data)
    assert check(str(path), out=io.StringIO()) == EXIT_OK


def test_the_app_serves_the_verifier(client: Any) -> None:
    assert client.get("/verify").data == PAGE.read_bytes()
    assert client.get("/verify/verifier.html").headers["Content-Disposition"].startswith("attachment")


def test_the_player_pages_receipts_file_is_read_by_dicepost_verify(client: Any, tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """The download holds the commitment, the seat's entropy and every receipt; with it the
    command confirms each of them, and another game's record fails at the commitment."""
    game = join_game(client)
    game_id, tokens = game
    play_rounds(client, 2, game)
    download = client.get(f"/games/{game_id}/player/{tokens['red']}/receipts.json")
    assert download.status_code == 200 and download.mimetype == "application/json"
    assert download.headers["Content-Disposition"].startswith("attachment")
    held = json.loads(download.data)
    record = parse_record(client.get(f"/api/games/{game_id}/record").data)
    assert held["format"] == "dicepost-receipts/1" and held["seat"] == "red"
    assert held["commitment"] == record["commitment"] and held["entropy"] == record["entropy"]["red"]
    assert [(r["round"], r["version"]) for r in held["receipts"]] == [(1, 1), (2, 1)]
    receipts, path = tmp_path / "receipts.json", tmp_path / "record.json"
    receipts.write_bytes(download.data)
    path.write_bytes(serialize(record))
    capsys.readouterr()
    assert main(["verify", str(path), "--receipts", str(receipts), "--json"]) == EXIT_OK
    report = json.loads(capsys.readouterr().out)
    assert report["held"] == ["commitment S_0", "entropy of red",
                              "receipt of red, round 1, version 1", "receipt of red, round 2, version 1"]
    other_id = play_rounds(client, 2)  # another game: another chain, another entropy
    path.write_bytes(client.get(f"/api/games/{other_id}/record").data)
    assert main(["verify", str(path), "--receipts", str(receipts), "--json"]) == EXIT_DIFFERENT
    first = json.loads(capsys.readouterr().out)["first_difference"]
    assert (first["step"], first["where"]) == (0, "commitment")


def test_a_bad_receipts_file_is_a_usage_error_naming_it(tmp_path: Path) -> None:
    receipts = tmp_path / "receipts.json"
    receipts.write_text('{"format": "dicepost-receipts/1", "seat": "red", "seat": "blue"}')
    path = tmp_path / "r.json"
    path.write_text("{}")
    result = CliRunner().invoke(command, [str(path), "--receipts", str(receipts)])
    assert result.exit_code == 2 and "--receipts" in result.output and "'seat' twice" in result.output
