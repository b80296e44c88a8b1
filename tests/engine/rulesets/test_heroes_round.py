"""Heroes United, the end of the round and the race: henchmen & civvies roll, henchmen,
nemeses, victory, turn order and the villain player."""

from __future__ import annotations

import pytest

from engine.contract import OptionError, StateError
from engine.dice import ScriptedDice
from engine.grid import parse_square
from engine.orders import OrderErrors
from engine.rulesets.heroes.ruleset import turn_order

from .heroes_fixtures import NOBODY_COMES, RULES, civvie, henchman, hero, nemesis, play, state, texts


def test_one_to_three_brings_nobody():
    """"1 -3 : No Henchmen or Civvies for this quadrant.\""""
    s = state()
    hero(s, "alice", "zenith", "a1")
    res = play(s, {}, [3, 2, 1, 3])
    assert [f.kind for f in res.state.figures.values()] == ["hero"]


def test_four_or_five_brings_a_henchman_and_a_civvie_next_to_it():
    """"4 -5: 1 Henchman and 1 Civvi. Flip the top card of the Henchmen deck. This card tells
    you the position of where to place the Henchman. Place the Civvi on a space touching the
    Henchman's space." The top card is a thug at [2, 2] of the quadrant, civvie to the
    north-east: c3 and d4 in the south-west quadrant. The next card, a thug at [4, 1],
    mirrored into the north-east quadrant: h11."""
    s = state()
    hero(s, "alice", "zenith", "a1")
    res = play(s, {}, [4, 1, 1, 5])
    h1, c1, h2 = (res.state.figures[i] for i in ("H1", "C1", "H2"))
    assert (h1.card, h1.square, c1.square) == ("thug", parse_square("c3"), parse_square("d4"))
    assert h2.square == parse_square("h11")
    assert res.state.henchmen_discard == [0, 1]


def test_a_six_places_and_rolls_again():
    """"6: Same result as a 3-5 but roll the dice again.\""""
    s = state()
    hero(s, "alice", "zenith", "l12")
    res = play(s, {}, [6, 6, 2, 1, 1, 1])
    assert sorted(f.id for f in res.state.figures.values() if f.kind == "henchman") == ["H1", "H2"]
    assert len([f for f in res.state.figures.values() if f.kind == "civvie"]) == 2


def test_henchmen_strike_heroes_in_range():
    """docs/rulesets/heroes.md: "Henchmen are run by the game: they strike heroes in their range". The thug
    behind Zenith reaches him, so Zenith must turn and fight (forced combat) but both his
    attacks (ATT 2: two strikes each) fail (a 1 each time). Then the thug (S 2) strikes: 12,13,2 → 13 + 2 = 15, Strong Strike Dmg
    15; Zenith's ARM (U 4, ARM 2) rolls 2,3,4 twice: no save."""
    s = state()
    hero(s, "alice", "zenith", "e5", "n")
    henchman(s, "e4", facing="n")
    faces = [1, 5, 6, 1, 7, 8, 1, 5, 6, 1, 7, 8, 12, 13, 2, 2, 3, 4, 2, 3, 4, *NOBODY_COMES]
    res = play(s, {}, faces)
    assert res.state.figures["Z1"].facing == "s"
    assert res.state.figures["Z1"].vitality == 5
    assert "H1 strikes Z1" in texts(res.events, "damage")[0]


def test_henchmen_otherwise_step_toward_the_nearest_hero():
    """"... and otherwise step toward the nearest hero" (a thug has Movement A.P. 1)."""
    s = state(players=("alice", "bob"))
    hero(s, "alice", "zenith", "a1")
    hero(s, "bob", "puck", "h8")
    henchman(s, "e5")
    res = play(s, {}, NOBODY_COMES)
    h = res.state.figures["H1"]
    assert h.square == parse_square("f6") and h.facing == "ne"


def test_nemesis_enters_when_its_hero_has_saved_five():
    """nemesis_trigger default saved:5: the Nemesis enters at the end of that round, in the
    middle of the quadrant opposite its hero's start corner."""
    s = state()
    z = hero(s, "alice", "zenith", "e4")
    z.saved = 4
    civvie(s, "e5")
    res = play(s, {"alice": "Z1 save C1"}, NOBODY_COMES)
    n = res.state.figures["N1"]
    assert (n.card, n.owner, n.vitality) == ("nadir", "alice", 5)
    assert n.square.col >= 6 and n.square.row >= 6


def test_nemesis_trigger_by_round():
    """nemesis_trigger round:3: every Nemesis is on the board for round 3."""
    s = state(nemesis_trigger="round:3")
    hero(s, "alice", "zenith", "e4")
    res = play(s, {}, NOBODY_COMES)
    assert "N1" in res.state.figures


def test_bad_nemesis_trigger_is_refused_when_the_game_is_made():
    with pytest.raises(OptionError, match="nemesis_trigger"):
        RULES.options({"nemesis_trigger": "soon"})
    with pytest.raises(OptionError, match="nemesis_trigger"):
        RULES.options({"nemesis_trigger": "round:0"})


def test_victory_needs_ten_civvies_and_the_nemesis():
    """"First to save 10 Civvies and capture their Nemesis wins the game.\""""
    s = state(players=("alice", "bob"))
    z = hero(s, "alice", "zenith", "e4")
    z.saved = 10
    hero(s, "bob", "puck", "h8")
    nemesis(s, "alice", "nadir", "e5", vitality=0)
    res = play(s, {"alice": "Z1 capture N1"}, [11, 11, 2])
    out = RULES.outcome(res.state)
    assert out is not None and out.winners == ("alice",)
    assert RULES.expected(res.state) == []


def test_results_list_civvies_saved_per_hero():
    """"Results mails list civvies saved per hero": a standings event every round."""
    s = state(players=("alice", "bob"))
    hero(s, "alice", "zenith", "e4").saved = 3
    hero(s, "bob", "puck", "h8").captured = True
    res = play(s, {}, NOBODY_COMES)
    assert texts(res.events, "standings") == [
        "Civvies saved: Z1 (alice) 3, PK2 (bob) 0 + nemesis captured."]


def test_the_board_counts_civvies_saved_in_words():
    s = state(players=("alice", "bob"))
    hero(s, "alice", "zenith", "e4").saved = 1
    hero(s, "bob", "puck", "h8").saved = 2
    notes = {p.side: p.note for p in RULES.board(s).pieces if p.kind == "hero"}
    assert notes["alice"].endswith(": 1 civvie saved") and notes["bob"].endswith(": 2 civvies saved")


def test_ten_civvies_without_the_nemesis_is_not_yet_a_win():
    s = state()
    z = hero(s, "alice", "zenith", "e4")
    z.saved = 9
    civvie(s, "e5")
    res = play(s, {"alice": "Z1 save C1"}, NOBODY_COMES)
    assert res.state.figures["Z1"].saved == 10 and RULES.outcome(res.state) is None


def test_turn_order_is_roll_off_plus_p_then_seat_order():
    """"Roll dice and add your (P) stat to the Result. Highest total goes first, with the rest
    falling in seat order." Zenith 2,3,4 → 5; Siren (P 5, policy never) 2,3,4 → 7; Puck
    12,13,2 → 16: Puck first, then the seats after him."""
    s = state(players=("a", "b", "c", "d"))
    hero(s, "a", "zenith", "a1")
    hero(s, "b", "silver_siren", "l12")
    hero(s, "c", "puck", "l1")
    hero(s, "d", "king_castro", "a12")
    assert turn_order(s, ScriptedDice([2, 3, 4, 2, 3, 4, 12, 13, 2, 5, 6, 7])) == ["c", "d", "a", "b"]


def test_turn_order_ties_roll_again():
    s = state(players=("a", "b"))
    hero(s, "a", "zenith", "a1")
    hero(s, "b", "puck", "l12")
    assert turn_order(s, ScriptedDice([12, 13, 2, 12, 13, 2, 2, 3, 4, 5, 6, 7])) == ["b", "a"]


def test_villain_player_orders_the_henchmen():
    """Option villain_player: the last seat plays the henchmen and nemeses."""
    s = state(players=("alice", "vic"), villain="vic")
    hero(s, "alice", "zenith", "a1")
    henchman(s, "e5")
    with pytest.raises(OrderErrors, match="not yours"):
        RULES.parse_orders(s, "alice", "H1 move e6")
    with pytest.raises(OrderErrors, match="cannot search"):
        RULES.parse_orders(s, "vic", "H1 search")
    res = play(s, {"vic": "H1 move e6"}, NOBODY_COMES)
    assert res.state.figures["H1"].square == parse_square("e6")


def test_villain_player_wins_when_no_hero_does_by_max_rounds():
    s = state(players=("alice", "vic"), villain="vic", max_rounds=2)
    hero(s, "alice", "zenith", "a1")
    res = play(s, {}, NOBODY_COMES)
    out = RULES.outcome(res.state)
    assert out is not None and out.winners == ("vic",)


def test_alternating_turns_expect_one_player_a_round():
    s = state(players=("alice", "bob"), turn_mode="alternating", round=2)
    hero(s, "alice", "zenith", "a1")
    hero(s, "bob", "puck", "l12")
    assert RULES.expected(s) == ["bob"]
    s.round = 3
    assert RULES.expected(s) == ["alice"]


def _alternating_pair(round: int):
    s = state(players=("alice", "bob"), turn_mode="alternating", round=round)
    hero(s, "alice", "zenith", "e4", "n")
    hero(s, "bob", "puck", "h4", "n")
    henchman(s, "h5", facing="s")
    return s


def test_alternating_round_is_one_heroes_turn():
    """turn_mode alternating reads the seed's "your turn": round 3 is alice's turn (the turn
    order cycles alice, bob); Puck, in the thug's reach, does not fight, and nobody rolls for
    henchmen before the last player's turn."""
    s = _alternating_pair(3)
    with pytest.raises(OrderErrors, match="alice's turn"):
        RULES.parse_orders(s, "bob", "PK2 search")
    res = play(s, {"alice": "Z1 move e6"}, [])
    assert res.state.figures["Z1"].square == parse_square("e6")
    assert res.state.figures["PK2"].vitality == 5 and "H1" in res.state.figures


def test_alternating_henchmen_and_rolls_follow_the_last_players_turn():
    """"At the end of the last player's turn, perform a Henchmen & Civvies roll." Round 4 is
    bob's, the last of the cycle: Puck kills the thug (12,13,2 → 17; 2,3,4 → 4), then the
    quadrants roll."""
    s = _alternating_pair(4)
    res = play(s, {"bob": ""}, [12, 13, 2, 2, 3, 4, *NOBODY_COMES])
    assert "H1" not in res.state.figures
    assert len(texts(res.events, "spawn_roll")) == 4


def test_alternating_first_game_turn_has_no_star_action_and_a_knock_out_misses_a_turn():
    s = _alternating_pair(2)
    with pytest.raises(OrderErrors, match="first turn"):
        RULES.parse_orders(s, "bob", "PK2 action flurry")
    s.round = 3
    assert RULES.parse_orders(s, "alice", "Z1 action flight")
    assert s.next_turn_round("alice") == 5 and s.next_turn_round("bob") == 4


def test_a_nemesis_strikes_its_own_hero_first():
    """A Nemesis hunts its own hero. Zenith and Puck both face Knuckles (Puck's nemesis) and
    fail all their strikes (a 1 in each throw). Knuckles then has both in reach and strikes
    Puck: 2,3,4 → 2 + 4 = 6, Weak Strike; Puck's ARM 2,3,4 → 5, no save; ATT 2: again."""
    s = state(players=("alice", "bob"))
    hero(s, "alice", "zenith", "d6", "s", start="a1")
    hero(s, "bob", "puck", "f6", "s", start="l12")
    nemesis(s, "bob", "knuckles", "e5", facing="n")
    res = play(s, {}, [1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3,    # Zenith: 2 attacks × 2 strikes, all fail
                       1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3,    # Puck: the same
                       2, 3, 4, 2, 3, 4, 2, 3, 4, 2, 3, 4,    # Knuckles on Puck, twice
                       *NOBODY_COMES])
    hits = [e.data["target"] for e in res.events if e.kind == "damage"]
    assert hits == ["PK2", "PK2"] and res.state.figures["PK2"].vitality == 3


def test_a_taken_deck_square_moves_to_the_nearest_free_street():
    """The card's c3 is a rooftop here, so the thug goes to the nearest free street square
    (b2, nearest then lowest row); its civvie to the north-east, c3, is a rooftop too, so
    the next square clockwise (east): c2."""
    s = state(roofs=("c3",))
    hero(s, "alice", "zenith", "l12")
    res = play(s, {}, [4, 1, 1, 1])
    assert res.state.figures["H1"].square == parse_square("b2")
    assert res.state.figures["C1"].square == parse_square("c2")


def test_dump_and_load_keep_items_effects_and_reductions():
    s = state(players=("alice", "vic"), villain="vic")
    z = hero(s, "alice", "zenith", "e4")
    z.items = [["pipe", 2], ["vest", None]]
    z.used = {"glare": 1}
    h = henchman(s, "e5")
    h.reduced = ["U"]
    assert RULES.dump(RULES.load(RULES.dump(s))) == RULES.dump(s)
    assert RULES.load(RULES.dump(s)).figures["H1"].stat("U") == 1


def test_load_refuses_id_counters_behind_the_figures():
    """The henchmen and civvies the end-of-round roll brings ("one henchman ... and a civvie
    next to it") get new ids from the state's counters. A state whose H counter (1) is
    behind henchman H2 would give the next henchman the id H2 and silently replace the
    one on the board: load refuses it, naming the counter and the figure."""
    s = state()
    hero(s, "alice", "zenith", "e4")
    henchman(s, "e5")
    henchman(s, "e6")
    data = RULES.dump(s)
    data["counters"]["H"] = 1
    with pytest.raises(StateError, match="counters: H is 1, behind the id of henchman H2"):
        RULES.load(data)
    data["counters"]["H"] = 2
    assert set(RULES.load(data).figures) == {"Z1", "H1", "H2"}
