"""Players who only read and write mail, for the whole-game tests.

A MailPlayer reads what dicepost sent to its address (from the embedded mailbox, or
from a real SMTP server in full mode) and answers by replying to those mails, as a
mail client would: To is the mail's Reply-To, the old text is quoted below. The only
thing a test looks up outside mail is which orders to give, from a bot.
"""

from __future__ import annotations

from collections.abc import Callable
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from email.utils import make_msgid
from typing import Any

from flask import Flask
from sqlalchemy import select

from service.db import session_scope
from service.models import StoredMail

Send = Callable[[bytes], Any]


def parse(raw: bytes) -> EmailMessage:
    msg = BytesParser(policy=policy.default).parsebytes(raw)
    assert isinstance(msg, EmailMessage)
    return msg


def text_of(msg: EmailMessage) -> str:
    part = msg.get_body(preferencelist=("plain",))
    assert part is not None, "every dicepost mail has a plain-text part"
    return str(part.get_content()).replace("\r\n", "\n")


def html_of(msg: EmailMessage) -> str:
    part = msg.get_body(preferencelist=("html",))
    assert part is not None, "every dicepost mail has an HTML part"
    return str(part.get_content()).replace("\r\n", "\n")


def stored_mail(app: Flask) -> Callable[[], list[EmailMessage]]:
    def read() -> list[EmailMessage]:
        with session_scope(app) as s:
            return [parse(m.raw.encode("utf-8")) for m in s.scalars(select(StoredMail).order_by(StoredMail.id))]
    return read


class MailPlayer:
    def __init__(self, address: str, read_all: Callable[[], list[EmailMessage]], send: Send) -> None:
        self.address = address
        self.read_all = read_all
        self.send = send
        self.sent = 0

    def inbox(self) -> list[EmailMessage]:
        return [m for m in self.read_all() if m["To"].addresses[0].addr_spec == self.address]

    def latest(self, subject_part: str) -> EmailMessage:
        found = [m for m in self.inbox() if subject_part in str(m["Subject"])]
        assert found, f"{self.address} has no mail with {subject_part!r} in its subject: " + \
            str([str(m["Subject"]) for m in self.inbox()])
        return found[-1]

    def reply(self, to: EmailMessage, body: str, **headers: str) -> Any:
        msg = EmailMessage()
        msg["From"] = self.address
        msg["To"] = str(to["Reply-To"])
        msg["Subject"] = "Re: " + str(to["Subject"])
        msg["Message-ID"] = make_msgid(domain="client.example.org")
        msg["In-Reply-To"] = str(to["Message-ID"])
        for name, value in headers.items():
            msg[name.replace("_", "-")] = value
        quoted = "\n".join("> " + line for line in text_of(to).splitlines())
        msg.set_content(f"{body}\n\nOn Mon, 30 Nov 2026, dicepost wrote:\n{quoted}\n")
        self.sent += 1
        return self.send(msg.as_bytes(policy=policy.SMTP))
