"""The mail part's settings, read from the app's config (filled from the environment once,
at app start, by service.config).

    SMTP_URL        smtp://host:port[?starttls=1], smtps://user:pass@host; unset: mail is
                    kept in the database (stored_mail) and shown on the mailbox page
    IMAP_URL        imap://user:pass@host:143[/Folder] or imaps://...; unset: no polling
    INBOUND_SECRET  shared secret for POST /api/inbound/email; unset: the endpoint is off
    MAIL_FROM       the sender address (default dicepost@<MAIL_DOMAIN>)
    MAIL_REPLY_TO   the mailbox replies go to; each player gets <local>+<token>@<domain>
                    (default: MAIL_FROM). It must deliver plus-addresses to dicepost.
    MAIL_DOMAIN     the domain of Message-IDs, DKIM signatures and bounce addresses
                    (default dicepost.localhost)
    DKIM_SELECTOR, DKIM_KEY_FILE  sign every mail (service.mail.dkim_sign); the key is
                    loaded by the app factory into DKIM_KEY
    MAIL_DOMAIN_RATE  mails a minute to one recipient domain (default 0: no limit); the rest
                    wait in the outbox, the GM page shows how many
    SOFT_BOUNCES, SOFT_BOUNCE_DAYS  this many soft bounces (4.x.x) within this many days mark
                    an address failing (default 3 in 7); one hard bounce does at once
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from service.mail.dkim_sign import DkimKey
from service.mail.headers import split_address
from service.mail.server_url import ConfigError

DEFAULT_DOMAIN = "dicepost.localhost"
BOUNCE_LOCAL = "bounce"  # the local part of every return path (bounce+TOKEN@domain)


@dataclass(frozen=True)
class MailSettings:
    smtp_url: str
    imap_url: str
    inbound_secret: str
    sender: str
    reply_base: str
    domain: str
    secret_key: str
    dkim: DkimKey | None = None
    soft_bounces: int = 3
    soft_bounce_days: int = 7
    domain_rate: int = 0  # mails a minute to one recipient domain; 0: no limit


def _get(config: Mapping[str, Any], key: str) -> str:
    return str(config.get(key) or "").strip()


def message_domain(config: Mapping[str, Any]) -> str:
    """The right-hand side of every Message-ID dicepost writes."""
    return _get(config, "MAIL_DOMAIN") or DEFAULT_DOMAIN


def _count(config: Mapping[str, Any], key: str, default: int, low: int = 1) -> int:
    raw = _get(config, key)
    if not raw:
        return default
    if not raw.isdigit() or not low <= int(raw) <= 100000:
        raise ConfigError(f"DICEPOST_{key}={raw!r}: a whole number from {low} to 100000")
    return int(raw)


def mail_settings(config: Mapping[str, Any]) -> MailSettings:
    def get(key: str) -> str:
        return _get(config, key)

    domain = message_domain(config)
    sender = get("MAIL_FROM") or f"dicepost@{domain}"
    split_address(sender)  # refuse a bad configuration before any mail is composed
    reply = get("MAIL_REPLY_TO") or sender
    split_address(reply)
    return MailSettings(
        smtp_url=get("SMTP_URL"),
        imap_url=get("IMAP_URL"),
        inbound_secret=get("INBOUND_SECRET"),
        sender=sender,
        reply_base=reply,
        domain=domain,
        secret_key=str(config.get("SECRET_KEY") or ""),
        dkim=dkim if isinstance(dkim := config.get("DKIM_KEY"), DkimKey) else None,
        soft_bounces=_count(config, "SOFT_BOUNCES", 3),
        soft_bounce_days=_count(config, "SOFT_BOUNCE_DAYS", 7),
        domain_rate=_count(config, "MAIL_DOMAIN_RATE", 0, low=0),
    )
