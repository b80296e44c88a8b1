"""Reading a kept mail in the embedded mailbox, and answering it as a mail client would.

In the embedded default nothing leaves the machine: mail is kept in stored_mail. The
mailbox page shows each mail's headers, its plain-text part and its HTML part (in a
sandboxed frame: no scripts, no network), and a reply form that hands a reply to the
same inbound path as real mail, so a game can be played by mail on one machine.
"""

from __future__ import annotations

from dataclasses import dataclass
from email import policy
from email.message import EmailMessage
from email.utils import make_msgid

from service.inbound.body import decode_part, parse_message

SHOWN_HEADERS = ("From", "To", "Reply-To", "Subject", "Date", "Message-ID", "In-Reply-To", "List-Unsubscribe")


@dataclass(frozen=True)
class Attachment:
    filename: str
    content_type: str
    data: bytes


@dataclass(frozen=True)
class Readable:
    headers: list[tuple[str, str]]
    text: str
    html: str
    reply_to: str
    attachments: list[Attachment]


def attachments(msg: EmailMessage) -> list[Attachment]:
    """The message's attached files (a results mail's record), decoded, in order."""
    found = []
    for part in msg.iter_attachments():
        data = part.get_payload(decode=True)
        if isinstance(data, bytes):
            found.append(Attachment(str(part.get_filename() or "attachment"), part.get_content_type(), data))
    return found


def readable(raw: str) -> Readable:
    msg = parse_message(raw.encode("utf-8", "surrogateescape"))
    text = msg.get_body(preferencelist=("plain",))
    html = msg.get_body(preferencelist=("html",))
    reply = msg["Reply-To"] or msg["From"]
    return Readable(
        headers=[(h, str(msg[h])) for h in SHOWN_HEADERS if msg[h] is not None],
        text=decode_part(text) if text is not None else "",
        html=decode_part(html) if html is not None else "",
        reply_to=str(reply.addresses[0].addr_spec) if reply is not None and reply.addresses else "",
        attachments=attachments(msg),
    )


def reply_raw(raw: str, body: str) -> bytes:
    """A reply to a kept mail from its recipient: the old text quoted, threaded by In-Reply-To."""
    original = parse_message(raw.encode("utf-8", "surrogateescape"))
    shown = readable(raw)
    msg = EmailMessage()
    msg["From"] = original["To"]
    msg["To"] = shown.reply_to
    msg["Subject"] = "Re: " + str(original["Subject"] or "")
    msg["Message-ID"] = make_msgid(domain="mailbox.dicepost.localhost")
    if original["Message-ID"]:
        msg["In-Reply-To"] = str(original["Message-ID"])
    quoted = "\n".join("> " + line for line in shown.text.splitlines())
    msg.set_content(f"{body.strip()}\n\nOn {original['Date']}, dicepost wrote:\n{quoted}\n")
    return msg.as_bytes(policy=policy.SMTP)
