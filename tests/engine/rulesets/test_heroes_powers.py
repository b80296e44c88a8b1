"""Heroes United (*) actions and items: each has a real effect on the dice or the board."""

from __future__ import annotations

from engine.dice import ScriptedDice
from engine.rulesets.heroes.combat import take_strike

from .heroes_fixtures import NOBODY_COMES, henchman, hero, nemesis, play, state, texts


def test_extra_attack_adds_a_strike_to_every_attack():
    """Puck's Flurry ("adding extra attacks"): ATT 2 + 1 = 3 strikes on Knuckles (U 3, ARM 1):
    three times 12,13,2 → 13 + 4 = 17 Uppercut, ARM 2,3,4 → 5. His second attack finishes
    Knuckles (5 Vitality): two more strikes."""
    s = state()
    hero(s, "alice", "puck", "e4", "n")
    nemesis(s, "alice", "knuckles", "e5", facing="s")
    faces = [*[12, 13, 2, 2, 3, 4] * 5, *NOBODY_COMES]
    res = play(s, {"alice": "PK1 action flurry"}, faces)
    attacks = [e.data["strike"] for e in res.events if e.kind == "damage"]
    assert attacks == [1, 2, 3, 1, 2]
    assert res.state.figures["N1"].vitality == 0
    assert res.state.figures["PK1"].used == {"flurry": 1}


def test_extra_damage_adds_to_every_strike():
    """King Castro's Rally: the Axe Swing (Dmg 14) does 16; the Usurper's ARM 12,11,2 + U 4
    = 16 is not higher: no save."""
    s = state()
    hero(s, "alice", "king_castro", "e4", "n")
    nemesis(s, "alice", "usurper", "e5", facing="s", vitality=1)
    res = play(s, {"alice": "KC1 action rally"}, [18, 5, 11, 12, 11, 2, *NOBODY_COMES])
    assert "Axe Swing, Dmg 16" in texts(res.events, "damage")[0]


def test_reroll_action_rerolls_the_lowest_die_for_any_stat():
    """Army Soldier's Steady Aim ("re-rolling the lowest dice"): his search (P 3) throws
    3,5,14, the lowest die is taken, so it is rolled again: 12 → 12,5,14 → 14 + 3 = 17."""
    s = state()
    hero(s, "alice", "army_soldier", "e4", policy="auto")
    res = play(s, {"alice": "AS1 action steady_aim\nAS1 search"}, [3, 5, 14, 12, *NOBODY_COMES])
    assert res.state.figures["AS1"].items == [["pipe", 3]]


def test_stat_reduction_sets_a_stat_to_1():
    """Zenith's Blinding Glare ("reducing a S.U.P.E.R. stat to 1!"): the thug's U is 1, so
    its ARM roll must re-roll the highest die: 15,3,4 → 19,3,4 → 3 + 1 = 4."""
    s = state()
    hero(s, "alice", "zenith", "e4", "n")
    henchman(s, "e5", facing="s")
    res = play(s, {"alice": "Z1 action glare H1"}, [12, 13, 2, 15, 3, 4, 19, *NOBODY_COMES])
    assert "H1" not in res.state.figures
    assert "re-rolled highest 15→19" in texts(res.events, "damage")[0]


def test_stat_reduction_lasts_until_the_end_of_the_round():
    s = state()
    hero(s, "alice", "zenith", "e4", "s")
    henchman(s, "e6", facing="s")
    res = play(s, {"alice": "Z1 action glare H1"}, NOBODY_COMES)
    assert res.state.figures["H1"].reduced == []
    assert "H1's U is 1" in texts(res.events, "action")[0]


def test_heal_action_restores_vitality_up_to_the_card():
    s = state()
    pk = hero(s, "alice", "puck", "e4")
    pk.vitality = 4
    res = play(s, {"alice": "PK1 action second_wind"}, NOBODY_COMES)
    assert res.state.figures["PK1"].vitality == 5


def test_a_lead_pipe_adds_damage_and_wears_out():
    """Item "Lead pipe": +2 Dmg for 3 attacks. Zenith's Strong Strike does 17."""
    s = state()
    z = hero(s, "alice", "zenith", "e4", "n")
    z.items = [["pipe", 1]]
    henchman(s, "e5", facing="s")
    res = play(s, {}, [12, 13, 2, 2, 3, 4, *NOBODY_COMES])
    assert "Strong Strike, Dmg 17" in texts(res.events, "damage")[0]
    assert res.state.figures["Z1"].items == [] and res.state.items_discard == ["pipe"]


def test_a_pistol_lets_a_melee_hero_shoot_two_ahead_with_r():
    """Item "Dropped pistol": Zenith (R 2) reaches the thug 2 ahead: 12,13,2 → 13 + 2 = 15."""
    s = state()
    z = hero(s, "alice", "zenith", "e4", "n")
    z.items = [["gun", 3]]
    henchman(s, "e6", facing="s")
    res = play(s, {}, [12, 13, 2, 2, 3, 4, *NOBODY_COMES])
    assert "(R 2)" in texts(res.events, "damage")[0]
    assert res.state.figures["Z1"].items == [["gun", 2]]


def test_a_health_power_up_heals_at_once():
    """Searching draws the top card; a health power-up gives 3 Vitality and is discarded."""
    s = state()
    z = hero(s, "alice", "zenith", "e4")
    z.vitality = 2
    s.items_deck = ["health", "pipe"]
    res = play(s, {"alice": "Z1 search"}, [10, 10, 15, *NOBODY_COMES])
    assert res.state.figures["Z1"].vitality == 5
    assert res.state.items_discard == ["health"] and res.state.items_deck == ["pipe"]


def test_a_kevlar_vest_adds_an_arm_roll():
    """Item "Kevlar vest": +1 ARM. Silver Siren (ARM 1) gets a second save roll-off: 2,3,4
    fails, 15,16,2 → 16 + 3 = 19 saves against Dmg 15: she keeps all 7 Vitality."""
    s = state()
    ss = hero(s, "alice", "silver_siren", "e4")
    ss.items = [["vest", None]]
    events: list = []
    take_strike(s, ss, 15, False, ScriptedDice([2, 3, 4, 15, 16, 2]), events, "strike", {})
    assert ss.vitality == 7 and events[0].kind == "save"


def test_an_empty_items_deck_is_reshuffled_from_the_discards():
    """A find with no cards left reshuffles the discards (docs/dice-spec.md shuffle: one d2 for two
    cards; face 1 swaps them), then flips the top one: the car."""
    s = state()
    hero(s, "alice", "zenith", "e4")
    s.items_deck, s.items_discard = [], ["pipe", "car"]
    res = play(s, {"alice": "Z1 search"}, [10, 10, 15, 1, *NOBODY_COMES])
    assert res.state.figures["Z1"].items == [["car", 1]]
    assert res.state.items_deck == ["pipe"] and res.state.items_discard == []
