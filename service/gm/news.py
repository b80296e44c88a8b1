"""The schedule and GM log in words, and the GM's news to every player.

Each log entry (service.audit.schedule_entries) reads as one sentence with its time in the
game's zone: "Tue 01 Dec 14:02 (Europe/Berlin) GM paused the game; the deadline was Fri 04
Dec 20:00". Every GM action is mailed to every player (mail kind `gm_news`, which a seat's
mail preference "none" turns off), the actions of a few minutes in one mail (`broadcast`),
and the latest shows as a banner on the game's pages.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import select
from sqlalchemy.orm import Session

from service import clock
from service.mail.outbox import enqueue, seat_wants
from service.models import AuditLog, Game, Outbox, Round
from service.notify import notify
from service.schedule.durations import describe_duration
from service.schedule.words import describe_policy
from service.timekeeping.state import policy_of
from service.timekeeping.wording import time_text

_Show = Callable[[Any], str]  # writes one time of a log entry's detail


def _parse(value: Any) -> datetime | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def local_time(when: datetime | str | None, zone: ZoneInfo, *, date: bool = True) -> str:
    """'Tue 01 Dec 14:02' in the zone, to the minute (no seconds, no microseconds)."""
    at = _parse(when) if isinstance(when, str) or when is None else when
    if at is None:
        return "(no time)"
    at = (at.replace(tzinfo=UTC) if at.tzinfo is None else at).astimezone(zone)
    return at.strftime("%a %d %b %H:%M" if date else "%H:%M")


def sentence(action: str, detail: Mapping[str, Any], zone: ZoneInfo) -> str:
    """What one schedule entry did, in words; times in `zone`."""
    return sentence_with(action, detail, lambda at: local_time(at, zone))


def sentence_with(action: str, detail: Mapping[str, Any], show: Callable[[Any], str]) -> str:
    """sentence, each time (an ISO string from the entry) written by `show`."""
    words = _GM_WORDS.get(action) or _SERVICE_WORDS.get(action)
    return words(detail, show) if words else action.replace("_", " ")


def _at(detail: Mapping[str, Any], key: str, show: Callable[[Any], str]) -> str:
    return show(detail.get(key))


def _pause(d: Mapping[str, Any], z: _Show) -> str:
    was = f"; the deadline was {_at(d, 'deadline', z)}" if d.get("deadline") else ""
    return f"GM paused the game: no round closes until it resumes{was}"


def _resume(d: Mapping[str, Any], z: _Show) -> str:
    span = describe_duration(timedelta(seconds=int(d.get("paused_seconds") or 0)))
    moved = f"; deadline moved to {_at(d, 'deadline', z)}" if d.get("deadline") else ""
    return f"GM resumed the game after a pause of {span}{moved}"


def _remove(d: Mapping[str, Any], _z: _Show) -> str:
    units = "the bot plays its units" if d.get("units") == "bot" else "its units hold"
    return f"GM removed {d.get('seat')} from the game; {units}"


def _moved(d: Mapping[str, Any], z: _Show) -> str:
    why = (" for an absence" if d.get("reason") == "absence"
           else f" (missing: {', '.join(d.get('missing') or [])})" if d.get("missing") else "")
    return f"Round {d.get('round')}'s deadline moved from {_at(d, 'from', z)} to {_at(d, 'to', z)}{why}"


def _closed(d: Mapping[str, Any], _z: _Show) -> str:
    holding = d.get("holding") or []
    held = f"; {', '.join(holding)} held" if holding else ""
    return f"Round {d.get('round')} closed at its deadline{held}"


def _rolled_back(d: Mapping[str, Any]) -> str:
    rounds = [str(r) for r in d.get("rounds") or []]
    which = (f"round {rounds[0]} was" if len(rounds) == 1
             else f"rounds {', '.join(rounds[:-1])} and {rounds[-1]} were")
    its = "its" if len(rounds) == 1 else "their"
    return (f"{which[0].upper()}{which[1:]} rolled back by the GM: {its} dice are replaced. Round "
            f"{d.get('round')} is open for orders again (your earlier orders for it no longer count: "
            f"send them again). Reason: {d.get('reason', '')}")


_Words = Callable[[Mapping[str, Any], _Show], str]
_GM_WORDS: dict[str, _Words] = {
    "gm_pause": _pause,
    "gm_resume": _resume,
    "gm_extend": lambda d, z: (f"GM extended round {d.get('round')}: deadline moved from "
                               f"{_at(d, 'from', z)} to {_at(d, 'to', z)}"),
    "gm_resolve_now": lambda d, _z: f"GM closed round {d.get('round')} now; players without orders hold "
                                                  "(or their standing orders count)",
    "gm_replace": lambda d, _z: (f"GM opened seat {d.get('seat')} for a new player; "
                                 "its units hold until they take it"),
    "gm_remove": _remove,
    "gm_end_draw": lambda _d, _z: "GM ended the game as a draw",
    "gm_set_policy": lambda d, _z: ("GM changed the deadline policy for rounds opened from now on: "
                                    + describe_policy(d.get("policy") or {})),
    "gm_announce": lambda d, _z: f"GM announcement: {d.get('text', '')}",
    "gm_rollback": lambda d, _z: _rolled_back(d),
}
_SERVICE_WORDS: dict[str, _Words] = {
    "deadline_extended": _moved,
    "deadline_closed": _closed,
    "missed_turn": lambda d, _z: (f"{d.get('seat')} missed round {d.get('round')} "
                                  f"({d.get('misses')} in a row): {d.get('action')}"),
    "seat_to_bot": lambda d, _z: f"The bot plays {d.get('seat')} until a person takes the seat back",
    "seat_back": lambda d, _z: (f"{d.get('seat')} took their seat back from the bot in round "
                                f"{d.get('round')}"),
    "seat_opened": lambda d, _z: f"Seat {d.get('seat')} is open for a new player",
    "seat_claimed": lambda d, _z: f"A new player took seat {d.get('seat')}",
    "bot_orders": lambda d, _z: f"The bot sent {d.get('seat')}'s orders for round {d.get('round')}",
    "absence_declared": lambda d, _z: (f"{d.get('seat')} will be away from {d.get('from')} to {d.get('to')}"
                                       + ("; deadlines inside move past it" if d.get("deadlines_move")
                                          else "; this game's deadlines do not move for absences")),
    "standing_orders": lambda d, _z: (f"{d.get('seat')} sent no orders for round {d.get('round')}: "
                                      "their standing orders counted"),
}
GM_NEWS = tuple(_GM_WORDS)


@dataclass(frozen=True)
class LogLine:
    at: str  # ISO, UTC
    when: str  # 'Tue 01 Dec 14:02 (Europe/Berlin)'
    actor: str
    action: str
    text: str
    detail: dict[str, Any]


def log_lines(game: Game, entries: list[dict[str, Any]], zone: ZoneInfo | None = None) -> list[LogLine]:
    """The schedule log (service.audit.schedule_entries) in words, in `zone` (the game's)."""
    zone = zone or policy_of(game).zone
    return [LogLine(e["at"], f"{local_time(e['at'], zone)} ({zone.key})", e["actor"], e["action"],
                    sentence(e["action"], e["detail"], zone), e["detail"]) for e in entries]


# A GM who acts several times in a few minutes sends one mail: the first action's mail is
# held for GATHER (an outbox row due then, which the sweeper rings: no ETA task), and what
# the GM does meanwhile joins it. A row is joined only while it is due later than MARGIN
# from now, so a deliverer about to take it never misses an item.
GATHER = timedelta(minutes=3)
MARGIN = timedelta(seconds=15)
HELD = "held: "  # the last_error of a row gathering the GM's news


def broadcast(session: Session, game: Game, action: str, detail: Mapping[str, Any]) -> None:
    """Mail a GM action to every player with an address (their preference permitting): it
    joins the seat's news mail still gathering, else starts one, sent GATHER from now."""
    zone = policy_of(game).zone
    # The detail goes too: each player's mail writes its times in their own zone.
    item = {"action": action, "text": sentence(action, detail, zone), "detail": dict(detail)}
    state = {"zone": zone.key, "paused": game.paused_at is not None, "status": game.status}
    now = clock.now()
    held = {row.seat_id: row for row in session.scalars(select(Outbox).where(
        Outbox.game_id == game.id, Outbox.kind == "gm_news", Outbox.status == "pending",
        Outbox.last_error.like(f"{HELD}%"), Outbox.next_attempt_at > now + MARGIN))}
    for seat in game.seats:
        row = held.get(seat.id)
        if row is not None and row.to_address == seat.email and seat_wants("gm_news", seat):
            items = [*news_items(row.payload), item]
            row.payload = {**row.payload, **state, "items": items}  # a new value: the JSON is written
            continue
        # The first item's fields stand at the top too, as a single action's mail had them.
        row = enqueue(session, "gm_news", {**item, **state, "items": [item]}, game=game, seat=seat)
        if row is not None:
            row.next_attempt_at = now + GATHER
            row.last_error = f"{HELD}the GM's news gathers into one mail until {row.next_attempt_at:%H:%M}"
    # Chat and push channels get each action as it happens. The detail stays here: a
    # replacement's names the newcomer's address.: a replacement's names the newcomer's address.
    notify(session, game.id, "gm_news", {"action": action, "round": game.current_round,
                                         "text": sentence_with(action, detail, _utc)})


def _utc(at: Any) -> str:
    parsed = _parse(at)
    return parsed.astimezone(UTC).strftime("%a %d %b %Y %H:%M UTC") if parsed else "(no time)"


def news_items(payload: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The GM's actions a gm_news mail tells, oldest first (a mail queued before gathering: its one)."""
    items = payload.get("items")
    if isinstance(items, list) and items:
        return [dict(i) for i in items if isinstance(i, Mapping)]
    return [{"action": payload.get("action", ""), "text": payload.get("text", ""),
             "detail": payload.get("detail") or {}}]


@dataclass(frozen=True)
class Banner:
    """What every page of a game shows on top: the pause, and the GM's latest news."""

    paused_since: str | None  # 'Tue 01 Dec 14:02 (Europe/Berlin)'
    latest: LogLine | None  # the GM's last action or announcement
    announcement: LogLine | None  # the GM's last announcement, kept on top


BANNER_READS = 20  # the GM's latest entries the banner looks through for an announcement


def banner(session: Session, game: Game) -> Banner:
    zone = policy_of(game).zone
    opened = (select(Round.opened_at).where(Round.game_id == game.id, Round.number == game.current_round)
              .scalar_subquery())  # in the same statement: a page reads the banner in one query
    rows = list(session.execute(select(AuditLog, opened.label("opened")).where(
        AuditLog.game_id == game.id, AuditLog.action.in_(GM_NEWS)).order_by(AuditLog.id.desc())
        .limit(BANNER_READS)))
    entries = [{"at": r.AuditLog.at.isoformat(), "actor": r.AuditLog.actor, "action": r.AuditLog.action,
                "detail": r.AuditLog.detail} for r in rows]
    return banner_of(game, log_lines(game, entries, zone), rows[0].opened if rows else None)


def round_opened(session: Session, game: Game) -> datetime | None:
    """When the game's current round opened (None before the first): the round the page
    has read already where it has, else asked."""
    for row in list(session.identity_map.values()):
        if isinstance(row, Round) and row.game_id == game.id and row.number == game.current_round:
            return row.opened_at
    return session.scalars(select(Round.opened_at).where(
        Round.game_id == game.id, Round.number == game.current_round)).first()


def banner_of(game: Game, lines: list[LogLine], since: datetime | None = None) -> Banner:
    """The banner from log lines in the game's zone, newest first (a page that shows the
    whole schedule log has read them already: only the GM's are taken). The GM's news
    expires with the round it belongs to: only what the GM did since the current round
    opened (`since`), or what names that round, stays on top."""
    zone = policy_of(game).zone
    lines = [x for x in lines if x.action in GM_NEWS and _this_round(game, x, since)][:BANNER_READS]
    latest = lines[0] if lines else None
    announcement = next((line for line in lines if line.action == "gm_announce"), None)
    paused = f"{local_time(game.paused_at, zone)} ({zone.key})" if game.paused_at else None
    return Banner(paused, latest, announcement)


def _this_round(game: Game, line: LogLine, since: datetime | None) -> bool:
    if since is None or line.detail.get("round") == game.current_round:
        return True
    at = _parse(line.at)
    return at is not None and at >= (since if since.tzinfo else since.replace(tzinfo=UTC))


def mail_context(game: Game, payload: Mapping[str, Any], player_zone: ZoneInfo | None) -> dict[str, Any]:
    """A gm_news mail's sentences for its reader, one an action, oldest first: with a zone of
    their own, each time in it with UTC and the game's zone beside; else as broadcast (in the
    game's zone)."""
    zone = policy_of(game).zone

    def show(at: Any) -> str:
        parsed = _parse(at)
        return time_text(parsed, zone, player_zone, year=False) if parsed else "(no time)"

    def said(item: Mapping[str, Any]) -> str:
        detail = item.get("detail")
        if player_zone is None or not isinstance(detail, Mapping):
            return str(item.get("text", ""))
        return sentence_with(str(item.get("action", "")), detail, show)

    items = news_items(payload)
    texts = [said(i) for i in items]
    return {"news_text": texts[0], "news_texts": texts, "news_actions": [str(i.get("action")) for i in items],
            "news_zone": player_zone.key if player_zone is not None else None}
