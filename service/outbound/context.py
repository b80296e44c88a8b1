"""What each kind of mail says, gathered from the database when the mail is composed.

Outbox payloads carry ids and the few facts that are not in the tables (a join link,
an accepted text); everything else (the grid, events, rolls, the revealed chain link)
is read from the step the mail is about, so a resend says exactly what the first
attempt said. Templates get plain values only: no model objects, no queries.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import BindParameter, and_, bindparam, exists, select
from sqlalchemy.orm import Session

from engine import Board, Order, find_ruleset
from engine.dice import canonical, chain_link_ok, step_key
from service import caches, clock, statecache, urls
from service.access import open_url
from service.catalog import glossary_used, rules_help
from service.db import table_of
from service.evidence import link_values, mail_evidence
from service.fairdice import game_profile
from service.follow import mail_context as follow_context
from service.gm.news import mail_context as news_context
from service.inbound.commands import help_rows
from service.mail.headers import plus_address
from service.mail.outbox import kind_of
from service.mail.settings import MailSettings
from service.mail.tokens import make_token
from service.memo import memo
from service.messages import digest, private_parties, private_words
from service.models import Game, Outbox, PlayerZone, Round, Seat, Step, Submission, TableMessage
from service.render.ascii_grid import ascii_board
from service.render.grid_legend import natural_key
from service.render.html_table_grid import html_board
from service.render.sentences import plain
from service.schedule.durations import DurationError, describe_duration, parse_duration
from service.signin import mail_context
from service.timekeeping.state import policy_of
from service.timekeeping.wording import deadline_text, time_text
from service.turn_summary import countdown, legal_of, order_outcomes, seat_turn, state_digest
from service.views import (
    board_at,
    board_of,
    game_record,
    latest_step,
    round_numbered,
    steps_to,
)
from service.zones import is_zone, seat_zone

EXAMPLES = 4  # example arguments shown per unit and verb before "and N more"


def lead_words(lead: object) -> str:
    """'PT12H' → '12 hours'; empty when there is no (readable) lead time."""
    try:
        return describe_duration(parse_duration(str(lead))) if lead else ""
    except DurationError:
        return ""


def verify_url(record_url: str, game: Game, seat: Seat | None, more: Mapping[str, str] | None = None) -> str:
    """The "check these dice" link: the verifier page, absolute, loading the record, with
    the commitment and the seat's entropy as they are now in its fragment (the page turns
    red if the record later differs from what this mail carried); `more`: what else the
    mail holds (v3: the terms T and the step hash of its step)."""
    held = {"commitment": game.commitment, "seat": seat.name if seat else None,
            "entropy": seat.entropy if seat else None, **(more or {})}
    if not game.public and seat is not None:
        # A private game's record answers only to its tokens: the link opens through the
        # seat's open link first, and the browser keeps the fragment across the redirect.
        return open_url(game, seat, "verify_page.verifier") + urls.held_fragment(held)
    return urls.verify_link(record_url, page=f"{urls.base_url()}/verify", held=held)


def seat_links(settings: MailSettings, seat: Seat) -> dict[str, str]:
    """The seat's reply token and address, and its preferences (unsubscribe) link."""
    salt = seat.reply_token_salt or ""
    reply = make_token(settings.secret_key, "reply", seat.id, salt)
    unsubscribe = make_token(settings.secret_key, "unsubscribe", seat.id, salt)
    return {
        "token": reply,
        "reply_address": plus_address(settings.reply_base, reply),
        "preferences_url": urls.absolute("mail.preferences", token=unsubscribe),
        "unsubscribe_url": urls.absolute("mail.unsubscribe", token=unsubscribe),
    }


def board_parts(board: Board | None) -> dict[str, Any]:
    if board is None:
        return {"grid_text": "", "grid_html": ""}
    return {"grid_text": ascii_board(board), "grid_html": html_board(board)}


def grids(game: Game, step: Step | None) -> dict[str, Any]:
    """board_parts of the step's state: the same in every player's mail of that step."""
    if step is None:
        return board_parts(None)
    return dict(statecache.cached_by("grids", (game.ruleset, game.revision, state_digest(step), ""),
                                     lambda: board_parts(board_of(game, step))))


def unit_lines(board: Board | None, player: str) -> list[str]:
    if board is None:
        return []
    out = []
    for p in sorted(board.pieces, key=lambda p: natural_key(p.label)):  # B2 before B10
        if p.side == player:
            health = f", health {p.health}/{p.max_health}" if p.health is not None and p.max_health else ""
            facing = f", facing {p.facing}" if p.facing else ""
            note = f" ({p.note})" if p.note else ""
            out.append(f"{p.label} on {p.square}{health}{facing}{note}")
    return out


def legal_summary(legal: Mapping[str, Sequence[Order]]) -> list[str]:
    """`A1: move b3, c4, d5 and 20 more; move e6, f6 (costs its attack this round); attack B1`:
    what each unit may be ordered, the orders that cost it more (`Order.cost`) apart, with
    what they cost."""
    out = []
    for unit, orders in sorted(legal.items(), key=lambda item: natural_key(item[0])):
        by_verb: dict[tuple[str, str], list[str]] = {}
        for order in orders:
            by_verb.setdefault((order.verb, order.cost), []).append(" ".join(order.args))
        parts = []
        for (verb, cost), args in by_verb.items():
            shown = [a for a in args[:EXAMPLES] if a]
            more = f" and {len(args) - EXAMPLES} more" if len(args) > EXAMPLES else ""
            costs = f" ({cost})" if cost else ""
            parts.append(f"{verb} {', '.join(shown)}{more}".strip() + costs)
        out.append(f"{unit}: " + "; ".join(parts) if parts else f"{unit}: nothing it can do")
    return out


# The order help of each ruleset object, made once (catalog.rules_help tries an example of
# every verb): keyed by the object's id and holding the object, so a ruleset registered
# later under the same name gets its own.
_order_help: dict[int, tuple[object, list[str]]] = {}


def order_help(game: Game) -> list[str]:
    """The ruleset's verbs as the rules page lists them (one source: catalog.rules_help)."""
    ruleset = find_ruleset(game.ruleset, game.revision)
    kept = _order_help.get(id(ruleset))
    if kept is None or kept[0] is not ruleset:
        kept = _order_help[id(ruleset)] = (ruleset, list(rules_help(game.ruleset, game.revision).order_lines))
    return kept[1]


def _round_status_query() -> Any:
    """Round `number` of game `game_id` with each seat's latest version in it (one row a seat
    that has sent any; one row of NULLs when none has) and the game's latest step (its t and
    state hash), in one statement built once (building it costs more than running it)."""
    rnd, sub, step = table_of(Round), table_of(Submission), table_of(Step)
    game_id: BindParameter[str] = bindparam("game_id")
    later = sub.alias("later")
    latest = and_(sub.c.round_id == rnd.c.id, ~exists().where(
        later.c.round_id == sub.c.round_id, later.c.seat_id == sub.c.seat_id,
        later.c.version > sub.c.version))
    head = select(step.c.t).where(step.c.game_id == game_id).order_by(step.c.t.desc()).limit(1)
    return (select(rnd.c.number, rnd.c.expected, rnd.c.closes_at,
                   sub.c.seat_id, sub.c.version, sub.c.accepted,
                   head.scalar_subquery().label("head_t"),
                   head.with_only_columns(step.c.state_hash).scalar_subquery().label("head_hash"))
            .select_from(rnd.outerjoin(sub, latest))
            .where(rnd.c.game_id == game_id, rnd.c.number == bindparam("number")))


_ROUND_STATUS = _round_status_query()


def round_status(session: Session, game: Game, seat: Seat, zone: ZoneInfo | None = None) -> dict[str, Any]:
    """The open round as a player sees it: who is still to move, their current orders;
    the deadline in the player's `zone` (service.zones) with UTC beside."""
    if game.status != "active" or game.current_round < 1:
        return {"open_round": None}
    rows = memo(session, ("round status", game.id, game.current_round), lambda: session.execute(
        _ROUND_STATUS, {"game_id": game.id, "number": game.current_round}).all())
    if not rows:
        return {"open_round": None}
    number, expected, closes_at, *_sub, head_t, head_hash = rows[0]
    names = {s.id: s.name for s in game.seats}
    # A latest version with an empty accepted text is a withdrawal (service.submissions.latest_of).
    subs = {r.seat_id: r for r in rows if r.seat_id is not None and r.accepted}
    done = {names[i] for i in subs}
    mine = subs.get(seat.id)
    moves = seat.name in expected
    return {
        "open_round": number,
        "closes": deadline_text(game, closes_at, zone) if closes_at else "",
        "expected": list(expected),
        "you_move": moves,
        "waiting_for": [n for n in expected if n not in done],
        "your_orders": (mine.accepted.splitlines() if mine else []),
        "your_version": mine.version if mine else 0,
        "legal": latest_legal(session, game, seat.name, (head_t, head_hash)) if moves else [],
    }


def latest_legal(session: Session, game: Game, player: str,
                 head: tuple[int | None, str | None] | None = None) -> list[str]:
    """legal_for the game's latest step, kept by its state hash (the SHA-256 of the state):
    a hit reads the step's number and hash (`head`, when the caller read them), not its
    state, events and rolls."""
    if head is None:
        head = session.execute(select(Step.t, Step.state_hash).where(Step.game_id == game.id)
                               .order_by(Step.t.desc()).limit(1)).first() or (None, None)
    t, state_hash = head
    if t is None:
        return []

    def summary() -> tuple[str, ...]:
        step = session.scalars(select(Step).where(Step.game_id == game.id, Step.t == t)).first()
        return tuple(legal_for(game, step, player))

    return list(statecache.cached_by("legal summary by hash",
                                     (game.ruleset, game.revision, state_hash, player), summary))


def legal_for(game: Game, step: Step | None, player: str) -> list[str]:
    """What a player's units may be ordered in the state after `step`, summarized."""
    if step is None:
        return []
    # The summary kept beside the orders (a mail per submission asks for the same state's).
    return list(statecache.cached_by("legal summary",
                                     (game.ruleset, game.revision, state_digest(step), player),
                                     lambda: tuple(legal_summary(legal_of(game, step, player)))))


def step_facts(game: Game, step: Step, previous: Step | None, round_number: int) -> dict[str, Any]:
    """What every player's results mail of a step says alike: the events, rolls, dice
    check, grids and every player's orders (service.outbound.compose renders its parts once)."""
    t = step.t
    s_prev = previous.key if previous else game.commitment
    profile = game_profile(game)
    return {
        "round": round_number,
        "step": t,
        "events": [plain(str(e.get("text", ""))) for e in step.events],
        "rolls": [dict(r) for r in step.rolls],
        "key": step.key,
        "previous_key": s_prev,
        "previous_name": f"S_{t - 1}",
        "chain_ok": chain_link_ok(bytes.fromhex(step.key), bytes.fromhex(s_prev), profile),
        "state_hash": step.state_hash,
        # Everything a player needs to recompute this step's dice from the mail alone.
        "profile": profile,
        "salt": game.salt or "",
        "inputs": step.inputs,
        "inputs_json": canonical(step.inputs).decode("utf-8"),
        "inputs_digest": step.inputs_digest,
        "step_key": step_key(bytes.fromhex(step.key), bytes.fromhex(game.salt or ""), t, step.inputs,
                             profile).hex(),
        **grids(game, step),
        "record_file": record_file_name(game.id, t),
        "outcomes": order_outcomes(step.inputs, step.events) if t > 1 else {},
    }


def results_context(session: Session, game: Game, seat: Seat | None,
                    payload: Mapping[str, Any], zone: ZoneInfo | None = None) -> dict[str, Any]:
    t = int(payload["step"])
    both = steps_to(session, game.id, t)
    step = both.get(t)
    if step is None:
        raise LookupError(f"step {t} of game {game.id} is not stored")
    round_number = int(payload.get("round", t - 1))
    facts = memo(session, ("step facts", game.id, t, round_number),
                 lambda: step_facts(game, step, both.get(t - 1), round_number))
    board = board_at(session, game, step)
    ctx: dict[str, Any] = {
        **facts,
        "step_facts": facts,
        # The record as it stood after this step, attached (service.outbound.compose): the
        # player keeps a copy the host cannot rewrite, and `dicepost verify` checks it.
        "record_bytes": record_so_far(session, game, t, record_reader(session, game, seat)),
    }
    player = seat.name if seat else ""
    ctx["units"] = unit_lines(board, player)
    # The words of the roster's notes, explained in text (the mail has no tooltips).
    ctx["unit_words"] = glossary_used([p.note for p in board.pieces if p.side == player] if board else [],
                                      find_ruleset(game.ruleset, game.revision).info.glossary)
    ctx["turn"] = seat_turn(session, game, seat, t) if seat is not None and t > 1 else None
    ctx["round_url"] = open_url(game, seat, "web.round_", number=t - 1) if t > 1 else ""
    nxt = round_numbered(session, game.id, t)
    if nxt is not None:
        moves = player in nxt.expected
        ctx["next"] = {"round": nxt.number, "expected": list(nxt.expected), "you_move": moves,
                       "closes": deadline_text(game, nxt.closes_at, zone) if nxt.closes_at else "",
                       "countdown": countdown(nxt.closes_at, clock.now()) if nxt.closes_at else "",
                       "legal": legal_for(game, step, player) if moves else [],
                       "template": (ctx["turn"].template if ctx["turn"] is not None
                                    else template_for(session, game, seat, step)) if moves and seat else []}
    else:
        ctx["next"] = None
    ctx["digest"] = (talk_lines(game, seat, digest(session, game, seat, t - 1), zone)
                     if seat is not None and seat.message_pref == "digest" else None)
    return ctx


def talk_lines(game: Game, seat: Seat, rows: Sequence[TableMessage],
               zone: ZoneInfo | None) -> list[dict[str, Any]]:
    """Messages at the table as a mail lists them, each with who wrote it to whom and when."""
    game_zone = policy_of(game).zone
    return [{"from": "you" if r.sender == seat.name else "the GM" if r.sender == "gm" else r.sender,
             "to": "everyone" if r.recipient == "all" else "you, privately",
             "at": time_text(r.created_at, game_zone, zone, year=False), "text": r.text} for r in rows]


# The record as it stood after step t never changes (game_record(upto=t) leaves out all
# that came later; a rollback makes a later step t another, and the key says so), so the
# results mails of one step attach the same bytes to every
# reader of one variant: built once per process (about 60 ms after 16 rounds of a 2x16
# jep1 game). A seat's variant adds the private messages it sent or got, so only a seat
# with private messages in the game gets one of its own; everyone else shares the public.
# A long game's record is hundreds of KB (458 KB after 100 rounds of 2x16), and one is
# needed only while its step's mails are composed: the cache is bounded by their bytes.
RECORDS = "mail records"
RECORDS_BYTES = 8 * 1024 * 1024


def records() -> caches.Cache[tuple[str, int, str | None, int], bytes]:
    """The records kept for the mails: (game, step, whose variant, links skipped) → bytes."""
    return caches.named(RECORDS, RECORDS_BYTES, len)


def record_reader(session: Session, game: Game, seat: Seat | None) -> str | None:
    """Whose record a mail to `seat` attaches: the seat's name, or None for the public one."""
    if seat is None:
        return None
    parties = memo(session, ("private parties", game.id), lambda: private_parties(session, game.id))
    return seat.name if seat.name in parties else None


def record_so_far(session: Session, game: Game, t: int, viewer: str | None = None) -> bytes:
    key = (game.id, t, viewer, game.links_skipped or 0)  # after a rollback, step t is another step
    return records().get(key, lambda: record_bytes(game_record(session, game, upto=t, viewer=viewer)))


def record_file_name(game_id: str, t: int) -> str:
    return f"dicepost-{game_id}-step{t}.json"


def record_bytes(record: Mapping[str, Any]) -> bytes:
    """The record as the API serves it, compact: any JSON reader reads it back the same."""
    return json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def template_for(session: Session, game: Game, seat: Seat, step: Step) -> list[str]:
    """One commented order line per unit, to edit and send back (even after setup)."""
    turn = seat_turn(session, game, seat, step.t)
    return turn.template if turn else []


def final_context(session: Session, game: Game, payload: Mapping[str, Any]) -> dict[str, Any]:
    outcome = dict(payload.get("outcome") or game.outcome or {})
    winners = [str(w) for w in outcome.get("winners") or []]
    return {"winners": winners, "draw": not winners, "reason": str(outcome.get("reason", "")),
            **grids(game, latest_step(session, game.id))}


def game_context(session: Session, game: Game, seat: Seat | None, settings: MailSettings) -> dict[str, Any]:
    record = urls.record_url(game.id)
    readable = game.public or seat is None or seat.player_token_hash is not None
    ctx: dict[str, Any] = {
        "game": {"id": game.id, "title": game.title, "ruleset": game.ruleset, "status": game.status,
                 "commitment": game.commitment, "chain_length": game.chain_length,
                 "players": [s.name for s in game.seats], "private": private_words(game)},
        # A private game's pages open to a seat only once its player has joined.
        "game_url": open_url(game, seat, "web.game") if readable else None,
        "record_url": (record if game.public or seat is None else open_url(game, seat, "api.record"))
        if readable else None,
        "verify_url": verify_url(record, game, seat),
        "player": seat.name if seat else "",
        "order_help": order_help(game),
        "rules_url": urls.absolute("web.rules", ruleset_id=game.ruleset, revision=game.revision),
    }
    if seat is not None:
        ctx["your_page_url"] = urls.absolute("dashboard.play", seat_id=seat.id)
        ctx.update(seat_links(settings, seat))
        ctx["mail_pref"] = seat.mail_pref
    return ctx


@dataclass(frozen=True)
class Letter:
    """The mail being composed, and the parts of a context its kind asks for
    (service.mail.outbox.Letter: each kind's `context` in the registry picks them)."""

    session: Session
    game: Game | None
    seat: Seat | None
    payload: dict[str, Any]
    zone: ZoneInfo | None
    settings: MailSettings

    def status(self) -> dict[str, Any]:
        if self.game is None or self.seat is None:
            return {}
        return {"status": round_status(self.session, self.game, self.seat, self.zone)}

    def latest_grids(self) -> dict[str, Any]:
        if self.game is None or self.seat is None:
            return {}
        return grids(self.game, latest_step(self.session, self.game.id))

    def results(self) -> dict[str, Any]:
        if self.game is None:
            return {}
        return results_context(self.session, self.game, self.seat, self.payload, self.zone)

    def final(self) -> dict[str, Any]:
        return {} if self.game is None else final_context(self.session, self.game, self.payload)

    def confirmation(self) -> dict[str, Any]:
        lines = confirmation_lines(self.payload)
        at = self.payload.get("at")
        if self.game is not None and isinstance(at, str) and at:  # the time as people read it
            lines["received_at"] = deadline_text(self.game, datetime.fromisoformat(at), self.zone, year=False)
        return lines

    def lead_words(self) -> dict[str, Any]:
        return {"lead_words": lead_words(self.payload.get("lead"))}

    def joined(self) -> dict[str, Any]:
        """The seat's entropy as the dice use it, where it came from, and the words typed."""
        if self.seat is None:
            return {}
        return {"joined": {"entropy": self.seat.entropy or "", "words": self.payload.get("words") or "",
                           "source": self.payload.get("source") or self.seat.entropy_source}}

    def sent_at(self) -> dict[str, Any]:
        if self.game is None or self.seat is None:
            return {}
        sent = self.session.get(TableMessage, int(self.payload.get("message_id") or 0))
        return {"sent_at": deadline_text(self.game, sent.created_at, self.zone) if sent is not None else ""}

    def news(self) -> dict[str, Any]:
        return {} if self.game is None else news_context(self.game, self.payload, self.zone)

    def follow(self) -> dict[str, Any]:
        if self.game is None:
            return {}
        return follow_context(self.session, self.game, self.payload, self.settings.secret_key)

    def login(self) -> dict[str, Any]:
        return mail_context(self.session, self.payload, self.settings.secret_key)

    def commands(self) -> dict[str, Any]:
        if self.seat is None:
            return {"commands": help_rows("")}
        return {"commands": help_rows(seat_links(self.settings, self.seat)["preferences_url"])}

    def teaching(self) -> dict[str, Any]:
        """How the game is won, a round, the limits and the worked example: what the rules
        page opens with (one source: the ruleset's teaching, catalog.rules_help)."""
        if self.game is None:
            return {"rules": None}
        return {"rules": rules_help(self.game.ruleset, self.game.revision)}


def build_context(session: Session, row: Outbox, settings: MailSettings) -> dict[str, Any]:
    """Everything the templates of row.kind need: what every mail of a game gets, and what
    its kind asks for (MailKind.context); times in the player's zone (service.zones)."""
    payload = dict(row.payload or {})
    ctx: dict[str, Any] = {"kind": row.kind, "payload": payload, "home_url": urls.base_url(),
                           "games_url": urls.absolute("dashboard.home")}
    game = session.get(Game, row.game_id) if row.game_id else None
    seat = session.get(Seat, row.seat_id) if row.seat_id else None
    zone = mail_zone(session, game, seat)
    ctx["zone"] = zone.key if zone else ""
    if game is not None:
        ctx.update(game_context(session, game, seat, settings))
    ctx.update(kind_of(row.kind).context(Letter(session, game, seat, payload, zone, settings)))
    if game is not None:
        ctx["evidence"] = mail_evidence(session, game, seat, row.kind, payload, ctx.get("record_bytes"))
        if row.kind == "results" and ctx["evidence"]:  # the link holds what this mail holds
            ctx["verify_url"] = verify_url(ctx["record_url"], game, seat, link_values(game, ctx["evidence"]))
    return ctx


def mail_zone(session: Session, game: Game | None, seat: Seat | None) -> ZoneInfo | None:
    """seat_zone, with the zones of every seat of the game read in one statement (shared
    by a batch's mails within a service.memo block)."""
    if game is None or seat is None or not seat.email or seat not in game.seats:
        return seat_zone(session, seat)
    zones = memo(session, ("zones", game.id), lambda: seat_zones(session, game.seats))
    return zones.get(seat.email.lower())


def seat_zones(session: Session, seats: Sequence[Seat]) -> dict[str, ZoneInfo]:
    """{address (lower case): zone} of these seats' players who set one, in one statement."""
    addresses = {s.email.lower() for s in seats if s.email}
    if not addresses:
        return {}
    rows = session.execute(_SEAT_ZONES, {"addresses": sorted(addresses)})
    return {address: ZoneInfo(zone) for address, zone in rows if is_zone(zone)}


# Built once, the addresses an expanding parameter (a results mail asks once a step).
_SEAT_ZONES = select(PlayerZone.address, PlayerZone.zone).where(
    PlayerZone.address.in_(bindparam("addresses", expanding=True)))


def confirmation_lines(payload: Mapping[str, Any]) -> dict[str, Any]:
    """The submitted text numbered line by line, each line with the errors found on it."""
    errors = list(payload.get("errors") or [])
    by_line: dict[int, list[str]] = {}
    general: list[str] = []
    for e in errors:
        line = int(e.get("line") or 0)
        (by_line.setdefault(line, []) if line else general).append(str(e.get("message", "")))
    text = str(payload.get("text") or "")
    lines = [{"number": i, "text": t, "messages": by_line.get(i, [])}
             for i, t in enumerate(text.splitlines(), start=1) if t.strip() or i in by_line]
    accepted = str(payload.get("accepted") or "").splitlines()
    return {"lines": lines, "general": general, "accepted": accepted}
