"""`dicepost demo --ruleset R --seed S [--players N] [--record FILE]`: a bot game end to end.

Starts the web app on a free local port (or uses --url), plays through the HTTP API;
rounds are resolved by the in-process tasks (embedded) or by `dicepost worker` (full
mode). Prints the final grid and the winner and writes the game record.
"""

from __future__ import annotations

import argparse
import json
import logging
import threading
from pathlib import Path

from engine import find_ruleset, replay
from service import create_app
from service.db import engine_of
from service.demo import DemoError, play
from service.migrate import upgrade


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("demo", help="play a whole game with bots through the real stack")
    parser.add_argument("--ruleset", default="universal")
    parser.add_argument("--seed", default="demo")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--record", default="", metavar="FILE", help="write the game record here")
    parser.add_argument("--max-rounds", type=int, default=100,
                        help="the game's max_rounds option: a draw after this many rounds")
    parser.add_argument("--url", default="", help="play against a running server instead")
    parser.add_argument("--wait", type=float, default=120.0,
                        help="seconds to wait for a round to be resolved")
    parser.set_defaults(func=run)


def start_server(base_config: dict[str, object] | None = None) -> str:
    from werkzeug.serving import make_server

    server = make_server("127.0.0.1", 0, None, threaded=True)  # type: ignore[arg-type]
    port = server.server_port
    app = create_app({**(base_config or {}), "BASE_URL": f"http://127.0.0.1:{port}"})
    upgrade(engine_of(app))
    server.app = app
    threading.Thread(target=server.serve_forever, name="dicepost-demo-web", daemon=True).start()
    return f"http://127.0.0.1:{port}"


def run(args: argparse.Namespace) -> int:
    logging.getLogger().setLevel(logging.WARNING)
    base = args.url.rstrip("/") if args.url else start_server()
    try:
        result = play(base, args.ruleset, args.seed, args.players, args.max_rounds, args.wait)
    except DemoError as exc:
        print(f"demo failed: {exc}")
        return 1
    ruleset = find_ruleset(args.ruleset)
    board = ruleset.board(ruleset.load(result.final_state))
    from service.render.ascii_grid import ascii_board

    print(ascii_board(board))
    outcome = result.outcome or {}
    winners = outcome.get("winners") or []
    verdict = f"winner: {', '.join(winners)}" if winners else "no winner: a draw"
    print(f"game {result.game_id} ({base}/games/{result.game_id}) finished after round "
          f"{result.rounds}; {verdict} ({outcome.get('reason', '')})")
    report = replay(result.record)
    print(f"record replayed: {'every roll, event and state hash checks' if report.ok else report.difference}")
    if args.record:
        Path(args.record).write_text(json.dumps(result.record, indent=1))
        print(f"record written to {args.record}")
    return 0 if report.ok else 1
