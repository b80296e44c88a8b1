"""The order language: one order per line, `#` comments, case-insensitive words.

    A1 move c3          # the engine finds the cheapest legal path
    A1 move b2 c3       # through waypoints, in turn
    A1 attack B2
    pass                # an explicit empty order set

Rulesets declare their verbs (`Verb`) with typed arguments; this module turns text
into `Order`s or an `OrderErrors` listing every bad line with its number, its text and
a message a player understands. `Order.format()` gives text that parses back to the
same order.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from engine.grid import SquareError, parse_square, square_name

MAX_ORDER_TEXT = 20_000
MAX_LINE = 200
_UNIT_RE = re.compile(r"^[A-Za-z]{1,3}[0-9]{1,3}$")
_WORD_RE = re.compile(r"^[a-z][a-z0-9_\-]*$")

ArgKind = Literal["square", "unit", "word", "int"]


@dataclass(frozen=True)
class Arg:
    """One argument of a verb. `choices` limits a word; `repeat` takes one or more."""

    name: str
    kind: ArgKind
    choices: tuple[str, ...] = ()
    optional: bool = False
    repeat: bool = False


@dataclass(frozen=True)
class Verb:
    name: str
    args: tuple[Arg, ...] = ()
    help: str = ""
    unitless: bool = False  # `pass`, `clear` ...: no unit id before the verb

    def usage(self) -> str:
        parts = [] if self.unitless else ["UNIT"]
        parts.append(self.name)
        for a in self.args:
            label = "|".join(a.choices) if a.choices else a.name.upper()
            label += "..." if a.repeat else ""
            parts.append(f"[{label}]" if a.optional else label)
        return " ".join(parts)


@dataclass(frozen=True)
class Order:
    """A parsed order: unit id (upper case, None for unitless verbs), verb and arguments."""

    unit: str | None
    verb: str
    args: tuple[str, ...] = ()
    line: int = field(default=0, compare=False)

    def format(self) -> str:
        head = [self.unit] if self.unit else []
        return " ".join([*head, self.verb, *self.args])

    def __str__(self) -> str:
        return self.format()


@dataclass(frozen=True)
class OrderError:
    line: int
    text: str
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}" if self.line else self.message

    def to_json(self) -> dict[str, object]:
        return {"line": self.line, "text": self.text, "message": self.message}


class OrderErrors(ValueError):
    """Every bad line of an order text at once, so a player can fix them in one go."""

    def __init__(self, errors: Sequence[OrderError]) -> None:
        self.errors = list(errors)
        super().__init__("; ".join(str(e) for e in self.errors))


PASS = Verb("pass", help="submit no orders this round: every unit holds", unitless=True)


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
    by_name: Mapping[str, Verb] = {v.name: v for v in [*verbs, PASS]}
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
    words = body.split()
    first = words[0].lower()
    if first in verbs and verbs[first].unitless:
        verb = verbs[first]
        return Order(None, verb.name, _match_args(verb, words[1:]), number)
    unit = normalize_unit(words[0])
    if unit is None:
        known = ", ".join(sorted(v.name for v in verbs.values()))
        raise ValueError(f"an order starts with a unit id (like A1) or one of: {known}")
    if len(words) < 2:
        raise ValueError(f"what should {unit} do? Give an order after the unit id")
    found = verbs.get(words[1].lower())
    if found is None or found.unitless:
        unit_verbs = ", ".join(sorted(v.name for v in verbs.values() if not v.unitless))
        raise ValueError(f"'{words[1]}' is not an order here; unit orders are: {unit_verbs}")
    return Order(unit, found.name, _match_args(found, words[2:]), number)


def format_orders(orders: Sequence[Order]) -> str:
    """The canonical text of an order set: one normalized order a line, 'pass' if empty."""
    return "\n".join(o.format() for o in orders) if orders else "pass"
