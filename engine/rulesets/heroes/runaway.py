"""Running away from combat.

Seed: "Running away can only be initiated BEFORE combat has be started. ... Roll Off and
add your (E) stat to the Result. If this is higher than your enemy's Roll Off plus (P)
then you successfully run away. Immediately move your Movement A.P. out of the combat
range of your enemy. But beware! If you fail to run away, the enemy gets a free "Weak"
strike against you. ARM saves as usual."

Our reading: "your enemy" is the engaged foe with the highest P (then the lowest id);
the escape is a free move of up to Movement A.P. squares along the streets (rooftops too
when flying) to a square out of every foe's reach, the order's square if it is one, else
the one farthest from the foes. A successful runner skips combat; a failed one fights.
"""

from __future__ import annotations

from engine.contract import Event
from engine.dice import Dice
from engine.grid import Square, distance, square_name
from engine.rulesets.heroes import movement, paths
from engine.rulesets.heroes.combat import free_weak_strike, is_ranged
from engine.rulesets.heroes.engagement import engaged, foes_of
from engine.rulesets.heroes.facing import reach
from engine.rulesets.heroes.rolloff import contest_key, roll_off
from engine.rulesets.heroes.state import Figure, HeroesState


def run_away(state: HeroesState, hero: Figure, wanted: Square | None, dice: Dice,
             events: list[Event]) -> bool:
    """True when the hero got away."""
    foes = engaged(state, hero)
    if not foes:
        events.append(Event("skip", f"{hero.id} run: skipped, not in combat.", {"unit": hero.id}))
        return False
    enemy = min(foes, key=lambda g: (-g.stat("P"), g.id))
    mine = roll_off(dice, hero.stat("E"), f"{hero.id} run away", policy=hero.policy,
                    may_reroll="reroll" in hero.effects)
    theirs = roll_off(dice, enemy.stat("P"), f"{enemy.id} stops {hero.id} running")
    text = (f"{hero.id} tries to run from {enemy.id}: E {mine.describe()} against "
            f"P {theirs.describe()}")
    if contest_key(mine) <= contest_key(theirs):
        events.append(Event("run_failed", text + ": caught.", {"unit": hero.id, "enemy": enemy.id}))
        free_weak_strike(state, enemy, hero, dice, events)
        return False
    events.append(Event("run", text + ": gets away.", {"unit": hero.id, "enemy": enemy.id}))
    flying = "flight" in hero.effects
    found = paths.search(state, hero.square, paths.budget(hero.spec.move_ap),
                         streets_only=not flying, flying=flying)
    options = paths.steps(found)
    threats = foes_of(state, hero)

    def safe(sq: Square) -> bool:
        return all(sq not in reach(g.square, g.facing, is_ranged(g)) for g in threats)

    def away(sq: Square) -> tuple[int, int, int, int, int]:
        nearest = min((distance(sq, g.square) for g in threats), default=0)
        return (0 if safe(sq) else 1, -nearest, options[sq], sq.row, sq.col)

    dest = wanted if wanted in options and safe(wanted) else min(options, key=away)
    if wanted is not None and dest != wanted:
        events.append(Event("note", f"{hero.id} cannot get to safety on {square_name(wanted)}; "
                            f"runs to {square_name(dest)}.", {"unit": hero.id}))
    path = paths.route(found, dest)
    if path:
        movement.walk(state, hero, path, hero.spec.move_ap, flying, dice, events)
    return True
