"""The `fivedice` ruleset: "Combat System with miniatures", as docs/rulesets/fivedice.md reads it."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from engine.contract import (
    COMMON_OPTIONS,
    JSON,
    Board,
    ForceError,
    Options,
    OptionSpec,
    PlayerId,
    Resolution,
    Revision,
    RulesetInfo,
    UnitId,
)
from engine.dice import Dice
from engine.forcespec import ForceCost, ForceSpec
from engine.orders import Order, OrderProblem
from engine.rulesets.fivedice import board as board_view
from engine.rulesets.fivedice.allocation import DEFAULT_POLICY
from engine.rulesets.fivedice.bot import bot_orders
from engine.rulesets.fivedice.forces import PRESETS, default_force, force_spec, read_force
from engine.rulesets.fivedice.gear import GEAR
from engine.rulesets.fivedice.legal import legal_orders
from engine.rulesets.fivedice.orders import VERBS, check_order, check_order_set
from engine.rulesets.fivedice.resolve import resolve_round
from engine.rulesets.fivedice.state import SIDE_LETTERS, GameState, Unit
from engine.rulesets.fivedice.teaching import TEACHING
from engine.rulesets.fivedice.terrain import MIN_SIDE, battlefield, deployment_zone
from engine.turns import StandingRuleset

# Grids of at least 6 × 6, so that every seat's deployment zone holds 4 units.
OPTIONS = (
    *(replace(o, minimum=MIN_SIDE) if o.name in ("width", "height") else o for o in COMMON_OPTIONS),
    OptionSpec("die", 6, "sides of each of the five dice", minimum=2, maximum=100),
    OptionSpec("points", 250, "points budget of each force (sheet cost table in the docs)",
               minimum=10, maximum=10_000),
    OptionSpec("map", "ruins", "ruins: a few walls and half-cover squares in the middle; open: none",
               kind="choice", choices=("ruins", "open")),
)


class FivediceRuleset(StandingRuleset[GameState]):
    info = RulesetInfo(
        id="fivedice",
        title="Combat System with miniatures",
        min_players=2,
        max_players=4,
        summary="Every unit rolls five dice a round and places them on attack, initiative "
                "and defence as its skill allows; skirmishes resolve both ways at once.",
        options=OPTIONS,
        seed="Combat System with miniatures",
        glossary=(
            ("attack", "the dice placed on attack: their total is the unit's attack this round"),
            ("initiative", "the dice placed on initiative: who acts first"),
            ("defence", "the dice placed on defence: what an attack must beat"),
            ("skill", "how far the unit may shift its five dice from its sheet's placement"),
            ("dice policy", "how the unit places its dice: balanced, aggressive, defensive or priority"),
            *((p.name, f"a preset sheet: attack {p.attack}, initiative {p.initiative}, defence "
                       f"{p.defence}, skill {p.skill}, movement {p.movement}, life {p.life}")
              for p in PRESETS.values()),
            *((w.name, f"a {w.kind} weapon: +{w.bonus} attack, reach {w.reach}, speed {w.speed}")
              for w in GEAR.weapons.values()),
            *((a.name, f"armor: +{a.bonus} defence, speed {a.speed}") for a in GEAR.armor.values()),
        ),
        events=board_view.EVENTS,
        # A change to what setup, the order parser or resolve does is a new revision here
        # (docs/rulesets/AUTHORING.md, "Revisions"), with a golden record in tests/golden/.
        teaching=TEACHING,
        revisions=(Revision(1, (
            "The rules as first played here: five dice a unit a round, placed on attack, "
            "initiative and defence by policy.",
        )),),
    )
    verbs = VERBS

    def force_spec(self, options: Options) -> ForceSpec:
        return force_spec(self.options(options))

    def validate_force(self, force: Mapping[str, Any], options: Options) -> list[str]:
        return read_force(force, self.options(options))[1]

    def force_cost(self, force: Mapping[str, Any], options: Options) -> ForceCost | None:
        options = self.options(options)
        sheets, _ = read_force(force, options)
        if not sheets:
            return None
        total = sum(s.cost for s in sheets)
        return ForceCost(str(total), str(options["points"]), total > int(options["points"]))

    def default_force(self, seat: int, options: Options) -> JSON:
        return default_force(self.options(options))

    def setup(self, players: Sequence[PlayerId], forces: Mapping[PlayerId, Mapping[str, Any]],
              options: Options, dice: Dice) -> GameState:
        opts = self.options(options)
        width, height = int(opts["width"]), int(opts["height"])
        terrain = battlefield(width, height, str(opts["map"]))
        units: list[Unit] = []
        for seat, player in enumerate(players):
            sheets, errors = read_force(forces[player], opts)
            if errors:
                raise ForceError(player, errors)
            zone = [sq for sq in deployment_zone(seat, len(players), width, height) if sq not in terrain]
            for n, (sheet, square) in enumerate(zip(sheets, zone, strict=False), start=1):
                units.append(Unit(f"{SIDE_LETTERS[seat]}{n}", player, sheet, square, sheet.life,
                                  sheet.weapons[0] if sheet.weapons else None, list(sheet.items),
                                  DEFAULT_POLICY))
        return GameState(list(players), opts, 1, terrain, units)

    def seats(self, state: GameState) -> list[PlayerId]:
        return state.players

    def players_in(self, state: GameState) -> list[PlayerId]:
        return state.players_alive()

    def legal_orders(self, state: GameState, player: PlayerId) -> dict[UnitId, list[Order]]:
        return legal_orders(state, player)

    def check_order(self, state: GameState, player: PlayerId, order: Order) -> str | None:
        return check_order(state, player, order, self.expected(state))

    def order_checker(self, state: GameState, player: PlayerId) -> Callable[[Order], str | None]:
        """check_order, with expected(state) worked out once for the text, not a line."""
        expected = self.expected(state)
        return lambda o: check_order(state, player, o, expected)

    def check_order_set(self, state: GameState, player: PlayerId,
                        orders: Sequence[Order]) -> list[OrderProblem]:
        return check_order_set(orders)

    def reading_key(self, state: GameState, player: PlayerId, order: Order) -> tuple[int | str, ...]:
        """Each unit "carries out its orders, line by line as written" on its initiative turn
        (docs/rulesets/fivedice.md), so by unit, its lines in the player's order; its `dice`
        line is a standing order read before any unit acts, so first."""
        return (order.unit or "", 0 if order.verb == "dice" else 1)

    def resolve(self, state: GameState, orders: Mapping[PlayerId, Sequence[Order]],
                dice: Dice) -> Resolution[GameState]:
        return resolve_round(state, orders, dice, self.expected(state))

    def board(self, state: GameState) -> Board:
        return board_view.board(state)

    def dump(self, state: GameState) -> JSON:
        return state.to_json()

    def load(self, data: Mapping[str, Any]) -> GameState:
        return GameState.from_json(data)

    def bot_orders(self, state: GameState, player: PlayerId, dice: Dice) -> list[Order] | None:
        return bot_orders(state, player)

