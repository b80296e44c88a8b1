"""docs/fair-dice.md's check-by-hand Python block really checks a record."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from tests.verify.conftest import ROOT, copy, serialize

DOC = ROOT / "docs" / "fair-dice.md"


def hand_check() -> str:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    assert len(blocks) == 1
    return blocks[0]


def run(script: Path, record: Path) -> subprocess.CompletedProcess[str]:
    # -I: isolated, so the block cannot lean on dicepost being importable.
    return subprocess.run([sys.executable, "-I", str(script), str(record)], capture_output=True,
                          text=True, timeout=120, check=False, cwd=record.parent)


def test_the_hand_check_passes_a_genuine_record_and_fails_tampered_ones(finished, tmp_path: Path) -> None:
    script = tmp_path / "check_dice.py"
    script.write_text(hand_check(), encoding="utf-8")
    assert len(hand_check().strip().splitlines()) <= 45, "a few lines, as the doc says"
    path = tmp_path / "record.json"
    path.write_bytes(serialize(finished))
    ok = run(script, path)
    rolls = sum(len(s["rolls"]) for s in finished["steps"])
    assert ok.returncode == 0 and ok.stdout.strip() == f"every die checks: {rolls} rolls", ok.stderr

    cases = []
    face = copy(finished)
    step = next(i for i, s in enumerate(face["steps"]) if s["rolls"])
    face["steps"][step]["rolls"][0]["face"] = face["steps"][step]["rolls"][0]["face"] % face["steps"][step]["rolls"][0]["n"] + 1
    cases.append((face, f"step {step + 1}, roll 0 differs"))
    entropy = copy(finished)
    entropy["entropy"][entropy["players"][0]] = "00" * 16
    cases.append((entropy, "the salt does not come from the players' entropy"))
    key = copy(finished)
    key["steps"][2]["key"] = "00" * 32
    cases.append((key, "step 3: S_t does not hash to S_(t-1)"))
    order = copy(finished)
    order["steps"][step]["inputs"][order["players"][0]] += "\n"
    cases.append((order, f"step {step + 1}, roll 0 differs"))
    for record, message in cases:
        path.write_bytes(serialize(record))
        bad = run(script, path)
        assert bad.returncode != 0 and f"AssertionError: {message}" in bad.stderr
