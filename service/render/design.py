"""The design tokens of templates/web/dicepost.css, read once, for what cannot use CSS.

Pages inline the stylesheet and use its custom properties. Mail clients strip <style>
elements, so the HTML mails and the board pictures write colours and font stacks into
inline styles and SVG attributes instead; they take them from here, so the stylesheet's
light-scheme :root block stays the one source. Light only: mail clients that darken a
mail invert its colours on their own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from importlib.resources import files

SIDES = 8  # --side-0 .. --side-7

_COMMENT = re.compile(r"/\*.*?\*/", re.S)
_ROOT = re.compile(r"^:root\{(?P<body>[^}]*)\}", re.M)
_PROPERTY = re.compile(r"--(?P<name>[\w-]+)\s*:\s*(?P<value>[^;]+)")


@dataclass(frozen=True)
class Tokens:
    """The light scheme's values, named as in the stylesheet (`--surface-2` is `surface_2`)."""

    font: str
    mono: str
    bg: str
    surface: str
    surface_2: str
    text: str
    muted: str
    line: str
    link: str
    ok: str
    ok_bg: str
    bad: str
    bad_bg: str
    warn: str
    warn_bg: str
    sides: tuple[str, ...]  # --side-N: a seat's ink
    side_fills: tuple[str, ...]  # --side-N-bg: the light fill under a seat's piece
    side_game: str
    terrain_wall: str
    terrain_water: str
    terrain_forest: str
    terrain_rough: str
    terrain_hill: str
    terrain_other: str


def stylesheet_text() -> str:
    return _stylesheet()


@cache
def _stylesheet() -> str:
    # Our own package file, never user input.
    return files("templates").joinpath("web/dicepost.css").read_text(encoding="utf-8")


def parse_root(css: str) -> dict[str, str]:
    """The custom properties of the first top-level `:root{...}` block (the light scheme;
    the dark one sits inside @media), by name without the leading `--`. Double quotes
    become single ones so a value fits a double-quoted style attribute."""
    match = _ROOT.search(_COMMENT.sub("", css))
    if match is None:
        raise ValueError("the stylesheet has no top-level :root{...} block")
    return {m["name"]: m["value"].strip().replace('"', "'") for m in _PROPERTY.finditer(match["body"])}


def tokens_from(css: str) -> Tokens:
    props = parse_root(css)

    def get(name: str) -> str:
        try:
            return props[name]
        except KeyError:
            raise ValueError(f"the stylesheet's :root has no --{name}") from None

    seats = ("sides", "side_fills")
    simple = {f: get(f.replace("_", "-")) for f in Tokens.__dataclass_fields__ if f not in seats}
    return Tokens(sides=tuple(get(f"side-{i}") for i in range(SIDES)),
                  side_fills=tuple(get(f"side-{i}-bg") for i in range(SIDES)), **simple)


@cache
def tokens() -> Tokens:
    return tokens_from(_stylesheet())
