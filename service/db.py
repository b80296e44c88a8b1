"""The database engine and sessions of one app (SQLAlchemy 2).

SQLite (embedded default) runs in WAL mode and every transaction starts with
`BEGIN IMMEDIATE`, so writers are serialized and a transaction never reads a state
that another writer changes under it. PostgreSQL uses row locks (SELECT ... FOR UPDATE).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from flask import Flask, current_app, g
from sqlalchemy import Engine, create_engine, event
from sqlalchemy.orm import Session, sessionmaker

from service.config import DEFAULT_DB_POOL_SIZE


def make_engine(url: str, pool_size: int = DEFAULT_DB_POOL_SIZE) -> Engine:
    if url.startswith("sqlite"):
        path = url.split("///", 1)[-1]
        if path and path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, connect_args={"timeout": 30, "check_same_thread": False})
        _sqlite_immediate(engine)
        return engine
    # pool_size connections stay open; as many again may open for a burst (and close after).
    return create_engine(url, pool_pre_ping=True, pool_size=pool_size, max_overflow=pool_size)


def _sqlite_immediate(engine: Engine) -> None:
    # SQLAlchemy's documented recipe for pysqlite transactions, with BEGIN IMMEDIATE.
    @event.listens_for(engine, "connect")
    def on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None
        cur = dbapi_connection.cursor()
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute("PRAGMA foreign_keys=ON")
        cur.execute("PRAGMA busy_timeout=30000")
        cur.close()

    @event.listens_for(engine, "begin")
    def on_begin(conn: Any) -> None:
        conn.exec_driver_sql("BEGIN IMMEDIATE")


def is_postgres(engine: Engine) -> bool:
    return engine.dialect.name == "postgresql"


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


def _close_session(_exc: BaseException | None) -> None:
    db = g.pop("db", None)
    if db is not None:
        db.close()
