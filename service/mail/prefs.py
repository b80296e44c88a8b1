"""A seat's mail preference: every mail, results only, or none. One check and one setter,
used by the mail preferences page, the signed-in dashboard and the player settings API/form."""

from __future__ import annotations

from typing import Any

from service.errors import BadRequest
from service.models import Seat

PREFS = {"all": "every mail", "results": "results only (results, game over, invitations)",
         "none": "no mail"}


def mail_pref_choice(value: Any) -> str:
    """The preference named by `value`, or BadRequest naming the field mail_pref."""
    if not isinstance(value, str) or value not in PREFS:
        raise BadRequest("mail_pref: choose one of: " + ", ".join(PREFS), "mail_pref")
    return value


def set_mail_pref(seat: Seat, value: Any) -> str:
    """Check and store the seat's preference (the caller owns the transaction)."""
    seat.mail_pref = mail_pref_choice(value)
    return seat.mail_pref
