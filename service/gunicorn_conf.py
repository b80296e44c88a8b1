"""gunicorn settings, for running gunicorn instead of `dicepost web` (the image's granian):
`gunicorn --config python:service.gunicorn_conf --logger-class service.logs.GunicornLogger`.

The same refusals as `dicepost web` (service.webserver), before gunicorn binds any socket.
"""

from __future__ import annotations

import os
from typing import Any

from service.webserver import PUBLIC_EMBEDDED, is_local, refusal, seal_refusal

__all__ = ["PUBLIC_EMBEDDED", "is_local", "on_starting", "refusal", "seal_refusal"]


def on_starting(server: Any) -> None:
    """gunicorn's hook before it binds any socket: a refusal ends it with status 1."""
    problem = refusal(server.cfg.bind, os.environ) or seal_refusal()
    if problem:
        raise SystemExit(problem)
