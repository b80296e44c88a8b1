"""What a picture of a universal game needs, and how its pieces look: units are circles,
tokens dashed squares (a token is a marker, not a fighting figure)."""

from __future__ import annotations

from engine.contract import Board, Mark, Piece
from engine.eventwords import EventWords, Modifier, Tagged
from engine.looks import UNIT_KIND, PieceLook

from .state import State

TERRAIN_LEGEND = {"wall": "cannot be entered", "rough": "costs 1.5 squares to enter"}
UNIT = PieceLook("circle", "solid", "units")
TOKEN = PieceLook("square", "dashed", "tokens")


# What its events mean to a player (the turn summary reads them, engine.eventwords).
EVENTS = EventWords(
    losses=("defeat", "eliminated"), attacks=("attack", "counter"), counters=("counter",),
    tagged=(Tagged("token", "token", "token", one="token gained", many="tokens gained"),
            Tagged("hold", "hold", "held")),
    modifiers=(Modifier("helpers", "+1 die: {name} beside both", unless="attacker"),
               Modifier("supporters", "+1 die: {name} in support"),
               Modifier("allies", "+1 defence: {name} beside {defender}"),
               Modifier("defender_bonus", "+{n} defence: {defender} is a Defender"),
               Modifier("in_a_row", "+{n} defence: {attacker} attacks again in a row")),
)


def board(state: State) -> Board:
    pieces = [
        Piece(id=u.id, square=u.square.name, side=u.side, kind="token" if u.token else UNIT_KIND,
              label=u.id, health=u.ep, max_health=u.max_ep,
              note=", ".join(t.capitalize() for t in u.types) + ("; " if u.types else "")
              + f"{u.ep}/{state.power(u)}/{state.defence(u)}",
              look=TOKEN if u.token else UNIT)
        for u in state.units.values()
    ]
    marks = [Mark.from_json(m) for m in state.marks]
    legend = {k: TERRAIN_LEGEND[k] for k in sorted(set(state.terrain.values())) if k in TERRAIN_LEGEND}
    return Board(int(state.options["width"]), int(state.options["height"]), dict(state.terrain),
                 pieces, marks, legend, list(state.seats))
