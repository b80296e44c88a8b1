"""The `dicepost` command: its sub-commands, rulesets, db upgrade, new-game, run, and every
bad input answered in one line on stderr with a non-zero status, never a traceback."""

from __future__ import annotations

import sqlite3
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from service import cli
from tests.conftest import ROOT, clean_env, dicepost_command, free_port


@pytest.fixture
def embedded_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("REDIS_URL", "DICEPOST_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path}/cli.sqlite3")
    monkeypatch.setenv("SECRET_KEY", "cli-test")
    monkeypatch.setenv("DICEPOST_INSTANCE_PATH", str(tmp_path / "instance"))
    return tmp_path


def invoke(*args: str, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(cli.cli, list(args), env=env, catch_exceptions=False)


def one_line_error(result: Result, code: int = 2) -> str:
    """The single line a refused command writes on stderr (and nothing on stdout)."""
    assert result.exit_code == code, (result.exit_code, result.stdout, result.stderr)
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("Error: "), result.stderr
    return result.stderr


def test_every_command_registers() -> None:
    for name in ("serve", "web", "run", "worker", "beat", "db", "rulesets", "new-game", "demo", "sweep",
                 "verify", "mail-ingest", "mail-poll"):
        assert name in cli.cli.commands
    db = cli.cli.commands["db"]
    assert hasattr(db, "commands") and {"upgrade", "current"} <= set(db.commands)


def test_rulesets() -> None:
    out = invoke("rulesets").stdout
    assert "universal:" in out and "--option max_rounds=0" in out and "chain_length" in out
    assert "    rules revision 1 (new games play it; older games keep theirs)" in out


def test_a_ruleset_for_exactly_two_reads_two_players() -> None:
    """jep1 is played by 2 and only 2: '(2 players)', not '(2-2 players)'."""
    out = invoke("rulesets").stdout
    jep1 = next(line for line in out.splitlines() if line.startswith("jep1:"))
    assert jep1.endswith("(2 players)")
    universal = next(line for line in out.splitlines() if line.startswith("universal:"))
    assert universal.endswith("(2 to 4 players)")


def test_db_upgrade_and_new_game(embedded_env: Path) -> None:
    from alembic.script import ScriptDirectory

    from service.migrate import MIGRATIONS

    head = ScriptDirectory(str(MIGRATIONS)).get_current_head()
    for _ in range(2):
        assert f"database at {head}: sqlite:///" in invoke("db", "upgrade").stdout
    assert invoke("db", "current").stdout.strip() == head
    made = invoke("new-game", "--ruleset", "universal", "--seat", "alice:a@example.org",
                  "--seat", "bob", "--option", "width=8", "--title", "CLI game")
    assert made.exit_code == 0
    assert "commitment S_0: " in made.stdout and made.stdout.count("/join/") == 2
    refused = invoke("new-game", "--ruleset", "universal", "--seat", "alice", "--seat", "bob",
                     "--option", "width=99")
    assert "options.width" in one_line_error(refused)


def test_new_game_option_without_a_value(embedded_env: Path) -> None:
    result = invoke("new-game", "--ruleset", "universal", "--seat", "a", "--seat", "b",
                    "--option", "width")
    assert "'width': write NAME=VALUE" in one_line_error(result)


def test_run_makes_one_demo_game(embedded_env: Path) -> None:
    first = invoke("run", "--no-serve")
    assert first.exit_code == 0
    assert first.stdout.count("player page: http://127.0.0.1:5000/games/") == 2
    second = invoke("run", "--no-serve")
    assert second.stdout == first.stdout  # the same demo game, links kept in the instance folder
    assert (embedded_env / "instance" / "demo-game.txt").read_text() in first.stdout


def test_run_without_serving_does_not_say_it_serves(embedded_env: Path) -> None:
    out = invoke("run", "--no-serve", "--port", "5123").stdout
    assert "Serving on" not in out
    assert "`dicepost serve --host 127.0.0.1 --port 5123`" in out


def test_run_does_not_print_links_saved_for_another_database(embedded_env: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """The links file names a game this database does not have: a new demo game, new links."""
    first = invoke("run", "--no-serve").stdout
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{embedded_env}/other.sqlite3")
    second = invoke("run", "--no-serve").stdout
    assert second.startswith("Demo game ") and second != first
    game_id = second.split()[2].rstrip(":")
    from service import create_app

    client = create_app({"DATABASE_URL": f"sqlite:///{embedded_env}/other.sqlite3"}).test_client()
    links = [line.split("http://127.0.0.1:5000", 1)[1] for line in second.splitlines()
             if "http://127.0.0.1:5000" in line]
    assert len(links) == 3
    for path in links:
        assert client.get(path).status_code == 200, path
    assert game_id in (embedded_env / "instance" / "demo-game.txt").read_text()


def test_worker_and_beat_refuse_embedded_mode(embedded_env: Path) -> None:
    assert "REDIS_URL" in one_line_error(invoke("worker"))
    assert "REDIS_URL" in one_line_error(invoke("beat"))


@pytest.mark.parametrize("args, says", [
    (("demo", "--ruleset", "chess"), "unknown ruleset 'chess'; known: universal, jep1, fivedice, heroes"),
    (("demo", "--players", "9"), "universal is played by 2 to 4 players, not 9"),
    (("demo", "--ruleset", "jep1", "--players", "3"), "jep1 is played by 2 players, not 3"),
    (("demo", "--players", "0"), "0 is not in the range x>=1"),
    (("run", "--port", "99999"), "99999 is not in the range 1<=x<=65535"),
    (("serve", "--port", "-1"), "-1 is not in the range 1<=x<=65535"),
    (("verify",), "give a RECORD (a file, '-' or an http(s) URL), or --bundle DIR"),
    (("verify", "record.json", "--bundle", "out"), "--bundle writes the verifier; give no RECORD with it"),
    (("no-such-command",), "No such command 'no-such-command'"),
])
def test_usage_errors_are_one_line(embedded_env: Path, args: tuple[str, ...], says: str) -> None:
    line = one_line_error(invoke(*args))
    assert says in line and "--help" in line


def test_demo_against_a_dead_server(embedded_env: Path) -> None:
    line = one_line_error(invoke("demo", "--url", f"http://127.0.0.1:{free_port()}"), code=1)
    assert "demo failed: cannot reach http://127.0.0.1:" in line and "Connection refused" in line


@pytest.mark.parametrize("url, says", [
    ("garbage", "DATABASE_URL 'garbage' is not a database URL"),
    ("nosuchdriver://x/y", "DATABASE_URL nosuchdriver://x/y is not a database URL"),
    ("postgresql://postgres:secret@127.0.0.1:1/none", "cannot use the database at postgresql://postgres:***@127.0.0.1:1/none"),
])
def test_a_bad_database_url_is_one_line(embedded_env: Path, url: str, says: str) -> None:
    for args in (("db", "upgrade"), ("serve",), ("sweep",)):
        line = one_line_error(invoke(*args, env={"DATABASE_URL": url}), code=1)
        assert says in line and "secret" not in line


def test_a_setting_that_cannot_be_read_is_one_line(embedded_env: Path) -> None:
    line = one_line_error(invoke("sweep", env={"DICEPOST_SWEEP_SECONDS": "often"}), code=1)
    assert "a setting in the environment is not valid" in line and "'often'" in line


def _schema_at(path: Path, revision: str | None) -> None:
    """An SQLite file migrated to `revision` (None: no tables), or claiming an unknown one."""
    from service import create_app
    from service.db import engine_of
    from service.migrate import upgrade

    app = create_app({"DATABASE_URL": f"sqlite:///{path}"})
    if revision == "unknown":
        upgrade(engine_of(app))
        with sqlite3.connect(path) as conn:
            conn.execute("UPDATE alembic_version SET version_num = 'f00dfeed'")
    elif revision:
        upgrade(engine_of(app), revision)
    engine_of(app).dispose()


@pytest.mark.parametrize("revision, says", [
    (None, "has no tables yet: run `dicepost db upgrade` first"),
    ("0001", "is at revision 0001, not the latest"),
    ("unknown", "is at revision f00dfeed, which this version of dicepost does not know"),
])
def test_serve_refuses_a_schema_not_at_head(embedded_env: Path, revision: str | None, says: str) -> None:
    _schema_at(embedded_env / "cli.sqlite3", revision)
    line = one_line_error(invoke("serve", "--port", str(free_port())), code=1)
    assert says in line and "cli.sqlite3" in line


def test_run_refuses_a_schema_it_does_not_know(embedded_env: Path) -> None:
    _schema_at(embedded_env / "cli.sqlite3", "unknown")
    assert "f00dfeed, which this version" in one_line_error(invoke("run", "--no-serve"), code=1)


@pytest.mark.parametrize("args, env_extra, says", [
    (("demo", "--ruleset", "chess"), {}, "unknown ruleset 'chess'"),
    (("demo", "--url", "http://127.0.0.1:9"), {}, "cannot reach http://127.0.0.1:9"),
    (("db", "upgrade"), {"DATABASE_URL": "garbage"}, "is not a database URL"),
    (("serve", "--port", "99999"), {}, "99999 is not in the range"),
    (("serve", "--port", "0"), {"DATABASE_URL": "sqlite:///{tmp}/empty.sqlite3"}, "not in the range"),
    (("serve",), {"DATABASE_URL": "sqlite:///{tmp}/empty.sqlite3"}, "run `dicepost db upgrade` first"),
])
def test_the_real_command_prints_no_traceback(tmp_path: Path, args: tuple[str, ...],
                                              env_extra: dict[str, str], says: str) -> None:
    env = clean_env(SECRET_KEY="cli-test", DATABASE_URL=f"sqlite:///{tmp_path}/cli.sqlite3")
    env.update({k: v.replace("{tmp}", str(tmp_path)) for k, v in env_extra.items()})
    done = subprocess.run([*dicepost_command(), *args], env=env, cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode != 0
    assert "Traceback" not in done.stderr, done.stderr
    assert done.stderr.count("\n") == 1 and says in done.stderr, done.stderr


def test_the_real_run_prints_its_links_and_nothing_else(tmp_path: Path) -> None:
    """A first `dicepost run` (what a fresh clone's `make run` ends with) prints the demo's
    links and no log line of the mail it sends meanwhile: nothing that reads as noise."""
    env = clean_env(SECRET_KEY="cli-test", DATABASE_URL=f"sqlite:///{tmp_path}/cli.sqlite3",
                    DICEPOST_INSTANCE_PATH=str(tmp_path / "instance"))
    done = subprocess.run([*dicepost_command(), "run", "--no-serve"], env=env, cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stderr == "", done.stderr
    assert len(done.stdout.splitlines()) == 4 and done.stdout.startswith("Demo game "), done.stdout


def test_make_run_takes_a_port() -> None:
    """`make run PORT=8123` serves on 8123 (dry run: the command make would run)."""
    done = subprocess.run(["make", "--no-print-directory", "-n", "run", "PORT=8123"], cwd=ROOT, capture_output=True,
                          text=True, timeout=60, check=True)
    assert done.stdout.strip().splitlines()[-1].endswith("/dicepost run --port 8123")
    assert "`make run PORT=8080`" in (ROOT / "README.md").read_text()


def test_serve_prints_the_mailbox_link_that_opens_it(tmp_path: Path) -> None:
    """The embedded mailbox opens only with its key, so `dicepost serve` prints the link."""
    import http.cookiejar
    import time
    import urllib.error
    import urllib.request

    port = free_port()
    env = clean_env(SECRET_KEY="cli-test", DATABASE_URL=f"sqlite:///{tmp_path}/cli.sqlite3",
                    DICEPOST_INSTANCE_PATH=str(tmp_path / "instance"))
    subprocess.run([*dicepost_command(), "db", "upgrade"], env=env, cwd=ROOT, check=True,
                   capture_output=True, timeout=120)
    err = tmp_path / "stderr.txt"
    with err.open("w") as err_file:
        server = subprocess.Popen([*dicepost_command(), "serve", "--port", str(port)], env=env, cwd=ROOT,
                                  stdout=subprocess.PIPE, stderr=err_file, text=True)
    try:
        assert server.stdout is not None
        assert server.stdout.readline() == f"Serving on http://127.0.0.1:{port}/ (Ctrl-C stops)\n"
        line = server.stdout.readline()
        assert line.startswith("Mailbox ") and f"http://127.0.0.1:{port}/mailbox?key=" in line, line
        link = line.split(": ", 1)[1].strip()
        # The link's key becomes a cookie on the redirect, as in a browser.
        browser = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
        for _ in range(100):
            try:
                with browser.open(link, timeout=5) as answer:
                    assert answer.status == 200 and b"Mailbox" in answer.read()
                break
            except urllib.error.URLError as exc:
                if isinstance(exc, urllib.error.HTTPError):
                    raise
                time.sleep(0.1)
        else:
            raise AssertionError("the server never answered")
    finally:
        server.terminate()
        server.wait(timeout=30)
    # Nothing that reads as an error on a plain start: no red "development server" banner.
    assert "WARNING" not in err.read_text() and "Traceback" not in err.read_text()
