"""One outbox row → one multipart/alternative message: plain text first, then HTML; a
results mail wraps that in multipart/mixed with the game's record so far attached as
application/json.

Both parts come from the kind's templates in the registry (service.mail.outbox.KINDS:
templates/email/<kind>.txt and <kind>.html; the text part is not HTML and is not escaped). The HTML part
uses inline styles and tables only: no SVG, no scripts, no remote images, so it reads
the same in webmail, desktop and phone clients.

Headers are stable per row: Message-ID is the row's, Date is the row's creation time,
so a resend after a temporary failure is the same message to every client.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from email.utils import format_datetime
from typing import Any

from flask import current_app
from sqlalchemy.orm import Session

from service.mail import mime
from service.mail.headers import (
    clean_header_text,
    list_id,
    mailbox,
    message_id,
    standard_headers,
    thread_root,
)
from service.mail.outbox import kind_of
from service.mail.settings import MailSettings
from service.memo import memo
from service.models import Outbox
from service.outbound.context import build_context

# Kinds whose mails of one step share parts (templates/email/_<kind>_step.txt and .html,
# one macro `<part>_part` a part): rendered once per step from what context.step_facts gives, then put
# into each player's mail as they stand.
STEP_PARTS = {"results": ("outcomes", "board", "dice", "attached")}


def auto_replied(row: Outbox) -> bool:
    """RFC 3834: the mail answers one a person sent (a refusal, an answer to a seat's mail, the
    confirmation of orders that came by mail)."""
    payload = row.payload or {}
    return (kind_of(row.kind).replied or bool(payload.get("answer"))
            or (row.kind == "confirmation" and payload.get("source") == "mail"))


def subject_for(kind: str, ctx: Mapping[str, Any]) -> str:
    subject = kind_of(kind).subject(ctx)
    game = ctx.get("game")
    return clean_header_text(f"[{game['title']}] {subject}" if game else subject, 200)


def step_parts(kind: str, facts: Mapping[str, Any], game: Mapping[str, Any]) -> dict[str, Any]:
    """The text and HTML of a step's shared parts ({"text_parts": ..., "html_parts": ...}),
    from nothing that names a player."""
    env = current_app.jinja_env
    variables = {**facts, "game": game}
    out: dict[str, Any] = {}
    for variant in ("text", "html"):
        module = env.get_template(f"email/_{kind}_step.{'txt' if variant == 'text' else 'html'}") \
            .make_module(variables)
        out[f"{variant}_parts"] = {name: getattr(module, f"{name}_part")() for name in STEP_PARTS[kind]}
    return out


@dataclass(frozen=True)
class Composed:
    """One message as it goes on the wire (CRLF, before any DKIM signature)."""

    raw: bytes
    subject: str


def compose(session: Session, row: Outbox, settings: MailSettings) -> Composed:
    """The whole message for one outbox row (raises LookupError if what it reports is gone)."""
    spec = kind_of(row.kind)  # LookupError for a kind the registry does not know
    if not row.to_address:
        raise LookupError("the outbox row has no address")
    ctx = build_context(session, row, settings)
    ctx["subject"] = subject_for(row.kind, ctx)
    facts = ctx.get("step_facts")
    if row.kind in STEP_PARTS and facts is not None:
        ctx.update(memo(session, ("step parts", row.kind, row.game_id, facts["step"], facts["round"]),
                        lambda: step_parts(row.kind, facts, ctx["game"])))
    # Straight from Jinja's cache of compiled templates: the mail templates use none of what
    # Flask's render_template adds (the request, the pages' context processors).
    env = current_app.jinja_env
    text_name, html_name = spec.templates
    text = env.get_template(text_name).render(ctx)
    html = env.get_template(html_name).render(ctx)
    msg_id = message_id(row.message_id, settings.domain)
    headers = mime.header_block(standard_headers(
        sender=mailbox("dicepost", settings.sender),
        to=mailbox(ctx.get("player", ""), row.to_address),
        subject=ctx["subject"],
        msg_id=msg_id,
        root=thread_root(row.game_id, row.seat_id, settings.domain) if row.game_id and row.seat_id else None,
        reply_to=ctx.get("reply_address"),
        unsubscribe_url=ctx.get("unsubscribe_url"),
        unsubscribe_mailto=ctx.get("reply_address"),
        date=format_datetime(row.created_at),
        list_id=list_id(row.game_id, ctx["game"]["title"], settings.domain)
        if row.game_id and ctx.get("game") else None,
        auto_replied=auto_replied(row),
        bulk=spec.bulk,
    ))
    attached = ([mime.Attached(ctx["record_file"], "application/json", ctx["record_bytes"])]
                if ctx.get("record_bytes") else [])
    return Composed(mime.message(headers, text, html, attached, seed=msg_id), ctx["subject"])
