"""The tamper suite: one change to a genuine record, and both verifiers name the place.

`dicepost verify` (the CLI, in process) and the page's JavaScript (its own core script
under Node) each get the tampered record as bytes. The place is (step, where); step 0 is
the record as a whole. Where the page cannot recompute something without the rules
(events, labels, state hashes, outcome), it names the step's or the record's checksum.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from service.commands.verify import EXIT_DIFFERENT, EXIT_OK, check
from tests.verify.conftest import copy, js_verify, reseal, serialize

Place = tuple[int, str]
Tamper = Callable[[dict[str, Any]], tuple[Place, Place]]


def rolled(record: dict[str, Any], least: int = 3) -> int:
    """Index of the first round step (t >= 2) with at least `least` rolls of more than one side."""
    for i, step in enumerate(record["steps"]):
        if i >= 1 and sum(r["n"] > 1 for r in step["rolls"][:2]) == 2 and len(step["rolls"]) >= least:
            return i
    raise AssertionError("no step with enough rolls")


def flip_hex(text: str, at: int = 5) -> str:
    return text[:at] + ("0" if text[at] != "0" else "1") + text[at + 1:]


def face(r):
    i = rolled(r)
    roll = r["steps"][i]["rolls"][1]
    roll["face"] = roll["face"] % roll["n"] + 1
    return (i + 1, "roll 1 face"), (i + 1, "roll 1 face")


def order(r):
    i = rolled(r)
    inputs = r["steps"][i]["inputs"]
    player = next(p for p, text in inputs.items() if text)
    inputs[player] = inputs[player].replace("move", "mvoe", 1) if "move" in inputs[player] else inputs[player] + "x"
    return (i + 1, "inputs_digest (D_t)"), (i + 1, "inputs_digest (D_t)")


def revealed_key(r):
    i = rolled(r)
    r["steps"][i]["key"] = flip_hex(r["steps"][i]["key"])
    return (i + 1, "chain"), (i + 1, "chain")


def entropy(r):
    p = r["players"][0]
    r["entropy"][p] = flip_hex(r["entropy"][p])
    return (0, "salt"), (0, "salt")


def drop_roll(r):
    i = rolled(r)
    del r["steps"][i]["rolls"][1]
    return (i + 1, "roll 1 j"), (i + 1, "roll 1 j")


def drop_last_roll(r):
    i = rolled(r)
    rolls = r["steps"][i]["rolls"]
    rolls.pop()
    return (i + 1, f"roll {len(rolls)}"), (i + 1, "checksum")


def swap_rolls(r):
    i = rolled(r)
    rolls = r["steps"][i]["rolls"]
    rolls[0], rolls[1] = rolls[1], rolls[0]
    return (i + 1, "roll 0 j"), (i + 1, "roll 0 j")


def state_hash(r):
    i = rolled(r)
    r["steps"][i]["state_hash"] = flip_hex(r["steps"][i]["state_hash"])
    return (i + 1, "state_hash"), (i + 1, "checksum")


def setup(r):
    forces = r["steps"][0]["inputs"]["forces"]
    player = r["players"][1]
    forces[player] = {**forces[player], "name": "Someone else"}
    return (1, "inputs_digest (D_t)"), (1, "inputs_digest (D_t)")


def label(r):
    i = rolled(r)
    r["steps"][i]["rolls"][0]["label"] += "!"
    return (i + 1, "roll 0 label"), (i + 1, "checksum")


def event(r):
    i = rolled(r)
    r["steps"][i]["events"][0]["text"] += "."
    return (i + 1, "event 0"), (i + 1, "checksum")


def outcome(r):
    r["outcome"]["winners"] = [r["players"][1]]
    return (len(r["steps"]), "outcome"), (0, "checksum")


def commitment(r):
    r["commitment"] = flip_hex(r["commitment"])
    return (1, "chain"), (1, "chain")


def salt(r):
    r["salt"] = flip_hex(r["salt"])
    return (0, "salt"), (0, "salt")


def players_order(r):
    r["players"].reverse()
    r["entropy"] = {p: r["entropy"][p] for p in r["players"]}
    return (1, "inputs players"), (1, "inputs players")


def step_number(r):
    i = rolled(r)
    r["steps"][i]["t"] += 1
    return (i + 1, "t"), (i + 1, "t")


def chain_length(r):
    r["chain_length"] += 1
    return (0, "checksum"), (0, "checksum")


def recorded_step_key(r):
    i = rolled(r)
    r["steps"][i]["step_key"] = flip_hex(r["steps"][i]["step_key"])
    return (i + 1, "step_key (K_t)"), (i + 1, "step_key (K_t)")


TAMPERS: list[Tamper] = [face, order, revealed_key, entropy, drop_roll, drop_last_roll, swap_rolls,
                         state_hash, setup, label, event, outcome, commitment, salt, players_order,
                         step_number, chain_length, recorded_step_key]


def cli(record: dict[str, Any], tmp_path: Path) -> tuple[int, str]:
    path = tmp_path / "record.json"
    path.write_bytes(serialize(record))
    out = io.StringIO()
    return check(str(path), out=out), out.getvalue()


def cli_place(record: dict[str, Any], tmp_path: Path) -> Place:
    code, text = cli(record, tmp_path)
    assert code == EXIT_DIFFERENT, text
    out = io.StringIO()
    path = tmp_path / "record.json"
    assert check(str(path), as_json=True, out=out) == EXIT_DIFFERENT
    first = json.loads(out.getvalue())["first_difference"]
    assert f"FAILED at {'step ' + str(first['step']) if first['step'] else 'record'}, {first['where']}:" in text
    return first["step"], first["where"]


def page_places(records: list[dict[str, Any]]) -> list[Place | None]:
    out = []
    for result in js_verify([serialize(r) for r in records]):
        assert result["readable"], result
        first = result["differences"][0] if result["differences"] else None
        out.append(None if result["ok"] else (first["step"], first["where"]) if first else ("?", "?"))
    return out


def test_the_genuine_record_passes_both(finished, tmp_path: Path) -> None:
    code, text = cli(finished, tmp_path)
    assert code == EXIT_OK and text.splitlines()[-1].startswith("OK: every check holds"), text
    assert page_places([finished]) == [None]


@pytest.mark.parametrize("tamper", TAMPERS, ids=[t.__name__ for t in TAMPERS])
def test_one_change_is_named_by_both_verifiers(finished, tamper: Tamper, tmp_path: Path) -> None:
    record = copy(finished)
    cli_expected, page_expected = tamper(record)
    assert cli_place(record, tmp_path) == cli_expected
    assert page_places([record]) == [page_expected]


FORGED: list[tuple[Tamper, bool]] = [(face, True), (order, True), (revealed_key, True), (entropy, True),
                                     (swap_rolls, True), (state_hash, False), (label, False), (event, False)]


@pytest.mark.parametrize("tamper, page_catches", FORGED, ids=[t.__name__ for t, _ in FORGED])
def test_a_forger_who_recomputes_the_checksums_is_still_caught(finished, tamper: Tamper,
                                                                page_catches: bool, tmp_path: Path) -> None:
    """Checksums only catch damage; the chain catches forged dice and the replay forged rules."""
    record = copy(finished)
    tamper(record)
    reseal(record)
    place = cli_place(record, tmp_path)
    assert place[1] != "checksum"
    page = page_places([record])[0]
    if page_catches:
        assert page is not None and page[1] != "checksum"
    else:
        # Rule outputs need the rules: the page cannot see this forgery, the CLI replay does.
        assert page is None
