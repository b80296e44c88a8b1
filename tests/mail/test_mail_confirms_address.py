"""Writing to the game from a seat's address confirms it (SQLite and PostgreSQL); a mail
with the seat's token from another address does not."""

from __future__ import annotations

from email import policy
from email.message import EmailMessage
from email.utils import make_msgid

from tests.conftest import CONFIRM_DOMAIN
from tests.mail.conftest import MailGame
from tests.mail.mail_world import stored_mail

NEW = f"alice@{CONFIRM_DOMAIN}"


def _subjects(game: MailGame) -> list[str]:
    return [str(m["Subject"]) for m in stored_mail(game.app)() if m["To"].addresses[0].addr_spec == NEW]


def _status_from(game: MailGame, sender: str, to: str) -> None:
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = sender, to, "status please"
    msg["Message-ID"] = make_msgid(domain="client.example.org")
    msg.set_content("STATUS\n")
    assert game.send(msg.as_bytes(policy=policy.SMTP)).status == "processed"


def test_the_players_mail_from_the_address_confirms_it(db_mail_game: MailGame) -> None:
    game = db_mail_game
    auth = {"Authorization": f"Bearer {game.tokens['alice']}"}
    moved = game.app.test_client().put(f"/api/games/{game.id}/settings", headers=auth, json={"email": NEW})
    assert moved.status_code == 200 and moved.json["email_confirmed"] is False
    reply_to = game.reply_to("alice")  # her seat's signed reply address, from a mail she had before
    _status_from(game, "mallory@evil.example", reply_to)  # the token, from another address
    assert _subjects(game) == ["Confirm your address for dicepost"]  # the STATUS answer waits
    _status_from(game, NEW, reply_to)
    subjects = _subjects(game)
    assert subjects[0] == "Confirm your address for dicepost"
    assert len(subjects) == 3 and all("Status" in s for s in subjects[1:])  # the one that waited, and this one
    settings = game.app.test_client().get(f"/api/games/{game.id}/settings", headers=auth).json
    assert settings["email_confirmed"] is True
