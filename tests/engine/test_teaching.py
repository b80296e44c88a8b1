"""The short course each ruleset opens its rules page and HELP mail with: every ruleset has
one, and its worked example is a real resolution whose numbers are worked out here by hand."""

from __future__ import annotations

import pytest

from engine.registry import find_ruleset, rulesets
from engine.teaching import ExampleDrift, Scene, play_scene


@pytest.mark.parametrize("ruleset_id", ["universal", "jep1", "fivedice", "heroes"])
def test_every_ruleset_says_how_to_win_a_round_and_its_limits(ruleset_id: str) -> None:
    teaching = find_ruleset(ruleset_id).info.teaching
    assert teaching is not None and teaching.win and teaching.sequence and teaching.limits
    example = teaching.example(find_ruleset(ruleset_id))
    assert example is not None and example.orders and example.dice and example.events


def test_every_revision_of_every_ruleset_plays_its_example_without_dice_left_over() -> None:
    for newest in rulesets():
        for revision in newest.info.revisions:
            rules = find_ruleset(newest.info.id, revision.number)
            if rules.info.teaching is not None:
                rules.info.teaching.example(rules)  # raises ExampleDrift when the dice no longer fit


def test_universal_example() -> None:
    """"Movement: Each unit can move 2 squares. One square adjacent to enemy is equal to 1.5
    squares" and "Roll number of dices equal to attacker's power - 1. For each character
    adjacent to both attacker and defender (unit counts as adjacent to itself) add one dice."

    A1 (Pw 2) steps c2 → c3, next to B1 (1.5 of its 2 squares). Dice: 2 - 1 + A1 + A2 (d3
    touches c3 and c4) = 3: 6, 4, 3 against D 5: the 6 reaches it, 4 and 3 are left over:
    2 damage, B1 (EP 2) is defeated and leaves a token for alice on c4."""
    rules = find_ruleset("universal")
    example = rules.info.teaching.example(rules)  # type: ignore[union-attr]
    assert [face for _label, face in example.dice] == [6, 4, 3]
    assert "A1 attacks B1 with 3 dice (6, 4, 3) against defence 5: 2 damage" in example.events
    assert "B1 is defeated by A1" in example.events
    assert "A3, a 1/0/5 token of alice, takes c4" in example.events


def test_jep1_example() -> None:
    """"Attacker rolls 1d6 for each score written at his melee ... adds the d6 value to each"
    and "If the defender is alive ... the current defender is the new attacker".

    Round 2: B1 (I 4) acts before A1 (I 2). A1 closes in c2 → c3. To hit: 5 + 2, 3 + 2 =
    7, 5 against B1's 5 + 1 = 6: the 6 blocks the 5, 1 hit; damage 2 + S 3 = 5 ≥ T 4: 1
    wound, B1 has 1 H. B1 strikes back: 6 + 1 = 7 against 4 + 2, 2 + 2 = 6, 4: 1 hit; 1 +
    S 2 = 3 < T 5: no wound."""
    rules = find_ruleset("jep1")
    example = rules.info.teaching.example(rules)  # type: ignore[union-attr]
    assert [face for _label, face in example.dice] == [5, 3, 5, 2, 6, 4, 2, 1]
    assert example.events[0] == "Round 2 order of action: B1, A1."
    assert "A1 attacks 7 5 against B1's defence 6: 1 blocked, 1 hit." in example.events
    assert ("A1 rolls damage 2 + S3 against T4: 1 damage, armor 0, 1 wound; B1 has 1 health left."
            in example.events)
    assert "B1 strikes back at A1." in example.events
    assert example.events[-1].endswith("0 wounds; A1 has 3 health left.")


def test_fivedice_example() -> None:
    """"Roll 5 dice ... place them on the combat sheet" and "Compare end result of attack
    vs- opponent's defense and vice versa."

    A1 (aggressive) 6 6 3 1 1: attack 12, initiative 3, defence 2; initiative 3 + 2 - (7 +
    6 - 10) = 2. B1 (balanced) 5 4 2 2 1: attack 5+1 = 6, defence 4+2 = 6, initiative 2;
    2 + 2 - (7 + 8 - 10) = -1. A1: 12 + 3 + 3 = 18 against 6 + 3 + 4 = 13: 5; B1: 6 + 3 +
    3 = 12 against 2 + 3 + 2 = 7: 5."""
    rules = find_ruleset("fivedice")
    example = rules.info.teaching.example(rules)  # type: ignore[union-attr]
    assert [face for _label, face in example.dice] == [6, 6, 3, 1, 1, 5, 4, 2, 2, 1]
    assert "Initiative: A1 2, B1 -1." in example.events
    assert ("A1 attacks B1 with sword: attack 18 against defence 13, 5 damage; B1 strikes back "
            "with sword: attack 12 against defence 7, 5 damage.") in example.events


def test_heroes_example() -> None:
    """"Simply move into base to base contact with a Civvi and use a General Action Point"
    and "Search ... 13 or greater": 12, 13, 2, two in 11-19, the highest: 13 + P 3 = 16.
    The quadrant rolls 4, 1, 1, 1: "4 -5: 1 Henchman and 1 Civvi" in the south-west only."""
    rules = find_ruleset("heroes")
    example = rules.info.teaching.example(rules)  # type: ignore[union-attr]
    assert [face for _label, face in example.dice] == [12, 13, 2, 4, 1, 1, 1]
    assert "Z1 saves civvie C1 on f7 (1 saved)." in example.events
    assert any(t.startswith("Z1 searches: rolled 12,13,2: Result 13 + 3 = 16") for t in example.events)
    assert "Henchmen & Civvies roll sw: 4. Thug H1 on c3, civvie C2 on d4." in example.events


def test_an_example_whose_dice_no_longer_fit_is_refused() -> None:
    rules = find_ruleset("universal")
    teaching = rules.info.teaching
    assert teaching is not None and teaching.scene is not None
    scene = teaching.scene(rules)
    with pytest.raises(ExampleDrift, match="leaves faces unrolled"):
        play_scene(rules, Scene(scene.state, scene.setting, scene.orders, (*scene.faces, 5)))
    with pytest.raises(ExampleDrift, match="no longer resolves"):
        play_scene(rules, Scene(scene.state, scene.setting, scene.orders, scene.faces[:1]))
