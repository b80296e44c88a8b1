"""fivedice rulebook: dropping an action for an item or a weapon switch, and skill 0."""

from __future__ import annotations

import pytest

from engine.orders import OrderErrors

from .fivedice_fixtures import RULES, life, play, state, texts, unit, where

A_DICE = [6, 6, 3, 1, 1]  # attack 12, initiative 3, defence 2
B_DICE = [5, 4, 2, 2, 1]  # attack 9, initiative 2, defence 3
FAST_B = [6, 6, 6, 1, 1]  # attack 12, initiative 6, defence 2


def test_using_an_item_drops_the_attack_by_default() -> None:
    """'you can drop one of these actions (your choice) to do something else, e.g. use an
    item': a potion heals 5 (4 → 9) instead of the attack, which is then skipped."""
    s = state(unit("A1", "c4", life=4, items=("potion",)), unit("B1", "c5"))
    res = play(s, {"alice": "A1 use potion\nA1 attack B1"}, [*A_DICE, *B_DICE])
    assert texts(res, "item") == ["A1 uses potion instead of its attack: life 4 to 9."]
    assert texts(res, "skip") == ["'A1 attack B1' skipped: its attack is already spent this round."]
    a1 = res.state.unit("A1")
    assert a1 is not None and a1.items == []


def test_the_player_chooses_which_action_to_drop() -> None:
    """'(your choice)': `lose move` keeps the attack but the move is skipped. Healing
    never passes the sheet's life points (8 + 5 → 10)."""
    s = state(unit("A1", "c4", life=8, items=("potion",), armor="plate"), unit("B1", "c5", life=30))
    res = play(s, {"alice": "A1 use potion lose move\nA1 attack B1\nA1 move c2"}, [*A_DICE, *B_DICE])
    assert texts(res, "item") == ["A1 uses potion instead of its move: life 8 to 10."]
    assert texts(res, "skip") == ["'A1 move c2' skipped: its move is already spent this round."]
    assert len(texts(res, "melee")) == 1 and where(res, "A1") == "c4"


def test_a_spent_action_cannot_be_dropped() -> None:
    """Dropping an action already spent would make the item free: B1 (faster) skirmishes A1
    first, so `lose defence` is skipped; without a choice the move is dropped instead."""
    s = state(unit("A1", "c4", life=30, items=("potion", "potion")), unit("B1", "c5", life=30))
    res = play(s, {"alice": "A1 use potion lose defence", "bob": "B1 attack A1"}, [*A_DICE, *FAST_B])
    assert texts(res, "skip") == ["'A1 use potion lose defence' skipped: its defence is already "
                                  "spent, so it cannot be dropped."]
    res = play(s, {"alice": "A1 use potion", "bob": "B1 attack A1"}, [*A_DICE, *FAST_B])
    assert texts(res, "item")[0].startswith("A1 uses potion instead of its move")


def test_an_item_is_used_up() -> None:
    s = state(unit("A1", "c4", life=4, items=("potion",)), unit("B1", "c9"))
    res = play(s, {"alice": "A1 use potion"}, [*A_DICE, *B_DICE])
    with pytest.raises(OrderErrors) as err:
        RULES.parse_orders(res.state, "alice", "A1 use potion")
    assert str(err.value) == "line 1: A1 has no potion (it has: nothing)"


def test_switching_weapon_drops_an_action() -> None:
    """'...switch a weapon': A1 drops its move to wield the bow, then shoots:
    12 + 3 + shortbow 2 = 17 against 3 + 3 = 6 → 11."""
    s = state(unit("A1", "c2", weapons=("sword", "shortbow")), unit("B1", "c6", life=20))
    res = play(s, {"alice": "A1 switch shortbow lose move\nA1 shoot B1"}, [*A_DICE, *B_DICE])
    assert texts(res, "switch") == ["A1 switches from sword to shortbow instead of its move."]
    assert life(res, "B1") == 9
    a1 = res.state.unit("A1")
    assert a1 is not None and a1.wielded == "shortbow"


def test_one_action_dropped_a_round() -> None:
    s = state(unit("A1", "c2", weapons=("sword", "shortbow"), items=("potion",)), unit("B1", "c6"))
    with pytest.raises(OrderErrors) as err:
        play(s, {"alice": "A1 use potion lose move\nA1 switch shortbow lose defence"}, [])
    assert str(err.value) == "line 2: A1 already has a use or switch order on line 1"


def test_skill_0_attacking_gives_up_the_defence() -> None:
    """'SKILL LEVEL 0: ... there is only one action in addition to move used for either
    attack or defense.' A1 attacks, so B1's strike back meets its stat alone:
    9 + 3 + 3 = 15 against 3 → 12."""
    s = state(unit("A1", "c4", skill=0, life=20), unit("B1", "c5", life=30))
    res = play(s, {"alice": "A1 attack B1"}, [*A_DICE, *B_DICE])
    assert texts(res, "melee") == [
        "A1 attacks B1 with sword: attack 18 against defence 6, 12 damage; B1 strikes back "
        "with sword: attack 15 against defence 3, 12 damage."]


def test_skill_0_defending_does_not_strike_back() -> None:
    """Skill 0, attacked: its one action goes to defence (dice 1+1 count), so it does not
    strike back."""
    s = state(unit("A1", "c4", life=30), unit("B1", "c5", skill=0, life=30))
    res = play(s, {"alice": "A1 attack B1"}, [*A_DICE, *B_DICE])
    assert texts(res, "melee") == [
        "A1 attacks B1 with sword: attack 18 against defence 6, 12 damage; B1 does not strike "
        "back: its attack is spent."]


def test_skill_0_moves_and_still_has_its_one_action() -> None:
    """'...one action in addition to move': a skill-0 unit moves up to MP, then attacks."""
    s = state(unit("A1", "c2", skill=0), unit("B1", "c6", life=30))
    res = play(s, {"alice": "A1 move c5\nA1 attack B1"}, [*A_DICE, *B_DICE])
    assert len(texts(res, "melee")) == 1


def test_skill_0_shooting_leaves_no_defence() -> None:
    """A skill-0 archer that shoots has used its one action: B2's later attack meets its
    defence stat alone, 12 + 3 + 3 = 18 against 3 → 15."""
    s = state(unit("A1", "c2", skill=0, weapons=("shortbow",), life=30), unit("B1", "c6", life=30),
              unit("B2", "d3"))
    res = play(s, {"alice": "A1 shoot B1", "bob": "B2 attack A1"}, [*A_DICE, *B_DICE, 6, 6, 1, 1, 1])
    assert texts(res, "melee")[0].startswith("B2 attacks A1 with sword: attack 18 against defence 3")
