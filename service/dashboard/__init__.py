"""A player's own dashboard, signed in with a one-time link sent by mail (issue 12).

models.py (login_links), links.py (issue and spend links, the mail's context),
overview.py (a player's games), pages.py (the routes).
"""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("dashboard", __name__)

from service.dashboard import pages  # noqa: E402,F401  (routes register on bp)
