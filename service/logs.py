"""Logging: one setup for the web app and the workers, request ids, tokens kept out of logs.

- `configure()` puts one handler on the root logger (stderr, `DICEPOST_LOG_FORMAT` text or
  json, `DICEPOST_LOG_LEVEL`, default INFO). Celery leaves the root logger alone, so without
  it the service's INFO lines would go nowhere. The web app calls it from `init_app`, the
  worker from Celery's `setup_logging` signal (worker.celery_init_app).
- Every request gets an id: the caller's `X-Request-Id` when it is a short plain token
  (a proxy's or a load balancer's), else a new one. It is on every line logged while the
  request runs and in the answer's `X-Request-Id` header; a task's lines carry the id of
  the request that sent it (a message header), or else the task's own id.
- Player, GM, invitation, spectator, sign-in and mail-settings tokens travel in URL paths (the links
  mailed to players), so any logged path could hand a seat to whoever reads the log.
  `redact()` masks them (and secret-looking query parameters) in every line the root
  handler writes. The web server, granian (`dicepost web`), has its own access log off:
  `AccessLog` writes one line a request through the root handler, so masked, in its
  format, with the request id. Pages whose URL holds a token answer
  `Referrer-Policy: no-referrer`, so the token is not sent on to other sites.
"""

from __future__ import annotations

import json
import logging
import os
import re
import sys
import time
import uuid
from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime
from typing import Any, TextIO

from celery import current_task
from celery.signals import before_task_publish
from flask import Flask, Response, g, has_request_context, request

LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
FORMATS = ("text", "json")
DEFAULT_LEVEL = "INFO"
DEFAULT_FORMAT = "text"
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s"
REDACTED = "***"
REQUEST_ID_HEADER = "X-Request-Id"
TASK_HEADER = "dicepost_request_id"
# A caller's request id is taken as it is only when it is short and plain: it ends up in
# every log line, so it must not be able to forge lines or carry markup.
SANE_REQUEST_ID = re.compile(r"[A-Za-z0-9._:@-]{1,128}")

# The routes whose last (or next-to-last) segment is a secret, in pages and mailed links.
_TOKEN_PATH = re.compile(
    r"(/(?:games/[^/?#\s\"']+/(?:gm|player|join|takeover|watch|open)|mail/(?:preferences|unsubscribe)|signin)/)"
    r"[^/?#\s\"']+")
# Query parameters named like secrets (a link's token, an API key, ...), wherever they appear.
_SECRET_PARAM = re.compile(r"([?&;][^=&;#\s\"']*(?:token|invite|secret|key|password|sig)[^=&;#\s\"']*=)"
                           r"[^&;#\s\"']*", re.IGNORECASE)


class SettingError(ValueError):
    """A logging setting from the environment that cannot be used (names the variable)."""


def redact(text: str) -> str:
    """The text with every token-bearing path segment and secret query value masked."""
    if "/" not in text and "=" not in text:
        return text
    return _SECRET_PARAM.sub(rf"\1{REDACTED}", _TOKEN_PATH.sub(rf"\1{REDACTED}", text))


def holds_token(path: str, query: str = "") -> bool:
    target = f"{path}?{query}" if query else path
    return redact(target) != target


def log_level(value: str | None, variable: str = "DICEPOST_LOG_LEVEL") -> str:
    level = (value or DEFAULT_LEVEL).strip().upper()
    if level not in LEVELS:
        raise SettingError(f"{variable}={value!r}: use one of {', '.join(LEVELS)}")
    return level


def log_format(value: str | None, variable: str = "DICEPOST_LOG_FORMAT") -> str:
    fmt = (value or DEFAULT_FORMAT).strip().lower()
    if fmt not in FORMATS:
        raise SettingError(f"{variable}={value!r}: use one of {', '.join(FORMATS)}")
    return fmt


def settings_from_env(env: Mapping[str, str]) -> dict[str, str]:
    """LOG_LEVEL and LOG_FORMAT for the app config, checked (a bad value stops the start)."""
    return {"LOG_LEVEL": log_level(env.get("DICEPOST_LOG_LEVEL")),
            "LOG_FORMAT": log_format(env.get("DICEPOST_LOG_FORMAT"))}


def current_request_id() -> str:
    """The request's id; in a task, the id of the request that sent it, else the task's."""
    if has_request_context():
        rid = g.get("request_id")
        if rid:
            return str(rid)
    task = current_task.request if current_task else None
    if task is None:
        return "-"
    sent_by = getattr(task, TASK_HEADER, None) or (getattr(task, "headers", None) or {}).get(TASK_HEADER)
    if sent_by:
        return str(sent_by)
    return str(task.id) if task.id else "-"


def _tag_task(headers: dict[str, Any] | None = None, **_: Any) -> None:
    """Celery's before_task_publish: a task sent while serving a request carries its id."""
    if headers is not None and has_request_context() and g.get("request_id"):
        headers.setdefault(TASK_HEADER, str(g.request_id))


class RequestIdFilter(logging.Filter):
    """Adds `request_id` to every record, for the formats."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "request_id"):
            record.request_id = current_request_id()
        return True


class RedactingFilter(logging.Filter):
    """Masks tokens in the finished message (paths can come in through any argument)."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        clean = redact(message)
        if clean != message:
            record.msg, record.args = clean, None
        if record.exc_info and not record.exc_text:
            record.exc_text = redact(logging.Formatter().formatException(record.exc_info))
        elif record.exc_text:
            record.exc_text = redact(record.exc_text)
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object a line: time, level, logger, request_id, message (and exception)."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname, "logger": record.name,
            "request_id": getattr(record, "request_id", "-"), "message": record.getMessage()}
        if record.exc_info and not record.exc_text:
            record.exc_text = self.formatException(record.exc_info)
        if record.exc_text:
            entry["exception"] = record.exc_text
        return json.dumps(entry, ensure_ascii=False)


class _StderrHandler(logging.StreamHandler[TextIO]):
    """Writes to whatever sys.stderr is at the time (a test's capture, say), not the one
    there was when the handler was made."""

    def __init__(self) -> None:
        super().__init__(sys.stderr)

    @property
    def stream(self) -> TextIO:
        return sys.stderr

    @stream.setter
    def stream(self, value: TextIO) -> None:  # the base class assigns it; sys.stderr wins
        pass


def make_formatter(fmt: str) -> logging.Formatter:
    return JsonFormatter() if fmt == "json" else logging.Formatter(TEXT_FORMAT)


def install_filters(handler: logging.Handler) -> None:
    if not any(isinstance(f, RedactingFilter) for f in handler.filters):
        handler.addFilter(RequestIdFilter())
        handler.addFilter(RedactingFilter())


def configure(level: str | None = None, fmt: str | None = None,
              env: Mapping[str, str] | None = None) -> logging.Handler:
    """The root logger's one dicepost handler (made once a process, updated after)."""
    env = os.environ if env is None else env
    level = log_level(level or env.get("DICEPOST_LOG_LEVEL"))
    fmt = log_format(fmt or env.get("DICEPOST_LOG_FORMAT"))
    root = logging.getLogger()
    for other in list(root.handlers):
        if type(other) is logging.StreamHandler and other.stream in (sys.stderr, sys.stdout):
            root.removeHandler(other)  # logging.basicConfig's: it would repeat every line unmasked
        else:
            install_filters(other)  # a log file, a test's capture: masked too
    handler = next((h for h in root.handlers if isinstance(h, _StderrHandler)), None)
    if handler is None:
        handler = _StderrHandler()
        install_filters(handler)
        root.addHandler(handler)
    handler.setFormatter(make_formatter(fmt))
    root.setLevel(level)
    return handler


def _request_id() -> None:
    incoming = request.headers.get(REQUEST_ID_HEADER, "")
    g.request_id = incoming if SANE_REQUEST_ID.fullmatch(incoming) else uuid.uuid4().hex


def _answer_headers(response: Response) -> Response:
    rid = g.get("request_id")
    if rid:
        response.headers[REQUEST_ID_HEADER] = str(rid)
    if holds_token(request.path, request.query_string.decode("latin-1")):
        response.headers["Referrer-Policy"] = "no-referrer"
    return response


def init_app(app: Flask) -> None:
    """Logging configured from the app's settings; request ids and headers on every answer."""
    configure(app.config.get("LOG_LEVEL"), app.config.get("LOG_FORMAT"))
    # First among the before_request hooks, so even a refused request has an id.
    app.before_request_funcs.setdefault(None, []).insert(0, _request_id)
    app.after_request(_answer_headers)
    before_task_publish.connect(_tag_task, weak=False, dispatch_uid="dicepost.logs.tag_task")


def setup_worker_logging(loglevel: Any = None, **_: Any) -> None:
    """Celery's setup_logging signal: our handler instead of Celery's own. The worker's
    --loglevel applies unless DICEPOST_LOG_LEVEL says otherwise."""
    if isinstance(loglevel, int):
        loglevel = logging.getLevelName(loglevel)
    configure(os.environ.get("DICEPOST_LOG_LEVEL") or loglevel)


ACCESS_LOGGER = "dicepost.access"
_Environ = dict[str, Any]
_StartResponse = Callable[..., Any]


class AccessLog:
    """WSGI middleware: an access-log line for each request in the common combined shape
    (address, "request line", status, body bytes, "referrer", "user agent") with the
    time taken and `rid=` the request id after it, every token masked.

    Written when the app has answered and before the body is sent, so the app's answer
    iterable goes to the server untouched (its close() runs the embedded default's tasks)."""

    def __init__(self, app: Callable[[_Environ, _StartResponse], Iterable[bytes]]) -> None:
        self.app = app
        self.log = logging.getLogger(ACCESS_LOGGER)

    def __call__(self, environ: _Environ, start_response: _StartResponse) -> Iterable[bytes]:
        if not self.log.isEnabledFor(logging.INFO):
            return self.app(environ, start_response)
        began = time.perf_counter()
        answer: list[Any] = []

        def record(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            answer[:] = [status, headers]
            return start_response(status, headers, exc_info)

        body = self.app(environ, record)
        status, headers = answer or ("500", [])
        fields = {name.lower(): value for name, value in headers
                  if name.lower() in ("content-length", "x-request-id")}
        rid = fields.get("x-request-id", "-")
        query = environ.get("QUERY_STRING")
        target = environ.get("PATH_INFO", "") + (f"?{query}" if query else "")
        took = (time.perf_counter() - began) * 1000
        line = (f'{environ.get("REMOTE_ADDR", "-")} "{environ.get("REQUEST_METHOD", "-")} {target} '
                f'{environ.get("SERVER_PROTOCOL", "-")}" {status.split(" ", 1)[0]} '
                f'{fields.get("content-length", "-")} "{environ.get("HTTP_REFERER", "-")}" '
                f'"{environ.get("HTTP_USER_AGENT", "-")}" {took:.1f}ms rid={rid}')
        self.log.info(redact(line), extra={"request_id": rid})
        return body
