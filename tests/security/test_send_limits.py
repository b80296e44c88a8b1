"""Mail to other people's addresses is limited: games per client, invitations per address.

Before, anonymous POST /api/games mailed invitations to any address at once without limit
(20 mails to one address from 10 requests), and a limit counted by the address as written
was dodged by letter case. The limits are set here (the shared test config turns them off).
"""

from __future__ import annotations

from typing import Any

from flask import Flask
from sqlalchemy import func, select

from service.db import session_scope
from service.models import Outbox


def _invitations_to(app: Flask, address: str) -> int:
    with session_scope(app) as s:
        return int(s.scalar(select(func.count()).select_from(Outbox).where(
            Outbox.kind == "invitation", func.lower(Outbox.to_address) == address)) or 0)


def _game(client: Any, *emails: str, **environ: str) -> Any:
    seats = [{"name": f"p{i}", "email": e} for i, e in enumerate(emails)]
    return client.post("/api/games", json={"ruleset": "universal", "seats": seats},
                       environ_base=environ)


def test_invitations_to_one_address_stop_at_the_hourly_limit_whatever_the_case(app: Flask) -> None:
    app.config.update(GAMES_PER_CLIENT="off", INVITATIONS_PER_ADDRESS=5)
    client = app.test_client()
    answers = [_game(client, "victim@example.org", "Victim@Example.ORG").status_code for _ in range(2)]
    assert answers == [201, 201]  # 4 of the 5 an hour
    refused = _game(client, "VICTIM@example.org", "victim@EXAMPLE.org")
    assert refused.status_code == 429, refused.json
    assert refused.json["field"] == "seats[0].email"
    assert "victim@example.org" in refused.json["error"] and "at most 5 an hour" in refused.json["error"]
    assert 3000 < int(refused.headers["Retry-After"]) <= 3600
    for _ in range(8):  # the probe's 10 requests
        assert _game(client, "victim@example.org", "vIcTiM@example.org").status_code == 429
    assert _invitations_to(app, "victim@example.org") == 4
    assert _game(client, "victim@example.org", "other@example.org").status_code == 201  # the 5th
    assert _invitations_to(app, "victim@example.org") == 5


def test_games_created_per_client_are_limited_with_when_to_retry(app: Flask) -> None:
    app.config["GAMES_PER_CLIENT"] = "3 per hour"
    client = app.test_client()
    assert [_game(client, f"a{i}@example.org", "b@example.org").status_code for i in range(3)] == [201] * 3
    refused = _game(client, "a9@example.org", "b9@example.org")
    assert refused.status_code == 429
    assert "too many games created from your address (3 per hour)" in refused.json["error"]
    assert int(refused.headers["Retry-After"]) > 0
    form = client.post("/games", data={"ruleset": "universal", "seats": "alice\nbob"})
    assert form.status_code == 429 and "too many games" in form.get_data(as_text=True)
    assert form.headers["Retry-After"]
    assert _game(client, "c@example.org", "d@example.org", REMOTE_ADDR="198.51.100.9").status_code == 201  # another client


def test_a_gm_replacing_players_is_held_to_the_same_count(app: Flask) -> None:
    from tests.service.play import start

    client = app.test_client()
    table = start(client)
    app.config["INVITATIONS_PER_ADDRESS"] = 5
    gm = {"Authorization": f"Bearer {table.created['gm_token']}"}
    codes = [client.post(f"/api/games/{table.id}/gm/replace", headers=gm,
                         json={"seat": "bob", "email": "Target@example.org"}).status_code for _ in range(7)]
    assert codes == [200] * 5 + [429] * 2
    assert _invitations_to(app, "target@example.org") == 5
