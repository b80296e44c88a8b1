"""The verifier as static files: the page, its Python runtime and the engine.

The same files are served by the service (/verify, /verify-runtime/<name>) and written by
`dicepost verify --bundle DIR`, laid out as

    index.html                      the verifier page, byte for byte templates/verify/verifier.html
    verify-runtime/engine.zip       the engine's own files (engine/**/*.py, *.json), stored
    verify-runtime/pyodide.*, python_stdlib.zip, pyodide-lock.json   npm's pyodide package
    verify-runtime/SHA256SUMS       one line "<sha256 hex>  <path>" per other file, sorted

The page finds the runtime at `verify-runtime/` beside itself. The bundle's SHA-256 is the
SHA-256 of its SHA256SUMS file: `sha256sum -c verify-runtime/SHA256SUMS && sha256sum
verify-runtime/SHA256SUMS` in the bundle checks it with coreutils alone. The runtime is
there only where `make pyodide` fetched it (service/static/pyodide/); without it the
bundle, like the page, checks the dice in JavaScript and says what it did not check.
"""

from __future__ import annotations

import hashlib
import io
import zipfile
from functools import lru_cache
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

__all__ = ["MANIFEST", "PAGE_NAME", "PYODIDE_FILES", "RUNTIME", "bundle_files", "bundle_sha256",
           "engine_zip", "has_runtime", "manifest", "page_bytes", "runtime_files", "write_bundle"]

PAGE_NAME = "index.html"
RUNTIME = "verify-runtime"
MANIFEST = f"{RUNTIME}/SHA256SUMS"
ENGINE_ZIP = "engine.zip"
PYODIDE_FILES = ("pyodide.mjs", "pyodide.asm.js", "pyodide.asm.wasm", "python_stdlib.zip",
                 "pyodide-lock.json")
_ENGINE_SUFFIXES = (".py", ".json")
_ZIP_TIME = (1980, 1, 1, 0, 0, 0)
PAGE = resources.files("templates").joinpath("verify", "verifier.html")


@lru_cache(maxsize=1)
def page_bytes() -> bytes:
    return PAGE.read_bytes()


def _pyodide_dir() -> Traversable:
    return resources.files("service").joinpath("static", "pyodide")


def has_runtime() -> bool:
    folder = _pyodide_dir()
    return all(folder.joinpath(name).is_file() for name in PYODIDE_FILES)


def _engine_sources(folder: Traversable, prefix: str) -> list[tuple[str, bytes]]:
    out: list[tuple[str, bytes]] = []
    for item in folder.iterdir():
        name = f"{prefix}/{item.name}"
        if item.is_dir():
            if item.name != "__pycache__":
                out += _engine_sources(item, name)
        elif item.name.endswith(_ENGINE_SUFFIXES):
            out.append((name, item.read_bytes()))
    return out


@lru_cache(maxsize=1)
def engine_zip() -> bytes:
    """The engine's files in a zip that is the same bytes for the same files (stored, not
    deflated: compressors differ between zlib builds; sorted names, one fixed time)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
        for name, data in sorted(_engine_sources(resources.files("engine"), "engine")):
            info = zipfile.ZipInfo(name, date_time=_ZIP_TIME)
            info.external_attr = 0o644 << 16
            archive.writestr(info, data)
    return buffer.getvalue()


@lru_cache(maxsize=1)
def runtime_files() -> dict[str, bytes]:
    """verify-runtime/'s files by name: the engine, and the runtime where it was fetched."""
    files = {ENGINE_ZIP: engine_zip()}
    if has_runtime():
        folder = _pyodide_dir()
        files.update({name: folder.joinpath(name).read_bytes() for name in PYODIDE_FILES})
    return files


def manifest(files: dict[str, bytes]) -> bytes:
    """SHA256SUMS: `sha256sum`'s own format, one line per file, sorted by path."""
    return "".join(f"{hashlib.sha256(data).hexdigest()}  {path}\n"
                   for path, data in sorted(files.items())).encode()


@lru_cache(maxsize=1)
def bundle_files() -> dict[str, bytes]:
    """Every file of the bundle by its path, SHA256SUMS included."""
    files = {PAGE_NAME: page_bytes(), **{f"{RUNTIME}/{n}": b for n, b in runtime_files().items()}}
    files[MANIFEST] = manifest(files)
    return files


def bundle_sha256() -> str:
    return hashlib.sha256(bundle_files()[MANIFEST]).hexdigest()


def write_bundle(folder: Path) -> str:
    """Write the bundle into `folder` (made if missing); return its SHA-256."""
    for path, data in bundle_files().items():
        target = folder / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return bundle_sha256()
