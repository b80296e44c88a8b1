"""What a webhook post says: the news waiting for a hook, collapsed into one message of
its kind (a Discord embed each, Slack blocks, or one signed JSON document), and the
Standard Webhooks signature of a json hook's post.

Every word comes from the public news (seat names, round numbers, UTC times, public
table talk, the GM's sentence) and the game's title and public links: no token, no
player link, no address, no private message (service.notify's rule for public news).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

DISCORD_EMBEDS = 10  # Discord's most embeds a message
TEXT_LIMIT = 1000  # characters of a table message or a GM's sentence shown
COLOURS = {"game_started": 0x2E7D32, "round_opened": 0x1565C0, "reminder": 0xF9A825,
           "round_resolved": 0x6A1B9A, "game_over": 0x424242, "gm_news": 0xC62828, "message": 0x00838F}


@dataclass(frozen=True)
class Item:
    """One piece of news as the post shows it."""

    id: int
    event: str
    at: str
    data: Mapping[str, Any]
    title: str
    lines: list[str]
    url: str
    mention: list[str] = field(default_factory=list)  # seat names to @mention (Discord)


@dataclass(frozen=True)
class GameFacts:
    id: str
    title: str
    url: str


def utc_words(iso: Any) -> str:
    """'Wed 03 Jun 2026 12:00 UTC' from an ISO time (its own words when not one)."""
    if not isinstance(iso, str):
        return "no deadline"
    try:
        at = datetime.fromisoformat(iso)
    except ValueError:
        return iso
    return str((at.astimezone(UTC) if at.tzinfo else at).strftime("%a %d %b %Y %H:%M UTC"))


def names(values: Any) -> str:
    """'B', 'B and D', 'A, B and D'."""
    items = [str(v) for v in values or []]
    if len(items) <= 1:
        return "".join(items) or "nobody"
    return ", ".join(items[:-1]) + " and " + items[-1]


def _clip(value: Any) -> str:
    text = str(value or "")
    return text if len(text) <= TEXT_LIMIT else text[:TEXT_LIMIT - 1] + "…"


def item(row_id: int, event: str, data: Mapping[str, Any], game: GameFacts, round_url: str,
         summary: Sequence[str] = ()) -> Item:
    """The words of one piece of news; `round_url`: the page of the round it names,
    `summary`: a resolved round's lines."""
    at = str(data.get("at", ""))
    n = data.get("round")
    if event == "game_started":
        return Item(row_id, event, at, data, f"{game.title}: the game has started",
                    [f"Seats: {names(data.get('seats'))}."], game.url)
    if event == "round_opened":
        return Item(row_id, event, at, data, f"{game.title}: round {n} is open",
                    [f"Orders from {names(data.get('expected'))}.",
                     f"Deadline: {utc_words(data.get('deadline'))}."],
                    game.url, list(data.get("expected") or []))
    if event == "reminder":
        return Item(row_id, event, at, data,
                    f"{game.title}: round {n} closes {utc_words(data.get('deadline'))}",
                    [f"Waiting on {names(data.get('waiting'))}."], game.url, list(data.get("waiting") or []))
    if event == "round_resolved":
        return Item(row_id, event, at, data, f"{game.title}: round {n} resolved",
                    [*summary, "What happened, the grid and every roll: the round's page."], round_url)
    if event == "game_over":
        outcome: Mapping[str, Any] = data.get("outcome") or {}
        result = "a draw" if outcome.get("draw") or not outcome.get("winners") else \
            f"{names(outcome.get('winners'))} won"
        reason = f" ({outcome['reason']})" if outcome.get("reason") else ""
        return Item(row_id, event, at, data, f"{game.title}: game over, {result}",
                    [f"The game is over{reason}."], game.url)
    if event == "gm_news":
        return Item(row_id, event, at, data, f"{game.title}: news from the GM", [_clip(data.get("text"))],
                    game.url)
    if event == "message":
        sender = "The GM" if data.get("from") == "gm" else str(data.get("from"))
        return Item(row_id, event, at, data, f"{game.title}: {sender} to everyone", [_clip(data.get("text"))],
                    game.url)
    return Item(row_id, event, at, data, f"{game.title}: {event.replace('_', ' ')}", [], game.url)


def _mentions(items: Sequence[Item], discord_ids: Mapping[str, str]) -> list[str]:
    out: list[str] = []
    for it in items:
        for name in it.mention:
            user = discord_ids.get(name)
            if user and user not in out:
                out.append(user)
    return out


def discord(items: Sequence[Item], discord_ids: Mapping[str, str]) -> dict[str, Any]:
    """A Discord execute-webhook body: an embed each (the last ones folded into one when
    there are more than Discord takes), @mentions of the players who must move."""
    embeds = [{"title": it.title[:256], "description": "\n".join(it.lines)[:4096], "url": it.url,
               "color": COLOURS.get(it.event, 0), "timestamp": it.at or None} for it in items]
    if len(embeds) > DISCORD_EMBEDS:
        rest = embeds[DISCORD_EMBEDS - 1:]
        embeds = [*embeds[:DISCORD_EMBEDS - 1], {
            "title": f"and {len(rest)} more", "url": items[-1].url,
            "description": "\n".join(str(e["title"]) for e in rest)[:4096]}]
    users = _mentions(items, discord_ids)
    body: dict[str, Any] = {"username": "dicepost", "embeds": embeds,
                            "allowed_mentions": {"parse": [], "users": users}}
    if users:
        body["content"] = " ".join(f"<@{u}>" for u in users) + ": your move"
    return body


def _mrkdwn(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def slack(items: Sequence[Item]) -> dict[str, Any]:
    """A Slack incoming-webhook body: a header and a section a piece of news (Slack takes 50 blocks)."""
    blocks: list[dict[str, Any]] = []
    for it in items[:24]:
        blocks.append({"type": "header", "text": {"type": "plain_text", "text": it.title[:150]}})
        text = "\n".join(_mrkdwn(line) for line in it.lines) + f"\n<{it.url}|Open the page>"
        blocks.append({"type": "section", "text": {"type": "mrkdwn", "text": text[:3000]}})
    if len(items) > 24:
        blocks.append({"type": "section", "text": {"type": "mrkdwn", "text": f"and {len(items) - 24} more"}})
    return {"text": "; ".join(it.title for it in items)[:3000], "blocks": blocks}


def json_document(items: Sequence[Item], game: GameFacts, now: datetime) -> dict[str, Any]:
    """The documented JSON event (docs/notifications.md): every piece of news waiting, in order."""
    return {"type": "dicepost.news", "timestamp": now.isoformat(),
            "data": {"game": {"id": game.id, "title": game.title, "url": game.url},
                     "events": [{"id": it.id, "type": it.event, "at": it.at, "title": it.title,
                                 "text": "\n".join(it.lines), "url": it.url,
                                 **{k: v for k, v in it.data.items() if k != "at"}} for it in items]}}


def body_bytes(document: Mapping[str, Any]) -> bytes:
    return json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode()


def signed_headers(secret: bytes, message_id: str, timestamp: int, body: bytes) -> dict[str, str]:
    """The Standard Webhooks headers: the id, the time in whole seconds, and the v1
    signature, HMAC-SHA256 over "{id}.{timestamp}.{body}" with the secret's bytes."""
    signed = f"{message_id}.{timestamp}.".encode() + body
    signature = base64.b64encode(hmac.new(secret, signed, hashlib.sha256).digest()).decode()
    return {"webhook-id": message_id, "webhook-timestamp": str(timestamp),
            "webhook-signature": f"v1,{signature}"}
