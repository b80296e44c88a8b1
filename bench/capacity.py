"""Capacity: what the web server and the workers can do, apart from what the latency phases ask of them.

The latency phases (service.py) play G games where each player waits for its round:
their orders/s and rounds/s are bounded by G and by latency. Here, on a full stack of
its own (granian as in the latency phases, PostgreSQL, Redis; no mail worker: mail
waits in its own queue, as a mail backlog does in production):

1. **Submissions.** R games of P players are created and joined over HTTP; in each,
   seat 1 sends orders once (GET its legal orders, choose, PUT) and the others send
   nothing, so every round stays open. Then C concurrent clients replace seat 1's
   orders (PUT /api/games/<id>/orders is a replace: every version is kept, the latest
   counts) as fast as answers come, for S seconds, spread over the R games, with the
   body the service accepted before. Workers are not running (none are needed).
2. **Resolution.** The other seats send their orders once: R rounds become ready, and
   the service rings each round's doorbell after its commit (service.tasks: a
   resolve task in Redis), exactly as in production; with no worker running, the R
   doorbells wait in the resolve queue. The bench sets that queue's Redis list aside
   (RENAME), readies W warm-up rounds the same way and sets them aside too, starts N
   `dicepost worker -c 1 -Q <prefix>resolve` processes, waits until each logs
   " ready.", puts the warm-up list back and waits for those rounds (the workers' first
   tasks import and connect: a long-running worker has done that), then puts the R
   doorbells back and times until the database shows all R rounds resolved. Nothing
   rings twice: the sweeper (`dicepost beat`) does not run, and it would only re-ring
   rounds ready for more than its grace anyway.

CPU seconds by role come from /proc (the stack's processes, this database's PostgreSQL
backends less the bench's own watching connection) and, for the load generator, from
bench.hammer. The web floor (web_floor) serves bench/floorapp.py with the same web server
and settings (granian) and loads it with the same client: what Flask + granian + SQLAlchemy do here.
"""

from __future__ import annotations

import json
import random
import re
import statistics
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench import hammer, machine, procs
from bench import stack as stacks
from bench.client import Api
from bench.load import LoadSpec, create_game, send_orders
from bench.machine import load as loadavg
from bench.pgdb import private_database
from bench.progress import Progress
from bench.stack import FullSizes, Proc, Stack


@dataclass(frozen=True)
class CapacitySpec:
    rounds: int = 600  # R: games prepared, one ready round each
    seconds: float = 15.0  # length of the submission run
    clients: int = 16  # concurrent connections of the load generator
    warmup: float = 2.0  # seconds of load before each measured run, not counted
    tool: str = "auto"  # "wrk", "python" or "auto" (wrk when it is on the PATH)
    players: int = 2
    emails: bool = True  # seats with addresses: confirmations and results go to the outbox
    prep_threads: int = 8  # HTTP clients preparing the games
    warm_rounds_per_worker: int = 3
    timeout: float = 180.0  # at most this long for the R rounds to be resolved
    floor_seconds: float = 8.0  # each web floor run (GET /ping, PUT /update)


@dataclass
class Game:
    id: str
    tokens: list[str]
    round: int
    body: str  # seat 1's accepted orders as the PUT body


# -- shared ---------------------------------------------------------------------------------
def cpu_delta(before: dict[str, float], after: dict[str, float]) -> dict[str, float]:
    return {role: after[role] - before.get(role, 0.0) for role in after}


def per_unit_ms(cpu_seconds: dict[str, float], units: int) -> dict[str, float]:
    """CPU ms per unit of work (a request, a round) by role."""
    return {role: 1000 * v / max(units, 1) for role, v in cpu_seconds.items()}


class Stretch:
    """CPU seconds by role over a stretch of time (a `with` block), and what the rest of the machine used.

    Roles: the stack's processes (stack.cpu()), its PostgreSQL backends (sampled:
    stacks.BackendSampler) and, with redis_url, the whole Redis server (shared with the
    other users of the machine, but mostly this run's). The machine's busy time less
    all of that, less this process (the bench: the Python load generator, the sampling)
    and less a child load generator (wrk, given to machine()) is the other work on the
    shared cores: `others_cores` is how many cores it kept busy on average.
    """

    def __init__(self, stack: Stack, not_backends: frozenset[int] = frozenset(),
                 redis_url: str | None = None) -> None:
        self.stack = stack
        self.sampler = stacks.BackendSampler(stack.database, not_backends)
        self.redis_pid = redis_server_pid(redis_url) if redis_url else None
        self.cpu: dict[str, float] = {}
        self.connections_opened = 0
        self.seconds = 0.0
        self.busy = 0.0
        self.steal = 0.0

    def __enter__(self) -> Stretch:
        self.before = self.stack.cpu()
        self.redis0 = procs.cpu_seconds(self.redis_pid) if self.redis_pid else 0.0
        self.sessions = stacks.sessions(self.stack.database)
        self.sampler.__enter__()
        self.busy0, self.t0, self.own0 = machine.busy_seconds(), time.monotonic(), time.process_time()
        self.steal0 = machine.steal_seconds()
        return self

    def __exit__(self, *exc: object) -> None:
        self.busy, self.seconds = machine.busy_seconds() - self.busy0, time.monotonic() - self.t0
        self.own = time.process_time() - self.own0
        self.steal = machine.steal_seconds() - self.steal0
        self.sampler.__exit__(*exc)
        self.cpu = cpu_delta(self.before, self.stack.cpu())
        self.cpu["postgres"] = self.sampler.total()
        if self.redis_pid:
            self.cpu["redis (whole server)"] = procs.cpu_seconds(self.redis_pid) - self.redis0
        self.connections_opened = stacks.sessions(self.stack.database) - self.sessions

    def machine(self, child_load_generator: float = 0.0) -> dict[str, float]:
        ours = sum(self.cpu.values()) + self.own + child_load_generator
        others = max(0.0, self.busy - ours)
        return {"wall_s": self.seconds, "busy_s": self.busy, "ours_s": ours, "bench_process_s": self.own,
                "others_s": others, "others_cores": others / self.seconds if self.seconds else 0.0,
                "steal_s": self.steal}


def redis_server_pid(url: str) -> int | None:
    import redis

    try:
        return int(redis.Redis.from_url(url).info("server")["process_id"])
    except Exception:  # no figure for Redis rather than no run
        return None


def hammered(stack: Stack, requests: list[hammer.Request], spec: CapacitySpec, tool: str,
             seconds: float, label: str, stored: Callable[[], int] | None = None) -> dict[str, Any]:
    """A warm-up run (not counted), then the measured one with the CPU of every role around it.

    stored: a count read before and after the measured run (rows the requests wrote).
    """
    bar = Progress(label, 2)
    if spec.warmup > 0:
        hammer.run(stack.port, requests, spec.clients, spec.warmup, tool)
    bar.advance(note=f"{tool}, {spec.clients} clients")
    stored0 = stored() if stored else 0
    with Stretch(stack, redis_url=stack.env.get("REDIS_URL")) as stretch:
        figures = hammer.run(stack.port, requests, spec.clients, seconds, tool)
    if stored:
        figures["stored"] = stored() - stored0
    machine_cpu = stretch.machine(figures["load_generator_cpu_s"] if tool == "wrk" else 0.0)
    cpu = stretch.cpu
    cpu["load generator"] = figures["load_generator_cpu_s"]
    figures.update(cpu_seconds=cpu, cpu_ms_per_ok=per_unit_ms(cpu, figures["ok"]), machine=machine_cpu,
                   pg_connections_opened=stretch.connections_opened, load_after=loadavg())
    bar.close(f"{figures['ok_per_s']:,.0f}/s, {figures['errors']} errors")
    stack.check_alive()
    return figures


# -- the web floor --------------------------------------------------------------------------
FLOOR_APP = "bench.floorapp:create_app()"


def floor_stack(exits: ExitStack, sizes: FullSizes) -> Stack:
    """bench/floorapp.py under the web server as the stack runs it, on a private database,
    until exits close."""
    from bench.floorapp import prepare

    url = exits.enter_context(private_database("webfloor"))
    prepare(url)
    workdir = Path(exits.enter_context(tempfile.TemporaryDirectory(prefix="dicepost-bench-")))
    port = stacks.free_port()
    env = stacks.base_env(port)
    env["BENCH_FLOOR_DATABASE_URL"] = url
    stack = Stack("webfloor", port, env, workdir, url, database=url.rsplit("/", 1)[1])
    exits.callback(stack.stop)
    stack.start("web", stacks.web_server(FLOOR_APP, port, sizes))
    stacks.wait_http(stack, path="/ping")
    return stack


def floor_update(stack: Stack, spec: CapacitySpec, tool: str) -> dict[str, Any]:
    return hammered(stack, [hammer.Request("PUT", "/update", "{}")], spec, tool, spec.floor_seconds,
                    f"web floor PUT /update, {spec.clients} connections")


def web_floor(sizes: FullSizes, spec: CapacitySpec) -> dict[str, Any]:
    """The floor app: GET /ping and PUT /update."""
    tool = hammer.choose_tool(spec.tool)
    with ExitStack() as exits:
        stack = floor_stack(exits, sizes)
        server = stacks.server_text(FLOOR_APP, sizes.web_workers, sizes.web_threads)
        out: dict[str, Any] = {"tool": tool, "load_before": loadavg(), "server": server}
        out["ping"] = hammered(stack, [hammer.Request("GET", "/ping")], spec, tool, spec.floor_seconds,
                               "web floor GET /ping")
        out["update"] = floor_update(stack, spec, tool)
    return out


# -- games ----------------------------------------------------------------------------------
def in_parallel(label: str, count: int, threads: int, job: Callable[[int], Any]) -> list[Any]:
    """job(0..count-1) on `threads` threads, results in order; the first failure is raised."""
    bar = Progress(label, count)
    with ThreadPoolExecutor(threads) as pool:
        futures = [pool.submit(job, i) for i in range(count)]
        out = []
        for f in futures:
            out.append(f.result())
            bar.advance()
    bar.close()
    return out


def prepare_games(api: Api, spec: CapacitySpec, count: int, first_index: int, label: str) -> list[Game]:
    """`count` games, every seat joined, seat 1's orders sent once (the round stays open)."""
    load_spec = LoadSpec(count, spec.players, 0, emails=spec.emails)

    def one(i: int) -> Game:
        game_id, _names, tokens = create_game(api, load_spec, first_index + i)
        number, lines = send_orders(api, game_id, tokens[0], None, random.Random(first_index + i))
        return Game(game_id, tokens, number, json.dumps({"round": number, "orders": "\n".join(lines)}))

    return list(in_parallel(label, count, spec.prep_threads, one))


def complete_rounds(api: Api, spec: CapacitySpec, games: list[Game], label: str) -> None:
    """The other seats send their orders once: each round becomes ready and its doorbell rings."""

    def one(i: int) -> None:
        g = games[i]
        for seat, token in enumerate(g.tokens[1:], start=1):
            send_orders(api, g.id, token, g.round, random.Random(f"{g.id}/{seat}"))

    in_parallel(label, len(games), spec.prep_threads, one)


# -- the database and the resolve queue ------------------------------------------------------
class Db:
    """One autocommit connection of the bench's own (its backend is left out of the CPU figures)."""

    def __init__(self, url: str) -> None:
        import psycopg

        self.conn = psycopg.connect(url, autocommit=True)
        self.backend = int(self.conn.execute("SELECT pg_backend_pid()").fetchone()[0])  # type: ignore[index]

    def scalar(self, sql: str, *params: Any) -> Any:
        row = self.conn.execute(sql, params).fetchone()
        return row[0] if row else None

    def rounds_by_status(self) -> dict[str, int]:
        rows = self.conn.execute("SELECT status, COUNT(*) FROM rounds GROUP BY status").fetchall()
        return {str(s): int(n) for s, n in rows}

    def resolved(self) -> int:
        return int(self.scalar("SELECT COUNT(*) FROM rounds WHERE status = 'resolved'"))

    def close(self) -> None:
        self.conn.close()


class Queue:
    """The resolve queue's Redis list (kombu: the global key prefix + the queue's name)."""

    def __init__(self, stack: Stack) -> None:
        import redis

        self.redis = redis.Redis.from_url(stack.env["REDIS_URL"])
        self.key = stack.env["DICEPOST_REDIS_PREFIX"] + stack.env["DICEPOST_QUEUE_PREFIX"] + "resolve"

    def length(self) -> int:
        return int(self.redis.llen(self.key))

    def set_aside(self, name: str, expected: int) -> str:
        """Move the queued doorbells to a list of their own (RENAME: one atomic step)."""
        held = f"{self.key}:held:{name}"
        if self.length() != expected:
            keys = [k.decode() for k in self.redis.scan_iter(match=self.key.split(":")[0] + "*", count=500)]
            raise RuntimeError(f"{self.key} holds {self.length()} doorbells, expected {expected}; "
                               f"keys: {keys}")
        self.redis.rename(self.key, held)
        return held

    def put_back(self, held: str) -> None:
        if not self.redis.renamenx(held, self.key):
            raise RuntimeError(f"{self.key} is not empty: the held doorbells were not put back")


# -- the two phases ----------------------------------------------------------------------------
def submission_requests(games: list[Game]) -> list[hammer.Request]:
    """Seat 1's PUT of the orders the service accepted before, in every game."""
    return [hammer.Request("PUT", f"/api/games/{g.id}/orders", g.body, g.tokens[0]) for g in games]


def submission_phase(stack: Stack, db: Db, games: list[Game], spec: CapacitySpec,
                     tool: str) -> dict[str, Any]:
    requests = submission_requests(games)
    def stored() -> int:
        return int(db.scalar("SELECT COUNT(*) FROM submissions"))

    out = hammered(stack, requests, spec, tool, spec.seconds, "capacity: submissions", stored)
    out.update(games=len(games), players=spec.players, rounds_by_status=db.rounds_by_status(),
               versions_per_round_at_end=stored() / max(len(games), 1))
    return out


SUCCEEDED = re.compile(r"Task worker\.tasks\.resolve_round\[[^\]]+\] succeeded in ([\d.]+)s: (\w+)")
TASK_FAILED = re.compile(r"Task worker\.tasks\.resolve_round\[[^\]]+\] (raised|retry|failed)")


def worker_log_counts(text: str) -> dict[str, Any]:
    """From the workers' INFO log: tasks that resolved their own round (True; each may
    take further ready rounds along), found it resolved already (False), failed, ERROR
    lines, and the median seconds a task took in the worker."""
    times, results = [], {"True": 0, "False": 0}
    for m in SUCCEEDED.finditer(text):
        times.append(float(m.group(1)))
        results[m.group(2)] = results.get(m.group(2), 0) + 1
    return {"resolved": results.get("True", 0), "nothing_to_do": results.get("False", 0),
            "failed": len(TASK_FAILED.findall(text)),
            "error_lines": sum(1 for line in text.splitlines() if " ERROR/" in line or "Traceback" in line),
            "task_ms_p50": 1000 * statistics.median(times) if times else None}


def wait_resolved(db: Db, target: int, timeout: float, bar: Progress | None = None,
                  base: int = 0) -> tuple[int, float]:
    """Poll until `target` rounds are resolved: (resolved, monotonic time it was seen)."""
    end = time.monotonic() + timeout
    while True:
        done = db.resolved()
        now = time.monotonic()
        if bar:
            bar.update(done - base, f"{done - base} rounds")
        if done >= target or now > end:
            return done, now
        time.sleep(0.05)


def resolution_phase(stack: Stack, db: Db, api: Api, games: list[Game], sizes: FullSizes,
                     spec: CapacitySpec) -> dict[str, Any]:
    queue = Queue(stack)
    complete_rounds(api, spec, games, "capacity: rounds made ready")
    ready = db.rounds_by_status().get("ready", 0)
    main = queue.set_aside("main", len(games))
    # hidden from the warm-up, whose tasks would otherwise take them along (SKIP LOCKED)
    main_ids = [g.id for g in games]
    db.conn.execute("UPDATE rounds SET status = 'held' WHERE status = 'ready' AND game_id = ANY(%s)",
                    (main_ids,))
    warm_count = spec.warm_rounds_per_worker * sizes.workers * sizes.concurrency
    warm = prepare_games(api, spec, warm_count, 1_000_000, "capacity: warm-up games")
    complete_rounds(api, spec, warm, "capacity: warm-up rounds ready")
    held_warm = queue.set_aside("warm", warm_count)

    started = time.monotonic()
    workers = stacks.launch_workers(stack, sizes, mail=False)
    for w in workers:
        stacks.wait_log(stack, w, b" ready.", 120)
    boot_s = time.monotonic() - started
    queue.put_back(held_warm)
    done, _ = wait_resolved(db, warm_count, 60)
    if done < warm_count:
        raise RuntimeError(f"the workers resolved {done} of {warm_count} warm-up rounds in 60 s:\n"
                           + "\n".join(w.tail() for w in workers))

    settled = time.monotonic() + 60
    while queue.length() and time.monotonic() < settled:  # warm doorbells whose round went along
        time.sleep(0.05)
    db.conn.execute("UPDATE rounds SET status = 'ready' WHERE status = 'held' AND game_id = ANY(%s)",
                    (main_ids,))
    offsets = [w.log.stat().st_size for w in workers]
    split_before = worker_split(workers)
    bar = Progress(f"capacity: resolution, {sizes.workers} workers", len(games))
    with Stretch(stack, frozenset({db.backend}), stack.env["REDIS_URL"]) as stretch:
        t0 = time.monotonic()
        queue.put_back(main)
        done, seen_at = wait_resolved(db, warm_count + len(games), spec.timeout, bar, base=warm_count)
    cpu = stretch.cpu
    split = cpu_delta(split_before, worker_split(workers))
    resolved = done - warm_count
    bar.close(f"{resolved} rounds in {seen_at - t0:.1f}s")
    span = db.conn.execute(
        "SELECT MIN(resolved_at), MAX(resolved_at) FROM rounds WHERE status = 'resolved' "
        "AND game_id = ANY(%s)", ([g.id for g in games],)).fetchone()
    first_to_last = (span[1] - span[0]).total_seconds() if span and span[0] and span[1] else 0.0
    logs = worker_log_counts("".join(_read_from(w, off) for w, off in zip(workers, offsets, strict=True)))
    seconds = seen_at - t0
    # a task that finds its round resolved is no error: another task took it along
    errors = (len(games) - resolved) + logs["failed"] + logs["error_lines"]
    return {
        "workers": sizes.workers, "concurrency": sizes.concurrency, "rounds": len(games),
        "ready_before": ready, "resolved": resolved, "seconds": seconds,
        "rounds_per_s": resolved / seconds if seconds > 0 else 0.0,
        "first_to_last_s": first_to_last,
        "first_to_last_per_s": (resolved - 1) / first_to_last if first_to_last > 0 else None,
        "warm_rounds": warm_count, "worker_boot_s": boot_s, "log": logs, "errors": errors,
        "cpu_seconds": cpu, "cpu_ms_per_round": per_unit_ms(cpu, resolved), "machine": stretch.machine(),
        "pg_connections_opened": stretch.connections_opened,
        "worker_split_ms_per_round": per_unit_ms(split, resolved),
        "mail_queued": _mail_pending(db), "load_after": loadavg(),
    }


def worker_split(workers: list[Proc]) -> dict[str, float]:
    """The workers' CPU seconds: Celery's main process (consumer) apart from its pool children (the tasks)."""
    main = sum(procs.cpu_seconds(w.popen.pid) for w in workers)
    pool = sum(procs.cpu_seconds(pid) for w in workers for pid in procs.tree(w.popen.pid)[1:])
    return {"consumer": main, "pool": pool}


def _read_from(proc: Proc, offset: int) -> str:
    with proc.log.open("rb") as f:
        f.seek(offset)
        return f.read().decode(errors="replace")


def _mail_pending(db: Db) -> int:
    return int(db.scalar("SELECT COUNT(*) FROM outbox WHERE status IN ('pending', 'sending')"))


def run(sizes: FullSizes, spec: CapacitySpec) -> dict[str, Any]:
    tool = hammer.choose_tool(spec.tool)
    out: dict[str, Any] = {"tool": tool, "load_before": loadavg(), "sizes": sizes.__dict__,
                           "spec": spec.__dict__}
    with ExitStack() as exits:
        stack = stacks.full_stack(exits, sizes, workers=False, tag="cap")
        api = Api(stack.port)
        db = Db(stack.db_url)
        exits.callback(db.close)
        started = time.monotonic()
        games = prepare_games(api, spec, spec.rounds, 0, "capacity: games")
        out["prepare_s"] = time.monotonic() - started
        out["submission"] = submission_phase(stack, db, games, spec, tool)
        out["resolution"] = resolution_phase(stack, db, api, games, sizes, spec)
        out["memory"] = stack.memory()
    return out
