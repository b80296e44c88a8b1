"""Fixtures of the fault tests: workers we may kill, and PostgreSQL/Redis servers we may restart.

- `faults`: a directory for service.faults pause points (arm, wait, release).
- `fault_world`: a full-mode app on the session's PostgreSQL database, with Redis queues
  private to the test, and a way to start/kill `dicepost worker` processes on them.
- `private_redis`: a throwaway `redis-server --save ''` on a free port (never the shared one).
- `private_pg`: a throwaway PostgreSQL cluster (initdb as the `postgres` user) on a free port.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import signal
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import func, select

from service import create_app
from service.db import engine_of, session_scope
from service.faults import ENV as FAULT_ENV
from service.models import AuditLog, Outbox, Step, StoredMail
from tests.conftest import (
    ROOT,
    WorkerProcess,
    dicepost_command,
    empty_tables,
    free_port,
    full_config,
    full_env,
    wait_for,
)

pytestmark = pytest.mark.slow
PG_BIN = Path("/usr/lib/postgresql/15/bin")


def ready_without_doorbell(table: Any) -> None:
    """Both players' orders stored and the round marked ready, with the doorbell lost."""
    from service import tasks

    original = tasks.send
    tasks.send = lambda app, work: None
    try:
        for seat in ("alice", "bob"):
            assert table.put(seat, "pass").status_code == 200
    finally:
        tasks.send = original


@dataclass
class Faults:
    """service.faults pause points, seen from the test."""

    dir: Path

    def arm(self, name: str) -> None:
        (self.dir / f"release-{name}").unlink(missing_ok=True)
        (self.dir / f"pause-{name}").touch()

    def disarm(self, name: str) -> None:
        (self.dir / f"pause-{name}").unlink(missing_ok=True)

    def release(self, name: str) -> None:
        (self.dir / f"release-{name}").touch()

    def paused(self, name: str) -> list[int]:
        """pids of the processes that reached the point (and are waiting there, unless released)."""
        return sorted(int(p.read_text()) for p in self.dir.glob(f"at-{name}-*"))

    def wait_paused(self, name: str, count: int = 1, timeout: float = 60.0) -> list[int]:
        return wait_for(lambda: len(self.paused(name)) >= count and self.paused(name),  # type: ignore[no-any-return]
                        f"{count} process(es) to pause at {name!r}", timeout)

    def clear(self, name: str) -> None:
        for p in self.dir.glob(f"at-{name}-*"):
            p.unlink()


@pytest.fixture
def faults(tmp_path: Path) -> Faults:
    where = tmp_path / "faults"
    where.mkdir()
    return Faults(where)


@dataclass
class FaultWorld:
    """A full-mode app plus workers on queues private to one test."""

    app: Flask
    env: dict[str, str]
    logs: Path
    workers: list[WorkerProcess] = field(default_factory=list)

    def start_worker(self, concurrency: int = 2) -> WorkerProcess:
        proc = _worker_with(self.env, self.logs / f"worker{len(self.workers)}.log", concurrency)
        self.workers.append(proc)
        proc.wait_ready()
        return proc

    def start_workers(self, count: int, concurrency: int = 2) -> list[WorkerProcess]:
        """Several workers started together, so that they share the queued work."""
        procs = [_worker_with(self.env, self.logs / f"worker{len(self.workers) + i}.log", concurrency)
                 for i in range(count)]
        self.workers.extend(procs)
        for proc in procs:
            proc.wait_ready()
        return procs

    def kill(self, proc: WorkerProcess) -> None:
        """SIGKILL the worker's whole process group (main process and pool), as a dead host would."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.proc.pid, signal.SIGKILL)
        proc.proc.wait(20)

    def count(self, model: Any, *where: Any) -> int:
        with session_scope(self.app) as s, s.begin():
            return int(s.scalar(select(func.count()).select_from(model).where(*where)) or 0)

    def steps(self, game_id: str) -> list[int]:
        with session_scope(self.app) as s, s.begin():
            return list(s.scalars(select(Step.t).where(Step.game_id == game_id).order_by(Step.t)))

    def resolved_audits(self, game_id: str) -> int:
        return self.count(AuditLog, AuditLog.game_id == game_id, AuditLog.action == "resolved")

    def results_mail(self, game_id: str, round_number: int) -> dict[int, list[str]]:
        """seat id -> statuses of its 'results' outbox rows for that round."""
        found: dict[int, list[str]] = {}
        with session_scope(self.app) as s, s.begin():
            for row in s.scalars(select(Outbox).where(Outbox.game_id == game_id, Outbox.kind == "results")):
                if row.payload.get("round") == round_number and row.seat_id is not None:
                    found.setdefault(row.seat_id, []).append(row.status)
        return found

    def stored_results(self, game_id: str, round_number: int) -> dict[int, int]:
        """outbox id -> mails stored for it, for that round's 'results' rows (the embedded mailbox
        of full mode without SMTP_URL: one stored mail per delivery)."""
        found: dict[int, int] = {}
        with session_scope(self.app) as s, s.begin():
            rows = s.execute(select(Outbox.id, Outbox.payload, StoredMail.id).join(
                StoredMail, StoredMail.outbox_id == Outbox.id).where(
                Outbox.game_id == game_id, Outbox.kind == "results")).all()
        for outbox_id, payload, _stored in rows:
            if payload.get("round") == round_number:
                found[outbox_id] = found.get(outbox_id, 0) + 1
        return found


def _worker_with(env: dict[str, str], log: Path, concurrency: int) -> WorkerProcess:
    """tests.conftest.WorkerProcess, with another pool size than its "-c 2"."""
    proc = WorkerProcess.__new__(WorkerProcess)
    proc.log = log
    proc.handle = log.open("wb")
    proc.proc = subprocess.Popen([*dicepost_command(), "worker", "-c", str(concurrency), "--loglevel", "INFO"],
                                 env=env, stdout=proc.handle, stderr=subprocess.STDOUT, cwd=ROOT,
                                 start_new_session=True)
    return proc


def world_env(pg_url: str, redis_url: str, faults: Faults, **extra: str) -> dict[str, str]:
    tag = secrets.token_hex(4)
    redis_env = {"REDIS_URL": redis_url, "DICEPOST_REDIS_PREFIX": f"dicepost_f_{tag}:",
                 "DICEPOST_QUEUE_PREFIX": f"f{tag}_"}
    env = full_env(pg_url, redis_env)
    env[FAULT_ENV] = str(faults.dir)
    env.update(extra)
    return env


def make_world(pg_url: str, env: dict[str, str], logs: Path, **config: Any) -> FaultWorld:
    redis_env = {k: env[k] for k in ("REDIS_URL", "DICEPOST_REDIS_PREFIX", "DICEPOST_QUEUE_PREFIX")}
    app = create_app(full_config(pg_url, redis_env, **config))
    return FaultWorld(app, env, logs)


@pytest.fixture
def fault_world(pg_url: str, redis_env: dict[str, str], faults: Faults, tmp_path: Path
                ) -> Iterator[FaultWorld]:
    env = world_env(pg_url, redis_env["REDIS_URL"], faults)
    world = make_world(pg_url, env, tmp_path)
    empty_tables(world.app)
    try:
        yield world
    finally:
        faults.release("resolve")
        faults.release("mail-sent")
        for proc in world.workers:
            proc.stop()
        engine_of(world.app).dispose()
        _drop_redis_keys(env["REDIS_URL"], env["DICEPOST_REDIS_PREFIX"])


def _drop_redis_keys(url: str, prefix: str) -> None:
    import redis

    try:
        client = redis.Redis.from_url(url, socket_timeout=5)
        for key in client.scan_iter(match=prefix + "*", count=500):
            client.delete(key)
    except redis.RedisError:
        pass


class PrivateRedis:
    """redis-server on a free port, no persistence: a restart comes back empty."""

    def __init__(self, workdir: Path) -> None:
        self.port = free_port()
        self.workdir = workdir
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen(["redis-server", "--port", str(self.port), "--bind", "127.0.0.1",
                                      "--save", "", "--appendonly", "no", "--dir", str(self.workdir)],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     start_new_session=True)
        import redis

        def up() -> bool:
            try:
                return bool(redis.Redis.from_url(self.url, socket_timeout=1).ping())
            except redis.RedisError:
                return False

        wait_for(up, f"redis on port {self.port}", 20)

    def shutdown(self) -> None:
        """SHUTDOWN NOSAVE, as an operator or a crashing host would stop it."""
        import redis

        with contextlib.suppress(redis.ConnectionError):
            redis.Redis.from_url(self.url, socket_timeout=5).shutdown(nosave=True)
        if self.proc is not None:
            self.proc.wait(10)

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)


@pytest.fixture
def private_redis(tmp_path: Path) -> Iterator[PrivateRedis]:
    if shutil.which("redis-server") is None:
        pytest.skip("redis-server is not installed")
    server = PrivateRedis(tmp_path)
    server.start()
    try:
        yield server
    finally:
        server.kill()


class PrivatePostgres:
    """A throwaway PostgreSQL cluster owned by the `postgres` user, on a free port."""

    def __init__(self, root: Path) -> None:
        self.port = free_port()
        self.data = root / "pgdata"
        self.log = root / "pg.log"
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def _as_postgres(self, *cmd: str, timeout: float = 60) -> None:
        prefix = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        subprocess.run([*prefix, *cmd], check=True, timeout=timeout, stdout=subprocess.DEVNULL,
                       stderr=subprocess.STDOUT)

    def init(self) -> None:
        self.data.parent.mkdir(parents=True, exist_ok=True)
        if os.geteuid() == 0:
            shutil.chown(self.data.parent, "postgres")
        self._as_postgres(str(PG_BIN / "initdb"), "-D", str(self.data), "-A", "trust", "-U", "postgres",
                          "--no-sync")

    def start(self) -> None:
        self._as_postgres(str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-l", str(self.log), "-w", "-t", "60",
                          "-o", f"-p {self.port} -k /tmp -c listen_addresses=127.0.0.1 -c fsync=on", "start")

    def stop(self, mode: str = "fast") -> None:
        self._as_postgres(str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "-t", "60", "stop")


@pytest.fixture
def private_pg(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PrivatePostgres]:
    if not (PG_BIN / "initdb").exists():
        pytest.skip("PostgreSQL 15 server binaries are not installed")
    root = Path(f"/tmp/dicepost_pg_{secrets.token_hex(4)}")
    server = PrivatePostgres(root)
    server.init()
    server.start()
    try:
        yield server
    finally:
        with contextlib.suppress(subprocess.CalledProcessError):
            server.stop("immediate")
        shutil.rmtree(root, ignore_errors=True)
