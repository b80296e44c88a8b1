"""Missed turns told: who sent no orders by a round's deadline, what the game's missed-turn
policy (or their standing orders) did about it, and who took their seat back from the bot,
as sentences for the players' pages and results mails (service.turn_summary, so both say the same), read from
the schedule log (service.audit). A sentence about the reader's own seat says "you".
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session

from service.memo import memo
from service.models import AuditLog

NEWS_ACTIONS = ("missed_turn", "seat_back", "standing_orders")
_NEWS = (select(AuditLog.action, AuditLog.detail)
         .where(AuditLog.game_id == bindparam("game_id"), AuditLog.action.in_(NEWS_ACTIONS))
         .order_by(AuditLog.id))


def table_news(session: Session, game_id: str, rounds: Collection[int], reader: str) -> list[str]:
    """The news of `rounds`, oldest first, as `reader` (a seat's name) reads it."""
    rows = memo(session, ("missed news", game_id),
                lambda: [(a, dict(d or {})) for a, d in session.execute(_NEWS, {"game_id": game_id})])
    return [news_line(action, detail, reader) for action, detail in rows if detail.get("round") in rounds]


def news_line(action: str, detail: Mapping[str, Any], reader: str) -> str:
    seat, number = str(detail.get("seat", "")), int(detail.get("round") or 0)
    you = seat == reader
    if action == "seat_back":
        return (f"You took your seat back from the bot in round {number}: your own orders count again."
                if you else f"{seat} took their seat back from the bot in round {number}: "
                            f"{seat}'s own orders count again.")
    if action == "standing_orders":
        return (f"You sent no orders for round {number} by its close: your standing orders counted." if you
                else f"{seat} sent no orders for round {number} by its close: their standing orders counted.")
    misses = int(detail.get("misses") or 1)
    whose = "your" if you else f"{seat}'s"
    said = (f"{'You' if you else seat} sent no orders for round {number} by its deadline"
            + (f" ({misses} rounds in a row)" if misses > 1 else "") + f": {whose} units held")
    if detail.get("action") == "bot":
        said += (f"; from round {number + 1} the bot plays your seat until you send orders again "
                 "(your first orders take it back)" if you
                 else f"; from round {number + 1} the bot plays {seat} until {seat} sends orders again")
    elif detail.get("action") == "replace":
        said += "; the seat is open for a replacement player"
    return said + "."
