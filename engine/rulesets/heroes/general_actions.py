"""General Action phase: saving civvies, capturing your Nemesis, searching and climbing.

Each costs one General A.P. and is only open to a hero "not in combat" (seed, General
Action Phase). Base-to-base contact is the same square or an adjacent one.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.contract import Event
from engine.dice import Dice
from engine.grid import Square, direction_between, distance, square_name
from engine.rulesets.heroes.decks import items
from engine.rulesets.heroes.movement import climb
from engine.rulesets.heroes.rolloff import RollOff, contest_key, roll_off
from engine.rulesets.heroes.state import Figure, HeroesState
from engine.rulesets.heroes.victory import check_victory

CAPTURE_ABOVE = 13  # "If you're Total is higher than a 13, you've successfully captured"
SEARCH_TARGET = 13  # "On a total of 13 or greater you've found something."
CLIMB_ACTION_MODIFIER = -2  # "adds a -2 modifier to the Result"
MAX_TIE_ROLLS = 10  # ties are rolled again; after this many, turn order decides


def in_contact(a: Square, b: Square) -> bool:
    return distance(a, b) <= 1


def _roll(f: Figure, stat: str, label: str, dice: Dice, modifier: int = 0) -> RollOff:
    return roll_off(dice, f.stat(stat), label, modifier=modifier, policy=f.policy,
                    may_reroll="reroll" in f.effects)


def save_civvie(state: HeroesState, hero: Figure, civvie: Figure, rivals: Sequence[Figure],
                dice: Dice, events: list[Event]) -> None:
    """"Simply move into base to base contact with a Civvi and use a General Action Point.
    If two Heroes are trying to save the same Civvi, Roll Off and add your (P). Highest
    total saves the Civvi." rivals: other heroes who ordered the same save and are in
    contact now."""
    winner = hero
    if rivals:
        winner = contest([hero, *rivals], "P", f"save {civvie.id}", dice, events)
    del state.figures[civvie.id]
    winner.saved += 1
    events.append(Event("save", f"{winner.id} saves civvie {civvie.id} on {square_name(civvie.square)}"
                        f" ({winner.saved} saved).",
                        {"unit": winner.id, "civvie": civvie.id, "saved": winner.saved,
                         "player": winner.owner}))
    check_victory(state, winner, events)


def contest(contenders: list[Figure], stat: str, what: str, dice: Dice,
            events: list[Event]) -> Figure:
    """Roll-off + stat each, highest wins; the tied roll again (criticals negate each other)."""
    pool = list(contenders)
    for attempt in range(MAX_TIE_ROLLS):
        rolls = {f.id: _roll(f, stat, f"{f.id} {what} contest", dice) for f in pool}
        events.append(Event("contest", f"{what}: " + "; ".join(
            f"{f.id} {rolls[f.id].describe()}" for f in pool), {"round": attempt + 1}))
        best = max(contest_key(r) for r in rolls.values())
        pool = [f for f in pool if contest_key(rolls[f.id]) == best]
        if len(pool) == 1:
            break
    return pool[0]


def capture(state: HeroesState, hero: Figure, nemesis: Figure, dice: Dice,
            events: list[Event]) -> None:
    """"After a Nemesis has been brought to 0 Vitality, move into base to base contact and
    use a General Action Point. Roll Off and add your (P) stat. If you're Total is higher
    than a 13, you've successfully captured your Nemesis"."""
    roll = _roll(hero, "P", f"{hero.id} capture {nemesis.id}", dice)
    if roll.exceeds(CAPTURE_ABOVE):
        del state.figures[nemesis.id]
        hero.captured = True
        events.append(Event("capture", f"{hero.id} captures {nemesis.id} ({nemesis.spec.name}): "
                            f"{roll.describe()}, higher than 13. Brought to Justice!",
                            {"unit": hero.id, "nemesis": nemesis.id, "player": hero.owner}))
        check_victory(state, hero, events)
    else:
        events.append(Event("capture_failed", f"{hero.id} fails to capture {nemesis.id}: "
                            f"{roll.describe()}, not higher than 13.", {"unit": hero.id}))


def search(state: HeroesState, hero: Figure, dice: Dice, events: list[Event]) -> None:
    """"Roll Off and add your (P) stat. On a total of 13 or greater you've found something.
    Flip the top card of the item deck"."""
    roll = _roll(hero, "P", f"{hero.id} search", dice)
    if not roll.reaches(SEARCH_TARGET):
        events.append(Event("search", f"{hero.id} searches the streets: {roll.describe()}: "
                            "nothing.", {"unit": hero.id, "found": None}))
        return
    if not state.items_deck and state.items_discard:
        state.items_deck = dice.shuffle(state.items_discard, "items deck")
        state.items_discard = []
    if not state.items_deck:
        events.append(Event("search", f"{hero.id} would find something ({roll.describe()}), but "
                            "every item is in use.", {"unit": hero.id, "found": None}))
        return
    item = items()[state.items_deck.pop(0)]
    if item.effect == "heal":
        before = hero.vitality
        hero.vitality = min(hero.spec.vitality, hero.vitality + item.value)
        state.items_discard.append(item.id)
        got = f"Vitality {before} → {hero.vitality}"
    else:
        hero.items.append([item.id, item.uses])
        got = item.text
    events.append(Event("search", f"{hero.id} searches: {roll.describe()}: finds {item.name}. {got}",
                        {"unit": hero.id, "found": item.id}))


def climb_action(state: HeroesState, hero: Figure, to: Square, dice: Dice,
                 events: list[Event]) -> None:
    """"Climbing is exactly like moving on to a rooftop with the added difficulty that ...
    during the General Action phase adds a -2 modifier to the Result.\""""
    if climb(state, hero, to, dice, events, CLIMB_ACTION_MODIFIER):
        hero.facing = direction_between(hero.square, to) or hero.facing
        hero.square = to
