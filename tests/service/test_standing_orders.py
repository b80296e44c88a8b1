"""Standing orders: used instead of a missed turn (and so before the missed-turn bot),
stored as the player's own version, in the record as theirs, and the record verifies."""

from __future__ import annotations

import html

from engine import find_ruleset
from engine.standing import standing_kinds, standing_text
from engine.verify import verify
from tests.engine.rulesets.universal_positions import position
from tests.mail.mail_world import stored_mail, text_of
from tests.service.schedule_world import World


def _page(world: World, seat: str) -> str:
    r = world.client.get(f"/games/{world.game_id}/player/{world.tokens[seat]}")
    assert r.status_code == 200
    return html.unescape(r.get_data(as_text=True))


def test_the_kinds_follow_the_rulesets_verbs():
    assert list(standing_kinds(find_ruleset("universal"))) == ["hold", "attack"]
    assert list(standing_kinds(find_ruleset("jep1"))) == ["hold", "attack", "shoot"]


def test_attack_picks_the_nearest_enemy_it_can_attack_and_else_holds():
    ruleset = find_ruleset("universal")
    state = position("A1 c3\nA2 g7\nB1 d4\nB2 h8\nB3 c2\nB4 a8")
    assert standing_text(ruleset, state, "alice", {"A1": "attack"}) == "A1 attack B1"  # ties: lowest id
    assert standing_text(ruleset, state, "bob", {"B4": "attack"}) == "pass"  # nobody in reach: it holds
    assert standing_text(ruleset, state, "bob", {"B4": "hold", "B2": "attack"}) == "B2 attack A2\nB4 hold"


def test_standing_orders_count_instead_of_the_missed_turn_bot(tmp_path):
    """A seat whose player leaves standing orders and sends nothing is not missing: its
    standing orders are its version (a receipt, the confirmation mail), the bot never takes
    it, the table reads it in the GM log, and the record verifies."""
    world = World(tmp_path).start({"kind": "duration", "duration": "PT48H",
                                   "missed_turns": {"after": 1, "action": "bot"}})
    page = _page(world, "blue")
    assert 'id="standing-form"' in page and "<strong>attack</strong>: close combat against the nearest enemy" in page
    url = f"/games/{world.game_id}/player/{world.tokens['blue']}/standing"
    r = world.client.post(url, data={"standing-B1": "hold", "standing-B2": "hold", "standing-B3": "none"})
    assert r.status_code == 303
    page = _page(world, "blue")
    assert "Standing orders saved: B1 hold, B2 hold." in page
    assert '<option value="hold" selected>' in page
    refused = world.client.post(url, data={"standing-B1": "charge"})
    assert refused.status_code == 422
    assert "kind: charge is not a standing order here; write one of hold, attack, none" in html.unescape(
        refused.get_data(as_text=True))

    world.submit("red", world.legal_order("red"))
    world.advance(hours=48)
    assert world.sweep()["closed"] == 1
    assert world.round_number() == 2
    assert world.step_inputs(2)["blue"] == "B1 hold\nB2 hold"
    assert world.audit("seat_to_bot") == [] and world.audit("missed_turn") == []
    assert [(e.actor, e.detail["seat"], e.detail["round"]) for e in world.audit("standing_orders")] == [
        ("blue", "blue", 1)]
    mail = [m for m in stored_mail(world.app)() if "blue@" in str(m["To"])
            and "Your standing orders counted for round 1" in str(m["Subject"])]
    assert len(mail) == 1 and "so your standing orders\ncount as your orders (version 1)" in text_of(mail[0])
    assert "Receipt of version 1" in text_of(mail[0])

    assert "blue sent no orders for round 1 by its close: their standing orders counted." in _page(world, "red")
    assert "You sent no orders for round 1 by its close: your standing orders counted." in _page(world, "blue")

    # Orders the player sends come first.
    mine = world.legal_order("blue")
    world.submit("blue", mine)
    world.submit("red", world.legal_order("red"))
    assert world.round_number() == 3 and world.step_inputs(3)["blue"] == mine
    assert len(world.audit("standing_orders")) == 1

    record = world.client.get(f"/api/games/{world.game_id}/record").json
    assert [(v["round"], v["seat"], v["version"]) for v in record["versions"] if v["seat"] == "blue"] == [
        (1, "blue", 1), (2, "blue", 1)]
    assert record["handovers"] == []
    assert [(a["round"], a["action"], a["actor"]) for a in record["gm_actions"]
            if a["action"] == "standing_orders"] == [(1, "standing_orders", "blue")]
    v = verify(record)
    assert v.ok, v.differences[:3]
    assert any("blue's standing orders counted as their orders, version 1" in t
               for t in v.to_json()["gm_action_texts"])
