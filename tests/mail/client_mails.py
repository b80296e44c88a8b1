"""Replies as common mail clients write them, built with the email package.

Each builder returns raw RFC 5322 bytes of a reply carrying `orders` as the player's
own text, wrapped the way that client wraps it (quoting, HTML, charset, encoding).
"""

from __future__ import annotations

from email import policy
from email.charset import BASE64, QP, Charset
from email.message import EmailMessage
from email.mime.multipart import MIMEMultipart
from email.mime.text import MIMEText

QUOTED = (
    "> Round 1 results for Dragons\n"
    "> A1 move c3\n"
    "> B1 attack A1\n"
    ">> older quote\n"
)


def _headers(msg: EmailMessage | MIMEMultipart | MIMEText, to: str, subject: str, mid: str) -> None:
    msg["From"] = "Alice <alice@example.org>"
    msg["To"] = to
    msg["Subject"] = subject
    msg["Message-ID"] = mid
    msg["Date"] = "Mon, 30 Nov 2026 01:00:00 +0000"


def gmail_quoted(to: str, orders: str, mid: str = "<r1@mail.example.org>") -> bytes:
    """Top-posted plain text with a wrapped attribution line and > quotes."""
    msg = EmailMessage()
    _headers(msg, to, "Re: Round 1 results", mid)
    msg.set_content(
        f"{orders}\n\nOn Mon, Nov 30, 2026 at 12:59 AM dicepost <play+x@dicepost.test>\n"
        f"wrote:\n{QUOTED}"
    )
    return msg.as_bytes(policy=policy.SMTP)


def thunderbird_bottom_posted(to: str, orders: str, mid: str = "<r2@mail.example.org>") -> bytes:
    """Bottom-posted, format=flowed, with a signature."""
    body = f"On 30.11.26 00:59, dicepost wrote:\n{QUOTED}\n{orders}\n\n-- \nAlice\nA1 move h8\n"
    part = MIMEText(body, "plain", "utf-8")
    part.set_param("format", "flowed")
    _headers(part, to, "Re: Round 1 results", mid)
    return part.as_bytes(policy=policy.SMTP)


def html_only(to: str, orders: str, mid: str = "<r3@mail.example.org>") -> bytes:
    """A phone client: HTML only, orders in divs, the quote in a gmail_quote block."""
    lines = "".join(f"<div>{line}</div>" for line in orders.splitlines())
    html = (
        "<html><head><style>div{color:red}</style><script>A9 move a1</script></head><body>"
        f"{lines}<br><div class=\"gmail_quote\"><div class=\"gmail_attr\">On Mon, dicepost wrote:"
        "</div><blockquote>A1 move c3<br>B1 attack A1</blockquote></div></body></html>"
    )
    msg = EmailMessage()
    _headers(msg, to, "Re: Round 1", mid)
    msg.set_content(html, subtype="html")
    return msg.as_bytes(policy=policy.SMTP)


def outlook_latin1_qp(to: str, orders: str, mid: str = "<r4@mail.example.org>") -> bytes:
    """Outlook: multipart/alternative, ISO-8859-1 quoted-printable, no > quoting."""
    cs = Charset("iso-8859-1")
    cs.body_encoding = QP
    text = (f"{orders}\n# für Runde 2 – bitte\n\n________________________________\n"
            "From: dicepost <play@dicepost.test>\nSent: Monday\nA1 move c3\n")
    outer = MIMEMultipart("alternative")
    _headers(outer, to, "AW: Round 1", mid)
    plain = MIMEText("", "plain")
    plain.set_payload(text.replace("–", "-"), cs)
    outer.attach(plain)
    html = MIMEText("<p>" + orders.replace("\n", "<br>") + "</p><div id=\"divRplyFwdMsg\">A1 move c3</div>",
                    "html", "iso-8859-1")
    outer.attach(html)
    return outer.as_bytes(policy=policy.SMTP)


def base64_utf8(to: str, orders: str, mid: str = "<r5@mail.example.org>") -> bytes:
    cs = Charset("utf-8")
    cs.body_encoding = BASE64
    part = MIMEText("", "plain")
    part.set_payload(orders + "\n# ✓ bonne chance\n", cs)
    _headers(part, to, "Re: Round 1", mid)
    return part.as_bytes(policy=policy.SMTP)
