"""The generic greedy bot (engine.bots), which a ruleset without its own bot gets: it knows
no verb, only the roles the verbs declare. Played on the test-only skirmish ruleset, whose
`strike` is an attack and whose `move` is a move."""

from __future__ import annotations

from engine.bots import bot_orders
from tests.fifth_ruleset.skirmish import Pawn, SkirmishRuleset, SkirmishState

RULES = SkirmishRuleset()


def _state(**pawns: str) -> SkirmishState:
    sides = {"A": "alice", "B": "bob"}
    return SkirmishState(RULES.options({"width": 6, "height": 6}), ["alice", "bob"], 1,
                         {pid: Pawn(pid, sides[pid[0]], sq) for pid, sq in pawns.items()})


def test_the_generic_bot_strikes_by_role_and_else_steps_towards_the_nearest_enemy() -> None:
    """A1 on c3 has B1 next to it (c4): its only order of role attack, `A1 strike B1`, is
    taken. A2 on a1 can strike nothing, so it steps (role move) to a square nearest an
    enemy: a2 and b2 are both 2 from B1 on c4 (b1 is 3), and the bot's dice pick one."""
    lines = bot_orders(RULES, _state(A1="c3", A2="a1", B1="c4", B2="f6"), "alice", seed="t").splitlines()
    assert lines[0] == "A1 strike B1"
    assert lines[1] in ("A2 move a2", "A2 move b2") and len(lines) == 2


def test_the_generic_bot_gives_every_line_the_ruleset_accepts() -> None:
    """Two pawns next to one enemy both strike it: skirmish allows that, and the text parses."""
    state = _state(A1="b2", A2="c2", B1="b3")
    text = bot_orders(RULES, state, "alice", seed="t")
    assert text.splitlines() == ["A1 strike B1", "A2 strike B1"]
    assert [o.role for o in RULES.parse_orders(state, "alice", text)] == ["attack", "attack"]
