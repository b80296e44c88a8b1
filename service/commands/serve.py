"""`dicepost serve`: the web app on Werkzeug's threaded server (gunicorn in production).

In embedded mode it also starts the sweeper thread (every DICEPOST_SWEEP_SECONDS).
"""

from __future__ import annotations

import argparse

from flask import Flask

from service import create_app


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("serve", help="serve the web app and API")
    add_address(parser)
    parser.set_defaults(func=run)


def add_address(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=5000)


def serve(app: Flask, host: str, port: int) -> None:
    from werkzeug.serving import run_simple

    if app.config["EMBEDDED"]:
        from service.sweeper import start_thread

        start_thread(app)
    run_simple(host, port, app, threaded=True, use_reloader=False)


def run(args: argparse.Namespace) -> int:
    serve(create_app(), args.host, args.port)
    return 0
