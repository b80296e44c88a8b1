"""gunicorn settings of the image and compose: `gunicorn --config python:service.gunicorn_conf`.

The embedded default (no DATABASE_URL and REDIS_URL) keeps every mail in the web app's
mailbox, where anyone who reaches the server reads other players' orders and sign-in
links. So gunicorn refuses to start it on an address other machines reach, unless
DICEPOST_PUBLIC_EMBEDDED=1 asks for exactly that; loopback and unix sockets are fine.
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Iterable, Mapping
from typing import Any

PUBLIC_EMBEDDED = "DICEPOST_PUBLIC_EMBEDDED"


def is_local(bind: str) -> bool:
    """Whether a gunicorn bind (`host:port`, `[v6]:port`, `unix:path`, `fd://n`) stays on this machine."""
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


def refusal(binds: Iterable[str], env: Mapping[str, str]) -> str | None:
    """Why gunicorn must not start with these binds and this environment, or None."""
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


def on_starting(server: Any) -> None:
    """gunicorn's hook before it binds any socket: a refusal ends it with status 1."""
    problem = refusal(server.cfg.bind, os.environ) or seal_refusal()
    if problem:
        raise SystemExit(problem)
