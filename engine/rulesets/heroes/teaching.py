"""The short course of `heroes` (docs/rulesets/heroes.md, "How to play here"): the rules page
and the HELP mail open with it."""

from __future__ import annotations

from typing import Any

from engine.contract import Ruleset
from engine.grid import parse_square
from engine.rulesets.heroes.cards import card
from engine.rulesets.heroes.decks import henchmen_deck, items_deck
from engine.rulesets.heroes.state import Figure, HeroesState
from engine.teaching import Scene, Teaching


def scene(rules: Ruleset[Any]) -> Scene:
    """Zenith! walks to a civvie, saves it and searches; a thug comes on; the quadrants roll."""
    state = HeroesState(rules.options(), ["alice"], {"alice": "Z1"}, None,
                        ["alice"], 2, frozenset(), {}, {}, list(range(len(henchmen_deck()))), [],
                        list(items_deck()), [])
    zenith = card("zenith")
    state.figures["Z1"] = Figure("Z1", "hero", "zenith", parse_square("e4"), "n", zenith.vitality,
                                 owner="alice", start=parse_square("a1"), policy="never")
    civvie = Figure(state.new_id("C"), "civvie", "", parse_square("f7"))
    state.figures[civvie.id] = civvie
    return Scene(
        state,
        "Round 2 on a 12 × 12 city without rooftops: alice's Zenith! (Z1: Movement A.P. 2, "
        "General A.P. 2, P 3) on e4 facing north; a civvie, C1, on f7.",
        {"alice": "Z1 move e6\nZ1 save C1\nZ1 search"},
        (12, 13, 2, 4, 1, 1, 1),
        "Z1 spends its 2 Movement A.P. on 2 squares and is then beside C1; saving costs 1 "
        "General A.P. and needs no dice; the search spends the other: a roll-off (3d20: of two "
        "dice in 11–19 the highest counts) + P, 13 or more finds an item. Then each quadrant "
        "rolls a d6: 4 or 5 brings a henchman and a civvie beside it.",
    )


TEACHING = Teaching(
    win="Be the first hero to save 10 civvies (option civvies_to_win) and capture your own "
        "Nemesis. With a villain player, the villain wins if no hero has by max_rounds; "
        "otherwise max_rounds ends the game as a draw.",
    sequence=(
        "Each hero takes its whole turn in turn order (rolled once at setup: 3d20 + P): "
        "its (*) action (not in round 1), its movement, combat, then general actions. "
        "Within a hero's turn orders run in that phase order, whatever their line order.",
        "Combat is forced: with a henchman or Nemesis in reach the hero attacks, one attack "
        "per General A.P.; only when no foe is in reach do leftover General A.P. go to "
        "general actions.",
        "Then every henchman and Nemesis acts: it strikes a hero in reach, or walks toward "
        "the nearest hero.",
        "Then each quadrant rolls a d6: 1–3 nobody, 4–5 a henchman and a civvie beside it, "
        "6 the same and roll again.",
    ),
    limits=(
        "A hero moves up to its Movement A.P. in squares; figures never block and may share "
        "a square. Stepping from a street onto a rooftop is a climb: a roll-off + E of 13 "
        "or more, each try 1 Movement A.P.",
        "A close-combat hero reaches the 3 squares in front of it and its own square; a "
        "ranged hero also an enemy 2 squares straight ahead. It faces its last step, or a "
        "face order.",
        "Each general action costs 1 General A.P.: save a civvie in base contact (same or "
        "adjacent square), capture your own Nemesis at 0 Vitality (roll-off + P higher than "
        "13), search (roll-off + P, 13 or more flips an item card), climb at −2.",
        "Strikes: moving before attacking −1, striking from behind +1, ranged from or to a "
        "rooftop −3.",
        "A hero at 0 Vitality goes back to its start corner with full Vitality and misses "
        "its next round.",
    ),
    scene=scene,
)
