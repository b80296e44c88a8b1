"""Configuration: embedded default vs full mode, and Celery's reliability settings."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path

from sqlalchemy import select

from service import create_app
from service.config import celery_config, database_url, finish, from_env
from service.db import engine_of, session_scope
from service.models import StoredMail
from tests.conftest import base_config, migrated_sqlite
from tests.service.play import create


def test_embedded_default(tmp_path: Path) -> None:
    config = from_env(str(tmp_path), {})
    finish(config)
    assert config["DATABASE_URL"] == f"sqlite:///{tmp_path}/dicepost.sqlite3"
    assert config["EMBEDDED"] is True and config["QUEUES"] == {"resolve": "resolve", "mail": "mail"}
    assert config["CELERY"]["task_always_eager"] is True
    # The generated secret is kept, so sessions survive a restart.
    assert from_env(str(tmp_path), {})["SECRET_KEY"] == config["SECRET_KEY"]
    assert (tmp_path / "secret_key").stat().st_mode & 0o077 == 0


def test_full_mode(tmp_path: Path) -> None:
    config = from_env(str(tmp_path), {"DATABASE_URL": "postgres://u:p@db/x", "REDIS_URL": "redis://r:6379/1",
                                      "SECRET_KEY": "k", "DICEPOST_SEAL_KEY": "AB" * 32,
                                      "DICEPOST_QUEUE_PREFIX": "t1_",
                                      "DICEPOST_REDIS_PREFIX": "p:", "DICEPOST_SWEEP_SECONDS": "7"})
    finish(config)
    assert config["DATABASE_URL"] == "postgresql+psycopg://u:p@db/x"
    assert config["EMBEDDED"] is False
    assert config["SEAL_KEY"] == "ab" * 32 and config["SEAL_KEY_SOURCE"] == "DICEPOST_SEAL_KEY"
    celery = config["CELERY"]
    assert celery["broker_url"] == "redis://r:6379/1" and celery["task_always_eager"] is False
    assert celery["task_acks_late"] and celery["task_reject_on_worker_lost"]
    assert celery["worker_prefetch_multiplier"] == 1
    transport = celery["broker_transport_options"]
    assert transport["visibility_timeout"] == 3600 and transport["global_keyprefix"] == "p:"
    assert celery["task_routes"]["worker.tasks.deliver_mail"] == {"queue": "t1_mail"}
    assert celery["task_routes"]["worker.tasks.deliver_mails"] == {"queue": "t1_mail"}
    assert celery["task_routes"]["worker.tasks.resolve_round"] == {"queue": "t1_resolve"}
    assert celery["beat_schedule"]["sweep"]["schedule"] == 7.0


def test_database_urls() -> None:
    assert database_url("postgresql://a/b", "/i") == "postgresql+psycopg://a/b"
    assert database_url("postgresql+psycopg://a/b", "/i") == "postgresql+psycopg://a/b"
    assert database_url("sqlite:////x.db", "/i") == "sqlite:////x.db"
    assert celery_config(None, "", "", 30)["broker_url"].startswith("memory://")


def test_the_session_cookie_settings(tmp_path: Path) -> None:
    config = from_env(str(tmp_path), {"SECRET_KEY": "k"})
    finish(config)
    assert config["SESSION_COOKIE_SAMESITE"] == "Lax" and config["SESSION_COOKIE_HTTPONLY"] is True
    assert timedelta(hours=1) <= config["PERMANENT_SESSION_LIFETIME"] <= timedelta(days=31)
    assert not config.get("SESSION_COOKIE_SECURE")  # plain http (the embedded default) keeps working
    served = from_env(str(tmp_path), {"SECRET_KEY": "k", "DICEPOST_BASE_URL": "https://dice.example"})
    finish(served)
    assert served["SESSION_COOKIE_SECURE"] is True


def test_the_sign_in_cookie_is_lax_http_only_secure_and_expires(tmp_path: Path) -> None:
    app = create_app(base_config(migrated_sqlite(tmp_path / "c.sqlite3"), BASE_URL="https://dicepost.test"))
    client = app.test_client()
    create(client)  # a game with a seat for alice@example.org
    client.post("/signin", data={"email": "alice@example.org"}).close()  # the link is made once the answer is sent
    with app.app_context(), session_scope() as db, db.begin():
        raw = db.scalars(select(StoredMail.raw).where(StoredMail.to == "alice@example.org",
                                                  StoredMail.subject.contains("sign-in"))).one()
    token = re.search(r"https://dicepost\.test/signin/([0-9]+\.[a-z2-7]+)", raw)
    assert token is not None
    done = client.post(f"/signin/{token.group(1)}")
    assert done.status_code == 302
    cookie = done.headers["Set-Cookie"]
    assert "SameSite=Lax" in cookie and "HttpOnly" in cookie and "Secure" in cookie
    assert "Expires=" in cookie  # a lasting sign-in, for PERMANENT_SESSION_LIFETIME
    engine_of(app).dispose()


def test_the_connection_pool_holds_as_many_connections_as_configured(tmp_path: Path, pg_url: str) -> None:
    """A pool smaller than the web server's threads closes and reopens connections on every request."""
    assert from_env(str(tmp_path), {})["DB_POOL_SIZE"] == 10
    assert from_env(str(tmp_path), {"DICEPOST_DB_POOL_SIZE": "16"})["DB_POOL_SIZE"] == 16
    app = create_app(base_config(pg_url, DB_POOL_SIZE=16))
    pool = engine_of(app).pool
    assert pool.size() == 16  # type: ignore[attr-defined]
    engine_of(app).dispose()
