"""The registered rulesets and their options, as the API, the pages and the CLI list them."""

from __future__ import annotations

from typing import Any

from engine import rulesets
from engine.dice import DEFAULT_CHAIN_LENGTH


def rulesets_json() -> list[dict[str, Any]]:
    out = []
    for r in rulesets():
        info = r.info
        options = [{"name": o.name, "default": o.default, "doc": o.doc, "kind": o.kind,
                    "choices": list(o.choices), "minimum": o.minimum, "maximum": o.maximum}
                   for o in info.options]
        options.append({"name": "chain_length", "default": DEFAULT_CHAIN_LENGTH,
                        "doc": "most steps the game's dice chain covers (service option)",
                        "kind": "int", "choices": [], "minimum": 2, "maximum": 100_000})
        out.append({"id": info.id, "title": info.title, "min_players": info.min_players,
                    "max_players": info.max_players, "summary": info.summary, "options": options})
    return out
