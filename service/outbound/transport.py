"""Sending one composed message over SMTP (`SMTP_URL`).

(Without SMTP_URL, service.outbound.deliver keeps the message in stored_mail instead, in
the transaction that marks it sent.)

SMTP_URL forms:

    smtp://host:25                      plain SMTP (a local MTA, mailpit)
    smtp://user:pass@host:587?starttls=1  upgrade with STARTTLS before login
    smtps://user:pass@host:465          TLS from the first byte
    options: timeout=<seconds> (default 30), cafile=<path> (trust a private CA),
             helo=<name>

Failures are classified the way RFC 5321 means them (smtplib documents which
exception carries which reply):
- temporary: 4xx replies, a refused or dropped connection, a timeout, and also
  authentication and TLS set-up errors (including 530/534/535/538 replies), which
  are the operator's to fix, not a reason to give up on a player's mail;
- permanent: other 5xx replies to the sender, recipient or data.
A connection that drops after DATA may or may not have delivered the mail: it is
retried, and the resend carries the same Message-ID so clients show it once.
"""

from __future__ import annotations

import smtplib
import socket
import ssl
from email.message import EmailMessage
from typing import Protocol

from service.mail.server_url import ServerUrl, parse_server_url

# 5xx replies about our own set-up, not the recipient (RFC 4954): authentication required,
# mechanism too weak, credentials invalid, encryption required. Retried, like 4xx.
SETUP_CODES = frozenset({530, 534, 535, 538})


class DeliveryError(Exception):
    """A send that did not happen; `temporary` says whether to try again later."""

    def __init__(self, message: str, temporary: bool) -> None:
        super().__init__(message)
        self.temporary = temporary


class Transport(Protocol):
    def send(self, msg: EmailMessage | bytes, sender: str, recipient: str) -> None: ...


def parse_smtp_url(url: str) -> ServerUrl:
    return parse_server_url("SMTP_URL", url, ("smtp", 25), ("smtps", 465))


def classify(exc: BaseException) -> DeliveryError:
    """The DeliveryError for anything smtplib or the socket raised."""
    if isinstance(exc, smtplib.SMTPRecipientsRefused):
        codes = [code for code, _msg in exc.recipients.values()]
        permanent = bool(codes) and all(500 <= c < 600 for c in codes)
        detail = "; ".join(f"{rcpt}: {code} {_text(msg)}" for rcpt, (code, msg) in exc.recipients.items())
        return DeliveryError(f"recipient refused: {detail}", temporary=not permanent)
    if isinstance(exc, smtplib.SMTPAuthenticationError):
        return DeliveryError(f"SMTP login failed ({exc.smtp_code} {_text(exc.smtp_error)}): "
                             "check SMTP_URL", temporary=True)
    if isinstance(exc, smtplib.SMTPResponseException):
        code = exc.smtp_code
        text = f"SMTP {code} {_text(exc.smtp_error)}"
        if code in SETUP_CODES:
            return DeliveryError(text + ": the server wants a login or TLS: check SMTP_URL", temporary=True)
        return DeliveryError(text, temporary=not 500 <= code < 600)
    if isinstance(exc, smtplib.SMTPServerDisconnected):
        return DeliveryError(f"connection dropped: {exc}", temporary=True)
    if isinstance(exc, smtplib.SMTPNotSupportedError):
        return DeliveryError(f"SMTP server lacks a feature SMTP_URL asks for: {exc}", temporary=True)
    if isinstance(exc, ssl.SSLError):
        return DeliveryError(f"TLS failed: {exc}", temporary=True)
    if isinstance(exc, ConnectionRefusedError):
        return DeliveryError("connection refused", temporary=True)
    if isinstance(exc, socket.timeout | TimeoutError):
        return DeliveryError("timed out", temporary=True)
    if isinstance(exc, OSError | smtplib.SMTPException):
        return DeliveryError(f"{type(exc).__name__}: {exc}", temporary=True)
    raise exc


def _text(msg: bytes | str) -> str:
    return msg.decode("utf-8", "replace") if isinstance(msg, bytes) else str(msg)


class SmtpTransport:
    """One SMTP connection per message: a worker sends a few mails a round, not bulk."""

    def __init__(self, settings: ServerUrl) -> None:
        self.settings = settings

    @classmethod
    def from_url(cls, url: str) -> SmtpTransport:
        return cls(parse_smtp_url(url))

    def _context(self) -> ssl.SSLContext:
        return ssl.create_default_context(cafile=self.settings.cafile)

    def _connect(self) -> smtplib.SMTP:
        s = self.settings
        if s.tls:
            return smtplib.SMTP_SSL(s.host, s.port, local_hostname=s.options.get("helo"), timeout=s.timeout,
                                    context=self._context())
        return smtplib.SMTP(s.host, s.port, local_hostname=s.options.get("helo"), timeout=s.timeout)

    def send(self, msg: EmailMessage | bytes, sender: str, recipient: str) -> None:
        """Send a message; bytes go out exactly as given (a DKIM signature covers them)."""
        s = self.settings
        try:
            with self._connect() as smtp:
                smtp.ehlo()
                if s.starttls:
                    smtp.starttls(context=self._context())
                    smtp.ehlo()
                if s.username:
                    smtp.login(s.username, s.password or "")
                if isinstance(msg, bytes):
                    smtp.sendmail(sender, [recipient], msg)
                else:
                    smtp.send_message(msg, from_addr=sender, to_addrs=[recipient])
        except Exception as exc:  # classify() re-raises what it does not know
            raise classify(exc) from exc
