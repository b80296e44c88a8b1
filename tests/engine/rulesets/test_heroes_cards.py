"""Heroes United S.U.P.E.R. cards, strike tables, items and the henchmen deck, as data."""

from __future__ import annotations

import pytest

from engine.dice import ScriptedDice
from engine.rulesets.heroes.cards import CardError, card, henchmen, heroes, nemeses, parse_card
from engine.rulesets.heroes.decks import henchmen_deck, items, items_deck
from engine.rulesets.heroes.rolloff import roll_off


def strike(card_id: str, faces: list[int], stat_name: str, modifier: int = 0):
    c = card(card_id)
    r = roll_off(ScriptedDice(faces), c.stats[stat_name], "test", modifier=modifier, policy="never")
    return c.strike_for(r)


def test_the_seeds_five_heroes_ship():
    """"Zenith!", "Silver Siren", "Puck", "King Castro", "Army Soldier" from the seed."""
    assert [c.name for c in heroes().values()] == [
        "Zenith!", "Silver Siren", "Puck", "King Castro", "Army Soldier"]


def test_values_the_seed_gives():
    """"Zenith! has an A.P. of 2 -2"; Castro "(S) of 3", "(U) of 4"; Soldier "(R) of 3",
    "(U) of 2"; and each card marks these as the seed's."""
    z, kc, a = card("zenith"), card("king_castro"), card("army_soldier")
    assert (z.move_ap, z.general_ap) == (2, 2) and "AP" in z.from_seed
    assert (kc.stats["S"], kc.stats["U"]) == (3, 4) and {"S", "U"} <= set(kc.from_seed)
    assert (a.stats["R"], a.stats["U"]) == (3, 2) and {"R", "U"} <= set(a.from_seed)


def test_puck_strike_table_from_the_seed():
    """"Jab : 2 - 7: Dmg 11 / 1-2 Combo : 8 - 14 : Dmg 13 / Uppercut : 15 - 19 : Dmg 16 /
    Critical : 20 : Dmg 18\""""
    rows = [(s.name, s.low, s.high, s.dmg) for s in card("puck").strikes]
    assert rows == [("Jab", 2, 7, 11), ("1-2 Combo", 8, 14, 13), ("Uppercut", 15, 19, 16),
                    ("Critical", 20, 20, 18)]


def test_puck_total_6_is_a_jab_and_17_an_uppercut():
    """"Having a total of 6 would strike the opponent with a "Jab" while having a total of 17
    would strike the opponent with an "Uppercut".\" (Puck's S is 5: Results 1 and 12.)"""
    puck = card("puck")
    assert strike("puck", [9, 2, 3], "S", modifier=6 - 2 - puck.stats["S"]).name == "Jab"
    assert strike("puck", [12, 3, 11], "S").name == "Uppercut"


def test_king_castro_21_is_the_axe_swing():
    """"King Castro rolls a 18,5,11. With a (S) of 3 his total is 21. Consulting his SUPER
    card he does an "Axe Swing" Dmg 14." Above 20 without a natural 20: the Strong row."""
    row = strike("king_castro", [18, 5, 11], "S")
    assert (row.name, row.dmg) == ("Axe Swing", 14)


def test_army_soldier_8_is_the_3_round_burst():
    """"Army Soldier rolls a 12,5,6. With a (R) of 3 his total is 8. ... he does a "3 round
    burst" Dmg 13.\""""
    row = strike("army_soldier", [12, 5, 6], "R")
    assert (row.name, row.dmg) == ("3 round burst", 13)


def test_generic_table():
    """"Weak Strike: 2 - 10 : Dmg 10 / Strong Strike: 11 - 19 : Dmg 15 / Critical : 20 : Dmg 17\""""
    assert strike("zenith", [4, 5, 15], "S").name == "Weak Strike"   # 4 + 4 = 8
    assert strike("zenith", [12, 5, 11], "S").dmg == 15              # 12 + 4 = 16
    assert strike("zenith", [20, 5, 11], "S").dmg == 17


def test_only_a_natural_twenty_is_a_critical():
    """"Only natural rolls of a 20 can be used for "Critical Hits". If the total including
    modifiers is higher than 20, a Strong Strike will be used." A total of exactly 20 is
    no critical either."""
    assert strike("zenith", [16, 5, 11], "S").name == "Strong Strike"  # 16 + 4 = 20
    assert strike("zenith", [19, 5, 11], "S").name == "Strong Strike"  # 23


def test_a_fail_or_a_total_below_the_table_misses():
    assert strike("zenith", [1, 15, 15], "S") is None
    assert strike("zenith", [2, 3, 4], "S", modifier=-5) is None  # 2 + 4 - 5 = 1


def test_every_hero_has_a_nemesis_card_and_star_actions():
    for hero in heroes().values():
        assert hero.nemesis in nemeses()
        assert hero.actions, hero.name
    effects = {a.effect for h in heroes().values() for a in h.actions}
    assert {"flight", "extra_attack", "reroll", "reduce_stat"} <= effects


def test_star_actions_are_one_use_unless_the_card_says_otherwise():
    """docs/rulesets/heroes.md: "(*) actions (one-use unless the card says otherwise)"."""
    raw = {"id": "x", "name": "X", "code": "X", "kind": "hero", "S": 1, "U": 1, "P": 1, "E": 1,
           "R": 1, "ATT": 1, "ARM": 1, "AP": "1-1", "vitality": 1,
           "actions": [{"id": "fly", "name": "Fly", "effect": "flight"},
                       {"id": "up", "name": "Up", "effect": "flight", "uses": None}]}
    c = parse_card(raw, "test")
    assert c.actions[0].uses == 1 and c.actions[1].uses is None
    assert card("zenith").action("flight").uses is None


def test_bad_card_data_names_the_field():
    with pytest.raises(CardError, match="missing field 'ARM'"):
        parse_card({"id": "x", "name": "X", "code": "X", "kind": "hero", "S": 1, "U": 1, "P": 1,
                    "E": 1, "R": 1, "ATT": 1, "AP": "1-1", "vitality": 1}, "bad.json")
    with pytest.raises(CardError, match="AP must be written X-Y"):
        parse_card({"AP": "two"}, "bad.json")


def test_henchmen_cards_and_deck():
    assert set(henchmen()) == {"thug", "gunman"}
    assert henchmen()["gunman"].ranged and not henchmen()["thug"].ranged
    deck = henchmen_deck()
    assert len(deck) >= 8
    assert all(p.henchman in henchmen() and 0 <= p.col < 6 and 0 <= p.row < 6 for p in deck)


def test_items_deck_has_pipes_cars_guns_and_health():
    """"pipes, cars, guns, health powerups, and the like\""""
    assert {"pipe", "car", "gun", "health"} <= set(items())
    assert {i.effect for i in items().values()} >= {"dmg", "reach", "heal", "arm", "att", "stat"}
    assert items_deck().count("health") == 3
