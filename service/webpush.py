"""Web push on the wire: the VAPID key, the payload's encryption and the one POST.

A push message is encrypted for one browser's subscription (RFC 8291, `aes128gcm`: a fresh
P-256 key and salt per message, the subscription's `p256dh` key and `auth` secret) with
http_ece, and its POST carries a VAPID token (RFC 8292: an ES256 JWT naming the push
service's origin, signed by the host's key, py-vapid) so the push service knows who sends.
The server key pair is `VAPID_PRIVATE_KEY` (service.config: DICEPOST_VAPID_PRIVATE_KEY, or
made once in the embedded default's instance folder); its public half is what the pages
hand the browser as `applicationServerKey`.

Nothing here touches the database: service.push decides what to send and marks the rows.
"""

from __future__ import annotations

import base64
import ipaddress
import os
import socket
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import http_ece
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from py_vapid import Vapid02

TOKEN_LIFETIME = 12 * 3600  # seconds; RFC 8292 allows at most 24 hours
TIMEOUT = 10.0  # seconds for one push service's answer
TTL = 4 * 24 * 3600  # a push service keeps an undelivered message this long (a phone off for a weekend)
MAX_PAYLOAD = 3000  # bytes of JSON; push services take 4096 after encryption


def b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def new_private_key() -> str:
    """A fresh VAPID private key: the raw 32-byte P-256 scalar, base64url (the form
    DICEPOST_VAPID_PRIVATE_KEY takes, as `npx web-push generate-vapid-keys` prints it)."""
    key = ec.generate_private_key(ec.SECP256R1())
    return b64url(key.private_numbers().private_value.to_bytes(32, "big"))


def check_private_key(text: str, source: str) -> str:
    """The key, or ValueError naming `source` and the expected form."""
    try:
        raw = unb64url(text.strip())
        if len(raw) == 32:
            ec.derive_private_key(int.from_bytes(raw, "big"), ec.SECP256R1())
            return text.strip()
    except (ValueError, TypeError):
        pass
    raise ValueError(f"{source}: a VAPID private key is 32 bytes in base64url (43 characters), "
                     "the raw P-256 key `npx web-push generate-vapid-keys` prints as its private key")


def _vapid(private_key: str) -> Vapid02:
    return Vapid02.from_raw(private_key.encode())


def public_key(private_key: str) -> str:
    """The applicationServerKey a page subscribes with: the uncompressed point, base64url."""
    point = _vapid(private_key).public_key.public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
    return b64url(point)


@dataclass(frozen=True)
class Subscription:
    """What the browser's PushSubscription gave: where to POST and the keys to encrypt for."""

    endpoint: str
    p256dh: str  # the browser's P-256 public key, base64url
    auth: str  # its 16-byte auth secret, base64url


def check_keys(p256dh: str, auth: str) -> str | None:
    """What is wrong with a subscription's keys, or None."""
    try:
        point = unb64url(p256dh)
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
    except (ValueError, TypeError):
        return "keys.p256dh: expected the browser's P-256 public key in base64url"
    try:
        if len(unb64url(auth)) != 16:
            raise ValueError
    except (ValueError, TypeError):
        return "keys.auth: expected the browser's 16-byte auth secret in base64url"
    return None


def encrypt(payload: bytes, subscription: Subscription) -> bytes:
    """The body of one push message: `aes128gcm` for this subscription, a fresh key and salt."""
    return bytes(http_ece.encrypt(
        payload, salt=os.urandom(16), private_key=ec.generate_private_key(ec.SECP256R1()),
        dh=unb64url(subscription.p256dh), auth_secret=unb64url(subscription.auth), version="aes128gcm"))


def vapid_header(private_key: str, endpoint: str, subject: str, now: int) -> str:
    """`Authorization: vapid t=<JWT>,k=<public key>` for the endpoint's push service."""
    parts = urlsplit(endpoint)
    claims = {"aud": f"{parts.scheme}://{parts.netloc}", "exp": now + TOKEN_LIFETIME, "sub": subject}
    return str(_vapid(private_key).sign(claims)["Authorization"])


class EndpointRefused(ValueError):
    """An endpoint the host will not POST to (not https, or not a public address)."""


def check_endpoint(endpoint: str, allow_loopback: bool, resolve: bool = True) -> None:
    """Only https to public addresses; `allow_loopback` (the embedded default, a host tried at
    home) also lets http to this machine through. `resolve`: look the name up too (a name
    that points inside is refused as its address would be)."""
    parts = urlsplit(endpoint)
    host = parts.hostname or ""
    if not host or parts.scheme not in ("https", "http") or len(endpoint) > 2000:
        raise EndpointRefused("endpoint: expected the https URL the browser's push service gave")
    try:
        addresses = {host} if _is_ip(host) else (
            {str(info[4][0]) for info in socket.getaddrinfo(host, parts.port or 443, type=socket.SOCK_STREAM)}
            if resolve else set())
    except OSError as exc:
        raise EndpointRefused(f"endpoint: {host} does not resolve ({exc})") from exc
    ips = [ipaddress.ip_address(a.split("%")[0]) for a in addresses]
    if allow_loopback and (host == "localhost" or ips) and all(ip.is_loopback for ip in ips):
        return
    if parts.scheme != "https":
        raise EndpointRefused("endpoint: push services are reached over https")
    if any(not ip.is_global for ip in ips):
        raise EndpointRefused(f"endpoint: {host} is not a public address")


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host.split("%")[0])
    except ValueError:
        return False
    return True


@dataclass(frozen=True)
class Answer:
    """What the push service said: its status, and a Retry-After in seconds if it gave one."""

    status: int
    retry_after: int | None = None
    text: str = ""

    @property
    def gone(self) -> bool:
        """The subscription is dead (404, 410): drop it."""
        return self.status in (404, 410)

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None  # a push service does not redirect; following one could lead anywhere


_OPENER = urllib.request.build_opener(_NoRedirect)


def post(subscription: Subscription, body: bytes, headers: Mapping[str, str]) -> Answer:
    """One POST to the push service; a network failure is status 0 (tried again later)."""
    request = urllib.request.Request(subscription.endpoint, data=body, method="POST", headers={  # noqa: S310
        "Content-Encoding": "aes128gcm", "Content-Type": "application/octet-stream", "TTL": str(TTL),
        **headers})
    try:
        with _OPENER.open(request, timeout=TIMEOUT) as response:
            return Answer(response.status, text=response.read(500).decode("utf-8", "replace"))
    except urllib.error.HTTPError as exc:
        return Answer(exc.code, _retry_after(exc.headers.get("Retry-After")),
                      exc.read(500).decode("utf-8", "replace") if exc.fp else "")
    except (OSError, ValueError) as exc:
        return Answer(0, text=f"{type(exc).__name__}: {exc}")


def _retry_after(value: str | None) -> int | None:
    text = (value or "").strip()
    return min(int(text), 24 * 3600) if text.isdigit() else None
