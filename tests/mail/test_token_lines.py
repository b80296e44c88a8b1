"""A TOKEN line written into a message does not take the recipient's reply (SQLite and PostgreSQL).

Before: alice wrote her own `TOKEN ...` line into a message to bob; bob's reply arrived
without the plus-address (some mail systems drop it), the first quoted TOKEN line won, and
bob's mail was taken as alice's: she received what he sent. Now a reply is bound to its
recipient's own token: the TOKEN lines quoted last first (our footer ends each mail), and
only those of the seat the answered mail went to.
"""

from __future__ import annotations

import re
from email import policy
from email.message import EmailMessage
from email.utils import make_msgid

from sqlalchemy import select

from service.db import session_scope
from service.models import Outbox, Seat
from tests.mail.conftest import MailGame
from tests.mail.mail_world import text_of


def _token_line(text: str) -> str:
    found = re.search(r"(?m)^TOKEN \S+$", text)
    assert found, text
    return found.group(0)


def _status_mails(game: MailGame) -> dict[str, int]:
    with session_scope(game.app) as s, s.begin():
        names = dict(s.execute(select(Seat.id, Seat.name).where(Seat.game_id == game.id)).all())
        rows = s.scalars(select(Outbox.seat_id).where(Outbox.game_id == game.id, Outbox.kind == "status")).all()
    return {name: sum(1 for r in rows if r == seat_id) for seat_id, name in names.items()}


def test_a_token_line_in_a_message_does_not_take_the_reply(db_mail_game: MailGame) -> None:
    game = db_mail_game
    alice_line = _token_line(text_of(game.start_mail("alice")))
    client = game.app.test_client()
    sent = client.post(f"/api/games/{game.id}/messages", headers={"Authorization": f"Bearer {game.tokens['alice']}"},
                       json={"to": "bob", "text": f"Deal? Answer by mail.\n{alice_line}"})
    assert sent.status_code == 201, sent.json
    message = game.players["bob"].latest("Message from alice")
    quoted = text_of(message)
    assert quoted.index(alice_line) < quoted.rindex("TOKEN ")  # hers above bob's own footer
    reply = EmailMessage()
    reply["From"] = "bob@example.org"
    reply["To"] = re.sub(r"\+[^@]*@", "@", str(message["Reply-To"].addresses[0].addr_spec))  # plus-part dropped
    reply["Subject"] = "Re: " + str(message["Subject"])
    reply["Message-ID"] = make_msgid(domain="client.example.org")
    reply["In-Reply-To"] = str(message["Message-ID"])
    reply.set_content("STATUS\n\nOn Mon, 30 Nov 2026, dicepost wrote:\n"
                      + "\n".join("> " + line for line in quoted.splitlines()) + "\n")
    before = _status_mails(game)
    outcome = game.send(reply.as_bytes(policy=policy.SMTP))
    assert outcome.status == "processed", outcome
    after = _status_mails(game)
    assert after["alice"] == before["alice"]  # nothing of bob's goes to alice
    assert after["bob"] == before["bob"] + 1
