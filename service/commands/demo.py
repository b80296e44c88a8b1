"""`dicepost demo --ruleset R --seed S [--players N] [--record FILE]`: a bot game end to end.

Starts the web app on a free local port (or uses --url), plays through the HTTP API;
rounds are resolved by the in-process tasks (embedded) or by `dicepost worker` (full
mode). Prints the final grid and the winner and writes the game record.

The game goes into the configured database, so the link printed at the end is the one
`dicepost serve` (or DICEPOST_BASE_URL) answers, not the throw-away port played on.
"""

from __future__ import annotations

import json
import logging
import threading
from pathlib import Path

import click

from engine import UnknownRuleset, find_ruleset, replay
from service.commands import make_app, migrate_app
from service.demo import NAMES, DemoError, DemoResult, play


def start_server(base_config: dict[str, object] | None = None) -> str:
    from werkzeug.serving import make_server

    # The request log would break the progress bar up into dozens of lines.
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    server = make_server("127.0.0.1", 0, None, threaded=True)  # type: ignore[arg-type]
    port = server.server_port
    app = make_app({**(base_config or {}), "BASE_URL": f"http://127.0.0.1:{port}"})
    migrate_app(app)
    server.app = app
    threading.Thread(target=server.serve_forever, name="dicepost-demo-web", daemon=True).start()
    return f"http://127.0.0.1:{port}"


def game_link(url: str, result: DemoResult) -> str:
    """Where the finished game can be seen after the demo's own server has stopped: a
    private game only through its GM's page (opening it lets that browser read the game)."""
    path = f"/games/{result.game_id}" if result.public else f"/games/{result.game_id}/gm/{result.gm_token}"
    note = "" if result.public else ", the game master's page: the game is private (--public lists it)"
    if url:
        return f"{url}{path}" + (f" ({note[2:]})" if note else "")
    from service.urls import base_url

    with make_app().app_context():
        return f"{base_url()}{path} (served by `dicepost serve`{note})"


def check_ruleset(_ctx: click.Context, _param: click.Parameter, value: str) -> str:
    try:
        find_ruleset(value)
    except UnknownRuleset as exc:
        raise click.BadParameter(str(exc)) from None
    return value


@click.command("demo", help="Play a whole game with bots through the real stack.")
@click.option("--ruleset", default="universal", show_default=True, callback=check_ruleset)
@click.option("--seed", default="demo", show_default=True)
@click.option("--players", type=click.IntRange(min=1), default=2, show_default=True,
              help="how many bots play (within the ruleset's range)")
@click.option("--record", default="", metavar="FILE", help="write the game record here")
@click.option("--max-rounds", type=click.IntRange(min=1), default=100, show_default=True,
              help="the game's max_rounds option: a draw after this many rounds")
@click.option("--url", default="", help="play against a running server instead")
@click.option("--wait", type=click.FloatRange(min=0, min_open=True), default=120.0,
              show_default=True, help="seconds to wait for a round to be resolved")
@click.option("--public", is_flag=True, help="list the game on the home page (it is private otherwise)")
def command(ruleset: str, seed: str, players: int, record: str, max_rounds: int, url: str,
            wait: float, public: bool) -> int:
    info = find_ruleset(ruleset).info
    if not info.min_players <= players <= info.max_players:
        allowed = (f"{info.min_players}" if info.min_players == info.max_players
                   else f"{info.min_players} to {info.max_players}")
        raise click.BadParameter(f"{ruleset} is played by {allowed} players, not {players}",
                                 param_hint="'--players'")
    if players > len(NAMES):
        raise click.BadParameter(f"the demo has bots for at most {len(NAMES)} players, not {players}",
                                 param_hint="'--players'")
    # Only the bar on stderr while playing: the in-process tasks log every round at INFO.
    logging.disable(logging.INFO)
    url = url.rstrip("/")
    try:
        result = play(url or start_server(), ruleset, seed, players, max_rounds, wait, public=public)
    except DemoError as exc:
        raise click.ClickException(f"demo failed: {exc}") from None
    rules = find_ruleset(ruleset, result.record.get("revision"))
    board = rules.board(rules.load(result.final_state))
    from service.render.ascii_grid import ascii_board

    click.echo(ascii_board(board))
    outcome = result.outcome or {}
    winners = outcome.get("winners") or []
    verdict = f"winner: {', '.join(winners)}" if winners else "no winner: a draw"
    click.echo(f"game {result.game_id} finished after round {result.rounds}; {verdict} "
               f"({outcome.get('reason', '')})")
    click.echo(f"see it at {game_link(url, result)}")
    report = replay(result.record)
    click.echo(f"record replayed under {report.ruleset} rules revision {report.revision}: "
               + ("every roll, event and state hash checks" if report.ok else str(report.difference)))
    if record:
        try:
            Path(record).write_text(json.dumps(result.record, indent=1))
        except OSError as exc:
            raise click.ClickException(f"cannot write {record}: {exc.strerror or exc}") from None
        click.echo(f"record written to {record}")
    return 0 if report.ok else 1
