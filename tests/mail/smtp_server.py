"""A real SMTP server for the mail tests (aiosmtpd), with scripted replies to DATA.

`script` holds what the server answers to each DATA in turn: a reply line such as
"451 4.3.0 try later" or "550 5.1.1 no such user", or DROP to close the connection
after the data arrived, without a reply. Once the script is used up, every message is
accepted and recorded in `received`.
"""

from __future__ import annotations

import socket
import ssl
from dataclasses import dataclass, field
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from typing import Any

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

DROP = "DROP"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Received:
    sender: str
    recipients: list[str]
    raw: bytes

    @property
    def message(self) -> EmailMessage:
        msg = BytesParser(policy=policy.default).parsebytes(self.raw)
        assert isinstance(msg, EmailMessage)
        return msg


@dataclass
class RecordingHandler:
    script: list[str] = field(default_factory=list)
    received: list[Received] = field(default_factory=list)
    attempts: int = 0

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.attempts += 1
        if self.script:
            reply = self.script.pop(0)
            if reply == DROP:
                server.transport.close()
                return "250 OK"  # never reaches the client: the connection is gone
            return reply
        self.received.append(Received(envelope.mail_from, list(envelope.rcpt_tos), envelope.content))
        return "250 2.0.0 OK"


class SmtpServer:
    """Start with `with SmtpServer(...) as server:`; `server.url` is for SMTP_URL."""

    def __init__(self, *, tls: ssl.SSLContext | None = None, implicit_tls: bool = False,
                 login: tuple[str, str] | None = None) -> None:
        self.handler = RecordingHandler()
        self.port = free_port()
        self.login = login
        kwargs: dict[str, Any] = {}
        if tls is not None and implicit_tls:
            kwargs["ssl_context"] = tls
        elif tls is not None:
            kwargs["tls_context"] = tls
            kwargs["require_starttls"] = True
        if login:
            kwargs["authenticator"] = self._authenticate
            kwargs["auth_required"] = True
        self.controller = Controller(self.handler, hostname="127.0.0.1", port=self.port,
                                     server_hostname="localhost", **kwargs)

    def _authenticate(self, server: Any, session: Any, envelope: Any, mechanism: str,
                      data: Any) -> AuthResult:
        ok = (isinstance(data, LoginPassword) and self.login is not None
              and (data.login.decode(), data.password.decode()) == self.login)
        return AuthResult(success=ok, handled=False)

    def __enter__(self) -> SmtpServer:
        self.controller.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.controller.stop()

    @property
    def received(self) -> list[Received]:
        return self.handler.received
