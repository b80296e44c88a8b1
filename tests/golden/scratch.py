"""A scratch copy of a ruleset whose rules a test may change: universal under its own id,
and the same rule change made two ways, in place and as revision 2."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import replace
from typing import Any, ClassVar

from engine.contract import PlayerId, Resolution, Revision, Ruleset, RulesetInfo
from engine.dice import Dice
from engine.grid import distance, parse_square
from engine.orders import Order
from engine.registry import register, unregister
from engine.rulesets.universal import UniversalRuleset
from engine.rulesets.universal.state import State

SCRATCH = "scratch-universal"
MORALE = "Each round opens with a morale die (a d6 that decides nothing yet)."
ONE_SQUARE = "A unit moves at most one square a round."
TOO_FAR = "a unit moves at most one square a round (since revision 2)"


class Scratch(UniversalRuleset):
    """universal, under another id."""

    info: ClassVar[RulesetInfo] = replace(UniversalRuleset.info, id=SCRATCH, title="Scratch skirmish")


class MoraleInPlace(Scratch):
    """A rule changed in place, without a new revision: every round now rolls a morale die
    first, so every later die of the round is another one."""

    def resolve(self, state: State, orders: Mapping[PlayerId, Sequence[Order]],
                dice: Dice) -> Resolution[State]:
        dice.roll(6, "morale")
        return super().resolve(state, orders, dice)


class MoraleRevised(Scratch):
    """The same change as revision 2, the way AUTHORING.md says: the revision listed with its
    changes in words, the code branching on `self.revision`, revision 1 unchanged. Revision 2
    also changes the orders a unit may be given, so the legal orders and the parser differ."""

    info: ClassVar[RulesetInfo] = replace(
        Scratch.info, revisions=(*Scratch.info.revisions, Revision(2, (MORALE, ONE_SQUARE))))

    def resolve(self, state: State, orders: Mapping[PlayerId, Sequence[Order]],
                dice: Dice) -> Resolution[State]:
        if self.revision >= 2:
            dice.roll(6, "morale")
        return super().resolve(state, orders, dice)

    def _too_far(self, state: State) -> Callable[[Order], bool]:
        at = {p.id: parse_square(p.square) for p in self.board(state).pieces}
        return lambda order: (order.role == "move" and order.unit in at and order.square is not None
                              and distance(at[order.unit], parse_square(order.square)) > 1)

    def legal_orders(self, state: State, player: str) -> dict[str, list[Order]]:
        legal = super().legal_orders(state, player)
        if self.revision < 2:
            return legal
        too_far = self._too_far(state)
        return {unit: [o for o in orders if not too_far(o)] for unit, orders in legal.items()}

    def order_checker(self, state: State, player: str) -> Callable[[Order], str | None]:
        judge = super().order_checker(state, player)
        if self.revision < 2:
            return judge
        too_far = self._too_far(state)
        return lambda order: TOO_FAR if too_far(order) else judge(order)


@contextmanager
def registered(ruleset: Ruleset[Any]) -> Iterator[Ruleset[Any]]:
    """The ruleset findable by its id for the length of a test."""
    register(ruleset)
    try:
        yield ruleset
    finally:
        unregister(ruleset.info.id)
