"""Standing orders: what a player leaves for a unit, used in any round they send none.

A standing order is one word per unit (`STANDING A1 attack`). In a round the player lets
pass without orders, the service turns the words into concrete orders of the ruleset's own
order language (`standing_text`): the orders `legal_orders` offers now, chosen by a fixed
rule with no dice, then checked by `parse_orders` exactly as typed orders are. The text is
stored as the player's own version of their orders, so the record counts it, lists its
receipt, and replays it as any other input.

The kinds (`standing_kinds`), where the ruleset has the verbs for them:
- hold:   the unit stays where it is (the ruleset's `hold` order where it has one);
- attack: close combat against the nearest enemy the unit can attack this round (ties:
          the lowest unit id); holds when there is none;
- shoot:  a shot at the nearest enemy the unit can shoot this round (ties: the lowest
          unit id); holds when there is none.
A unit whose word gives no order holds; a player whose words give no order at all passes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.bots import keep_legal
from engine.contract import PlayerId, Ruleset
from engine.grid import SquareError, distance, parse_square
from engine.orders import Order, Role

NONE = "none"  # the word that takes a unit's standing order away
_STRIKES: dict[str, Role] = {"attack": "attack", "shoot": "shot"}
_WORDS = {
    "hold": "the unit stays where it is",
    "attack": "close combat against the nearest enemy it can attack that round (else it holds)",
    "shoot": "a shot at the nearest enemy it can shoot that round (else it holds)",
}


def standing_kinds(ruleset: Ruleset[Any]) -> dict[str, str]:
    """The words this ruleset offers, each with what it does: hold always, attack and shoot
    where the ruleset has a verb of that role."""
    roles = {v.role for v in ruleset.verbs}
    return {kind: words for kind, words in _WORDS.items()
            if kind == "hold" or _STRIKES[kind] in roles}


def standing_text(ruleset: Ruleset[Any], state: Any, player: PlayerId, standing: Mapping[str, str]) -> str:
    """The order text the words give now, every line one the ruleset accepts ("pass" when
    they give none). Deterministic: the same state and words give the same text."""
    legal = ruleset.legal_orders(state, player)
    squares = {p.id: p.square for p in ruleset.board(state).pieces}
    sides = {p.id: p.side for p in ruleset.board(state).pieces}
    hold = next((v for v in ruleset.verbs if v.name == "hold" and not v.args and not v.unitless), None)
    lines: list[str] = []
    for unit, kind in sorted(standing.items()):
        if kind == "hold":
            pick = hold.order(unit) if hold is not None and sides.get(unit) == player else None
        else:
            pick = _pick(kind, legal.get(unit, []), squares.get(unit), squares, sides, player)
        if pick is not None:
            lines.append(pick.format())
    return keep_legal(ruleset, state, player, lines) or "pass"


def _pick(kind: str, choices: list[Order], where: str | None, squares: Mapping[str, str],
          sides: Mapping[str, PlayerId | None], player: PlayerId) -> Order | None:
    role = _STRIKES.get(kind)
    strikes = [c for c in choices if c.role == role and c.target and sides.get(c.target) != player]
    if not strikes:
        return None
    return min(strikes, key=lambda c: (_far(where, squares.get(c.target or "")), c.target or "", c.format()))


def _far(a: str | None, b: str | None) -> int:
    try:
        return distance(parse_square(a or ""), parse_square(b or ""))
    except SquareError:
        return 1 << 20
