"""Players made of code: legal orders for the demo, tests, benchmarks and absent seats.

Bots draw their choices from the same derivation as every die, so `random` is never
imported. Under dicepost-dice/v2 the service hands the bot its bound key
(`engine.dice.bot_key`, secret until the round's chain link is revealed), and a verifier
re-runs the bot with the same key; without a key (self-play, tests, v1 games) the choices
are keyed by a seed, the player and the round, so a bot game from a fixed seed repeats.
"""

from __future__ import annotations

from typing import Any, Literal

from engine.contract import PlayerId, Ruleset
from engine.dice import PROFILE, PROFILE_V2, Dice, H
from engine.grid import distance, parse_square
from engine.orders import Order, OrderErrors, Role

BotKind = Literal["random", "greedy"]
STRIKES: frozenset[Role] = frozenset({"attack", "shot", "spell"})  # what the generic bot prefers


def bot_dice(seed: str, player: PlayerId, round_number: int) -> Dice:
    return Dice(H(PROFILE, "bot", seed, player, round_number), 0)


def bot_orders(ruleset: Ruleset[Any], state: Any, player: PlayerId, seed: str = "",
               kind: BotKind = "greedy", key: bytes | None = None,
               profile: str = PROFILE_V2) -> str:
    """An order text the ruleset accepts for this player now ("" when nothing works).

    key: the bot key B of the game's profile (v2 or v3); the j-th choice among n options is
    then roll(B, j, n) under that profile.
    """
    dice = Dice(key, 0, profile) if key is not None else bot_dice(seed, player, ruleset.round_number(state))
    chosen: list[Order] | None
    if kind == "greedy":
        chosen = ruleset.bot_orders(state, player, dice)
        if chosen is None:
            chosen = _generic_greedy(ruleset, state, player, dice)
    else:
        chosen = _random(ruleset, state, player, dice)
    return keep_legal(ruleset, state, player, [o.format() for o in chosen])


def _random(ruleset: Ruleset[Any], state: Any, player: PlayerId, dice: Dice) -> list[Order]:
    out: list[Order] = []
    for unit, choices in sorted(ruleset.legal_orders(state, player).items()):
        options: list[Order | None] = [*choices, None]  # holding is always a choice
        pick = options[dice.roll(len(options), f"bot {unit}") - 1]
        if pick is not None:
            out.append(pick)
    return out


def _generic_greedy(ruleset: Ruleset[Any], state: Any, player: PlayerId, dice: Dice) -> list[Order]:
    """For a ruleset without its own bot: strike (attack, shot or spell) when possible,
    else move towards the nearest enemy figure, by the roles the verbs declare."""
    board = ruleset.board(state)
    enemies = [parse_square(p.square) for p in board.pieces if p.side != player]
    out: list[Order] = []
    for unit, choices in sorted(ruleset.legal_orders(state, player).items()):
        strikes = [c for c in choices if c.role in STRIKES]
        if strikes:
            out.append(strikes[dice.roll(len(strikes), f"bot {unit} attack") - 1])
            continue
        moves = [(c, parse_square(c.square)) for c in choices if c.role == "move" and c.square]
        if moves and enemies:
            closeness = {c: min(distance(sq, e) for e in enemies) for c, sq in moves}
            best = min(closeness.values())
            pick = [c for c, _ in moves if closeness[c] == best]
            out.append(pick[dice.roll(len(pick), f"bot {unit} move") - 1])
    return out


def keep_legal(ruleset: Ruleset[Any], state: Any, player: PlayerId, lines: list[str]) -> str:
    """Drop lines until the ruleset accepts the set (lines can clash with each other)."""
    while lines:
        try:
            ruleset.parse_orders(state, player, "\n".join(lines))
            return "\n".join(lines)
        except OrderErrors as exc:
            bad = {e.line for e in exc.errors if e.line}
            if not bad:
                lines.pop()
            else:
                lines = [line for i, line in enumerate(lines, start=1) if i not in bad]
    return ""
