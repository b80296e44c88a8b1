"""The capacity bench's pure parts (nothing is timed): the load generator's script and answers,
the workers' log, the report's tables and the targets judged on the capacity figures."""

from __future__ import annotations

import json

import pytest

from bench import hammer
from bench.capacity import cpu_delta, per_unit_ms, worker_log_counts
from bench.report import render
from bench.targets import all_targets

MACHINE = {"date": "d", "command": "c", "nproc": 2, "cpu": "x", "load_at_start": "0 0 0",
           "versions": {"python": "3"}}


def test_lua_strings_escape_quotes_backslashes_and_control_characters() -> None:
    assert hammer.lua_string('a"b\\c') == '"a\\"b\\\\c"'
    assert hammer.lua_string("x\ny\t") == '"x\\010y\\009"'
    assert hammer.lua_string("é") == '"é"'


def test_the_wrk_script_formats_every_request_with_its_token_and_body() -> None:
    body = json.dumps({"round": 1, "orders": "A1 move c3\nA2 attack B1"})
    script = hammer.lua_script([hammer.Request("PUT", "/api/games/g1/orders", body, "tok1"),
                                hammer.Request("GET", "/ping")])
    assert script.count("wrk.format(") >= 1
    assert '"/api/games/g1/orders"' in script and '"Bearer tok1"' in script
    assert hammer.lua_string(body) in script
    assert '{"GET", "/ping", {["Accept"] = "application/json"}, nil}' in script
    assert hammer.WRK_MARK in script


def test_wrk_figures_count_every_answer_that_is_not_2xx_and_socket_errors_as_errors() -> None:
    line = (hammer.WRK_MARK + '{"requests": 130, "duration_us": 2000000, "statuses": {"200": 120, "409": 4, '
            '"503": 6}, "socket_errors": {"connect": 0, "read": 1, "write": 0, "timeout": 2}, '
            '"p50_us": 4500, "p99_us": 31000, "mean_us": 6000.5, "max_us": 40000}')
    figures = hammer.parse_wrk("Running 2s test\n" + line + "\n")
    assert figures["ok"] == 120 and figures["ok_per_s"] == 60.0
    assert figures["errors"] == 4 + 6 + 3 and figures["socket_errors"] == 3
    assert figures["statuses"] == {"200": 120, "409": 4, "503": 6}
    assert (figures["p50_ms"], figures["p99_ms"]) == (4.5, 31.0)
    with pytest.raises(RuntimeError):
        hammer.parse_wrk("no figures here")


def test_the_python_client_is_used_without_wrk(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hammer.shutil, "which", lambda name: None)
    assert hammer.choose_tool("auto") == "python"
    with pytest.raises(SystemExit):
        hammer.choose_tool("wrk")
    monkeypatch.setattr(hammer.shutil, "which", lambda name: "/usr/bin/wrk")
    assert hammer.choose_tool("auto") == "wrk"
    assert hammer.choose_tool("python") == "python"


def test_worker_log_counts_resolved_rounds_misses_and_errors() -> None:
    log = "\n".join([
        "[2026-01-01 00:00:00,000: INFO/MainProcess] Task worker.tasks.resolve_round[a1] received",
        "[2026-01-01 00:00:00,030: INFO/ForkPoolWorker-1] Task worker.tasks.resolve_round[a1] "
        "succeeded in 0.020s: True",
        "[2026-01-01 00:00:00,060: INFO/ForkPoolWorker-1] Task worker.tasks.resolve_round[a2] "
        "succeeded in 0.040s: True",
        "[2026-01-01 00:00:00,070: INFO/ForkPoolWorker-1] Task worker.tasks.resolve_round[a3] "
        "succeeded in 0.001s: False",
        "[2026-01-01 00:00:00,090: ERROR/ForkPoolWorker-1] Task worker.tasks.resolve_round[a4] "
        "raised unexpected: OperationalError()",
    ])
    counts = worker_log_counts(log)
    assert counts["resolved"] == 2 and counts["nothing_to_do"] == 1
    assert counts["failed"] == 1 and counts["error_lines"] == 1
    assert counts["task_ms_p50"] == pytest.approx(20.0)
    assert worker_log_counts("")["task_ms_p50"] is None


def test_cpu_per_unit_by_role() -> None:
    cpu = cpu_delta({"web": 1.0, "postgres": 0.5}, {"web": 3.0, "postgres": 0.7, "worker": 1.0})
    assert cpu == pytest.approx({"web": 2.0, "postgres": 0.2, "worker": 1.0})
    assert per_unit_ms(cpu, 100) == pytest.approx({"web": 20.0, "postgres": 2.0, "worker": 10.0})
    assert per_unit_ms(cpu, 0)["web"] == pytest.approx(2000.0)  # no division by zero


def _run(ok_per_s: float, seconds: float = 10.0) -> dict:
    ok = int(ok_per_s * seconds)
    return {"requests": ok + 2, "ok": ok, "ok_per_s": ok_per_s, "errors": 2, "socket_errors": 0,
            "statuses": {"200": ok, "409": 2}, "seconds": seconds, "p50_ms": 10.0, "p99_ms": 40.0,
            "tool": "wrk", "clients": 16, "threads": 2, "load_generator_cpu_s": 0.1, "stored": ok,
            "cpu_ms_per_ok": {"web": 9.0, "postgres": 1.5, "load generator": 0.05},
            "machine": {"others_cores": 0.4}, "pg_connections_opened": 3, "load_after": "1 1 1"}


def _results(submissions: float, rounds: float) -> dict:
    resolution = {"workers": 2, "concurrency": 1, "rounds": 600, "resolved": 600, "seconds": 600 / rounds,
                  "rounds_per_s": rounds, "first_to_last_per_s": rounds * 1.02, "warm_rounds": 6,
                  "worker_boot_s": 3.0, "errors": 0, "mail_queued": 1200, "machine": {"others_cores": 0.5},
                  "log": {"task_ms_p50": 25.0}, "cpu_ms_per_round": {"web": 0.0, "worker": 24.0, "postgres": 2.5},
                  "worker_split_ms_per_round": {"consumer": 2.5, "pool": 21.5}, "load_after": "2 2 2"}
    submission = {**_run(submissions), "games": 600, "players": 2}
    return {"machine": MACHINE,
            "floor": {"pgbench": {"tps": 1000.0, "latency_ms": 1.0, "load": "0", "command": "pgbench"},
                      "redis": {"rps": 30000.0, "clients": 8, "rtt_ms": 0.05, "load": "0", "command": "rb"},
                      "web": {"tool": "wrk", "server": "granian --workers 2 --threads 8",
                              "ping": _run(2000.0), "update": _run(600.0)}},
            "capacity": {"tool": "wrk", "prepare_s": 40.0, "submission": submission, "resolution": resolution,
                         "memory": [{"role": "web", "pid": 1, "process": "dicepost web", "peak_rss_mb": 90.0}],
                         "sizes": {"web_workers": 2, "web_threads": 8, "workers": 2}}}


def test_the_report_shows_capacity_and_the_web_floor_with_their_ratios() -> None:
    text = render(_results(120.0, 40.0), md=True)
    assert "### Web floor" in text and "### Capacity" in text
    assert "| GET /ping (a short JSON) | 2,000 | 200.0% |" in text
    assert "| 120.0 | 12.0% | 20.0% |" in text  # submissions/s, of pgbench, of the web floor's PUT /update
    assert "40.0 in 15.0 s" in text and "Celery consumer 2.5, pool 21.5" in text
    assert "2 × 409" in text  # the answers that were errors, by status
    assert "0.40 of 2" in text  # the cores other work kept busy


def _target(results: dict, starts: str) -> tuple[str, bool]:
    return next((measured, ok) for name, measured, ok in all_targets(results) if name.startswith(starts))


def test_the_throughput_targets_are_judged_on_the_capacity_figures() -> None:
    met = _results(300.0, 200.0)
    assert _target(met, "order submissions")[1] and _target(met, "≥ 200 rounds")[1]
    assert _target(met, "zero errors") == ("2", False)  # the synthetic submission run's 409s count
    below = _results(299.0, 199.0)
    measured, ok = _target(below, "order submissions")
    assert not ok and "capacity, wrk, 16 connections" in measured and "web floor PUT /update 600/s" in measured
    assert not _target(below, "≥ 200 rounds")[1]


def test_without_a_capacity_run_the_latency_phase_is_judged_and_says_so() -> None:
    results = _results(300.0, 200.0)
    del results["capacity"]
    results["full"] = {"full_speed": {"submissions_per_s": 10.0, "rounds_per_s": 5.0, "errors": 0},
                       "sizes": {"workers": 2}, "memory": []}
    measured = {name: text for name, text, _ in all_targets(results)}
    assert any("not a capacity figure" in text for text in measured.values())


def test_the_floor_app_answers_ping(monkeypatch: pytest.MonkeyPatch) -> None:
    from bench.floorapp import create_app

    monkeypatch.setenv("BENCH_FLOOR_DATABASE_URL", "sqlite://")
    response = create_app().test_client().get("/ping")
    assert response.status_code == 200 and response.get_json() == {"ok": True}


def test_the_task_floor_is_reported_and_named_beside_the_resolution_target() -> None:
    results = _results(120.0, 40.0)
    results["floor"]["tasks"] = {"workers": 2, "tasks": 2000, "done": 2000, "seconds": 8.0, "tasks_per_s": 250.0,
                                 "command": "2 × celery worker -c 1"}
    text = render(results, md=True)
    assert "### Task floor" in text and "| 250 | 25.0% | 2,000 of 2,000 |" in text
    measured, ok = _target(results, "≥ 200 rounds")
    assert not ok and "Celery floor 250 trivial tasks/s with 2 workers" in measured
