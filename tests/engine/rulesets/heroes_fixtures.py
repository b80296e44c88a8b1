"""Small hand-built Heroes United positions for the rulebook tests (test_heroes*.py)."""

from __future__ import annotations

from typing import Any

from engine.contract import Event, Resolution
from engine.grid import parse_square
from engine.rulesets.heroes import HeroesRuleset
from engine.rulesets.heroes.cards import card
from engine.rulesets.heroes.decks import henchmen_deck, items_deck
from engine.rulesets.heroes.state import Figure, HeroesState
from tests.engine.rulesets.scripted import event_texts, resolve_scripted

RULES = HeroesRuleset()
NOBODY_COMES = [1, 1, 1, 1]  # the end-of-round d6 for the four quadrants: no spawns


def state(players: tuple[str, ...] = ("alice",), roofs: tuple[str, ...] = (), round: int = 2,
          villain: str | None = None, **options: Any) -> HeroesState:
    """An empty 12×12 city (no figures) waiting for round `round`."""
    opts = RULES.options({**options, "villain_player": villain is not None})
    heroes = [p for p in players if p != villain]
    return HeroesState(opts, list(players), {}, villain, heroes, round,
                       frozenset(parse_square(r) for r in roofs), {}, {},
                       list(range(len(henchmen_deck()))), [], list(items_deck()), [])


def hero(s: HeroesState, player: str, card_id: str, at: str, facing: str = "n",
         start: str = "a1", policy: str = "never") -> Figure:
    """A hero for `player`; policy never, so only a test that wants re-rolls gets them."""
    spec = card(card_id)
    fid = f"{spec.code}{s.seats.index(player) + 1}"
    f = Figure(fid, "hero", card_id, parse_square(at), facing, spec.vitality, owner=player,
               start=parse_square(start), policy=policy)
    s.figures[fid] = f
    s.heroes[player] = fid
    return f


def henchman(s: HeroesState, at: str, facing: str = "n", card_id: str = "thug",
             vitality: int | None = None) -> Figure:
    fid = s.new_id("H")
    f = Figure(fid, "henchman", card_id, parse_square(at), facing,
               card(card_id).vitality if vitality is None else vitality)
    s.figures[fid] = f
    return f


def nemesis(s: HeroesState, player: str, card_id: str, at: str, facing: str = "n",
            vitality: int | None = None) -> Figure:
    fid = f"N{s.seats.index(player) + 1}"
    f = Figure(fid, "nemesis", card_id, parse_square(at), facing,
               card(card_id).vitality if vitality is None else vitality, owner=player)
    s.figures[fid] = f
    return f


def civvie(s: HeroesState, at: str) -> Figure:
    f = Figure(s.new_id("C"), "civvie", "", parse_square(at))
    s.figures[f.id] = f
    return f


def play(s: HeroesState, orders: dict[str, str], faces: list[int]) -> Resolution[HeroesState]:
    """Parse each player's orders against s and resolve with exactly these faces."""
    return resolve_scripted(RULES, s, orders, faces)


def texts(events: list[Event], kind: str | None = None) -> list[str]:
    return event_texts(events, kind)
