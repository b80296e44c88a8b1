"""Follow by mail as a stranger could abuse it (SQLite and PostgreSQL).

Before: one client had follow links mailed to any number of addresses (each mail with the
game's title, the client's text, in its subject), and asks nobody confirmed took places:
200 of them filled a game's follower list and real spectators were refused.
"""

from __future__ import annotations

import re

import pytest
from flask import Flask
from sqlalchemy import func, select

from service import follow
from service.db import session_scope
from service.models import Follower, Outbox
from tests.service.play import start


def _follow_mails(app: Flask) -> int:
    with session_scope(app) as s, s.begin():
        return int(s.scalar(select(func.count()).select_from(Outbox).where(Outbox.kind == "follow")) or 0)


def test_one_client_has_at_most_ten_follow_links_mailed_an_hour(app: Flask) -> None:
    client = app.test_client()
    table = start(client)
    answers = [client.post(f"/games/{table.id}/follow", data={"email": f"v{i}@example.org"}).status_code
               for i in range(12)]
    assert answers == [303] * 10 + [429] * 2
    assert _follow_mails(app) == 10
    other = app.test_client().post(f"/games/{table.id}/follow", data={"email": "me@example.org"},
                                   environ_base={"REMOTE_ADDR": "198.51.100.7"})
    assert other.status_code == 303  # another client has its own budget


def test_unconfirmed_asks_take_no_place_on_the_follower_list(app: Flask, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(follow, "MAX_FOLLOWERS", 3)
    app.config["FOLLOWS_PER_CLIENT"] = "off"
    client = app.test_client()
    table = start(client)
    for i in range(6):  # asks nobody will confirm
        assert client.post(f"/games/{table.id}/follow", data={"email": f"nobody{i}@example.org"}).status_code == 303
    links = []
    for name in ("ann", "ben", "cat", "dan"):
        assert client.post(f"/games/{table.id}/follow", data={"email": f"{name}@example.org"}).status_code == 303
        with session_scope(app) as s, s.begin():
            row = s.scalars(select(Follower).where(Follower.email == f"{name}@example.org")).one()
            links.append(follow.follow_token(app.config["SECRET_KEY"], row.id, row.salt))
    assert [client.post(f"/follow/{link}").status_code for link in links[:3]] == [303, 303, 303]
    full = client.post(f"/follow/{links[3]}")
    assert full.status_code == 409 and re.search(r"has 3 followers", full.get_data(as_text=True))
    with session_scope(app) as s, s.begin():
        assert s.scalar(select(func.count()).select_from(Follower).where(Follower.confirmed_at.is_not(None))) == 3
