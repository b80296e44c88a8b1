"""The `universal` ruleset (docs/rulesets/universal.md): the contract's entry points, wired to the modules
that hold each rule (forces, setup, movement, combat, orders, resolve, bot)."""

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
from engine.orders import Order, Verb
from engine.turns import StandingRuleset, StandingWords

from . import forces
from .board import EVENTS as board_events
from .board import board
from .bot import greedy_orders
from .house import EFFECTS, check_option, type_table
from .orders import VERBS, OrderPlan, check_order, legal_orders
from .resolve import resolve_round
from .setup import place
from .state import State
from .teaching import TEACHING

UNIVERSAL_OPTIONS: tuple[OptionSpec, ...] = (
    *COMMON_OPTIONS,
    OptionSpec("budget", 20, "army points each player may spend (point-buy, seed step 3)",
               minimum=1, maximum=1000),
    OptionSpec("mortar_max_range", 0, "farthest a Mortar can hit, in squares (0: no limit)",
               minimum=0, maximum=100),
    OptionSpec("unit_types", [], "the game's own unit types (house rules): a list of "
               '{"name": ..., "cost": whole points on top of the type slot, "effects": {...}}; '
               f"effects: {', '.join(EFFECTS)} (docs/rulesets/universal.md)", kind="json",
               check=check_option),
    OptionSpec("terrain", "open", "open: no terrain; ruins: a fixed layout of walls (blocking) "
               "and rough squares (1.5 to enter); scattered: walls and rough squares placed by "
               "the setup dice", kind="choice", choices=("open", "ruins", "scattered")),
)


class UniversalRuleset(StandingRuleset[State]):
    info: ClassVar[RulesetInfo] = RulesetInfo(
        id="universal",
        title="Universal skirmish",
        min_players=2,
        max_players=4,
        summary="Point-buy characters (EP/Pw/D) with Mortar, Runner, Support and Defender "
                "types; dice from adjacency, one attack per side a round, capture tokens.",
        options=UNIVERSAL_OPTIONS,
        seed="a little universal system (for a hypnosis game)",
        glossary=(
            ("EP/Pw/D", "a stat line, like 1/4/5: Endurance Points, Power, Defence"),
            ("EP", "Endurance Points: damage takes them; at 0 the character is defeated"),
            ("Pw", "Power: an attack rolls Pw - 1 dice, plus one for each character beside both"),
            ("D", "Defence: the attack's dice, highest first, must add up to it; every die left "
                  "over is 1 damage"),
            ("Mortar", "+3 Power; hits only enemies more than 3 squares away"),
            ("Runner", "moves farther"),
            ("Support", "may add its die to an attack beside it without touching the enemy, at -1"),
            ("Defender", "+2 defence for each enemy beside both it and its attacker"),
            ("token", "what a defeated character leaves for the side that beat it: 1/0/5, no types"),
        ),
        events=board_events,
        teaching=TEACHING,
        # A change to what setup, the order parser or resolve does is a new revision here
        # (docs/rulesets/AUTHORING.md, "Revisions"), with a golden record in tests/golden/.
        revisions=(Revision(1, (
            "The rules as first played here: point-buy characters, dice from adjacency, one "
            "attack per side a round and capture tokens.",
        )),),
    )
    verbs: ClassVar[tuple[Verb, ...]] = VERBS
    words: ClassVar[StandingWords] = StandingWords(
        last="{player} is the last side standing", none="no side is left standing",
        cap="the round limit of {max_rounds} was reached")

    def force_spec(self, options: Options) -> ForceSpec:
        return forces.force_spec(type_table(self.options(options)))

    def validate_force(self, force: Mapping[str, Any], options: Options) -> list[str]:
        return forces.validate_force(force, int(options.get("budget", 20)), type_table(options))

    def force_cost(self, force: Mapping[str, Any], options: Options) -> ForceCost | None:
        specs, reasons = forces.parse_force(force, type_table(options))
        if reasons:
            return None
        total, budget = sum(forces.unit_cost(s) for s in specs), int(options.get("budget", 20))
        return ForceCost(forces.points(total), str(budget), total > 2 * budget)

    def default_force(self, seat: int, options: Options) -> JSON:
        return forces.default_force()

    def entrants(self, options: Options) -> dict[str, JSON]:
        return forces.balance_armies()

    def setup(self, players: Sequence[str], forces_: Mapping[str, Mapping[str, Any]],
              options: Options, dice: Dice) -> State:
        return place(players, forces_, self.options(options), dice)

    def seats(self, state: State) -> list[PlayerId]:
        return state.seats

    def players_in(self, state: State) -> list[PlayerId]:
        return state.alive_sides

    def legal_orders(self, state: State, player: str) -> dict[str, list[Order]]:
        return legal_orders(state, player)

    def check_order(self, state: State, player: str, order: Order) -> str | None:
        return check_order(state, player, order)

    def order_checker(self, state: State, player: str) -> Callable[[Order], str | None]:
        """Each line is checked after the lines before it (OrderPlan), so every problem,
        clashes between lines included, is reported on its own line."""
        return OrderPlan(state, player).check

    def reading_key(self, state: State, player: str, order: Order) -> tuple[int | str, ...]:
        """"A side's orders act in the order they are written" (docs/rulesets/universal.md):
        moves and attacks keep the player's order; a hold only says so, after them by unit."""
        return (1, order.unit or "") if order.verb == "hold" else (0,)

    def resolve(self, state: State, orders: Mapping[str, Sequence[Order]], dice: Dice) -> Resolution[State]:
        new, events = resolve_round(state, orders, dice)
        return Resolution(new, events, list(dice.rolls))

    def board(self, state: State) -> Board:
        return board(state)

    def dump(self, state: State) -> JSON:
        return state.to_json()

    def load(self, data: Mapping[str, Any]) -> State:
        return State.from_json(data)

    def bot_orders(self, state: State, player: str, dice: Dice) -> list[Order] | None:
        return greedy_orders(state, player)
