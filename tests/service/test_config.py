"""Configuration: embedded default vs full mode, and Celery's reliability settings."""

from __future__ import annotations

from pathlib import Path

from service.config import celery_config, database_url, finish, from_env


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
                                      "SECRET_KEY": "k", "DICEPOST_QUEUE_PREFIX": "t1_",
                                      "DICEPOST_REDIS_PREFIX": "p:", "DICEPOST_SWEEP_SECONDS": "7"})
    finish(config)
    assert config["DATABASE_URL"] == "postgresql+psycopg://u:p@db/x"
    assert config["EMBEDDED"] is False
    celery = config["CELERY"]
    assert celery["broker_url"] == "redis://r:6379/1" and celery["task_always_eager"] is False
    assert celery["task_acks_late"] and celery["task_reject_on_worker_lost"]
    assert celery["worker_prefetch_multiplier"] == 1
    transport = celery["broker_transport_options"]
    assert transport["visibility_timeout"] == 3600 and transport["global_keyprefix"] == "p:"
    assert celery["task_routes"]["worker.tasks.deliver_mail"] == {"queue": "t1_mail"}
    assert celery["task_routes"]["worker.tasks.resolve_round"] == {"queue": "t1_resolve"}
    assert celery["beat_schedule"]["sweep"]["schedule"] == 7.0


def test_database_urls() -> None:
    assert database_url("postgresql://a/b", "/i") == "postgresql+psycopg://a/b"
    assert database_url("postgresql+psycopg://a/b", "/i") == "postgresql+psycopg://a/b"
    assert database_url("sqlite:////x.db", "/i") == "sqlite:////x.db"
    assert celery_config(None, "", "", 30)["broker_url"].startswith("memory://")
