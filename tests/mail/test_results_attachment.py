"""Every results mail carries the game's record so far as an application/json attachment,
so a player keeps a copy the host cannot rewrite; `dicepost verify` checks that file alone."""

from __future__ import annotations

import json
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path
from types import SimpleNamespace

import pytest
from flask import Flask
from sqlalchemy import select

from service.db import session_scope
from service.mail.settings import mail_settings
from service.models import Outbox, Seat
from service.outbound import context
from service.outbound.compose import compose
from tests.conftest import loopback_client
from tests.mail.mail_world import parse
from tests.mail.smtp_server import SmtpServer
from tests.service.play import Table, start
from tests.service.test_cli import invoke


@pytest.fixture
def smtp() -> Iterator[SmtpServer]:
    with SmtpServer() as server:
        yield server


def results_mails(smtp: SmtpServer, to: str) -> list[EmailMessage]:
    return [r.message for r in smtp.received
            if r.recipients == [to] and ("results" in str(r.message["Subject"])
                                         or "has started" in str(r.message["Subject"]))]


def attachment(msg: EmailMessage) -> tuple[str, bytes]:
    parts = [p for p in msg.iter_attachments() if p.get_content_type() == "application/json"]
    assert len(parts) == 1, [p.get_content_type() for p in msg.iter_attachments()]
    payload = parts[0].get_payload(decode=True)
    assert isinstance(payload, bytes)
    return str(parts[0].get_filename()), payload


def play_rounds(app: Flask, table: Table, rounds: int) -> None:
    for _ in range(rounds):
        for seat in ("alice", "bob"):
            r = table.put(seat, table.bot(app, seat))
            assert r.status_code == 200, r.json


def test_the_attached_record_from_a_real_mail_verifies_alone(sqlite_app: Flask, smtp: SmtpServer,
                                                             tmp_path: Path) -> None:
    sqlite_app.config["SMTP_URL"] = f"smtp://127.0.0.1:{smtp.port}"
    table = start(sqlite_app.test_client(), options={"width": 8, "height": 8})
    play_rounds(sqlite_app, table, 2)
    mails = results_mails(smtp, "alice@example.org")
    assert [m["Subject"].split("] ", 1)[1] for m in mails] == [
        "The game has started", "Round 1 results", "Round 2 results"]
    commitment = table.created["commitment"]
    for t, msg in enumerate(mails, start=1):
        assert msg.get_content_type() == "multipart/mixed"
        name, data = attachment(msg)
        assert name == f"dicepost-{table.id}-step{t}.json"
        record = json.loads(data)
        assert [s["t"] for s in record["steps"]] == list(range(1, t + 1))
        text = msg.get_body(preferencelist=("plain",))
        assert text is not None and f"dicepost verify {name} --commitment {commitment}" in text.get_content()
        path = tmp_path / name
        path.write_bytes(data)
        done = invoke("verify", str(path), "--commitment", commitment)
        assert done.exit_code == 0, done.stdout
        # both seats joined without entropy of their own: only the host chose these dice
        assert "AMBER: every check holds" in done.stdout and "only the host chose these dice" in done.stdout

    # A die changed in the kept copy: the player's own file says so.
    name, data = attachment(mails[-1])
    record = json.loads(data)
    step = next(s for s in record["steps"] if s["rolls"])
    step["rolls"][0]["face"] = step["rolls"][0]["face"] % step["rolls"][0]["n"] + 1
    (tmp_path / name).write_text(json.dumps(record))
    done = invoke("verify", str(tmp_path / name), "--commitment", commitment)
    assert done.exit_code == 1 and "FAILED at step" in done.stdout
    # Another chain altogether: the commitment from the invitation catches it.
    done = invoke("verify", str(tmp_path / name), "--commitment", "00" * 32)
    assert done.exit_code == 1


def _compose_again(app: Flask, game_id: str, seat: str, step: int, fresh: bool = True) -> EmailMessage:
    if fresh:
        context.records().clear()  # built anew from the database, not the process's copy
    with app.app_context(), session_scope() as s, s.begin():
        seat_id = s.scalars(select(Seat.id).where(Seat.game_id == game_id, Seat.name == seat)).one()
        row = s.scalars(select(Outbox).where(Outbox.game_id == game_id, Outbox.seat_id == seat_id,
                                             Outbox.kind == "results")).all()
        mine = next(r for r in row if int(r.payload["step"]) == step)
        return parse(compose(s, mine, mail_settings(app.config)).raw)


def test_a_mail_composed_again_later_says_what_it_said_then(sqlite_app: Flask, tmp_path: Path) -> None:
    """A resend after later rounds resolved attaches the record as it stood at its step:
    the later steps, versions and outcome left out, still a record that verifies."""
    table = start(sqlite_app.test_client(), options={"width": 8, "height": 8})
    play_rounds(sqlite_app, table, 1)
    first = attachment(_compose_again(sqlite_app, table.id, "bob", 2))[1]
    play_rounds(sqlite_app, table, 2)
    again = attachment(_compose_again(sqlite_app, table.id, "bob", 2))[1]
    assert again == first
    # Alice's mail of that step, from the process's copy: the very same bytes.
    assert attachment(_compose_again(sqlite_app, table.id, "alice", 2, fresh=False))[1] == first
    later = json.loads(attachment(_compose_again(sqlite_app, table.id, "bob", 4))[1])
    assert len(later["steps"]) == 4 and later["steps"][:2] == json.loads(first)["steps"]
    (tmp_path / "r.json").write_bytes(again)
    assert invoke("verify", str(tmp_path / "r.json")).exit_code == 0



def test_the_embedded_mailbox_offers_the_attached_record_to_download(sqlite_app: Flask) -> None:
    """In the embedded default the mail stays on the machine: its page links the file."""
    from service.models import StoredMail
    from service.web.mailbox import mailbox_key

    table = start(sqlite_app.test_client(), options={"width": 8, "height": 8})
    with session_scope(sqlite_app) as s:
        mail_id = s.scalars(select(StoredMail.id).where(StoredMail.to == "alice@example.org",
                                                        StoredMail.subject.like("%has started"))).one()
    client = loopback_client(sqlite_app)
    client.get(f"/mailbox?key={mailbox_key(sqlite_app)}")
    page = client.get(f"/mailbox/{mail_id}").get_data(as_text=True)
    name = f"dicepost-{table.id}-step1.json"
    assert f'href="/mailbox/{mail_id}/attachments/0" download="{name}"' in page
    got = client.get(f"/mailbox/{mail_id}/attachments/0")
    assert got.status_code == 200 and got.mimetype == "application/json"
    assert got.headers["Content-Disposition"] == f'attachment; filename="{name}"'
    assert json.loads(got.data)["commitment"] == table.created["commitment"]
    assert client.get(f"/mailbox/{mail_id}/attachments/1").status_code == 404
    assert loopback_client(sqlite_app).get(f"/mailbox/{mail_id}/attachments/0").status_code == 403  # no key


def test_a_round_composed_together_gives_each_player_the_bytes_composed_alone(sqlite_app: Flask) -> None:
    """service.memo: a batch reads the steps, the round and the boards once for every
    player's mail; each mail is still exactly what composing it alone gives."""
    from service.memo import shared

    table = start(sqlite_app.test_client(), options={"width": 8, "height": 8})
    play_rounds(sqlite_app, table, 2)
    settings = mail_settings(sqlite_app.config)
    with sqlite_app.app_context(), session_scope() as s, s.begin():
        rows = s.scalars(select(Outbox).where(Outbox.game_id == table.id,
                                              Outbox.kind.in_(("results", "confirmation")))).all()
        alone = [compose(s, row, settings).raw for row in rows]
        with shared(s):
            together = [compose(s, row, settings).raw for row in rows]
    assert len(rows) >= 6 and together == alone


def test_each_players_attachment_holds_the_private_messages_that_player_may_read(
        sqlite_app: Flask, smtp: SmtpServer) -> None:
    """A results mail attaches its reader's record: the public talk and the private
    messages the player sent or got, never another's. A player with no private message
    in the game gets the public record, built once for all of them."""
    from engine.verify import parse_record, verify
    from service.views import game_record

    sqlite_app.config["SMTP_URL"] = f"smtp://127.0.0.1:{smtp.port}"
    table = start(sqlite_app.test_client(), seats=("alice", "bob", "carol", "dave"),
                  options={"width": 8, "height": 8})
    client = sqlite_app.test_client()
    for seat, to, text in (("alice", "all", "Hello table."), ("alice", "bob", "alice to bob only"),
                           ("bob", "gm", "bob to the GM only")):
        r = client.post(f"/games/{table.id}/player/{table.tokens[seat]}/messages", data={"to": to, "text": text})
        assert r.status_code == 303
    context.records().clear()
    for seat in ("alice", "bob", "carol", "dave"):
        r = table.put(seat, table.bot(sqlite_app, seat))
        assert r.status_code == 200, r.json

    said: dict[str, list[str]] = {}
    for seat in ("alice", "bob", "carol", "dave"):
        mail = next(m for m in results_mails(smtp, f"{seat}@example.org") if "Round 1 results" in str(m["Subject"]))
        data = attachment(mail)[1]
        record = parse_record(data)
        result = verify(record)
        assert result.ok, (seat, result.differences)
        assert [s["t"] for s in record["steps"]] == [1, 2]
        said[seat] = [m["text"] for m in record["messages"]]
        if seat in ("carol", "dave"):
            with sqlite_app.app_context(), session_scope() as s, s.begin():
                from service.models import Game
                public = context.record_bytes(game_record(s, s.get(Game, table.id), upto=2))
            assert data == public
    assert said["alice"] == ["Hello table.", "alice to bob only"]
    assert said["bob"] == ["Hello table.", "alice to bob only", "bob to the GM only"]
    assert said["carol"] == said["dave"] == ["Hello table."]
    # Built once per variant: the public one shared by carol and dave, one each for alice and bob.
    kept = context.records()
    assert [v for v in (None, "alice", "bob", "carol", "dave") if (table.id, 2, v, 0) in kept] == [
        None, "alice", "bob"]


def test_the_records_kept_for_the_mails_are_bounded_by_their_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    """A long game's record is hundreds of KB: the process keeps the newest ones only up to
    RECORDS_BYTES in all, dropping the oldest first."""
    kept = context.records()
    kept.clear()
    size = context.RECORDS_BYTES // 4 + 1
    monkeypatch.setattr(context, "game_record", lambda _session, _game, upto, viewer: {"t": upto})
    monkeypatch.setattr(context, "record_bytes", lambda record: bytes(size))
    game = SimpleNamespace(id="long", links_skipped=0)
    for t in range(10):
        assert len(context.record_so_far(None, game, t)) == size  # type: ignore[arg-type]
    assert [t for t in range(10) if ("long", t, None, 0) in kept] == [7, 8, 9]
    kept.clear()
