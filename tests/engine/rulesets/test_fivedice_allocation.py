"""fivedice rulebook: rolling five dice and placing them on the combat sheet."""

from __future__ import annotations

import pytest

from engine.rulesets.fivedice.allocation import allocate, legal_counts

from .fivedice_fixtures import life, play, state, texts, unit

ROLL = [2, 6, 4, 3, 5]  # sorted: 6 5 4 3 2


def test_five_dice_two_attack_one_initiative_two_defence() -> None:
    """'Roll all 5 dice and allocate them to the respective areas of the combat sheet:
    A Attack, I Initiative, Ω Defense' (2/1/2, docs/rulesets/fivedice.md)."""
    p = allocate(ROLL, 1, ("aggressive",))
    assert (p.attack, p.initiative, p.defence) == ((6, 5), (4,), (3, 2))


@pytest.mark.parametrize("skill", [0, 1])
def test_skill_0_and_1_shift_no_dice(skill: int) -> None:
    """'SKILL LEVEL 0: no dice are shifted' / 'SKILL LEVEL 1: no dice are shifted'."""
    assert legal_counts(skill) == ((2, 1, 2),)
    p = allocate(ROLL, skill, ("defensive",))
    assert (p.attack, p.initiative, p.defence) == ((4, 3), (2,), (6, 5))


def test_skill_2_shifts_the_initiative_die_to_attack() -> None:
    """'SKILL LEVEL 2: dice shifted is the initiative to the two attack or defense allowed.'"""
    p = allocate(ROLL, 2, ("aggressive",))
    assert (p.attack, p.initiative, p.defence) == ((6, 5, 4), (), (3, 2))


def test_skill_2_shifts_the_initiative_die_to_defence() -> None:
    """'SKILL LEVEL 2: dice shifted is the initiative to the two attack or defense allowed.'"""
    p = allocate(ROLL, 2, ("defensive",))
    assert (p.attack, p.initiative, p.defence) == ((3, 2), (), (6, 5, 4))


def test_skill_3_shifts_one_more_die_the_same_way() -> None:
    """'SKILL LEVEL 3: dice shifted are the initiative dice and one additional dice allowed.'
    ('shift an additional dice in the same direction as Initiative dice')."""
    p = allocate(ROLL, 3, ("aggressive",))
    assert (p.attack, p.initiative, p.defence) == ((6, 5, 4, 3), (), (2,))
    p = allocate(ROLL, 3, ("defensive",))
    assert (p.attack, p.initiative, p.defence) == ((2,), (), (6, 5, 4, 3))


def test_skill_3_cannot_move_dice_to_initiative() -> None:
    """Moving a die to the initiative is first allowed at skill level 4."""
    p = allocate(ROLL, 3, ("priority", "initiative", "attack", "defence"))
    assert p.initiative == (6,)


def test_skill_4_moves_an_attack_or_defence_die_to_initiative() -> None:
    """'SKILL LEVEL 4: ... while also allowing an attack or defense dice to be moved to the
    initiative.'"""
    p = allocate(ROLL, 4, ("priority", "initiative", "attack", "defence"))
    assert (p.attack, p.initiative, p.defence) == ((4, 3), (6, 5), (2,))
    p = allocate(ROLL, 4, ("priority", "initiative", "defence", "attack"))
    assert (p.attack, p.initiative, p.defence) == ((2,), (6, 5), (4, 3))


def test_skill_5_arranges_freely_with_one_die_in_each_area() -> None:
    """'SKILL LEVEL 5: all dice can be freely arranged, but at least one dice has to be
    assigned to each attack initiative and defense value.'"""
    p = allocate(ROLL, 5, ("priority", "initiative", "defence", "attack"))
    assert (p.attack, p.initiative, p.defence) == ((2,), (6, 5, 4), (3,))
    assert (1, 3, 1) not in legal_counts(4)


def test_skill_5_never_leaves_an_area_without_a_die() -> None:
    """'SKILL LEVEL 5: all dice can be freely arranged, but at least one dice has to be
    assigned to each attack initiative and defense value.'

    So skill 5 does not keep the shifts of levels 2 and 3 that empty the initiative
    (4/0/1, 3/0/2 ...). 6 5 4 3 2, aggressive: at most three dice on attack, 6+5+4 = 15,
    the next best die on initiative (3) and the last on defence (2)."""
    assert all(min(counts) >= 1 for counts in legal_counts(5))
    assert {(4, 0, 1), (3, 0, 2), (2, 0, 3), (1, 0, 4)}.isdisjoint(legal_counts(5))
    assert len(legal_counts(5)) == 6  # 3/1/1, 1/3/1, 1/1/3, 2/2/1, 2/1/2, 1/2/2
    p = allocate(ROLL, 5, ("aggressive",))
    assert (p.attack, p.initiative, p.defence) == ((6, 5, 4), (3,), (2,))


def test_skills_1_to_4_keep_the_lower_levels_placements() -> None:
    """Our reading of levels 1 to 4 ("dice shifted are the initiative dice and one
    additional dice ..., while also allowing ..."): each adds to the one below."""
    for skill in range(4):
        assert set(legal_counts(skill)) <= set(legal_counts(skill + 1))


def test_balanced_keeps_the_initiative_die_when_shifting_does_not_help() -> None:
    """Policy `balanced` (ours): the weaker of attack and defence as high as possible,
    then initiative. 6 6 2 2 1: attack 6+2, defence 6+2 either way, so the 1 stays on
    initiative."""
    p = allocate([6, 2, 1, 6, 2], 2, ("balanced",))
    assert (sum(p.attack), p.initiative, sum(p.defence)) == (8, (1,), 8)


def test_balanced_shifts_when_it_raises_the_weaker_area() -> None:
    """6 6 6 1 1 at skill 2: unshifted the weaker area is 6+1 = 7; shifting the
    initiative die lifts it to 6+1+1 = 8 (attack 6+6 kept higher on the tie)."""
    p = allocate([1, 6, 6, 1, 6], 2, ("balanced",))
    assert (p.attack, p.initiative, p.defence) == ((6, 6), (), (6, 1, 1))


def test_priority_lists_the_areas_and_the_rest_follow_in_sheet_order() -> None:
    """`A1 dice priority defence` = defence, then attack, then initiative."""
    p = allocate(ROLL, 4, ("priority", "defence"))
    assert (p.attack, p.initiative, p.defence) == ((2,), (), (6, 5, 4, 3))


def test_dice_order_sets_a_standing_policy_and_the_log_shows_the_placement() -> None:
    """The order names a policy; the engine places the dice and logs it. The policy
    stays for later rounds."""
    s = state(unit("A1", "c3", skill=2, policy=("balanced",)), unit("B1", "c8"))
    res = play(s, {"alice": "A1 dice defensive"}, [2, 6, 4, 3, 5, 1, 1, 1, 1, 1])
    dice_log = texts(res, "dice")[0]
    assert dice_log == ("A1 rolls 2 6 4 3 5 and places them (defensive): attack 3+2 = 5, "
                        "initiative none, defence 6+5+4 = 15; initiative 0 + I 2 - speed 2 = 0.")
    a1 = res.state.unit("A1")
    assert a1 is not None and a1.policy == ("defensive",)
    assert life(res, "A1") == 10


def test_option_die_sets_the_sides_of_the_five_dice() -> None:
    """Option `die` (default d6): with die 10 each combat die is a d10."""
    s = state(unit("A1", "c3"), unit("B1", "c8"), die=10)
    res = play(s, {}, [10, 9, 8, 7, 6, 1, 2, 3, 4, 5])
    assert {r.n for r in res.rolls} == {10}
    assert "attack 10+9 = 19" in texts(res, "dice")[0]
