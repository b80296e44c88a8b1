"""Shared fixtures; every test session isolates itself from the others running at once.

- `sqlite_app`: the embedded default on a temporary SQLite file (tasks in-process), a copy
  of `migrated_sqlite`'s template: the migrations run once a process, not once a test
  (tests/service/test_migrations.py runs them itself).
- `pg_url`: a fresh PostgreSQL database for this session (dicepost_t_<pid>_<rand>,
  created from the `postgres` database on 127.0.0.1:5432, dropped at the end);
  `pg_app`: an app on it with every table emptied before the test.
- `app`: parametrized over both databases, for flows that must hold on each.
- `redis_env`: REDIS_URL plus a key prefix and queue names unique to this session.
- `worker`: a real `dicepost worker` subprocess on the session's PostgreSQL and Redis.
- `live_server`: an app served over real HTTP on a random free port.

No test writes the checkout's own instance/ (the embedded default's SQLite file, secret
key and demo links, which `make run` uses): DICEPOST_INSTANCE_PATH points every app and
every subprocess at a temporary folder, and `checkout_instance_untouched` fails the
session if instance/ changed anyway.
"""

from __future__ import annotations

import contextlib
import functools
import os
import secrets
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from jinja2 import BytecodeCache
from jinja2.bccache import Bucket
from sqlalchemy import text

from service import create_app
from service.db import engine_of
from service.migrate import upgrade
from service.models import Base

PG_ADMIN = os.environ.get("DICEPOST_TEST_PG", "postgresql://postgres@127.0.0.1:5432/postgres")
REDIS_URL = os.environ.get("DICEPOST_TEST_REDIS", "redis://127.0.0.1:6379/0")
ROOT = Path(__file__).resolve().parent.parent
SESSION_TAG = f"{os.getpid()}_{secrets.token_hex(3)}"
CHECKOUT_INSTANCE = ROOT / "instance"
# Set before any app is made (create_app reads it), inherited by every subprocess.
# Tests make many apps, some never disposed until collected: a small pool each keeps the
# suite within PostgreSQL's 100 connections (the service's default of 10 is for a web server).
os.environ.setdefault("DICEPOST_DB_POOL_SIZE", "2")
os.environ["DICEPOST_INSTANCE_PATH"] = tempfile.mkdtemp(prefix=f"dicepost-instance-{SESSION_TAG}-")
# This process's migrated database templates, removed with the instance folder.
TEMPLATES = Path(tempfile.mkdtemp(prefix=f"dicepost-templates-{SESSION_TAG}-"))
# One seal key for the session's apps and the subprocesses that share their databases
# (full mode requires it; tests/service/test_seal.py tries the instance file and wrong keys).
SEAL_KEY = os.environ.setdefault("DICEPOST_SEAL_KEY", secrets.token_hex(32))


class _SharedTemplates(BytecodeCache):
    """Jinja's compiled templates shared by every app of this process. A test makes apps
    of its own, and each new app's Jinja environment would compile every template it renders
    again; the key holds the template's name and a checksum of its source, so an edited
    template is compiled anew."""

    def __init__(self) -> None:
        self.compiled: dict[str, bytes] = {}

    def load_bytecode(self, bucket: Bucket) -> None:
        code = self.compiled.get(bucket.key)
        if code is not None:
            bucket.bytecode_from_string(code)

    def dump_bytecode(self, bucket: Bucket) -> None:
        self.compiled[bucket.key] = bucket.bytecode_to_string()


# Every app made in this process after the import (create_app copies Flask's jinja_options).
Flask.jinja_options = {**Flask.jinja_options, "bytecode_cache": _SharedTemplates()}


# `make check` leaves out the tests marked `browser` or `processes` (pyproject.toml): set here
# from the fixtures a test uses, the folders whose every test starts processes, and the
# modules that run the `dicepost` command (dicepost_command) or are marked slow.
PROCESS_FIXTURES = {"worker", "fault_world", "private_pg", "private_redis", "dovecot", "mail_worker"}
PROCESS_FOLDERS = {"faults", "integration", "packaging"}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        used = set(getattr(item, "fixturenames", ()))
        if "browser" in used:
            item.add_marker(pytest.mark.browser)
        folder = item.path.relative_to(ROOT / "tests").parts[0]
        runs_command = getattr(getattr(item, "module", None), "dicepost_command", None) is not None
        if (used & PROCESS_FIXTURES or folder in PROCESS_FOLDERS or runs_command
                or item.get_closest_marker("slow")):
            item.add_marker(pytest.mark.processes)
    # pytest-xdist hands out tests in this order: the modules of the longest tests (builds,
    # then those that start processes or the browser) first, so none of them starts last while
    # the other workers sit idle. A module's tests stay together and in their order.
    def weight(item: pytest.Item) -> int:
        return next((rank for rank, mark in enumerate(("packaging", "processes", "browser"))
                     if item.get_closest_marker(mark)), 3)

    first: dict[Path, int] = {}
    for item in items:
        first[item.path] = min(first.get(item.path, 3), weight(item))
    items.sort(key=lambda item: first[item.path])


def _instance_snapshot() -> dict[str, tuple[int, int]]:
    if not CHECKOUT_INSTANCE.is_dir():
        return {}
    return {str(p.relative_to(CHECKOUT_INSTANCE)): (p.stat().st_size, p.stat().st_mtime_ns)
            for p in CHECKOUT_INSTANCE.rglob("*") if p.is_file()}


@pytest.fixture(autouse=True)
def dispose_engines(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Tests make apps in many places (a world, a server, a client per test), and an app's
    pool keeps its connections open until disposed: across the suite that exceeds
    PostgreSQL's 100 clients. Every engine a test makes is disposed after it."""
    import service.db as db

    made: list[Any] = []
    original = db.make_engine

    def tracked(url: str, *args: Any, **kwargs: Any) -> Any:
        engine = original(url, *args, **kwargs)
        made.append(engine)
        return engine

    monkeypatch.setattr(db, "make_engine", tracked)
    yield
    for engine in made:
        engine.dispose()


@pytest.fixture(scope="session", autouse=True)
def checkout_instance_untouched() -> Iterator[None]:
    """The checkout's instance/ is the developer's: `make run` after `make test` must print
    links that answer. Fails the session when a test wrote there."""
    before = _instance_snapshot()
    yield
    after = _instance_snapshot()
    if after != before:
        changed = sorted(name for name in before.keys() | after.keys()
                         if before.get(name) != after.get(name))
        pytest.fail(f"tests wrote the checkout's instance/: {', '.join(changed)}", pytrace=False)
    shutil.rmtree(os.environ["DICEPOST_INSTANCE_PATH"], ignore_errors=True)
    shutil.rmtree(TEMPLATES, ignore_errors=True)


# The mail domains the tests' players use count as confirmed (DICEPOST_CONFIRMED_DOMAINS):
# the tests that give such addresses and expect mail get it, as once the address's owner
# pressed the link. tests/security/test_address_confirmation.py plays the confirmation
# itself with addresses elsewhere (CONFIRM_DOMAIN).
TEST_DOMAINS = ("example.org", "example.com", "example.net", "dicepost.test", "dicepost.localhost",
                "dicepost.example", "new.example", "else.example", "evil.example", "evil.org", "d.test",
                "b.example", "other.org", "y.z", "c.d", "b.c")
CONFIRM_DOMAIN = "unconfirmed.example"


def clean_env(**extra: str) -> dict[str, str]:
    """This process's environment without the service's settings, except the session's
    instance folder and seal key, plus `extra`: what a subprocess under test starts from."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("DATABASE_URL", "REDIS_URL", "SECRET_KEY") and not k.startswith("DICEPOST_")}
    env["DICEPOST_INSTANCE_PATH"] = os.environ["DICEPOST_INSTANCE_PATH"]
    env["DICEPOST_SEAL_KEY"] = SEAL_KEY
    env["DICEPOST_CONFIRMED_DOMAINS"] = ",".join(TEST_DOMAINS)
    env.update(extra)
    return env


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def base_config(database_url: str, **extra: Any) -> dict[str, Any]:
    # The limits on mail to strangers are off: tests make many games from one client with
    # the same addresses. tests/security/test_send_limits.py sets them itself.
    return {"DATABASE_URL": database_url, "REDIS_URL": None, "TESTING": True,
            "GAMES_PER_CLIENT": "off", "INVITATIONS_PER_ADDRESS": 1_000_000,
            "CONFIRMED_DOMAINS": TEST_DOMAINS,
            "WTF_CSRF_ENABLED": False, "SECRET_KEY": "test-secret", "BASE_URL": "http://dicepost.test",
            **extra}


@functools.cache
def _sqlite_template() -> Path:
    """An SQLite file migrated to head by this process, once: one journal file (no WAL
    beside it), so a plain copy is the whole database."""
    path = TEMPLATES / "template.sqlite3"
    made = create_app(base_config(f"sqlite:///{path}"))
    upgrade(engine_of(made))
    engine_of(made).dispose()
    with closing(sqlite3.connect(path)) as conn:
        conn.execute("PRAGMA journal_mode=DELETE")
    return path


def migrated_sqlite(path: Path) -> str:
    """The URL of a new SQLite file at `path` holding the schema at head (the template's copy),
    as `dicepost db upgrade` would leave an empty file."""
    shutil.copyfile(_sqlite_template(), path)
    return f"sqlite:///{path}"


def sqlite_app_with(tmp_path: Path, **extra: Any) -> Iterator[Flask]:
    """An embedded-mode app on a fresh, migrated SQLite file; extra config on top."""
    app = create_app(base_config(migrated_sqlite(tmp_path / "dicepost.sqlite3"), **extra))
    yield app
    engine_of(app).dispose()


class _LoopbackClient(FlaskClient):
    def open(self, *args: Any, **kwargs: Any) -> Any:
        kwargs.setdefault("base_url", "http://127.0.0.1/")
        return super().open(*args, **kwargs)


def loopback_client(app: Flask) -> FlaskClient:
    """A test client whose requests reach the app as `dicepost run` serves it, on 127.0.0.1
    (the embedded mailbox answers only there), not at its SERVER_NAME (the base URL's host)."""
    return _LoopbackClient(app, app.response_class, use_cookies=True)


@pytest.fixture
def sqlite_app(tmp_path: Path) -> Iterator[Flask]:
    yield from sqlite_app_with(tmp_path)


def _pg_admin() -> Any:
    import psycopg

    return psycopg.connect(PG_ADMIN, autocommit=True)


@pytest.fixture(scope="session")
def pg_url() -> Iterator[str]:
    name = f"dicepost_t_{SESSION_TAG}"
    try:
        with _pg_admin() as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
    except Exception as exc:  # pragma: no cover - the machine's PostgreSQL is part of the suite
        pytest.fail(f"cannot create a PostgreSQL test database at {PG_ADMIN}: {exc}")
    url = PG_ADMIN.rsplit("/", 1)[0] + f"/{name}"
    migrated = create_app(base_config(url))
    upgrade(engine_of(migrated))
    engine_of(migrated).dispose()
    yield url
    with _pg_admin() as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def wait_for(predicate: Callable[[], Any], what: str, timeout: float = 60.0) -> Any:
    """Poll until predicate() is truthy (its value is returned) or fail after timeout seconds."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}")


def empty_tables(app: Flask, attempts: int = 20) -> None:
    """Empty every table between tests. A shared worker may still be finishing the last
    test's tasks and hold row locks, so PostgreSQL can pick the TRUNCATE as a deadlock
    victim or make it wait: retry (bounded) until the leftovers are done."""
    from sqlalchemy.exc import OperationalError

    names = ", ".join(t.name for t in reversed(Base.metadata.sorted_tables))
    for attempt in range(attempts):
        try:
            with engine_of(app).begin() as conn:
                if conn.dialect.name == "postgresql":
                    conn.execute(text("SET LOCAL lock_timeout = '2s'"))
                conn.execute(text(f"TRUNCATE {names} RESTART IDENTITY CASCADE"))
            return
        except OperationalError:
            if attempt == attempts - 1:
                raise
            time.sleep(0.25)


@pytest.fixture
def pg_app(pg_url: str) -> Iterator[Flask]:
    app = create_app(base_config(pg_url))
    empty_tables(app)
    yield app
    engine_of(app).dispose()


@pytest.fixture(params=["sqlite", "postgres"])
def app(request: pytest.FixtureRequest) -> Flask:
    return request.getfixturevalue(f"{request.param}_app" if request.param == "sqlite" else "pg_app")


@pytest.fixture
def client(app: Flask) -> Any:
    return app.test_client()


@pytest.fixture(scope="session")
def redis_env() -> Iterator[dict[str, str]]:
    """Environment for full mode, private to this session (key prefix and queue names)."""
    import redis

    prefix = f"dicepost_t_{SESSION_TAG}:"
    env = {"REDIS_URL": REDIS_URL, "DICEPOST_REDIS_PREFIX": prefix,
           "DICEPOST_QUEUE_PREFIX": f"t{SESSION_TAG}_"}
    yield env
    client = redis.Redis.from_url(REDIS_URL)
    for key in client.scan_iter(match=prefix + "*", count=500):
        client.delete(key)


def full_config(pg_url: str, redis_env: dict[str, str], **extra: Any) -> dict[str, Any]:
    return base_config(pg_url, REDIS_URL=redis_env["REDIS_URL"],
                       QUEUE_PREFIX=redis_env["DICEPOST_QUEUE_PREFIX"],
                       REDIS_PREFIX=redis_env["DICEPOST_REDIS_PREFIX"], **extra)


def dicepost_command() -> list[str]:
    script = shutil.which("dicepost", path=str(Path(sys.executable).parent))
    return [script] if script else [sys.executable, "-m", "service.cli"]


class WorkerProcess:
    def __init__(self, env: dict[str, str], log: Path) -> None:
        self.log = log
        self.handle = log.open("wb")
        self.proc = subprocess.Popen([*dicepost_command(), "worker", "-c", "2", "--loglevel", "INFO"],
                                     env=env, stdout=self.handle, stderr=subprocess.STDOUT,
                                     cwd=ROOT, start_new_session=True)

    def wait_ready(self, timeout: float = 60.0) -> None:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the worker exited:\n{self.log.read_text()[-3000:]}")
            if b" ready." in self.log.read_bytes():
                return
            time.sleep(0.2)
        raise RuntimeError(f"the worker did not start:\n{self.log.read_text()[-3000:]}")

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(10)
        # a pool process still inside a task outlives its main process: it must not go on
        # resolving rounds in the next test's tables
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.handle.close()


def full_env(pg_url: str, redis_env: dict[str, str]) -> dict[str, str]:
    # Webhooks to the tests' receivers on loopback, as a deployment may allow (service.webhooks.guard).
    return clean_env(**redis_env, DATABASE_URL=pg_url, SECRET_KEY="test-secret", PYTHONUNBUFFERED="1",
                     DICEPOST_WEBHOOKS_LOOPBACK="1")


@pytest.fixture(scope="session")
def worker(pg_url: str, redis_env: dict[str, str], tmp_path_factory: pytest.TempPathFactory
           ) -> Iterator[WorkerProcess]:
    proc = WorkerProcess(full_env(pg_url, redis_env), tmp_path_factory.mktemp("worker") / "worker.log")
    try:
        proc.wait_ready()
        yield proc
    finally:
        proc.stop()


class LiveServer:
    def __init__(self, app: Flask) -> None:
        from werkzeug.serving import make_server

        from service.commands.serve import closed_when_sent
        from service.config import url_settings

        # As `dicepost serve` serves it.
        self.server = make_server("127.0.0.1", 0, closed_when_sent(app), threaded=True)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        app.config.update(BASE_URL=self.url, **url_settings(self.url))
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.thread.join(10)


CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
# Every browser test module: `pytestmark = BROWSER`.
BROWSER = [pytest.mark.browser,
           pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed at "
                              "/usr/bin/chromium (apt-get install -y chromium)")]


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """Debian's chromium under Playwright, launched once a test process; each test opens
    contexts of its own (their cookies, storage and pages) and closes them."""
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        launched = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture
def live_server(app: Flask) -> Iterator[LiveServer]:
    server = LiveServer(app)
    yield server
    server.stop()
