"""jep1 rulebook: ranged attacks.

Seed: "For range attack, the system is generally the same with the exception of attacker uses
his range to roll number of attack & defender uses initiative to roll for defense value."
"""

import pytest

from engine.grid import parse_square
from engine.orders import OrderErrors

from .jep1_fixtures import play, state, texts, unit


def test_shooter_rolls_r_dice_plus_r_against_i_dice_plus_i():
    """'attacker uses his range to roll number of attack & defender uses initiative to roll for
    defense value': R2 rolls 5 4 → 7 6; I3 rolls 1 1 1 → 4 4 4; both hit; 1+3 and 6+3 beat T4."""
    s = state(unit("A1", "c1", R=2), unit("B1", "c6", I=3, T=4, H=3))
    res = play(s, {"alice": "A1 shoot B1"}, [5, 4, 1, 1, 1, 1, 6])
    roll = next(e for e in res.events if e.kind == "roll")
    assert roll.data["attacks"] == [7, 6] and roll.data["defences"] == [4, 4, 4]
    assert res.state.unit("B1").H == 1


def test_no_strike_back_after_a_shot_by_default():
    """docs/rulesets/jep1.md: ranged has no strike back unless the option says so, even if the target can shoot."""
    s = state(unit("A1", "c1", R=2), unit("B1", "c6", I=3, R=2))
    res = play(s, {"alice": "A1 shoot B1"}, [1, 1, 6, 6, 6])
    assert texts(res, "strike back") == []


def test_ranged_strikes_back_option_answers_with_r_dice_against_i_dice():
    """Option ranged_strikes_back: the living target shoots back through the same steps: its R2
    (5 5 → 7 7) against A1's I2 (1 1 → 3 3), two hits, damage 1+3 and 1+3 against T4."""
    s = state(unit("A1", "c1", R=2, T=4, H=3), unit("B1", "c6", I=3, R=2), ranged_strikes_back=True)
    res = play(s, {"alice": "A1 shoot B1"}, [1, 1, 6, 6, 6, 5, 5, 1, 1, 1, 1])
    assert texts(res, "strike back") == ["B1 shoots back at A1."]
    assert res.state.unit("A1").H == 1


def test_target_without_a_ranged_attack_cannot_shoot_back():
    s = state(unit("A1", "c1", R=2), unit("B1", "c6", I=3, R=0), ranged_strikes_back=True)
    res = play(s, {"alice": "A1 shoot B1"}, [1, 1, 6, 6, 6])
    assert any("cannot shoot back" in t for t in texts(res, "skip"))


def test_target_beyond_reach_is_refused():
    """docs/rulesets/jep1.md: ranged 'needs ... the weapon's reach (unit stat, default 8)'."""
    s = state(unit("A1", "c1", R=2, reach=3), unit("B1", "c6"))
    with pytest.raises(OrderErrors, match="beyond A1's reach of 3"):
        play(s, {"alice": "A1 shoot B1"}, [])


def test_reach_counts_from_where_the_move_ends():
    """Movement comes before the attack: moving 4 squares up brings c10 within reach 5."""
    s = state(unit("A1", "c1", R=1, reach=5), unit("B1", "c10", I=0, H=1))
    res = play(s, {"alice": "A1 move c5\nA1 shoot B1"}, [6, 6])  # 7 against no I dice: a hit; 6+3 >= 4
    assert res.state.unit("A1").at == parse_square("c5")
    assert not res.state.unit("B1").alive


def test_a_wall_on_the_line_blocks_the_shot():
    """docs/rulesets/jep1.md: 'needs line of sight': the straight line c1 → c6 crosses the wall on c3."""
    s = state(unit("A1", "c1", R=2), unit("B1", "c6"))
    s.walls = [parse_square("c3")]
    with pytest.raises(OrderErrors, match="no line of sight from c1 to c6: the wall on c3 blocks it"):
        play(s, {"alice": "A1 shoot B1"}, [])


def test_a_shot_out_of_reach_says_the_distance_and_the_reach():
    """docs/rulesets/jep1.md, Ranged: "the weapon's reach (Chebyshev distance, default 8)".
    B1 on c10 is 9 squares from c1, beyond A1's reach of 8: the refusal says so, not that
    sight is missing (nothing stands between them)."""
    s = state(unit("A1", "c1", R=2), unit("B1", "c10"))
    with pytest.raises(OrderErrors) as info:
        play(s, {"alice": "A1 shoot B1"}, [])
    assert [e.message for e in info.value.errors] == [
        "c10 is 9 squares from c1, beyond A1's reach of 8"]


def test_units_on_the_line_do_not_block_sight():
    """docs/rulesets/jep1.md: 'a square holding a unit is partly obscuring', which jep1 gives no effect."""
    s = state(unit("A1", "c1", R=1), unit("A2", "c3"), unit("B1", "c6", I=0, H=1))
    res = play(s, {"alice": "A1 shoot B1"}, [6, 6])
    assert not res.state.unit("B1").alive


def test_unit_without_range_cannot_shoot():
    s = state(unit("A1", "c1", R=0), unit("B1", "c6"))
    with pytest.raises(OrderErrors, match="has no ranged attack"):
        play(s, {"alice": "A1 shoot B1"}, [])


def test_shot_skipped_when_the_target_stepped_behind_a_wall():
    """An order no longer legal at its turn is skipped with the reason: B1 (I3) acts first and
    steps to d6, behind the wall on d4; A1's shot from d1 is skipped."""
    s = state(unit("A1", "d1", R=2, I=1), unit("B1", "e6", I=3))
    s.walls = [parse_square("d4")]
    res = play(s, {"alice": "A1 shoot B1", "bob": "B1 move d6"}, [])
    assert any("no line of sight" in t for t in texts(res, "skip"))
