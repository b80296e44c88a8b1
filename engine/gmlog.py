"""A record's GM actions in words, the same for `dicepost verify` and the verifier page
(which reads them from the report as `gm_action_texts`).

Each entry of a v2 record's `gm_actions` is {round, action, actor, at, detail}
(engine.record); none of them can be checked by a hash, so the verifiers list them for
the players to judge.
"""

from __future__ import annotations

import json
from typing import Any

# What each round-changing action did, in words; {seat}, {from}, {to}, ... come from its detail.
ACTION_WORDS = {
    "gm_resolve_now": "resolved early (its deadline was {deadline})",
    "gm_extend": "deadline moved from {from} to {to}",
    "deadline_extended": "deadline extended from {from} to {to} (missing orders: {missing})",
    "gm_pause": "paused",
    "gm_resume": "resumed (deadline {deadline})",
    "gm_replace": "seat {seat} opened for a replacement player",
    "seat_opened": "seat {seat} opened for a replacement player",
    "seat_claimed": "seat {seat} taken by a replacement player",
    "gm_remove": "player of seat {seat} removed (their units: {units})",
    "seat_to_bot": "seat {seat} handed to the bot",
    "gm_end_draw": "game ended as a draw",
    "gm_set_policy": "deadline policy changed",
    "absence_declared": "{seat} declared days away from {from} to {to} (deadlines move: {deadlines_move})",
    "standing_orders": "{seat}'s standing orders counted as their orders, version {version} (no orders sent)",
    "gm_rollback": "rolled back to the start of round {round}: rounds {rounds} superseded, their dice "
                   "replaced by chain links from S_{next_link} on (reason: {reason})",
}
ACTORS = {"gm": "the GM", "service": "the service, by the GM's policy"}


def action_text(action: object) -> str:
    """One GM action as `round N: what happened (by whom, when)`; unknown shapes as JSON."""
    if not isinstance(action, dict):
        return json.dumps(action, ensure_ascii=False)
    raw = action.get("detail")
    detail: dict[str, Any] = raw if isinstance(raw, dict) else {}
    words = ACTION_WORDS.get(str(action.get("action")))
    values = {k: ", ".join(map(str, v)) if isinstance(v, list) else "none" if v is None else v
              for k, v in detail.items()}
    try:
        what = words.format_map(values) if words else None
    except (KeyError, ValueError, IndexError):
        what = None
    if what is None:
        extra = f" {json.dumps(detail, ensure_ascii=False, sort_keys=True)}" if detail else ""
        what = f"{action.get('action')}{extra}"
    when = "before round 1" if action.get("round") is None else f"round {action.get('round')}"
    actor = str(action.get("actor") or "")
    by = f"by {ACTORS.get(actor, actor)}, " if actor else ""
    return f"{when}: {what} ({by}at {action.get('at')})"
