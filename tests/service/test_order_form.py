"""The order form's lists say what they mean: the empty choice by what it means, long
move lists grouped by distance and cost, refusals placed where the player wrote them."""

from __future__ import annotations

from typing import Any

from service.web.order_form import order_form, order_lines
from tests.service.play import opening


def _lists(ruleset_id: str) -> dict[str, object]:
    legal, squares, verbs = opening(ruleset_id)
    form = order_form(legal, verbs, "", squares)
    return {lst.label: lst for unit in form.units for lst in unit.lists}


def test_the_empty_choice_says_what_leaving_it_means():
    heroes = _lists("heroes")
    reroll = next(lst for label, lst in heroes.items() if label.endswith(" reroll"))
    assert reroll.empty == "keep reroll as it is"  # beside auto, lowest, never: no two mean the same
    assert [reroll.shown(c) for c in reroll.choices] == ["auto", "lowest", "never"]
    move = next(lst for label, lst in heroes.items() if label.endswith(" move"))
    assert move.empty == "no move: stays where it is"
    fivedice = _lists("fivedice")
    assert fivedice["A1 dice"].empty == "keep dice as it is"  # not "no dice": the unit keeps its placement
    jep1 = _lists("jep1")
    assert jep1["A1 guard"].empty == "keep guard as it is"


def test_long_move_lists_come_in_groups_by_distance_and_cost():
    """fivedice offers A1 over a hundred moves: they are grouped, nearest first, and each
    group's heading says what its moves cost the unit, as the ruleset gives it: beyond
    1 x movement its attack (or, with 'lose defence', its defence), beyond 2 x both."""
    move = _lists("fivedice")["A1 move"]
    assert len(move.choices) > 100
    labels = [g.label for g in move.groups]
    assert labels[0] == "1 square away"
    assert sum(len(g.choices) for g in move.groups) == len(move.choices)
    for cost in ("costs its attack this round", "costs its defence this round",
                 "costs its attack and defence this round"):
        assert any(label.endswith(", " + cost) for label in labels)
    for g in move.groups:
        for c in g.choices:
            assert g.label.endswith(c.cost)
            assert ("lose" in c.args) == (c.cost == "costs its defence this round")
            assert move.shown(c, grouped=True) == " ".join(c.args)  # the heading says the cost
    assert len(_lists("heroes")["Z1 move"].groups) == 1  # 8 moves: one plain list


def test_a_short_list_says_each_order_s_cost_beside_it():
    """heroes: "moved before attacking -1" (docs/rulesets/heroes.md, Modifiers). Z1's
    moves are one plain list, so each option says it; a face order costs nothing."""
    lists = _lists("heroes")
    move = lists["Z1 move"]
    assert all(move.shown(c) == f"{c.args[0]} (moved: -1 on its strikes this turn)"
               for c in move.choices)
    face = lists["Z1 face"]
    assert [face.shown(c) for c in face.choices][:2] == ["n", "ne"]
    legal, squares, verbs = opening("heroes")
    assert order_form(legal, verbs, "", squares).costly
    legal, squares, verbs = opening("universal")
    assert not order_form(legal, verbs, "", squares).costly  # nothing costs a unit anything


def test_every_posted_line_says_where_it_was_written():
    posted = {"units": "2", "unit-0": "A1 move c3", "unit-0-1": "A1 attack B2", "unit-1": "",
              "free": "A2 fly away\n\nA3 hold"}
    assert order_lines(posted) == [("A1 move c3", "from a list"), ("A1 attack B2", "from a list"),
                                   ("A2 fly away", "box line 1"), ("", "box line 2"),
                                   ("A3 hold", "box line 3")]


def test_a_refusal_names_each_line_once_and_as_the_player_wrote_it(sqlite_app: Any) -> None:
    """A line picked from a list is not labelled with its own unit and verb again, and the
    lines a refusal points to are named as the page shows them (the box's own numbers, or
    the picked line), not by their place in the lists and box together."""
    from tests.service.play import start

    client = sqlite_app.test_client()
    table = start(client)
    path = f"/games/{table.id}/player/{table.tokens['alice']}"
    r = client.post(path, data={"units": "8", "unit-0": "A1 move z99", "free": "A2 hold\nA2 hold",
                                "round": "1"})
    page = " ".join(r.get_data(as_text=True).split())
    assert r.status_code == 422
    assert "<li>from a list <code>A1 move z99</code>: A1 cannot move to z99" in page
    assert "<li>box line 2 <code>A2 hold</code>: A2 already holds (box line 1)</li>" in page
    assert "list A1 move" not in page
    live = client.post(path + "/check", data={"units": "8", "unit-0": "A1 hold", "free": "A1 hold",
                                              "round": "1"}).json
    assert live["errors"][0]["message"] == "A1 already holds ('A1 hold')"
