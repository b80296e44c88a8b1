"""Heroes United combat: facing, reach, the generic modifiers, strikes, ARM and knock-outs."""

from __future__ import annotations

from engine.dice import ScriptedDice
from engine.grid import parse_square
from engine.rulesets.heroes.combat import attack, modifiers, take_strike
from engine.rulesets.heroes.facing import back_squares, front_squares, reach

from .heroes_fixtures import civvie, henchman, hero, nemesis, state, texts


def sqs(*names: str) -> set:
    return {parse_square(n) for n in names}


def test_front_and_back_squares():
    """docs/rulesets/heroes.md: "Melee reaches the 3 squares in front and the same space ... Back = the 3
    squares behind.\""""
    assert set(front_squares(parse_square("e5"), "n")) == sqs("d6", "e6", "f6")
    assert set(front_squares(parse_square("e5"), "ne")) == sqs("e6", "f6", "f5")
    assert set(back_squares(parse_square("e5"), "n")) == sqs("d4", "e4", "f4")


def test_close_combat_reach():
    """"Close Combat Heroes can attack up to one space away any square in front of them.\""""
    assert reach(parse_square("e5"), "e", False) == sqs("e5", "f6", "f5", "f4")


def test_ranged_reach_adds_the_square_two_ahead():
    """"Ranged Heroes can attack like Close Combat Heroes in addition to being able to attack
    an enemy directly in front of them 2 spaces away.\""""
    assert reach(parse_square("e5"), "e", True) == sqs("e5", "f6", "f5", "f4", "g5")


def test_attacking_the_back_is_plus_one():
    """"Attacking an opponent's back: +1 to Result\""""
    s = state()
    z = hero(s, "alice", "zenith", "e4", "n")
    h = henchman(s, "e5", facing="n")  # e4 is behind it
    assert modifiers(s, z, h, moved=False, ranged=False) == [("back", 1)]
    h.facing = "s"
    assert modifiers(s, z, h, moved=False, ranged=False) == []


def test_moving_before_attacking_is_minus_one():
    """"Moving before attacking: -1 to Result\""""
    s = state()
    z = hero(s, "alice", "zenith", "e4", "n")
    h = henchman(s, "e5", facing="s")
    assert modifiers(s, z, h, moved=True, ranged=False) == [("moved", -1)]


def test_ranged_from_or_to_a_rooftop_is_minus_three():
    """"Ranged Hero attacking from/to rooftop: -3 to Result" (melee is not affected)."""
    s = state(roofs=("e6",))
    a = hero(s, "alice", "army_soldier", "e4", "n")
    h = henchman(s, "e6", facing="s")
    assert modifiers(s, a, h, moved=False, ranged=True) == [("rooftop", -3)]
    assert modifiers(s, a, h, moved=False, ranged=False) == []


def test_same_space_is_plus_one():
    """"Attacking on the same space: +1 to Result\""""
    s = state()
    z = hero(s, "alice", "zenith", "e4", "n")
    h = henchman(s, "e4", facing="n")
    assert modifiers(s, z, h, moved=False, ranged=False) == [("same space", 1)]


def test_king_castro_axe_swing_against_a_nemesis():
    """King Castro (S 3) rolls 18,5,11: total 21, "Axe Swing" Dmg 14. The Usurper (U 4,
    ARM 1) rolls 9,3,4: 3 + 4 = 7, not higher than 14: -1 Vitality."""
    s = state()
    kc = hero(s, "alice", "king_castro", "e4", "n")
    n = nemesis(s, "alice", "usurper", "e5", facing="e")
    dice = ScriptedDice([18, 5, 11, 9, 3, 4])
    events: list = []
    attack(s, kc, n, dice, events)
    assert dice.unused == []
    assert n.vitality == 5
    assert "Axe Swing, Dmg 14" in texts(events, "damage")[0]


def test_army_soldier_arm_example_loses_a_vitality():
    """"Army Soldier rolls a 8,19,6. With a (U) of 2 his total an 8. This is not higher than
    the Dmg 14 so he does not save against the attack and loses 1 Vitality.\""""
    s = state()
    a = hero(s, "alice", "army_soldier", "e4")
    dice = ScriptedDice([8, 19, 6])
    take_strike(s, a, 14, False, dice, [], "strike", {})
    assert a.vitality == 5  # 6 on the card (ours), less 1


def test_king_castro_arm_example_by_the_text():
    """"King Castro rolls a 2,14,10. With a (U) of 4 his total is a 14. This is higher than the
    Dmg of 13 so he saves." By the text the total is 2 + 4 = 6: no save (errata). His second
    ARM roll (ARM 2, ours) of 15,12,3 gives 19, higher than 13: saved."""
    s = state()
    kc = hero(s, "alice", "king_castro", "e4")
    events: list = []
    take_strike(s, kc, 13, False, ScriptedDice([2, 14, 10, 2, 3, 4]), events, "strike", {})
    assert kc.vitality == 6
    assert "no save" in events[0].text
    take_strike(s, kc, 13, False, ScriptedDice([2, 14, 10, 15, 12, 3]), events, "strike", {})
    assert kc.vitality == 6 and events[1].kind == "save"


def test_att_is_strikes_per_attack():
    """"ATT: ... Anything over this is Extra Dice rolled to show multiple strikes." Puck (ATT 2)
    strikes twice: 12,13,2 → 13 + 4 = 17 Uppercut; 3,4,5 → 3 + 4 = 7 Jab. The Usurper
    saves neither (2,3,4 → 6; 5,6,7 → 9)."""
    s = state()
    pk = hero(s, "alice", "puck", "e4", "n")
    n = nemesis(s, "alice", "usurper", "e5", facing="e")
    dice = ScriptedDice([12, 13, 2, 2, 3, 4, 3, 4, 5, 5, 6, 7])
    events: list = []
    attack(s, pk, n, dice, events)
    assert dice.unused == []
    assert n.vitality == 4
    assert ["Uppercut" in events[0].text, "Jab" in events[1].text] == [True, True]


def test_a_critical_strike_is_saved_only_by_a_critical():
    """"only another Critical Hit can negate your roll": ARM 19+U against a critical does not
    save, a natural 20 does."""
    s = state()
    z = hero(s, "alice", "zenith", "e4")  # ARM 2
    take_strike(s, z, 17, True, ScriptedDice([19, 18, 17, 19, 18, 17]), [], "crit", {})
    assert z.vitality == 5
    take_strike(s, z, 17, True, ScriptedDice([2, 3, 4, 20, 5, 6]), [], "crit", {})
    assert z.vitality == 5


def test_hero_knocked_out_goes_home_and_misses_next_round():
    """docs/rulesets/heroes.md: "At 0 Vitality a hero is knocked out: back to its start corner with full
    Vitality, missing its next round." Full is the Army Soldier card's 6 (ours)."""
    s = state(round=3)
    a = hero(s, "alice", "army_soldier", "f6", start="a1")
    a.vitality = 1
    take_strike(s, a, 14, False, ScriptedDice([8, 19, 6]), [], "strike", {})
    assert (a.square, a.vitality, a.misses) == (parse_square("a1"), 6, 4)


def test_nemesis_at_zero_waits_to_be_captured():
    """"a Nemesis at 0 waits to be captured" (docs/rulesets/heroes.md)."""
    s = state()
    hero(s, "alice", "zenith", "e4")
    n = nemesis(s, "alice", "nadir", "e5", vitality=1)
    take_strike(s, n, 15, False, ScriptedDice([2, 3, 4]), [], "strike", {})
    assert n.id in s.figures and n.vitality == 0 and not n.active


def test_defeated_henchman_leaves_the_board():
    s = state()
    h = henchman(s, "e5")
    civvie(s, "e6")
    take_strike(s, h, 10, False, ScriptedDice([2, 3, 4]), [], "strike", {})
    assert h.id not in s.figures
