"""jep1 rulebook: melee, step by step, as docs/rulesets/jep1.md reads it (dice scripted, worked by hand).

Each test quotes the seed sentence it checks. `exchange` is one attacker's pass from
PRE-HIT SKILLS to COUNT WOUNDS; `play` resolves a whole round from order text.
"""

from itertools import permutations

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.dice import ScriptedDice
from engine.rulesets.jep1.blocks import assign_blocks, blocks
from engine.rulesets.jep1.exchange import exchange

from .jep1_fixtures import play, state, texts, unit


def one_exchange(att, dfn, faces, ties_block=False, skills=(), ranged=False):
    dice = ScriptedDice(faces)
    events = []
    result = exchange(att, dfn, ranged, list(skills), ties_block, dice, events)
    assert dice.unused == []
    return result, events


def test_attack_dice_are_one_d6_per_point_of_melee_plus_melee_on_each():
    """'if attacker has a melee of 2 & he rolled a 4 & a 3, that means his attack value is a 6 & a 5'
    and 'if defender has a melee of 2 & he rolled a 4 & a 1, that means his defense value is a 6 & a 3'."""
    att, dfn = unit("A1", "c3", M=2, S=2), unit("B1", "c4", M=2, T=6)
    result, _ = one_exchange(att, dfn, [4, 3, 4, 1, 4])
    assert result.attacks == [6, 5]
    assert result.defences == [6, 3]


def test_seed_worked_example_rule_text_one_hit():
    """'Attacker has a attack value of 6 & 5, defender has a defense value of 6 & 3 ... a hit is scored!'
    Rule text (ties_block off): attack >= defence hits, so the 6 blocks only the 5 and the 6 hits."""
    att, dfn = unit("A1", "c3", M=2, S=2), unit("B1", "c4", M=2, T=6)
    result, _ = one_exchange(att, dfn, [4, 3, 4, 1, 4])
    assert result.blocked == [(5, 6)]
    assert result.hits == [6]


def test_seed_worked_example_ties_block_one_hit():
    """The example's own reading, 'use his defense 6 to block the attacker's attack 6' (ties_block on):
    a 6 may block the 6, the 5 beats the 3: still exactly one hit."""
    att, dfn = unit("A1", "c3", M=2, S=2), unit("B1", "c4", M=2, T=6)
    result, _ = one_exchange(att, dfn, [4, 3, 4, 1, 4], ties_block=True)
    assert len(result.blocked) == 1
    assert len(result.hits) == 1


def test_equal_values_hit_by_rule_text_and_are_blocked_with_ties_block():
    """'If the attacker's attack value is higher or equal to the defense value ... Then a hit is scored':
    attack 6 6 against defence 6 6 is two hits; with ties_block both are blocked."""
    faces = [4, 4, 4, 4]
    off, _ = one_exchange(unit("A1", "c3"), unit("B1", "c4", T=9), [*faces, 1, 1])
    assert off.hits == [6, 6] and off.damage_dice == [1, 1]
    on, _ = one_exchange(unit("A1", "c3"), unit("B1", "c4"), faces, ties_block=True)
    assert on.hits == [] and on.damage_dice == []


def test_defender_assigns_blocks_to_block_the_most_attacks():
    """'Defender then chooses how the defense dice goes': attacks 6 and 4 against defences 7 and 5.
    Putting the 7 on the 4 would block one; the default blocks both (7 on 6, 5 on 4)."""
    blocked, hits = assign_blocks([6, 4], [7, 5], ties_block=False)
    assert sorted(blocked) == [(4, 5), (6, 7)]
    assert hits == []


def test_damage_roll_is_d6_plus_strength_against_toughness():
    """'Attacker rolls a d6 & gets a 4, he has a strength of 2. So his damage score is 6.'
    'Compare the damage score to the defender's toughness score. If the value is higher or equal,
    then 1 damage is scored.' 4 + 2 = 6 against T6 is 1 damage; 3 + 2 = 5 is none."""
    hit, _ = one_exchange(unit("A1", "c3", M=1, S=2), unit("B1", "c4", M=1, T=6), [6, 1, 4])
    assert (hit.damage_dice, hit.damage, hit.wounds) == ([4], 1, 1)
    miss, _ = one_exchange(unit("A1", "c3", M=1, S=2), unit("B1", "c4", M=1, T=6), [6, 1, 3])
    assert (miss.damage_dice, miss.damage, miss.wounds) == ([3], 0, 0)


def test_one_damage_die_per_hit():
    """'Attacker rolls 1d6 for hit made': three hits, three damage dice."""
    att, dfn = unit("A1", "c3", M=3, S=3), unit("B1", "c4", M=1, T=5, H=5)
    result, _ = one_exchange(att, dfn, [6, 5, 4, 1, 1, 2, 6])
    assert len(result.hits) == 3
    assert result.damage_dice == [1, 2, 6]
    assert result.damage == 2  # 4 < 5, 5 >= 5, 9 >= 5


def test_armor_one_cancels_one_damage():
    """'attacker scores 1 damage, if defender has a armor value of 1 as well then no damage is taken.'"""
    dfn = unit("B1", "c4", M=1, T=4, A=1, H=3)
    result, _ = one_exchange(unit("A1", "c3", M=1), dfn, [6, 1, 6])
    assert (result.damage, result.wounds, dfn.H) == (1, 0, 3)


def test_armor_one_against_two_damage_leaves_a_wound():
    """'If attacker has scored 2 damage & defender only has armor value of 1, then a wound is scored.'"""
    dfn = unit("B1", "c4", M=1, T=4, A=1, H=3)
    result, _ = one_exchange(unit("A1", "c3", M=2), dfn, [6, 6, 1, 6, 6])
    assert (result.damage, result.wounds, dfn.H) == (2, 1, 2)


def test_each_wound_costs_one_health_and_health_zero_is_dead():
    """'For each wound scored, defender loses 1 health. If the defender has a health of 0. The
    defender is dead.' Two wounds on H2."""
    dfn = unit("B1", "c4", M=1, T=4, H=2)
    result, events = one_exchange(unit("A1", "c3", M=2), dfn, [6, 6, 1, 6, 6])
    assert result.wounds == 2
    assert dfn.H == 0 and not dfn.alive
    assert [e.kind for e in events][-1] == "death"


def test_living_defender_strikes_back_through_the_same_steps():
    """'If defender is alive, the priority is passed & the current defender is the new attacker ...
    Once the new defender & attacker reached the next Count Wounds phase, a round is done.'
    A1 hits once (B1 to 2 health); B1 answers with its own M2 against A1's M2 and wounds it."""
    s = state(unit("A1", "c3", M=2, S=2, T=6), unit("B1", "c4", M=2, S=3, T=6, tie=1))
    res = play(s, {"alice": "A1 attack B1"}, [4, 3, 4, 1, 4,      # A1: 6 5 vs 6 3, damage 4+2 >= 6
                                               5, 5, 1, 1, 3, 1])  # B1: 7 7 vs 3 3, damage 3+3, 1+3
    a1, b1 = res.state.unit("A1"), res.state.unit("B1")
    assert (b1.H, a1.H) == (2, 2)  # one wound each: only B1's 3 + 3 reaches A1's T6
    assert [e.kind for e in res.events if e.kind in ("attack", "strike back")] == ["attack", "strike back"]


def test_dead_defender_does_not_strike_back():
    """'If defender is alive, the priority is passed': a dead one passes nothing."""
    s = state(unit("A1", "c3", M=2, S=3), unit("B1", "c4", M=1, T=4, H=1, tie=1))
    res = play(s, {"alice": "A1 attack B1"}, [6, 6, 1, 5, 5])
    assert not res.state.unit("B1").alive
    assert texts(res, "strike back") == []
    assert "B1 is dead." in texts(res, "death")


def test_strike_back_can_kill_the_attacker():
    """The strike back is a full exchange: its wounds count like any other."""
    s = state(unit("A1", "c3", M=1, T=4, H=1), unit("B1", "c4", M=2, S=3, tie=1))
    res = play(s, {"alice": "A1 attack B1"}, [1, 6,      # A1: 2 vs 8: blocked
                                               6, 6, 1, 4, 4])  # B1: 8 8 vs 2: two hits, 7 7 >= 4
    assert not res.state.unit("A1").alive
    assert res.state.unit("B1").H == 3


def test_melee_needs_adjacency_after_closing_in_with_the_four_squares():
    """'Attacker may move 4 squares before his melee attack. A melee attack can only be initiated if
    the attacker is adjacent to the defender.' A1 on c1 charges B1 on c6: 4 squares to c5, then attacks."""
    s = state(unit("A1", "c1", M=1), unit("B1", "c6", M=1, tie=1))
    res = play(s, {"alice": "A1 attack B1"}, [1, 6, 1, 6])  # blocked both ways
    assert res.state.unit("A1").at.name == "c5"
    assert texts(res, "charge") == ["A1 closes in from c1 to c5."]


def test_attack_out_of_reach_is_refused_when_written():
    """Five empty squares between them: no path of 4 ends adjacent, so the order is refused."""
    s = state(unit("A1", "c1"), unit("B1", "c7", tie=1))
    import pytest

    from engine.orders import OrderErrors
    with pytest.raises(OrderErrors, match="too far for A1"):
        play(s, {"alice": "A1 attack B1"}, [])


def test_target_that_walked_away_makes_the_attack_skip():
    """An order no longer legal when its turn comes is skipped, and the log says why: B1 acts first
    (higher I) and walks off; A1 cannot reach it any more."""
    s = state(unit("A1", "c1", I=1), unit("B1", "c6", I=3))
    res = play(s, {"alice": "A1 attack B1", "bob": "B1 move c10"}, [])
    assert any("is out of reach" in t for t in texts(res, "skip"))
    assert res.state.unit("A1").at.name == "c1"


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(1, 12), max_size=5), st.lists(st.integers(1, 12), max_size=5), st.booleans())
def test_block_assignment_is_never_beaten_by_any_other(attacks, defences, ties_block):
    """'Defender then chooses how the defense dice goes': no way of placing the defence values
    blocks more attacks than the default assignment (checked against every placement)."""
    blocked, hits = assign_blocks(attacks, defences, ties_block)
    assert sorted([a for a, _ in blocked] + hits) == sorted(attacks)
    assert all(blocks(d, a, ties_block) for a, d in blocked)
    # Every pairing: fix the shorter list, try every order of the longer one against it.
    if len(attacks) <= len(defences):
        pairings = ([(a, d) for a, d in zip(attacks, order, strict=False)] for order in permutations(defences))
    else:
        pairings = ([(a, d) for a, d in zip(order, defences, strict=False)] for order in permutations(attacks))
    best = max(sum(blocks(d, a, ties_block) for a, d in pairing) for pairing in pairings)
    assert len(blocked) == best
