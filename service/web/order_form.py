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

from engine.orders import Order
from service.render.grid_legend import natural_key

MAX_UNITS = 500
MAX_LISTS = 50  # lists per unit the server reads: more than any ruleset's verbs


@dataclass
class OrderList:
    """One select: a unit's orders of one verb, the first option `no <verb>`; an option's
    value is the order's text."""

    name: str  # the field name and element id
    unit: str
    verb: str
    choices: list[Order]
    chosen: str = ""  # the text of the chosen order

    @property
    def label(self) -> str:
        return f"{self.unit} {self.verb}"

    def shown(self, order: Order) -> str:
        """An option's text: the order without the unit and verb the label names."""
        return " ".join(order.args) or self.verb


@dataclass
class UnitOrders:
    unit: str
    lists: list[OrderList] = field(default_factory=list)


@dataclass
class OrderForm:
    units: list[UnitOrders]
    typed: list[str]  # the box's lines


def field_name(unit_index: int, list_index: int) -> str:
    return f"unit-{unit_index}" if list_index == 0 else f"unit-{unit_index}-{list_index}"


def order_form(units: Mapping[str, Sequence[Order]], verbs: Sequence[str], sent: str) -> OrderForm:
    """The form for these legal orders, filled with `sent` (the orders that count, or the
    refused text) so that sending it as it comes sends the same lines in the same order."""
    rank = {verb: n for n, verb in enumerate(verbs)}
    form = OrderForm([], [])
    for i, (unit, choices) in enumerate(sorted(units.items(), key=lambda item: natural_key(item[0]))):
        groups: dict[str, list[Order]] = {}
        for order in choices:
            groups.setdefault(order.verb, []).append(order)
        # sorted is stable: verbs the ruleset does not list keep their order, last
        ordered = sorted(groups, key=lambda verb: rank.get(verb, len(rank)))
        form.units.append(UnitOrders(unit, [OrderList(field_name(i, j), unit, verb, groups[verb])
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


def order_text(form: Mapping[str, Any]) -> str:
    """The order text of a posted form: the lists' lines in form order, then the box."""
    try:
        count = min(int(form.get("units", 0)), MAX_UNITS)
    except ValueError:
        count = 0
    chosen = [str(form.get(field_name(i, j), "")) for i in range(count) for j in range(MAX_LISTS)]
    free = str(form.get("free", ""))
    return "\n".join([line for line in chosen if line.strip()] + ([free] if free.strip() else []))
