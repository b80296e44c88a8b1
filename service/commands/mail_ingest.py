"""`dicepost mail-ingest`: one RFC 5322 message on standard input (an MTA pipe).

For Postfix, an alias or transport such as
    dicepost: "|/srv/dicepost/.venv/bin/dicepost mail-ingest"
hands each message to this command. Exit status follows sendmail's sysexits, so the
MTA keeps and retries what could not be taken: 0 when the message is stored (whether
it was then accepted, refused or a duplicate), 75 (EX_TEMPFAIL) when the database
cannot be reached, 65 (EX_DATAERR) for an empty or oversized message.

`dicepost mail-ingest --pending` instead finishes stored messages a crash left
unprocessed; `dicepost mail-poll` fetches new mail from IMAP_URL once.
"""

from __future__ import annotations

import json
import sys
from typing import BinaryIO

import click
from sqlalchemy.exc import OperationalError

from service.commands import Refused, make_app, require_seal, sealed_app

EX_OK, EX_DATAERR, EX_TEMPFAIL = 0, 65, 75


def ingest(stream: BinaryIO) -> tuple[int, dict[str, object]]:
    """(exit status, what happened) for the message on `stream`; needs an app context."""
    from service.inbound.receive import MAX_RAW_BYTES, receive

    raw = stream.read(MAX_RAW_BYTES + 1)
    if not raw.strip():
        return EX_DATAERR, {"status": "empty", "detail": "no message on standard input"}
    try:
        outcome = receive(raw)
    except OperationalError as exc:
        return EX_TEMPFAIL, {"status": "tempfail", "detail": f"database unavailable: {exc.orig}"}
    code = EX_DATAERR if outcome.status == "too_large" else EX_OK
    return code, {"status": outcome.status, "detail": outcome.detail, "inbound_id": outcome.inbound_id}


@click.command("mail-ingest", help="Take one mail message from standard input (MTA pipe).")
@click.option("--pending", is_flag=True,
              help="instead, finish messages that were stored but never processed")
def command(pending: bool) -> int:
    app = make_app()
    try:
        require_seal(app)
        with app.app_context():
            if pending:
                from service.inbound.receive import process_pending

                done = process_pending()
                click.echo(json.dumps([{"inbound_id": o.inbound_id, "status": o.status}
                                       for o in done]))
                return EX_OK
            code, report = ingest(sys.stdin.buffer)
    except OperationalError as exc:  # the MTA keeps the message and retries on EX_TEMPFAIL
        code, report = EX_TEMPFAIL, {"status": "tempfail", "detail": f"database unavailable: {exc.orig}"}
    except Refused as exc:  # a wrong seal key: kept by the MTA until the right one is back
        code, report = EX_TEMPFAIL, {"status": "tempfail", "detail": exc.message}
    click.echo(json.dumps(report), err=bool(code))
    return code


@click.command("mail-poll", help="Fetch new mail from IMAP_URL once.")
def poll_command() -> int:
    from service.inbound.imap import poll_configured

    app = sealed_app()
    with app.app_context():
        report = poll_configured()
    click.echo(json.dumps({"fetched": report.fetched, "statuses": report.statuses} if report
                          else {"fetched": 0, "detail": "IMAP_URL is not set"}))
    return EX_OK
