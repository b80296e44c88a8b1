"""The `dicepost` command: a click group with one sub-command per module in service/commands/.

To add a command, write service/commands/<name>.py with a click command (or group) named
`command` and add its module to COMMANDS (`module:attribute` for another name).
Commands return their exit status.

Every failure a user can cause (a bad option, an unknown ruleset, an unreachable database
or server, a closed pipe) ends as one line on stderr and a non-zero status, never a
traceback: click's usage errors are shortened to one line here, and the errors the
service raises for bad settings are turned into click errors in `DicepostGroup.invoke`.
"""

from __future__ import annotations

import importlib
import logging
import sys
from collections.abc import Sequence
from typing import Any

import click
from alembic.util import CommandError
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, NoSuchModuleError, SQLAlchemyError

COMMANDS = [
    "service.commands.serve",
    "service.commands.web",
    "service.commands.run",
    "service.commands.worker",
    "service.commands.beat",
    "service.commands.db",
    "service.commands.rulesets",
    "service.commands.new_game",
    "service.commands.demo",
    "service.commands.sweep",
    "service.commands.verify",
    "service.commands.receipt",
    "service.commands.balance",
    "service.commands.ratings",
    "service.commands.mail_ingest",
    "service.commands.mail_ingest:poll_command",
]


def database_error(exc: SQLAlchemyError) -> str:
    """One line for a database that cannot be used: which URL, and the driver's first line."""
    import os

    raw = os.environ.get("DATABASE_URL", "")
    try:
        where = make_url(raw).render_as_string(hide_password=True) if raw else "the SQLite file"
    except ArgumentError:
        where = repr(raw)
    if isinstance(exc, (ArgumentError, NoSuchModuleError)):
        return f"DATABASE_URL {where} is not a database URL this service can use ({exc})"
    orig = getattr(exc, "orig", None) or exc
    first = str(orig).strip().splitlines()[0] if str(orig).strip() else type(orig).__name__
    return f"cannot use the database at {where}: {first}"


class DicepostGroup(click.Group):
    """A click group whose errors are one line each and whose commands return exit codes."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except SQLAlchemyError as exc:
            raise click.ClickException(database_error(exc)) from None
        except CommandError as exc:  # alembic: e.g. a revision this version does not know
            raise click.ClickException(f"database migration: {exc}") from None

    def main(self, args: Sequence[str] | None = None, prog_name: str | None = None,
             complete_var: str | None = None, standalone_mode: bool = True,
             **extra: Any) -> Any:
        try:
            code = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except click.exceptions.NoArgsIsHelpError as exc:
            click.echo(exc.ctx.get_help() if exc.ctx else exc.format_message())
            code = 0
        except click.UsageError as exc:
            hint = f" (see '{exc.ctx.command_path} --help')" if exc.ctx else ""
            click.echo(f"Error: {exc.format_message()}{hint}", err=True)
            code = exc.exit_code
        except click.ClickException as exc:
            click.echo(f"Error: {exc.format_message()}", err=True)
            code = exc.exit_code
        except click.Abort:
            click.echo("Aborted.", err=True)
            code = 1
        code = code if isinstance(code, int) else 0
        if standalone_mode:
            sys.exit(code)
        return code


@click.group(cls=DicepostGroup, context_settings={"help_option_names": ["-h", "--help"]},
             help="Play-by-email and web host for skirmish games with verifiable dice. Embedded "
                  "default (SQLite, in-process tasks) unless DATABASE_URL and REDIS_URL are set.")
def cli() -> None:
    from service.logs import configure

    configure()  # the same handler and settings the app and the workers use
    logging.getLogger("alembic").setLevel(logging.WARNING)


for _entry in COMMANDS:
    _module, _, _attribute = _entry.partition(":")
    cli.add_command(getattr(importlib.import_module(_module), _attribute or "command"))


def main(argv: Sequence[str] | None = None) -> int:
    """The console script `dicepost`: run the group, return its exit status."""
    return int(cli.main(args=list(argv) if argv is not None else None, prog_name="dicepost",
                        standalone_mode=False))


if __name__ == "__main__":
    sys.exit(main())
