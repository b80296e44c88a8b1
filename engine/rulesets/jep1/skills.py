"""Skills as data (data/skills.json): what each does, when, for which side, how often.

The seed has two skill phases, "PRE-HIT SKILLS" and "PRE-DAMAGE SKILLS", each with
"A maximum of 2 skills ... for both attacker & defender". A skill here is one effect
from a short list, so a new skill is a line of JSON, never new code.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any

PRE_HIT = "pre-hit"
PRE_DAMAGE = "pre-damage"
ATTACK = "attack"
DEFENCE = "defence"
MAX_PER_PHASE = 2  # "A maximum of 2 skills can be used in this phase"

# Which effects make sense in which phase and side: a pre-hit skill changes the roll to
# hit; a pre-damage attack skill changes the damage roll; a pre-damage defence skill
# changes what that roll is compared against.
EFFECTS: dict[tuple[str, str], frozenset[str]] = {
    (PRE_HIT, ATTACK): frozenset({"dice", "each", "reroll"}),
    (PRE_HIT, DEFENCE): frozenset({"dice", "each", "reroll"}),
    (PRE_DAMAGE, ATTACK): frozenset({"strength", "reroll"}),
    (PRE_DAMAGE, DEFENCE): frozenset({"toughness", "armor"}),
}


class SkillDataError(ValueError):
    """A skills file entry that does not describe a usable skill."""


@dataclass(frozen=True)
class Skill:
    name: str
    phase: str
    side: str
    effect: str
    amount: int
    uses: int  # per game, per unit that knows it
    cost: int  # force points
    text: str

    def describe(self) -> str:
        return f"{self.name} ({self.side}, {self.phase}, {self.uses} uses): {self.text}"


@dataclass(frozen=True)
class Boost:
    """The sum of the skills one side uses in one phase."""

    dice: int = 0
    each: int = 0
    reroll: int = 0
    strength: int = 0
    toughness: int = 0
    armor: int = 0

    @classmethod
    def of(cls, skills: Iterable[Skill]) -> Boost:
        if not skills:  # most exchanges use no skill: the shared zero (frozen, so safe)
            return _NO_BOOST
        totals = dict.fromkeys(("dice", "each", "reroll", "strength", "toughness", "armor"), 0)
        for s in skills:
            totals[s.effect] += s.amount
        return cls(**totals)


_NO_BOOST = Boost()


def parse_skill(entry: Mapping[str, Any], where: str) -> Skill:
    """One JSON entry → Skill, or SkillDataError naming the entry and field."""
    def field(name: str, kind: type) -> Any:
        value = entry.get(name)
        if not isinstance(value, kind) or isinstance(value, bool):
            raise SkillDataError(f"{where}: {name} must be a {kind.__name__}, not {value!r}")
        return value

    name = field("name", str)
    phase, side, effect = field("phase", str), field("side", str), field("effect", str)
    if (phase, side) not in EFFECTS:
        raise SkillDataError(f"{where} ({name}): phase/side {phase}/{side} is not one of "
                             + ", ".join(f"{p}/{s}" for p, s in EFFECTS))
    if effect not in EFFECTS[(phase, side)]:
        raise SkillDataError(f"{where} ({name}): effect {effect!r} does nothing in {phase}/{side}; "
                             f"use one of {', '.join(sorted(EFFECTS[(phase, side)]))}")
    amount, uses, cost = field("amount", int), field("uses", int), field("cost", int)
    if amount < 1 or uses < 1 or cost < 0:
        raise SkillDataError(f"{where} ({name}): amount and uses must be at least 1, cost at least 0")
    return Skill(name, phase, side, effect, amount, uses, cost, str(entry.get("text", "")))


def parse_skills(data: Mapping[str, Any]) -> dict[str, Skill]:
    out: dict[str, Skill] = {}
    for i, entry in enumerate(data.get("skills", []), start=1):
        skill = parse_skill(entry, f"skill {i}")
        if skill.name in out:
            raise SkillDataError(f"skill {i}: {skill.name} is listed twice")
        out[skill.name] = skill
    return out


def _load() -> dict[str, Skill]:
    text = resources.files("engine.rulesets.jep1").joinpath("data/skills.json").read_text("utf-8")
    return parse_skills(json.loads(text))


SKILLS: dict[str, Skill] = _load()


def skill_problem(names: Iterable[str], side: str, known: Iterable[str],
                  uses: Mapping[str, int]) -> str | None:
    """Why a unit cannot name these skills together for `side`, or None if it can."""
    names = list(names)
    known = set(known)
    per_phase: dict[str, int] = {}
    for name in names:
        skill = SKILLS.get(name)
        if skill is None:
            return f"there is no skill {name!r}; skills are: {', '.join(sorted(SKILLS))}"
        if name not in known:
            return f"this unit does not know {name}"
        if skill.side != side:
            return f"{name} is a{'n' if skill.side == ATTACK else ''} {skill.side} skill"
        if uses.get(name, 0) < 1:
            return f"{name} has no uses left"
        per_phase[skill.phase] = per_phase.get(skill.phase, 0) + 1
        if per_phase[skill.phase] > MAX_PER_PHASE:
            return f"at most {MAX_PER_PHASE} {skill.phase} skills a side"
    if len(set(names)) != len(names):
        return "a skill can be named only once"
    return None
