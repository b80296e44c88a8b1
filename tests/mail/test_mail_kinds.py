"""Every kind of mail, rendered and parsed back: two parts, proper headers, nothing unsafe."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from html.parser import HTMLParser

import pytest
from sqlalchemy import select

from service import clock
from service.clock import FakeClock
from service.db import session_scope
from service.gm.news import GATHER
from service.mail.settings import mail_settings
from service.mail.tokens import parse_token, verify_token
from service.models import Follower, Game, Outbox, Seat, Step, StoredMail
from service.outbound.deliver import deliver
from tests.mail.conftest import start_game
from tests.mail.mail_world import html_of, parse, text_of

KINDS = ("invitation", "joined", "confirmation", "results", "reminder", "game_over", "refusal", "status", "help",
         "gm_news", "message", "follow", "follow_results")


class _Tags(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags: set[str] = set()
        self.urls: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        self.urls += [v for k, v in attrs if k in ("src", "href", "background") and v]


def _all_kinds(app) -> dict[str, list]:
    """A game that has sent every kind: played to its end, plus the kinds no flow sends here."""
    moved = app.config["CLOCK"] = FakeClock(datetime.now(UTC))
    game = start_game(app, max_rounds=1)
    to = game.reply_to("alice")
    game.send(_raw(to, "A1 fly a1", "<k1@c>"))       # confirmation with errors
    game.send(_raw(to, "STATUS", "<k2@c>"))           # status
    game.send(_raw(to, "HELP", "<k3@c>"))             # help
    game.send(_raw("dicepost@dicepost.localhost", "pass", "<k4@c>", sender="who@else.example"))  # refusal
    with session_scope(app) as s, s.begin():
        seat = s.scalars(select(Seat).where(Seat.game_id == game.id, Seat.name == "alice")).one()
        s.add(Outbox(game_id=game.id, seat_id=seat.id, kind="reminder", to_address=seat.email,
                     message_id=f"<{game.id}.reminder.t@dicepost.test>", status="pending",
                     payload={"round": 1, "deadline": "2026-12-01T00:00:00+00:00", "lead": "PT12H",
                              "title": "Mail duel"}))
    announced = app.test_client().post(f"/api/games/{game.id}/gm/announce", json={"text": "Play nice."},
                                       headers={"Authorization": f"Bearer {game.gm_token}"})
    assert announced.status_code == 200, announced.json  # gm_news
    game.send(_raw(to, "MSG bob\nHello, bob.", "<k7@c>"))  # message (to bob) and its status answer
    web = app.test_client()  # a spectator follows the game: the link, then each round
    assert web.post(f"/games/{game.id}/follow", data={"email": "fan@example.org"}).status_code == 303
    with session_scope(app) as s, s.begin():
        s.scalars(select(Follower)).one().confirmed_at = clock.now()
    moved.advance(GATHER)  # the GM's news waits a few minutes for the GM's next actions
    with session_scope(app) as s:
        pending = list(s.scalars(select(Outbox.id).where(Outbox.status == "pending")))
    with app.app_context():
        for oid in pending:
            deliver(oid)
    game.send(_raw(to, "pass", "<k5@c>"))
    game.send(_raw(game.reply_to("bob"), "pass", "<k6@c>", sender="bob@example.org"))  # results, game over
    out: dict[str, list] = {k: [] for k in KINDS}
    with session_scope(app) as s:
        for mail, row in s.execute(select(StoredMail, Outbox).join(Outbox, Outbox.id == StoredMail.outbox_id)):
            out[row.kind].append((parse(mail.raw.encode()), row.message_id, row.seat_id))
    return {"game": game, **out}


def _raw(to: str, body: str, mid: str, sender: str = "alice@example.org") -> bytes:
    return (f"From: {sender}\r\nTo: {to}\r\nSubject: Re: x\r\nMessage-ID: {mid}\r\n\r\n{body}\r\n").encode()


@pytest.fixture(scope="module")
def sent(tmp_path_factory):
    from service import create_app
    from service.db import engine_of
    from tests.conftest import base_config, migrated_sqlite

    path = tmp_path_factory.mktemp("kinds") / "kinds.sqlite3"
    app = create_app(base_config(migrated_sqlite(path)))
    yield _all_kinds(app)
    engine_of(app).dispose()


@pytest.mark.parametrize("kind", KINDS)
def test_each_kind_is_multipart_with_safe_html_and_proper_headers(sent, kind):
    mails = sent[kind]
    assert mails, f"no {kind} mail was sent"
    game = sent["game"]
    with session_scope(game.app) as s:
        commitment = s.get(Game, game.id).commitment
    for msg, message_id, seat_id in mails:
        if kind == "results":  # the body, then the record so far as a file to keep
            assert msg.get_content_type() == "multipart/mixed"
            body, record = msg.iter_parts()
            assert record.get_content_type() == "application/json" and record.get_filename()
            assert body.get_content_type() == "multipart/alternative"
        else:
            body = msg
            assert msg.get_content_type() == "multipart/alternative"
        assert [p.get_content_type() for p in body.iter_parts()] == ["text/plain", "text/html"]
        assert msg["Message-ID"] == message_id
        # RFC 3834: every mail here of these kinds answers one a player (or a stranger) sent.
        answered = kind in ("confirmation", "status", "help", "refusal")
        assert msg["Auto-Submitted"] == ("auto-replied" if answered else "auto-generated")
        # A player's message is relayed one to one, not news sent to every player; a follow link is asked
        # for; a join is confirmed to its player alone.
        assert msg["Precedence"] == (None if answered or kind in ("message", "follow", "joined") else "bulk")
        assert msg["List-Id"] == (None if kind == "refusal" else f'"Mail duel" <{game.id}.dicepost.localhost>')
        text, html = text_of(msg), html_of(msg)
        tags = _Tags()
        tags.feed(html)
        assert not tags.tags & {"svg", "script", "img", "iframe", "object", "style", "link"}
        assert all(u.startswith(("http://dicepost.test", "mailto:")) for u in tags.urls), tags.urls
        if kind == "refusal":
            assert seat_id is None and msg["Reply-To"] is None and commitment not in text
            continue
        if kind in ("follow", "follow_results"):  # to a spectator: no seat, no reply token
            assert seat_id is None and msg["To"] == "fan@example.org" and "TOKEN" not in text
            assert re.search(r"http://dicepost\.test/follow/\d+\.\w+", text) and commitment in text
            continue
        assert commitment in text and commitment in html  # every game mail shows S_0
        if kind == "invitation":  # and says to keep it, and what for
            assert "KEEP S_0" in text and "<b>Keep S_0</b>" in html
            for part in (text, html):
                assert "proof of which dice this game was given" in " ".join(part.split())
                assert f"dicepost verify RECORD --commitment {commitment}" in part
        root = f"<game-{game.id}-seat-{seat_id}@dicepost.localhost>"
        assert msg["In-Reply-To"] == root and msg["References"] == root
        token = str(msg["Reply-To"].addresses[0].addr_spec).split("+")[1].split("@")[0]
        with game.app.app_context(), session_scope(game.app) as s:
            seat = s.get(Seat, seat_id)
            assert verify_token(mail_settings(game.app.config).secret_key, "reply", parse_token(token),
                                seat.reply_token_salt)
        assert msg["List-Unsubscribe"].startswith("<http://dicepost.test/mail/unsubscribe/")
        assert msg["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
        assert f"TOKEN {token}" in text


def test_results_mail_has_everything_a_round_needs(sent):
    msg = next(m for m, _mid, _seat in sent["results"] if "Round 1 results" in str(m["Subject"]))
    text, html = text_of(msg), html_of(msg)
    for part in ("THE GRID", "Pieces:", "WHAT HAPPENED", "YOUR UNITS", "ROLL LOG", "CHECK THESE DICE",
                 "Revealed chain key S_2 = ", "S_1 = ", "it does.", f"/verify?record=http://dicepost.test/api/games/{sent['game'].id}/record"):
        assert part in text, part
    assert "<table role=\"grid\"" in html and "Roll log" in html and "Check these dice" in html
    # The link carries what this seat holds, after the # (never sent to a server).
    assert re.search(r"/record#commitment=[0-9a-f]{64}&seat=\w+&entropy=[0-9a-f]{32,128}\b", text), text


def test_the_start_mail_shows_round_1(sent):
    msg = next(m for m, _mid, _seat in sent["results"] if "The game has started" in str(m["Subject"]))
    text = text_of(msg)
    assert "Round 1 is open" in text and "It needs your orders" in text
    assert "Revealed chain key S_1 = " in text


def test_confirmation_with_errors_and_reminder_text(sent):
    errors = next(m for m, _mid, _seat in sent["confirmation"] if "NOT stored" in str(m["Subject"]))
    assert "  1  A1 fly a1\n     ^ " in text_of(errors)
    reminder = sent["reminder"][0][0]
    assert "Round 1 of Mail duel closes" in text_of(reminder) and "(in about 12 hours)" in text_of(reminder)


def test_game_over_names_the_outcome(sent):
    over = sent["game_over"][0][0]
    assert "Game over: a draw" in str(over["Subject"]) or "won" in str(over["Subject"])
    assert "THE FINAL GRID" in text_of(over)


def test_results_mail_checks_on_its_own(sent):
    """The step's inputs, the salt, D_t and K_t are printed, and they are the record's."""
    from engine.dice import canonical

    msg = next(m for m, _mid, _seat in sent["results"] if "Round 1 results" in str(m["Subject"]))
    text = text_of(msg)
    game = sent["game"]
    with session_scope(game.app) as s:
        record_game = s.get(Game, game.id)
        step = s.scalars(select(Step).where(Step.game_id == game.id, Step.t == 2)).one()
        salt, inputs = record_game.salt, step.inputs
        digest = step.inputs_digest
        profile = record_game.options["dice_profile"]
    with game.app.test_client() as client:
        recorded = client.get(f"/api/games/{game.id}/record").json["steps"][1]
    assert f"Salt G = {salt}" in text
    assert f"Inputs of step 2 (canonical JSON) = {canonical(inputs).decode()}" in text
    assert f"D_2 = H(\"{profile}\", \"inputs\", inputs) = {digest}" in text
    assert f"= {recorded['step_key']}" in text and recorded["inputs_digest"] == digest
    assert f'SHA-256(enc("{profile}", "chain", S_2))' in text


def test_a_stored_confirmation_carries_its_receipt(sent):
    from engine.dice import NEW_GAME_PROFILE, receipt
    from engine.held import held_from_mails

    stored = [m for m, _mid, _seat in sent["confirmation"] if "NOT stored" not in str(m["Subject"])]
    assert stored
    text = text_of(stored[0])
    game = sent["game"]
    assert "Receipt of version 1" in text
    # received at a time as people read it: to the minute, in the game's zone, never raw ISO
    received = next(x for x in text.splitlines() if x.startswith("Receipt of version 1"))
    assert re.fullmatch(r"Receipt of version 1 \(\w{3} \d{2} \w{3} \d{2}:\d{2} .*\):", received), received
    line = next(x for x in text.splitlines() if "--receipt" in x)
    seat, rnd, version, value = line.split("--receipt ", 1)[1].rstrip(").").split(":")
    assert value == receipt(game.id, int(rnd), seat, int(version), "", NEW_GAME_PROFILE).hex()  # it sent "pass"
    # the evidence block carries the same receipt, the text as sent and as it counts
    held = held_from_mails([("confirmation.eml", stored[0].as_bytes())], game.id)
    assert held.receipts == [(seat, int(rnd), int(version), bytes.fromhex(value))]
    assert held.sent[(seat, int(rnd), int(version))] == "pass" and held.conflicts == []


@pytest.mark.parametrize("kind", KINDS)
def test_each_kind_wears_the_stylesheets_tokens(sent, kind):
    """Inline styles only (mail clients strip <style>), and every colour and font stack in
    them is one of the stylesheet's light-scheme tokens, none left empty."""
    from service.render.design import parse_root
    from tests.conftest import ROOT

    light = set(parse_root((ROOT / "templates" / "web" / "dicepost.css").read_text(encoding="utf-8")).values())
    for msg, _message_id, _seat_id in sent[kind]:
        html = html_of(msg).replace("&#39;", "'")
        assert 'style="' in html and "<style" not in html
        colours = re.findall(r"(?:color|background|border(?:-top|-right|-bottom|-left)?)\s*:\s*(?:\d+px \w+ )?([^;\"]*)", html)
        colours += re.findall(r'bgcolor="([^"]*)"', html)
        fonts = re.findall(r"font-family:([^;\"]*)", html)
        assert colours and fonts
        stray = {c for c in colours + fonts if c not in light and c != "0"}
        assert not stray, stray
