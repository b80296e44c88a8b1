"""Rulebook cases for `universal` (seed 000, ../shared/seeds/000_de870f564d7742a3.txt).

One test per rule case. Each docstring quotes the seed sentence it checks; the dice are
scripted and the expected result is worked out by hand in the docstring. Positions are
written as lines "UNIT SQUARE [stat=value ...] [types] [token]": A units are alice's
(seat 0), B units bob's (seat 1), C units carol's.
"""

from __future__ import annotations

from typing import Any

import pytest

from engine.contract import Event
from engine.dice import ScriptedDice
from engine.grid import parse_square
from engine.orders import OrderErrors
from engine.registry import find_ruleset
from engine.rulesets.universal.forces import UNIT_TYPES
from engine.rulesets.universal.state import State, Unit

RULES = find_ruleset("universal")
PLAYERS = ["alice", "bob", "carol", "dave"]


def position(spec: str, *, width: int = 8, height: int = 8, round: int = 1,
             terrain: dict[str, str] | None = None, **options: Any) -> State:
    units: dict[str, Unit] = {}
    for line in spec.strip().splitlines():
        uid, square, *rest = line.split()
        side = PLAYERS[ord(uid[0]) - ord("A")]
        stats = {"ep": 1, "pw": 1, "d": 5}
        types: list[str] = []
        token = "token" in rest
        if token:
            stats = {"ep": 1, "pw": 0, "d": 5}
        for word in rest:
            if "=" in word:
                key, value = word.split("=")
                stats[key] = int(value)
            elif word in UNIT_TYPES:
                types.append(word)
        units[uid] = Unit(uid, side, parse_square(square), stats["ep"], stats["ep"], stats["pw"],
                          stats["d"], tuple(types), token)
    seats = PLAYERS[:max(2, max(ord(u[0]) - ord("A") for u in units) + 1)]
    numbers = {s: 1 + max([int(u[1:]) for u in units if PLAYERS[ord(u[0]) - 65] == s] or [0])
               for s in seats}
    state = State(RULES.options({"width": width, "height": height, **options}), seats, round,
                  units, numbers, terrain=dict(terrain or {}))
    return RULES.load(RULES.dump(state))


def resolve(state: State, faces: list[int], **texts: str) -> tuple[State, list[Event]]:
    """Parse each player's text against the state and resolve with exactly these dice."""
    orders = {p: RULES.parse_orders(state, p, text) for p, text in texts.items()}
    dice = ScriptedDice(faces)
    result = RULES.resolve(state, orders, dice)
    assert dice.unused == [], f"dice scripted but never rolled: {dice.unused}"
    return result.state, result.events


def kinds(events: list[Event]) -> list[str]:
    return [e.kind for e in events]


def first(events: list[Event], kind: str) -> dict[str, Any]:
    return next(e.data for e in events if e.kind == kind)


def refused(state: State, player: str, text: str) -> list[tuple[int, str]]:
    with pytest.raises(OrderErrors) as info:
        RULES.parse_orders(state, player, text)
    return [(e.line, e.message) for e in info.value.errors]


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
    "add +1 to defence per defender's adjacent ally" (RULES.md: every character counts).

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
    (RULES.md: a unit attacks an adjacent enemy).

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
    (RULES.md: no line of sight needed).

    A wall on c1 between A1 (a1) and B1 (e1) does not stop the attack."""
    state = position("A1 a1 mortar\nB1 e1\nB2 h8", terrain={"c1": "wall", "b1": "wall", "d1": "wall"})
    _after, events = resolve(state, [6, 1, 1, 1], alice="A1 attack B1")
    assert first(events, "attack")["damage"] == 3


def test_mortar_max_range_option_limits_its_reach():
    """RULES.md: the Mortar has no maximum range unless the option `mortar_max_range` sets one.

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


# -- Movement ---------------------------------------------------------------------------

def test_a_unit_moves_two_squares():
    """"Movement: Each unit can move 2 squares."

    From a1, c1 is 2 squares away and d1 is 3: the first is fine, the second refused."""
    state = position("A1 a1\nB1 h8")
    after, _ = resolve(state, [], alice="A1 move c1")
    assert after.units["A1"].square.name == "c1"
    assert refused(state, "alice", "A1 move d1") == [(1, (
        "A1 cannot move to d1: no path within its movement of 2 squares (a step costs 1, "
        "entering a square next to an enemy 1.5)"))]


def test_a_runner_moves_three_squares():
    """"Runner: 3 movement instead of 2." From a1 a Runner reaches d1."""
    state = position("A1 a1 runner\nB1 h8")
    after, _ = resolve(state, [], alice="A1 move d1")
    assert after.units["A1"].square.name == "d1"


def test_entering_an_enemy_adjacent_square_ends_a_two_square_move():
    """"One square adjacent to enemiemy is equal to 1.5 squares - and 0.5 is rounded down."

    A1 (c1) steps onto d2 next to B1 (e3): 1.5 of its 2. The 0.5 left is rounded down, so
    it cannot go on to d1 (1.5 + 1 = 2.5 > 2), but stopping on d2 is fine."""
    state = position("A1 c1\nB1 e3")
    assert refused(state, "alice", "A1 move d2 d1")[0][1].startswith("A1 cannot move to d1: no path")
    after, events = resolve(state, [], alice="A1 move d2")
    assert first(events, "move")["squares"] == ["c1", "d2"]


def test_a_step_then_an_enemy_adjacent_square_is_too_far_for_movement_two():
    """"One square adjacent to enemiemy is equal to 1.5 squares": 1 + 1.5 = 2.5 > 2.

    From b1, d2 (next to B1 on e3) needs a plain step and a 1.5 step: refused. A Runner
    (3 squares) makes it."""
    state = position("A1 b1\nA2 b2 runner\nB1 e3")
    assert refused(state, "alice", "A1 move d2")[0][1].startswith("A1 cannot move to d2: no path")
    after, _ = resolve(state, [], alice="A2 move d2")
    assert after.units["A2"].square.name == "d2"


def test_a_runner_can_enter_two_enemy_adjacent_squares():
    """"One square adjacent to enemiemy is equal to 1.5 squares" and "Runner: 3 movement":
    1.5 + 1.5 = 3. From c1 a Runner passes d2 to d3, both next to B1 on e3."""
    state = position("A1 c1 runner\nB1 e3")
    after, events = resolve(state, [], alice="A1 move d2 d3")
    assert first(events, "move")["squares"] == ["c1", "d2", "d3"]


def test_the_engine_finds_the_cheapest_path():
    """"One square adjacent to enemiemy is equal to 1.5 squares": `A1 move c3` from c1 (b2
    taken by A2) goes through c2, not d2 next to B1 (e2): c2 costs 1 where d2 costs 1.5."""
    state = position("A1 c1\nA2 b2\nB1 e2")
    after, events = resolve(state, [], alice="A1 move c3")
    assert first(events, "move")["squares"] == ["c1", "c2", "c3"]
    assert refused(state, "alice", "A1 move d2 c3")[0][1].startswith("A1 cannot move to c3")


def test_waypoints_are_followed_in_turn():
    """Orders `A1 move b2 c1`: through b2 to c1, 2 squares in all."""
    state = position("A1 a1\nB1 h8")
    _after, events = resolve(state, [], alice="A1 move b2 c1")
    assert first(events, "move")["squares"] == ["a1", "b2", "c1"]


def test_occupied_squares_cannot_be_entered_or_crossed():
    """RULES.md: one unit per square. Without diagonals A1 (a1) can only reach c1 through
    b1, where A2 stands; b1 itself is refused too."""
    state = position("A1 a1\nA2 b1\nB1 h8", diagonals=False)
    assert refused(state, "alice", "A1 move b1") == [(1, "A1 cannot move to b1: b1 is occupied")]
    assert refused(state, "alice", "A1 move c1")[0][1].startswith("A1 cannot move to c1: no path")


def test_without_diagonals_steps_are_orthogonal():
    """RULES.md option `diagonals` (default on): off, b2 is 2 steps from a1 and c3 is 4."""
    state = position("A1 a1\nB1 h8", diagonals=False)
    assert RULES.parse_orders(state, "alice", "A1 move b2")
    assert refused(state, "alice", "A1 move c3")[0][1].startswith("A1 cannot move to c3: no path")
    assert RULES.parse_orders(position("A1 a1\nB1 h8"), "alice", "A1 move c3")


# -- Unit types ---------------------------------------------------------------------------

def test_support_adds_its_die_from_beside_the_attacker_at_minus_one():
    """"Support: Can support attack when non-adjacent to enemy, but -1 attack when supporting."

    Support A2 (b2) touches A1 (c3) but not B1 (c4): 2 dice, total -1. 6 and 1: 6 - 1 = 5
    reaches D 5 with one die: 1 damage."""
    state = position("A1 c3\nA2 b2 support\nB1 c4\nB2 h8")
    _after, events = resolve(state, [6, 1], alice="A1 attack B1")
    attack = first(events, "attack")
    assert (attack["supporters"], attack["damage"]) == (["A2"], 1)


def test_support_costs_one_on_the_total():
    """"but -1 attack when supporting": 5 and 1 with Support make 5 - 1 = 4 with one die,
    5 + 1 - 1 = 5 with both: every die used, 0 damage."""
    state = position("A1 c3\nA2 b2 support\nB1 c4")
    _after, events = resolve(state, [5, 1], alice="A1 attack B1")
    assert first(events, "attack")["damage"] == 0


def test_support_adjacent_to_both_is_an_ordinary_helper():
    """"Can support attack when non-adjacent to enemy": next to both it helps like anyone
    adjacent to both, without the -1. 5 and 1 against D 5: 1 damage."""
    state = position("A1 c3\nA2 d3 support\nB1 c4\nB2 h8")
    _after, events = resolve(state, [5, 1], alice="A1 attack B1")
    attack = first(events, "attack")
    assert (attack["supporters"], attack["helpers"], attack["damage"]) == ([], ["A1", "A2"], 1)


def test_defender_gains_two_per_enemy_adjacent_to_both_but_the_attacker():
    """"Defender: +2 defence per enemy adjacent to both attacker and defender, not counting
    attacker."

    A2 (d3) and A3 (b3) touch both A1 (c3) and Defender B1 (c4): A1 rolls 3 dice, B1's
    defence is 5 + 2 x 2 = 9. 6, 2, 1 = 9 needs every die: 0 damage."""
    state = position("A1 c3\nA2 d3\nA3 b3\nB1 c4 defender")
    _after, events = resolve(state, [6, 2, 1], alice="A1 attack B1")
    attack = first(events, "attack")
    assert (attack["defence"], attack["defender_bonus"], attack["damage"]) == (9, 4, 0)


# -- Capture and victory -----------------------------------------------------------------

def test_defeating_a_token_gives_no_token():
    """"Defeating token does not give token to killer."

    A1 (Pw 2) defeats bob's token on c4 with 6, 1: c4 is empty afterwards."""
    state = position("A1 c3 pw=2\nB1 c4 token\nB2 h8")
    after, events = resolve(state, [6, 1], alice="A1 attack B1")
    assert "token" not in kinds(events)
    assert parse_square("c4") not in after.occupied()


def test_tokens_move_and_count_as_characters():
    """"Defeating enemy create 1/0/5 token for attacker side" - tokens are characters: they
    move, add a die next to both, and add defence next to their side's defender.

    Token A2 moves to d3 (next to A1 and B1) and A1 attacks: 2 dice; token B2 on c5 adds
    +1: defence 6. 6, 1: the 6 reaches 6, 1 damage."""
    state = position("A1 c3\nA2 e2 token\nB1 c4\nB2 c5 token\nB3 h8")
    _after, events = resolve(state, [6, 1], alice="A2 move d3\nA1 attack B1")
    attack = first(events, "attack")
    assert (attack["helpers"], attack["allies"], attack["damage"]) == (["A1", "A2"], ["B2"], 1)


def test_a_side_with_only_tokens_left_loses_and_the_last_side_standing_wins():
    """"Defeating tokens is not required to victory." A side loses when all its non-token
    characters are defeated; its token leaves with it, and alice is the last side standing."""
    state = position("A1 c3 pw=2\nB1 c4\nB2 h8 token")
    after, events = resolve(state, [6, 1], alice="A1 attack B1")
    assert "eliminated" in kinds(events)
    assert [u.side for u in after.units.values()] == ["alice", "alice"]  # A1 and its token
    outcome = RULES.outcome(after)
    assert outcome is not None and outcome.winners == ("alice",)
    assert RULES.expected(after) == []


def test_with_three_sides_the_game_goes_on_until_one_is_left():
    """"Defeating enemy ..." - RULES.md: the last side standing wins. Bob falls; alice and
    carol play on."""
    state = position("A1 c3 pw=2\nB1 c4\nC1 h8")
    after, _ = resolve(state, [6, 1], alice="A1 attack B1")
    assert after.out == ["bob"]
    assert RULES.outcome(after) is None
    assert RULES.expected(after) == ["alice", "carol"]


def test_max_rounds_ends_the_game_as_a_draw():
    """RULES.md option `max_rounds`: after the last allowed round the game is a draw."""
    state = position("A1 a1\nB1 h8", max_rounds=2, round=2)
    after, _ = resolve(state, [], alice="pass", bob="pass")
    outcome = RULES.outcome(after)
    assert outcome is not None and outcome.draw


# -- Order of play and skipped orders ----------------------------------------------------

def test_sides_act_in_seat_order_the_first_seat_rotating():
    """RULES.md: "Sides act in seat order, the first seat rotating each round."

    Both want b3. In round 1 alice acts first and gets it; in round 2 bob does."""
    for round_number, winner in ((1, "A1"), (2, "B1")):
        state = position("A1 b1\nB1 b5", round=round_number)
        after, events = resolve(state, [], alice="A1 move b3", bob="B1 move b3")
        assert after.occupied()[parse_square("b3")].id == winner
        assert first(events, "skip")["reason"].endswith("cannot move to b3: b3 is occupied")


def test_an_attack_on_a_target_that_moved_away_is_skipped_with_a_reason():
    """RULES.md: an order no longer legal when its turn comes is skipped, and the log says why.

    Round 2: bob acts first and B1 steps back from c4 to c6; A1's attack is skipped."""
    state = position("A1 c3\nB1 c4", round=2)
    after, events = resolve(state, [], alice="A1 attack B1", bob="B1 move c6")
    assert first(events, "skip") == {"side": "alice", "order": "A1 attack B1", "unit": "A1",
                                     "reason": "B1 at c6 is not adjacent to A1 at c3"}
    assert after.marks == [{"kind": "move", "squares": ["c4", "b5", "c6"], "side": "bob"}]


def test_the_order_of_a_unit_defeated_earlier_in_the_round_is_skipped():
    """RULES.md: an order no longer legal when its turn comes is skipped (its unit fell)."""
    state = position("A1 c3\nA2 h1\nB1 c4 pw=2", round=2)
    after, events = resolve(state, [6, 1], alice="A1 move b3", bob="B1 attack A1")
    assert first(events, "skip")["reason"] == "A1 was defeated"


def test_a_side_without_orders_holds():
    """RULES.md: "a unit without orders holds"; the log says the side held."""
    state = position("A1 a1\nB1 h8")
    after, events = resolve(state, [])
    assert kinds(events) == ["hold", "hold"]
    assert after.round == 2


def test_alternating_turns_expect_one_player_a_round_in_seat_order():
    """RULES.md option turn_mode alternating: one player a round, in seat order."""
    state = position("A1 a1\nB1 h8", turn_mode="alternating")
    assert RULES.expected(state) == ["alice"]
    after, _ = resolve(state, [], alice="A1 move a2")
    assert RULES.expected(after) == ["bob"]


def test_simultaneous_turns_expect_every_living_player():
    """RULES.md option turn_mode simultaneous (default): every living player each round."""
    assert RULES.expected(position("A1 a1\nB1 h8\nC1 a8")) == ["alice", "bob", "carol"]


# -- Order checks -------------------------------------------------------------------------

def test_orders_name_units_of_the_player():
    """Orders name the player's own living units and real enemies, line by line."""
    state = position("A1 c3\nA2 d3\nB1 c4")
    assert refused(state, "alice", "A7 move a1\nB1 move c5\nA1 attack A2\n# fine\nA2 attack B9") == [
        (1, "A7 is not a unit on the board"), (2, "B1 is not your unit"),
        (3, "A2 is your own unit"), (5, "B9 is not a unit on the board")]


def test_an_attack_is_judged_from_where_the_attacker_will_stand():
    """A unit may move and then attack: the reach is checked from its planned square."""
    state = position("A1 c2\nB1 c4\nB2 h8")
    assert RULES.parse_orders(state, "alice", "A1 move c3\nA1 attack B1")
    assert refused(state, "alice", "A1 attack B1\nA1 move c3") == [
        (1, "B1 at c4 is not adjacent to A1 at c2")]


def test_two_units_cannot_move_to_one_square():
    """RULES.md: one unit per square; two moves onto one square are refused at once."""
    state = position("A1 a1\nA2 c1\nB1 h8")
    assert refused(state, "alice", "A1 move b2\nA2 move b2") == [(2, "A1 already moves to b2")]


def test_legal_orders_list_every_attack_and_move_and_all_parse():
    """Forms and bots get each unit's attacks and moves; every line is accepted."""
    state = position("A1 c3\nB1 c4\nB2 h8")
    legal = RULES.legal_orders(state, "alice")
    assert legal["A1"][0] == "A1 attack B1"
    assert "A1 move a1" in legal["A1"] and "A1 move a5" not in legal["A1"]
    for line in legal["A1"]:
        RULES.parse_orders(state, "alice", line)


# -- Board and state ---------------------------------------------------------------------

def test_the_board_shows_units_health_and_last_rounds_moves_and_attacks():
    """The board has terrain, every unit with side and health, and last round's marks."""
    state = position("A1 c1\nA2 c3 ep=3 pw=2\nB1 c4 ep=2\nB2 h8", terrain={"f6": "wall"})
    after, _ = resolve(state, [6, 1], alice="A1 move b2\nA2 attack B1")
    board = RULES.board(after)
    assert board.terrain == {"f6": "wall"}
    b1 = next(p for p in board.pieces if p.id == "B1")
    assert (b1.side, b1.square, b1.health, b1.max_health, b1.kind) == ("bob", "c4", 1, 2, "unit")
    assert [(m.kind, m.squares, m.side) for m in board.marks] == [
        ("move", ("c1", "b2"), "alice"), ("attack", ("c3", "c4"), "alice")]


def test_state_dumps_to_json_and_loads_back():
    """The state is JSON with no floats, and load(dump(s)) dumps the same."""
    import json

    state = position("A1 c3 mortar runner ep=2\nB1 c4 token", terrain={"a1": "wall"})
    data = RULES.dump(state)
    assert json.loads(json.dumps(data)) == data
    assert RULES.dump(RULES.load(data)) == data


def test_orders_of_a_player_whose_turn_it_is_not_are_ignored_with_a_reason():
    """RULES.md: alternating turns expect one player a round; nothing is dropped silently."""
    state = position("A1 a1\nB1 h8", turn_mode="alternating")
    bob = RULES.parse_orders(state, "bob", "B1 move h7")
    result = RULES.resolve(state, {"bob": bob}, ScriptedDice([]))
    assert result.state.units["B1"].square.name == "h8"
    assert [e.text for e in result.events] == [
        "the orders of bob are ignored: bob does not act this round", "alice gives no orders: every unit holds"]


def test_a_move_off_the_grid_onto_a_wall_or_nowhere_is_refused_with_the_reason():
    """Bad moves name the square and why: off the grid, impassable, or already there."""
    state = position("A1 a1\nB1 h8", terrain={"b2": "wall"})
    assert refused(state, "alice", "A1 move z99\nA1 move b2\nA1 move a1") == [
        (1, "A1 cannot move to z99: z99 is off the 8x8 grid"),
        (2, "A1 cannot move to b2: b2 is impassable"),
        (3, "A1 is already on a1"),
    ]


def test_a_unit_may_step_onto_a_square_its_neighbour_leaves_on_an_earlier_line():
    """A side's orders act in the order written, so they are checked that way: A2 leaves b1
    on line 1 and A1 takes it on line 2. The other way round, b1 is still occupied."""
    state = position("A1 a1\nA2 b1\nB1 h8")
    after, _ = resolve(state, [], alice="A2 move c1\nA1 move b1")
    assert (after.units["A1"].square.name, after.units["A2"].square.name) == ("b1", "c1")
    assert refused(state, "alice", "A1 move b1\nA2 move c1") == [
        (1, "A1 cannot move to b1: b1 is occupied")]
