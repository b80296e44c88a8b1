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

from engine.rulesets.fivedice.sheet import Sheet, read_sheet
from engine.rulesets.fivedice.terrain import zone_capacity

DEFAULT_FORCE = ("knight", "soldier", "archer", "mage")


def _load_presets() -> dict[str, Sheet]:
    text = resources.files(__package__).joinpath("data/roster.json").read_text("utf-8")
    presets: dict[str, Sheet] = {}
    for name, data in json.loads(text).items():
        if name.startswith("_"):
            continue
        errors: list[str] = []
        sheet = read_sheet({**data, "name": name}, f"preset {name}", errors)
        if sheet is None:
            raise ValueError("roster.json: " + "; ".join(errors))
        presets[name] = sheet
    return presets


PRESETS = _load_presets()


def read_force(force: Mapping[str, Any], options: Mapping[str, Any]) -> tuple[list[Sheet], list[str]]:
    """The sheets of a force and every reason to refuse it (empty when it is fine)."""
    errors: list[str] = []
    if not isinstance(force, Mapping):
        return [], ["a force must be an object like {\"units\": [{\"preset\": \"knight\"}]}"]
    for key in sorted(set(force) - {"units"}):
        errors.append(f"unknown field {key!r} (a force has only \"units\")")
    units = force.get("units")
    if not isinstance(units, list) or not units:
        return [], [*errors, "units must be a non-empty list"]
    sheets: list[Sheet] = []
    for n, entry in enumerate(units, start=1):
        where = f"unit {n}"
        if not isinstance(entry, Mapping):
            errors.append(f"{where}: must be an object")
        elif "preset" in entry:
            preset = entry["preset"]
            if set(entry) != {"preset"}:
                errors.append(f"{where}: a preset entry has only the field \"preset\"")
            elif not isinstance(preset, str) or preset.lower() not in PRESETS:
                errors.append(f"{where}: unknown preset {preset!r} (known: {', '.join(sorted(PRESETS))})")
            else:
                sheets.append(PRESETS[preset.lower()])
        else:
            sheet = read_sheet(entry, where, errors)
            if sheet is not None:
                sheets.append(sheet)
    capacity = zone_capacity(int(options["width"]), int(options["height"]))
    if len(units) > capacity:
        errors.append(f"{len(units)} units do not fit the deployment zone of {capacity} squares")
    total = sum(s.cost for s in sheets)
    if not errors and total > int(options["points"]):
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
