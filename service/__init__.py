"""dicepost's turn service: the Flask app factory (the Flask tutorial's flaskr shape).

`create_app(config=None)` reads the environment (service.config), then applies the
given overrides. Blueprints: web pages (service.web), the JSON API (service.api),
`/healthz` (service.health), inbound mail (service.inbound.web), the GM's API and pages
(service.gm), the verifier page and the players' dashboard. Templates
come from the `templates` package (package data, so an installed wheel has them).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from typing import Any

from flask import Flask, Request
from flask.sessions import SecureCookieSession, SecureCookieSessionInterface
from flask_wtf.csrf import CSRFProtect
from jinja2 import PackageLoader

from service import config as config_module
from service import db, logs
from service.jsonlimits import DepthLimitedJSONProvider
from service.render import design
from service.tasks import celery_init_app

csrf = CSRFProtect()
log = logging.getLogger(__name__)


class CookieSessions(SecureCookieSessionInterface):
    """Flask's signed cookie session, except that a request without the cookie (an API
    call with its Bearer token) gets its empty session without a signing serializer
    built for it (key derivation on every request otherwise)."""

    def open_session(self, app: Flask, request: Request) -> SecureCookieSession | None:
        if app.secret_key and not request.cookies.get(self.get_cookie_name(app)):
            return self.session_class()
        return super().open_session(app, request)


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    app = Flask(__name__, instance_path=_instance_path(), instance_relative_config=True,
                template_folder=None)
    # Pages and mails alike load from the installed `templates` package (package data).
    app.jinja_loader = PackageLoader("templates", ".")
    # The stylesheet's tokens as values, for the HTML mails' inline styles (no <style> there).
    app.jinja_env.globals["ds"] = design.tokens()
    app.session_interface = CookieSessions()
    app.json = DepthLimitedJSONProvider(app)  # deeply nested request JSON: 400, not RecursionError
    app.config.from_mapping(config_module.from_env(app.instance_path))
    if config:
        app.config.update(config)
    config_module.finish(app.config)
    from service.mail import dkim_sign, settings

    # Read and tried once here, so a bad key stops the app and the worker before any mail.
    app.config["DKIM_KEY"] = dkim_sign.load_key(app.config, settings.message_domain(app.config))
    logs.init_app(app)  # logging set up, request ids, tokens kept out of logged paths
    db.init_app(app)
    csrf.init_app(app)

    from service import api, dashboard, health, verify_page, web
    from service.gm import api as gm_api
    from service.gm import pages as gm_pages
    from service.inbound import web as mail_web

    app.register_blueprint(web.bp)
    app.register_blueprint(api.bp)
    app.register_blueprint(health.bp)
    csrf.exempt(api.bp)
    for bp in (mail_web.bp, gm_api.bp, gm_pages.bp, verify_page.bp, dashboard.bp):
        app.register_blueprint(bp)

    from service import csp, ratelimit

    csp.init_app(app)  # Content-Security-Policy with the pages' nonce; no framing

    ratelimit.init_app(app)  # failed authentications per client address (Redis in full mode)
    from service import inputs, outage

    inputs.init_app(app)  # text, numbers and addresses every way in; a generic 500

    outage.init_app(app)  # the database unreachable: 503 with Retry-After
    celery_init_app(app)  # after db.init_app: it sends each session's tasks after COMMIT
    return app


def _instance_path() -> str | None:
    """DICEPOST_INSTANCE_PATH (the tests point it at a temporary folder), else Flask's
    default: instance/ beside the package."""
    raw = os.environ.get("DICEPOST_INSTANCE_PATH")
    return os.path.abspath(raw) if raw else None

