"""Configuration from the environment: the embedded default unless DATABASE_URL/REDIS_URL are set.

The environment is read here once, when the app is made (`from_env`); everything else reads
the app's config, so a setting means the same to every part (mail included).

Embedded: an SQLite file in the instance folder, Celery tasks run in-process (eager),
mail kept in the database for the web app's mailbox page, a sweeper thread.
Full: PostgreSQL (psycopg 3) + Redis broker + separate `dicepost worker`/`beat` processes.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable, Mapping
from datetime import timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from service.logs import settings_from_env as log_settings

DEFAULT_SWEEP_SECONDS = 30
# Full mode: the mail a web process's requests commit within this many seconds is rung as
# one deliver_mails message (service.tasks.MailBell); 0 rings each request's mail at once.
DEFAULT_MAIL_BELL_SECONDS = 0.1
TRUE_WORDS = ("1", "true", "yes", "on")
MAX_BODY_BYTES = 64 * 1024
# Redis redelivers a task that was taken but not acknowledged after this many seconds.
# Longer than any task runs (a round resolves in well under a minute), short enough
# that a task lost with its whole worker comes back the same hour; the sweeper rings
# sooner for ready rounds and due mail anyway (docs/reliability.md).
DEFAULT_VISIBILITY_TIMEOUT = 3600
# The signed session cookie (a dashboard sign-in, the forms' CSRF token) is good for this
# long after it was last set: a sign-in lasts two weeks, then a new one-time link is needed.
SESSION_LIFETIME = timedelta(days=14)


def database_url(raw: str | None, instance_path: str) -> str:
    """The SQLAlchemy URL: psycopg 3 for PostgreSQL, else the embedded SQLite file."""
    if not raw:
        return "sqlite:///" + str(Path(instance_path) / "dicepost.sqlite3")
    for prefix in ("postgres://", "postgresql://"):
        if raw.startswith(prefix):
            return "postgresql+psycopg://" + raw[len(prefix):]
    return raw


# PostgreSQL connections each process keeps open. At least the web server's threads per
# process: with fewer, the connections beyond the pool are closed after every request and
# opened again for the next one, and the server answers fewer requests.
DEFAULT_DB_POOL_SIZE = 10


# The mail part's settings (service.mail.settings gives their defaults and meaning); each
# may also be spelled with the DICEPOST_ prefix.
MAIL_KEYS = ("SMTP_URL", "IMAP_URL", "INBOUND_SECRET", "MAIL_FROM", "MAIL_REPLY_TO", "MAIL_DOMAIN",
             "DKIM_SELECTOR", "DKIM_KEY_FILE", "SOFT_BOUNCES", "SOFT_BOUNCE_DAYS",
             "MAIL_DOMAIN_RATE")


def mail_from_env(env: Mapping[str, str]) -> dict[str, str]:
    """The mail settings as config keys, "" for each one unset."""
    return {key: (env.get(key) or env.get("DICEPOST_" + key) or "").strip() for key in MAIL_KEYS}


def queue_names(prefix: str) -> dict[str, str]:
    """The two Celery queues: a mail backlog never delays a round."""
    return {"resolve": prefix + "resolve", "mail": prefix + "mail"}


def celery_config(redis_url: str | None, prefix: str, key_prefix: str,
                  sweep_seconds: int, visibility_timeout: int = DEFAULT_VISIBILITY_TIMEOUT
                  ) -> dict[str, Any]:
    """Celery settings following its reliability guidance (late acks, prefetch 1, ...)."""
    queues = queue_names(prefix)
    conf: dict[str, Any] = {
        "task_ignore_result": True,
        "task_acks_late": True,
        "task_reject_on_worker_lost": True,
        "worker_prefetch_multiplier": 1,
        "task_default_queue": queues["resolve"],
        "task_routes": {
            "worker.tasks.resolve_round": {"queue": queues["resolve"]},
            "worker.tasks.sweep": {"queue": queues["resolve"]},
            "worker.tasks.deliver_mail": {"queue": queues["mail"]},
            "worker.tasks.deliver_mails": {"queue": queues["mail"]},
            "worker.tasks.issue_signin_link": {"queue": queues["mail"]},
            "worker.tasks.deliver_push": {"queue": queues["mail"]},
        },
        "beat_schedule": {
            "sweep": {"task": "worker.tasks.sweep", "schedule": float(sweep_seconds)},
        },
        "broker_connection_retry_on_startup": True,
    }
    if redis_url:
        # A message taken but never acknowledged (its whole worker died) comes back after
        # visibility_timeout; kombu looks for such messages every interval x throttle
        # seconds (10 x 10 by default): one cheap look every <= 10 s instead.
        transport: dict[str, Any] = {"visibility_timeout": visibility_timeout,
                                     "unacked_restore_interval": max(1, min(10, visibility_timeout // 4)),
                                     "unacked_restore_throttle": 1}
        if key_prefix:
            transport["global_keyprefix"] = key_prefix
        # service.broker: a late acknowledgement on a connection lost to Redis is a
        # connection error there, not an error that ends the worker.
        conf.update(broker_url=redis_url, broker_transport="service.broker:Transport",
                    broker_transport_options=transport, task_always_eager=False)
    else:
        # Embedded: the same task functions run in-process, right after the commit.
        conf.update(broker_url="memory://localhost/", task_always_eager=True,
                    task_eager_propagates=False)
    return conf


def proxy_hops(value: str | None) -> int:
    """DICEPOST_PROXY_HOPS: how many reverse proxies in front of the app set X-Forwarded-*."""
    raw = (value or "0").strip()
    if not raw.isdigit() or int(raw) > 10:
        raise ValueError(f"DICEPOST_PROXY_HOPS={value!r}: use a whole number from 0 to 10 "
                         "(the reverse proxies in front of the app; 0 when none)")
    return int(raw)


def url_settings(base_url: str | None) -> dict[str, str | None]:
    """Flask's SERVER_NAME, APPLICATION_ROOT and PREFERRED_URL_SCHEME from DICEPOST_BASE_URL,
    so url_for builds links under it outside a request too; unset, links follow the request."""
    if not base_url:
        return {"SERVER_NAME": None, "APPLICATION_ROOT": "/", "PREFERRED_URL_SCHEME": "http"}
    parts = urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.query or parts.fragment:
        raise ValueError(f"DICEPOST_BASE_URL={base_url!r}: use the public root of the site, "
                         "like https://example.org or https://example.org/dicepost")
    return {"SERVER_NAME": parts.netloc, "APPLICATION_ROOT": parts.path.rstrip("/") or "/",
            "PREFERRED_URL_SCHEME": parts.scheme}


def mail_bell_seconds(value: str | None) -> float:
    """DICEPOST_MAIL_BELL_SECONDS: how long a web process gathers committed mail before ringing."""
    raw = (value or "").strip()
    if not raw:
        return DEFAULT_MAIL_BELL_SECONDS
    try:
        seconds = float(raw)
    except ValueError:
        seconds = -1.0
    if not 0 <= seconds <= 5:
        raise ValueError(f"DICEPOST_MAIL_BELL_SECONDS={value!r}: use seconds from 0 to 5 (how long a web "
                         "process gathers mail into one message; 0 rings each request's mail at once)")
    return seconds


def from_env(instance_path: str, env: Mapping[str, str] | None = None) -> dict[str, Any]:
    env = os.environ if env is None else env
    redis_url = env.get("REDIS_URL") or None
    sweep = int(env.get("DICEPOST_SWEEP_SECONDS", DEFAULT_SWEEP_SECONDS))
    prefix = env.get("DICEPOST_QUEUE_PREFIX", "")
    return {
        "SECRET_KEY": env.get("SECRET_KEY") or _instance_secret(instance_path, "secret_key"),
        **seal_key(env, instance_path),
        **vapid_key(env, instance_path),
        "DATABASE_URL": database_url(env.get("DATABASE_URL"), instance_path),
        "REDIS_URL": redis_url,
        "BASE_URL": env.get("DICEPOST_BASE_URL", ""),
        "SWEEP_SECONDS": sweep,
        "MAIL_BELL_SECONDS": mail_bell_seconds(env.get("DICEPOST_MAIL_BELL_SECONDS")),
        "QUEUE_PREFIX": prefix,
        "REDIS_PREFIX": env.get("DICEPOST_REDIS_PREFIX", ""),
        "VISIBILITY_TIMEOUT": int(env.get("DICEPOST_VISIBILITY_TIMEOUT", DEFAULT_VISIBILITY_TIMEOUT)),
        "DB_POOL_SIZE": int(env.get("DICEPOST_DB_POOL_SIZE", DEFAULT_DB_POOL_SIZE)),
        "MAX_CONTENT_LENGTH": MAX_BODY_BYTES,
        "PROXY_HOPS": proxy_hops(env.get("DICEPOST_PROXY_HOPS")),
        **log_settings(env),
        "GAMES_PER_CLIENT": env.get("DICEPOST_GAMES_PER_CLIENT", ""),  # service.sendlimits
        "SEATS_PER_CLIENT": env.get("DICEPOST_SEATS_PER_CLIENT", ""),
        "FOLLOWS_PER_CLIENT": env.get("DICEPOST_FOLLOWS_PER_CLIENT", ""),
        "CONFIRMS_PER_CLIENT": env.get("DICEPOST_CONFIRMS_PER_CLIENT", ""),
        # Addresses at these domains need no confirmation link (service.address_confirm).
        "CONFIRMED_DOMAINS": confirmed_domains(env.get("DICEPOST_CONFIRMED_DOMAINS", "")),
        "INVITATIONS_PER_ADDRESS": int(env.get("DICEPOST_INVITATIONS_PER_ADDRESS", 0) or 0),
        # The embedded mailbox also in a process bound to a non-loopback address, for any
        # client holding its key (service.web.mailbox); off unless asked for.
        "MAILBOX_ANY_ADDRESS": env.get("DICEPOST_MAILBOX_ANY_ADDRESS", "").lower() in TRUE_WORDS,
        # Webhooks to this machine's loopback addresses (and plain http to them): the embedded
        # default allows them unless told otherwise, full mode only when told (service.webhooks.guard).
        **({"WEBHOOKS_LOOPBACK": env["DICEPOST_WEBHOOKS_LOOPBACK"].lower() in TRUE_WORDS}
           if env.get("DICEPOST_WEBHOOKS_LOOPBACK") else {}),
        # Not sent on other sites' requests (posts from them), not readable by scripts.
        "SESSION_COOKIE_SAMESITE": "Lax",
        "SESSION_COOKIE_HTTPONLY": True,
        "PERMANENT_SESSION_LIFETIME": SESSION_LIFETIME,
        **mail_from_env(env),
    }


def confirmed_domains(text: str) -> tuple[str, ...]:
    """DICEPOST_CONFIRMED_DOMAINS: mail domains, comma-separated, in lower case."""
    return tuple(d.strip().lower() for d in text.split(",") if d.strip())


def finish(config: dict[str, Any]) -> None:
    """Fill in what follows from the settings (after overrides were applied)."""
    config["EMBEDDED"] = not config.get("REDIS_URL")
    config.update(url_settings(config.get("BASE_URL")))
    if str(config.get("BASE_URL") or "").startswith("https://"):
        config["SESSION_COOKIE_SECURE"] = True  # served over https: never send the cookie in clear
    config["QUEUES"] = queue_names(config["QUEUE_PREFIX"])
    config.setdefault("CELERY", celery_config(config.get("REDIS_URL"), config["QUEUE_PREFIX"],
                                              config["REDIS_PREFIX"], int(config["SWEEP_SECONDS"]),
                                              int(config.get("VISIBILITY_TIMEOUT",
                                                             DEFAULT_VISIBILITY_TIMEOUT))))


SEAL_KEY_FILE = "seal_key"


def seal_key(env: Mapping[str, str], instance_path: str) -> dict[str, str]:
    """SEAL_KEY (64 hex digits: the key the chain tips are sealed with at rest, see
    service.dice_keys) and SEAL_KEY_SOURCE (where it came from, for error messages).

    DICEPOST_SEAL_KEY when set; required with DATABASE_URL, whose database outlives any one
    instance folder; else a key made once and kept in the instance folder (mode 600)."""
    raw = (env.get("DICEPOST_SEAL_KEY") or "").strip()
    source = "DICEPOST_SEAL_KEY"
    if not raw:
        if env.get("DATABASE_URL"):
            raise ValueError("DICEPOST_SEAL_KEY is required when DATABASE_URL is set: the key that "
                             "seals the games' chain tips at rest (64 hex digits; keep it apart from "
                             "the database's backups)")
        source = str(Path(instance_path) / SEAL_KEY_FILE)
        raw = _instance_secret(instance_path, SEAL_KEY_FILE)
    try:
        if len(bytes.fromhex(raw)) == 32:
            return {"SEAL_KEY": raw.lower(), "SEAL_KEY_SOURCE": source}
    except ValueError:
        pass
    raise ValueError(f"{source}: the seal key must be 64 hex digits (32 random bytes, for instance "
                     "`python3 -c 'import secrets; print(secrets.token_hex(32))'`)")


VAPID_KEY_FILE = "vapid_private_key"


def vapid_key(env: Mapping[str, str], instance_path: str) -> dict[str, str]:
    """VAPID_PRIVATE_KEY (the key web push is signed with, service.webpush; "" when push is
    off) and VAPID_SUBJECT (a mailto: or https: contact the push services may write to).

    DICEPOST_VAPID_PRIVATE_KEY when set. Without it the embedded default makes one on first
    start and keeps it in the instance folder (mode 600), as it does the seal key; with
    DATABASE_URL every process must sign with the same key, so push stays off until it is set.
    A new key orphans the browsers' subscriptions (they were made for the old one)."""
    from service.webpush import check_private_key, new_private_key

    raw = (env.get("DICEPOST_VAPID_PRIVATE_KEY") or "").strip()
    subject = (env.get("DICEPOST_VAPID_SUBJECT") or "").strip()
    if subject and not subject.startswith(("mailto:", "https://")):
        raise ValueError(f"DICEPOST_VAPID_SUBJECT={subject!r}: use a mailto: address or an https:// "
                         "page where the push services can reach the host's operator")
    if raw:
        return {"VAPID_PRIVATE_KEY": check_private_key(raw, "DICEPOST_VAPID_PRIVATE_KEY"),
                "VAPID_SUBJECT": subject}
    if env.get("DATABASE_URL"):
        return {"VAPID_PRIVATE_KEY": "", "VAPID_SUBJECT": subject}
    source = str(Path(instance_path) / VAPID_KEY_FILE)
    return {"VAPID_PRIVATE_KEY": check_private_key(_instance_secret(instance_path, VAPID_KEY_FILE,
                                                                    new_private_key), source),
            "VAPID_SUBJECT": subject}


def _instance_secret(instance_path: str, name: str,
                     make: Callable[[], str] = lambda: secrets.token_hex(32)) -> str:
    """A stable secret for the embedded default, kept in the instance folder."""
    path = Path(instance_path) / name
    try:
        return path.read_text().strip()
    except FileNotFoundError:
        path.parent.mkdir(parents=True, exist_ok=True)
    key = make()
    try:  # made unreadable to others before the key is written into it
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another process made it first
        return path.read_text().strip()
    with os.fdopen(fd, "w") as out:
        out.write(key)
    return key
