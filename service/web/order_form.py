"""The player page's order form: a list per unit and verb, then a free-text box.

Each unit gets one list for each verb of its legal orders (`A1 move`,
`A1 attack`, `A1 guard`), in the ruleset's verb order, so a unit can be given a move
and then an attack, or a move and a facing, without typing. The form sends the lists'
lines unit by unit (B2 before B10), each unit's in verb order, then the box's lines.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.grid import SquareError, distance, parse_square
from engine.orders import Order
from service.render.grid_legend import natural_key

MAX_UNITS = 500
MAX_LISTS = 50  # lists per unit the server reads: more than any ruleset's verbs
GROUP_FROM = 13  # a list with this many choices or more is shown in groups

# The empty choice, by what leaving the list empty means for an order of that role: a
# setting stays as it was set, anything else is simply not done this round.
EMPTY_BY_ROLE = {"setting": "keep {verb} as it is", "move": "no move: stays where it is",
                 "attack": "no attack", "shot": "no shot", "spell": "no spell"}


@dataclass
class ChoiceGroup:
    """Choices shown under one heading: how far the move goes, what it costs."""

    label: str
    choices: list[Order]


def groups_of(choices: Sequence[Order], at: str | None) -> list[ChoiceGroup]:
    """Long lists grouped by distance from the unit's square and by what a move costs the
    unit (`Order.cost`, as the ruleset gives it); short lists, and orders without a
    square, in one unnamed group."""
    if len(choices) < GROUP_FROM or at is None:
        return [ChoiceGroup("", list(choices))]
    try:
        start = parse_square(at)
    except SquareError:
        return [ChoiceGroup("", list(choices))]
    keyed: dict[tuple[str, int], list[Order]] = {}
    for order in choices:
        try:
            far = distance(start, parse_square(order.square)) if order.square else -1
        except SquareError:
            far = -1
        keyed.setdefault((order.cost, far), []).append(order)
    out = []
    for (cost, far), orders in sorted(keyed.items()):
        where = "" if far < 0 else f"{far} square{'s' if far != 1 else ''} away"
        out.append(ChoiceGroup(", ".join(w for w in (where, cost) if w) or "other", orders))
    return out


@dataclass
class OrderList:
    """One select: a unit's orders of one verb, the first option `no <verb>`; an option's
    value is the order's text."""

    name: str  # the field name and element id
    unit: str
    verb: str
    choices: list[Order]
    chosen: str = ""  # the text of the chosen order
    groups: list[ChoiceGroup] = field(default_factory=list)

    @property
    def label(self) -> str:
        return f"{self.unit} {self.verb}"

    @property
    def empty(self) -> str:
        """The empty choice, named by what it means."""
        role = self.choices[0].role if self.choices else None
        return EMPTY_BY_ROLE.get(role or "", "no {verb}").format(verb=self.verb)

    def shown(self, order: Order, grouped: bool = False) -> str:
        """An option's text: the order without the unit and verb the label names, and what
        it costs the unit (`Order.cost`) unless its group's heading already says it."""
        text = " ".join(order.args) or self.verb
        return f"{text} ({order.cost})" if order.cost and not grouped else text


@dataclass
class UnitOrders:
    unit: str
    lists: list[OrderList] = field(default_factory=list)


@dataclass
class OrderForm:
    units: list[UnitOrders]
    typed: list[str]  # the box's lines

    @property
    def costly(self) -> bool:
        """Whether some offered order costs its unit more than itself (`Order.cost`)."""
        return any(c.cost for u in self.units for lst in u.lists for c in lst.choices)


def field_name(unit_index: int, list_index: int) -> str:
    return f"unit-{unit_index}" if list_index == 0 else f"unit-{unit_index}-{list_index}"


def order_form(units: Mapping[str, Sequence[Order]], verbs: Sequence[str], sent: str,
               squares: Mapping[str, str] | None = None) -> OrderForm:
    """The form for these legal orders, filled with `sent` (the orders that count, or the
    refused text) so that sending it as it comes sends the same lines in the same order;
    `squares` (unit → square) groups long lists by distance."""
    rank = {verb: n for n, verb in enumerate(verbs)}
    form = OrderForm([], [])
    for i, (unit, choices) in enumerate(sorted(units.items(), key=lambda item: natural_key(item[0]))):
        groups: dict[str, list[Order]] = {}
        for order in choices:
            groups.setdefault(order.verb, []).append(order)
        # sorted is stable: verbs the ruleset does not list keep their order, last
        ordered = sorted(groups, key=lambda verb: rank.get(verb, len(rank)))
        at = (squares or {}).get(unit)
        form.units.append(UnitOrders(unit, [OrderList(field_name(i, j), unit, verb, groups[verb],
                                                      groups=groups_of(groups[verb], at))
                                            for j, verb in enumerate(ordered)]))
    fill(form, sent)
    return form


def fill(form: OrderForm, sent: str) -> None:
    """Each line goes to the list that offers it while the lines keep to the form's order;
    from the first that cannot (a later list's line written first, a second line of one
    verb, a typed line) every line is typed in the box, in the order written."""
    lists = [lst for unit in form.units for lst in unit.lists]
    place = {order.format(): n for n, lst in enumerate(lists) for order in lst.choices}
    reached = -1  # the form position of the last line placed in a list
    for line in sent.splitlines():
        if not line.strip() or line.strip().lower() == "pass":
            continue
        at = place.get(line)
        if not form.typed and at is not None and at > reached:
            lists[at].chosen = line
            reached = at
        else:
            form.typed.append(line)


LIST_PLACE = "from a list"


def order_lines(form: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The posted form's lines in form order, each with where the player wrote it: the
    lists' lines ('from a list': the line itself names its unit and verb), then the box's
    ('box line 1')."""
    try:
        count = min(int(form.get("units", 0)), MAX_UNITS)
    except ValueError:
        count = 0
    out: list[tuple[str, str]] = []
    for i in range(count):
        for j in range(MAX_LISTS):
            line = str(form.get(field_name(i, j), ""))
            if line.strip():
                out.append((line, LIST_PLACE))
    free = str(form.get("free", ""))
    if free.strip():
        out += [(line, f"box line {n}") for n, line in enumerate(free.splitlines(), start=1)]
    return out


def order_text(form: Mapping[str, Any]) -> str:
    """The order text of a posted form: the lists' lines in form order, then the box."""
    return "\n".join(line for line, _ in order_lines(form))
