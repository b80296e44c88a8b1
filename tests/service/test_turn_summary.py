"""The player's turn, built from a round's events: what happened to my units, and the
counts the page and the mail lead with. Positions and dice as in the universal rulebook tests."""

from __future__ import annotations

from datetime import UTC, datetime

from engine.registry import find_ruleset
from engine.rulesets.universal.orders import MOVE
from service.turn_summary import add_next, countdown, ordered_units, summarize
from tests.engine.rulesets.universal_positions import position, resolve

RULES = find_ruleset("universal")


def _turn(spec: str, faces: list[int], player: str, **texts: str):
    before = position(spec)
    after, events = resolve(before, faces, **texts)
    return summarize(1, player, [e.to_json() for e in events], RULES.board(before), RULES.board(after),
                     RULES.info.events)


def test_a_failed_attack_and_the_counterattack_that_kills_seen_from_both_sides():
    """"If no damage is dealt, roll for counterattack": A1 (Pw 1) rolls one 6 against B1's
    D 5 and deals nothing (every die is used); B1 (Pw 3) counterattacks with 2 dice, 5 and 2:
    1 damage defeats A1 and bob gets a token (B2) on c3."""
    spec = "A1 c3\nA2 h1\nB1 c4 pw=3"
    alice = _turn(spec, [6, 5, 2], "alice", alice="A1 attack B1")
    assert [h.tag for h in alice.happenings] == ["attack", "taken", "loss"]
    assert alice.happenings[0].dice == (6,) and alice.happenings[1].dice == (5, 2)
    assert (alice.tally.dealt, alice.tally.taken, alice.tally.losses, alice.tally.kills) == (0, 1, 1, 0)
    assert alice.tally.words() == "1 damage taken, 1 unit lost"
    bob = _turn(spec, [6, 5, 2], "bob", alice="A1 attack B1")
    assert [h.tag for h in bob.happenings] == ["defence", "dealt", "kill", "token", "hold"]
    assert bob.tally.words() == "1 damage dealt, 1 enemy killed, 1 token gained"
    assert bob.happenings[3].text == "B2, a 1/0/5 token of bob, takes c3"
    assert bob.happenings[4].text == "bob gives no orders: every unit holds"


def test_the_modifiers_are_named():
    """"For each character adjacent to both attacker and defender ... add one dice": A2 on
    d3 is beside A1 (c3) and B1 (c4), so A1 (Pw 1) rolls 1 - 1 + 2 = 2 dice, 6 and 6, against
    D 5: the first 6 reaches it, one die is left: 1 damage, and B1 (EP 1) is defeated."""
    alice = _turn("A1 c3\nA2 d3\nB1 c4", [6, 6], "alice", alice="A1 attack B1")
    attack = alice.happenings[0]
    assert attack.tag == "dealt" and attack.dice == (6, 6)
    assert attack.modifiers == ("+1 die: A2 beside both",)
    assert (alice.tally.dealt, alice.tally.kills, alice.tally.count("token")) == (1, 1, 1)


def test_events_of_other_players_units_are_left_out():
    """carol's units take no part in A1's attack on B1: her summary says only that she held."""
    carol = _turn("A1 c3\nB1 c4 d=13\nC1 h8", [1], "carol", alice="A1 attack B1")
    assert [(h.tag, h.text) for h in carol.happenings] == [("hold", "carol gives no orders: every unit holds")]
    assert carol.tally.words() == "nothing happened to your units"


def test_what_to_do_now_names_the_units_without_orders_and_the_time_left():
    legal = {"A10": [MOVE.order("A10", "b2")], "A2": [MOVE.order("A2", "c3")], "A1": [MOVE.order("A1", "d3")]}
    assert ordered_units(legal, "A2 move c3\n") == (["A2"], ["A1", "A10"])
    closes = datetime(2026, 12, 3, 18, 0, tzinfo=UTC)
    turn = add_next(summarize(1, "alice", [], None, None), 2, True, closes.replace(tzinfo=None), legal, "")
    assert turn.without_orders == ["A1", "A2", "A10"] and turn.closes_at == closes
    assert countdown(closes, datetime(2026, 12, 1, 15, 30, tzinfo=UTC)) == "2 days 2 hours"
    assert countdown(closes, datetime(2026, 12, 3, 16, 59, tzinfo=UTC)) == "1 hour 1 minute"
    assert countdown(closes, datetime(2026, 12, 3, 18, 0, tzinfo=UTC)) == "now"


def test_a_skirmish_both_ways_is_dealt_by_its_attacker_and_taken_by_its_defender() -> None:
    """fivedice: "Compare end result of attack vs- opponent's defense and vice versa": one
    event carries both blows. The attacker's report tags it dealt, the attacked side's
    took (not dealt: it did not start it), and each tally counts both amounts."""
    from tests.engine.rulesets.fivedice_fixtures import RULES as FIVEDICE
    from tests.engine.rulesets.fivedice_fixtures import play, state, unit

    s = state(unit("A1", "c4", life=20, armor="leather"), unit("B1", "c5", life=20, armor="chain"))
    res = play(s, {"alice": "A1 attack B1"}, [6, 6, 3, 1, 1, 5, 4, 2, 2, 1])
    events = [e.to_json() for e in res.events]
    before, after = FIVEDICE.board(s), FIVEDICE.board(res.state)
    words = FIVEDICE.info.events
    alice = summarize(1, "alice", events, before, after, words)
    bob = summarize(1, "bob", events, before, after, words)
    melee = next(e["text"] for e in events if e["kind"] == "melee")
    assert [(h.tag, h.heading) for h in alice.happenings if h.text == melee] == [("dealt", "dealt")]
    assert [(h.tag, h.heading) for h in bob.happenings if h.text == melee] == [("taken", "took")]
    assert (alice.tally.dealt, alice.tally.taken) == (8, 8) == (bob.tally.dealt, bob.tally.taken)
