"""`dicepost verify RECORD`: files, standard input and URLs; the table, --json, exit codes."""

from __future__ import annotations

import http.server
import io
import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from service.commands.verify import EXIT_DIFFERENT, EXIT_OK, EXIT_UNREADABLE, check, main
from tests.verify.conftest import ROOT, copy, serialize


@pytest.fixture
def record_file(finished, tmp_path: Path) -> Path:
    path = tmp_path / "record.json"
    path.write_bytes(serialize(finished))
    return path


@pytest.fixture
def server(finished) -> Iterator[str]:
    """A plain HTTP server with /good.json, /bad.json and 404s, on an ephemeral port."""
    bad = copy(finished)
    bad["steps"][1]["rolls"][0]["face"] = bad["steps"][1]["rolls"][0]["face"] % bad["steps"][1]["rolls"][0]["n"] + 1
    bodies = {"/good.json": serialize(finished), "/bad.json": serialize(bad)}

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # http.server's name for the handler
            body = bodies.get(self.path)
            self.send_response(200 if body else 404)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(body or b"{}")

        def log_message(self, *args: object) -> None:
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def test_a_good_file_prints_a_row_per_step_and_exits_zero(finished, record_file: Path) -> None:
    out = io.StringIO()
    assert check(str(record_file), out=out) == EXIT_OK
    lines = out.getvalue().splitlines()
    assert lines[0].startswith(f"game {finished['game_id']} (universal, rules revision 1), "
                               f"commitment S_0 {finished['commitment']}")
    assert lines[1] == f"salt G {finished['salt']} ok"
    rows = [line for line in lines if line[:5].strip().isdigit()]
    assert len(rows) == len(finished["steps"])
    for row, step in zip(rows, finished["steps"], strict=True):
        cells = row.split()
        assert cells[0] == str(step["t"]) and cells[1] == step["key"][:8] + "..."
        assert cells[2:5] == ["ok", "ok", f"{len(step['rolls'])}/{len(step['rolls'])}"]
        assert cells[5:8] == ["ok", str(len(step["events"])), step["state_hash"][:8] + "..."]
        assert cells[8] == "ok"
    rolls = sum(len(s["rolls"]) for s in finished["steps"])
    assert lines[-1].startswith(f"OK: every check holds: {len(finished['steps'])} steps, {rolls} rolls")


def test_a_difference_is_named_and_exits_non_zero(finished, tmp_path: Path) -> None:
    record = copy(finished)
    record["steps"][4]["state_hash"] = "f" * 64
    path = tmp_path / "bad.json"
    path.write_bytes(serialize(record))
    out = io.StringIO()
    assert check(str(path), out=out) == EXIT_DIFFERENT
    text = out.getvalue()
    assert (f"FAILED at step 5, state_hash: expected {finished['steps'][4]['state_hash']}, "
            f"found {'f' * 64}") in text
    row = next(line for line in text.splitlines() if line.split()[:1] == ["5"])
    assert row.split()[5] == "BAD" and row.split()[8] == "BAD"


def test_json_output_for_machines(finished, record_file: Path, tmp_path: Path) -> None:
    out = io.StringIO()
    assert check(str(record_file), as_json=True, out=out) == EXIT_OK
    report = json.loads(out.getvalue())
    assert report["ok"] is True and report["first_difference"] is None and report["replayed"] is True
    assert [s["t"] for s in report["steps"]] == [s["t"] for s in finished["steps"]]
    assert report["steps"][1]["rolls"][0]["face"] == finished["steps"][1]["rolls"][0]["face"]

    record = copy(finished)
    record["entropy"][record["players"][1]] = "ab" * 16
    bad = tmp_path / "bad.json"
    bad.write_bytes(serialize(record))
    out = io.StringIO()
    assert check(str(bad), as_json=True, out=out) == EXIT_DIFFERENT
    first = json.loads(out.getvalue())["first_difference"]
    assert first["step"] == 0 and first["where"] == "salt" and first["found"] == finished["salt"]


def test_urls(server: str, capsys) -> None:
    assert main([f"{server}/good.json"]) == EXIT_OK
    assert "OK: every check holds" in capsys.readouterr().out
    assert main([f"{server}/bad.json"]) == EXIT_DIFFERENT
    assert "FAILED at step 2, roll 0 face" in capsys.readouterr().out
    assert main([f"{server}/missing.json"]) == EXIT_UNREADABLE
    assert "cannot fetch" in capsys.readouterr().err


@pytest.mark.parametrize("content, message", [
    (None, "cannot read"),
    (b"not json", "not JSON"),
    (b'{"format": 1.0}', "whole numbers"),
])
def test_unreadable_records_exit_two(tmp_path: Path, content: bytes | None, message: str) -> None:
    path = tmp_path / "r.json"
    if content is not None:
        path.write_bytes(content)
    out, err = io.StringIO(), io.StringIO()
    assert check(str(path), out=out, err=err) == EXIT_UNREADABLE
    assert out.getvalue() == ""
    assert err.getvalue().startswith("FAILED: ") and message in err.getvalue()
    assert err.getvalue().count("\n") == 1
    out, err = io.StringIO(), io.StringIO()
    assert check(str(path), as_json=True, out=out, err=err) == EXIT_UNREADABLE
    assert json.loads(out.getvalue())["ok"] is False
    assert message in err.getvalue()


def test_standard_input_through_a_real_process(finished) -> None:
    proc = subprocess.run([sys.executable, "-m", "service.commands.verify", "-"], input=serialize(finished),
                          capture_output=True, cwd=ROOT, timeout=120, check=False)
    assert proc.returncode == EXIT_OK, proc.stdout.decode() + proc.stderr.decode()
    assert b"OK: every check holds" in proc.stdout


def test_the_dicepost_command_has_verify(record_file: Path) -> None:
    from service import cli

    assert "verify" in cli.cli.commands
    assert cli.main(["verify", str(record_file)]) == EXIT_OK


@pytest.mark.parametrize("content", [None, b"not json", b"\xff\xfe garbled"])
def test_a_missing_or_garbled_file_is_one_line_on_stderr(tmp_path: Path, content: bytes | None) -> None:
    """Through the real `dicepost` process: one line, status 2, no traceback."""
    from tests.conftest import dicepost_command

    path = tmp_path / "r.json"
    if content is not None:
        path.write_bytes(content)
    proc = subprocess.run([*dicepost_command(), "verify", str(path)], capture_output=True, text=True,
                          cwd=ROOT, timeout=120, check=False)
    assert proc.returncode == EXIT_UNREADABLE
    assert proc.stdout == ""
    assert proc.stderr.startswith("FAILED: ") and proc.stderr.count("\n") == 1, proc.stderr


def test_json_into_a_pipe_closed_early_is_no_traceback(record_file: Path) -> None:
    """`dicepost verify --json FILE | head -1`: the reader goes away; no BrokenPipeError."""
    from tests.conftest import dicepost_command

    proc = subprocess.Popen([*dicepost_command(), "verify", "--json", str(record_file)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # what `head` does once it has its lines, here before the first
    err = proc.stderr.read().decode()
    assert proc.wait(120) != 0
    assert "Traceback" not in err and "BrokenPipeError" not in err, err
