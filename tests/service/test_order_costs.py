"""What an order costs the unit beyond itself (Order.cost, as the ruleset's legal orders
give it) is said beside it: on the player page's lists (in words, with a ⚠), in the API's
legal orders, in the mail's summary of what each unit may do and in its order template."""

from __future__ import annotations

import re
from typing import Any

from flask import Flask

from engine import find_ruleset
from engine.orders import Order
from service.outbound.context import legal_summary
from service.turn_summary import template_line
from tests.service.play import opening, start


def _legal(ruleset_id: str) -> dict[str, list[Order]]:
    return opening(ruleset_id)[0]


def test_the_template_line_says_what_the_unit_s_dearer_orders_cost_and_still_parses():
    """fivedice: a knight's nearest move costs nothing; the line names, after a second '#',
    an example of each cost its other orders have. Taking the first '# ' off leaves an
    order the parser takes (the note is a comment)."""
    legal = _legal("fivedice")
    line = template_line("A1", legal["A1"])
    first = legal["A1"][0]
    assert not first.cost and line.startswith(f"# {first.format()}  # mind: ")
    for cost in ("costs its attack this round", "costs its defence this round",
                 "costs its attack and defence this round"):
        assert cost in line
    assert len(line) <= 200
    from engine.orders import parse_order_text
    rules = find_ruleset("fivedice")
    assert parse_order_text(line[2:], rules.verbs) == [first]


def test_an_order_that_costs_says_so_on_its_own_template_line():
    """heroes: every move is "moved: -1" on the hero's strikes this turn."""
    legal = _legal("heroes")
    unit = sorted(legal)[0]
    assert template_line(unit, legal[unit]) == (
        f"# {legal[unit][0].format()}  # moved: -1 on its strikes this turn")
    universal = _legal("universal")  # nothing costs anything: the plain line
    assert template_line("A1", universal["A1"]) == f"# {universal['A1'][0].format()}"


def test_the_mail_summary_lists_dearer_orders_apart_with_their_cost():
    lines = legal_summary(_legal("fivedice"))
    a1 = next(line for line in lines if line.startswith("A1: "))
    assert re.search(r"; move [a-l]\d+, .*\(costs its attack this round\)", a1), a1
    assert "(costs its attack and defence this round)" in a1
    assert "use potion (costs its attack this round)" in a1


def test_the_player_page_marks_dear_orders_in_words(app: Flask, client: Any) -> None:
    table = start(client, "fivedice")
    page = client.get(f"/games/{table.id}/player/{table.tokens['alice']}").get_data(as_text=True)
    assert 'id="cost-note"' in page
    assert re.search(r'<optgroup label="\d squares away, costs its attack this round">', page)
    assert re.search(r'data-cost="costs its attack this round"[^>]*>⚠ potion \(costs its attack '
                     r'this round\)</option>', page)
    legal = client.get(f"/api/games/{table.id}/orders", headers=table.auth("alice")).json
    costs = {o["cost"] for orders in legal["legal"].values() for o in orders}
    assert {"", "costs its attack this round", "costs its defence this round"} <= costs
    plain = start(client)  # universal: no order costs anything, no note
    page = client.get(f"/games/{plain.id}/player/{plain.tokens['alice']}").get_data(as_text=True)
    assert 'id="cost-note"' not in page and "data-cost" not in page


