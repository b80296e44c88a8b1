"""A player's history, reliability and public profile (docs/players.md)."""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask

from service import players
from service.db import session_scope
from service.errors import Conflict, Invalid
from tests.dashboard.test_signin import sign_in
from tests.service.play import start


@pytest.mark.parametrize(("on_time", "late", "standing", "missed", "expected"), [
    (0, 0, 0, 0, None),  # never played: new
    (4, 0, 0, 0, None),  # four rounds say too little: new, not 100%
    (0, 0, 0, 4, None),  # nor 0%: a newcomer is new, not unreliable
    (5, 0, 0, 0, 100),
    (0, 0, 0, 5, 0),
    (3, 1, 1, 1, 67),  # (3 + ½·2) / 6
    (8, 2, 0, 0, 90),  # late counts half
    (10, 0, 0, 10, 50),
])
def test_reliability_formula(on_time: int, late: int, standing: int, missed: int, expected: int | None) -> None:
    """"Reliability = (on time + ½ · (late + standing)) / rounds, in whole percent, once a
    player has RELIABLE_AFTER rounds; before that they are "new"."""
    assert players.reliability_of(on_time, late, standing, missed) == expected


def _gm(table: Any) -> dict[str, str]:
    return {"Authorization": f"Bearer {table.created['gm_token']}"}


def test_rounds_on_time_and_missed_are_counted_per_address(sqlite_app: Flask) -> None:
    client = sqlite_app.test_client()
    table = start(client, seats=("alice", "bob"), options={"max_rounds": 8})
    for _ in range(6):  # alice sends orders, bob never does: the GM closes each round
        r = table.put("alice", table.bot(sqlite_app, "alice"))
        assert r.status_code == 200, r.json
        if table.status()["status"] != "active":
            break
        assert client.post(f"/api/games/{table.id}/gm/resolve", headers=_gm(table)).status_code == 200
        if table.status()["status"] != "active":
            break
    with session_scope(sqlite_app) as s, s.begin():
        alice = players.history(s, "ALICE@example.org")
        bob = players.history(s, "bob@example.org")
        nobody = players.history(s, "nobody@example.org")
    assert alice.games == bob.games == 1
    assert alice.rounds == bob.rounds >= 5
    assert (alice.on_time, alice.missed, alice.reliability) == (alice.rounds, 0, 100)
    assert (bob.on_time, bob.missed, bob.reliability) == (0, bob.rounds, 0)
    assert nobody.rounds == 0 and nobody.reliability_text == "new"


def test_handles_are_validated_unique_and_reserved_words_refused(sqlite_app: Flask) -> None:
    with session_scope(sqlite_app) as s, s.begin():
        players.set_profile(s, "ann@example.org", "Ann_42", True)
        for bad, words in (("ab", "3 to 32"), ("-ann", "3 to 32"), ("ann@example.org", "3 to 32"),
                           ("The_GM", "reserved"), ("admin", "reserved"), ("x" * 33, "3 to 32")):
            with pytest.raises(Invalid, match=words) as refused:
                players.set_profile(s, "ben@example.org", bad, True)
            assert refused.value.field == "handle"
        with pytest.raises(Conflict, match="taken"):
            players.set_profile(s, "ben@example.org", "ann_42", True)
        players.set_profile(s, "ann@example.org", "ann_42", True)  # one's own handle, new case


def test_the_public_profile_is_opt_in_and_never_shows_the_address(sqlite_app: Flask) -> None:
    client = sqlite_app.test_client()
    table = start(client, seats=("alice", "bob"), options={"max_rounds": 1}, public=True)
    for seat in ("alice", "bob"):
        assert table.put(seat, table.bot(sqlite_app, seat)).status_code == 200
    assert table.status()["status"] == "finished"
    sign_in(sqlite_app, client, "alice@example.org")
    assert client.get("/players/Alice-Plays").status_code == 404  # nothing until she chooses
    refused = client.post("/me/profile", data={"handle": "The-GM", "public": "on"})
    assert refused.status_code == 422 and "is reserved" in refused.get_data(as_text=True)
    hidden = client.post("/me/profile", data={"handle": "Alice-Plays"})
    assert hidden.status_code == 302
    assert client.get("/players/alice-plays").status_code == 404  # chosen but not shown
    assert client.post("/me/profile", data={"handle": "Alice-Plays", "public": "on"}).status_code == 302
    me = client.get("/me").get_data(as_text=True)
    assert "Your record" in me and "/players/Alice-Plays" in me
    page = client.get("/players/alice-plays")
    text = page.get_data(as_text=True)
    assert page.status_code == 200 and "Alice-Plays" in text and "Test game" in text
    assert "@" not in text.replace("&#64;", "@").split("<body", 1)[1]  # no address anywhere on the page
    assert "new" in text  # one round: reliability not shown yet
