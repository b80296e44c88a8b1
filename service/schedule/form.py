"""The deadline policy as a form for people: presets at creation, the full form behind them
(kind, days and time, time zone, quiet hours, absence limit, missed turns), every problem
shown at its field. The JSON (service.schedule.policy) stays the one stored form.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from service.schedule.durations import DurationError, describe_duration, format_duration, parse_duration
from service.schedule.policy import PolicyError, parse_policy, policy_to_json

# preset id → (label, the policy without its time zone); "custom" is the full form.
PRESETS: dict[str, tuple[str, dict[str, Any] | None]] = {
    "48h": ("48 h after each round opens", {"kind": "duration", "duration": "PT48H"}),
    "monthu": ("Mon & Thu 20:00 in your zone",
               {"kind": "calendar", "days": ["mon", "thu"], "time": "20:00"}),
    "none": ("none: a round closes when every player is in (or the GM closes it)", {"kind": "none"}),
    "custom": ("my own, from the form below", None),
}
# a policy path (after "deadline_policy.") → the form field that shows its problem
_FIELDS = {"kind": "policy_kind", "duration": "policy_duration", "days": "policy_days",
           "time": "policy_time", "min_open": "policy_min_open", "timezone": "policy_timezone",
           "quiet_hours": "policy_quiet_start", "quiet_hours.start": "policy_quiet_start",
           "quiet_hours.end": "policy_quiet_end", "absence_limit": "policy_absence_limit",
           "missed_turns.after": "policy_missed_after", "missed_turns.action": "policy_missed_action",
           "missed_turns.extend_by": "policy_extend_by"}


def _field_of(path: str) -> str:
    rest = path.split(".", 1)[1] if "." in path else ""
    if rest.startswith("days["):
        rest = "days"
    return _FIELDS.get(rest, "policy_kind")


def _duration(form: Mapping[str, Any], name: str, problems: dict[str, str]) -> str | None:
    """A duration field in words or ISO 8601, as the canonical ISO text; None when empty."""
    text = str(form.get(name, "")).strip()
    if not text:
        return None
    try:
        span = parse_duration(text, name)
    except DurationError:
        problems[name] = (f"{text!r} is not a duration: write e.g. '2 days', '36 hours', "
                          "'1 day 12 hours' or ISO 8601 'PT36H'")
        return None
    return format_duration(span)


def policy_from_form(form: Mapping[str, Any]) -> tuple[dict[str, Any] | None, dict[str, str]]:
    """(the canonical policy JSON, {}) or (None, {field: problem}) for every problem found;
    (None, {}) when the form has no preset field (the default policy applies).

    `form` has `.getlist` for the days (a werkzeug MultiDict) or a list under `policy_days`.
    """
    problems: dict[str, str] = {}
    if not form.get("policy_preset"):
        return None, {}  # a form without the policy's fields: the default policy
    preset = str(form.get("policy_preset"))
    zone = str(form.get("policy_timezone", "") or "UTC").strip()
    if preset not in PRESETS:
        return None, {"policy_preset": f"choose one of the presets, not {preset!r}"}
    fixed = PRESETS[preset][1]
    if fixed is not None:
        data: dict[str, Any] = {**fixed, "timezone": zone}
    else:
        data = _custom(form, zone, problems)
    canonical: dict[str, Any] | None = None
    try:
        canonical = policy_to_json(parse_policy({k: v for k, v in data.items() if v is not None}))
    except PolicyError as exc:
        for path, message in exc.problems:
            problems.setdefault(_field_of(path), message)
    return (None, problems) if problems else (canonical, {})


def _custom(form: Mapping[str, Any], zone: str, problems: dict[str, str]) -> dict[str, Any]:
    kind = str(form.get("policy_kind", "duration"))
    data: dict[str, Any] = {"kind": kind, "timezone": zone}
    if kind == "duration":
        data["duration"] = _duration(form, "policy_duration", problems)
        if data["duration"] is None:
            problems.setdefault("policy_duration", "how long each round stays open, e.g. '2 days'")
    elif kind == "calendar":
        getlist = getattr(form, "getlist", None)
        days = getlist("policy_days") if getlist else list(form.get("policy_days") or [])
        if not days:
            problems["policy_days"] = "tick at least one day"
        data["days"] = days
        data["time"] = str(form.get("policy_time", "")).strip()
        if (min_open := _duration(form, "policy_min_open", problems)) is not None:
            data["min_open"] = min_open
    start, end = (str(form.get(f"policy_quiet_{e}", "")).strip() for e in ("start", "end"))
    if start or end:
        data["quiet_hours"] = {"start": start, "end": end}
    if (limit := _duration(form, "policy_absence_limit", problems)) is not None:
        data["absence_limit"] = limit
    missed: dict[str, Any] = {"action": str(form.get("policy_missed_action", "hold"))}
    after = str(form.get("policy_missed_after", "") or "1").strip()
    if after.isdigit():
        missed["after"] = int(after)
    else:
        problems["policy_missed_after"] = f"a whole number of missed rounds (1 or more), not {after!r}"
    if (extend_by := _duration(form, "policy_extend_by", problems)) is not None:
        missed["extend_by"] = extend_by
    data["missed_turns"] = missed
    return data


def form_values(policy: Mapping[str, Any]) -> dict[str, Any]:
    """The form's fields filled from a canonical policy, durations in words."""
    def words(iso: str | None) -> str:
        return describe_duration(parse_duration(iso)) if iso else ""
    missed = policy.get("missed_turns") or {}
    quiet = policy.get("quiet_hours") or {}
    return {"policy_preset": "custom", "policy_kind": policy.get("kind", "duration"),
            "policy_duration": words(policy.get("duration")),
            "policy_days": list(policy.get("days") or []), "policy_time": policy.get("time", ""),
            "policy_min_open": words(policy.get("min_open")),
            "policy_timezone": policy.get("timezone", "UTC"),
            "policy_quiet_start": quiet.get("start", ""), "policy_quiet_end": quiet.get("end", ""),
            "policy_absence_limit": words(policy.get("absence_limit")),
            "policy_missed_after": str(missed.get("after", 1)),
            "policy_missed_action": missed.get("action", "hold"),
            "policy_extend_by": words(missed.get("extend_by"))}
