"""fivedice rulebook: initiative, gear speed and ties."""

from __future__ import annotations

from engine.contract import Resolution
from engine.rulesets.fivedice.gear import GEAR
from engine.rulesets.fivedice.state import GameState

from .fivedice_fixtures import play, sheet, state, texts, unit

# With the fixtures' policy the middle face of the five is the initiative die.
FIVE_WITH_MIDDLE = {n: [6, 6, n, 1, 1] for n in range(1, 7)}


def order(res: Resolution[GameState]) -> list[str]:
    events = [e for e in res.events if e.kind == "initiative"]
    return list(events[0].data["order"])


def test_no_weapon_and_no_armor_count_5_each() -> None:
    """'The default for no armor is 5 and for no weapon 5 = 10': no penalty."""
    assert sheet(weapons=(), armor=None).speed_penalty == 0


def test_gear_is_slower_than_none() -> None:
    """'Everything else is slower': every weapon and armor has speed above 5."""
    assert all(w.speed > 5 for w in GEAR.weapons.values())
    assert all(a.speed > 5 for a in GEAR.armor.values())


def test_initiative_is_dice_plus_I_minus_gear_speed_over_10() -> None:
    """'Take into account the slowest weapon and the slowest armor and sum up the result':
    initiative = initiative dice + I − (weapon speed + armor speed − 10).
    A1: die 4 + I 2 − (sword 7 + chain 8 − 10) = 1. B1 (no gear): die 3 + I 2 − 0 = 5."""
    s = state(unit("A1", "c3", weapons=("sword",), armor="chain"),
              unit("B1", "c8", weapons=(), armor=None))
    res = play(s, {}, [*FIVE_WITH_MIDDLE[4], *FIVE_WITH_MIDDLE[3]])
    assert texts(res, "initiative") == ["Initiative: B1 5, A1 1."]
    assert order(res) == ["B1", "A1"]


def test_the_slowest_weapon_carried_counts() -> None:
    """'the slowest weapon': an archer with shortbow (7) and dagger (6) counts 7."""
    assert sheet(weapons=("dagger", "shortbow"), armor="leather").speed_penalty == 7 + 6 - 10


def test_highest_initiative_acts_first() -> None:
    """'a character with the highest Initiative acts first': B1 (6) moves into c4 before
    A1 (1) can, so A1's move is skipped."""
    s = state(unit("A1", "c2"), unit("B1", "c6", weapons=()))
    res = play(s, {"alice": "A1 move c4", "bob": "B1 move c4"},
               [*FIVE_WITH_MIDDLE[1], *FIVE_WITH_MIDDLE[4]])
    assert order(res) == ["B1", "A1"]
    assert texts(res, "skip") == ["'A1 move c4' skipped: c4 is taken by B1."]


def test_tie_goes_to_the_higher_I_stat() -> None:
    """Ties: the higher I first (docs/rulesets/fivedice.md). A1 die 5 + I 1 = 6 − 2 (sword) = 4; B1 die 2 +
    I 4 − 2 = 4: tied at 4, B1 has the higher I."""
    s = state(unit("A1", "c3", initiative=1), unit("B1", "c8", initiative=4))
    res = play(s, {}, [*FIVE_WITH_MIDDLE[5], *FIVE_WITH_MIDDLE[2]])
    assert order(res) == ["B1", "A1"]


def test_tie_on_initiative_and_I_is_rolled_off() -> None:
    """Ties on both: a roll-off, highest first. Both at 3 + 2 − 2 = 3; roll-off A1 2, B1 5."""
    s = state(unit("A1", "c3"), unit("B1", "c8"))
    res = play(s, {}, [*FIVE_WITH_MIDDLE[3], *FIVE_WITH_MIDDLE[3], 2, 5])
    assert order(res) == ["B1", "A1"]
    assert texts(res, "initiative") == ["Initiative: B1 3, A1 3 (roll-off A1 2, B1 5)."]


def test_a_tied_roll_off_is_rolled_again() -> None:
    """A roll-off that ties is rolled again among the tied: 4 and 4, then 6 and 1."""
    s = state(unit("A1", "c3"), unit("B1", "c8"))
    res = play(s, {}, [*FIVE_WITH_MIDDLE[3], *FIVE_WITH_MIDDLE[3], 4, 4, 6, 1])
    assert order(res) == ["A1", "B1"]
    assert [r.label for r in res.rolls[10:]] == ["A1 initiative roll-off", "B1 initiative roll-off"] * 2
