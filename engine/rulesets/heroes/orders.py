"""The Heroes United order language: what a hero (or the villain player) may be told.

    Z1 reroll auto        # standing re-roll policy for stats of 5+: auto | lowest | never
    Z1 action flight      # (*) action phase (not round 1); `PK1 action lullaby H3` aims it
    Z1 move c3            # movement phase; `Z1 move b2 c3` goes through b2
    Z1 face ne            # then turn (free)
    Z1 run                # before combat: try to run away (`Z1 run e5` names the refuge)
    Z1 attack H3 N1       # combat targets in order of preference (combat itself is forced)
    Z1 save C2            # general actions, one General A.P. each, in line order
    Z1 capture N1
    Z1 search
    Z1 climb d4

General actions are tried in line order; one that does not fit when its turn comes (the
civvie is gone, no contact) costs nothing, so later lines can be fallbacks. The villain
player (option villain_player) orders henchmen and nemeses with move, face
and attack.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.grid import Square, distance, parse_square, square_name
from engine.orders import Arg, Order, OrderProblem, Verb
from engine.rulesets.heroes import paths, star_actions
from engine.rulesets.heroes.cards import heroes
from engine.rulesets.heroes.engagement import engaged, resting
from engine.rulesets.heroes.facing import CLOCKWISE
from engine.rulesets.heroes.rolloff import POLICIES
from engine.rulesets.heroes.state import Figure, HeroesState

_LONG_DIRECTIONS: tuple[tuple[str, str], ...] = tuple(
    (long, short) for short, names in (("n", ("north",)), ("ne", ("northeast", "north-east")),
                                       ("e", ("east",)), ("se", ("southeast", "south-east")),
                                       ("s", ("south",)), ("sw", ("southwest", "south-west")),
                                       ("w", ("west",)), ("nw", ("northwest", "north-west")))
    for long in names)
_TWO_WORD_DIRECTIONS = (("north east", "ne"), ("north west", "nw"), ("south east", "se"),
                        ("south west", "sw"))


def _action_phrases() -> tuple[tuple[str, str], ...]:
    """Every card's (*) action as players write it, "blinding glare" for `glare`: the name,
    lower case (an apostrophe optional), and the id with spaces for underscores."""
    out: dict[str, str] = {}
    for c in heroes().values():
        for a in c.actions:
            for said in (a.name.lower(), a.name.lower().replace("'", ""), a.id.replace("_", " ")):
                if " " in said or said != a.id:
                    out.setdefault(said, a.id)
    # longest first, so "siren's lullaby" is matched before a shorter phrase inside it
    return tuple(sorted(out.items(), key=lambda kv: (-len(kv[0].split()), kv[0])))


REROLL = Verb("reroll", (Arg("policy", "word", choices=POLICIES),),
               "re-roll policy for stats of 5 or more: auto (when the lowest die is taken or a "
               "1), lowest (always), never", role="setting")
ACTION = Verb("action", (Arg("name", "word"), Arg("target", "unit", optional=True)),
              "use a (*) action of your card (not in round 1)", phrases=_action_phrases(),
              role="action")
MOVE = Verb("move", (Arg("square", "square", repeat=True),),
            "move up to your Movement A.P., through the squares given; stepping onto a rooftop "
            "is a climb", role="move")
FACE = Verb("face", (Arg("direction", "word", choices=CLOCKWISE, aliases=_LONG_DIRECTIONS),),
            "turn to face a direction (n, ne ... or north, north-east ...)",
            phrases=_TWO_WORD_DIRECTIONS, role="setting")
RUN = Verb("run", (Arg("square", "square", optional=True),),
           "before combat, try to run away (roll-off + E against the enemy's roll-off + P)",
           fillers=("away",), role="action")
ATTACK = Verb("attack", (Arg("target", "unit", repeat=True),), "whom to strike first in combat",
              role="attack")
SAVE = Verb("save", (Arg("civvie", "unit"),), "save a civvie in base contact (1 General A.P.)",
            role="action")
CAPTURE = Verb("capture", (Arg("nemesis", "unit"),),
               "capture your Nemesis at 0 Vitality: roll-off + P above 13 (1 General A.P.)",
               role="action")
SEARCH = Verb("search", (), "search for items: roll-off + P of 13 or more (1 General A.P.)",
              role="action")
CLIMB = Verb("climb", (Arg("square", "square"),),
             "climb onto an adjacent rooftop at -2 (1 General A.P.)", role="action")
VERBS: tuple[Verb, ...] = (REROLL, ACTION, MOVE, FACE, RUN, ATTACK, SAVE, CAPTURE, SEARCH, CLIMB)
HERO_VERBS = frozenset(v.name for v in VERBS)
VILLAIN_VERBS = frozenset({"move", "face", "attack"})
ONCE = ("reroll", "action", "move", "face", "run")
GENERAL = ("save", "capture", "search", "climb")


def unit_of(state: HeroesState, player: str, unit: str | None) -> tuple[Figure | None, str | None]:
    """The figure this player may order, or why not."""
    f = state.figures.get(unit or "")
    if f is None:
        return None, f"there is no {unit} on the board"
    actor = state.actor()
    if actor is not None and actor != player:
        return None, f"round {state.round} is {actor}'s turn"
    if f.kind == "hero" and f.owner == player:
        if resting(state, f):
            return None, f"{f.id} is knocked out and misses its turn in round {state.round}"
        return f, None
    if f.kind in ("henchman", "nemesis") and state.villain == player:
        if not f.active:
            return None, f"{f.id} is down and cannot act"
        return f, None
    return None, f"{unit} is not yours to order"


def _on_board(state: HeroesState, name: str) -> Square | str:
    sq = parse_square(name)
    if not (0 <= sq.col < state.width and 0 <= sq.row < state.height):
        return f"{name} is off the {state.width}x{state.height} board"
    return sq


def check(state: HeroesState, player: str, o: Order) -> str | None:
    if o.unit is None:  # `pass`, the one unitless verb (engine.orders checks it stands alone)
        return None
    f, problem = unit_of(state, player, o.unit)
    if f is None:
        return problem
    allowed = HERO_VERBS if f.kind == "hero" else VILLAIN_VERBS
    if o.verb not in allowed:
        return f"{f.id} cannot {o.verb}; its orders are: {', '.join(sorted(allowed))}"
    if o.verb in ("move", "run", "climb"):
        problem = _check_route(state, f, o)
        if problem is not None:
            return problem
    if o.verb == "attack":
        for target in o.args:
            t = state.figures.get(target)
            foe = ("henchman", "nemesis") if f.kind == "hero" else ("hero",)
            if t is None or t.kind not in foe:
                return f"{target} is not an enemy on the board"
    if o.verb == "save":
        t = state.figures.get(o.args[0])
        if t is None or t.kind != "civvie":
            return f"{o.args[0]} is not a civvie on the board"
    if o.verb == "capture":
        t = state.figures.get(o.args[0])
        if t is None or t.kind != "nemesis" or t.owner != player:
            return f"{o.args[0]} is not your Nemesis (only your own Nemesis can be captured)"
    if o.verb == "action":
        problem = star_actions.why_not(state, f, o.args[0])
        action = f.spec.action(o.args[0])
        if problem is None and action is not None and len(o.args) > 1 \
                and action.effect != "reduce_stat":
            problem = f"{action.name} takes no target"
        return problem
    return None


def _check_route(state: HeroesState, f: Figure, o: Order) -> str | None:
    squares = [_on_board(state, a) for a in o.args]
    bad = [s for s in squares if isinstance(s, str)]
    if bad:
        return bad[0]
    good = [s for s in squares if isinstance(s, Square)]
    if o.verb == "move" and not paths.flight_within(state, f.square, good, f.spec.move_ap):
        steps = paths.fewest_steps(state, f.square, good)
        return (f"no route through {' '.join(o.args)} within {f.spec.move_ap} Movement A.P.: "
                f"that is {steps} squares from {square_name(f.square)}, one A.P. a square")
    if o.verb == "climb" and good[0] not in state.roofs:
        return f"{o.args[0]} is not a rooftop"
    return None


def check_set(state: HeroesState, player: str, orders: Sequence[Order]) -> list[OrderProblem]:
    problems: list[OrderProblem] = []
    for unit in sorted({o.unit for o in orders if o.unit}):
        mine = [o for o in orders if o.unit == unit]
        for verb in ONCE:
            lines = [o.line for o in mine if o.verb == verb]
            if len(lines) > 1:
                problems.append(OrderProblem(lines[1], f"{unit} has a '{verb}' order already "
                                                       f"(line {lines[0]})", (lines[0],)))
    return problems


# What a move or a run costs the figure's strikes this turn (combat.py's modifiers, the
# seed's "Generic Modifiers"; runaway.py: a hero who gets away has no combat this turn).
MOVED_COST = "moved: -1 on its strikes this turn"
ROOFTOP_COST = "-3 on its ranged strikes from the rooftop"
RUN_COST = "no combat this turn if it gets away; a free Weak strike on it if not"


def move_cost(state: HeroesState, f: Figure, to: Square) -> str:
    """A move's cost to the figure's strikes: any Movement A.P. spent this turn is -1 on
    every strike ("moved"), and a ranged figure ending on a rooftop strikes at -3."""
    if f.spec.ranged and to in state.roofs:
        return f"{MOVED_COST}; {ROOFTOP_COST}"
    return MOVED_COST


def legal(state: HeroesState, player: str) -> dict[str, list[Order]]:
    out: dict[str, list[Order]] = {}
    for f in state.figures.values():
        if unit_of(state, player, f.id)[0] is None:
            continue
        steps = paths.steps(paths.search(state, f.square, paths.budget(f.spec.move_ap)))
        orders = [MOVE.order(f.id, square_name(sq), cost=move_cost(state, f, sq))
                  for sq in steps if sq != f.square]
        orders += [FACE.order(f.id, d) for d in CLOCKWISE]
        near = f.spec.move_ap + 2
        foes = ("henchman", "nemesis") if f.kind == "hero" else ("hero",)
        orders += [ATTACK.order(f.id, g.id) for g in state.figures.values()
                   if g.kind in foes and g.active and distance(g.square, f.square) <= near]
        if f.kind == "hero":
            orders += _hero_orders(state, f, player)
        out[f.id] = orders
    return out


def _hero_orders(state: HeroesState, f: Figure, player: str) -> list[Order]:
    reach = f.spec.move_ap + 1
    orders = [SAVE.order(f.id, c.id) for c in state.of_kind("civvie")
              if distance(c.square, f.square) <= reach]
    nemesis = state.nemesis_of(player)
    if nemesis is not None and nemesis.vitality == 0 and distance(nemesis.square, f.square) <= reach:
        orders.append(CAPTURE.order(f.id, nemesis.id))
    orders.append(SEARCH.order(f.id))
    if f.square not in state.roofs:
        orders += [CLIMB.order(f.id, square_name(r)) for r in sorted(state.roofs)
                   if distance(r, f.square) == 1]
    if engaged(state, f):
        orders.append(RUN.order(f.id, cost=RUN_COST))
    orders += [ACTION.order(f.id, a.id) for a in f.spec.actions
               if star_actions.why_not(state, f, a.id) is None]
    orders += [REROLL.order(f.id, p) for p in POLICIES]
    return orders
