"""What a picture of a jep1 game needs: living units (circles) with their stat lines and
place in the acting order, walls, last round's arrows."""

from __future__ import annotations

from engine.contract import Board, Mark, Piece
from engine.eventwords import EventWords
from engine.looks import UNIT_KIND, PieceLook
from engine.rulesets.jep1.initiative import acting_order
from engine.rulesets.jep1.state import JepState
from engine.rulesets.jep1.terrain import LEGEND, WALL

UNIT = PieceLook("circle", "solid", "units")


# What its events mean to a player (the turn summary reads them, engine.eventwords):
# wounds are the damage that gets through the armour.
EVENTS = EventWords(moves=("move", "charge"), attacks=("attack", "shot", "roll", "strike back"),
                    damage_keys=("wounds", "damage"), dice_keys=("faces", "attacks"))


def board(state: JepState) -> Board:
    place = {uid: n for n, uid in enumerate(acting_order(state.units, state.round, state.first), 1)}
    pieces = [
        Piece(id=u.id, square=u.at.name, side=u.side, kind=UNIT_KIND, label=u.id, health=u.H,
              max_health=u.max_h,
              note=f"{u.kind} {u.stat_line()}; skills: "
                   + (", ".join(f"{k} {u.uses[k]}" for k in u.skills) or "none")
                   + (f"; guard: {', '.join(u.guard)}" if u.guard else "")
                   + (" (always)" if u.guard and u.guard_when == "always" else "")
                   + (f"; strikes back with: {', '.join(u.strike)}" if u.strike else "")
                   + f"; acts #{place[u.id]} in round {state.round}",
              look=UNIT)
        for u in state.living()
    ]
    marks = [Mark.from_json(m) for m in state.marks]
    terrain = {sq.name: WALL for sq in state.walls}
    return Board(int(state.options["width"]), int(state.options["height"]), terrain, pieces, marks,
                 dict(LEGEND) if terrain else {}, list(state.players))
