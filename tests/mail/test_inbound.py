"""Incoming mail: identification by signed token only, commands, duplicates, robots, crashes."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from service.db import session_scope
from service.inbound.receive import process_pending
from service.models import InboundMail, Outbox, Round, StoredMail, Submission
from service.submissions import latest_submissions
from tests.mail import client_mails
from tests.mail.mail_world import html_of, parse, text_of


def _mail(to: str, body: str, sender: str = "alice@example.org", mid: str = "<m1@client.example.org>",
          subject: str = "Re: orders", **headers: str) -> bytes:
    lines = [f"From: {sender}", f"To: {to}", f"Subject: {subject}", f"Message-ID: {mid}",
             *(f"{k.replace('_', '-')}: {v}" for k, v in headers.items()),
             "Content-Type: text/plain; charset=utf-8", "", body]
    return "\r\n".join(lines).encode()


def _count(app, model, *where) -> int:
    with session_scope(app) as s:
        return int(s.scalar(select(func.count()).select_from(model).where(*where)) or 0)


def _subjects_to(app, address: str) -> list[str]:
    with session_scope(app) as s:
        return [m.subject for m in s.scalars(select(StoredMail).where(StoredMail.to == address)
                                             .order_by(StoredMail.id))]


def _mails_to(app, address: str):
    with session_scope(app) as s:
        return [parse(m.raw.encode()) for m in s.scalars(select(StoredMail).where(StoredMail.to == address)
                                                          .order_by(StoredMail.id))]


def _current_orders(game, name: str) -> str | None:
    seat = game.seat(name)
    with session_scope(game.app) as s:
        rnd = s.scalars(select(Round).where(Round.game_id == game.id, Round.status != "resolved")).one()
        sub = latest_submissions(s, rnd.id).get(seat.id)
        return sub.accepted if sub else None


def test_reply_with_orders_is_stored_and_confirmed(mail_game):
    out = mail_game.send(_mail(mail_game.reply_to("alice"), "pass"))
    assert out.status == "processed" and "orders stored for round 1" in out.detail
    assert _current_orders(mail_game, "alice") == "pass"
    confirmation = mail_game.players["alice"].latest("Orders stored for round 1")
    assert "  1  pass" in text_of(confirmation)
    with session_scope(mail_game.app) as s:
        row = s.get(InboundMail, out.inbound_id)
        assert (row.status, row.game_id) == ("processed", mail_game.id)


def test_forged_token_is_refused_and_nothing_is_stored(mail_game):
    good = mail_game.reply_to("alice")
    local, domain = good.split("@")
    seat, mac = local.split("+")[1].split(".")
    forged = [f"dicepost+{seat}.{'a' * 16}@{domain}",           # wrong signature
              f"dicepost+{int(seat) % 2 + 1}.{mac}@{domain}",    # another seat's id
              f"dicepost+{seat}.{mac[:-1]}@{domain}"]            # cut short
    for i, to in enumerate(forged):
        out = mail_game.send(_mail(to, "pass", sender="mallory@evil.example", mid=f"<f{i}@evil.example>"))
        assert out.status == "refused", out
        assert "not valid" in out.detail
    assert _count(mail_game.app, Submission) == 0
    with session_scope(mail_game.app) as s:
        rows = list(s.scalars(select(InboundMail)))
        assert [(r.status, r.game_id) for r in rows] == [("refused", None)] * 3
    refusals = _mails_to(mail_game.app, "mallory@evil.example")
    assert len(refusals) == 3  # one a mail, up to the hourly limit
    assert "could not tell which player sent it" in text_of(refusals[0])
    assert "Nothing from it was stored against any game" in text_of(refusals[0])
    assert mail_game.id not in text_of(refusals[0])  # a stranger learns nothing of the game


def test_refusals_are_rate_limited_per_address(mail_game):
    for i in range(5):
        out = mail_game.send(_mail("dicepost@dicepost.localhost", "pass", sender="spam@evil.example",
                                   mid=f"<s{i}@evil.example>"))
        assert out.status == "refused"
    assert len(_subjects_to(mail_game.app, "spam@evil.example")) == 3


def test_the_from_header_alone_proves_nothing(mail_game):
    out = mail_game.send(_mail("dicepost@dicepost.localhost", "pass", sender="alice@example.org"))
    assert out.status == "refused" and "no dicepost token" in out.detail
    assert _current_orders(mail_game, "alice") is None


def test_token_line_from_another_address(mail_game):
    token = mail_game.reply_to("bob").split("+")[1].split("@")[0]
    out = mail_game.send(_mail("dicepost@dicepost.localhost", f"TOKEN {token}\npass",
                               sender="bob.at.work@example.com"))
    assert out.status == "processed", out
    assert _current_orders(mail_game, "bob") == "pass"
    # The answer goes to the seat's own address, never to whoever sent the token.
    assert _subjects_to(mail_game.app, "bob.at.work@example.com") == []
    assert any("Orders stored" in s for s in _subjects_to(mail_game.app, "bob@example.org"))


def test_duplicate_delivery_is_processed_once(db_mail_game):
    mail_game = db_mail_game
    raw = _mail(mail_game.reply_to("alice"), "pass", mid="<same@client.example.org>")
    first = mail_game.send(raw)
    second = mail_game.send(raw)
    assert first.status == "processed"
    assert second.status == "duplicate" and second.inbound_id == first.inbound_id
    assert _count(mail_game.app, Submission) == 1
    assert _count(mail_game.app, InboundMail) == 1


def test_mail_without_message_id_dedupes_by_its_bytes(mail_game):
    raw = _mail(mail_game.reply_to("alice"), "pass").replace(b"Message-ID: <m1@client.example.org>\r\n", b"")
    assert mail_game.send(raw).status == "processed"
    assert mail_game.send(raw).status == "duplicate"


@pytest.mark.parametrize("header", ["Auto-Submitted: auto-replied", "Precedence: bulk",
                                    "X-Failed-Recipients: alice@example.org"])
def test_robots_get_no_answer(mail_game, header):
    name, value = header.split(": ")
    raw = _mail(mail_game.reply_to("alice"), "I am on holiday", **{name.replace("-", "_"): value})
    out = mail_game.send(raw)
    assert out.status == "ignored"
    assert _count(mail_game.app, Submission) == 0
    assert _count(mail_game.app, Outbox, Outbox.kind.in_(("refusal", "help"))) == 0


@pytest.mark.parametrize("builder", [client_mails.gmail_quoted, client_mails.thunderbird_bottom_posted,
                                     client_mails.html_only, client_mails.outlook_latin1_qp,
                                     client_mails.base64_utf8])
def test_replies_from_common_clients(mail_game, builder):
    out = mail_game.send(builder(mail_game.reply_to("alice"), "pass"))
    assert out.status == "processed", out
    assert _current_orders(mail_game, "alice") == "pass"


def test_bad_orders_come_back_line_by_line(mail_game):
    out = mail_game.send(_mail(mail_game.reply_to("alice"), "# my orders\nA1 fly z99\npass\nZZ9 move a1"))
    assert out.status == "processed" and "orders refused" in out.detail
    assert _current_orders(mail_game, "alice") is None
    text = text_of(mail_game.players["alice"].latest("Orders NOT stored for round 1"))
    assert "  2  A1 fly z99\n     ^ 'fly' is not an order here" in text
    assert "  4  ZZ9 move a1\n     ^ " in text
    assert "How to write orders" in text and "UNIT move" in text


def test_status_clear_help(mail_game):
    to = mail_game.reply_to("alice")
    assert mail_game.send(_mail(to, "pass", mid="<o1@c>")).status == "processed"
    out = mail_game.send(_mail(to, "STATUS", mid="<s1@c>"))
    assert out.status == "processed"
    status = text_of(mail_game.players["alice"].latest("Status of round 1"))
    assert "Your orders (version 1):\n  pass" in status and "Still to move: bob" in status
    assert mail_game.send(_mail(to, "clear", mid="<c1@c>")).detail.endswith("are withdrawn.")
    assert _current_orders(mail_game, "alice") is None
    status = text_of(mail_game.players["alice"].latest("Status of round 1"))
    assert "Your orders for round 1 are withdrawn." in status
    assert "Still to move: alice, bob" in status
    assert mail_game.send(_mail(to, "clear", mid="<c2@c>")).detail.startswith("You had no orders")
    mail_game.send(_mail(to, "", subject="help", mid="<h1@c>"))
    assert "CLEAR        withdraw your orders" in text_of(mail_game.players["alice"].latest("How to play by mail"))


def test_clear_is_refused_once_the_round_has_closed(mail_game):
    assert mail_game.send(_mail(mail_game.reply_to("alice"), "pass")).status == "processed"
    with session_scope(mail_game.app) as s, s.begin():
        rnd = s.scalars(select(Round).where(Round.game_id == mail_game.id)).one()
        rnd.status = "ready"  # closed (a deadline passed), the resolution not yet run
    out = mail_game.send(_mail(mail_game.reply_to("alice"), "CLEAR", mid="<c@c>"))
    assert out.detail == "clear refused: round 1 has closed and is being resolved; your orders stand"
    assert _current_orders(mail_game, "alice") == "pass"


def test_unsubscribe_by_mail_stops_news_but_not_answers(mail_game):
    to = mail_game.reply_to("alice")
    assert mail_game.send(_mail(to, "", subject="unsubscribe", mid="<u@c>")).detail == \
        "mail preference set to none"
    assert mail_game.seat("alice").mail_pref == "none"
    before = len(_subjects_to(mail_game.app, "alice@example.org"))
    assert mail_game.send(_mail(to, "STATUS", mid="<st@c>")).status == "processed"
    assert len(_subjects_to(mail_game.app, "alice@example.org")) == before + 1


def test_a_crash_after_storing_loses_nothing(mail_game):
    raw = _mail(mail_game.reply_to("alice"), "pass", mid="<crash@c>")
    with session_scope(mail_game.app) as s, s.begin():
        s.add(InboundMail(message_id="<crash@c>", raw=raw, status="stored"))
    with mail_game.app.app_context():
        done = process_pending()
    assert [o.status for o in done] == ["processed"]
    assert _current_orders(mail_game, "alice") == "pass"
    assert mail_game.send(raw).status == "duplicate"


def test_a_message_that_breaks_processing_is_kept_as_failed(mail_game, monkeypatch):
    from service.inbound import receive as inbound

    def boom(*_a, **_k):
        raise RuntimeError("simulated bug")

    monkeypatch.setattr(inbound, "perform", boom)
    out = mail_game.send(_mail(mail_game.reply_to("alice"), "pass", mid="<bug@c>"))
    assert out.status == "failed"
    with session_scope(mail_game.app) as s:
        row = s.scalars(select(InboundMail)).one()
        assert row.status == "failed" and "simulated bug" in row.result and b"pass" in row.raw


def test_the_same_mail_arriving_at_once_by_several_ways_is_processed_once(db_mail_game):
    from tests.mail.at_once import at_once

    raw = _mail(db_mail_game.reply_to("alice"), "pass", mid="<race@client.example.org>")
    results = at_once(4, lambda: db_mail_game.send(raw).status)
    assert sorted(results) == ["duplicate", "duplicate", "duplicate", "processed"]
    assert _count(db_mail_game.app, Submission) == 1


def test_orders_by_mail_are_confirmed_once_whatever_the_preference(mail_game):
    from sqlalchemy import update

    from service.models import Seat

    for pref, mid in (("results", "<p1@c>"), ("all", "<p2@c>")):
        with session_scope(mail_game.app) as s, s.begin():
            s.execute(update(Seat).where(Seat.game_id == mail_game.id, Seat.name == "alice")
                      .values(mail_pref=pref))
        before = len([x for x in _subjects_to(mail_game.app, "alice@example.org") if "Orders stored" in x])
        assert mail_game.send(_mail(mail_game.reply_to("alice"), "pass", mid=mid)).status == "processed"
        after = len([x for x in _subjects_to(mail_game.app, "alice@example.org") if "Orders stored" in x])
        assert after == before + 1, pref


def test_a_reply_whose_plus_address_was_dropped_is_known_by_the_quoted_token(mail_game):
    start = mail_game.start_mail("alice")
    player = mail_game.players["alice"]
    # As if the mail system had rewritten the reply address to the bare mailbox.
    del start["Reply-To"]
    start["Reply-To"] = "dicepost@dicepost.localhost"
    out = player.reply(start, "pass")
    assert out.status == "processed", out
    assert _current_orders(mail_game, "alice") == "pass"


def _api_settings(game, name: str, data: dict | None = None):
    client = game.app.test_client()
    auth = {"Authorization": f"Bearer {game.tokens[name]}"}
    url = f"/api/games/{game.id}/settings"
    return client.put(url, json=data, headers=auth) if data is not None else client.get(url, headers=auth)


def test_wait_away_remind_by_mail_change_the_player_settings(mail_game):
    to = mail_game.reply_to("alice")
    out = mail_game.send(_mail(to, "WAIT ON", mid="<w1@c>"))
    assert (out.status, out.detail) == ("processed", "wait set")
    answer = text_of(mail_game.players["alice"].latest("Status of round 1"))
    assert "WAIT    ON: the round stays open until its deadline" in answer
    assert mail_game.send(_mail(to, "remind pt6h\n> quoted", mid="<r1@c>")).detail == "remind set"
    assert "REMIND  PT6H before the deadline" in text_of(mail_game.players["alice"].latest("Status of round 1"))
    assert mail_game.send(_mail(to, "AWAY 2026-12-24 2026-12-27", mid="<a1@c>")).detail == "away set"
    assert mail_game.send(_mail(to, "away 2027-01-02 to 2027-01-03", mid="<a2@c>")).detail == "away set"
    answer = text_of(mail_game.players["alice"].latest("Status of round 1"))
    assert "AWAY    2026-12-24 to 2026-12-27, 2027-01-02 to 2027-01-03" in answer
    settings = _api_settings(mail_game, "alice").json
    assert (settings["wait"], settings["reminder_lead"]) == (True, "PT6H")
    assert settings["absences"] == [{"from": "2026-12-24", "to": "2026-12-27"},
                                    {"from": "2027-01-02", "to": "2027-01-03"}]
    assert _api_settings(mail_game, "bob").json["wait"] is False  # only the writer's seat
    mail_game.send(_mail(to, "AWAY CLEAR", mid="<a3@c>"))
    mail_game.send(_mail(to, "WAIT OFF", mid="<w2@c>"))
    answer = text_of(mail_game.players["alice"].latest("Status of round 1"))
    assert "WAIT    OFF: the round closes as soon as everyone is in" in answer
    assert "AWAY    no absences declared" in answer
    settings = _api_settings(mail_game, "alice").json
    assert (settings["wait"], settings["reminder_lead"], settings["absences"]) == (False, "PT6H", [])


def test_a_bad_date_or_duration_by_mail_is_refused_with_the_apis_message(mail_game):
    to = mail_game.reply_to("alice")
    mail_game.send(_mail(to, "AWAY 2026-12-24 2026-12-27", mid="<a1@c>"))
    out = mail_game.send(_mail(to, "AWAY 2026-12-30 2026-13-01", mid="<a2@c>"))
    api = _api_settings(mail_game, "alice", {"absences": [{"from": "2026-12-24", "to": "2026-12-27"},
                                                          {"from": "2026-12-30", "to": "2026-13-01"}]})
    assert api.status_code == 422
    expected = "absence 2, its last day: expected a date like 2026-12-24 (YYYY-MM-DD), got '2026-13-01'"
    assert expected in str(api.json)
    assert out.detail == f"AWAY refused: {expected}"
    assert f"AWAY refused: {expected}" in text_of(mail_game.players["alice"].latest("Status of round 1"))

    out = mail_game.send(_mail(to, "REMIND PT6X", mid="<r1@c>"))
    api = _api_settings(mail_game, "alice", {"reminder_lead": "PT6X"})
    expected = "reminder_lead: 'PT6X' is not an ISO 8601 duration like 'PT48H' or 'P1DT12H'"
    assert api.status_code == 422 and expected in str(api.json)
    assert out.detail == f"REMIND refused: {expected}"
    assert f"REMIND refused: {expected}" in text_of(mail_game.players["alice"].latest("Status of round 1"))

    out = mail_game.send(_mail(to, "WAIT maybe", mid="<w1@c>"))
    assert out.detail == "WAIT refused: WAIT: write WAIT ON or WAIT OFF, got 'maybe'"
    out = mail_game.send(_mail(to, "AWAY soon-ish", mid="<a3@c>"))
    assert out.detail == ("AWAY refused: absence 2, its first day: expected a date like 2026-12-24 (YYYY-MM-DD), "
                          "got 'soon-ish'")
    assert "absences[" not in text_of(mail_game.players["alice"].latest("Status of round 1"))
    settings = _api_settings(mail_game, "alice").json  # nothing refused was stored
    assert (settings["wait"], settings["reminder_lead"]) == (False, "PT12H")
    assert settings["absences"] == [{"from": "2026-12-24", "to": "2026-12-27"}]


def test_help_lists_the_setting_commands(mail_game):
    mail_game.send(_mail(mail_game.reply_to("alice"), "HELP", mid="<h@c>"))
    help_mail = mail_game.players["alice"].latest("How to play by mail")
    text = text_of(help_mail)
    for line in ("READY        your orders are final", "NOT READY    keep the round open for you",
                 "WAIT ON      the same as NOT READY; WAIT OFF the same as READY",
                 "AWAY 2026-12-24 2026-12-27", "REMIND PT6H  be reminded"):
        assert line in text
    assert "<code>REMIND PT6H</code>" in html_of(help_mail)


def test_ready_and_not_ready_by_mail_decide_the_early_close(mail_game):
    """Sending and being ready are apart: NOT READY beside the orders keeps the round open
    for the sender after everyone is in; READY alone closes it. The mails say which."""
    alice, bob = mail_game.players["alice"], mail_game.players["bob"]
    out = mail_game.send(_mail(mail_game.reply_to("alice"), "pass\nNOT READY", mid="<n1@c>"))
    assert out.status == "processed" and _current_orders(mail_game, "alice") == "pass"
    confirmation = text_of(alice.latest("Orders stored for round 1"))
    assert "You are NOT READY: the round waits for you until its deadline" in confirmation
    assert "reply READY" in confirmation and "  1  pass" in confirmation
    assert mail_game.send(_mail(mail_game.reply_to("bob"), "pass", sender="bob@example.org",
                                mid="<b1@c>")).status == "processed"
    assert "You are READY: these are your final orders" in text_of(bob.latest("Orders stored for round 1"))
    assert _current_orders(mail_game, "alice") == "pass"  # round 1 still open: alice is not ready
    out = mail_game.send(_mail(mail_game.reply_to("alice"), "ready", mid="<r1@c>"))
    assert (out.status, out.detail) == ("processed", "ready")
    assert "You are READY: your orders are final" in text_of(alice.latest("Status of round"))
    with session_scope(mail_game.app) as s:
        assert s.scalars(select(Round.status).where(Round.game_id == mail_game.id,
                                                    Round.number == 1)).one() == "resolved"
    assert _api_settings(mail_game, "alice").json["wait"] is False  # remembered for the next rounds


def test_help_teaches_the_game_from_the_same_source_as_the_rules_page(mail_game):
    """The HELP mail says how to win, a round, the limits and the worked example, in the
    very sentences the rules page opens with (the ruleset's teaching)."""
    from service.catalog import rules_help

    mail_game.send(_mail(mail_game.reply_to("alice"), "HELP", mid="<t@c>"))
    help_mail = mail_game.players["alice"].latest("How to play by mail")
    text, html = text_of(help_mail), html_of(help_mail)
    rules = rules_help("universal")  # the mail game's ruleset
    assert rules.teaching is not None and rules.example is not None
    assert "\n".join(rules.teaching_lines) in text
    assert all(len(line) <= 78 for line in rules.teaching_lines)
    flat = " ".join(text.split())
    for sentence in (rules.teaching.win, *rules.teaching.sequence, *rules.teaching.limits, *rules.example.events):
        assert " ".join(sentence.split()) in flat
        assert sentence.split()[0] in html
    assert "How to win:" in text and "A round worked out." in text


def test_a_misspelt_verb_or_command_by_mail_gets_did_you_mean(mail_game):
    """`A1 mvoe c3` by mail is answered with the verb it nearly is, and a first line that
    is nearly a command (STAUTS) with the command, and where commands go."""
    out = mail_game.send(_mail(mail_game.reply_to("alice"), "STAUTS\nA1 mvoe c3", mid="<dm@c>"))
    assert out.status == "processed" and "orders refused" in out.detail
    text = text_of(mail_game.players["alice"].latest("Orders NOT stored for round 1"))
    assert "  2  A1 mvoe c3\n     ^ 'mvoe' is not an order here; did you mean move?" in text
    flat = " ".join(text.split())
    assert ("did you mean the command STATUS? A command stands alone on the first line of a mail" in flat)
