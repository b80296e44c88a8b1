"""A real HTTP receiver in the test process: it keeps every request and answers each path
as the test scripts it (204 when it says nothing)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Request:
    path: str
    headers: dict[str, str]  # names in lower case
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


class Receiver:
    def __init__(self) -> None:
        self.requests: list[Request] = []
        self.script: dict[str, list[tuple[int, dict[str, str], bytes]]] = {}
        self.lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                with receiver.lock:
                    receiver.requests.append(Request(self.path, {k.lower(): v for k, v in self.headers.items()},
                                                     body))
                    queued = receiver.script.get(self.path) or []
                    status, headers, answer = queued.pop(0) if queued else (204, {}, b"")
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, *_args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def answer(self, path: str, status: int, headers: dict[str, str] | None = None, body: bytes = b"") -> None:
        """The next request to `path` gets this answer."""
        with self.lock:
            self.script.setdefault(path, []).append((status, headers or {}, body))

    def at(self, path: str) -> list[Request]:
        with self.lock:
            return [r for r in self.requests if r.path == path]


@contextmanager
def receiving() -> Iterator[Receiver]:
    receiver = Receiver()
    thread = threading.Thread(target=receiver.server.serve_forever, daemon=True)
    thread.start()
    try:
        yield receiver
    finally:
        receiver.server.shutdown()
        receiver.server.server_close()
