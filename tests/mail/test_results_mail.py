"""The results mail reads like a judge's: the player's own turn first, what to do now with
an order template to edit and send back, every player's orders with what became of them,
and links to the player's page, their games and the round."""

from __future__ import annotations

import re

from sqlalchemy import select

from engine import find_ruleset
from service.db import session_scope
from service.models import Step
from tests.mail.mail_world import html_of, text_of
from tests.mail.test_game_by_mail_embedded import create, mail_players


def test_the_order_template_replies_and_the_results_say_what_became_of_each_order(sqlite_app):
    app = sqlite_app
    players = mail_players(app)
    game_id = create(app)
    for p in players.values():
        assert p.reply(p.latest("Invitation"), "JOIN").status == "processed"

    started = players["alice"].latest("The game has started")
    text = text_of(started)
    assert "WHAT TO DO NOW" in text and "YOUR ORDERS FOR ROUND 1" in text
    template = re.findall(r"^# A\d+ .*$", text, flags=re.M)
    assert len(template) == 8  # one commented line per unit (universal: 8 a side)
    # Alice takes the "# " off one line and sends the rest back as they were: the comment
    # lines are ignored, so only that order is stored.
    # Every line uncommented, the template is a set the rules accept (universal: "Only one
    # unit can attack in turn.", though both Mortars could attack): read by the rules.
    table = [line[2:].split("  #")[0] for line in template]
    assert sum(" attack " in line for line in table) == 1, table
    with session_scope(app) as session:
        state = session.scalars(select(Step.state).where(Step.game_id == game_id).order_by(Step.t.desc())).first()
    rules = find_ruleset("universal")
    assert len(rules.parse_orders(rules.load(state), "alice", "\n".join(table))) == 8  # else OrderErrors
    chosen = template[0][2:]
    reply = "\n".join([chosen, *template[1:]])
    out = players["alice"].reply(started, reply)
    assert out.status == "processed" and "orders stored" in out.detail, out
    assert players["bob"].reply(players["bob"].latest("The game has started"), "pass").status == "processed"
    # Bob's orders closed the round: his confirmation comes before the round's results.
    subjects = [str(m["Subject"]) for m in players["bob"].inbox()]
    confirmed = max(i for i, s in enumerate(subjects) if "Orders stored" in s)
    assert confirmed < subjects.index(next(s for s in subjects if "Round 1 results" in s)), subjects

    for p in players.values():
        results = p.latest("Round 1 results")
        text, html = text_of(results), html_of(results)
        assert "ROUND 1: WHAT HAPPENED TO YOU" in text and "Round 1: what happened to you" in html
        assert "EVERY PLAYER'S ORDERS IN ROUND 1, AND WHAT BECAME OF THEM" in text
        # The roster's notes (`Mortar; 1/4/5`) are explained in text, from the ruleset's glossary.
        roster = text.split("YOUR UNITS")[1].split("ROLL LOG")[0]
        assert "What the words in the notes mean:\n  EP/Pw/D: a stat line, like 1/4/5" in roster, roster
        assert "  Mortar: +3 Power" in roster and "What the words in the notes mean" in html
        assert f"  {chosen}: done" in text  # alice's one order, done, in both players' mails
        assert "bob: no orders, every unit held" in text
        assert f"/games/{game_id}/rounds/1" in text and f"/games/{game_id}/rounds/1" in html
        assert "Your page in this game: " in text and "/me/play/" in text and "Your games: " in text
        assert "Your page in this game</a>" in html and "Your games</a>" in html
    alice = text_of(players["alice"].latest("Round 1 results"))
    turn = alice.split("ROUND 1: WHAT HAPPENED TO YOU")[1].split("WHAT TO DO NOW")[0]
    assert re.search(rf"^- [A-Z]+: .*{chosen.split()[0]}", turn, flags=re.M), turn  # her unit's doing
