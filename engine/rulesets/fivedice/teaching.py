"""The short course of `fivedice` (docs/rulesets/fivedice.md, "How to play here"): the rules
page and the HELP mail open with it."""

from __future__ import annotations

from typing import Any

from engine.contract import Ruleset
from engine.teaching import Scene, Teaching


def _sheet(armor: str) -> dict[str, Any]:
    return {"name": "custom", "attack": 3, "initiative": 2, "defence": 3, "skill": 1, "movement": 3,
            "life": 20, "weapons": ["sword"], "armor": armor, "spells": [], "items": []}


def scene(rules: Ruleset[Any]) -> Scene:
    """A1 places its dice aggressively and attacks B1 (balanced, the default): one skirmish,
    both ways at once."""
    state = rules.load({
        "players": ["alice", "bob"], "options": rules.options({"width": 6, "height": 6, "map": "open"}),
        "round": 1, "terrain": {}, "sheets": [_sheet("leather"), _sheet("chain")],
        "units": [{"id": "A1", "player": "alice", "sheet": 0, "square": "c3", "life": 20,
                   "wielded": "sword", "items": [], "policy": ["balanced"]},
                  {"id": "B1", "player": "bob", "sheet": 1, "square": "c4", "life": 20,
                   "wielded": "sword", "items": [], "policy": ["balanced"]}],
        "marks": [],
    })
    return Scene(
        state,
        "On a 6 × 6 grid: alice's A1 on c3 and bob's B1 on c4, each attack 3, initiative 2, "
        "defence 3, skill 1, life 20, with a sword (+3 attack, speed 7); A1 wears leather (+2 "
        "defence, speed 6), B1 chain (+4 defence, speed 8).",
        {"alice": "A1 dice aggressive\nA1 attack B1"},
        (6, 6, 3, 1, 1, 5, 4, 2, 2, 1),
        "Each unit rolls its five dice first and places them by its policy (skill 1 allows "
        "only 2 on attack, 1 on initiative, 2 on defence): A1, aggressive, puts its highest "
        "on attack; B1, balanced, evens out attack and defence. Initiative is the initiative "
        "die + I − (weapon speed + armor speed − 10); A1 acts first, and its attack is one "
        "skirmish both ways at once: each side's attack minus the other's defence is the "
        "damage it deals.",
    )


TEACHING = Teaching(
    win="Be the last side with living units; if no side is left it is a draw, and the option "
        "max_rounds can end the game as a draw.",
    sequence=(
        "Every player writes orders for their units; a unit without orders holds.",
        "Placing the dice: every living unit rolls five dice and places them on its sheet: 2 "
        "on attack, 1 on initiative, 2 on defence, shifted as far as its skill allows (skill "
        "2 may also play 3/0/2 or 2/0/3, up to skill 5: any split with at least one die on "
        "each). You do not place them by hand: the unit's dice policy does, the moment they "
        "are rolled. balanced (the default) makes the weaker of attack and defence as high as "
        "it can; aggressive the most attack; defensive the most defence; priority names the "
        "areas in order. Change it with a line like A1 dice aggressive, which stands from "
        "this round on.",
        "Initiative = the initiative dice + I − (weapon speed + armor speed − 10); the highest "
        "acts first (ties: higher I, then a roll-off).",
        "In that order each unit carries out its lines as written, with three actions: "
        "movement, attack and defence; an item or a weapon switch costs one of them.",
        "A melee attack is a skirmish both ways at once: attack dice + attack + weapon against "
        "defence dice + defence + armor, the difference is damage, and the defender strikes "
        "back the same way; both spend their attack and defence for the round.",
    ),
    limits=(
        "A move of up to MP squares keeps attack and defence; up to 2 × MP loses one of them "
        "(the attack unless the line says lose defence); up to 3 × MP loses both. Diagonals "
        "allowed, never through an enemy.",
        "Close combat reaches an enemy within the wielded weapon's reach (1, a spear 2).",
        "A shot needs a ranged weapon, a target 2 squares away up to its reach and a line of "
        "sight; it gets no strike back, and partial cover gives the target +5 defence.",
        "A unit takes at most one move, one of attack, shoot or cast, one use or switch and "
        "one dice line a round.",
        "A unit of skill 0 has only one of attack and defence a round.",
    ),
    scene=scene,
)
