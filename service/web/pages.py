"""Public pages: home (public games, create-game form), game page, round pages."""

from __future__ import annotations

import json
from typing import Any

from flask import redirect, render_template, request, session, url_for
from werkzeug.datastructures import MultiDict
from werkzeug.wrappers import Response

from engine.contract import UnknownRevision
from engine.registry import UnknownRuleset
from service import access, entry, games
from service import jsonlimits as limited_json
from service.catalog import rules_help, rulesets_json
from service.db import get_session
from service.errors import Invalid, NotFound, ServiceError
from service.messages import PRIVATE_OPTION
from service.models import Game
from service.render.svg import board_svg
from service.rollback_chain import record_rollbacks, rollback_notes
from service.schedule.form import PRESETS, policy_from_form
from service.schedule.words import DAY_LABELS, NMR_LABELS
from service.urls import join_url, record_url, verify_link
from service.views import public_games_json
from service.web import bp
from service.web.data import game_head, game_page, round_page, rounds_page
from service.zones import time_zones

CREATED = "created"  # the session key of the last created game's links, shown until replaced


def _public_games() -> list[dict[str, Any]]:
    return public_games_json(get_session())


def _home(form: Any, problems: list[tuple[str, str]]) -> str:
    at_field: dict[str, str] = {}
    for name, message in problems:
        at_field.setdefault(_top_field(name), message)
    return render_template("web/home.html", games=_public_games(), rulesets=rulesets_json(),
                           form=form, problems=problems, errors=at_field, presets=PRESETS,
                           zones=time_zones(), nmr_labels=NMR_LABELS, day_labels=DAY_LABELS)


def _top_field(name: str) -> str:
    """'seats[1].email' → 'seats'; 'options.width' → 'options'; policy fields stay whole."""
    return name if name.startswith("policy_") else name.split(".")[0].split("[")[0]


@bp.get("/")
def home() -> str:
    return _home({}, [])


def parse_seat_lines(text: str) -> list[games.SeatSpec]:
    """`name [email]` a line."""
    specs = []
    for number, line in enumerate(text.splitlines(), start=1):
        words = line.split()
        if not words:
            continue
        if len(words) > 2:
            raise Invalid(f"seats line {number}: write a name and, optionally, an e-mail address",
                          "seats")
        specs.append(games.SeatSpec(words[0], words[1] if len(words) == 2 else None))
    return specs


def parse_option_lines(text: str) -> dict[str, Any]:
    """`name = value` a line; values are JSON (numbers, true/false) or plain text."""
    options: dict[str, Any] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        name, sep, value = line.partition("=")
        if not sep or not name.strip():
            raise Invalid(f"options line {number}: write name = value", "options")
        try:
            options[name.strip()] = limited_json.loads(value.strip())
        except json.JSONDecodeError:
            options[name.strip()] = value.strip()
    return options


def form_problems(form: MultiDict[str, str]) -> tuple[list[tuple[str, str]], dict[str, Any] | None]:
    """Every problem of the create form at once (field, message), and the checked policy."""
    problems: list[tuple[str, str]] = []

    def check(run: Any) -> Any:
        try:
            return run()
        except Invalid as exc:
            problems.append((exc.field or "form", exc.message))
            return None

    ruleset = check(lambda: games.ruleset_or_invalid(form.get("ruleset", "")))
    if len((form.get("title") or "").strip()) > 200:
        problems.append(("title", "title: at most 200 characters"))
    seats = check(lambda: parse_seat_lines(form.get("seats", "")))
    options = check(lambda: parse_option_lines(form.get("options", "")))
    checked = (check(lambda: games.check_options(ruleset, options))
               if ruleset and options is not None else None)
    if ruleset and seats is not None and checked:
        check(lambda: games.check_seats(ruleset, seats, checked[0]))
    check(lambda: entry.checked_rules(form))
    policy, policy_problems = policy_from_form(form)
    problems += list(policy_problems.items())
    return problems, policy


@bp.post("/games")
def create() -> Response | tuple[str, int, dict[str, str]]:
    form = request.form
    problems, policy = form_problems(form)
    if problems:
        return _home(form, problems), 422, {}
    options = {**parse_option_lines(form.get("options", "")),
               PRIVATE_OPTION: form.get("gm_reads_private") == "on"}
    try:
        created = games.create_game(
            get_session(), form.get("ruleset", ""), form.get("title", ""),
            parse_seat_lines(form.get("seats", "")), options,
            form.get("public") == "on", join_url, deadline_policy=policy,
            entry_rules=entry.checked_rules(form), gm_email=form.get("gm_email") or None)
    except ServiceError as exc:
        return _home(form, [(exc.field or "form", exc.message)]), exc.status, exc.headers
    emails = dict(_seat_emails(form.get("seats", "")))
    # The links are shown once, to this browser: kept in its signed session cookie (only
    # their hashes are stored), so a reload shows them again and creates nothing.
    session[CREATED] = {"id": created.id, "gm_token": created.gm_token, "title": form.get("title", ""),
                        "gm_email": (form.get("gm_email") or "").strip(),
                        "commitment": created.commitment,
                        "invites": [[name, join_url(created.id, token), emails.get(name)]
                                    for name, token in created.invites]}
    access.remember(created.id, created.gm_token)  # the game's pages open here, private or not
    return redirect(url_for("web.created", game_id=created.id), 303)


def _seat_emails(text: str) -> list[tuple[str, str]]:
    return [(spec.name, spec.email) for spec in parse_seat_lines(text) if spec.email]


@bp.get("/games/<game_id>/created")
def created(game_id: str) -> tuple[str, int]:
    kept = session.get(CREATED)
    if not kept or kept.get("id") != game_id:
        game_page(get_session(), game_id)  # 404 for a game that does not exist
        return render_template("web/created.html", created=None, game_id=game_id), 410
    return render_template("web/created.html", created=kept, game_id=game_id,
                           gm_url=url_for("gm.page", game_id=game_id, token=kept["gm_token"],
                                          _external=True)), 200


@bp.get("/games/<game_id>")
def game(game_id: str) -> str:
    session = get_session()
    # One transaction for the reader, the page's reads and those while it renders (banner,
    # talk, log); the reader finds the game read with its seats and round.
    with session.begin():
        head = game_head(session, game_id)
        reader = access.readable_game(session, game_id)[1]
        page = game_page(session, game_id, head)
        # Read only while a seat can be taken: an active game's page keeps its few statements.
        seats_to_take = page.game.status == "waiting" or bool(page.open_seats)
        return render_template("web/game.html", page=page, record_url=record_url(game_id), reader=reader,
                               entry_rules=entry.rules_of(session, game_id).words() if seats_to_take else [])


@bp.get("/games/<game_id>/rounds")
def rounds(game_id: str) -> str:
    session = get_session()
    with session.begin():  # one transaction: the page takes the game read for the reader
        game = access.readable_game(session, game_id)[0]  # a private game: 404 without its token
        game, keys = rounds_page(session, game_id, game)
        notes = rollback_notes(record_rollbacks(session, game_id)) if game.links_skipped else []
        return render_template("web/rounds.html", game=game, keys=keys, record_url=record_url(game_id),
                               rollbacks=notes)


@bp.get("/games/<game_id>/rounds/<int:number>")
def round_(game_id: str, number: int) -> str:
    session = get_session()
    with session.begin():  # one transaction: the page takes the game read for the reader
        game = access.readable_game(session, game_id)[0]  # a private game: 404 without its token
        page = round_page(session, game_id, number, game)
        return render_template("web/round.html", page=page, record_url=record_url(game_id))


@bp.get("/games/<game_id>/watch/<token>")
def watch(game_id: str, token: str) -> Response:
    """A spectator link: this browser keeps its token (the session cookie) and goes on to the
    game page at once, so the token never stays in the address bar or reaches a Referer."""
    session = get_session()
    with session.begin():
        game = session.get(Game, game_id)
        if game is None or access.live_spectator(session, game_id, token) is None:
            raise NotFound("this spectator link is not valid (the GM may have revoked it): "
                           "ask the game's GM for a new one")
    access.remember(game_id, token)
    return redirect(url_for("web.game", game_id=game_id), 303)


@bp.get("/games/<game_id>/open/<token>/<path:where>")
def open_link(game_id: str, token: str, where: str) -> Response:
    """A link from a mail to a player of a private game: this browser keeps the seat's open
    token (as its player page would) and goes on to the game, round or record page at once."""
    kind, _, number = where.partition("/")
    if not (where in ("game", "verify", "record")
            or (kind == "round" and number.isdigit() and len(number) <= 9)):
        raise NotFound(f"no page {where!r} to open: a mail's link opens the game, a round, the record "
                       "or the verifier")
    session = get_session()
    with session.begin():
        if access.seat_by_open_token(session, game_id, token) is None:
            raise NotFound("this link from a mail is not valid any more (the seat may have been "
                           "removed): open your player link, or ask the game's GM")
    access.remember(game_id, token)
    if where == "game":
        return redirect(url_for("web.game", game_id=game_id), 303)
    if where == "verify":  # the fragment (what the player holds) stays in the browser
        return redirect(verify_link(record_url(game_id)), 303)
    if where == "record":  # the record as this seat reads it, the token kept in the session
        return redirect(url_for("api.record", game_id=game_id), 303)
    return redirect(url_for("web.round_", game_id=game_id, number=int(number)), 303)


@bp.get("/rules")
def rules_index() -> str:
    return render_template("web/rules_index.html", rulesets=[rules_help(r["id"]) for r in rulesets_json()])


@bp.get("/rules/<ruleset_id>")
@bp.get("/rules/<ruleset_id>/<int:revision>")
def rules(ruleset_id: str, revision: int | None = None) -> str:
    """A ruleset's rules as they play under `revision` (the newest without one), with what
    each revision changed; a game's pages link the revision it plays."""
    try:
        rules = rules_help(ruleset_id, revision)
    except UnknownRuleset:
        raise NotFound(f"there is no ruleset {ruleset_id!r}: see /rules for the ones there are") from None
    except UnknownRevision as exc:
        raise NotFound(f"{exc}: see /rules/{ruleset_id} for every revision") from None
    example = rules.example
    pictures = ([board_svg(example.before, "the worked example's position"),
                 board_svg(example.after, "the worked example after the round")]
                if example is not None and example.before is not None and example.after is not None else [])
    return render_template("web/rules.html", rules=rules, pictures=pictures)
