"""One outbox row → one multipart/alternative message: plain text first, then HTML.

Both parts come from templates/email/<kind>.txt and <kind>.html (the .html name turns
Jinja's autoescape on; the text part is not HTML and is not escaped). The HTML part
uses inline styles and tables only: no SVG, no scripts, no remote images, so it reads
the same in webmail, desktop and phone clients.

Headers are stable per row: Message-ID is the row's, Date is the row's creation time,
so a resend after a temporary failure is the same message to every client.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager, nullcontext
from email.message import EmailMessage
from email.utils import format_datetime
from typing import Any

from flask import current_app, has_request_context, render_template
from sqlalchemy.orm import Session

from service import urls
from service.mail.context import build_context
from service.mail.headers import (
    clean_header_text,
    list_id,
    mailbox,
    message_id,
    set_standard_headers,
    thread_root,
)
from service.mail.settings import MailSettings
from service.models import Outbox

_SUBJECTS: dict[str, Callable[[Mapping[str, Any]], str]] = {
    "invitation": lambda c: f"Invitation: {c['game']['title']}",
    "confirmation": lambda c: (f"Orders NOT stored for round {c['payload'].get('round')}"
                               if c["payload"].get("errors")
                               else f"Orders stored for round {c['payload'].get('round')}"),
    "results": lambda c: "The game has started" if c["step"] == 1 else f"Round {c['round']} results",
    "reminder": lambda c: f"Reminder: round {c['payload'].get('round')} closes soon",
    "game_over": lambda c: "Game over: " + ("a draw" if c["draw"] else " and ".join(c["winners"]) + " won"),
    "status": lambda c: "Status" + (f" of round {c['status']['open_round']}"
                                    if c.get("status", {}).get("open_round") else ""),
    "help": lambda _c: "How to play by mail",
    "refusal": lambda _c: "Your mail to dicepost was not accepted",
    "login": lambda _c: "Your sign-in link",
    "unreachable": lambda c: f"Mail to {c['payload'].get('seat')} bounces",
}


# News the host sends to every player of a game; answers and sign-in links are personal.
BULK = frozenset({"invitation", "results", "reminder", "game_over", "unreachable"})


def auto_replied(row: Outbox) -> bool:
    """RFC 3834: the mail answers one a person sent (a refusal, an answer to a seat's mail, the
    confirmation of orders that came by mail)."""
    payload = row.payload or {}
    return (row.kind == "refusal" or bool(payload.get("answer"))
            or (row.kind == "confirmation" and payload.get("source") == "mail"))


def subject_for(kind: str, ctx: Mapping[str, Any]) -> str:
    subject = _SUBJECTS[kind](ctx)
    game = ctx.get("game")
    return clean_header_text(f"[{game['title']}] {subject}" if game else subject, 200)


def _url_context() -> AbstractContextManager[object]:
    """Outside a request (the mail worker): one request context for all the mail's links,
    where service.urls would push one for each link (~0.45 ms each). In a request, none."""
    if has_request_context():
        return nullcontext()
    return current_app.test_request_context(base_url=urls.base_url())


def compose(session: Session, row: Outbox, settings: MailSettings) -> EmailMessage:
    """The whole message for one outbox row (raises LookupError if what it reports is gone)."""
    if row.kind not in _SUBJECTS:
        raise LookupError(f"no templates for mail of kind {row.kind!r}")
    if not row.to_address:
        raise LookupError("the outbox row has no address")
    with _url_context():
        ctx = build_context(session, row, settings)
    ctx["subject"] = subject_for(row.kind, ctx)
    text = render_template(f"email/{row.kind}.txt", **ctx)
    html = render_template(f"email/{row.kind}.html", **ctx)
    msg = EmailMessage()
    set_standard_headers(
        msg,
        sender=mailbox("dicepost", settings.sender),
        to=mailbox(ctx.get("player", ""), row.to_address),
        subject=ctx["subject"],
        msg_id=message_id(row.message_id, settings.domain),
        root=thread_root(row.game_id, row.seat_id, settings.domain) if row.game_id and row.seat_id else None,
        reply_to=ctx.get("reply_address"),
        unsubscribe_url=ctx.get("unsubscribe_url"),
        unsubscribe_mailto=ctx.get("reply_address"),
        date=format_datetime(row.created_at),
        list_id=list_id(row.game_id, ctx["game"]["title"], settings.domain)
        if row.game_id and ctx.get("game") else None,
        auto_replied=auto_replied(row),
        bulk=row.kind in BULK,
    )
    msg.set_content(text)
    msg.add_alternative(html, subtype="html")
    return msg
