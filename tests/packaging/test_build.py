"""The project builds without a warning: as a wheel (the image's) and editable (`make venv`'s).

setuptools warns when a folder Python could import is left out of the packages (it then
leaves its files out of the wheel) and about an editable install's import hooks; both
printed dozens of lines on every fresh `make run`. Built here by setuptools' own backend,
from a copy of the sources the Dockerfile copies, so the checkout gets no build/ folder.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

from tests.conftest import ROOT

SOURCES = ("engine", "service", "worker", "templates", "pyproject.toml", "README.md")
# The warnings module's line: "path.py:LINE: Category: message".
WARNING_LINE = re.compile(r"^\S+\.py:\d+: \w*Warning: .*$", re.MULTILINE)


def test_the_wheel_and_the_editable_install_build_without_a_warning(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    for name in SOURCES:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, src / name, ignore=shutil.ignore_patterns("__pycache__", "pyodide"))
        else:
            shutil.copy2(ROOT / name, src / name)
    sources = {p.relative_to(src).as_posix() for name in SOURCES if (src / name).is_dir()
               for p in (src / name).rglob("*") if p.is_file()}
    out = tmp_path / "out"
    done = subprocess.run(
        [sys.executable, "-W", "always", "-c",
         "import sys, setuptools.build_meta as b; b.build_wheel(sys.argv[1]); b.build_editable(sys.argv[1])",
         str(out)], cwd=src, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-4000:]
    assert not WARNING_LINE.findall(done.stdout + done.stderr), WARNING_LINE.findall(done.stdout + done.stderr)
    wheel = next(out.glob("dicepost-*-py3-none-any.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "templates/web/home.html" in sources and "engine/rulesets/heroes/data/maps/tiles.json" in sources
    assert not sources - names, f"missing from the wheel: {sorted(sources - names)}"
