"""What a picture of the city needs: rooftops, start corners, and every figure distinctly:
heroes are circles, the figures the game runs diamonds (civvies dashed, nemeses heavy)."""

from __future__ import annotations

from engine.contract import Board, Mark, Piece
from engine.eventwords import EventWords, Tagged
from engine.grid import square_name
from engine.looks import PieceLook
from engine.rulesets.heroes.citymap import CORNERS, corner_square
from engine.rulesets.heroes.state import Figure, HeroesState

LEGEND = {
    "rooftop": "the seed's X: stepping up onto it is a climb, roll-off + E of 13 or more",
    "start": "a hero's start corner: knocked out, it comes back here",
}
LOOKS = {
    "hero": PieceLook("circle", "solid", "heroes"),
    "civvie": PieceLook("diamond", "dashed", "civvies"),
    "henchman": PieceLook("diamond", "solid", "henchmen"),
    "nemesis": PieceLook("diamond", "heavy", "nemeses"),
}


# What its events mean to a player (the turn summary reads them, engine.eventwords):
# a strike that gets through takes 1 Vitality; a civvie saved is counted.
EVENTS = EventWords(
    unit_keys=("unit", "attacker", "defender", "target", "by", "enemy", "winner", "hero"),
    losses=("defeat", "knockout", "down"), moves=("move", "climb", "run"), attacks=("miss", "save"),
    one_damage=("damage",), dice_keys=("dice",),
    tagged=(Tagged("save", "saved", "saved", key="civvie", one="civvie saved", many="civvies saved"),),
)


def board(state: HeroesState) -> Board:
    terrain = {square_name(r): "rooftop" for r in state.roofs}
    for corner in CORNERS[: len(state.heroes)]:
        terrain[square_name(corner_square(corner, state.width, state.height))] = "start"
    pieces = [_piece(state, f) for f in state.figures.values()]
    marks = [Mark.from_json(m) for m in state.marks]
    return Board(state.width, state.height, terrain, pieces, marks, dict(LEGEND), list(state.seats))


def _piece(state: HeroesState, f: Figure) -> Piece:
    square = square_name(f.square)
    if f.kind == "civvie":
        return Piece(f.id, square, None, "civvie", f.id, note="civvie: save me", look=LOOKS["civvie"])
    spec = f.spec
    if f.kind == "hero":
        saved = f"{f.saved} civvie{'' if f.saved == 1 else 's'} saved"
        note = f"{spec.name}: {saved}" + (", nemesis captured" if f.captured else "")
        if f.misses >= state.round:
            note += ", knocked out"
        return Piece(f.id, square, f.owner, "hero", f.id, f.vitality, spec.vitality, f.facing, note,
                     LOOKS["hero"])
    note = spec.name + (" (down: waiting to be captured)" if f.vitality == 0 else "")
    return Piece(f.id, square, state.villain, f.kind, f.id, f.vitality, spec.vitality, f.facing, note,
                 LOOKS[f.kind])
