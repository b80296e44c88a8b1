"""What the verifier page runs under Pyodide: `dicepost verify`'s own check, JSON in and out.

The page (templates/verify/verifier.html) hands over the record's text as it read it and
what the player holds (from the link's fragment, the fields they filled in, their receipts
file); `check` reads the record with the command's strict reader and returns the command's
`--json` report, so both verifiers name the same first difference.
"""

from __future__ import annotations

import json

from engine.held import held_from_json, read_receipts
from engine.stepcheck import RecordError
from engine.verify import parse_record, verify

__all__ = ["check"]


def check(record_text: str, held_json: str = "{}", receipts_text: str = "") -> str:
    """The report of `dicepost verify --json` for the record and what the player holds;
    {"ok": false, "error": ...} when the record or what they hold cannot be read."""
    try:
        record = parse_record(record_text)
        held = held_from_json(json.loads(held_json))
        if receipts_text:
            held = held.merged(read_receipts(receipts_text))
    except RecordError as exc:
        return json.dumps({"ok": False, "error": str(exc)})
    return json.dumps(verify(record, held).to_json(), ensure_ascii=False)
