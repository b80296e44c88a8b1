"""Missed turns ("no moves received"): what happens to a seat that let a deadline pass.

Default: its units hold. A game may set, after K consecutive misses (the current one
included):
  extend  - the round's deadline moves once by `extend_by`; a second miss of the same
            round holds (so a round is extended at most once, whoever caused it);
  bot     - the seat is handed to the engine's bot, which writes its orders from the next
            round on (the missed round holds, as for every miss) until the player sends
            orders of their own, which take the seat back, or the GM seats a person;
  replace - the seat is opened for a replacement: an invitation goes out by mail and the
            newcomer takes over the seat and its units; until then the units hold.
With `unreachable_after`, a seat whose mail bounces (service.inbound.bounces: it gets no
reminders and no results, so waiting K rounds for it waits for nothing) gets the action
after that many misses instead. A seat that submits resets its count to zero. Seats
already played by the bot or waiting for a replacement are not counted as missing.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Literal

from service.schedule.policy import NmrPolicy

SeatAction = Literal["hold", "bot", "replace"]


@dataclass(frozen=True)
class MissedTurnPlan:
    """What a due round does: either extend (resolve nothing now) or resolve with these actions."""

    extend: bool = False
    actions: Mapping[str, SeatAction] = field(default_factory=dict)

    def seats(self, action: SeatAction) -> list[str]:
        return sorted(s for s, a in self.actions.items() if a == action)


def seat_action(policy: NmrPolicy, misses: int, unreachable: bool = False) -> SeatAction | Literal["extend"]:
    """The action for one seat missing its `misses`-th consecutive round (this one counted);
    `unreachable`: mail to the seat bounces."""
    after = policy.unreachable_after if unreachable and policy.unreachable_after is not None else policy.after
    if misses < after or policy.action == "hold":
        return "hold"
    return policy.action


def plan_missed_turns(policy: NmrPolicy, missing: Mapping[str, int], round_extended: bool,
                      unreachable: Collection[str] = ()) -> MissedTurnPlan:
    """missing: seat -> consecutive misses before this round; unreachable: the seats whose
    mail bounces. The round is extended when any seat's action is 'extend' and it has not
    been extended yet; otherwise every missing seat gets its action ('extend' seats hold)."""
    chosen = {seat: seat_action(policy, prior + 1, seat in unreachable) for seat, prior in missing.items()}
    if not round_extended and "extend" in chosen.values():
        return MissedTurnPlan(extend=True)
    actions: dict[str, SeatAction] = {
        seat: ("hold" if action == "extend" else action) for seat, action in chosen.items()}
    return MissedTurnPlan(actions=actions)


def next_misses(prior: Mapping[str, int], submitted: set[str], missing: set[str]) -> dict[str, int]:
    """Counts after a round resolves: submitters reset to 0, the missing add one."""
    out = dict(prior)
    for seat in submitted:
        out[seat] = 0
    for seat in missing:
        out[seat] = prior.get(seat, 0) + 1
    return out
