"""One round: each hero's turn in turn order, then the game's figures, then the end-of-round
rolls.

Seed, Game Turns: "1. (*) Action phase: This is skipped the first turn of the game.
2. Movement phase ... 3. Combat phase: If you're in your or another's Hero's combat range
combat must be initiated. Attack as many times as you have General A.P. 4. General Action
phase: If you're not in combat, you can use any leftover General A.P.. 5. At the end of
the last player's turn, perform a Henchmen & Civvies roll."

In turn mode alternating an engine round is one seat's turn (state.actor()), and the
henchmen, nemeses and end-of-round rolls come after the last seat of the cycle.

Orders are read in that phase order whatever their line order; general actions keep
their line order. An order that no longer fits when its phase comes is skipped with an
event saying why (docs/rulesets/heroes.md, Common to all).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from engine.contract import Event
from engine.dice import Dice
from engine.grid import parse_square
from engine.orders import Order
from engine.rulesets.heroes import general_actions, movement, star_actions
from engine.rulesets.heroes.engagement import fight, in_combat, resting
from engine.rulesets.heroes.npc import npc_phase
from engine.rulesets.heroes.paths import is_climb
from engine.rulesets.heroes.runaway import run_away
from engine.rulesets.heroes.spawning import henchmen_and_civvies_roll, nemesis_entries
from engine.rulesets.heroes.state import Figure, HeroesState

GENERAL_VERBS = ("save", "capture", "search", "climb")


@dataclass
class SaveClaims:
    """The round's save orders, for "If two Heroes are trying to save the same Civvi, Roll
    Off": the contest is rolled when the first claimant's save comes, and every hero in it
    pays its General A.P. then (docs/rulesets/heroes.md: "each contestant spends its General A.P., win or
    lose"), so a rival's own save line later costs nothing more."""
    saves: dict[str, list[str]] = field(default_factory=dict)  # civvie → heroes ordering it
    paid: dict[str, list[str]] = field(default_factory=dict)  # hero → civvies it contested
    done: set[str] = field(default_factory=set)  # heroes whose turn is over this round

    def spent(self, hero: str) -> int:
        return len(self.paid.get(hero, ()))


def resolve_round(state: HeroesState, orders: Mapping[str, Sequence[Order]], dice: Dice) -> list[Event]:
    """Play the round in place on `state` (a copy the caller owns)."""
    events: list[Event] = []
    state.marks = []
    actor = state.actor()
    claims = SaveClaims()
    for player_orders in orders.values():
        for o in player_orders:
            if o.verb == "save" and o.unit:
                claims.saves.setdefault(o.args[0], []).append(o.unit)
    for player in state.order:
        hero = state.hero_of(player)
        if hero is not None and actor in (None, player):
            hero_turn(state, hero, orders.get(player, ()), claims, dice, events)
            claims.done.add(hero.id)
        if state.winner is not None:
            break
    if state.winner is None and state.ends_game_turn():
        villain_orders: dict[str, list[Order]] = {}
        if state.villain is not None:
            for o in orders.get(state.villain, ()):
                villain_orders.setdefault(o.unit or "", []).append(o)
        npc_phase(state, villain_orders, dice, events)
        for f in state.figures.values():
            f.reduced.clear()
        nemesis_entries(state, events, state.game_turn() + 1)
        henchmen_and_civvies_roll(state, dice, events)
    for f in state.figures.values():
        f.effects.clear()
    events.append(standings(state))
    state.round += 1
    return events


def standings(state: HeroesState) -> Event:
    """The race so far, for results pages and mails: civvies saved and nemeses captured."""
    heroes = [state.figures[state.heroes[p]] for p in state.order]
    parts = [f"{h.id} ({h.owner}) {h.saved}" + (" + nemesis captured" if h.captured else "")
             for h in heroes]
    return Event("standings", "Civvies saved: " + ", ".join(parts) + ".",
                 {"saved": {h.id: h.saved for h in heroes},
                  "captured": [h.id for h in heroes if h.captured]})


def hero_turn(state: HeroesState, hero: Figure, orders: Sequence[Order], claims: SaveClaims,
              dice: Dice, events: list[Event]) -> None:
    if resting(state, hero):
        events.append(Event("rest", f"{hero.id} is recovering from a knock-out and misses its "
                            f"turn in round {state.round}.", {"unit": hero.id}))
        return
    hero.effects.clear()
    by: dict[str, list[Order]] = {}
    for o in orders:
        by.setdefault(o.verb, []).append(o)
    for o in by.get("reroll", []):
        hero.policy = o.args[0]
    for o in by.get("action", [])[:1]:
        star_actions.perform(state, hero, o.args[0], o.args[1] if len(o.args) > 1 else None, events)
    moved = False
    flying = "flight" in hero.effects
    for o in by.get("move", [])[:1]:
        moved = movement.move_order(state, hero, list(o.args), flying, dice, events)
    for o in by.get("face", [])[:1]:
        hero.facing = o.args[0]
        events.append(Event("face", f"{hero.id} faces {hero.facing}.", {"unit": hero.id}))
    general = hero.spec.general_ap - claims.spent(hero.id)
    ran = False
    for o in by.get("run", [])[:1]:
        ran = run_away(state, hero, parse_square(o.args[0]) if o.args else None, dice, events)
        if resting(state, hero):
            return  # knocked out by the free strike
    if not ran:
        preferred = [a for o in by.get("attack", []) for a in o.args]
        general = fight(state, hero, preferred, general, moved, dice, events)
    for o in orders:
        if o.verb not in GENERAL_VERBS or state.winner is not None:
            continue
        if o.verb == "save" and o.args[0] in claims.paid.get(hero.id, ()):
            events.append(Event("skip", f"{o.format()}: done, {hero.id} spent its General A.P. "
                                f"in the contest for {o.args[0]} earlier this round.",
                                {"unit": hero.id}))
            continue
        if general <= 0:
            events.append(Event("skip", f"{o.format()}: skipped, no General A.P. left.",
                                {"unit": hero.id}))
            continue
        if in_combat(state, hero):
            events.append(Event("skip", f"{o.format()}: skipped, {hero.id} is in combat.",
                                {"unit": hero.id}))
            continue
        if general_action(state, hero, o, claims, dice, events):
            general -= 1


def general_action(state: HeroesState, hero: Figure, o: Order, claims: SaveClaims,
                   dice: Dice, events: list[Event]) -> bool:
    """Carry out one general action; False (no A.P. spent) when it no longer fits."""
    problem = None
    if o.verb == "search":
        general_actions.search(state, hero, dice, events)
        return True
    if o.verb == "climb":
        to = parse_square(o.args[0])
        if hero.square in state.roofs or not is_climb(state, hero.square, to) \
                or not general_actions.in_contact(hero.square, to):
            problem = f"{o.args[0]} is not a rooftop next to {hero.id}'s street square"
        else:
            general_actions.climb_action(state, hero, to, dice, events)
            return True
    target = state.figures.get(o.args[0]) if o.args else None
    if o.verb == "save":
        if target is None or target.kind != "civvie":
            problem = f"civvie {o.args[0]} is no longer on the board"
        elif not general_actions.in_contact(hero.square, target.square):
            problem = f"{hero.id} is not in base contact with {target.id}"
        else:
            rivals = _rivals(state, hero, target, claims)
            for r in rivals:
                claims.paid.setdefault(r.id, []).append(target.id)
            general_actions.save_civvie(state, hero, target, rivals, dice, events)
            return True
    if o.verb == "capture":
        if target is None or target.kind != "nemesis" or target.owner != hero.owner:
            problem = f"{o.args[0]} is not {hero.id}'s nemesis on the board"
        elif target.vitality > 0:
            problem = f"{target.id} still has {target.vitality} Vitality"
        elif not general_actions.in_contact(hero.square, target.square):
            problem = f"{hero.id} is not in base contact with {target.id}"
        else:
            general_actions.capture(state, hero, target, dice, events)
            return True
    events.append(Event("skip", f"{o.format()}: skipped, {problem}.", {"unit": hero.id}))
    return False


def _rivals(state: HeroesState, hero: Figure, civvie: Figure, claims: SaveClaims) -> list[Figure]:
    """Heroes still to act who ordered the same save and could make it now: in base
    contact, not knocked out, with General A.P. left, and not in combat ("If you're not in
    combat, you can use any leftover General A.P.")."""
    out = []
    for rid in claims.saves.get(civvie.id, []):
        r = state.figures.get(rid)
        if r is None or rid == hero.id or rid in claims.done or resting(state, r):
            continue
        if r.spec.general_ap - claims.spent(rid) <= 0 or in_combat(state, r):
            continue
        if general_actions.in_contact(r.square, civvie.square):
            out.append(r)
    return out
