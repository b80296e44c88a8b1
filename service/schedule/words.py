"""A deadline policy (its canonical JSON, service.schedule.policy) in words for people."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from service.schedule.durations import describe_duration, parse_duration
from service.schedule.policy import DAY_NAMES

DAY_LABELS = dict(zip(DAY_NAMES, ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"), strict=True))
NMR_LABELS = {"hold": "their units hold", "extend": "the deadline moves once (by the time below)",
              "bot": "the bot plays them", "replace": "the seat is opened for a newcomer"}


def describe_policy(policy: Mapping[str, Any]) -> str:
    """One sentence: 'Each round closes 2 days after it opens (Europe/Berlin).'"""
    zone = policy.get("timezone", "UTC")
    kind = policy.get("kind")
    if kind == "duration":
        text = f"Each round closes {describe_duration(parse_duration(policy['duration']))} after it opens"
    elif kind == "calendar":
        days = " & ".join(DAY_LABELS.get(d, d) for d in policy.get("days", []))
        text = f"Rounds close {days} at {policy.get('time')} ({zone})"
    else:
        text = "No deadline: a round closes when every player is in, or when the GM closes it"
    quiet = policy.get("quiet_hours")
    if quiet:
        text += f"; never between {quiet['start']} and {quiet['end']} ({zone})"
    missed = policy.get("missed_turns") or {}
    after = missed.get("after", 1)
    action = NMR_LABELS.get(missed.get("action", "hold"), "").split(" (")[0]
    text += f"; after {after} missed round{'s' if after != 1 else ''} in a row, {action}"
    return text + "."
