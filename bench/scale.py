"""Submissions as the number of active games grows, and memory at the largest count:
`python -m bench --only scale`.

On a full stack of its own (granian as in the other parts, PostgreSQL, Redis; no
worker until the end), one two-player universal game is created and joined over HTTP,
then cloned in SQL (bench.bulk: every row the service wrote for it, made new where the
service would have) until the database holds N active games, for each N of
`--scale-games` (60, 600, 6,000) in turn. At each N, seat 1 of every game replaces its
orders (the same body: every clone starts from the same state) from C connections for
S seconds, spread over all N games in order (bench.hammer), so each request finds a game
the last N - 1 requests did not touch: CPU per submission by role (bench.capacity's
Stretch: the web processes and their PostgreSQL backends).

Then, at the largest N: the orders of `--scale-visit` games are read once each (GET
/api/games/<id>/orders; the default 2,500 is past the legal-orders cache's bound of
2,048 entries, so the web processes hold as much as they ever will; 6,000 reads every
game but takes minutes on a loaded machine), seat 1 and seat 2 of `--scale-resolve` games
send theirs and two workers resolve those rounds (bench.capacity's resolution phase),
and the peak resident memory (VmHWM) of every web and worker process is read.
"""

from __future__ import annotations

import json
import random
import time
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any

from bench import capacity, hammer
from bench import stack as stacks
from bench.bulk import Cloner, Template, tables_of
from bench.capacity import CapacitySpec, Db, Game, in_parallel
from bench.client import Api
from bench.load import choose
from bench.machine import load as loadavg
from bench.stack import FullSizes


@dataclass(frozen=True)
class ScaleSpec:
    games: tuple[int, ...] = (60, 600, 6000)  # active games at each submission run
    seconds: float = 8.0  # each submission run
    clients: int = 16
    resolve: int = 200  # rounds the workers resolve before memory is read (0: no workers)
    visit: int = 2500  # games whose orders are read once before memory is read (0: none)
    tool: str = "auto"


def template_game(api: Api) -> tuple[Template, str]:
    """A game created and joined over HTTP, and seat 1's orders for its round 1 as a PUT body."""
    status, created = api.call("POST", "/api/games", {
        "ruleset": "universal", "title": "scale", "public": False,
        "seats": [{"name": n, "email": f"{n}.scale@example.com"} for n in ("p1", "p2")]})
    if status != 201:
        raise RuntimeError(f"create game: {status} {created}")
    invites = [s["invite_token"] for s in created["seats"]]
    players = []
    for invite in invites:
        status, joined = api.call("POST", f"/api/games/{created['id']}/join", {"invite_token": invite})
        if status != 200:
            raise RuntimeError(f"join: {status} {joined}")
        players.append(joined["player_token"])
    status, view = api.call("GET", f"/api/games/{created['id']}/orders", token=players[0])
    if status != 200:
        raise RuntimeError(f"GET orders: {status} {view}")
    body = json.dumps({"round": view["round"], "orders": "\n".join(choose(view["legal"], random.Random(1)))})
    return Template(created["id"], invites, players, created["gm_token"]), body


def visit_all(api: Api, games: list[Game], threads: int = 8) -> None:
    """Each game's orders read once, as seat 1."""
    def one(i: int) -> None:
        status, body = api.call("GET", f"/api/games/{games[i].id}/orders", token=games[i].tokens[0])
        if status != 200:
            raise RuntimeError(f"GET orders of {games[i].id}: {status} {body}")

    in_parallel(f"scale: {len(games):,} games' orders read once", len(games), threads, one)


def send_first_seat(api: Api, games: list[Game], threads: int = 8) -> None:
    """Seat 1's orders in each game (its round needs them to become ready)."""
    def one(i: int) -> None:
        g = games[i]
        status, body = api.call("PUT", f"/api/games/{g.id}/orders", json.loads(g.body), token=g.tokens[0])
        if status != 200:
            raise RuntimeError(f"PUT orders of {g.id}: {status} {body}")

    in_parallel("scale: seat 1's orders", len(games), threads, one)


def run(sizes: FullSizes, spec: ScaleSpec) -> dict[str, Any]:
    from service.db import make_engine

    tool = hammer.choose_tool(spec.tool)
    cap_spec = CapacitySpec(seconds=spec.seconds, clients=spec.clients, tool=tool)
    out: dict[str, Any] = {"tool": tool, "load_before": loadavg(), "sizes": sizes.__dict__,
                           "spec": spec.__dict__, "runs": []}
    with ExitStack() as exits:
        stack = stacks.full_stack(exits, sizes, workers=False, tag="scale")
        api = Api(stack.port)
        db = Db(stack.db_url)
        exits.callback(db.close)
        template, body = template_game(api)
        engine = make_engine(stack.db_url, pool_size=1)
        exits.callback(engine.dispose)
        cloner = Cloner(engine, bytes.fromhex(stack.env["DICEPOST_SEAL_KEY"]), template)
        out["rows_per_game"] = tables_of(cloner.rows)
        games = [Game(template.id, template.players, 1, body)]
        for n in sorted(spec.games):
            started = time.monotonic()
            games += [Game(c.id, c.players, 1, body) for c in cloner.clone(max(0, n - len(games)))]
            cloned_s = time.monotonic() - started
            active = int(db.scalar("SELECT COUNT(*) FROM games WHERE status = 'active'"))

            def stored() -> int:
                return int(db.scalar("SELECT COUNT(*) FROM submissions"))

            figures = capacity.hammered(stack, capacity.submission_requests(games), cap_spec, tool,
                                        spec.seconds, f"scale: submissions over {n:,} games", stored)
            figures.update(games=n, active_games=active, cloned_s=cloned_s, clones=n - 1)
            out["runs"].append(figures)
        if spec.visit > 0:
            started = time.monotonic()
            visit_all(api, games[:spec.visit])
            out["visit_s"], out["visited"] = time.monotonic() - started, min(spec.visit, len(games))
        if spec.resolve > 0:
            subset = games[:spec.resolve]
            send_first_seat(api, subset)
            out["resolution"] = capacity.resolution_phase(stack, db, api, subset, sizes, cap_spec)
        out["active_games"] = int(db.scalar("SELECT COUNT(*) FROM games WHERE status = 'active'"))
        out["memory"] = stack.memory()
    return out


def in_process(small: int, large: int, puts: int, passes: int) -> list[tuple[str, int, float, float]]:
    """PUT orders in-process (no HTTP server, this process's CPU only) over the first `small`
    games and over `large` games, alternating `passes` times, all in one database of `large`
    cloned games: the same load on the machine for both, so their difference is the count's.
    Over the small set every game is hit again and again; over the large one each PUT finds
    a game no earlier PUT touched."""
    from bench.endpoints import Meter, catch_sends, metered_app
    from bench.pgdb import private_database
    from service import tasks
    from service.db import engine_of

    send, meter = tasks.send, Meter()
    try:
        catch_sends()
        with private_database("scalein") as url:
            app = metered_app(url, meter)
            client = app.test_client()
            template = _in_process_template(client)
            clones = Cloner(engine_of(app), bytes.fromhex(app.config["SEAL_KEY"]), template).clone(large - 1)
            games = [(template.id, template.players[0]), *((c.id, c.players[0]) for c in clones)]
            auth = {"Authorization": f"Bearer {template.players[0]}"}
            view = client.get(f"/api/games/{template.id}/orders", headers=auth).get_json()
            body = {"round": view["round"], "orders": "\n".join(choose(view["legal"], random.Random(1)))}
            for p in range(passes):
                for label, count in ((f"PUT orders over {small:,} games", small),
                                     (f"PUT orders over {large:,} games", large)):
                    for i in range(puts):
                        gid, token = games[(p * puts + i) % count]
                        resp = meter.time(label, client.put, f"/api/games/{gid}/orders", json=body,
                                          headers={"Authorization": f"Bearer {token}"})
                        if resp.status_code != 200:
                            raise RuntimeError(f"PUT orders of {gid}: {resp.status_code} {resp.data[:200]!r}")
            engine_of(app).dispose()
    finally:
        tasks.send = send
    return meter.rows()


def _in_process_template(client: Any) -> Template:
    created = client.post("/api/games", json={"ruleset": "universal", "public": False, "seats": [
        {"name": n, "email": f"{n}.scale@example.com"} for n in ("p1", "p2")]}).get_json()
    invites = [s["invite_token"] for s in created["seats"]]
    players = [client.post(f"/api/games/{created['id']}/join", json={"invite_token": i}).get_json()
               ["player_token"] for i in invites]
    return Template(created["id"], invites, players, created["gm_token"])


def main() -> None:
    import argparse

    from bench.machine import load
    from bench.report import table

    p = argparse.ArgumentParser(prog="python -m bench.scale", description=in_process.__doc__)
    p.add_argument("--small", type=int, default=60)
    p.add_argument("--large", type=int, default=6000)
    p.add_argument("--puts", type=int, default=300, help="PUTs per set per pass")
    p.add_argument("--passes", type=int, default=3)
    args = p.parse_args()
    before = load()
    rows = in_process(args.small, args.large, args.puts, args.passes)
    print(f"load average before: {before}, after: {load()}")
    print(table(["operation", "calls", "CPU ms per call", "SQL statements per call"],
                [[k, str(n), f"{ms:.2f}", f"{st:.1f}"] for k, n, ms, st in rows], markdown=True))


if __name__ == "__main__":
    main()
