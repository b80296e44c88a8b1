"""Forces: a list of roster units (data/roster.json) and custom stat lines, within a budget.

Force JSON (docs/rulesets/jep1.md):

    {"units": ["warrior",
               {"preset": "knight", "skills": ["shield", "tough"]},
               {"stats": {"I": 3, "M": 2, "R": 0, "S": 3, "T": 5, "A": 0, "H": 3, "reach": 8},
                "skills": ["berserk"]}]}

A preset's "skills" replaces the roster's skills. Every unit costs what its stat line
and skills cost (engine.rulesets.jep1.costs), presets included, so a preset is only a
name for a stat line.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from importlib import resources
from typing import Any

from engine.forcespec import Choice, Either, Field, ForceSpec, Items, Names, Shape, Whole
from engine.grid import Square
from engine.rulesets.jep1.costs import LIMITS, unit_cost
from engine.rulesets.jep1.skills import SKILLS, Skill
from engine.rulesets.jep1.units import DEFAULT_REACH, Unit
from engine.zones import edge_zone

MAX_UNITS = 16
DEPLOY_ROWS = 2  # each side starts on the two rows at its own edge
STAT_DOCS = {"I": "initiative: acting order, dice against shots", "M": "melee dice and bonus",
             "R": "ranged dice and bonus", "S": "strength", "T": "toughness", "A": "armor",
             "H": "health", "reach": "range of its shots in squares"}


def _load_roster() -> dict[str, dict[str, Any]]:
    text = resources.files("engine.rulesets.jep1").joinpath("data/roster.json").read_text("utf-8")
    return dict(json.loads(text)["units"])


ROSTER: dict[str, dict[str, Any]] = _load_roster()
DEFAULT_FORCE = ("warrior", "warrior", "archer", "knight", "scout")


def default_force() -> dict[str, Any]:
    return {"units": list(DEFAULT_FORCE)}


def skill_line(skill: Skill) -> str:
    """What a skill does, when, how often and what it costs, in a player's words."""
    when = "before the hit roll" if skill.phase == "pre-hit" else "before the damage roll"
    side = "when it attacks" if skill.side == "attack" else "when it defends"
    return f"{skill.text} ({when}, {side}; {skill.uses} uses a game; {skill.cost} points)"


def roster_line(name: str) -> str:
    """A roster unit's stat line, skills, cost and what it is good at."""
    raw = ROSTER[name]
    stats = {k: int(raw.get(k, DEFAULT_REACH)) for k in LIMITS}
    line = ", ".join(f"{k} {v}" for k, v in stats.items())
    skills = list(raw["skills"])
    return (f"{line}; skills {', '.join(skills) or 'none'}; {unit_cost(stats, skills)} points. "
            f"{raw.get('text', '')}").strip()


def max_units(options: Mapping[str, Any]) -> int:
    return min(MAX_UNITS, DEPLOY_ROWS * int(options["width"]))


def force_spec(options: Mapping[str, Any]) -> ForceSpec:
    """The force's fields: units from the roster or stat lines; the budget is a check."""
    names = tuple(sorted(SKILLS))
    skills = Names("skills", "skill", names, len(SKILLS),
                   "each skill adds its points to the unit's cost; a roster unit given skills "
                   "plays these instead of its own",
                   example='["shield"]', descriptions=tuple(skill_line(SKILLS[k]) for k in names))
    stats = Shape("stats", tuple(
        Field(stat, Whole(stat, low, high, STAT_DOCS[stat]),
              DEFAULT_REACH if stat == "reach" else None, required=stat != "reach")
        for stat, (low, high) in LIMITS.items()), example='{"I": 2, "M": 2, ...}')
    preset = Shape("a roster unit", (
        Field("preset", Choice("preset", tuple(sorted(ROSTER)), "a roster unit",
                               descriptions=tuple(roster_line(n) for n in sorted(ROSTER))),
              required=True),
        Field("skills", skills),
    ))
    custom = Shape("a custom unit", (
        Field("stats", stats, required=True),
        Field("skills", skills, []),
    ))
    unit = Either("a unit", (("preset", preset), ("stats", custom)), bare="preset")
    limit = max_units(options)
    return ForceSpec(Shape("a force", (
        Field("units", Items("units", "unit", unit, limit,
                             why_max=f"two rows a side on a {options['width']}-wide grid"),
              required=True),
    ), example='{"units": ["warrior"]}'),
        notes=(f"The force's cost must be within the budget of {options['points']} points.",))


def force_lines(force: Mapping[str, Any], options: Mapping[str, Any]
                ) -> tuple[list[tuple[str, dict[str, int], list[str]]], list[str]]:
    """Every unit's (kind, stats, skills) and every reason the force is refused."""
    value, errors = force_spec(options).read(force)
    if errors:
        return [], errors
    lines = []
    for entry in value["units"]:
        if "preset" in entry:
            name = entry["preset"]
            raw = ROSTER[name]
            chosen = entry["skills"]
            lines.append((name, {k: int(raw.get(k, DEFAULT_REACH)) for k in LIMITS},
                          list(raw["skills"]) if chosen is None else chosen))
        else:
            lines.append(("custom", dict(entry["stats"]), entry["skills"]))
    total = sum(unit_cost(stats, skills) for _, stats, skills in lines)
    if total > int(options["points"]):
        costs = ", ".join(f"{k} {unit_cost(s, sk)}" for k, s, sk in lines)
        errors.append(f"the force costs {total} points, over the budget of {options['points']} ({costs})")
    return lines, errors


def validate_force(force: Mapping[str, Any], options: Mapping[str, Any]) -> list[str]:
    return force_lines(force, options)[1]


def deploy_squares(seat: int, count: int, width: int, height: int) -> list[Square]:
    """Seat 0 fills rows 2 then 1, seat 1 the two top rows from the front; centre columns first."""
    return edge_zone(min(seat, 1), width, height, lines=(1, 0))[:count]  # jep1 seats two


def build_units(seat: int, player: str, force: Mapping[str, Any], options: Mapping[str, Any]) -> list[Unit]:
    lines, errors = force_lines(force, options)
    if errors:
        raise ValueError("; ".join(errors))
    letter = chr(ord("A") + seat)
    squares = deploy_squares(seat, len(lines), int(options["width"]), int(options["height"]))
    return [
        Unit(id=f"{letter}{n}", side=player, kind=kind, I=st["I"], M=st["M"], R=st["R"], S=st["S"],
             T=st["T"], A=st["A"], H=st["H"], max_h=st["H"], reach=st["reach"], skills=tuple(skills),
             uses={k: SKILLS[k].uses for k in skills}, guard=[], at=sq)
        for n, ((kind, st, skills), sq) in enumerate(zip(lines, squares, strict=True), start=1)
    ]
