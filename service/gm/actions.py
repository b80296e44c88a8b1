"""The GM's actions. Each is one transaction, written to the audit log (actor "gm"), and
refused with a clear error naming the field when it does not apply.

pause / resume   the open round's deadline moves by the pause's length; nothing closes while paused
extend           the open round's deadline moves later, by a duration or to a given time
resolve_now      the open round closes now; missing players hold
replace          a seat gets a fresh invitation (mailed when an address is given); the newcomer
                 takes the seat and its units, the old player token stops working
remove           a player leaves; their units hold for good, or the engine's bot plays them
end_draw         the game ends as a draw
set_policy       the deadline policy for rounds opened from now on
announce         a message from the GM to every player

Every action is mailed to every player (service.gm.news.broadcast: the actions of a few
minutes in one mail; the draw by the game-over mail) and shows on the game's pages. Saving
the policy as it stands changes nothing, so it is neither logged nor mailed.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy.orm import Session

from service import address_confirm
from service.audit import log_action
from service.clock import as_utc, now
from service.errors import Conflict, Invalid, NotFound
from service.fairdice import TERMS_OPTION, game_terms, is_v3, missed_turns_terms
from service.gm.auth import gm_game
from service.gm.news import broadcast
from service.inputs import normal_address
from service.mail.outbox import enqueue
from service.models import Game, RatedGame, Round, Seat
from service.notify import notify
from service.schedule.deadlines import extended_deadline, resumed_deadline
from service.schedule.durations import DurationError, parse_duration
from service.schedule.policy import checked_policy
from service.sendlimits import check_invitations
from service.standing import use_standing
from service.tasks import rate_after_commit
from service.timekeeping.due import hand_to_bot, open_for_replacement, revoke_player, tell_former_player
from service.timekeeping.open_close import close_early_if_done, mark_ready
from service.timekeeping.state import expected_humans, open_round, policy_of, seat_schedule
from service.tournaments import is_no_pause
from service.urls import takeover_url


@dataclass(frozen=True)
class Done:
    """What an action did, for the API's answer and the page's flash message."""

    action: str
    detail: dict[str, Any]


@contextmanager
def _acting(session: Session, game_id: str, token: str | None) -> Iterator[Game]:
    """One GM action: authenticate and lock the active game, then commit."""
    with session.begin():
        game = gm_game(session, game_id, token)
        _active(game)
        open_round(session, game, lock=True)  # lock order: game, round, seats (as submit: round, seats)
        yield game


def _active(game: Game) -> None:
    if game.status != "active":
        raise Conflict(f"the game is {game.status}; this action needs an active game", "game")


def _round(session: Session, game: Game) -> Round:
    rnd = open_round(session, game)
    if rnd is None:
        raise Conflict(f"round {game.current_round} is not open (it is being resolved)", "round")
    return rnd


def _seat(game: Game, name: Any) -> Seat:
    if not isinstance(name, str) or not name:
        raise Invalid("seat: the name of a seat of this game", "seat")
    for seat in game.seats:
        if seat.name.lower() == name.lower():
            return seat
    raise NotFound(f"seat {name!r} is not in this game (seats: {', '.join(s.name for s in game.seats)})")


def _stamp(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


def pause(session: Session, game_id: str, token: str | None) -> Done:
    with _acting(session, game_id, token) as game:
        if is_no_pause(session, game.id):
            raise Conflict("this game is a table of a tournament whose director forbade pauses", "game")
        if game.paused_at is not None:
            raise Conflict(f"the game is already paused (since {game.paused_at.isoformat()})", "game")
        game.paused_at = now()
        rnd = open_round(session, game)
        detail = {"at": game.paused_at.isoformat(), "deadline": _stamp(rnd.closes_at if rnd else None)}
        log_action(session, game.id, "gm", "gm_pause", detail)
        broadcast(session, game, "gm_pause", detail)
    return Done("gm_pause", detail)


def resume(session: Session, game_id: str, token: str | None) -> Done:
    with _acting(session, game_id, token) as game:
        if game.paused_at is None:
            raise Conflict("the game is not paused", "game")
        at = now()
        paused_for = at - game.paused_at
        rnd = open_round(session, game)
        old = rnd.closes_at if rnd else None
        if rnd is not None and rnd.closes_at is not None:
            # a round that opened during the pause was paused only since it opened
            since = max(game.paused_at, rnd.opened_at)
            rnd.closes_at = resumed_deadline(rnd.closes_at, since, at, policy_of(game))
        game.paused_at = None
        detail = {"paused_seconds": int(paused_for.total_seconds()), "from": _stamp(old),
                  "deadline": _stamp(rnd.closes_at if rnd else None)}
        log_action(session, game.id, "gm", "gm_resume", detail)
        broadcast(session, game, "gm_resume", detail)
        if rnd is not None:
            close_early_if_done(session, game, rnd)
    return Done("gm_resume", detail)


def extend(session: Session, game_id: str, token: str | None, by: Any = None, until: Any = None,
           until_in_game_zone: bool = False) -> Done:
    """Move the open round's deadline: `by` a duration (ISO 8601 or words like '1 day'), or
    `until` an ISO 8601 time; with `until_in_game_zone`, a time without an offset is the
    wall-clock time in the game's zone (the GM page's date and time fields)."""
    if (by is None) == (until is None):
        raise Invalid("give either 'by' (a duration like '1 day' or 'PT24H') or 'until' (a time)", "by")
    with _acting(session, game_id, token) as game:
        rnd = _round(session, game)
        at = now()
        base = rnd.closes_at or at
        if by is not None:
            try:
                span = parse_duration(by, "by")
            except DurationError as exc:
                raise Invalid(str(exc), "by") from None
            if span <= timedelta(0):
                raise Invalid("by: the extension must be longer than zero", "by")
            new = extended_deadline(base, span, policy_of(game))
        else:
            new = _parse_until(until, policy_of(game).zone if until_in_game_zone else None)
            if new <= max(base, at):
                raise Invalid(f"until: {new.isoformat()} is not later than the current deadline "
                              f"{_stamp(rnd.closes_at) or '(none)'} and now", "until")
        detail = {"round": rnd.number, "from": _stamp(rnd.closes_at), "to": new.isoformat()}
        rnd.closes_at = new
        log_action(session, game.id, "gm", "gm_extend", detail)
        broadcast(session, game, "gm_extend", detail)
    return Done("gm_extend", detail)


def _parse_until(value: Any, zone: ZoneInfo | None = None) -> datetime:
    if not isinstance(value, str):
        raise Invalid("until: an ISO 8601 time like '2026-12-01T18:00:00Z'", "until")
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise Invalid(f"until: {value!r} is not an ISO 8601 time like '2026-12-01T18:00:00Z'",
                      "until") from None
    if parsed.tzinfo is None and zone is not None:
        parsed = parsed.replace(tzinfo=zone)
    if parsed.tzinfo is None:
        raise Invalid("until: give a time zone (e.g. 'Z' or '+01:00')", "until")
    return as_utc(parsed)


def resolve_now(session: Session, game_id: str, token: str | None) -> Done:
    with _acting(session, game_id, token) as game:
        rnd = _round(session, game)
        detail = {"round": rnd.number, "deadline": _stamp(rnd.closes_at)}
        log_action(session, game.id, "gm", "gm_resolve_now", detail)
        broadcast(session, game, "gm_resolve_now", detail)
        use_standing(session, game, rnd, expected_humans(session, game, rnd))
        mark_ready(session, game, rnd)
    return Done("gm_resolve_now", detail)


def replace(session: Session, game_id: str, token: str | None, seat_name: Any, email: Any = None) -> Done:
    if email is not None:
        email = normal_address(email, "email")
    with _acting(session, game_id, token) as game:
        seat = _seat(game, seat_name)
        check_invitations(session, [(email, "email")])
        address_confirm.ask(session, [(email, "email")])
        invite = open_for_replacement(session, game, seat, actor="gm", email=email)
        detail = {"seat": seat.name, "email": email}
        log_action(session, game.id, "gm", "gm_replace", detail)
        broadcast(session, game, "gm_replace", detail)
    return Done("gm_replace", {**detail, "invite_token": invite, "invite_url": takeover_url(game_id, invite)})


def remove(session: Session, game_id: str, token: str | None, seat_name: Any, units: Any = "hold") -> Done:
    if units not in ("hold", "bot"):
        raise Invalid(f"units: 'hold' or 'bot', got {units!r}", "units")
    with _acting(session, game_id, token) as game:
        seat = _seat(game, seat_name)
        revoke_player(seat)
        tell_former_player(session, game, seat, "removed")
        seat.email = None  # no more game mail, whose tokens would let them act again
        rnd = open_round(session, game)
        if units == "bot":
            hand_to_bot(session, game, rnd, seat, actor="gm")
        else:
            seat_schedule(session, seat).controller = "removed"
        detail = {"seat": seat.name, "units": units}
        log_action(session, game.id, "gm", "gm_remove", detail)
        broadcast(session, game, "gm_remove", detail)
        if rnd is not None:
            close_early_if_done(session, game, rnd)
    return Done("gm_remove", detail)


def end_draw(session: Session, game_id: str, token: str | None) -> Done:
    with _acting(session, game_id, token) as game:
        outcome = {"winners": [], "draw": True, "reason": "ended as a draw by the game master",
                   "ended_by": "gm"}
        game.status = "finished"
        game.outcome = outcome
        detail = {"round": game.current_round, "outcome": outcome}
        log_action(session, game.id, "gm", "gm_end_draw", detail)
        session.add(RatedGame(game_id=game.id, finished_at=now(), status="pending"))
        rate_after_commit(session)
        for seat in game.seats:  # the game-over mail is this action's news
            enqueue(session, "game_over", {"outcome": outcome}, game=game, seat=seat)
        notify(session, game.id, "game_over", {"outcome": outcome})
    return Done("gm_end_draw", detail)


def set_policy(session: Session, game_id: str, token: str | None, data: Any) -> Done:
    """Validate and store the deadline policy; it applies to rounds opened from now on."""
    canonical = checked_policy(data)
    with session.begin():
        game = gm_game(session, game_id, token)
        if game.status == "finished":
            raise Conflict("the game is finished", "game")
        if game.deadline_policy == canonical:  # saved again as it stands: no news, no log entry
            return Done("gm_set_policy", {"policy": canonical, "changed": False})
        if is_v3(game):
            _policy_terms(game, canonical)
        game.deadline_policy = canonical
        log_action(session, game.id, "gm", "gm_set_policy", {"policy": canonical})
        broadcast(session, game, "gm_set_policy", {"policy": canonical})
    return Done("gm_set_policy", {"policy": canonical, "changed": True})


def _policy_terms(game: Game, policy: Any) -> None:
    """v3: the missed-turn policy is part of the terms each player holds the digest of from
    their join on, so it changes with them before anyone joined and never after."""
    terms, wanted = game_terms(game), missed_turns_terms(policy)
    if wanted == terms["missed_turns"]:
        return
    if any(s.joined_at is not None for s in game.seats):
        raise Conflict("missed_turns: the missed-turn policy is part of the game's terms, which every "
                       "player holds from joining on; it cannot change once a seat has joined",
                       "deadline_policy.missed_turns")
    game.options = {**game.options, TERMS_OPTION: {**terms, "missed_turns": wanted}}


MAX_ANNOUNCEMENT = 2000


def announce(session: Session, game_id: str, token: str | None, text: Any) -> Done:
    """A message from the GM to every player, on the game's pages and by mail."""
    if not isinstance(text, str) or not text.strip():
        raise Invalid("text: write the announcement", "text")
    text = text.strip()
    if len(text) > MAX_ANNOUNCEMENT:
        raise Invalid(f"text: at most {MAX_ANNOUNCEMENT} characters, got {len(text)}", "text")
    if any(ord(c) < 32 and c not in "\n\t" for c in text):
        raise Invalid("text: control characters are not allowed", "text")
    with session.begin():
        game = gm_game(session, game_id, token)
        if game.status == "finished":
            raise Conflict("the game is finished", "game")
        detail = {"text": text}
        log_action(session, game.id, "gm", "gm_announce", detail)
        broadcast(session, game, "gm_announce", detail)
    return Done("gm_announce", detail)
