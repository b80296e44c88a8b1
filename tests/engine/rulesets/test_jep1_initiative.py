"""jep1 rulebook: order of action (seed, "INITIATIVE PHASE").

"Both combatants roll a d6 + their initiative score. The highest goes 1st. A tie would result in
a roll over until some one goes first. This only applies to the 1st round of combat, on further
rounds after the 1st, use the base score ... If there is a tie, roll off & keep this score for the
rest of the combat rounds."
"""

from engine.dice import ScriptedDice
from engine.rulesets.jep1.initiative import acting_order, first_round_order, keep_roll_offs

from .jep1_fixtures import RULES, play, state, unit


def test_round_one_is_d6_plus_initiative_highest_first():
    """A1 (I1) rolls 6 → 7, A2 (I3) rolls 2 → 5, B1 (I2) rolls 4 → 6."""
    units = [unit("A1", "a1", I=1), unit("A2", "b1", I=3), unit("B1", "a9", I=2)]
    dice = ScriptedDice([6, 2, 4])
    assert first_round_order(units, dice) == ["A1", "B1", "A2"]
    assert dice.unused == []


def test_round_one_ties_are_rerolled_among_the_tied_only():
    """A1 (I2) 3 → 5 and B1 (I1) 4 → 5 tie; B2 (I0) 6 → 6 goes first and does not roll again.
    A1 and B1 roll again: 1 → 3 and 5 → 6, so B1 before A1."""
    units = [unit("A1", "a1", I=2), unit("B1", "a9", I=1), unit("B2", "b9", I=0)]
    dice = ScriptedDice([3, 4, 6, 1, 5])
    assert first_round_order(units, dice) == ["B2", "B1", "A1"]
    assert [r.label for r in dice.rolls][3:] == ["A1 round-1 initiative d6+I re-roll",
                                                 "B1 round-1 initiative d6+I re-roll"]


def test_round_one_reroll_repeats_until_the_tie_is_broken():
    """'a roll over until some one goes first': 4/4, then 2/2 again, then 1/6."""
    units = [unit("A1", "a1", I=2), unit("B1", "a9", I=2)]
    dice = ScriptedDice([4, 4, 2, 2, 1, 6])
    assert first_round_order(units, dice) == ["B1", "A1"]
    assert dice.unused == []


def test_later_rounds_use_base_initiative():
    """From round 2 the base score decides, whatever round 1 rolled."""
    units = [unit("A1", "a1", I=1), unit("B1", "a9", I=4), unit("A2", "b1", I=2)]
    assert acting_order(units, 2, ["A1", "A2", "B1"]) == ["B1", "A2", "A1"]
    assert acting_order(units, 1, ["A1", "A2", "B1"]) == ["A1", "A2", "B1"]


def test_base_initiative_ties_are_rolled_off_once_and_kept():
    """A1 and B1 both have I2: they roll off (4/4 tie, then 2/6): B1 keeps first place. A2 (I3)
    has no tie and rolls nothing."""
    units = [unit("A1", "a1", I=2), unit("A2", "b1", I=3), unit("B1", "a9", I=2)]
    dice = ScriptedDice([4, 4, 2, 6])
    keep_roll_offs(units, dice)
    assert dice.unused == []
    for round_number in (2, 3, 9):
        assert acting_order(units, round_number, []) == ["A2", "B1", "A1"]


def test_setup_rolls_round_one_and_the_kept_roll_off_and_state_keeps_them():
    """One warrior each (I2): round 1 A1 3 + 2 = 5, B1 5 + 2 = 7. Roll-off: 4/4 tie, then 2/6."""
    opts = RULES.options({})
    force = {"units": ["warrior"]}
    dice = ScriptedDice([3, 5, 4, 4, 2, 6])
    s = RULES.setup(["alice", "bob"], {"alice": force, "bob": force}, opts, dice)
    assert dice.unused == []
    assert s.first == ["B1", "A1"]
    reloaded = RULES.load(RULES.dump(s))
    assert [(u.id, u.tie) for u in reloaded.units] == [("A1", 1), ("B1", 0)]


def test_units_act_in_the_round_one_order_then_by_base_initiative():
    """Round 1 follows the rolled order (A1 first), round 2 base I (B1, I3, first)."""
    s = state(unit("A1", "a1", I=1), unit("B1", "h8", I=3), round=1)
    s.first = ["A1", "B1"]
    r1 = play(s, {"alice": "A1 move a2", "bob": "B1 move h7"}, [])
    assert [e.data["unit"] for e in r1.events if e.kind == "move"] == ["A1", "B1"]
    r2 = play(r1.state, {"alice": "A1 move a3", "bob": "B1 move h6"}, [])
    assert [e.data["unit"] for e in r2.events if e.kind == "move"] == ["B1", "A1"]
