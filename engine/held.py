"""What a player holds, out of the host's reach, and the receipts file that carries it.

A player keeps the commitment S_0 shown before they joined, their entropy and one receipt
per accepted version of their orders (docs/fair-dice.md). The player page offers them as
one JSON file (format `dicepost-receipts/1`, built by `receipts_file`); `dicepost verify
--receipts FILE` and the verifier page read it back with `read_receipts`, through the same
strict JSON reader as records (no duplicate keys, no `__proto__`, whole numbers only).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.stepcheck import RecordError
from engine.strictjson import parse_strict

__all__ = ["RECEIPTS_FORMAT", "Held", "held_from_json", "read_receipts", "receipts_file"]

RECEIPTS_FORMAT = "dicepost-receipts/1"
_HEX = re.compile(r"(?:[0-9a-f]{2})+\Z")


@dataclass(frozen=True)
class Held:
    """What a player keeps from the game, out of the host's reach: the commitment S_0 shown
    before they joined, their entropy, and their receipts (seat, round, version, R)."""

    commitment: bytes | None = None
    entropy: dict[str, bytes] = field(default_factory=dict)
    receipts: list[tuple[str, int, int, bytes]] = field(default_factory=list)

    def merged(self, other: Held) -> Held:
        """Both sets of values; where both have a commitment or a seat's entropy, this one's."""
        return Held(commitment=self.commitment if self.commitment is not None else other.commitment,
                    entropy={**other.entropy, **self.entropy},
                    receipts=[*self.receipts, *other.receipts])

    def latest(self) -> dict[tuple[int, str], tuple[int, bytes]]:
        """(round, seat) -> the highest version held and its receipt."""
        out: dict[tuple[int, str], tuple[int, bytes]] = {}
        for seat, rnd, version, r in self.receipts:
            if (rnd, seat) not in out or version > out[(rnd, seat)][0]:
                out[(rnd, seat)] = (version, r)
        return out


def receipts_file(game_id: str, commitment: str, seat: str, entropy: str | None,
                  receipts: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The player page's download: every value the player should keep, in one document."""
    return {"format": RECEIPTS_FORMAT, "game_id": game_id, "commitment": commitment,
            "seat": seat, "entropy": entropy,
            "receipts": [{"round": r["round"], "version": r["version"], "at": r["at"],
                          "receipt": r["receipt"]} for r in receipts]}


def _hex(value: Any, where: str, sizes: range) -> bytes:
    if not isinstance(value, str) or not _HEX.match(value) or len(value) // 2 not in sizes:
        want = f"{sizes.start}" if len(sizes) == 1 else f"{sizes.start} to {sizes.stop - 1}"
        raise RecordError(f"{where}: expected lowercase hex of {want} bytes, found {value!r}")
    return bytes.fromhex(value)


def _whole(value: Any, where: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise RecordError(f"{where}: expected a whole number of at least 1, found {value!r}")
    return value


def held_from_json(doc: Any) -> Held:
    """Held from {commitment?, entropy?: {seat: hex}, receipts?: [{seat, round, version,
    receipt}]}; a bad value is a RecordError naming its place."""
    if not isinstance(doc, dict):
        raise RecordError("what you hold: expected a JSON object")
    commitment = doc.get("commitment")
    held = Held(commitment=None if commitment in (None, "")
                else _hex(commitment, "commitment", range(32, 33)))
    entropy = doc.get("entropy") or {}
    if not isinstance(entropy, dict):
        raise RecordError("entropy: expected {seat: hex}")
    for seat, value in entropy.items():
        held.entropy[seat] = _hex(value, f"entropy of {seat}", range(16, 65))
    receipts = doc.get("receipts") or []
    if not isinstance(receipts, list):
        raise RecordError("receipts: expected a list")
    for i, r in enumerate(receipts):
        if not isinstance(r, dict) or not isinstance(r.get("seat"), str) or not r["seat"]:
            raise RecordError(f"receipts {i}: expected {{seat, round, version, receipt}}")
        held.receipts.append((r["seat"], _whole(r.get("round"), f"receipts {i} round"),
                              _whole(r.get("version"), f"receipts {i} version"),
                              _hex(r.get("receipt"), f"receipts {i} receipt", range(32, 33))))
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
