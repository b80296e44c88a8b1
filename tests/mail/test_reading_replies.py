"""Incoming text: every common client's reply reads as the same order text."""

from __future__ import annotations

import pytest

from service.mail.body import body_text, parse_message, unflow
from service.mail.html_text import html_to_text
from service.mail.reply_text import clean_reply, read_reply
from tests.mail import client_mails

ORDERS = "A1 move d4\nA2 attack B1"
TO = "play+1.aaaaaaaaaaaaaaaa@dicepost.test"


def _orders_of(raw: bytes) -> str:
    msg = parse_message(raw)
    reply = read_reply(body_text(msg), str(msg["Subject"]))
    assert reply.command == "orders"
    return "\n".join(line for line in reply.text.splitlines() if line.split("#")[0].strip())


@pytest.mark.parametrize("builder", [
    client_mails.gmail_quoted,
    client_mails.thunderbird_bottom_posted,
    client_mails.html_only,
    client_mails.outlook_latin1_qp,
    client_mails.base64_utf8,
])
def test_each_client_gives_the_players_orders_only(builder):
    assert _orders_of(builder(TO, ORDERS)) == ORDERS


def test_latin1_is_decoded_by_its_declared_charset():
    msg = parse_message(client_mails.outlook_latin1_qp(TO, ORDERS))
    assert "# für Runde 2 - bitte" in body_text(msg)


def test_base64_utf8_is_decoded():
    msg = parse_message(client_mails.base64_utf8(TO, ORDERS))
    assert "✓ bonne chance" in body_text(msg)


def test_unknown_charset_falls_back_without_losing_the_mail():
    raw = (b"From: a@example.org\r\nTo: x@y.z\r\nSubject: s\r\nMIME-Version: 1.0\r\n"
           b"Content-Type: text/plain; charset=x-no-such-charset\r\n"
           b"Content-Transfer-Encoding: 8bit\r\n\r\nA1 move c3 \xe9\r\n")
    assert body_text(parse_message(raw)).startswith("A1 move c3 é")


def test_commands_and_tokens():
    r = read_reply("TOKEN 3.abcdefghijklmnop\nstatus\n")
    assert (r.command, r.tokens) == ("status", ["3.abcdefghijklmnop"])
    assert read_reply("  Clear  \n> A1 move c3").command == "clear"
    assert read_reply("HELP # what can I send?").command == "help"
    assert read_reply("", "Re: STATUS").command == "status"
    assert read_reply("\n\n-- \nsig", "Re: Round 4").command == "empty"
    r = read_reply("token: 3.abcdefghijklmnop\nA1 move c3\n")
    assert (r.command, r.text, r.tokens) == ("orders", "A1 move c3", ["3.abcdefghijklmnop"])


def test_inline_replies_keep_every_unquoted_line():
    text = "> What does A1 do?\nA1 move c3\n> And A2?\nA2 hold\n"
    assert clean_reply(text) == ["A1 move c3", "A2 hold", ""]


def test_attribution_in_other_languages_is_dropped():
    for line in ["Am 30.11.2026 um 01:00 schrieb dicepost <p@d.test>:",
                 "Le lun. 30 nov. 2026 à 01:00, dicepost <p@d.test> a écrit :",
                 "El lun, 30 nov 2026 a las 01:00, dicepost escribió:"]:
        assert clean_reply(f"A1 move c3\n{line}\n> quoted") == ["A1 move c3"]


def test_signature_ends_the_orders():
    assert clean_reply("A1 move c3\n--\nAlice\nA1 move h8") == ["A1 move c3"]


def test_html_to_text_shapes():
    html = ("<p>A1 move c3<br>A2 attack&nbsp;B1</p><blockquote><p>A9 move a1</p>"
            "<blockquote>deeper</blockquote></blockquote><style>p{}</style><p>after &amp; done</p>")
    assert html_to_text(html) == "A1 move c3\nA2 attack B1\n> A9 move a1\n> > deeper\nafter & done"
    assert html_to_text("<pre>A1 move c3\nA2 hold</pre>") == "A1 move c3\nA2 hold"


def test_unflow():
    assert unflow("A1 move \nc3\n-- \nsig", delsp=False) == "A1 move c3\n-- \nsig"
    assert unflow(" From here\nx", delsp=False) == "From here\nx"


def test_phone_signatures_end_the_orders():
    for sig in ["Sent from my iPhone", "Get Outlook for Android", "Von meinem iPhone gesendet",
                "Envoyé de mon iPad"]:
        assert clean_reply(f"A1 move c3\n\n{sig}\n") == ["A1 move c3", ""]
    assert clean_reply("A1 move c3\nsent a unit") == ["A1 move c3", "sent a unit"]
