"""The short course of `jep1` (docs/rulesets/jep1.md, "A round"): the rules page and the HELP
mail open with it."""

from __future__ import annotations

from typing import Any

from engine.contract import Ruleset
from engine.teaching import Scene, Teaching


def _unit(uid: str, side: str, at: str, **stats: int) -> dict[str, Any]:
    return {"id": uid, "side": side, "kind": "custom", **stats, "maxH": stats["H"], "reach": 8,
            "skills": [], "uses": {}, "guard": [], "at": at, "tie": 0}


def scene(rules: Ruleset[Any]) -> Scene:
    """A warrior closes in on a scout and attacks; the scout lives and strikes back."""
    state = rules.load({
        "options": rules.options({"width": 6, "height": 6}), "players": ["alice", "bob"],
        "units": [_unit("A1", "alice", "c2", I=2, M=2, R=0, S=3, T=5, A=0, H=3),
                  _unit("B1", "bob", "c4", I=4, M=1, R=2, S=2, T=4, A=0, H=2)],
        "round": 2, "first": [], "marks": [], "walls": [],
    })
    return Scene(
        state,
        "Round 2 on a 6 × 6 grid: alice's A1 (I 2, M 2, S 3, T 5, A 0, H 3) on c2, bob's B1 "
        "(I 4, M 1, R 2, S 2, T 4, A 0, H 2) on c4, no skills.",
        {"alice": "A1 attack B1"},
        (5, 3, 5, 2, 6, 4, 2, 1),
        "B1 has the higher I and acts first (it has no orders, so it holds); A1 closes in with "
        "its 4 squares and attacks: M dice each + M to hit, against the defender's M dice each "
        "+ M, a defence value blocks one lower attack value; each hit rolls d6 + S against T; "
        "B1 lives, so it strikes back at once through the same steps.",
    )


TEACHING = Teaching(
    win="Be the last side with a living unit (a unit at 0 H is dead and leaves the board); the "
        "option max_rounds can end the game as a draw.",
    sequence=(
        "Both players write orders for their units; a unit without orders holds.",
        "Standing orders (guard, strikeback) take effect for every unit.",
        "Units act one at a time in the order of action: in round 1 by d6 + I, rolled at setup "
        "and shown before round 1's orders; from round 2 by base I, ties by a roll-off kept "
        "for the game.",
        "A unit moves (its move always comes first, whatever the line order), then attacks or "
        "shoots.",
        "An attack: attack skills, then defence skills (at most 2 a side a phase); roll to hit "
        "(M dice, each d6 + M) against the defender's M dice each + M; each defence value "
        "blocks one lower attack value; each hit rolls d6 + S against T, and each success is "
        "1 damage; armor (A) takes 1 damage off each; every wound costs 1 H.",
        "A melee defender that lives strikes back at once, through the same steps.",
    ),
    limits=(
        "A unit moves at most 4 squares a round (diagonals included unless the option is off), "
        "never through a unit or a wall.",
        "Melee needs the enemy beside it: an attack on an enemy farther away first closes in "
        "with what is left of the 4 squares.",
        "A shot needs R of at least 1, the target within the weapon's reach (8 unless the unit "
        "says otherwise) and a line of sight; it is defended with I dice each + I and is not "
        "struck back (unless ranged_strikes_back is on).",
        "Each unit takes at most one move and one attack or shot a round, plus its standing "
        "guard and strikeback.",
    ),
    scene=scene,
)
