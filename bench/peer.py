"""Side by side with a peer: boardgame.io's own harness, then dicepost's capacity run, at one concurrency.

The peer is boardgame.io 0.50.2 with its durable FlatFile storage, driven by bare
socket.io clients (its harness's `--mode raw`): G matches × T turns, C matches played at
once. Its harness is not part of dicepost: the bench finds it at `--peer DIR`, else
`$DICEPOST_PEER_DIR`, else `DEFAULT_DIR` (a peers folder beside the checkout); copies it to
a temporary folder, runs `npm ci` there (exactly its package-lock.json) and, per
concurrency, starts its `server.js --storage flatfile` and runs `driver.js` against it.
Without the folder (or without Node) the part is skipped with a message saying why.

dicepost's side is the capacity run (bench.capacity) on one full stack: its games
prepared once, then for each concurrency, right after the peer's run at it, seat 1's PUT
of orders from as many connections; the web floor's PUT /update (one single-row UPDATE
under the same web server, granian) at the same concurrency; then the resolution phase once.

The peer's server CPU per move is its server process's CPU (from /proc) over the run
less that of a setup-only run of the same size (T = 1), over the moves that adds: the
Lobby setup and the socket connects are not charged to the moves.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import time
from contextlib import ExitStack
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from bench import hammer, machine, procs
from bench import stack as stacks
from bench.machine import load as loadavg
from bench.progress import Progress

DEFAULT_DIR = stacks.ROOT.parent / "shared" / "peers" / "boardgameio"
CONCURRENCIES = (200, 16)


@dataclass(frozen=True)
class PeerSpec:
    games: int = 200
    turns: int = 50
    concurrencies: tuple[int, ...] = CONCURRENCIES
    storage: str = "flatfile"
    mode: str = "raw"
    time_limit: int = 90  # the driver's own bound on its play phase, seconds
    embedded_games: int = 200  # the embedded default's submissions run (0: none)
    embedded_clients: int = 16
    embedded_only: bool = False  # only the embedded default's run: no peer, no full stack


def find(arg: str | None) -> tuple[Path | None, str]:
    """The harness folder and where it came from, or None and why not."""
    where = arg or os.environ.get("DICEPOST_PEER_DIR")
    source = "--peer" if arg else ("DICEPOST_PEER_DIR" if where else "the default")
    folder = Path(where) if where else DEFAULT_DIR
    if not (folder / "driver.js").is_file() or not (folder / "package-lock.json").is_file():
        return None, (f"no boardgame.io harness at {folder} ({source}): no driver.js and package-lock.json "
                      "there; give its folder with --peer DIR or DICEPOST_PEER_DIR")
    for name in ("node", "npm"):
        if not shutil.which(name):
            return None, f"{name} is not on the PATH: the boardgame.io harness at {folder} needs Node.js"
    return folder, f"{folder} ({source})"


def install(folder: Path, exits: ExitStack) -> Path:
    """A copy of the harness in a temporary folder with `npm ci` done in it."""
    tmp = Path(exits.enter_context(tempfile.TemporaryDirectory(prefix="dicepost-peer-")))
    copy = tmp / "boardgameio"
    shutil.copytree(folder, copy, ignore=shutil.ignore_patterns("node_modules", "results", "data*"))
    for p in [copy, *copy.rglob("*")]:
        p.chmod(p.stat().st_mode | 0o200)  # the source may be read-only
    bar = Progress("peer: npm ci", 1)
    subprocess.run([tool("npm"), "ci", "--no-audit", "--no-fund"], cwd=copy, check=True, capture_output=True,
                   timeout=600)
    bar.close()
    return copy


def version(copy: Path, package: str) -> str:
    try:
        return str(json.loads((copy / "node_modules" / package / "package.json").read_text())["version"])
    except (OSError, ValueError, KeyError):
        return "?"


def tool(name: str) -> str:
    """The full path of node or npm (find() has checked they are on the PATH)."""
    path = shutil.which(name)
    if path is None:
        raise RuntimeError(f"{name} is not on the PATH")
    return path


def node_env() -> dict[str, str]:
    return {**os.environ, "NODE_ENV": "production"}  # boardgame.io logs every action otherwise


def play(copy: Path, spec: PeerSpec, clients: int, turns: int) -> dict[str, Any]:
    """One run: a fresh FlatFile server, the driver against it, the server's CPU seconds."""
    port = stacks.free_port()
    data = copy / f"data-{clients}-{turns}"
    shutil.rmtree(data, ignore_errors=True)
    pid_file, stats_file = copy / "server.pid", copy / "server.json"
    pid_file.unlink(missing_ok=True)
    log = (copy / "server.log").open("wb")
    server = subprocess.Popen(
        [tool("node"), "server.js", "--port", str(port), "--storage", spec.storage, "--dir", str(data),
         "--max-seconds", str(spec.time_limit + 60), "--pid-file", str(pid_file), "--stats-file",
         str(stats_file)], cwd=copy, env=node_env(), stdout=log, stderr=subprocess.STDOUT,
        start_new_session=True)
    try:
        deadline = time.monotonic() + 30
        while not (pid_file.exists() and pid_file.read_text().strip()):
            if server.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("the boardgame.io server did not start:\n"
                                   + (copy / "server.log").read_text(errors="replace")[-2000:])
            time.sleep(0.1)
        cpu0, busy0, t0 = procs.cpu_seconds(server.pid), machine.busy_seconds(), time.monotonic()
        out_file = copy / f"driver-{clients}-{turns}.json"
        driver = subprocess.run(
            [tool("node"), "driver.js", "--port", str(port), "--games", str(spec.games),
             "--turns", str(turns), "--concurrency", str(clients), "--mode", spec.mode,
             "--time-limit", str(spec.time_limit),
             "--out", str(out_file)], cwd=copy, env=node_env(), capture_output=True, text=True,
            timeout=spec.time_limit + 30)
        server_cpu = procs.cpu_seconds(server.pid) - cpu0
        busy, wall = machine.busy_seconds() - busy0, time.monotonic() - t0
        if not out_file.exists():
            raise RuntimeError(f"the boardgame.io driver wrote no result ({driver.returncode}):\n"
                               + driver.stderr[-2000:])
        result: dict[str, Any] = json.loads(out_file.read_text())
    finally:
        if server.poll() is None:
            server.terminate()  # the harness's server waits for FlatFile's queued writes, then exits
            try:
                server.wait(15)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait(5)
        log.close()
        shutil.rmtree(data, ignore_errors=True)
    result["server_cpu_s"] = server_cpu
    driver_cpu = float(result.get("driver", {}).get("cpu_user_s", 0)) + float(
        result.get("driver", {}).get("cpu_sys_s", 0))
    # What other work on the shared cores used meanwhile (as bench.capacity.Stretch says it).
    result["others_cores"] = max(0.0, busy - server_cpu - driver_cpu) / wall if wall > 0 else 0.0
    result["server_peak_rss_mb"] = (json.loads(stats_file.read_text())["maxRSS_kb"] / 1024
                                    if stats_file.exists() else None)
    return result


def peer_run(copy: Path, spec: PeerSpec, clients: int) -> dict[str, Any]:
    """The measured run at `clients`, with the CPU of a setup-only run (T = 1) taken off the moves."""
    bar = Progress(f"peer: boardgame.io {spec.storage}, {clients} at once", 2)
    setup = play(copy, spec, clients, 1)
    bar.advance(note="setup-only run")
    full = play(copy, spec, clients, spec.turns)
    moves, setup_moves = full["play"]["moves"], setup["play"]["moves"]
    cpu = max(0.0, full["server_cpu_s"] - setup["server_cpu_s"])
    extra = moves - setup_moves
    lat = full["play"]["latency_ms"]
    out = {"clients": clients, "games": spec.games, "turns": spec.turns, "moves": moves,
           "moves_per_s": full["play"]["moves_per_s"], "p50_ms": lat["p50"], "p99_ms": lat["p99"],
           "errors": sum(full["errors"].values()) + (spec.games - full["play"]["matches_consistent"]),
           "timed_out": full["timed_out"], "server_cpu_s": full["server_cpu_s"],
           "setup_server_cpu_s": setup["server_cpu_s"],
           "server_cpu_ms_per_move": 1000 * cpu / extra if extra > 0 else None,
           "server_peak_rss_mb": full["server_peak_rss_mb"], "others_cores": full["others_cores"],
           "load_after": loadavg()}
    bar.close(f"{out['moves_per_s']:,.0f} moves/s, p99 {out['p99_ms']:,.0f} ms")
    return out


def run(sizes: stacks.FullSizes, cap_spec: Any, folder_arg: str | None,
        spec: PeerSpec = PeerSpec()) -> dict[str, Any]:
    """The peer and dicepost back to back at each concurrency; {"skipped": why} without the peer."""
    from bench import capacity
    from bench.client import Api

    client = hammer.choose_tool(cap_spec.tool)
    if spec.embedded_only:
        return {"embedded_only": True, "tool": client, "spec": spec.__dict__, "load_before": loadavg(),
                "runs": [], **_embedded_or_why(cap_spec, spec, client)}
    folder, where = find(folder_arg)
    if folder is None:
        return {"skipped": where}
    out: dict[str, Any] = {"where": where, "tool": client, "spec": spec.__dict__, "load_before": loadavg(),
                           "runs": []}
    with ExitStack() as exits:
        copy = install(folder, exits)
        out["versions"] = {p: version(copy, p) for p in ("boardgame.io", "socket.io", "node-persist")}
        out["versions"]["node"] = subprocess.run([tool("node"), "--version"], capture_output=True,
                                                 text=True).stdout.strip()
        floor = capacity.floor_stack(exits, sizes)
        stack = stacks.full_stack(exits, sizes, workers=False, tag="peer")
        api = Api(stack.port)
        db = capacity.Db(stack.db_url)
        exits.callback(db.close)
        games = capacity.prepare_games(api, cap_spec, cap_spec.rounds, 0, "dicepost: games")
        for clients in spec.concurrencies:
            at = replace(cap_spec, clients=clients)
            row: dict[str, Any] = {"clients": clients, "peer": peer_run(copy, spec, clients)}
            row["dicepost"] = capacity.submission_phase(stack, db, games, at, client)
            row["floor"] = capacity.floor_update(floor, at, client)
            out["runs"].append(row)
        out["resolution"] = capacity.resolution_phase(stack, db, api, games, sizes, cap_spec)
        out["memory"] = stack.memory()
    if spec.embedded_games:
        out.update(_embedded_or_why(cap_spec, spec, client))
    return out


def _embedded_or_why(cap_spec: Any, spec: PeerSpec, client: str) -> dict[str, Any]:
    try:
        return {"embedded": embedded(cap_spec, spec, client)}
    except (OSError, RuntimeError) as exc:  # the table above still stands without this row
        return {"embedded_failed": f"{type(exc).__name__}: {exc}"[:300]}


def embedded(cap_spec: Any, spec: PeerSpec, client: str) -> dict[str, Any]:
    """The embedded default (`dicepost serve`: Werkzeug threads, SQLite, tasks in process):
    seat 1 of each game replacing its orders, as the capacity run does."""
    from bench import capacity
    from bench.client import Api

    # SQLite has one writer at a time: the games are prepared by 2 clients, not 8.
    at = replace(cap_spec, clients=spec.embedded_clients, prep_threads=2)
    with ExitStack() as exits:
        stack = stacks.embedded_stack(exits)
        games = capacity.prepare_games(Api(stack.port), at, spec.embedded_games, 0, "embedded: games")
        figures = capacity.hammered(stack, capacity.submission_requests(games), at, client, at.seconds,
                                    "embedded: submissions")
        figures["games"] = len(games)
        figures["memory"] = stack.memory()
    return figures
