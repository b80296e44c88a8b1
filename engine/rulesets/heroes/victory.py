"""The race: "First to save 10 Civvies and capture their Nemesis wins the game."

The number of civvies is the option `civvies_to_win` (default 10, the seed's).
"""

from __future__ import annotations

from engine.contract import Event
from engine.rulesets.heroes.state import Figure, HeroesState


def check_victory(state: HeroesState, hero: Figure, events: list[Event]) -> None:
    """Ends the game the moment a hero has both: the first to get there wins."""
    if state.winner is not None or hero.owner is None:
        return
    target = int(state.options["civvies_to_win"])
    if hero.saved >= target and hero.captured:
        state.winner = hero.owner
        state.end_reason = (f"{hero.id} ({hero.spec.name}) saved {hero.saved} civvies and "
                            f"captured their Nemesis")
        events.append(Event("victory", f"{state.end_reason}: {hero.owner} wins!",
                            {"player": hero.owner, "unit": hero.id}))
