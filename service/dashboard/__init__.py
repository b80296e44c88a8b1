"""A player's own dashboard, signed in with a one-time link sent by mail.

overview.py (a player's games), pages.py (the routes); the links themselves are
issued and spent by service.signin.
"""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("dashboard", __name__)

from service.dashboard import pages  # noqa: E402,F401  (routes register on bp)
