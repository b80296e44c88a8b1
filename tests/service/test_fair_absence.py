"""Fair absence: days away declared once for every game of an address (the Your games form
and AWAY by mail), within a yearly budget; the tables are told the dates by mail; a
deadline inside the days moves past them in a game that allows it (the one absence
stretch, logged and in the record) and stays put in one that does not."""

from __future__ import annotations

import html
from datetime import datetime

from engine.verify import verify
from service.absence import BUDGET_DAYS
from tests.dashboard.test_signin import sign_in
from tests.mail.mail_world import stored_mail, text_of
from tests.service.schedule_world import World


def _second_game(world: World, policy: dict) -> str:
    """Another game where blue (the same address) plays, against green."""
    r = world.client.post("/api/games", json={"ruleset": "universal", "title": "Second", "seats": [
        {"name": "blue", "email": "blue@example.org"}, {"name": "green", "email": "green@example.org"}]})
    game_id, gm = r.json["id"], r.json["gm_token"]
    assert world.client.put(f"/api/games/{game_id}/gm/policy", json=policy,
                            headers={"Authorization": f"Bearer {gm}"}).status_code == 200
    for seat in r.json["seats"]:
        j = world.client.post(f"/api/games/{game_id}/join", json={"invite_token": seat["invite_token"]})
        assert j.status_code == 200
    return game_id


def test_absence_declared_once_moves_deadlines_where_allowed_and_tells_each_table(tmp_path):
    world = World(tmp_path).start({"kind": "duration", "duration": "PT48H"})
    strict = _second_game(world, {"kind": "duration", "duration": "PT48H", "absence_limit": "P0D"})
    before = world.deadline()
    assert before == datetime.fromisoformat("2026-06-03T12:00:00+00:00")

    client = world.app.test_client()
    sign_in(world.app, client, "blue@example.org")
    page = html.unescape(client.get("/me").get_data(as_text=True))
    assert f"Budget: {BUDGET_DAYS} days a year; 0 used in 2026." in page
    r = client.post("/me/away", data={"from": "2026-06-03", "to": "2026-06-04"})
    assert r.status_code == 303
    page = html.unescape(client.get("/me").get_data(as_text=True))
    assert "away from 2026-06-03 to 2026-06-04 in 2 games; the other players are told" in page
    assert "Declared: 2026-06-03 to 2026-06-04." in page and "2 used in 2026" in page

    # The first game's deadline moves to the end of the absence (UTC midnight after the 4th).
    assert world.deadline() == datetime.fromisoformat("2026-06-05T00:00:00+00:00")
    moved = world.audit("deadline_extended")
    assert [(e.detail["reason"], e.detail["to"]) for e in moved] == [("absence", "2026-06-05T00:00:00+00:00")]
    declared = world.audit("absence_declared")
    assert [(e.actor, e.detail) for e in declared] == [("blue", {
        "seat": "blue", "from": "2026-06-03", "to": "2026-06-04", "deadlines_move": True})]
    # The second game (absence limit P0D) keeps its deadline; its table is told so.
    with world.app.app_context():
        from service.db import session_scope
        from service.models import Round

        with session_scope() as s:
            rnd = s.query(Round).filter(Round.game_id == strict).one()
            assert rnd.closes_at == before
    mails = {str(m["To"]): text_of(m) for m in stored_mail(world.app)()
             if str(m["Subject"]).endswith("] blue is away 2026-06-03 to 2026-06-04")}
    assert set(mails) == {"red <red@example.org>", "green <green@example.org>"}  # never to blue; once each
    assert "a deadline that falls inside those days moves to the end of\nthem, at most 7 days" in mails[
        "red <red@example.org>"]
    assert "Second's deadlines do not move for absences" in mails["green <green@example.org>"]

    # The budget: more days than are left are refused, naming the year and what is left.
    r = client.post("/me/away", data={"from": "2026-07-01", "to": "2026-07-31"})
    assert r.status_code == 422
    assert (f"absences: 33 days away in 2026 is over the budget of {BUDGET_DAYS} days a year "
            f"({BUDGET_DAYS - 2} left); nothing was changed") in html.unescape(r.get_data(as_text=True))
    assert len(world.audit("absence_declared")) == 1

    # Both are in the record, and it verifies.
    world.submit("red", world.legal_order("red"))
    world.submit("blue", world.legal_order("blue"))
    record = world.client.get(f"/api/games/{world.game_id}/record").json
    listed = [(a["action"], a["round"]) for a in record["gm_actions"]]
    assert ("absence_declared", 1) in listed and ("deadline_extended", 1) in listed
    v = verify(record)
    assert v.ok, v.differences[:3]
    assert any("blue declared days away from 2026-06-03 to 2026-06-04" in t for t in v.to_json()["gm_action_texts"])

