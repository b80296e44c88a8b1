"""`dicepost sweep`: re-ring lost work once (what beat and the embedded thread do periodically)."""

from __future__ import annotations

import json

import click

from service.commands import sealed_app
from service.sweeper import sweep_and_ring


@click.command("sweep", help="Re-send lost work once: ready rounds, pending mail.")
def command() -> int:
    app = sealed_app()
    with app.app_context():
        click.echo(json.dumps(sweep_and_ring()))
    return 0
