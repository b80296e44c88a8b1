"""Any single-byte change to a serialized record is caught by both verifiers.

Random substitutions and deletions at random places of a finished game's record, as the
service serves it (compact JSON, UTF-8). `dicepost verify` must exit non-zero for every
one; the page's JavaScript must refuse to read it or report it not ok. A change that
still parses must be caught by the checks themselves (not by a reading error), so the
suite also counts how many of the mutants were still valid JSON.
"""

from __future__ import annotations

import io
import json
import random
from pathlib import Path

import pytest

from service.commands.verify import EXIT_OK, check
from tests.verify.conftest import js_verify, serialize

SUBSTITUTIONS = 1200
DELETIONS = 300
# Replacement bytes: mostly ones that keep JSON valid inside strings and numbers.
REPLACEMENTS = b"0123456789abcdefABCDEF xyz:,.-_\"{}[]\\\n\t\x00\xff\xc3"
# The mutants are checked in this many slices, each a test of its own, so parallel test
# processes share them.
SLICES = 4


def mutants(data: bytes, rng: random.Random) -> list[tuple[str, bytes]]:
    out = []
    for _ in range(SUBSTITUTIONS):
        at = rng.randrange(len(data))
        byte = rng.choice([b for b in REPLACEMENTS if b != data[at]])
        out.append((f"byte {at} {data[at]:#04x}->{byte:#04x}", data[:at] + bytes([byte]) + data[at + 1:]))
    for _ in range(DELETIONS):
        at = rng.randrange(len(data))
        out.append((f"delete byte {at} {data[at]:#04x}", data[:at] + data[at + 1:]))
    return out


def still_json(data: bytes) -> bool:
    try:
        json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return False
    return True


@pytest.mark.parametrize("part", range(SLICES))
def test_every_single_byte_change_is_caught_by_the_cli_and_the_page(finished, tmp_path: Path, part: int) -> None:
    data = serialize(finished)
    every = mutants(data, random.Random(20261130))
    assert sum(still_json(m) for _, m in every) > len(every) // 2, "most mutants should still be JSON"
    cases = every[part::SLICES]

    path = tmp_path / "mutant.json"
    missed_by_cli = []
    for name, mutant in cases:
        path.write_bytes(mutant)
        if check(str(path), out=io.StringIO()) == EXIT_OK:
            missed_by_cli.append(name)
    assert not missed_by_cli, f"dicepost verify missed {len(missed_by_cli)}: {missed_by_cli[:5]}"

    results = js_verify([m for _, m in cases])
    missed_by_page = [name for (name, _), r in zip(cases, results, strict=True) if r["readable"] and r["ok"]]
    assert not missed_by_page, f"the page missed {len(missed_by_page)}: {missed_by_page[:5]}"

    path.write_bytes(data)
    assert check(str(path), out=io.StringIO()) == EXIT_OK
    assert js_verify([data])[0]["ok"] is True
