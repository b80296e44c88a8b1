"""Health checks for containers: `GET /healthz` in the web app, and `python -m service.health`.

`GET /healthz` answers 200 when this process reaches its database (one it cannot reach
gives service.outage's 503). `python -m service.health web URL` exits 0 when URL answers
200: the image's HEALTHCHECK. `python -m service.health worker` exits 0 when a Celery
worker on this host answers a ping through the broker: compose's worker check (a worker
that lost its broker for good cannot answer, so it shows as unhealthy).
"""

from __future__ import annotations

import argparse
import socket
import sys
import urllib.error
import urllib.request
from collections.abc import Sequence

from flask import Blueprint, Response, current_app, jsonify
from sqlalchemy import text

from service.db import get_session

bp = Blueprint("health", __name__)
TIMEOUT_SECONDS = 5.0


@bp.get("/healthz")
def healthz() -> Response:
    session = get_session()
    with session.begin():
        session.execute(text("SELECT 1"))
    return jsonify({"status": "ok", "mode": "embedded" if current_app.config["EMBEDDED"] else "full"})


def web_problem(url: str, timeout: float = TIMEOUT_SECONDS) -> str | None:
    """Why `url` is not healthy, or None when it answers 200."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as answer:  # noqa: S310 (the operator's URL)
            status = answer.status
    except urllib.error.HTTPError as exc:
        status = exc.code
    except OSError as exc:
        return f"{url}: {getattr(exc, 'reason', None) or exc}"
    return None if status == 200 else f"{url} answered {status}"


def worker_problem(timeout: float = TIMEOUT_SECONDS) -> str | None:
    """Why no Celery worker on this host answers a ping, or None when one does."""
    from service import create_app

    app = create_app()
    if app.config["EMBEDDED"]:
        return "no REDIS_URL: there is no worker in embedded mode"
    host = socket.gethostname()
    try:
        replies = app.extensions["celery"].control.ping(timeout=timeout) or []
    except Exception as exc:  # the broker unreachable: kombu's and redis-py's errors alike
        return f"cannot reach the broker: {exc}"
    # Node names are `name@host` (celery's %h, this container's host name).
    if any(node.rsplit("@", 1)[-1] == host for reply in replies for node in reply):
        return None
    return f"no worker on {host} answered a ping within {timeout:g} s"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m service.health", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="what", required=True)
    sub.add_parser("web", help="GET a URL, healthy on 200").add_argument(
        "url", nargs="?", default="http://127.0.0.1:8000/healthz")
    sub.add_parser("worker", help="ping the Celery workers of this host")
    args = parser.parse_args(argv)
    problem = web_problem(args.url) if args.what == "web" else worker_problem()
    if problem:
        print(f"unhealthy: {problem}", file=sys.stderr)
        return 1
    print("healthy")
    return 0


if __name__ == "__main__":
    sys.exit(main())
