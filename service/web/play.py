"""A player's pages: join (entropy from the browser, server-made without JS) and orders."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from flask import jsonify, redirect, render_template, request, url_for
from flask import session as flask_session
from sqlalchemy import select
from sqlalchemy.orm import Session
from werkzeug.wrappers import Response

from engine import Board, Ruleset, find_ruleset
from engine.grid import SquareError, parse_square
from engine.held import receipts_file
from engine.standing import NONE as NONE_WORD
from service import access, caches, clock, entry, forces, games, rollback_chain, standing, submit
from service import jsonlimits as limited_json
from service.address_confirm import is_confirmed
from service.catalog import rules_help
from service.db import get_session
from service.errors import Invalid, NotFound, OrdersRefused, ServiceError
from service.fairdice import seat_receipts, terms_hex
from service.mail.outbox import failing
from service.messages import private_words
from service.models import Game, Seat, Step
from service.render.grid_legend import natural_key
from service.render.svg import board_caption, board_svg
from service.submissions import latest_submissions
from service.timekeeping.state import seat_schedule
from service.timekeeping.wording import deadline_text
from service.tokens import token_hash
from service.turn_summary import countdown, seat_turn
from service.urls import player_url, record_url, verify_link
from service.views import board_of, current_round, latest_step, orders_json, seat_legal_orders
from service.web import bp, force_form
from service.web.order_form import LIST_PLACE, order_form, order_lines
from service.zones import seat_zone, time_zones

JOINED = "joined"  # the session key of the last join's player link, shown until replaced


@dataclass(frozen=True)
class Builder:
    """What the join page's force builder is made from: the ruleset's published schema for
    this game's options, and the force the seat gets when it brings none."""

    ruleset: Ruleset[Any]
    options: dict[str, Any]
    schema: dict[str, Any]
    default: dict[str, Any]
    others: dict[str, Any]  # the forces the other seats hold (games.held_forces)

    def check(self, force: Any) -> forces.ForceCheck:
        return forces.check(self.ruleset, force, self.options, self.others)

    def form(self, force: Any, verdict: forces.ForceCheck | None = None) -> force_form.Widget:
        root = force_form.build(self.schema, force)
        if verdict is not None:
            force_form.place(root, verdict)
        return root


def _builder(game: Game, seat: Seat | None) -> Builder:
    ruleset = find_ruleset(game.ruleset, game.revision)
    opts = ruleset.options({k: v for k, v in (game.options or {}).items() if k not in games.SERVICE_OPTIONS})
    others = games.held_forces(game, seat)
    default = (seat.force if seat is not None and seat.force is not None
               else ruleset.default_force_beside(seat.seat_index if seat is not None else 0, opts, others))
    return Builder(ruleset, opts, ruleset.force_schema(opts), dict(default), others)


def _join_page(game_id: str, invite: str) -> tuple[dict[str, Any], str | None, Builder]:
    session = get_session()
    with session.begin():
        game = session.get(Game, game_id)
        if game is None:
            raise NotFound(f"no game {game_id!r}")
        title, commitment = game.title, game.commitment
        rollback_words = rollback_chain.rollback_words(game.options)
        privacy = private_words(game)
        entry_rules = entry.rules_of(session, game_id).words()
        # The game's own unit types, which a force may name beside the built-in ones.
        house = list((game.options or {}).get("unit_types") or [])
        seat = session.scalars(select(Seat).where(Seat.game_id == game_id,
                                                  Seat.invite_token_hash == token_hash(invite))).first()
        taken = seat.name if seat is not None and seat.joined_at is not None else None
        builder = _builder(game, seat)
    page = {"game_id": game_id, "title": title, "commitment": commitment, "invite": invite,
            "house": house, "rollback_words": rollback_words, "private_words": privacy,
            "entry_rules": entry_rules}
    return page, taken, builder


@bp.route("/games/<game_id>/join/<invite>", methods=["GET", "POST"])
def join(game_id: str, invite: str) -> Response | tuple[str, int] | str:
    page, taken, builder = _join_page(game_id, invite)
    if taken is not None:
        if (flask_session.get(JOINED) or {}).get("invite") == invite:
            return redirect(url_for("web.joined", game_id=game_id, invite=invite), 303)
        return render_template("web/join_taken.html", seat=taken, **page), 409
    if request.method == "GET":
        return render_template("web/join.html", error=None, force="", builder=builder.form(builder.default),
                               **page)
    # One of three ways, each checked by the ruleset's validate_force: the default force
    # (one button), the JSON of the advanced box when it is filled in, else the form's fields.
    force_text = request.form.get("force", "").strip()
    force: Any = None
    built = builder.default
    try:
        # A post without the builder's fields (an older form, a script) brings no force.
        if "use_default" not in request.form and (force_text or any(k.startswith(force_form.PREFIX)
                                                                    for k in request.form)):
            if force_text:
                force = parse_force(force_text)
            else:
                force = built = force_form.read(builder.schema, request.form)
                verdict = builder.check(force)
                if not verdict.ok:
                    return render_template("web/join.html", error=None, force="",
                                           builder=builder.form(force, verdict), refused=True, **page), 422
        joined = games.join(get_session(), game_id, invite,
                            request.form.get("entropy", "").strip() or None, force, via="browser")
    except ServiceError as exc:
        return render_template("web/join.html", error=exc, force=force_text,
                               builder=builder.form(built), **page), exc.status
    # Shown once, to this browser (its signed session cookie): a reload shows it again.
    access.remember(game_id, joined.player_token)
    flask_session[JOINED] = {"invite": invite, "seat": joined.seat, "token": joined.player_token,
                             "started": joined.started,
                             "entropy": request.form.get("entropy", "").strip().lower()}
    return redirect(url_for("web.joined", game_id=game_id, invite=invite), 303)


@bp.post("/games/<game_id>/join/<invite>/force-check")
def join_force_check(game_id: str, invite: str) -> Response:
    """The builder's live check as you type: the posted form read as on joining, judged by
    the same validate_force, each refusal at its field, and the running cost."""
    _, _, builder = _join_page(game_id, invite)
    force = force_form.read(builder.schema, request.form)
    root = builder.form(force)
    return jsonify(force_form.check_json(root, builder.check(force)))


@bp.get("/games/<game_id>/join/<invite>/done")
def joined(game_id: str, invite: str) -> Response | str:
    kept = flask_session.get(JOINED)
    if not kept or kept.get("invite") != invite:
        return redirect(url_for("web.join", game_id=game_id, invite=invite), 303)
    session = get_session()
    with session.begin():
        game = session.get(Game, game_id)
        if game is None:
            raise NotFound(f"no game {game_id!r}")
        title, commitment = game.title, game.commitment
        # the seat's entropy as stored, whoever made it: the player sees what the dice use
        seat = next((s for s in game.seats if s.name == kept["seat"]), None)
        entropy = (seat.entropy or "") if seat is not None else kept["entropy"]
        source = (seat.entropy_source or "") if seat is not None else ""
        terms = terms_hex(game)
    return render_template("web/joined.html", joined=kept, url=player_url(game_id, kept["token"]),
                           entropy=entropy, source=source, terms=terms, game_id=game_id, invite=invite,
                           title=title, commitment=commitment)


def parse_force(text: str) -> Any:
    if not text:
        return None
    try:
        return limited_json.loads(text)
    except json.JSONDecodeError as exc:
        raise Invalid(f"the force is not valid JSON: {exc.msg} (line {exc.lineno})", "force") from None


def player_context(seat: Seat, sent: Sent | None = None) -> dict[str, Any]:
    """What the player page shows; the order form holds the refused text when `sent`
    was refused, else the orders that count."""
    session = get_session()
    game = seat.game
    rnd = current_round(session, game)
    latest = latest_submissions(session, rnd.id).get(seat.id) if rnd else None
    # The form never starts from the bot's orders: sent as they stand, they would be the player's.
    mine = latest if latest is not None and latest.source != "bot" else None
    board = board_of(game, latest_step(session, game.id))
    legal = seat_legal_orders(session, seat)
    orders = orders_json(session, seat, legal)
    turn = seat_turn(session, game, seat)
    zone = seat_zone(session, seat)
    return {
        "zone": zone, "zones": time_zones(),
        "seat": seat, "game": game, "round": rnd, "orders": orders, "legal": legal,
        "latest": latest, "expected": rnd is not None and seat.name in rnd.expected,
        "form": order_form(legal, [v.name for v in find_ruleset(game.ruleset, game.revision).verbs],
                           sent.text if sent and sent.errors else mine.accepted if mine else "",
                           {p.id: p.square for p in board.pieces} if board else None),
        "units": sorted((p for p in board.pieces if p.side == seat.name),
                        key=lambda p: natural_key(p.label)) if board else [],
        "svg": board_svg(board, "the grid") if board else None,
        "caption": board_caption(board) if board else "",
        "mail_failing": failing(session, seat.email),
        "mail_unconfirmed": seat.email if seat.email and not is_confirmed(session, seat.email) else None,
        "receipts": [{**r, "when": deadline_text(game, datetime.fromisoformat(r["at"]), zone, year=False)}
                     for r in seat_receipts(session, game, seat)],
        "turn": turn,
        "standing": standing.standing_of(session, seat),
        "standing_kinds": standing.kinds_of(game) if game.status != "finished" else {},
        "ready": not seat_schedule(session, seat, create=False).wait,
        "rules": rules_help(game.ruleset, game.revision),
        "you": you_are(board, seat.name, home_edge(session, game, seat.name)),
        "countdown": countdown(turn.closes_at, clock.now()) if turn and turn.closes_at else "",
        "verify_url": verify_link(record_url(game.id), held={
            "commitment": game.commitment, "seat": seat.name, "entropy": seat.entropy}),
    }


def you_are(board: Board | None, player: str, edge: str = "") -> dict[str, Any] | None:
    """The legend's first line: the player's side (colour index), units and home edge."""
    if board is None:
        return None
    mine = sorted((p for p in board.pieces if p.side == player), key=lambda p: natural_key(p.label))
    index = board.sides.index(player) if player in board.sides else 0
    return {"index": index % 8, "units": [p.label for p in mine], "edge": edge}


# Where each seat's units started: the setup never changes, so it is read once a process.
_HOME_EDGES: caches.Cache[tuple[str, str], str] = caches.named("home edges", 4096)


def home_edge(session: Session, game: Game, player: str) -> str:
    """The edge the seat's units started from ("bottom", "top", "left", "right", or a corner
    like "bottom left"), from the setup's board (step 1), never from where they stand now; ""
    before the setup or for a seat that started with no units."""
    def read() -> str:
        setup = session.scalars(select(Step).where(Step.game_id == game.id, Step.t == 1)).first()
        board = board_of(game, setup)
        return start_edge(board, player) if board is not None else ""

    if game.status == "waiting":
        return ""
    return _HOME_EDGES.get((game.id, player), read)


def start_edge(board: Board, player: str) -> str:
    """The edge nearest the middle of the player's pieces on `board` (a corner where two are
    equally near)."""
    try:
        squares = [parse_square(p.square) for p in board.pieces if p.side == player]
    except SquareError:
        return ""
    if not squares:
        return ""
    col = sum(q.col for q in squares) / len(squares)
    row = sum(q.row for q in squares) / len(squares)
    near = {"bottom": row, "top": board.height - 1 - row, "left": col, "right": board.width - 1 - col}
    least = min(near.values())
    closest = [name for name, far in near.items() if far - least < 0.5]
    if len(closest) == 2 and {closest[0], closest[1]} not in ({"bottom", "top"}, {"left", "right"}):
        return " ".join(closest)  # "bottom left": a corner
    return min(near, key=lambda name: near[name])


@dataclass
class Sent:
    """What the player page shows after a POST of the order form."""

    errors: list[dict[str, Any]] = field(default_factory=list)
    message: str = ""
    places: list[str] = field(default_factory=list)  # where each line of `text` was written
    round: int | None = None  # the round the stored orders are for
    version: int = 0
    stored: str = ""  # the stored lines, as the notice lists them
    text: str = ""
    status: int = 200
    # what the page's script checks the receipt against (v2, v3): its text, as it counts
    receipt: str = ""
    counted: str = ""
    profile: str = ""


def take_orders(game_id: str, token: str | None, seat_id: int | None = None) -> Sent:
    """Submit the posted order form for a seat proven by its token (or, signed in, by id)."""
    lines = order_lines(request.form)
    sent = Sent(text="\n".join(line for line, _ in lines), places=[place for _, place in lines])
    round_field = request.form.get("round", "")
    # The form's "final orders" box; a form without it (an older page, a script) keeps the
    # player's last choice.
    ready = request.form.get("ready") == "on" if "ready_asked" in request.form else None
    try:
        accepted = submit.submit(get_session(), game_id, token,
                                 int(round_field) if round_field.isdigit() else round_field,
                                 sent.text, "web", seat_id=seat_id, ready=ready)
        sent.round, sent.version = accepted.round, accepted.version
        sent.receipt, sent.counted, sent.profile = accepted.receipt, accepted.counted, accepted.profile
        sent.stored = "; ".join(accepted.lines) if accepted.lines else "pass (every unit holds)"
        sent.message = (f"Round {accepted.round}: your orders are stored as version {accepted.version}: "
                        + sent.stored + ". " + readiness(accepted)
                        + (f" Receipt {accepted.receipt} (keep it: it proves which text was yours)."
                           if accepted.receipt else ""))
    except OrdersRefused as exc:
        sent.errors, sent.status = placed(exc.errors, lines), exc.status
    except ServiceError as exc:
        sent.errors, sent.status = [{"line": 0, "text": "", "message": exc.message}], exc.status
    return sent


_LINE_REF = re.compile(r"\bline (\d+)\b")


def placed(errors: list[dict[str, Any]], lines: list[tuple[str, str]]) -> list[dict[str, Any]]:
    """Refusals numbered as the player sees them: picked from a list, or the box's line;
    the lines a message names ("line 1 already attacks") are named the same way, since
    the numbers the rules count run over the lists' lines and the box's together."""
    def place(n: int) -> str:
        line, where = lines[n - 1]
        return where if where != LIST_PLACE else f"'{line.strip()}'"

    def said(message: str) -> str:
        return _LINE_REF.sub(lambda m: place(int(m.group(1))) if 0 < int(m.group(1)) <= len(lines)
                             else m.group(0), message)

    return [{**e, "message": said(str(e.get("message", ""))),
             "where": lines[e["line"] - 1][1] if 0 < int(e.get("line") or 0) <= len(lines) else ""}
            for e in errors]


def clash_words(clash: submit.Clash) -> str:
    """Why a list's option would be refused with the other chosen lines, in a few words: the
    lines the refusal names, by their text (an option's set has no numbers on the page)."""
    def name(m: re.Match[str]) -> str:
        n = int(m.group(1))
        return f"'{clash.lines[n - 1].strip()}'" if 0 < n <= len(clash.lines) else m.group(0)
    message = _LINE_REF.sub(name, str(clash.error.get("message", "")))
    if clash.own:
        return message
    return f"{clash.error.get('text') or 'your orders'} would then be refused: {message}"


@bp.post("/games/<game_id>/player/<token>/check")
def player_check(game_id: str, token: str) -> tuple[Response, int]:
    """The order form judged as Send would judge it, nothing stored: the page asks before
    it sends and as lists change, and names each line the rules refuse. Asked with
    `choices`, it also names, for each list, the lines it offers that the rules would
    refuse with what is chosen elsewhere, and why (the page marks them in the list and the
    grid's taps skip them)."""
    lines = order_lines(request.form)
    round_field = request.form.get("round", "")
    number: Any = int(round_field) if round_field.isdigit() else round_field
    session = get_session()
    try:
        errors = submit.check(session, game_id, token, number, "\n".join(line for line, _ in lines))
        refused: dict[str, dict[str, str]] = {}
        if request.form.get("choices"):
            with session.begin():
                seat = games.seat_by_token(session, game_id, token)
                game = seat.game
                verbs = [v.name for v in find_ruleset(game.ruleset, game.revision).verbs]
                lists = [lst for u in order_form(seat_legal_orders(session, seat), verbs, "").units
                         for lst in u.lists]
            free = str(request.form.get("free", ""))
            slots = [submit.Slot(str(request.form.get(lst.name, "")), [c.format() for c in lst.choices])
                     for lst in lists]
            found = submit.refused_choices(session, game_id, token, number, slots,
                                           free.splitlines() if free.strip() else [])
            refused = {lst.name: {text: clash_words(c) for text, c in clashes.items()}
                       for lst, clashes in zip(lists, found, strict=True) if clashes}
    except ServiceError as exc:
        return jsonify({"errors": [{"line": 0, "text": "", "message": exc.message, "where": ""}]}), exc.status
    return jsonify({"errors": placed(errors, lines), "refused": refused}), 200


def readiness(accepted: submit.Accepted) -> str:
    """What the player's choice of ready or not does to the round, in words."""
    if accepted.ready:
        return "You are ready, and so is everyone else: the round is closed and being resolved."
    if accepted.player_ready:
        return ("You are ready: the round closes as soon as every expected player is ready "
                "(or at its deadline).")
    return ("You are NOT ready: the round waits for you until its deadline, even when everyone else "
            "is in. Send again with \"These are my final orders\" ticked when you are done.")


def sent_message(sent: Sent, game: Game) -> str:
    """The stored-orders notice, said of the round it was for once that round is over."""
    still_open = game.status == "active" and game.current_round == sent.round
    if not sent.message or sent.round is None or still_open:
        return sent.message
    after = f"; round {game.current_round} is open" if game.status == "active" else "; the game is over"
    return (f"Your orders for round {sent.round} were stored as version {sent.version}: {sent.stored}. "
            f"They were the last orders it waited for: round {sent.round} is resolved (what happened "
            f"to you is below){after}.")


@bp.get("/games/<game_id>/player/<token>/receipts.json")
def player_receipts(game_id: str, token: str) -> Response:
    """The player's receipts file (engine.held): the commitment, the seat's entropy and a
    receipt for every version the game accepted; the verifier page and `dicepost verify
    --receipts` read it."""
    session = get_session()
    with session.begin():
        seat = games.seat_by_token(session, game_id, token)
        game = seat.game
        doc = receipts_file(game.id, game.commitment, seat.name, seat.entropy,
                            seat_receipts(session, game, seat))
    response = Response(json.dumps(doc, ensure_ascii=False, indent=1, sort_keys=True) + "\n",
                        mimetype="application/json")
    response.headers["Content-Disposition"] = (
        f'attachment; filename="dicepost-receipts-{game_id}-{seat.name}.json"')
    response.headers["Cache-Control"] = "no-store"
    return response


STANDING_SAVED = "standing-saved"  # the session key of the standing orders' notice, shown once


@bp.post("/games/<game_id>/player/<token>/standing")
def player_standing(game_id: str, token: str) -> Response:
    """The standing orders form: one word per unit (engine.standing), each change through
    service.standing.set_standing; back to the page with what now stands."""
    session = get_session()
    with session.begin():
        seat = games.seat_by_token(session, game_id, token)
        current = standing.standing_of(session, seat)
        for unit in standing.own_units(session, seat.game, seat):
            word = request.form.get(f"standing-{unit}")
            if word is not None and (word or NONE_WORD) != current.get(unit, NONE_WORD):
                current = standing.set_standing(session, seat, unit, word or NONE_WORD)
    flask_session[STANDING_SAVED] = ("Standing orders saved: " + (", ".join(
        f"{u} {k}" for u, k in sorted(current.items())) or "none") + ".")
    return redirect(url_for("web.player", game_id=game_id, token=token) + "#standing", 303)


SENT = "orders-sent"  # the session key of the stored-orders notice, shown once after the redirect
KEPT_NOTICE = 1500  # characters of the notice kept in the session cookie (the form shows the rest)


def stored_and_back(sent: Sent, page: str) -> Response | None:
    """Post/Redirect/Get for the order form: stored orders go back to the page with 303 (a
    reload sends nothing again) and their notice kept for it in the session; a refusal
    (None) is shown at once with 4xx, as it stores nothing, so its reload stores nothing."""
    if sent.errors:
        return None
    flask_session[SENT] = {"page": page, "message": sent.message[:KEPT_NOTICE], "round": sent.round,
                           "version": sent.version, "stored": sent.stored[:KEPT_NOTICE],
                           "receipt": sent.receipt, "profile": sent.profile,
                           "counted": sent.counted if len(sent.counted) <= KEPT_NOTICE else ""}
    return redirect(page, 303)  # the notice is on top of the page


def sent_for(page: str) -> Sent:
    """The notice the last stored orders left for this page (once), or nothing."""
    if (flask_session.get(SENT) or {}).get("page") != page:
        return Sent()
    kept = flask_session.pop(SENT)
    return Sent(message=str(kept["message"]), round=kept["round"], version=int(kept["version"]),
                stored=str(kept["stored"]), receipt=str(kept.get("receipt") or ""),
                counted=str(kept.get("counted") or ""), profile=str(kept.get("profile") or ""))


@bp.route("/games/<game_id>/player/<token>", methods=["GET", "POST"])
def player(game_id: str, token: str) -> Response | tuple[str, int]:
    session = get_session()
    action = url_for("web.player", game_id=game_id, token=token)
    check_action = url_for("web.player_check", game_id=game_id, token=token)
    if request.method == "POST":
        sent = take_orders(game_id, token)
        if (done := stored_and_back(sent, action)) is not None:
            return done
    else:
        sent = sent_for(action)
    # The orders may have closed the round and set off its resolution (in-process, or a
    # worker): read the game afresh, not as the submission left it in this session.
    session.expire_all()
    with session.begin():
        seat = games.seat_by_token(session, game_id, token)
        access.remember(game_id, token)  # the game's own pages open in this browser too
        return render_template("web/player.html", token=token, errors=sent.errors, places=sent.places,
                               standing_saved=flask_session.pop(STANDING_SAVED, None),
                               message=sent_message(sent, seat.game), sent=sent,
                               text=sent.text, form_action=action, **player_context(seat, sent),
                               check_action=check_action), sent.status
