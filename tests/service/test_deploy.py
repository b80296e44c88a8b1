"""docker-compose.yml read against what the code does (Docker cannot run here), and its
commands run for real: gunicorn serving `service:create_app()`, the dicepost sub-commands."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import click
import pytest
import yaml

from service import cli
from tests.conftest import ROOT, clean_env, free_port

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
    assert services["web"]["command"][0] == "gunicorn" and services["web"]["command"][-1] == "service:create_app()"


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


def test_dicepost_commands_of_compose_parse() -> None:
    for name in ("migrate", "worker", "beat"):
        command = _compose()["services"][name]["command"]
        assert command[0] == "dicepost"
        assert callable(_parsed_command(command[1:]).callback)
    with pytest.raises(click.BadParameter):
        _parsed_command(["worker", "--concurrency", "none"])


def test_gunicorn_serves_the_app_factory(tmp_path: Path) -> None:
    """The web service's command, on the embedded database."""
    command = _compose()["services"]["web"]["command"]
    port = free_port()
    argv = [a.replace("0.0.0.0:8000", f"127.0.0.1:{port}") for a in command]
    argv[0] = str(Path(sys.executable).parent / "gunicorn")
    env = clean_env(DATABASE_URL=f"sqlite:///{tmp_path}/g.sqlite3", SECRET_KEY="deploy-test")
    subprocess.run([*shlex.split(f"{sys.executable} -m service.cli"), "db", "upgrade"], env=env, cwd=ROOT,
                   check=True, capture_output=True)
    proc = subprocess.Popen(argv, env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    try:
        body = ""
        for _ in range(100):
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/openapi.json", timeout=2) as r:
                    body = r.read().decode()
                break
            except OSError:
                time.sleep(0.2)
        assert '"openapi"' in body
    finally:
        os.killpg(proc.pid, 15)
        proc.wait(20)
