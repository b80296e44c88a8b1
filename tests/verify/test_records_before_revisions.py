"""Records written before rulesets had revisions verify unchanged: each is revision 1."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from engine.verify import parse_record
from service.commands.verify import EXIT_OK, check

OLD = Path(__file__).resolve().parent / "records_before_revisions"
FILES = sorted(OLD.glob("*.json"))


def test_every_ruleset_and_both_turn_modes_are_kept() -> None:
    records = [parse_record(f.read_bytes()) for f in FILES]
    assert {r["ruleset"] for r in records} == {"universal", "jep1", "fivedice", "heroes"}
    modes = {(r["ruleset"], r["steps"][0]["inputs"]["options"]["turn_mode"]) for r in records}
    assert len(modes) == 8, "each ruleset in both turn modes"
    assert not any("revision" in r or "revision" in r["steps"][0]["inputs"] for r in records)


@pytest.mark.parametrize("path", FILES, ids=[f.stem for f in FILES])
def test_an_old_record_verifies_as_revision_one(path: Path) -> None:
    out = io.StringIO()
    assert check(str(path), out=out) == EXIT_OK, out.getvalue()
    lines = out.getvalue().splitlines()
    assert "rules revision 1)" in lines[0] and lines[-1].startswith("OK: every check holds")
