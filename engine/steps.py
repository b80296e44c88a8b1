"""Running one step of a game: the single path from inputs to a recorded result.

Step 1 is setup; step r+1 resolves round r (docs/dice-spec.md, "Steps"). The service calls these
to play; replay and `dicepost verify` call the very same functions to check a record,
so there is exactly one way a state is ever produced.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.contract import JSON, ForceError, PlayerId, RulesError, Ruleset
from engine.dice import PROFILE_V2, PROFILE_V3, Dice, state_hash
from engine.registry import find_ruleset


@dataclass(frozen=True)
class StepResult:
    t: int
    inputs: JSON
    state: JSON  # the ruleset's dump of the new state
    state_hash: str
    events: list[JSON]
    rolls: list[JSON]
    outcome: JSON | None
    expected: list[PlayerId]
    round: int

    def summary(self) -> JSON:
        """What a record keeps of a step besides the revealed key."""
        return {
            "t": self.t,
            "inputs": self.inputs,
            "state_hash": self.state_hash,
            "events": self.events,
            "rolls": self.rolls,
        }


def setup_inputs(
    ruleset_id: str,
    options: Mapping[str, Any],
    players: Sequence[PlayerId],
    forces: Mapping[PlayerId, Mapping[str, Any]],
    revision: int,
) -> JSON:
    """The setup document: the inputs of step 1. It names the rules revision the game
    plays under: step 1's dice bind it, and every later step is replayed under it."""
    return {
        "ruleset": ruleset_id,
        "revision": revision,
        "options": dict(options),
        "players": list(players),
        "forces": {p: dict(forces[p]) for p in players},
    }


def setup_revision(inputs: Mapping[str, Any]) -> int:
    """The rules revision a setup document names: 1 for one written before rulesets had
    revisions (no `revision` field); RulesError for anything but a whole number from 1."""
    value = inputs.get("revision", 1)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise RulesError(f"the setup's revision must be a whole number from 1, not {value!r}")
    return value


def round_inputs(players: Sequence[PlayerId], texts: Mapping[PlayerId, str]) -> JSON:
    """The inputs of a round step: every seated player → accepted text ("" if none)."""
    return {p: texts.get(p, "") for p in players}


def canonical_input(ruleset: Ruleset[Any], state: Any, player: PlayerId, text: str,
                    profile: str = PROFILE_V2) -> str:
    """The one text that stands for a player's orders: parse, then format, so no respelling
    reaches the dice; no orders (nothing, or `pass`) is "". Under dicepost-dice/v3 the lines
    are also sorted, stably, by the ruleset's `reading_key`, so no two orderings of lines
    that the rules read alike give two texts (docs/dice-spec.md, v3).

    Raises OrderErrors when the text does not parse against `state`.
    """
    if not text.strip():
        return ""
    orders = ruleset.parse_orders(state, player, text)
    if profile == PROFILE_V3:
        orders = sorted(orders, key=lambda o: ruleset.reading_key(state, player, o))
    return "\n".join(o.format() for o in orders)


def _finish(ruleset: Ruleset[Any], t: int, inputs: JSON, state: Any, events: list[JSON],
            dice: Dice) -> StepResult:
    data = ruleset.dump(state)
    outcome = ruleset.outcome(state)
    return StepResult(
        t=t,
        inputs=inputs,
        state=data,
        state_hash=state_hash(data),
        events=events,
        rolls=[r.to_json() for r in dice.rolls],
        outcome=outcome.to_json() if outcome else None,
        expected=[] if outcome else ruleset.expected(state),
        round=ruleset.round_number(state),
    )


def run_setup(inputs: JSON, dice: Dice) -> StepResult:
    """Step 1: check every force, then let the ruleset, at the setup's revision, set up
    the board."""
    ruleset = find_ruleset(str(inputs["ruleset"]), setup_revision(inputs))
    options = ruleset.options(inputs.get("options", {}))
    players = [str(p) for p in inputs["players"]]
    forces = inputs["forces"]
    for p in players:
        reasons = ruleset.validate_force(forces[p], options)
        if reasons:
            raise ForceError(p, reasons)
    state = ruleset.setup(players, forces, options, dice)
    events = [{"kind": "setup", "text": "The game is set up.", "data": {}}]
    return _finish(ruleset, 1, inputs, state, events, dice)


def run_round(ruleset_id: str, state_json: Mapping[str, Any], inputs: Mapping[PlayerId, str],
              t: int, dice: Dice, *, revision: int) -> StepResult:
    """Step t = round t-1 under the game's rules revision: parse each player's accepted
    text against the state, resolve.

    Texts were accepted against this same state, so they parse; an OrderErrors here
    means a record was tampered with, and it propagates.
    """
    ruleset = find_ruleset(ruleset_id, revision)
    state = ruleset.load(state_json)
    orders = {p: ruleset.parse_orders(state, p, text) for p, text in inputs.items() if text}
    res = ruleset.resolve(state, orders, dice)
    events = [e.to_json() for e in res.events]
    return _finish(ruleset, t, dict(inputs), res.state, events, dice)
