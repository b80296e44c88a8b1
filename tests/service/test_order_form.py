"""The order form's lists say what they mean: the empty choice by what it means, long
move lists grouped by distance and cost, refusals placed where the player wrote them."""

from __future__ import annotations

from engine import find_ruleset
from engine.dice import Dice
from engine.steps import run_setup, setup_inputs
from service.web.order_form import order_form, order_lines


def _opening(ruleset_id: str) -> tuple[dict, dict[str, str], list[str]]:
    rules = find_ruleset(ruleset_id)
    options = rules.options({})
    players = ["red", "blue"]
    inputs = setup_inputs(ruleset_id, {}, players,
                          {p: rules.default_force(i, options) for i, p in enumerate(players)})
    state = rules.load(run_setup(inputs, Dice(b"\1" * 32, 1)).state)
    squares = {p.id: p.square for p in rules.board(state).pieces}
    return rules.legal_orders(state, "red"), squares, [v.name for v in rules.verbs]


def _lists(ruleset_id: str) -> dict[str, object]:
    legal, squares, verbs = _opening(ruleset_id)
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
    """fivedice offers A1 over a hundred moves: they are grouped, nearest first, and the
    moves beyond 1 x movement say they cost the unit its defence."""
    move = _lists("fivedice")["A1 move"]
    assert len(move.choices) > 100
    labels = [g.label for g in move.groups]
    assert labels[0] == "1 square away"
    assert any(label.endswith("costs its defence") for label in labels)
    assert sum(len(g.choices) for g in move.groups) == len(move.choices)
    for g in move.groups:
        assert all(("lose" in c.args) == g.label.endswith("costs its defence") for c in g.choices)
    assert len(_lists("heroes")["Z1 move"].groups) == 1  # 8 moves: one plain list


def test_every_posted_line_says_where_it_was_written():
    posted = {"units": "2", "unit-0": "A1 move c3", "unit-0-1": "A1 attack B2", "unit-1": "",
              "free": "A2 fly away\n\nA3 hold"}
    assert order_lines(posted) == [("A1 move c3", "list A1 move"), ("A1 attack B2", "list A1 attack"),
                                   ("A2 fly away", "box line 1"), ("", "box line 2"),
                                   ("A3 hold", "box line 3")]
