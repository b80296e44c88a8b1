"""One-time sign-in links and the player's dashboard, through the Flask test client."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

from celery.signals import before_task_publish, task_prerun
from flask import Flask
from sqlalchemy import event, select

from service import clock, create_app
from service.db import engine_of, session_scope
from service.models import LoginLink, Outbox, StoredMail
from service.signin import LIFETIME, MAX_OPEN_LINKS
from service.tokens import token_hash
from tests.conftest import WorkerProcess, empty_tables, full_config, wait_for

LINK = re.compile(r"http://dicepost\.test/signin/([0-9]+\.[a-z2-7]+)")


def new_game(client: Any, seats: list[dict[str, str]], title: str = "Dash") -> tuple[str, dict[str, str]]:
    created = client.post("/api/games", json={"ruleset": "universal", "title": title, "seats": seats})
    assert created.status_code == 201, created.json
    game_id = created.json["id"]
    tokens = {}
    for seat in created.json["seats"]:
        joined = client.post(f"/api/games/{game_id}/join", json={"invite_token": seat["invite_token"]})
        tokens[seat["name"]] = joined.json["player_token"]
    return game_id, tokens


def mailed_links(app: Flask, to: str) -> list[str]:
    with app.app_context(), session_scope() as db, db.begin():
        raws = db.scalars(select(StoredMail.raw).where(StoredMail.to == to, StoredMail.subject.contains("sign-in"))
                          .order_by(StoredMail.id)).all()
    return [m.group(1) for raw in raws for m in [LINK.search(raw)] if m]


def ask_for_link(client: Any, email: str) -> Any:
    """POST the sign-in form and follow its redirect: the page it lands on. The work on the
    address runs once the answer has been sent (when the server closes it), as a real
    server does after writing it."""
    asked = client.post("/signin", data={"email": email})
    asked.close()
    assert asked.status_code == 303 and asked.headers["Location"] == "/signin"
    return client.get(asked.headers["Location"])


def sign_in(app: Flask, client: Any, email: str) -> str:
    page = ask_for_link(client, email)
    assert page.status_code == 200 and b"a sign-in link is on its way" in page.data
    token = mailed_links(app, email.lower())[-1]
    assert b"Sign in" in client.get(f"/signin/{token}").data  # a GET only shows the button
    done = client.post(f"/signin/{token}")
    assert done.status_code == 302 and done.headers["Location"].endswith("/me")
    return token


def test_a_link_signs_in_once_and_the_dashboard_shows_the_players_games(app: Flask) -> None:
    client = app.test_client()
    game_id, tokens = new_game(client, [{"name": "red", "email": "Red@Example.org"},
                                        {"name": "blue", "email": "blue@example.org"}])
    assert client.get("/me").status_code == 302  # not signed in yet
    token = sign_in(app, client, "red@example.org")
    me = client.get("/me").get_data(as_text=True)
    assert "Dash" in me and "waiting for you" in me and "1 game waits for your orders" in me
    # only red's seat (each cell names its column, for the phone cards)
    assert me.count('<td data-label="You play">red</td>') == 1 and '<td data-label="You play">blue</td>' not in me

    again = app.test_client().post(f"/signin/{token}")
    assert again.status_code == 410 and b"does not work any more" in again.data

    with app.app_context(), session_scope() as db, db.begin():
        link = db.scalars(select(LoginLink)).one()
        assert link.token_hash == token_hash(token) and token not in repr(link.__dict__)
        assert link.used_at is not None and link.email == "red@example.org"
        row = db.scalars(select(Outbox).where(Outbox.kind == "login")).one()
        assert token not in str(row.payload) and row.status == "sent"

    # Orders from the dashboard: the seat is proven by the session, not a token.
    seat_link = re.search(r'href="(/me/play/\d+)"', me)
    assert seat_link
    view = client.get(f"/api/games/{game_id}/orders", headers={"Authorization": f"Bearer {tokens['red']}"}).json
    line = sorted(view["units"]["A1"])[-1]
    sent = client.post(seat_link.group(1), data={"round": "1", "units": "0", "free": line})
    assert sent.status_code == 303  # Post/Redirect/Get, as on the token page
    sent = client.get(sent.headers["Location"])
    assert sent.status_code == 200 and b"stored as version 1" in sent.data
    assert "✓ sent" in client.get("/me").get_data(as_text=True)


def test_mail_preferences_from_the_dashboard_only_for_ones_own_seats(app: Flask) -> None:
    client = app.test_client()
    new_game(client, [{"name": "red", "email": "red@example.org"}, {"name": "blue", "email": "blue@example.org"}])
    sign_in(app, client, "red@example.org")
    me = client.get("/me").get_data(as_text=True)
    seat = re.search(r'name="seat" value="(\d+)"', me)
    assert seat
    saved = client.post("/me/mail", data={"seat": seat.group(1), "mail_pref": "results"}, follow_redirects=True)
    assert "Mail settings saved" in saved.get_data(as_text=True)
    assert re.search(r'<option value="results" selected>', client.get("/me").get_data(as_text=True))
    other = str(int(seat.group(1)) + 1)  # blue's seat
    assert client.post("/me/mail", data={"seat": other, "mail_pref": "none"}).status_code == 404
    assert client.get(f"/me/play/{other}").status_code == 404
    assert client.post("/me/mail", data={"seat": seat.group(1), "mail_pref": "often"}).status_code == 400


def test_no_mail_for_strangers_expired_links_refused_and_open_links_capped(app: Flask) -> None:
    client = app.test_client()
    new_game(client, [{"name": "red", "email": "red@example.org"}, {"name": "blue"}])
    page = ask_for_link(client, "nobody@example.org")
    assert b"a sign-in link is on its way" in page.data  # the same answer: no address probing
    assert mailed_links(app, "nobody@example.org") == []

    for _ in range(MAX_OPEN_LINKS + 2):
        ask_for_link(client, "red@example.org")
    tokens = mailed_links(app, "red@example.org")
    assert len(tokens) == MAX_OPEN_LINKS

    with app.app_context(), session_scope() as db, db.begin():
        for link in db.scalars(select(LoginLink)):
            link.expires_at = clock.now() - timedelta(seconds=1)
            link.created_at = clock.now() - LIFETIME
    assert client.post(f"/signin/{tokens[0]}").status_code == 410
    assert client.get("/me").status_code == 302
    assert client.post("/signin/1.aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa").status_code == 404  # a guess
    ask_for_link(client, "red@example.org")  # expired links no longer count
    assert len(mailed_links(app, "red@example.org")) == MAX_OPEN_LINKS + 1


def test_links_expired_a_day_ago_are_deleted_when_a_link_is_asked_for(app: Flask) -> None:
    client = app.test_client()
    new_game(client, [{"name": "red", "email": "red@example.org"}, {"name": "blue", "email": "b@example.org"}])
    ask_for_link(client, "red@example.org")
    with app.app_context(), session_scope() as db, db.begin():
        db.scalars(select(LoginLink)).one().expires_at = clock.now() - timedelta(days=2)
    ask_for_link(client, "b@example.org")
    with app.app_context(), session_scope() as db, db.begin():
        assert [link.email for link in db.scalars(select(LoginLink))] == ["b@example.org"]


class Work:
    """SQL statements run and Celery tasks started or published while it listens."""

    def __init__(self, app: Flask) -> None:
        self.engine = engine_of(app)
        self.statements: list[str] = []
        self.tasks: list[str] = []

    def _statement(self, _conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        self.statements.append(statement.split()[0].upper())

    def _ran(self, sender: Any = None, **_: Any) -> None:
        self.tasks.append(f"ran {sender.name}")

    def _published(self, sender: Any = None, **_: Any) -> None:
        self.tasks.append(f"published {sender}")

    def __enter__(self) -> Work:
        event.listen(self.engine, "before_cursor_execute", self._statement)
        task_prerun.connect(self._ran)
        before_task_publish.connect(self._published)
        return self

    def __exit__(self, *_: Any) -> None:
        event.remove(self.engine, "before_cursor_execute", self._statement)
        task_prerun.disconnect(self._ran)
        before_task_publish.disconnect(self._published)


def test_the_answer_does_the_same_work_for_players_and_strangers(app: Flask) -> None:
    """Before its answer the form does the same for every address (nothing that depends on
    it), so its timing cannot say whether an address plays here; the lookup and the mail
    come after the answer is sent."""
    client = app.test_client()
    new_game(client, [{"name": "red", "email": "red@example.org"}, {"name": "blue"}])
    before_answer, after_answer = {}, {}
    answers: dict[str, tuple[int, str, bytes]] = {}
    for who, email in (("player", "red@example.org"), ("stranger", "nobody@example.org")):
        with Work(app) as work:
            asked = client.post("/signin", data={"email": email})
            before_answer[who] = (list(work.statements), list(work.tasks))
            asked.close()  # the server has sent the answer
        after_answer[who] = work.tasks[len(before_answer[who][1]):]
        answers[who] = (asked.status_code, asked.headers["Location"], asked.data)
        page = client.get("/signin")
        assert b"a sign-in link is on its way" in page.data and email.encode() in page.data
    assert answers["player"] == answers["stranger"] == (303, "/signin", answers["player"][2])
    assert before_answer["player"] == before_answer["stranger"] == ([], [])
    assert after_answer["player"][0] == after_answer["stranger"][0] == "ran worker.tasks.issue_signin_link"
    assert len(mailed_links(app, "red@example.org")) == 1 and mailed_links(app, "nobody@example.org") == []


def test_in_full_mode_both_answers_queue_one_identical_task(pg_url: str, redis_env: dict[str, str],
                                                            worker: WorkerProcess) -> None:
    """PostgreSQL, Redis and a real worker: the web process runs no SQL for either
    address and publishes the same one task; the worker then queues the player's mail."""
    # The game's own mail is rung by its requests at once (no bell: its thread could
    # publish the invitations while the sign-in answers below are listened to).
    app = create_app(full_config(pg_url, redis_env, MAIL_BELL_SECONDS=0))
    empty_tables(app)
    try:
        client = app.test_client()
        new_game(client, [{"name": "red", "email": "red@example.org"}, {"name": "blue"}])
        done = {}
        for email in ("red@example.org", "nobody@example.org"):
            with Work(app) as work:
                client.post("/signin", data={"email": email}).close()
            done[email] = (work.statements, work.tasks)
        assert done["red@example.org"] == done["nobody@example.org"] == (
            [], ["published worker.tasks.issue_signin_link"])

        def login_rows() -> list[str]:
            with app.app_context(), session_scope() as db, db.begin():
                return list(db.scalars(select(Outbox.to_address).where(Outbox.kind == "login")))

        assert wait_for(login_rows, "the worker to queue the sign-in mail", 30) == ["red@example.org"]
    finally:
        engine_of(app).dispose()


def test_the_form_redirects_and_a_reload_mails_nothing_again(app: Flask) -> None:
    """Post/Redirect/Get: the POST answers 303 to /signin, whose page says once that a link
    is on its way if the address plays here; reloading it (a GET) asks for nothing again."""
    client = app.test_client()
    new_game(client, [{"name": "red", "email": "red@example.org"}, {"name": "blue"}])
    page = ask_for_link(client, "red@example.org")
    assert b"If <strong>red@example.org</strong> plays a game here, a sign-in link is on its way" in page.data
    assert len(mailed_links(app, "red@example.org")) == 1
    for _ in range(2):  # the browser's reload of the page it landed on
        again = client.get("/signin")
        again.close()
        assert again.status_code == 200 and b"on its way" not in again.data
    assert len(mailed_links(app, "red@example.org")) == 1
    with app.app_context(), session_scope() as db, db.begin():
        assert len(db.scalars(select(LoginLink)).all()) == 1
