"""The registered rulesets and their options, as the API, the pages and the CLI list them."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from engine import find_ruleset, rulesets
from engine.dice import DEFAULT_CHAIN_LENGTH
from engine.orders import OrderErrors, Verb, parse_order_text

SAMPLE = {"square": "c3", "unit": "B1", "int": "1"}  # a sample argument of each kind
PASS_HELP = ("pass", "submit no orders this round: every unit holds", "pass")
# An example in a verb's help: a unit id, the verb, and what follows up to a bracket or the end.
_EXAMPLE = re.compile(r"\b([A-Z][A-Za-z]?\d+ [a-z]+(?: [A-Za-z0-9-]+)*)")


@dataclass(frozen=True)
class VerbHelp:
    usage: str
    help: str
    example: str
    role: str
    aliases: tuple[str, ...]

    @property
    def line(self) -> str:
        """The one line the HELP mail and the page's quick list show."""
        return f"{self.usage}  - {self.help}" if self.help else self.usage


@dataclass(frozen=True)
class RulesHelp:
    """What a player needs to play a ruleset, from the ruleset itself: the rules page,
    the order form's "how to write orders" and the HELP mail all read this."""

    id: str
    title: str
    summary: str
    players: str
    verbs: tuple[VerbHelp, ...]
    options: tuple[dict[str, Any], ...]
    glossary: tuple[tuple[str, str], ...]

    @property
    def order_lines(self) -> list[str]:
        return [v.line for v in self.verbs]


def _example(verb: Verb) -> str:
    """The first example in the verb's help that the order parser reads as this verb (so
    its aliases and fillers count), else one made from its arguments."""
    for found in _EXAMPLE.findall(verb.help):
        try:
            if [o.verb for o in parse_order_text(found, [verb])] == [verb.name]:
                return str(found)
        except OrderErrors:
            continue
    words = [] if verb.unitless else ["A1"]
    words.append(verb.name)
    for a in verb.args:
        if not a.optional:
            words.append(a.choices[0] if a.choices else SAMPLE.get(a.kind, a.name))
    return " ".join(words)


def players_words(low: int, high: int) -> str:
    return f"{low} players" if low == high else f"{low}–{high} players"


def rules_help(ruleset_id: str) -> RulesHelp:
    """Raises engine.registry.UnknownRuleset for a ruleset that is not registered."""
    ruleset = find_ruleset(ruleset_id)
    info = ruleset.info
    verbs = tuple(VerbHelp(v.usage(), v.help, _example(v), v.role, v.aliases) for v in ruleset.verbs)
    verbs += (VerbHelp(PASS_HELP[0], PASS_HELP[1], PASS_HELP[2], "setting", ()),)
    options = next(r["options"] for r in rulesets_json() if r["id"] == info.id)
    return RulesHelp(info.id, info.title, info.summary, players_words(info.min_players, info.max_players),
                     verbs, tuple(options), info.glossary)


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
