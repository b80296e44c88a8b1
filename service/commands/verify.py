"""`dicepost verify RECORD`: check every die and every rule of a game record.

RECORD is a file path, `-` for standard input, or an http(s) URL (for instance a game's
`/api/games/<id>/record`). The checking itself is `engine.verify` (pure); this module
only reads the record and prints a short table per step, or `--json` for machines.

Exit status: 0 only when everything holds (chain, salt, keys, faces, replayed events and
state hashes, checksums); 1 when something differs (the first difference is named, with
what was expected and what was found); 2 when the record cannot be read at all (one line
on stderr; with --json, also the report on stdout).
"""

from __future__ import annotations

import json
import sys
import urllib.error
import urllib.request
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

import click

from engine.verify import RecordError, Verification, parse_record, verify

MAX_RECORD_BYTES = 64 * 1024 * 1024
EXIT_OK, EXIT_DIFFERENT, EXIT_UNREADABLE = 0, 1, 2


def read_source(source: str, timeout: float = 30.0) -> bytes:
    """The bytes of a record from a path, '-' or an http(s) URL."""
    if source.startswith(("http://", "https://")):
        # S310: only http(s) gets here (the test above); a path is read as a file below.
        request = urllib.request.Request(source, headers={"Accept": "application/json"})  # noqa: S310
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310
                data: bytes = response.read(MAX_RECORD_BYTES + 1)
        except (urllib.error.URLError, OSError, ValueError) as exc:
            raise RecordError(f"cannot fetch {source}: {exc}") from None
    elif source == "-":
        data = sys.stdin.buffer.read(MAX_RECORD_BYTES + 1)
    else:
        try:
            with Path(source).open("rb") as f:
                data = f.read(MAX_RECORD_BYTES + 1)
        except OSError as exc:
            raise RecordError(f"cannot read {source}: {exc.strerror or exc}") from None
    if len(data) > MAX_RECORD_BYTES:
        raise RecordError(f"{source} is larger than {MAX_RECORD_BYTES} bytes")
    return data


def _mark(value: bool | None) -> str:
    return {True: "ok", False: "BAD", None: "-"}[value]


def _short(hex_text: str) -> str:
    return f"{hex_text[:8]}..." if len(hex_text) > 8 else hex_text or "-"


def print_table(v: Verification, out: TextIO) -> None:
    print(f"game {v.game_id or '?'} ({v.ruleset or '?'}), commitment S_0 {v.commitment or '?'}",
          file=out)
    if v.salt:
        print(f"salt G {v.salt} {_mark(v.salt_ok)}", file=out)
    if v.unchecked:
        print(f"fields covered by the checksum only: {', '.join(v.unchecked)}", file=out)
    print(f"{'step':>5}  {'S_t':<11}  {'chain':<5}  {'D,K':<3}  {'rolls':<9}  "
          f"{'rules':<5}  {'events':>6}  {'state':<11}  sum", file=out)
    for s in v.steps:
        good = sum(r.ok for r in s.rolls)
        rolls = f"{good}/{len(s.rolls)}" + ("" if good == len(s.rolls) else " BAD")
        events = "-" if s.events is None else str(s.events)
        line = (f"{s.t:>5}  {_short(s.revealed):<11}  {_mark(s.chain):<5}  {_mark(s.keys):<3}  "
                f"{rolls:<9}  {_mark(s.rules):<5}  {events:>6}  {_short(s.state_hash):<11}  "
                f"{_mark(s.checksum)}")
        print(line, file=out)


def report(v: Verification, out: TextIO) -> int:
    print_table(v, out)
    if v.ok:
        print(f"OK: every check holds: {len(v.steps)} steps, {v.rolls} rolls; chain from the "
              "commitment, salt, step keys, faces, replayed events and state hashes, checksums.",
              file=out)
        return EXIT_OK
    first = v.difference
    if first is None:
        print("FAILED: the record could not be checked to the end.", file=out)
    else:
        print(f"FAILED at {first}", file=out)
        if len(v.differences) > 1:
            print(f"({len(v.differences)} differences in all; --json lists them)", file=out)
    return EXIT_DIFFERENT


def check(source: str, as_json: bool = False, timeout: float = 30.0,
          out: TextIO | None = None, err: TextIO | None = None) -> int:
    out = out or sys.stdout
    try:
        record = parse_record(read_source(source, timeout))
    except RecordError as exc:
        if as_json:
            print(json.dumps({"ok": False, "error": str(exc)}), file=out)
        print(f"FAILED: {exc}", file=err or sys.stderr)
        return EXIT_UNREADABLE
    v = verify(record)
    if as_json:
        print(json.dumps(v.to_json(), ensure_ascii=False, indent=1), file=out)
        return EXIT_OK if v.ok else EXIT_DIFFERENT
    return report(v, out)


@click.command("verify", help=(
    "Check a dicepost game record (a file, '-' for standard input, or an http(s) URL): the "
    "hash chain from the commitment, the salt, every step key and roll, then replay every "
    "step through the engine. Exit 0 only when everything holds."))
@click.argument("record")
@click.option("--json", "as_json", is_flag=True, help="print the whole report as JSON")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=30.0,
              show_default=True, help="seconds to wait for a URL")
def command(record: str, as_json: bool, timeout: float) -> int:
    return check(record, as_json, timeout)


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m service.commands.verify`: the same command without the rest of the CLI."""
    try:
        return int(command.main(args=list(argv) if argv is not None else None,
                                prog_name="dicepost verify", standalone_mode=False))
    except click.ClickException as exc:
        exc.show()
        return exc.exit_code


if __name__ == "__main__":
    sys.exit(main())
