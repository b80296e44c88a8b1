"""The page of an address confirmation link (service.address_confirm): a button, so a mail
scanner opening the link confirms nothing."""

from __future__ import annotations

from flask import redirect, render_template, request, url_for
from werkzeug.wrappers import Response

from service import address_confirm
from service.db import get_session
from service.web import bp


@bp.route("/confirm/<token>", methods=["GET", "POST"])
def confirm_address(token: str) -> Response | str:
    address = address_confirm.address_of(token)
    session = get_session()
    if request.method == "POST":
        with session.begin():
            address_confirm.confirm(session, address, "link")
        return redirect(url_for("web.confirm_address", token=token), 303)
    with session.begin():
        confirmed = address_confirm.is_confirmed(session, address)
    return render_template("web/confirm_address.html", address=address, confirmed=confirmed)
