"""The scale and history parts of the bench (nothing is timed): games cloned in SQL are games
the service serves, plays and verifies; both parts run at tiny sizes; the report shows them
and the targets are judged on made-up figures."""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import func, select

from bench import history, scale
from bench.bulk import Cloner, Template, message_id, replaced
from bench.report import render
from bench.stack import FullSizes
from bench.targets import all_targets
from engine.verify import verify
from service.db import engine_of, session_scope
from service.models import Game, Outbox, Seat

MACHINE = {"date": "d", "command": "c", "nproc": 2, "cpu": "x", "load_at_start": "0 0 0",
           "versions": {"python": "3"}}


def _template(client: Any) -> Template:
    created = client.post("/api/games", json={"ruleset": "universal", "seats": [
        {"name": "p1", "email": "p1@example.com"}, {"name": "p2", "email": "p2@example.com"}]}).json
    invites = [s["invite_token"] for s in created["seats"]]
    players = [client.post(f"/api/games/{created['id']}/join", json={"invite_token": i}).json["player_token"]
               for i in invites]
    return Template(created["id"], invites, players, created["gm_token"])


def _verified(client: Any, game_id: str) -> None:
    v = verify(client.get(f"/api/games/{game_id}/record").json)
    assert v.complete and v.salt_ok and v.replayed and not v.differences, v.differences


def test_clones_are_games_the_service_serves_plays_and_verifies(pg_app: Flask) -> None:
    client = pg_app.test_client()
    template = _template(client)
    with pg_app.app_context():
        cloner = Cloner(engine_of(pg_app), bytes.fromhex(pg_app.config["SEAL_KEY"]), template)
        clones = cloner.clone(5, batch=2)
    assert len({c.id for c in clones} | {template.id}) == 6
    with session_scope(pg_app) as s:
        assert s.scalar(select(func.count()).select_from(Game).where(Game.status == "active")) == 6
        assert s.scalar(select(func.count(func.distinct(Seat.player_token_hash)))) == 12
        assert s.scalar(select(func.count(func.distinct(Game.salt)))) == 6
        ids = s.scalars(select(Outbox.message_id)).all()
        # Each game's mails, each with its own id: per seat its invitation, "You have joined"
        # (its entropy) and the start.
        assert len(ids) == len(set(ids)) == 6 * 2 * 3
        kinds = Counter(s.scalars(select(Outbox.kind)).all())
        assert kinds == {"invitation": 12, "joined": 12, "results": 12}, kinds
    clone = clones[3]
    _verified(client, clone.id)
    # The template's tokens open nothing in a clone; the clone's own do.
    auth = {"Authorization": f"Bearer {template.players[0]}"}
    assert client.get(f"/api/games/{clone.id}/orders", headers=auth).status_code == 401
    for token in clone.players:
        auth = {"Authorization": f"Bearer {token}"}
        view = client.get(f"/api/games/{clone.id}/orders", headers=auth).json
        move = next(o["text"] for unit in sorted(view["legal"]) for o in view["legal"][unit] if o["role"] == "move")
        assert client.put(f"/api/games/{clone.id}/orders", headers=auth,
                          json={"round": view["round"], "orders": move}).status_code == 200
    assert client.get(f"/api/games/{clone.id}").json["round"] == 2  # resolved in-process
    _verified(client, clone.id)
    assert client.get(f"/games/{clone.id}/rounds/1").status_code == 200


def test_a_clone_gets_its_own_id_in_text_and_a_fresh_message_id_key() -> None:
    swaps = {"tmpl": "new1", "tok": "TOK"}
    assert replaced({"url": "/games/tmpl/join/tok", "n": [1, "tmpl"]}, swaps) == \
        {"url": "/games/new1/join/TOK", "n": [1, "new1"]}
    made = message_id("<tmpl.invitation.0123456789abcdef@dicepost.test>", swaps)
    assert made.startswith("<new1.invitation.") and made.endswith("@dicepost.test>")
    assert "0123456789abcdef" not in made
    assert message_id("<tmpl.results.step-2@x>", swaps) == "<new1.results.step-2@x>"


def test_the_history_part_runs_at_tiny_sizes_and_reports_a_size_no_ruleset_fields() -> None:
    rows = history.run(history.HistorySpec(marks=(1, 3), units=(4, 65), repeat=1))
    small, big = rows
    assert big["refused"] == "at most 64 units, not 65" and set(big["others_refuse"]) == {"jep1", "fivedice"}
    assert small["rounds_played"] == 3 and [m["rounds"] for m in small["marks"]] == [1, 3]
    for page in ("game page", "round page", "record"):
        # The statements of a page do not grow with the rounds; the record's bytes do.
        assert small["marks"][0][page]["statements"] == small["marks"][1][page]["statements"] > 0
    assert small["marks"][1]["record"]["bytes"] > small["marks"][0]["record"]["bytes"]
    assert small["slopes"][0]["from"] == 1 and small["slopes"][0]["to"] == 3
    assert small["operations"]["PUT orders"]["calls"] >= 6 and small["operations"]["resolve"]["calls"] == 3


@pytest.mark.slow
def test_the_scale_part_runs_at_tiny_sizes() -> None:
    sizes = FullSizes(web_workers=1, web_threads=2, workers=1, mail_workers=0)
    out = scale.run(sizes, scale.ScaleSpec(games=(2, 5), seconds=0.5, clients=2, resolve=2, visit=3,
                                                  tool="python"))
    assert [r["games"] for r in out["runs"]] == [2, 5]
    assert [r["active_games"] for r in out["runs"]] == [2, 5]
    assert all(r["ok"] > 0 and r["errors"] == 0 for r in out["runs"])
    assert out["resolution"]["resolved"] == 2 and out["resolution"]["errors"] == 0
    assert {m["role"] for m in out["memory"]} >= {"web", "worker 1"}
    assert out["visited"] == 3
    text = render({"machine": MACHINE, "scale": out})
    assert "Scale: submissions against active games" in text and "the orders of 3 games read once" in text


def _sub_run(games: int, web_ms: float) -> dict[str, Any]:
    return {"games": games, "active_games": games, "cloned_s": 1.0, "tool": "wrk", "clients": 16,
            "ok_per_s": 50.0, "p50_ms": 10.0, "p99_ms": 20.0, "errors": 0, "statuses": {"200": 500},
            "socket_errors": 0, "cpu_ms_per_ok": {"web": web_ms, "postgres": 1.0}, "load_after": "1 1 1"}


def _scale(ms: tuple[float, ...], counts: tuple[int, ...] = (60, 600, 6000), peak: float = 120.0) -> dict:
    return {"spec": {"seconds": 8}, "rows_per_game": {"games": 1, "seats": 2},
            "runs": [_sub_run(g, m) for g, m in zip(counts, ms, strict=True)], "active_games": max(counts),
            "memory": [{"role": "web", "pid": 1, "process": "dicepost web", "peak_rss_mb": 90.0},
                       {"role": "worker 1", "pid": 2, "process": "dicepost worker", "peak_rss_mb": peak}]}


def _judged(results: dict[str, Any]) -> dict[str, tuple[str, bool]]:
    return {t: (m, ok) for t, m, ok in all_targets({"machine": MACHINE, **results})}


def test_cpu_per_submission_is_flat_only_within_the_ratio_and_from_60_to_6000_games() -> None:
    name = "CPU per submission flat from 60 to 6,000 active games (dearest ≤ 1.25× cheapest)"
    assert _judged({"scale": _scale((8.0, 8.5, 9.0))})[name][1]
    measured, ok = _judged({"scale": _scale((8.0, 8.5, 12.0))})[name]
    assert not ok and "6,000 games 13.00 ms" in measured
    assert not _judged({"scale": _scale((8.0, 8.0), counts=(60, 600))})[name][1]  # 6,000 not reached


def test_memory_is_judged_at_6000_active_games() -> None:
    name = "≤ 150 MB per web or worker process at 6,000 active games"
    assert _judged({"scale": _scale((8.0, 8.0, 8.0))})[name] == \
        ("largest 120 MB (worker 1) at 6,000 active games", True)
    assert not _judged({"scale": _scale((8.0, 8.0, 8.0), peak=151.0)})[name][1]
    assert not _judged({"scale": _scale((8.0, 8.0), counts=(60, 600))})[name][1]  # 600 at most


def _mark(rounds: int, game_ms: float, record_ms: float, record_statements: int = 7) -> dict[str, Any]:
    return {"rounds": rounds, "game page": {"cpu_ms": game_ms, "statements": 10, "bytes": 1000},
            "round page": {"cpu_ms": 5.0, "statements": 4, "bytes": 900},
            "record": {"cpu_ms": record_ms, "statements": record_statements, "bytes": 100 * rounds}}


def _history(marks: list[dict[str, Any]]) -> dict[str, Any]:
    return {"ruleset": "universal", "size": "2×4 units", "units": 4, "others_refuse": {},
            "rounds_played": marks[-1]["rounds"], "marks": marks, "slopes": history.record_slopes(marks),
            "operations": {"PUT orders": {"calls": 2, "cpu_ms": 9.0, "statements": 8.0}}}


def test_pages_and_the_record_are_judged_at_100_rounds() -> None:
    refused = {"ruleset": "universal", "size": "2×65 units", "units": 65, "refused": "at most 64 units, not 65",
               "others_refuse": {"jep1": "at most 16 units"}}
    good = _history([_mark(10, 6.0, 5.0), _mark(50, 7.0, 25.0), _mark(100, 8.0, 50.0)])
    judged = _judged({"history": [good, refused]})
    assert judged["game page ≤ 10 ms at 100 rounds of history, 2×4 units"] == \
        ("8.0 ms CPU, 10 statements at 100 rounds (6.0 ms at 10)", True)
    assert judged["round page ≤ 10 ms at 100 rounds of history, 2×4 units"][1]
    measured, ok = judged["the record linear in rounds, 2×4 units"]
    assert ok and "0.50 ms (10→50), 0.50 ms (50→100)" in measured
    assert judged["pages and the record at 2×65 units"] == \
        ("cannot field it: universal at most 64 units, not 65; jep1: at most 16 units", False)
    slow = _history([_mark(10, 6.0, 5.0), _mark(50, 12.0, 25.0), _mark(100, 30.0, 150.0)])
    judged = _judged({"history": [slow]})
    assert not judged["game page ≤ 10 ms at 100 rounds of history, 2×4 units"][1]
    assert not judged["the record linear in rounds, 2×4 units"][1]  # 2 ms a round after 0.5: it grows
    n_plus_one = _history([_mark(10, 6.0, 5.0, 7), _mark(50, 7.0, 25.0, 47), _mark(100, 8.0, 50.0, 97)])
    assert not _judged({"history": [n_plus_one]})["the record linear in rounds, 2×4 units"][1]
    short = _history([_mark(10, 6.0, 5.0), _mark(50, 7.0, 25.0)])  # 100 rounds not reached
    assert not _judged({"history": [short]})["game page ≤ 10 ms at 100 rounds of history, 2×4 units"][1]
    text = render({"machine": MACHINE, "history": [good, refused]})
    assert "History: pages and the record" in text and "cannot field: universal at most 64 units" in text


def _phase(p99: float, sent: int) -> dict[str, Any]:
    return {"latency_ms": {"p50": p99 / 2, "p95": p99, "p99": p99}, "rounds_per_s": 10.0, "errors": 0,
            "mail": {"sent": sent, "sent_per_s": sent / 20, "at_end": {}}}


def test_latency_is_judged_at_full_and_half_speed_with_mail_on() -> None:
    full = {"full_speed": _phase(90.0, 400), "half_speed": _phase(40.0, 200), "memory": [],
            "sizes": {"workers": 2}}
    judged = _judged({"full": full})
    full_name = "p99 last order → round resolved and visible ≤ 100 ms at full speed (full stack with mail)"
    half_name = "p99 last order → round resolved and visible ≤ 30 ms at half speed (full stack with mail)"
    assert judged[full_name] == ("90 ms at 10.0 rounds/s (mail on: 20.0 sent/s)", True)
    assert not judged[half_name][1]
    no_mail = {**full, "full_speed": _phase(90.0, 0)}
    measured, ok = _judged({"full": no_mail})[full_name]
    assert not ok and "no mail sent" in measured


def test_the_in_process_comparison_runs_the_same_statements_over_few_and_many_games() -> None:
    rows = {name: (calls, statements) for name, calls, _ms, statements in scale.in_process(2, 6, 3, 2)}
    assert set(rows) == {"PUT orders over 2 games", "PUT orders over 6 games"}
    (few_calls, few), (many_calls, many) = rows["PUT orders over 2 games"], rows["PUT orders over 6 games"]
    assert few_calls == many_calls == 6 and few == many > 0


def test_pagecount_measures_the_pages_of_a_kept_game(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """bench.pagecount plays a game into a database it keeps, then measures and saves its pages."""
    import psycopg

    from bench import pagecount
    from bench.pgdb import ADMIN_URL
    from service import tasks

    send = tasks.send
    prefix = f"dicepost_bench_test_{os.getpid()}"
    try:
        pagecount.main(["--units", "4", "--rounds", "2", "--calls", "1", "--warm", "1",
                        "--save", str(tmp_path), "--prefix", prefix])
    finally:
        with psycopg.connect(ADMIN_URL, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{prefix}_4_2" WITH (FORCE)')
    assert tasks.send is send, "the doorbell is the service's again for the tests that follow"
    out = capsys.readouterr().out
    assert all(f"2x4 {page}: " in out for page in pagecount.PAGES), out
    page = (tmp_path / "round-4.html").read_text()
    assert "pages 4</a>: round 2" in page and "<svg" in page
    assert b'"steps"' in (tmp_path / "record-4.html").read_bytes()


def test_rss_plays_games_and_prints_memory_and_caches_as_they_age() -> None:
    """bench.rss plays its games round after round, resolving and mailing as the workers do,
    and prints the process's memory with what its caches hold; the doorbell is the
    service's again afterwards."""
    from bench import rss
    from service import tasks

    send = tasks.send
    lines = rss.run(games=2, rounds=2, every=1)
    assert [line.split(":")[0] for line in lines] == ["round 1", "round 2"]
    assert all(" MB" in line and "legal " in line and "mail records " in line for line in lines), lines
    assert tasks.send is send
