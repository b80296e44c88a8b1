"""The order language: one order per line, `#` comments, case-insensitive words.

    A1 move c3          # the engine finds the cheapest legal path
    A1 move b2 c3       # through waypoints, in turn
    A1 attack B2
    pass                # an explicit empty order set

What players naturally type is read too: commas and "and" between list items
(`A1 move c2, d2`), the small words "to" and "at" (`A1 move to c3`, `cast firebolt at B2`),
a verb's aliases and fillers, an argument's long names (`face north`) and a verb's
multi-word phrases (`action blinding glare H1`). Two orders joined on one line
(`A1 move c2 and attack B1`) are refused with "one order a line".

Rulesets declare their verbs (`Verb`) with typed arguments and a role; this module turns
text into `Order`s or an `OrderErrors` listing every bad line with its number, its text and
a message a player understands. `Order.format()` gives text that parses back to the
same order; `Verb.order` builds an order as a ruleset offers or a bot chooses it.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import KW_ONLY, dataclass, field
from typing import Literal

from engine.grid import SquareError, parse_square, square_name

MAX_ORDER_TEXT = 20_000
MAX_LINE = 200
_UNIT_RE = re.compile(r"^[A-Za-z]{1,3}[0-9]{1,3}$")
_WORD_RE = re.compile(r"^[a-z][a-z0-9_\-]*$")

ArgKind = Literal["square", "unit", "word", "int"]
# What an order does, for code that must not know a ruleset's verbs (generic bots, forms,
# tapping on the grid): move (the unit goes to a square), attack (close combat against a
# unit), shot (a ranged attack), spell (a spell or power cast), action (anything else done
# this round: save, search, climb, use an item, hold) and setting (a standing choice or a
# free change: facing, a dice or re-roll policy, guard skills).
Role = Literal["move", "attack", "shot", "spell", "action", "setting"]
ROLES: tuple[Role, ...] = ("move", "attack", "shot", "spell", "action", "setting")


@dataclass(frozen=True)
class Arg:
    """One argument of a verb. `choices` limits a word; `repeat` takes one or more."""

    name: str
    kind: ArgKind
    choices: tuple[str, ...] = ()
    optional: bool = False
    repeat: bool = False
    aliases: tuple[tuple[str, str], ...] = ()  # (what a player may write, the choice it means)


@dataclass(frozen=True)
class Verb:
    """One word of a ruleset's order language: its arguments, its help and its role (what
    generic code may know of it, declared once here)."""

    name: str
    args: tuple[Arg, ...] = ()
    help: str = ""
    _: KW_ONLY
    role: Role
    unitless: bool = False  # `pass`, `clear` ...: no unit id before the verb
    aliases: tuple[str, ...] = ()  # other words for the verb: `stay` for `hold`
    fillers: tuple[str, ...] = ()  # words dropped after this verb: `away` in `run away`
    # several words a player may write for one argument word: ("blinding glare", "glare")
    phrases: tuple[tuple[str, str], ...] = ()

    def usage(self) -> str:
        parts = [] if self.unitless else ["UNIT"]
        parts.append(self.name)
        for a in self.args:
            label = "|".join(a.choices) if a.choices else a.name.upper()
            label += "..." if a.repeat else ""
            parts.append(f"[{label}]" if a.optional else label)
        return " ".join(parts)

    def order(self, unit: str | None, *args: str, cost: str = "") -> Order:
        """This verb's order, from normalized words (upper-case unit ids, square names as
        `square_name` writes them): what `legal_orders` offers and bots choose, equal to
        what parsing its `format()` gives. `cost`: what giving it costs the unit beyond
        the order itself (`Order.cost`)."""
        return Order(unit, self.name, args, 0, self, cost)

    def layout(self, count: int) -> tuple[Arg, ...]:
        """The argument each of `count` parsed words fills, as the parser assigns them."""
        out: list[Arg] = []
        left = count
        for i, arg in enumerate(self.args):
            if not left:
                break
            take = 1
            if arg.repeat:
                later = sum(1 for a in self.args[i + 1:] if not a.optional)
                take = max(1, left - later)
            out.extend([arg] * take)
            left -= take
        return tuple(out)


@dataclass(frozen=True)
class Order:
    """An order: unit id (upper case, None for unitless verbs), verb and arguments, as
    parsed from a line or built by `Verb.order`. `spec` is the verb it was made from (None
    for an order written by hand in code: it then has no role, square or target); orders
    are equal when unit, verb and arguments are."""

    unit: str | None
    verb: str
    args: tuple[str, ...] = ()
    line: int = field(default=0, compare=False)
    spec: Verb | None = field(default=None, compare=False, repr=False)
    # What carrying it out costs the unit beyond the order itself, by the rules: its
    # attack or defence this round, a modifier on its strikes ("costs its attack"), in a
    # few words a form shows beside it; '' when nothing. Set by legal_orders (a parsed
    # order has none), never part of the order's text or equality.
    cost: str = field(default="", compare=False)

    @property
    def role(self) -> Role | None:
        """What the order does (`Role`), as its verb declares."""
        return self.spec.role if self.spec else None

    def _of_kind(self, kind: ArgKind) -> list[str]:
        if self.spec is None:
            return []
        return [a for a, spec in zip(self.args, self.spec.layout(len(self.args)), strict=True)
                if spec.kind == kind]

    @property
    def square(self) -> str | None:
        """The last square it names: where a move ends, what a climb or a refuge aims at."""
        found = self._of_kind("square")
        return found[-1] if found else None

    @property
    def target(self) -> str | None:
        """The first unit it names: what an attack, shot or spell aims at."""
        found = self._of_kind("unit")
        return found[0] if found else None

    def format(self) -> str:
        head = [self.unit] if self.unit else []
        return " ".join([*head, self.verb, *self.args])

    def to_json(self) -> dict[str, object]:
        """The order as pages and the API read it: its text and what it does and aims at."""
        return {"text": self.format(), "unit": self.unit, "verb": self.verb, "args": list(self.args),
                "role": self.role, "square": self.square, "target": self.target, "cost": self.cost}

    def __str__(self) -> str:
        return self.format()


@dataclass(frozen=True)
class OrderProblem:
    """A problem of a whole order set (`Ruleset.check_order_set`): the line to change
    (None: the set as a whole), why, and the other lines it clashes with."""

    line: int | None
    message: str
    others: tuple[int, ...] = ()


@dataclass(frozen=True)
class OrderError:
    """One refusal a player sees: the line (0: the text as a whole), that line's text, why,
    and the other lines the problem spans."""

    line: int
    text: str
    message: str
    others: tuple[int, ...] = ()

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}" if self.line else self.message

    def to_json(self) -> dict[str, object]:
        return {"line": self.line, "text": self.text, "message": self.message,
                "others": list(self.others)}


class OrderErrors(ValueError):
    """Every bad line of an order text at once, so a player can fix them in one go."""

    def __init__(self, errors: Sequence[OrderError]) -> None:
        self.errors = list(errors)
        super().__init__("; ".join(str(e) for e in self.errors))


PASS = Verb("pass", help="submit no orders this round: every unit holds", unitless=True,
            role="setting")
FILLERS = frozenset({"to", "at"})  # `move to c3`, `switch to shortbow`, `cast firebolt at B2`
JOINERS = frozenset({"and", "then"})  # list items (`with berserk and aim`), or two orders


def normalize_unit(text: str) -> str | None:
    return text.upper() if _UNIT_RE.match(text) else None


def _parse_arg(arg: Arg, word: str) -> str:
    """Normalize one argument or raise ValueError with a message for the player."""
    if arg.kind == "square":
        try:
            return square_name(parse_square(word))
        except SquareError as exc:
            raise ValueError(str(exc)) from None
    if arg.kind == "unit":
        unit = normalize_unit(word)
        if unit is None:
            raise ValueError(f"{word!r} is not a unit id (like A1)")
        return unit
    if arg.kind == "int":
        if not re.fullmatch(r"-?[0-9]{1,6}", word):
            raise ValueError(f"{word!r} is not a whole number")
        return str(int(word))
    low = word.lower()
    low = dict(arg.aliases).get(low, low)
    if arg.choices and low not in arg.choices:
        raise ValueError(f"{word!r} is not one of {', '.join(arg.choices)}")
    if not _WORD_RE.match(low):
        raise ValueError(f"{word!r} is not a word this order takes")
    return low


def _match_args(verb: Verb, words: list[str]) -> tuple[str, ...]:
    out: list[str] = []
    rest = list(words)
    for i, arg in enumerate(verb.args):
        if not rest:
            if arg.optional:
                break
            raise ValueError(f"'{verb.name}' needs {arg.name}: {verb.usage()}")
        if arg.repeat:
            # Leave enough words for the required args after this one.
            later = sum(1 for a in verb.args[i + 1 :] if not a.optional)
            take = max(1, len(rest) - later)
            out.extend(_parse_arg(arg, w) for w in rest[:take])
            rest = rest[take:]
        else:
            out.append(_parse_arg(arg, rest.pop(0)))
    if rest:
        raise ValueError(f"too many words after '{verb.name}': {verb.usage()}")
    return tuple(out)


def strip_comment(line: str) -> str:
    return line.split("#", 1)[0].strip()


def parse_order_text(
    text: str,
    verbs: Iterable[Verb],
    check: Callable[[Order], str | None] | None = None,
) -> list[Order]:
    """Parse a whole order text. Raises OrderErrors naming every bad line.

    `check` is the ruleset's judgement of a well-formed order against the state (whose
    unit it is, whether the target exists); it returns a message or None.
    """
    if len(text) > MAX_ORDER_TEXT:
        raise OrderErrors([OrderError(0, "", f"orders are limited to {MAX_ORDER_TEXT} characters")])
    by_name: dict[str, Verb] = {}
    for v in [*verbs, PASS]:
        by_name.update({alias: v for alias in v.aliases})
    by_name.update({v.name: v for v in [*verbs, PASS]})
    orders: list[Order] = []
    errors: list[OrderError] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        body = strip_comment(raw)
        if not body:
            continue
        shown = raw.strip()[:MAX_LINE]
        if len(raw) > MAX_LINE:
            errors.append(OrderError(number, shown, f"a line may be at most {MAX_LINE} characters"))
            continue
        try:
            order = _parse_line(body, by_name, number)
            problem = check(order) if check else None
        except ValueError as exc:
            errors.append(OrderError(number, shown, str(exc)))
            continue
        if problem:
            errors.append(OrderError(number, shown, problem))
        else:
            orders.append(order)
    if any(o.verb == "pass" for o in orders) and len(orders) > 1:
        line = next(o.line for o in orders if o.verb == "pass")
        errors.append(OrderError(line, "pass", "'pass' means no orders: remove it or the other lines"))
    if errors:
        raise OrderErrors(errors)
    return [o for o in orders if o.verb != "pass"]


def _parse_line(body: str, verbs: Mapping[str, Verb], number: int) -> Order:
    words = body.replace(",", " ").split()
    if not words:  # a line of commas alone
        raise ValueError("write one order a line: a unit, then a verb (A1 move c3)")
    first = words[0].lower()
    if first in verbs and verbs[first].unitless:
        verb = verbs[first]
        return Order(None, verb.name, _match_args(verb, words[1:]), number, verb)
    unit = normalize_unit(words[0])
    if unit is None:
        known = ", ".join(sorted({v.name for v in verbs.values()}))
        raise ValueError(f"an order starts with a unit id (like A1) or one of: {known}")
    if len(words) < 2:
        raise ValueError(f"what should {unit} do? Give an order after the unit id")
    found = verbs.get(words[1].lower())
    if found is None or found.unitless:
        names = sorted({v.name for v in verbs.values() if not v.unitless})
        close = difflib.get_close_matches(words[1].lower(), names, n=1)
        hint = f"did you mean {close[0]}? " if close else ""
        raise ValueError(f"'{words[1]}' is not an order here; {hint}unit orders are: {', '.join(names)}")
    rest = _plain_words(unit, found, words[2:], verbs)
    return Order(unit, found.name, _match_args(found, rest), number, found)


def _plain_words(unit: str, verb: Verb, words: list[str], verbs: Mapping[str, Verb]) -> list[str]:
    """The verb's argument words as a player may write them, reduced to the plain ones:
    joiners between list items and filler words dropped, phrases made one word. Raises
    ValueError for a second order joined on the same line."""
    out: list[str] = []
    keep = {c for a in verb.args for c in a.choices}  # a choice is never a filler
    for i, word in enumerate(words):
        low = word.lower()
        if low in JOINERS and low not in keep:
            after = words[i + 1:]
            second = after[1:] if after and normalize_unit(after[0]) else after
            if second and second[0].lower() in verbs:
                then = " ".join(after if after is not second else [unit, *after])
                first = " ".join([unit, verb.name, *words[:i]])
                raise ValueError(f"one order a line: write '{first}' on this line and "
                                 f"'{then}' on the next")
            continue
        if (low in FILLERS or low in verb.fillers) and low not in keep:
            continue
        out.append(word)
    for phrase, one in verb.phrases:
        n = len(phrase.split())
        for i in range(len(out) - n + 1):
            if " ".join(out[i:i + n]).lower() == phrase:
                out[i:i + n] = [one]
                break
    return out


def format_orders(orders: Sequence[Order]) -> str:
    """The canonical text of an order set: one normalized order a line, 'pass' if empty."""
    return "\n".join(o.format() for o in orders) if orders else "pass"


def units_in(text: str) -> set[str]:
    """The units a canonical order text (`format_orders`) gives orders to: each line is an
    `Order.format()`, which starts with its unit (unitless lines name none)."""
    out: set[str] = set()
    for line in text.splitlines():
        words = line.split(maxsplit=1)
        unit = normalize_unit(words[0]) if words else None
        if unit is not None:
            out.add(unit)
    return out
