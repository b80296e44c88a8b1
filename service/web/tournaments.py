"""Tournament pages: a director creates and seats a tournament; anyone reads its tables,
standings (also as CSV) and the bundle `dicepost verify --tournament` checks.

    GET/POST /tournaments/new                      the director's form
    GET/POST /tournaments/<id>/director/<token>    the director's page: reveal the seed, seat
    GET      /tournaments/<id>                     the public page
    GET      /tournaments/<id>/standings.csv       the standings with their tie-breaks
    GET      /tournaments/<id>/bundle.json         the draw, the tables and every record
"""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from flask import Response, redirect, render_template, request, url_for
from flask import session as flask_session
from werkzeug.wrappers import Response as WerkzeugResponse

from service import tournaments
from service.catalog import rulesets_json
from service.db import get_session
from service.errors import Forbidden, Invalid, ServiceError
from service.tokens import token_hash
from service.urls import join_url
from service.web import bp

CREATED = "tournament-created"  # the session key of the director's link, shown until replaced
SEATED = "tournament-seated"  # the GM links of the seated games, shown once


def _flag(name: str) -> bool:
    return request.form.get(name) == "on"


@bp.route("/tournaments/new", methods=["GET", "POST"])
def tournament_new() -> WerkzeugResponse | tuple[str, int] | str:
    form: dict[str, Any] = dict(request.form) if request.method == "POST" else {
        "rounds": "2", "size": "2", "seating": "random", "no_rollback": "on", "duration": "PT48H"}
    error: ServiceError | None = None
    if request.method == "POST":
        try:
            created = tournaments.create(
                get_session(), title=request.form.get("title", ""), ruleset=request.form.get("ruleset", ""),
                options=_options(request.form.get("options", "")),
                rounds=_int(request.form.get("rounds", "")), size=_int(request.form.get("size", "")),
                seating=request.form.get("seating", ""),
                seed_commitment=request.form.get("commitment", "").strip().lower(),
                entrants=tournaments.parse_entrants(request.form.get("entrants", "")),
                anonymous=_flag("anonymous"), no_pause=_flag("no_pause"), no_rollback=_flag("no_rollback"),
                no_absence=_flag("no_absence"),
                deadline_policy={"kind": "duration",
                                 "duration": request.form.get("duration", "").strip() or "PT48H"})
        except ServiceError as exc:
            error = exc
        else:
            flask_session[CREATED] = {"id": created.id, "token": created.director_token}
            return redirect(url_for("web.tournament_director", tid=created.id, token=created.director_token),
                            303)
    page = render_template("web/tournament_new.html", form=form, error=error, rulesets=rulesets_json())
    return (page, error.status) if error else page


def _int(text: str) -> int | str:
    """A whole number as typed, else the text (which the service refuses, naming its field)."""
    return int(text) if text.strip().isdigit() and len(text.strip()) < 4 else text


def _options(text: str) -> dict[str, Any]:
    if not text.strip():
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise Invalid(f"options: not JSON: {exc.msg} (line {exc.lineno})", "options") from None
    if not isinstance(value, dict):
        raise Invalid("options: a JSON object of the ruleset's options", "options")
    return value


@bp.route("/tournaments/<tid>/director/<token>", methods=["GET", "POST"])
def tournament_director(tid: str, token: str) -> WerkzeugResponse | tuple[str, int] | str:
    session = get_session()
    error: ServiceError | None = None
    if request.method == "POST":
        try:
            made = tournaments.seat(session, tid, token, request.form.get("seed", ""), join_url)
        except ServiceError as exc:
            if isinstance(exc, Forbidden):
                raise
            error = exc
        else:
            flask_session[SEATED] = {"id": tid, "games": made}
            return redirect(url_for("web.tournament_director", tid=tid, token=token), 303)
    with session.begin():
        t = tournaments.get(session, tid)
        if token_hash(token) != t.director_token_hash:
            raise Forbidden("this is not the director's link of the tournament")
        context = _context(session, t)
    seated = flask_session.pop(SEATED, None)
    page = render_template("web/tournament.html", director=token, error=error,
                           seated=seated if seated and seated.get("id") == tid else None, **context)
    return (page, error.status) if error else page


def _context(session: Any, t: Any) -> dict[str, Any]:
    rows = tournaments.tables_of(session, t.id)
    names = tournaments.names(t, rows)
    rounds: list[list[dict[str, Any]]] = [[] for _ in range(t.rounds)]
    for tg, g in rows:
        rounds[tg.round - 1].append({
            "game_id": g.id, "table": tg.table, "status": g.status, "round_now": g.current_round,
            "seats": [(seat, names[int(e)]) for seat, e in tg.seats.items()],
            "winners": list((g.outcome or {}).get("winners") or []) if g.status == "finished" else None})
    return {"t": t, "names": names, "rounds": rounds, "ended": tournaments.ended(rows),
            "standings": tournaments.table(session, t.id) if rows else []}


@bp.get("/tournaments/<tid>")
def tournament(tid: str) -> str:
    session = get_session()
    with session.begin():
        return render_template("web/tournament.html", director=None, error=None, seated=None,
                               **_context(session, tournaments.get(session, tid)))


@bp.get("/tournaments/<tid>/standings.csv")
def tournament_csv(tid: str) -> Response:
    session = get_session()
    with session.begin():
        t = tournaments.get(session, tid)
        names = tournaments.names(t, tournaments.tables_of(session, tid))
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["place", "entrant", "name", "points", "buchholz", "wins", "played"])
        for place, s in enumerate(tournaments.table(session, tid), start=1):
            writer.writerow([place, s.entrant + 1, names[s.entrant], f"{float(s.points):g}",
                             f"{float(s.buchholz):g}", s.wins, s.played])
    response = Response(out.getvalue(), mimetype="text/csv")
    response.headers["Content-Disposition"] = f'attachment; filename="standings-{tid}.csv"'
    return response


@bp.get("/tournaments/<tid>/bundle.json")
def tournament_bundle(tid: str) -> Response:
    session = get_session()
    with session.begin():
        doc = tournaments.bundle(session, tid)
    return Response(json.dumps(doc, ensure_ascii=False, sort_keys=True), mimetype="application/json")
