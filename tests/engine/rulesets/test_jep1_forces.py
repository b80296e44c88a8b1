"""jep1 forces: roster presets and custom stat lines within a points budget (costs.py)."""

import pytest

from engine.grid import parse_square
from engine.rulesets.jep1.costs import stat_cost, unit_cost
from engine.rulesets.jep1.forces import ROSTER, build_units

from .jep1_fixtures import RULES

OPTS = RULES.options({})


def preset_cost(name):
    entry = ROSTER[name]
    return unit_cost({k: entry[k] for k in ("I", "M", "R", "S", "T", "A", "H", "reach")}, entry["skills"])


def test_cost_table_by_hand():
    """M rises 3, 4, 5...; R 2, 3, 4...; I 2, S 3, T 3, A 8, H 4 each; reach above 8 costs 1 a square."""
    assert [stat_cost("M", n) for n in (1, 2, 3)] == [3, 7, 12]
    assert [stat_cost("R", n) for n in (0, 1, 2, 3)] == [0, 2, 5, 9]
    assert (stat_cost("I", 2), stat_cost("S", 3), stat_cost("T", 5), stat_cost("A", 1), stat_cost("H", 3)) == \
        (4, 9, 15, 8, 12)
    assert (stat_cost("reach", 6), stat_cost("reach", 8), stat_cost("reach", 10)) == (0, 0, 2)


def test_warrior_costs_its_stat_line_plus_skills():
    """I2 4 + M2 7 + R0 0 + S3 9 + T5 15 + A0 0 + H3 12 = 47; berserk 6 + parry 6 = 59."""
    assert preset_cost("warrior") == 59


def test_default_force_is_valid_within_the_default_budget():
    force = RULES.default_force(0, OPTS)
    assert RULES.validate_force(force, OPTS) == []
    assert sum(preset_cost(name) for name in force["units"]) <= OPTS["points"]


def test_over_budget_force_is_refused_with_its_cost():
    force = {"units": ["knight"] * 5}
    assert RULES.validate_force(force, OPTS) == [
        "the force costs 370 points, over the budget of 300 (knight 74, knight 74, knight 74, knight 74, knight 74)"]
    assert RULES.validate_force(force, {"points": 400}) == []


@pytest.mark.parametrize("force, message", [
    ({}, "a force needs units"),
    ({"units": ["dragon"]}, "unit 1: preset 'dragon' is not one of archer, brute, knight, scout, warrior"),
    ({"units": ["scout", {"stats": {"I": 1}}]}, "unit 2: M is missing"),
    ({"units": [{"stats": {"I": 1, "M": 9, "R": 0, "S": 1, "T": 1, "A": 0, "H": 1}}]},
     "unit 1: M must be between 1 and 6, not 9"),
    ({"units": [{"preset": "scout", "skills": ["fly"]}]}, "unit 1: 'fly' is not a skill"),
    ({"units": [{"preset": "scout", "stats": {}}]}, "unit 1: give preset or stats, not both"),
    ({"units": [{"preset": "scout", "hat": 1}]}, "unit 1: unknown field hat (fields: preset, skills)"),
    ({"units": ["scout"] * 17}, "at most 16 units, not 17 (two rows a side on a 12-wide grid)"),
])
def test_bad_forces_are_refused_naming_the_unit_and_field(force, message):
    assert any(e.startswith(message) for e in RULES.validate_force(force, {"points": 5000})), \
        RULES.validate_force(force, {"points": 5000})


def test_narrow_grid_limits_units_to_two_rows():
    assert "at most 8 units, not 9 (two rows a side on a 4-wide grid)" in RULES.validate_force(
        {"units": ["scout"] * 9}, {"width": 4, "points": 5000})


def test_custom_stat_line_and_preset_skill_override_build_units():
    force = {"units": [{"stats": {"I": 3, "M": 2, "R": 1, "S": 2, "T": 4, "A": 0, "H": 2}, "skills": ["lucky"]},
                       {"preset": "knight", "skills": ["tough", "shield"]}]}
    a1, a2 = build_units(0, "alice", force, OPTS)
    assert (a1.id, a1.kind, a1.I, a1.reach, a1.skills, a1.uses) == ("A1", "custom", 3, 8, ("lucky",), {"lucky": 3})
    assert (a2.id, a2.kind, a2.A, a2.skills) == ("A2", "knight", 1, ("tough", "shield"))


def test_sides_deploy_on_their_own_two_rows_centre_first():
    """Seat 0 fills row 2 then row 1; seat 1 row 11 then row 12 (on 12 x 12), middle columns first."""
    a = build_units(0, "alice", {"units": ["scout"] * 3}, OPTS)
    b = build_units(1, "bob", {"units": ["scout"] * 13}, {**OPTS, "points": 5000})
    assert [u.at for u in a] == [parse_square(s) for s in ("f2", "g2", "e2")]
    assert [u.id for u in b[:2]] == ["B1", "B2"]
    assert b[0].at == parse_square("f11") and b[12].at == parse_square("f12")
