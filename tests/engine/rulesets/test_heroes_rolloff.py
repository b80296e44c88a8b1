"""Heroes United, "Rolling Off": the 3d20 Result, criticals, fails and the stat re-rolls."""

from __future__ import annotations

import pytest

from engine.dice import ScriptedDice
from engine.rulesets.heroes.rolloff import contest_key, read_dice, roll_off


def rolled(faces: list[int], stat: int, policy: str = "auto", modifier: int = 0):
    dice = ScriptedDice(faces)
    r = roll_off(dice, stat, "test", policy=policy, modifier=modifier)
    assert dice.unused == [], f"faces left over: {dice.unused}"
    return r


def test_a_one_fails():
    """"On a roll of a 1 you've failed at your task.\""""
    r = rolled([1, 12, 15], 3)
    assert r.fail and not r.critical
    assert not r.reaches(2)


def test_a_twenty_is_a_critical():
    """"On a roll of a 20 you've succeeded critically\""""
    r = rolled([3, 20, 4], 3)
    assert r.critical and r.result == 20
    assert r.reaches(99)


def test_one_and_twenty_cancel_and_the_third_die_decides():
    """"If you happen to roll both a 1 and a 20, they cancel out and you take the value of
    the third dice.\""""
    assert read_dice((1, 20, 7)).value == 7
    assert read_dice((20, 7, 1)) == read_dice((7, 1, 20))
    assert read_dice((1, 20, 20)).critical
    assert read_dice((1, 1, 20)).fail


def test_two_low_dice_take_the_lowest():
    """"If 2 dice are valued between 2 and 10 take the LOWEST valued dice.\""""
    assert read_dice((12, 5, 6)).value == 5
    assert read_dice((9, 3, 7)).value == 3


def test_two_high_dice_take_the_highest():
    """"If 2 dice are valued between 11 and 19 take the HIGHEST valued dice.\""""
    assert read_dice((18, 5, 11)).value == 18
    assert read_dice((11, 12, 19)).value == 19


def test_king_castro_attack_example():
    """"King Castro rolls a 18,5,11. With a (S) of 3 his total is 21.\""""
    assert rolled([18, 5, 11], 3).total == 21


def test_army_soldier_attack_example():
    """"Army Soldier rolls a 12,5,6. With a (R) of 3 his total is 8.\""""
    assert rolled([12, 5, 6], 3).total == 8


def test_king_castro_arm_example_errata_the_text_wins():
    """"King Castro rolls a 2,14,10. With a (U) of 4 his total is a 14." By the text the two
    low dice are 2 and 10 and the lowest, 2, is taken: 2 + 4 = 6 (docs/rulesets/heroes.md: the text wins)."""
    r = rolled([2, 14, 10], 4)
    assert r.result == 2
    assert r.total == 6


def test_army_soldier_arm_example():
    """"Army Soldier rolls a 8,19,6. With a (U) of 2 his total an 8.\""""
    assert rolled([8, 19, 6], 2).total == 8


def test_stat_of_five_rerolls_the_lowest_die_when_it_is_taken():
    """"Any S.U.P.E.R. stat of 5 or greater allows the lowest dice to be re-rolled." Policy
    auto: the lowest die (3) is the one taken, so it is re-rolled: 12,5,14 → 14."""
    r = rolled([3, 5, 14, 12], 5)
    assert r.dice == (12, 5, 14)
    assert r.result == 14 and r.total == 19


def test_stat_of_five_keeps_the_dice_when_the_highest_is_taken():
    """Policy auto does not touch a throw whose highest die is taken (no extra die rolled)."""
    r = rolled([3, 15, 14], 5)
    assert r.result == 15 and r.rerolls == ()


def test_stat_of_five_rerolls_a_one():
    """Policy auto re-rolls a 1, the fail: 1,15,14 → 9,15,14 → 15."""
    r = rolled([1, 15, 14, 9], 6)
    assert not r.fail and r.result == 15


def test_policy_never_keeps_the_lowest_die():
    r = rolled([3, 5, 14], 5, policy="never")
    assert r.result == 3


def test_policy_lowest_always_rerolls():
    r = rolled([3, 15, 14, 2], 5, policy="lowest")
    assert r.dice == (2, 15, 14) and r.result == 15


def test_stat_below_five_never_rerolls():
    r = rolled([3, 5, 14], 4, policy="lowest")
    assert r.result == 3


def test_stat_of_one_must_reroll_the_highest_die():
    """"Any S.U.P.E.R. stat of 1 must re-roll the highest dice." 3,15,14: the 15 is rolled
    again (4): 3,4,14 → 3, total 4."""
    r = rolled([3, 15, 14, 4], 1)
    assert r.dice == (3, 4, 14)
    assert r.total == 4


def test_modifiers_add_to_the_total():
    assert rolled([12, 5, 6], 3, modifier=-1).total == 7


@pytest.mark.parametrize(("a", "b", "winner"), [
    ([20, 2, 2], [19, 19, 19], "a"),   # a critical beats any total
    ([5, 6, 7], [1, 19, 19], "a"),     # a fail loses to anything
    ([20, 2, 2], [2, 20, 3], None),    # "only another Critical Hit can negate your roll"
])
def test_opposed_rolls(a, b, winner):
    """"If this is an opposed roll, only another Critical Hit can negate your roll\""""
    ka, kb = contest_key(rolled(a, 3)), contest_key(rolled(b, 4))
    assert (ka > kb, kb > ka) == (winner == "a", winner == "b")
