"""An address a player gives is confirmed before dicepost mails it anything else
(SQLite and PostgreSQL).

Before: one anonymous client made a game with a victim's address in its seats and had 90
mails sent to it in 5 s, the client's own title in their subjects; the same unconfirmed
address let the client set the victim's time zone. Now the address gets a confirmation
(a fixed subject), at most 3 an hour and at most 10 a client; the game's mail to it waits
until its owner presses the link.
"""

from __future__ import annotations

import re
from email.message import EmailMessage
from typing import Any

from flask import Flask
from sqlalchemy import func, select

from service.db import session_scope
from service.models import Outbox
from tests.conftest import CONFIRM_DOMAIN
from tests.mail.mail_world import stored_mail, text_of

VICTIM = f"victim@{CONFIRM_DOMAIN}"
TITLE = "CHEAP PILLS at spam.example"
SUBJECT = "Confirm your address for dicepost"


def _inbox(app: Flask, address: str) -> list[EmailMessage]:
    return [m for m in stored_mail(app)() if m["To"].addresses[0].addr_spec == address]


def _game(client: Any, *emails: str) -> Any:
    seats = [{"name": f"p{i}", "email": e} for i, e in enumerate(emails)]
    return client.post("/api/games", json={"ruleset": "universal", "title": TITLE, "seats": seats})


def _joined(client: Any, created: dict[str, Any]) -> dict[str, str]:
    tokens = {}
    for seat in created["seats"]:
        r = client.post(f"/api/games/{created['id']}/join", json={"invite_token": seat["invite_token"]})
        assert r.status_code == 200, r.json
        tokens[seat["name"]] = r.json["player_token"]
    return tokens


def _waiting(app: Flask, address: str) -> int:
    with session_scope(app) as s:
        return int(s.scalar(select(func.count()).select_from(Outbox).where(
            Outbox.to_address == address, Outbox.status == "pending",
            Outbox.last_error.like("unconfirmed: %"))) or 0)


def test_a_stranger_making_games_with_a_victims_address_gets_it_three_confirmations(app: Flask) -> None:
    client = app.test_client()
    games = [_game(client, VICTIM, VICTIM, VICTIM, VICTIM) for _ in range(3)]
    assert [g.status_code for g in games] == [201, 201, 201]
    refused = _game(client, VICTIM, VICTIM)
    assert refused.status_code == 429, refused.json
    assert refused.json["field"] == "seats[0].email"
    assert VICTIM in refused.json["error"] and "3 confirmation links in the last hour" in refused.json["error"]
    assert 3000 < int(refused.headers["Retry-After"]) <= 3600
    # The stranger holds the invitations: joins every seat, plays, talks, asks again.
    tokens = _joined(client, games[0].json)
    game_id = games[0].json["id"]
    auth = {"Authorization": f"Bearer {tokens['p0']}"}
    for i in range(5):
        assert client.post(f"/api/games/{game_id}/messages", headers=auth,
                           json={"to": "p1", "text": f"{TITLE} {i}"}).status_code == 201
    again = client.put(f"/api/games/{game_id}/settings", headers=auth, json={"email": VICTIM})
    assert again.status_code == 429, again.json
    zone = client.put(f"/api/games/{game_id}/settings", headers=auth, json={"zone": "Pacific/Kiritimati"})
    assert zone.status_code == 409, zone.json
    assert zone.json["field"] == "zone" and f"{VICTIM} has not confirmed" in zone.json["error"]
    settings = client.get(f"/api/games/{game_id}/settings", headers=auth).json
    assert settings["zone"] is None and settings["email_confirmed"] is False

    inbox = _inbox(app, VICTIM)
    assert [str(m["Subject"]) for m in inbox] == [SUBJECT] * 3
    assert all(TITLE not in text_of(m) for m in inbox)
    assert _waiting(app, VICTIM) >= 12  # 12 invitations, the joined and message mails: not sent
    page = client.get(f"/games/{game_id}/player/{tokens['p0']}").get_data(as_text=True)
    assert f"Mail to {VICTIM} starts once {VICTIM} confirms" in page
    gm = games[0].json["gm_token"]
    console = client.get(f"/api/games/{game_id}/gm", headers={"Authorization": f"Bearer {gm}"}).json
    assert [s["email_confirmed"] for s in console["seats"]] == [False] * 4
    assert f"mail to {VICTIM} starts once {VICTIM} confirms" in client.get(f"/games/{game_id}/gm/{gm}").get_data(
        as_text=True)


def test_one_client_has_at_most_ten_confirmations_mailed(app: Flask) -> None:
    client = app.test_client()
    answers = [_game(client, f"v{i}@{CONFIRM_DOMAIN}", "gm@example.org").status_code for i in range(12)]
    assert answers == [201] * 10 + [429] * 2
    other = app.test_client().post("/api/games", json={"ruleset": "universal", "seats": [
        {"name": "a", "email": f"me@{CONFIRM_DOMAIN}"}, {"name": "b"}]}, environ_base={"REMOTE_ADDR": "198.51.100.7"})
    assert other.status_code == 201  # another client has its own budget
    with session_scope(app) as s:
        assert s.scalar(select(func.count()).select_from(Outbox).where(Outbox.kind == "confirm_address")) == 11


def test_the_link_confirms_and_the_mail_that_waited_goes_out(app: Flask) -> None:
    client = app.test_client()
    created = _game(client, VICTIM, "bob@example.org").json
    tokens = _joined(client, created)
    (mail,) = _inbox(app, VICTIM)
    link = re.search(r"http://dicepost\.test(/confirm/\S+)", text_of(mail))
    assert link is not None
    scanned = client.get(link.group(1))  # a mail scanner opening it confirms nothing
    assert scanned.status_code == 200 and "Confirm</button>" in scanned.get_data(as_text=True)
    assert [str(m["Subject"]) for m in _inbox(app, VICTIM)] == [SUBJECT]
    assert client.post(link.group(1)).status_code == 303
    assert f"{VICTIM} is confirmed" in client.get(link.group(1)).get_data(as_text=True)
    subjects = [str(m["Subject"]) for m in _inbox(app, VICTIM)]
    assert subjects[0] == SUBJECT and len(subjects) == 4
    assert [s.partition("] ")[2] for s in subjects[1:]] == [
        f"Invitation: {TITLE}", f"You have joined {TITLE}", "The game has started"]
    assert _waiting(app, VICTIM) == 0
    auth = {"Authorization": f"Bearer {tokens['p0']}"}
    zone = client.put(f"/api/games/{created['id']}/settings", headers=auth, json={"zone": "Europe/Berlin"})
    assert zone.status_code == 200 and zone.json["zone"] == "Europe/Berlin" and zone.json["email_confirmed"]
    # Confirmed once, for good: a new game mails it at once, with no new confirmation.
    assert _game(client, VICTIM, "bob@example.org").status_code == 201
    assert [str(m["Subject"]) for m in _inbox(app, VICTIM)].count(SUBJECT) == 1
    assert client.get("/confirm/not-a-link").status_code == 422


def test_signing_in_by_mail_confirms_the_address(app: Flask) -> None:
    client = app.test_client()
    created = _game(client, VICTIM, "bob@example.org").json
    asked = client.post("/signin", data={"email": VICTIM})
    asked.close()  # the work on the address runs once the answer is sent
    login = [m for m in _inbox(app, VICTIM) if str(m["Subject"]) == "Your sign-in link"]
    link = re.search(r"http://dicepost\.test(/signin/\S+)", text_of(login[0]))
    assert link is not None and client.post(link.group(1)).status_code == 302
    subjects = [str(m["Subject"]) for m in _inbox(app, VICTIM)]
    assert subjects[:2] == [SUBJECT, "Your sign-in link"] and f"Invitation: {TITLE}" in subjects[2]
    assert _waiting(app, VICTIM) == 0 and created["id"]
