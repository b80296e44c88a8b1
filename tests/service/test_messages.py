"""Talk at the table: public and private messages by web and by mail, who sees what (the
public record holds only the public ones), unread counts, clear refusals and the hourly limit."""

from __future__ import annotations

import re
from email import message_from_string
from email.policy import default

import pytest
from sqlalchemy import select

from service.db import session_scope
from service.inbound.receive import receive
from service.models import Outbox, StoredMail
from tests.service.schedule_world import DATABASES, World, database


@pytest.fixture(params=DATABASES)
def world(request, tmp_path):
    return World(database(request, tmp_path)).start({"kind": "duration", "duration": "PT48H"},
                                                    seats=("red", "blue", "green"))


def say(world: World, seat: str, to: str, text: str, follow: bool = False):
    return world.client.post(f"/games/{world.game_id}/player/{world.tokens[seat]}/messages",
                             data={"to": to, "text": text}, follow_redirects=follow)


def page(world: World, seat: str | None = None) -> str:
    path = f"/games/{world.game_id}" + (f"/player/{world.tokens[seat]}" if seat else "")
    return world.client.get(path).get_data(as_text=True)


def test_public_and_private_messages_reach_only_whom_they_are_for(world):
    r = say(world, "red", "all", "Hello, table!")
    assert r.status_code == 303 and r.headers["Location"].endswith("#messages")
    say(world, "red", "blue", "Psst, blue: ally against green?")
    say(world, "blue", "gm", "GM, can I be away on Friday?")
    assert "Hello, table!" in page(world) and "ally against green" not in page(world)  # a visitor
    assert "ally against green" in page(world, "blue") and "ally against green" in page(world, "red")
    assert "ally against green" not in page(world, "green") and "Hello, table!" in page(world, "green")
    assert "away on Friday" not in page(world, "red")
    gm = world.client.get(f"/games/{world.game_id}/gm/{world.gm_token}").get_data(as_text=True)
    assert all(t in gm for t in ("Hello, table!", "away on Friday")) and "ally against green" not in gm
    assert "read only by its sender and its recipient" in page(world, "red")  # said where one writes
    # The public record: a browser that shows no token (this client's session now holds the
    # GM's and the players' tokens, whose records hold their private messages too).
    record = world.app.test_client().get(f"/api/games/{world.game_id}/record").json
    assert [(m["from"], m["to"], m["round"], m["text"]) for m in record["messages"]] == [
        ("red", "all", 1, "Hello, table!")]
    # Mail: each message to each seat it is for (their preference is "every mail").
    mails = sorted((r.to_address, r.payload["text"]) for r in world.outbox("message"))
    assert mails == [("blue@example.org", "Hello, table!"), ("blue@example.org", "Psst, blue: ally against green?"),
                     ("green@example.org", "Hello, table!")]


def test_unread_counts_and_newest_first(world):
    say(world, "red", "all", "first")
    say(world, "green", "all", "second")
    blue = page(world, "blue").split('id="messages"')[1]
    assert "(2 new)" in blue and blue.index(">second<") < blue.index(">first<")
    assert '<a href="#messages">1 new message</a> at the table.' in page(world, "green")  # red's, on top
    assert "(2 new)" not in page(world, "blue")  # seen now
    assert "(1 new)" in page(world, "red").split('id="messages-title"')[1].split("</h3>")[0]  # not its own
    say(world, "red", "all", "third")
    assert "(1 new)" in page(world, "blue")


@pytest.mark.parametrize(("to", "text", "problem"), [
    ("purple", "hi", "to: &#39;purple&#39; is not a seat of this game"),
    ("red", "hi", "to: a message to yourself"),
    ("all", "   ", "text: the message is empty"),
    ("all", "x" * 2001, "text: at most 2000 characters"),
])
def test_refusals_say_why_and_keep_the_text(world, to, text, problem):
    r = say(world, "red", to, text, follow=True)
    body = r.get_data(as_text=True)
    assert "Not sent: " in body and problem in body
    assert not world.outbox("message")


def test_the_hourly_limit(world):
    world.app.config["MESSAGES_PER_HOUR"] = 3
    for n in range(3):
        say(world, "red", "all", f"m{n}")
    r = say(world, "red", "all", "one too many", follow=True)
    assert "too many messages from red (3 an hour)" in r.get_data(as_text=True)
    assert "one too many" not in page(world)


def _mail(world: World, seat: str, body: str, reply_to_message: Outbox | None = None) -> str:
    with session_scope(world.app) as s:
        row = reply_to_message or s.query(Outbox).filter(Outbox.kind == "invitation").filter(
            Outbox.to_address == f"{seat}@example.org").first()
        headers = f"In-Reply-To: {row.message_id}\r\n" if row else ""
    with world.app.app_context():
        from service.mail.settings import mail_settings
        from service.models import Seat
        from service.outbound.context import seat_links

        with session_scope(world.app) as s:
            seat_row = s.query(Seat).filter(Seat.game_id == world.game_id, Seat.name == seat).one()
            address = seat_links(mail_settings(world.app.config), seat_row)["reply_address"]
    raw = (f"From: {seat}@example.org\r\nTo: {address}\r\nSubject: Re: x\r\n"
           f"Message-ID: <m{abs(hash(body))}@c>\r\n{headers}\r\n{body}\r\n").encode()
    with world.app.app_context():
        return receive(raw).detail


def test_msg_by_mail_and_a_reply_to_a_message_mail(world):
    assert "message to everyone sent" in _mail(world, "green", "MSG all\nGreetings from green.")
    assert "Greetings from green." in page(world, "red")
    said = _mail(world, "green", "MSG blue\nJust you, blue.\n-- \ngreen's signature")
    assert "message to blue sent" in said and "Just you, blue." in page(world, "blue")
    assert "signature" not in page(world, "blue")
    # blue answers the private message by replying to its mail: it goes to green alone.
    mail = next(r for r in world.outbox("message") if r.payload["text"] == "Just you, blue.")
    assert "message to green sent" in _mail(world, "blue", "Thanks, green!", reply_to_message=mail)
    assert "Thanks, green!" in page(world, "green") and "Thanks, green!" not in page(world, "red")
    refused = _mail(world, "green", "MSG nobody\nhello?")
    assert "MSG nobody refused: to: &#39;nobody&#39;" in refused or "MSG nobody refused: to: 'nobody'" in refused
    # Orders above a MSG line still count.
    order = world.legal_order("red")
    said = _mail(world, "red", f"{order}\nMSG all\nMoving up.")
    assert "message to everyone sent" in said and "Moving up." in page(world)
    assert re.search(r"version 1", page(world, "red"))


def test_the_gm_reads_between_seats_only_where_the_game_was_created_so(tmp_path):
    """Pages, API, record and the GM's unread count follow the creation option; players are
    told on the message form and in their invitation."""
    for reads in (False, True):
        (tmp_path / str(reads)).mkdir()
        world = World(tmp_path / str(reads)).start({"kind": "duration", "duration": "PT48H"},
                                                   seats=("red", "blue"), options={"gm_reads_private": reads})
        say(world, "red", "blue", "between us")
        say(world, "blue", "gm", "to the GM")
        gm_token = {"Authorization": f"Bearer {world.gm_token}"}
        api = world.app.test_client()
        record = [m["text"] for m in api.get(f"/api/games/{world.game_id}/record", headers=gm_token).json["messages"]]
        gm = world.client.get(f"/games/{world.game_id}/gm/{world.gm_token}").get_data(as_text=True)
        assert record == (["between us", "to the GM"] if reads else ["to the GM"])
        assert ("between us" in gm) is reads and "to the GM" in gm
        assert ("1 new message" in gm) is not reads and ("2 new messages" in gm) is reads
        words = ("read by its sender, its recipient and the GM" if reads
                 else "read only by its sender and its recipient")
        assert words in page(world, "blue")
        with session_scope(world.app) as s:
            raw = s.scalars(select(StoredMail.raw).where(StoredMail.subject.like("%Invitation:%"))).first()
        text = message_from_string(raw or "", policy=default).get_body(("plain",)).get_content()
        assert words in " ".join(text.split())
