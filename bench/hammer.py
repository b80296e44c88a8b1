"""Closed-loop HTTP load: C connections send a fixed list of requests, each the moment the last is answered.

The capacity phases and the web floor use it, so both are measured by the same client.
With `wrk` on the PATH (C, Debian package `wrk`) a generated Lua script formats every
request once (init) and splits the list between wrk's threads (thread k sends entries
k, k+T, k+2T, ...); its done() prints the figures as one JSON line. Without wrk the
Python client runs: one thread and one keep-alive connection (http.client) per client.

The load generator shares the machine's cores with the server it loads, so its own CPU
is measured too (wrk: the child's rusage; Python: this process's CPU time).
"""

from __future__ import annotations

import http.client
import json
import os
import resource
import shutil
import subprocess
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass
from typing import Any

from bench.load import percentile

WRK_MARK = "BENCH-JSON "


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    body: str | None = None  # JSON text
    token: str | None = None  # Authorization: Bearer <token>

    def headers(self) -> dict[str, str]:
        out = {"Accept": "application/json"}
        if self.body is not None:
            out["Content-Type"] = "application/json"
        if self.token:
            out["Authorization"] = f"Bearer {self.token}"
        return out


def choose_tool(prefer: str = "auto") -> str:
    """"wrk" when asked for or found on the PATH ("auto"), else "python"."""
    if prefer == "python":
        return "python"
    if shutil.which("wrk"):
        return "wrk"
    if prefer == "wrk":
        raise SystemExit("--client wrk: wrk is not on the PATH (Debian: apt-get install wrk)")
    return "python"


def lua_string(text: str) -> str:
    """A Lua string literal of text (quotes, backslashes and control characters escaped)."""
    out = []
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ord(ch) < 32 or ord(ch) == 127:
            out.append(f"\\{ord(ch):03d}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def lua_script(requests: list[Request]) -> str:
    """The wrk script: the requests pre-formatted per thread, HTTP statuses counted, JSON at the end."""
    entries = []
    for r in requests:
        headers = ", ".join(f"[{lua_string(k)}] = {lua_string(v)}" for k, v in r.headers().items())
        body = lua_string(r.body) if r.body is not None else "nil"
        entries.append(f"  {{{lua_string(r.method)}, {lua_string(r.path)}, {{{headers}}}, {body}}},")
    return "\n".join([
        "local entries = {", *entries, "}",
        _LUA_BODY.replace("@MARK@", WRK_MARK),
    ])


_LUA_BODY = """
local threads = {}
local count = 0

function setup(thread)
  thread:set("id", count)
  count = count + 1
  table.insert(threads, thread)
end

function init(args)
  mine = {}
  for i = id + 1, #entries, nthreads do
    local e = entries[i]
    table.insert(mine, wrk.format(e[1], e[2], e[3], e[4]))
  end
  if #mine == 0 then
    local e = entries[1]
    table.insert(mine, wrk.format(e[1], e[2], e[3], e[4]))
  end
  n = 0
  statuses = {}
end

function request()
  n = n % #mine + 1
  return mine[n]
end

function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
end

function done(summary, latency, requests)
  local total = {}
  for _, thread in ipairs(threads) do
    for status, k in pairs(thread:get("statuses")) do
      total[status] = (total[status] or 0) + k
    end
  end
  local parts = {}
  for status, k in pairs(total) do
    table.insert(parts, string.format('"%d": %d', status, k))
  end
  local e = summary.errors
  io.write(string.format(
    '@MARK@{"requests": %d, "duration_us": %d, "statuses": {%s}, ' ..
    '"socket_errors": {"connect": %d, "read": %d, "write": %d, "timeout": %d}, ' ..
    '"p50_us": %d, "p99_us": %d, "mean_us": %.1f, "max_us": %d}\\n',
    summary.requests, summary.duration, table.concat(parts, ", "),
    e.connect, e.read, e.write, e.timeout,
    latency:percentile(50), latency:percentile(99), latency.mean, latency.max))
end
"""


def parse_wrk(stdout: str) -> dict[str, Any]:
    """The figures of a wrk run from the JSON line its script's done() printed."""
    for line in stdout.splitlines():
        if line.startswith(WRK_MARK):
            raw = json.loads(line[len(WRK_MARK):])
            seconds = raw["duration_us"] / 1e6
            statuses = {int(k): int(v) for k, v in raw["statuses"].items()}
            return _figures(statuses, sum(raw["socket_errors"].values()), seconds,
                            raw["p50_us"] / 1000, raw["p99_us"] / 1000)
    raise RuntimeError(f"no {WRK_MARK.strip()} line in wrk's output:\n{stdout[-2000:]}")


def _figures(statuses: dict[int, int], socket_errors: int, seconds: float, p50_ms: float,
             p99_ms: float) -> dict[str, Any]:
    ok = sum(k for s, k in statuses.items() if 200 <= s < 300)
    answered = sum(statuses.values())
    return {"requests": answered, "ok": ok, "ok_per_s": ok / seconds if seconds else 0.0,
            "errors": answered - ok + socket_errors, "socket_errors": socket_errors,
            "statuses": {str(s): k for s, k in sorted(statuses.items())},
            "seconds": seconds, "p50_ms": p50_ms, "p99_ms": p99_ms}


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_wrk(port: int, requests: list[Request], clients: int, seconds: float) -> dict[str, Any]:
    threads = max(1, min(2, clients, os.cpu_count() or 1))
    with tempfile.NamedTemporaryFile("w", suffix=".lua") as script:
        script.write(f"nthreads = {threads}\n" + lua_script(requests))
        script.flush()
        cpu0 = _children_cpu()
        duration = f"{max(1, round(seconds))}s"
        out = subprocess.run(["wrk", "-t", str(threads), "-c", str(clients), "-d", duration,
                              "--timeout", "10s", "-s", script.name, f"http://127.0.0.1:{port}"],
                             capture_output=True, text=True, check=True).stdout
        cpu = _children_cpu() - cpu0
    figures = parse_wrk(out)
    figures.update(tool="wrk", clients=clients, threads=threads, load_generator_cpu_s=cpu)
    return figures


def run_python(port: int, requests: list[Request], clients: int, seconds: float) -> dict[str, Any]:
    lock = threading.Lock()
    statuses: Counter[int] = Counter()
    latencies: list[float] = []
    socket_errors = [0]
    start = time.monotonic()
    deadline = start + seconds

    def client(k: int) -> None:
        mine = requests[k::clients] or requests[:1]
        prepared = [(r.method, r.path, r.body.encode() if r.body is not None else None, r.headers())
                    for r in mine]
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        seen: Counter[int] = Counter()
        took: list[float] = []
        errors = 0
        i = 0
        while time.monotonic() < deadline:
            method, path, body, headers = prepared[i % len(prepared)]
            i += 1
            t0 = time.perf_counter()
            try:
                conn.request(method, path, body, headers)
                resp = conn.getresponse()
                resp.read()
            except (OSError, http.client.HTTPException):
                errors += 1
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
                continue
            took.append(time.perf_counter() - t0)
            seen[resp.status] += 1
            if resp.will_close:
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        conn.close()
        with lock:
            statuses.update(seen)
            latencies.extend(took)
            socket_errors[0] += errors

    cpu0 = time.process_time()
    workers = [threading.Thread(target=client, args=(k,), daemon=True) for k in range(clients)]
    for t in workers:
        t.start()
    for t in workers:
        t.join(seconds + 30)
    elapsed = time.monotonic() - start
    cpu = time.process_time() - cpu0
    lat = sorted(latencies)
    figures = _figures(dict(statuses), socket_errors[0], elapsed,
                       1000 * percentile(lat, 50) if lat else 0.0, 1000 * percentile(lat, 99) if lat else 0.0)
    figures.update(tool="python", clients=clients, threads=clients, load_generator_cpu_s=cpu)
    return figures


def run(port: int, requests: list[Request], clients: int, seconds: float, tool: str) -> dict[str, Any]:
    """Load for `seconds` with `tool` ("wrk" or "python"): requests, answers by status, answer times."""
    return (run_wrk if tool == "wrk" else run_python)(port, requests, clients, seconds)
