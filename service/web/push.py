"""The installable app and web push, the browser's side (service.push keeps and sends).

    GET  /manifest.webmanifest           the web app manifest (name, icons, start page)
    GET  /sw.js                          the service worker: shows pushes, opens their page on a
                                         tap, keeps the last player page viewed for offline reading
    GET  /icons/<name>                   the app icon (icon.svg, icon-192.png, icon-512.png)
    GET  /notifications                  push on this device: what is on, and turning it off
    POST /push/subscribe                 {subscription, game_id + token | seat_id | all}
    POST /push/unsubscribe               {endpoint[, scope]}: no CSRF token (the notification's
                                         "Turn off" has none); knowing the endpoint is the proof
    POST /push/state                     {endpoint}: the scopes this browser holds
    POST /games/<id>/player/<token>/here the player page's heartbeat while in view
    POST /me/play/<seat>/here            the same for the signed-in player page
"""

from __future__ import annotations

import json
from typing import Any

from flask import Response, render_template, request, url_for

from service import csrf, push, sign_ins
from service.db import get_session
from service.errors import Invalid, NotFound, ServiceError, Unauthorized
from service.games import seat_by_token
from service.models import Seat
from service.render import icon
from service.web import bp

ICONS = {"icon-192.png": ("image/png", 192), "icon-512.png": ("image/png", 512),
         "icon.svg": ("image/svg+xml", 0)}


@bp.app_template_global("push_key")
def push_key() -> str:
    """The key pages subscribe with; "" when push is off on this host."""
    return push.application_server_key()


@bp.get("/manifest.webmanifest")
def manifest() -> Response:
    icons = [{"src": url_for("web.app_icon", name=name), "sizes": f"{size}x{size}" if size else "any",
              "type": kind, "purpose": "any maskable" if size else "any"}
             for name, (kind, size) in ICONS.items()]
    body = {"name": "dicepost", "short_name": "dicepost", "id": url_for("web.home"),
            "description": "Turn-based skirmish games by mail and on the web, with dice anyone can check",
            "start_url": url_for("dashboard.home"), "scope": url_for("web.home"), "display": "standalone",
            "background_color": "#ffffff", "theme_color": icon.THEME, "icons": icons}
    response = Response(json.dumps(body, indent=1), mimetype="application/manifest+json")
    response.headers["Cache-Control"] = "public, max-age=3600"
    return response


@bp.get("/icons/<name>")
def app_icon(name: str) -> Response:
    if name not in ICONS:
        raise NotFound(f"no icon {name!r}")
    kind, size = ICONS[name]
    response = Response(icon.png(size) if size else icon.svg(), mimetype=kind)
    response.headers["Cache-Control"] = "public, max-age=86400"
    return response


@bp.get("/sw.js")
def service_worker() -> Response:
    response = Response(render_template("web/sw.js"), mimetype="text/javascript")
    # The worker's own fetches (its cached pages, the "Turn off" POST) are the site's own.
    response.headers["Content-Security-Policy"] = "default-src 'none'; connect-src 'self'"
    response.headers["Cache-Control"] = "no-cache"  # a new version is picked up at once
    return response


@bp.get("/notifications")
def notifications() -> str:
    return render_template("web/notifications.html")


def _answer(body: dict[str, Any], status: int = 200) -> tuple[Response, int]:
    return Response(json.dumps(body), mimetype="application/json"), status


def _body() -> dict[str, Any]:
    data = request.get_json(silent=True)
    if not isinstance(data, dict):
        raise Invalid("expected a JSON object", "body")
    return data


def _text(data: dict[str, Any], field: str) -> str:
    value = data.get(field)
    if not isinstance(value, str) or not value:
        raise Invalid(f"{field}: expected text", field)
    return value


def _my_seat(seat_id: Any) -> Seat:
    address = sign_ins.signed_in_address()
    if not address:
        raise Unauthorized("sign in on Your games first")
    seat = get_session().get(Seat, seat_id) if isinstance(seat_id, int) and 0 < seat_id < 2**31 else None
    if seat is None or (seat.email or "").lower() != address:
        raise NotFound("you play no such seat (sign in with the address the seat was given)")
    return seat


@bp.post("/push/subscribe")
def push_subscribe() -> tuple[Response, int]:
    """Turn push on for a seat (by its player token, or signed in) or for every seat of the
    signed-in address."""
    try:
        if not push.enabled():
            raise ServiceError("push is not set up on this host (DICEPOST_VAPID_PRIVATE_KEY)")
        data = _body()
        try:
            sub = push.check_subscription(data.get("subscription"))
        except ValueError as exc:
            raise Invalid(str(exc), "subscription") from None
        session = get_session()
        with session.begin():
            if data.get("all") is True:
                address = sign_ins.signed_in_address()
                if not address:
                    raise Unauthorized("sign in on Your games to turn push on for all your games")
                push.subscribe(session, sub, address=address)
                scope = push.scope_of(None, address)
            elif "token" in data:
                seat = seat_by_token(session, _text(data, "game_id"), _text(data, "token"))
                push.subscribe(session, sub, seat=seat)
                scope = push.scope_of(seat, None)
            else:
                seat = _my_seat(data.get("seat_id"))
                push.subscribe(session, sub, seat=seat)
                scope = push.scope_of(seat, None)
            held = push.scopes(session, sub.endpoint)
    except ServiceError as exc:
        return _answer(exc.to_json(), exc.status)
    return _answer({"on": scope, "scopes": held})


@bp.post("/push/unsubscribe")
def push_unsubscribe() -> tuple[Response, int]:
    try:
        data = _body()
        endpoint = _text(data, "endpoint")
        scope = data.get("scope")
        if scope is not None and not isinstance(scope, str):
            raise Invalid("scope: expected text", "scope")
        session = get_session()
        with session.begin():
            removed = push.unsubscribe(session, endpoint, scope)
            held = push.scopes(session, endpoint)
    except ServiceError as exc:
        return _answer(exc.to_json(), exc.status)
    return _answer({"removed": removed, "scopes": held})


@bp.post("/push/state")
def push_state() -> tuple[Response, int]:
    try:
        endpoint = _text(_body(), "endpoint")
    except ServiceError as exc:
        return _answer(exc.to_json(), exc.status)
    session = get_session()
    with session.begin():
        return _answer({"scopes": push.scopes(session, endpoint)})


csrf.exempt(push_unsubscribe)
csrf.exempt(push_state)


@bp.post("/games/<game_id>/player/<token>/here")
def player_here(game_id: str, token: str) -> tuple[Response, int]:
    session = get_session()
    try:
        with session.begin():
            push.seen(session, seat_by_token(session, game_id, token))
    except ServiceError as exc:
        return _answer(exc.to_json(), exc.status)
    return _answer({"seen": True})


@bp.post("/me/play/<int:seat_id>/here")
def signed_in_here(seat_id: int) -> tuple[Response, int]:
    session = get_session()
    try:
        with session.begin():
            push.seen(session, _my_seat(seat_id))
    except ServiceError as exc:
        return _answer(exc.to_json(), exc.status)
    return _answer({"seen": True})
