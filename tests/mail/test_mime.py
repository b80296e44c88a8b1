"""service.mail.mime writes messages without the email package: read back by the email
package's parser (as a mail client would), every header and part says what was given."""

from __future__ import annotations

import base64
import binascii
import random
import re

import pytest

from service.mail import mime
from service.mail.headers import clean_header_text, mailbox, standard_headers, text_value
from tests.mail.mail_world import html_of, parse, text_of

NAMES = ["alice", "Zoë Ångström", "O'Brien, \"the Bold\"", "=?utf-8?b?Zm9v?=", "a\\b", "龍" * 60,
         "  padded  ", "🎲 dice 🎲 " * 12]
SUBJECTS = ["Round 3 results", "Résultats du tour 3 — « Les dragons »", "x " * 150, "y" * 199,
            "=?utf-8?q?not_an_encoded_word?=", "日本語の件名" * 20]


def _raw(name: str, subject: str, text: str = "hello\n", html: str | None = "<p>hello</p>",
         attachments: list[mime.Attached] | None = None) -> bytes:
    headers = standard_headers(
        sender=mailbox("dicepost", "play@dicepost.test"), to=mailbox(name, "eve@example.org"),
        subject=subject, msg_id="<g1.results.1@dicepost.test>", root="<game-g1-seat-1@dicepost.test>",
        reply_to="play+1.abc@dicepost.test", unsubscribe_url="https://dicepost.test/mail/unsubscribe/" + "t" * 90,
        unsubscribe_mailto="play+1.abc@dicepost.test", date="Mon, 30 Nov 2026 00:00:00 +0000",
        list_id='"Dragons" <g1.dicepost.test>', bulk=True)
    return mime.message(mime.header_block(headers), text, html, attachments or [],
                        seed="<g1.results.1@dicepost.test>")


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("subject", SUBJECTS)
def test_headers_read_back_as_written(name: str, subject: str) -> None:
    raw = _raw(name, subject)
    head = raw.split(b"\r\n\r\n", 1)[0]
    assert head.isascii()
    assert b"\n" not in head.replace(b"\r\n", b"")  # CRLF line ends only
    assert all(len(line) <= 998 for line in head.split(b"\r\n"))
    # Folded where it can be: a line longer than 78 holds one piece (after its name).
    for line in head.split(b"\r\n"):
        piece = line.split(b": ", 1)[-1] if not line.startswith(b" ") else line
        assert len(line) <= mime.WIDTH or b" " not in piece.strip(), line
    back = parse(raw)
    assert back["Subject"] == clean_header_text(subject, 200)
    to = back["To"].addresses[0]
    assert to.addr_spec == "eve@example.org"
    shown = clean_header_text(name, 80)
    if shown.isascii() and "=?" not in shown:
        assert to.display_name == shown
    else:  # encoded words: read as RFC 2047 says (the parser's phrase reader keeps the
        # spaces between the words; it reads the email package's own output so too)
        assert text_value(back, "To") == f"{shown} <eve@example.org>"
    assert back["From"].addresses[0].display_name == "dicepost"
    assert back["Reply-To"].addresses[0].addr_spec == "play+1.abc@dicepost.test"
    assert back["List-Unsubscribe"] == ("<https://dicepost.test/mail/unsubscribe/" + "t" * 90 + ">, "
                                        "<mailto:play+1.abc@dicepost.test?subject=unsubscribe>")
    assert back["List-Id"] == '"Dragons" <g1.dicepost.test>'
    assert back["Precedence"] == "bulk" and back["Auto-Submitted"] == "auto-generated"
    assert not back.defects and all(not p.defects for p in back.walk())


@pytest.mark.parametrize("text", ["plain ascii\nsecond line\n", "no newline at the end",
                                  "Zoë moves\tA1 to b2 \n", "x" * 3000 + "\nshort\n",
                                  "trailing spaces   \n.\n.. dots\nFrom the start\n", "=_dp boundary-like\n",
                                  "--=_dp" + "0" * 24 + "\n", "\r\nwindows\r\nlines\r\n"])
def test_text_and_html_parts_read_back_as_written(text: str) -> None:
    html = "<p>" + text + "</p>\n"
    raw = _raw("alice", "s", text=text, html=html)
    back = parse(raw)
    want = text.replace("\r\n", "\n")
    want = want if want.endswith("\n") else want + "\n"
    assert text_of(back) == want
    assert html_of(back) == html.replace("\r\n", "\n")
    assert all(len(line) <= 998 for line in raw.split(b"\r\n"))
    assert b"\n" not in raw.replace(b"\r\n", b"")
    assert back.get_content_type() == "multipart/alternative"
    assert not back.defects and all(not p.defects for p in back.walk())


def test_an_attachment_wraps_the_alternative_in_mixed_and_keeps_its_bytes() -> None:
    data = ('{"steps":["' + "é" * 5000 + '"]}').encode()
    raw = _raw("alice", "s", attachments=[mime.Attached("dicepost-g1-step2.json", "application/json", data)])
    back = parse(raw)
    assert back.get_content_type() == "multipart/mixed"
    assert text_of(back) == "hello\n" and html_of(back) == "<p>hello</p>\n"
    (part,) = list(back.iter_attachments())
    assert part.get_filename() == "dicepost-g1-step2.json"
    assert part.get_content_type() == "application/json"
    assert part.get_payload(decode=True) == data


def test_the_same_row_gives_the_same_bytes_and_a_boundary_no_part_contains() -> None:
    assert _raw("alice", "s") == _raw("alice", "s")
    mark = re.search(rb'boundary="([^"]+)"', _raw("alice", "s"))
    assert mark is not None
    # A text that happens to hold the first boundary gets another one.
    clash = _raw("alice", "s", text="--" + mark.group(1).decode() + "\n")
    assert parse(clash).get_body(preferencelist=("plain",)) is not None
    assert text_of(parse(clash)) == "--" + mark.group(1).decode() + "\n"


def test_encoded_words_keep_to_75_characters_and_whole_characters() -> None:
    for text in ("é" * 100, "🎲" * 40, "a" * 200):
        words = mime.encoded_words(text)
        assert all(len(w) <= 75 for w in words)
        assert "".join(parse(b"Subject: " + w.encode() + b"\r\n\r\n")["Subject"] for w in words) == text


def _b2a_qp(line: bytes) -> bytes:
    return binascii.b2a_qp(line, quotetabs=False, istext=True, header=False)


@pytest.mark.parametrize("data", [b"", b"one line", b"a\nb\n", b"\n\n", b"x" * 300 + b"\n" + b"=" * 90,
                                  b"crlf\r\nlines\r\n", b"lone\rcr\n", b"tail \n.\n" + "é".encode() * 100])
def test_quoted_printable_encodes_each_line_as_b2a_qp(data: bytes) -> None:
    want = b"".join(_b2a_qp(line) for line in data.splitlines(keepends=True))
    assert mime.quoted_printable(data) == want
    assert mime.quoted_printable(data) == want  # the second time from the kept lines


@pytest.mark.parametrize("size", [0, 1, 56, 57, 58, 114, 1000, 45_000, 200_000])
def test_the_attachment_is_base64_in_lines_of_76_as_encodebytes_writes_it(size: int) -> None:
    data = random.Random(size).randbytes(size)
    assert mime.base64_lines(data) == base64.encodebytes(data).replace(b"\n", b"\r\n")
