"""fivedice rulebook: close combat, one skirmish both ways at once."""

from __future__ import annotations

from .fivedice_fixtures import life, play, state, texts, unit

# Under the fixtures' policy (two highest on attack, the middle one on initiative):
A_DICE = [6, 6, 3, 1, 1]  # attack 12, initiative 3, defence 2
A2_DICE = [6, 6, 4, 1, 1]  # attack 12, initiative 4, defence 2
B_DICE = [5, 4, 2, 2, 1]  # attack 9, initiative 2, defence 3


def test_skirmish_both_ways_at_once() -> None:
    """'Compare end result of attack vs- opponent's defense and vice versa. Subtract
    defense from attack, the result is damage suffered from attack and vice versa.'
    A1: 12 + 3 + sword 3 = 18 against B1's 3 + 3 + chain 4 = 10 → 8.
    B1: 9 + 3 + sword 3 = 15 against A1's 2 + 3 + leather 2 = 7 → 8."""
    s = state(unit("A1", "c4", life=20, armor="leather"), unit("B1", "c5", life=20, armor="chain"))
    res = play(s, {"alice": "A1 attack B1"}, [*A_DICE, *B_DICE])
    assert texts(res, "melee") == [
        "A1 attacks B1 with sword: attack 18 against defence 10, 8 damage; B1 strikes back "
        "with sword: attack 15 against defence 7, 8 damage."]
    assert (life(res, "A1"), life(res, "B1")) == (12, 12)


def test_damage_is_never_negative() -> None:
    """'damage = positive difference' (docs/rulesets/fivedice.md): A1 bare-handed, 6+6 + 0 = 12, against
    B1's 3 + 9 + plate 6 = 18 deals 0, not −6."""
    s = state(unit("A1", "c4", attack=0, weapons=()), unit("B1", "c5", defence=9, armor="plate"))
    res = play(s, {"alice": "A1 attack B1"}, [*A_DICE, *B_DICE])
    melee = next(e for e in res.events if e.kind == "melee")
    assert melee.text.startswith("A1 attacks B1 with bare hands: attack 12 against defence 18, 0 damage")
    assert life(res, "B1") == 10


def test_both_may_fall_at_once() -> None:
    """Both ways at once: the damage lands together, so neither blow is lost."""
    s = state(unit("A1", "c4", life=5, armor="leather"), unit("B1", "c5", life=5, armor="chain"))
    res = play(s, {"alice": "A1 attack B1"}, [*A_DICE, *B_DICE])
    assert texts(res, "death") == ["B1 (custom) falls: struck by A1.",
                                   "A1 (custom) falls: struck back by B1."]
    assert res.state.living() == []


def test_a_spent_defence_defends_with_stat_and_armor_alone() -> None:
    """'Attention this consumes the attack and defense action from an opponent as well.'
    A2 skirmishes B1 first (18 against 3 + 3 + 4 = 10 → 8; B1 strikes back 15 against
    2 + 3 = 5 → 10). Then A1 attacks B1, whose defence is spent: 18 against 3 + 4 = 7
    → 11, and B1, its attack spent too, does not strike back."""
    s = state(unit("A1", "c4"), unit("A2", "b5", life=20), unit("B1", "c5", life=30, armor="chain"))
    res = play(s, {"alice": "A1 attack B1\nA2 attack B1", "bob": "B1 attack A1"},
               [*A_DICE, *A2_DICE, *B_DICE])
    assert texts(res, "melee") == [
        "A2 attacks B1 with sword: attack 18 against defence 10, 8 damage; B1 strikes back "
        "with sword: attack 15 against defence 5, 10 damage.",
        "A1 attacks B1 with sword: attack 18 against defence 7, 11 damage; B1 does not strike "
        "back: its attack is spent."]
    assert (life(res, "B1"), life(res, "A2"), life(res, "A1")) == (30 - 8 - 11, 10, 10)
    assert texts(res, "skip") == ["'B1 attack A1' skipped: its attack is already spent this round."]


def test_the_attacker_spends_its_defence_too() -> None:
    """The skirmish spends both units' attack and defence (docs/rulesets/fivedice.md): after A1 attacks B1,
    B2 attacks A1, who defends with 3 alone and cannot strike back. B2 has initiative
    die 1: 6+6 + 3 + 3 = 18 against 3 → 15."""
    s = state(unit("A1", "c4", life=30), unit("B1", "c5", life=30), unit("B2", "d4"))
    res = play(s, {"alice": "A1 attack B1", "bob": "B2 attack A1"},
               [*A_DICE, *B_DICE, 6, 6, 1, 1, 1])
    assert texts(res, "melee")[1] == ("B2 attacks A1 with sword: attack 18 against defence 3, 15 "
                                      "damage; A1 does not strike back: its attack is spent.")


def test_reach_lets_a_spear_strike_two_squares_away_without_reply() -> None:
    """Weapon reach (sheet): a spear reaches 2; B1's sword reaches 1, so no strike back."""
    s = state(unit("A1", "c3", weapons=("spear",)), unit("B1", "c5", life=30, initiative=1))
    res = play(s, {"alice": "A1 attack B1"}, [*A_DICE, *B_DICE])
    assert texts(res, "melee") == [
        "A1 attacks B1 with spear: attack 18 against defence 6, 12 damage; B1 cannot strike "
        "back: sword reaches 1."]


def test_out_of_reach_is_skipped() -> None:
    """An attack whose target is out of the weapon's reach when its turn comes is skipped."""
    s = state(unit("A1", "c3"), unit("B1", "c5"))
    res = play(s, {"alice": "A1 attack B1"}, [*A_DICE, *B_DICE])
    assert texts(res, "skip") == ["'A1 attack B1' skipped: B1 is 2 squares away; sword reaches 1."]


def test_a_ranged_weapon_is_no_use_in_close_combat() -> None:
    """Ours: a unit wielding a bow fights bare-handed in melee (bonus 0, reach 1):
    B1 strikes back 9 + 3 + 0 = 12 against 2 + 3 = 5 → 7."""
    s = state(unit("A1", "c4", life=20), unit("B1", "c5", life=30, weapons=("shortbow",)))
    res = play(s, {"alice": "A1 attack B1"}, [*A_DICE, *B_DICE])
    assert "B1 strikes back with bare hands: attack 12 against defence 5, 7 damage" in texts(res, "melee")[0]


def test_target_fallen_earlier_in_the_round_is_skipped() -> None:
    """Orders no longer legal when their turn comes are skipped with the reason."""
    s = state(unit("A1", "c4"), unit("A2", "b5"), unit("B1", "c5", life=1))
    res = play(s, {"alice": "A1 attack B1\nA2 attack B1"}, [*A_DICE, *A2_DICE, *B_DICE])
    assert texts(res, "skip") == ["'A1 attack B1' skipped: B1 has fallen."]


def test_a_fallen_units_orders_are_skipped() -> None:
    """B1 falls to A1 before its turn; its move is skipped and the log says so."""
    s = state(unit("A1", "c4"), unit("B1", "c5", life=1))
    res = play(s, {"alice": "A1 attack B1", "bob": "B1 move c7"}, [*A_DICE, *B_DICE])
    assert texts(res, "skip") == ["'B1 move c7' skipped: B1 has fallen."]
