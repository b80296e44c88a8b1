"""`skirmish`: a deliberately small ruleset that lives only in the tests, written from
docs/rulesets/AUTHORING.md alone; its rules and readings are in RULES.md beside it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

from engine.contract import (
    COMMON_OPTIONS,
    JSON,
    Board,
    Event,
    Mark,
    Options,
    OptionSpec,
    Piece,
    PlayerId,
    Resolution,
    RulesetInfo,
    StateError,
)
from engine.dice import Dice
from engine.forcespec import Field, ForceSpec, Shape, Whole
from engine.grid import Grid, Square, distance, parse_square
from engine.looks import MarkLook, PieceLook
from engine.orders import Arg, Order, OrderProblem, Verb
from engine.turns import StandingRuleset
from engine.zones import edge_zone

MOVE = Verb("move", (Arg("square", "square"),), help="step to an empty square next to the pawn",
            role="move")
STRIKE = Verb("strike", (Arg("target", "unit"),), help="strike an enemy pawn next to this one",
              role="attack")
PAWN = PieceLook("square", "solid", "pawns")
LOOKS = {"move": MarkLook("solid", "ink", "steps"), "strike": MarkLook("dashed", "orange", "strikes")}
HEALTH = 2


@dataclass(frozen=True)
class Pawn:
    id: str
    side: PlayerId
    square: str
    health: int = HEALTH


@dataclass(frozen=True)
class SkirmishState:
    options: dict[str, Any]
    seats: list[PlayerId]
    round: int
    pawns: dict[str, Pawn]
    marks: list[JSON] = field(default_factory=list)


class SkirmishRuleset(StandingRuleset[SkirmishState]):
    info: ClassVar[RulesetInfo] = RulesetInfo(
        id="skirmish", title="Skirmish (test-only)", min_players=2, max_players=4,
        summary="Pawns of two health step and strike; the last side standing wins.",
        options=(*COMMON_OPTIONS, OptionSpec("hit_on", 4, "a strike hits on this d6 face or more",
                                             minimum=2, maximum=6)),
        seed="Skirmish (tests/fifth_ruleset/RULES.md)")
    verbs: ClassVar[tuple[Verb, ...]] = (MOVE, STRIKE)

    def force_spec(self, options: Options) -> ForceSpec:
        most = min(5, int(options["width"]), int(options["height"]))  # rule 1, and a square each
        return ForceSpec(Shape("a force", (Field("pawns", Whole("pawns", 1, most, "how many pawns"),
                                                 default=3),), example='{"pawns": 3}'))

    def validate_force(self, force: Mapping[str, Any], options: Options) -> list[str]:
        return self.force_spec(options).read(force)[1]

    def default_force(self, seat: int, options: Options) -> JSON:
        return {"pawns": 3}

    def setup(self, players: Sequence[PlayerId], forces: Mapping[PlayerId, Mapping[str, Any]],
              options: Options, dice: Dice) -> SkirmishState:
        w, h = int(options["width"]), int(options["height"])
        # Rule 1: the edge line's squares nearest its middle, numbered from a1's end.
        home = {p: sorted(edge_zone(s, w, h, (0,))[:int(forces[p].get("pawns", 3))]) for s, p in enumerate(players)}
        pawns = {f"{'ABCD'[s]}{n}": Pawn(f"{'ABCD'[s]}{n}", p, sq.name)
                 for s, p in enumerate(players) for n, sq in enumerate(home[p], 1)}
        return SkirmishState(dict(options), list(players), 1, pawns)

    def seats(self, state: SkirmishState) -> Sequence[PlayerId]:
        return state.seats

    def players_in(self, state: SkirmishState) -> Sequence[PlayerId]:
        return [s for s in state.seats if any(p.side == s for p in state.pawns.values())]

    def legal_orders(self, state: SkirmishState, player: PlayerId) -> dict[str, list[Order]]:
        grid = Grid(int(state.options["width"]), int(state.options["height"]))
        out: dict[str, list[Order]] = {}
        for pawn in (p for p in state.pawns.values() if p.side == player):
            tries = [*(STRIKE.order(pawn.id, other) for other in sorted(state.pawns)),
                     *(MOVE.order(pawn.id, sq.name) for sq in grid.neighbours(parse_square(pawn.square)))]
            out[pawn.id] = [o for o in tries if self.check_order(state, player, o) is None]
        return out

    def _step_problem(self, state: SkirmishState, pawn: Pawn, to: Square) -> str | None:
        here, w, h = parse_square(pawn.square), int(state.options["width"]), int(state.options["height"])
        if not (0 <= to.col < w and 0 <= to.row < h) or distance(here, to) != 1:
            return f"{pawn.id} can only step to a square next to {pawn.square}"
        if not state.options["diagonals"] and here.col != to.col and here.row != to.row:
            return "this game has no diagonal steps"
        return f"{to.name} is taken" if any(p.square == to.name for p in state.pawns.values()) else None

    def check_order(self, state: SkirmishState, player: PlayerId, order: Order) -> str | None:
        if order.verb == "pass":
            return None
        pawn = state.pawns.get(order.unit or "")
        if pawn is None or pawn.side != player:
            return f"{order.unit} is not one of your pawns"
        if order.verb == "move":
            return self._step_problem(state, pawn, parse_square(order.args[0]))
        target = state.pawns.get(order.args[0])
        if target is None or target.side == player:
            return f"{order.args[0]} is not an enemy pawn"
        if distance(parse_square(pawn.square), parse_square(target.square)) != 1:
            return f"{target.id} is not next to {pawn.id}"
        return None

    def check_order_set(self, state: SkirmishState, player: PlayerId,
                        orders: Sequence[Order]) -> list[OrderProblem]:
        first: dict[str | None, int] = {}
        return [OrderProblem(o.line, f"{o.unit} has an order already (one a round)", (first[o.unit],))
                for o in orders if first.setdefault(o.unit, o.line) != o.line]

    def resolve(self, state: SkirmishState, orders: Mapping[PlayerId, Sequence[Order]],
                dice: Dice) -> Resolution[SkirmishState]:
        pawns, events, marks = dict(state.pawns), [], []
        given = [(o, pawns[o.unit or ""]) for s in state.seats for o in orders.get(s, ())]
        for o, pawn in (g for g in given if g[0].verb == "move"):  # rule 3: steps first
            now = replace(state, pawns=pawns)
            if self._step_problem(now, pawns[pawn.id], parse_square(o.args[0])):
                events.append(Event("skip", f"{pawn.id} stays: {o.args[0]} is taken",
                                    {"unit": pawn.id, "order": o.format()}))
                continue
            pawns[pawn.id] = replace(pawn, square=o.args[0])
            events.append(Event("move", f"{pawn.id} steps {pawn.square} → {o.args[0]}",
                                {"unit": pawn.id, "squares": [pawn.square, o.args[0]]}))
            marks.append({"kind": "move", "squares": [pawn.square, o.args[0]], "side": pawn.side})
        hits: dict[str, list[str]] = {}  # pawn → who hit it
        for o, pawn in (g for g in given if g[0].verb == "strike"):  # rule 4: strikes at once
            me, them = pawns[pawn.id], pawns[o.args[0]]
            if distance(parse_square(me.square), parse_square(them.square)) != 1:
                events.append(Event("skip", f"{me.id} cannot reach {them.id} any more",
                                    {"unit": me.id, "order": o.format()}))
                continue
            face = dice.roll(6, f"{me.id} strikes {them.id}")
            hit = face >= int(state.options["hit_on"])
            hits.setdefault(them.id, []).extend([me.id] if hit else [])
            events.append(Event("attack", f"{me.id} strikes {them.id}: {face}, {'hit' if hit else 'miss'}",
                                {"attacker": me.id, "defender": them.id, "faces": [face], "damage": int(hit)}))
            marks.append({"kind": "strike", "squares": [me.square, them.square], "side": me.side})
        for pid, by in sorted(hits.items()):
            left = pawns[pid].health - len(by)
            pawns[pid] = replace(pawns[pid], health=left)
            if left <= 0:
                del pawns[pid]
                events.append(Event("death", f"{pid} is down", {"unit": pid, "by": by}))
        new = SkirmishState(state.options, state.seats, state.round + 1, pawns, marks)
        return Resolution(new, events, list(dice.rolls))

    def board(self, state: SkirmishState) -> Board:
        pieces = [Piece(p.id, p.square, p.side, "pawn", p.id, p.health, HEALTH, look=PAWN)
                  for p in state.pawns.values()]
        return Board(int(state.options["width"]), int(state.options["height"]), {}, pieces,
                     [Mark.from_json(m, LOOKS) for m in state.marks], sides=list(state.seats))

    def dump(self, state: SkirmishState) -> JSON:
        return {"options": state.options, "seats": state.seats, "round": state.round, "marks": state.marks,
                "pawns": [[p.id, p.side, p.square, p.health] for p in state.pawns.values()]}

    def load(self, data: Mapping[str, Any]) -> SkirmishState:
        try:
            pawns = {str(i): Pawn(str(i), str(s), str(sq), int(h)) for i, s, sq, h in data["pawns"]}
            return SkirmishState(dict(data["options"]), list(data["seats"]), int(data["round"]), pawns,
                                 list(data["marks"]))
        except (KeyError, TypeError, ValueError) as exc:
            raise StateError(f"not a skirmish state: {exc}") from None
