"""What a newcomer needs before their first order: how a ruleset is won, what happens in a
round, how far units go and what they may attack, and one round worked out with dice.

A ruleset declares it once (`RulesetInfo.teaching`); the rules page and the HELP mail
both read it. The worked example is not written out by hand: it is a tiny position
played through the ruleset's own `parse_orders` and `resolve` with scripted dice, so its
numbers are always those the engine gives.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from engine.dice import ScriptedDice

if TYPE_CHECKING:
    from engine.contract import Board, Ruleset


@dataclass(frozen=True)
class Scene:
    """A worked example's input: the position (a state of the ruleset), what it shows in
    words, each player's orders and the faces the dice will show, in the order rolled."""

    state: Any
    setting: str  # the position in words: who stands where, with which stats
    orders: Mapping[str, str]  # player → order text
    faces: tuple[int, ...]
    moral: str = ""  # what the round shows, in one sentence without numbers


@dataclass(frozen=True)
class WorkedExample:
    """A round played: the orders, every die with its label, and what happened."""

    setting: str
    orders: tuple[tuple[str, str], ...]  # (player, one order line)
    dice: tuple[tuple[str, int], ...]  # (who rolled for what, face)
    events: tuple[str, ...]
    moral: str
    before: Board | None = None  # the position, and the board the round left
    after: Board | None = None


@dataclass(frozen=True)
class Teaching:
    """The short course of one ruleset, in a player's words."""

    win: str
    sequence: tuple[str, ...]  # a round, step by step
    limits: tuple[str, ...]  # movement and attack limits, one sentence each
    # Builds the worked example's position for the ruleset instance given (so no module
    # imports its own ruleset class), or None for none.
    scene: Callable[[Ruleset[Any]], Scene] | None = None

    def example(self, rules: Ruleset[Any]) -> WorkedExample | None:
        return None if self.scene is None else play_scene(rules, self.scene(rules))


class ExampleDrift(RuntimeError):
    """A worked example whose scripted dice no longer fit the rules it plays (too few
    faces, or some left over): its scene must be written again for these rules."""


def play_scene(rules: Ruleset[Any], scene: Scene) -> WorkedExample:
    """Resolve the scene's orders with exactly its faces: a face left over, or one too few,
    is an ExampleDrift, so an example never shows dice the rules did not roll."""
    parsed = {p: rules.parse_orders(scene.state, p, text) for p, text in scene.orders.items()}
    dice = ScriptedDice(scene.faces)
    try:
        res = rules.resolve(scene.state, parsed, dice)
    except Exception as exc:  # DiceExhausted and any refusal alike: the scene is wrong
        raise ExampleDrift(f"{rules.info.id}: the worked example no longer resolves: {exc}") from exc
    if dice.unused:
        raise ExampleDrift(f"{rules.info.id}: the worked example leaves faces unrolled: {dice.unused}")
    orders = tuple((p, line.strip()) for p, text in scene.orders.items()
                   for line in text.splitlines() if line.strip())
    return WorkedExample(scene.setting, orders, tuple((r.label, r.face) for r in res.rolls),
                         tuple(e.text for e in res.events if e.text), scene.moral,
                         rules.board(scene.state), rules.board(res.state))
