"""What an identified player's mail does: orders, or one of the commands.

    orders       submitted to the open round through service.submit.submit, exactly as
                 the web form's text; errors come back line by line
    STATUS       the current orders and who is still to move
    CLEAR        withdraw the orders for the open round
    HELP         how to play by mail (also the answer to a mail with nothing in it)
    JOIN [HEX]   take the seat an invitation offered (default force; HEX is your own entropy,
                 16 to 64 bytes, else the server's, fixed by the commitment)
    UNSUBSCRIBE  no more mail of this game (mail preference "none")
    READY | NOT READY  whether the orders are final: a line beside orders goes with them
                 to submit; alone it sets the same choice, as WAIT OFF | WAIT ON do
    WAIT ON|OFF  the wait flag (not ready) } through service.seats.update_seat_settings,
    AWAY <from> <to> | AWAY CLEAR         } the settings API's own checks and messages;
    REMIND <duration>  the reminder lead  } the answer shows what is now set
    ZONE <zone> | ZONE CLEAR  the player's time zone for mail (every seat of the address) }
    MSG <seat|all|gm>  the lines below are a message at the table (service.messages);
                 orders above the line still count. A reply to a message mail answers it.

Orders and CLEAR count for the round the mail answers (`bound`: the round of the game
mail it replies to, or the one open when it arrived), never for a later one: a mail for a
round that has closed is answered with that and changes nothing.

The service functions own their transactions, so `perform` runs outside any. `finish`
writes the mail's answers and outcome: for orders and CLEAR inside the transaction that
stores them (a crash cannot leave the orders stored and the mail unprocessed, to be
replayed), for the rest the caller runs it afterwards (`Done.recorded` says which).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from service import games, messages, submit, urls
from service.errors import Invalid, OrdersRefused, ServiceError
from service.mail.context import when
from service.mail.queue import enqueue, wanted
from service.mail.reply_text import Reply
from service.mail.withdraw import withdraw
from service.models import Game, Round, Seat
from service.seats import claim_open_seat, seat_settings, update_seat_settings
from service.timekeeping.wording import deadline_text
from service.zones import address_zone, is_zone


@dataclass
class Done:
    detail: str
    answers: list[tuple[str, dict[str, Any]]] = field(default_factory=list)  # (kind, payload)
    recorded: bool = False  # finish already ran, in the transaction of the change


Finish = Callable[[Session, Done], None]


def _closed(session: Session, seat: Seat, bound: int | None) -> tuple[int, Done | None]:
    """The round the mail's orders are for, and the answer instead when it has closed (its
    time in the player's zone)."""
    game_id = seat.game_id
    with session.begin():
        game = session.get(Game, game_id)
        if game is None:
            return 0, None
        number = game.current_round if bound is None else bound
        if bound is None or (number == game.current_round and game.status == "active"):
            return number, None
        rnd = session.scalars(select(Round).where(Round.game_id == game_id, Round.number == number)).first()
        if rnd is None or rnd.resolved_at is None:
            return number, None  # not a round that has been: submit's own check answers
        closed = f"round {number} closed at {when(rnd.resolved_at)}"
        now = (f"round {game.current_round} is open: resend your orders for it"
               if game.status == "active" else "the game is over")
        at = deadline_text(game, rnd.resolved_at, address_zone(session, seat.email))
        message = f"Your mail answered round {number}, which closed at {at}; {now}."
        return number, Done(f"{closed}; {now}", [("status", {"message": message})])


def _orders(session: Session, seat: Seat, text: str, bound: int | None, finish: Finish,
            ready: bool | None = None) -> Done:
    number, closed = _closed(session, seat, bound)
    if closed is not None:
        return closed
    done = Done("")

    def stored(within: Session, accepted: submit.Accepted) -> None:
        done.detail = f"orders stored for round {accepted.round} as version {accepted.version}"
        if not wanted("confirmation", seat.mail_pref):
            # The service's own confirmation follows the preference; an answer to mail does not.
            done.answers.append(("confirmation", {"round": accepted.round, "version": accepted.version,
                                                  "accepted": "\n".join(accepted.lines) or "pass",
                                                  "source": "mail", "receipt": accepted.receipt,
                                                  "at": accepted.at, "ready": accepted.player_ready}))
        finish(within, done)
        done.recorded = True

    try:
        submit.submit(session, seat.game_id, None, number, text, "mail", seat_id=seat.id, then=stored,
                      ready=ready)
    except OrdersRefused as exc:
        return Done(f"orders refused: {exc.message}",
                    [("confirmation", {"round": number, "errors": exc.errors, "text": text})])
    except ServiceError as exc:
        return Done(f"orders not taken: {exc.message}", [("status", {"message": exc.message})])
    return done


def _clear(session: Session, seat: Seat, bound: int | None, finish: Finish) -> Done:
    number, closed = _closed(session, seat, bound)
    if closed is not None:
        return closed
    done = Done("")

    def withdrawn(within: Session, number: int, had: bool) -> None:
        message = (f"Your orders for round {number} are withdrawn." if had
                   else f"You had no orders for round {number}, so nothing was withdrawn.")
        done.detail, done.answers = message, [("status", {"message": message})]
        finish(within, done)
        done.recorded = True

    try:
        withdraw(session, seat.id, number if bound is not None else None, then=withdrawn)
    except ServiceError as exc:
        return Done(f"clear refused: {exc.message}", [("status", {"message": exc.message})])
    return done


def _join(session: Session, seat: Seat, entropy: str | None = None) -> Done:

    taken = claim_open_seat(session, seat.id)
    if taken is not None:
        page = urls.player_url(seat.game_id, taken[1])
        return Done(f"took over {taken[0]}", [("help", {
            "note": f"You now play {taken[0]}, its units as they stand. Your page on the web "
                    f"(keep it private): {page}"})])
    try:
        joined = games.join(session, seat.game_id, None, entropy=entropy, seat_id=seat.id)
    except ServiceError as exc:
        return Done(f"join refused: {exc.message}", [("status", {"message": exc.message})])
    page = urls.player_url(seat.game_id, joined.player_token)
    note = (f"You have taken the seat {joined.seat}. "
            + ("Everyone is in: the game has started. " if joined.started
               else "The game starts when every seat is filled. ")
            + f"Your page on the web (keep it private): {page}")
    return Done(f"joined as {joined.seat}", [("help", {"note": note})])


def _unsubscribe(session: Session, seat: Seat) -> Done:
    with session.begin():
        row = session.get(Seat, seat.id)
        if row is not None:
            row.mail_pref = "none"
    return Done("mail preference set to none")


def _ready(session: Session, seat: Seat, ready: bool) -> Done:
    """A READY / NOT READY mail without orders: the player's choice, as the wait flag."""
    try:
        update_seat_settings(session, seat.id, {"wait": not ready})
    except ServiceError as exc:
        message = f"{'READY' if ready else 'NOT READY'} refused: {exc.message}"
        return Done(message, [("status", {"message": message})])
    message = (READY_WORDS if ready else NOT_READY_WORDS)
    return Done("ready" if ready else "not ready", [("status", {"message": message})])


READY_WORDS = ("You are READY: your orders are final. The round closes as soon as every expected "
               "player has sent orders and is ready, or at its deadline.")
NOT_READY_WORDS = ("You are NOT READY: the round waits for you until its deadline, even when everyone "
                   "else is in. Reply READY when your orders are final.")


def _setting_change(session: Session, seat: Seat, reply: Reply) -> dict[str, Any]:
    """What a WAIT / AWAY / REMIND line asks of update_settings (Invalid naming the bad word)."""
    args = [w for w in reply.args if w.lower() != "to"] if reply.command == "away" else list(reply.args)
    word = " ".join(reply.args)
    if reply.command == "wait":
        if len(args) == 1 and args[0].lower() in ("on", "off"):
            return {"wait": args[0].lower() == "on"}
        raise Invalid(f"WAIT: write WAIT ON or WAIT OFF, got {word!r}", "wait")
    if reply.command == "remind":
        if len(args) == 1:
            return {"reminder_lead": args[0]}
        raise Invalid(f"REMIND: write REMIND and one ISO 8601 duration like PT6H, got {word!r}",
                      "reminder_lead")
    if reply.command == "zone":
        if len(args) == 1 and args[0].lower() == "clear":
            return {"zone": ""}
        if len(args) == 1 and is_zone(args[0]):
            return {"zone": args[0]}
        raise Invalid(f"the line 'ZONE {word}' names no time zone: write ZONE and one IANA name like "
                      "Europe/Berlin, America/New_York or UTC (ZONE CLEAR for none); nothing was changed",
                      "zone")
    if len(args) == 1 and args[0].lower() == "clear":
        return {"absences": []}
    if len(args) in (1, 2):
        absences = seat_settings(session, seat.id)["absences"]
        new = {"from": args[0], "to": args[-1]}
        return {"absences": absences + ([new] if new not in absences else [])}
    raise Invalid(f"AWAY: write AWAY YYYY-MM-DD YYYY-MM-DD or AWAY CLEAR, got {word!r}", "absences")


def settings_text(current: dict[str, Any]) -> str:
    lead = current["reminder_lead"]
    away = ", ".join(f"{a['from']} to {a['to']}" for a in current["absences"])
    return "\n".join([
        "Your settings now:",
        "  WAIT    " + ("ON: the round stays open until its deadline even when everyone is in (NOT READY)"
                        if current["wait"] else "OFF: the round closes as soon as everyone is in (READY)"),
        "  REMIND  " + (f"{lead} before the deadline" if lead != "PT0S" else "off (PT0S)"),
        "  AWAY    " + (away or "no absences declared"),
        "  ZONE    " + (f"{current['zone']}: your mails give times in it, UTC beside (in every game "
                        "you play with this address)" if current.get("zone")
                        else "none: your mails give times in UTC and the game's zone"),
    ])


def _settings(session: Session, seat: Seat, reply: Reply) -> Done:
    try:
        current = update_seat_settings(session, seat.id, _setting_change(session, seat, reply))
    except ServiceError as exc:
        message = f"{reply.command.upper()} refused: {exc.message}"
        return Done(message, [("status", {"message": message})])
    message = settings_text(current)
    return Done(f"{reply.command} set", [("status", {"message": message})])


def _message(session: Session, seat: Seat, to: str, text: str, alone: bool) -> Done:
    """A message at the table from a `MSG <to>` line or a reply to a message mail. Alone in
    its mail, the answer says what happened; beside orders, only a refusal is answered."""
    try:
        with session.begin():
            writer = session.get(Seat, seat.id, with_for_update=True)
            if writer is None:
                raise Invalid("the seat is gone", "seat")
            row = messages.post(session, writer.game, writer.name, to, text, "mail")
            said = {"all": "everyone", "gm": "the GM"}.get(row.recipient, row.recipient)
    except ServiceError as exc:
        note = f"MSG {to} refused: {exc.message}. Nothing was sent."
        if not alone:
            with session.begin():
                writer = session.get(Seat, seat.id)
                if writer is not None:
                    enqueue(session, "status", {"message": note}, game=writer.game, seat=writer, answer=True)
        return Done(note, [("status", {"message": note})])
    return Done(f"message to {said} sent", [("status", {"message": f"Your message to {said} is sent."})])


def perform(session: Session, seat: Seat, reply: Reply, bound: int | None, finish: Finish) -> Done:
    """Carry out one mail's orders or command for an identified seat; bound: the round
    the mail answers (None: the open one)."""
    if reply.message is not None:
        said = _message(session, seat, *reply.message, alone=reply.command == "msg")
        if reply.command == "msg":
            if reply.ready is not None:
                choice = _ready(session, seat, reply.ready)
                said.detail, said.answers = f"{said.detail}; {choice.detail}", said.answers + choice.answers
            return said
        done = _orders(session, seat, reply.text, bound, finish, reply.ready)
        done.detail = f"{said.detail}; {done.detail}"
        return done
    if reply.command == "orders":
        return _orders(session, seat, reply.text, bound, finish, reply.ready)
    if reply.command == "ready" and reply.ready is not None:
        return _ready(session, seat, reply.ready)
    if reply.command == "clear":
        return _clear(session, seat, bound, finish)
    if reply.command == "join":
        return _join(session, seat, reply.args[0] if reply.args else None)
    if reply.command == "unsubscribe":
        return _unsubscribe(session, seat)
    if reply.command in ("wait", "away", "remind", "zone"):
        return _settings(session, seat, reply)
    if reply.command == "status":
        return Done("status sent", [("status", {})])
    if reply.command == "help":
        return Done("help sent", [("help", {})])
    return Done("no orders or command found; help sent",
                [("help", {"note": "Your mail had no orders or command in it that dicepost could read."})])
