"""A bot that plays the race: save the nearest civvie, then beat and capture its Nemesis.

Good enough to finish games in self-play and benchmarks; it walks the streets (over the
rooftops only when the streets do not lead to its goal), faces where it is going, first
goes for a foe that holds it in combat out of its own reach, and spends leftover
General A.P. on searching. A
villain-player bot sends no orders, so the game's own henchman behaviour plays.
"""

from __future__ import annotations

from engine.grid import Square, direction_between, distance, square_name
from engine.orders import Order
from engine.rulesets.heroes import paths, star_actions
from engine.rulesets.heroes.combat import is_ranged
from engine.rulesets.heroes.engagement import foes_of, reaches, resting
from engine.rulesets.heroes.facing import facing_towards, reach
from engine.rulesets.heroes.orders import ACTION, ATTACK, CAPTURE, FACE, MOVE, SAVE, SEARCH
from engine.rulesets.heroes.state import Figure, HeroesState

COMBAT_EFFECTS = ("extra_attack", "extra_damage", "reroll")


def bot_orders(state: HeroesState, player: str) -> list[Order]:
    hero = state.hero_of(player)
    if hero is None or resting(state, hero):
        return []
    nemesis = state.nemesis_of(player)
    lines: list[Order | None] = []
    pinned = _pinned_by(state, hero)
    if pinned is not None:
        lines += _go_fight(state, hero, pinned)
    elif nemesis is not None and nemesis.vitality == 0:
        dest = _approach(state, hero, nemesis.square)
        lines.append(_move(hero, dest))
        lines += [CAPTURE.order(hero.id, nemesis.id)] * hero.spec.general_ap
    elif nemesis is not None and hero.saved >= _civvies_first(state):
        dest = _approach(state, hero, nemesis.square)
        lines.append(_move(hero, dest))
        lines.append(_face(hero, dest, nemesis.square))
        lines.append(ATTACK.order(hero.id, nemesis.id))
        if distance(hero.square, nemesis.square) <= hero.spec.move_ap + 1:
            lines += _combat_actions(state, hero, nemesis)
    else:
        lines += _save_nearest(state, hero)
    return [line for line in lines if line]


def _civvies_first(state: HeroesState) -> int:
    """Fight the Nemesis once it is out, unless the civvies are far from done."""
    return max(0, int(state.options["civvies_to_win"]) - 6)


def _save_nearest(state: HeroesState, hero: Figure) -> list[Order | None]:
    civvies = sorted(state.of_kind("civvie"), key=lambda c: (distance(c.square, hero.square), c.id))
    if not civvies:
        return [SEARCH.order(hero.id)] * hero.spec.general_ap
    goal = civvies[0]
    dest = _approach(state, hero, goal.square)
    lines = [_move(hero, dest), _face(hero, dest, goal.square)]
    in_contact = [c for c in civvies if distance(c.square, dest) <= 1][: hero.spec.general_ap]
    lines += [SAVE.order(hero.id, c.id) for c in in_contact]
    lines += [SEARCH.order(hero.id)] * (hero.spec.general_ap - len(in_contact))
    if hero.vitality <= 2:
        lines += [ACTION.order(hero.id, a.id) for a in hero.spec.actions
                  if a.effect == "heal" and star_actions.why_not(state, hero, a.id) is None][:1]
    return lines


def _combat_actions(state: HeroesState, hero: Figure, nemesis: Figure) -> list[Order | None]:
    for a in hero.spec.actions:
        if star_actions.why_not(state, hero, a.id) is not None:
            continue
        if a.effect in COMBAT_EFFECTS:
            return [ACTION.order(hero.id, a.id)]
        if a.effect == "reduce_stat" and distance(hero.square, nemesis.square) <= a.reach:
            return [ACTION.order(hero.id, a.id, nemesis.id)]
    return []


def _approach(state: HeroesState, hero: Figure, goal: Square) -> Square:
    """Where to move this round to get into contact with the goal: a street square in
    contact now if one is within Movement A.P. (fewest steps first); else the farthest
    square this round along the cheapest whole route to a square in contact, by the
    streets, or over the rooftops when the streets do not lead there. Never a local
    nearest square: one behind a rooftop block would keep the hero there for good."""
    ap = hero.spec.move_ap
    options = paths.steps(paths.search(state, hero.square, paths.budget(ap), streets_only=True))
    contact = [sq for sq in options if distance(sq, goal) <= 1]
    if contact:
        return min(contact, key=lambda sq: (options[sq], sq.row, sq.col))
    whole_city = paths.budget(state.width * state.height)
    for streets_only in (True, False):
        found = paths.search(state, hero.square, whole_city, streets_only=streets_only)
        ends = [sq for sq in found if distance(sq, goal) <= 1]
        if ends:
            end = min(ends, key=lambda sq: (found[sq][0], sq.row, sq.col))
            route = paths.route(found, end)
            return route[min(ap, len(route)) - 1] if route else hero.square
    return min(options, key=lambda sq: (distance(sq, goal), options[sq], sq.row, sq.col))


def _pinned_by(state: HeroesState, hero: Figure) -> Figure | None:
    """A foe whose reach the hero is in but which the hero cannot strike back from where it
    stands, even turned (a gunman two squares ahead): the hero is "in combat", so it can
    make no general action there, and combat will not free it. The nearest such foe."""
    ranged = is_ranged(hero)
    pinning = [g for g in foes_of(state, hero) if reaches(g, hero)
               and g.square not in reach(hero.square, facing_towards(hero.square, g.square,
                                                                     hero.facing), ranged)]
    return min(pinning, key=lambda g: (distance(g.square, hero.square), g.id), default=None)


def _go_fight(state: HeroesState, hero: Figure, foe: Figure) -> list[Order | None]:
    dest = _approach(state, hero, foe.square)
    return [_move(hero, dest), _face(hero, dest, foe.square), ATTACK.order(hero.id, foe.id)]


def _move(hero: Figure, dest: Square) -> Order | None:
    return None if dest == hero.square else MOVE.order(hero.id, square_name(dest))


def _face(hero: Figure, dest: Square, goal: Square) -> Order | None:
    d = direction_between(dest, goal)
    return FACE.order(hero.id, d) if d else None
