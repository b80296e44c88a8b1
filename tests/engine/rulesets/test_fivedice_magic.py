"""fivedice rulebook: magic resolution."""

from __future__ import annotations

import pytest

from engine.orders import OrderErrors
from engine.rulesets.fivedice.state import Unit

from .fivedice_fixtures import RULES, life, play, state, texts, unit

A_DICE = [6, 6, 3, 1, 1]  # attack 12, initiative 3, defence 2
B_DICE = [5, 4, 2, 2, 1]  # attack 9, initiative 2, defence 3


def mage(life_points: int = 10) -> Unit:
    return unit("A1", "c2", life=life_points, weapons=("staff",), armor="leather", defence=6,
                spells=("firebolt", "lightning"))


def test_spell_damages_the_target_and_costs_the_caster_life() -> None:
    """'Uses Attack; add dice results to all other values on combat sheet; Compare end
    result of own attack vs. opponent's defense; Difference = damage done; Also compare
    Attack result vs. own defense; Difference = Life Points paid to cast spell'.
    Firebolt: 12 + 3 + power 3 = 18; B1's defence 3 + 3 = 6 → 12 damage; A1's own
    defence 2 + 6 + leather 2 = 10 → A1 pays 8."""
    s = state(mage(), unit("B1", "c6", life=20))
    res = play(s, {"alice": "A1 cast firebolt B1"}, [*A_DICE, *B_DICE])
    assert texts(res, "spell") == [
        "A1 casts firebolt at B1: attack 18 against defence 6, 12 damage; against its own "
        "defence 10 it pays 8 life."]
    assert (life(res, "B1"), life(res, "A1")) == (8, 2)


def test_the_caster_may_pay_its_last_life_and_die() -> None:
    """'Difference = Life Points paid to cast spell (can be reduced to 0)': with 8 life
    the caster pays 8 and falls; the spell still hits."""
    s = state(mage(life_points=8), unit("B1", "c6", life=20))
    res = play(s, {"alice": "A1 cast firebolt B1"}, [*A_DICE, *B_DICE])
    assert texts(res, "death") == ["A1 (custom) falls: paid its last life for firebolt."]
    assert (life(res, "B1"), life(res, "A1")) == (8, 0)
    outcome = RULES.outcome(res.state)
    assert outcome is not None and outcome.winners == ("bob",)


def test_a_spell_uses_the_attack_action() -> None:
    """'Uses Attack': a spell and an attack in one round are refused; a unit whose attack
    is spent (here by a long move) cannot cast."""
    s = state(mage(), unit("B1", "c3", life=40))
    with pytest.raises(OrderErrors) as err:
        play(s, {"alice": "A1 cast firebolt B1\nA1 attack B1"}, [])
    assert str(err.value) == "line 2: A1 already has an attack (attack, shoot or cast) order on line 1"
    res = play(s, {"alice": "A1 move h2\nA1 cast firebolt B1"}, [*A_DICE, *B_DICE])
    assert texts(res, "skip") == ["'A1 cast firebolt B1' skipped: its attack is already spent this round."]


def test_spell_range_and_sight() -> None:
    """A spell reaches its range (lightning 4) along a line of sight."""
    s = state(mage(), unit("B1", "c7"))
    res = play(s, {"alice": "A1 cast lightning B1"}, [*A_DICE, *B_DICE])
    assert texts(res, "skip") == ["'A1 cast lightning B1' skipped: B1 is 5 squares away; lightning reaches 4."]
    s = state(mage(), unit("B1", "c5"), terrain={"c4": "wall"})
    res = play(s, {"alice": "A1 cast lightning B1"}, [*A_DICE, *B_DICE])
    assert texts(res, "skip") == ["'A1 cast lightning B1' skipped: no line of sight to B1: c4 blocks it."]


def test_only_known_spells_can_be_cast() -> None:
    s = state(mage(), unit("B1", "c5"))
    with pytest.raises(OrderErrors) as err:
        play(s, {"alice": "A1 cast frost B1"}, [])
    assert str(err.value) == "line 1: A1 knows no spell 'frost' (it knows: firebolt, lightning)"
