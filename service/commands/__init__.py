"""Sub-commands of `dicepost`, each a module with a click `command` (see service.cli)."""

from __future__ import annotations

import click


class Refused(click.ClickException):
    """The command cannot do its work with these settings (exit status 2, like a usage error)."""

    exit_code = 2
