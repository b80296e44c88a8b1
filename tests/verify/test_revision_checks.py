"""The rules revision in a record: named by the setup (1 when it names none), stated at
the top, run by both verifiers and named in their output."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from engine.replay import replay
from engine.verify import verify
from service.commands.verify import EXIT_DIFFERENT, EXIT_OK, check
from tests.verify.conftest import copy, js_verify, reseal, serialize
from tests.verify.test_records_before_revisions import FILES as OLD_FILES


def cli(record: dict[str, Any], tmp_path: Path, *args: str) -> tuple[int, str]:
    path = tmp_path / "record.json"
    path.write_bytes(serialize(record))
    out = io.StringIO()
    code = check(str(path), out=out, as_json="--json" in args)
    return code, out.getvalue()


def test_a_record_states_the_revision_its_setup_names_and_the_verifiers_name_it(
        finished: dict[str, Any], tmp_path: Path) -> None:
    assert finished["revision"] == 1 and finished["steps"][0]["inputs"]["revision"] == 1
    code, out = cli(finished, tmp_path)
    assert code == EXIT_OK and out.startswith(f"game {finished['game_id']} (universal, rules revision 1), ")
    code, out = cli(finished, tmp_path, "--json")
    assert code == EXIT_OK and json.loads(out)["revision"] == 1
    report = replay(finished)
    assert report.ok and (report.ruleset, report.revision) == ("universal", 1)
    [page] = js_verify([serialize(finished)])
    assert page["ok"] and page["revision"] == 1 and "revision" not in page["unchecked"]
    assert "revision" not in verify(finished).unchecked  # a known field, not "checksum only"


def test_a_stated_revision_other_than_the_setups_is_caught_by_both_verifiers(
        finished: dict[str, Any], tmp_path: Path) -> None:
    record = reseal({**copy(finished), "revision": 2})
    code, out = cli(record, tmp_path)
    assert code == EXIT_DIFFERENT
    assert "FAILED at record, revision: expected 1, the setup's, found 2" in out
    [page] = js_verify([serialize(record)])
    assert not page["ok"]
    assert page["differences"][0] == {"step": 0, "where": "revision", "expected": "1, the setup's",
                                      "found": "2"}


def test_a_setup_revision_that_is_not_a_whole_number_is_caught_by_both_verifiers(
        finished: dict[str, Any]) -> None:
    record = copy(finished)
    record["steps"][0]["inputs"]["revision"] = "2"
    del record["revision"]
    record = reseal(record)
    v = verify(record)
    assert not v.ok
    assert (v.difference and (v.difference.step, v.difference.where, v.difference.expected)
            == (1, "inputs revision", "a whole number from 1"))
    [page] = js_verify([serialize(record)])
    assert page["differences"][0] == {"step": 1, "where": "inputs revision",
                                      "expected": "a whole number from 1", "found": "2"}


def test_a_revision_the_ruleset_does_not_have_stops_the_replay_naming_it(finished: dict[str, Any]) -> None:
    record = copy(finished)
    record["steps"][0]["inputs"]["revision"] = record["revision"] = 7
    v = verify(reseal(record))
    assert not v.ok and not v.replayed and v.revision == 7
    assert [(d.step, d.where, d.found) for d in v.differences if d.where == "rules"] == [
        (1, "rules", "error: universal has no revision 7; its revisions are 1 to 1")]


def test_the_pages_core_reads_every_record_from_before_revisions_as_revision_one() -> None:
    for path, page in zip(OLD_FILES, js_verify([p.read_bytes() for p in OLD_FILES]), strict=True):
        assert page["ok"] and page["revision"] == 1, path.name
