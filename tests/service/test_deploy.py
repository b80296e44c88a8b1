"""docker-compose.yml read against what the code does (Docker cannot run here), and its
commands run for real: `dicepost web` (granian) serving the app and refusing what it must
before it binds, the dicepost sub-commands, the health checks. The Dockerfile's build and
commands run in tests/packaging."""

from __future__ import annotations

import os
import shlex
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import click
import pytest
import yaml

from service import cli, webserver
from tests.conftest import ROOT, clean_env, dicepost_command, free_port, full_env
from tests.packaging import dockerfile

COMPOSE = ROOT / "docker-compose.yml"


def _compose() -> dict[str, Any]:
    return yaml.safe_load(COMPOSE.read_text())  # type: ignore[no-any-return]


def test_services_and_durability() -> None:
    services = _compose()["services"]
    assert {"web", "worker", "beat", "postgres", "redis", "mailpit", "migrate"} <= set(services)
    redis = services["redis"]["command"]
    assert redis[redis.index("--appendonly") + 1] == "yes"
    for name in ("web", "worker", "beat"):
        env = services[name]["environment"]
        assert env["DATABASE_URL"].startswith("postgresql://") and env["REDIS_URL"].startswith("redis://")
        assert services[name]["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    assert services["web"]["command"][:2] == ["dicepost", "web"]


def _parsed_command(args: list[str]) -> click.Command:
    """The sub-command `dicepost ARGS` would run, its options parsed (click raises if not)."""
    command: click.Command | None = cli.cli
    ctx = click.Context(cli.cli, info_name="dicepost")
    rest = list(args)
    while isinstance(command, click.Group):
        name, *rest = rest
        command = command.get_command(ctx, name)
        assert command is not None, name
        ctx = command.make_context(name, rest, parent=ctx) if not isinstance(command, click.Group) \
            else click.Context(command, info_name=name, parent=ctx)
    assert command is not None
    return command


def test_every_dicepost_service_gets_the_seal_key_and_the_image_bakes_none_in() -> None:
    """Compose passes DICEPOST_SEAL_KEY from the host's environment (refusing to start without
    it); the Dockerfile neither sets it nor takes it as a build argument, so no image holds it."""
    services = _compose()["services"]
    for name in ("migrate", "web", "worker", "beat"):
        assert services[name]["environment"]["DICEPOST_SEAL_KEY"].startswith("${DICEPOST_SEAL_KEY:?"), name
    for stage in dockerfile.stages(ROOT / "Dockerfile"):
        assert not [i for i in stage if i.name in ("ENV", "ARG") and "DICEPOST_SEAL_KEY" in i.args]


def test_dicepost_commands_of_compose_parse() -> None:
    for name in ("migrate", "web", "worker", "beat"):
        command = _compose()["services"][name]["command"]
        assert command[0] == "dicepost"
        assert callable(_parsed_command(command[1:]).callback)
    with pytest.raises(click.BadParameter):
        _parsed_command(["worker", "--concurrency", "none"])
    with pytest.raises(click.BadParameter, match="is not HOST:PORT"):
        _parsed_command(["web", "--bind", "8000"])


def _served_answer(port: int) -> str:
    for _ in range(150):
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/openapi.json", timeout=2) as r:
                return str(r.read().decode())
        except OSError:
            time.sleep(0.2)
    return ""


def test_the_web_command_serves_the_app(tmp_path: Path) -> None:
    """The web service's command, on the embedded database (loopback: it may serve that)."""
    command = _compose()["services"]["web"]["command"]
    port = free_port()
    argv = [*dicepost_command(), *[a.replace("0.0.0.0:8000", f"127.0.0.1:{port}") for a in command[1:]]]
    env = clean_env(DATABASE_URL=f"sqlite:///{tmp_path}/g.sqlite3", SECRET_KEY="deploy-test")
    subprocess.run([*shlex.split(f"{sys.executable} -m service.cli"), "db", "upgrade"], env=env, cwd=ROOT,
                   check=True, capture_output=True)
    proc = subprocess.Popen(argv, env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        assert '"openapi"' in _served_answer(port)
        # A second server on the same port is refused, not let in beside the first.
        second = subprocess.run(argv, env=env, cwd=ROOT, capture_output=True, text=True, timeout=60)
        assert second.returncode == 1
        assert second.stderr == f"Error: cannot listen on 127.0.0.1:{port}: Address already in use\n"
    finally:
        os.killpg(proc.pid, 15)
        proc.wait(20)
    assert proc.returncode == 0  # stopped cleanly by SIGTERM


def _web(env: dict[str, str], bind: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*dicepost_command(), "web", "--bind", bind, "--workers", "1"], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=60)


def test_the_web_command_refuses_before_it_binds(tmp_path: Path) -> None:
    """The embedded default on a public address, a database without its seal key, a seal key
    that does not open the tips: one line each, status 1, and nothing listening."""
    port = free_port()
    embedded = clean_env(DATABASE_URL=f"sqlite:///{tmp_path}/e.sqlite3", SECRET_KEY="deploy-test")
    done = _web(embedded, f"0.0.0.0:{port}")
    assert done.returncode == 1 and done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith(f"dicepost: refusing to serve the embedded default on 0.0.0.0:{port}: ")
    keyless = {k: v for k, v in embedded.items() if k != "DICEPOST_SEAL_KEY"}
    done = _web(keyless, f"127.0.0.1:{port}")
    assert done.returncode == 1 and done.stderr.count("\n") == 1, done.stderr
    assert "DICEPOST_SEAL_KEY is required when DATABASE_URL is set" in done.stderr
    subprocess.run([*dicepost_command(), "db", "upgrade"], env=embedded, cwd=ROOT, check=True, capture_output=True,
                   timeout=120)
    subprocess.run([*dicepost_command(), "new-game", "--ruleset", "universal", "--seat", "a", "--seat", "b"],
                   env=embedded, cwd=ROOT, check=True, capture_output=True, timeout=120)
    done = _web({**embedded, "DICEPOST_SEAL_KEY": "ab" * 32}, f"127.0.0.1:{port}")
    assert done.returncode == 1 and done.stderr.count("\n") == 1, done.stderr
    assert "does not open the chain tips in this database" in done.stderr
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", port))  # free: none of them bound it


def test_web_and_worker_have_health_checks_and_web_runs_the_image_command() -> None:
    services = _compose()["services"]
    runtime = dockerfile.stages(ROOT / "Dockerfile")[-1]
    assert services["web"]["command"] == dockerfile.exec_form(dockerfile.only(runtime, "CMD").args)
    image_check = dockerfile.healthcheck_command(dockerfile.only(runtime, "HEALTHCHECK").args)
    assert services["web"]["healthcheck"]["test"] == ["CMD", *image_check]
    assert services["worker"]["healthcheck"]["test"] == ["CMD", "python", "-m", "service.health", "worker"]
    for name in ("migrate", "beat"):  # the image's check asks a web server these do not run
        assert services[name]["healthcheck"] == {"disable": True}


def test_the_web_health_check_answers_for_the_database(sqlite_app: Any) -> None:
    r = sqlite_app.test_client().get("/healthz")
    assert r.status_code == 200 and r.json == {"status": "ok", "mode": "embedded"}


def test_the_worker_health_check_pings_this_hosts_worker(pg_url: str, redis_env: dict[str, str],
                                                         worker: Any) -> None:
    """Compose's worker check, against a real worker; and against a broker prefix no worker uses."""
    command = _compose()["services"]["worker"]["healthcheck"]["test"]
    assert command[:2] == ["CMD", "python"]
    argv = [sys.executable, *command[2:]]
    env = full_env(pg_url, redis_env)
    done = subprocess.run(argv, env=env, cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == "healthy", done.stderr
    lonely = {**env, "DICEPOST_REDIS_PREFIX": f"{redis_env['DICEPOST_REDIS_PREFIX']}nobody:"}
    done = subprocess.run(argv, env=lonely, cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and "no worker on" in done.stderr


@pytest.mark.parametrize(("bind", "local"), [
    ("127.0.0.1:8000", True), ("127.0.0.2:8000", True), ("localhost:8000", True), ("[::1]:8000", True),
    ("unix:/run/dicepost.sock", True), ("0.0.0.0:8000", False), ("[::]:8000", False), (":8000", False),
    ("192.0.2.7:8000", False), ("example.org:8000", False), ("fd://3", False)])
def test_which_binds_stay_on_this_machine(bind: str, local: bool) -> None:
    assert webserver.is_local(bind) is local


@pytest.mark.parametrize(("bind", "parsed"), [
    ("127.0.0.1:8000", ("127.0.0.1", 8000)), ("[::1]:8001", ("::1", 8001)), ("192.0.2.7:80", ("192.0.2.7", 80)),
    ("unix:/run/d.sock", Path("/run/d.sock"))])
def test_binds_are_read_as_granian_takes_them(bind: str, parsed: object) -> None:
    assert webserver.parse_bind(bind) == parsed
    assert webserver.bind_text(webserver.parse_bind(bind)) == bind


@pytest.mark.parametrize("bind", ["8000", "host:", ":8000", "host:port", "host:0", "host:70000", "unix:"])
def test_a_bind_that_is_not_one_is_refused(bind: str) -> None:
    with pytest.raises(ValueError):
        webserver.parse_bind(bind)


def test_the_embedded_default_is_refused_on_a_public_bind_unless_asked() -> None:
    full = {"DATABASE_URL": "postgresql://db/dicepost", "REDIS_URL": "redis://redis:6379/0"}
    assert webserver.refusal(["0.0.0.0:8000"], full) is None
    assert webserver.refusal(["127.0.0.1:8000"], {}) is None
    for env in ({}, {"DATABASE_URL": full["DATABASE_URL"]}, {"REDIS_URL": full["REDIS_URL"]}):
        problem = webserver.refusal(["127.0.0.1:9000", "0.0.0.0:8000"], env)
        assert problem is not None and "on 0.0.0.0:8000:" in problem
    assert webserver.refusal(["0.0.0.0:8000"], {"DICEPOST_PUBLIC_EMBEDDED": "1"}) is None
    assert webserver.refusal(["0.0.0.0:8000"], {"DICEPOST_PUBLIC_EMBEDDED": "yes"}) is not None
