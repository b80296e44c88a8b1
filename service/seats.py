"""What a player sets for themselves (wait flag, reminder lead, absences, mail preference)
and how a replacement takes over an open seat.

Settings: `wait` true keeps the round open until its deadline even when everyone is in;
`reminder_lead` an ISO 8601 duration (PT0S: no reminders); `absences` a list of
{"from", "to"} dates; `mail_pref` the seat's mail preference ("all", "results" or "none",
checked by `mail_pref_choice` here, for the mail preferences page, the dashboard and the
settings API and form alike); `email` the seat's address: giving one (a new one, or the same
once its mailbox works again) clears its bounce record, so mail goes to it again; an
address not yet confirmed gets a confirmation link (service.address_confirm), and its time
zone waits for it. A change of absences
re-stretches the open round's deadline when it now falls inside one (never shortens it;
the game's absence limit applies).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy.orm import Session

from engine.contract import InvariantError
from service import address_confirm
from service.absence import check_budget, set_seat_absences
from service.audit import log_action
from service.clock import now
from service.errors import BadRequest, Conflict, Invalid, NotFound
from service.games import seat_by_invite, seat_by_token
from service.inputs import normal_address
from service.mail.outbox import clear_failing, failing
from service.messages import newest_id
from service.models import Game, Seat, SeatSchedule
from service.schedule.deadlines import (
    AbsenceError,
    parse_absences,
)
from service.schedule.durations import format_duration
from service.schedule.reminders import parse_lead
from service.timekeeping.open_close import close_early_if_done
from service.timekeeping.state import (
    absences_of,
    open_round,
    reminder_lead,
    seat_schedule,
)
from service.tokens import new_token, token_hash
from service.zones import seat_zone, set_address_zone, zone_choice

SETTINGS = ("wait", "reminder_lead", "absences", "mail_pref", "message_pref", "zone", "email", "discord_id")


PREFS = {"all": "every mail",
         "results": "results only (results, game over, invitations, news from the GM; "
                    "messages as set for them)",
         "none": "no mail"}


# How table talk reaches a seat by mail, within its mail preference ("no mail" stops all).
MESSAGE_PREFS = {"each": "each message as it is sent",
                 "digest": "a digest in each results mail",
                 "none": "not by mail (read them on the game's pages)"}


def _choice(value: Any, field: str, choices: dict[str, str]) -> str:
    if not isinstance(value, str) or value not in choices:
        raise BadRequest(f"{field}: choose one of: " + ", ".join(choices), field)
    return value


def mail_pref_choice(value: Any) -> str:
    """The preference named by `value`, or BadRequest naming the field mail_pref."""
    return _choice(value, "mail_pref", PREFS)


def message_pref_choice(value: Any) -> str:
    """The message preference named by `value`, or BadRequest naming the field message_pref."""
    return _choice(value, "message_pref", MESSAGE_PREFS)


def discord_id_choice(value: Any) -> str | None:
    """A Discord user id (17 to 20 digits: Discord's Copy User ID) for @mentions when the
    game's Discord webhook says it is your move; None or "" to have none."""
    if value is None or value == "":
        return None
    text = value.strip() if isinstance(value, str) else ""
    if not (text.isascii() and text.isdigit() and 17 <= len(text) <= 20):
        raise Invalid("discord_id: a Discord user id is 17 to 20 digits (Discord: Copy User ID); "
                      "empty for none", "discord_id")
    return text


def set_mail_pref(seat: Seat, value: Any) -> str:
    """Check and store the seat's preference (the caller owns the transaction)."""
    seat.mail_pref = mail_pref_choice(value)
    return seat.mail_pref


def settings_json(row: SeatSchedule) -> dict[str, Any]:
    return {"wait": row.wait, "reminder_lead": format_duration(reminder_lead(row)),
            "absences": [a.to_json() for a in absences_of(row)], "missed_in_a_row": row.misses,
            "played_by": row.controller}


def mail_json(session: Session, seat: Seat) -> dict[str, Any]:
    """The seat's mail settings: its address and, when mail to it bounces, since when and
    why; how messages reach it; its player's time zone (None: UTC and the game's)."""
    dead = failing(session, seat.email)
    zone = seat_zone(session, seat)
    return {"email": seat.email, "mail_failing": None if dead is None else
            {"since": dead.since.isoformat(), "reason": dead.reason},
            "email_confirmed": address_confirm.is_confirmed(session, seat.email),
            "message_pref": seat.message_pref, "zone": zone.key if zone else None,
            "discord_id": seat.discord_id}


def get_settings(session: Session, game_id: str, token: str | None) -> dict[str, Any]:
    with session.begin():
        seat = seat_by_token(session, game_id, token)
        return {"seat": seat.name, **settings_json(seat_schedule(session, seat, create=False)),
                "mail_pref": seat.mail_pref, **mail_json(session, seat)}


def seat_settings(session: Session, seat_id: int) -> dict[str, Any]:
    """get_settings for a seat already identified (by a mail's signed token)."""
    with session.begin():
        seat = _seat_by_id(session, seat_id)
        return {"seat": seat.name, **settings_json(seat_schedule(session, seat, create=False)),
                "mail_pref": seat.mail_pref, **mail_json(session, seat)}


def update_settings(session: Session, game_id: str, token: str | None,
                    data: dict[str, Any]) -> dict[str, Any]:
    """Change any of wait / reminder_lead / absences / mail_pref; all are checked before anything
    is stored."""
    return _update(session, data, lambda: seat_by_token(session, game_id, token))


def update_seat_settings(session: Session, seat_id: int, data: dict[str, Any]) -> dict[str, Any]:
    """update_settings for a seat already identified (by a mail's signed token)."""
    return _update(session, data, lambda: _seat_by_id(session, seat_id))


def _seat_by_id(session: Session, seat_id: int) -> Seat:
    seat = session.get(Seat, seat_id)
    if seat is None:
        raise NotFound(f"no seat {seat_id}")
    return seat


def _update(session: Session, data: dict[str, Any], find_seat: Callable[[], Seat]) -> dict[str, Any]:
    unknown = sorted(set(data) - set(SETTINGS))
    if unknown:
        raise Invalid(f"{unknown[0]}: unknown setting (settings: {', '.join(SETTINGS)})", unknown[0])
    if "wait" in data and not isinstance(data["wait"], bool):
        raise Invalid("wait: true or false", "wait")
    try:
        lead = parse_lead(data["reminder_lead"]) if "reminder_lead" in data else None
        absences = parse_absences(data["absences"]) if "absences" in data else None
    except AbsenceError as exc:
        raise Invalid(str(exc), exc.field) from None
    except ValueError as exc:
        raise Invalid(str(exc), str(exc).split(":", 1)[0]) from None
    try:
        pref = mail_pref_choice(data["mail_pref"]) if "mail_pref" in data else None
        message_pref = message_pref_choice(data["message_pref"]) if "message_pref" in data else None
    except BadRequest as exc:  # 422 like every other refused setting
        raise Invalid(exc.message, exc.field or "mail_pref") from None
    zone = zone_choice(data["zone"]) if "zone" in data else None
    email = normal_address(data["email"], "email") if "email" in data else None
    discord_id = discord_id_choice(data["discord_id"]) if "discord_id" in data else None
    with session.begin():
        seat = find_seat()
        game = seat.game
        rnd = open_round(session, game, lock=True) if game.status == "active" else None  # round before seats
        row = seat_schedule(session, seat)
        if "wait" in data:
            row.wait = data["wait"]
        if lead is not None:
            row.reminder_lead_seconds = int(lead.total_seconds())
        if absences is not None:
            check_budget(session, seat.email, seat, absences)
            set_seat_absences(session, game, rnd, seat, absences)
        if pref is not None:
            set_mail_pref(seat, pref)
        if message_pref is not None:
            seat.message_pref = message_pref
        if email is not None:
            address_confirm.ask(session, [(email, "email")])  # again for a new link, within the limit
            seat.email = email
            clear_failing(session, email)
        if "discord_id" in data:
            seat.discord_id = discord_id
        if "zone" in data:  # the player's, for every seat with this address
            _set_zone(session, seat, zone)
        if rnd is not None and data.get("wait") is False:
            close_early_if_done(session, game, rnd)
        out = {"seat": seat.name, **settings_json(row), "mail_pref": seat.mail_pref,
               **mail_json(session, seat)}
    return out


def _set_zone(session: Session, seat: Seat, zone: str | None) -> None:
    """The player's zone, for every seat with this address: set only by its owner."""
    if not seat.email:
        raise Invalid("zone: the seat has no mail address to keep a time zone for; give one first", "zone")
    kept = seat_zone(session, seat)
    if zone != (kept.key if kept else None) and not address_confirm.is_confirmed(session, seat.email):
        raise Conflict(f"zone: {seat.email} has not confirmed yet (a link went to it): the time zone "
                       f"of an address is set once {seat.email} confirms", "zone")
    set_address_zone(session, seat.email, zone)


def claim_seat(session: Session, game_id: str, invite_token: Any) -> tuple[str, str]:
    """A replacement takes an open seat with its invitation: (seat name, new player token)."""
    with session.begin():
        game, seat = seat_by_invite(session, game_id, invite_token)
        return take_seat(session, game, seat)


def claim_open_seat(session: Session, seat_id: int) -> tuple[str, str] | None:
    """A replacement's JOIN by mail (the mail's token already named the seat): (seat name,
    new player token), or None when the seat is not open for a replacement."""
    with session.begin():
        seat = session.get(Seat, seat_id)
        if seat is None or seat_schedule(session, seat, create=False).controller != "open":
            return None
        game = session.get(Game, seat.game_id, with_for_update=True)
        if game is None:
            raise InvariantError(f"seat {seat.id} has no game")
        return take_seat(session, game, seat)


def take_seat(session: Session, game: Game, seat: Seat) -> tuple[str, str]:
    """A newcomer takes the open seat (inside the caller's transaction): (name, player token)."""
    row = seat_schedule(session, seat)
    if row.controller != "open" or game.status != "active":
        raise Conflict(f"seat {seat.name} is not open for a replacement", "invite_token")
    player_token = new_token()
    seat.player_token_hash = token_hash(player_token)
    seat.invite_token_hash = token_hash(new_token())  # the invitation is used up
    row.controller, row.misses, row.wait = "human", 0, False
    seat.private_from = newest_id(session, game.id)  # the former player's private talk stays theirs
    log_action(session, game.id, seat.name, "seat_claimed",
               {"seat": seat.name, "at": now().isoformat(), "from_round": game.current_round})
    return seat.name, player_token
