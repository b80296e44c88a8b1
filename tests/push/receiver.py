"""A push service in the test process: a real HTTP server on loopback that keeps what it was
sent, answers as told, and a browser's side of a subscription (a P-256 key pair and an auth
secret) that decrypts what arrives (RFC 8291 written out here with `cryptography`, not
through the library the host encrypts with) and checks the VAPID token (RFC 8292)."""

from __future__ import annotations

import base64
import json
import os
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat


def b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _hkdf(salt: bytes, ikm: bytes, info: bytes, length: int) -> bytes:
    return HKDF(hashes.SHA256(), length, salt, info).derive(ikm)


@dataclass
class Browser:
    """One browser's push subscription keys."""

    endpoint: str
    key: ec.EllipticCurvePrivateKey = field(default_factory=lambda: ec.generate_private_key(ec.SECP256R1()))
    auth: bytes = field(default_factory=lambda: os.urandom(16))

    @property
    def public(self) -> bytes:
        return self.key.public_key().public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)

    def subscription(self) -> dict[str, Any]:
        """What PushSubscription.toJSON() gives a page."""
        return {"endpoint": self.endpoint, "expirationTime": None,
                "keys": {"p256dh": b64(self.public), "auth": b64(self.auth)}}

    def decrypt(self, body: bytes) -> bytes:
        """RFC 8188 aes128gcm with RFC 8291's key derivation, one record."""
        salt, rs, idlen = body[:16], int.from_bytes(body[16:20], "big"), body[20]
        server_public = body[21:21 + idlen]
        ciphertext = body[21 + idlen:]
        assert len(ciphertext) <= rs, "one record expected"
        peer = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), server_public)
        shared = self.key.exchange(ec.ECDH(), peer)
        ikm = _hkdf(self.auth, shared, b"WebPush: info\x00" + self.public + server_public, 32)
        cek = _hkdf(salt, ikm, b"Content-Encoding: aes128gcm\x00", 16)
        nonce = _hkdf(salt, ikm, b"Content-Encoding: nonce\x00", 12)
        plain = AESGCM(cek).decrypt(nonce, ciphertext, None).rstrip(b"\x00")
        assert plain.endswith(b"\x02"), "the last record ends with the delimiter 0x02"
        return plain[:-1]


def check_vapid(authorization: str, audience: str, server_key: str, now: float) -> dict[str, Any]:
    """The claims of `vapid t=<JWT>,k=<key>`, after checking its ES256 signature with k (which
    must be the host's key), its audience and its lifetime at `now` (the host's clock: the
    tests move it)."""
    scheme, _, rest = authorization.partition(" ")
    assert scheme == "vapid", authorization
    parts = dict(p.split("=", 1) for p in rest.split(","))
    assert parts["k"] == server_key, "signed with the host's VAPID key"
    head, claims, signature = parts["t"].split(".")
    assert json.loads(unb64(head)) == {"typ": "JWT", "alg": "ES256"}
    raw = unb64(signature)
    public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64(parts["k"]))
    public.verify(encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big")),
                  f"{head}.{claims}".encode(), ec.ECDSA(hashes.SHA256()))
    body = json.loads(unb64(claims))
    assert body["aud"] == audience
    assert now < body["exp"] <= now + 24 * 3600
    assert body["sub"].startswith(("mailto:", "https://"))
    return body  # type: ignore[no-any-return]


@dataclass
class Received:
    path: str
    headers: dict[str, str]  # names in lower case
    body: bytes


class PushService:
    """The receiver: POST /push/<name> is kept; `answers` (a list of (status, headers)) are
    used up in order, then 201."""

    def __init__(self) -> None:
        self.received: list[Received] = []
        self.answers: list[tuple[int, dict[str, str]]] = []
        self.lock = threading.Lock()
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                with service.lock:
                    service.received.append(Received(self.path, {k.lower(): v for k, v in self.headers.items()}, body))
                    status, headers = service.answers.pop(0) if service.answers else (201, {})
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def browser(self, name: str) -> Browser:
        return Browser(f"{self.origin}/push/{name}")

    def for_browser(self, browser: Browser) -> list[Received]:
        path = browser.endpoint.removeprefix(self.origin)
        return [r for r in self.received if r.path == path]

    def messages(self, browser: Browser, server_key: str, now: float | None = None) -> list[dict[str, Any]]:
        """Every push the browser got, decrypted, each one's VAPID token checked."""
        out = []
        for r in self.for_browser(browser):
            assert r.headers["content-encoding"] == "aes128gcm"
            assert int(r.headers["ttl"]) > 0
            check_vapid(r.headers["authorization"], self.origin, server_key, time.time() if now is None else now)
            out.append(json.loads(browser.decrypt(r.body)))
        return out

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
