"""Forces: preset rosters (data/roster.json) and custom sheets within a points budget.

A force is `{"units": [...]}` where each entry is `{"preset": "knight"}` or a whole
sheet (see sheet.py). Its total cost must stay within the game's `points` option, and
it must fit its deployment zone.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from importlib import resources
from typing import Any

from engine.forcespec import Choice, Either, Field, ForceSpec, Items, Shape
from engine.rulesets.fivedice.sheet import Sheet, sheet_from, sheet_shape
from engine.rulesets.fivedice.terrain import zone_capacity

DEFAULT_FORCE = ("knight", "soldier", "archer", "mage")


def _load_presets() -> dict[str, Sheet]:
    text = resources.files(__package__).joinpath("data/roster.json").read_text("utf-8")
    presets: dict[str, Sheet] = {}
    for name, data in json.loads(text).items():
        if name.startswith("_"):
            continue
        errors: list[str] = []
        sheet = sheet_shape().read({**data, "name": name}, f"preset {name}", errors)
        if errors:
            raise ValueError("roster.json: " + "; ".join(errors))
        presets[name] = sheet_from(sheet)
    return presets


PRESETS = _load_presets()


def preset_line(sheet: Sheet) -> str:
    """A preset's sheet, gear and cost in one line, for the force builder."""
    gear = [*sheet.weapons, *([sheet.armor] if sheet.armor else []), *sheet.spells, *sheet.items]
    return (f"attack {sheet.attack}, initiative {sheet.initiative}, defence {sheet.defence}, "
            f"skill {sheet.skill}, movement {sheet.movement}, life {sheet.life}; "
            f"{', '.join(gear) or 'no gear'}; {sheet.cost} points")


def force_spec(options: Mapping[str, Any]) -> ForceSpec:
    """The force's fields: presets or whole sheets, as many as a deployment zone holds;
    the budget is a check."""
    capacity = zone_capacity(int(options["width"]), int(options["height"]))
    preset = Shape("a preset", (
        Field("preset", Choice("preset", tuple(sorted(PRESETS)), "a preset combat sheet", fold=True,
                               descriptions=tuple(preset_line(PRESETS[n]) for n in sorted(PRESETS))),
              required=True),
    ))
    unit = Either("a unit", (("preset", preset),), otherwise=sheet_shape())
    return ForceSpec(Shape("a force", (
        Field("units", Items("units", "unit", unit, capacity,
                             why_max=f"the deployment zone of {capacity} squares"), required=True),
    ), example='{"units": [{"preset": "knight"}]}'),
        notes=(f"The force's cost must be within the budget of {options['points']} points.",))


def read_force(force: Mapping[str, Any], options: Mapping[str, Any]) -> tuple[list[Sheet], list[str]]:
    """The sheets of a force and every reason to refuse it (empty when it is fine)."""
    value, errors = force_spec(options).read(force)
    if errors:
        return [], errors
    sheets = [PRESETS[u["preset"]] if "preset" in u else sheet_from(u) for u in value["units"]]
    total = sum(s.cost for s in sheets)
    if total > int(options["points"]):
        costs = ", ".join(f"{s.name} {s.cost}" for s in sheets)
        errors.append(f"the force costs {total} points ({costs}), over the budget of {options['points']}")
    return sheets, errors


def default_force(options: Mapping[str, Any]) -> dict[str, Any]:
    """Knight, soldier, archer, mage: as many of them, in that order, as the budget and
    the deployment zone allow; on a budget too small for any, one recruit that fits."""
    budget = int(options["points"])
    room = zone_capacity(int(options["width"]), int(options["height"]))
    units: list[dict[str, Any]] = []
    for name in DEFAULT_FORCE:
        if len(units) < room and PRESETS[name].cost <= budget:
            units.append({"preset": name})
            budget -= PRESETS[name].cost
    if not units:
        # attack 1 (3) + defence 1 (3) + movement 1 (2) = 8 points, the rest is life.
        units.append({"name": "recruit", "attack": 1, "initiative": 0, "defence": 1, "skill": 0,
                      "movement": 1, "life": max(1, min(40, budget - 8)), "weapons": [],
                      "armor": None, "spells": [], "items": []})
    return {"units": units}
