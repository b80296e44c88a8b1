"""Where a round's CPU goes, one operation at a time: `python -m bench.endpoints`.

In-process (Flask's test client, no HTTP server, no Celery), on a private PostgreSQL
database: G two-player universal games with mail addresses play R rounds. For each
operation a player or a worker does per round it reports CPU milliseconds per call (this
process only: PostgreSQL's own CPU is not in it) and SQL statements per call. The
doorbells are caught, so resolution and mail delivery are timed as the worker runs them.
CPU time, not wall time, so other load on the machine matters less.
"""

from __future__ import annotations

import argparse
import random
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from typing import Any, TypeVar

from bench.load import choose
from bench.pgdb import private_database
from bench.progress import Progress

T = TypeVar("T")


class Meter:
    def __init__(self) -> None:
        self.cpu: defaultdict[str, float] = defaultdict(float)
        self.calls: Counter[str] = Counter()
        self.statements: Counter[str] = Counter()
        self.current: str | None = None

    def on_statement(self, *_args: Any) -> None:
        if self.current:
            self.statements[self.current] += 1

    def time(self, name: str, call: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        self.current = name
        start = time.process_time()
        try:
            return call(*args, **kwargs)
        finally:
            self.cpu[name] += time.process_time() - start
            self.calls[name] += 1
            self.current = None

    def rows(self) -> list[tuple[str, int, float, float]]:
        return [(k, self.calls[k], 1000 * self.cpu[k] / self.calls[k], self.statements[k] / self.calls[k])
                for k in self.cpu]


def play_round(meter: Meter, client: Any, gid: str, tokens: list[str], rng: random.Random) -> int | None:
    """Both players read their orders and submit; the round's number, None once the game is over."""
    game = meter.time("GET game", client.get, f"/api/games/{gid}").get_json()
    if game["status"] != "active":
        return None
    for token in tokens:
        auth = {"Authorization": f"Bearer {token}"}
        view = meter.time("GET orders", client.get, f"/api/games/{gid}/orders", headers=auth).get_json()
        body = {"round": game["round"], "orders": "\n".join(choose(view["legal"], rng))}
        meter.time("PUT orders", client.put, f"/api/games/{gid}/orders", json=body, headers=auth)
    return int(game["round"])


def metered_app(url: str, meter: Meter) -> Any:
    """The service in-process on a migrated database, its SQL statements counted by meter."""
    from sqlalchemy import event

    from service import create_app
    from service.db import engine_of
    from service.migrate import upgrade

    app = create_app({"DATABASE_URL": url, "REDIS_URL": None, "SECRET_KEY": "bench",
                      "BASE_URL": "http://127.0.0.1", "GAMES_PER_CLIENT": "off",
                      "CONFIRMED_DOMAINS": ("example.com",)})
    upgrade(engine_of(app))
    event.listen(engine_of(app), "before_cursor_execute", meter.on_statement)
    return app


def catch_sends(groups: list[list[int]] | None = None) -> tuple[list[tuple[str, int]], list[int]]:
    """Replace the service's doorbell: the rounds each commit readied and the mail it queued
    are collected (returned lists, filled as the app runs) instead of sent; with `groups`,
    each commit's mail is also appended there as one list (what one deliver_mails message
    carries)."""
    from service import tasks

    ready: list[tuple[str, int]] = []
    mail: list[int] = []

    def caught(app: object, work: tasks.Outgoing) -> None:
        ready.extend((game_id, number) for game_id, number, _skipped in work.rounds)
        mail.extend(work.mail_ids())
        if groups is not None and work.mail_ids():
            groups.append(work.mail_ids())

    tasks.send = caught
    return ready, mail


def run(games: int, rounds_: int) -> list[tuple[str, int, float, float]]:
    from service import resolution
    from service.db import engine_of, session_scope
    from service.outbound.deliver import deliver

    ready, mail = catch_sends()
    meter = Meter()
    with private_database("endpoints") as url:
        app = metered_app(url, meter)
        client = app.test_client()
        rng = random.Random(1)
        bar = Progress("endpoints", games * rounds_)
        for g in range(games):
            seats = [{"name": n, "email": f"{n}.{g}@example.com"} for n in ("p1", "p2")]
            created = meter.time("POST game", client.post, "/api/games",
                                 json={"ruleset": "universal", "seats": seats}).get_json()
            gid = created["id"]
            tokens = [meter.time("POST join", client.post, f"/api/games/{gid}/join",
                                 json={"invite_token": s["invite_token"]}).get_json()["player_token"]
                      for s in created["seats"]]
            for _ in range(rounds_):
                bar.advance()
                number = play_round(meter, client, gid, tokens, rng)
                if number is None:
                    continue
                with app.app_context():
                    while ready:
                        with session_scope() as session:
                            meter.time("resolve (worker)", resolution.resolve_round, session, *ready.pop())
                    while mail:
                        meter.time("deliver a mail (worker)", deliver, mail.pop())
                meter.time("GET round", client.get, f"/api/games/{gid}/rounds/{number}")
        bar.close()
        engine_of(app).dispose()
    return meter.rows()


def main() -> None:
    p = argparse.ArgumentParser(prog="python -m bench.endpoints", description=__doc__)
    p.add_argument("--games", type=int, default=10)
    p.add_argument("--rounds", type=int, default=8)
    args = p.parse_args()
    from bench.machine import load
    from bench.report import table

    before = load()
    rows = run(args.games, args.rounds)
    print(f"load average before: {before}, after: {load()}")
    print(table(["operation", "calls", "CPU ms per call", "SQL statements per call"],
                [[k, str(n), f"{ms:.1f}", f"{st:.1f}"] for k, n, ms, st in rows], markdown=True))


if __name__ == "__main__":
    main()
