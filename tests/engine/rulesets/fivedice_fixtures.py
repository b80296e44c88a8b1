"""Small hand-built fivedice positions for the rulebook tests (test_fivedice*.py).

Units get the policy `priority attack initiative defence` unless a test says otherwise,
so with skill 1 the five faces land predictably: the two highest on attack, the middle
one on initiative, the two lowest on defence. Each living unit rolls its five dice in
unit order before anything else; roll-offs come after.
"""

from __future__ import annotations

from typing import Any

from engine.contract import Resolution
from engine.grid import parse_square
from engine.rulesets.fivedice import FivediceRuleset
from engine.rulesets.fivedice.sheet import Sheet
from engine.rulesets.fivedice.state import GameState, Unit
from tests.engine.rulesets.scripted import event_texts, resolve_scripted

RULES = FivediceRuleset()
SIDES = {"A": "alice", "B": "bob"}
PREDICTABLE = ("priority", "attack", "initiative", "defence")


def sheet(attack: int = 3, initiative: int = 2, defence: int = 3, skill: int = 1, movement: int = 3,
          life: int = 10, weapons: tuple[str, ...] = ("sword",), armor: str | None = None,
          spells: tuple[str, ...] = (), items: tuple[str, ...] = ()) -> Sheet:
    return Sheet("custom", attack, initiative, defence, skill, movement, life, weapons, armor,
                 spells, items)


def unit(uid: str, at: str, life: int | None = None, policy: tuple[str, ...] = PREDICTABLE,
         **stats: Any) -> Unit:
    """A unit with `life` points now; its sheet's life is 10, or `life` if that is more."""
    s = sheet(**{"life": max(10, life or 0), **stats})
    return Unit(uid, SIDES[uid[0]], s, parse_square(at), s.life if life is None else life,
                s.weapons[0] if s.weapons else None, list(s.items), policy)


def state(*units: Unit, terrain: dict[str, str] | None = None, **options: Any) -> GameState:
    opts = RULES.options({"map": "open", **options})
    return GameState(["alice", "bob"], opts, 1,
                     {parse_square(k): v for k, v in (terrain or {}).items()}, list(units))


def play(s: GameState, orders: dict[str, str], faces: list[int]) -> Resolution[GameState]:
    """Parse each player's orders against s and resolve with exactly these faces."""
    return resolve_scripted(RULES, s, orders, faces)


def texts(res: Resolution[GameState], kind: str | None = None) -> list[str]:
    return event_texts(res.events, kind)


def life(res: Resolution[GameState], uid: str) -> int:
    u = res.state.unit(uid)
    assert u is not None
    return u.life


def where(res: Resolution[GameState], uid: str) -> str:
    u = res.state.unit(uid)
    assert u is not None
    return u.square.name
