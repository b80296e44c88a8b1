"""The Dockerfile's build replayed outside Docker: the wheel, installed as the image installs it.

Stage 0 runs `make pyodide` (here: in the checkout, where it is usually done already);
stage 1's COPY lines pick the sources and that runtime, and its RUN line builds the wheel; stage 2's pip
commands install requirements.lock and then the wheel (not editable) into a fresh venv.
From a folder outside the checkout, that venv's python then serves every page and sends
every mail kind (render_all.py), and the image's own CMD and HEALTHCHECK run on it. Slow
(the lock's packages are installed from the package index or pip's cache): marked
`packaging`, deselect with `-m "not packaging"`.
"""

from __future__ import annotations

import glob
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import ROOT, SEAL_KEY, free_port
from tests.packaging import dockerfile

pytestmark = [pytest.mark.packaging, pytest.mark.timeout(900)]

# The image's paths, and where the replay puts them.
IMAGE_WHEELS = "/wheels"
IMAGE_LOCK = "/tmp/requirements.lock"  # noqa: S108 (a path inside the image)
USER_SETUP = {"useradd", "mkdir", "chown"}  # the image's user and instance folder


@dataclass
class Image:
    root: Path
    wheel: Path
    venv: Path
    stage: list[dockerfile.Instruction]  # the runtime stage

    def bin(self, name: str) -> str:
        return str(self.venv / "bin" / name)

    def env(self, **extra: str) -> dict[str, str]:
        """A clean environment: no checkout on the path, no dicepost settings from outside."""
        env = {k: v for k, v in os.environ.items()
               if k not in ("PYTHONPATH", "VIRTUAL_ENV", "DATABASE_URL", "REDIS_URL", "SECRET_KEY")
               and not k.startswith("DICEPOST_")}
        env.update(PATH=f"{self.venv / 'bin'}{os.pathsep}{env.get('PATH', '')}", PYTHONUNBUFFERED="1",
                   DICEPOST_INSTANCE_PATH=str(self.root / "instance"), **extra)
        return env


def run(argv: list[str], **kw: object) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(argv, capture_output=True, text=True, **kw)  # type: ignore[call-overload]
    assert done.returncode == 0, f"{' '.join(argv)} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    return done  # type: ignore[no-any-return]


FETCH_SETUP = {"apt-get", "rm"}  # stage 0's tools for make pyodide
IMAGE_SRC = "/src/"  # stage 0's WORKDIR: where make pyodide puts the runtime


def fetch_stage(stage: list[dockerfile.Instruction]) -> None:
    for ins in stage:
        if ins.name != "RUN":
            continue
        for argv in dockerfile.shell_commands(ins.args):
            if argv[0] in FETCH_SETUP:
                continue
            assert argv[0] in ("make", "test"), f"stage 0 runs {argv[0]}, which this replay does not know"
            run(argv, cwd=ROOT)


def build_stage(stage: list[dockerfile.Instruction], src: Path, wheels: Path) -> None:
    for ins in stage:
        if ins.name == "COPY" and ins.args.startswith("--from="):
            _from, image_path, dest = ins.args.split()
            assert image_path.startswith(IMAGE_SRC), image_path
            shutil.copytree(ROOT / image_path.removeprefix(IMAGE_SRC), src / dest, dirs_exist_ok=True)
        elif ins.name == "COPY":
            *sources, _dest = ins.args.split()
            for name in sources:
                from_path = ROOT / name
                if from_path.is_dir():
                    shutil.copytree(from_path, src / name, ignore=shutil.ignore_patterns("__pycache__"))
                else:
                    shutil.copy2(from_path, src / name)
        elif ins.name == "RUN":
            for argv in dockerfile.shell_commands(ins.args):
                assert argv[0] == "pip", f"the build stage runs {argv[0]}, which this replay does not know"
                argv = [a.replace(IMAGE_WHEELS, str(wheels)) for a in argv]
                run([sys.executable, "-m", *argv], cwd=src)


def runtime_stage(stage: list[dockerfile.Instruction], venv: Path, wheels: Path, cwd: Path) -> None:
    paths = {IMAGE_LOCK: str(ROOT / "requirements.lock"), IMAGE_WHEELS: str(wheels)}
    for ins in stage:
        if ins.name != "RUN":
            continue
        for argv in dockerfile.shell_commands(ins.args):
            if argv[0] in USER_SETUP:
                continue
            assert argv[0] == "pip", f"the image runs {argv[0]}, which this replay does not know"
            expanded: list[str] = []
            for arg in argv[1:]:
                for image_path, here in paths.items():
                    arg = arg.replace(image_path, here)
                expanded += sorted(glob.glob(arg)) if "*" in arg else [arg]
            run([str(venv / "bin" / "python"), "-m", "pip", *expanded], cwd=cwd)


@pytest.fixture(scope="module")
def image(tmp_path_factory: pytest.TempPathFactory) -> Image:
    root = tmp_path_factory.mktemp("image")
    fetch, build, runtime = dockerfile.stages(ROOT / "Dockerfile")
    fetch_stage(fetch)
    src, wheels = root / "src", root / "wheels"
    src.mkdir()
    build_stage(build, src, wheels)
    found = sorted(wheels.glob("dicepost-*.whl"))
    assert len(found) == 1, f"the build stage made {found}"
    venv = root / "venv"
    run([sys.executable, "-m", "venv", str(venv)])
    runtime_stage(runtime, venv, wheels, root)
    return Image(root, found[0], venv, runtime)


def test_the_wheel_carries_every_template(image: Image) -> None:
    names = set(zipfile.ZipFile(image.wheel).namelist())
    expected = {f"templates/{p.relative_to(ROOT / 'templates').as_posix()}"
                for p in (ROOT / "templates").rglob("*") if p.is_file() and "__pycache__" not in p.parts}
    assert "templates/web/home.html" in expected and "templates/email/results.txt" in expected
    assert not expected - names, f"missing from the wheel: {sorted(expected - names)}"
    assert not any(n.startswith(("tests/", "bench/")) for n in names)


def test_the_wheel_carries_the_verifiers_runtime_and_writes_the_same_bundle(image: Image, tmp_path: Path) -> None:
    """The installed wheel's `dicepost verify --bundle` prints the checkout's bundle SHA-256:
    the page, the runtime and the engine are the same bytes."""
    from service import verify_bundle

    names = set(zipfile.ZipFile(image.wheel).namelist())
    assert {f"service/static/pyodide/{n}" for n in verify_bundle.PYODIDE_FILES} <= names
    work = tmp_path / "elsewhere"
    work.mkdir()
    done = run([image.bin("dicepost"), "verify", "--bundle", str(tmp_path / "bundle")], cwd=work,
               env=image.env())
    assert done.stdout.splitlines()[-1] == f"bundle SHA-256 {verify_bundle.bundle_sha256()}", done.stdout


def test_the_installed_wheel_renders_every_page_and_every_mail(image: Image, tmp_path: Path) -> None:
    """Not editable, not beside the checkout: templates found through the installed package."""
    work = tmp_path / "elsewhere"
    work.mkdir()
    script = work / "render_all.py"
    shutil.copy2(Path(__file__).with_name("render_all.py"), script)
    db_file = work / "render.sqlite3"
    env = image.env(DATABASE_URL=f"sqlite:///{db_file}", SECRET_KEY="render-all", DICEPOST_LOG_LEVEL="WARNING",
                    DICEPOST_SEAL_KEY=SEAL_KEY)
    run([image.bin("dicepost"), "db", "upgrade"], cwd=work, env=env)
    done = subprocess.run([image.bin("python"), str(script), str(db_file)], cwd=work, env=env,
                          capture_output=True, text=True)
    assert done.returncode == 0, f"{done.stderr[-4000:]}"
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    assert set(summary["mail_kinds"]) >= {"invitation", "confirmation", "results", "reminder", "game_over",
                                          "status", "help", "refusal", "login"}
    assert {"web/home.html", "web/player.html", "web/round.html", "email/_layout.html"} <= set(summary["templates"])


def _serve(image: Image, argv: list[str], env: dict[str, str], stderr: object = subprocess.PIPE
           ) -> subprocess.Popen[bytes]:
    return subprocess.Popen([image.bin(argv[0]), *argv[1:]], env=env, cwd=image.root,  # type: ignore[call-overload]
                            stdout=subprocess.DEVNULL, stderr=stderr, start_new_session=True)


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(20)


@pytest.fixture
def served(image: Image, tmp_path: Path) -> Iterator[tuple[int, dict[str, str]]]:
    """The image's CMD on a loopback port, on a migrated SQLite file (loopback may serve it)."""
    port = free_port()
    command = dockerfile.exec_form(dockerfile.only(image.stage, "CMD").args)
    argv = [a.replace("0.0.0.0:8000", f"127.0.0.1:{port}") for a in command]
    assert argv != command, "the image's CMD does not bind 0.0.0.0:8000"
    env = image.env(DATABASE_URL=f"sqlite:///{tmp_path}/served.sqlite3", SECRET_KEY="served",
                    DICEPOST_SEAL_KEY=SEAL_KEY)
    run([image.bin("dicepost"), "db", "upgrade"], cwd=image.root, env=env)
    with (tmp_path / "server.log").open("wb") as log:
        proc = _serve(image, argv, env, stderr=log)
        try:
            yield port, env
        finally:
            _stop(proc)


def _healthcheck(image: Image, port: int, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    command = dockerfile.healthcheck_command(dockerfile.only(image.stage, "HEALTHCHECK").args)
    argv = [a.replace("127.0.0.1:8000", f"127.0.0.1:{port}") for a in command]
    return subprocess.run([image.bin(argv[0]), *argv[1:]], env=env, cwd=image.root, capture_output=True,
                          text=True, timeout=30)


def test_the_image_command_serves_and_its_health_check_passes(image: Image,
                                                               served: tuple[int, dict[str, str]]) -> None:
    port, env = served
    end = time.monotonic() + 60
    while (check := _healthcheck(image, port, env)).returncode != 0:
        assert time.monotonic() < end, f"the health check never passed: {check.stderr}"
        time.sleep(0.3)
    assert check.stdout.strip() == "healthy"


def test_the_health_check_fails_when_nothing_answers(image: Image) -> None:
    check = _healthcheck(image, free_port(), image.env())
    assert check.returncode == 1 and "unhealthy" in check.stderr


def test_the_image_command_refuses_the_embedded_default_on_all_addresses(image: Image) -> None:
    """`docker run` without DATABASE_URL and REDIS_URL: no open mailbox on 0.0.0.0."""
    command = dockerfile.exec_form(dockerfile.only(image.stage, "CMD").args)
    argv = [a.replace("0.0.0.0:8000", f"0.0.0.0:{free_port()}") for a in command]
    proc = _serve(image, argv, image.env())
    try:
        _out, err = proc.communicate(timeout=60)
    finally:
        _stop(proc)
    assert proc.returncode == 1
    assert b"refusing to serve the embedded default on 0.0.0.0" in err and b"DICEPOST_PUBLIC_EMBEDDED=1" in err


def test_the_image_command_refuses_a_database_without_the_seal_key(image: Image, tmp_path: Path) -> None:
    """`docker run -e DATABASE_URL=...` without DICEPOST_SEAL_KEY: one line, before any bind."""
    command = dockerfile.exec_form(dockerfile.only(image.stage, "CMD").args)
    argv = [a.replace("0.0.0.0:8000", f"127.0.0.1:{free_port()}") for a in command]
    proc = _serve(image, argv, image.env(DATABASE_URL=f"sqlite:///{tmp_path}/keyless.sqlite3", SECRET_KEY="k"))
    try:
        _out, err = proc.communicate(timeout=60)
    finally:
        _stop(proc)
    assert proc.returncode == 1
    assert b"DICEPOST_SEAL_KEY is required when DATABASE_URL is set" in err
