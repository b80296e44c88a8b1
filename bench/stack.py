"""The service on loopback, started and stopped by the bench.

Full: `dicepost db upgrade` on a private PostgreSQL database, `dicepost web` (granian, as the
image runs it) serving the app,
N `dicepost worker` processes, Redis with a private key prefix and queue names.
Embedded: `dicepost serve` (Werkzeug threads, SQLite, tasks in-process).
"""

from __future__ import annotations

import http.client
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench import procs
from bench.pgdb import ADMIN_URL, private_database
from service.supervise import CHILD_ENV

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


@dataclass(frozen=True)
class FullSizes:
    web_workers: int = 2
    web_threads: int = 8
    workers: int = 2
    concurrency: int = 1
    redis_db: int = 11
    mail_workers: int = 0  # >0: resolution workers take only the resolve queue, these the mail queue


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def dicepost() -> list[str]:
    script = BIN / "dicepost"
    return [str(script)] if script.exists() else [sys.executable, "-m", "service.cli"]


@dataclass
class Proc:
    role: str  # "web", "worker 1", ...
    popen: subprocess.Popen[bytes]
    log: Path

    def stop(self) -> None:
        if self.popen.poll() is None:
            os.killpg(self.popen.pid, signal.SIGTERM)
            try:
                self.popen.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(self.popen.pid, signal.SIGKILL)
                self.popen.wait(10)

    def tail(self) -> str:
        return self.log.read_text(errors="replace")[-3000:]


@dataclass
class Stack:
    kind: str  # "full" or "embedded"
    port: int
    env: dict[str, str]
    workdir: Path
    db_url: str
    procs: list[Proc] = field(default_factory=list)
    database: str = ""  # the PostgreSQL database's name (its backends' CPU is counted)

    def start(self, role: str, args: list[str]) -> Proc:
        log = self.workdir / (role.replace(" ", "_") + ".log")
        popen = subprocess.Popen(args, env=self.env, cwd=ROOT, stdout=log.open("wb"),
                                 stderr=subprocess.STDOUT, start_new_session=True)
        proc = Proc(role, popen, log)
        self.procs.append(proc)
        return proc

    def stop(self) -> None:
        for p in reversed(self.procs):
            p.stop()

    def check_alive(self) -> None:
        for p in self.procs:
            if p.popen.poll() is not None:
                raise RuntimeError(f"{p.role} exited ({p.popen.returncode}):\n{p.tail()}")

    def memory(self) -> list[dict[str, Any]]:
        """Peak RSS (VmHWM) of every process of the stack, children included."""
        rows = []
        for p in self.procs:
            for pid in procs.tree(p.popen.pid):
                rss = procs.peak_rss_mb(pid)
                if rss is not None:
                    rows.append({"role": p.role, "pid": pid, "process": procs.name(pid), "peak_rss_mb": rss})
        return rows

    def cpu(self) -> dict[str, float]:
        """CPU seconds so far by role, plus this stack's PostgreSQL backends as "postgres"."""
        out: dict[str, float] = {}
        for p in self.procs:
            role = p.role.split()[0]
            out[role] = out.get(role, 0.0) + sum(procs.cpu_seconds(pid) for pid in procs.tree(p.popen.pid))
        if self.database:
            out["postgres"] = sum(procs.cpu_seconds(pid) for pid in backend_pids(self.database))
        return out


def sessions(database: str) -> int:
    """Connections opened to `database` so far (pg_stat_database.sessions; its stats lag by up to ~1 s)."""
    import psycopg

    with psycopg.connect(ADMIN_URL, autocommit=True) as conn:
        row = conn.execute("SELECT sessions FROM pg_stat_database WHERE datname = %s", (database,)).fetchone()
        return int(row[0]) if row and row[0] is not None else 0


class BackendSampler:
    """CPU seconds of one database's PostgreSQL backends over a stretch of time (a `with` block).

    A snapshot before and after loses the backends that end in between (a SQLAlchemy pool
    closes its overflow connections when they come back), and counts against the stretch
    the CPU a backend had used before it. Here every backend is read from /proc every
    `every` seconds: each counts from its first reading (0 for one that started inside
    the stretch) to its last, so only connections that live shorter than `every` are
    missed, in part (sessions() says how many were opened).
    """

    def __init__(self, database: str, exclude: frozenset[int] = frozenset(), every: float = 0.1) -> None:
        self.database = database
        self.exclude = exclude
        self.every = every
        self.first: dict[int, float] = {}
        self.last: dict[int, float] = {}
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> BackendSampler:
        import psycopg

        self.conn = psycopg.connect(ADMIN_URL, autocommit=True)
        self.first = self._sample()
        self.last = dict(self.first)
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join(5)
        self.last.update(self._sample())
        self.conn.close()

    def total(self) -> float:
        return sum(cpu - self.first.get(pid, 0.0) for pid, cpu in self.last.items())

    def _sample(self) -> dict[int, float]:
        rows = self.conn.execute("SELECT pid FROM pg_stat_activity WHERE datname = %s",
                                 (self.database,)).fetchall()
        out = {}
        for (pid,) in rows:
            if int(pid) not in self.exclude:
                out[int(pid)] = procs.cpu_seconds(int(pid))
        return out

    def _run(self) -> None:
        while not self.stop.wait(self.every):
            for pid, cpu in self._sample().items():
                self.last[pid] = max(cpu, self.last.get(pid, 0.0))


def backend_pids(database: str) -> list[int]:
    import psycopg

    with psycopg.connect(ADMIN_URL, autocommit=True) as conn:
        return [int(r[0]) for r in conn.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = %s", (database,)).fetchall()]


def wait_http(stack: Stack, timeout: float = 60.0, path: str = "/api/rulesets") -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        stack.check_alive()
        try:
            conn = http.client.HTTPConnection("127.0.0.1", stack.port, timeout=2)
            conn.request("GET", path)
            if conn.getresponse().status == 200:
                return
        except OSError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"the web server did not answer on port {stack.port}")


def wait_log(stack: Stack, proc: Proc, marker: bytes, timeout: float = 60.0) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        stack.check_alive()
        if marker in proc.log.read_bytes():
            return
        time.sleep(0.2)
    raise RuntimeError(f"{proc.role} did not start:\n{proc.tail()}")


def base_env(port: int) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DICEPOST_")
           and k not in ("DATABASE_URL", "REDIS_URL")}
    # One load generator creates every game: the per-client game limit would refuse it. Its
    # players' addresses (example.com) count as confirmed, as a running club's would be.
    env.update(SECRET_KEY=secrets.token_hex(16), DICEPOST_SEAL_KEY=secrets.token_hex(32),
               PYTHONUNBUFFERED="1", DICEPOST_BASE_URL=f"http://127.0.0.1:{port}",
               DICEPOST_GAMES_PER_CLIENT="off", DICEPOST_CONFIRMED_DOMAINS="example.com")
    # `dicepost worker` without its supervisor (service.supervise): the process started is
    # the Celery worker itself, whose CPU the bench splits into consumer and pool.
    env[CHILD_ENV] = "1"
    return env


def migrate(stack: Stack) -> None:
    subprocess.run([*dicepost(), "db", "upgrade"], env=stack.env, cwd=ROOT, check=True, capture_output=True)


SERVICE_APP = "service:create_app()"


def server_text(app: str, workers: int, threads: int) -> str:
    """The web server as the reports name it."""
    what = "`dicepost web` (granian)" if app == SERVICE_APP else "granian"
    return f"{what} --workers {workers} --threads {threads}"


def web_server(app: str, port: int, sizes: FullSizes) -> list[str]:
    """The web server's command line: the stack's and the web floor's are the same but for `app`.

    app: "module:factory()". The service's is `dicepost web`, as the image runs it (its
    startup checks and access log included); another app runs under bare granian with the
    same workers and threads (granian's blocking threads)."""
    if app == SERVICE_APP:
        return [*dicepost(), "web", "--bind", f"127.0.0.1:{port}", "--workers", str(sizes.web_workers),
                "--threads", str(sizes.web_threads)]
    return [shutil.which("granian", path=str(BIN)) or "granian", "--interface", "wsgi", "--factory",
            "--workers", str(sizes.web_workers), "--blocking-threads", str(sizes.web_threads),
            "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning", "--no-ws",
            app.removesuffix("()")]


def full_stack(exits: ExitStack, sizes: FullSizes, workers: bool = True, tag: str = "svc") -> Stack:
    """The web server + workers on a private database and Redis prefix; stopped when `exits` closes.

    workers=False: the web server only; launch_workers() brings workers up later.
    """
    url = exits.enter_context(private_database(tag))
    workdir = Path(exits.enter_context(tempfile.TemporaryDirectory(prefix="dicepost-bench-")))
    port = free_port()
    env = base_env(port)
    env.update(DATABASE_URL=url, REDIS_URL=f"redis://127.0.0.1:6379/{sizes.redis_db}",
               DICEPOST_REDIS_PREFIX=f"dicepost_bench_{os.getpid()}_{tag}:",
               DICEPOST_QUEUE_PREFIX=f"b{os.getpid()}_")
    stack = Stack("full", port, env, workdir, url, database=url.rsplit("/", 1)[1])
    exits.callback(clear_redis, env["REDIS_URL"], env["DICEPOST_REDIS_PREFIX"])
    exits.callback(stack.stop)
    migrate(stack)
    stack.start("web", web_server(SERVICE_APP, port, sizes))
    started = launch_workers(stack, sizes) if workers else []
    wait_http(stack)
    for w in started:
        wait_log(stack, w, b" ready.", 60)
    return stack


def launch_workers(stack: Stack, sizes: FullSizes, mail: bool = True) -> list[Proc]:
    """Start `sizes.workers` resolution workers and the mail workers (wait_log: until " ready.").

    mail=False: the resolution workers only, on the resolve queue alone (mail waits in its queue).
    """
    tag = stack.env["DICEPOST_QUEUE_PREFIX"]
    queues = ["-Q", tag + "resolve"] if sizes.mail_workers or not mail else []
    workers = [stack.start(f"worker {i + 1}", [*dicepost(), "worker", "-c", str(sizes.concurrency),
                                               "--loglevel", "INFO", *queues])
               for i in range(sizes.workers)]
    workers += [stack.start(f"mail {i + 1}", [*dicepost(), "worker", "-c", "1", "--loglevel", "INFO",
                                              "-Q", tag + "mail"])
                for i in range(sizes.mail_workers if mail else 0)]
    return workers


def embedded_stack(exits: ExitStack) -> Stack:
    """`dicepost serve` on a fresh SQLite file: the default a newcomer runs."""
    workdir = Path(exits.enter_context(tempfile.TemporaryDirectory(prefix="dicepost-bench-")))
    port = free_port()
    env = base_env(port)
    env.update(DATABASE_URL=f"sqlite:///{workdir}/dicepost.sqlite3")
    stack = Stack("embedded", port, env, workdir, env["DATABASE_URL"])
    exits.callback(stack.stop)
    migrate(stack)
    stack.start("web", [*dicepost(), "serve", "--port", str(port)])
    wait_http(stack)
    return stack


def clear_redis(url: str, prefix: str) -> None:
    import redis

    client = redis.Redis.from_url(url)
    for key in client.scan_iter(match=prefix + "*", count=500):
        client.delete(key)
