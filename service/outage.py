"""The database unreachable (restarting, failing over): 503 with Retry-After, not a bare 500.

SQLAlchemy raises OperationalError when a connection is refused or dies mid-request
(pool_pre_ping replaces dead pooled connections on the next checkout, so the service
recovers by itself once the server is back). Nothing was committed by a request that
got this answer; the client may simply send it again. docs/reliability.md shows the
figures of the PostgreSQL crash test.
"""

from __future__ import annotations

import logging

from flask import Flask, Response, jsonify, request
from sqlalchemy.exc import OperationalError

log = logging.getLogger(__name__)
RETRY_AFTER_SECONDS = 5
MESSAGE = "the database is unavailable for a moment; nothing was changed: try again shortly"


def unavailable(exc: OperationalError) -> Response:
    log.error("database unavailable: %s", str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
    response = (jsonify({"error": MESSAGE}) if request.path.startswith("/api/")
                else Response(MESSAGE + "\n", mimetype="text/plain"))
    response.status_code = 503
    response.headers["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


def init_app(app: Flask) -> None:
    app.register_error_handler(OperationalError, unavailable)
