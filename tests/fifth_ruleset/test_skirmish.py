"""The test-only `skirmish` ruleset: its rules read like a rulebook (RULES.md, dice
scripted, outcomes worked out by hand), it is registered only for a test, and it plays
through the service: the web order form lists its orders, the mails show its grid, and
`dicepost verify` replays its record. (tests/engine/test_contract.py checks it beside
the shipped four.)"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from engine import ScriptedDice, UnknownRuleset, find_ruleset, ruleset_ids
from engine.orders import OrderErrors
from engine.registry import register, unregister
from service.cli import main as dicepost
from service.render.ascii_grid import ascii_board
from service.render.svg import board_caption
from service.turn_summary import summarize
from tests.fifth_ruleset import SKIRMISH, registered
from tests.fifth_ruleset.skirmish import Pawn, SkirmishState
from tests.mail.mail_world import html_of, stored_mail, text_of
from tests.service import test_every_ruleset_by_hand as by_hand
from tests.service.play import start
from tests.service.test_every_ruleset_by_hand import csrf_app  # noqa: F401  (the fixture)


@pytest.fixture
def skirmish() -> Iterator[Any]:
    with registered() as ruleset:
        yield ruleset


def position(*pawns: tuple[str, str, int], **options: Any) -> SkirmishState:
    """alice's pawns are A*, bob's B*: (id, square, health)."""
    return SkirmishState(SKIRMISH.options(options), ["alice", "bob"], 1,
                         {i: Pawn(i, "alice" if i[0] == "A" else "bob", sq, h) for i, sq, h in pawns})


def resolve(state: SkirmishState, faces: list[int], **texts: str) -> SkirmishState:
    orders = {p: SKIRMISH.parse_orders(state, p, t) for p, t in texts.items()}
    return SKIRMISH.resolve(state, orders, ScriptedDice(faces, 2)).state


# -- the rules ------------------------------------------------------------------------

def test_bands_stand_on_their_own_edge_nearest_its_middle(skirmish: Any) -> None:
    """Rule 1: "Each player fields a band of pawns, three unless they bring another
    number (one to five), on the squares of their own edge nearest its middle."
    12 columns: the middle is between f and g; e and h are next, e first on the tie."""
    state = SKIRMISH.setup(["alice", "bob"], {"alice": {"pawns": 3}, "bob": {"pawns": 2}},
                           SKIRMISH.options({}), ScriptedDice([]))
    assert {p.id: p.square for p in state.pawns.values()} == {
        "A1": "e1", "A2": "f1", "A3": "g1", "B1": "f12", "B2": "g12"}
    assert SKIRMISH.validate_force({"pawns": 6}, SKIRMISH.options({})) == [
        "pawns must be between 1 and 5, not 6"]
    assert SKIRMISH.validate_force({"pawns": 3, "horses": 1}, SKIRMISH.options({})) == [
        "unknown field horses (a force has: pawns)"]
    assert SKIRMISH.validate_force({"pawns": 4}, SKIRMISH.options({"width": 4, "height": 4})) == []


def test_a_strike_hits_on_four_or_more(skirmish: Any) -> None:
    """Rule 4: "A strike rolls one d6 and hits on a 4 or more; a hit takes 1 health."
    A 4 takes B1 from 2 to 1; a 3 misses."""
    start_ = position(("A1", "c3", 2), ("B1", "d4", 2))
    assert resolve(start_, [4], alice="A1 strike B1").pawns["B1"].health == 1
    assert resolve(start_, [3], alice="A1 strike B1").pawns["B1"].health == 2
    assert resolve(position(("A1", "c3", 2), ("B1", "d4", 2), hit_on=3), [3],
                   alice="A1 strike B1").pawns["B1"].health == 1


def test_strikes_are_rolled_before_any_damage_so_both_fall(skirmish: Any) -> None:
    """Rule 4: "All strikes of a round are rolled before any damage is taken; a pawn at
    0 health is removed." A1 and B1 at 1 health strike each other, 5 and 6: both hit,
    both fall, and with nobody left the game is a draw (rule 5)."""
    after = resolve(position(("A1", "c3", 1), ("B1", "d4", 1)), [5, 6],
                    alice="A1 strike B1", bob="B1 strike A1")
    assert after.pawns == {}
    outcome = SKIRMISH.outcome(after)
    assert outcome is not None and outcome.draw


def test_steps_come_first_in_seat_order(skirmish: Any) -> None:
    """Rule 3: "Steps are taken first, in seat order." A1 and B1 both step into d4:
    alice (seat 1) steps first, so B1 stays on e5. B2's strike is rolled after the steps,
    at A1 now on d4, still next to B2 on e4: a 6, a hit."""
    after = resolve(position(("A1", "d3", 2), ("B1", "e5", 2), ("B2", "e4", 2)), [6],
                    alice="A1 move d4", bob="B1 move d4\nB2 strike A1")
    assert after.pawns["A1"].square == "d4" and after.pawns["B1"].square == "e5"
    assert after.pawns["A1"].health == 1


def test_a_strike_on_a_pawn_that_stepped_away_rolls_nothing(skirmish: Any) -> None:
    """Rule 4 reading: a strike whose target is no longer next to the striker is
    skipped without a roll (no die is scripted: a roll would fail the test)."""
    state = position(("A1", "c3", 2), ("B1", "d4", 2))
    res = SKIRMISH.resolve(state, {"alice": SKIRMISH.parse_orders(state, "alice", "A1 strike B1"),
                                   "bob": SKIRMISH.parse_orders(state, "bob", "B1 move e5")},
                           ScriptedDice([], 2))
    assert res.rolls == [] and res.state.pawns["B1"].health == 2
    assert [e.kind for e in res.events] == ["move", "skip"]


def test_bad_orders_are_refused_by_line(skirmish: Any) -> None:
    """Rule 3: "a pawn may step ... or strike": one order a pawn, and only next to it."""
    state = position(("A1", "c3", 2), ("B1", "f6", 2))
    with pytest.raises(OrderErrors) as refused:
        SKIRMISH.parse_orders(state, "alice", "A1 move c4\nA1 strike B1\nB1 move f7")
    assert [(e.line, e.message) for e in refused.value.errors] == [
        (2, "B1 is not next to A1"), (3, "B1 is not one of your pawns")]
    with pytest.raises(OrderErrors, match="A1 has an order already"):
        SKIRMISH.parse_orders(state, "alice", "A1 move c4\nA1 move d4")


def test_the_grid_is_drawn_from_its_declared_looks(skirmish: Any) -> None:
    board = SKIRMISH.board(resolve(position(("A1", "c3", 2), ("B1", "d4", 2)), [4],
                                   alice="A1 strike B1"))
    assert board_caption(board) == ("Squares are pawns; each piece carries its label, and its health "
                                    "where it has one; dashed arrows are last round's strikes (orange).")
    assert "  B1   d4    bob    health 1/2  (pawn)" in ascii_board(board)


def test_its_events_tell_each_player_what_the_round_did_to_them(skirmish: Any) -> None:
    """The events' data use the words the service reads (AUTHORING.md, "Events"): A1's
    hit on B1 is damage dealt for alice and taken for bob; B1 at 1 health is lost."""
    state = position(("A1", "c3", 2), ("B1", "d4", 1))
    orders = {"alice": SKIRMISH.parse_orders(state, "alice", "A1 strike B1")}
    res = SKIRMISH.resolve(state, orders, ScriptedDice([5], 2))
    events = [e.to_json() for e in res.events]
    before, after = SKIRMISH.board(state), SKIRMISH.board(res.state)
    alice, bob = summarize(1, "alice", events, before, after), summarize(1, "bob", events, before, after)
    assert (alice.tally.dealt, alice.tally.kills) == (1, 1)
    assert (bob.tally.taken, bob.tally.losses) == (1, 1)
    assert [h.dice for h in alice.happenings] == [(5,), ()]


# -- a ruleset of the tests only ------------------------------------------------------

def test_it_is_registered_only_for_the_test_that_asks() -> None:
    assert "skirmish" not in ruleset_ids()
    with registered():
        assert find_ruleset("skirmish") is SKIRMISH and ruleset_ids()[-1] == "skirmish"
        with pytest.raises(ValueError, match="registered already"):
            register(SKIRMISH)
    with pytest.raises(UnknownRuleset):
        find_ruleset("skirmish")
    with pytest.raises(ValueError, match="shipped"):
        unregister("universal")


# -- through the service --------------------------------------------------------------

def test_it_plays_through_the_web_form_and_mail_and_verifies(skirmish: Any, csrf_app: Flask,  # noqa: F811
                                                              tmp_path: Path) -> None:
    """The same play-through as every shipped ruleset: lists of legal orders on the web
    form, a mistake refused by line, replies by mail, the grid in every results mail and
    round page, and the finished record verified (engine and `dicepost verify`)."""
    by_hand.test_a_human_plays_it_from_the_web_form_and_by_mail(csrf_app, "skirmish", {}, tmp_path)


def test_the_form_lists_its_orders_the_mail_draws_it_and_verify_replays_it(
        skirmish: Any, sqlite_app: Flask, tmp_path: Path) -> None:
    client = sqlite_app.test_client()
    home = client.get("/").get_data(as_text=True)
    assert '<option value="skirmish"' in home, "the create-a-game form offers it"
    table = start(client, "skirmish", options={"width": 6, "height": 6, "max_rounds": 30})
    # 6 columns: alice's pawns stand on b1, c1, d1; bob's far away, so only steps.
    page = client.get(f"/games/{table.id}/player/{table.tokens['alice']}").get_data(as_text=True)
    offered = set(re.findall(r'<option value="([A-Z][0-9]+ [^"]+)"', page))
    assert offered == {"A1 move a1", "A1 move a2", "A1 move b2", "A1 move c2",
                       "A2 move b2", "A2 move c2", "A2 move d2",
                       "A3 move c2", "A3 move d2", "A3 move e2", "A3 move e1"}, sorted(offered)
    mail = next(m for m in stored_mail(sqlite_app)()
                if str(m["Subject"]).endswith("The game has started") and "alice" in str(m["To"]))
    grid = text_of(mail).split("THE GRID\n")[1]
    assert re.search(r"^1 +\. +A1 +A2 +A3 +\. +\. +1$", grid, re.M), grid
    assert re.search(r"^6 +\. +B1 +B2 +B3 +\. +\. +6$", grid, re.M), grid
    # Round 1 by hand: the results mail draws where the pawns went and last round's steps.
    assert table.put("alice", "A1 move b2").status_code == 200
    assert table.put("bob", "B3 move e5").status_code == 200
    mail = next(m for m in stored_mail(sqlite_app)()
                if str(m["Subject"]).endswith("Round 1 results") and "alice" in str(m["To"]))
    text, html = text_of(mail), html_of(mail)
    grid = text.split("THE GRID\n")[1]
    assert re.search(r"^2 +\. +A1 +\. +\. +\. +\. +2$", grid, re.M), grid
    assert re.search(r"^5 +\. +\. +\. +\. +B3 +\. +5$", grid, re.M), grid
    assert "  move b1 -> b2 (alice)" in grid and "  move d6 -> e5 (bob)" in grid
    assert '<table role="grid"' in html and ">A1</b>" in html and "move b1 → b2 (alice)" in html
    while (status := table.status())["status"] == "active":
        for seat in status["expected"]:
            assert table.put(seat, table.bot(sqlite_app, seat)).status_code == 200
    record = client.get(f"/api/games/{table.id}/record")
    path = tmp_path / "skirmish.json"
    path.write_bytes(record.data)
    assert dicepost(["verify", str(path)]) == 0
