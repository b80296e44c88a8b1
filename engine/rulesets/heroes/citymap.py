"""Regal City: rooftops, the four quadrants and the corner start tiles.

Seed, "Starting the game", step 3: "Place your chosen game tile in your corner. Each other
player will also choose a game tile ... then the other spaces around the game board can be
filled in." We read a game tile as a preset quadrant (data/maps/tiles.json): each hero's
force names one for its start corner, empty corners get the tiles nobody chose, in file
order. Option `map` instead names a whole custom map (data/maps/<id>.json).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

from engine.contract import OptionError
from engine.grid import Square, SquareError, parse_square

MAPS = Path(__file__).parent / "data" / "maps"
TILE_SIZE = 6
# Seat i starts in CORNERS[i]: opposite corners first, so two heroes start far apart.
CORNERS = ("sw", "ne", "se", "nw")
QUADRANTS = ("sw", "se", "nw", "ne")  # the order of the henchmen & civvies rolls


@cache
def tiles() -> dict[str, dict[str, Any]]:
    data = json.loads((MAPS / "tiles.json").read_text(encoding="utf-8"))
    return {k: v for k, v in data.items() if not k.startswith("_")}


def map_ids() -> tuple[str, ...]:
    return tuple(sorted(p.stem for p in MAPS.glob("*.json") if p.stem != "tiles"))


@cache
def custom_map(map_id: str) -> dict[str, Any]:
    path = MAPS / f"{map_id}.json"
    if map_id not in map_ids():
        raise OptionError("map", f"no map {map_id!r}; maps: tiles, {', '.join(map_ids())}")
    return dict(json.loads(path.read_text(encoding="utf-8")))


def quadrant_of(sq: Square, width: int, height: int) -> str:
    ns = "n" if sq.row >= height // 2 else "s"
    we = "e" if sq.col >= width // 2 else "w"
    return ns + we


@cache
def quadrant_squares(quadrant: str, width: int, height: int) -> tuple[Square, ...]:
    """The quadrant's squares, row by row (cached: every spawn roll scans them)."""
    cols = range(width // 2, width) if quadrant[1] == "e" else range(0, width // 2)
    rows = range(height // 2, height) if quadrant[0] == "n" else range(0, height // 2)
    return tuple(Square(c, r) for r in rows for c in cols)


def corner_square(quadrant: str, width: int, height: int) -> Square:
    return Square(width - 1 if quadrant[1] == "e" else 0, height - 1 if quadrant[0] == "n" else 0)


def local_square(quadrant: str, x: int, y: int, width: int, height: int) -> Square:
    """A 6×6 tile position, [0, 0] at the board corner, scaled into the quadrant."""
    qw = width - width // 2 if quadrant[1] == "e" else width // 2
    qh = height - height // 2 if quadrant[0] == "n" else height // 2
    sx, sy = x * qw // TILE_SIZE, y * qh // TILE_SIZE
    col = width - 1 - sx if quadrant[1] == "e" else sx
    row = height - 1 - sy if quadrant[0] == "n" else sy
    return Square(col, row)


def corner_tiles(chosen: Sequence[str | None]) -> dict[str, str]:
    """Corner → tile id: the seats' choices, then unchosen tiles for the empty corners."""
    out: dict[str, str] = {}
    for corner, tile in zip(CORNERS, chosen, strict=False):
        if tile:
            out[corner] = tile
    spare = [t for t in tiles() if t not in out.values()] or list(tiles())
    for corner in CORNERS:
        if corner not in out:
            out[corner] = spare.pop(0) if spare else next(iter(tiles()))
    return out


def check_map_size(options: Mapping[str, Any]) -> None:
    """A custom map fixes the board: width and height must match it."""
    if options["map"] == "tiles":
        return
    data = custom_map(str(options["map"]))
    if (data["width"], data["height"]) != (options["width"], options["height"]):
        raise OptionError("map", f"{options['map']} is {data['width']}x{data['height']}: "
                          f"set width and height to match")


def build_rooftops(options: Mapping[str, Any], chosen: Sequence[str | None]) -> set[Square]:
    width, height = int(options["width"]), int(options["height"])
    if options["map"] != "tiles":
        check_map_size(options)
        data = custom_map(str(options["map"]))
        try:
            roofs = {parse_square(s) for s in data["rooftops"]}
        except SquareError as exc:
            raise OptionError("map", f"{options['map']}: {exc}") from None
    else:
        roofs = set()
        for corner, tile in corner_tiles(chosen).items():
            for x, y in tiles()[tile]["rooftops"]:
                roofs.add(local_square(corner, x, y, width, height))
    # A start corner is always street: heroes come back there after a knock-out.
    for corner in CORNERS:
        roofs.discard(corner_square(corner, width, height))
    return {r for r in roofs if 0 <= r.col < width and 0 <= r.row < height}
