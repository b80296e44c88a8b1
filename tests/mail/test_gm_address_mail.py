"""A GM address given at creation: it is confirmed like a player's before the GM's links go
to it, the mail holds the GM page's link, and "Your games" signed in with the address lists
the games it runs with that link."""

from __future__ import annotations

import re
from email import message_from_string
from email.policy import default

from sqlalchemy import select

from service.db import session_scope
from service.models import Outbox, StoredMail
from tests.conftest import CONFIRM_DOMAIN
from tests.dashboard.test_signin import sign_in

GM = f"gm@{CONFIRM_DOMAIN}"


def _mails(app, to: str) -> list[tuple[str, str]]:
    with session_scope(app) as s:
        rows = s.execute(select(StoredMail.subject, StoredMail.raw).where(StoredMail.to == to)
                         .order_by(StoredMail.id)).all()
    return [(subject, message_from_string(raw, policy=default).get_body(("plain",)).get_content())
            for subject, raw in rows]


def test_the_gm_address_gets_the_gm_links_once_confirmed_and_your_games_lists_the_game(sqlite_app):
    client = sqlite_app.test_client()
    made = client.post("/api/games", json={"ruleset": "universal", "title": "Run by mail", "gm_email": GM,
                                           "seats": [{"name": "red", "email": "red@example.org"}, {"name": "blue"}]})
    assert made.status_code == 201, made.json
    game_id, gm_token = made.json["id"], made.json["gm_token"]
    refused = client.post("/api/games", json={"ruleset": "universal", "gm_email": "not an address",
                                              "seats": [{"name": "red"}, {"name": "blue"}]})
    assert refused.status_code == 422 and refused.json["field"] == "gm_email"

    first = _mails(sqlite_app, GM)
    assert [s for s, _t in first] == ["Confirm your address for dicepost"]  # nothing else before it confirms
    with session_scope(sqlite_app) as s:
        assert s.scalars(select(Outbox.status).where(Outbox.kind == "gm_links")).one() == "pending"
    link = re.search(r"http://dicepost\.test(/confirm/\S+)", first[0][1])
    assert link
    assert client.post(link.group(1)).status_code == 303

    links = [(s, t) for s, t in _mails(sqlite_app, GM) if "GM links" in s]
    assert [s for s, _t in links] == ["[Run by mail] Your GM links for Run by mail"]
    gm_url = f"http://dicepost.test/games/{game_id}/gm/{gm_token}"
    assert gm_url in links[0][1] and "Keep this mail" in links[0][1]
    assert client.get(gm_url.removeprefix("http://dicepost.test")).status_code == 200

    gm = sqlite_app.test_client()
    sign_in(sqlite_app, gm, GM)  # an address that only runs games signs in too
    me = gm.get("/me").get_data(as_text=True)
    assert 'id="games-you-run"' in me and "Run by mail" in me
    assert f'href="{gm_url}"' in me
    red = sqlite_app.test_client()
    sign_in(sqlite_app, red, "red@example.org")
    assert "games-you-run" not in red.get("/me").get_data(as_text=True)  # a player runs nothing
