"""The GM's page at its secret URL (/games/<id>/gm/<gm_token>) and the replacement's
take-over page. Plain forms with CSRF tokens; every action redirects back with a notice."""

from __future__ import annotations

import json
from typing import Any

from flask import Blueprint, flash, get_flashed_messages, redirect, render_template, request, url_for
from werkzeug.wrappers import Response

from service import jsonlimits as limited_json
from service import seats
from service.audit import schedule_entries
from service.db import get_session
from service.errors import Invalid, ServiceError
from service.gm import actions
from service.gm.console import console_json
from service.urls import player_url

bp = Blueprint("gm", __name__)

ACTIONS = ("pause", "resume", "extend", "resolve", "replace", "remove", "end", "policy")


def _json_field(text: str, field: str) -> Any:
    try:
        return limited_json.loads(text)
    except json.JSONDecodeError as exc:
        raise Invalid(f"{field}: not valid JSON ({exc.msg}, line {exc.lineno})", field) from None


@bp.get("/games/<game_id>/gm/<token>")
def page(game_id: str, token: str) -> str:
    console = console_json(get_session(), game_id, token)
    return render_template("web/gm.html", c=console, token=token, game_id=game_id,
                           notices=get_flashed_messages(with_categories=True))


@bp.post("/games/<game_id>/gm/<token>/<action>")
def act(game_id: str, token: str, action: str) -> Response:
    form = request.form
    session = get_session()
    try:
        if action == "pause":
            done = actions.pause(session, game_id, token)
        elif action == "resume":
            done = actions.resume(session, game_id, token)
        elif action == "extend":
            done = actions.extend(session, game_id, token, by=form.get("by") or None,
                                  until=form.get("until") or None)
        elif action == "resolve":
            done = actions.resolve_now(session, game_id, token)
        elif action == "replace":
            done = actions.replace(session, game_id, token, form.get("seat"), form.get("email") or None)
        elif action == "remove":
            done = actions.remove(session, game_id, token, form.get("seat"), form.get("units", "hold"))
        elif action == "end":
            done = actions.end_draw(session, game_id, token)
        elif action == "policy":
            done = actions.set_policy(session, game_id, token, _json_field(form.get("policy", ""), "policy"))
        else:
            flash(f"unknown action {action!r} (actions: {', '.join(ACTIONS)})", "error")
            return redirect(url_for("gm.page", game_id=game_id, token=token))
    except ServiceError as exc:
        if exc.status in (401, 404):
            raise
        flash(exc.message, "error")
        return redirect(url_for("gm.page", game_id=game_id, token=token))
    message = done.action.removeprefix("gm_").replace("_", " ") + ": done"
    if "invite_url" in done.detail:
        message += f". Invitation link for the newcomer (shown once): {done.detail['invite_url']}"
    flash(message, "notice")
    return redirect(url_for("gm.page", game_id=game_id, token=token))


@bp.route("/games/<game_id>/takeover/<invite>", methods=["GET", "POST"])
def takeover(game_id: str, invite: str) -> str:
    if request.method == "GET":
        return render_template("web/gm_takeover.html", game_id=game_id, invite=invite, taken=None)
    seat, token = seats.claim_seat(get_session(), game_id, invite)
    return render_template("web/gm_takeover.html", game_id=game_id, invite=invite,
                           taken={"seat": seat, "token": token, "url": player_url(game_id, token)})


@bp.app_context_processor
def schedule_helpers() -> dict[str, object]:
    """`schedule_log(game_id)` for the public game page's list of GM and schedule entries."""
    return {"schedule_log": lambda game_id: schedule_entries(get_session(), game_id)}
