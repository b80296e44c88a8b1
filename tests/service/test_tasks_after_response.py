"""The embedded default served by `dicepost serve`: the request that completes a round is
answered before the round is resolved and its mail composed; they run once the answer is sent."""

from __future__ import annotations

import os
import random
import signal
import socket
import sqlite3
import struct
import subprocess
from contextlib import closing
from pathlib import Path
from typing import Any

from flask import Flask
from sqlalchemy import select

from bench.client import Api
from bench.load import LoadSpec, create_game, send_orders
from service.db import session_scope
from service.models import Outbox, Round
from tests.conftest import ROOT, LiveServer, clean_env, dicepost_command, free_port, wait_for
from tests.service.play import start


def _round_status(app: Flask, game_id: str) -> str:
    with session_scope(app) as s, s.begin():
        return str(s.scalar(select(Round.status).where(Round.game_id == game_id, Round.number == 1)))


def _mail(app: Flask, game_id: str) -> list[tuple[str, str]]:
    with session_scope(app) as s, s.begin():
        return sorted((str(k), str(st)) for k, st in s.execute(
            select(Outbox.kind, Outbox.status).where(Outbox.game_id == game_id)))


def test_the_last_order_is_answered_first_and_the_round_resolved_when_the_answer_closes(
        app: Flask, client: Any) -> None:
    app.config["TASKS_AFTER_RESPONSE"] = True  # as `dicepost serve` sets it in embedded mode
    table = start(client)
    assert table.put("alice", table.bot(app, "alice")).status_code == 200
    answer = table.put("bob", table.bot(app, "bob"))
    assert answer.status_code == 200
    # The answer is complete, but the server has not closed it yet: nothing ran. (The test
    # client closes no answer by itself, so no mail of this test is sent before that.)
    assert answer.json["version"] == 1
    assert _round_status(app, table.id) == "ready"
    assert ("results", "sent") not in _mail(app, table.id)
    assert ("confirmation", "sent") not in _mail(app, table.id)
    answer.close()  # what the WSGI server does once the answer is sent
    assert _round_status(app, table.id) == "resolved"
    sent = [kind for kind, status in _mail(app, table.id) if status == "sent"]
    assert sent == ["confirmation", "results", "results"]  # bob's, and round 1's results for both
    assert table.status()["round"] == 2


def test_without_the_setting_the_round_is_resolved_before_the_answer(app: Flask, client: Any) -> None:
    table = start(client)
    table.put("alice", table.bot(app, "alice"))
    assert table.put("bob", table.bot(app, "bob")).status_code == 200
    assert _round_status(app, table.id) == "resolved"


def test_dicepost_serve_runs_them_once_the_answer_is_sent(tmp_path: Path) -> None:
    """The real `dicepost serve`: the last order is answered, then the serving process
    resolves the round and sends its mail (no worker, and the sweeper waits an hour, so
    only the after-answer tasks, run when the server closes the answer, can have done it)."""
    port = free_port()
    db_file = tmp_path / "serve.sqlite3"
    env = clean_env(SECRET_KEY="after-answer", DATABASE_URL=f"sqlite:///{db_file}",
                    DICEPOST_INSTANCE_PATH=str(tmp_path / "instance"), DICEPOST_SWEEP_SECONDS="3600")
    subprocess.run([*dicepost_command(), "db", "upgrade"], env=env, cwd=ROOT, check=True, capture_output=True,
                   timeout=120)
    server = subprocess.Popen([*dicepost_command(), "serve", "--port", str(port)], env=env, cwd=ROOT,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        api = Api(port)
        wait_for(lambda: _answers(api), "dicepost serve to answer", 60)
        game_id, _names, tokens = create_game(api, LoadSpec(1, 2, 0), 0)
        for seat, token in enumerate(tokens):
            assert send_orders(api, game_id, token, None, random.Random(seat))[0] == 1

        def resolved() -> bool:
            status, view = api.call("GET", f"/api/games/{game_id}/orders", token=tokens[0])
            return status == 200 and view["round"] == 2

        wait_for(resolved, "round 1 resolved by the serving process", 30)

        def sent() -> list[str]:
            with closing(sqlite3.connect(db_file)) as conn:
                return sorted(kind for (kind,) in conn.execute(
                    "SELECT kind FROM outbox WHERE game_id = ? AND status = 'sent'", (game_id,)))

        mailed = wait_for(lambda: (kinds := sent()).count("results") >= 2 and kinds, "the results mailed", 30)
        assert "confirmation" in mailed
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(30)


def _answers(api: Api) -> bool:
    try:
        return api.call("GET", "/healthz")[0] == 200
    except OSError:
        return False


def test_work_a_view_hands_to_the_closed_answer_sends_its_mail_then(app: Flask, client: Any) -> None:
    """The sign-in form answers first and issues the link when the answer closes; the mail
    that work queues is sent then too, not left for the sweeper."""
    app.config["TASKS_AFTER_RESPONSE"] = True
    start(client)
    answer = client.post("/signin", data={"email": "alice@example.org"})
    assert answer.status_code == 303
    assert _login_mail(app) == []  # answered before any work on the address
    answer.close()
    assert _login_mail(app) == ["sent"]


def _login_mail(app: Flask) -> list[str]:
    with session_scope(app) as s, s.begin():
        return [str(status) for status in s.scalars(select(Outbox.status).where(Outbox.kind == "login"))]


def _reset_after_the_status_line(port: int, request: bytes) -> None:
    """A client that takes the answer's first bytes and resets the connection, as a browser
    may once it has a redirect."""
    with socket.create_connection(("127.0.0.1", port)) as conn:
        conn.sendall(request)
        conn.recv(12)
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))


def test_an_answer_whose_connection_is_reset_still_runs_its_after_answer_work(app: Flask) -> None:
    """`dicepost serve` runs the work left for after the answer even when the client resets
    the connection as soon as it has the answer (Werkzeug's own server then skips close())."""
    app.config["TASKS_AFTER_RESPONSE"] = True
    start(app.test_client())
    server = LiveServer(app)
    try:
        port = int(server.url.rsplit(":", 1)[1])
        for sent, name in enumerate(("alice", "bob") * 3, start=1):  # 3 open links an address may hold
            body = f"email={name}%40example.org".encode()
            _reset_after_the_status_line(port, b"POST /signin HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                         b"Content-Type: application/x-www-form-urlencoded\r\n"
                                         b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
            wait_for(lambda n=sent: _login_mail(app) == ["sent"] * n, f"sign-in mail {sent} sent", 10)
    finally:
        server.stop()


def test_sign_ins_at_the_same_moment_each_get_their_mail(app: Flask) -> None:
    """Six sign-in forms sent at once under `dicepost serve` (more than the pool holds, with
    the test's pool of two): each answer's work runs its mail task in the serving process,
    and every link is mailed, none left waiting on a connection its own thread still holds."""
    from tests.mail.at_once import at_once

    app.config["TASKS_AFTER_RESPONSE"] = True
    start(app.test_client())
    server = LiveServer(app)
    addresses = iter(["alice", "bob"] * 3)  # 3 open links an address may hold
    try:
        port = int(server.url.rsplit(":", 1)[1])

        def ask() -> int:
            body = f"email={next(addresses)}%40example.org".encode()
            with closing(socket.create_connection(("127.0.0.1", port), timeout=60)) as conn:
                conn.sendall(b"POST /signin HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                             b"Content-Type: application/x-www-form-urlencoded\r\n"
                             b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
                return int(conn.recv(12).split()[1])

        assert at_once(6, ask) == [303] * 6
        wait_for(lambda: _login_mail(app) == ["sent"] * 6, "six sign-in mails sent", 20)
    finally:
        server.stop()
