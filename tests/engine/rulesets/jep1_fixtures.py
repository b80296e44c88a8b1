"""Small hand-built jep1 positions for the rulebook tests (test_jep1*.py)."""

from __future__ import annotations

from typing import Any

from engine.contract import Resolution
from engine.grid import parse_square
from engine.rulesets.jep1 import Jep1Ruleset
from engine.rulesets.jep1.skills import SKILLS
from engine.rulesets.jep1.state import JepState
from engine.rulesets.jep1.units import Unit
from tests.engine.rulesets.scripted import event_texts, resolve_scripted

RULES = Jep1Ruleset()
SIDES = {"A": "alice", "B": "bob"}


def unit(uid: str, at: str, I: int = 2, M: int = 2, R: int = 0, S: int = 3, T: int = 4, A: int = 0,  # noqa: E741
         H: int = 3, reach: int = 8, skills: tuple[str, ...] = (), tie: int = 0) -> Unit:
    return Unit(id=uid, side=SIDES[uid[0]], kind="custom", I=I, M=M, R=R, S=S, T=T, A=A, H=H, max_h=H,
                reach=reach, skills=tuple(skills), uses={k: SKILLS[k].uses for k in skills}, guard=[],
                at=parse_square(at), tie=tie)


def state(*units: Unit, round: int = 2, **options: Any) -> JepState:
    """A position with the given units; round 2 by default, so base I (then tie) orders them."""
    return JepState(RULES.options(options), ["alice", "bob"], list(units), round, [u.id for u in units], [])


def play(s: JepState, orders: dict[str, str], faces: list[int]) -> Resolution[JepState]:
    """Parse each player's orders against s and resolve with exactly these faces."""
    return resolve_scripted(RULES, s, orders, faces)


def texts(res: Resolution[JepState], kind: str | None = None) -> list[str]:
    return event_texts(res.events, kind)
