"""Logs: configured for the web app and the workers, a request id on every line, no tokens.

The links mailed to players carry their secrets in the path (the player page, the GM
page, invitations, sign-in and mail-settings links), so a log that keeps paths could
hand a seat to whoever reads it: the dev server's request lines, the access log of
`dicepost web` (granian) and the app's own lines all go through service.logs.redact.
"""

from __future__ import annotations

import json
import logging
import os
import re
import subprocess
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from flask import Flask, request

from service import create_app, logs
from service.config import from_env
from service.db import engine_of
from tests.conftest import (
    ROOT,
    LiveServer,
    WorkerProcess,
    base_config,
    dicepost_command,
    free_port,
    full_config,
    migrated_sqlite,
    wait_for,
)
from tests.service.play import start

SPECTATOR = "7.spectatorlinktokenmadeupforthelog"  # a spectator link's shape (service.access)
OPENED = "3.abcdefghopenlink"  # a mail's open link into a private game (service.access)


def _token_pages(table: Any) -> list[str]:
    return [f"/games/{table.id}/player/{table.tokens['alice']}",
            f"/games/{table.id}/player/{table.tokens['alice']}/schedule",
            f"/games/{table.id}/gm/{table.created['gm_token']}",
            f"/games/{table.id}/join/{table.created['seats'][0]['invite_token']}",
            f"/games/{table.id}/takeover/{table.created['seats'][0]['invite_token']}",
            "/signin/1.abcdefghijklmnopqrstuvwxyz234567",
            f"/games/{table.id}/watch/{SPECTATOR}",
            f"/games/{table.id}/open/{OPENED}/round/1",
            f"/games/{table.id}?token={table.tokens['bob']}"]


def test_the_dev_servers_request_lines_carry_no_token(sqlite_app: Flask, capsys: pytest.CaptureFixture[str]) -> None:
    table = start(sqlite_app.test_client())
    server = LiveServer(sqlite_app)
    try:
        for path in _token_pages(table):
            _fetch(server.url + path)  # 404 for the made-up sign-in link: its line is logged all the same
    finally:
        server.stop()
    err = capsys.readouterr().err
    assert f"GET /games/{table.id}/player/*** HTTP/1.1" in err  # the lines are there, masked
    for secret in (table.tokens["alice"], table.tokens["bob"], table.created["gm_token"],
                   table.created["seats"][0]["invite_token"], "abcdefghijklmnopqrstuvwxyz234567", SPECTATOR, OPENED):
        assert secret not in err


def test_every_line_logged_in_a_request_carries_its_id(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    app = create_app(base_config(f"sqlite:///{tmp_path}/d.sqlite3"))
    seen = logging.getLogger("tests.logs")

    def talkative(token: str) -> str:
        seen.info("serving %s", request.full_path)
        seen.warning("and once more")
        return "ok"

    app.add_url_rule("/games/g/player/<token>", "talkative", talkative)
    client = app.test_client()
    answer = client.get("/games/g/player/sEcReT-token_1?invite=sEcReT-2", headers={"X-Request-Id": "lb-42.a"})
    assert answer.headers["X-Request-Id"] == "lb-42.a"
    assert answer.headers["Referrer-Policy"] == "no-referrer"
    lines = [line for line in capsys.readouterr().err.splitlines() if "tests.logs" in line]
    assert len(lines) == 2 and all("[lb-42.a]" in line for line in lines)
    assert "serving /games/g/player/***?invite=***" in lines[0] and "sEcReT" not in "".join(lines)

    # A header that is not a short plain id (spaces to fake fields, markup, a flood) is replaced.
    for bad in ("two words", "<b>x</b>", "x" * 129, "a\"b", ""):
        answer = client.get("/nowhere", headers={"X-Request-Id": bad})
        assert answer.status_code == 404 and re.fullmatch(r"[0-9a-f]{32}", answer.headers["X-Request-Id"])
    ids = {client.get("/").headers["X-Request-Id"] for _ in range(3)}
    assert len(ids) == 3


def test_json_lines(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    app = create_app(base_config(f"sqlite:///{tmp_path}/d.sqlite3", LOG_FORMAT="json"))
    try:
        with app.test_request_context("/"):
            app.preprocess_request()
            logging.getLogger("tests.logs").info("see /signin/1.secretlink")
            rid = logs.current_request_id()
        line = next(x for x in capsys.readouterr().err.splitlines() if "tests.logs" in x)
        entry = json.loads(line)
        assert entry["level"] == "INFO" and entry["request_id"] == rid and entry["message"] == "see /signin/***"
    finally:
        logs.configure("INFO", "text")


def test_the_settings_are_checked_and_named() -> None:
    assert from_env("/tmp/x", {"DICEPOST_LOG_LEVEL": "debug", "SECRET_KEY": "k"})["LOG_LEVEL"] == "DEBUG"
    with pytest.raises(ValueError, match="DICEPOST_LOG_LEVEL='loud'"):
        from_env("/tmp/x", {"DICEPOST_LOG_LEVEL": "loud", "SECRET_KEY": "k"})
    with pytest.raises(ValueError, match="DICEPOST_LOG_FORMAT='xml'"):
        from_env("/tmp/x", {"DICEPOST_LOG_FORMAT": "xml", "SECRET_KEY": "k"})
    with pytest.raises(ValueError, match="DICEPOST_PROXY_HOPS='one'"):
        from_env("/tmp/x", {"DICEPOST_PROXY_HOPS": "one", "SECRET_KEY": "k"})


def test_referrer_policy_only_where_the_url_holds_a_token(sqlite_app: Flask) -> None:
    client = sqlite_app.test_client()
    table = start(client)
    for path in _token_pages(table):
        assert client.get(path).headers.get("Referrer-Policy") == "no-referrer", path
    for path in ("/", f"/games/{table.id}", "/signin", f"/api/games/{table.id}"):
        assert "Referrer-Policy" not in client.get(path).headers, path


def _fetch(url: str, headers: dict[str, str] | None = None, data: bytes | None = None) -> tuple[int, bytes]:
    req = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(req, timeout=10) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as refused:
        return refused.code, refused.read()


def test_the_servers_access_log_carries_no_token(tmp_path: Path) -> None:
    """`dicepost web` (granian with service.logs.AccessLog), JSON lines asked for: no token
    in any line, the request id on the request's line."""
    url = migrated_sqlite(tmp_path / "d.sqlite3")
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("DICEPOST_")}
    env.update(DATABASE_URL=url, SECRET_KEY="test-secret", PYTHONUNBUFFERED="1", DICEPOST_LOG_FORMAT="json",
               DICEPOST_SEAL_KEY=os.environ["DICEPOST_SEAL_KEY"])
    out = tmp_path / "server.log"
    with out.open("wb") as handle:
        argv = [*dicepost_command(), "web", "--bind", f"127.0.0.1:{port}", "--workers", "1"]
        proc = subprocess.Popen(argv, env=env, cwd=ROOT, stdout=handle, stderr=subprocess.STDOUT)
        try:
            base = f"http://127.0.0.1:{port}"
            wait_for(lambda: _fetch_or_none(base + "/api/rulesets"), "dicepost web to answer", 30)
            status, body = _fetch(base + "/api/games", data=json.dumps(
                {"ruleset": "universal", "title": "T", "seats": [{"name": "a"}, {"name": "b"}]}).encode())
            assert status == 201
            game = json.loads(body)
            invite = game["seats"][0]["invite_token"]
            status, body = _fetch(f"{base}/api/games/{game['id']}/join", data=json.dumps({"invite_token": invite}).encode())
            token = json.loads(body)["player_token"]
            assert _fetch(f"{base}/games/{game['id']}/player/{token}?token={token}",
                          headers={"X-Request-Id": "probe-7", "Referer": f"{base}/games/{game['id']}/gm/{game['gm_token']}"}
                          )[0] == 200
            assert _fetch(f"{base}/games/{game['id']}/join/{invite}")[0] == 409  # used: the seat is taken
            time.sleep(0.5)
        finally:
            proc.terminate()
            proc.wait(20)
    lines = [json.loads(line) for line in out.read_text().splitlines() if line.strip()]  # JSON, every one
    text = "\n".join(entry["message"] for entry in lines)
    assert f'"GET /games/{game["id"]}/player/***?token=*** HTTP/1.1" 200' in text
    assert "rid=probe-7" in text  # the request id on the access line
    for secret in (token, invite, game["gm_token"]):
        assert secret not in text


def _fetch_or_none(url: str) -> int | None:
    try:
        return _fetch(url)[0]
    except OSError:
        return None


@pytest.mark.slow
def test_the_worker_logs_through_the_service_handler(worker: WorkerProcess, pg_url: str,
                                                      redis_env: dict[str, str]) -> None:
    """The worker's lines are ours (time, level, logger, [the sending request's id, else
    the task id, else -]), INFO included,
    each once (not again through Celery's or the command line's own handler)."""
    ready = re.findall(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} INFO celery\.\S+ \[-\] .* ready\.$",
                       worker.log.read_text(), re.MULTILINE)
    assert len(ready) == 1 and worker.log.read_text().count(" ready.") == 1
    app = create_app(full_config(pg_url, redis_env))
    try:
        sent = app.extensions["celery"].send_task("worker.tasks.sweep", queue=app.config["QUEUES"]["resolve"])
        done = wait_for(lambda: re.search(rf"^.* \[{sent.id}\] .*{sent.id}.* succeeded.*$",
                                          worker.log.read_text(), re.MULTILINE), "the task's line", 30)
        assert " INFO celery." in done.group(0)
        with app.test_request_context("/", headers={"X-Request-Id": "rq-77"}):
            app.preprocess_request()
            sent = app.extensions["celery"].send_task("worker.tasks.sweep", queue=app.config["QUEUES"]["resolve"])
        wait_for(lambda: re.search(rf"^.* \[rq-77\] .*{sent.id}.* succeeded", worker.log.read_text(), re.MULTILINE),
                 "the task's line with the id of the request that sent it", 30)
    finally:
        engine_of(app).dispose()
