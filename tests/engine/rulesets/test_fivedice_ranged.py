"""fivedice rulebook: ranged combat, line of sight and partly obscured lines."""

from __future__ import annotations

import pytest

from engine.orders import OrderErrors
from engine.rulesets.fivedice.state import Unit

from .fivedice_fixtures import life, play, state, texts, unit

A_DICE = [6, 6, 3, 1, 1]  # attack 12, initiative 3, defence 2
B_DICE = [5, 4, 2, 2, 1]  # attack 9, initiative 2, defence 3
SLOW = [1, 1, 1, 1, 1]  # initiative 1


def archer(at: str = "c2") -> Unit:
    return unit("A1", at, weapons=("shortbow",))


def test_shot_without_strike_back() -> None:
    """'the attacker will not be countered by the attacked so only the attack damage is
    resolved against the defender's defenses.' 12 + 3 + shortbow 2 = 17 against 3 + 3 = 6."""
    s = state(archer(), unit("B1", "c6", life=20))
    res = play(s, {"alice": "A1 shoot B1"}, [*A_DICE, *B_DICE])
    assert texts(res, "shot") == ["A1 shoots B1 with shortbow: attack 17 against defence 6, 11 damage."]
    assert (life(res, "A1"), life(res, "B1")) == (10, 9)


def test_a_unit_on_the_line_gives_plus_5_defence() -> None:
    """'If the line of sight is obscured partly (50%) the defender gets a +5 to defense
    this also counts when shooting over a creature occupied filed.' A2 stands on c4."""
    s = state(archer(), unit("A2", "c4"), unit("B1", "c6", life=20))
    res = play(s, {"alice": "A1 shoot B1"}, [*A_DICE, *SLOW, *B_DICE])
    assert texts(res, "shot") == [
        "A1 shoots B1 with shortbow: attack 17 against defence 11 (+5, line obscured by c4), 6 damage."]


def test_a_half_cover_square_on_the_line_gives_plus_5_defence() -> None:
    """'obscured partly (50%)': a half-cover square on the line, like a unit, gives +5."""
    s = state(archer(), unit("B1", "c6", life=20), terrain={"c5": "cover"})
    res = play(s, {"alice": "A1 shoot B1"}, [*A_DICE, *B_DICE])
    assert life(res, "B1") == 20 - (17 - 11)


def test_no_line_of_sight_no_shot() -> None:
    """'There has to be a line of sight': a wall on the line blocks the shot."""
    s = state(archer(), unit("B1", "c6"), terrain={"c4": "wall"})
    res = play(s, {"alice": "A1 shoot B1"}, [*A_DICE, *B_DICE])
    assert texts(res, "skip") == ["'A1 shoot B1' skipped: no line of sight to B1: c4 blocks it."]


def test_the_weapon_has_to_be_in_range() -> None:
    """'...and the weapon has to be in range': a shortbow reaches 6 squares."""
    s = state(archer(), unit("B1", "c9"))
    res = play(s, {"alice": "A1 shoot B1"}, [*A_DICE, *B_DICE])
    assert texts(res, "skip") == ["'A1 shoot B1' skipped: B1 is 7 squares away; shortbow reaches 6."]


def test_no_shooting_at_an_adjacent_enemy() -> None:
    """Ours: an adjacent enemy is fought in close combat, not shot (no free shots without
    strike back)."""
    s = state(archer(), unit("B1", "c3"))
    res = play(s, {"alice": "A1 shoot B1"}, [*A_DICE, *B_DICE])
    assert texts(res, "skip") == [
        "'A1 shoot B1' skipped: B1 is adjacent: a ranged weapon needs 2 squares or more."]


def test_shooting_needs_a_ranged_weapon_wielded() -> None:
    """A unit carrying a bow but wielding a sword must switch first; one with no bow at all
    cannot be ordered to shoot."""
    s = state(unit("A1", "c2", weapons=("sword", "shortbow")), unit("A2", "d2"), unit("B1", "c6"))
    res = play(s, {"alice": "A1 shoot B1"}, [*A_DICE, *SLOW, *B_DICE])
    assert texts(res, "skip") == ["'A1 shoot B1' skipped: A1 wields no ranged weapon."]
    with pytest.raises(OrderErrors) as err:
        play(s, {"alice": "A2 shoot B1"}, [])
    assert str(err.value) == "line 1: A2 carries no ranged weapon"


def test_a_shot_does_not_spend_the_targets_defence() -> None:
    """Ours: only a skirmish spends the defender's actions; after the shot, B1 still
    defends A2's melee with its dice: 12 + 3 + 3 = 18 against 3 + 3 = 6 → 12."""
    s = state(archer(), unit("A2", "c5", life=30), unit("B1", "c6", life=40, initiative=0))
    res = play(s, {"alice": "A1 shoot B1\nA2 attack B1"}, [*A_DICE, 6, 6, 2, 1, 1, *B_DICE])
    assert texts(res, "melee")[0].startswith("A2 attacks B1 with sword: attack 18 against defence 6, 12 damage")
