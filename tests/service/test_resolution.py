"""Exactly-once resolution, submissions racing it, and the sweeper re-ringing lost work."""

from __future__ import annotations

import threading
from functools import partial
from typing import Any

from flask import Flask
from sqlalchemy import event, select, update

from engine import replay
from service import resolution, submit
from service.db import engine_of, session_scope
from service.errors import Conflict
from service.models import AuditLog, Round, Step, Submission
from service.sweeper import sweep_and_ring
from tests.service.play import start, submit_without_doorbell


def _make_ready_without_doorbell(app: Flask, table: Any) -> None:
    """Both players' orders stored and the round marked ready, but the doorbell lost."""
    submit_without_doorbell(table, {seat: table.bot(app, seat) for seat in ("alice", "bob")})


def _steps(app: Flask, game_id: str) -> list[int]:
    with session_scope(app) as s, s.begin():
        return list(s.scalars(select(Step.t).where(Step.game_id == game_id).order_by(Step.t)))


def test_lost_doorbell_is_rung_by_the_sweeper(app: Flask, client: Any) -> None:
    table = start(client)
    _make_ready_without_doorbell(app, table)
    assert table.status()["round"] == 1 and _steps(app, table.id) == [1]
    with app.app_context():
        assert sweep_and_ring()["rounds"] == 1
    assert _steps(app, table.id) == [1, 2] and table.status()["round"] == 2
    with app.app_context():
        assert sweep_and_ring()["rounds"] == 0


def test_resolving_twice_does_nothing_the_second_time(app: Flask, client: Any) -> None:
    table = start(client)
    _make_ready_without_doorbell(app, table)
    with app.app_context(), session_scope(app) as s:
        assert resolution.resolve_round(s, table.id, 1) is True
    with app.app_context(), session_scope(app) as s:
        assert resolution.resolve_round(s, table.id, 1) is False
        assert resolution.resolve_round(s, table.id, 7) is False
    assert _steps(app, table.id) == [1, 2]


def test_an_open_round_is_not_resolved_by_a_stray_task(app: Flask, client: Any) -> None:
    table = start(client)
    with app.app_context(), session_scope(app) as s:
        assert resolution.resolve_round(s, table.id, 1) is False
    assert _steps(app, table.id) == [1]


def _at_once(*calls: Any) -> None:
    """Run the calls in threads released together."""
    barrier = threading.Barrier(len(calls))

    def run(call: Any) -> None:
        barrier.wait()
        call()

    threads = [threading.Thread(target=run, args=(c,)) for c in calls]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)


def _resolve(app: Flask, game_id: str, results: list[Any]) -> None:
    with app.app_context(), session_scope(app) as s:
        results.append(resolution.resolve_round(s, game_id, 1))


def _amend(app: Flask, table: Any, text: str, results: list[Any]) -> None:
    with app.app_context(), session_scope(app) as s:
        try:
            results.append(submit.submit(s, table.id, table.tokens["alice"], 1, text, "api"))
        except Conflict as exc:
            results.append(exc)


def test_two_tasks_at_once_one_wins(app: Flask, client: Any) -> None:
    for _ in range(3):
        table = start(client)
        _make_ready_without_doorbell(app, table)
        results: list[bool] = []
        _at_once(partial(_resolve, app, table.id, results), partial(_resolve, app, table.id, results))
        assert sorted(results) == [False, True]
        assert _steps(app, table.id) == [1, 2]


def test_a_submission_racing_the_resolution_is_included_or_refused(app: Flask, client: Any) -> None:
    """Never silently dropped: either the amendment is in the step's inputs, or it got 409."""
    for attempt in range(4):
        table = start(client)
        _make_ready_without_doorbell(app, table)
        amendment = f"pass  # amended in attempt {attempt}"
        resolved: list[bool] = []
        amended: list[Any] = []
        calls = [partial(_amend, app, table, amendment, amended), partial(_resolve, app, table.id, resolved)]
        _at_once(*(calls if attempt % 2 else calls[::-1]))
        with session_scope(app) as s, s.begin():
            step = s.scalars(select(Step).where(Step.game_id == table.id, Step.t == 2)).first()
            assert step is not None, "a ready round is resolved by the resolving task"
            stored = s.scalars(select(Submission).where(Submission.text == amendment)
                               .join(Round).where(Round.game_id == table.id)).all()
        assert resolved == [True]
        if isinstance(amended[0], Conflict):
            assert "not open" in amended[0].message and stored == []
        else:
            # The amendment (pass) is in: under dicepost-dice/v2 its canonical input is "".
            assert len(stored) == 1 and step.inputs["alice"] == ""


def _send(app: Flask, table: Any, seat: str, text: str, results: list[Any]) -> None:
    with app.app_context(), session_scope(app) as s:
        results.append(submit.submit(s, table.id, table.tokens[seat], 1, text, "api"))


def test_the_last_two_players_at_once_close_the_round(app: Flask, client: Any) -> None:
    """Each submission reads the round's versions after taking its lock: of two players
    moving at once, the second sees the first's orders and closes the round."""
    for _ in range(3):
        table = start(client)
        texts = {seat: table.bot(app, seat) for seat in ("alice", "bob")}
        results: list[submit.Accepted] = []
        _at_once(*(partial(_send, app, table, seat, text, results) for seat, text in texts.items()))
        assert sorted(r.ready for r in results) == [False, True]
        assert [r.version for r in results] == [1, 1]
        assert _steps(app, table.id) == [1, 2]


def test_one_seat_twice_at_once_gets_the_next_two_versions(app: Flask, client: Any) -> None:
    for _ in range(3):
        table = start(client)
        text = table.bot(app, "alice")
        results: list[submit.Accepted] = []
        _at_once(partial(_send, app, table, "alice", text, results),
                 partial(_send, app, table, "alice", "pass", results))
        assert sorted(r.version for r in results) == [1, 2]
        assert not any(r.ready for r in results) and _steps(app, table.id) == [1]


def test_sweeper_leaves_finished_work_alone(app: Flask, client: Any) -> None:
    table = start(client, options={"max_rounds": 1})
    table.put("alice", "pass")
    table.put("bob", "pass")
    assert table.status()["status"] == "finished"
    with session_scope(app) as s, s.begin():
        s.execute(update(Round).where(Round.game_id == table.id).values(status="resolved"))
    with app.app_context():
        assert sweep_and_ring()["rounds"] == 0
    record = client.get(f"/api/games/{table.id}/record").json
    assert replay(record).ok


def _resolved_audits(app: Flask, game_id: str) -> int:
    with session_scope(app) as s, s.begin():
        return len(list(s.scalars(select(AuditLog.id).where(AuditLog.game_id == game_id,
                                                          AuditLog.action == "resolved"))))


def test_one_task_resolves_other_ready_rounds_each_once(app: Flask, client: Any) -> None:
    """On PostgreSQL the task for one round also takes the other ready rounds (SKIP
    LOCKED), up to its bound; their own tasks later find them resolved. SQLite: one each."""
    tables = [start(client) for _ in range(5)]
    for table in tables:
        _make_ready_without_doorbell(app, table)
    postgres = engine_of(app).dialect.name == "postgresql"
    with app.app_context(), session_scope(app) as s:
        assert resolution.resolve_ready(s, tables[0].id, 1, rounds=4, seconds=60) == (True, 4 if postgres else 1)
    resolved = [t for t in tables if _steps(app, t.id) == [1, 2]]
    assert len(resolved) == (4 if postgres else 1) and tables[0] in resolved
    with app.app_context(), session_scope(app) as s:
        # the doorbells of the rounds taken along: nothing left for their own round
        for table in resolved:
            assert resolution.resolve_round(s, table.id, 1) is False
        assert resolution.resolve_ready(s, tables[0].id, 1, seconds=60) == (False, 5 - len(resolved) if postgres else 0)
        for table in tables:
            assert resolution.resolve_round(s, table.id, 1) is (not postgres and table not in resolved)
    for table in tables:
        assert _steps(app, table.id) == [1, 2] and _resolved_audits(app, table.id) == 1
        assert table.status()["round"] == 2


def test_a_round_held_by_another_resolver_is_passed_over(pg_app: Flask) -> None:
    client = pg_app.test_client()
    held, free = start(client), start(client)
    for table in (held, free):
        _make_ready_without_doorbell(pg_app, table)
    with pg_app.app_context(), session_scope(pg_app) as holder, holder.begin():
        holder.execute(select(Round.id).where(Round.game_id == held.id, Round.number == 1).with_for_update())
        with session_scope(pg_app) as s:
            # its own round (open) is not ready: only the free one is taken, without waiting
            assert resolution.resolve_ready(s, free.id, 2, seconds=60) == (False, 1)
    assert _steps(pg_app, free.id) == [1, 2] and _steps(pg_app, held.id) == [1]
    with pg_app.app_context(), session_scope(pg_app) as s:
        assert resolution.resolve_ready(s, held.id, 1, seconds=60) == (True, 1)
    assert _steps(pg_app, held.id) == [1, 2] and _resolved_audits(pg_app, held.id) == 1


def test_a_doorbell_for_a_round_this_process_took_along_runs_no_statement(pg_app: Flask) -> None:
    """The doorbell of a round a task took along is answered by the process that resolved
    it without a connection; a round it did not resolve still goes to the database."""
    from worker import tasks

    client = pg_app.test_client()
    first, second = start(client), start(client)
    for table in (first, second):
        _make_ready_without_doorbell(pg_app, table)
    engine = engine_of(pg_app)
    with pg_app.app_context(), session_scope(pg_app) as s:
        assert not resolution.resolved_here(engine, second.id, 1)
        assert resolution.resolve_ready(s, first.id, 1, seconds=60) == (True, 2)
    assert resolution.resolved_here(engine, first.id, 1) and resolution.resolved_here(engine, second.id, 1)
    assert not resolution.resolved_here(engine, second.id, 2)  # open: never resolved
    statements: list[str] = []
    listener = partial(lambda seen, *args: seen.append(args[2]), statements)
    event.listen(engine, "before_cursor_execute", listener)
    try:
        with pg_app.app_context():
            assert tasks.resolve_round.run(second.id, 1) is False
            assert statements == []
            assert tasks.resolve_round.run(second.id, 2) is False  # open: asked of the database
            assert statements
    finally:
        event.remove(engine, "before_cursor_execute", listener)
    assert _steps(pg_app, second.id) == [1, 2] and _resolved_audits(pg_app, second.id) == 1


def test_a_resolution_mails_the_confirmed_followers_of_the_game_only(app: Flask, client: Any) -> None:
    """The usual round's one-statement path is taken only when no one follows the game;
    a confirmed follower gets the round's mail, an unconfirmed one does not."""
    from service.clock import now
    from service.models import Follower, Outbox

    followed, alone = start(client), start(client)
    with app.app_context(), session_scope(app) as s, s.begin():
        s.add_all([Follower(game_id=followed.id, email="fan@example.com", salt="00", token_hash="a" * 64,
                            confirmed_at=now()),
                   Follower(game_id=followed.id, email="maybe@example.com", salt="00", token_hash="b" * 64),
                   Follower(game_id=alone.id, email="later@example.com", salt="00", token_hash="c" * 64)])
    for table in (followed, alone):
        _make_ready_without_doorbell(app, table)
        with app.app_context(), session_scope(app) as s:
            assert resolution.resolve_round(s, table.id, 1) is True
    with session_scope(app) as s, s.begin():
        def mailed(game_id: str, kind: str) -> list[str | None]:
            return list(s.scalars(select(Outbox.to_address).where(Outbox.game_id == game_id, Outbox.kind == kind)))
        assert mailed(followed.id, "follow_results") == ["fan@example.com"]
        assert mailed(alone.id, "follow_results") == []
        assert len(mailed(followed.id, "results")) == len(mailed(alone.id, "results")) > 0
    for table in (followed, alone):
        assert _steps(app, table.id) == [1, 2] and table.status()["round"] == 2


def test_a_game_new_to_the_process_takes_its_link_from_the_sealed_marks(app: Flask, client: Any,
                                                                      monkeypatch: Any) -> None:
    """No walk from the tip: at most EVERY hashes for S_t, and the link revealed chains
    to the one before it."""
    from engine.dice import NEW_GAME_PROFILE, chain_link_ok
    from service import caches, dice_keys

    table = start(client)
    _make_ready_without_doorbell(app, table)
    caches.clear_all()  # as in a process that never saw the game
    walked: list[int] = []
    real_chain = dice_keys.chain
    monkeypatch.setattr(dice_keys, "chain", lambda tip, n, profile: walked.append(n) or real_chain(tip, n, profile))
    with app.app_context(), session_scope(app) as s:
        assert resolution.resolve_round(s, table.id, 1) is True
    assert walked and max(walked) < dice_keys.EVERY
    with session_scope(app) as s, s.begin():
        keys = list(s.scalars(select(Step.key).where(Step.game_id == table.id).order_by(Step.t)))
    assert len(keys) == 2 and chain_link_ok(bytes.fromhex(keys[1]), bytes.fromhex(keys[0]), NEW_GAME_PROFILE)


def test_marks_of_another_chain_roll_no_die(app: Flask, client: Any) -> None:
    """Marks sealed with the right key but for another tip give a link that does not
    follow the one revealed: the round stays ready and the game is marked damaged."""
    from engine import chain
    from service import dice_keys
    from service.models import Game

    table = start(client)
    _make_ready_without_doorbell(app, table)
    key = bytes.fromhex(app.config["SEAL_KEY"])
    with session_scope(app) as s, s.begin():
        wrong = chain(bytes(32), 4096, "dicepost-dice/v2")[::dice_keys.EVERY]
        s.execute(update(Game).where(Game.id == table.id)
                  .values(sealed_marks=dice_keys.seal_marks(key, table.id, 4096, wrong)))
    with app.app_context(), session_scope(app) as s:
        assert resolution.resolve_round(s, table.id, 1) is False
    assert _steps(app, table.id) == [1]
    with session_scope(app) as s, s.begin():
        assert s.scalars(select(Round.status).where(Round.game_id == table.id, Round.number == 1)).one() == "ready"
        assert "does not follow" in s.scalars(select(AuditLog.detail).where(
            AuditLog.game_id == table.id, AuditLog.action == "damaged")).one()["problem"]


def test_a_round_takes_each_seats_latest_version_and_none_after_a_withdrawal(app: Flask, client: Any) -> None:
    """The step's inputs: every seat in seat order, the accepted text of its latest version
    of the round, and "" for a seat whose latest version withdrew its orders (an empty
    accepted text) even though an earlier one had orders."""
    from service.clock import now
    from service.models import Seat
    from service.submissions import store_submission

    table = start(client)
    orders = {seat: table.bot(app, seat) for seat in ("alice", "bob")}
    assert table.put("alice", "pass").status_code == 200
    submit_without_doorbell(table, orders)  # alice's version 2, bob's 1: the round is ready
    with app.app_context(), session_scope(app) as s, s.begin():
        rnd = s.scalars(select(Round).where(Round.game_id == table.id, Round.number == 1)).one()
        bob = s.scalars(select(Seat).where(Seat.game_id == table.id, Seat.name == "bob")).one()
        store_submission(s, rnd, bob, "", "", "mail", now())  # bob's version 2 withdraws
    with session_scope(app) as s, s.begin():
        alice_latest = s.scalars(select(Submission.accepted).join(Seat, Seat.id == Submission.seat_id)
                                 .where(Seat.game_id == table.id, Seat.name == "alice")
                                 .order_by(Submission.version.desc())).first()
    assert alice_latest and alice_latest != "pass"
    with app.app_context(), session_scope(app) as s:
        assert resolution.resolve_round(s, table.id, 1) is True
    with session_scope(app) as s, s.begin():
        step = s.scalars(select(Step).where(Step.game_id == table.id, Step.t == 2)).one()
        assert list(step.inputs.items()) == [("alice", alice_latest), ("bob", "")]
