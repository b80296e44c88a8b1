"""What a v3 game's mails carry for the player to keep: the evidence blocks of engine.held.

Each mail that fixes something the player can later hold the host to carries it in its
text part, in the one format both verifiers read (docs/fair-dice.md): the invitation S_0;
the join confirmation S_0, the terms digest T, the seat's entropy, where it came from and
the force's digest; each order confirmation the receipt with the text as the player sent
it and as it counts; each results mail the running step hash A_t of the record so far.
Older games' mails carry none (their profile has no such values).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from sqlalchemy.orm import Session

from engine.dice import PROFILE_V3, force_digest, terms_digest
from engine.held import evidence_block, joined_evidence, orders_evidence, read_blocks, results_evidence
from engine.record import step_hashes
from service.fairdice import game_terms, is_v3, options_receipt_hex, profile_input_text
from service.memo import memo
from service.models import Game, Seat


def terms_t(game: Game) -> bytes:
    return terms_digest(game.id, game_terms(game))


def mail_evidence(session: Session, game: Game, seat: Seat | None, kind: str,
                  payload: Mapping[str, Any], record: bytes | None = None) -> str:
    """The evidence block a mail of `kind` to `seat` carries ("" when it carries none).
    `record`: the record as it stood after the results mail's step, when the caller has it."""
    if not is_v3(game) or seat is None:
        return ""
    s_0 = bytes.fromhex(game.commitment)
    if kind == "invitation" and not payload.get("replacement"):
        # S_0 only: the GM may still set the missed-turn policy, part of the terms, until
        # the first seat joins; T comes with the join.
        return evidence_block("invitation", game.id, PROFILE_V3, [("commitment", s_0), ("seat", seat.name)])
    if kind == "joined" and seat.entropy:
        return joined_evidence(game.id, PROFILE_V3, s_0, terms_t(game), seat.name,
                               int(payload.get("round") or 1), bytes.fromhex(seat.entropy),
                               str(payload.get("source") or seat.entropy_source),
                               force_digest(game.id, seat.name, seat.force or {}),
                               payload.get("words"), None)
    if kind == "confirmation" and not payload.get("errors") and payload.get("version"):
        rnd, version = int(payload["round"]), int(payload["version"])
        counted = profile_input_text(PROFILE_V3, str(payload.get("accepted") or ""))
        proof = options_receipt_hex(game.id, game.options, rnd, seat.name, version, counted)
        return orders_evidence(game.id, PROFILE_V3, seat.name, rnd, version, bytes.fromhex(proof),
                               str(payload.get("sent", counted)), counted, payload.get("at"))
    if kind == "results" and record is not None:
        t = int(payload["step"])
        hashes = memo(session, ("step hashes", game.id, t), lambda: step_hashes(json.loads(record)))
        return results_evidence(game.id, PROFILE_V3, t, hashes[t], None)
    return ""


def link_values(game: Game, evidence: str) -> dict[str, str]:
    """What a results mail's "check these dice" link carries of the mail's own evidence: the
    terms T and the step hash A_t of its step (the verifier page fails a record that does
    not reach that step or differs in it)."""
    values: dict[str, str] = {"terms": terms_t(game).hex()}
    for block in read_blocks(evidence, "the mail"):
        if block.get("kind") == "results":
            values["t"], values["step_hash"] = str(block.get("step")), str(block.get("hash"))
    return values
