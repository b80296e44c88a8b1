"""Rulebook cases for `universal` (docs/rulesets/universal.md):
Attacks, counterattacks, range, one attack a turn, attacking in a row.

One test per rule case. Each docstring quotes the seed sentence it checks; the dice are
scripted and the expected result is worked out by hand in the docstring. Positions:
see universal_positions.py.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from engine.rulesets.universal.combat import fewest_dice
from tests.engine.rulesets.universal_positions import RULES, first, kinds, position, refused, resolve

# -- Attack -----------------------------------------------------------------------------

def test_attack_dice_are_power_minus_one_plus_the_attacker_itself():
    """"Roll number of dices equal to attacker's power - 1. For each character adjacent to
    both attacker and defender (unit counts as adjacent to itself) add one dice."

    A1 (Pw 3) alone next to B1 (D 9, EP 2): 3 - 1 + 1 = 3 dice. 6, 5, 2 against 9: 6 falls
    short, 6 + 5 = 11 reaches it with 2 dice, so 1 die is unused: 1 damage, B1 has 1 EP.
    No counterattack follows, although B1 (Pw 3) could make one."""
    state = position("A1 c3 pw=3\nB1 c4 d=9 ep=2 pw=3")
    after, events = resolve(state, [6, 5, 2], alice="A1 attack B1")
    attack = first(events, "attack")
    assert (attack["faces"], attack["defence"], attack["used"], attack["damage"]) == ([6, 5, 2], 9, 2, 1)
    assert after.units["B1"].ep == 1
    assert "counter" not in kinds(events)


def test_a_character_adjacent_to_both_adds_a_die():
    """"For each character adjacent to both attacker and defender ... add one dice."

    A1 (Pw 1) at c3, A2 at d3 touches both c3 and B1 at c4: 0 + 1 + 1 = 2 dice. 5 and 3
    against D 5: the 5 alone reaches it, the 3 is unused: 1 damage defeats B1 (EP 1)."""
    state = position("A1 c3\nA2 d3\nB1 c4\nB2 h8")
    after, events = resolve(state, [5, 3], alice="A1 attack B1")
    attack = first(events, "attack")
    assert attack["helpers"] == ["A1", "A2"]
    assert attack["damage"] == 1
    assert "B1" not in after.units


def test_a_character_adjacent_to_the_attacker_only_adds_nothing():
    """"For each character adjacent to both attacker and defender ... add one dice."

    A2 at b2 touches A1 (c3) but not B1 (c4): A1 rolls 1 die. A 6 reaches D 5 with the
    only die: nothing is unused, 0 damage. B1 (Pw 1) then has 1 - 1 = 0 counter dice."""
    state = position("A1 c3\nA2 b2\nB1 c4")
    after, events = resolve(state, [6], alice="A1 attack B1")
    assert first(events, "attack")["helpers"] == ["A1"]
    assert first(events, "attack")["damage"] == 0
    assert first(events, "counter")["dice"] == 0
    assert after.units["B1"].ep == 1


def test_every_character_adjacent_to_both_counts_even_the_defenders_ally():
    """"For each character adjacent to both attacker and defender ... add one dice" and
    "add +1 to defence per defender's adjacent ally" (docs/rulesets/universal.md: every character counts).

    B2 at d3 touches A1 (c3) and B1 (c4): A1 gets 2 dice, and B1's defence is 5 + 1 = 6.
    6 and 1: the 6 reaches 6, the 1 is unused: 1 damage."""
    state = position("A1 c3\nB1 c4\nB2 d3")
    _after, events = resolve(state, [6, 1], alice="A1 attack B1")
    attack = first(events, "attack")
    assert (attack["helpers"], attack["defence"], attack["damage"]) == (["A1", "B2"], 6, 1)


def test_defence_gains_one_per_ally_adjacent_to_the_defender():
    """"add +1 to defence per defender's adjacent ally"

    B2 (c5) and B3 (b5) touch B1 (c4) but not A1 (c3): defence 5 + 2 = 7. A1 (Pw 2) rolls
    2 dice, 6 and 5: 6 falls short of 7, 11 needs both dice: 0 damage (against D 5 alone
    the 6 would have dealt 1)."""
    state = position("A1 c3 pw=2\nB1 c4\nB2 c5\nB3 b5")
    _after, events = resolve(state, [6, 5], alice="A1 attack B1")
    attack = first(events, "attack")
    assert (attack["defence"], attack["allies"], attack["damage"]) == (7, ["B2", "B3"], 0)


def test_the_fewest_dice_are_used_highest_first():
    """"Add the dices together to match or exceed the defender's defence ... Deal damage
    equal to number of unused dices."

    A1 (Pw 4) rolls 4 dice: 2, 6, 1, 5. Highest first, the 6 alone reaches D 5: 3 dice
    are unused, 3 damage, B1 goes from 4 EP to 1."""
    state = position("A1 c3 pw=4\nB1 c4 ep=4")
    after, events = resolve(state, [2, 6, 1, 5], alice="A1 attack B1")
    assert first(events, "attack")["used"] == 1
    assert first(events, "attack")["damage"] == 3
    assert after.units["B1"].ep == 1


def test_matching_the_defence_exactly_is_enough():
    """"Add the dices together to match or exceed the defender's defence"

    A1 (Pw 3) rolls 4, 3, 1 against D 7: 4 < 7, 4 + 3 = 7 matches with 2 dice: 1 damage."""
    state = position("A1 c3 pw=3\nB1 c4 d=7 ep=2")
    after, events = resolve(state, [4, 3, 1], alice="A1 attack B1")
    assert first(events, "attack")["damage"] == 1
    assert after.units["B1"].ep == 1


def test_dice_that_all_fall_short_deal_no_damage():
    """"Deal damage equal to number of unused dices."

    A1 (Pw 2) rolls 6, 6 = 12 against D 13: every die is used and still short: 0 damage."""
    state = position("A1 c3 pw=2\nB1 c4 d=13")
    after, events = resolve(state, [6, 6], alice="A1 attack B1")
    assert first(events, "attack")["damage"] == 0
    assert after.units["B1"].ep == 1


# -- Counterattack ----------------------------------------------------------------------

def test_counterattack_when_no_damage_is_dealt():
    """"Counterattack: If no damage is dealt, roll for counterattack. Defender roll dices
    equal to his power -1"

    A1 (Pw 1) rolls one 6: no die left over, 0 damage. B1 (Pw 3, adjacent) rolls 3 - 1 = 2
    dice, 5 and 2, against A1's D 5: the 5 reaches it, 1 die unused: 1 damage defeats A1,
    and bob's side gets a 1/0/5 token (B2) on c3."""
    state = position("A1 c3\nA2 h1\nB1 c4 pw=3")
    after, events = resolve(state, [6, 5, 2], alice="A1 attack B1")
    counter = first(events, "counter")
    assert (counter["faces"], counter["damage"]) == ([5, 2], 1)
    assert "A1" not in after.units
    token = after.units["B2"]
    assert (token.side, token.square.name, token.token, token.ep, token.pw, token.d) == (
        "bob", "c3", True, 1, 0, 5)


def test_counterattack_loses_a_die_when_not_adjacent():
    """"(additional -1 if non-adjacent to attacker)"

    Mortar A1 (Pw 1 + 3) at a1 hits B1 (Pw 4) at e1, 4 squares away: 4 dice of 1 make 4,
    short of D 5. B1 rolls 4 - 1 - 1 = 2 dice, 6 and 6: the first reaches A1's D 5, one die
    unused: 1 damage defeats A1."""
    state = position("A1 a1 mortar\nA2 a8\nB1 e1 pw=4")
    after, events = resolve(state, [1, 1, 1, 1, 6, 6], alice="A1 attack B1")
    assert len(first(events, "counter")["faces"]) == 2
    assert "A1" not in after.units


def test_counterattack_gets_no_adjacency_bonuses():
    """"Defender roll dices equal to his power -1 ..., without bonuses for adjacent allies."

    A1 attacks B1 (Pw 3) with A2 (d3) and B2 (b4) touching both: 3 dice (2, 2, 1 = 5) against
    5 + 1 (B2) = 6: 0 damage. B1 counterattacks with exactly 3 - 1 = 2 dice (no die for A2
    or B2) against A1's bare D 5 (no +1 for A2 next to A1): 5, 1 → 1 damage."""
    state = position("A1 c3\nA2 d3\nB1 c4 pw=3\nB2 b4")
    after, events = resolve(state, [2, 2, 1, 5, 1], alice="A1 attack B1")
    assert first(events, "attack")["damage"] == 0
    counter = first(events, "counter")
    assert (len(counter["faces"]), counter["defence"], counter["damage"]) == (2, 5, 1)
    assert "A1" not in after.units


def test_a_power_one_defender_has_no_counterattack_dice():
    """"Defender roll dices equal to his power -1": Pw 1 rolls nothing.

    A1's single 6 deals 0 damage; B1 (Pw 1) rolls 0 dice, and the event says so."""
    state = position("A1 c3\nB1 c4")
    _after, events = resolve(state, [6], alice="A1 attack B1")
    assert first(events, "counter")["dice"] == 0
    assert "no counterattack dice" in next(e.text for e in events if e.kind == "counter")


# -- Range and the Mortar ---------------------------------------------------------------

def test_a_unit_attacks_only_an_adjacent_enemy():
    """"Add +1 to defence per defender's adjacent ally" - attacks are between neighbours
    (docs/rulesets/universal.md: a unit attacks an adjacent enemy).

    B1 is 2 squares from A1: the order is refused on its line."""
    state = position("A1 c3\nB1 c5")
    assert refused(state, "alice", "A1 attack B1") == [(1, "B1 at c5 is not adjacent to A1 at c3")]


def test_mortar_has_three_more_power():
    """"Mortar: +3 power"

    Mortar A1 (Pw 1) 4 squares from B1: 1 + 3 - 1 + 1 = 4 dice. 6, 1, 1, 1 against D 5:
    the 6 alone reaches it, 3 dice unused: 3 damage defeats B1 (EP 3)."""
    state = position("A1 a1 mortar\nB1 e1 ep=3\nB2 h8")
    after, events = resolve(state, [6, 1, 1, 1], alice="A1 attack B1")
    assert first(events, "attack")["damage"] == 3
    assert "B1" not in after.units


def test_mortar_cannot_hit_within_three_squares():
    """"Mortar: ... can't hit enemy within 3 squares"

    B1 is 3 squares away and B2 adjacent: both orders are refused."""
    state = position("A1 a1 mortar\nB1 d1\nB2 b2")
    assert refused(state, "alice", "A1 attack B1") == [
        (1, "A1 is a Mortar and can't hit B1 within 3 squares")]
    assert refused(state, "alice", "A1 attack B2") == [
        (1, "A1 is a Mortar and can't hit B2 within 3 squares")]


def test_mortar_needs_no_line_of_sight():
    """"Mortar: +3 power, can't hit enemy within 3 squares" - nothing about sight
    (docs/rulesets/universal.md: no line of sight needed).

    A wall on c1 between A1 (a1) and B1 (e1) does not stop the attack."""
    state = position("A1 a1 mortar\nB1 e1\nB2 h8", terrain={"c1": "wall", "b1": "wall", "d1": "wall"})
    _after, events = resolve(state, [6, 1, 1, 1], alice="A1 attack B1")
    assert first(events, "attack")["damage"] == 3


def test_mortar_max_range_option_limits_its_reach():
    """docs/rulesets/universal.md: the Mortar has no maximum range unless the option `mortar_max_range` sets one.

    With mortar_max_range 5, B1 6 squares away is out of reach and B2 5 squares away is not."""
    state = position("A1 a1 mortar\nB1 g1\nB2 f2", mortar_max_range=5)
    assert refused(state, "alice", "A1 attack B1") == [
        (1, "B1 is 6 squares away, beyond the Mortar range of 5")]
    assert RULES.parse_orders(state, "alice", "A1 attack B2")


def test_mortar_cannot_counterattack_within_three_squares():
    """"Mortar: ... can't hit enemy within 3 squares" holds for its counterattack too.

    A1 (Pw 1) misses Mortar B1 (Pw 1 + 3 = 4, would roll 3 dice) from next door: no
    counterattack is rolled."""
    state = position("A1 c3\nB1 c4 mortar")
    _after, events = resolve(state, [6], alice="A1 attack B1")
    assert "can't hit A1 within 3 squares" in next(e.text for e in events if e.kind == "counter")


# -- One attack a turn; moves -------------------------------------------------------------

def test_only_one_unit_can_attack_in_a_turn():
    """"Only one unit can attack in turn."

    The second attack line is refused, naming the line that already attacks."""
    state = position("A1 c3\nA2 d3\nB1 c4")
    assert refused(state, "alice", "A1 attack B1\nA2 attack B1") == [
        (2, "only one unit can attack each round (line 1 already attacks)")]


def test_each_unit_moves_in_your_turn():
    """"Each unit move in your turn."

    Three units move in one round, and one of them also attacks."""
    state = position("A1 a1\nA2 c1\nA3 e1\nB1 e3")
    after, events = resolve(state, [6], alice="A1 move a2\nA2 move c2\nA3 move e2\nA3 attack B1")
    assert [after.units[u].square.name for u in ("A1", "A2", "A3")] == ["a2", "c2", "e2"]
    assert kinds(events).count("move") == 3


def test_a_unit_gets_one_move_a_round():
    """"Each unit can move 2 squares": one move order per unit, refused on its line."""
    state = position("A1 a1\nB1 h8")
    assert refused(state, "alice", "A1 move a2\nA1 move a3") == [(2, "A1 already has a move order")]


# -- Attacking in a row -----------------------------------------------------------------

def test_attacking_in_a_row_raises_the_defence_each_time():
    """"Attacking in row: When one unit attack twice in row defender reiceve bonus defence
    equal to number of times this unit attacked twice in row."

    A1 (Pw 3) attacks B1 three rounds running: defence 5, then 6, then 7."""
    state = position("A1 c3 pw=3\nB1 c4 ep=9")
    defences = []
    for _round in range(3):
        state, events = resolve(state, [1, 1, 1], alice="A1 attack B1", bob="pass")
        defences.append((first(events, "attack")["defence"], first(events, "attack")["in_a_row"]))
    assert defences == [(5, 0), (6, 1), (7, 2)]


def test_attacking_with_another_unit_resets_the_row():
    """"When one unit attack twice in row ..." - another unit's attack breaks the row.

    A1, then A2, then A1 again: every defence is the bare 5."""
    state = position("A1 c3 pw=3\nA2 b5\nB1 c4 ep=9")
    defences = []
    for attacker, faces in (("A1", [1, 1, 1]), ("A2", [1]), ("A1", [1, 1, 1])):
        state, events = resolve(state, faces, alice=f"{attacker} attack B1")
        defences.append(first(events, "attack")["defence"])
    assert defences == [5, 5, 5]


def test_a_turn_without_an_attack_breaks_the_row():
    """"When one unit attack twice in row ..." - a turn without an attack is no row.

    A1 attacks, holds a round, attacks again: defence 5 both times."""
    state = position("A1 c3 pw=3\nB1 c4 ep=9")
    state, first_events = resolve(state, [1, 1, 1], alice="A1 attack B1")
    state, _ = resolve(state, [], alice="pass")
    state, events = resolve(state, [1, 1, 1], alice="A1 attack B1")
    assert first(first_events, "attack")["defence"] == first(events, "attack")["defence"] == 5


def test_attacking_in_a_row_counts_the_sides_own_turns_in_alternating_mode():
    """"When one unit attack twice in row" - with alternating turns, "in a row" means the
    side's consecutive turns: bob's turn in between does not break alice's row."""
    state = position("A1 c3 pw=3\nB1 c4 ep=9", turn_mode="alternating")
    state, _ = resolve(state, [1, 1, 1], alice="A1 attack B1")
    state, _ = resolve(state, [], bob="pass")
    state, events = resolve(state, [1, 1, 1], alice="A1 attack B1")
    assert first(events, "attack")["defence"] == 6


@given(st.lists(st.integers(1, 6), max_size=12), st.integers(1, 40), st.integers(0, 3))
def test_fewest_dice_is_the_smallest_highest_first_prefix_that_reaches(faces, target, penalty):
    """"Add the dices together to match or exceed the defender's defence ... Deal damage
    equal to number of unused dices": for any roll, the dice used are the fewest (highest
    first) whose total reaches the defence, and the damage is what is left over."""
    used, damage = fewest_dice(faces, target, penalty)
    ordered = sorted(faces, reverse=True)
    if sum(faces) - penalty >= target and faces:
        assert sum(ordered[:used]) - penalty >= target
        assert used == 0 or sum(ordered[:used - 1]) - penalty < target
        assert damage == len(faces) - used
    else:
        assert damage == 0
