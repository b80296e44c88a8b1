"""Who fights whom: enemies, reach, forced combat and choosing a target.

Heroes fight the game's figures (henchmen and nemeses); those fight heroes. Heroes never
fight each other: the seed's race is won by saving and capturing. Combat is forced
("If you're in your or another's Hero's combat range combat must be initiated. Attack as
many times as you have General A.P."): a figure with a foe in its reach attacks once per
General A.P.; a figure only reached by a foe turns to face it when that brings the foe
into its own reach, then attacks.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from engine.contract import Event
from engine.dice import Dice
from engine.rulesets.heroes.combat import attack, is_ranged
from engine.rulesets.heroes.facing import facing_towards, reach
from engine.rulesets.heroes.state import Figure, HeroesState


def resting(state: HeroesState, hero: Figure) -> bool:
    """A knocked-out hero is off healing until its missed round is over."""
    return hero.misses >= state.round


def foes_of(state: HeroesState, f: Figure) -> list[Figure]:
    if f.kind == "hero":
        return [g for g in state.figures.values() if g.kind in ("henchman", "nemesis") and g.active]
    return [h for h in state.figures.values() if h.kind == "hero" and not resting(state, h)]


def reaches(f: Figure, target: Figure) -> bool:
    return target.square in reach(f.square, f.facing, is_ranged(f))


def in_reach(state: HeroesState, f: Figure) -> list[Figure]:
    mine = reach(f.square, f.facing, is_ranged(f))  # reaches(f, g), f's reach worked out once
    return [g for g in foes_of(state, f) if g.square in mine]


def engaged(state: HeroesState, f: Figure) -> list[Figure]:
    """Foes in f's reach, or whose reach f is in: the one test of "in combat" (seed, Combat:
    "Check to see if you're in combat range or are in the combat range of an enemy"), used
    by the general actions, the save contest and running away alike."""
    return [g for g in foes_of(state, f) if reaches(f, g) or reaches(g, f)]


def in_combat(state: HeroesState, f: Figure) -> bool:
    return bool(engaged(state, f))


def face_a_threat(state: HeroesState, f: Figure) -> bool:
    """Turn towards a foe that reaches f when turning brings it into f's reach."""
    for g in sorted(foes_of(state, f), key=lambda g: g.id):
        if not reaches(g, f):
            continue
        turned = facing_towards(f.square, g.square, f.facing)
        if g.square in reach(f.square, turned, is_ranged(f)):
            f.facing = turned
            return True
    return False


def target_rank(f: Figure) -> Callable[[Figure], tuple[int, int, str]]:
    """Default pick: a figure's own rival first (a hero's nemesis, a nemesis's hero), then the
    weakest, then by id."""
    def key(g: Figure) -> tuple[int, int, str]:
        rival = f.owner is not None and g.owner == f.owner
        return (0 if rival else 1, g.vitality, g.id)
    return key


def fight(state: HeroesState, f: Figure, preferred: Sequence[str], attacks: int, moved: bool,
          dice: Dice, events: list[Event]) -> int:
    """Forced combat: one attack per General A.P. while a foe is in reach. Returns A.P. left."""
    while attacks > 0 and state.winner is None and f.active:
        targets = in_reach(state, f)
        if not targets and face_a_threat(state, f):
            events.append(Event("face", f"{f.id} turns {f.facing} to fight.", {"unit": f.id}))
            targets = in_reach(state, f)
        if not targets:
            break
        chosen = next((t for p in preferred for t in targets if t.id == p), None)
        target = chosen or min(targets, key=target_rank(f))
        attack(state, f, target, dice, events, moved)
        attacks -= 1
    return attacks
