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

import argparse
import json
import sys
from typing import BinaryIO

from sqlalchemy.exc import OperationalError

from service import create_app

EX_OK, EX_DATAERR, EX_TEMPFAIL = 0, 65, 75


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("mail-ingest", help="take one mail message from standard input (MTA pipe)")
    parser.add_argument("--pending", action="store_true",
                        help="instead, finish messages that were stored but never processed")
    parser.set_defaults(func=run)
    poll = sub.add_parser("mail-poll", help="fetch new mail from IMAP_URL once")
    poll.set_defaults(func=run_poll)


def ingest(stream: BinaryIO) -> tuple[int, dict[str, object]]:
    """(exit status, what happened) for the message on `stream`; needs an app context."""
    from service.mail.inbound import MAX_RAW_BYTES, receive

    raw = stream.read(MAX_RAW_BYTES + 1)
    if not raw.strip():
        return EX_DATAERR, {"status": "empty", "detail": "no message on standard input"}
    try:
        outcome = receive(raw)
    except OperationalError as exc:
        return EX_TEMPFAIL, {"status": "tempfail", "detail": f"database unavailable: {exc.orig}"}
    code = EX_DATAERR if outcome.status == "too_large" else EX_OK
    return code, {"status": outcome.status, "detail": outcome.detail, "inbound_id": outcome.inbound_id}


def run(args: argparse.Namespace) -> int:
    app = create_app()
    with app.app_context():
        if args.pending:
            from service.mail.inbound import process_pending

            done = process_pending()
            print(json.dumps([{"inbound_id": o.inbound_id, "status": o.status} for o in done]))
            return EX_OK
        code, report = ingest(sys.stdin.buffer)
    print(json.dumps(report), file=sys.stderr if code else sys.stdout)
    return code


def run_poll(args: argparse.Namespace) -> int:
    from service.mail.imap import poll_configured

    app = create_app()
    with app.app_context():
        report = poll_configured()
    print(json.dumps({"fetched": report.fetched, "statuses": report.statuses} if report
                     else {"fetched": 0, "detail": "IMAP_URL is not set"}))
    return EX_OK
