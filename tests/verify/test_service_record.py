"""The service's own record (`GET /api/games/<id>/record`) passes every check, and the app serves /verify."""

from __future__ import annotations

import io
from pathlib import Path

from engine.verify import parse_record, verify
from service.commands.verify import EXIT_OK, check
from tests.service.schedule_world import World
from tests.verify.conftest import PAGE


def test_a_game_played_through_the_api_verifies(tmp_path: Path) -> None:
    world = World(tmp_path).start()
    for _ in range(3):
        number = world.round_number()
        for seat in ("red", "blue"):
            response = world.submit(seat, world.legal_order(seat), number)
            assert response.status_code in (200, 201, 202), response.json
        assert world.round_number() == number + 1 or world.game().status != "running"
    response = world.client.get(f"/api/games/{world.game_id}/record")
    assert response.status_code == 200
    record = parse_record(response.data)
    assert len(record["steps"]) == world.steps() >= 4
    v = verify(record)
    assert v.ok, v.difference
    assert v.rolls == sum(len(s["rolls"]) for s in record["steps"])
    path = tmp_path / "record.json"
    path.write_bytes(response.data)
    assert check(str(path), out=io.StringIO()) == EXIT_OK


def test_the_app_serves_the_verifier(tmp_path: Path) -> None:
    world = World(tmp_path)
    assert world.client.get("/verify").data == PAGE.read_bytes()
    assert world.client.get("/verify/verifier.html").headers["Content-Disposition"].startswith("attachment")
