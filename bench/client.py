"""A small JSON-over-HTTP client: one keep-alive connection per thread (http.client)."""

from __future__ import annotations

import http.client
import json
import threading
from typing import Any

RETRYABLE = (http.client.RemoteDisconnected, http.client.CannotSendRequest, ConnectionResetError,
             BrokenPipeError)


class Api:
    def __init__(self, port: int, timeout: float = 30.0) -> None:
        self.port = port
        self.timeout = timeout
        self.local = threading.local()
        self.lock = threading.Lock()
        self.requests = 0
        self.reconnects = 0  # a kept-alive connection the server had closed; the request is sent again

    def _conn(self) -> http.client.HTTPConnection:
        conn = getattr(self.local, "conn", None)
        if conn is None:
            conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=self.timeout)
            self.local.conn = conn
        return conn

    def _drop(self) -> None:
        conn = getattr(self.local, "conn", None)
        if conn is not None:
            conn.close()
        self.local.conn = None

    def call(self, method: str, path: str, body: Any = None, token: str | None = None) -> tuple[int, Any]:
        headers = {"Accept": "application/json"}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        if token:
            headers["Authorization"] = f"Bearer {token}"
        for attempt in (0, 1):
            fresh = getattr(self.local, "conn", None) is None
            conn = self._conn()
            try:
                conn.request(method, path, data, headers)
                resp = conn.getresponse()
                raw = resp.read()
            except RETRYABLE:
                self._drop()
                if attempt or fresh:
                    raise
                with self.lock:
                    self.reconnects += 1
                continue
            if resp.will_close:
                self._drop()
            with self.lock:
                self.requests += 1
            return resp.status, json.loads(raw) if raw else None
        raise AssertionError("unreachable")
