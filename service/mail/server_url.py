"""SMTP_URL and IMAP_URL: one reading of `scheme://user:pass@host:port/path?options`.

The secure scheme (smtps, imaps) means TLS from the first byte; `?starttls=1` upgrades
a plain connection; `?cafile=` trusts a private CA; `?timeout=` is in seconds (30).
User and password are percent-decoded, so any character can be written.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import parse_qs, unquote, urlsplit


class ConfigError(ValueError):
    """A mail server URL that cannot be understood."""


TRUE = ("1", "true", "yes", "required")


@dataclass(frozen=True)
class ServerUrl:
    host: str
    port: int
    tls: bool
    starttls: bool
    username: str | None
    password: str | None
    path: str
    timeout: float
    cafile: str | None
    options: dict[str, str]

    def flag(self, name: str) -> bool:
        return self.options.get(name, "").lower() in TRUE


def parse_server_url(name: str, url: str, plain: tuple[str, int], secure: tuple[str, int]) -> ServerUrl:
    """plain/secure: (scheme, default port), such as ("smtp", 25) and ("smtps", 465)."""
    parts = urlsplit(url)
    if parts.scheme not in (plain[0], secure[0]):
        raise ConfigError(f"{name} must start with {plain[0]}:// or {secure[0]}://, not {parts.scheme!r}")
    if not parts.hostname:
        raise ConfigError(f"{name} has no host")
    options = {k: v[-1] for k, v in parse_qs(parts.query).items()}
    tls = parts.scheme == secure[0]
    starttls = options.get("starttls", "").lower() in TRUE
    if tls and starttls:
        raise ConfigError(f"{name}: {secure[0]}:// is TLS already; drop ?starttls")
    try:
        port = parts.port or (secure[1] if tls else plain[1])
        timeout = float(options.get("timeout", "30"))
    except ValueError as exc:
        raise ConfigError(f"{name}: {exc}") from None
    return ServerUrl(
        host=parts.hostname, port=port, tls=tls, starttls=starttls,
        username=unquote(parts.username) if parts.username else None,
        password=unquote(parts.password) if parts.password else None,
        path=unquote(parts.path.lstrip("/")), timeout=timeout,
        cafile=options.get("cafile") or None, options=options,
    )
