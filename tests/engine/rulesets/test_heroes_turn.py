"""Heroes United, a hero's turn: (*) action, movement and climbing, forced combat, running
away and the general actions (save, capture, search, climb)."""

from __future__ import annotations

import pytest

from engine.grid import distance, parse_square
from engine.orders import OrderErrors
from engine.rulesets.heroes.facing import reach

from .heroes_fixtures import NOBODY_COMES, RULES, civvie, henchman, hero, nemesis, play, state, texts


def test_no_star_action_in_round_one():
    """"1. (*) Action phase: This is skipped the first turn of the game.\""""
    s = state(round=1)
    hero(s, "alice", "zenith", "e4")
    with pytest.raises(OrderErrors, match="skipped in the first turn"):
        RULES.parse_orders(s, "alice", "Z1 action flight")


def test_one_use_star_action_is_used_up():
    """"most (*) Actions are one use only": Puck's Flurry says 1 use."""
    s = state()
    pk = hero(s, "alice", "puck", "e4")
    pk.used["flurry"] = 1
    with pytest.raises(OrderErrors, match="used up"):
        RULES.parse_orders(s, "alice", "PK1 action flurry")
    RULES.parse_orders(s, "alice", "PK1 action second_wind")


def test_an_untargeted_star_action_takes_no_target():
    s = state()
    hero(s, "alice", "zenith", "e4")
    henchman(s, "e5")
    with pytest.raises(OrderErrors, match="takes no target"):
        RULES.parse_orders(s, "alice", "Z1 action flight H1")
    RULES.parse_orders(s, "alice", "Z1 action glare H1")


def test_flight_lands_on_a_rooftop_without_climbing():
    """"These can be anything from Flying ...": Zenith's Flight needs no climbing roll-off."""
    s = state(roofs=("e5", "e6"))
    hero(s, "alice", "zenith", "e4")
    res = play(s, {"alice": "Z1 action flight\nZ1 move e6"}, NOBODY_COMES)
    assert res.state.figures["Z1"].square == parse_square("e6")
    assert texts(res.events, "climb") == []


def test_climbing_a_rooftop_on_13_or_more():
    """"To climb to a rooftop Roll off. On a Result + (E) of 13 or greater you've made it to
    the roof." Zenith (E 3) rolls 10,10,15: 10 + 3 = 13."""
    s = state(roofs=("e5",))
    hero(s, "alice", "zenith", "e4")
    res = play(s, {"alice": "Z1 move e5"}, [10, 10, 15, *NOBODY_COMES])
    assert res.state.figures["Z1"].square == parse_square("e5")


def test_a_failed_climb_uses_one_movement_ap():
    """"If you don't succeed, you stay on the street. This attempt to get to the rooftop uses
    1 Movement A.P." 2,3,4 → 5 fails; Zenith's second A.P. tries again: 12,11,2 → 15."""
    s = state(roofs=("e5",))
    hero(s, "alice", "zenith", "e4")
    res = play(s, {"alice": "Z1 move e5"}, [2, 3, 4, 12, 11, 2, *NOBODY_COMES])
    assert res.state.figures["Z1"].square == parse_square("e5")
    assert [e.data["ok"] for e in res.events if e.kind == "climb"] == [False, True]


def test_movement_is_up_to_movement_ap():
    """"Move a number of spaces up to your Movement A.P." Zenith has 2: e4 to e7 is 3
    squares, out of reach (figures never block, so that is the only reason); e6 is 2."""
    s = state()
    hero(s, "alice", "zenith", "e4")
    with pytest.raises(OrderErrors) as info:
        RULES.parse_orders(s, "alice", "Z1 move e7")
    assert str(info.value) == ("line 1: no route through e7 within 2 Movement A.P.: that is 3 "
                               "squares from e4, one A.P. a square")
    res = play(s, {"alice": "Z1 move e6"}, NOBODY_COMES)
    z = res.state.figures["Z1"]
    assert (z.square, z.facing) == (parse_square("e6"), "n")


def test_routes_go_round_a_rooftop_rather_than_climb():
    """The engine routes by fewest steps, then fewest climbs: e4 → e6 with a rooftop on e5
    goes round it (no climbing roll-off), and straight steps are preferred over diagonals."""
    s = state(roofs=("e5",))
    hero(s, "alice", "zenith", "e4")
    res = play(s, {"alice": "Z1 move e6"}, NOBODY_COMES)
    assert res.events[0].data["squares"] in (["e4", "d5", "e6"], ["e4", "f5", "e6"])
    assert texts(res.events, "climb") == []


def test_face_order_turns_after_moving():
    s = state()
    hero(s, "alice", "zenith", "e4")
    res = play(s, {"alice": "Z1 move e5\nZ1 face sw"}, NOBODY_COMES)
    assert res.state.figures["Z1"].facing == "sw"


def test_combat_is_forced_and_leftover_general_ap_is_free_again():
    """"If you're in your or another's Hero's combat range combat must be initiated." Zenith
    (S 4) strikes the thug in front without an order: 12,13,2 → 17 Strong Strike Dmg 15; the
    thug (U 2) rolls 2,3,4 → 4, no save: defeated. Out of combat, the second General A.P.
    searches: 10,10,15 + P 3 = 13, and the top item card is the lead pipe."""
    s = state()
    hero(s, "alice", "zenith", "e4", "n")
    henchman(s, "e5", facing="s")
    res = play(s, {"alice": "Z1 search"}, [12, 13, 2, 2, 3, 4, 10, 10, 15, *NOBODY_COMES])
    assert "H1" not in res.state.figures
    assert res.state.figures["Z1"].items == [["pipe", 3]]


def test_attack_once_per_general_ap_and_no_general_actions_in_combat():
    """"Attack as many times as you have General A.P." and "If you're not in combat ... use
    any leftover General A.P.": two attacks on Nadir (ATT 2: two strikes each, 12,13,2 → 17
    Strong Strike against ARM 2,3,4 → 5), the save is skipped. Nadir (1 Vitality left) then
    strikes back in the henchmen phase: 2,3,4 → 6 Weak Strike Dmg 10; Zenith's ARM 9,15,16
    → 20 saves."""
    s = state()
    hero(s, "alice", "zenith", "e4", "n")
    nemesis(s, "alice", "nadir", "e5", facing="s")
    civvie(s, "d4")
    faces = [*[12, 13, 2, 2, 3, 4] * 4, 2, 3, 4, 9, 15, 16, *NOBODY_COMES]
    res = play(s, {"alice": "Z1 save C1"}, faces)
    assert res.state.figures["N1"].vitality == 1
    assert "C1" in res.state.figures
    assert any("no General A.P. left" in t for t in texts(res.events, "skip"))


def test_attack_order_picks_the_target():
    """Two thugs in reach; `attack H2` strikes H2 first."""
    s = state()
    hero(s, "alice", "zenith", "e4", "n")
    henchman(s, "d5", facing="s")
    henchman(s, "f5", facing="s")
    faces = [12, 13, 2, 2, 3, 4, 12, 13, 2, 2, 3, 4, *NOBODY_COMES]
    res = play(s, {"alice": "Z1 attack H2"}, faces)
    strikes = [e.data["target"] for e in res.events if e.kind == "damage"]
    assert strikes == ["H2", "H1"]


def test_saving_a_civvie_in_base_contact():
    """"Simply move into base to base contact with a Civvi and use a General Action Point.\""""
    s = state()
    hero(s, "alice", "zenith", "e4")
    civvie(s, "f7")
    res = play(s, {"alice": "Z1 move e6\nZ1 save C1"}, NOBODY_COMES)
    assert res.state.figures["Z1"].saved == 1 and "C1" not in res.state.figures


def test_save_out_of_contact_is_skipped_and_costs_nothing():
    s = state()
    hero(s, "alice", "zenith", "e4")
    civvie(s, "e7")
    civvie(s, "d3")
    res = play(s, {"alice": "Z1 save C1\nZ1 save C2\nZ1 search"}, [2, 3, 4, *NOBODY_COMES])
    assert res.state.figures["Z1"].saved == 1
    assert any("not in base contact" in t for t in texts(res.events, "skip"))


def test_two_heroes_saving_one_civvie_roll_off_with_p():
    """"If two Heroes are trying to save the same Civvi, Roll Off and add your (P). Highest
    total saves the Civvi." Zenith 12,13,2 + 3 = 16 beats Puck 2,3,4 + 3 = 5."""
    s = state(players=("alice", "bob"))
    hero(s, "alice", "zenith", "e4")
    hero(s, "bob", "puck", "f6")
    civvie(s, "f5")
    res = play(s, {"alice": "Z1 save C1", "bob": "PK2 save C1"}, [12, 13, 2, 2, 3, 4, *NOBODY_COMES])
    assert res.state.figures["Z1"].saved == 1 and res.state.figures["PK2"].saved == 0


def test_each_contestant_pays_its_general_ap_win_or_lose():
    """"If two Heroes are trying to save the same Civvi, Roll Off and add your (P). Highest
    total saves the Civvi." docs/rulesets/heroes.md: "each contestant spends its General A.P., win or lose".

    Zenith acts first: the contest, Zenith 12,13,2 → 13 + 3 = 16 against Puck 2,3,4 → 2 + 3
    = 5, Zenith saves C1. Puck (General A.P. 2) paid one in the contest, so of his two
    searches only the first is made (10,9,15 → 9 + 3 = 12: nothing); the second has no
    General A.P. left."""
    s = state(players=("alice", "bob"))
    hero(s, "alice", "zenith", "e4")
    hero(s, "bob", "puck", "f6")
    civvie(s, "f5")
    res = play(s, {"alice": "Z1 save C1", "bob": "PK2 save C1\nPK2 search\nPK2 search"},
               [12, 13, 2, 2, 3, 4, 10, 9, 15, *NOBODY_COMES])
    assert res.state.figures["Z1"].saved == 1 and res.state.figures["PK2"].saved == 0
    assert len(texts(res.events, "search")) == 1
    skips = texts(res.events, "skip")
    assert any("spent its General A.P. in the contest for C1" in t for t in skips)
    assert any("PK2 search: skipped, no General A.P. left" in t for t in skips)


def test_a_hero_in_combat_cannot_contest_a_save():
    """"4. General Action phase: If you're not in combat, you can use any leftover General
    A.P.": a rival in combat has no General A.P. for a save, so there is no contest.

    The thug on f7 faces south onto Puck's f6: Puck is in combat. Zenith saves C1 without a
    roll. In his own turn Puck fights the thug (12,13,2 → 13 + 4 = 17 Uppercut Dmg 16; the
    thug's 2,3,4 → 2 + 2 = 4: defeated), and his save finds C1 gone."""
    s = state(players=("alice", "bob"))
    hero(s, "alice", "zenith", "e4")
    hero(s, "bob", "puck", "f6")
    henchman(s, "f7", facing="s")
    civvie(s, "f5")
    res = play(s, {"alice": "Z1 save C1", "bob": "PK2 save C1"},
               [12, 13, 2, 2, 3, 4, *NOBODY_COMES])
    assert not texts(res.events, "contest")
    assert res.state.figures["Z1"].saved == 1 and "H1" not in res.state.figures
    assert any("civvie C1 is no longer on the board" in t for t in texts(res.events, "skip"))


def test_in_an_enemys_combat_range_is_in_combat_for_general_actions():
    """Seed, Combat: "1. Check to see if you're in combat range or are in the combat range of
    an enemy." and "4. General Action phase: If you're not in combat, you can use any
    leftover General A.P.".

    A gunman on e7 facing south reaches e5, two squares ahead; Zenith (melee) on e5 cannot
    reach it, even turned. He is in combat all the same: his search is skipped. In the
    henchmen phase the gunman shoots: 2,3,4 → 2 + R 2 = 4, Weak Strike Dmg 10; Zenith's ARM
    9,15,16 → 16 + U 4 = 20 saves."""
    s = state()
    hero(s, "alice", "zenith", "e5", "n")
    henchman(s, "e7", facing="s", card_id="gunman")
    res = play(s, {"alice": "Z1 search"}, [2, 3, 4, 9, 15, 16, *NOBODY_COMES])
    assert any("Z1 search: skipped, Z1 is in combat" in t for t in texts(res.events, "skip"))
    assert not texts(res.events, "search")
    assert res.state.figures["Z1"].vitality == 6


def test_capture_needs_a_total_higher_than_13():
    """"Roll Off and add your (P) stat. If you're Total is higher than a 13, you've
    successfully captured your Nemesis": 10,10,15 + 3 = 13 fails, 11,11,2 + 3 = 14 captures."""
    s = state()
    hero(s, "alice", "zenith", "e4")
    nemesis(s, "alice", "nadir", "e5", vitality=0)
    res = play(s, {"alice": "Z1 capture N1\nZ1 capture N1"}, [10, 10, 15, 11, 11, 2, *NOBODY_COMES])
    assert res.state.figures["Z1"].captured and "N1" not in res.state.figures
    assert len(texts(res.events, "capture_failed")) == 1


def test_capture_only_your_own_nemesis():
    """"Capturing your Nemesis"."""
    s = state(players=("alice", "bob"))
    hero(s, "alice", "zenith", "e4")
    hero(s, "bob", "puck", "h8")
    nemesis(s, "bob", "knuckles", "e5", vitality=0)
    with pytest.raises(OrderErrors, match="not your Nemesis"):
        RULES.parse_orders(s, "alice", "Z1 capture N2")


def test_search_fails_below_13():
    """"On a total of 13 or greater you've found something." 10,9,15 → 9 + 3 = 12."""
    s = state()
    hero(s, "alice", "zenith", "e4")
    res = play(s, {"alice": "Z1 search"}, [10, 9, 15, *NOBODY_COMES])
    assert res.state.figures["Z1"].items == [] and res.state.items_deck[0] == "pipe"


def test_climbing_as_a_general_action_is_at_minus_two():
    """"Climbing is exactly like moving on to a rooftop with the added difficulty that ...
    during the General Action phase adds a -2 modifier": 11,11,2 → 11 + 3 - 2 = 12 fails;
    12,11,2 → 13 climbs."""
    s = state(roofs=("e5",))
    hero(s, "alice", "zenith", "e4")
    res = play(s, {"alice": "Z1 climb e5\nZ1 climb e5"}, [11, 11, 2, 12, 11, 2, *NOBODY_COMES])
    assert [e.data["ok"] for e in res.events if e.kind == "climb"] == [False, True]
    assert res.state.figures["Z1"].square == parse_square("e5")


def test_running_away_escapes_out_of_range():
    """"Roll Off and add your (E) stat to the Result. If this is higher than your enemy's Roll
    Off plus (P) then you successfully run away. Immediately move your Movement A.P. out of
    the combat range of your enemy." Zenith 12,13,2 + 3 = 16 against the thug's 2,3,4 + 2 = 4."""
    s = state()
    hero(s, "alice", "zenith", "e4", "n")
    henchman(s, "e5", facing="s")
    res = play(s, {"alice": "Z1 run"}, [12, 13, 2, 2, 3, 4, *NOBODY_COMES])
    z = res.state.figures["Z1"]
    assert distance(z.square, parse_square("e5")) >= 2
    assert not [e for e in res.events if e.kind in ("damage", "save", "miss")]


def test_failing_to_run_gives_a_free_weak_strike():
    """"If you fail to run away, the enemy gets a free "Weak" strike against you. ARM saves as
    usual." Zenith 2,3,4 + 3 = 5 against 12,13,2 + 2 = 15: caught. The thug's Weak Strike is
    Dmg 10; Zenith's two ARM rolls (2,3,4 → 6) fail: -1 Vitality. Then he must fight:
    12,13,2 → 17, the thug's 2,3,4 → 4: defeated."""
    s = state()
    hero(s, "alice", "zenith", "e4", "n")
    henchman(s, "e5", facing="s")
    faces = [2, 3, 4, 12, 13, 2, 2, 3, 4, 2, 3, 4, 12, 13, 2, 2, 3, 4, *NOBODY_COMES]
    res = play(s, {"alice": "Z1 run"}, faces)
    assert res.state.figures["Z1"].vitality == 5
    assert "H1" not in res.state.figures


def test_a_knocked_out_hero_misses_its_round():
    s = state(round=4)
    z = hero(s, "alice", "zenith", "a1")
    z.misses = 4
    with pytest.raises(OrderErrors, match="knocked out"):
        RULES.parse_orders(s, "alice", "Z1 search")
    res = play(s, {}, NOBODY_COMES)
    assert texts(res.events, "rest")


def test_a_ranged_hero_shoots_two_ahead():
    """Army Soldier (ranged, R 3) hits a thug 2 squares ahead: 12,5,6 → 8, "3 round burst"."""
    s = state()
    a = hero(s, "alice", "army_soldier", "e4", "n")
    henchman(s, "e6", facing="s")
    assert parse_square("e6") in reach(a.square, a.facing, True)
    res = play(s, {}, [12, 5, 6, 2, 3, 4, *NOBODY_COMES])
    assert "3 round burst" in texts(res.events, "damage")[0]
    assert "H1" not in res.state.figures


def test_moving_then_fighting_is_at_minus_one():
    """"Moving before attacking: -1 to Result": Zenith steps to e4 and strikes the thug on e5:
    12,13,2 → 13 + 4 - 1 = 16."""
    s = state()
    hero(s, "alice", "zenith", "e3", "n")
    henchman(s, "e5", facing="s")
    res = play(s, {"alice": "Z1 move e4"}, [12, 13, 2, 2, 3, 4, *NOBODY_COMES])
    assert "moved -1): rolled 12,13,2: Result 13 + 4 -1 = 16" in texts(res.events, "damage")[0]


def test_running_to_a_named_refuge():
    """`Z1 run c4`: the escape goes where the order says when that square is out of reach."""
    s = state()
    hero(s, "alice", "zenith", "e4", "n")
    henchman(s, "e5", facing="s")
    res = play(s, {"alice": "Z1 run c4"}, [12, 13, 2, 2, 3, 4, *NOBODY_COMES])
    assert res.state.figures["Z1"].square == parse_square("c4")


def test_run_when_not_in_combat_is_skipped():
    s = state()
    hero(s, "alice", "zenith", "e4", "n")
    res = play(s, {"alice": "Z1 run"}, NOBODY_COMES)
    assert any("not in combat" in t for t in texts(res.events, "skip"))


def test_a_knocked_out_hero_is_not_expected_in_simultaneous_mode():
    s = state(players=("alice", "bob"), round=5)
    hero(s, "alice", "zenith", "a1").misses = 5
    hero(s, "bob", "puck", "l12")
    assert RULES.expected(s) == ["bob"]
    assert RULES.legal_orders(s, "alice") == {}


def test_the_offered_moves_and_run_say_what_they_cost_the_strikes():
    """Generic Modifiers (docs/rulesets/heroes.md): "moved before attacking -1 (any Movement
    A.P. spent this turn)" and "ranged from or to a rooftop -3"; running away: "no combat
    this turn" on a success, "the enemy gets a free Weak strike" on a failure. Silver Siren
    (ranged) on e4 with a rooftop on f5 and a thug on e5 in front of her: every move says
    -1, the one onto f5 also -3, and her run says both outcomes."""
    s = state(roofs=("f5",))
    hero(s, "alice", "silver_siren", "e4")
    henchman(s, "e5", facing="s")
    offered = {o.format(): o.cost for o in RULES.legal_orders(s, "alice")["SS1"]}
    assert offered["SS1 move e3"] == "moved: -1 on its strikes this turn"
    assert offered["SS1 move f5"] == ("moved: -1 on its strikes this turn; -3 on its ranged "
                                      "strikes from the rooftop")
    assert offered["SS1 run"] == "no combat this turn if it gets away; a free Weak strike on it if not"
    assert offered["SS1 face n"] == "" and offered["SS1 search"] == ""
