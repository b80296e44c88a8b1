"""Rulebook cases for `universal` (docs/rulesets/universal.md):
house rules, the game's own unit types and terrain.

"System is very, very moddable. You decide on how big arena of battle is ... You can add
own properties as well. Want unit that gain extra power during counterattack? Why don't
you just make it"

One test per effect. Each docstring quotes the seed sentence it checks; the dice are
scripted and the expected result is worked out by hand. Positions: universal_positions.py.
"""

from __future__ import annotations

from typing import Any

import pytest

from engine.contract import OptionError
from engine.dice import ScriptedDice
from engine.grid import parse_square
from engine.orders import OrderErrors
from engine.rulesets.universal.house import UnitTypeError
from tests.engine.rulesets.universal_positions import RULES, first, position, resolve


def house(name: str, cost: int = 1, **effects: int) -> list[dict[str, Any]]:
    return [{"name": name, "cost": cost, "effects": effects}]


# -- Effects --------------------------------------------------------------------------------

def test_a_power_type_rolls_one_more_die():
    """"You can add own properties as well": a type with power +1.

    Brute A1 (Pw 1 + 1) attacks B1 (D 5): 2 - 1 + 1 (itself) = 2 dice. 5, 2: the 5 reaches
    5 with one die, 1 unused: 1 damage."""
    state = position("A1 c3 brute\nB1 c4\nB2 h8", unit_types=house("brute", power=1))
    _after, events = resolve(state, [5, 2], alice="A1 attack B1")
    attack = first(events, "attack")
    assert (len(attack["faces"]), attack["damage"]) == (2, 1)


def test_a_defence_type_raises_the_defence_it_is_attacked_at():
    """"You can add own properties as well": a type with defence +2.

    A1 (Pw 2, 2 dice) attacks shielded B1 (D 5 + 2 = 7). 6, 1: 6 falls short, 6 + 1 = 7
    uses both: 0 damage; B1 (Pw 1) has no counterattack dice."""
    state = position("A1 c3 pw=2\nB1 c4 shielded", unit_types=house("shielded", defence=2))
    _after, events = resolve(state, [6, 1], alice="A1 attack B1")
    attack = first(events, "attack")
    assert (attack["defence"], attack["damage"]) == (7, 0)
    assert first(events, "counter")["dice"] == 0


def test_an_endurance_type_starts_with_more_ep_and_costs_its_points():
    """"Health: +1 - 2" is bought; a type's endurance comes with the type instead.

    Sturdy (cost 2, endurance +2) on a basic character: EP 1 + 2 = 3. Cost: basic 1 +
    first type slot 1 + the type's 2 = 4 points, over a budget of 3."""
    options = RULES.options({"unit_types": house("sturdy", cost=2, endurance=2), "budget": 3})
    force = {"units": [{"name": "Wall", "types": ["sturdy"]}]}
    assert RULES.validate_force(force, options) == [
        "the army costs 4 points, over the budget of 3 (unit 1 4)"]
    options = {**options, "budget": 4}
    assert RULES.validate_force(force, options) == []
    state = RULES.setup(["alice", "bob"], {"alice": force, "bob": force}, options,
                        ScriptedDice([]))
    assert (state.units["A1"].ep, state.units["A1"].max_ep) == (3, 3)


def test_a_movement_type_moves_one_square_further():
    """"Each unit can move 2 squares": a type with movement +1 moves 3.

    Swift A1 goes a1 → d1 (3 plain steps); plain A2 cannot go a3 → d3."""
    options = {"unit_types": house("swift", movement=1)}
    state = position("A1 a1 swift\nA2 a3\nB1 h8", **options)
    after, _events = resolve(state, [], alice="A1 move d1")
    assert after.units["A1"].square == parse_square("d1")
    with pytest.raises(OrderErrors, match="no path within its movement of 2 squares"):
        RULES.parse_orders(state, "alice", "A2 move d3")


def test_power_only_when_attacking():
    """"You can add own properties as well": power +1 when it attacks.

    Charger A1 attacks with 2 dice (Pw 1 + 1). 4, 1: 4 + 1 = 5 uses both: 0 damage. Then
    B1, a charger too, counterattacks with Pw 1 - 1 = 0 dice: the bonus is not for that."""
    state = position("A1 c3 charger\nB1 c4 charger", unit_types=house("charger", power_attacking=1))
    _after, events = resolve(state, [4, 1], alice="A1 attack B1")
    assert (len(first(events, "attack")["faces"]), first(events, "attack")["damage"]) == (2, 0)
    assert first(events, "counter")["dice"] == 0


def test_power_only_when_counterattacking():
    """"Want unit that gain extra power during counterattack? Why don't you just make it"

    A1 attacks berserker B1 with 1 die: 3 against D 5, 0 damage. B1 counterattacks with
    Pw 1 + 2 - 1 = 2 dice (adjacent): 6, 4: the 6 reaches A1's D 5, 1 unused: 1 damage,
    A1 (EP 1) is defeated and bob gets a token on c3."""
    state = position("A1 c3\nA2 h1\nB1 c4 berserker",
                     unit_types=house("berserker", power_counterattacking=2))
    after, events = resolve(state, [3, 6, 4], alice="A1 attack B1")
    counter = first(events, "counter")
    assert (counter["faces"], counter["damage"]) == ([6, 4], 1)
    assert after.occupied()[parse_square("c3")].side == "bob"


def test_defence_only_when_defending():
    """"You can add own properties as well": defence +2 when it is attacked.

    A1 (Pw 2, 2 dice) attacks guard B1: D 5 + 2 = 7. 6, 1 need both: 0 damage."""
    state = position("A1 c3 pw=2\nB1 c4 guard", unit_types=house("guard", defence_defending=2))
    _after, events = resolve(state, [6, 1], alice="A1 attack B1")
    assert (first(events, "attack")["defence"], first(events, "attack")["damage"]) == (7, 0)


def test_defence_only_when_attacking():
    """"Counterattack: ... Defender roll dices equal to his power -1": against the
    counterattack to its own attack, a bold type has defence +2.

    Bold A1 attacks B1 (Pw 3): 1 die, 2 against D 5, 0 damage. B1 counterattacks with
    3 - 1 = 2 dice, 6 and 1, against A1's D 5 + 2 = 7: both used, 0 damage (without the
    bonus the 6 alone would reach 5: 1 damage)."""
    state = position("A1 c3 bold\nB1 c4 pw=3", unit_types=house("bold", defence_attacking=2))
    after, events = resolve(state, [2, 6, 1], alice="A1 attack B1")
    counter = first(events, "counter")
    assert (counter["defence"], counter["damage"]) == (7, 0)
    assert "A1" in after.units


def test_a_ranged_type_hits_within_its_range():
    """"Mortar: +3 power, can't hit enemy within 3 squares" - a type may declare its own
    range: an archer hits at 2 to 3 squares.

    Archer A1 (c3) attacks B1 on c6, 3 squares away: 1 die (itself), 5 against D 5: 1 die
    used, 0 unused, 0 damage; B1 counterattacks with 1 - 1 - 1 = 0 dice (not adjacent)."""
    state = position("A1 c3 archer\nB1 c6", unit_types=house("archer", min_range=2, max_range=3))
    _after, events = resolve(state, [5], alice="A1 attack B1")
    assert first(events, "attack")["damage"] == 0


def test_a_ranged_type_cannot_hit_outside_its_range():
    """The archer (range 2 to 3) cannot hit an adjacent enemy nor one 4 squares away."""
    options = {"unit_types": house("archer", min_range=2, max_range=3)}
    state = position("A1 c3 archer\nB1 c4\nB2 c7", **options)
    with pytest.raises(OrderErrors, match="A1 hits only enemies at least 2 squares away, not B1"):
        RULES.parse_orders(state, "alice", "A1 attack B1")
    with pytest.raises(OrderErrors, match="B2 is 4 squares away, beyond A1's range of 3"):
        RULES.parse_orders(state, "alice", "A1 attack B2")


def test_extra_dice_when_supporting():
    """"For each character adjacent to both attacker and defender ... add one dice": a
    drummer adds one more.

    Drummer A2 (d3) is next to A1 (c3) and B1 (c4): 1 (A1) + 1 (A2) + 1 (drum) = 3 dice.
    4, 1, 1: 4 + 1 = 5 with two, one unused: 1 damage (with 2 dice, 4 + 1 = 5: 0)."""
    state = position("A1 c3\nA2 d3 drummer\nB1 c4\nB2 h8", unit_types=house("drummer", support_dice=1))
    _after, events = resolve(state, [4, 1, 1], alice="A1 attack B1")
    assert first(events, "attack")["damage"] == 1


def test_defence_per_adjacent_enemy():
    """"Defender: +2 defence per enemy adjacent to both attacker and defender, not counting
    attacker" - a bulwark type gets +1 for each.

    A2 (d3) touches A1 (c3) and bulwark B1 (c4): A1 rolls 2 dice against 5 + 1 = 6. 5, 1
    use both: 0 damage."""
    state = position("A1 c3\nA2 d3\nB1 c4 bulwark", unit_types=house("bulwark", defence_per_enemy=1))
    _after, events = resolve(state, [5, 1], alice="A1 attack B1")
    attack = first(events, "attack")
    assert (attack["defence"], attack["defender_bonus"], attack["damage"]) == (6, 1, 0)


def test_steady_enters_squares_next_to_an_enemy_at_cost_one():
    """"One square adjacent to enemiemy is equal to 1.5 squares": not for a steady type.

    B1 stands on d3. Steady A1 goes a1 → b2 → c2 (c2 is next to d3): 1 + 1 = 2. Plain A2
    cannot go a4 → b3 → c4 (c4 is next to d3): 1 + 1.5 = 2.5 > 2."""
    state = position("A1 a1 steady\nA2 a4\nB1 d3", unit_types=house("steady", steady=1))
    after, _events = resolve(state, [], alice="A1 move b2 c2")
    assert after.units["A1"].square == parse_square("c2")
    with pytest.raises(OrderErrors, match="no path within its movement"):
        RULES.parse_orders(state, "alice", "A2 move b3 c4")


# -- Checking the definitions ---------------------------------------------------------------

@pytest.mark.parametrize(("value", "field", "message"), [
    ({"name": "x"}, "unit_types", "must be a list of unit types"),
    (["brute"], "unit_types[0]", "must be an object like"),
    ([{"name": "Brute", "cost": 1, "effects": {"power": 1}}], "unit_types[0].name",
     "must be 1 to 20 lower-case letters"),
    ([{"name": "mortar", "cost": 1, "effects": {"power": 1}}], "unit_types[0].name",
     "mortar is a built-in unit type"),
    ([{"name": "brute", "effects": {"power": 1}}], "unit_types[0].cost", "is missing"),
    ([{"name": "brute", "cost": 1.5, "effects": {"power": 1}}], "unit_types[0].cost",
     "must be a whole number from 0 to 100, not 1.5"),
    ([{"name": "brute", "cost": 1, "effects": {}}], "unit_types[0].effects",
     "must be a non-empty object of effects"),
    ([{"name": "brute", "cost": 1, "effects": {"fly": 1}}], "unit_types[0].effects.fly",
     "is not an effect the engine implements"),
    ([{"name": "brute", "cost": 1, "effects": {"power": 11}}], "unit_types[0].effects.power",
     "must be from 1 to 10, not 11"),
    ([{"name": "bow", "cost": 1, "effects": {"min_range": 4, "max_range": 2}}],
     "unit_types[0].effects.max_range", "must be at least min_range (4)"),
    ([{"name": "brute", "cost": 1, "effects": {"power": 1}, "colour": "red"}],
     "unit_types[0].colour", "is not a field of a unit type"),
    ([{"name": "brute", "cost": 1, "effects": {"power": 1}},
      {"name": "brute", "cost": 2, "effects": {"defence": 1}}], "unit_types[1].name",
     "brute is defined twice"),
])
def test_a_bad_unit_type_is_refused_naming_the_field(value: Any, field: str, message: str):
    with pytest.raises(UnitTypeError) as caught:
        RULES.options({"unit_types": value})
    assert isinstance(caught.value, OptionError)
    assert caught.value.name == field
    assert message in str(caught.value)


def test_a_force_names_only_known_types_and_one_range():
    """"1st unit type for character - 1 point, 2nd unit type for character - 3 points": a
    game's own types are unit types, and a character has one attack range at most."""
    options = RULES.options({"unit_types": house("archer", min_range=2)})
    force = {"units": [{"types": ["mortar", "archer"]}, {"types": ["ninja"]}]}
    assert RULES.validate_force(force, options) == [
        "unit 1: mortar and archer both set the attack range; a character can have only one of them",
        "unit 2: 'ninja' is not a unit type (mortar, runner, support, defender, archer)",
    ]


def test_the_types_are_recorded_in_the_state():
    """The checked list is kept in the options every state carries (replays see it)."""
    types = house("brute", power=1)
    state = position("A1 c3 brute\nB1 c4", unit_types=types)
    assert RULES.dump(state)["options"]["unit_types"] == types
    assert "Brute" in RULES.board(state).pieces[0].note


# -- Terrain ----------------------------------------------------------------------------------

def test_a_move_goes_around_a_wall():
    """"You decide on how big arena of battle is": a wall square cannot be entered.

    A1 on a1 to c1 with a wall on b1: straight through b1 is shut, so it goes a1 → b2 → c1
    (two diagonal-and-back steps, 1 + 1 = 2). A move onto the wall is refused."""
    state = position("A1 a1\nB1 h8", terrain={"b1": "wall"})
    after, events = resolve(state, [], alice="A1 move c1")
    assert first(events, "move")["squares"] == ["a1", "b2", "c1"]
    assert after.units["A1"].square == parse_square("c1")
    with pytest.raises(OrderErrors, match="b1 is impassable"):
        RULES.parse_orders(state, "alice", "A1 move b1")


def test_a_rough_square_costs_one_and_a_half():
    """"One square adjacent to enemiemy is equal to 1.5 squares - and 0.5 is rounded
    down": a rough square costs 1.5 the same way.

    A1 on a1 with rough b1: a1 → b1 → c1 costs 1.5 + 1 = 2.5 > 2, so the cheapest path to
    c1 avoids it (a1 → b2 → c1); stopping on b1 is fine (1.5), going on to b1 then c1 is not."""
    state = position("A1 a1\nB1 h8", terrain={"b1": "rough"})
    _after, events = resolve(state, [], alice="A1 move c1")
    assert first(events, "move")["squares"] == ["a1", "b2", "c1"]
    with pytest.raises(OrderErrors, match=r"the cheapest way costs 2\.5 squares, since entering b1 \(rough\) costs 1\.5"):
        RULES.parse_orders(state, "alice", "A1 move b1 c1")
    assert RULES.parse_orders(state, "alice", "A1 move b1")


def test_ruins_layout_and_the_armies_on_their_edges():
    """The `ruins` layout on 12 x 12: walls d6, d7, i6, i7; rough f6, f7, g6, g7; the board
    names both in its legend and no unit starts on a wall."""
    options = RULES.options({"terrain": "ruins"})
    forces = {p: RULES.default_force(i, options) for i, p in enumerate(["alice", "bob"])}
    state = RULES.setup(["alice", "bob"], forces, options, ScriptedDice([]))
    assert state.terrain == {"d6": "wall", "d7": "wall", "i6": "wall", "i7": "wall",
                             "f6": "rough", "f7": "rough", "g6": "rough", "g7": "rough"}
    board = RULES.board(state)
    assert board.terrain == state.terrain
    assert set(board.legend) == {"wall", "rough"}


def test_scattered_terrain_is_drawn_by_the_setup_dice():
    """`scattered` on 8 x 8: 64 // 24 = 2 walls and 2 rough squares on the 4 x 4 inner area
    (c3..f6, in rows from c3). Faces 1, 1, 14, 1: the wall takes the first free square
    (c3), the next wall the first free one (d3), rough the 14th free one of 14 (f6), then
    the first free one (e3)."""
    options = RULES.options({"terrain": "scattered", "width": 8, "height": 8})
    forces = {p: {"units": [{}]} for p in ["alice", "bob"]}
    dice = ScriptedDice([1, 1, 14, 1])
    state = RULES.setup(["alice", "bob"], forces, options, dice)
    assert dice.unused == []
    assert state.terrain == {"c3": "wall", "d3": "wall", "f6": "rough", "e3": "rough"}
