"""The database engine and sessions of one app (SQLAlchemy 2).

SQLite (embedded default) runs in WAL mode and every transaction starts with
`BEGIN IMMEDIATE`, so writers are serialized and a transaction never reads a state
that another writer changes under it; the writers of one process queue for their turn on
a lock rather than in SQLite's busy handler. PostgreSQL uses row locks (SELECT ... FOR UPDATE).
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Any, cast

from flask import Flask, current_app, g
from sqlalchemy import (
    Connection,
    Engine,
    Executable,
    Table,
    bindparam,
    create_engine,
    event,
    insert,
    select,
    update,
)
from sqlalchemy.exc import DisconnectionError
from sqlalchemy.orm import Session, sessionmaker

from service.config import DEFAULT_DB_POOL_SIZE


def make_engine(url: str, pool_size: int = DEFAULT_DB_POOL_SIZE) -> Engine:
    if url.startswith("sqlite"):
        path = url.split("///", 1)[-1]
        if path and path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        # A thread holds its connection while it waits for its turn to write, so the pool
        # keeps one for each of the server's threads: an overflow connection is opened (and
        # its PRAGMAs run) again on every checkout.
        # An in-memory database has one connection per thread (SingletonThreadPool): no sizes.
        in_memory = "///" not in url or path in ("", ":memory:")
        sizes = {} if in_memory else {"pool_size": 2 * pool_size, "max_overflow": pool_size}
        engine = create_engine(url, connect_args={"timeout": 30, "check_same_thread": False,
                                                  "factory": _TurnConnection}, **sizes)
        _sqlite_immediate(engine)
        return engine
    # pool_size connections stay open; as many again may open for a burst (and close after).
    engine = create_engine(url, pool_size=pool_size, max_overflow=pool_size)
    _ping_when_idle(engine)
    return engine


# A pooled connection unused this long is pinged before a request gets it. One in steady
# use is not: a server that died under it fails the statement, and SQLAlchemy then
# replaces every connection of the pool (a restart takes longer than this, so a
# connection from before it has been idle at least that long, or has seen the error).
PING_AFTER_IDLE_SECONDS = 1.0


def _ping_when_idle(engine: Engine) -> None:
    """pool_pre_ping for connections that sat in the pool, not for every checkout (a
    round trip of its own on each request otherwise)."""
    @event.listens_for(engine, "checkin")
    def checked_in(_dbapi_connection: Any, record: Any) -> None:
        record.info["idle_since"] = time.monotonic()

    @event.listens_for(engine, "checkout")
    def checked_out(dbapi_connection: Any, record: Any, _proxy: Any) -> None:
        since = record.info.get("idle_since")  # none yet: a connection just opened
        if since is None or time.monotonic() - since < PING_AFTER_IDLE_SECONDS:
            return
        try:
            cursor = dbapi_connection.cursor()
            try:
                cursor.execute("SELECT 1")
            finally:
                cursor.close()
        except Exception as exc:  # the pool opens a new connection (or raises its error)
            raise DisconnectionError(f"a pooled connection failed its ping: {exc}") from exc


class _TurnConnection(sqlite3.Connection):
    """A SQLite connection that takes its engine's write turn (a lock shared by the engine's
    connections) before BEGIN IMMEDIATE and gives it back at COMMIT or ROLLBACK. Waiting
    writers of this process then queue on the lock and start the moment it is free, where
    SQLite's busy handler would have them sleep and retry (up to 100 ms a retry: the late
    waiters of a busy server waited seconds). Other processes still meet busy_timeout."""

    turn: threading.Lock | None = None
    holding = False

    def take_turn(self) -> None:
        if self.turn is not None and not self.holding:
            # After busy_timeout's 30 s the turn is not ours: BEGIN then waits as SQLite does.
            self.holding = self.turn.acquire(timeout=30)

    def give_back(self) -> None:
        if self.holding and self.turn is not None:
            self.holding = False
            self.turn.release()

    def commit(self) -> None:
        try:
            super().commit()
        finally:
            self.give_back()

    def rollback(self) -> None:
        try:
            super().rollback()
        finally:
            self.give_back()

    def close(self) -> None:
        try:
            super().close()
        finally:
            self.give_back()


def _sqlite_immediate(engine: Engine) -> None:
    # SQLAlchemy's documented recipe for pysqlite transactions, with BEGIN IMMEDIATE.
    turn = threading.Lock()

    @event.listens_for(engine, "connect")
    def on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None
        if isinstance(dbapi_connection, _TurnConnection):
            dbapi_connection.turn = turn
        cur = dbapi_connection.cursor()
        cur.execute("PRAGMA journal_mode=WAL")
        # In WAL, NORMAL syncs the log at checkpoints, not at every COMMIT: the database
        # stays consistent, but the last transactions before a power loss (not a crash of
        # the process) may be lost.
        cur.execute("PRAGMA synchronous=NORMAL")
        cur.execute("PRAGMA foreign_keys=ON")
        cur.execute("PRAGMA busy_timeout=30000")
        cur.close()

    @event.listens_for(engine, "begin")
    def on_begin(conn: Any) -> None:
        dbapi = conn.connection.dbapi_connection
        if isinstance(dbapi, _TurnConnection):
            dbapi.take_turn()
        try:
            conn.exec_driver_sql("BEGIN IMMEDIATE")
        except BaseException:
            if isinstance(dbapi, _TurnConnection):
                dbapi.give_back()
            raise


def is_postgres(engine: Engine) -> bool:
    return engine.dialect.name == "postgresql"


def table_of(model: type[Any]) -> Table:
    """A mapped class's table, for statements of SQLAlchemy Core."""
    return cast(Table, model.__table__)


# One row of a table changed by its id: (table, id, new column values).
RowUpdate = tuple[Table, Any, Mapping[str, Any]]


def insert_together(conn: Connection, rows: Sequence[tuple[Table, Mapping[str, Any]]],
                    change: RowUpdate | None = None) -> list[int]:
    """Insert one row into each table (its column values), and with `change` update one row
    by its id, on the connection of a session's transaction (`session.connection()`), in
    one round trip where the database can (PostgreSQL: data-modifying CTEs), else one
    statement after another; the new rows' ids, in order. SQLAlchemy Core with statements
    built once per shape, for a hot path that needs no ORM objects."""
    shapes = tuple((table, tuple(values)) for table, values in rows)
    changed = (change[0], tuple(change[2])) if change is not None else None
    if (len(rows) > 1 or change is not None) and conn.dialect.name == "postgresql":
        params = {f"r{i}_{name}": value for i, (_table, values) in enumerate(rows)
                  for name, value in values.items()}
        if change is not None:
            params.update({f"u_{name}": value for name, value in change[2].items()}, u__id=change[1])
        ids = list(conn.execute(_inserts_at_once(shapes, changed), params).one())
        return ids[:len(rows)]
    ids = [conn.execute(_insert(table, names), dict(values)).scalar_one()
           for (table, names), (_table, values) in zip(shapes, rows, strict=True)]
    if change is not None and changed is not None:
        conn.execute(_update(*changed), {"u__id": change[1], **{f"u_{n}": v for n, v in change[2].items()}})
    return ids


@lru_cache(maxsize=64)
def _insert(table: Table, names: tuple[str, ...], prefix: str = "") -> Any:
    return insert(table).values({n: bindparam(prefix + n, type_=table.c[n].type) for n in names}) \
        .returning(table.c.id)


@lru_cache(maxsize=16)
def _update(table: Table, names: tuple[str, ...]) -> Any:
    return update(table).where(table.c.id == bindparam("u__id", type_=table.c.id.type)) \
        .values({n: bindparam("u_" + n, type_=table.c[n].type) for n in names}).returning(table.c.id)


@lru_cache(maxsize=64)
def _inserts_at_once(shapes: tuple[tuple[Table, tuple[str, ...]], ...],
                     changed: tuple[Table, tuple[str, ...]] | None = None) -> Executable:
    ctes = [_insert(table, names, f"r{i}_").cte(f"insert_{i}") for i, (table, names) in enumerate(shapes)]
    if changed is not None:
        ctes.append(_update(*changed).cte("update_0"))
    # PostgreSQL runs every data-modifying CTE once, whatever the SELECT reads of it.
    return select(*(select(cte.c.id).scalar_subquery() for cte in ctes))


def init_app(app: Flask) -> None:
    pool_size = int(app.config.get("DB_POOL_SIZE", DEFAULT_DB_POOL_SIZE))
    engine = make_engine(app.config["DATABASE_URL"], pool_size)
    app.extensions["dicepost.engine"] = engine
    app.extensions["dicepost.sessions"] = sessionmaker(engine, expire_on_commit=False)
    app.teardown_appcontext(_close_session)


def engine_of(app: Flask | None = None) -> Engine:
    engine: Engine = (app or current_app).extensions["dicepost.engine"]
    return engine


def new_session(app: Flask | None = None) -> Session:
    sessions: sessionmaker[Session] = (app or current_app).extensions["dicepost.sessions"]
    return sessions()


def get_session() -> Session:
    """The request's (or app context's) session, closed at teardown."""
    if "db" not in g:
        g.db = new_session()
    session: Session = g.db
    return session


@contextmanager
def session_scope(app: Flask | None = None) -> Iterator[Session]:
    session = new_session(app)
    try:
        yield session
    finally:
        session.close()


@contextmanager
def connection_scope(app: Flask | None = None) -> Iterator[Session]:
    """session_scope whose transactions all run on one pooled connection, checked out (and
    pinged) once, for a task that runs a transaction after another."""
    sessions: sessionmaker[Session] = (app or current_app).extensions["dicepost.sessions"]
    with engine_of(app).connect() as conn:
        session = sessions(bind=conn)
        try:
            yield session
        finally:
            session.close()


def _close_session(_exc: BaseException | None) -> None:
    db = g.pop("db", None)
    if db is not None:
        db.close()
