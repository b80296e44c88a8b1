"""The short course of `universal` (docs/rulesets/universal.md, "How to play here"): the rules
page and the HELP mail open with it."""

from __future__ import annotations

from typing import Any

from engine.contract import Ruleset
from engine.teaching import Scene, Teaching


def _unit(uid: str, side: str, square: str, ep: int = 1, pw: int = 1, d: int = 5) -> dict[str, Any]:
    return {"id": uid, "side": side, "square": square, "ep": ep, "max_ep": ep, "pw": pw, "d": d,
            "types": [], "token": False, "name": ""}


def scene(rules: Ruleset[Any]) -> Scene:
    """A1 steps next to B1 (the step costs 1.5 of its 2 squares) and attacks with A2 beside
    both; B1 falls and leaves a token for alice."""
    state = rules.load({
        "format": "universal/1", "options": rules.options({"width": 6, "height": 6}),
        "seats": ["alice", "bob"], "round": 1,
        "units": [_unit("A1", "alice", "c2", pw=2), _unit("A2", "alice", "d3"),
                  _unit("B1", "bob", "c4", ep=2), _unit("B2", "bob", "f6")],
        "next_number": {"alice": 3, "bob": 3},
    })
    return Scene(
        state,
        "On a 6 × 6 grid: alice's A1 (1/2/5: EP 1, Pw 2, D 5) on c2 and A2 (1/1/5) on d3; "
        "bob's B1 (2/1/5) on c4 and B2 (1/1/5) on f6.",
        {"alice": "A1 move c3\nA1 attack B1", "bob": "B2 move f5"},
        (6, 4, 3),
        "A1's step to c3 is next to B1, so it costs 1.5 of A1's 2 squares and ends its move; "
        "A1 rolls Pw − 1 dice, one for itself and one for A2, which stands beside both; the "
        "fewest dice that reach B1's defence are used and each die left over is 1 damage.",
    )


TEACHING = Teaching(
    win="Defeat every enemy character: a side whose characters (tokens not counted) are all "
        "defeated is out, and the last side standing wins. If every side falls it is a draw; "
        "the option max_rounds can end the game as a draw.",
    sequence=(
        "Every side still in sends orders for its units (in alternating mode one side a round, "
        "in seat order); a unit without an order holds.",
        "When the round resolves, the sides act one after another in seat order; the side that "
        "goes first moves on by one each round.",
        "A side's orders act in the order written: A1 move c3, then A1 attack B1, attacks from c3.",
        "An order that is no longer possible when its turn comes (its unit fell, the target is "
        "gone, the way is blocked) is skipped, and the round's log says why.",
    ),
    limits=(
        "Every unit may move every round: 2 squares (a Runner 3), diagonal steps included, "
        "never into or through a square holding a unit.",
        "Entering a square next to an enemy (or rough ground) costs 1.5 squares and the half "
        "square left over is lost: with 2 squares that step ends the move, and a plain step "
        "followed by one next to an enemy is too far.",
        "One unit per side attacks a round, an enemy beside it (a Mortar only an enemy more "
        "than 3 squares away).",
        "An attack rolls Pw − 1 dice plus one for each character beside both attacker and "
        "defender (the attacker counts itself). The fewest dice, highest first, that reach the "
        "defence (D, +1 for each ally beside the defender) are used; each die left over is 1 "
        "damage.",
        "An attack that deals no damage is answered by a counterattack of Pw − 1 dice (1 fewer "
        "when not beside the attacker) against the attacker's bare D.",
        "A defeated character leaves a token (1/0/5) for the side that defeated it.",
    ),
    scene=scene,
)
