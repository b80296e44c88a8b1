"""Sending one composed message over SMTP (`SMTP_URL`).

(Without SMTP_URL, service.mail.outbox keeps the message in stored_mail instead, in
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
  authentication and TLS set-up errors, which are the operator's to fix, not a reason
  to give up on a player's mail;
- permanent: 5xx replies to the sender, recipient or data.
A connection that drops after DATA may or may not have delivered the mail: it is
retried, and the resend carries the same Message-ID so clients show it once.
"""

from __future__ import annotations

import smtplib
import socket
import ssl
from dataclasses import dataclass
from email.message import EmailMessage
from typing import Protocol
from urllib.parse import parse_qs, unquote, urlsplit


class DeliveryError(Exception):
    """A send that did not happen; `temporary` says whether to try again later."""

    def __init__(self, message: str, temporary: bool) -> None:
        super().__init__(message)
        self.temporary = temporary


class ConfigError(ValueError):
    """SMTP_URL that cannot be understood."""


class Transport(Protocol):
    def send(self, msg: EmailMessage, sender: str, recipient: str) -> None: ...


@dataclass(frozen=True)
class SmtpSettings:
    host: str
    port: int
    tls: bool  # smtps: TLS from connect
    starttls: bool
    username: str | None
    password: str | None
    timeout: float
    cafile: str | None
    helo: str | None


def parse_smtp_url(url: str) -> SmtpSettings:
    parts = urlsplit(url)
    if parts.scheme not in ("smtp", "smtps"):
        raise ConfigError(f"SMTP_URL must start with smtp:// or smtps://, not {parts.scheme!r}")
    if not parts.hostname:
        raise ConfigError("SMTP_URL has no host")
    query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
    tls = parts.scheme == "smtps"
    starttls = query.get("starttls", "").lower() in ("1", "true", "yes", "required")
    if tls and starttls:
        raise ConfigError("SMTP_URL: smtps:// is TLS already; drop ?starttls")
    try:
        port = parts.port or (465 if tls else 25)
        timeout = float(query.get("timeout", "30"))
    except ValueError as exc:
        raise ConfigError(f"SMTP_URL: {exc}") from None
    return SmtpSettings(
        host=parts.hostname,
        port=port,
        tls=tls,
        starttls=starttls,
        username=unquote(parts.username) if parts.username else None,
        password=unquote(parts.password) if parts.password else None,
        timeout=timeout,
        cafile=query.get("cafile") or None,
        helo=query.get("helo") or None,
    )


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

    def __init__(self, settings: SmtpSettings) -> None:
        self.settings = settings

    @classmethod
    def from_url(cls, url: str) -> SmtpTransport:
        return cls(parse_smtp_url(url))

    def _context(self) -> ssl.SSLContext:
        return ssl.create_default_context(cafile=self.settings.cafile)

    def _connect(self) -> smtplib.SMTP:
        s = self.settings
        if s.tls:
            return smtplib.SMTP_SSL(s.host, s.port, local_hostname=s.helo, timeout=s.timeout,
                                    context=self._context())
        return smtplib.SMTP(s.host, s.port, local_hostname=s.helo, timeout=s.timeout)

    def send(self, msg: EmailMessage, sender: str, recipient: str) -> None:
        s = self.settings
        try:
            with self._connect() as smtp:
                smtp.ehlo()
                if s.starttls:
                    smtp.starttls(context=self._context())
                    smtp.ehlo()
                if s.username:
                    smtp.login(s.username, s.password or "")
                smtp.send_message(msg, from_addr=sender, to_addrs=[recipient])
        except Exception as exc:  # noqa: BLE001 - classify() re-raises what it does not know
            raise classify(exc) from exc
