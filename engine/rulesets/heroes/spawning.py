"""End of round: the Henchmen & Civvies roll, and the Nemeses' entry.

Seed: "Roll a 6 sided dice for each quadrant. If the result is: 1 -3 : No Henchmen or
Civvies for this quadrant. 4 -5: 1 Henchman and 1 Civvi. Flip the top card of the
Henchmen deck. This card tells you the position of where to place the Henchman. Place the
Civvi on a space touching the Henchman's space. 6: Same result as a 3-5 but roll the dice
again." ("3-5" is read as 4-5, the row above it.)

A card's square and civvie direction are drawn for the south-west quadrant ([0, 0] at
the board corner) and mirrored into the quadrant being rolled, so every corner sees the
same deck. When the square is a rooftop or taken, the nearest free street square of that
quadrant is used instead. The civvie goes in the card's direction from the henchman,
else on the next free street square clockwise. A spent deck is reshuffled from its
discards.

The Nemesis entry is the seed's open question; option `nemesis_trigger` answers it.
"""

from __future__ import annotations

from engine.contract import Event, OptionError
from engine.dice import Dice
from engine.grid import DIRECTIONS, Square, distance, square_name
from engine.rulesets.heroes.cards import card
from engine.rulesets.heroes.citymap import CORNERS, QUADRANTS, local_square, quadrant_squares
from engine.rulesets.heroes.decks import Placement, henchmen_deck
from engine.rulesets.heroes.facing import CLOCKWISE, facing_towards
from engine.rulesets.heroes.state import Figure, HeroesState

MAX_ROLLS_PER_QUADRANT = 20  # sixes in a row beyond this stop (a full board stops sooner)
OPPOSITE = {"sw": "ne", "ne": "sw", "se": "nw", "nw": "se"}


def henchmen_and_civvies_roll(state: HeroesState, dice: Dice, events: list[Event]) -> None:
    for quadrant in QUADRANTS:
        for _ in range(MAX_ROLLS_PER_QUADRANT):
            face = dice.roll(6, f"henchmen & civvies roll, {quadrant} quadrant")
            if face <= 3:
                events.append(Event("spawn_roll", f"Henchmen & Civvies roll {quadrant}: {face}, "
                                    "nobody comes.", {"quadrant": quadrant, "face": face}))
                break
            placed = place_henchman(state, quadrant, dice, events, face)
            if face < 6 or not placed:
                break


def _free(state: HeroesState, sq: Square, taken: set[Square]) -> bool:
    return (0 <= sq.col < state.width and 0 <= sq.row < state.height
            and sq not in state.roofs and sq not in taken)


def _taken(state: HeroesState) -> set[Square]:
    return {f.square for f in state.figures.values()}


def _draw(state: HeroesState, dice: Dice) -> Placement:
    if not state.henchmen_deck:
        state.henchmen_deck = dice.shuffle(state.henchmen_discard, "henchmen deck")
        state.henchmen_discard = []
    index = state.henchmen_deck.pop(0)
    state.henchmen_discard.append(index)
    return henchmen_deck()[index]


def place_henchman(state: HeroesState, quadrant: str, dice: Dice, events: list[Event],
                   face: int) -> bool:
    """Flip a henchmen card and place its henchman and a civvie; False if there is no room."""
    taken = _taken(state)
    roofs = state.roofs  # _free, inlined: a quadrant's squares are all on the board
    spot_free = [sq for sq in quadrant_squares(quadrant, state.width, state.height)
                 if sq not in roofs and sq not in taken]
    if not spot_free:
        events.append(Event("spawn_roll", f"Henchmen & Civvies roll {quadrant}: {face}, but the "
                            "quadrant is full.", {"quadrant": quadrant, "face": face}))
        return False
    placement = _draw(state, dice)
    wanted = local_square(quadrant, placement.col, placement.row, state.width, state.height)
    wc, wr = wanted
    spot = min(spot_free, key=lambda s: (max(abs(s[0] - wc), abs(s[1] - wr)), s[1], s[0]))  # distance
    spec = card(placement.henchman)
    henchman = Figure(state.new_id("H"), "henchman", spec.id, spot, vitality=spec.vitality)
    henchman.facing = _towards_nearest_hero(state, spot)
    state.figures[henchman.id] = henchman
    taken.add(spot)
    text = (f"Henchmen & Civvies roll {quadrant}: {face}. {spec.name} {henchman.id} "
            f"on {square_name(spot)}")
    civvie_sq = _civvie_square(state, spot, mirrored(placement.civvie, quadrant), taken)
    data = {"quadrant": quadrant, "face": face, "henchman": henchman.id, "square": square_name(spot)}
    if civvie_sq is not None:
        civvie = Figure(state.new_id("C"), "civvie", "", civvie_sq)
        state.figures[civvie.id] = civvie
        text += f", civvie {civvie.id} on {square_name(civvie_sq)}"
        data["civvie"] = civvie.id
    events.append(Event("spawn", text + ("; a 6: roll again." if face == 6 else "."), data))
    return True


def mirrored(direction: str, quadrant: str) -> str:
    """A card's direction is drawn for the south-west quadrant, mirrored like its square."""
    dc, dr = DIRECTIONS[direction]
    flipped = (-dc if quadrant[1] == "e" else dc, -dr if quadrant[0] == "n" else dr)
    return next(name for name, step in DIRECTIONS.items() if step == flipped)


def _civvie_square(state: HeroesState, at: Square, direction: str,
                   taken: set[Square]) -> Square | None:
    start = CLOCKWISE.index(direction) if direction in DIRECTIONS else 0
    for k in range(8):
        dc, dr = DIRECTIONS[CLOCKWISE[(start + k) % 8]]
        sq = Square(at.col + dc, at.row + dr)
        if _free(state, sq, taken):
            return sq
    return None


def _towards_nearest_hero(state: HeroesState, sq: Square) -> str:
    heroes = sorted(state.of_kind("hero"), key=lambda h: (distance(h.square, sq), h.id))
    return facing_towards(sq, heroes[0].square, "n") if heroes else "n"


def parse_trigger(text: str) -> tuple[str, int]:
    """`saved:N` (when its hero has saved N civvies) or `round:N` (from game turn N on)."""
    kind, _, number = text.partition(":")
    if kind not in ("saved", "round") or not number.isdigit() or int(number) < 1:
        raise OptionError("nemesis_trigger", f"{text!r} must be saved:N or round:N, N ≥ 1")
    return kind, int(number)


def nemesis_entries(state: HeroesState, events: list[Event], next_turn: int) -> None:
    """Bring in every Nemesis whose trigger has come, for the game turn about to be played."""
    kind, number = parse_trigger(str(state.options["nemesis_trigger"]))
    for player in state.order:
        hero = state.hero_of(player)
        if hero is None or hero.captured or state.nemesis_of(player) is not None:
            continue
        if (kind == "saved" and hero.saved >= number) or (kind == "round" and next_turn >= number):
            enter_nemesis(state, player, hero, events)


def enter_nemesis(state: HeroesState, player: str, hero: Figure, events: list[Event]) -> None:
    """A Nemesis enters at the middle of the quadrant opposite its hero's start corner."""
    corner = CORNERS[state.seats.index(player) % 4]
    squares = quadrant_squares(OPPOSITE[corner], state.width, state.height)
    middle = squares[len(squares) // 2]
    taken = _taken(state)
    free = [sq for sq in squares if _free(state, sq, taken)] or [
        sq for sq in squares if sq not in state.roofs] or squares
    spot = min(free, key=lambda s: (distance(s, middle), s.row, s.col))
    spec = card(hero.spec.nemesis)
    nemesis = Figure(f"N{state.seats.index(player) + 1}", "nemesis", spec.id, spot,
                     facing=facing_towards(spot, hero.square, "n"), vitality=spec.vitality,
                     owner=player)
    state.figures[nemesis.id] = nemesis
    events.append(Event("nemesis", f"{spec.name} ({nemesis.id}), nemesis of {hero.id}, enters on "
                        f"{square_name(spot)}.", {"unit": nemesis.id, "hero": hero.id,
                                                  "square": square_name(spot)}))
