"""What a GM's rollback asks of the dice chain and the record (docs/fair-dice.md, "Rollback").

The rolled-back rounds' links are public, so a round resolved again takes the next link
nobody has seen (service.dice_keys.step_link). A game that allows rollbacks keeps
RESERVE links beyond its most steps for them (options `rollback_links`), and a rollback
that would need more than are left is refused. A game may forbid rollbacks (option
`no_rollback`, on by default for public games, shown at join).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from service.models import Rollback, Step

NO_ROLLBACK_OPTION = "no_rollback"
RESERVE_OPTION = "rollback_links"
RESERVE = 64  # links a new game allowing rollbacks keeps for them
REACH = 3  # a rollback reaches back at most this many rounds before the open one


def forbids_rollback(options: Mapping[str, Any] | None) -> bool:
    return bool((options or {}).get(NO_ROLLBACK_OPTION))


def reserved_links(options: Mapping[str, Any] | None) -> int:
    return int((options or {}).get(RESERVE_OPTION) or 0)


def rollback_words(options: Mapping[str, Any] | None) -> str:
    """The option as the join page and the game page say it."""
    if forbids_rollback(options):
        return "This game forbids rollbacks: no round, once resolved, is ever played again."
    if not reserved_links(options):
        return "This game cannot be rolled back (it was created before rollbacks)."
    return (f"The GM may roll this game back to the start of one of the last {REACH} rounds (with a "
            "reason, told to every player); the rounds rolled back stay in the record, and the "
            "rounds played again get new dice nobody has seen.")


def rollback_rounds(options: Mapping[str, Any] | None, current_round: int) -> list[int]:
    """The rounds a GM may roll the game back to now (none when it forbids rollbacks)."""
    if forbids_rollback(options) or not reserved_links(options):
        return []
    return list(range(max(1, current_round - REACH), current_round))


def rollback_notes(entries: list[dict[str, Any]]) -> list[str]:
    """Each rollback of the record (record_rollbacks) as the game's pages say it."""
    notes = []
    for rb in entries:
        rounds = [int(s["t"]) - 1 for s in rb["steps"]]
        which = (f"Round {rounds[0]} was" if len(rounds) == 1
                 else f"Rounds {', '.join(map(str, rounds[:-1]))} and {rounds[-1]} were")
        its = "its" if len(rounds) == 1 else "their"
        notes.append(f"{which} rolled back by the GM at {rb['at']}: {its} dice are replaced. "
                     f"Reason: {rb['reason']}. The superseded steps stay in the record and below.")
    return notes


def revealed_link(session: Session, game_id: str, link: int) -> str | None:
    """The revealed S_link (hex) of a game: a standing step's, or a rolled-back one's."""
    key = session.scalar(select(Step.key).where(
        Step.game_id == game_id, func.coalesce(Step.link, Step.t) == link))
    if key is not None:
        return str(key)
    for entry in session.scalars(select(Rollback.entry).where(Rollback.game_id == game_id)
                                 .order_by(Rollback.id.desc())):
        for step in entry.get("steps", []):
            if step.get("link", step.get("t")) == link:
                return str(step["key"])
    return None


def record_rollbacks(session: Session, game_id: str) -> list[dict[str, Any]]:
    """The record's `rollbacks` (engine.rollbacks), oldest first."""
    query = select(Rollback.entry).where(Rollback.game_id == game_id)
    return [dict(e) for e in session.scalars(query.order_by(Rollback.id))]
