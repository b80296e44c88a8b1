"""The declarative force fields (engine.forcespec): every refusal names its place and the
field as the player knows it; the JSON Schema says the same shape."""

from __future__ import annotations

import json
from typing import Any

import pytest

from engine.forcespec import INVALID, Choice, Either, Field, ForceSpec, Items, Names, Shape, Text, Whole
from engine.registry import find_ruleset, ruleset_ids

UNIT = Shape("a unit", (
    Field("name", Text("name", 10), ""),
    Field("pw", Whole("Pw", 1, 5, "power"), 1),
    Field("types", Names("unit types", "unit type", ("runner", "mortar"), 1), []),
), example='{"pw": 2}', title_key="name",
    check=lambda u: ["a mortar has Pw 1"] if "mortar" in u["types"] and u["pw"] > 1 else [])
SPEC = ForceSpec(Shape("a force", (Field("units", Items("units", "unit", UNIT, 4), required=True),)))


def test_a_good_force_is_read_with_defaults_and_folded_names() -> None:
    value, reasons = SPEC.read({"units": [{"types": ["Runner"]}, {"name": "Big", "pw": 5}]})
    assert reasons == []
    assert value == {"units": [{"name": "", "pw": 1, "types": ["runner"]},
                               {"name": "Big", "pw": 5, "types": []}]}


def test_every_refusal_names_the_unit_and_the_field() -> None:
    force = {"units": [{"name": "Tank", "pw": "big"}, {"hp": 1}, {"types": ["mortar"], "pw": 2},
                       {"types": ["flier", "runner"]}]}
    value, reasons = SPEC.read(force)
    assert value is INVALID
    assert reasons == [
        "unit 1 (Tank): Pw must be a whole number, not 'big'",
        "unit 2: unknown field hp (fields: name, Pw, unit types (types))",
        "unit 3: a mortar has Pw 1",
        "unit 4: 'flier' is not a unit type (runner, mortar)",
        "unit 4: at most 1 unit types, not 2",
    ]


@pytest.mark.parametrize("force, reason", [
    ([], 'a force must be an object'),
    ({}, "a force needs units"),
    ({"units": []}, "units must be a list of at least 1 unit"),
    ({"units": [{}] * 5}, "at most 4 units, not 5"),
    ({"units": [7]}, 'unit 1: must be an object like {"pw": 2}'),
])
def test_a_force_of_the_wrong_shape_gets_one_clear_reason(force: Any, reason: str) -> None:
    assert SPEC.read(force)[1] == [reason]


def test_either_tells_shapes_apart_by_their_key() -> None:
    preset = Shape("a preset", (Field("preset", Choice("preset", ("knight",)), required=True),))
    stats = Shape("a stat line", (Field("stats", Whole("stats", 0, 9), required=True),))
    unit = Either("a unit", (("preset", preset), ("stats", stats)), bare="preset")
    reasons: list[str] = []
    assert unit.read("knight", "unit 1", reasons) == {"preset": "knight"}
    assert unit.read({"stats": 3}, "unit 2", reasons) == {"stats": 3}
    assert unit.read({"preset": "knight", "stats": 3}, "unit 3", reasons) is INVALID
    assert unit.read({}, "unit 4", reasons) is INVALID
    assert reasons == ["unit 3: give preset or stats, not both", "unit 4: give preset or stats, not neither"]
    assert [s.get("required") for s in unit.schema()["oneOf"][:2]] == [["preset"], ["stats"]]


def test_the_schema_says_the_same_shape() -> None:
    schema = SPEC.schema()
    assert schema["required"] == ["units"] and schema["additionalProperties"] is False
    units = schema["properties"]["units"]
    assert (units["type"], units["minItems"], units["maxItems"]) == ("array", 1, 4)
    pw = units["items"]["properties"]["pw"]
    assert pw == {"type": "integer", "minimum": 1, "maximum": 5, "title": "Pw", "description": "power",
                  "default": 1}
    assert units["items"]["properties"]["types"]["items"]["enum"] == ["runner", "mortar"]


def _fits(value: Any, schema: dict[str, Any]) -> bool:
    """The part of JSON Schema the force specs publish, checked by hand (no dependency)."""
    if "oneOf" in schema:
        return sum(_fits(value, s) for s in schema["oneOf"]) == 1
    if "anyOf" in schema:
        return any(_fits(value, s) for s in schema["anyOf"])
    kind = schema["type"]
    if kind == "null":
        return value is None
    if kind == "integer":
        return (isinstance(value, int) and not isinstance(value, bool)
                and schema["minimum"] <= value <= schema["maximum"])
    if kind == "string":
        return isinstance(value, str) and (value in schema["enum"] if "enum" in schema
                                           else schema["minLength"] <= len(value) <= schema["maxLength"])
    if kind == "array":
        return (isinstance(value, list) and schema.get("minItems", 0) <= len(value) <= schema["maxItems"]
                and all(_fits(v, schema["items"]) for v in value))
    return (isinstance(value, dict) and set(schema.get("required", [])) <= set(value)
            and set(value) <= set(schema["properties"])
            and all(_fits(v, schema["properties"][k]) for k, v in value.items()))


@pytest.mark.parametrize("ruleset_id", ruleset_ids())
def test_each_rulesets_default_force_fits_its_published_schema(ruleset_id: str) -> None:
    ruleset = find_ruleset(ruleset_id)
    options = ruleset.options({})
    schema = ruleset.force_schema(options)
    assert json.loads(json.dumps(schema)) == schema
    assert schema["$schema"].endswith("2020-12/schema")
    for seat in range(ruleset.info.max_players):
        force = ruleset.default_force(seat, options)
        assert _fits(force, schema), (seat, force)
    assert not _fits({"units": "many", "hero": 3}, schema)
