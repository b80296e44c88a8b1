"""The audit log: one row per thing that happened to a game, who did it and when.

`audit` records the lifecycle (created, joined, submitted, finished, ...). `log_action`
records schedule and GM actions, stamped by the app's clock: those are the entries shown
on the game page, the GM page and in the record (`schedule_entries`).
"""

from __future__ import annotations

from datetime import datetime
from functools import lru_cache
from typing import Any

from sqlalchemy import String, Table, bindparam, select
from sqlalchemy.orm import Session

from engine.contract import InvariantError
from service.clock import now
from service.db import table_of
from service.messages import record_messages
from service.models import AuditLog, Game

SCHEDULE_ACTIONS = (
    "gm_pause", "gm_resume", "gm_extend", "gm_resolve_now", "gm_replace", "gm_remove", "gm_end_draw",
    "gm_set_policy", "gm_announce", "gm_rollback",
    "seat_claimed", "deadline_closed", "deadline_extended", "missed_turn",
    "seat_to_bot", "seat_opened", "bot_orders", "seat_back", "standing_orders", "absence_declared",
)


def audit(session: Session, game_id: str | None, actor: str, action: str,
          detail: dict[str, Any] | None = None) -> AuditLog:
    """Add the entry to the session's transaction, stamped by the app's clock."""
    row = AuditLog(**audit_row(game_id, actor, action, detail or {}, now())[1])
    session.add(row)
    return row


def audit_row(game_id: str | None, actor: str, action: str, detail: dict[str, Any],
              at: datetime) -> tuple[Table, dict[str, Any]]:
    """An entry's table and column values (the one place they are made), for audit and for
    service.db.insert_together."""
    return table_of(AuditLog), {"game_id": game_id, "at": at, "actor": actor, "action": action,
                                "detail": detail}


def log_action(session: Session, game_id: str, actor: str, action: str,
               detail: dict[str, Any] | None = None) -> AuditLog:
    """audit for a schedule or GM action (one of SCHEDULE_ACTIONS)."""
    if action not in SCHEDULE_ACTIONS:
        raise InvariantError(f"not a schedule action: {action}")
    return audit(session, game_id, actor, action, detail)


@lru_cache(maxsize=1)
def _entries_statement() -> Any:
    # Built once per process: building it (its IN list) cost about as much as running it.
    return (select(AuditLog).where(AuditLog.game_id == bindparam("game_id", type_=String),
                                   AuditLog.action.in_(SCHEDULE_ACTIONS)).order_by(AuditLog.id))


def schedule_entries(session: Session, game_id: str) -> list[dict[str, Any]]:
    """The game's schedule and GM entries, oldest first, as JSON for pages and the record."""
    rows = session.scalars(_entries_statement(), {"game_id": game_id})
    return [{"at": r.at.isoformat(), "actor": r.actor, "action": r.action, "detail": r.detail} for r in rows]


def record_extra(session: Session, game: Game, viewer: str | None = None) -> dict[str, Any]:
    """What the game record adds for the schedule: the log, the table talk `viewer` may read
    (service.messages: None the public talk), and for a game the GM ended, `gm_ending` (the
    record's `outcome` stays the rules' own, null, so the record replays)."""
    extra: dict[str, Any] = {"schedule_log": schedule_entries(session, game.id),
                             "messages": record_messages(session, game, viewer)}
    if game.outcome and game.outcome.get("ended_by") == "gm":
        extra.update(outcome=None, gm_ending=game.outcome)
    return extra
