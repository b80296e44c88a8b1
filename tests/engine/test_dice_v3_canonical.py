"""dicepost-dice/v3's canonical input: one text for each order set, in the order the rules read.

Each ruleset declares where the rules read a line (`Ruleset.reading_key`); the canonical text
sorts a seat's lines stably by it. Two things must hold for every ruleset: lines the key
puts in one place resolve alike whatever order the player wrote them in (so the host has
no ordering left to choose), and the canonical text resolves exactly as the player's text
(so sorting never changes what the orders do).
"""

from __future__ import annotations

from typing import Any

import pytest

from engine.dice import PROFILE_V2, PROFILE_V3, Dice, H
from engine.orders import OrderErrors
from engine.registry import find_ruleset
from engine.selfplay import play
from engine.steps import canonical_input, run_round

GAMES = [("universal", None, ("alice", "bob")), ("jep1", None, ("alice", "bob")),
         ("fivedice", None, ("alice", "bob")), ("heroes", None, ("alice", "bob", "carol")),
         ("heroes", {"villain_player": True}, ("alice", "bob", "carol"))]


def parses(ruleset: Any, state: Any, player: str, text: str) -> bool:
    try:
        ruleset.parse_orders(state, player, text)
    except OrderErrors:
        return False
    return True


def rich_orders(ruleset: Any, state: Any, player: str, dice: Dice) -> list[str]:
    """Up to three legal lines a unit, as many as parse together: more lines than a bot writes
    (a unit given none holds, where the ruleset has `hold`)."""
    lines: list[str] = []
    for unit, offered in sorted(ruleset.legal_orders(state, player).items()):
        given = len(lines)
        for line in [o.format() for o in dice.shuffle(offered, "pick")[:3]]:
            if parses(ruleset, state, player, "\n".join([*lines, line])):
                lines.append(line)
        if given == len(lines) or dice.roll(3, "hold") == 1:
            hold = f"{unit} hold"
            if parses(ruleset, state, player, "\n".join([*lines, hold])):
                lines.append(hold)
    return lines


@pytest.mark.parametrize(("ruleset_id", "options", "players"), GAMES,
                         ids=[f"{g[0]}{'-villain' if g[1] else ''}" for g in GAMES])
def test_orderings_with_one_canonical_text_resolve_alike(ruleset_id: str, options: Any,
                                                         players: tuple[str, ...]) -> None:
    game = play(ruleset_id, "reading-order", players=players, options=options, max_rounds=8)
    ruleset = find_ruleset(ruleset_id)
    alike = 0
    for i, before in enumerate(game.results[:-1]):
        state = ruleset.load(before.state)
        for p in before.expected:
            dice = Dice(H("reading-order", ruleset_id, i, p), 0)
            lines = rich_orders(ruleset, state, p, dice)
            if len(lines) < 2:
                continue
            canon = canonical_input(ruleset, state, p, "\n".join(lines), PROFILE_V3)
            assert canonical_input(ruleset, state, p, canon, PROFILE_V3) == canon  # a fixed point
            key = H("resolve", ruleset_id, i, p)
            written = resolved(ruleset_id, before, players, p, "\n".join(lines), key)
            assert resolved(ruleset_id, before, players, p, canon, key) == written, (
                "the canonical text does what the player's does", lines, canon)
            for n in range(8):
                order = interleaving(ruleset, state, p, lines, dice) if n % 2 else dice.shuffle(lines, "try")
                shuffled = "\n".join(order)
                if not parses(ruleset, state, p, shuffled):
                    continue
                if canonical_input(ruleset, state, p, shuffled, PROFILE_V3) == canon:
                    assert resolved(ruleset_id, before, players, p, shuffled, key) == written, (
                        lines, shuffled)
                    alike += 1
    assert alike > 3, "the game should offer orderings to compare"


def resolved(ruleset_id: str, before: Any, players: tuple[str, ...], player: str, text: str,
             key: bytes) -> tuple[str, list[Any]]:
    """The round after `before` with only `player`'s orders, on fixed dice."""
    inputs = {q: "" for q in players} | {player: text}
    r = run_round(ruleset_id, before.state, inputs, before.t + 1, Dice(key, before.t + 1),
                  revision=find_ruleset(ruleset_id).revision)
    return r.state_hash, r.rolls


def interleaving(ruleset: Any, state: Any, player: str, lines: list[str], dice: Dice) -> list[str]:
    """The lines in another order the reading key allows: lines with one key keep their
    order among themselves, the groups are mixed at random."""
    groups: dict[Any, list[str]] = {}
    orders = ruleset.parse_orders(state, player, "\n".join(lines))
    for line, order in zip(lines, orders, strict=True):
        groups.setdefault(ruleset.reading_key(state, player, order), []).append(line)
    queues = list(groups.values())
    out: list[str] = []
    while queues:
        queue = queues[dice.roll(len(queues), "group") - 1]
        out.append(queue.pop(0))
        queues = [q for q in queues if q]
    return out


def first_state(ruleset_id: str, options: Any = None,
                players: tuple[str, ...] = ("alice", "bob")) -> tuple[Any, Any]:
    game = play(ruleset_id, "reading-order", players=players, options=options, max_rounds=1)
    ruleset = find_ruleset(ruleset_id)
    return ruleset, ruleset.load(game.results[0].state)


def canon(ruleset: Any, state: Any, player: str, *lines: str) -> list[str]:
    return canonical_input(ruleset, state, player, "\n".join(lines), PROFILE_V3).splitlines()


def test_jep1_reads_by_unit_then_verb() -> None:
    """"The move always comes before the attack, whatever the line order": one text."""
    ruleset, state = first_state("jep1")
    legal = ruleset.legal_orders(state, "alice")
    units = sorted(legal)[:2]
    moves = [next(o.format() for o in legal[u] if o.verb == "move") for u in units]
    guard = f"{units[0]} guard none"
    assert canon(ruleset, state, "alice", moves[1], guard, moves[0]) == \
        canon(ruleset, state, "alice", moves[0], moves[1], guard) == \
        [*sorted([moves[0], guard], key=lambda line: line.split()[1]), moves[1]]


def test_fivedice_keeps_a_units_lines_as_written_and_its_dice_line_first() -> None:
    """"Its lines run in the order written, so `A1 attack B2` then `A1 move c2` strikes and
    steps back": the player's order of a unit's actions stays; `dice` is a standing order."""
    ruleset, state = first_state("fivedice")
    legal = ruleset.legal_orders(state, "alice")
    unit = sorted(legal)[0]
    move = next(o.format() for o in legal[unit] if o.verb == "move")
    other = sorted(legal)[1]
    other_move = next(o.format() for o in legal[other] if o.verb == "move")
    switch = next((o.format() for o in legal[unit] if o.verb in ("switch", "use")), None)
    dice = f"{unit} dice aggressive"
    lines = [other_move, move, dice] + ([switch] if switch else [])
    assert canon(ruleset, state, "alice", *lines) == [dice, move, *([switch] if switch else []), other_move]
    if switch:
        assert canon(ruleset, state, "alice", switch, move) == [switch, move]


def test_universal_keeps_moves_as_written_and_puts_holds_last() -> None:
    """"A side's orders act in the order they are written": moves stay; a hold says only so."""
    ruleset, state = first_state("universal")
    legal = ruleset.legal_orders(state, "alice")
    a, b, c = sorted(legal)[:3]
    move_b = next(o.format() for o in legal[b] if o.verb == "move")
    move_c = next(o.format() for o in legal[c] if o.verb == "move")
    assert canon(ruleset, state, "alice", f"{a} hold", move_c, move_b) == [move_c, move_b, f"{a} hold"]
    assert canon(ruleset, state, "alice", move_b, move_c, f"{a} stay") == [move_b, move_c, f"{a} hold"]


def test_heroes_reads_a_hero_by_phase_and_its_general_actions_as_written() -> None:
    """"Orders are carried out in phase order whatever their line order; general actions in
    their line order.\""""
    ruleset, state = first_state("heroes", players=("alice", "bob"))
    hero = state.heroes["alice"]
    move = next(o.format() for o in ruleset.legal_orders(state, "alice")[hero] if o.verb == "move")
    lines = [f"{hero} search", f"{hero} face n", move, f"{hero} reroll never"]
    assert canon(ruleset, state, "alice", *lines) == [f"{hero} reroll never", move, f"{hero} face n",
                                                      f"{hero} search"]


def test_v2_keeps_the_players_order() -> None:
    ruleset, state = first_state("jep1")
    legal = ruleset.legal_orders(state, "alice")
    a, b = sorted(legal)[:2]
    text = f"{b} guard none\n{a} guard none"
    assert canonical_input(ruleset, state, "alice", text, PROFILE_V2) == text
    assert canonical_input(ruleset, state, "alice", text) == text
