"""The embedded mailbox: mail the service "sent", kept in stored_mail for viewing.

Only in embedded mode (no REDIS_URL); in full mode mail goes out over SMTP.

The kept mail holds every player's invitation, sign-in and reply links, so the mailbox
is for the machine's own user only. A request is served when all of these hold:
- the process is bound to a loopback address (the WSGI SERVER_NAME, which werkzeug's
  and granian's servers set to the address they listen on), and the client's own
  address is loopback (the socket's, never a proxy header: ProxyFix's original is used);
  MAILBOX_ANY_ADDRESS (DICEPOST_MAILBOX_ANY_ADDRESS=1) lifts both, for a deliberate
  set-up such as a container whose port is published to the host only;
- the request carries the mailbox key: in the link `mailbox_link` gives (which
  `dicepost run` prints), then in a cookie set for /mailbox. The key is derived from
  SECRET_KEY (the embedded default keeps that in instance/secret_key, mode 600), so
  it stays the same across restarts and nobody without the instance can make it.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress

from flask import Flask, current_app, redirect, render_template, request, url_for
from sqlalchemy import func, select
from werkzeug.wrappers import Response

from service.db import get_session
from service.errors import Forbidden, NotFound
from service.models import StoredMail
from service.web import bp

KEY_PARAM = "key"
COOKIE = "dicepost_mailbox"
REFRESH_SECONDS = 3


def mailbox_key(app: Flask) -> str:
    secret = app.config["SECRET_KEY"]
    raw = secret.encode("utf-8") if isinstance(secret, str) else secret
    return hmac.new(raw, b"dicepost embedded mailbox", hashlib.sha256).hexdigest()[:32]


def mailbox_link(app: Flask, base_url: str | None = None) -> str | None:
    """The link that opens the embedded mailbox (None in full mode): for `dicepost run` to print."""
    if not app.config.get("EMBEDDED"):
        return None
    base = (base_url or app.config.get("BASE_URL") or "http://127.0.0.1:5000").rstrip("/")
    return f"{base}/mailbox?{KEY_PARAM}={mailbox_key(app)}"


def _loopback(host: str | None) -> bool:
    if not host:
        return False
    if host.strip("[]").lower() == "localhost":
        return True
    try:
        address = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    mapped = getattr(address, "ipv4_mapped", None)
    return bool(address.is_loopback or (mapped is not None and mapped.is_loopback))


def _client_address() -> str | None:
    original = request.environ.get("werkzeug.proxy_fix.orig") or {}
    return str(original.get("REMOTE_ADDR") or request.environ.get("REMOTE_ADDR") or "") or None


def guard() -> None:
    """Refuse (404 or 403) a mailbox request that is not from the machine's own user."""
    config = current_app.config
    if not config["EMBEDDED"]:
        raise NotFound("the mailbox exists only in embedded mode; mail is sent over SMTP")
    if not config.get("MAILBOX_ANY_ADDRESS"):
        if not _loopback(request.environ.get("SERVER_NAME")):
            raise NotFound("the mailbox is served only by a process bound to a loopback address "
                           "(DICEPOST_MAILBOX_ANY_ADDRESS=1 serves it on others)")
        if not _loopback(_client_address()):
            raise NotFound("the mailbox is open to this machine's own user only")
    key = mailbox_key(current_app)
    given = request.args.get(KEY_PARAM) or request.cookies.get(COOKIE) or ""
    if not hmac.compare_digest(given.encode(), key.encode()):
        raise Forbidden("open the mailbox with the link `dicepost run` printed (it holds the "
                        "mailbox key)")


def _keyed(response: Response) -> Response:
    """A link's key moves into a cookie: later pages and forms need no key in the URL."""
    response.set_cookie(COOKIE, mailbox_key(current_app), path="/mailbox", httponly=True,
                        samesite="Strict")
    return response


@bp.get("/mailbox")
def mailbox() -> str | Response:
    guard()
    if KEY_PARAM in request.args:  # out of the address bar, history and Referer
        return _keyed(redirect(url_for("web.mailbox")))
    session = get_session()
    with session.begin():
        mails = list(session.scalars(select(StoredMail).order_by(StoredMail.id.desc()).limit(200)))
        return render_template("web/mailbox.html", mails=mails, refresh_seconds=REFRESH_SECONDS)


@bp.get("/mailbox/newest")
def mailbox_newest() -> dict[str, int]:
    """The newest kept mail's id (0 for none): what the open list polls to know it is stale."""
    guard()
    session = get_session()
    with session.begin():
        return {"newest": int(session.scalar(select(func.max(StoredMail.id))) or 0)}


@bp.get("/mailbox/<int:mail_id>")
def mail(mail_id: int) -> str:
    guard()
    session = get_session()
    with session.begin():
        found = session.get(StoredMail, mail_id)
        if found is None:
            raise NotFound(f"no stored mail {mail_id}")
        return render_template("web/mail.html", mail=found)
