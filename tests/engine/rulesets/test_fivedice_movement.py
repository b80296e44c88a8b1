"""fivedice rulebook: movement points and what a long move costs."""

from __future__ import annotations

import pytest

from engine.orders import OrderErrors

from .fivedice_fixtures import life, play, state, texts, unit, where

QUIET = [1, 1, 1, 1, 1]  # five dice that decide nothing in these tests
FIRST = [6, 6, 6, 1, 1]  # initiative die 6: this unit acts before a QUIET one
# Attack 6+6, initiative 3, defence 1+1 under the fixtures' policy.
STRONG = [6, 6, 3, 1, 1]


def test_move_up_to_movement_points_keeps_attack_and_defence() -> None:
    """'Up to Movement Points: able to use Attack and Defense.' A1 (MP 3) moves 3 squares
    and still attacks: 6+6 + 3 + sword 3 = 18 against B1's 1+1 + 3 = 5 → 13 damage."""
    s = state(unit("A1", "c2"), unit("B1", "c6", life=20))
    res = play(s, {"alice": "A1 move c5\nA1 attack B1"}, [*STRONG, *QUIET])
    assert where(res, "A1") == "c5"
    assert texts(res, "move") == ["A1 moves c2 to c5: 3 squares of movement 3."]
    assert life(res, "B1") == 20 - 13


def test_move_up_to_double_loses_the_attack_by_default() -> None:
    """'Up to double Movement Points: loose either Attack or Defence (Player's choice)';
    docs/rulesets/fivedice.md: default attack. A1 moves 5 (MP 3) and its attack is skipped."""
    s = state(unit("A1", "c1"), unit("B1", "c7"))
    res = play(s, {"alice": "A1 move c6\nA1 attack B1"}, [*STRONG, *QUIET])
    assert texts(res, "move") == ["A1 moves c1 to c6: 5 squares of movement 3 (costs its attack)."]
    assert texts(res, "skip") == ["'A1 attack B1' skipped: its attack is already spent this round."]
    assert life(res, "B1") == 10


def test_move_up_to_double_may_lose_the_defence_instead() -> None:
    """'(Player's choice)': `lose defence` keeps the attack, and the unit then defends with
    stat alone. A1 attacks: 12 + 3 + 3 = 18 vs 1+1 + 3 = 5 → 13. B1 strikes back:
    1+1 + 3 + 3 = 8 against A1's defence 3 (dice lost) → 5."""
    s = state(unit("A1", "c1"), unit("B1", "c7", life=20))
    res = play(s, {"alice": "A1 move c6 lose defence\nA1 attack B1"}, [*STRONG, *QUIET])
    assert life(res, "B1") == 20 - 13
    assert life(res, "A1") == 10 - 5


def test_move_up_to_triple_loses_attack_and_defence() -> None:
    """'Up to three-times Movement Points: loose Attack and Defence.' A1 runs 8 (MP 3)."""
    s = state(unit("A1", "c1"), unit("B1", "c10"))
    res = play(s, {"alice": "A1 move c9\nA1 attack B1"}, [*STRONG, *QUIET])
    assert texts(res, "move") == [
        "A1 moves c1 to c9: 8 squares of movement 3 (costs its attack and defence)."]
    assert len(texts(res, "skip")) == 1


def test_a_shot_first_does_not_make_a_long_move_free() -> None:
    """'Up to double Movement Points: loose either Attack or Defence'; docs/rulesets/fivedice.md: "The cost of
    a long move (losing attack or defence) does not depend on the order of the unit's
    actions: an attack already spent does not pay for it."

    Archer A1 (MP 3) shoots B1, then moves 5 squares. Moving first would have cost its
    attack (no shot) or its defence; shooting first, the attack is spent, so the move costs
    the defence. Then B1 (initiative 1) attacks A1: 1+1 + 3 + sword 3 = 8 against A1's
    defence 3 alone (its dice lost) → 5 damage; A1's attack is spent, no strike back."""
    s = state(unit("A1", "c1", weapons=("shortbow",)), unit("B1", "c7", life=20))
    res = play(s, {"alice": "A1 shoot B1\nA1 move c6", "bob": "B1 attack A1"},
               [*FIRST, *QUIET])
    assert texts(res, "move") == [
        "A1 moves c1 to c6: 5 squares of movement 3 (costs its defence, its attack being "
        "already spent)."]
    assert life(res, "A1") == 10 - 5


def test_after_a_shot_a_triple_move_is_skipped() -> None:
    """'Up to three-times Movement Points: loose Attack and Defence': after a shot the
    attack cannot pay, so the 7-square move of A1 (MP 3) is skipped, as a shot after it
    would be."""
    s = state(unit("A1", "c1", weapons=("shortbow",)), unit("B1", "c7", life=20))
    res = play(s, {"alice": "A1 shoot B1\nA1 move j8"}, [*FIRST, *QUIET])
    assert where(res, "A1") == "c1"
    assert texts(res, "skip") == [
        "'A1 move j8' skipped: a move of 7 squares (over 2 x 3) costs its attack and defence, "
        "and its attack is already spent this round."]


def test_beyond_triple_movement_is_refused() -> None:
    """A move of more than 3 × MP is not an order the unit can be given."""
    s = state(unit("A1", "c1", movement=2), unit("B1", "l12"))
    with pytest.raises(OrderErrors) as err:
        play(s, {"alice": "A1 move c8"}, [])
    assert str(err.value) == "line 1: c8 is 7 squares away; A1 moves at most 3 x 2"


def test_diagonal_movement_is_allowed() -> None:
    """'Diagonal movement is allowed': c3 to e5 is 2 squares."""
    s = state(unit("A1", "c3", movement=2), unit("B1", "l12"))
    res = play(s, {"alice": "A1 move e5"}, [*QUIET, *FIRST])
    assert texts(res, "move") == ["A1 moves c3 to e5: 2 squares of movement 2."]


def test_never_through_an_enemy_square() -> None:
    """'...but not over an the enemy occupied the field.' Without diagonals, B1 on b1
    forces A1 round it: 4 squares instead of 2, so the move costs the attack."""
    s = state(unit("A1", "a1", movement=2), unit("B1", "b1"), diagonals=False)
    res = play(s, {"alice": "A1 move c1"}, [*QUIET, *FIRST])
    assert res.events[-1].data["path"] == ["a1", "a2", "b2", "c2", "c1"]
    assert res.events[-1].data["lost"] == ["attack"]


def test_friendly_squares_may_be_passed_through() -> None:
    """Only enemy squares block the way: A1 walks over its friend A2 on b1 (2 squares)."""
    s = state(unit("A1", "a1", movement=2), unit("A2", "b1"), unit("B1", "l12"), diagonals=False)
    res = play(s, {"alice": "A1 move c1"}, [*QUIET, 2, 2, 2, 1, 1, *FIRST])
    assert res.events[-1].data["path"] == ["a1", "b1", "c1"]
    assert res.events[-1].data["lost"] == []


def test_a_move_after_the_skirmish_uses_the_move_left() -> None:
    """'...resolving the complete skirmish between the opponents for this round. First
    leaving the potential move action available if not already used.' A1 attacks, then
    steps back."""
    s = state(unit("A1", "c4"), unit("B1", "c5", life=30))
    res = play(s, {"alice": "A1 attack B1\nA1 move c2"}, [*STRONG, *QUIET])
    assert where(res, "A1") == "c2"
    assert texts(res, "skip") == []


def test_a_second_move_order_is_refused() -> None:
    """One movement action a round: two move lines for one unit are refused."""
    s = state(unit("A1", "c4"), unit("B1", "l12"))
    with pytest.raises(OrderErrors) as err:
        play(s, {"alice": "A1 move c5\nA1 move c6"}, [])
    assert "line 2: A1 already has a move order on line 1" in str(err.value)


def test_lose_needs_the_action_named() -> None:
    s = state(unit("A1", "c4"), unit("B1", "l12"))
    with pytest.raises(OrderErrors) as err:
        play(s, {"alice": "A1 move c8 lose"}, [])
    assert str(err.value) == "line 1: say which action to lose, like 'lose attack'"


def test_of_equal_paths_the_straightest_is_taken() -> None:
    """What the board draws is what a player means: without diagonals, a1 to c3 keeps
    close to the straight line (a staircase) rather than running along an edge."""
    s = state(unit("A1", "a1", movement=4), unit("B1", "l12"), diagonals=False)
    res = play(s, {"alice": "A1 move c3"}, [*QUIET, *FIRST])
    path = res.events[-1].data["path"]
    assert len(path) == 5 and "b2" in path


def test_a_diagonal_step_between_two_enemies_is_allowed() -> None:
    """'Diagonal movement is allowed but not over an the enemy occupied the field.' Only
    entering an enemy's square is "over" it: A1 steps diagonally from c3 to d4 between
    B1 on c4 and B2 on d3, one square of movement."""
    s = state(unit("A1", "c3"), unit("B1", "c4"), unit("B2", "d3"))
    res = play(s, {"alice": "A1 move d4"}, [*FIRST, *QUIET, 2, 2, 2, 2, 2])
    assert where(res, "A1") == "d4"
    assert texts(res, "move") == ["A1 moves c3 to d4: 1 squares of movement 3."]


def test_a_move_the_walls_make_too_long_is_refused_when_written() -> None:
    """'Up to three-times Movement Points' and walls block movement (docs/rulesets/fivedice.md,
    the map). A1 (MP 1) on a1 to c1 is 2 squares, within 3 x 1, but walls on b1 and b2 leave
    only a1-a2-b3-c2-c1, 4 squares. Walls never move, so the order is refused when written,
    naming the walls rather than the distance."""
    s = state(unit("A1", "a1", movement=1), unit("B1", "l12"), terrain={"b1": "wall", "b2": "wall"})
    with pytest.raises(OrderErrors) as err:
        play(s, {"alice": "A1 move c1"}, [])
    assert str(err.value) == ("line 1: c1 is 2 squares away, but the walls make the way longer "
                              "than A1's 3 x 1")


def test_a_move_enemies_block_is_skipped_naming_them() -> None:
    """'Diagonal movement is allowed but not over an the enemy occupied the field.' A1 (MP 1)
    on c1 to c3 is 2 squares, but B1 (b2), B2 (c2) and B3 (d2) stand across every way of 3
    squares or less (round them is 4: c1-b1-a2-b3-c3). Enemies may move first, so the order
    is accepted when written; when A1's turn comes (initiative 6 + 2 - 2 = 6, first) they
    are still there and the move is skipped, naming all three."""
    s = state(unit("A1", "c1", movement=1), unit("B1", "b2", initiative=0),
              unit("B2", "c2", initiative=1), unit("B3", "d2", initiative=3))
    res = play(s, {"alice": "A1 move c3"}, [*FIRST, *QUIET, *QUIET, *QUIET])
    assert where(res, "A1") == "c1"
    assert texts(res, "skip") == [
        "'A1 move c3' skipped: c3 cannot be reached within 3 x 1 squares: enemies are in the "
        "way (B1 on b2, B2 on c2 and B3 on d2)."]


def _offered(s, uid: str) -> dict[str, str]:
    """The legal orders of the unit's player for this unit: text → what it costs."""
    from .fivedice_fixtures import RULES
    unit_ = s.unit(uid)
    return {o.format(): o.cost for o in RULES.legal_orders(s, unit_.player)[uid]}


def test_the_offered_moves_say_what_they_cost() -> None:
    """'Up to Movement Points: able to use Attack and Defense Up to double Movement Points:
    loose either Attack or De-fence (Player's choice).Up to three-times Movement Points:
    loose Attack and Defence.' A1 (MP 2) on c1: c3 (2 squares) costs nothing; c5 (4)
    costs its attack by default, or its defence with 'lose defence'; c7 (6) both. A
    skirmish spends its defence too ("this consumes the attack and defense action")."""
    s = state(unit("A1", "c1", movement=2, items=("potion",)), unit("B1", "d2"))
    offered = _offered(s, "A1")
    assert offered["A1 move c3"] == ""
    assert offered["A1 move c5"] == "costs its attack this round"
    assert offered["A1 move c5 lose defence"] == "costs its defence this round"
    assert offered["A1 move c7"] == "costs its attack and defence this round"
    assert "A1 move c3 lose defence" not in offered  # a free move has no loss to choose
    assert offered["A1 attack B1"] == "costs its defence too: the skirmish spends its attack and defence"
    assert offered["A1 use potion"] == "costs its attack this round"


def test_a_skill_0_unit_s_long_move_costs_both() -> None:
    """'SKILL LEVEL 0: ... there is only one action in addition to move used for either
    attack or defense.' For A1 (skill 0, MP 2) a move of 4 loses that one action, its attack
    and its defence, whichever it names; a shot costs its defence too."""
    s = state(unit("A1", "c1", movement=2, skill=0, weapons=("shortbow",)), unit("B1", "c6"))
    offered = _offered(s, "A1")
    assert offered["A1 move c5"] == "costs its attack and defence this round"
    assert offered["A1 move c5 lose defence"] == "costs its attack and defence this round"
    assert offered["A1 shoot B1"] == "costs its attack and defence this round"
