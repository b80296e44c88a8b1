"""A player's schedule settings as a web form (/games/<id>/player/<token>/schedule):
wait flag, reminder lead, absences and mail preference, stored by
service.seats.update_settings."""

from __future__ import annotations

from typing import Any

from flask import render_template, request

from service import seats
from service.db import get_session
from service.errors import Invalid, ServiceError
from service.seats import PREFS
from service.web import bp


def absences_from_text(text: str) -> list[dict[str, str]]:
    """One absence a line: 'YYYY-MM-DD to YYYY-MM-DD' (or a single date for one day)."""
    out = []
    for number, line in enumerate(text.splitlines(), start=1):
        words = line.replace(" to ", " ").split()
        if not words:
            continue
        if len(words) > 2:
            raise Invalid(f"absences line {number}: write 'YYYY-MM-DD to YYYY-MM-DD', got {line.strip()!r}",
                          "absences")
        out.append({"from": words[0], "to": words[-1]})
    return out


def absences_to_text(absences: list[dict[str, str]]) -> str:
    return "\n".join(f"{a['from']} to {a['to']}" for a in absences)


@bp.route("/games/<game_id>/player/<token>/schedule", methods=["GET", "POST"])
def player_schedule(game_id: str, token: str) -> tuple[str, int] | str:
    session = get_session()
    error: ServiceError | None = None
    message = None
    form: dict[str, Any] = {}
    if request.method == "POST":
        try:
            data = {"wait": request.form.get("wait") == "on",
                    "reminder_lead": request.form.get("reminder_lead", "").strip(),
                    "absences": absences_from_text(request.form.get("absences", "")),
                    "mail_pref": request.form.get("mail_pref", "")}
            current = seats.get_settings(session, game_id, token)
            email = request.form.get("email", "").strip()
            # Saving the schedule keeps a bouncing address bouncing; a changed address, or
            # the box ticked to say the mailbox works again, clears it.
            if email and (email != current["email"] or request.form.get("mail_works") == "on"):
                data["email"] = email
            current = seats.update_settings(session, game_id, token, data)
            message = "Saved."
        except ServiceError as exc:
            if exc.status in (401, 404):
                raise
            error = exc
            form = dict(request.form)
    if error is None:
        current = seats.get_settings(session, game_id, token)
        form = {"wait": current["wait"], "reminder_lead": current["reminder_lead"],
                "absences": absences_to_text(current["absences"]), "mail_pref": current["mail_pref"],
                "email": current["email"] or "", "mail_failing": current["mail_failing"]}
    page = render_template("web/gm_settings.html", game_id=game_id, token=token, form=form,
                           prefs=PREFS, error=error, message=message)
    return (page, error.status) if error else page
