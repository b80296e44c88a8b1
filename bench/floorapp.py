"""The web stack's own floor: a trivial Flask app served by granian exactly like the service.

`GET /ping` answers a short JSON; `PUT /update` runs one single-row UPDATE through
SQLAlchemy Core (the engine made by service.db.make_engine: psycopg 3, the service's
ping of a connection idle for a second, its default pool size) in
one transaction, on a private table shaped like pgbench's (100,000 rows, a random row
each time) in the bench's own database (BENCH_FLOOR_DATABASE_URL). What a request costs
here is what Flask + granian + SQLAlchemy cost on this machine before any service code.
"""

from __future__ import annotations

import os
import random

from flask import Flask, Response, jsonify
from sqlalchemy import Column, Engine, Integer, MetaData, Table, insert, select, text, update
from sqlalchemy.engine import Connection

ROWS = 100_000
metadata = MetaData()
accounts = Table("floor_accounts", metadata,
                 Column("aid", Integer, primary_key=True),
                 Column("abalance", Integer, nullable=False))


def make_engine(url: str) -> Engine:
    from service.db import make_engine as service_engine

    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url[len("postgresql://"):]
    return service_engine(url)


def prepare(url: str, rows: int = ROWS) -> None:
    """The table with `rows` rows (aid 1..rows, balance 0), made once before the server starts."""
    engine = make_engine(url)
    try:
        with engine.begin() as conn:
            metadata.create_all(conn)
            _fill(conn, rows)
    finally:
        engine.dispose()


def _fill(conn: Connection, rows: int) -> None:
    if conn.execute(select(accounts.c.aid).limit(1)).first() is None:
        conn.execute(insert(accounts).from_select(
            ["aid", "abalance"], select(text("g"), text("0")).select_from(
                text(f"generate_series(1, {int(rows)}) AS g"))))


def create_app() -> Flask:
    app = Flask(__name__)
    engine = make_engine(os.environ["BENCH_FLOOR_DATABASE_URL"])

    @app.get("/ping")
    def ping() -> Response:
        return jsonify(ok=True)

    @app.put("/update")
    def update_one() -> Response:
        aid, delta = random.randint(1, ROWS), random.randint(-5000, 5000)
        with engine.begin() as conn:
            conn.execute(update(accounts).where(accounts.c.aid == aid)
                         .values(abalance=accounts.c.abalance + delta))
        return jsonify(ok=True)

    return app
