"""The production web server: granian's WSGI interface, with the deployment's checks first.

`dicepost web` (the image's and compose's command) starts it; it was chosen over gunicorn
by measurement (docs/performance.md, "Choices made by measurement"). Before
any socket is bound:

- The embedded default (no DATABASE_URL and REDIS_URL) keeps every mail in the web app's
  mailbox, where anyone who reaches the server reads other players' orders and sign-in
  links. `dicepost web` refuses to serve it on an address other machines reach, unless
  DICEPOST_PUBLIC_EMBEDDED=1 asks for exactly that; loopback and unix sockets are fine.
- A seal key that does not open the chain tips in the database is refused.

Either refusal is one line on stderr and exit status 1. granian's own access log is off:
service.logs.AccessLog writes ours (tokens masked, the request id), and granian's other
lines go through the service's log handler (its format, masked).
"""

from __future__ import annotations

import ipaddress
import re
import socket
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

PUBLIC_EMBEDDED = "DICEPOST_PUBLIC_EMBEDDED"
PRODUCTION_TARGET = "service.webserver:production_app"
_OS_ERROR = re.compile(r"(.+?) \(os error \d+\)")


def is_local(bind: str) -> bool:
    """Whether a bind (`host:port`, `[v6]:port`, `unix:path`, `fd://n`) stays on this machine."""
    if bind.startswith("unix:"):
        return True
    if bind.startswith("["):
        host = bind[1:].split("]", 1)[0]
    elif bind.count(":") == 1:
        host = bind.split(":", 1)[0]
    else:
        host = bind  # a bare host, or a bare IPv6 address
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # a name (it may resolve to any address), an empty host, an inherited fd


def parse_bind(bind: str) -> tuple[str, int] | Path:
    """`host:port` or `[v6]:port` as (host, port); `unix:PATH` as the socket's path.
    ValueError names what is wrong."""
    if bind.startswith("unix:"):
        if not bind[5:]:
            raise ValueError("unix: needs a path")
        return Path(bind[5:])
    host, sep, port = bind.rpartition(":")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    if not sep or not host or not port.isdigit() or not 1 <= int(port) <= 65535:
        raise ValueError(f"{bind!r} is not HOST:PORT (a port from 1 to 65535) nor unix:PATH")
    return host, int(port)


def bind_text(where: tuple[str, int] | Path) -> str:
    if isinstance(where, Path):
        return f"unix:{where}"
    host, port = where
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def refusal(binds: Iterable[str], env: Mapping[str, str]) -> str | None:
    """Why the web server must not start with these binds and this environment, or None."""
    if env.get("DATABASE_URL") and env.get("REDIS_URL"):
        return None
    if env.get(PUBLIC_EMBEDDED) == "1":
        return None
    public = [bind for bind in binds if not is_local(bind)]
    if not public:
        return None
    return (f"dicepost: refusing to serve the embedded default on {', '.join(public)}: without "
            "DATABASE_URL and REDIS_URL its mailbox shows every player's mail to whoever connects. "
            "Set both (docker compose does), bind 127.0.0.1, or set "
            f"{PUBLIC_EMBEDDED}=1 to serve it there anyway.")


def seal_refusal() -> str | None:
    """Why the seal key cannot serve the database (service.dice_keys.seal_problem), or None;
    a database that cannot be reached yet is the health check's to report, not this one's."""
    from sqlalchemy.exc import SQLAlchemyError

    from service import create_app
    from service.db import engine_of
    from service.dice_keys import seal_problem

    try:
        app = create_app()
    except ValueError as exc:  # a setting in the environment, the seal key's included
        return f"dicepost: a setting in the environment is not valid: {exc}"
    engine = engine_of(app)
    try:
        with engine.connect() as conn:
            problem = seal_problem(conn, bytes.fromhex(app.config["SEAL_KEY"]), app.config["SEAL_KEY_SOURCE"])
    except SQLAlchemyError:
        return None
    finally:
        engine.dispose()
    return f"dicepost: {problem}" if problem else None


def production_app() -> Callable[..., Any]:
    """The WSGI callable each `dicepost web` worker serves: the app inside our access log."""
    from service import create_app
    from service.logs import AccessLog

    return AccessLog(create_app())


# granian's loggers through the root logger (service.logs.configure's handler), not their own.
_LOGGING = {"version": 1, "disable_existing_loggers": False,
            "loggers": {"_granian": {"handlers": [], "propagate": True},
                        "granian.access": {"handlers": [], "propagate": True}}}


def server(target: str, where: tuple[str, int] | Path, workers: int, threads: int) -> Any:
    """granian serving `target` (the import path of an app factory) on (host, port) or a unix
    socket: `workers` processes of `threads` threads each running the app; a worker that
    dies is started again."""
    from granian import Granian
    from granian.constants import Interfaces
    from granian.log import LogLevels

    host, port, uds = ("127.0.0.1", 0, where) if isinstance(where, Path) else (*where, None)
    return Granian(target, address=host, port=port, uds=uds, interface=Interfaces.WSGI, workers=workers,
                   blocking_threads=threads, websockets=False, factory=True,
                   log_level=LogLevels.warning, log_dictconfig=_LOGGING, log_access=False,
                   respawn_failed_workers=True)


def port_problem(where: tuple[str, int] | Path) -> str | None:
    """Why host:port cannot be listened on (taken, not this machine's address), or None.

    granian binds with SO_REUSEPORT, so a second server on a port another one holds would
    share it instead of failing: a plain bind first says the port is taken."""
    if isinstance(where, Path):
        return None
    host, port = where
    try:
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind((host, port))
    except OSError as exc:
        return exc.strerror or str(exc)
    return None


def listen_error(exc: BaseException) -> str | None:
    """Why granian could not bind, when `exc` says that ("Address already in use"), else None:
    it raises a RuntimeError whose first line is the OS error."""
    text = str(exc).strip()
    match = _OS_ERROR.fullmatch(text.splitlines()[0]) if text else None
    return match.group(1) if match else None
