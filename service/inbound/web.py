"""The mail part's HTTP surface: the inbound webhook and the no-login mail settings.

    POST /api/inbound/email              a raw RFC 5322 message, from a mail provider's
                                         webhook; INBOUND_SECRET as a Bearer token, an
                                         X-Dicepost-Secret header or the HTTP basic
                                         password. Body: the raw message, or a form
                                         with it in `email` (SendGrid raw) or
                                         `body-mime` (Mailgun MIME).
    GET/POST /mail/preferences/<token>   every mail / results only / none
    GET/POST /mail/unsubscribe/<token>   a confirm button; POST is also RFC 8058
                                         one-click (List-Unsubscribe-Post)
    POST /mailbox/<id>/reply             embedded mode: answer a kept mail as its
                                         recipient, through the inbound path
    GET /mailbox/<id>/attachments/<n>    embedded mode: a kept mail's n-th attached
                                         file (a results mail's record), to keep

The tokens in these links are the signed unsubscribe tokens of service.mail.tokens:
they are the authority, not a login or cookie, so these forms need no CSRF token.
"""

from __future__ import annotations

import hmac
from collections.abc import Callable
from typing import TypeVar

from flask import Blueprint, Response, current_app, jsonify, redirect, render_template, request, url_for
from werkzeug.wrappers import Response as WerkzeugResponse

from service import csrf
from service.db import get_session
from service.errors import Invalid, NotFound
from service.inbound.identify import verified_seat
from service.inbound.receive import MAX_RAW_BYTES, receive
from service.inbound.stored import Readable, readable, reply_raw
from service.mail.settings import mail_settings
from service.models import Seat, StoredMail
from service.seats import MESSAGE_PREFS, PREFS, mail_pref_choice, message_pref_choice, set_mail_pref
from service.zones import seat_zone, set_address_zone, time_zones, zone_choice

bp = Blueprint("mail", __name__)
_View = TypeVar("_View", bound=Callable[..., object])


def _csrf_exempt(view: _View) -> _View:
    """csrf.exempt with the view's own type kept (flask-wtf ships no type hints)."""
    csrf.exempt(view)
    return view


def _secret_ok(secret: str) -> bool:
    given = ""
    auth = request.headers.get("Authorization", "")
    if auth.lower().startswith("bearer "):
        given = auth[7:].strip()
    elif request.authorization and request.authorization.password:
        given = request.authorization.password
    given = request.headers.get("X-Dicepost-Secret", given)
    return bool(given) and hmac.compare_digest(given.encode(), secret.encode())


def _raw_message() -> bytes:
    if request.mimetype in ("multipart/form-data", "application/x-www-form-urlencoded"):
        for name in ("email", "body-mime", "message", "raw"):
            if name in request.files:
                data: bytes = request.files[name].read()
                return data
            if name in request.form:
                return request.form[name].encode("utf-8", "surrogateescape")
        return b""
    return request.get_data(cache=False)


@bp.post("/api/inbound/email")
@_csrf_exempt
def inbound_email() -> tuple[Response, int]:
    settings = mail_settings(current_app.config)
    if not settings.inbound_secret:
        return jsonify(error="inbound mail over HTTP is off: set INBOUND_SECRET"), 404
    if not _secret_ok(settings.inbound_secret):
        return jsonify(error="the inbound secret is missing or wrong"), 401
    request.max_content_length = MAX_RAW_BYTES + 64 * 1024
    raw = _raw_message()
    if not raw.strip():
        return jsonify(error="no message: send the raw RFC 5322 message as the body"), 400
    outcome = receive(raw)
    code = 413 if outcome.status == "too_large" else 200
    return jsonify(status=outcome.status, detail=outcome.detail, inbound_id=outcome.inbound_id), code


def _seat(token: str) -> Seat:
    seat = verified_seat(get_session(), mail_settings(current_app.config), "unsubscribe", token)
    if seat is None:
        raise NotFound("this mail settings link is not valid (mistyped, or its links were renewed)")
    return seat


@bp.route("/mail/preferences/<token>", methods=["GET", "POST"])
@_csrf_exempt
def preferences(token: str) -> WerkzeugResponse | str | tuple[str, int]:
    """Which mail, how messages come, and the player's time zone. Saved, it goes back to
    the page (Post/Redirect/Get: a reload stores nothing again), which then says what is
    stored; a refused zone is shown at its field (422) and nothing is stored."""
    session = get_session()
    message, zone_error = "", ""
    with session.begin():
        seat = _seat(token)
        zone = seat_zone(session, seat)
        chosen = zone.key if zone else ""
        if request.method == "POST":
            choice = mail_pref_choice(request.form.get("mail_pref", ""))
            talk = message_pref_choice(request.form.get("message_pref", seat.message_pref))
            chosen = request.form.get("zone", chosen)
            try:
                name = zone_choice(chosen)
            except Invalid as exc:
                zone_error = exc.message
            else:
                set_mail_pref(seat, choice)
                seat.message_pref = talk
                if seat.email:
                    set_address_zone(session, seat.email, name)
                return redirect(url_for("mail.preferences", token=token, saved=1), 303)
        elif request.args.get("saved") == "1":
            message = (f"Saved: {PREFS[seat.mail_pref]}; messages: {MESSAGE_PREFS[seat.message_pref]}; "
                       f"times in {chosen or 'UTC and the game time zone'}.")
        page = render_template("mail/preferences.html", seat=seat, game=seat.game, prefs=PREFS,
                               message_prefs=MESSAGE_PREFS, zones=time_zones(), zone=chosen,
                               zone_error=zone_error, message=message, token=token)
    return (page, 422) if zone_error else page


@bp.route("/mail/unsubscribe/<token>", methods=["GET", "POST"])
@_csrf_exempt
def unsubscribe(token: str) -> str:
    """The one form that answers its POST with a page, not a redirect: it is also the
    List-Unsubscribe one-click target, whose mail clients want a 2xx, and sending it again
    (a reload) sets the same "none" again."""
    session = get_session()
    with session.begin():
        seat = _seat(token)
        done = request.method == "POST"
        if done:
            set_mail_pref(seat, "none")
        return render_template("mail/unsubscribe.html", seat=seat, game=seat.game, done=done, token=token)


@bp.app_template_global("readable_mail")
def readable_mail(raw: str) -> Readable:
    """The embedded mailbox page's view of a kept mail (text and HTML parts)."""
    return readable(raw)


@bp.get("/mailbox/<int:mail_id>/attachments/<int:n>")
def mailbox_attachment(mail_id: int, n: int) -> Response:
    from service.web.mailbox import guard

    guard()  # the machine's own user only, like the mailbox's pages
    session = get_session()
    with session.begin():
        kept = session.get(StoredMail, mail_id)
        files = readable(kept.raw).attachments if kept is not None else []
    if not 0 <= n < len(files):
        raise NotFound(f"no attachment {n} in stored mail {mail_id}")
    found = files[n]
    name = "".join(c if c.isalnum() or c in "-_." else "_" for c in found.filename) or "attachment"
    return Response(found.data, mimetype=found.content_type,
                    headers={"Content-Disposition": f'attachment; filename="{name}"'})


@bp.post("/mailbox/<int:mail_id>/reply")
def mailbox_reply(mail_id: int) -> WerkzeugResponse:
    from service.web.mailbox import guard

    guard()  # the machine's own user only, like the mailbox's pages
    session = get_session()
    with session.begin():
        kept = session.get(StoredMail, mail_id)
        if kept is None:
            raise NotFound(f"no stored mail {mail_id}")
        raw = kept.raw
    outcome = receive(reply_raw(raw, request.form.get("body", "")))
    return redirect(url_for("web.mail", mail_id=mail_id, replied=f"{outcome.status}: {outcome.detail}"))
