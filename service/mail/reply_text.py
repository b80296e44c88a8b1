"""What a player wrote in a reply: orders or one command, without quotes and signature.

Rules, in order:
- a signature starts at a line `-- ` (RFC 3676; clients that trim it to `--` count
  too), or at a phone's "Sent from my iPhone" line, and runs to the end;
- Outlook-style quoting starts at `-----Original Message-----`, a line of underscores,
  or a `From:` line followed by `Sent:`/`Date:`, and runs to the end;
- quoted lines (`>`) are dropped wherever they are, so top-, bottom- and inline
  posting all work;
- attribution lines ("On Mon, 30 Nov 2026, dicepost wrote:", possibly wrapped over
  two or three lines, and the German, French, Spanish, Dutch and Italian forms) are
  dropped;
- `TOKEN <token>` lines are taken out and returned apart; those of the quoted mail
  are returned apart again, as a last resort for identification;
- if the subject (without Re:/Fwd:) or the first remaining line is STATUS, CLEAR,
  HELP, JOIN or UNSUBSCRIBE, the mail is that command; if the first remaining line
  starts with WAIT, AWAY or REMIND, the mail is that setting command and the line's other
  words are its arguments; a line `MSG <seat|all|gm>` makes the lines below it a message
  at the table (those above it stay orders); otherwise the remaining text is an order
  text for the ruleset's parser;
- a line `READY` or `NOT READY` above any MSG line says whether the orders are final
  (`Reply.ready`); taken out of the orders, alone it is the mail's command ("ready").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

Command = Literal["orders", "status", "clear", "help", "join", "unsubscribe", "wait", "away", "remind",
                  "zone", "msg", "ready", "empty"]
COMMANDS: dict[str, Command] = {"status": "status", "clear": "clear", "help": "help", "join": "join",
                                 "unsubscribe": "unsubscribe"}
# Commands with arguments on the same line (`WAIT ON`, `AWAY 2026-12-24 2026-12-27`, `REMIND PT6H`,
# `ZONE Europe/Berlin`).
SETTING_COMMANDS: dict[str, Command] = {"wait": "wait", "away": "away", "remind": "remind", "zone": "zone"}

_SIG_RE = re.compile(r"^--\s*$")
# Phone clients sign without "-- ": "Sent from my iPhone", "Get Outlook for Android", ...
_DEVICE_SIG_RE = re.compile(
    r"^\s*(sent from my \S|sent from (outlook|yahoo mail|mail for windows)|get outlook for \S"
    r"|von meinem \S.* gesendet|envoyé de mon \S|enviado desde mi \S|verzonden vanaf mijn \S)",
    re.IGNORECASE)
_OUTLOOK_RE = re.compile(r"^\s*(-{2,}\s*original message\s*-{2,}|_{10,})\s*$", re.IGNORECASE)
_FROM_RE = re.compile(r"^\s*\*?(from|von|de|van|da)\s*:\*?\s", re.IGNORECASE)
_SENT_RE = re.compile(r"^\s*\*?(sent|date|gesendet|datum|envoyé|enviado|verzonden|inviato)\s*:",
                      re.IGNORECASE)
_ATTRIBUTION_START = re.compile(r"^\s*(on|am|le|el|op|il)\s", re.IGNORECASE)
_ATTRIBUTION_END = re.compile(
    r"\b(wrote|schrieb|a écrit|escribió|schreef|ha scritto)\b.*:\s*$", re.IGNORECASE
)
_TOKEN_RE = re.compile(r"^\s*token\s*[:=]?\s*(\S+)\s*$", re.IGNORECASE)
_MSG_RE = re.compile(r"^\s*msg\s+(\S+)\s*$", re.IGNORECASE)
_READY_RE = re.compile(r"^\s*(not\s+)?ready\s*[.!]?\s*$", re.IGNORECASE)
_SUBJECT_PREFIX = re.compile(r"^\s*((re|aw|sv|fw|fwd|wg|tr|antw)\s*(\[\d+\])?\s*:\s*)+", re.IGNORECASE)


@dataclass(frozen=True)
class Reply:
    command: Command
    text: str  # the order text (for "orders"), else ""
    tokens: list[str] = field(default_factory=list)
    # TOKEN lines of the quoted mail: a last resort when a mail system dropped the
    # plus-part of the reply address (whoever holds the mail holds its token anyway).
    quoted_tokens: list[str] = field(default_factory=list)
    args: tuple[str, ...] = ()  # the words after a setting command (WAIT, AWAY, REMIND)
    # A `MSG <to>` line: (to, the text below it) for the table; any orders stay in `text`.
    message: tuple[str, str] | None = None
    ready: bool | None = None  # a READY (True) or NOT READY (False) line; None: neither


def _cut_at_end_markers(lines: list[str]) -> list[str]:
    for i, line in enumerate(lines):
        if _SIG_RE.match(line) or _OUTLOOK_RE.match(line) or _DEVICE_SIG_RE.match(line):
            return lines[:i]
        if _FROM_RE.match(line) and any(_SENT_RE.match(x) for x in lines[i + 1 : i + 4]):
            return lines[:i]
    return lines


def _drop_attributions(lines: list[str]) -> list[str]:
    out: list[str] = []
    i = 0
    while i < len(lines):
        if _ATTRIBUTION_START.match(lines[i]):
            span = next(
                (k for k in range(i, min(i + 3, len(lines))) if _ATTRIBUTION_END.search(lines[k])), None
            )
            if span is not None:
                i = span + 1
                continue
        out.append(lines[i])
        i += 1
    return out


def clean_reply(text: str) -> list[str]:
    """The lines a player wrote: no signature, no quoted text, no attribution lines."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    lines = _cut_at_end_markers(lines)
    lines = [x for x in lines if not x.lstrip().startswith(">")]
    lines = _drop_attributions(lines)
    # Non-breaking and zero-width spaces that clients insert are spaces to the parser.
    return [re.sub(r"[\u00a0\u200b\u2007\u202f\ufeff]", " ", x).rstrip() for x in lines]


def strip_subject(subject: str) -> str:
    return _SUBJECT_PREFIX.sub("", subject or "").strip()


def quoted_tokens(text: str) -> list[str]:
    """TOKEN lines anywhere in the text, quoted (`> TOKEN ...`) or not."""
    found = []
    for line in text.replace("\r\n", "\n").split("\n"):
        m = _TOKEN_RE.match(line.lstrip(" >"))
        if m and m.group(1) not in found:
            found.append(m.group(1))
    return found


def read_reply(text: str, subject: str = "") -> Reply:
    """Orders, a command, or nothing; TOKEN lines are returned apart from either."""
    quoted = quoted_tokens(text)
    tokens: list[str] = []
    kept: list[str] = []
    for line in clean_reply(text):
        m = _TOKEN_RE.match(line)
        if m:
            tokens.append(m.group(1))
        else:
            kept.append(line)
    # A subject that is only a command wins: mailto links (List-Unsubscribe) set the
    # subject, and some clients fill the body with text of their own.
    word = strip_subject(subject).lower()
    if word in COMMANDS:
        return Reply(COMMANDS[word], "", tokens, quoted)
    kept, ready = _readiness(kept)
    meaningful = [x.split("#", 1)[0].strip() for x in kept]
    meaningful = [x for x in meaningful if x]
    if meaningful:
        first = meaningful[0].lower()
        if first in COMMANDS:
            return Reply(COMMANDS[first], "", tokens, quoted)
        words = meaningful[0].split()
        if words[0].lower() == "join" and len(words) == 2:  # JOIN <hex>: the joiner's entropy
            return Reply("join", "", tokens, quoted, (words[1],))
        if words[0].lower() in SETTING_COMMANDS:
            return Reply(SETTING_COMMANDS[words[0].lower()], "", tokens, quoted, tuple(words[1:]))
        at = next((i for i, x in enumerate(kept) if _MSG_RE.match(x)), None)
        if at is not None:  # MSG <to>: the lines below are the message, those above orders
            to = str(_MSG_RE.match(kept[at]).group(1))  # type: ignore[union-attr]
            orders = "\n".join(kept[:at]).strip("\n")
            message = (to, "\n".join(kept[at + 1:]).strip("\n"))
            return Reply("orders" if orders.strip() else "msg", orders, tokens, quoted, message=message,
                         ready=ready)
        return Reply("orders", "\n".join(kept).strip("\n"), tokens, quoted, ready=ready)
    return Reply("empty" if ready is None else "ready", "", tokens, quoted, ready=ready)


def _readiness(kept: list[str]) -> tuple[list[str], bool | None]:
    """The lines without their READY / NOT READY lines (those above a MSG line: below it is
    the message's text), and what the last of them said."""
    end = next((i for i, x in enumerate(kept) if _MSG_RE.match(x)), len(kept))
    ready: bool | None = None
    out: list[str] = []
    for i, line in enumerate(kept):
        found = _READY_RE.match(line.split("#", 1)[0]) if i < end else None
        if found:
            ready = found.group(1) is None
        else:
            out.append(line)
    return out, ready
