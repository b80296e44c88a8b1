"""Rulebook cases for `universal` (docs/rulesets/universal.md):
Unit types, capture and victory.

One test per rule case. Each docstring quotes the seed sentence it checks; the dice are
scripted and the expected result is worked out by hand in the docstring. Positions:
see universal_positions.py.
"""

from __future__ import annotations

from engine.grid import parse_square
from tests.engine.rulesets.universal_positions import RULES, first, kinds, position, resolve

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
    """"Defeating enemy ..." - docs/rulesets/universal.md: the last side standing wins. Bob falls; alice and
    carol play on."""
    state = position("A1 c3 pw=2\nB1 c4\nC1 h8")
    after, _ = resolve(state, [6, 1], alice="A1 attack B1")
    assert after.out == ["bob"]
    assert RULES.outcome(after) is None
    assert RULES.expected(after) == ["alice", "carol"]


def test_max_rounds_ends_the_game_as_a_draw():
    """docs/rulesets/universal.md option `max_rounds`: after the last allowed round the game is a draw."""
    state = position("A1 a1\nB1 h8", max_rounds=2, round=2)
    after, _ = resolve(state, [], alice="pass", bob="pass")
    outcome = RULES.outcome(after)
    assert outcome is not None and outcome.draw
