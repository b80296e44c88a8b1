"""A player's public page, under the handle they chose (service.players): never their address."""

from __future__ import annotations

from flask import render_template

from service.db import get_session
from service.errors import NotFound
from service.players import RELIABLE_AFTER, public_profile
from service.web import bp


@bp.get("/players/<handle>")
def player_profile(handle: str) -> str:
    db = get_session()
    with db.begin():
        found = public_profile(db, handle[:64])
        if found is None:  # hidden and unknown handles answer alike
            raise NotFound(f"no public player page {handle[:64]!r}")
        return render_template("web/profile.html", p=found, reliable_after=RELIABLE_AFTER)
