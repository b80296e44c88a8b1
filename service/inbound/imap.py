"""The IMAP poller: fetch new mail from a mailbox (IMAP_URL) into the inbound path.

IMAP_URL forms:

    imap://user:pass@host:143/INBOX?starttls=1
    imaps://user:pass@host:993/Dicepost
    options: starttls=1, cafile=<path>, timeout=<seconds> (30), keep=1 (mark read
             instead of deleting)

Each unread message is fetched with BODY.PEEK[] (so a crash leaves it unread), handed
to service.inbound.receive.receive, which commits the raw bytes first, and only then
flagged \\Deleted (or \\Seen with keep=1) and expunged: the database holds it before
the mailbox lets go. A message too large to take is marked read and left for a person.
Two pollers at once are harmless: receive() deduplicates by Message-ID.

The sweeper runs poll_configured() every sweep (Celery beat in full mode, the sweeper
thread in embedded mode); `dicepost mail-poll` runs it once.
"""

from __future__ import annotations

import contextlib
import imaplib
import logging
import ssl
from dataclasses import dataclass, field

from flask import current_app

from service.inbound.receive import process_pending, receive
from service.mail.server_url import ConfigError, ServerUrl, parse_server_url
from service.mail.settings import mail_settings

log = logging.getLogger(__name__)
MAX_PER_POLL = 200


@dataclass
class PollReport:
    fetched: int = 0
    statuses: dict[str, int] = field(default_factory=dict)

    def count(self, status: str) -> None:
        self.statuses[status] = self.statuses.get(status, 0) + 1


def parse_imap_url(url: str) -> ServerUrl:
    s = parse_server_url("IMAP_URL", url, ("imap", 143), ("imaps", 993))
    if not s.username:
        raise ConfigError("IMAP_URL needs a user: imap://user:pass@host/INBOX")
    return s


def _connect(s: ServerUrl) -> imaplib.IMAP4:
    context = ssl.create_default_context(cafile=s.cafile)
    if s.tls:
        return imaplib.IMAP4_SSL(s.host, s.port, ssl_context=context, timeout=s.timeout)
    conn = imaplib.IMAP4(s.host, s.port, timeout=s.timeout)
    if s.starttls:
        conn.starttls(context)
    return conn


def _quoted(folder: str) -> str:
    return '"' + folder.replace("\\", "\\\\").replace('"', '\\"') + '"'


def poll(s: ServerUrl) -> PollReport:
    """Fetch, store and process every unread message of the folder once."""
    report = PollReport()
    conn = _connect(s)
    try:
        conn.login(s.username or "", s.password or "")
        folder = s.path or "INBOX"
        typ, _ = conn.select(_quoted(folder))
        if typ != "OK":
            raise ConfigError(f"IMAP folder {folder!r} cannot be opened")
        _typ, data = conn.uid("SEARCH", "UNSEEN")
        uids = (data[0] or b"").split()[:MAX_PER_POLL]
        for uid in uids:
            _typ, parts = conn.uid("FETCH", uid, "(BODY.PEEK[])")  # type: ignore[arg-type]
            raw = next((p[1] for p in parts if isinstance(p, tuple) and len(p) > 1), None)
            if not isinstance(raw, bytes):
                continue
            report.fetched += 1
            outcome = receive(raw)
            report.count(outcome.status)
            flag = "\\Seen" if s.flag("keep") or outcome.status == "too_large" else "\\Deleted"
            conn.uid("STORE", uid, "+FLAGS", f"({flag})")  # type: ignore[arg-type]
        if not s.flag("keep"):
            conn.expunge()
    finally:
        with contextlib.suppress(imaplib.IMAP4.error, OSError):
            conn.logout()
    return report


def poll_configured() -> PollReport | None:
    """Poll IMAP_URL if it is set, then finish any message a crash left unprocessed."""
    url = mail_settings(current_app.config).imap_url
    report = None
    if url:
        try:
            report = poll(parse_imap_url(url))
        except (imaplib.IMAP4.error, OSError, ConfigError) as exc:
            log.error("IMAP poll failed (the mail stays on the server): %s", exc)
    for outcome in process_pending():
        log.info("finished stored inbound mail %s: %s", outcome.inbound_id, outcome.status)
    return report
