"""What a player wrote in a reply, without quotes and signature.

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
- what is left is read by service.inbound.commands.read_reply: a command of its
  registry, a `MSG <to>` line, or an order text for the ruleset's parser.
"""

from __future__ import annotations

import re

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
_SUBJECT_PREFIX = re.compile(r"^\s*((re|aw|sv|fw|fwd|wg|tr|antw)\s*(\[\d+\])?\s*:\s*)+", re.IGNORECASE)


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


# The most TOKEN lines of a mail looked at (a thread quotes a few; 60,000 of them held a
# web thread for 74 s, each checked against every other).
MAX_TOKENS = 20


def quoted_tokens(text: str) -> list[str]:
    """TOKEN lines anywhere in the text, quoted (`> TOKEN ...`) or not: the last MAX_TOKENS
    different ones (the recipient's own is the last of our mail)."""
    found: dict[str, None] = {}
    for line in text.replace("\r\n", "\n").split("\n"):
        m = _TOKEN_RE.match(line.lstrip(" >"))
        if m:
            found.pop(m.group(1), None)
            found[m.group(1)] = None
    return list(found)[-MAX_TOKENS:]


def written(text: str) -> tuple[list[str], list[str], list[str]]:
    """The lines the player wrote (clean_reply, TOKEN lines taken out), the TOKEN lines'
    tokens, and every token the text names, quoted or not."""
    tokens: list[str] = []
    kept: list[str] = []
    for line in clean_reply(text):
        m = _TOKEN_RE.match(line)
        if m:
            if len(tokens) < MAX_TOKENS:
                tokens.append(m.group(1))
        else:
            kept.append(line)
    return kept, tokens, quoted_tokens(text)
