"""The player's dashboard: sign in with a one-time link mailed to you, then your games.

    GET/POST /signin           ask for a link (the answer never says whether an address plays here)
    GET/POST /signin/<token>   a button that spends the link (a GET never does: mail scanners
                               open links), then the signed session cookie holds the address;
                               410 for a spent or expired link, 404 for one never issued
    GET  /me                   every game you play, which wait for your orders and until when
    POST /me/mail              a seat's mail and message preferences
    POST /me/zone              the player's time zone for mail (every seat of the address)
    POST /me/away              days away for every game of the address (service.absence); clear
    GET/POST /me/play/<seat>   your player page for that seat, signed in instead of by token
    POST /signout
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from functools import partial, wraps
from typing import Any

from flask import (
    copy_current_request_context,
    current_app,
    flash,
    get_flashed_messages,
    make_response,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from werkzeug.wrappers import Response

from service import absence, address_confirm, clock, players, sign_ins
from service import signin as signin_links
from service.dashboard import bp
from service.dashboard.overview import games_run, seats_of
from service.db import get_session
from service.errors import Conflict, Invalid, NotFound
from service.inputs import INT_MAX
from service.mail.outbox import failing
from service.models import Seat
from service.ratings import ratings_of
from service.seats import MESSAGE_PREFS, PREFS, mail_pref_choice, message_pref_choice, set_mail_pref
from service.web.play import player_context, sent_for, sent_message, stored_and_back, take_orders
from service.zones import address_zone, set_address_zone, time_zones, zone_choice


def signed_in(view: Callable[..., Any]) -> Callable[..., Any]:
    @wraps(view)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if not sign_ins.signed_in_address():
            return redirect(url_for("dashboard.signin"))
        return view(*args, **kwargs)

    return wrapper


def _email() -> str:
    return sign_ins.signed_in_address() or ""


# What was saved is said once, from the session: the page shows nothing a link could put in its URL.
SAVED = "saved"
ASKED = "signin_asked"  # the session key of the address the form was just sent for
MAX_SHOWN = 320  # the longest address the notice repeats (the session cookie stays small)


@bp.route("/signin", methods=["GET", "POST"])
def signin() -> Response:
    """The answer is the same for every address and is sent before any work on it: whether
    the address plays here is looked up afterwards (service.signin.hand_off), so neither the page
    nor its timing says (issuing and mailing a link takes several times a lookup's time).
    A POST answers with a redirect (Post/Redirect/Get) and the page after it says, once, that
    a link is on its way if the address plays here: a reload asks for nothing again."""
    minutes = int(signin_links.LIFETIME.total_seconds() // 60)
    if request.method == "POST":
        email = request.form.get("email", "")
        expires = clock.now() + signin_links.LIFETIME
        session[ASKED] = {"email": email[:MAX_SHOWN], "expires": expires.isoformat()}
        response = redirect(url_for("dashboard.signin"), 303)
        response.call_on_close(copy_current_request_context(partial(signin_links.hand_off, email)))
        return response
    asked = session.pop(ASKED, None)
    issued, email = None, ""
    if isinstance(asked, dict) and isinstance(asked.get("email"), str):
        try:
            issued = signin_links.Issued(True, datetime.fromisoformat(str(asked.get("expires"))))
            email = asked["email"]
        except ValueError:
            issued = None
    return make_response(render_template("dashboard/signin.html", issued=issued, email=email,
                                         minutes=minutes))


@bp.route("/signin/<token>", methods=["GET", "POST"])
def signin_link(token: str) -> Response | tuple[str, int] | str:
    if request.method == "GET":
        return render_template("dashboard/confirm.html", token=token)
    db = get_session()
    with db.begin():
        email = signin_links.spend(db, token)
        known = email is not None or signin_links.issued_here(db, token)
        if email is not None:
            sign_ins.start(db, email)
            address_confirm.confirm(db, email, "sign-in")  # the link came to that mailbox
    if email is None:  # 410 for a spent or expired link; 404 (counted by service.ratelimit) for a guess
        return render_template("dashboard/confirm.html", token=token, spent=True), 410 if known else 404
    return redirect(url_for("dashboard.home"))


@bp.post("/signout")
def signout() -> Response:
    sign_ins.end()
    return redirect(url_for("dashboard.signin"))


def _games_page(zone: str | None = None, zone_error: str = "", away_error: str = "",
                away_form: dict[str, str] | None = None, handle: str | None = None,
                handle_error: str = "") -> str:
    """"Your games": every seat of the address, its mail settings, the player's zone, the
    days away and the budget left, their record and ratings, and their public profile's handle."""
    db = get_session()
    with db.begin():
        lines = seats_of(db, _email())
        run = games_run(db, _email(), current_app.config["SECRET_KEY"])
        dead = failing(db, _email())
        stored = address_zone(db, _email())
        away = absence.address_absences(db, _email())
        record = players.history(db, _email())
        rated = ratings_of(db, _email())
        profile = players.profile_of(db, _email())
        shown = (profile.handle if profile else "") if handle is None else handle
        public = profile is not None and profile.public
    year = clock.now().year
    used = absence.days_by_year(away).get(year, 0)
    return render_template("dashboard/games.html", email=_email(), lines=lines, run=run, prefs=PREFS,
                           away=[a.to_json() for a in away if a.last.year >= year], away_error=away_error,
                           away_form=away_form or {}, budget={"year": year, "used": used,
                                                              "days": absence.BUDGET_DAYS},
                           record=record, rated=rated, profile=profile, handle=shown, public=public,
                           handle_error=handle_error, reliable_after=players.RELIABLE_AFTER,
                           message_prefs=MESSAGE_PREFS, zones=time_zones(),
                           zone=(stored.key if stored else "") if zone is None else zone,
                           zone_error=zone_error, mail_failing=dead,
                           saved=" ".join(str(m) for m in get_flashed_messages(category_filter=[SAVED])))


@bp.get("/me")
@signed_in
def home() -> str:
    return _games_page()


@bp.post("/me/zone")
@signed_in
def zone() -> Response | tuple[str, int]:
    """The signed-in player's zone; a refused one is shown at its field (422)."""
    try:
        name = zone_choice(request.form.get("zone", ""))
    except Invalid as exc:
        return _games_page(zone_error=exc.message), 422  # the select keeps the stored zone
    db = get_session()
    with db.begin():
        set_address_zone(db, _email(), name)
    seat = request.form.get("seat", "")
    if seat.isascii() and seat.isdigit() and int(seat) <= INT_MAX:  # from a player page: back to it
        return redirect(url_for("dashboard.play", seat_id=int(seat), _anchor="zone-form"))
    flash(f"your time zone, {name or 'none: UTC and the game zone'}", SAVED)
    return redirect(url_for("dashboard.home"))


@bp.post("/me/away")
@signed_in
def away() -> Response | tuple[str, int]:
    """Days away for every game of the address; a refusal is shown at the form (422)."""
    db = get_session()
    if request.form.get("clear"):
        absence.clear(db, _email())
        flash("days away not yet begun: taken back", SAVED)
        return redirect(url_for("dashboard.home", _anchor="away-form"), 303)
    first, last = request.form.get("from", "").strip(), request.form.get("to", "").strip()
    try:
        titles = absence.declare(db, None, _email(), first, last or first)
    except Invalid as exc:
        return _games_page(away_error=exc.message, away_form={"from": first, "to": last}), 422
    flash(f"away from {first} to {last or first} in {len(titles)} game{'s' * (len(titles) != 1)}; "
          "the other players are told", SAVED)
    return redirect(url_for("dashboard.home", _anchor="away-form"), 303)


@bp.post("/me/profile")
@signed_in
def profile() -> Response | tuple[str, int]:
    """The player's handle and whether their public page is shown; a refused handle is
    shown at its field (422)."""
    handle = request.form.get("handle", "")
    public = request.form.get("public") == "on"
    db = get_session()
    try:
        with db.begin():
            row = players.set_profile(db, _email(), handle, public)
            chosen = row.handle
    except (Invalid, Conflict) as exc:
        return _games_page(handle=handle[:64], handle_error=exc.message), 422
    flash(f"your handle, {chosen}" + (" (public page shown)" if public else " (public page hidden)"), SAVED)
    return redirect(url_for("dashboard.home", _anchor="profile-form"))


def _my_seat(seat_id: int) -> Seat:
    """The seat, if it is played with the signed-in address (the caller owns the transaction)."""
    seat = get_session().get(Seat, seat_id)
    if seat is None or (seat.email or "").lower() != _email():
        raise NotFound("you play no such seat (sign in with the address the seat was given)")
    return seat


@bp.post("/me/mail")
@signed_in
def mail_pref() -> Response:
    choice = mail_pref_choice(request.form.get("mail_pref", ""))  # refused before the seat is looked up
    talk = message_pref_choice(request.form["message_pref"]) if "message_pref" in request.form else None
    seat_field = request.form.get("seat", "")
    db = get_session()
    with db.begin():
        seat = _my_seat(int(seat_field) if seat_field.isascii() and seat_field.isdigit()
                        and int(seat_field) <= INT_MAX else 0)
        set_mail_pref(seat, choice)
        if talk is not None:
            seat.message_pref = talk
        flash(f"{seat.game.title} ({seat.name}): {PREFS[choice]}; "
              f"messages: {MESSAGE_PREFS[seat.message_pref]}", SAVED)
    return redirect(url_for("dashboard.home"))


@bp.route("/me/play/<int:seat_id>", methods=["GET", "POST"])
@signed_in
def play(seat_id: int) -> Response | tuple[str, int]:
    db = get_session()
    with db.begin():
        game_id = _my_seat(seat_id).game_id
    page = url_for("dashboard.play", seat_id=seat_id)
    if request.method == "POST":
        sent = take_orders(game_id, None, seat_id)
        if (done := stored_and_back(sent, page)) is not None:
            return done
    else:
        sent = sent_for(page)
    db.expire_all()  # the orders may have set off the round's resolution: read the game afresh
    with db.begin():
        seat = _my_seat(seat_id)
        return render_template("web/player.html", token=None, errors=sent.errors, places=sent.places,
                               message=sent_message(sent, seat.game), text=sent.text, sent=sent,
                               form_action=page,
                               **player_context(seat, sent)), sent.status
