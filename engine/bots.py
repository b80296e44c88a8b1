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
from engine.orders import OrderErrors

BotKind = Literal["random", "greedy"]
ATTACK_VERBS = ("attack", "shoot", "cast", "strike", "save", "capture")


def bot_dice(seed: str, player: PlayerId, round_number: int) -> Dice:
    return Dice(H(PROFILE, "bot", seed, player, round_number), 0)


def bot_orders(ruleset: Ruleset[Any], state: Any, player: PlayerId, seed: str = "",
               kind: BotKind = "greedy", key: bytes | None = None) -> str:
    """An order text the ruleset accepts for this player now ("" when nothing works).

    key: the v2 bot key B; the j-th choice among n options is then roll(B, j, n).
    """
    if key is not None:
        dice = Dice(key, 0, PROFILE_V2)
    else:
        dice = bot_dice(seed, player, ruleset.round_number(state))
    text: str | None = None
    if kind == "greedy":
        text = ruleset.bot_orders(state, player, dice)
        if text is None:
            text = _generic_greedy(ruleset, state, player, dice)
    else:
        text = _random(ruleset, state, player, dice)
    return _keep_legal(ruleset, state, player, text)


def _random(ruleset: Ruleset[Any], state: Any, player: PlayerId, dice: Dice) -> str:
    lines: list[str] = []
    for unit, choices in sorted(ruleset.legal_orders(state, player).items()):
        options = [*choices, ""]  # holding is always a choice
        lines.append(options[dice.roll(len(options), f"bot {unit}") - 1])
    return "\n".join(line for line in lines if line)


def _generic_greedy(ruleset: Ruleset[Any], state: Any, player: PlayerId, dice: Dice) -> str:
    """Attack when possible, else step towards the nearest enemy figure."""
    board = ruleset.board(state)
    enemies = [parse_square(p.square) for p in board.pieces if p.side != player]
    lines: list[str] = []
    for unit, choices in sorted(ruleset.legal_orders(state, player).items()):
        attacks = [c for c in choices if c.split()[1].lower() in ATTACK_VERBS]
        if attacks:
            lines.append(attacks[dice.roll(len(attacks), f"bot {unit} attack") - 1])
            continue
        moves = [c for c in choices if c.split()[1].lower() == "move"]
        if moves and enemies:
            def closeness(line: str) -> int:
                sq = parse_square(line.split()[-1])
                return min(distance(sq, e) for e in enemies)
            best = min(closeness(m) for m in moves)
            pick = [m for m in moves if closeness(m) == best]
            lines.append(pick[dice.roll(len(pick), f"bot {unit} move") - 1])
    return "\n".join(lines)


def _keep_legal(ruleset: Ruleset[Any], state: Any, player: PlayerId, text: str) -> str:
    """Drop lines until the ruleset accepts the set (lines can clash with each other)."""
    lines = [line for line in text.splitlines() if line.strip()]
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
