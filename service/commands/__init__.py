"""Sub-commands of `dicepost`, each a module with a click `command` (see service.cli)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import click
from flask import Flask


class Refused(click.ClickException):
    """The command cannot do its work with these settings (exit status 2, like a usage error)."""

    exit_code = 2


def make_app(config: Mapping[str, Any] | None = None) -> Flask:
    """The app for a command; a setting that cannot be read is one line, not a traceback."""
    from service import create_app

    try:
        return create_app(config)
    except ValueError as exc:  # service.config reads numbers and choices from the environment
        raise click.ClickException(f"a setting in the environment is not valid: {exc}") from None
