"""What the verifier page runs under Pyodide: `dicepost verify`'s own check, JSON in and out.

The page (templates/verify/verifier.html) hands over the record's text as it read it and
what the player holds (from the link's fragment, the fields they filled in, their receipts
file, the mails they chose or dropped); `check` reads the record with the command's strict
reader and the mails with the command's reader (engine.held), and returns the command's
`--json` report, so both verifiers name the same first difference.
"""

from __future__ import annotations

import base64
import binascii
import json

from engine.held import held_from_json, held_from_mails, read_receipts
from engine.stepcheck import RecordError
from engine.verify import parse_record, verify

__all__ = ["check"]


def _mail_files(mails_json: str) -> list[tuple[str, bytes]]:
    """[[name, base64], ...] as (name, bytes)."""
    try:
        items = json.loads(mails_json or "[]")
        if not isinstance(items, list) or not all(
                isinstance(i, list) and len(i) == 2 and all(isinstance(x, str) for x in i) for i in items):
            raise ValueError("expected [[name, base64], ...]")
        return [(name, base64.b64decode(data, validate=True)) for name, data in items]
    except (ValueError, binascii.Error) as exc:
        raise RecordError(f"your mails could not be handed to the engine: {exc}") from None


def check(record_text: str, held_json: str = "{}", receipts_text: str = "", mails_json: str = "[]") -> str:
    """The report of `dicepost verify --json` for the record and what the player holds;
    {"ok": false, "error": ...} when the record or what they hold cannot be read."""
    try:
        record = parse_record(record_text)
        held = held_from_json(json.loads(held_json))
        if receipts_text:
            held = held.merged(read_receipts(receipts_text))
        files = _mail_files(mails_json)
        if files:
            game_id = record.get("game_id") if isinstance(record, dict) else None
            if not isinstance(game_id, str):
                raise RecordError("the record names no game_id to read your mails for")
            held = held.merged(held_from_mails(files, game_id))
    except RecordError as exc:
        return json.dumps({"ok": False, "error": str(exc)})
    return json.dumps(verify(record, held).to_json(), ensure_ascii=False)
