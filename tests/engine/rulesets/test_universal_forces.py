"""Point-buy for `universal` (docs/rulesets/universal.md, step 3 "Create characters using this system").

Costs are worked out by hand from the seed's table; every refused army names the unit
and the exact reason, and an over-budget army names its cost.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.contract import ForceError
from engine.dice import ScriptedDice
from engine.registry import find_ruleset
from engine.rulesets.universal.forces import (
    UnitSpec,
    defence_cost,
    health_cost,
    points,
    power_cost,
    unit_cost,
)

RULES = find_ruleset("universal")


def cost(ep: int = 1, pw: int = 1, d: int = 5, types: tuple[str, ...] = ()) -> str:
    """The cost in points of one character."""
    return points(unit_cost(UnitSpec("", ep, pw, d, types)))


def test_a_basic_character_costs_one_point():
    """"1/1/5 character - 1 point\""""
    assert cost() == "1"


def test_unit_types_cost_one_then_three():
    """"1st unit type for character - 1 point" / "2nd unit type for character - 3 points\""""
    assert cost(types=("runner",)) == "2"
    assert cost(types=("runner", "mortar")) == "5"


@pytest.mark.parametrize("bonus, half_points", [(1, 2), (2, 6), (3, 10), (4, 16), (6, 28), (7, 36), (8, 44)])
def test_power_is_priced_per_level(bonus, half_points):
    """"Power: +1 (2) - 1; +2, +3 - 2 each; +4, +5, +6 - 3 each; +7 and higher - 4 each"

    +1 = 1, +2 = 1+2 = 3, +3 = 5, +4 = 8, +6 = 14, +7 = 18, +8 = 22 points."""
    assert power_cost(bonus) == half_points


@pytest.mark.parametrize("bonus, half_points", [
    (2, 2), (4, 4), (6, 6), (8, 8), (9, 10), (12, 16), (13, 19), (14, 22)])
def test_defence_is_bought_in_levels(bonus, half_points):
    """"Defence: +2, +4, +6 - 1 each; +8, +9, +10, +11, +12 - 1 each; +13 and higher - 1.5 each"

    +2 = 1, +4 = 2, +6 = 3, +8 = 4, +9 = 5, +12 = 8, +13 = 9.5, +14 = 11 points."""
    assert defence_cost(bonus) == half_points


@pytest.mark.parametrize("bonus", [1, 3, 5, 7])
def test_defence_between_the_first_levels_cannot_be_bought(bonus):
    """"Defence: +2, +4, +6 - 1 each": +1, +3, +5 and +7 are not levels."""
    assert defence_cost(bonus) is None


@pytest.mark.parametrize("bonus, half_points", [(1, 4), (2, 8), (3, 14), (4, 22), (5, 32)])
def test_health_costs_the_previous_cost_plus_the_bonus(bonus, half_points):
    """"Health: +1 - 2; Higher - previous cost + bonus. +2 - 2 +2, +3 - 4 + 3, +4 - 7 + 4"

    +1 = 2, +2 = 4, +3 = 7, +4 = 11, +5 = 16 points."""
    assert health_cost(bonus) == half_points


def test_half_points_add_up_and_the_army_fits_the_budget_exactly():
    """"+13 and higher - 1.5 each": a D 18 (+13) character costs 1 + 9.5 = 10.5; two of them
    are 21 points, within a budget of 21 and over one of 20."""
    army = {"units": [{"d": 18}, {"d": 18}]}
    assert RULES.validate_force(army, RULES.options({"budget": 21})) == []
    assert RULES.validate_force(army, RULES.options({"budget": 20})) == [
        "the army costs 21 points, over the budget of 20 (unit 1 10.5, unit 2 10.5)"]


def test_a_malformed_army_is_refused_with_every_reason():
    """A refused army names each unit and what is wrong with it."""
    army = {"units": [
        {"name": "Tank", "pw": "big"},
        {"d": 6},
        {"types": ["runner", "flier"]},
        {"types": ["runner", "runner"]},
        {"types": ["runner", "mortar", "support"]},
        {"hp": 3},
        {"ep": 0},
    ]}
    assert RULES.validate_force(army, RULES.options({})) == [
        "unit 1 (Tank): Pw must be a whole number, not 'big'",
        "unit 2: defence 6 (+1) cannot be bought: defence comes in +2, +4, +6, +8, then every "
        "point from +9 (D 7, 9, 11, 13, 14, 15, ...)",
        "unit 3: 'flier' is not a unit type (mortar, runner, support, defender)",
        "unit 4: unit type runner is given twice",
        "unit 5: at most 2 unit types, not 3",
        "unit 6: unknown field hp (fields: name, EP, Pw, D, unit types (types))",
        "unit 7: EP must be between 1 and 30, not 0",
    ]


@pytest.mark.parametrize("force, reason", [
    ([], "a force must be an object like {\"units\": [...]}"),
    ({}, "a force needs units"),
    ({"units": []}, "units must be a list of at least 1 unit"),
    ({"units": [1]}, "unit 1: must be an object like {\"pw\": 2, \"types\": [\"runner\"]}"),
])
def test_a_force_that_is_not_a_list_of_units_is_refused(force, reason):
    assert RULES.validate_force(force, RULES.options({})) == [reason]


def test_the_default_force_is_valid_and_costs_19_points():
    """Each seat's default: 2 Mortars (2 each), 2 Pw 2 Runners (3), 2 Pw 2 fighters (2), a
    Support (2) and a D 7 Defender (3) = 19 points, inside the default budget of 20."""
    options = RULES.options({})
    force = RULES.default_force(0, options)
    assert RULES.validate_force(force, options) == []
    assert RULES.validate_force(force, RULES.options({"budget": 18})) == [
        "the army costs 19 points, over the budget of 18 (unit 1 2, unit 2 2, unit 3 3, unit 4 3, "
        "unit 5 2, unit 6 2, unit 7 2, unit 8 3)"]


def test_setup_places_each_side_on_its_own_edge():
    """docs/rulesets/universal.md: each side starts on its own edge: seat 0 bottom, 1 top, 2 left, 3 right."""
    players = ["alice", "bob", "carol", "dave"]
    army = {"units": [{}, {}, {}]}
    state = RULES.setup(players, dict.fromkeys(players, army), RULES.options({}), ScriptedDice([]))
    squares = {uid: u.square.name for uid, u in state.units.items()}
    assert squares == {"A1": "f1", "A2": "g1", "A3": "e1", "B1": "f12", "B2": "g12", "B3": "e12",
                       "C1": "a6", "C2": "a7", "C3": "a5", "D1": "l6", "D2": "l7", "D3": "l5"}


def test_an_army_too_big_for_the_board_is_refused_at_setup():
    """Half the board's depth is a side's to fill; more units than that is a ForceError."""
    options = RULES.options({"width": 4, "height": 4, "budget": 100})
    army = {"units": [{}] * 9}
    with pytest.raises(ForceError, match="9 units do not fit on a 4x4 grid"):
        RULES.setup(["alice", "bob"], {"alice": army, "bob": army}, options, ScriptedDice([]))


@given(st.integers(1, 20), st.integers(1, 20), st.sampled_from([5, 7, 9, 11, 13, 14, 20, 30]),
       st.integers(0, 2))
def test_more_of_any_stat_never_costs_less(ep, pw, d, n_types):
    """The seed's tables only ever add: one more EP, Pw, defence level or type costs more."""
    types = ("runner", "support")[:n_types]
    base = unit_cost(UnitSpec("", ep, pw, d, types))
    assert unit_cost(UnitSpec("", ep + 1, pw, d, types)) > base
    assert unit_cost(UnitSpec("", ep, pw + 1, d, types)) > base
    assert unit_cost(UnitSpec("", ep, pw, d + 2, types)) > base
    if n_types < 2:
        assert unit_cost(UnitSpec("", ep, pw, d, ("runner", "support")[:n_types + 1])) > base
