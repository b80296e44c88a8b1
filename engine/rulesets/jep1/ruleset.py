"""The jep1 ruleset: the JEP1 combat system (docs/rulesets/jep1.md) on dicepost's grid.

This class only wires the contract to the modules that hold the rules; see
docs/rulesets/jep1.md for how to play and every reading of the seed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

from engine.contract import (
    COMMON_OPTIONS,
    JSON,
    Board,
    Options,
    OptionSpec,
    PlayerId,
    Resolution,
    Revision,
    RulesetInfo,
)
from engine.dice import Dice
from engine.forcespec import ForceCost, ForceSpec
from engine.orders import Order, OrderProblem, Verb
from engine.rulesets.jep1 import bot, forces, legal, orders, progress
from engine.rulesets.jep1.board import EVENTS as board_events
from engine.rulesets.jep1.board import board
from engine.rulesets.jep1.costs import unit_cost
from engine.rulesets.jep1.initiative import first_round_order, keep_roll_offs
from engine.rulesets.jep1.resolve import resolve_round
from engine.rulesets.jep1.skills import SKILLS
from engine.rulesets.jep1.state import JepState
from engine.rulesets.jep1.teaching import TEACHING
from engine.rulesets.jep1.terrain import place_walls
from engine.turns import StandingRuleset, StandingWords

JEP1_OPTIONS: tuple[OptionSpec, ...] = (
    *COMMON_OPTIONS,
    OptionSpec("points", 300, "points budget of each force (see the cost table)", minimum=10, maximum=5000),
    OptionSpec("ties_block", False,
               "a defence value equal to an attack value blocks it (the seed's example); "
               "off: attack >= defence is a hit (the seed's rule text)", kind="bool"),
    OptionSpec("walls", 0, "wall squares placed by dice between the sides at setup (block movement "
               "and sight)", minimum=0, maximum=60),
    OptionSpec("ranged_strikes_back", False,
               "a unit that is shot and lives shoots back if it can", kind="bool"),
)


class Jep1Ruleset(StandingRuleset[JepState]):
    info: ClassVar[RulesetInfo] = RulesetInfo(
        id="jep1",
        title="JEP1 combat system",
        min_players=2,
        max_players=2,
        summary="Skirmish with initiative, melee and ranged dice pools, blocks, toughness, "
                "armor and skills; each melee attack is answered by a strike back.",
        options=JEP1_OPTIONS,
        seed="JEP1: Combat System Blue Print",
        glossary=(
            ("I", "Initiative: who acts first, and the defence dice against shots"),
            ("M", "Melee: attack and defence dice in close combat"),
            ("R", "Range: attack dice of a shot"),
            ("S", "Strength: added to each damage die"),
            ("T", "Toughness: a damage die plus S must reach it to wound"),
            ("A", "Armor: takes 1 off the damage for each point"),
            ("H", "Health: wounds take it; at 0 the unit is dead"),
            ("reach", "how far the unit's weapon shoots, in squares"),
            ("skills", "what the unit may add to an exchange, each with the uses it has left"),
            *((k.name, f"{k.text.rstrip('.')} ({k.phase} {k.side} skill, {k.uses} uses a game; "
                       "the number after it is the uses left)") for k in SKILLS.values()),
            ("acts", "its place in the order of action (#1 acts first)"),
            *((name, f"a roster unit: {entry['text'].rstrip('.')}") for name, entry in forces.ROSTER.items()),
        ),
        events=board_events,
        # A change to what setup, the order parser or resolve does is a new revision here
        # (docs/rulesets/AUTHORING.md, "Revisions"), with a golden record in tests/golden/.
        teaching=TEACHING,
        revisions=(Revision(1, (
            "The rules as first played here: initiative, melee and ranged dice pools, blocks, "
            "toughness, armor and skills, with a strike back for every melee attack.",
        )),),
    )
    verbs: ClassVar[tuple[Verb, ...]] = orders.VERBS
    words: ClassVar[StandingWords] = progress.WORDS

    def force_spec(self, options: Options) -> ForceSpec:
        return forces.force_spec(self.options(options))

    def validate_force(self, force: Mapping[str, Any], options: Options) -> list[str]:
        return forces.validate_force(force, self.options(options))

    def force_cost(self, force: Mapping[str, Any], options: Options) -> ForceCost | None:
        options = self.options(options)
        lines, _ = forces.force_lines(force, options)
        if not lines:
            return None
        total = sum(unit_cost(stats, skills) for _, stats, skills in lines)
        return ForceCost(str(total), str(options["points"]), total > int(options["points"]))

    def default_force(self, seat: int, options: Options) -> JSON:
        return forces.default_force()

    def setup(self, players: Sequence[PlayerId], forces_by_player: Mapping[PlayerId, Mapping[str, Any]],
              options: Options, dice: Dice) -> JepState:
        opts = self.options(options)
        units = [u for seat, p in enumerate(players)
                 for u in forces.build_units(seat, p, forces_by_player[p], opts)]
        width, height = int(opts["width"]), int(opts["height"])
        walls = place_walls(int(opts["walls"]), width, height, forces.DEPLOY_ROWS, dice)
        first = first_round_order(units, dice)
        keep_roll_offs(units, dice)
        return JepState(opts, list(players), units, 1, first, [], walls)

    def seats(self, state: JepState) -> list[PlayerId]:
        return state.players

    def players_in(self, state: JepState) -> list[PlayerId]:
        return state.alive_players()

    def legal_orders(self, state: JepState, player: PlayerId) -> dict[str, list[Order]]:
        return legal.legal_orders(state, player)

    def check_order(self, state: JepState, player: PlayerId, order: Order) -> str | None:
        return orders.check_order(state, player, order)

    def order_checker(self, state: JepState, player: PlayerId) -> Callable[[Order], str | None]:
        """check_order, with whether the player moves this round worked out once a text."""
        expecting = player in self.expected(state)
        return lambda o: orders.check_order(state, player, o, expecting)

    def check_order_set(self, state: JepState, player: PlayerId,
                        given: Sequence[Order]) -> list[OrderProblem]:
        return orders.check_order_set(state, player, given)

    def reading_key(self, state: JepState, player: PlayerId, order: Order) -> tuple[int | str, ...]:
        """Units act in the order of action and "the move always comes before the attack,
        whatever the line order" (docs/rulesets/jep1.md): a unit has one line of each kind,
        so by unit, then verb."""
        return (order.unit or "", order.verb)

    def resolve(self, state: JepState, given: Mapping[PlayerId, Sequence[Order]],
                dice: Dice) -> Resolution[JepState]:
        return resolve_round(state, given, dice)

    def board(self, state: JepState) -> Board:
        return board(state)

    def dump(self, state: JepState) -> JSON:
        return state.to_json()

    def load(self, data: Mapping[str, Any]) -> JepState:
        return JepState.from_json(dict(data))

    def bot_orders(self, state: JepState, player: PlayerId, dice: Dice) -> list[Order] | None:
        return bot.bot_orders(state, player, dice)
