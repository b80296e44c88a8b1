"""The service's own record (`GET /api/games/<id>/record`) passes every check, and the app serves /verify.

A game is played through the JSON API only (create, join, submit legal orders each round),
then its record is checked by engine.verify and by `dicepost verify`.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest

from engine.verify import parse_record, verify
from service import create_app
from service.commands.verify import EXIT_OK, check
from service.db import engine_of
from service.migrate import upgrade
from tests.verify.conftest import PAGE, play_rounds


@pytest.fixture
def client(tmp_path: Path) -> Any:
    app = create_app({"DATABASE_URL": f"sqlite:///{tmp_path}/verify.sqlite3", "TESTING": True,
                      "WTF_CSRF_ENABLED": False, "SECRET_KEY": "test", "BASE_URL": "http://dicepost.test"})
    upgrade(engine_of(app))
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
