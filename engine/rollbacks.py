"""A record's rollbacks and the order its chain links were revealed in (docs/dice-spec.md,
"Rollbacks").

A GM may roll a game back to the start of an earlier round r: steps r+1 on (the rounds
from r on) are superseded and stay in the record, inside the rollback's entry (`rollbacks`:
[{round, at, by, reason, steps, versions?, bots?}], in the order they were made), and the
game resumes from round r. The superseded steps' links S_l are public, so a step resolved
after a rollback takes the next link nobody has seen: each step carries `link` (its l) when
it is not its t. Every link from 1 up is revealed once, in order, so the steps sorted by
link are the game's whole history, and the record is checked by playing it back:

- the links of all steps (kept and superseded) are 1, 2, ..., L, each once;
- in link order, each step continues the line of play (its t is the line's length + 1);
- right after its last superseded step, a rollback cuts the line back to r steps, and the
  steps it cut are exactly its own, in order;
- what is left is the record's `steps`.

A record without rollbacks has every link equal to its t: nothing changes for it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

ROLLBACK_FIELDS = ("at", "by", "reason", "round", "steps")
ROLLBACK_OPTIONAL = ("bots", "versions")


@dataclass(frozen=True)
class Played:
    """One step as it was played: `rollback` is the index of the rollback that superseded it
    (None: it stands), `cuts` the index of the rollback made right after it (None: none)."""

    step: dict[str, Any]
    t: int
    link: int
    rollback: int | None
    cuts: int | None


@dataclass(frozen=True)
class Problem:
    """Where a record's history does not hold: (step, where, expected, found) as a verifier
    names a difference."""

    step: int
    where: str
    expected: str
    found: str


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def step_link(step: Mapping[str, Any]) -> Any:
    """The chain link a step's dice were keyed by: its `link`, else its t."""
    return step.get("link", step.get("t"))


def shape_problem(record: Mapping[str, Any]) -> Problem | None:
    """The first rollback entry (or step in one) that is not of the shape above."""
    rollbacks = record.get("rollbacks", [])
    if not isinstance(rollbacks, list):
        return Problem(0, "rollbacks", "a list of rollbacks", "not a list")
    for k, rb in enumerate(rollbacks, start=1):
        if (not isinstance(rb, dict) or not set(ROLLBACK_FIELDS) <= set(rb)
                or not set(rb) <= {*ROLLBACK_FIELDS, *ROLLBACK_OPTIONAL}
                or not _whole(rb["round"]) or not isinstance(rb["reason"], str)
                or not isinstance(rb["at"], str) or not isinstance(rb["by"], str)
                or not isinstance(rb["steps"], list) or not rb["steps"]
                or not all(isinstance(s, dict) for s in rb["steps"])):
            return Problem(0, f"rollback {k}", "{round, at, by, reason, steps (one or more)}",
                           "not of that shape")
    for step in all_steps(record):
        if not _whole(step.get("t")) or not _whole(step_link(step)):
            return Problem(0, "steps", "steps with a whole t and link from 1", "a step without them")
    return None


def all_steps(record: Mapping[str, Any]) -> list[dict[str, Any]]:
    steps: list[dict[str, Any]] = [s for s in record.get("steps", []) if isinstance(s, dict)]
    for rb in record.get("rollbacks", []):
        steps += [s for s in rb["steps"] if isinstance(s, dict)]
    return steps


def history(record: Mapping[str, Any]) -> tuple[list[Played], Problem | None]:
    """Every step in the order its link was revealed, and the first place the record's
    history does not hold (None when it holds). Call after shape_problem found none."""
    rollbacks: list[dict[str, Any]] = list(record.get("rollbacks", []))
    owner: dict[int, int | None] = {}
    for s in record["steps"]:
        owner[id(s)] = None
    for k, rb in enumerate(rollbacks):
        for s in rb["steps"]:
            owner[id(s)] = k
    steps = sorted(all_steps(record), key=lambda s: (int(step_link(s)), int(s["t"])))
    for i, s in enumerate(steps, start=1):
        link = int(step_link(s))
        if link != i:
            what = f"link {i} missing" if link > i else f"link {link} used twice"
            return [], Problem(int(s["t"]), "link", "every chain link from 1 up revealed once, in order "
                               "(a step resolved after a rollback takes the next one)", what)
    last_of = {k: max(int(step_link(s)) for s in rb["steps"]) for k, rb in enumerate(rollbacks)}
    order = sorted(last_of, key=lambda k: last_of[k])
    if order != list(range(len(rollbacks))):
        return [], Problem(0, "rollbacks", "rollbacks in the order they were made", "out of order")
    cuts = {last: k for k, last in last_of.items()}
    line: list[Mapping[str, Any]] = []
    played: list[Played] = []
    for s in steps:
        t, link = int(s["t"]), int(step_link(s))
        if t != len(line) + 1:
            return [], Problem(t, "link", f"step {len(line) + 1} next (link {link} continues the line "
                               f"of play of {len(line)} steps)", f"step {t}")
        line.append(s)
        cut_by = cuts.get(link)
        played.append(Played(s, t, link, owner[id(s)], cut_by))
        if cut_by is not None:
            rb = rollbacks[cut_by]
            r = int(rb["round"])
            cut = line[r:]
            if r >= len(line) or [id(x) for x in cut] != [id(x) for x in rb["steps"]]:
                return [], Problem(0, f"rollback {k + 1}", f"the steps after step {r} as they stood "
                                   f"(steps {r + 1} to {len(line)})",
                                   "steps " + ", ".join(str(x["t"]) for x in rb["steps"]))
            del line[r:]
    if [id(x) for x in line] != [id(x) for x in record["steps"]]:
        return [], Problem(0, "steps", "the steps standing after the last rollback",
                           "steps " + ", ".join(str(x["t"]) for x in record["steps"]))
    return played, None


def rollback_text(k: int, rb: Mapping[str, Any]) -> str:
    """One rollback in words, the same for `dicepost verify` and the page."""
    steps = rb.get("steps") or []
    rounds = [int(s["t"]) - 1 for s in steps if isinstance(s, dict) and _whole(s.get("t"))]
    span = (f"round {rounds[0]}" if len(rounds) == 1
            else f"rounds {rounds[0]} to {rounds[-1]}" if rounds else "no round")
    return (f"rollback {k}: to the start of round {rb.get('round')} by {rb.get('by')} at "
            f"{rb.get('at')}: {span} superseded, their dice replaced (reason: {rb.get('reason')})")
