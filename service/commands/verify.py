"""`dicepost verify RECORD`: check every die and every rule of a game record.

`dicepost verify --tournament BUNDLE`: a tournament's seating draw (the seed against its
commitment, every table recomputed) and every one of its games' records, in one run.

RECORD is a file path, `-` for standard input, or an http(s) URL (for instance a game's
`/api/games/<id>/record`). The checking itself is `engine.verify` (pure); this module
only reads the record and prints a short table per step, or `--json` for machines.

What the player holds, from the invitation, the join page and the confirmation mails
(`--commitment HEX`, `--entropy SEAT=HEX`, `--receipt SEAT:ROUND:VERSION:HEX`), is checked
against the record too: a record of another chain, another entropy or another text than
the player's latest receipt fails even when it is consistent in itself. `--mails PATH` (a
folder of .eml files, an mbox file or an .eml file; repeatable) reads all of it from the
player's own mails (engine.held): the commitment, the terms, their entropy and where it
came from, their force, every receipt with the text they sent, every step hash.

Exit status: 0 only when everything holds (chain, salt, keys, faces, replayed events and
state hashes, checksums), with an AMBER line instead of OK where it holds but says less
than it seems (only the host chose the dice; rounds the mails given do not reach); 1 when
something differs (the first difference is named, with what was expected and what was
found); 2 when the record or the mails cannot be read at all (one line on stderr; with
--json, also the report on stdout).
"""

from __future__ import annotations

import json
import sys
import urllib.error
import urllib.request
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

import click

from engine.gmlog import action_text
from engine.held import held_from_mails, read_receipts
from engine.tournament import check_bundle
from engine.verify import Held, RecordError, StepRow, Verification, parse_record, verify
from service.verify_bundle import RUNTIME, bundle_files, write_bundle

MAX_RECORD_BYTES = 64 * 1024 * 1024
EXIT_OK, EXIT_DIFFERENT, EXIT_UNREADABLE = 0, 1, 2


def read_source(source: str, timeout: float = 30.0, token: str | None = None) -> bytes:
    """The bytes of a record from a path, '-' or an http(s) URL (with `token`, a private
    game's: sent as `Authorization: Bearer`, never in the URL)."""
    if source.startswith(("http://", "https://")):
        headers = {"Accept": "application/json"} | ({"Authorization": f"Bearer {token}"} if token else {})
        # S310: only http(s) gets here (the test above); a path is read as a file below.
        request = urllib.request.Request(source, headers=headers)  # noqa: S310
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


def mail_files(paths: Sequence[Path]) -> list[tuple[str, bytes]]:
    """The player's mails as (name, bytes): every .eml file of a folder, or a file (an .eml
    or an mbox) as it is; a path that cannot be read is a RecordError naming it."""
    out: list[tuple[str, bytes]] = []
    for path in paths:
        if path.is_dir():
            found = sorted(p for p in path.iterdir() if p.is_file() and p.suffix.lower() == ".eml")
            if not found:
                raise RecordError(f"{path} holds no .eml files")
        else:
            found = [path]
        for item in found:
            try:
                with item.open("rb") as f:
                    data = f.read(MAX_RECORD_BYTES + 1)
            except OSError as exc:
                raise RecordError(f"cannot read {item}: {exc.strerror or exc}") from None
            if len(data) > MAX_RECORD_BYTES:
                raise RecordError(f"{item} is larger than {MAX_RECORD_BYTES} bytes")
            out.append((str(item), data))
    return out


def _mark(value: bool | None) -> str:
    return {True: "ok", False: "BAD", None: "-"}[value]


def _short(hex_text: str) -> str:
    return f"{hex_text[:8]}..." if len(hex_text) > 8 else hex_text or "-"


def print_table(v: Verification, out: TextIO) -> None:
    rules = v.ruleset or "?"
    if v.revision is not None:
        rules += f", rules revision {v.revision}"
    print(f"game {v.game_id or '?'} ({rules}), commitment S_0 {v.commitment or '?'}", file=out)
    if v.salt:
        print(f"salt G {v.salt} {_mark(v.salt_ok)}", file=out)
    if v.profile:
        print(f"profile {v.profile}", file=out)
    if v.terms:
        print(f"terms T {v.terms}", file=out)
    if v.unchecked:
        print(f"fields covered by the checksum only: {', '.join(v.unchecked)}", file=out)
    for seat in v.server_made:
        print(f"server-made entropy: {seat} (fixed by the commitment; it adds nothing to the salt)",
              file=out)
    if v.bots:
        rounds: dict[str, list[str]] = {}
        for bot in v.bots:
            rounds.setdefault(str(bot["seat"]), []).append(str(bot["round"]))
        for seat, numbers in sorted(rounds.items()):
            print(f"played by the bot: {seat} in round {', '.join(numbers)} (orders recomputed)",
                  file=out)
    for h in v.handovers:
        whom = "the bot" if h.get("to") == "bot" else "a player"
        print(f"handed over: {h.get('seat')} to {whom} from round {h.get('round')} "
              f"({HANDED_BY.get(str(h.get('by')), h.get('by'))})", file=out)
    _gm_lines(v, out)
    for item in v.held:
        print(f"matches what you hold: {item}", file=out)
    for caution in v.cautions:
        print(f"caution: {caution}", file=out)
    hashes = any(s.step_hash for s in v.steps)
    print(f"{'step':>5}  {'S_t':<11}  {'chain':<5}  {'D,K':<3}  {'rolls':<9}  "
          f"{'rules':<5}  {'events':>6}  {'state':<11}  sum" + ("  A_t" if hashes else ""), file=out)
    for s in v.steps:
        _step_note(s, out)
        good = sum(r.ok for r in s.rolls)
        rolls = f"{good}/{len(s.rolls)}" + ("" if good == len(s.rolls) else " BAD")
        events = "-" if s.events is None else str(s.events)
        line = (f"{s.t:>5}  {_short(s.revealed):<11}  {_mark(s.chain):<5}  {_mark(s.keys):<3}  "
                f"{rolls:<9}  {_mark(s.rules):<5}  {events:>6}  {_short(s.state_hash):<11}  "
                f"{_mark(s.checksum)}")
        if hashes:
            line += f"   {_short(s.step_hash)}"
        print(line, file=out)


def _gm_lines(v: Verification, out: TextIO) -> None:
    """The GM's actions, then each rollback (its superseded steps are in the table)."""
    for action in v.gm_actions:
        print(f"GM action: {action_text(action)}", file=out)
    for text in v.rollbacks:
        print(f"{text} (its steps checked as the others: links, dice, rules)", file=out)


def _step_note(s: StepRow, out: TextIO) -> None:
    """A line above a step a rollback touched: its chain link, and whether it was superseded."""
    if s.superseded is not None or s.link != s.t:
        print(f"       step {s.t} with chain link S_{s.link}"
              + (f", superseded by rollback {s.superseded}:" if s.superseded is not None else ":"), file=out)


def _hex(text: str, what: str, sizes: range) -> bytes:
    text = text.strip().lower()
    try:
        value = bytes.fromhex(text)
    except ValueError:
        raise click.BadParameter(f"{what} must be hex, got {text!r}") from None
    if len(value) not in sizes:
        raise click.BadParameter(f"{what} must be {sizes.start} to {sizes.stop - 1} bytes of hex, "
                                 f"got {len(value)}")
    return value


def held_values(commitment: str | None, entropy: Sequence[str], receipts: Sequence[str]) -> Held:
    """The player's values from the command line; a bad one is a usage error naming it."""
    held = Held(commitment=_hex(commitment, "--commitment", range(32, 33)) if commitment else None)
    for item in entropy:
        seat, sep, value = item.partition("=")
        if not sep or not seat:
            raise click.BadParameter(f"--entropy takes SEAT=HEX, got {item!r}")
        held.entropy[seat] = _hex(value, f"--entropy {seat}", range(16, 65))
    for item in receipts:
        parts = item.split(":")
        if len(parts) != 4 or not parts[0] or not parts[1].isdigit() or not parts[2].isdigit():
            raise click.BadParameter(f"--receipt takes SEAT:ROUND:VERSION:HEX, got {item!r}")
        seat, rnd, version, value = parts
        held.receipts.append((seat, int(rnd), int(version),
                              _hex(value, f"--receipt {seat}:{rnd}:{version}", range(32, 33))))
    return held


HANDED_BY = {"gm": "by the GM", "missed_turns": "by the missed-turn policy",
             "player": "its own player", "replacement": "a replacement player"}
BOUND = {"dicepost-dice/v2": "canonical inputs, server-made entropy, bot orders, receipts, ",
         "dicepost-dice/v3": "canonical inputs in the rules' reading order, the terms, server-made "
                             "entropy, hand-overs and bot orders, receipts, step hashes, "}


def report(v: Verification, out: TextIO) -> int:
    print_table(v, out)
    if v.ok:
        rolled = f" ({len(v.rollbacks)} rollback{'s' * (len(v.rollbacks) != 1)})" if v.rollbacks else ""
        holds = (f"every check holds: {len(v.steps)} steps{rolled}, {v.rolls} rolls; chain from the "
                 f"commitment, salt, step keys, faces, {BOUND.get(v.profile, '')}replayed events "
                 "and state hashes, checksums")
        if v.cautions:
            print(f"AMBER: {holds}; but {'; and '.join(v.cautions)}.", file=out)
        else:
            print(f"OK: {holds}.", file=out)
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
          out: TextIO | None = None, err: TextIO | None = None, held: Held | None = None,
          token: str | None = None, mails: Sequence[Path] = ()) -> int:
    out = out or sys.stdout
    try:
        record = parse_record(read_source(source, timeout, token))
        if mails:
            game_id = record.get("game_id") if isinstance(record, dict) else None
            if not isinstance(game_id, str):
                raise RecordError("the record names no game_id to read your mails for")
            held = (held or Held()).merged(held_from_mails(mail_files(mails), game_id))
    except RecordError as exc:
        if as_json:
            print(json.dumps({"ok": False, "error": str(exc)}), file=out)
        print(f"FAILED: {exc}", file=err or sys.stderr)
        return EXIT_UNREADABLE
    v = verify(record, held)
    if as_json:
        print(json.dumps(v.to_json(), ensure_ascii=False, indent=1), file=out)
        return EXIT_OK if v.ok else EXIT_DIFFERENT
    return report(v, out)


def check_tournament(source: str, timeout: float = 30.0, out: TextIO | None = None,
                     err: TextIO | None = None) -> int:
    """`--tournament`: the seed against its commitment, every table against the draw
    (engine.tournament), then every game's record (engine.verify), in one run."""
    out = out or sys.stdout
    try:
        doc = json.loads(read_source(source, timeout))
        if not isinstance(doc, dict):
            raise RecordError("the tournament bundle is not a JSON object")
    except (RecordError, ValueError) as exc:
        print(f"FAILED: {exc}", file=err or sys.stderr)
        return EXIT_UNREADABLE
    problems = check_bundle(doc)
    print(f"tournament {doc.get('id')}: {doc.get('title')}", file=out)
    print("seating draw: " + ("holds (seed, commitment and every table)" if not problems
                              else f"{len(problems)} difference(s)"), file=out)
    for problem in problems:
        print(f"  {problem}", file=out)
    found = doc.get("records")
    records: dict[str, Any] = found if isinstance(found, dict) else {}
    failed = waiting = 0
    for game_id, record in sorted(records.items()):
        if isinstance(record, dict) and not record.get("steps"):
            print(f"game {game_id}: not started yet (no dice rolled: nothing to check)", file=out)
            waiting += 1
            continue
        v = verify(record) if isinstance(record, dict) else None
        ok = v is not None and v.ok
        failed += not ok
        said = "no record" if v is None else ("holds" if ok else f"FAILED at {v.difference}")
        print(f"game {game_id}: {said}", file=out)
    if problems or failed:
        print(f"FAILED: {len(problems)} seating difference(s), {failed} of {len(records)} game(s)", file=out)
        return EXIT_DIFFERENT
    later = f" ({waiting} not started yet)" if waiting else ""
    print(f"OK: the seating draw and all {len(records) - waiting} games played hold{later}.", file=out)
    return EXIT_OK


def bundle(folder: Path, out: TextIO) -> int:
    """Write the verifier as static files (service.verify_bundle) and print its SHA-256."""
    digest = write_bundle(folder)
    print(f"wrote the verifier bundle to {folder}", file=out)
    if f"{RUNTIME}/pyodide.mjs" not in bundle_files():
        print("without its Python runtime (make pyodide fetches it): the page will check the "
              "dice only, and say so", file=out)
    print(f"serve it with: python3 -m http.server --directory {folder}", file=out)
    print(f"check it with: cd {folder} && sha256sum -c verify-runtime/SHA256SUMS "
          "&& sha256sum verify-runtime/SHA256SUMS", file=out)
    print(f"bundle SHA-256 {digest}", file=out)
    return EXIT_OK


@click.command("verify", help=(
    "Check a dicepost game record (a file, '-' for standard input, or an http(s) URL): the "
    "hash chain from the commitment, the salt, every step key and roll, then replay every "
    "step through the engine. Exit 0 only when everything holds. With --bundle DIR (and no "
    "RECORD), write the verifier page, its runtime and the engine as static files instead."))
@click.argument("record", required=False)
@click.option("--json", "as_json", is_flag=True, help="print the whole report as JSON")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=30.0,
              show_default=True, help="seconds to wait for a URL")
@click.option("--commitment", metavar="HEX",
              help="the commitment S_0 you were shown before you joined")
@click.option("--entropy", "entropy", multiple=True, metavar="SEAT=HEX",
              help="your seat's entropy, as the join page showed it (repeatable)")
@click.option("--receipt", "receipts", multiple=True, metavar="SEAT:ROUND:VERSION:HEX",
              help="a receipt from a confirmation mail or the player page (repeatable)")
@click.option("--receipts", "receipts_file", type=click.Path(dir_okay=False, path_type=Path),
              help="the receipts file the player page offers (commitment, entropy, receipts)")
@click.option("--mails", "mails", multiple=True, metavar="PATH",
              type=click.Path(exists=True, path_type=Path),
              help="your own mails of the game: a folder of .eml files, an mbox file or an .eml "
                   "file (repeatable); every value they carry is checked against the record")
@click.option("--token", envvar="DICEPOST_TOKEN", metavar="TOKEN",
              help="for a private game's record URL: a player's, the GM's or a spectator link's "
                   "token (the link's last part), sent as Authorization: Bearer; or set DICEPOST_TOKEN")
@click.option("--bundle", "bundle_dir", type=click.Path(file_okay=False, path_type=Path),
              help="write the verifier page, its runtime and the engine into this folder")
@click.option("--tournament", "tournament", is_flag=True,
              help="RECORD is a tournament's bundle (/tournaments/<id>/bundle.json): check the seating "
                   "draw against the committed seed and every game's record")
def command(record: str | None, as_json: bool, timeout: float, commitment: str | None,
            entropy: tuple[str, ...], receipts: tuple[str, ...], receipts_file: Path | None,
            bundle_dir: Path | None, token: str | None, mails: tuple[Path, ...], tournament: bool) -> int:
    if tournament:
        if record is None:
            raise click.UsageError("--tournament needs the bundle: a file, '-' or an http(s) URL")
        return check_tournament(record, timeout)
    if bundle_dir is not None:
        if record is not None:
            raise click.UsageError("--bundle writes the verifier; give no RECORD with it")
        return bundle(bundle_dir, sys.stdout)
    if record is None:
        raise click.UsageError("give a RECORD (a file, '-' or an http(s) URL), or --bundle DIR")
    held = held_values(commitment, entropy, receipts)
    if receipts_file is not None:
        try:
            held = held.merged(read_receipts(read_source(str(receipts_file))))
        except RecordError as exc:
            raise click.BadParameter(str(exc), param_hint="--receipts") from None
    return check(record, as_json, timeout, held=held, token=token, mails=mails)


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
