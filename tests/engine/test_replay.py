"""Replay: re-running a record reproduces every roll, event and state hash, and the first
thing a tampered record gets wrong is named (step and where)."""

from __future__ import annotations

import ast
import copy
from pathlib import Path
from typing import Any

import pytest

from engine.replay import replay
from engine.selfplay import play

GAME = play("universal", "replay-1")


def record() -> dict[str, Any]:
    return copy.deepcopy(GAME.record)


def first_attack_step(rec: dict[str, Any]) -> int:
    return next(i for i, s in enumerate(rec["steps"]) if any(e["kind"] == "attack" for e in s["events"]))


def test_an_untouched_record_replays_to_identical_hashes():
    report = replay(record())
    assert report.ok
    assert [s.state_hash for s in report.steps] == [r.state_hash for r in GAME.results]
    assert report.final_state == GAME.final.state


def test_a_changed_roll_is_the_first_difference():
    rec = record()
    i = first_attack_step(rec)
    roll = rec["steps"][i]["rolls"][0]
    roll["face"] = roll["face"] % 6 + 1
    diff = replay(rec).difference
    assert diff is not None and (diff.step, diff.where) == (i + 1, "roll 0 face")


def test_a_changed_event_is_named():
    rec = record()
    rec["steps"][1]["events"][0]["text"] = "something else happened"
    diff = replay(rec).difference
    assert diff is not None and (diff.step, diff.where) == (2, "event 0")


def test_a_changed_state_hash_is_named():
    rec = record()
    rec["steps"][-1]["state_hash"] = "0" * 64
    diff = replay(rec).difference
    assert diff is not None and (diff.step, diff.where) == (len(rec["steps"]), "state_hash")


def test_changed_orders_change_the_dice_or_fail_to_replay():
    """The step key mixes in the orders' digest: edited inputs no longer reproduce the step."""
    rec = record()
    i = first_attack_step(rec)
    inputs = rec["steps"][i]["inputs"]
    player = next(p for p, text in inputs.items() if "attack" in text)
    inputs[player] = "pass"
    diff = replay(rec).difference
    assert diff is not None and diff.step == i + 1


def test_orders_that_do_not_parse_are_caught_at_their_step():
    rec = record()
    rec["steps"][1]["inputs"]["alice"] = "Z9 dance"
    diff = replay(rec).difference
    assert diff is not None and diff.step == 2


def test_a_revealed_key_that_breaks_the_chain_is_named():
    rec = record()
    rec["steps"][3]["key"] = "00" * 32
    diff = replay(rec).difference
    assert diff is not None and (diff.step, diff.where) == (4, "chain")


def test_a_wrong_salt_is_named():
    rec = record()
    rec["salt"] = "11" * 32
    diff = replay(rec).difference
    assert diff is not None and diff.where == "salt"


def test_a_step_out_of_order_is_named():
    rec = record()
    rec["steps"][2]["t"] = 9
    diff = replay(rec).difference
    assert diff is not None and (diff.step, diff.where) == (3, "t")


@pytest.mark.parametrize("mutate, where", [
    (lambda r: r.update(format="something/2"), "format"),
    (lambda r: r.pop("steps"), "steps"),
    (lambda r: r.update(commitment="not hex"), "commitment"),
])
def test_a_record_that_cannot_be_read_is_a_difference_of_the_whole_record(mutate, where):
    rec = record()
    mutate(rec)
    diff = replay(rec).difference
    assert diff is not None and (diff.step, diff.where) == (0, where)


def _engine_imports(module: str) -> set[str]:
    """The engine modules a module of the engine imports, at any depth in its code."""
    path = Path(__file__).resolve().parents[2] / "engine" / f"{module}.py"
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("engine."):
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("engine.")}
    return found


def test_replay_and_verify_do_not_import_each_other_both_ways():
    """One module (engine.stepcheck) owns what both use; replay imports verify, and
    neither verify nor stepcheck imports replay."""
    assert "engine.verify" in _engine_imports("replay")
    assert "engine.replay" not in _engine_imports("verify")
    assert "engine.replay" not in _engine_imports("stepcheck")
    assert "engine.verify" not in _engine_imports("stepcheck")
