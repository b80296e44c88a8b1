"""What a player holds, out of the host's reach, and how it is read back.

A player keeps what the game sent them before the host could change it (docs/fair-dice.md):

- after the invitation: the commitment S_0 and the terms digest T (ruleset, revision,
  options, seats, bot, missed turns);
- after joining: their seat, their entropy E_p and where it came from (their browser, the
  API, hex or words after JOIN, or none given: server-made), the words they typed, their
  force's digest F_p, and the round they first play;
- after each confirmation: the receipt R of the version, the text as they sent it and as
  it counts;
- after each results mail: the step hash A_t of the record so far.

Every such mail carries these values in an evidence block in its text part, the one format
both verifiers read (`read_mails`), written by `evidence_block`:

    -----BEGIN DICEPOST EVIDENCE-----
    format: dicepost-held/1
    kind: orders
    game: g-7f3a
    profile: dicepost-dice/v3
    seat: alice
    round: 1
    version: 2
    receipt: 498c4b330dcf6b9be4303820c51acda680df8fdc9f1cefe002b15c30c81d76cc
    sent: a1 attack b2
    sent: A1 move c3
    counted: A1 attack B2
    counted: A1 move c3
    at: 2026-06-01T12:00:00+00:00
    -----END DICEPOST EVIDENCE-----

One `key: value` a line (the value is everything after ": ", without trailing white space);
a text is one `sent:` or `counted:` line per line of it, none for "". The markers must stand
alone on their lines, so a block quoted in a reply ("> ...") is not read again.

`dicepost verify --mails PATH` and the verifier page (its runtime) read .eml files and mbox
files with the standard library's `email` package: a file that is not a mail, a block cut
off or an mbox cut in the middle of a message is a HeldError naming the file. Values that
the mails give twice must agree (two commitments of one game are a finding, kept in
`Held.conflicts`).

v2's receipts file (format `dicepost-receipts/1`, the player page's download, `receipts_file`
and `read_receipts`) and the page's fields (`held_from_json`) give the same `Held`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from email import policy
from email.message import EmailMessage, Message
from email.parser import BytesParser
from typing import Any

from engine.dice import (
    PROFILE_V2,
    PROFILE_V3,
    join_words,
    receipt,
    words_entropy,
)
from engine.stepcheck import RecordError
from engine.strictjson import parse_strict

__all__ = [
    "BEGIN",
    "END",
    "ENTROPY_SOURCES",
    "HELD_FORMAT",
    "KINDS",
    "RECEIPTS_FORMAT",
    "Block",
    "Held",
    "HeldError",
    "evidence_block",
    "held_from_blocks",
    "held_from_json",
    "held_from_mails",
    "invitation_evidence",
    "joined_evidence",
    "orders_evidence",
    "read_blocks",
    "read_mails",
    "read_receipts",
    "receipts_file",
    "results_evidence",
]

RECEIPTS_FORMAT = "dicepost-receipts/1"
HELD_FORMAT = "dicepost-held/1"
BEGIN = "-----BEGIN DICEPOST EVIDENCE-----"
END = "-----END DICEPOST EVIDENCE-----"
KINDS = ("invitation", "joined", "orders", "results")
# Where a seat's entropy came from: the player's own (made by their browser, given to the
# API, hex or words after JOIN) or none given (server-made, fixed by S_0).
ENTROPY_SOURCES = ("browser", "api", "hex", "words", "server")
_HEX = re.compile(r"(?:[0-9a-f]{2})+\Z")
_KEY = re.compile(r"([a-z][a-z0-9-]*):(?: (.*))?\Z")
_MAIL_HEADERS = ("from", "to", "date", "subject", "message-id", "mime-version", "content-type")
_TEXT_KEYS = ("sent", "counted")  # multi-line texts, one line each


class HeldError(RecordError):
    """What a player gave as theirs cannot be read: not a mail, cut off, a bad value."""


@dataclass
class Held:
    """What a player keeps from the game, out of the host's reach: the commitment S_0 shown
    before they joined, their entropy, and their receipts (seat, round, version, R); from
    their mails (v3) also the terms, where their entropy came from, their force, the texts
    they sent and the step hashes of the results mails."""

    commitment: bytes | None = None
    entropy: dict[str, bytes] = field(default_factory=dict)
    receipts: list[tuple[str, int, int, bytes]] = field(default_factory=list)
    terms: bytes | None = None  # T
    sources: dict[str, str] = field(default_factory=dict)  # seat -> ENTROPY_SOURCES
    words: dict[str, str] = field(default_factory=dict)  # seat -> the words after JOIN
    forces: dict[str, bytes] = field(default_factory=dict)  # seat -> F_p
    first_round: dict[str, int] = field(default_factory=dict)  # seat -> the round they first play
    sent: dict[tuple[str, int, int], str] = field(default_factory=dict)  # (seat, round, version)
    step_hashes: dict[int, bytes] = field(default_factory=dict)  # t -> A_t
    # Seats whose every order the player's mails hold ("these are all my orders"): the
    # seats of their join and confirmation mails.
    mine: set[str] = field(default_factory=set)
    conflicts: list[str] = field(default_factory=list)  # values the mails give twice, unlike
    mails: int = 0  # mails read
    evidence: int = 0  # evidence blocks of this game among them

    def merged(self, other: Held) -> Held:
        """Both sets of values; where both have one value, this one's."""
        return Held(commitment=self.commitment if self.commitment is not None else other.commitment,
                    entropy={**other.entropy, **self.entropy},
                    receipts=[*self.receipts, *other.receipts],
                    terms=self.terms if self.terms is not None else other.terms,
                    sources={**other.sources, **self.sources},
                    words={**other.words, **self.words},
                    forces={**other.forces, **self.forces},
                    first_round={**other.first_round, **self.first_round},
                    sent={**other.sent, **self.sent},
                    step_hashes={**other.step_hashes, **self.step_hashes},
                    mine=self.mine | other.mine,
                    conflicts=[*self.conflicts, *other.conflicts],
                    mails=self.mails + other.mails, evidence=self.evidence + other.evidence)

    def latest(self) -> dict[tuple[int, str], tuple[int, bytes]]:
        """(round, seat) -> the highest version held and its receipt."""
        out: dict[tuple[int, str], tuple[int, bytes]] = {}
        for seat, rnd, version, r in self.receipts:
            if (rnd, seat) not in out or version > out[(rnd, seat)][0]:
                out[(rnd, seat)] = (version, r)
        return out

    @property
    def latest_step(self) -> int:
        """The last step a results mail held was about (0: none)."""
        return max(self.step_hashes, default=0)


# ---- writing: what the service's mails carry ---------------------------------------------

def evidence_block(kind: str, game_id: str, profile: str,
                   values: Iterable[tuple[str, str | int | bytes | None]]) -> str:
    """The evidence block of one mail: the markers around `key: value` lines (hex for bytes,
    decimal for integers, a text one line each under its key; None left out)."""
    if kind not in KINDS:
        raise ValueError(f"unknown evidence kind {kind!r}")
    lines = [BEGIN, f"format: {HELD_FORMAT}", f"kind: {kind}", f"game: {game_id}", f"profile: {profile}"]
    for key, value in values:
        if value is None:
            continue
        if key in _TEXT_KEYS:
            lines += [f"{key}: {line}".rstrip() for line in str(value).splitlines()]
        elif isinstance(value, bytes):
            lines.append(f"{key}: {value.hex()}")
        else:
            text = str(value)
            if "\n" in text or "\r" in text:
                raise ValueError(f"evidence {key}: one line only")
            lines.append(f"{key}: {text}".rstrip())
    lines.append(END)
    return "\n".join(lines) + "\n"


def invitation_evidence(game_id: str, profile: str, commitment: bytes, terms: bytes,
                        seat: str | None, at: str | None) -> str:
    """The invitation: S_0 and T, before anyone joined."""
    return evidence_block("invitation", game_id, profile, [
        ("commitment", commitment), ("terms", terms), ("seat", seat), ("at", at)])


def joined_evidence(game_id: str, profile: str, commitment: bytes, terms: bytes, seat: str,
                    first_round: int, entropy: bytes, source: str, force: bytes,
                    words: str | None, at: str | None) -> str:
    """The join confirmation: the seat's entropy and where it came from (`source`, one of
    ENTROPY_SOURCES; `words` as typed after JOIN when "words"), the force's digest F_p, and
    the round the player first plays (1, or a replacement's first round)."""
    if source not in ENTROPY_SOURCES:
        raise ValueError(f"unknown entropy source {source!r}")
    return evidence_block("joined", game_id, profile, [
        ("commitment", commitment), ("terms", terms), ("seat", seat), ("round", first_round),
        ("entropy", entropy), ("source", source),
        ("words", join_words(words) if words is not None else None), ("force", force), ("at", at)])


def orders_evidence(game_id: str, profile: str, seat: str, round_number: int, version: int,
                    receipt_value: bytes, sent: str, counted: str, at: str | None) -> str:
    """An order confirmation: the receipt of the version, the text as the player sent it
    and as it counts (the canonical text the receipt is of)."""
    return evidence_block("orders", game_id, profile, [
        ("seat", seat), ("round", round_number), ("version", version), ("receipt", receipt_value),
        ("sent", sent), ("counted", counted), ("at", at)])


def results_evidence(game_id: str, profile: str, step: int, step_hash: bytes, at: str | None) -> str:
    """A results mail: the running step hash A_t after step t."""
    return evidence_block("results", game_id, profile, [("step", step), ("hash", step_hash), ("at", at)])


# ---- reading mails ---------------------------------------------------------------------

@dataclass(frozen=True)
class Block:
    """One evidence block as read: where it was, its single values and its texts."""

    where: str
    values: dict[str, str]
    texts: dict[str, list[str]]

    def get(self, key: str, default: str | None = None) -> str | None:
        return self.values.get(key, default)


def read_blocks(text: str, where: str) -> list[Block]:
    """Every evidence block of a text (a mail's text part)."""
    out: list[Block] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        if lines[i].rstrip() != BEGIN:
            i += 1
            continue
        start = i + 1
        values: dict[str, str] = {}
        texts: dict[str, list[str]] = {k: [] for k in _TEXT_KEYS}
        i += 1
        while True:
            if i >= len(lines):
                raise HeldError(f"{where}: the evidence block from line {start} is cut off "
                                f"(no {END} line)")
            line = lines[i].rstrip()
            if line == END:
                break
            m = _KEY.match(line)
            if m is None:
                raise HeldError(f"{where}: line {i + 2 - start} of the evidence block (line {i + 1} of "
                                f"the text) is not 'key: value': {line[:80]!r}")
            key, value = m.group(1), m.group(2) or ""
            if key in texts:
                texts[key].append(value)
            elif key in values:
                raise HeldError(f"{where}: the evidence block from line {start} has {key!r} twice")
            else:
                values[key] = value
            i += 1
        i += 1
        out.append(Block(where, values, texts))
    return out


def _is_mail(msg: Message) -> bool:
    return any(msg.get(h) is not None for h in _MAIL_HEADERS)


def _message_texts(msg: Message, where: str) -> list[str]:
    """The text/plain parts of a mail (forwarded mails inside it included), decoded."""
    out: list[str] = []
    for part in msg.walk():
        if part.get_content_type() != "text/plain" or part.get_content_disposition() == "attachment":
            continue
        try:
            content = part.get_content() if isinstance(part, EmailMessage) else None
        except (LookupError, UnicodeError, ValueError, AssertionError):
            content = None
        if not isinstance(content, str):
            payload = part.get_payload(decode=True)
            if not isinstance(payload, bytes):
                raise HeldError(f"{where}: a text part cannot be read")
            content = payload.decode("utf-8", errors="replace")
        out.append(content)
    return out


_CUT = ("CloseBoundaryNotFoundDefect", "StartBoundaryNotFoundDefect", "MultipartInvariantViolationDefect")


def _parse_mail(data: bytes, where: str) -> list[Block]:
    msg = BytesParser(policy=policy.default).parsebytes(data)
    if not _is_mail(msg):
        raise HeldError(f"{where} is not a mail: it has no mail headers (From, Date, Subject, ...)")
    blocks: list[Block] = []
    for text in _message_texts(msg, where):
        blocks += read_blocks(text, where)
    if any(type(d).__name__ in _CUT for part in msg.walk() for d in part.defects):
        raise HeldError(f"{where} is cut off: its MIME parts do not close")
    return blocks


def _mbox_messages(data: bytes) -> list[bytes]:
    """The messages of an mbox (mboxo or mboxrd): each starts at a "From " line at the start
    of the file or after an empty line; ">From " lines lose one ">"."""
    messages: list[list[bytes]] = []
    previous_empty = True
    for line in data.splitlines(keepends=True):
        if line.startswith(b"From ") and previous_empty:
            messages.append([])
        elif messages:
            body = line
            if re.match(rb">+From ", body):
                body = body[1:]
            messages[-1].append(body)
        previous_empty = line in (b"\n", b"\r\n")
    return [b"".join(m) for m in messages]


def read_mails(files: Sequence[tuple[str, bytes]]) -> tuple[list[Block], int]:
    """Every evidence block of the given files (name, bytes): each a single mail (.eml) or
    an mbox (it starts with a "From " line); and how many mails were read."""
    blocks: list[Block] = []
    count = 0
    for name, data in files:
        if data.lstrip(b"\r\n").startswith(b"From "):
            messages = _mbox_messages(data.lstrip(b"\r\n"))
            if not data.endswith((b"\n", b"\r")):
                raise HeldError(f"{name} is cut off: the mbox does not end with a whole line")
            for i, message in enumerate(messages, start=1):
                blocks += _parse_mail(message, f"{name}, message {i}")
            count += len(messages)
        else:
            if not data.strip():
                raise HeldError(f"{name} is empty, not a mail")
            blocks += _parse_mail(data, name)
            count += 1
    return blocks, count


# ---- from blocks to what the player holds ------------------------------------------------

def _hex(value: Any, where: str, sizes: range) -> bytes:
    if not isinstance(value, str) or not _HEX.match(value) or len(value) // 2 not in sizes:
        want = f"{sizes.start}" if len(sizes) == 1 else f"{sizes.start} to {sizes.stop - 1}"
        raise HeldError(f"{where}: expected lowercase hex of {want} bytes, found {value!r}")
    return bytes.fromhex(value)


def _whole(value: Any, where: str) -> int:
    if isinstance(value, str) and value.isascii() and value.isdigit():
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise HeldError(f"{where}: expected a whole number of at least 1, found {value!r}")
    return value


def _need(block: Block, key: str) -> str:
    value = block.get(key)
    if value is None or value == "":
        raise HeldError(f"{block.where}: the {block.get('kind')} evidence has no {key!r}")
    return value


class _Collect:
    """Values from blocks, each kept once with where it came from; a second, different
    value of the same thing is a conflict."""

    def __init__(self) -> None:
        self.seen: dict[Any, tuple[Any, str]] = {}
        self.conflicts: list[str] = []

    def put(self, what: Any, value: Any, where: str, shown: str) -> bool:
        if what in self.seen:
            old, old_where = self.seen[what]
            if old != value:
                self.conflicts.append(f"{shown}: {old_where} and {where} differ")
            return False
        self.seen[what] = (value, where)
        return True


def held_from_blocks(blocks: Iterable[Block], game_id: str, mails: int = 0) -> Held:
    """What the player holds of game `game_id` from their mails' evidence blocks (those of
    other games are left out). A bad value is a HeldError naming its mail."""
    held = Held(mails=mails)
    keep = _Collect()
    orders: list[Block] = []
    for block in blocks:
        if block.get("game") != game_id:
            continue
        if block.get("format") != HELD_FORMAT:
            raise HeldError(f"{block.where}: expected evidence format {HELD_FORMAT!r}, "
                            f"found {block.get('format')!r}")
        kind = block.get("kind")
        if kind not in KINDS:
            continue  # a later kind this verifier does not know
        held.evidence += 1
        where = block.where
        profile = _need(block, "profile")
        if profile not in (PROFILE_V2, PROFILE_V3):
            raise HeldError(f"{where}: evidence of profile {profile!r}, which has none")
        keep.put("profile", profile, where, "the dice profile")
        if block.get("commitment") is not None:
            value = _hex(block.get("commitment"), f"{where}: commitment", range(32, 33))
            if keep.put("commitment", value, where, "the commitment S_0"):
                held.commitment = value
        if block.get("terms") is not None:
            value = _hex(block.get("terms"), f"{where}: terms", range(32, 33))
            if keep.put("terms", value, where, "the terms T"):
                held.terms = value
        if kind == "joined":
            _joined(held, block, keep, game_id)
        elif kind == "orders":
            orders.append(block)
        elif kind == "results":
            t = _whole(block.get("step"), f"{where}: step")
            value = _hex(block.get("hash"), f"{where}: hash", range(32, 33))
            if keep.put(("step", t), value, where, f"the step hash of step {t}"):
                held.step_hashes[t] = value
    for block in orders:
        _orders(held, block, keep, game_id, str(keep.seen["profile"][0]))
    held.conflicts.extend(keep.conflicts)
    return held


def _joined(held: Held, block: Block, keep: _Collect, game_id: str) -> None:
    where = block.where
    seat = _need(block, "seat")
    entropy = _hex(block.get("entropy"), f"{where}: entropy", range(16, 65))
    source = _need(block, "source")
    if source not in ENTROPY_SOURCES:
        raise HeldError(f"{where}: entropy source {source!r} is not one of {', '.join(ENTROPY_SOURCES)}")
    force = _hex(block.get("force"), f"{where}: force", range(32, 33))
    first = _whole(block.get("round", "1"), f"{where}: round")
    words = block.get("words")
    if source == "words":
        if not words:
            raise HeldError(f"{where}: entropy from words, but no 'words'")
        if words_entropy(game_id, seat, words) != entropy:
            keep.conflicts.append(f"the entropy of {seat}: {where} says it comes from the words "
                                  f"{join_words(words)!r}, whose entropy is "
                                  f"{words_entropy(game_id, seat, words).hex()}")
    if keep.put(("joined", seat), (entropy, source, force, words), where, f"what {seat} joined with"):
        held.entropy[seat] = entropy
        held.sources[seat] = source
        held.forces[seat] = force
        held.first_round[seat] = first
        if words:
            held.words[seat] = join_words(words)
        held.mine.add(seat)


def _orders(held: Held, block: Block, keep: _Collect, game_id: str, profile: str) -> None:
    where = block.where
    seat = _need(block, "seat")
    rnd = _whole(block.get("round"), f"{where}: round")
    version = _whole(block.get("version"), f"{where}: version")
    value = _hex(block.get("receipt"), f"{where}: receipt", range(32, 33))
    counted = "\n".join(block.texts["counted"])
    if receipt(game_id, rnd, seat, version, counted, profile) != value:
        keep.conflicts.append(f"the receipt of {seat}, round {rnd}, version {version} in {where}: "
                              "it is not the receipt of the text the mail says counts")
    if keep.put(("receipt", seat, rnd, version), value, where,
                f"the receipt of {seat}, round {rnd}, version {version}"):
        held.receipts.append((seat, rnd, version, value))
        held.sent[(seat, rnd, version)] = "\n".join(block.texts["sent"])
        held.mine.add(seat)


def held_from_mails(files: Sequence[tuple[str, bytes]], game_id: str) -> Held:
    """What a player's mails (each an .eml or an mbox: name, bytes) hold of game `game_id`."""
    blocks, count = read_mails(files)
    held = held_from_blocks(blocks, game_id, count)
    if not held.evidence:
        games = sorted({b.get("game") or "?" for b in blocks})
        also = f" (they hold evidence of {', '.join(games)})" if games else ""
        raise HeldError(f"the {count} mail{'s' * (count != 1)} given hold no dicepost evidence of "
                        f"game {game_id}{also}")
    return held


# ---- the receipts file and the page's fields ----------------------------------------------

def receipts_file(game_id: str, commitment: str, seat: str, entropy: str | None,
                  receipts: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The player page's download: every value the player should keep, in one document."""
    return {"format": RECEIPTS_FORMAT, "game_id": game_id, "commitment": commitment,
            "seat": seat, "entropy": entropy,
            "receipts": [{"round": r["round"], "version": r["version"], "at": r["at"],
                          "receipt": r["receipt"]} for r in receipts]}


def _record_hex(value: Any, where: str, sizes: range) -> bytes:
    try:
        return _hex(value, where, sizes)
    except HeldError as exc:
        raise RecordError(str(exc)) from None


def held_from_json(doc: Any) -> Held:
    """Held from {commitment?, entropy?: {seat: hex}, receipts?: [{seat, round, version,
    receipt}], terms?: hex, step_hashes?: {t: hex}} (the page's fields and link); a bad
    value is a RecordError naming its place."""
    if not isinstance(doc, dict):
        raise RecordError("what you hold: expected a JSON object")
    commitment = doc.get("commitment")
    terms = doc.get("terms")
    held = Held(commitment=None if commitment in (None, "")
                else _record_hex(commitment, "commitment", range(32, 33)),
                terms=None if terms in (None, "") else _record_hex(terms, "terms", range(32, 33)))
    entropy = doc.get("entropy") or {}
    if not isinstance(entropy, dict):
        raise RecordError("entropy: expected {seat: hex}")
    for seat, value in entropy.items():
        held.entropy[seat] = _record_hex(value, f"entropy of {seat}", range(16, 65))
    receipts = doc.get("receipts") or []
    if not isinstance(receipts, list):
        raise RecordError("receipts: expected a list")
    for i, r in enumerate(receipts):
        if not isinstance(r, dict) or not isinstance(r.get("seat"), str) or not r["seat"]:
            raise RecordError(f"receipts {i}: expected {{seat, round, version, receipt}}")
        try:
            held.receipts.append((r["seat"], _whole(r.get("round"), f"receipts {i} round"),
                                  _whole(r.get("version"), f"receipts {i} version"),
                                  _hex(r.get("receipt"), f"receipts {i} receipt", range(32, 33))))
        except HeldError as exc:
            raise RecordError(str(exc)) from None
    hashes = doc.get("step_hashes") or {}
    if not isinstance(hashes, dict):
        raise RecordError("step_hashes: expected {step: hex}")
    for t, value in hashes.items():
        try:
            held.step_hashes[_whole(t, "step_hashes")] = _hex(value, f"step hash of step {t}", range(32, 33))
        except HeldError as exc:
            raise RecordError(str(exc)) from None
    return held


def read_receipts(data: bytes | str) -> Held:
    """A receipts file (RECEIPTS_FORMAT) as Held: its commitment, the seat's entropy (if
    the file has one) and every receipt, all of the file's seat."""
    doc = parse_strict(data, "the receipts file")
    if not isinstance(doc, dict) or doc.get("format") != RECEIPTS_FORMAT:
        raise RecordError(f"the receipts file: expected format {RECEIPTS_FORMAT!r}")
    seat = doc.get("seat")
    if not isinstance(seat, str) or not seat:
        raise RecordError("the receipts file: expected the seat's name in 'seat'")
    receipts = doc.get("receipts")
    if not isinstance(receipts, list):
        raise RecordError("the receipts file: expected a list in 'receipts'")
    entropy = doc.get("entropy")
    return held_from_json({
        "commitment": doc.get("commitment"),
        "entropy": {seat: entropy} if entropy else {},
        "receipts": [{**r, "seat": seat} if isinstance(r, dict) else r for r in receipts]})
