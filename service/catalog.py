"""The registered rulesets and their options, as the API, the pages and the CLI list them."""

from __future__ import annotations

import logging
import re
import textwrap
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from engine import Revision, find_ruleset, rulesets
from engine.dice import DEFAULT_CHAIN_LENGTH
from engine.orders import OrderErrors, Verb, parse_order_text
from engine.teaching import ExampleDrift, Teaching, WorkedExample
from service.render.sentences import plain

SAMPLE = {"square": "c3", "unit": "B1", "int": "1"}  # a sample argument of each kind
log = logging.getLogger(__name__)
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
    revision: int  # the revision these rules are (a game's, or the newest)
    revisions: tuple[Revision, ...]  # every revision, oldest first, with its changes
    teaching: Teaching | None = None  # how to win, a round, the limits (engine.teaching)
    example: WorkedExample | None = None  # a round played by the engine with scripted dice

    @property
    def newest(self) -> int:
        return self.revisions[-1].number

    @property
    def order_lines(self) -> list[str]:
        return [v.line for v in self.verbs]

    @property
    def example_events(self) -> list[str]:
        """What happened in the worked example, as pages and mails show events."""
        return [plain(text) for text in self.example.events] if self.example else []

    @property
    def teaching_lines(self) -> list[str]:
        """The short course as plain text lines wrapped for a mail (the HELP mail): the same
        sentences the rules page opens with, and its worked example."""
        t, ex = self.teaching, self.example
        if t is None:
            return []

        def item(text: str, first: str, rest: str) -> list[str]:
            return textwrap.wrap(text, 76, initial_indent=first, subsequent_indent=rest)

        out = [*item("How to win: " + t.win, "", "  "), "", "A round:"]
        for n, step in enumerate(t.sequence, 1):
            out += item(step, f"  {n}. ", "     ")
        out += ["", "Limits:"]
        for limit in t.limits:
            out += item(limit, "  - ", "    ")
        if ex is not None:
            out += ["", *item("A round worked out. " + ex.setting, "", "  "), "  Orders:"]
            out += [f"    {player}: {line}" for player, line in ex.orders]
            if ex.dice:
                out += item("Dice: " + "; ".join(f"{label} = {face}" for label, face in ex.dice),
                            "  ", "    ")
            out.append("  What happened:")
            for text in self.example_events:
                out += item(text, "    ", "      ")
            if ex.moral:
                out += item("Why: " + ex.moral, "  ", "    ")
        return out


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


def rules_help(ruleset_id: str, revision: int | None = None) -> RulesHelp:
    """The ruleset as it plays under `revision` (None: the newest). Raises
    engine.registry.UnknownRuleset or UnknownRevision for one that is not there."""
    ruleset = find_ruleset(ruleset_id, revision)
    info = ruleset.info
    verbs = tuple(VerbHelp(v.usage(), v.help, _example(v), v.role, v.aliases) for v in ruleset.verbs)
    verbs += (VerbHelp(PASS_HELP[0], PASS_HELP[1], PASS_HELP[2], "setting", ()),)
    options = next(r["options"] for r in rulesets_json() if r["id"] == info.id)
    return RulesHelp(info.id, info.title, info.summary, players_words(info.min_players, info.max_players),
                     verbs, tuple(options), info.glossary, ruleset.revision, info.revisions,
                     info.teaching, worked_example(info.id, ruleset.revision))


# Each ruleset object's worked example, played once: keyed by the object's id and holding
# the object, so a ruleset registered later under the same name plays its own.
_examples: dict[int, tuple[object, WorkedExample | None]] = {}


def worked_example(ruleset_id: str, revision: int) -> WorkedExample | None:
    """The ruleset's worked example as the revision's own rules play it (engine.teaching:
    its numbers are the engine's, never written by hand)."""
    ruleset = find_ruleset(ruleset_id, revision)
    kept = _examples.get(id(ruleset))
    if kept is None or kept[0] is not ruleset:
        teaching = ruleset.info.teaching
        try:
            example = None if teaching is None else teaching.example(ruleset)
        except ExampleDrift:
            # A revision whose rules roll other dice than the example scripts: the page
            # goes without the example rather than show numbers these rules never gave.
            log.warning("%s revision %s: the worked example does not fit these rules",
                        ruleset_id, revision, exc_info=True)
            example = None
        kept = _examples[id(ruleset)] = (ruleset, example)
    return kept[1]


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
        options.append({"name": "no_rollback", "default": None,
                        "doc": "true: the GM may never roll the game back (default: true for a public "
                               "game, false for a private one; service option)",
                        "kind": "bool", "choices": [], "minimum": None, "maximum": None})
        out.append({"id": info.id, "title": info.title, "min_players": info.min_players,
                    "max_players": info.max_players, "summary": info.summary, "options": options,
                    "revision": info.revision,
                    "revisions": [{"number": v.number, "changes": list(v.changes)}
                                  for v in info.revisions]})
    return out


Glossary = Sequence[tuple[str, str]]


@cache
def _gloss_pattern(glossary: tuple[tuple[str, str], ...]) -> re.Pattern[str] | None:
    """One pattern finding every glossary word in a stat string, longest first: a word
    written with slashes ("EP/Pw/D") matches a stat line of as many numbers ("1/4/5"); a
    short word (one or two letters: "I", "Pw") only with its number after it ("I2",
    "H3/3"), so a lone letter of a sentence is never taken for a stat; any other word
    alone ("Mortar", "reach", "dice policy"), whole or plural, in any case."""
    parts = []
    for n, (word, _meaning) in enumerate(sorted(glossary, key=lambda e: -len(e[0]))):
        if "/" in word:
            count = word.count("/") + 1
            body = r"\d+" + r"/\d+" * (count - 1)
            parts.append(rf"(?P<g{n}>(?<![\w/]){body}(?![\w/]))")
        elif len(word) <= 2:
            parts.append(rf"(?P<g{n}>(?<![\w/]){re.escape(word)}\d+(?:/\d+)?(?![\w/]))")
        else:
            parts.append(rf"(?P<g{n}>(?<!\w)(?i:{re.escape(word)})(?:e?s)?(?!\w))")
    return re.compile("|".join(parts)) if parts else None


def gloss(text: str, glossary: Glossary) -> list[tuple[str, str, str]]:
    """The text in runs: (run, the glossary word it stands for, its meaning), word and
    meaning '' for plain text between the stats (one source: the ruleset's glossary)."""
    entries = tuple(sorted(glossary, key=lambda e: -len(e[0])))
    pattern = _gloss_pattern(tuple(glossary))
    if pattern is None or not text:
        return [(text, "", "")] if text else []
    out: list[tuple[str, str, str]] = []
    at = 0
    for m in pattern.finditer(text):
        if m.start() > at:
            out.append((text[at:m.start()], "", ""))
        word, meaning = entries[int(str(m.lastgroup)[1:])]
        out.append((m.group(), word, meaning))
        at = m.end()
    if at < len(text):
        out.append((text[at:], "", ""))
    return out


def glossary_used(texts: Iterable[str], glossary: Glossary) -> list[tuple[str, str]]:
    """The glossary's entries these texts use, in the glossary's order: what a roster's
    glossary below it lists."""
    used = {word for text in texts for _run, word, _m in gloss(text, glossary) if word}
    return [(word, meaning) for word, meaning in glossary if word in used]
