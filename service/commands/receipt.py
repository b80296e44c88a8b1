"""`dicepost receipt GAME ROUND SEAT VERSION FILE`: the receipt of an order text, offline.

The receipt of a version (docs/dice-spec.md) is R = H(profile, "receipt", game, round, seat,
version, text), `text` the canonical text the orders count as. With `--record` the FILE is
read as the player wrote it (their mail, their web form) and turned into the canonical text
against the state of that round, replayed from the record, so the answer is what the
confirmation mail's receipt must be; without it the FILE is taken as the counted text
itself (the "as the rules read them" lines of the confirmation). FILE may be '-' for
standard input; its line ends may be CRLF, and the line ends after its last line are not
part of it.

Exit status: 0 with the receipt; 1 when the text does not parse against that round; 2 when
an argument, the file or the record cannot be read.
"""

from __future__ import annotations

import click

from engine.contract import RulesError
from engine.dice import PROFILE_V2, PROFILE_V3, receipt
from engine.orders import OrderErrors
from engine.registry import find_ruleset
from engine.steps import canonical_input, setup_revision
from engine.verify import RecordError, parse_record, round_state
from service.commands import Refused
from service.commands.verify import read_source

MAX_TEXT_BYTES = 64 * 1024


def read_text(source: str) -> str:
    """The text of FILE ('-': standard input) with its line ends made LF and none at the end."""
    if source.startswith(("http://", "https://")):
        raise Refused(f"{source}: give the text as a file, or '-' for standard input")
    try:
        data = read_source(source)
    except RecordError as exc:
        raise Refused(str(exc)) from None
    if len(data) > MAX_TEXT_BYTES:
        raise Refused(f"{source} is larger than {MAX_TEXT_BYTES} bytes: not an order text")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Refused(f"{source} is not UTF-8 text: {exc}") from None
    return text.replace("\r\n", "\n").replace("\r", "\n").rstrip("\n")


@click.command("receipt", help=(
    "Compute the receipt of an order text offline: GAME ROUND SEAT VERSION as the confirmation "
    "mail names them, FILE the text ('-' for standard input). With --record, FILE is your text "
    "as you sent it, read as the rules read it in that round; without, FILE is the text as it "
    "counts (the confirmation's 'as the rules read them' lines)."))
@click.argument("game")
@click.argument("round_number", metavar="ROUND", type=click.IntRange(min=1))
@click.argument("seat")
@click.argument("version", type=click.IntRange(min=1))
@click.argument("file")
@click.option("--record", "record_source", metavar="RECORD",
              help="the game's record (a file, or an http(s) URL): read FILE as the rules read it")
@click.option("--profile", type=click.Choice([PROFILE_V2, PROFILE_V3]), default=None,
              help="the game's dice profile (default: the record's, else dicepost-dice/v3)")
def command(game: str, round_number: int, seat: str, version: int, file: str,
            record_source: str | None, profile: str | None) -> int:
    text = read_text(file)
    if record_source is not None:
        try:
            record = parse_record(read_source(record_source))
            if not isinstance(record, dict) or record.get("game_id") != game:
                found = record.get("game_id") if isinstance(record, dict) else None
                raise RecordError(f"the record is of game {found!r}, not {game!r}")
            if record.get("profile") not in (PROFILE_V2, PROFILE_V3):
                raise RecordError(f"the record's profile {record.get('profile')!r} has no receipts")
            if profile not in (None, record["profile"]):
                raise RecordError(f"the record is of profile {record['profile']}, not {profile}")
            profile = str(record["profile"])
            if seat not in record.get("players", []):
                raise RecordError(f"the record has no seat {seat!r}")
            state_json = round_state(record, round_number)
            ruleset = find_ruleset(str(record["ruleset"]), setup_revision(record["steps"][0]["inputs"]))
            state = ruleset.load(state_json)
        except (RecordError, RulesError) as exc:
            raise Refused(str(exc)) from None
        try:
            text = canonical_input(ruleset, state, seat, text, profile)
        except OrderErrors as exc:
            click.echo(f"the text does not read as orders of {seat} in round {round_number}:", err=True)
            for error in exc.errors:
                click.echo(f"  {error}", err=True)
            return 1
    profile = profile or PROFILE_V3
    value = receipt(game, round_number, seat, version, text, profile)
    click.echo(f"game {game}, round {round_number}, seat {seat}, version {version} ({profile})")
    click.echo("the text as it counts:" if text else "the text as it counts: none (no orders)")
    for line in text.splitlines():
        click.echo(f"  {line}")
    click.echo(f"receipt {value.hex()}")
    return 0
