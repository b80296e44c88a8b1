"""The side-by-side bench's pure parts (nothing is timed): finding the peer's harness, the table
and the targets judged on made-up figures."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import peer
from bench.report import render
from bench.targets import peer_targets

MACHINE = {"date": "d", "command": "c", "nproc": 2, "cpu": "x", "load_at_start": "0 0 0",
           "versions": {"python": "3"}}


def test_a_missing_harness_is_skipped_with_the_folder_and_how_to_give_another(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DICEPOST_PEER_DIR", raising=False)
    folder, why = peer.find(str(tmp_path / "nowhere"))
    assert folder is None
    assert str(tmp_path / "nowhere") in why and "--peer DIR" in why and "DICEPOST_PEER_DIR" in why


def test_the_harness_is_found_by_the_environment_variable_when_no_option_names_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "driver.js").write_text("")
    (tmp_path / "package-lock.json").write_text("{}")
    monkeypatch.setenv("DICEPOST_PEER_DIR", str(tmp_path))
    monkeypatch.setattr(peer.shutil, "which", lambda name: f"/usr/bin/{name}")
    folder, why = peer.find(None)
    assert folder == tmp_path and "DICEPOST_PEER_DIR" in why
    monkeypatch.setattr(peer.shutil, "which", lambda name: None)
    folder, why = peer.find(None)
    assert folder is None and "node is not on the PATH" in why


def test_the_default_folder_is_next_to_the_checkout() -> None:
    assert Path(peer.__file__).resolve().parent.parent.parent / "shared/peers/boardgameio" == peer.DEFAULT_DIR


def _hammered(ok_per_s: float, p50: float, p99: float, web: float, pg: float) -> dict[str, object]:
    return {"ok_per_s": ok_per_s, "p50_ms": p50, "p99_ms": p99, "errors": 0, "socket_errors": 0,
            "statuses": {"200": 100}, "cpu_ms_per_ok": {"web": web, "postgres": pg, "load generator": 0.1},
            "machine": {"others_cores": 1.5}}


def results() -> dict[str, object]:
    runs = []
    for clients, moves, p99 in ((200, 1200.0, 240.0), (16, 900.0, 30.0)):
        runs.append({"clients": clients,
                     "peer": {"clients": clients, "moves_per_s": moves, "p50_ms": 10.0, "p99_ms": p99,
                              "errors": 0, "timed_out": False, "server_cpu_ms_per_move": 1.1,
                              "server_peak_rss_mb": 170.0, "others_cores": 0.25},
                     "dicepost": _hammered(1500.0 if clients == 200 else 600.0, 50, 200, 1.0, 0.4),
                     "floor": _hammered(1800.0, 5, 20, 0.9, 0.2)})
    return {"machine": MACHINE, "peer": {
        "where": "/peer (the default)", "tool": "wrk", "versions": {"boardgame.io": "0.50.2", "node": "v20"},
        "spec": {"games": 200, "turns": 50, "storage": "flatfile"}, "runs": runs,
        "embedded": {**_hammered(320.0, 20, 60, 2.5, 0.0), "clients": 16},
        "resolution": {"workers": 2, "rounds_per_s": 520.0, "cpu_ms_per_round": {"worker": 3.5}},
        "memory": [{"role": "web", "pid": 1, "process": "dicepost web", "peak_rss_mb": 90.0}]}}


def test_the_table_shows_both_sides_their_ratio_and_the_floor_first() -> None:
    text = render(results())  # type: ignore[arg-type]
    assert text.index("Side by side with boardgame.io") < text.index("Targets")
    row = next(line for line in text.splitlines() if line.startswith("turns accepted per second, 200"))
    assert "1,200 moves/s" in row and "1,500 submissions/s" in row and "1.25×" in row and "1,800/s" in row
    cpu = next(line for line in text.splitlines() if line.startswith("server CPU ms per turn, 16"))
    assert "1.10" in cpu and "1.40 (web 1.00 + PostgreSQL 0.40)" in cpu and "1.27×" in cpu
    others = next(line for line in text.splitlines() if line.startswith("cores busy with other work, 16"))
    assert "0.25" in others and "1.50" in others
    embedded = next(line for line in text.splitlines() if line.startswith("embedded default"))
    assert "320 submissions/s, 20 / 60 ms" in embedded


def test_each_target_against_the_peer_is_judged_at_each_concurrency() -> None:
    judged = {name: ok for name, _measured, ok in peer_targets(results())}
    assert judged["submissions/s ≥ boardgame.io FlatFile's moves/s, 200 at once"] is True
    assert judged["submissions/s ≥ boardgame.io FlatFile's moves/s, 16 at once"] is False
    assert judged["p99 answer time ≤ boardgame.io's p99 move latency, 200 at once"] is True
    assert judged["p99 answer time ≤ boardgame.io's p99 move latency, 16 at once"] is False
    assert judged["CPU per submission (web + PostgreSQL) ≤ 1.5 ms, 16 at once"] is True
    assert judged["≥ 500 rounds resolved/s with 2 worker processes (run with 2)"] is True
    assert judged["the embedded default ≥ 300 submissions/s (16 at once)"] is True


def test_a_skipped_peer_says_why_and_judges_nothing() -> None:
    skipped = {"machine": MACHINE, "peer": {"skipped": "no boardgame.io harness at /x"}}
    assert "skipped: no boardgame.io harness at /x" in render(skipped)
    assert peer_targets(skipped) == []


def test_the_embedded_default_alone_is_shown_and_judged_without_the_peer() -> None:
    alone = {"machine": MACHINE, "peer": {
        "embedded_only": True, "tool": "wrk", "spec": {}, "runs": [],
        "embedded": {**_hammered(120.0, 90, 400, 8.0, 0.0), "clients": 16}}}
    text = render(alone)
    assert "Only the embedded default" in text and "boardgame.io 0" not in text
    row = next(line for line in text.splitlines() if line.startswith("embedded default"))
    assert "120 submissions/s, 90 / 400 ms" in row and "web CPU 8.00 ms" in row
    judged = {name: ok for name, _measured, ok in peer_targets(alone)}
    assert judged == {"the embedded default ≥ 300 submissions/s (16 at once)": False}
