"""The database engine and sessions of one app (SQLAlchemy 2).

SQLite (embedded default) runs in WAL mode and every transaction starts with
`BEGIN IMMEDIATE`, so writers are serialized and a transaction never reads a state
that another writer changes under it. PostgreSQL uses row locks (SELECT ... FOR UPDATE).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Any, cast

from flask import Flask, current_app, g
from sqlalchemy import Engine, Executable, Table, bindparam, create_engine, event, insert, select
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


def table_of(model: type[Any]) -> Table:
    """A mapped class's table, for statements of SQLAlchemy Core."""
    return cast(Table, model.__table__)


def insert_together(session: Session, rows: Sequence[tuple[Table, Mapping[str, Any]]]) -> list[int]:
    """Insert one row into each table (its column values), in the session's transaction, in
    one round trip where the database can (PostgreSQL: data-modifying CTEs), else one INSERT
    after another; the new rows' ids, in order. SQLAlchemy Core with statements built once
    per shape, for a hot path that needs no ORM objects."""
    conn = session.connection()
    shapes = tuple((table, tuple(values)) for table, values in rows)
    if len(rows) > 1 and conn.dialect.name == "postgresql":
        params = {f"r{i}_{name}": value for i, (_table, values) in enumerate(rows)
                  for name, value in values.items()}
        return list(conn.execute(_inserts_at_once(shapes), params).one())
    return [conn.execute(_insert(table, names), dict(values)).scalar_one()
            for (table, names), (_table, values) in zip(shapes, rows, strict=True)]


@lru_cache(maxsize=64)
def _insert(table: Table, names: tuple[str, ...], prefix: str = "") -> Any:
    return insert(table).values({n: bindparam(prefix + n, type_=table.c[n].type) for n in names}) \
        .returning(table.c.id)


@lru_cache(maxsize=64)
def _inserts_at_once(shapes: tuple[tuple[Table, tuple[str, ...]], ...]) -> Executable:
    ctes = [_insert(table, names, f"r{i}_").cte(f"insert_{i}") for i, (table, names) in enumerate(shapes)]
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


def _close_session(_exc: BaseException | None) -> None:
    db = g.pop("db", None)
    if db is not None:
        db.close()
