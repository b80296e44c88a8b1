"""The GM's page at its secret URL (/games/<id>/gm/<gm_token>) and the replacement's
take-over page. Plain forms with CSRF tokens; every action redirects back with a notice."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, TypeVar
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from flask import Blueprint, flash, get_flashed_messages, redirect, render_template, request, url_for
from flask import session as flask_session
from sqlalchemy.orm import Session
from werkzeug.wrappers import Response

from service import access, seats
from service import jsonlimits as limited_json
from service.audit import schedule_entries
from service.db import get_session
from service.errors import Invalid, NotFound, ServiceError
from service.gm import actions
from service.gm.auth import gm_game
from service.gm.console import console_json
from service.gm.news import Banner, LogLine, banner, banner_of, local_time, log_lines, round_opened, sentence
from service.gm.rollback import roll_back
from service.messages import private_words
from service.models import Game
from service.rollback_chain import rollback_rounds, rollback_words
from service.schedule.form import form_values, policy_from_form
from service.schedule.words import DAY_LABELS, NMR_LABELS, describe_policy
from service.timekeeping.state import policy_of
from service.urls import player_url
from service.webhooks import deliver as webhook_posts
from service.webhooks import store as webhooks
from service.zones import time_zones

bp = Blueprint("gm", __name__)
T = TypeVar("T")

ACTIONS = ("pause", "resume", "extend", "resolve", "replace", "remove", "end", "policy", "announce",
           "rollback")


def _json_field(text: str, field: str) -> Any:
    try:
        return limited_json.loads(text)
    except json.JSONDecodeError as exc:
        raise Invalid(f"{field}: not valid JSON ({exc.msg}, line {exc.lineno})", field) from None


POLICY_FORM = "gm_policy_form"  # the session key of a refused policy form: its values and problems
CONFIRM = {"end": ("End the game as a draw",
                   "The game ends now as a draw for every player; no round opens again. "
                   "This cannot be undone."),
           "remove": ("Remove {seat} from the game",
                      "{seat}'s player token and mail tokens stop working at once; {units}. "
                      "This cannot be undone."),
           "rollback": ("Roll the game back to the start of round {round}",
                        "Every round from {round} on is superseded: it stays in the record, marked with your "
                        "reason and the time, and is played again with new dice nobody has seen. Round "
                        "{round} opens for orders again, and every player is told why: \"{reason}\"."),
           "replace": ("Open seat {seat} for a new player",
                       "{seat}'s player loses the seat now: their links stop working, the seat's units hold "
                       "until a newcomer takes it with the invitation link you get next.")}


@bp.get("/games/<game_id>/gm/<token>")
def page(game_id: str, token: str) -> str:
    session = get_session()
    console = console_json(session, game_id, token)
    access.remember(game_id, token)  # the game's own pages open in this browser too
    kept = flask_session.pop(POLICY_FORM, None)
    values, errors = (kept["values"], kept["errors"]) if kept else (form_values(console["policy"]), {})
    # Rendered in one transaction: the messages shown are marked read for the GM in it.
    with session.begin():
        game = session.get(Game, game_id)
        links = [(s, access.spectator_url(s)) for s in access.live_links(session, game_id)]
        hooks = [webhooks.view(h) for h in webhooks.hooks_of(session, game_id)]
        rollback = {"rounds": rollback_rounds(game.options, game.current_round) if game else [],
                    "words": rollback_words(game.options if game else None)}
        return render_template("web/gm.html", c=console, token=token, game_id=game_id, game=game,
                               rollback=rollback,
                               notices=[(kind, text) for kind, text in flashed()
                                        if not kind.startswith("talk")],  # the messages form's own
                               policy_values=values, policy_errors=errors, spectators=links, webhooks=hooks,
                               policy_words=describe_policy(console["policy"]), zones=time_zones(),
                               nmr_labels=NMR_LABELS, day_labels=DAY_LABELS)


@bp.post("/games/<game_id>/gm/<token>/spectators")
def spectator_new(game_id: str, token: str) -> Response:
    """A new read-only spectator link, listed on this page from now on until revoked."""
    def make(session: Session, game: Game) -> str:
        made = access.create_link(session, game, request.form.get("label", ""))
        return f"A spectator link is made{_for(made.label)}: copy it from the list of spectator links."

    return _spectators(game_id, token, make)


@bp.post("/games/<game_id>/gm/<token>/spectators/<int:spectator_id>/revoke")
def spectator_revoke(game_id: str, token: str, spectator_id: int) -> Response:
    def revoke(session: Session, game: Game) -> str:
        gone = access.revoke_link(session, game, spectator_id)
        return (f"The spectator link{_for(gone.label)} is revoked: it opens nothing from now on, and "
                "whoever followed the game through it gets no more mail.")

    return _spectators(game_id, token, revoke)


@bp.post("/games/<game_id>/gm/<token>/webhooks")
def webhook_add(game_id: str, token: str) -> Response:
    def add(session: Session, game: Game) -> str:
        hook, secret = webhooks.add(session, game.id, request.form.get("url", ""), request.form.get("kind"))
        said = f"The {hook.kind} webhook is added: the game's news goes to it from now on."
        return said + (f" Its signing secret, shown this once (keep it with your receiver): {secret}"
                       if secret else "")

    return _spectators(game_id, token, add, "webhooks")


@bp.post("/games/<game_id>/gm/<token>/webhooks/<int:hook_id>/test")
def webhook_test(game_id: str, token: str, hook_id: int) -> Response:
    session = get_session()
    with session.begin():
        gm_game(session, game_id, token, lock=False)
    try:
        result, _hook = webhook_posts.try_post(session, game_id, hook_id)
        flash(f"The test post: {result}", "notice" if "delivered" in result else "error")
    except ServiceError as exc:
        if exc.status in (401, 404):
            raise
        flash(exc.message, "error")
    return redirect(url_for("gm.page", game_id=game_id, token=token) + "#webhooks", 303)


@bp.post("/games/<game_id>/gm/<token>/webhooks/<int:hook_id>/delete")
def webhook_delete(game_id: str, token: str, hook_id: int) -> Response:
    def delete(session: Session, game: Game) -> str:
        webhooks.delete(session, game.id, hook_id)
        return "The webhook is deleted: nothing more is posted to it."

    return _spectators(game_id, token, delete, "webhooks")


def _for(label: str) -> str:
    return f" for {label}" if label else ""


def _spectators(game_id: str, token: str, change: Callable[[Session, Game], str],
                section: str = "spectators") -> Response:
    session = get_session()
    try:
        with session.begin():
            flash(change(session, gm_game(session, game_id, token)), "notice")
    except ServiceError as exc:
        if exc.status in (401, 404):
            raise
        flash(exc.message, "error")
    return redirect(url_for("gm.page", game_id=game_id, token=token) + f"#{section}", 303)


def flashed() -> list[tuple[str, str]]:
    """The flashed (category, message) pairs (Flask types them as strings or pairs)."""
    pairs: list[Any] = list(get_flashed_messages(with_categories=True))
    return [(str(pair[0]), str(pair[1])) for pair in pairs]


@bp.get("/games/<game_id>/gm/<token>/confirm/<action>")
def confirm(game_id: str, token: str, action: str) -> str:
    """The step before an action that cannot be undone: what it does, and the one button."""
    console = console_json(get_session(), game_id, token)  # 401 / 404 before anything else
    if action not in CONFIRM:
        raise NotFound(f"no confirmation for {action!r} (these need one: {', '.join(CONFIRM)})")
    seat = request.args.get("seat", "")
    units = ("the bot plays its units from now on" if request.args.get("units") == "bot"
             else "its units hold for the rest of the game")
    title, text = (part.format(seat=seat, units=units, round=request.args.get("round", ""),
                               reason=request.args.get("reason", "")) for part in CONFIRM[action])
    return render_template("web/gm_confirm.html", c=console, token=token, game_id=game_id, action=action,
                           title=title, text=text, fields={k: v for k, v in request.args.items()})


def _confirmed(action: str, game_id: str, token: str) -> Response | None:
    """None when the form says it was confirmed; else the way to the confirmation page."""
    if action in CONFIRM and request.form.get("confirmed") != "yes":
        fields: dict[str, Any] = {k: v for k, v in request.form.items() if k != "csrf_token"}
        return redirect(url_for("gm.confirm", game_id=game_id, token=token, action=action, **fields), 303)
    return None


@bp.post("/games/<game_id>/gm/<token>/<action>")
def act(game_id: str, token: str, action: str) -> Response:
    form = request.form
    session = get_session()
    back = redirect(url_for("gm.page", game_id=game_id, token=token), 303)
    if (unconfirmed := _confirmed(action, game_id, token)) is not None:
        return unconfirmed
    try:
        if action == "pause":
            done = actions.pause(session, game_id, token)
        elif action == "resume":
            done = actions.resume(session, game_id, token)
        elif action == "extend":
            local = form.get("until_local") or None
            done = actions.extend(session, game_id, token, by=form.get("by") or None,
                                  until=local or form.get("until") or None, until_in_game_zone=bool(local))
        elif action == "resolve":
            done = actions.resolve_now(session, game_id, token)
        elif action == "replace":
            done = actions.replace(session, game_id, token, form.get("seat"), form.get("email") or None)
        elif action == "remove":
            done = actions.remove(session, game_id, token, form.get("seat"), form.get("units", "hold"))
        elif action == "end":
            done = actions.end_draw(session, game_id, token)
        elif action == "rollback":
            done = roll_back(session, game_id, token, _whole(form.get("round", "")),
                             form.get("reason", ""), confirmed=True)
        elif action == "announce":
            done = actions.announce(session, game_id, token, form.get("text", ""))
        elif action == "policy":
            if "policy" in form:  # the advanced view: the JSON itself
                data = _json_field(form.get("policy", ""), "policy")
            else:
                data, problems = policy_from_form(form)
                if problems:
                    flask_session[POLICY_FORM] = {"values": _form_dict(form), "errors": problems}
                    flash(f"The policy was not changed: {len(problems)} problem"
                          f"{'s' if len(problems) != 1 else ''} to fix, shown at their fields.", "error")
                    return back
            done = actions.set_policy(session, game_id, token, data)
        else:
            flash(f"unknown action {action!r} (actions: {', '.join(ACTIONS)})", "error")
            return back
    except ServiceError as exc:
        if exc.status in (401, 404):
            raise
        flash(exc.message, "error")
        return back
    game = session.get(Game, game_id)
    flash(_done_message(done, game) if game is not None else "Done.", "notice")
    return back


def _whole(text: str) -> Any:
    """A form's whole number as an int; anything else as given, for the action to refuse."""
    return int(text) if text.strip().isdigit() else text


def _form_dict(form: Any) -> dict[str, Any]:
    values: dict[str, Any] = {k: v for k, v in form.items() if k != "csrf_token"}
    values["policy_days"] = form.getlist("policy_days")
    return values


def _done_message(done: actions.Done, game: Game) -> str:
    """The GM's notice: the action in the words the players' mail and banner use."""
    if done.detail.get("changed") is False:
        return "The deadline policy is unchanged (it was this already): nothing was logged or mailed."
    # The mail waits a few minutes, so the GM's next actions go in the same one.
    told = ("It is on the game's pages and mailed to every player" if done.action == "gm_announce"
            else "Every player has been told") + " (one mail for your actions of the next few minutes)"
    message = (f"The game is back at the start of round {done.detail.get('round', '')}. {told}"
               if done.action == "gm_rollback"  # the players' sentence speaks to them
               else f"Done: {sentence(done.action, done.detail, policy_of(game).zone)}. {told}")
    if "invite_url" in done.detail:
        message += f". Invitation link for the newcomer (shown once): {done.detail['invite_url']}"
    return message


TAKEN = "taken-over"  # the session key of the last seat this browser took over, shown until replaced


@bp.route("/games/<game_id>/takeover/<invite>", methods=["GET", "POST"])
def takeover(game_id: str, invite: str) -> Response | str:
    """The newcomer's page: the form, then (Post/Redirect/Get) the player link, kept in this
    browser's signed session so a reload shows it again and claims nothing."""
    kept = flask_session.get(TAKEN)
    if request.method == "GET":
        taken = None
        if kept and kept.get("invite") == invite:
            taken = {"seat": kept["seat"], "token": kept["token"], "url": player_url(game_id, kept["token"])}
        with get_session().begin():
            game = get_session().get(Game, game_id)
            privacy = private_words(game) if game is not None else ""
        return render_template("web/gm_takeover.html", game_id=game_id, invite=invite, taken=taken,
                               private_words=privacy)
    seat, token = seats.claim_seat(get_session(), game_id, invite)
    flask_session[TAKEN] = {"invite": invite, "seat": seat, "token": token}
    return redirect(url_for("gm.takeover", game_id=game_id, invite=invite), 303)


@bp.app_context_processor
def schedule_helpers() -> dict[str, object]:
    """`schedule_log(game)`: the game's GM and schedule entries in words, newest first;
    `game_banner(game, log=None)`: the pause and the GM's news on top of every page of the
    game, from `log` (schedule_log's lines) where the page has read it, else read."""
    def log(game: Game) -> list[LogLine]:
        return list(reversed(log_lines(game, _read(lambda s: schedule_entries(s, game.id)))))

    def news(game: Game, log: list[LogLine] | None = None) -> Banner:
        if log is None:
            return _read(lambda s: banner(s, game))
        return banner_of(game, log, _read(lambda s: round_opened(s, game)))

    return {"schedule_log": log, "game_banner": news}


@bp.app_template_filter("when")
def when_filter(iso: str | None, zone: str = "UTC") -> str:
    """An ISO time as people read it, to the minute: 'Tue 01 Dec 14:02 (Europe/Berlin)'."""
    if not iso:
        return "none"
    try:
        where = ZoneInfo(zone)
    except (ZoneInfoNotFoundError, ValueError):
        where = ZoneInfo("UTC")
    return f"{local_time(iso, where)} ({where.key})"


def _read(query: Callable[[Session], T]) -> T:
    """A read while a page renders: in the page's transaction when it has one, else in its own."""
    session = get_session()
    if session.in_transaction():
        return query(session)
    with session.begin():
        return query(session)
