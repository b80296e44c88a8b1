"""The ruleset contract, checked on every registered ruleset (OpenSpiel's api test).

Bots play many seeded games (random and greedy bots, 2 players and the most the ruleset
allows up to 4, both turn modes) to an outcome or a round cap, and every step is checked:
one figure per square (unless the ruleset says figures share squares), health within
bounds, figures on the grid, dump/load round trips, small JSON states, deterministic
resolution, replay reproducing every state hash, and legal orders that parse. A ruleset
added to engine.registry is picked up here without touching this file; the test-only
fifth ruleset (tests/fifth_ruleset) is checked beside the shipped ones, registered for
each test and taken away after it.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.bots import BotKind
from engine.contract import OptionError, Ruleset
from engine.dice import Dice
from engine.grid import parse_square
from engine.orders import ROLES, OrderErrors
from engine.registry import rulesets
from engine.replay import replay
from engine.selfplay import SelfPlay, play
from engine.steps import StepResult, run_round
from tests.fifth_ruleset import SKIRMISH, registered

SHIPPED = rulesets()
RULESETS = [*SHIPPED, SKIRMISH]
IDS = [r.info.id for r in RULESETS]
SEEDS = ("contract-1", "contract-2")
ROUND_CAP = 40
MAX_STATE_BYTES = 64 * 1024
PLAYER_NAMES = ("ann", "ben", "cat", "dan")


@pytest.fixture(autouse=True)
def _fifth_ruleset_registered() -> Iterator[None]:
    with registered():
        yield


def configurations(ruleset: Ruleset[Any]) -> list[tuple[int, str, BotKind, str]]:
    """(players, turn mode, bot kind, seed) for the games this ruleset plays here."""
    low = max(ruleset.info.min_players, 2)
    high = min(ruleset.info.max_players, 4)
    counts = sorted({min(low, high), high})
    bots: tuple[BotKind, ...] = ("random", "greedy")
    return [(n, mode, bot, seed) for n in counts for mode in ("simultaneous", "alternating")
            for bot in bots for seed in SEEDS]


def check_board(ruleset: Ruleset[Any], state: Any, players: tuple[str, ...], where: str) -> None:
    board = ruleset.board(state)
    squares = []
    for piece in board.pieces:
        sq = parse_square(piece.square)
        assert 0 <= sq.col < board.width and 0 <= sq.row < board.height, f"{where}: {piece} off the grid"
        assert piece.side is None or piece.side in players, f"{where}: {piece} has no seat"
        if piece.health is not None:
            assert piece.health >= 0, f"{where}: {piece} has negative health"
            if piece.max_health is not None:
                assert piece.health <= piece.max_health, f"{where}: {piece} over its maximum"
        squares.append(piece.square)
    if not ruleset.info.shared_squares:
        shared = [sq for sq, n in Counter(squares).items() if n > 1]
        assert not shared, f"{where}: more than one figure on {shared}"
    for mark in board.marks:
        for name in mark.squares:
            sq = parse_square(name)
            assert 0 <= sq.col < board.width and 0 <= sq.row < board.height, f"{where}: mark {mark}"


def check_state(ruleset: Ruleset[Any], result: StepResult, where: str) -> Any:
    text = json.dumps(result.state)
    assert len(text.encode()) <= MAX_STATE_BYTES, f"{where}: state is {len(text)} bytes"
    state = ruleset.load(json.loads(text))
    assert ruleset.dump(state) == result.state, f"{where}: dump(load(state)) differs"
    assert ruleset.round_number(state) == result.round
    if result.outcome is not None:
        assert result.expected == [], f"{where}: players expected after the game ended"
    return state


def check_legal_orders(ruleset: Ruleset[Any], state: Any, player: str, where: str) -> None:
    """Every order legal_orders offers is one of the ruleset's verbs, for that unit, and
    its text is accepted on its own as the same order with the same role, square and
    target (what forms, bots and taps on the grid rely on)."""
    verbs = set(ruleset.verbs)
    for unit, orders in ruleset.legal_orders(state, player).items():
        for order in orders:
            line = order.format()
            assert order.unit == unit and order.spec in verbs, f"{where}: {line!r} offered for {unit}"
            try:
                parsed = ruleset.parse_orders(state, player, line)
            except OrderErrors as exc:
                raise AssertionError(f"{where}: legal order {line!r} of {unit} refused: {exc}") from exc
            assert parsed == [order], f"{where}: {line!r} parses as {parsed}"
            assert (parsed[0].role, parsed[0].square, parsed[0].target) == (
                order.role, order.square, order.target), f"{where}: {line!r}"


def check_deterministic(game: SelfPlay, ruleset_id: str, where: str) -> None:
    """Resolving the same step twice gives the same state, events and rolls."""
    for before, step in list(zip(game.results, game.results[1:], strict=False))[:3]:
        key = b"contract-determinism".ljust(32, b".")
        runs = [run_round(ruleset_id, before.state, step.inputs, step.t, Dice(key, step.t),
                          revision=game.record["revision"]) for _ in range(2)]
        assert runs[0] == runs[1], f"{where}: step {step.t} resolved differently twice"


@pytest.mark.parametrize("ruleset", RULESETS, ids=IDS)
def test_bot_games_keep_every_invariant_and_replay(ruleset: Ruleset[Any]) -> None:
    ended = 0
    for n, mode, bot, seed in configurations(ruleset):
        players = PLAYER_NAMES[:n]
        where = f"{ruleset.info.id} {n}p {mode} {bot} {seed}"
        game = play(ruleset.info.id, seed, players=players, options={"turn_mode": mode},
                    max_rounds=ROUND_CAP, bots=dict.fromkeys(players, bot))
        for i, result in enumerate(game.results):
            state = check_state(ruleset, result, f"{where} step {result.t}")
            check_board(ruleset, state, players, f"{where} step {result.t}")
            if i % 10 == 0:
                for player in result.expected:
                    check_legal_orders(ruleset, state, player, f"{where} step {result.t}")
        check_deterministic(game, ruleset.info.id, where)
        report = replay(game.record)
        assert report.ok, f"{where}: replay differs: {report.difference}"
        assert [s.state_hash for s in report.steps] == [r.state_hash for r in game.results]
        ended += game.final.outcome is not None
    assert ended, f"{ruleset.info.id}: no bot game reached an outcome within {ROUND_CAP} rounds"


@pytest.mark.parametrize("ruleset", RULESETS, ids=IDS)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(alphabet=st.sampled_from("ABab12 \n#:-_moveattackpassc3Z9é\t"), max_size=80))
def test_any_order_text_is_accepted_or_refused_with_order_errors(ruleset: Ruleset[Any], text: str) -> None:
    """Whatever a player types, parse_orders returns orders or raises OrderErrors."""
    players = tuple(PLAYER_NAMES[:max(ruleset.info.min_players, 2)])
    state = _setup_state(ruleset, players)
    try:
        ruleset.parse_orders(state, players[0], text)
    except OrderErrors as exc:
        assert all(e.message for e in exc.errors)


@pytest.mark.parametrize("ruleset", RULESETS, ids=IDS)
def test_pass_gives_no_orders_and_comments_are_ignored(ruleset: Ruleset[Any]) -> None:
    """The common order language: `pass` alone (any case, with a comment) is an empty order set."""
    players = tuple(PLAYER_NAMES[:max(ruleset.info.min_players, 2)])
    state = _setup_state(ruleset, players)
    for player in ruleset.expected(state):
        for text in ("pass", "PASS  # nothing this round", "", "# only a comment"):
            assert list(ruleset.parse_orders(state, player, text)) == [], (player, text)


_SETUPS: dict[tuple[str, tuple[str, ...]], Any] = {}


def _setup_state(ruleset: Ruleset[Any], players: tuple[str, ...]) -> Any:
    key = (ruleset.info.id, players)
    if key not in _SETUPS:
        game = play(ruleset.info.id, "contract-parse", players=players, max_rounds=0)
        _SETUPS[key] = ruleset.load(game.final.state)
    return _SETUPS[key]


JUNK_FORCES: list[dict[str, Any]] = [
    {"units": "x"}, {"units": [None]}, {"nonsense": 1}, {"units": [{"pw": True}]}, {"hero": 7},
]


@pytest.mark.parametrize("ruleset", RULESETS, ids=IDS)
def test_forces_are_checked_with_reasons_never_exceptions(ruleset: Ruleset[Any]) -> None:
    """Every seat's default force is valid; a malformed force gets reasons (text), not a crash."""
    options = ruleset.options({})
    for seat in range(ruleset.info.max_players):
        force = ruleset.default_force(seat, options)
        assert json.loads(json.dumps(force)) == force
        assert ruleset.validate_force(force, options) == []
    for junk in JUNK_FORCES:
        reasons = ruleset.validate_force(junk, options)
        assert isinstance(reasons, list) and all(isinstance(r, str) and r for r in reasons)


@pytest.mark.parametrize("ruleset", RULESETS, ids=IDS)
def test_options_have_documented_defaults_and_refuse_unknown_names(ruleset: Ruleset[Any]) -> None:
    defaults = ruleset.options({})
    assert set(defaults) == {spec.name for spec in ruleset.info.options}
    assert all(spec.doc for spec in ruleset.info.options)
    with pytest.raises(OptionError, match="no_such_option"):
        ruleset.options({"no_such_option": 1})
    with pytest.raises(OptionError, match="turn_mode"):
        ruleset.options({"turn_mode": "whenever"})


def test_the_public_rulesets_function_survives_importing_the_rulesets_package() -> None:
    import importlib

    import engine

    importlib.import_module("engine.rulesets.heroes")
    engine.ruleset_ids()  # builds the registry, importing every ruleset package
    assert callable(engine.rulesets) and engine.rulesets() == engine.registry.rulesets()
    from engine import rulesets

    assert [r.info.id for r in rulesets()] == engine.ruleset_ids()


HOUSE_TYPES = [
    {"name": "berserker", "cost": 1, "effects": {"power_counterattacking": 2}},
    {"name": "archer", "cost": 2, "effects": {"min_range": 2, "max_range": 3}},
    {"name": "drummer", "cost": 1, "effects": {"support_dice": 1, "steady": 1}},
    {"name": "sturdy", "cost": 2, "effects": {"endurance": 2, "defence_per_enemy": 1}},
]
HOUSE_FORCE = {"units": [
    {"name": "Axe", "pw": 2, "types": ["berserker"]},
    {"name": "Bow", "types": ["archer"]},
    {"name": "Drum", "types": ["drummer", "runner"]},
    {"name": "Wall", "types": ["sturdy"]},
    {"name": "Mortar", "types": ["mortar"]},
]}


@pytest.mark.parametrize("terrain", ["ruins", "scattered"])
def test_universal_with_house_types_and_terrain_keeps_every_invariant_and_replays(terrain: str) -> None:
    """A game with its own unit types and terrain, played by both bots, replays exactly."""
    ruleset = next(r for r in RULESETS if r.info.id == "universal")
    players = PLAYER_NAMES[:2]
    options = {"unit_types": HOUSE_TYPES, "terrain": terrain, "budget": 20}
    for bot in ("random", "greedy"):
        where = f"universal house {terrain} {bot}"
        game = play("universal", f"house-{terrain}", players=players, options=options,
                    forces=dict.fromkeys(players, HOUSE_FORCE), max_rounds=ROUND_CAP,
                    bots=dict.fromkeys(players, bot))
        assert game.results[0].state["terrain"], f"{where}: no terrain placed"
        assert game.results[0].state["options"]["unit_types"] == HOUSE_TYPES
        for i, result in enumerate(game.results):
            state = check_state(ruleset, result, f"{where} step {result.t}")
            check_board(ruleset, state, players, f"{where} step {result.t}")
            if i % 5 == 0:
                for player in result.expected:
                    check_legal_orders(ruleset, state, player, f"{where} step {result.t}")
        report = replay(game.record)
        assert report.ok, f"{where}: replay differs: {report.difference}"
        assert [s.state_hash for s in report.steps] == [r.state_hash for r in game.results]


@pytest.mark.parametrize("ruleset", RULESETS, ids=IDS)
def test_the_contract_parser_is_the_only_parser_and_every_verb_has_a_role(ruleset: Ruleset[Any]) -> None:
    """A ruleset refines parsing through its verbs, order_checker and check_order_set,
    never by replacing parse_orders; each verb declares one of the roles generic code
    reads (forms, bots, taps on the grid)."""
    assert type(ruleset).parse_orders is Ruleset.parse_orders
    for verb in ruleset.verbs:
        assert verb.role in ROLES, f"{verb.name}: {verb.role!r}"
