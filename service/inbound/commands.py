"""What an identified player's mail does: orders, or one command of the registry.

`COMMANDS` is the one place a mail command is declared: its grammar (the line it stands
on, and where in the mail), what it does and its rows in the HELP mail (which is
rendered from the registry). `read_reply` reads a mail's text by it:
- a subject that is only a command's word (`in_subject`: mailto links such as
  List-Unsubscribe set the subject) is that command;
- a line `READY` or `NOT READY` above any MSG line says whether the orders are final
  (`Reply.ready`): it is taken out of the orders, and alone it is the mail's command;
- else the first line the player wrote (a `# comment` left out) is a command when it
  reads as one by the command's grammar;
- else a line `MSG <seat|all|gm>` makes the lines below it a message at the table
  (the lines above it stay orders; a reply to a message mail answers it);
- else the text is an order text, submitted to the open round through
  service.submit.submit exactly as the web form's text, its errors sent back line by line.

Orders and CLEAR count for the round the mail answers (`bound`: the round of the game
mail it replies to, or the one open when it arrived), never for a later one: a mail for a
round that has closed is answered with that and changes nothing.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from sqlalchemy import select
from sqlalchemy.orm import Session

from service import absence, games, messages, standing, submit, urls
from service.errors import Invalid, OrdersRefused, ServiceError
from service.inbound.reply_text import strip_subject, written
from service.inbound.withdraw import withdraw
from service.mail.outbox import enqueue, wanted
from service.models import Game, Round, Seat
from service.seats import claim_open_seat, seat_settings, update_seat_settings
from service.timekeeping.wording import deadline_text
from service.zones import address_zone, is_zone


@dataclass(frozen=True)
class Reply:
    command: str  # a name of COMMANDS, "orders", or "empty" (nothing readable)
    text: str  # the order text (for "orders"), else ""
    tokens: list[str] = field(default_factory=list)
    # TOKEN lines of the quoted mail: a last resort when a mail system dropped the
    # plus-part of the reply address (whoever holds the mail holds its token anyway).
    quoted_tokens: list[str] = field(default_factory=list)
    args: tuple[str, ...] = ()  # the words after the command on its line
    # A `MSG <to>` line: (to, the text below it) for the table; any orders stay in `text`.
    message: tuple[str, str] | None = None
    ready: bool | None = None  # a READY (True) or NOT READY (False) line; None: neither


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
        closed = f"round {number} closed at {rnd.resolved_at:%a %d %b %Y %H:%M} UTC"
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
                                                  "at": accepted.at, "ready": accepted.player_ready,
                                                  "sent": text}))
        finish(within, done)
        done.recorded = True

    try:
        submit.submit(session, seat.game_id, None, number, text, "mail", seat_id=seat.id, then=stored,
                      ready=ready)
    except OrdersRefused as exc:
        return Done(f"orders refused: {exc.message}",
                    [("confirmation", {"round": number, "errors": command_hints(exc.errors), "text": text})])
    except ServiceError as exc:
        return Done(f"orders not taken: {exc.message}", [("status", {"message": exc.message})])
    return done


def command_hints(errors: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The refusals, with "did you mean the command STATUS?" beside a refused line of one
    or two words that is nearly a mail command's name (a command misspelt is read as orders)."""
    names = [*COMMANDS, "not ready"]
    out = []
    for e in errors:
        words = str(e.get("text", "")).split("#", 1)[0].split()
        close = (difflib.get_close_matches(" ".join(words).lower(), names, n=1, cutoff=0.7)
                 if len(words) in (1, 2) else [])
        if close:
            e = {**e, "message": f"{e.get('message', '')}; did you mean the command {close[0].upper()}? "
                                 "A command stands alone on the first line of a mail"}
        out.append(e)
    return out


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
        joined = games.join(session, seat.game_id, None, seat_id=seat.id, join_words=entropy or "")
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


def _on_off(args: list[str], word: str) -> dict[str, Any]:
    if len(args) == 1 and args[0].lower() in ("on", "off"):
        return {"wait": args[0].lower() == "on"}
    raise Invalid(f"WAIT: write WAIT ON or WAIT OFF, got {word!r}", "wait")


def _lead(args: list[str], word: str) -> dict[str, Any]:
    if len(args) == 1:
        return {"reminder_lead": args[0]}
    raise Invalid(f"REMIND: write REMIND and one ISO 8601 duration like PT6H, got {word!r}", "reminder_lead")


def _zone(args: list[str], word: str) -> dict[str, Any]:
    if len(args) == 1 and args[0].lower() == "clear":
        return {"zone": ""}
    if len(args) == 1 and is_zone(args[0]):
        return {"zone": args[0]}
    raise Invalid(f"the line 'ZONE {word}' names no time zone: write ZONE and one IANA name like "
                  "Europe/Berlin, America/New_York or UTC (ZONE CLEAR for none); nothing was changed", "zone")


def _away(call: Call) -> Done:
    """AWAY FIRST LAST (or one day) for every game of the seat's address (service.absence);
    AWAY CLEAR takes back what has not begun. The answer shows this seat's settings."""
    args = [w for w in call.reply.args if w.lower() != "to"]
    try:
        if not call.seat.email:
            raise Invalid("AWAY: the seat has no mail address to declare days away for", "absences")
        if len(args) == 1 and args[0].lower() == "clear":
            absence.clear(call.session, call.seat.email)
        elif len(args) in (1, 2):
            absence.declare(call.session, call.seat.id, call.seat.email, args[0], args[-1])
        else:
            raise Invalid(f"AWAY: write AWAY YYYY-MM-DD YYYY-MM-DD or AWAY CLEAR, got "
                          f"{' '.join(call.reply.args)!r}", "absences")
    except ServiceError as exc:
        message = f"AWAY refused: {exc.message}"
        return Done(message, [("status", {"message": message})])
    now_set = settings_text(seat_settings(call.session, call.seat.id))
    return Done("away set", [("status", {"message": now_set})])


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


def _settings(call: Call, change: Callable[[list[str], str], dict[str, Any]]) -> Done:
    """A setting command through the settings API's own checks and messages (Invalid naming
    the bad word); the answer shows what is now set."""
    name = call.reply.command.upper()
    try:
        current = update_seat_settings(call.session, call.seat.id,
                                       change(list(call.reply.args), " ".join(call.reply.args)))
    except ServiceError as exc:
        message = f"{name} refused: {exc.message}"
        return Done(message, [("status", {"message": message})])
    return Done(f"{call.reply.command} set", [("status", {"message": settings_text(current)})])


def _standing(call: Call) -> Done:
    """STANDING UNIT WORD sets a unit's standing order (WORD `none` clears it); STANDING
    alone lists them. The answer shows what now stands and the words the rules offer."""
    args = list(call.reply.args)
    try:
        with call.session.begin():
            seat = call.session.get(Seat, call.seat.id)
            if seat is None:
                raise Invalid("the seat is gone", "seat")
            if len(args) == 2:
                now_standing = standing.set_standing(call.session, seat, args[0], args[1])
            elif not args:
                now_standing = standing.standing_of(call.session, seat)
            else:
                raise Invalid("STANDING: write STANDING UNIT WORD (e.g. STANDING A1 hold, or "
                              f"STANDING A1 none), got {' '.join(args)!r}", "standing")
            kinds = standing.kinds_of(seat.game)
    except ServiceError as exc:
        message = f"STANDING refused: {exc.message}. Nothing was changed."
        return Done(message, [("status", {"message": message})])
    lines = [f"  {unit} {kind}: {kinds.get(kind, '')}" for unit, kind in sorted(now_standing.items())]
    message = "\n".join(
        ["Your standing orders (used in any round you send no orders by its close):",
         *(lines or ["  none"]),
         "The words here: " + "; ".join(f"{k} ({w})" for k, w in kinds.items())
         + "; none (clears a unit's)."])
    return Done("standing orders " + ("set" if args else "listed"), [("status", {"message": message})])


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


@dataclass(frozen=True)
class Call:
    """One mail's command for an identified seat; bound: the round the mail answers (None:
    the open one)."""

    session: Session
    seat: Seat
    reply: Reply
    bound: int | None
    finish: Finish


@dataclass(frozen=True)
class MailCommand:
    """A mail command: its name, its grammar, what it does, and its rows in the HELP mail."""

    name: str
    # Its whole line (any case, a `# comment` left out); the words of its groups are its arguments.
    grammar: str
    run: Callable[[Call], Done]
    # (what to write, what it does): `code` is set apart, [words] links the mail settings page.
    help: tuple[tuple[str, str], ...]
    in_subject: bool = False  # a subject that is only the command is the command
    # "first": the first line the player wrote; "anywhere": a line anywhere, the lines below
    # it are its text and those above stay orders (MSG); "beside": a line of its own above
    # any MSG line, taken out of the orders it goes with (READY).
    place: Literal["first", "anywhere", "beside"] = "first"

    def read(self, line: str) -> tuple[str, ...] | None:
        """Its arguments when the line is this command, else None."""
        found = re.fullmatch(self.grammar, line.split("#", 1)[0].strip(), re.IGNORECASE)
        return None if found is None else tuple(w for g in found.groups() if g for w in g.split())


def _msg(call: Call) -> Done:
    to, text = call.reply.message or ("", "")
    said = _message(call.session, call.seat, to, text, alone=True)
    if call.reply.ready is not None:
        choice = _ready(call.session, call.seat, call.reply.ready)
        said.detail, said.answers = f"{said.detail}; {choice.detail}", said.answers + choice.answers
    return said


COMMANDS: dict[str, MailCommand] = {c.name: c for c in (
    MailCommand("status", r"status", lambda c: Done("status sent", [("status", {})]),
                (("STATUS", "your current orders and who is still to move"),), in_subject=True),
    MailCommand("clear", r"clear", lambda c: _clear(c.session, c.seat, c.bound, c.finish),
                (("CLEAR", "withdraw your orders for the open round"),), in_subject=True),
    MailCommand("help", r"help", lambda c: Done("help sent", [("help", {})]), (("HELP", "this mail"),),
                in_subject=True),
    # JOIN [WORDS]: the joiner's own entropy, any words (v3) or hex of 16 to 64 bytes, else
    # the server's, fixed by the commitment.
    MailCommand("join", r"join(?:\s+(.+))?",
                lambda c: _join(c.session, c.seat, " ".join(c.reply.args) if c.reply.args else None),
                (("JOIN", "take your seat (answering an invitation)"),), in_subject=True),
    MailCommand("unsubscribe", r"unsubscribe", lambda c: _unsubscribe(c.session, c.seat),
                (("UNSUBSCRIBE", "no more mail from this game ([change it])"),), in_subject=True),
    # Whether the orders are final: beside orders it goes with them to submit; alone it
    # sets the same choice as WAIT OFF / WAIT ON.
    MailCommand("ready", r"(not\s+)?ready\s*[.!]?",
                lambda c: _ready(c.session, c.seat, c.reply.ready is not False), (
        ("READY", "your orders are final: the round closes once everyone is ready "
                  "(also as a line of its own beside your orders)"),
        ("NOT READY", "keep the round open for you until its deadline (beside orders too)")), place="beside"),
    # The settings: through service.seats.update_seat_settings, the settings API's own
    # checks and messages; the answer shows what is now set.
    MailCommand("wait", r"wait(?:\s+(.*))?", lambda c: _settings(c, _on_off), (
        ("WAIT ON", "the same as `NOT READY`; `WAIT OFF` the same as `READY`"),)),
    MailCommand("away", r"away(?:\s+(.*))?", _away, (
        ("AWAY 2026-12-24 2026-12-27",
         "declare days away in all your games: their players are told, and deadlines inside them move "
         "where a game allows it (`AWAY CLEAR`: take back those not yet begun)"),)),
    MailCommand("remind", r"remind(?:\s+(.*))?", lambda c: _settings(c, _lead), (
        ("REMIND PT6H", "be reminded that long before the deadline (`REMIND PT0S`: never)"),)),
    MailCommand("zone", r"zone(?:\s+(.*))?", lambda c: _settings(c, _zone), (
        ("ZONE Europe/Berlin", "the time zone your mails give times in, UTC beside (for all your games; "
                               "`ZONE CLEAR`: UTC and the game's zone)"),)),
    MailCommand("standing", r"standing(?:\s+(.*))?", _standing, (
        ("STANDING A1 hold", "a standing order for A1, used whenever you send no orders for a round "
                             "(`hold`, `attack`, `shoot` where the rules have it; "
                             "`STANDING A1 none` clears it; `STANDING` lists yours)"),)),
    MailCommand("msg", r"msg\s+(\S+)", _msg, (
        ("MSG bob", "the lines below it are a message to bob (`MSG all`: everyone, `MSG gm`: the GM)"),),
        place="anywhere"),
)}
_ANYWHERE = [c for c in COMMANDS.values() if c.place == "anywhere"]
_BESIDE = [c for c in COMMANDS.values() if c.place == "beside"]
_FIRST = [c for c in COMMANDS.values() if c.place == "first"]
_MARKS = re.compile(r"(`[^`]+`|\[[^\]]+\])")


def help_rows(preferences_url: str) -> list[dict[str, Any]]:
    """The HELP mail's rows, in the registry's order: each with its text line, aligned (a
    long command on a line of its own), and its parts for the HTML cells: ("code", words),
    ("link", words) or ("text", words)."""
    rows = []
    for command in COMMANDS.values():
        for write, does in command.help:
            parts = [("code", s[1:-1]) if s.startswith("`") else ("link", s[1:-1]) if s.startswith("[")
                     else ("text", s) for s in _MARKS.split(does) if s]
            text = "".join(f"{s} at {preferences_url}" if kind == "link" else s for kind, s in parts)
            first = f"  {write:<13}" if len(write) < 13 else f"  {write}\n" + " " * 15
            rows.append({"text": first + text, "write": write, "parts": parts})
    return rows


def _first(lines: list[str], commands: list[MailCommand]) -> tuple[int, MailCommand, tuple[str, ...]] | None:
    """The first of the lines that is one of the commands: (where, which, its arguments)."""
    for at, line in enumerate(lines):
        for command in commands:
            args = command.read(line)
            if args is not None:
                return at, command, args
    return None


def read_reply(text: str, subject: str = "") -> Reply:
    """Orders, a command, or nothing; TOKEN lines are returned apart from either."""
    kept, tokens, quoted = written(text)
    word = strip_subject(subject).lower()
    if word in COMMANDS and COMMANDS[word].in_subject:
        return Reply(word, "", tokens, quoted)
    # READY / NOT READY lines above any MSG line: taken out, the last one counts.
    anywhere = _first(kept, _ANYWHERE)
    end = anywhere[0] if anywhere else len(kept)
    ready: bool | None = None
    beside: list[int] = []
    for at, line in enumerate(kept[:end]):
        said = _first([line], _BESIDE)
        if said is not None:
            beside.append(at)
            ready = not said[2]
    kept = [line for at, line in enumerate(kept) if at not in beside]
    meaningful = [x for x in (line.split("#", 1)[0].strip() for line in kept) if x]
    if not meaningful:
        return Reply("empty" if ready is None else "ready", "", tokens, quoted, ready=ready)
    first = _first(meaningful[:1], _FIRST)
    if first is not None:
        return Reply(first[1].name, "", tokens, quoted, first[2], ready=ready)
    anywhere = _first(kept, _ANYWHERE)
    if anywhere is not None:  # MSG <to>: the lines below are the message, those above orders
        at, command, args = anywhere
        orders = "\n".join(kept[:at]).strip("\n")
        message = (args[0], "\n".join(kept[at + 1:]).strip("\n"))
        return Reply("orders" if orders.strip() else command.name, orders, tokens, quoted,
                     message=message, ready=ready)
    return Reply("orders", "\n".join(kept).strip("\n"), tokens, quoted, ready=ready)


def perform(session: Session, seat: Seat, reply: Reply, bound: int | None, finish: Finish) -> Done:
    """Carry out one mail's orders or command for an identified seat; bound: the round
    the mail answers (None: the open one)."""
    if reply.command == "orders":
        if reply.message is None:
            return _orders(session, seat, reply.text, bound, finish, reply.ready)
        said = _message(session, seat, *reply.message, alone=False)  # orders above a MSG line
        done = _orders(session, seat, reply.text, bound, finish, reply.ready)
        done.detail = f"{said.detail}; {done.detail}"
        return done
    command = COMMANDS.get(reply.command)
    if command is None:
        note = "Your mail had no orders or command in it that dicepost could read."
        return Done("no orders or command found; help sent", [("help", {"note": note})])
    return command.run(Call(session, seat, reply, bound, finish))
