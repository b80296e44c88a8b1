"""The GM's news over real SMTP (aiosmtpd): every GM action and announcement reaches every
player as a mail of its own kind, bulk, with the game's threading and unsubscribe headers."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from service.db import session_scope
from service.mail.outbox import deliver
from service.models import Outbox
from tests.mail.conftest import start_game
from tests.mail.mail_world import html_of, text_of
from tests.mail.smtp_server import SmtpServer


@pytest.fixture
def smtp():
    with SmtpServer() as server:
        yield server


def _send_news(app) -> None:
    with session_scope(app) as s:
        pending = list(s.scalars(select(Outbox.id).where(Outbox.status == "pending", Outbox.kind == "gm_news")))
    with app.app_context():
        for oid in pending:
            assert deliver(oid) == "sent"


def test_a_pause_and_an_announcement_reach_both_players_by_smtp(sqlite_app, smtp):
    game = start_game(sqlite_app)
    sqlite_app.config["SMTP_URL"] = f"smtp://127.0.0.1:{smtp.port}"
    client = sqlite_app.test_client()
    gm = {"Authorization": f"Bearer {game.gm_token}"}
    assert client.post(f"/api/games/{game.id}/gm/pause", headers=gm).status_code == 200
    r = client.post(f"/api/games/{game.id}/gm/announce", headers=gm, json={"text": "Back on Friday.\nBe kind."})
    assert r.status_code == 200 and r.json["text"] == "Back on Friday.\nBe kind."
    assert client.post(f"/api/games/{game.id}/gm/announce", headers=gm, json={}).json["field"] == "text"
    _send_news(sqlite_app)
    got = sorted((m.recipients[0], str(m.message["Subject"])) for m in smtp.received)
    assert got == [("alice@example.org", "[Mail duel] GM announcement"),
                   ("alice@example.org", "[Mail duel] GM paused the game"),
                   ("bob@example.org", "[Mail duel] GM announcement"),
                   ("bob@example.org", "[Mail duel] GM paused the game")]
    pause = next(m.message for m in smtp.received if "paused" in str(m.message["Subject"]))
    text, html = text_of(pause), html_of(pause)
    assert "GM paused the game: no round closes until it resumes; the deadline was" in text
    assert "Orders you send now are\nkept, and they count when play resumes." in text
    assert "they count when play resumes" in html
    assert pause["Precedence"] == "bulk" and pause["List-Unsubscribe"].startswith("<http://dicepost.test/")
    assert pause["In-Reply-To"].startswith(f"<game-{game.id}-seat-")
    note = next(m.message for m in smtp.received if "announcement" in str(m.message["Subject"]))
    assert "GM announcement: Back on Friday.\nBe kind." in text_of(note)
