"""Sub-commands of `dicepost`, each a module with a click `command` (see service.cli)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import click
from flask import Flask


class Refused(click.ClickException):
    """The command cannot do its work with these settings (exit status 2, like a usage error)."""

    exit_code = 2


def migrate_app(app: Flask, revision: str = "head") -> None:
    """The packaged migrations on the app's database, sealing any plain tips with its key."""
    from service.db import engine_of
    from service.migrate import upgrade

    upgrade(engine_of(app), revision, seal_key=bytes.fromhex(app.config["SEAL_KEY"]))


def require_seal(app: Flask) -> None:
    """Refuse to start with a seal key that does not open the tips already stored."""
    from service.db import engine_of
    from service.dice_keys import seal_problem

    engine = engine_of(app)
    with engine.connect() as conn:
        problem = seal_problem(conn, bytes.fromhex(app.config["SEAL_KEY"]), app.config["SEAL_KEY_SOURCE"])
    # No pooled connection left behind: `dicepost worker` forks its pool after this, and
    # a connection shared by two processes breaks both (each opens its own instead).
    engine.dispose()
    if problem:
        raise Refused(problem)


def sealed_app(config: Mapping[str, Any] | None = None) -> Flask:
    """make_app for a command that may read or make chain tips: refused with a wrong key."""
    app = make_app(config)
    require_seal(app)
    return app


def make_app(config: Mapping[str, Any] | None = None) -> Flask:
    """The app for a command; a setting that cannot be read is one line, not a traceback."""
    from service import create_app

    try:
        return create_app(config)
    except ValueError as exc:  # service.config reads numbers and choices from the environment
        raise click.ClickException(f"a setting in the environment is not valid: {exc}") from None
