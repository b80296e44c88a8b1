"""A player's settings as a web form (/games/<id>/player/<token>/schedule):
wait flag, reminder lead, absences, mail and message preferences, the player's time zone and
address, stored by service.seats.update_settings."""

from __future__ import annotations

from typing import Any

from flask import redirect, render_template, request, url_for
from werkzeug.wrappers import Response as WerkzeugResponse

from service import seats
from service.db import get_session
from service.errors import Conflict, Invalid, ServiceError
from service.seats import MESSAGE_PREFS, PREFS
from service.web import bp
from service.zones import time_zones


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


@bp.post("/games/<game_id>/player/<token>/zone")
def player_zone(game_id: str, token: str) -> WerkzeugResponse | tuple[str, int]:
    """The player page's time zone form (for every seat of the player's address); a refused
    zone is shown at its field (422) and nothing is stored."""
    value = request.form.get("zone", "")
    try:
        seats.update_settings(get_session(), game_id, token, {"zone": value})
    except (Invalid, Conflict) as exc:  # the select keeps the stored zone
        stored = seats.get_settings(get_session(), game_id, token)["zone"] or ""
        return render_template("web/zone.html", game_id=game_id, token=token, zone=stored,
                               zones=time_zones(), error=exc.message), exc.status
    return redirect(url_for("web.player", game_id=game_id, token=token, _anchor="zone-form"))


@bp.route("/games/<game_id>/player/<token>/schedule", methods=["GET", "POST"])
def player_schedule(game_id: str, token: str) -> WerkzeugResponse | tuple[str, int] | str:
    """Saved settings go back to the form (Post/Redirect/Get: a reload saves nothing again);
    a refusal is shown at once, with what was typed."""
    session = get_session()
    error: ServiceError | None = None
    message = "Saved." if request.args.get("saved") == "1" else None
    form: dict[str, Any] = {}
    if request.method == "POST":
        try:
            data = {"wait": request.form.get("wait") == "on",
                    "reminder_lead": request.form.get("reminder_lead", "").strip(),
                    "absences": absences_from_text(request.form.get("absences", "")),
                    "mail_pref": request.form.get("mail_pref", ""),
                    # the fields this form shows; one left out (an older page) stays as it is
                    **{name: request.form[name] for name in ("message_pref", "zone", "discord_id")
                       if name in request.form}}
            current = seats.get_settings(session, game_id, token)
            if not current["email"] and not data.get("zone"):
                data.pop("zone", None)  # no address, no zone to keep: not an error unless one was chosen
            email = request.form.get("email", "").strip()
            # Saving the schedule keeps a bouncing address bouncing; a changed address, or
            # the box ticked to say the mailbox works again, clears it.
            if email and (email != current["email"] or request.form.get("mail_works") == "on"):
                data["email"] = email
            seats.update_settings(session, game_id, token, data)
            return redirect(url_for("web.player_schedule", game_id=game_id, token=token, saved=1), 303)
        except ServiceError as exc:
            if exc.status in (401, 404):
                raise
            error = exc
            form = dict(request.form)
    if error is None:
        current = seats.get_settings(session, game_id, token)
        form = {"wait": current["wait"], "reminder_lead": current["reminder_lead"],
                "absences": absences_to_text(current["absences"]), "mail_pref": current["mail_pref"],
                "message_pref": current["message_pref"], "zone": current["zone"] or "",
                "email": current["email"] or "", "mail_failing": current["mail_failing"],
                "discord_id": current["discord_id"] or ""}
    page = render_template("web/gm_settings.html", game_id=game_id, token=token, form=form,
                           prefs=PREFS, message_prefs=MESSAGE_PREFS, zones=time_zones(), error=error,
                           message=message)
    return (page, error.status) if error else page
