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

from engine.grid import Square
from engine.rulesets.jep1.costs import LIMITS, unit_cost
from engine.rulesets.jep1.skills import SKILLS
from engine.rulesets.jep1.units import DEFAULT_REACH, Unit

MAX_UNITS = 16
DEPLOY_ROWS = 2  # each side starts on the two rows at its own edge


def _load_roster() -> dict[str, dict[str, Any]]:
    text = resources.files("engine.rulesets.jep1").joinpath("data/roster.json").read_text("utf-8")
    return dict(json.loads(text)["units"])


ROSTER: dict[str, dict[str, Any]] = _load_roster()
DEFAULT_FORCE = ("warrior", "warrior", "archer", "knight", "scout")


def default_force() -> dict[str, Any]:
    return {"units": list(DEFAULT_FORCE)}


def max_units(options: Mapping[str, Any]) -> int:
    return min(MAX_UNITS, DEPLOY_ROWS * int(options["width"]))


def _entry_line(entry: Any, where: str, errors: list[str]) -> tuple[str, dict[str, int], list[str]] | None:
    """(kind, stats, skills) of one force entry, or None after adding its errors."""
    if isinstance(entry, str):
        entry = {"preset": entry}
    if not isinstance(entry, Mapping):
        errors.append(f"{where}: must be a roster name or an object with preset or stats")
        return None
    unknown = set(entry) - {"preset", "stats", "skills"}
    if unknown:
        errors.append(f"{where}: unknown field {sorted(unknown)[0]!r} (fields: preset, stats, skills)")
        return None
    if ("preset" in entry) == ("stats" in entry):
        errors.append(f"{where}: give either preset (a roster name) or stats, not both or neither")
        return None
    if "preset" in entry:
        name = entry["preset"]
        if not isinstance(name, str) or name not in ROSTER:
            errors.append(f"{where}: {name!r} is not in the roster ({', '.join(sorted(ROSTER))})")
            return None
        kind, raw, default_skills = name, ROSTER[name], list(ROSTER[name]["skills"])
    else:
        kind, raw, default_skills = "custom", entry["stats"], []
        if not isinstance(raw, Mapping):
            errors.append(f"{where}: stats must be an object like {{\"I\": 2, \"M\": 2, ...}}")
            return None
    stats = _stats(raw, where, errors, roster=kind != "custom")
    ok_skills = _skills(entry.get("skills", default_skills), where, errors)
    if stats is None or ok_skills is None:
        return None
    return kind, stats, ok_skills


def _stats(raw: Mapping[str, Any], where: str, errors: list[str], roster: bool) -> dict[str, int] | None:
    stats: dict[str, int] = {}
    extra = set(raw) - set(LIMITS) - ({"skills", "text"} if roster else set())
    if extra:
        errors.append(f"{where}: unknown stat {sorted(extra)[0]!r} (stats: {', '.join(LIMITS)})")
        return None
    for stat, (low, high) in LIMITS.items():
        value = raw.get(stat, DEFAULT_REACH if stat == "reach" else None)
        if value is None:
            errors.append(f"{where}: stat {stat} is missing")
            return None
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            errors.append(f"{where}: stat {stat} must be a whole number from {low} to {high}, not {value!r}")
            return None
        stats[stat] = value
    return stats


def _skills(skills: Any, where: str, errors: list[str]) -> list[str] | None:
    if not isinstance(skills, list) or not all(isinstance(s, str) for s in skills):
        errors.append(f"{where}: skills must be a list of skill names")
        return None
    for s in skills:
        if s not in SKILLS:
            errors.append(f"{where}: there is no skill {s!r} (skills: {', '.join(sorted(SKILLS))})")
            return None
    if len(set(skills)) != len(skills):
        errors.append(f"{where}: a skill is listed twice")
        return None
    return list(skills)


def force_lines(force: Mapping[str, Any], options: Mapping[str, Any]
                ) -> tuple[list[tuple[str, dict[str, int], list[str]]], list[str]]:
    """Every unit's (kind, stats, skills) and every reason the force is refused."""
    errors: list[str] = []
    units = force.get("units") if isinstance(force, Mapping) else None
    if not isinstance(units, list) or not units:
        return [], ["a force is {\"units\": [...]} with at least one unit"]
    extra = set(force) - {"units"}
    if extra:
        errors.append(f"unknown force field {sorted(extra)[0]!r} (only units)")
    limit = max_units(options)
    if len(units) > limit:
        errors.append(f"{len(units)} units is too many: at most {limit} on a {options['width']}-wide grid")
    lines = []
    for i, entry in enumerate(units, start=1):
        line = _entry_line(entry, f"unit {i}", errors)
        if line is not None:
            lines.append(line)
    if not errors:
        total = sum(unit_cost(stats, skills) for _, stats, skills in lines)
        if total > int(options["points"]):
            costs = ", ".join(f"{k} {unit_cost(s, sk)}" for k, s, sk in lines)
            errors.append(f"the force costs {total} points, over the budget of {options['points']} ({costs})")
    return lines, errors


def validate_force(force: Mapping[str, Any], options: Mapping[str, Any]) -> list[str]:
    return force_lines(force, options)[1]


def deploy_squares(seat: int, count: int, width: int, height: int) -> list[Square]:
    """Seat 0 fills rows 2 then 1, seat 1 the two top rows from the front; centre columns first."""
    front, back = (1, 0) if seat == 0 else (height - 2, height - 1)
    cols = sorted(range(width), key=lambda c: (abs(2 * c - (width - 1)), c))
    return [Square(c, row) for row in (front, back) for c in cols][:count]


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
