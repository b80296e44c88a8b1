"""dicepost's app icon: a die showing five on the house's ink colour, drawn here as SVG and
as PNG (the sizes a web app manifest and phones' home screens ask for), with no image file
to ship and no image library: the PNG is written with zlib by hand."""

from __future__ import annotations

import struct
import zlib
from functools import cache

BACKGROUND = (0x1F, 0x4E, 0x5F)  # the header's ink
FACE = (0xFF, 0xFF, 0xFF)
PIPS = ((0.3, 0.3), (0.7, 0.3), (0.5, 0.5), (0.3, 0.7), (0.7, 0.7))  # five, in units of the side
PIP_RADIUS = 0.08
FACE_INSET = 0.16  # the die's face inside the square (maskable icons keep a safe zone)
THEME = "#1f4e5f"


def svg() -> str:
    pips = "".join(f'<circle cx="{x * 512:g}" cy="{y * 512:g}" r="{PIP_RADIUS * 512:g}"/>' for x, y in PIPS)
    inset = FACE_INSET * 512
    return ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 512 512">'
            f'<rect width="512" height="512" fill="{THEME}"/>'
            f'<rect x="{inset:g}" y="{inset:g}" width="{512 - 2 * inset:g}" height="{512 - 2 * inset:g}" '
            f'rx="48" fill="#fff"/><g fill="{THEME}">{pips}</g></svg>')


def _row(y: float, size: int) -> bytes:
    """One row of pixels at height y (in units of the side): the background, the face, and
    the spans the pips cover."""
    if not FACE_INSET <= y <= 1 - FACE_INSET:
        return bytes(BACKGROUND) * size
    colours = [BACKGROUND if not FACE_INSET <= (i + 0.5) / size <= 1 - FACE_INSET else FACE
               for i in range(size)]
    for px, py in PIPS:
        half = PIP_RADIUS ** 2 - (y - py) ** 2
        if half >= 0:
            reach = half ** 0.5
            for i in range(max(0, int((px - reach) * size) - 1), min(size, int((px + reach) * size) + 2)):
                if abs((i + 0.5) / size - px) <= reach:
                    colours[i] = BACKGROUND
    return b"".join(bytes(c) for c in colours)


@cache
def png(size: int) -> bytes:
    """The icon as a PNG of size x size pixels (RGB, 8 bits)."""
    rows = b"".join(b"\x00" + _row((j + 0.5) / size, size) for j in range(size))  # filter: none

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows, 9))
            + chunk(b"IEND", b""))
