"""Where a webhook may point, and the one POST that reaches it.

A webhook's URL is the GM's to choose, so it must not turn the server into a way in to
its own network: in full mode only https to public addresses is allowed; the embedded
default (and a deployment that sets DICEPOST_WEBHOOKS_LOOPBACK) also allows loopback, so
a hook can be tried at home. The check runs when the hook is added and again on every
post against the address actually connected to (a name that resolved to a public
address when it was added may resolve to 127.0.0.1 later), and redirects are never
followed.
"""

from __future__ import annotations

import http.client
import ipaddress
import socket
import ssl
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from flask import current_app, has_app_context

TIMEOUT_SECONDS = 10.0
MAX_ANSWER_BYTES = 64 * 1024  # of an answer's body kept (Discord's 429 tells its wait in it)
USER_AGENT = "dicepost-webhooks/1"


class Refused(ValueError):
    """The URL may not be posted to (its words name the reason)."""


@dataclass(frozen=True)
class Answer:
    status: int
    headers: dict[str, str]  # names in lower case
    body: bytes


def loopback_allowed() -> bool:
    if not has_app_context():
        return False
    config = current_app.config
    return bool(config.get("WEBHOOKS_LOOPBACK", config.get("EMBEDDED")))


def _address_ok(address: str, loopback: bool) -> bool:
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_global or (loopback and ip.is_loopback)


def checked_url(url: str, *, loopback: bool | None = None) -> str:
    """The URL when it may be posted to; Refused naming what is wrong otherwise."""
    loopback = loopback_allowed() if loopback is None else loopback
    if not isinstance(url, str) or not url.strip():
        raise Refused("url: the webhook's address is missing")
    url = url.strip()
    if len(url) > 2000 or any(c.isspace() or ord(c) < 32 for c in url):
        raise Refused("url: not a URL (spaces, control characters, or longer than 2000 characters)")
    parts = urlsplit(url)
    if parts.scheme not in ("https", "http") or not parts.hostname:
        raise Refused("url: an https:// address is needed")
    if parts.username or parts.password:
        raise Refused("url: a user name or password in the address is not allowed")
    try:
        port = parts.port
    except ValueError:
        raise Refused("url: the port is not a number from 1 to 65535") from None
    addresses = resolve(parts.hostname, port or (443 if parts.scheme == "https" else 80))
    if parts.scheme == "http" and not (loopback and all(_loopback(a) for a in addresses)):
        raise Refused("url: an https:// address is needed (plain http only to this machine, "
                      "where loopback is allowed)")
    for address in addresses:
        if not _address_ok(address, loopback):
            where = parts.hostname if parts.hostname == address else f"{parts.hostname} ({address})"
            raise Refused(f"url: {where} is not a public address"
                          + ("" if loopback else " (only public https addresses are allowed here)"))
    return url


def _loopback(address: str) -> bool:
    return ipaddress.ip_address(address.split("%", 1)[0]).is_loopback


def resolve(host: str, port: int) -> list[str]:
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError):
        raise Refused(f"url: the name {host} does not resolve") from None
    addresses = sorted({str(info[4][0]) for info in infos})
    if not addresses:
        raise Refused(f"url: the name {host} does not resolve")
    return addresses


def _guarded_connection(host: str, port: int, timeout: float, loopback: bool) -> socket.socket:
    """A socket to the first allowed address of `host`, checked again as connected."""
    for address in resolve(host, port):
        if not _address_ok(address, loopback):
            raise Refused(f"url: {host} is at {address}, not a public address")
    sock = socket.create_connection((host, port), timeout=timeout)
    peer = str(sock.getpeername()[0])
    if not _address_ok(peer, loopback):
        sock.close()
        raise Refused(f"url: {host} connected to {peer}, not a public address")
    return sock


def post(url: str, body: bytes, headers: dict[str, str], *, loopback: bool | None = None,
         timeout: float = TIMEOUT_SECONDS) -> Answer:
    """POST `body` to the URL (checked first); the answer, whatever its status. Raises
    Refused for a URL not allowed, OSError (ssl and socket errors included) when no
    answer came."""
    loopback = loopback_allowed() if loopback is None else loopback
    checked_url(url, loopback=loopback)
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = parts.port or (443 if parts.scheme == "https" else 80)
    conn: http.client.HTTPConnection
    if parts.scheme == "https":
        conn = http.client.HTTPSConnection(host, port, timeout=timeout, context=ssl.create_default_context())
    else:
        conn = http.client.HTTPConnection(host, port, timeout=timeout)
    # http.client opens its socket through this attribute: the guard sees every address used.
    def guarded(address: tuple[str, int], *_rest: Any) -> socket.socket:
        return _guarded_connection(address[0], address[1], timeout, loopback)

    conn._create_connection = guarded  # type: ignore[attr-defined]
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    try:
        conn.request("POST", path, body=body, headers={"User-Agent": USER_AGENT, **headers,
                                                        "Content-Length": str(len(body))})
        response = conn.getresponse()
        data = response.read(MAX_ANSWER_BYTES)
        return Answer(response.status, {k.lower(): v for k, v in response.getheaders()}, data)
    except http.client.HTTPException as exc:
        raise OSError(f"a broken answer: {exc.__class__.__name__}") from exc
    finally:
        conn.close()
