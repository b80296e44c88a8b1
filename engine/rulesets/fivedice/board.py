"""What a picture of a fivedice game needs: living units, terrain, last round's arrows."""

from __future__ import annotations

from engine.contract import Board, Mark, Piece
from engine.eventwords import EventWords, Modifier
from engine.looks import UNIT_KIND, PieceLook
from engine.rulesets.fivedice.state import GameState
from engine.rulesets.fivedice.terrain import LEGEND

UNIT = PieceLook("circle", "solid", "units")


# What its events mean to a player (the turn summary reads them, engine.eventwords):
# a melee deals damage both ways at once.
EVENTS = EventWords(attacks=("melee", "shot", "spell"), back_keys=("back_damage",),
                    modifiers=(Modifier("obscured", "target partly obscured"),))


def board(state: GameState) -> Board:
    pieces = []
    for u in state.living():
        gear = ", ".join(g for g in (u.wielded, u.sheet.armor) if g) or "no gear"
        pieces.append(Piece(id=u.id, square=u.square.name, side=u.player, kind=UNIT_KIND, label=u.id,
                            health=u.life, max_health=u.sheet.life,
                            note=f"{u.sheet.name}, skill {u.sheet.skill}, {gear}", look=UNIT))
    marks = [Mark.from_json(m) for m in state.marks]
    return Board(width=int(state.options["width"]), height=int(state.options["height"]),
                 terrain={sq.name: kind for sq, kind in sorted(state.terrain.items())},
                 pieces=pieces, marks=marks, legend=dict(LEGEND), sides=list(state.players))
