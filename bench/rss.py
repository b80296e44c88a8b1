"""A process's memory as its games age: `python -m bench.rss`.

G two-player universal games (private, seats with addresses) are played in-process on a
private PostgreSQL database, round after round through the service's API (bench.load's
bots), each ready round resolved by `service.resolution.resolve_round` and each commit's
mail delivered by `deliver_each`, as the workers do; a finished game is replaced by a new
one. Every N rounds it prints the process's resident memory (VmRSS, after a full
collection) and what the per-process caches hold: entries per `service.statecache` kind
(and the weight of the kinds bounded by weight), the records kept for the mails and
their bytes. One process does the web's, the resolution's and the mail's work here, so
its RSS is above any one server process's: read how it grows, and whether the caches
level off, not its size.
"""

from __future__ import annotations

import argparse
import gc
import random
from typing import Any

from bench.endpoints import catch_sends
from bench.load import send_orders
from bench.pgdb import private_database
from bench.profile import TestApi


def rss_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def cached() -> str:
    from service import caches

    held = sorted(caches.stats().items())
    return "; ".join(f"{name} {kept.entries}" + (f" ({kept.weight:,} held)" * (kept.weight != kept.entries))
                     for name, kept in held)


def run(games: int, rounds: int, every: int, seed: int = 1) -> list[str]:
    """The lines printed: one every `every` rounds."""
    from service import create_app, resolution, tasks
    from service.db import engine_of, session_scope
    from service.migrate import upgrade
    from service.outbound.deliver import deliver_each

    lines: list[str] = []
    send = tasks.send
    try:
        groups: list[list[int]] = []
        ready, _mail = catch_sends(groups)
        with private_database("rss") as url:
            app = create_app({"DATABASE_URL": url, "REDIS_URL": None, "SECRET_KEY": "bench",
                              "BASE_URL": "http://127.0.0.1", "GAMES_PER_CLIENT": "off",
                              "CONFIRMED_DOMAINS": ("example.com",)})
            upgrade(engine_of(app))
            client = app.test_client()
            api = TestApi(client)
            rng = random.Random(seed)

            def new_game(n: int) -> tuple[str, list[str]]:
                seats = [{"name": p, "email": f"{p}.{n}@example.com"} for p in ("p1", "p2")]
                created: dict[str, Any] = client.post("/api/games", json={
                    "ruleset": "universal", "public": False, "seats": seats}).get_json()
                tokens = [client.post(f"/api/games/{created['id']}/join",
                                      json={"invite_token": s["invite_token"]}).get_json()["player_token"]
                          for s in created["seats"]]
                return created["id"], tokens

            def work_off() -> None:  # what the workers would do with the commits' doorbells
                with app.app_context():
                    while ready or groups:
                        while ready:
                            with session_scope() as session:
                                resolution.resolve_round(session, *ready.pop())
                        while groups:
                            deliver_each(groups.pop(0))

            table = [new_game(g) for g in range(games)]
            work_off()
            started = 0
            for r in range(1, rounds + 1):
                for i, (game_id, tokens) in enumerate(table):
                    _status, game = api.call("GET", f"/api/games/{game_id}", token=tokens[0])
                    if game["status"] != "active":
                        started += 1
                        table[i] = new_game(games + started)
                        continue
                    for token in tokens:
                        send_orders(api, game_id, token, int(game["round"]), rng)
                        work_off()
                if r % every == 0:
                    gc.collect()
                    line = f"round {r}: RSS {rss_mb():.1f} MB, {started} games started anew; {cached()}"
                    print(line, flush=True)
                    lines.append(line)
            engine_of(app).dispose()
    finally:
        tasks.send = send  # the doorbell as it was (a test process goes on with it)
    return lines


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m bench.rss", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--games", type=int, default=20, help="games played at once")
    p.add_argument("--rounds", type=int, default=120, help="rounds each game is played")
    p.add_argument("--every", type=int, default=10, help="print every this many rounds")
    args = p.parse_args(argv)
    run(args.games, args.rounds, args.every)


if __name__ == "__main__":
    main()
