"""Heroes United as a whole game: setup, self-play to a winner, replay, storage, the board."""

from __future__ import annotations

import json

import pytest

from engine.contract import OptionError
from engine.dice import ScriptedDice, state_hash
from engine.orders import OrderErrors
from engine.replay import replay
from engine.rulesets.heroes.citymap import corner_square
from engine.selfplay import play

from .heroes_fixtures import RULES, civvie, henchman, hero, nemesis, state

FOUR = ("p1", "p2", "p3", "p4")


@pytest.mark.parametrize("seed", ["a", "b", "c", "d", "e"])
def test_four_bots_race_to_a_winner(seed):
    game = play("heroes", seed, players=FOUR, max_rounds=150)
    out = game.final.outcome
    assert out is not None and len(out["winners"]) == 1, out
    winner = out["winners"][0]
    state = game.final.state
    hero = next(f for f in state["figures"] if f["kind"] == "hero" and f["owner"] == winner)
    assert hero["saved"] >= 10 and hero["captured"]
    assert len(json.dumps(state)) <= 64 * 1024


def test_the_bot_walks_around_a_rooftop_block_to_its_downed_nemesis():
    """"After a Nemesis has been brought to 0 Vitality, move into base to base contact and
    use a General Action Point." Rooftops b5 to h5 stand between Zenith on e4 and Nadir,
    down on e7. Every street square within his 2 Movement A.P. is 3 from e7, so "the
    nearest square" is where he stands, and a bot going there never moves. The bot
    follows the whole street route instead: round the west end (e4 d4 c4 b4 a5 b6 c6 d6,
    7 steps, of equal length with the east one and first in square order), 2 steps this
    round: c4."""
    s = state(roofs=tuple(f"{c}5" for c in "bcdefgh"))
    hero(s, "alice", "zenith", "e4")
    nemesis(s, "alice", "nadir", "e7", vitality=0)
    assert [o.format() for o in RULES.bot_orders(s, "alice", _dice()) or []] == [
        "Z1 move c4", "Z1 capture N1", "Z1 capture N1"]


def test_the_bot_goes_for_a_gunman_that_holds_it_in_combat():
    """Seed: "4. General Action phase: If you're not in combat, you can use any leftover
    General A.P." A gunman on e7 facing south holds Zenith on e5 in combat from two squares
    ahead, out of his melee reach: saving the civvie beside him would be skipped round
    after round. The bot steps into contact (d6, first in square order of the one-step
    squares), faces the gunman and attacks it."""
    s = state()
    hero(s, "alice", "zenith", "e5")
    henchman(s, "e7", facing="s", card_id="gunman")
    civvie(s, "d5")
    assert [o.format() for o in RULES.bot_orders(s, "alice", _dice()) or []] == [
        "Z1 move d6", "Z1 face ne", "Z1 attack H1"]


@pytest.mark.parametrize("seed", ["s2", "s38"])
def test_a_solo_bot_game_ends(seed):
    """Two seeded solo games that once never ended in 200 rounds: s38 with the hero stuck
    on a square no closer to its Nemesis, s2 with the hero held in combat by a gunman it
    could not reach. Both now end with the hero's win."""
    out = play("heroes", seed, players=("alice",), max_rounds=200).final.outcome
    assert out is not None and out["winners"] == ["alice"], out


def test_a_self_played_record_replays():
    game = play("heroes", "replay", players=("p1", "p2"), max_rounds=60)
    report = replay(game.record)
    assert report.ok, report.difference


def test_alternating_mode_and_a_villain_player_play_through():
    game = play("heroes", "alt", players=("p1", "p2", "vic"), max_rounds=40,
                options={"turn_mode": "alternating", "villain_player": True, "max_rounds": 30})
    assert game.final.outcome is not None
    assert game.final.round <= 31


def test_random_bots_only_send_orders_the_ruleset_accepts():
    game = play("heroes", "random", players=("p1", "p2"), max_rounds=15,
                bots={"p1": "random", "p2": "random"})
    assert len(game.results) >= 2
    assert replay(game.record).ok


def test_legal_orders_all_parse():
    state = RULES.load(play("heroes", "legal", players=FOUR, max_rounds=6).final.state)
    for player in FOUR:
        for orders in RULES.legal_orders(state, player).values():
            for line in (o.format() for o in orders):
                try:
                    RULES.parse_orders(state, player, line)
                except OrderErrors as exc:
                    pytest.fail(f"{line}: {exc}")


def test_dump_and_load_round_trip():
    data = play("heroes", "dump", players=FOUR, max_rounds=8).final.state
    assert RULES.dump(RULES.load(data)) == data
    assert state_hash(RULES.dump(RULES.load(data))) == state_hash(data)


def test_setup_places_heroes_in_their_corners():
    """"Place your chosen game tile in your corner": seat 1 south-west, 2 north-east, ..."""
    forces = {p: RULES.default_force(i, {}) for i, p in enumerate(FOUR)}
    state = RULES.setup(list(FOUR), forces, {}, _dice())
    squares = [state.figures[state.heroes[p]].square for p in FOUR]
    assert squares == [corner_square(c, 12, 12) for c in ("sw", "ne", "se", "nw")]
    assert state.roofs and all(sq not in state.roofs for sq in squares)


def test_a_custom_map_is_data():
    forces = {"p1": RULES.default_force(0, {})}
    state = RULES.setup(["p1"], forces, {"map": "harbour", "width": 10, "height": 10}, _dice())
    assert len(state.roofs) == 9
    with pytest.raises(OptionError, match="width and height"):
        RULES.options({"map": "harbour"})


def test_force_validation_names_the_problem():
    assert RULES.validate_force({"hero": "zenith", "tile": "docks"}, {}) == []
    problems = RULES.validate_force({"hero": "batman", "tile": "moon", "cape": 1}, {})
    assert any("batman" in p for p in problems) and any("moon" in p for p in problems)
    assert any("cape" in p for p in problems)


def test_board_shows_every_kind_distinctly():
    state = RULES.load(play("heroes", "board", players=FOUR, max_rounds=12).final.state)
    board = RULES.board(state)
    kinds = {p.kind for p in board.pieces}
    assert {"hero", "henchman", "civvie"} <= kinds
    assert "rooftop" in board.terrain.values() and "rooftop" in board.legend
    heroes = [p for p in board.pieces if p.kind == "hero"]
    assert all(p.side in FOUR and p.facing and "saved" in p.note for p in heroes)
    assert all(p.side is None for p in board.pieces if p.kind != "hero")


def _dice() -> ScriptedDice:
    """Enough faces for any setup: shuffles, the turn-order roll-offs, the first spawn roll."""
    return ScriptedDice([1] * 200)
