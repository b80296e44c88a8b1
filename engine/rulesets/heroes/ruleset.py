"""`heroes`: Heroes United, as docs/rulesets/heroes.md reads it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from engine.contract import (
    COMMON_OPTIONS,
    JSON,
    Board,
    OptionError,
    Options,
    OptionSpec,
    Outcome,
    PlayerId,
    Resolution,
    Revision,
    RulesetInfo,
    UnitId,
)
from engine.dice import Dice
from engine.forcespec import Choice, Field, ForceSpec, Refusal, Shape
from engine.grid import Square, direction_between
from engine.orders import Order, OrderProblem, Verb
from engine.rulesets.heroes import bot, cards, decks, orders
from engine.rulesets.heroes.board import EVENTS as board_events
from engine.rulesets.heroes.board import board
from engine.rulesets.heroes.citymap import (
    CORNERS,
    build_rooftops,
    check_map_size,
    corner_square,
    map_ids,
    tiles,
)
from engine.rulesets.heroes.engagement import resting
from engine.rulesets.heroes.general_actions import contest
from engine.rulesets.heroes.phases import resolve_round
from engine.rulesets.heroes.spawning import henchmen_and_civvies_roll, nemesis_entries, parse_trigger
from engine.rulesets.heroes.state import Figure, HeroesState
from engine.rulesets.heroes.teaching import TEACHING
from engine.turns import RoundsRuleset, expected_players

HEROES_OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec("nemesis_trigger", "saved:5",
               "when a hero's Nemesis enters: saved:N (its hero has saved N civvies) or "
               "round:N (from round N on)", kind="str"),
    OptionSpec("villain_player", False,
               "the last seat plays the henchmen and nemeses instead of a hero", kind="bool"),
    OptionSpec("map", "tiles", "tiles: each hero's chosen corner tile; or a whole custom map",
               kind="choice", choices=("tiles", *map_ids())),
    OptionSpec("civvies_to_win", 10, "civvies a hero must save (with its Nemesis captured) to win",
               minimum=1, maximum=50),
)


class HeroesRuleset(RoundsRuleset[HeroesState]):
    info: ClassVar[RulesetInfo] = RulesetInfo(
        id="heroes",
        title="Heroes United",
        min_players=1,
        max_players=4,
        summary="Heroes race to save 10 civvies and capture their Nemesis, while the game "
                "sends henchmen into Regal City.",
        options=(*COMMON_OPTIONS, *HEROES_OPTIONS),
        seed="Heroes United",
        glossary=(
            ("S.U.P.E.R.", "a card's five stats; every roll-off adds the one it names"),
            ("P", "added to the roll-off for turn order, saving a civvie and capturing your Nemesis"),
            ("E", "added to the roll-off for climbing onto a roof and running away"),
            ("U", "added to each ARM save against a strike"),
            ("ARM", "how many saves a figure rolls against each strike"),
            ("Vitality", "a strike that gets through takes 1; at 0 the figure is knocked out"),
            ("A.P.", "action points: Movement A.P. for moving, General A.P. for save, capture, "
                     "search and climb"),
            ("civvie", "a bystander: save 10 to win"),
        ),
        shared_squares=True,  # "Attacking on the same space: +1 to Result"
        events=board_events,
        # A change to what setup, the order parser or resolve does is a new revision here
        # (docs/rulesets/AUTHORING.md, "Revisions"), with a golden record in tests/golden/.
        teaching=TEACHING,
        revisions=(Revision(1, (
            "The rules as first played here: heroes race to save civvies and capture their "
            "Nemesis while the game runs henchmen, civvies and nemeses.",
        )),),
    )
    verbs: ClassVar[tuple[Verb, ...]] = orders.VERBS

    def options(self, given: Options | None = None) -> dict[str, Any]:
        """Also refuses a bad nemesis_trigger, and a custom map of another size, at creation."""
        opts = super().options(given)
        parse_trigger(str(opts["nemesis_trigger"]))
        check_map_size(opts)
        return opts

    # -- forces -------------------------------------------------------------------
    def force_spec(self, options: Options) -> ForceSpec:
        return ForceSpec(Shape("a force", (
            Field("hero", Choice("hero", tuple(cards.heroes()), "the hero card you play",
                                 descriptions=tuple(cards.card_line(c) for c in cards.heroes().values())),
                  required=True),
            Field("tile", Choice("tile", tuple(tiles()), "the city tile of your corner "
                                 "(left out: one nobody chose)"), nullable=True),
        ), example='{"hero": "zenith", "tile": "downtown"}'))

    def validate_force(self, force: Mapping[str, Any], options: Options) -> list[str]:
        return self.force_spec(options).read(force)[1]

    def default_force(self, seat: int, options: Options) -> JSON:
        return {"hero": list(cards.heroes())[seat % len(cards.heroes())],
                "tile": list(tiles())[seat % len(tiles())]}

    def force_clashes(self, force: Mapping[str, Any], others: Mapping[PlayerId, Mapping[str, Any]],
                      options: Options) -> list[str]:
        """One card of each hero and one of each corner tile: "Each other player will also
        choose a game tile", and every hero hunts its own Nemesis, of which there is one."""
        reasons: list[str] = []
        kinds = [("hero", "hero", {h: c.name for h, c in cards.heroes().items()})]
        if options.get("map", "tiles") == "tiles":  # a whole map has no corner tiles to choose
            kinds.append(("tile", "tile", {t: str(v["name"]) for t, v in tiles().items()}))
        for key, word, names in kinds:
            chosen = force.get(key)
            holder = next((p for p, f in others.items() if chosen is not None and f.get(key) == chosen), None)
            if holder is None:
                continue
            taken = {f.get(key) for f in others.values()}
            free = [n for k, n in names.items() if k not in taken]
            reasons.append(Refusal(
                f"{key}: {names.get(str(chosen), chosen)} is already {holder}'s {word}; there is one "
                f"of each, so pick another" + (f" ({', '.join(free)} are free)" if free else ""), (key,)))
        return reasons

    def default_force_beside(self, seat: int, options: Options,
                             others: Mapping[PlayerId, Mapping[str, Any]]) -> JSON:
        """The seat's default hero and tile, or the first ones nobody holds."""
        force = dict(self.default_force(seat, options))
        for key, choices in (("hero", list(cards.heroes())), ("tile", list(tiles()))):
            taken = {f.get(key) for f in others.values()}
            if force.get(key) in taken:
                force[key] = next((c for c in choices if c not in taken), force[key])
        return force

    def entrants(self, options: Options) -> dict[str, JSON]:
        return {hero: {"hero": hero} for hero in cards.heroes()}

    # -- setup --------------------------------------------------------------------
    def setup(self, players: Sequence[PlayerId], forces: Mapping[PlayerId, Mapping[str, Any]],
              options: Options, dice: Dice) -> HeroesState:
        opts = self.options(options)
        seats = [str(p) for p in players]
        villain = seats[-1] if opts["villain_player"] else None
        if villain is not None and len(seats) < 2:
            raise OptionError("villain_player", "needs at least 2 players: heroes and the villains")
        hero_players = [p for p in seats if p != villain]
        roofs = build_rooftops(opts, [forces[p].get("tile") for p in hero_players])
        w, h = int(opts["width"]), int(opts["height"])
        centre = Square(w // 2, h // 2)
        figures: dict[str, Figure] = {}
        heroes: dict[str, str] = {}
        for i, p in enumerate(hero_players):
            spec = cards.heroes()[str(forces[p]["hero"])]
            start = corner_square(CORNERS[i], w, h)
            fid = f"{spec.code}{i + 1}"
            figures[fid] = Figure(fid, "hero", spec.id, start, direction_between(start, centre) or "n",
                                  spec.vitality, owner=p, start=start)
            heroes[p] = fid
        state = HeroesState(dict(opts), seats, heroes, villain, list(hero_players), 1, frozenset(roofs),
                            figures, {}, dice.shuffle(list(range(len(decks.henchmen_deck()))),
                                                      "henchmen deck"),
                            [], dice.shuffle(list(decks.items_deck()), "items deck"), [])
        state.order = turn_order(state, dice)
        nemesis_entries(state, [], 1)
        henchmen_and_civvies_roll(state, dice, [])
        return state

    # -- each round ------------------------------------------------------------------
    def expected(self, state: HeroesState) -> list[PlayerId]:
        if self.outcome(state) is not None:
            return []
        if state.alternating:
            # One seat a round, round the turn order (a resting hero's seat passes).
            cycle = state.cycle()
            return expected_players("alternating", cycle, cycle, state.round)
        alive = [p for p in state.seats
                 if p == state.villain or not resting(state, state.figures[state.heroes[p]])]
        return expected_players("simultaneous", state.seats, alive or state.seats, state.round)

    def legal_orders(self, state: HeroesState, player: PlayerId) -> dict[UnitId, list[Order]]:
        return orders.legal(state, player)

    def check_order(self, state: HeroesState, player: PlayerId, order: Order) -> str | None:
        return orders.check(state, player, order)

    def check_order_set(self, state: HeroesState, player: PlayerId,
                        given: Sequence[Order]) -> list[OrderProblem]:
        return orders.check_set(state, player, given)

    # "Orders are carried out in phase order whatever their line order; general actions in
    # their line order" (docs/rulesets/heroes.md); attack lines add targets in their order.
    PHASES: ClassVar[tuple[str, ...]] = ("reroll", "action", "move", "face", "run", "attack")

    def reading_key(self, state: HeroesState, player: PlayerId, order: Order) -> tuple[int | str, ...]:
        """By figure, then phase; general actions (last) and attack lines keep their order. A
        villain figure moves and turns in the order written, then strikes (npc.ordered_act)."""
        if player == state.villain:
            return (order.unit or "", 1 if order.verb == "attack" else 0)
        phase = self.PHASES.index(order.verb) if order.verb in self.PHASES else len(self.PHASES)
        return (order.unit or "", phase)

    def resolve(self, state: HeroesState, given: Mapping[PlayerId, Sequence[Order]],
                dice: Dice) -> Resolution[HeroesState]:
        new = state.copy()
        events = resolve_round(new, given, dice)
        return Resolution(new, events, list(dice.rolls))

    def outcome(self, state: HeroesState) -> Outcome | None:
        if state.winner is not None:
            return Outcome((state.winner,), state.end_reason)
        if self.round_cap_reached(state):
            if state.villain is not None:
                return Outcome((state.villain,), "no hero won before the last round: the villains win")
            return Outcome((), f"no hero won in {state.options['max_rounds']} rounds: a draw")
        return None

    # -- pictures and storage ----------------------------------------------------------
    def board(self, state: HeroesState) -> Board:
        return board(state)

    def dump(self, state: HeroesState) -> JSON:
        return state.to_json()

    def load(self, data: Mapping[str, Any]) -> HeroesState:
        return HeroesState.from_json(data)

    def bot_orders(self, state: HeroesState, player: PlayerId, dice: Dice) -> list[Order] | None:
        return bot.bot_orders(state, player)


def turn_order(state: HeroesState, dice: Dice) -> list[str]:
    """"Roll dice and add your (P) stat to the Result. Highest total goes first, with the
    rest falling in seat order." Ties for first roll again among the tied."""
    heroes = [state.figures[state.heroes[p]] for p in state.order]
    if not heroes:
        return []
    first = contest(heroes, "P", "turn order", dice, [])
    i = state.order.index(str(first.owner))
    return state.order[i:] + state.order[:i]
