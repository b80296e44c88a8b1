"""engine.verify on genuine records: every check holds, the table is full, reading is strict."""

from __future__ import annotations

import json
import re

import pytest

from engine.record import build_record
from engine.registry import ruleset_ids
from engine.replay import replay
from engine.selfplay import play
from engine.verify import RecordError, parse_record, verify
from tests.verify.conftest import copy, js_verify, reseal, serialize


def test_a_finished_game_verifies_completely(finished) -> None:
    v = verify(finished)
    assert v.ok, v.difference
    assert v.complete and v.replayed and not v.differences and not v.unchecked
    assert [s.t for s in v.steps] == list(range(1, len(finished["steps"]) + 1))
    assert v.rolls == sum(len(s["rolls"]) for s in finished["steps"]) > 20
    for row, step in zip(v.steps, finished["steps"], strict=True):
        assert row.ok and row.chain and row.keys and row.rules and row.checksum
        assert row.revealed == step["key"] and row.state_hash == step["state_hash"]
        assert row.inputs_digest == step["inputs_digest"] and row.step_key == step["step_key"]
        assert row.events == len(step["events"])
        assert [(r.j, r.n, r.face, r.expected) for r in row.rolls] == [
            (x["j"], x["n"], x["face"], x["face"]) for x in step["rolls"]]
    assert v.final_state is not None
    assert v.to_json()["ok"] is True and v.to_json()["first_difference"] is None


def test_the_serialized_record_reads_back_and_verifies(finished) -> None:
    assert verify(parse_record(serialize(finished))).ok
    assert verify(parse_record(json.dumps(finished, indent=2))).ok


@pytest.mark.parametrize("ruleset", ruleset_ids())
def test_every_registered_ruleset_plays_records_that_verify(ruleset: str) -> None:
    record = play(ruleset, "verify-every-ruleset", max_rounds=4).record
    v = verify(parse_record(serialize(record)))
    assert v.ok, v.difference
    assert len(v.steps) == len(record["steps"]) >= 2


def test_a_game_in_progress_verifies_up_to_its_last_step() -> None:
    record = play("universal", "in-progress", max_rounds=2).record
    assert record["outcome"] is None and len(record["steps"]) == 3
    assert verify(record).ok


def test_extra_fields_are_listed_as_covered_by_the_checksum_only(finished) -> None:
    record = copy(finished)
    record["title"] = "A friendly game"
    v = verify(reseal(record))
    assert v.ok and v.unchecked == ["title"]


def test_replay_gives_the_same_answer(finished) -> None:
    assert replay(finished).ok
    tampered = copy(finished)
    tampered["steps"][2]["state_hash"] = "0" * 64
    report = replay(tampered)
    assert not report.ok and report.difference is not None
    assert (report.difference.step, report.difference.where) == (3, "state_hash")


def test_build_record_derives_keys_and_checksums(finished) -> None:
    again = build_record(
        game_id=finished["game_id"], ruleset=finished["ruleset"],
        commitment=bytes.fromhex(finished["commitment"]), players=finished["players"],
        entropy={p: bytes.fromhex(e) for p, e in finished["entropy"].items()},
        salt=bytes.fromhex(finished["salt"]),
        steps=[{k: s[k] for k in ("t", "inputs", "key", "rolls", "events", "state_hash")}
               for s in finished["steps"]],
        chain_length=finished["chain_length"], outcome=finished["outcome"])
    assert again == finished


@pytest.mark.parametrize("text, message", [
    ('{"a": 1, "a": 2}', "twice"),
    ('{"a": 1.5}', "whole numbers"),
    ('{"a": 1e3}', "whole numbers"),
    ('{"a": NaN}', "whole numbers"),
    ('{"a": Infinity}', "whole numbers"),
    ('{"a": ', "not JSON"),
    (b'{"a": "\xff"}', "not UTF-8"),
])
def test_reading_is_strict(text: str | bytes, message: str) -> None:
    with pytest.raises(RecordError, match=message):
        parse_record(text)


@pytest.mark.parametrize("record, where", [
    ([], "record"),
    ({}, "format"),
])
def test_a_record_that_is_not_one_stops_at_once(record, where) -> None:
    v = verify(record)
    assert not v.ok and not v.complete and v.difference is not None
    assert (v.difference.step, v.difference.where) == (0, where)


def test_missing_and_malformed_fields_are_named(finished) -> None:
    record = copy(finished)
    del record["steps"][1]["rolls"][0]["label"]
    v = verify(record)
    assert v.difference is not None and (v.difference.step, v.difference.where) == (2, "roll 0 label")
    assert not v.complete and len(v.steps) == 2

    record = copy(finished)
    record["steps"][3]["key"] = record["steps"][3]["key"].upper()
    v = verify(record)
    assert v.difference is not None and (v.difference.step, v.difference.where) == (4, "key (S_t)")
    assert "lowercase hex" in v.difference.expected


@pytest.mark.parametrize("text, message", [
    ('{"a": 9007199254740992}', "2^53"),
    ('{"a": -9007199254740993}', "2^53"),
    ('{"a": "\\ud800"}', "lone surrogate"),
])
def test_both_verifiers_refuse_what_languages_read_differently(text: str, message: str) -> None:
    with pytest.raises(RecordError, match=re.escape(message)):
        parse_record(text)
    [result] = js_verify([text.encode()])
    assert result["readable"] is False and message in result["error"]
    assert parse_record('{"a": 9007199254740991, "b": "\\ud83c\\udfb2"}') == {"a": 2**53 - 1, "b": "\U0001f3b2"}


def test_a_record_given_as_a_dict_with_a_float_is_a_difference_not_a_crash(finished) -> None:
    record = copy(finished)
    record["steps"][0]["inputs"]["options"]["extra"] = 1.5
    v = verify(record)
    assert v.difference is not None and (v.difference.step, v.difference.where) == (1, "inputs")
    assert "float" in v.difference.found


def test_a_record_before_the_setup_checks_its_salt_only(finished) -> None:
    record = copy(finished)
    record["steps"] = []
    record["outcome"] = None
    v = verify(reseal(record))
    assert v.ok and v.steps == [] and v.salt_ok
    record["salt"] = "00" * 32
    v = verify(reseal(record))
    assert not v.ok and v.difference is not None and v.difference.where == "salt"
