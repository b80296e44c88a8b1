"""Where a submission's and a resolution's CPU goes: `python -m bench.profile`.

In-process (Flask's test client, no HTTP server, no Celery) on a private PostgreSQL
database, shaped like the capacity run: G two-player universal games with mail
addresses, seat 1 of each has sent its orders once. Then N PUTs of seat 1's orders spread
over the G games (the working set) run under cProfile; then seat 2 sends its orders in
every game and the G ready rounds are resolved under cProfile, then some of the
confirmation and results mails they queued are delivered (composed and stored, as without
SMTP) under cProfile. Prints CPU ms per call,
SQL statements per call and the functions that take the most of it (cumulative).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import random
import time
from collections.abc import Callable
from typing import Any

from bench.client import Api
from bench.endpoints import Meter, catch_sends, metered_app
from bench.load import send_orders
from bench.pgdb import private_database
from bench.progress import Progress


class TestApi(Api):
    """bench.client.Api's call() over Flask's test client (bench.load.send_orders speaks to either)."""

    def __init__(self, client: Any) -> None:  # no connection of its own
        self.client = client

    def call(self, method: str, path: str, body: Any = None, token: str | None = None) -> tuple[int, Any]:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        r = self.client.open(path, method=method, json=body, headers=headers)
        return r.status_code, r.get_json()



Prepared = list[tuple[str, list[str], int, dict[str, Any]]]


def prepare_games(client: Any, api: Any, games: int, rng: random.Random,
                  advance: Callable[[], None] = lambda: None) -> Prepared:
    """Universal games of two seats with addresses, joined, seat 1's orders sent once: for
    each, its id, the player tokens, the round and the body seat 1 sent."""
    prepared: Prepared = []
    for g in range(games):
        seats = [{"name": n, "email": f"{n}.{g}@example.com"} for n in ("p1", "p2")]
        created = client.post("/api/games", json={"ruleset": "universal", "seats": seats}).get_json()
        gid = created["id"]
        tokens = [client.post(f"/api/games/{gid}/join", json={"invite_token": s["invite_token"]})
                  .get_json()["player_token"] for s in created["seats"]]
        number, lines = send_orders(api, gid, tokens[0], None, rng)
        prepared.append((gid, tokens, number, {"round": number, "orders": "\n".join(lines)}))
        advance()
    return prepared

def top(profile: cProfile.Profile, calls: int, limit: int) -> str:
    """The `limit` functions with the most cumulative time, in ms per call of the operation."""
    if limit <= 0:
        return ""
    stats = pstats.Stats(profile, stream=io.StringIO())
    rows = []
    for (path, line, name), (_cc, _nc, tt, ct, _callers) in stats.stats.items():  # type: ignore[attr-defined]
        where = path.split("/site-packages/")[-1].split("/dicepost/")[-1]
        rows.append((ct, tt, f"{where}:{line}({name})"))
    rows.sort(reverse=True)
    return "\n".join(f"{1000 * ct / calls:8.3f} {1000 * tt / calls:8.3f}  {what}"
                     for ct, tt, what in rows[:limit])


def run(games: int, puts: int, limit: int, profiled: bool = True, mails: int = 100) -> None:
    from service import resolution
    from service.db import engine_of, session_scope

    groups: list[list[int]] = []
    ready, mail = catch_sends(groups)
    meter = Meter()
    on = (lambda p: p.enable()) if profiled else (lambda p: None)
    with private_database("profile") as url:
        app = metered_app(url, meter)
        client = app.test_client()
        api = TestApi(client)
        rng = random.Random(1)
        bar = Progress("profile: games", games)
        prepared = prepare_games(client, api, games, rng, bar.advance)
        bar.close()

        profile = cProfile.Profile(time.process_time)
        for i in range(puts):
            gid, tokens, _number, body = prepared[i % games]
            headers = {"Authorization": f"Bearer {tokens[0]}"}
            on(profile)
            r = meter.time("PUT orders", client.put, f"/api/games/{gid}/orders", json=body, headers=headers)
            profile.disable()
            assert r.status_code == 200, r.get_json()
        print(f"PUT orders: {1000 * meter.cpu['PUT orders'] / puts:.2f} ms CPU a call, "
              f"{meter.statements['PUT orders'] / puts:.1f} statements\n"
              "  cum ms   own ms  function (per PUT)")
        print(top(profile, puts, limit))

        deliver_profiled(app, meter, "confirmation", mail[-mails:], on, limit)
        for gid, tokens, number, _body in prepared:
            send_orders(api, gid, tokens[1], number, rng)
        del mail[:]
        del groups[:]
        profile = cProfile.Profile(time.process_time)
        count = len(ready)
        with app.app_context():
            while ready:
                with session_scope() as session:
                    on(profile)
                    meter.time("resolve", resolution.resolve_round, session, *ready.pop())
                    profile.disable()
        print(f"\nresolve: {1000 * meter.cpu['resolve'] / max(count, 1):.2f} ms CPU a round, "
              f"{meter.statements['resolve'] / max(count, 1):.1f} statements, {count} rounds\n"
              "  cum ms   own ms  function (per round)")
        print(top(profile, max(count, 1), limit))
        deliver_profiled(app, meter, "results", mail[:mails], on, limit)
        batches = groups[mails // 2:mails // 2 + max(1, mails // 2)]  # rows the line above left
        deliver_profiled(app, meter, "results, one message per round", batches, on, limit)
        engine_of(app).dispose()


def deliver_profiled(app: Any, meter: Meter, kind: str, ids: list[int] | list[list[int]],
                     on: Callable[[Any], None], limit: int) -> None:
    """Deliver these outbox rows (composed and stored: no SMTP) under the profiler: each
    id by deliver(), each list of ids by deliver_each() (one deliver_mails message)."""
    from service.outbound.deliver import deliver, deliver_each

    profile = cProfile.Profile(time.process_time)
    rows = 0
    with app.app_context():
        for item in ids:
            on(profile)
            if isinstance(item, list):
                meter.time(kind, deliver_each, item)
                rows += len(item)
            else:
                meter.time(kind, deliver, item)
                rows += 1
            profile.disable()
    n = max(rows, 1)
    print(f"\ndeliver a {kind} mail: {1000 * meter.cpu[kind] / n:.2f} ms CPU a mail, "
          f"{meter.statements[kind] / n:.1f} statements, {rows} mails\n"
          "  cum ms   own ms  function (per mail)")
    print(top(profile, n, limit))


def main() -> None:
    p = argparse.ArgumentParser(prog="python -m bench.profile", description=__doc__)
    p.add_argument("--games", type=int, default=600)
    p.add_argument("--puts", type=int, default=2000)
    p.add_argument("--limit", type=int, default=45, help="functions listed per operation")
    p.add_argument("--mails", type=int, default=100, help="confirmation and results mails delivered, each")
    p.add_argument("--plain", action="store_true", help="CPU per call without the profiler's overhead")
    args = p.parse_args()
    run(args.games, args.puts, 0 if args.plain else args.limit, not args.plain, args.mails)


if __name__ == "__main__":
    main()
