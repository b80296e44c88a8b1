"""The (*) Action phase: a hero's card powers, with real effects.

Seed: "Each Hero has a (*) action ... These can be anything from Flying to adding extra
attacks, damage or even reducing a S.U.P.E.R. stat to 1!" and "This is skipped the first
turn of the game." One (*) action per hero per round. Uses come from the card (`uses`,
one unless the card says otherwise; null = unlimited). Effects last for the hero's turn,
a stat reduction until the end of the round (so it also weakens the henchmen's strikes).
"""

from __future__ import annotations

from engine.contract import Event, InvariantError
from engine.grid import distance
from engine.rulesets.heroes.cards import StarAction
from engine.rulesets.heroes.state import Figure, HeroesState

TURN_EFFECTS = {"flight": "flies this round: rooftops without climbing",
                "extra_attack": "has {v} more strike(s) per attack this round",
                "extra_damage": "does {v} more Dmg per strike this round",
                "reroll": "may re-roll the lowest die of every roll-off this round"}


def uses_left(hero: Figure, action: StarAction) -> int | None:
    """None when unlimited."""
    return None if action.uses is None else action.uses - hero.used.get(action.id, 0)


def why_not(state: HeroesState, hero: Figure, action_id: str) -> str | None:
    """Why this (*) action cannot be ordered now, or None."""
    action = hero.spec.action(action_id)
    if action is None:
        names = ", ".join(a.id for a in hero.spec.actions)
        return f"{hero.spec.name} has no (*) action {action_id!r}; theirs: {names}"
    if state.game_turn() <= 1:
        return "the (*) Action phase is skipped in the first turn of the game"
    left = uses_left(hero, action)
    if left is not None and left <= 0:
        return f"{action.name} is used up ({action.uses} use{'s' if action.uses != 1 else ''})"
    return None


def targets_for(state: HeroesState, hero: Figure, action: StarAction) -> list[Figure]:
    """Enemies a stat reduction may pick: active henchmen and nemeses within its reach."""
    return [f for f in state.figures.values()
            if f.kind in ("henchman", "nemesis") and f.active
            and distance(f.square, hero.square) <= action.reach]


def perform(state: HeroesState, hero: Figure, action_id: str, target_id: str | None,
            events: list[Event]) -> None:
    problem = why_not(state, hero, action_id)
    if problem:
        events.append(Event("skip", f"{hero.id} action {action_id}: skipped, {problem}.",
                            {"unit": hero.id}))
        return
    action = hero.spec.action(action_id)
    if action is None:
        raise InvariantError(f"{hero.id} has no action {action_id}")
    if action.effect == "reduce_stat":
        targets = targets_for(state, hero, action)
        chosen = [t for t in targets if t.id == target_id] if target_id else targets[:1]
        if not chosen:
            where = f"{target_id} is not" if target_id else "no henchman or nemesis is"
            events.append(Event("skip", f"{hero.id} {action.name}: skipped, {where} within "
                                f"{action.reach} squares.", {"unit": hero.id}))
            return
        target = chosen[0]
        if action.stat not in target.reduced:
            target.reduced.append(action.stat)
        text = f"{target.id}'s {action.stat} is 1 until the end of the round"
    elif action.effect == "heal":
        before = hero.vitality
        hero.vitality = min(hero.spec.vitality, hero.vitality + action.value)
        text = f"Vitality {before} → {hero.vitality}"
    else:
        hero.effects[action.effect] = hero.effects.get(action.effect, 0) + max(action.value, 1)
        text = f"{hero.id} " + TURN_EFFECTS[action.effect].format(v=action.value)
    hero.used[action.id] = hero.used.get(action.id, 0) + 1
    events.append(Event("action", f"{hero.id} uses (*) {action.name}: {text}.",
                        {"unit": hero.id, "action": action.id}))
